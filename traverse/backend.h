/* backend.h — the per-level local work of bfs-gpu (the paper's Algorithm 3
 * without its communication), behind one interface so that the host driver
 * (search.c) and the exchanges (comm.c) are shared by the CUDA and the CPU
 * backend.
 *
 * Index spaces on rank P(i,j) of an R x C grid, b = block size (FORMATS.md):
 *   local row r in [0, b*C): owned by grid column r / b of the same grid row;
 *   local column u in [0, b*R): global vertex j*b*R + u;
 *   owned vertex k in [0, b): global (j*R + i)*b + k, local row j*b + k,
 *   local column i*b + k.
 * Messages carry k (the index inside the receiver's block for fold, inside
 * the sender's block for expand): 32-bit words, or a bitmap of b bits when
 * that is smaller (section 5 of the paper).
 *
 * A level's local step runs in one of two directions (Beamer et al.):
 * top-down, one thread per frontier edge (the paper's expansion), or
 * bottom-up, where every unvisited local row looks among its neighbours in
 * the rank's column block for one in the frontier (a row-major copy of the
 * block, built at create when bottom-up levels may run). Both write the same
 * discoveries, so the fold and the update do not care which ran. */
#ifndef B2_TRAVERSE_BACKEND_H
#define B2_TRAVERSE_BACKEND_H

#include <stdint.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Provisional predecessor of an owned vertex found in the fold: the sender's
 * grid column with this bit set (local columns are < 2^31, main.c checks). */
#define B2_PRED_REMOTE 0x80000000u

/* One message: `count` vertices, as a list of `count` words, or as a bitmap
 * of b bits (bmp_words(b) words) followed by one word holding `count`, or
 * (message levels' expand, plan.h COMPACT) as a compact bitmap of the
 * sender's block (compact.h): `words` words, the last holding `count`. */
typedef struct b2_msg {
	uint32_t *data;
	int64_t count;
	int bitmap;     /* B2_MSG_ */
	int64_t words;  /* B2_MSG_COMPACT: its words, the count word's included */
} b2_msg;

enum { B2_MSG_LIST = 0, B2_MSG_BITMAP = 1, B2_MSG_COMPACT = 2 };

static inline int64_t b2_bmp_words(int64_t b) { return (b + 31) / 32; }

/* Frontier lists the update writes (b2_bkrun.front_lists): the longest
 * one, a frontier of fewer vertices than this. Half the bitmap's words: a
 * list half the bitmap's size still moves half the bytes, and spares the
 * reader the bitmap's unpacking (the top-down level after a bottom-up one,
 * whose frontier is a few per cent of the rows); the update stops adding
 * to it (one atomic a block) once it is reached. */
static inline int64_t b2_front_list_cap(int64_t b) { return b2_bmp_words(b) / 2; }
/* Whether the bottom-up step loads the neighbour lists as L2's first to
 * evict: when the column frontier (fcol_bytes, read at random) is over
 * half the L2 cache, the lists streaming through would otherwise push it
 * out. Below that, the hint only costs (1x1 and 2x2 at 2^26 vertices a
 * GPU); above, it gains (4x1). */
static inline int b2_bottom_up_evict_first(int64_t fcol_bytes, int64_t l2_bytes)
{
	return l2_bytes > 0 && fcol_bytes > l2_bytes / 2;
}
/* Words a message buffer needs: a full list, a bitmap plus its count, or
 * (a grid row of two carrying the visited state, transport.h) two parts,
 * each at most a bitmap with its count word: the sender's discovery set
 * (device levels), or a fold message and what it carries, staged one
 * after the other in the receiver's device slot (message levels). */
static inline int64_t b2_msg_words(int64_t b)
{
	int64_t w = 2 * (b2_bmp_words(b) + 1);
	return b > w ? b : w;
}

/* The rank's share of the graph, as read from the partition file. */
typedef struct b2_graph {
	int R, C, i, j;     /* grid and this rank's place in it */
	int64_t N, b;       /* vertices, block size */
	uint64_t nnz;       /* local CSC edges */
	uint64_t *col_ptr;  /* [b*R + 1] */
	uint32_t *row_idx;  /* [nnz], local rows */
	int64_t *tdeg;      /* [b] tuple_degree of owned vertices (0 for padding) */
	int rowmajor;       /* the block is given row-major (plan.h ROW_AS_COLUMN):
	                       col_ptr [b*C + 1] points per local row into row_idx,
	                       which holds local columns; the backend transposes */
} b2_graph;

/* Sizes both backends derive from the graph: block size, bitmap words of a
 * block, local rows (b*C) and columns (b*R), words of a message slot. */
static inline void b2_geometry(const b2_graph *g, int64_t *b, int64_t *bw, int64_t *nr,
                               int64_t *nc, int64_t *slotw)
{
	*b = g->b;
	*bw = b2_bmp_words(g->b);
	*nr = g->b * g->C;
	*nc = g->b * g->R;
	*slotw = b2_msg_words(g->b);
}

/* What an update tells the level loop (summed over ranks there). */
typedef struct b2_level_stats {
	int64_t front, degree, examined;
} b2_level_stats;

enum { B2_TOP_DOWN = 0, B2_BOTTOM_UP = 1 };

/* b2_step.carrying: what this level's fold carries of the visited state
 * (plan.h decides): nothing, or the sender's whole discovery set. */
enum { B2_CARRYING_NONE = 0, B2_CARRYING_ALL = 1 };

/* One level's local work as the level plan (plan.h) fixed it: the backend
 * follows it and decides none of it again. */
typedef struct b2_step {
	int lvl;      /* 1 for the root's level */
	int dir;      /* B2_TOP_DOWN or B2_BOTTOM_UP */
	int carrying; /* B2_CARRYING_ */
	int turns;    /* bottom-up in C turns along the row (plan.h BOTTOM_UP_TURNS) */
} b2_step;

typedef struct b2_bkopts {
	int bottom_up;        /* bottom-up levels may run: build the local CSR */
	int frontier_degree;  /* the update sums the new frontier's tuple degrees
	                         (the direction rule needs them; else degree is 0) */
	int edges_per_thread; /* 1, 2, 4 or 8 (CUDA; the CPU backend ignores it) */
	int pack_front;       /* also build the frontier as a bitmap (expand messages) */
	int pack_fold;        /* also build the outgoing fold lists as bitmaps */
	int64_t fold_cap;     /* fold lists are written up to this many entries
	                         (b: all; b/32 under --bitmap auto; 0 under on) */
	int device;           /* CUDA device ordinal */
	int trace;            /* --trace: the predecessor phases' times on stderr */
	int evict_first;      /* --evict-first (CUDA): B2_EVICT_FIRST_ */
} b2_bkopts;

/* b2_bkopts.evict_first: the bottom-up step's neighbour loads evict-first
 * where b2_bottom_up_evict_first says (auto), always, or never. */
enum { B2_EVICT_FIRST_AUTO = 0, B2_EVICT_FIRST_ON = 1, B2_EVICT_FIRST_OFF = 2 };

/* Where message data lies: the transports (transport.h) say which they
 * need, the backends give it there. */
enum { B2_MEM_HOST = 0, B2_MEM_DEVICE = 1 };

/* A device backend's memory that transports address (NCCL) or map into the
 * peers (CUDA IPC). share[] are whole allocations, laid out alike on every
 * rank, so that an address in a peer's copy is its base plus the same
 * offset as here. */
enum { B2_SHARE_RECV, B2_SHARE_BMP, B2_SHARE_PRED, B2_NSHARE };
typedef struct b2_regions {
	void *share[B2_NSHARE]; /* receive area; discovery bitmaps and the own
	                           visited block; local-row predecessors */
	uint32_t *slot[2];      /* [dir]: receive slot s at slot[dir] + s * slotw */
	int64_t slotw;
	void *stream;           /* the cudaStream_t of the backend's work */
	int device;             /* CUDA device ordinal */
} b2_regions;

enum { B2_DIR_EXPAND = 0, B2_DIR_FOLD = 1 };
/* Which folds carry the visited state (plan.h decides). */
enum { B2_CARRY_NONE = 0, B2_CARRY_BOTTOM_UP = 1, B2_CARRY_EVERY = 2 };
/* How the deferred predecessors are resolved after the levels (plan.h). */
enum {
	B2_PREDS_NONE,      /* one grid column: nothing is remote */
	B2_PREDS_IN_PLACE,  /* the backend reads the row peers' records in place */
	B2_PREDS_EXCHANGE,  /* requests, then answers, along the row */
	B2_PREDS_ANSWERS,   /* every fold carried: the answers only */
};

/* The run as the plan and the transports fixed it (configure). */
typedef struct b2_bkrun {
	int mem[2];         /* where each exchange's messages lie, [B2_DIR_]: B2_MEM_ */
	int device_levels;  /* levels run on the device (below) */
	int carry;          /* B2_CARRY_ */
	int preds;          /* B2_PREDS_ */
	int row_reads_visited; /* the row peers take the own visited block before
	                          bottom-up levels (b2_run_plan) */
	int row_peer;       /* the row peer whose blocks the folds carry, or -1 */
	int front_lists;    /* device levels: each update also writes a new frontier of
	                       fewer than b2_front_list_cap(b) vertices as a list, the
	                       expand's (plan.h FRONT_LISTS) */
	int lists_in_place; /* and the column peers read it in place (pull) */
} b2_bkrun;

/* Optional: what a device backend adds. */
typedef struct b2_device_ops {
	/* The memory transports address or map. peers: the n peers of exchange
	 * dir, their share[] mapped into this process (peer[me] unused), so
	 * that the backend reads their data in place (device levels' bitmaps
	 * and flags, the visited blocks, the predecessors); n == 0 forgets
	 * them. */
	int (*regions)(void *bk, b2_regions *r);
	int (*peers)(void *bk, int dir, int n, int me, const b2_regions *peer);
	/* Bottom-up: the row peers' visited blocks read where they lie. */
	int (*visited_in_place)(void *bk);
	/* Device levels: the last search's nlev levels, each one's busy time
	 * busy[l] (on the host, from its start to update's return) split into
	 * the phases expand exchange, expansion, fold exchange, update
	 * (lv[4*l + x]): what the device can time without slowing the level,
	 * the expansion the rest (its launches included). */
	int (*level_phases)(void *bk, int nlev, const double *busy, double *lv);
} b2_device_ops;

typedef struct b2_backend {
	const char *name;
	/* Places the graph (the backend may keep or copy g's arrays; g stays the
	 * caller's) and allocates the search state. */
	int (*create)(void **bk, const b2_graph *g, const b2_bkopts *o);
	void (*destroy)(void *bk);
	/* Host buffers for MPI (pinned for CUDA). */
	int (*host_alloc)(void *out_ptr, size_t bytes, const char *what);
	void (*host_free)(void *p);
	/* Once, before the first search: where the messages lie and how the
	 * run goes. Device levels (a device backend): every exchange moves
	 * bitmaps device to device, by reading the peers in place or by a
	 * device transport into the own slots, and the GPUs are not shared:
	 * stage_in / expand / update run a level with no host wait inside; the
	 * host waits once per level, in update. Every rank runs the same
	 * levels and starts a level only when all finished the last. */
	int (*configure)(void *bk, const b2_bkrun *run);
	/* Resets bitmap and levels; root_k >= 0: this rank owns the root.
	 * Returns when that is done (peers may read the frontier in place). */
	int (*begin)(void *bk, int64_t root_k);
	/* The current frontier as a message for the grid-column peers, in form
	 * B2_MSG_ (COMPACT: where the backend has the masks, else a bitmap;
	 * out->bitmap says which). */
	int (*front_msg)(void *bk, int form, b2_msg *out);
	/* Makes received messages (slot s = sender's grid row for expand, grid
	 * column for fold; slot `self` ignored) available to expand/update.
	 * dir: B2_DIR_EXPAND or B2_DIR_FOLD. Data in host memory is copied in;
	 * data already in the backend's own receive slot (a device transport
	 * put it there) is used where it is. With device levels the data
	 * pointers are NULL and only the counts are given. */
	int (*stage_in)(void *bk, int dir, const b2_msg *in, int nslots, int self);
	/* Bottom-up levels need the visited state of every local row, which the
	 * rows' owners (the grid-row peers) hold: *send = this rank's own block
	 * of the visited bitmap (bmp_words(b) words), *recv = room for C of
	 * them; the transport allgathers along the grid row, then visited_in
	 * merges them. */
	int (*visited_bufs)(void *bk, uint32_t **send, uint32_t **recv);
	int (*visited_in)(void *bk, const uint32_t *recv);
	/* The local step of level st->lvl in direction st->dir over the own
	 * frontier and the staged expand messages; cnt[c] = vertices
	 * discovered for grid column c (cnt[j]: the new own frontier so far);
	 * *examined = edges looked at. With device levels nothing is returned
	 * (cnt and *examined come with the update) and nothing waits. */
	int (*expand)(void *bk, const b2_step *st, int64_t *cnt, int64_t *examined);
	/* Outgoing fold messages for every c != j (use_bitmap[c] picks the
	 * form), and, unless use_bitmap[j] < 0, out[j]: the step's discoveries
	 * of the own block, which the fold carries. With device levels:
	 * bitmaps of count -1 (use_bitmap is the plan's, all bitmaps); a
	 * carrying fold's message is the sender's whole discovery set. */
	int (*fold_msgs)(void *bk, const int *use_bitmap, b2_msg *out);
	/* Marks the rows of row peer c's block that m (as the fold's transport
	 * delivered it, or a host list of the root) names visited: what c
	 * carried with its fold message at level lvl (0: the root); and
	 * remembers them as c's own finds (carried rows, reset by begin), for
	 * the answers without requests. */
	int (*carry_in)(void *bk, const b2_msg *m, int c);
	/* Frontier update over the staged fold messages; st->front = new
	 * frontier size, st->degree = the sum of its tuple degrees (the
	 * direction rule's edge count; may be left 0 when the step was
	 * bottom-up: the plan does not use it then), st->examined = the
	 * level's edges looked at when the step could not say (device levels),
	 * else untouched. */
	int (*update)(void *bk, int lvl, b2_level_stats *st);
	/* Deferred predecessors (the paper's section 3.6), in one request and
	 * one answer round along the grid row, only for the vertices the fold
	 * brought. pred_requests: out[s] = the owned k whose provisional
	 * predecessor is row peer s (out[j] empty), as a list or (CUDA, where
	 * smaller) a bitmap standing for the ascending list. pred_answers:
	 * in[c] = peer c's requests, out[c] = the local columns this rank
	 * recorded for them, in the list's order. pred_resolve: in[s] (the
	 * answers to the requests to s) into global ids.
	 * B2_PREDS_ANSWERS (every fold carried the visited state): a peer asks
	 * for exactly the rows of its block this rank found and it did not
	 * (visited here, not carried), so no requests travel: pred_requests
	 * only makes the lists the answers are applied through (out is left
	 * alone), and pred_answers answers those rows in ascending order (in
	 * is not read). B2_PREDS_NONE, _IN_PLACE, _LOCAL: pred_resolve alone,
	 * in not read (in place: the row peers' records, peers() mapped). */
	int (*pred_requests)(void *bk, b2_msg *out);
	int (*pred_answers)(void *bk, const b2_msg *in, b2_msg *out);
	int (*pred_resolve)(void *bk, const b2_msg *in);
	/* Global predecessors of owned vertices, -1 unreached: [b] on the host. */
	int (*pred)(void *bk, int64_t *out);
	/* Sum of tuple_degree over reached owned vertices. */
	int (*degree_sum)(void *bk, int64_t *sum);
	const b2_device_ops *device; /* NULL: messages in host memory only */
	/* Optional (NULL: no compact bitmaps), once before the first search:
	 * masks + q * bmp_words(b) = which vertices of the block of grid-column
	 * peer q have a tuple degree. Each search begins with these masks;
	 * front_msg packs through the own block's, stage_in unpacks each
	 * peer's compact bitmap through its mask, and each frontier, sent or
	 * received in any form, leaves its block's mask. */
	int (*compact_masks)(void *bk, const uint32_t *masks);
} b2_backend;

/* Reading peers in place works on grids whose sides have at most this many
 * ranks (one kernel argument names every peer's bitmap). */
#define B2_PULL_MAX 32

extern const b2_backend b2_cpu_backend;
#ifdef B2_HAVE_CUDA
extern const b2_backend b2_cuda_backend;
/* Number of visible CUDA devices (0 on error or none); name of device d. */
int b2_cuda_device_count(void);
int b2_cuda_device_name(int d, char *name, size_t n);
#endif

#ifdef __cplusplus
}
#endif
#endif
