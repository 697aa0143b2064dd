/* transpose.h — a local block in its other orientation, and a grid of one
 * row searched as a grid of one column (plan.h ROW_AS_COLUMN). */
#ifndef B2_TRAVERSE_TRANSPOSE_H
#define B2_TRAVERSE_TRANSPOSE_H

#include <stdint.h>
#include "backend.h"

/* The transpose of a CSC of n columns over m rows with nnz entries: m + 1
 * pointers into nnz column indices (*ptr_out, *idx_out, the caller frees),
 * each row's columns ascending. `what` names the arrays in an out-of-memory
 * message. */
int b2_transpose(const uint64_t *ptr, const uint32_t *idx, uint64_t nnz, int64_t n, int64_t m,
                 uint64_t **ptr_out, uint32_t **idx_out, const char *what);

/* g, a block of a 1 x C grid, becomes the same rank's block of the C x 1
 * grid, given row-major (g->rowmajor): the graph is undirected, so rank
 * j's columns (all the neighbours of its own vertices) are the rows the
 * C x 1 rank holds, and its CSC is their transpose, which the backend
 * makes (on the GPU, where it is fast). Each rank owns the same vertices. */
void b2_graph_as_column(b2_graph *g);

#endif
