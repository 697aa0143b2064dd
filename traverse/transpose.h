/* transpose.h — a local block in its other orientation (its rows with the
 * hubs first for the bottom-up step), and a grid of one row searched as a
 * grid of one column (plan.h ROW_AS_COLUMN). */
#ifndef B2_TRAVERSE_TRANSPOSE_H
#define B2_TRAVERSE_TRANSPOSE_H

#include <stdint.h>
#include "backend.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The transpose of a CSC of n columns over m rows with nnz entries: m + 1
 * pointers into nnz column indices (*ptr_out, *idx_out, the caller frees),
 * each row's columns ascending. `what` names the arrays in an out-of-memory
 * message. */
int b2_transpose(const uint64_t *ptr, const uint32_t *idx, uint64_t nnz, int64_t n, int64_t m,
                 uint64_t **ptr_out, uint32_t **idx_out, const char *what);

/* Hubs first: a bottom-up step stops at a row's first neighbour in the
 * frontier, and the columns of most edges are the likeliest to be there
 * (R-MAT, scale 21: a third fewer edges examined; PERFORMANCE.md, "Hubs
 * first"). A row's columns go by class of their degree in the block: at
 * least 256, 32, 4 and 1 times the mean (nnz / n), then the rest; class c
 * holds the degrees in [lo[c], hi[c]). Both backends order their rows so. */
enum { B2_HUB_CLASSES = 5 };
void b2_hub_classes(uint64_t nnz, int64_t n, uint64_t lo[B2_HUB_CLASSES], uint64_t hi[B2_HUB_CLASSES]);

/* The rows of a CSC as b2_transpose makes them, each row's columns class
 * by class, the hubs first (ascending within a class). */
int b2_rows_hubs_first(const uint64_t *ptr, const uint32_t *idx, uint64_t nnz, int64_t n, int64_t m,
                       uint64_t **ptr_out, uint32_t **idx_out, const char *what);

/* g, a block of a 1 x C grid, becomes the same rank's block of the C x 1
 * grid, given row-major (g->rowmajor): the graph is undirected, so rank
 * j's columns (all the neighbours of its own vertices) are the rows the
 * C x 1 rank holds, and its CSC is their transpose, which the backend
 * makes (on the GPU, where it is fast). Each rank owns the same vertices. */
void b2_graph_as_column(b2_graph *g);

#ifdef __cplusplus
}
#endif

#endif
