/* csv.c — the CSV table (--format csv) and --append: adding a campaign's
 * runs to one table, under a lock, once each. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include "report.h"

static void cstr(FILE *f, const char *s) { b2_fput_csv(f, s ? s : ""); }
static void cnum(FILE *f, double v)
{
	if (isfinite(v))
		fprintf(f, ",%.17g", v);
	else
		fputs(",", f);
}
static void cint(FILE *f, int64_t v) /* negative: not recorded */
{
	if (v >= 0)
		fprintf(f, ",%lld", (long long)v);
	else
		fputs(",", f);
}
static void cfield(FILE *f, const char *s) /* ",s", empty when NULL */
{
	fputs(",", f);
	cstr(f, s ? s : "");
}
static void cstats(FILE *f, const stats *s, int ok)
{
	const double v[7] = {s->min, s->q1, s->median, s->q3, s->max, s->mean, s->std};
	for (int i = 0; i < 7; i++)
		cnum(f, ok ? v[i] : NAN);
}

/* The columns, in a fixed order: a file of appended rows (--append) stays
 * one table. New columns go at the end. */
static const char *const csv_stat[7] = {"min", "firstquartile", "median", "thirdquartile", "max",
                                        "mean", "stddev"};

const char *csv_header(void)
{
	static char h[4096];
	size_t n = 0;
	if (h[0])
		return h;
#define H(...) n += (size_t)snprintf(h + n, sizeof h - n, __VA_ARGS__)
	H("run,bfs_file,validation_file,graph,SCALE,edgefactor,num_vertices,num_input_edges,grid,"
	  "num_mpi_processes,num_gpus,backend,num_searches,num_passed,num_failed,num_unvalidated,"
	  "validated,NBFS,graph_generation,construction_time");
	for (int i = 0; i < 7; i++) H(",%s_time", csv_stat[i]);
	for (int i = 0; i < 7; i++) H(",%s_nedge", csv_stat[i]);
	for (int i = 0; i < 5; i++) H(",%s_TEPS", csv_stat[i]);
	H(",harmonic_mean_TEPS,harmonic_stddev_TEPS");
	for (int i = 0; i < 7; i++) H(",%s_validate", csv_stat[i]);
	H(",GTEPS,GTEPS_per_gpu,speedup");
	for (int p = 0; p < NPHASE; p++) {
		H(",phase_");
		for (const char *c = report_phase_names[p]; *c; c++)
			H("%c", *c == ' ' ? '_' : *c);
	}
	H(",load_time,expansion_top_down,expansion_bottom_up,edges_examined_ratio,"
	  "small_component_searches,roots_from,oversubscribed,baseline_speedup,edges_fingerprint,"
	  "created_utc,created_on,program_version,git_commit");
	H(",run_id,direction,alpha,beta,bitmap,exchange,seed,nroots,warmup,edges_per_thread,devices,"
	  "gpu_names,cuda_driver_version,partition_time,load_read_time,load_build_time,"
	  "time_max_over_min,rate_cv,noisy,graph500_nbfs,baseline_verdict,baseline_commit");
	H(",label,variant,threads_per_rank,unvalidated_reason,baseline_option_diffs");
	for (int k = 0; k < 2; k++)
		for (int p = 0; p < NPHASE; p++) {
			H(k ? ",phase_imbalance_" : ",phase_max_");
			for (const char *c = report_phase_names[p]; *c; c++)
				H("%c", *c == ' ' ? '_' : *c);
		}
	for (int x = 0; x < NEXCH; x++)
		H(",bytes_%s", report_exchange_names[x]);
	H(",pred_bytes\n");
#undef H
	return h;
}

int print_csv(FILE *f, run *runs, int nruns)
{
	fputs(csv_header(), f);
	return print_csv_rows(f, runs, nruns);
}

int print_csv_rows(FILE *f, run *runs, int nruns)
{
	for (int i = 0; i < nruns; i++) {
		const run *r = &runs[i];
		int ok = r->nused > 0;
		fprintf(f, "%d,", r->index);
		cstr(f, r->bfs_path); fputs(",", f);
		cstr(f, r->valid_path ? r->valid_path : ""); fputs(",", f);
		cstr(f, r->graph);
		fprintf(f, ",%lld,%lld,%lld,%lld,%lldx%lld,%lld,%lld,", (long long)r->scale_shown,
		        (long long)r->ef_shown, (long long)r->N, (long long)r->M, (long long)r->rows,
		        (long long)r->cols, (long long)r->ranks, (long long)r->gpus);
		cstr(f, r->backend);
		fprintf(f, ",%lld,%lld,%lld,%lld,%d,%lld", (long long)r->K, (long long)r->npassed,
		        (long long)r->nfailed, (long long)r->nunvalidated,
		        ok && r->npassed == r->nused, (long long)r->nused);
		cnum(f, r->gen_time);
		cnum(f, r->construction_time);
		cstats(f, &r->time_st, ok);
		cstats(f, &r->nedge_st, ok);
		const double t[7] = {r->teps_min, r->teps_q1, r->teps_median, r->teps_q3, r->teps_max,
		                     r->hmean_teps, r->hstd_teps};
		for (int k = 0; k < 7; k++)
			cnum(f, ok ? t[k] : NAN);
		cstats(f, &r->valid_st, r->has_valid_st);
		cnum(f, ok ? r->hmean_teps * 1e-9 : NAN);
		cnum(f, ok ? r->hmean_teps * 1e-9 / (double)r->ndev : NAN);
		cnum(f, ok ? r->speedup : NAN);
		for (int p = 0; p < NPHASE; p++)
			cnum(f, r->phase_mean[p]);
		cnum(f, r->load_time);
		cnum(f, r->has_expdir ? r->exp_mean[0] : NAN);
		cnum(f, r->has_expdir ? r->exp_mean[1] : NAN);
		cnum(f, r->examined_ratio);
		fprintf(f, ",%lld", (long long)r->nsmall);
		cfield(f, r->roots_from);
		cint(f, r->oversubscribed);
		cnum(f, r->baseline_speedup);
		fprintf(f, ",%016llx", (unsigned long long)r->fp);
		static const int which[4] = {0, 1, 3, 4}; /* created_utc, created_on, program_version, git_commit */
		for (int k = 0; k < 4; k++)
			cfield(f, r->prov[which[k]]);
		cfield(f, r->run_id);
		cfield(f, r->direction);
		cnum(f, r->alpha);
		cnum(f, r->beta);
		cfield(f, r->bitmap);
		cfield(f, r->exchange);
		fprintf(f, ",%llu", (unsigned long long)r->seed);
		cint(f, r->nroots);
		cint(f, r->warmup);
		cint(f, r->ept);
		cfield(f, r->devices);
		cfield(f, r->prov[9]); /* gpu_names */
		cfield(f, r->prov[7]); /* cuda_driver_version */
		cnum(f, r->part_time);
		cnum(f, r->load_read_time);
		cnum(f, r->load_build_time);
		cnum(f, r->time_max_over_min);
		cnum(f, r->spe_cv);
		fprintf(f, ",%d", r->noisy);
		fprintf(f, ",%d", !r->few_searches);
		cfield(f, r->baseline_verdict);
		cfield(f, r->baseline_run ? r->baseline_commit : NULL);
		cfield(f, r->label);
		cfield(f, r->variant);
		cint(f, r->threads_per_rank);
		cfield(f, r->no_pred ? REPORT_NO_PRED : NULL);
		fputs(",", f);
		if (r->baseline_run) {
			char d[REPORT_NOPT * 300] = "";
			size_t n = 0;
			for (int k = 0; k < r->nbdiff && n < sizeof d; k++)
				n += (size_t)snprintf(d + n, sizeof d - n, "%s%s=%s (baseline %s)", k ? "; " : "",
				                      r->bdiff[k].opt, r->bdiff[k].run, r->bdiff[k].base);
			cstr(f, r->nbdiff ? d : "none");
		}
		for (int p = 0; p < NPHASE; p++)
			cnum(f, r->phase_rank_max[p]);
		for (int p = 0; p < NPHASE; p++)
			cnum(f, r->phase_imbalance[p]);
		for (int x = 0; x < NEXCH; x++)
			cnum(f, r->bytes_total[x]);
		cnum(f, r->pred_bytes);
		fputs("\n", f);
	}
	return 0; /* write errors: the caller finds them (ferror) and names the file */
}

/* ---- --append ------------------------------------------------------------------ */

/* The table's header line is read with this bound: a longer first line is
 * not a table of bfs-report. */
#define HEADER_MAX 65536

/* The table's lock: beside the file the table's name leads to (through
 * symbolic links), its name shortened where too long (b2_lock_name), held (flock) from reading the
 * old rows until the new table replaced it, so that concurrent appends
 * queue rather than each replacing the table with its own copy. Its holder
 * removes it (unlock_table), so nothing stays beside the table; a process
 * that got the lock of a file removed meanwhile sees another inode at the
 * name (or none) and locks again. */
static int lock_table(int *fd, char **lockpath, const char *path)
{
	int error = 0;
	char *lp = NULL;
	struct stat a, b;
	*fd = -1;
	*lockpath = NULL;
	B2_TRY(b2_lock_name(&lp, path));
	for (;;) {
		if ((*fd = open(lp, O_RDWR | O_CREAT | O_CLOEXEC, 0666)) < 0)
			B2_FAIL(B2_EIO, "cannot lock %s: cannot create its lock file %s: %s", path, lp, strerror(errno));
		while (flock(*fd, LOCK_EX) != 0)
			if (errno != EINTR)
				B2_FAIL(B2_EIO, "cannot lock %s (%s): %s", path, lp, strerror(errno));
		if (fstat(*fd, &a) == 0 && stat(lp, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino)
			break;
		close(*fd); /* its holder removed it: lock the one there now */
	}
	/* a signal removes it too, as it removes temporaries: the lock is ours */
	B2_TRY(b2_tmp_register(lp, path, 0));
	*lockpath = lp;
	lp = NULL;
done:
	if (error && *fd >= 0) {
		close(*fd);
		*fd = -1;
	}
	free(lp);
	return error;
}

void unlock_table(int *fd, char **lockpath)
{
	if (*fd >= 0) {
		unlink(*lockpath); /* while holding it: see lock_table */
		b2_tmp_forget(*lockpath);
		close(*fd);
	}
	*fd = -1;
	free(*lockpath);
	*lockpath = NULL;
}

/* Column number of name in the header (no quoted fields in it). */
static int header_column(const char *name)
{
	const char *h = csv_header();
	size_t n = strlen(name);
	int col = 0;
	for (const char *c = h; *c; c++) {
		if ((c == h || c[-1] == ',') && strncmp(c, name, n) == 0 && (c[n] == ',' || c[n] == '\n'))
			return col;
		col += *c == ',';
	}
	return -1;
}

/* Field `want` of one CSV line (RFC 4180, the line without its end) into
 * *out (malloc'd; NULL when the line has fewer fields). A quoted field runs
 * to its closing quote, doubled quotes inside it standing for one, and the
 * field ends there; bfs-report writes every row on one line (newlines in
 * strings are escaped), so a quote that does not close on its line, or
 * text after a closing quote, is a damaged table: *bad says which. A quote
 * inside an unquoted field is taken as it is. */
static int csv_field(char **out, const char **bad, const char *line, int want)
{
	int col = 0;
	size_t n = strlen(line);
	const char *c = line;
	*out = NULL;
	*bad = NULL;
	for (;;) {
		char *buf = NULL;
		size_t k = 0;
		if (col == want && (buf = malloc(n + 1)) == NULL)
			return b2_err(B2_EIO, "out of host memory");
		if (*c == '"') {
			for (c++;; c++) {
				if (!*c) {
					free(buf);
					*bad = "a quoted field does not close on its line";
					return 0;
				}
				if (*c == '"' && c[1] != '"')
					break;
				if (*c == '"')
					c++;
				if (buf)
					buf[k++] = *c;
			}
			c++;
			if (*c && *c != ',') {
				free(buf);
				*bad = "text after a quoted field's closing quote";
				return 0;
			}
		} else
			for (; *c && *c != ','; c++)
				if (buf)
					buf[k++] = *c;
		if (buf) {
			buf[k] = 0;
			*out = buf;
			return 0;
		}
		if (!*c)
			return 0;
		c++;
		col++;
	}
}

/* Copies the rows of in (after its header) to out and finds the runs whose
 * id a row already has: seen[i] = that row's number (1-based, header
 * excluded), 0 if none. Each row is one line. */
static int copy_rows(FILE *in, FILE *out, const char *path, run *runs, int nruns, int64_t *seen)
{
	int error = 0, idcol = header_column("run_id");
	char *line = NULL, *field = NULL, **ids = NULL;
	size_t cap = 0, idlen = 0;
	int64_t row = 0;
	ssize_t got;
	B2_TRY(b2_calloc(&ids, (size_t)nruns + 1, sizeof *ids, "run ids"));
	/* a row holds a run id in its text form (common/escape.c) */
	for (int i = 0; i < nruns; i++) {
		FILE *m;
		if (runs[i].run_id && (m = open_memstream(&ids[i], &idlen)) != NULL) {
			b2_fput_text(m, runs[i].run_id);
			fclose(m);
		}
	}
	errno = 0;
	while ((got = getline(&line, &cap, in)) > 0) {
		const char *bad = NULL;
		int ended = line[got - 1] == '\n';
		fwrite(line, 1, (size_t)got, out);
		if (!ended)
			putc('\n', out); /* a last row without its newline: end it */
		row++;
		while (got > 0 && (line[got - 1] == '\n' || line[got - 1] == '\r'))
			line[--got] = 0;
		B2_TRY(csv_field(&field, &bad, line, idcol));
		if (bad)
			B2_FAIL(B2_EDATA, "%s: line %lld: %s: the table is damaged (a hand edit?); repair it "
			        "or append to a new file", path, (long long)row + 1, bad);
		for (int i = 0; field && field[0] && i < nruns; i++)
			if (!seen[i] && ids[i] && strcmp(ids[i], field) == 0)
				seen[i] = row;
		free(field);
		field = NULL;
	}
	if (ferror(in))
		B2_FAIL(B2_EIO, "cannot read %s: %s", path, strerror(errno ? errno : EIO));
done:
	for (int i = 0; ids && i < nruns; i++)
		free(ids[i]);
	free(ids);
	free(field);
	free(line);
	return error;
}

int append_csv(b2_fout *out, int *lockfd, char **lockpath, const char *path, run *runs, int nruns,
               int again)
{
	int error = 0;
	FILE *in = NULL;
	char *line = NULL;
	int64_t *seen = NULL;
	size_t got = 0;
	B2_TRY(lock_table(lockfd, lockpath, path));
	/* the old rows and the new ones are staged under a temporary that
	 * replaces the file when every output is complete: a failed or
	 * interrupted run leaves the table as it was */
	in = fopen(path, "r");
	if (!in && errno != ENOENT)
		B2_FAIL(B2_EIO, "cannot read %s: %s", path, strerror(errno));
	B2_TRY(b2_fout_open(out, path));
	B2_TRY(b2_calloc(&seen, (size_t)nruns + 1, sizeof *seen, "run list"));
	B2_TRY(b2_alloc(&line, HEADER_MAX + 1, "the table's header"));
	if (in) {
		int c = 0;
		errno = 0;
		while (got < HEADER_MAX && (c = getc(in)) != EOF) {
			line[got++] = (char)c;
			if (c == '\n')
				break;
		}
		line[got] = 0;
		if (ferror(in))
			B2_FAIL(B2_EIO, "cannot read %s: %s", path, strerror(errno ? errno : EIO));
		if (got == HEADER_MAX && c != '\n')
			B2_FAIL(B2_EDATA, "%s: line 1 is longer than %d bytes: not a table of bfs-report (append "
			        "to a new file)", path, HEADER_MAX);
	}
	if (got >= 2 && line[got - 2] == '\r' && line[got - 1] == '\n') { /* a spreadsheet's CRLF */
		line[got - 2] = '\n';
		line[--got] = 0;
	}
	if (got > 0) {
		if (strcmp(line, csv_header()) != 0)
			B2_FAIL(B2_EDATA, "%s: line 1: its columns are not this bfs-report's (another program or "
			        "version wrote it): append to a new file", path);
		fputs(line, out->f);
		B2_TRY(copy_rows(in, out->f, path, runs, nruns, seen));
	} else
		fputs(csv_header(), out->f);
	/* one row per run: a run the table has, or that comes twice here, is
	 * refused unless asked for */
	for (int i = 0; i < nruns && !again; i++) {
		for (int j = 0; j < i && !seen[i]; j++)
			if (runs[i].run_id && runs[j].run_id && strcmp(runs[i].run_id, runs[j].run_id) == 0)
				B2_FAIL(B2_EUSAGE, "--append %s: %s and %s are the same run (%s): it would be added "
				        "twice (--append-again adds it anyway)", path, runs[j].bfs_path,
				        runs[i].bfs_path, runs[i].run_id);
		if (seen[i])
			B2_FAIL(B2_EUSAGE, "--append %s: the run of %s (run id %s) is already in the table, "
			        "row %lld: not added again (--append-again adds it anyway)", path,
			        runs[i].bfs_path, runs[i].run_id, (long long)seen[i]);
	}
	B2_TRY(print_csv_rows(out->f, runs, nruns));
	B2_TRY(b2_fout_close(out));
done:
	if (in)
		fclose(in);
	if (error)
		b2_fout_discard(out);
	free(line);
	free(seen);
	return error;
}
