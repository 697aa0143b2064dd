/* plan.h — the level plan: what a search does, decided in one place from
 * numbers every rank shares (the grid, the options, the transports'
 * capabilities, the global counts of the last level). Pure functions: no
 * MPI, no CUDA, no state outside their arguments, so every rank reaches
 * the same plan and the CPU tests check each rule (tests/plan_test.c).
 *
 * Per run (b2_plan_run): whether levels run on the device, whether the fold
 * carries the visited state and when, and how the deferred predecessors
 * are resolved. Per level (b2_plan_level): the direction (Beamer's rule),
 * what the fold carries, whether the row's visited state must be
 * exchanged, and each exchange's message form (bitmap, list or none) with
 * the sizes or bounds the receivers may use.
 *
 * A message is a list of 32-bit local indices or a bitmap of the block,
 * whichever is smaller (section 5 of the paper), or as --bitmap forces.
 * Where the size is known only after the local step (message levels) the
 * sender picks with b2_plan_form; with device levels the sizes are those
 * of the termination test, known on every rank before the level starts:
 * the fold's are not, so it moves bitmaps; the expand moves a frontier of
 * a size known to both sides as a list where a network makes bytes cost
 * (NCCL across nodes) or where the update wrote it (FRONT_LISTS).
 *
 * Before any of that (b2_plan_as_column):
 *   ROW_AS_COLUMN  a grid of one row (1 x C) is searched as the grid of one
 *       column (C x 1) of the same ranks: the graph is undirected, so rank
 *       j's columns, all the neighbours of its own vertices, are the rows
 *       the C x 1 rank holds (transpose.h). The same vertices stay on each
 *       rank; the expand then gathers the frontier and nothing is folded.
 *       A grid searched as a row has no rules of its own: with this one
 *       off, 1 x C takes the general path.
 * The special rules, each kept because it pays on grids users run
 * (docs/RULES.md), are named here and nowhere else:
 *   ROW_CARRIES_EVERY_LEVEL  a grid row of two ranks: the fold also
 *       carries the sender's discoveries of its own block (message levels:
 *       every level; NCCL's device levels: bottom-up levels; pull's go in
 *       turns instead), so the row's visited state is current before a
 *       bottom-up level (no visited exchange), and on message levels each
 *       rank knows what its peer will ask for in the predecessor exchange
 *       (answers only);
 *   FRONT_LISTS  on device levels each update also writes a new frontier
 *       of fewer than b2_front_list_cap(b) vertices as a list, and the
 *       expand moves that list, not the bitmap (pull: the column peers read
 *       it in place), so that a sparse level's expand moves a few words,
 *       not R - 1 whole bitmaps.
 *   COMPACT  on message levels the expand sends a frontier as a compact
 *       bitmap (compact.h: a bit for each vertex of the block that has a
 *       tuple degree and was in no earlier frontier) where that is smaller
 *       than the list and the bitmap, so that a dense level moves only the
 *       bits a frontier may have set; with --bitmap auto, where the backend
 *       can (compact_masks) and the messages pass through the host (MPI).
 *   BOTTOM_UP_TURNS  device levels whose row peers' discoveries are read in
 *       place (pull): a bottom-up step goes in C turns along the grid row
 *       (Beamer, Buluc et al., IPDPS 2013). In turn s rank j scans the rows
 *       of block j + s (mod C) only, once the ranks that scanned them in the
 *       turns before (j + 1 .. j + s) have, skipping what they found: a row
 *       found on one rank is not scanned on the next, where the general
 *       path scans every row on all C ranks. The own block goes first, so
 *       the update takes the peers' finds as it takes a fold's. On a row of
 *       two the row's visited state is then current after the step without
 *       carrying (ROW_CARRIES_EVERY_LEVEL is not needed there).
 * Each can be turned off (--rule-off, b2_plan_grid.rules_off), so that what
 * it gains is measured against the general path on the same build. */
#ifndef B2_TRAVERSE_PLAN_H
#define B2_TRAVERSE_PLAN_H

#include <stdint.h>
#include "backend.h"

enum { B2_BITMAP_OFF = 0, B2_BITMAP_ON = 1, B2_BITMAP_AUTO = 2 };
/* --direction: every level top-down, every level bottom-up (a testing
 * mode), or Beamer's rule per level */
enum { B2_DIRECTION_TOP_DOWN = 0, B2_DIRECTION_BOTTOM_UP = 1, B2_DIRECTION_AUTO = 2 };

/* The special rules (above), as bits of b2_plan_grid.rules_off. */
enum {
	B2_RULE_ROW_CARRIES = 1 << 0,       /* ROW_CARRIES_EVERY_LEVEL */
	B2_RULE_FRONT_LISTS = 1 << 1,
	B2_RULE_ROW_AS_COLUMN = 1 << 2,
	B2_RULE_COMPACT = 1 << 3,
	B2_RULE_TURNS = 1 << 4,             /* BOTTOM_UP_TURNS */
	B2_NRULES = 5
};
/* Their option names, by bit number ("row-carries", ...). */
extern const char *const b2_rule_names[B2_NRULES];
/* The bit of rule `name`, or 0 where there is none of that name. */
int b2_rule_bit(const char *name);

/* b2_run_plan.expand_lists: which expand messages go as lists:
 * none, the frontiers the update wrote (FRONT_LISTS, the expand's), or
 * every one smaller than its bitmap (over a network, where bytes cost). */
enum { B2_LISTS_NONE = 0, B2_LISTS_SHORT = 1, B2_LISTS_ANY = 2 };

/* A message's form. */
enum { B2_FORM_NONE = 0, B2_FORM_LIST = 1, B2_FORM_BITMAP = 2, B2_FORM_COMPACT = 3 };

/* What the run's options and the grid are. */
typedef struct b2_plan_grid {
	int R, C, i, j;
	int64_t N, b;
	int bitmap_mode;     /* B2_BITMAP_ */
	int direction;       /* B2_DIRECTION_ */
	double alpha, beta;  /* Beamer's */
	int64_t total_degree; /* the sum of all tuple degrees */
	int64_t compact_bits; /* the own block's vertices with a tuple degree:
	                         the bits of its first compact bitmap (COMPACT) */
	int rules_off;       /* B2_RULE_ bits: special rules not applied */
} b2_plan_grid;

/* What the transports and the backend chosen can do: the same on every rank
 * of a link (the in-place and list flags), or on all ranks (the rest). */
typedef struct b2_plan_caps {
	int device_levels;   /* every exchange moves bitmaps device to device */
	int fold_carries;    /* the fold's transport can carry the visited state */
	int fold_in_place;   /* the backend reads the row peers' state in place */
	int expand_lists;    /* over a network: lists of known size where smaller (b2_plan_level) */
	int compact;         /* the backend packs compact bitmaps (compact_masks) and
	                        the expand's messages lie in host memory */
} b2_plan_caps;

/* Fixed for the run. */
typedef struct b2_run_plan {
	int fold_exchange;   /* the grid row has peers to fold to (C > 1) */
	int device_levels;
	int carry;           /* B2_CARRY_ (backend.h) */
	int preds;           /* B2_PREDS_ (backend.h) */
	int expand_lists;    /* B2_LISTS_ */
	int front_lists;     /* the updates write short frontiers as lists (FRONT_LISTS) */
	int row_reads_visited; /* bottom-up levels may need the row's visited state,
	                          and the folds do not carry it every level: the
	                          own visited block goes to (or is read by) the
	                          row peers */
	int row_peer;        /* the other rank of a grid row of two whose folds
	                        carry (the carried blocks are its), else -1 */
	int compact;         /* message levels: an expand frontier goes as a
	                        compact bitmap where smaller (COMPACT) */
	int turns;           /* bottom-up steps go in C turns (BOTTOM_UP_TURNS) */
} b2_run_plan;

/* Which backend buffers a run needs (b2_bkopts), from the grid and options
 * alone: the backend is created before the transports are chosen. */
void b2_plan_backend(const b2_plan_grid *g, b2_bkopts *o);

/* ROW_AS_COLUMN: 1 when an R x C grid (the partition's) is searched as C x 1. */
int b2_plan_as_column(int R, int C, int rules_off);

b2_run_plan b2_plan_run(const b2_plan_grid *g, const b2_plan_caps *caps);

/* The direction rule's memory between levels. */
typedef struct b2_plan_state {
	int dir, fresh;       /* the last level's direction; just left bottom-up */
	int64_t to_check;     /* edges not yet examined, as Beamer counts them */
	int64_t prev_front;
	int prev_dir;         /* the last level's step, and whether it left
	                         every rank of the row the row's visited state */
	int row_current;
	int64_t unseen;       /* COMPACT: the own block's vertices with a tuple
	                         degree in no frontier yet: the bits of its
	                         next compact bitmap */
} b2_plan_state;

/* What the last level left, on every rank alike. */
typedef struct b2_plan_counts {
	int lvl;              /* the level to plan, 1 for the root's */
	int64_t own_front;    /* this rank's frontier (message levels: the size of
	                         its expand message, which travels with it) */
	int64_t front, degree; /* the last level's global frontier and its degree sum
	                          (0 after a bottom-up step) */
	/* device levels: every rank's frontier size, degree sum and edges
	 * examined (rank p at [3p], [3p + 1], [3p + 2]: the termination
	 * test's); level 1: the root's rank instead */
	const int64_t *per_rank;
	int root_rank;
} b2_plan_counts;

/* One expand message as the plan fixed it: a list of `count` entries, a
 * bitmap (count: the vertices where known, -1 where the receiver learns it
 * only from the message), or none. The fold's messages on device levels
 * are bitmaps: their sizes are known only after the step. */
typedef struct b2_msg_plan {
	int form;
	int64_t count;
} b2_msg_plan;

typedef struct b2_level_plan {
	b2_step step;          /* lvl, direction, what the fold carries */
	int visited_exchange;  /* bottom-up without a current row state: the
	                          row peers' visited blocks travel first */
	b2_msg_plan expand_out;   /* the own frontier, to the column peers */
	b2_msg_plan *expand_in;   /* [R] from each column peer (device levels) */
} b2_level_plan;

/* Plans level c->lvl into *p (its array the caller's, R long) and
 * advances *st. Device levels fix every message here; message levels fix
 * the direction, the carrying and the visited exchange, and their sizes
 * come after the step (b2_plan_form). */
void b2_plan_level(const b2_plan_grid *g, const b2_run_plan *run, b2_plan_state *st,
                   const b2_plan_counts *c, b2_level_plan *p);

/* Folds carrying every level: before the first level, the row peer of the
 * root's owner holds every discovery of the row but the root, so it takes
 * the root as carried; the column of the root's owner, or -1 where this
 * rank takes nothing. */
int b2_plan_root_carry(const b2_plan_grid *g, const b2_run_plan *run, int64_t root);

/* Message levels: the form of a message of n vertices. */
int b2_plan_form(const b2_plan_grid *g, int64_t n);
/* The form of message levels' expand message of n vertices: b2_plan_form's,
 * or B2_FORM_COMPACT where the run sends compact bitmaps and one of
 * `unseen` bits (b2_plan_state.unseen) is smaller. */
int b2_plan_expand_form(const b2_plan_grid *g, const b2_run_plan *run, int64_t n, int64_t unseen);

/* Message levels: the fold also sends the own block's discoveries. */
static inline int b2_plan_fold_carries(const b2_level_plan *p)
{
	return p->step.carrying != B2_CARRYING_NONE;
}

#endif
