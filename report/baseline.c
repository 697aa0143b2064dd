/* baseline.c — --baseline OLD.json: the speed-up of each run over the run
 * of the same graph (edges_fingerprint, or the graph's name in reports that
 * predate it) and grid in an earlier JSON report of bfs-report, and a
 * verdict that weighs it against the spread of both runs' searches. A small
 * JSON reader, enough for any JSON text: values are parsed in full, and
 * only runs[].{run, edges_fingerprint, graph, grid, harmonic_mean_TEPS,
 * harmonic_stddev_TEPS, git_commit} kept. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "h5util.h"
#include "report.h"

typedef struct brun {
	char fp[32], graph[256], grid[64], commit[64];
	double hmean, hstd, number;
} brun;

typedef struct jp {
	const char *s, *start, *path;
	int depth;
	brun *runs;
	int nruns, cap;
} jp;

static int jerr(jp *p, const char *what)
{
	int line = 1;
	for (const char *c = p->start; c < p->s; c++)
		line += *c == '\n';
	return b2_err(B2_EDATA, "%s: line %d: %s (expected a JSON report of bfs-report --format json)",
	              p->path, line, what);
}

static void ws(jp *p)
{
	while (*p->s && isspace((unsigned char)*p->s))
		p->s++;
}

/* A string into out (cut at n - 1; escapes other than \" \\ \/ kept raw). */
static int jstring(jp *p, char *out, size_t n)
{
	size_t k = 0;
	if (*p->s != '"')
		return jerr(p, "a string expected");
	p->s++;
	while (*p->s && *p->s != '"') {
		char c = *p->s++;
		if (c == '\\' && *p->s) {
			c = *p->s++;
			if (c == 'n') c = '\n';
			else if (c == 't') c = '\t';
			else if (c == 'u') { /* \uXXXX: kept as '?' */
				for (int i = 0; i < 4 && *p->s; i++)
					p->s++;
				c = '?';
			}
		}
		if (out && k + 1 < n)
			out[k++] = c;
	}
	if (*p->s != '"')
		return jerr(p, "an unterminated string");
	p->s++;
	if (out)
		out[k] = 0;
	return 0;
}

static int jvalue(jp *p, brun *in_run, const char *key);

static int jobject(jp *p, brun *in_run)
{
	int error = 0;
	char key[64];
	p->s++; /* { */
	ws(p);
	if (*p->s == '}') {
		p->s++;
		return 0;
	}
	for (;;) {
		ws(p);
		B2_TRY(jstring(p, key, sizeof key));
		ws(p);
		if (*p->s != ':')
			return jerr(p, "':' expected");
		p->s++;
		ws(p);
		B2_TRY(jvalue(p, in_run, key));
		ws(p);
		if (*p->s == ',') {
			p->s++;
			continue;
		}
		if (*p->s == '}') {
			p->s++;
			break;
		}
		return jerr(p, "',' or '}' expected");
	}
done:
	return error;
}

/* An array; `runs` says it is the top level's "runs": its objects are runs. */
static int jarray(jp *p, int runs)
{
	int error = 0;
	p->s++; /* [ */
	ws(p);
	if (*p->s == ']') {
		p->s++;
		return 0;
	}
	for (;;) {
		ws(p);
		if (runs && *p->s == '{') {
			if (p->nruns == p->cap) {
				int cap = p->cap ? 2 * p->cap : 16;
				brun *r = realloc(p->runs, (size_t)cap * sizeof *r);
				if (!r)
					return b2_err(B2_EIO, "out of host memory reading %s", p->path);
				p->runs = r;
				p->cap = cap;
			}
			brun *r = &p->runs[p->nruns++];
			memset(r, 0, sizeof *r);
			r->hmean = r->hstd = r->number = NAN;
			B2_TRY(jobject(p, r));
		} else
			B2_TRY(jvalue(p, NULL, NULL));
		ws(p);
		if (*p->s == ',') {
			p->s++;
			continue;
		}
		if (*p->s == ']') {
			p->s++;
			break;
		}
		return jerr(p, "',' or ']' expected");
	}
done:
	return error;
}

static int jvalue(jp *p, brun *r, const char *key)
{
	int error = 0;
	if (++p->depth > 64)
		return jerr(p, "nested too deeply");
	ws(p);
	if (*p->s == '{')
		error = jobject(p, NULL);
	else if (*p->s == '[')
		error = jarray(p, p->depth == 2 && key && !strcmp(key, "runs"));
	else if (*p->s == '"') {
		char *dst = NULL;
		size_t n = 0;
		if (r && key && !strcmp(key, "edges_fingerprint")) dst = r->fp, n = sizeof r->fp;
		else if (r && key && !strcmp(key, "graph")) dst = r->graph, n = sizeof r->graph;
		else if (r && key && !strcmp(key, "grid")) dst = r->grid, n = sizeof r->grid;
		else if (r && key && !strcmp(key, "git_commit")) dst = r->commit, n = sizeof r->commit;
		error = jstring(p, dst, n);
	} else if (!strncmp(p->s, "true", 4) || !strncmp(p->s, "null", 4))
		p->s += 4;
	else if (!strncmp(p->s, "false", 5))
		p->s += 5;
	else {
		char *end;
		double v = strtod(p->s, &end);
		if (end == p->s)
			error = jerr(p, "a JSON value expected");
		else {
			p->s = end;
			if (r && key && !strcmp(key, "harmonic_mean_TEPS"))
				r->hmean = v;
			if (r && key && !strcmp(key, "harmonic_stddev_TEPS"))
				r->hstd = v;
			if (r && key && !strcmp(key, "run"))
				r->number = v;
		}
	}
	p->depth--;
	return error;
}

/* The difference of two harmonic means against the noise of both:
 * harmonic_stddev_TEPS is Graph500's standard error of the harmonic mean, so
 * a difference beyond twice the two combined (sqrt(a^2 + b^2)) is "faster"
 * or "slower", anything less "within noise"; with no spread known (a run of
 * one search) there is no verdict. */
const char *baseline_verdict(double hmean, double hstd, double base, double base_std)
{
	double band = 2.0 * sqrt(hstd * hstd + base_std * base_std);
	if (!isfinite(band))
		return "undecided (no spread: one search)";
	if (hmean - base > band)
		return "faster";
	if (base - hmean > band)
		return "slower";
	return "within noise";
}

int apply_baseline(const char *path, run *runs, int nruns)
{
	int error = 0;
	FILE *f = NULL;
	char *text = NULL;
	size_t len = 0, cap = 0;
	jp p = {0};
	for (int i = 0; i < nruns; i++) {
		runs[i].baseline_speedup = runs[i].baseline_hmean = runs[i].baseline_hstd = NAN;
		runs[i].baseline_run = 0;
		runs[i].baseline_verdict = NULL;
	}
	if ((f = fopen(path, "r")) == NULL)
		B2_FAIL(B2_EIO, "cannot read %s: %s", path, strerror(errno));
	for (;;) {
		if (len + 65536 + 1 > cap) {
			cap = 2 * cap + 65536 + 1;
			char *t = realloc(text, cap);
			if (!t)
				B2_FAIL(B2_EIO, "out of host memory reading %s", path);
			text = t;
		}
		size_t k = fread(text + len, 1, cap - len - 1, f);
		len += k;
		if (k == 0)
			break;
	}
	if (ferror(f))
		B2_FAIL(B2_EIO, "cannot read %s", path);
	text[len] = 0;
	p.s = p.start = text;
	p.path = path;
	ws(&p);
	if (*p.s != '{')
		B2_FAIL(B2_EDATA, "%s: not a JSON object (expected a JSON report of bfs-report --format json)", path);
	B2_TRY(jvalue(&p, NULL, NULL));
	ws(&p);
	if (*p.s)
		B2_FAIL(B2_EDATA, "%s: text after the JSON object", path);
	if (p.nruns == 0)
		B2_FAIL(B2_EDATA, "%s: no \"runs\" in it (expected a JSON report of bfs-report --format json)", path);
	int matched = 0;
	for (int i = 0; i < nruns; i++) {
		run *r = &runs[i];
		char fp[32], grid[64];
		snprintf(fp, sizeof fp, "%016llx", (unsigned long long)r->fp);
		snprintf(grid, sizeof grid, "%lldx%lld", (long long)r->rows, (long long)r->cols);
		for (int k = 0; k < p.nruns; k++) {
			const brun *b = &p.runs[k];
			int same = b->fp[0] ? !strcmp(b->fp, fp) : !strcmp(b->graph, r->graph);
			if (same && !strcmp(b->grid, grid) && b->hmean > 0 && r->nused > 0) {
				r->baseline_speedup = r->hmean_teps / b->hmean;
				r->baseline_hmean = b->hmean;
				r->baseline_hstd = b->hstd;
				r->baseline_run = isfinite(b->number) && b->number >= 1 ? (int)b->number : k + 1;
				snprintf(r->baseline_commit, sizeof r->baseline_commit, "%s",
				         b->commit[0] ? b->commit : "unknown");
				r->baseline_verdict = baseline_verdict(r->hmean_teps, r->hstd_teps, b->hmean, b->hstd);
				matched++;
				break;
			}
		}
	}
	if (!matched)
		b2_warn("%s: no run of the same graph and grid as any run here: no baseline column", path);
done:
	if (f)
		fclose(f);
	free(text);
	free(p.runs);
	return error;
}
