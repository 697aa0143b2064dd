/* search.h — one BFS, level-synchronous, as the paper's Algorithm 3, with
 * Beamer's direction optimization: a level is a direction decision, the
 * exchanges before the local step, the local step (top-down or bottom-up),
 * the fold exchange and the update. */
#ifndef B2_TRAVERSE_SEARCH_H
#define B2_TRAVERSE_SEARCH_H

#include "backend.h"
#include "transport.h"

enum { B2_BITMAP_OFF = 0, B2_BITMAP_ON = 1, B2_BITMAP_AUTO = 2 };
/* --direction: every level top-down, every level bottom-up (a testing
 * mode), or Beamer's rule per level */
enum { B2_DIRECTION_TOP_DOWN = 0, B2_DIRECTION_BOTTOM_UP = 1, B2_DIRECTION_AUTO = 2 };

/* Phase slots of a search's time (FORMATS.md, /phase_time). */
enum {
	B2_PH_EXPAND_XCHG,  /* expand exchange (and, bottom-up, the rows' visited state) */
	B2_PH_EXPANSION,    /* the local step, either direction */
	B2_PH_FOLD_XCHG,    /* fold exchange */
	B2_PH_UPDATE,       /* frontier update */
	B2_PH_TERMINATION,  /* the level's allreduce */
	B2_PH_PRED,         /* deferred predecessor resolution */
	B2_NPHASES
};
extern const char *const b2_phase_names[B2_NPHASES];

typedef struct b2_search {
	const b2_backend *be;
	void *bk;
	int R, C, i, j;
	int64_t N, b;
	int bitmap_mode;
	MPI_Comm row, col; /* rank in row = j, rank in col = i */
	b2_link expand, fold; /* the exchanges: grid column, grid row */
	b2_msg *out;       /* [max(R,C)] */
	int *use_bitmap;   /* [C] */
	int64_t *cnt;      /* [C] */
	/* direction optimization: mode, Beamer's alpha and beta, the sum of
	 * all tuple degrees (the edges to check before the first level) */
	int direction;
	double alpha, beta;
	int64_t total_degree;
	int dir, fresh;           /* the last level's direction; just left bottom-up */
	int64_t to_check, prev_front;
	/* device levels (backend.h): the column peers' frontier sizes, and
	 * the sizes of fold messages (unknown: -1) */
	int device_levels;
	int64_t *stats, *ncol, *nrow; /* [3*R*C] allgathered level stats, [R], [C] */
	const int64_t *tdeg;      /* [b] the owned vertices' tuple degrees (the graph's) */
	int64_t root_degree;      /* device levels: the search's root's, and its */
	int root_col;             /* grid column (the first fold's bound) */
	/* per-search results */
	double time, phase[B2_NPHASES];
	double expansion_by_dir[2]; /* the expansion phase split: top-down, bottom-up steps */
	int64_t nlevels;   /* levels with a non-empty frontier, the root's included */
	int64_t cap_levels;
	int64_t *fsize;    /* [cap_levels] global frontier size per level */
	/* per step l (the step from frontier l to l+1; nlevels of them, the
	 * last one finding nothing): direction, edges examined (all ranks),
	 * host time */
	signed char *ldir;
	int64_t *lexam;
	double *ltime;
	double *lphase;    /* [5 per level] host phases: the trace's; with device levels,
	                      the busy time that level_phases splits */
	double *lfold;     /* [2 per level] message levels' fold exchange: the backend's
	                      messages (device to host), then the transport's round */
	int64_t bitmap_msgs, list_msgs;
	int trace;         /* B2_TRACE_LEVELS set: per-level times on stderr */
} b2_search;
enum { B2_TRACE_LEVELS = 64 };

typedef struct b2_search_opts {
	int bitmap_mode;
	int transport;   /* --transport: B2_TP_ (transport.h) */
	int gpus_shared; /* ranks share GPUs: no device levels, no NCCL */
	int direction;
	double alpha, beta;
} b2_search_opts;

/* Collective. Sets up communicators and exchanges (b2_links_open); bk
 * must exist. */
int b2_search_init(b2_search *s, const b2_backend *be, void *bk, const b2_graph *g,
                   const b2_search_opts *o);
/* Collective: one search from global vertex root, timed as docs/DESIGN.md
 * says.
 * A failure inside a search ends the job (b2_abort, with its exit code):
 * the peers may be waiting for this rank in the middle of a level. */
int b2_search_run(b2_search *s, int64_t root);
void b2_search_free(b2_search *s);

#endif
