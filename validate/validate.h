/* validate.h — bfs-validate's distributed graph and per-search checks.
 *
 * Vertices are block-distributed over the ranks (rank r owns [r·bs, r·bs+bs),
 * bs = ceil(N/P)). Every non-loop input tuple (u, v) is stored twice, as
 * u→v on u's owner and v→u on v's owner, deduplicated with a multiplicity,
 * so that each rank sees the whole adjacency of its own vertices. Remote
 * neighbours ("ghosts") get a slot in a per-rank level table after the
 * rank's own vertices; their levels arrive in one MPI_Alltoallv per search
 * with a pattern fixed at set-up. Levels come from the tree by pointer
 * jumping (a bounded number of Alltoallv rounds). A rank holds only its own
 * share of one predecessor row at a time. */
#ifndef B2_VALIDATE_H
#define B2_VALIDATE_H

#include <hdf5.h>
#include "b2.h"

/* Rules in the order of their numbers: the lowest failing number is reported
 * (docs/FORMATS.md, "Validation file"). */
enum {
	V_PASS = 0,
	V_ROOT = 1,      /* the root is not its own parent */
	V_RANGE = 2,     /* a predecessor is neither -1 nor a vertex id */
	V_COMPONENT = 3, /* reached set != root's component */
	V_TREE = 4,      /* parents do not form a tree rooted at the root */
	V_TREE_LEVEL = 5,/* a reached vertex has no input neighbour one level up */
	V_EDGE_LEVEL = 6,/* an input edge spans more than one level */
	V_TREE_EDGE = 7, /* (v, pred v) is not an input edge */
	V_NEDGE = 8,     /* recomputed nedge differs from the BFS file's */
	V_NRULES = 8
};
extern const char *const v_rule_names[V_NRULES + 1];

typedef struct vgraph {
	uint64_t n, m;        /* vertices, input tuples */
	uint64_t bs, lo, nloc;/* block size; own vertices [lo, lo+nloc) */
	uint64_t *ptr;        /* [nloc+1] row pointers */
	uint32_t *gid;        /* [nnz] neighbour, global id */
	uint32_t *tix;        /* [nnz] neighbour, slot in the hot level table */
	uint32_t *slot;       /* [nloc+nghost] slot of own vertex i / ghost k (nloc+k) in the
	                       * hot table: slots ordered by how often this rank's
	                       * adjacency refers to them, so the hubs share cache lines */
	uint16_t *mult;       /* [nnz] how many tuples give this neighbour (>=1) */
	int64_t *tdeg;        /* [nloc] non-loop tuple ends at the vertex, duplicates counted */
	uint64_t nghost;
	int *rcnt, *rdsp;     /* ghost levels received from each rank */
	int *scnt, *sdsp;     /* own levels sent to each rank */
	uint32_t *sidx;       /* local indices whose levels are sent, by destination */
	uint64_t fingerprint; /* recomputed from /edges */
	uint64_t nnz_total, selfloops;
} vgraph;

/* Collective: reads /edges of `file` (named `path` in messages), checks every
 * id, recomputes the fingerprint, builds the distributed adjacency.
 * read_rows: rows read per rank per round. */
int vgraph_build(vgraph *g, hid_t file, const char *path, uint64_t n, uint64_t m,
                 uint64_t read_rows);
void vgraph_free(vgraph *g);

typedef struct vresult {
	int rule;             /* 0 pass, else the first failing V_* */
	int64_t example;      /* a vertex showing it, -1 if none */
	int64_t nedge;        /* recomputed */
	uint64_t failing[V_NRULES + 1]; /* which rules failed (all, not only the first) */
	int rounds;           /* pointer-jumping rounds */
	int level_bytes;      /* 1 or 4: the level table's width */
	double t_init, t_jump, t_ghost, t_scan, c_scan; /* seconds, this rank */
} vresult;

/* Collective: checks one search. pred: this rank's share [lo, lo+nloc) of the
 * predecessor row. */
int vcheck(vresult *res, const vgraph *g, const int64_t *pred, int64_t root, int64_t bfs_nedge);

#endif
