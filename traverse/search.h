/* search.h — one BFS, level-synchronous, as the paper's Algorithm 3. */
#ifndef B2_TRAVERSE_SEARCH_H
#define B2_TRAVERSE_SEARCH_H

#include "backend.h"
#include "comm.h"

enum { B2_BITMAP_OFF = 0, B2_BITMAP_ON = 1, B2_BITMAP_AUTO = 2 };
enum { B2_NPHASES = 6 };
extern const char *const b2_phase_names[B2_NPHASES];

typedef struct b2_search {
	const b2_backend *be;
	void *bk;
	int R, C, i, j;
	int64_t N, b;
	int bitmap_mode;
	MPI_Comm row, col; /* rank in row = j, rank in col = i */
	b2_xchg expand, fold;
	b2_msg *out;       /* [max(R,C)] */
	int *use_bitmap;   /* [C] */
	int64_t *cnt;      /* [C] */
	/* per-search results */
	double time, phase[B2_NPHASES];
	int64_t nlevels;   /* levels with a non-empty frontier, the root's included */
	int64_t *fsize;    /* [cap_levels] global frontier size per level */
	int64_t cap_levels;
	int64_t bitmap_msgs, list_msgs;
	/* pull mode (backend.h): frontier sizes of all ranks after a level
	 * (world rank i*C + j) and of the column peers */
	int pull;
	int64_t *allfront, *ncol;
	int64_t pull_levels; /* levels run by the last search, the empty last one too */
	double pull_wall;    /* host time in them */
	double *trace;       /* B2_TRACE_LEVELS set: host time per level */
} b2_search;
enum { B2_TRACE_LEVELS = 64 };

/* How far device-direct exchanges may go (--ipc): not at all, copies into
 * the peers' receive areas (comm.h), or also pull mode (backend.h). */
enum { B2_IPC_OFF = 0, B2_IPC_PUSH = 1, B2_IPC_AUTO = 2 };

/* Collective. Sets up communicators and exchanges; bk must exist. ipc: a
 * B2_IPC_ value, used where the backend and the node allow; gpus_shared:
 * ranks share a GPU (no pull mode: its waits would spin against a peer
 * that needs the same GPU). */
int b2_search_init(b2_search *s, const b2_backend *be, void *bk, const b2_graph *g,
                   int bitmap_mode, int ipc, int gpus_shared);
/* Collective: one search from global vertex root, timed as DESIGN says.
 * A failure inside a search aborts the job (peers would wait forever). */
int b2_search_run(b2_search *s, int64_t root);
void b2_search_free(b2_search *s);

#endif
