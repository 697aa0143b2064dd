/* records.h — what bfs-gpu keeps of each timed search until the output:
 * its time, nedge and phases (the mean over ranks and each rank's own), the
 * per-level tables, each rank's phases of each level, and the bytes each
 * rank sent in each exchange
 * (FORMATS.md, "BFS file"). Adding a search is collective: every rank's
 * own numbers are gathered on rank 0, which writes them. */
#ifndef B2_TRAVERSE_RECORDS_H
#define B2_TRAVERSE_RECORDS_H

#include <hdf5.h>
#include <stdint.h>
#include "search.h"

/* One search's per-level records, [levels] (rank 0 only: bytes
 * [levels][P][B2_NXCHG], phase [levels][P][B2_NLPHASES]). */
typedef struct b2_level_rows {
	int64_t n;
	int64_t *front, *exam, *bytes;
	signed char *dir;
	double *time, *phase;
} b2_level_rows;

typedef struct b2_records {
	int64_t n;            /* searches recorded so far */
	int64_t cap;          /* searches there is room for */
	int P;                /* ranks */
	int64_t maxlev;       /* the deepest search's levels */
	int64_t *roots, *nedge, *visited;
	double *time;
	double *phase;        /* [cap][B2_NPHASES] mean over ranks */
	double *expdir;       /* [cap][2] the expansion by direction, mean over ranks */
	double *rank_phase;   /* [cap][P][B2_NPHASES] each rank's own (rank 0) */
	int64_t *pred_bytes;  /* [cap][P] (rank 0) */
	b2_level_rows *rows;  /* [cap] */
} b2_records;

int b2_records_init(b2_records *r, int64_t cap, int P);
/* Collective: search q = r->n from `root`, just run in *s; nedge is the
 * global count. */
int b2_records_add(b2_records *r, int64_t root, int64_t nedge, const b2_search *s);
/* Collective: every per-search dataset of the BFS file but /pred and /kept. */
int b2_records_write(const b2_records *r, hid_t f);
void b2_records_free(b2_records *r);

/* b2_dset_put_small, but an empty dataset is only created: a collective
 * write of nothing fails in parallel HDF5. Collective. */
int b2_put_small(hid_t loc, const char *name, hid_t type, int rank, const uint64_t *dims,
                 const void *buf);

#endif
