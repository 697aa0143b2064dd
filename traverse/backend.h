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
 * of b bits (bmp_words(b) words) followed by one word holding `count`. */
typedef struct b2_msg {
	uint32_t *data;
	int64_t count;
	int bitmap;
} b2_msg;

static inline int64_t b2_bmp_words(int64_t b) { return (b + 31) / 32; }
/* Words a message buffer needs: a full list or a bitmap plus its count. */
static inline int64_t b2_msg_words(int64_t b)
{
	int64_t w = b2_bmp_words(b) + 1;
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
} b2_bkopts;

typedef struct b2_backend {
	const char *name;
	/* Places the graph (the backend may keep or copy g's arrays; g stays the
	 * caller's) and allocates the search state. */
	int (*create)(void **bk, const b2_graph *g, const b2_bkopts *o);
	void (*destroy)(void *bk);
	/* Host buffers for MPI (pinned for CUDA). */
	int (*host_alloc)(void *out_ptr, size_t bytes, const char *what);
	void (*host_free)(void *p);
	/* Resets bitmap and levels; root_k >= 0: this rank owns the root.
	 * Returns when that is done (pull mode's peers read the frontier). */
	int (*begin)(void *bk, int64_t root_k);
	/* The current frontier as a message for the grid-column peers. */
	int (*front_msg)(void *bk, int bitmap, b2_msg *out);
	/* Makes received messages (slot s = sender's grid row for expand, grid
	 * column for fold; slot `self` ignored) available to expand/update.
	 * dir: B2_DIR_EXPAND or B2_DIR_FOLD. In pull mode the data pointers are
	 * NULL and only the counts are given: the backend reads the peers'
	 * bitmaps in place. */
	int (*stage_in)(void *bk, int dir, const b2_msg *in, int nslots, int self);
	/* Bottom-up levels need the visited state of every local row, which the
	 * rows' owners (the grid-row peers) hold. Through MPI: *send = this
	 * rank's own block of the visited bitmap (bmp_words(b) words), *recv =
	 * room for C of them; the caller allgathers along the grid row, then
	 * visited_in merges them. With device-direct exchanges along the grid
	 * row the backend reads the peers' blocks itself (visited_in(NULL)). */
	int (*visited_bufs)(void *bk, uint32_t **send, uint32_t **recv);
	int (*visited_in)(void *bk, const uint32_t *recv);
	/* The local step of level lvl in direction `dir` (B2_TOP_DOWN or
	 * B2_BOTTOM_UP) over the own frontier and the staged expand messages;
	 * cnt[c] = vertices discovered for grid column c (cnt[j]: the new own
	 * frontier so far); *examined = edges looked at. In pull mode nothing
	 * is returned (cnt and *examined come with the update) and nothing waits:
	 * the row peers are signalled on the device when the step is done. */
	int (*expand)(void *bk, int lvl, int dir, int64_t *cnt, int64_t *examined);
	/* Outgoing fold messages for every c != j (use_bitmap[c] picks the form). */
	int (*fold_msgs)(void *bk, const int *use_bitmap, b2_msg *out);
	/* Frontier update over the staged fold messages; st->front = new
	 * frontier size, st->degree = the sum of its tuple degrees (the
	 * direction heuristic's edge count), st->examined = the level's edges
	 * looked at when the step could not say (pull mode), else untouched. */
	int (*update)(void *bk, int lvl, b2_level_stats *st);
	/* Deferred predecessors: *send = the local-row predecessor words
	 * (C blocks of b) to exchange along the grid row, *recv a buffer of the
	 * same size; then resolve() turns them into global ids. */
	int (*resolve_bufs)(void *bk, uint32_t **send, uint32_t **recv);
	int (*resolve)(void *bk, const uint32_t *recv);
	/* Global predecessors of owned vertices, -1 unreached: [b] on the host. */
	int (*pred)(void *bk, int64_t *out);
	/* Sum of tuple_degree over reached owned vertices. */
	int (*degree_sum)(void *bk, int64_t *sum);
	/* Optional, NULL where not offered: device-direct messages between the
	 * ranks of one node (CUDA IPC), instead of MPI through host buffers.
	 * peer_export writes B2_PEER_BLOB bytes naming this rank's receive areas
	 * and predecessor array. peer_open(dir, n, me, blobs) maps those of the n
	 * ranks of the exchange dir (blobs[p*B2_PEER_BLOB], p != me); it fails,
	 * quietly, when one cannot be mapped; blobs NULL unmaps (the exchange
	 * goes back to MPI). Once open: front_msg / fold_msgs give device data,
	 * peer_send copies out[p] into peer p's slot `me` and returns when the
	 * copies are complete, stage_in takes the messages from the rank's own
	 * receive area, and resolve (recv NULL) reads the row peers'
	 * predecessors itself. */
	int (*peer_export)(void *bk, void *blob);
	int (*peer_open)(void *bk, int dir, int n, int me, const void *blobs);
	int (*peer_send)(void *bk, int dir, const b2_msg *out, int n, int me);
	/* Optional, pull mode (the search decides: every exchange open as above,
	 * bitmaps allowed, GPUs not shared): pull_mode(bk, 1) switches
	 * stage_in / expand / update to reading the peers' bitmaps in place,
	 * with device-side signals between expansion and update, so that the
	 * host waits once per level, in update. Every rank must run the same
	 * levels and start a level only when all finished the last.
	 * pull_phases: device time of the last search's nlev levels in the
	 * phases expand exchange, expansion, fold exchange, update (ph[0..3]),
	 * and in all of them (*span); lv, when not NULL, gets the five per
	 * level (lv[5*l + x]). */
	int (*pull_mode)(void *bk, int on);
	int (*pull_phases)(void *bk, int nlev, double *ph, double *span, double *lv);
} b2_backend;

enum { B2_DIR_EXPAND = 0, B2_DIR_FOLD = 1 };
#define B2_PEER_BLOB 256
/* Pull mode works on grids whose sides have at most this many ranks (one
 * kernel argument names every peer's bitmap). */
#define B2_PULL_MAX 32

extern const b2_backend b2_cpu_backend;
#ifdef B2_HAVE_CUDA
extern const b2_backend b2_cuda_backend;
/* Number of visible CUDA devices (0 on error or none); name of device d. */
int b2_cuda_device_count(void);
int b2_cuda_device_name(int d, char *name, size_t n);
int b2_cuda_mem_info(int d, size_t *free_b, size_t *total_b);
#endif

#ifdef __cplusplus
}
#endif
#endif
