/* stats.c — the statistics of the Graph500 benchmark output. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "report.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y ? 1 : 0;
}

/* Returns 0 or B2_EIO (no memory for the sorted copy). Same definitions as the Graph500 specification's output: min and max; the
 * quartiles and median each as the mean of the two order statistics around
 * the cut (x[(n-1)/4] and x[n/4], ...); the mean; the sample standard
 * deviation (n-1 in the denominator, so NaN for one value). x is not changed;
 * n >= 1. */
int get_stats(stats *s, const double *x, int64_t n)
{
	int error = 0;
	double small[256], *xx = small;
	double sum = 0, ss = 0;
	if (n > 256)
		B2_TRY(b2_alloc(&xx, (size_t)n * sizeof *xx, "sorting statistics"));
	for (int64_t i = 0; i < n; i++)
		sum += x[i];
	s->mean = sum / (double)n;
	for (int64_t i = 0; i < n; i++)
		ss += (x[i] - s->mean) * (x[i] - s->mean);
	s->std = n > 1 ? sqrt(ss / (double)(n - 1)) : NAN;
	memcpy(xx, x, (size_t)n * sizeof *xx);
	qsort(xx, (size_t)n, sizeof *xx, cmp_double);
	s->min = xx[0];
	s->q1 = (xx[(n - 1) / 4] + xx[n / 4]) * 0.5;
	s->median = (xx[(n - 1) / 2] + xx[n / 2]) * 0.5;
	s->q3 = (xx[n - 1 - (n - 1) / 4] + xx[n - 1 - n / 4]) * 0.5;
	s->max = xx[n - 1];
done:
	if (xx != small)
		free(xx);
	return error;
}
