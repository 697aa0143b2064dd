/* predout.h — the predecessor dump of the BFS file: /pred and its root
 * attribute pred_compression (FORMATS.md "BFS file", README "Predecessor
 * dump size").
 *
 * Compressed, /pred is chunked one search by at most 2^20 vertices and
 * filtered (scale-offset, then deflate level 1). Parallel HDF5 here cannot
 * write a filtered dataset from several ranks, so with several ranks a
 * compressed dump is gathered chunk by chunk to rank 0, written to a side
 * file through the POSIX driver and copied into the output when it closes
 * (b2_h5out's before_publish). Uncompressed, /pred is contiguous and each
 * rank writes its own columns collectively. */
#ifndef B2_TRAVERSE_PREDOUT_H
#define B2_TRAVERSE_PREDOUT_H

#include <stdint.h>
#include "h5util.h"
#include "backend.h"

/* --compress-pred */
enum { B2_PRED_AUTO, B2_PRED_ON, B2_PRED_OFF };
/* columns of a chunk of compressed /pred (at most: N when smaller) */
#define B2_PRED_CHUNK ((int64_t)1 << 20)

typedef struct b2_predout {
	hid_t dset;        /* /pred where this rank writes it; -1 when it does not */
	hid_t side;        /* rank 0, gathering: the side file */
	char *side_path;   /* gathering: the side file, on every rank (any removes it on a signal) */
	int compress, gather;
	int64_t N, K, v0, nown, width; /* width: columns of a chunk */
	int *counts, *displs; /* rank 0, gathering: each rank's share of a chunk */
	int64_t *own;      /* rank 0, gathering: [2P] first owned vertex, count */
	int64_t *buf;      /* rank 0, gathering: one chunk */
	double secs;       /* spent writing it (-v) */
} b2_predout;

/* Collective, after b2_h5_create: creates /pred [nkept][N] (or, gathering,
 * the side file) and writes pred_compression. mode: B2_PRED_*; chunk:
 * columns of a chunk (B2_PRED_CHUNK but in tests). */
int b2_predout_open(b2_predout *po, b2_h5out *out, const b2_graph *g, int64_t nkept, int mode,
                    int64_t chunk);
/* Collective: row q of /pred from this rank's owned predecessors. Returns
 * the code agreed over MPI_COMM_WORLD. */
int b2_predout_row(b2_predout *po, int64_t q, const int64_t *pred);
/* Collective, where the output's datasets are closed (b2_h5_close's
 * contract): closes /pred; gathering, the side file, whose /pred
 * b2_h5_commit then copies in. */
int b2_predout_close(b2_predout *po, b2_h5out *out, int error);
/* After b2_h5_commit, on every path: removes the side file, frees. */
void b2_predout_free(b2_predout *po);

#endif
