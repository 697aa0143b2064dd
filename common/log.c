/* log.c — messages and progress on rank 0's stderr. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "b2.h"

static int verbosity;

void b2_log_set_verbosity(int v) { verbosity = v; }
int b2_log_verbosity(void) { return verbosity; }

/* messages are one line each: control characters from input strings shown
 * escaped (b2_msg_clean) */
#define VPRINT(prefix) do { \
	va_list ap; char msg_[2048]; va_start(ap, fmt); vsnprintf(msg_, sizeof msg_, fmt, ap); va_end(ap); \
	b2_msg_clean(msg_); fprintf(stderr, "%s: " prefix "%s\n", b2_prog, msg_); fflush(stderr); } while (0)

void b2_info(const char *fmt, ...)
{
	if (b2_rank == 0 && verbosity >= 0)
		VPRINT("");
}

void b2_debug(const char *fmt, ...)
{
	if (b2_rank == 0 && verbosity >= 1)
		VPRINT("");
}

void b2_warn(const char *fmt, ...)
{
	if (b2_nranks > 1) {
		va_list ap; char msg_[2048]; va_start(ap, fmt); vsnprintf(msg_, sizeof msg_, fmt, ap); va_end(ap);
		b2_msg_clean(msg_);
		fprintf(stderr, "%s [rank %d]: warning: %s\n", b2_prog, b2_rank, msg_); fflush(stderr);
	} else {
		VPRINT("warning: ");
	}
}

void b2_warn0(const char *fmt, ...)
{
	if (b2_rank == 0)
		VPRINT("warning: ");
}

static int forced = -1; /* --progress: 1; else from the environment */

void b2_log_force_progress(int on) { forced = on; }

/* Whether the user is watching a terminal although stderr may be a pipe:
 * --progress, B2_PROGRESS=1, or Slurm's srun --pty. */
static int watched(void)
{
	if (forced >= 0)
		return forced;
	const char *e = getenv("B2_PROGRESS");
	if (e && *e)
		return strcmp(e, "0") != 0;
	return getenv("SLURM_PTY_PORT") != NULL;
}

static int progress_wanted(void)
{
	if (b2_rank != 0 || verbosity < 0)
		return 0;
	const char *e = getenv("B2_PROGRESS");
	if (forced < 0 && e && strcmp(e, "0") == 0)
		return 0;
	return verbosity >= 1 || isatty(STDERR_FILENO) || watched();
}

/* A live line ("\r") for a terminal, or where the launcher says the job has
 * one (Slurm's srun --pty); anything else is a log (a pipe, a file, a batch
 * job's output), which gets whole lines at a modest rate, however progress
 * was asked for. */
static int live(void) { return isatty(STDERR_FILENO) || getenv("SLURM_PTY_PORT") != NULL; }
/* seconds between lines: a live line, and a log's */
#define LIVE_EVERY 0.25
#define LOG_EVERY 10.0

static void fmt_secs(char *buf, size_t n, double s)
{
	if (s < 0 || s > 1e7)
		snprintf(buf, n, "?");
	else if (s < 60)
		snprintf(buf, n, "%.0fs", s);
	else if (s < 3600)
		snprintf(buf, n, "%dm%02ds", (int)s / 60, (int)s % 60);
	else
		snprintf(buf, n, "%dh%02dm", (int)s / 3600, ((int)s % 3600) / 60);
}

void b2_progress_begin(b2_progress *p, const char *what, const char *unit, double total)
{
	p->what = what;
	p->unit = unit;
	p->total = total;
	p->t0 = p->last = b2_now();
	p->active = progress_wanted();
}

void b2_progress_step(b2_progress *p, double done)
{
	if (!p->active)
		return;
	double now = b2_now();
	int tty = live();
	if (now - p->last < (tty ? LIVE_EVERY : LOG_EVERY))
		return;
	p->last = now;
	double el = now - p->t0, rate = el > 0 ? done / el : 0;
	char eta[32];
	fmt_secs(eta, sizeof eta, rate > 0 ? (p->total - done) / rate : -1);
	fprintf(stderr, "%s: %s %5.1f%%  %.3g %s/s  ETA %s%s", b2_prog, p->what,
	        p->total > 0 ? 100.0 * done / p->total : 0.0, rate, p->unit, eta, tty ? "   \r" : "\n");
	fflush(stderr);
}

void b2_progress_end(b2_progress *p)
{
	if (!p->active)
		return;
	double el = b2_now() - p->t0;
	char t[32];
	fmt_secs(t, sizeof t, el);
	/* on a live line, spaces wipe what is left of the last update */
	fprintf(stderr, "%s: %s done in %s (%.3g %s/s)%s\n", b2_prog, p->what, t,
	        el > 0 ? p->total / el : 0.0, p->unit, live() ? "          " : "");
	fflush(stderr);
	p->active = 0;
}
