/* error.c — one idiom for errors: print once, return the exit code. */
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "b2.h"

/* Control characters in a message (from a file name or a string of an
 * input) shown escaped, so that a message is one line. */
void b2_msg_clean(char *msg)
{
	char out[2048];
	size_t k = 0;
	for (const unsigned char *p = (const unsigned char *)msg; *p && k + 5 < sizeof out; p++) {
		if (*p >= 0x20 && *p != 0x7f)
			out[k++] = (char)*p;
		else
			k += (size_t)snprintf(out + k, sizeof out - k, *p == '\n' ? "\\n" : *p == '\t' ? "\\t"
			                      : *p == '\r' ? "\\r" : "\\x%02x", *p);
	}
	out[k] = 0;
	memcpy(msg, out, k + 1);
}

/* A message as the line it is printed as: the program, the rank where
 * there are several, the message. */
static void as_line(char *out, size_t n, const char *msg)
{
	if (b2_nranks > 1)
		snprintf(out, n, "%s [rank %d]: %s\n", b2_prog, b2_rank, msg);
	else
		snprintf(out, n, "%s: %s\n", b2_prog, msg);
}

static void vreport(const char *fmt, va_list ap)
{
	char msg[2048], line[2200];
	vsnprintf(msg, sizeof msg, fmt, ap);
	b2_msg_clean(msg);
	as_line(line, sizeof line, msg);
	fputs(line, stderr);
	fflush(stderr);
}

int b2_err(int code, const char *fmt, ...)
{
	va_list ap;
	b2_error_seen(code);
	va_start(ap, fmt);
	vreport(fmt, ap);
	va_end(ap);
	return code;
}

/* b2_err_held's message, until an agreement or an abort prints it; and
 * the line it prints as, for the deadline's signal handler, which may
 * only write(2) it */
static char held[2048], held_line[2200];

static void drop_held(void)
{
	held[0] = held_line[0] = 0;
}

int b2_err_held(int code, const char *fmt, ...)
{
	va_list ap;
	b2_error_seen(code);
	va_start(ap, fmt);
	vsnprintf(held, sizeof held, fmt, ap);
	va_end(ap);
	b2_msg_clean(held);
	as_line(held_line, sizeof held_line, held);
	if (b2_nranks <= 1)
		b2_print_held();
	return code;
}

const char *b2_held_line(void)
{
	return held_line;
}

int b2_print_held(void)
{
	if (!held[0])
		return 0;
	b2_err(0, "%s", held);
	drop_held();
	return 1;
}

/* After an agreement on a code that is not 0, on every rank of comm: the
 * held messages printed once, by the lowest rank holding one. */
static void report_held(MPI_Comm comm)
{
	int me = 0, in[2], out[2] = {INT_MAX, 0};
	MPI_Comm_rank(comm, &me);
	in[0] = held[0] ? me : INT_MAX;
	in[1] = held[0] != 0;
	if (MPI_Allreduce(&in[0], &out[0], 1, MPI_INT, MPI_MIN, comm) != MPI_SUCCESS ||
	    MPI_Allreduce(&in[1], &out[1], 1, MPI_INT, MPI_SUM, comm) != MPI_SUCCESS) {
		b2_print_held(); /* each its own, rather than none */
		return;
	}
	if (out[0] == me && out[1] > 1) {
		char also[64];
		snprintf(also, sizeof also, " (and on %d other rank%s)", out[1] - 1, out[1] > 2 ? "s" : "");
		strncat(held, also, sizeof held - strlen(held) - 1);
	}
	if (out[0] == me)
		b2_print_held();
	drop_held();
}

int b2_err0(int code, const char *fmt, ...)
{
	va_list ap;
	b2_error_seen(code);
	if (b2_rank != 0)
		return code;
	va_start(ap, fmt);
	char msg[2048];
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	b2_msg_clean(msg);
	fprintf(stderr, "%s: %s\n", b2_prog, msg);
	fflush(stderr);
	return code;
}

/* Every rank takes part in one MPI_Iallreduce (a non-blocking collective
 * matches only non-blocking ones, so all ranks must use it). A rank without
 * an error waits as long as the others work; a rank with one polls until
 * B2_ERROR_WAIT: peers that do not come are stuck in another collective, and
 * would stay there, so it ends the job. (Some callers agree on a flag, not an
 * error: those run where every rank arrives at once.) */
int b2_agree(int code, MPI_Comm comm)
{
	int all = code, n = 1, done = 0, rc;
	MPI_Request req;
	if (comm == MPI_COMM_NULL || MPI_Comm_size(comm, &n) != MPI_SUCCESS || n == 1) {
		b2_print_held();
		return code;
	}
	rc = MPI_Iallreduce(&code, &all, 1, MPI_INT, MPI_MAX, comm, &req);
	if (rc == MPI_SUCCESS && code == 0) {
		rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
	} else if (rc == MPI_SUCCESS) {
		double end = b2_now() + b2_error_wait();
		long ns = 20000;
		while ((rc = MPI_Test(&req, &done, MPI_STATUS_IGNORE)) == MPI_SUCCESS && !done) {
			if (b2_now() > end)
				b2_abort(code);
			struct timespec ts = {0, ns};
			nanosleep(&ts, NULL);
			ns = ns < 10000000 ? 2 * ns : ns;
		}
	}
	if (rc != MPI_SUCCESS) {
		/* the peers cannot learn our code: they would wait */
		b2_mpi_ok(rc, "agreeing on the exit code");
		b2_abort(code ? code : B2_EFAIL);
	}
	if (all)
		report_held(comm);
	return all;
}

int b2_mpi_ok(int mpierr, const char *what)
{
	char s[MPI_MAX_ERROR_STRING];
	int len = 0;
	if (mpierr == MPI_SUCCESS)
		return 0;
	MPI_Error_string(mpierr, s, &len);
	return b2_err(B2_EFAIL, "%s failed: %s", what, s);
}

/* "N bytes" for a request of n x size bytes: the true product, also past
 * what size_t holds (a size derived from a damaged or hostile input). */
static void need_str(char *b, size_t bn, uint64_t n, uint64_t size)
{
	uint64_t bytes;
	if (b2_mul_ok(&bytes, n, size))
		snprintf(b, bn, "%llu bytes", (unsigned long long)bytes);
	else
		snprintf(b, bn, "%.4g bytes (%llu x %llu)", (double)n * (double)size,
		         (unsigned long long)n, (unsigned long long)size);
}

int b2_alloc_n(void *out_ptr, uint64_t n, uint64_t size, const char *what)
{
	uint64_t bytes = 0;
	void *p = NULL;
	if (b2_mul_ok(&bytes, n, size) && bytes <= (uint64_t)PTRDIFF_MAX)
		p = malloc(bytes ? (size_t)bytes : 1);
	*(void **)out_ptr = p;
	if (!p) {
		char need[96];
		need_str(need, sizeof need, n, size);
		/* every rank may run out alike: one message (b2_err_held) */
		return b2_err_held(B2_EIO, "out of host memory: %s for %s", need, what);
	}
	return 0;
}

int b2_alloc(void *out_ptr, size_t bytes, const char *what)
{
	return b2_alloc_n(out_ptr, bytes, 1, what);
}

int b2_calloc(void *out_ptr, size_t n, size_t size, const char *what)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	*(void **)out_ptr = p;
	if (!p) {
		char need[96];
		need_str(need, sizeof need, n, size);
		return b2_err(B2_EIO, "out of host memory: %s for %s", need, what);
	}
	return 0;
}
