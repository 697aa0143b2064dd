/* search.h — one BFS, level-synchronous, as the paper's Algorithm 3, with
 * Beamer's direction optimization: a level is a direction decision, the
 * exchanges before the local step, the local step (top-down or bottom-up),
 * the fold exchange and the update. */
#ifndef B2_TRAVERSE_SEARCH_H
#define B2_TRAVERSE_SEARCH_H

#include "backend.h"
#include "plan.h"
#include "transport.h"

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
/* A level's phases: the first five (FORMATS.md, /level_phase_time). */
enum { B2_NLPHASES = B2_PH_PRED };

/* The exchanges whose bytes are recorded per level (FORMATS.md,
 * /level_bytes): what a rank sends, or what its peers read in place. */
enum { B2_XB_EXPAND, B2_XB_FOLD, B2_XB_VISITED, B2_NXCHG };
extern const char *const b2_exchange_names[B2_NXCHG];

typedef struct b2_search {
	const b2_backend *be;
	void *bk;
	b2_plan_grid grid;    /* the grid and the options the plan reads */
	b2_run_plan run;      /* what the plan fixed for the run */
	b2_plan_state state;  /* the direction rule's memory */
	b2_level_plan plan;   /* the level being run */
	MPI_Comm row, col; /* rank in row = j, rank in col = i */
	b2_link expand, fold; /* the exchanges: grid column, grid row */
	b2_msg *out;       /* [max(R,C)] */
	int *use_bitmap;   /* [C] */
	int64_t *cnt;      /* [C] */
	int64_t *stats;    /* [3*R*C] device levels: every rank's level counts */
	b2_msg *in;        /* [max(R,C)] device levels: what comes from each peer, as
	                      the plan fixed it (the backend stages it, the
	                      transport receives it) */
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
	double *lphase;    /* [B2_NLPHASES per level] this rank's phases of the level:
	                      host times; with device levels, once the search is
	                      over, the backend's split of the busy time
	                      (level_phases) and the host's termination */
	double *lfold;     /* [2 per level] message levels' fold exchange: the backend's
	                      messages (device to host), then the transport's round */
	int64_t *lbytes;   /* [B2_NXCHG per level] bytes this rank sent in each exchange */
	int64_t pred_bytes; /* bytes this rank sent resolving the predecessors */
	int64_t bitmap_msgs, list_msgs;
	int trace;         /* --trace: per-level times on stderr */
} b2_search;
/* --trace prints at most this many levels a search */
enum { B2_TRACE_LEVELS = 64 };

typedef struct b2_search_opts {
	b2_plan_grid grid; /* b2_search_grid's */
	int transport;   /* --transport: B2_TP_ (transport.h) */
	int gpus_shared; /* ranks share GPUs: no device levels, no NCCL */
	int test_shared; /* --test-shared-gpus: pull and nccl all the same */
	int trace;       /* --trace */
} b2_search_opts;

/* Collective: what the plan reads of the grid and the options, made once
 * for the backend's buffers (b2_plan_backend) and the searches alike. */
int b2_search_grid(b2_plan_grid *grid, const b2_graph *g, int bitmap_mode, int direction,
                   double alpha, double beta);

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
