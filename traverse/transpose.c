/* transpose.c — a local block's transpose (a counting sort by row), and a
 * grid of one row searched as a grid of one column. */
#include <stdlib.h>
#include <string.h>
#include "b2.h"
#include "transpose.h"

int b2_transpose(const uint64_t *ptr, const uint32_t *idx, uint64_t nnz, int64_t n, int64_t m,
                 uint64_t **ptr_out, uint32_t **idx_out, const char *what)
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
	/* column by column: each row's columns come out ascending */
	for (int64_t u = 0; u < n; u++)
		for (uint64_t e = ptr[u]; e < ptr[u + 1]; e++)
			ti[fill[idx[e]]++] = (uint32_t)u;
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

void b2_graph_as_column(b2_graph *g)
{
	const int C = g->C;
	g->C = g->R;
	g->R = C;
	g->i = g->j;
	g->j = 0;
	g->rowmajor = 1;
}
