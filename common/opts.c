/* opts.c — option helpers shared by every program. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "b2.h"

int b2_usage_err(const char *fmt, ...)
{
	if (b2_rank == 0) {
		va_list ap;
		va_start(ap, fmt);
		fprintf(stderr, "%s: ", b2_prog);
		vfprintf(stderr, fmt, ap);
		fprintf(stderr, "\nTry '%s --help' for more information.\n", b2_prog);
		va_end(ap);
	}
	return B2_EUSAGE;
}

void b2_opts_init(char **argv)
{
	/* getopt names the program by argv[0], a path as typed; its messages
	 * then read like everyone else's, and come from rank 0 only */
	if (argv && argv[0])
		argv[0] = (char *)b2_prog;
	opterr = b2_rank == 0;
}

int b2_std_option(b2_stdopts *std, int c, const char *arg, const char *help)
{
	switch (c) {
	case 'h':
		if (b2_rank == 0)
			fputs(help, stdout);
		return B2_EXIT_HELP;
	case 'V':
		if (b2_rank == 0) {
			char v[128];
			b2_version_string(v, sizeof v);
			printf("%s (bfs2d) %s\n", b2_prog, v);
		}
		return B2_EXIT_HELP;
	case 'v':
		std->verbosity = std->verbosity < 0 ? 1 : std->verbosity + 1;
		b2_log_set_verbosity(std->verbosity);
		return 0;
	case B2_OPT_PROGRESS:
		b2_log_force_progress(1);
		return 0;
	case 'q':
		std->verbosity = -1;
		b2_log_set_verbosity(-1);
		return 0;
	case 'o':
		if (std->output)
			return b2_usage_err("-o/--output given twice ('%s', then '%s')", std->output, arg);
		std->output = arg;
		return 0;
	case '?':
		if (b2_rank == 0)
			fprintf(stderr, "Try '%s --help' for more information.\n", b2_prog);
		return B2_EUSAGE;
	default:
		return b2_usage_err("unknown option");
	}
}

/* Whether s starts as a number of the kind must: a digit, or for a signed
 * kind a '-' and a digit. strto* skip leading blanks and take a sign, so
 * " -1" would pass an unsigned parse as 2^64-1; a value is the number alone. */
static int starts_number(const char *s, int sign)
{
	if (!s)
		return 0;
	if (sign && *s == '-')
		s++;
	return *s >= '0' && *s <= '9';
}

int b2_parse_u64(uint64_t *out, const char *s, const char *what, uint64_t min, uint64_t max)
{
	char *end;
	errno = 0;
	if (!starts_number(s, 0))
		return b2_usage_err("%s: expected a whole number from %llu to %llu, got '%s'", what,
		                    (unsigned long long)min, (unsigned long long)max, s ? s : "");
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return b2_usage_err("%s: expected a whole number from %llu to %llu, got '%s'", what,
		                    (unsigned long long)min, (unsigned long long)max, s);
	*out = v;
	return 0;
}

int b2_parse_i64(int64_t *out, const char *s, const char *what, int64_t min, int64_t max)
{
	char *end;
	errno = 0;
	long long v = starts_number(s, 1) ? strtoll(s, &end, 10) : 0;
	if (!starts_number(s, 1) || errno || *end || v < min || v > max)
		return b2_usage_err("%s: expected a whole number from %lld to %lld, got '%s'", what,
		                    (long long)min, (long long)max, s ? s : "");
	*out = v;
	return 0;
}

int b2_parse_choice(int *out, const char *s, const char *what, const char *const *names,
                    const int *values)
{
	char list[512] = "";
	size_t len = 0;
	int n = 0;
	for (; names[n]; n++)
		if (!strcmp(s, names[n])) {
			*out = values ? values[n] : n;
			return 0;
		}
	for (int i = 0; i < n && len < sizeof list; i++)
		len += (size_t)snprintf(list + len, sizeof list - len, "%s%s",
		                        i == 0 ? "" : i == n - 1 ? " or " : ", ", names[i]);
	return b2_usage_err("%s: expected %s, got '%s'", what, list, s);
}

int b2_parse_double(double *out, const char *s, const char *what, double min, double max)
{
	char *end;
	errno = 0;
	/* a number, its sign or a point first (strtod skips blanks); "inf"
	 * and "nan" fail the range */
	int ok = s && ((*s >= '0' && *s <= '9') || *s == '-' || *s == '+' || *s == '.');
	double v = ok ? strtod(s, &end) : NAN;
	if (!ok || errno || *end || !(v >= min && v <= max))
		return b2_usage_err("%s: expected a number from %g to %g, got '%s'", what, min, max,
		                    s ? s : "");
	*out = v;
	return 0;
}

int b2_parse_doubles(double *out, int *n, int max, const char *s, const char *what)
{
	int k = 0;
	const char *p = s;
	while (p && *p) {
		char *end;
		errno = 0;
		double v = strtod(p, &end);
		if (end == p || !((*p >= '0' && *p <= '9') || *p == '-' || *p == '+' || *p == '.') || errno || (*end && *end != ',') || k >= max || !isfinite(v))
			return b2_usage_err("%s: expected up to %d comma-separated numbers, got '%s'",
			                    what, max, s);
		out[k++] = v;
		p = *end ? end + 1 : end;
		if (*end == ',' && !*p)
			return b2_usage_err("%s: trailing comma in '%s'", what, s);
	}
	if (k == 0)
		return b2_usage_err("%s: expected comma-separated numbers, got '%s'", what, s ? s : "");
	*n = k;
	return 0;
}

int b2_parse_grid(int *rows, int *cols, const char *s)
{
	char *end;
	long r, c;
	errno = 0;
	if (!s || !(*s >= '0' && *s <= '9'))
		goto bad;
	r = strtol(s, &end, 10);
	if (errno || (*end != 'x' && *end != 'X') || !(end[1] >= '0' && end[1] <= '9'))
		goto bad;
	c = strtol(end + 1, &end, 10);
	if (errno || *end || r < 1 || c < 1 || r > 65536 || c > 65536)
		goto bad;
	*rows = (int)r;
	*cols = (int)c;
	return 0;
bad:
	return b2_usage_err("--grid: expected RxC with whole numbers R, C from 1 to 65536 (e.g. 2x2), got '%s'",
	                    s ? s : "");
}
