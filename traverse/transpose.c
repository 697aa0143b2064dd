/* transpose.c — a local block's transpose (a counting sort by row), its
 * rows with the hubs first, and a grid of one row searched as a grid of
 * one column. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "b2.h"
#include "transpose.h"

void b2_hub_classes(uint64_t nnz, int64_t n, uint64_t lo[B2_HUB_CLASSES], uint64_t hi[B2_HUB_CLASSES])
{
	static const double times_mean[B2_HUB_CLASSES - 1] = {256, 32, 4, 1};
	const double mean = n > 0 ? (double)nnz / (double)n : 0;
	hi[0] = UINT64_MAX;
	for (int c = 0; c < B2_HUB_CLASSES - 1; c++) {
		const double t = ceil(times_mean[c] * mean);
		lo[c] = t < 1 ? 1 : t >= 0x1p64 ? UINT64_MAX : (uint64_t)t;
		hi[c + 1] = lo[c];
	}
	lo[B2_HUB_CLASSES - 1] = 0;
}

/* The rows of a CSC, the columns of degree [lo[c], hi[c]) appended to
 * every row before class c + 1's, column by column within a class. */
static int rows_by_class(const uint64_t *ptr, const uint32_t *idx, uint64_t nnz, int64_t n, int64_t m,
                         int nclass, const uint64_t *lo, const uint64_t *hi, uint64_t **ptr_out,
                         uint32_t **idx_out, const char *what)
{
	int error = 0;
	uint64_t *tp = NULL, *fill = NULL;
	uint32_t *ti = NULL;
	B2_TRY(b2_calloc(&tp, (size_t)m + 1, 8, what));
	B2_TRY(b2_alloc(&ti, (size_t)nnz * 4 + 4, what));
	B2_TRY(b2_alloc(&fill, (size_t)m * 8 + 8, what));
	for (uint64_t e = 0; e < nnz; e++)
		tp[idx[e] + 1]++;
	for (int64_t r = 0; r < m; r++)
		tp[r + 1] += tp[r];
	memcpy(fill, tp, (size_t)m * 8);
	for (int c = 0; c < nclass; c++)
		for (int64_t u = 0; u < n; u++) {
			const uint64_t d = ptr[u + 1] - ptr[u];
			if (d < lo[c] || d >= hi[c])
				continue;
			for (uint64_t e = ptr[u]; e < ptr[u + 1]; e++)
				ti[fill[idx[e]]++] = (uint32_t)u;
		}
	*ptr_out = tp;
	*idx_out = ti;
	tp = NULL;
	ti = NULL;
done:
	free(tp);
	free(ti);
	free(fill);
	return error;
}

int b2_transpose(const uint64_t *ptr, const uint32_t *idx, uint64_t nnz, int64_t n, int64_t m,
                 uint64_t **ptr_out, uint32_t **idx_out, const char *what)
{
	const uint64_t lo = 0, hi = UINT64_MAX;
	return rows_by_class(ptr, idx, nnz, n, m, 1, &lo, &hi, ptr_out, idx_out, what);
}

int b2_rows_hubs_first(const uint64_t *ptr, const uint32_t *idx, uint64_t nnz, int64_t n, int64_t m,
                       uint64_t **ptr_out, uint32_t **idx_out, const char *what)
{
	uint64_t lo[B2_HUB_CLASSES], hi[B2_HUB_CLASSES];
	b2_hub_classes(nnz, n, lo, hi);
	return rows_by_class(ptr, idx, nnz, n, m, B2_HUB_CLASSES, lo, hi, ptr_out, idx_out, what);
}

void b2_graph_as_column(b2_graph *g)
{
	const int C = g->C;
	g->C = g->R;
	g->R = C;
	g->i = g->j;
	g->j = 0;
	g->rowmajor = 1;
}
