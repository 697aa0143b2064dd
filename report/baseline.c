/* baseline.c — --baseline OLD.json: the speed-up of each run over the run
 * of the same graph (edges_fingerprint, or the graph's name in reports that
 * predate it) and grid in an earlier JSON report of bfs-report, and a
 * verdict that weighs it against the spread of both runs' searches. A small
 * JSON reader that takes exactly RFC 8259's grammar (no NaN, no Infinity,
 * no stray escapes or control characters): values are parsed in full, and
 * only runs[].{run, edges_fingerprint, graph, grid, harmonic_mean_TEPS,
 * harmonic_stddev_TEPS, git_commit} and the recorded options kept. */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "h5util.h"
#include "report.h"

/* The options compared between a run and its baseline: JSON keys of the
 * report, each as print_json writes it. */
static const char *const opt_keys[] = {"backend", "variant", "direction", "alpha", "beta", "bitmap",
                                       "exchange", "roots_from", "nroots", "seed", "warmup",
                                       "edges_per_thread", "threads_per_rank", "evict_first"};
#define NOPTK ((int)(sizeof opt_keys / sizeof opt_keys[0]))

typedef struct brun {
	char fp[32], graph[256], grid[64], commit[64];
	double hmean, hstd;
	int number; /* 0: none */
	char opt[NOPTK][128];
	unsigned char has[NOPTK]; /* the option's value is there (not absent, not null) */
} brun;

typedef struct jp {
	const char *s, *start, *path;
	int depth;
	brun *runs;
	int nruns, cap;
} jp;

static int jerr(jp *p, const char *what)
{
	int line = 1, col = 1;
	for (const char *c = p->start; c < p->s; c++, col++)
		if (*c == '\n')
			line++, col = 0;
	return b2_err(B2_EDATA, "%s: line %d, column %d: %s (expected a JSON report of bfs-report "
	              "--format json)", p->path, line, col, what);
}

static void ws(jp *p) /* JSON's four: space, tab, newline, carriage return */
{
	while (*p->s == ' ' || *p->s == '\t' || *p->s == '\n' || *p->s == '\r')
		p->s++;
}

/* A string into out (cut at n - 1; \uXXXX kept as '?'). */
static int jstring(jp *p, char *out, size_t n)
{
	size_t k = 0;
	if (*p->s != '"')
		return jerr(p, "a string expected");
	p->s++;
	while (*p->s && *p->s != '"') {
		char c = *p->s;
		if ((unsigned char)c < 0x20)
			return jerr(p, "a control character inside a string");
		p->s++;
		if (c == '\\') {
			static const char from[] = "\"\\/bfnrtu", to[] = "\"\\/\b\f\n\r\t";
			c = *p->s;
			const char *esc = strchr(from, c);
			if (!c || !esc)
				return jerr(p, "an invalid escape in a string");
			p->s++;
			if (c == 'u') { /* \uXXXX: kept as '?' */
				for (int i = 0; i < 4; i++, p->s++)
					if (!isxdigit((unsigned char)*p->s))
						return jerr(p, "\\u without four hex digits");
				c = '?';
			} else
				c = to[esc - from];
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

/* A number as JSON writes it: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?,
 * finite as a double. */
static int jnumber(jp *p, double *v, const char **tok, size_t *len)
{
	const char *c = p->s;
	if (*c == '-')
		c++;
	if (*c == '0')
		c++;
	else if (*c >= '1' && *c <= '9')
		while (isdigit((unsigned char)*c))
			c++;
	else
		return jerr(p, "a JSON value expected");
	if (*c == '.') {
		if (!isdigit((unsigned char)*++c))
			return jerr(p, "a digit expected after '.'");
		while (isdigit((unsigned char)*c))
			c++;
	}
	if (*c == 'e' || *c == 'E') {
		c++;
		if (*c == '+' || *c == '-')
			c++;
		if (!isdigit((unsigned char)*c))
			return jerr(p, "a digit expected in the exponent");
		while (isdigit((unsigned char)*c))
			c++;
	}
	errno = 0;
	*v = strtod(p->s, NULL);
	if (!isfinite(*v))
		return jerr(p, "a number out of range");
	*tok = p->s;
	*len = (size_t)(c - p->s);
	p->s = c;
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
			r->hmean = r->hstd = NAN;
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

static int opt_index(const char *key)
{
	for (int i = 0; key && i < NOPTK; i++)
		if (!strcmp(key, opt_keys[i]))
			return i;
	return -1;
}

static int jvalue(jp *p, brun *r, const char *key)
{
	int error = 0, oi = r ? opt_index(key) : -1;
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
		else if (oi >= 0) dst = r->opt[oi], n = sizeof r->opt[oi], r->has[oi] = 1;
		error = jstring(p, dst, n);
	} else if (!strncmp(p->s, "true", 4) || !strncmp(p->s, "null", 4))
		p->s += 4;
	else if (!strncmp(p->s, "false", 5))
		p->s += 5;
	else {
		double v = 0;
		const char *tok = NULL;
		size_t len = 0;
		error = jnumber(p, &v, &tok, &len);
		if (!error && r && key && !strcmp(key, "harmonic_mean_TEPS"))
			r->hmean = v;
		if (!error && r && key && !strcmp(key, "harmonic_stddev_TEPS"))
			r->hstd = v;
		if (!error && oi >= 0) {
			snprintf(r->opt[oi], sizeof r->opt[oi], "%.*s", (int)(len < 127 ? len : 127), tok);
			r->has[oi] = 1;
		}
		if (!error && r && key && !strcmp(key, "run")) {
			if (v != floor(v) || v < 1 || v > INT_MAX) {
				p->s = tok;
				error = jerr(p, "\"run\" is not a run number (an integer from 1)");
			} else
				r->number = (int)v;
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

/* The run's value of option key i as print_json writes it; 0 when the
 * file does not record it. */
static int run_opt(char *v, size_t n, const run *r, int i)
{
	const char *k = opt_keys[i];
	int64_t iv = !strcmp(k, "nroots") ? r->nroots : !strcmp(k, "warmup") ? r->warmup
	             : !strcmp(k, "edges_per_thread") ? r->ept : !strcmp(k, "threads_per_rank") ? r->threads_per_rank
	             : -2;
	const char *sv = !strcmp(k, "backend") ? r->backend : !strcmp(k, "variant") ? r->variant
	                 : !strcmp(k, "direction") ? r->direction : !strcmp(k, "bitmap") ? r->bitmap
	                 : !strcmp(k, "exchange") ? r->exchange : !strcmp(k, "roots_from") ? r->roots_from
	                 : !strcmp(k, "evict_first") ? r->evict_first : NULL;
	v[0] = 0;
	if (iv >= 0)
		snprintf(v, n, "%lld", (long long)iv);
	else if (sv)
		snprintf(v, n, "%s", sv);
	else if (!strcmp(k, "seed"))
		snprintf(v, n, "%llu", (unsigned long long)r->seed);
	else if (!strcmp(k, "alpha") && isfinite(r->alpha))
		snprintf(v, n, "%.17g", r->alpha);
	else if (!strcmp(k, "beta") && isfinite(r->beta))
		snprintf(v, n, "%.17g", r->beta);
	else
		return 0;
	return 1;
}

/* The options both reports record and that differ (as print_json writes
 * them: the same text is the same value). */
static void option_diffs(run *r, const brun *b)
{
	r->nbdiff = 0;
	for (int i = 0; i < NOPTK && r->nbdiff < REPORT_NOPT; i++) {
		char v[128];
		/* an option one side does not record is no difference; the
		 * exchange's "" is the report's word for not recorded */
		if (!run_opt(v, sizeof v, r, i) || !b->has[i] || !strcmp(v, b->opt[i]) ||
		    (!strcmp(opt_keys[i], "exchange") && (!v[0] || !b->opt[i][0])))
			continue;
		struct optdiff *d = &r->bdiff[r->nbdiff++];
		snprintf(d->opt, sizeof d->opt, "%s", opt_keys[i]);
		snprintf(d->run, sizeof d->run, "%s", v);
		snprintf(d->base, sizeof d->base, "%s", b->opt[i]);
	}
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
		runs[i].nbdiff = 0;
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
	if (*p.s || (size_t)(p.s - text) != len)
		B2_TRY(jerr(&p, *p.s ? "text after the JSON object" : "a NUL byte after the JSON object"));
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
				r->baseline_run = b->number ? b->number : k + 1;
				option_diffs(r, b);
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
