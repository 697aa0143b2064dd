/* common.cuh — what the CUDA backend's files share: the error idiom, the
 * launch constants, the bitmap and warp helpers that more than one phase's
 * kernels use, the search state (cu_bk) with the layout of its device
 * memory, and the host functions one phase calls in another.
 *
 * The backend follows the paper's kernels (section 3.4 frontier expansion
 * with one thread per frontier edge and k edges per thread, section 3.5
 * frontier update, section 5 bitmap messages built by both and unpacked by
 * warp-level kernels), by phase, one file each:
 *   frontier.cu   the column's frontier gathered, the top-down expansion;
 *   bottom_up.cu  the bottom-up step (Beamer et al.) and its visited state;
 *   fold.cu       staging the messages, the fold's messages, the update
 *                 and what the fold carries;
 *   level.cu      a search's begin, a level's step and its counts;
 *   preds.cu      the deferred predecessors (the paper's section 3.6);
 *   backend.cu    set-up, the regions the transports map, the table.
 * All search state lives on the device; the host sees only message data
 * and counts. Per level (search.c drives): gather the column's frontier
 * into `af` (own frontier + received lists/bitmaps) with the columns'
 * degrees -> exclusive scan (CUB), expansion kernel (binary search once per
 * thread for the base column, K consecutive edges, interleaved independent
 * loads, test-then-atomicOr on the visited bitmap), discoveries set bits in
 * one bitmap per destination grid column (counted and, when small, turned
 * into lists afterwards), then the update kernel over what the fold
 * brought. How messages travel is the transports' business (transport.h):
 * the backend gives them in host or device memory, takes them from host
 * memory or from its own receive slots, and, where a transport mapped the
 * peers' memory (CUDA IPC), reads the peers' data in place. With device
 * levels a level needs the host only at its end: messages are bitmaps,
 * read in place (the GPUs signalling each other through flags) or put into
 * the slots by a transport on the stream (NCCL).
 *
 * Every kernel is launched from its own file (no relocatable device code);
 * device helpers shared by files are static inline here. */
#ifndef B2_TRAVERSE_CUDA_COMMON_CUH
#define B2_TRAVERSE_CUDA_COMMON_CUH

#include <cuda_runtime.h>
#include <cub/cub.cuh>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#ifndef B2_HAVE_CUDA
#define B2_HAVE_CUDA /* these files are the CUDA build */
#endif
#include "../backend.h"
#include "../compact.h"

/* common/b2.h pulls in mpi.h, which nvcc is not given: the few things used
 * here are declared again (same signatures as b2.h). */
extern "C" int b2_err(int code, const char *fmt, ...);
/* every rank may run out alike: one message (common/b2.h) */
extern "C" int b2_err_held(int code, const char *fmt, ...);
extern "C" int b2_rank;
enum { B2_EFAIL_ = 1, B2_EIO_ = 4 };

/* The CUDA error idiom: inside a function with `int error` and a `done:`
 * exit, as B2_TRY below. */
#define CU_TRY(call)                                                                          \
	do {                                                                                      \
		cudaError_t e_ = (call);                                                              \
		if (e_ != cudaSuccess) {                                                              \
			error = b2_err(B2_EFAIL_, "CUDA error: %s (%s, %s:%d)", cudaGetErrorString(e_), \
			               #call, __FILE__, __LINE__);                                         \
			goto done;                                                                        \
		}                                                                                     \
	} while (0)

/* b2.h's, for the backend's own calls: an error from x leaves the function
 * through its `done:` exit */
#define B2_TRY(x) do { if ((error = (x)) != 0) goto done; } while (0)

#define FULL 0xffffffffu
enum { TPB = 256, PMARKS = 12 };

enum { PULL_MAX = B2_PULL_MAX };
enum { PULL_EV = 4, PULL_LEVELS = 4096 }; /* events per level; levels with a timed update */

/* Bitmaps that one launch works on (blockIdx.y picks one in k_unpack; every
 * thread visits all in k_update_words), and a number per bitmap: the offset
 * added to its indices (unpacking) or its sender's grid column (update). */
struct Sources {
	const uint32_t *bmp[PULL_MAX];
	uint32_t tag[PULL_MAX];
};

/* The discovery bitmaps a level is about to write (zn of them, w1 words
 * apart, count words included), zeroed by the kernel that reads the
 * frontier first: no memset of their own. A thread zeroes word w after it
 * has read word w of its source, which may be one of them. */
struct Zero {
	uint32_t *at;
	int64_t w1;
	int n;
};

/* Block-level bitmap unpacking: the block's TPB words, one per thread
 * (word, at index w; a warp's 32 consecutive), popcounts scanned
 * with shuffles and then across the warps, one atomic on *counter for the
 * block's positions (not one a warp: a 2^26-row bitmap is 65K warps, all
 * on one counter); a warp's positions must start below cap (~0u: no
 * cap, no test; a counter already at cap is not added to). Then put(p, x)
 * for each set bit x, at list position p. A warp's non-empty words go one
 * after the other, a lane per bit: consecutive lanes write consecutive
 * positions (coalesced), and the loads put does for a word are issued
 * together. Every thread of the block calls it, the same number of times. */
template <class Put>
static __device__ __forceinline__ void block_unpack(uint32_t word, int64_t w, unsigned *counter,
                                                    unsigned cap, Put put)
{
	enum { NW = TPB / 32 };
	__shared__ unsigned at[NW + 1]; /* the warps' offsets, the block's base */
	const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
	const unsigned c = __popc(word);
	unsigned incl = c;
#pragma unroll
	for (int d = 1; d < 32; d <<= 1) {
		unsigned y = __shfl_up_sync(FULL, incl, d);
		if (lane >= d)
			incl += y;
	}
	if (lane == 31)
		at[warp] = incl;
	/* a block of empty words (most of a sparse level's) leaves here; at[]
	 * is not read then */
	if (!__syncthreads_or(word != 0))
		return;
	if (threadIdx.x == 0) {
		unsigned s = 0;
		for (int q = 0; q < NW; q++) {
			const unsigned t = at[q];
			at[q] = s;
			s += t;
		}
		at[NW] = cap != ~0u && __ldcg(counter) >= cap ? cap : atomicAdd(counter, s);
	}
	__syncthreads();
	const unsigned base = at[NW] + at[warp];
	__syncthreads(); /* at[] is the next call's */
	if (__shfl_sync(FULL, incl, 31) == 0 || (cap != ~0u && base >= cap))
		return;
	const unsigned pos = base + incl - c;
	const int64_t wb = w - lane; /* the warp's first word */
	for (unsigned nz = __ballot_sync(FULL, word != 0); nz; nz &= nz - 1) {
		const int src_lane = __ffs(nz) - 1;
		const uint32_t wd = __shfl_sync(FULL, word, src_lane);
		const unsigned p0 = __shfl_sync(FULL, pos, src_lane);
		if (wd >> lane & 1)
			put(p0 + __popc(wd & ((1u << lane) - 1)), (uint32_t)((wb + src_lane) * 32 + lane));
	}
}

/* ---- pull mode: GPUs of one node signal each other without the host ----
 * A rank tells its row peers that its discovery bitmaps of a level are
 * complete by storing the level's epoch into their flag words (release,
 * system scope, once every block of the step has finished: step_end, or
 * the update's first block where no step kernel ran); a peer's update
 * kernel first spins on its own flags (acquire), then reads those bitmaps
 * in place. Epochs only grow, so flags are never reset. */
struct FlagPtrs {
	unsigned *to[PULL_MAX];
};

/* Tells the row peers (f.to[t], t < n; NULL: none) that this rank's step
 * of level `epoch` is done: its discoveries may be read in place. */
static __device__ __forceinline__ void signal_peers(const FlagPtrs &f, int n, unsigned epoch)
{
	const int t = threadIdx.x;
	if (t < n && f.to[t]) {
		__threadfence_system();
		asm volatile("st.release.sys.global.u32 [%0], %1;" ::"l"(f.to[t]), "r"(epoch) : "memory");
	}
}

/* The end of a device level's step where the row peers read its
 * discoveries in place: the last block to finish signals them, so that the
 * signal's trip overlaps the update's launch (done NULL: nothing). The
 * update's first block signals where no step kernel ran; first makes the
 * signal once per level. */
struct StepEnd {
	FlagPtrs sig;
	unsigned *done, *first;
	int n;
	unsigned epoch;
};

/* One thread of each of a launch's n blocks calls it once the block's
 * writes are done (a barrier orders the other threads' before it): true
 * in the last block to get here, which then sees every block's writes. */
static __device__ __forceinline__ bool last_block(unsigned *done, unsigned n)
{
	__threadfence(); /* the block's writes before its count */
	return atomicAdd(done, 1) == n - 1;
}

/* true for the first caller with this epoch (epochs only grow) */
static __device__ __forceinline__ bool take_first(unsigned *first, unsigned epoch)
{
	return atomicMax(first, epoch) != epoch;
}

/* Every thread of the block calls it, after its last write of the step. */
static __device__ __forceinline__ void step_end(const StepEnd &s)
{
	__shared__ bool last;
	if (!s.done)
		return;
	__syncthreads();
	if (threadIdx.x == 0) {
		last = last_block(s.done, gridDim.x);
		if (last) {
			*s.done = 0;
			last = take_first(s.first, s.epoch);
		}
	}
	__syncthreads();
	if (last)
		signal_peers(s.sig, s.n, s.epoch);
}

static __device__ __forceinline__ uint64_t now_ns()
{
	uint64_t t;
	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
	return t;
}

/* Spins until *flag >= epoch (acquire, system scope; wrap-around safe). A
 * peer that never signals (it died; MPI aborts the job) ends the wait with
 * a trap after 60 s rather than a hang. */
static __device__ __forceinline__ void spin_until(const unsigned *flag, unsigned epoch)
{
	const uint64_t t0 = now_ns();
	for (;;) {
		unsigned v;
		asm volatile("ld.acquire.sys.global.u32 %0, [%1];" : "=r"(v) : "l"(flag) : "memory");
		if ((int)(v - epoch) >= 0)
			return;
		__nanosleep(32);
		if (now_ns() - t0 > 60000000000ull)
			__trap();
	}
}

/* Word w of a bitmap, shifted by sh bits, ORed into d[x] and d[x + 1]. */
__device__ __forceinline__ void or_word_shifted(uint32_t *d, int64_t x, uint32_t w, uint32_t sh)
{
	atomicOr(&d[x], w << sh);
	if (sh && (w >> (32 - sh)))
		atomicOr(&d[x + 1], w >> (32 - sh));
}

/* Device levels' part in the update kernel: the first block to run tells
 * the row peers that the step is done (pull) unless the step's last block
 * did (step_end), then all wait for the
 * peers' flags (flags NULL: no wait); the wait and the rest are timed by
 * the GPU clock into stamp, which costs the stream nothing where an event
 * pair costs about 1.5 us (docs/PERFORMANCE.md); count the
 * new frontier (count NULL: not counted), the last block handing the total
 * to the host through mapped memory and zeroing count and done for the
 * next level; zero *reset (the next level's unpacking counter). */
/* What device levels' update hands the host at the end of a level (mapped
 * pinned memory): the new frontier's size and degree sum, and the edges the
 * level's step examined. */
struct LevelStats {
	unsigned long long front, degree, examined;
	unsigned long long seq; /* written last: the host waits for it */
};

/* The search state, by phase. */

/* The rank's share of the graph on the device. */
struct cu_graph {
	uint64_t *colptr;    /* [nc + 1] */
	uint32_t *rowidx;    /* [nnz] */
	int64_t *tdeg;       /* [b] */
	/* bottom-up: the local block row-major; nzrow marks the rows with local
	 * edges; first[r] is row r's first column (its likeliest parent, the
	 * hubs first), read beside the visited word, not through rowptr */
	uint64_t *rowptr;
	uint32_t *colidx, *nzrow, *first;
	uint64_t maxdeg;     /* the largest local column degree */
};

/* The column's frontier and its expansion. */
struct cu_front {
	int64_t nfront;      /* the own frontier's size */
	uint32_t *front;     /* [b] the own frontier as a list (expand messages) */
	uint32_t *h_front;   /* pinned: the same for a host transport */
	b2_msg *in_msgs;     /* [max(R,C)] the messages staged last */
	int self;            /* their own slot */
	int64_t *ncol;       /* device levels: the column peers' frontier sizes [R] */
	/* top-down: the columns to expand, their degrees and its scan */
	uint32_t *af;
	uint64_t *deg, *cumul;
	void *cubtmp;
	size_t cubbytes;
	int egrid[9];        /* expansion blocks per K: one full wave */
	uint32_t *fcol;      /* bottom-up: the column frontier as a bitmap over local columns */
	/* compact bitmaps (compact.h): the column's masks as the run began
	 * and as the search has left them, [R][bw] each; one mask's words'
	 * set bits and their scan (the bit offsets), [bw + 1] each; the own
	 * frontier packed, [bw + 2] (word bw + 1: the vertices its mask
	 * lacks); the own mask's bits, as the run began and now */
	uint32_t *cmask0, *cmask, *cpop, *coff, *cpack;
	int64_t cbits0, cbits;
};

/* The fold: the messages and the visited state that travel along the row. */
struct cu_fold {
	uint32_t *in;        /* the receive area (slot_off), flag words after it */
	uint32_t *bmp;       /* the discovery bitmaps (bmp_off) */
	uint32_t *dst;       /* [C][b] the fold lists */
	uint32_t *h_dst;     /* pinned: the fold messages for a host transport */
	int fold_host;       /* fold messages are copied on to h_dst (MPI sends them) */
	int fold_copied;     /* and this level's were (cu_expand) */
	/* the row peers' visited blocks (MPI) */
	uint32_t *vrecv, *h_vsend, *h_vrecv;
	int vis_host;        /* the own visited block goes to h_vsend (MPI sends it) */
	int64_t own_degree;  /* lc[C] of the last step */
};

/* A level's counts. */
struct cu_counts {
	/* the step's counts: [c < C] discoveries per grid column, [C] the own
	 * column's degrees, [C + 1] edges examined (device levels: the last two are
	 * the update's counters; h_lc: [C + 2] the level's sequence number, and
	 * after the levels [0, C) the predecessor requests to each row peer,
	 * [C + 3, 2C + 3) the answers due to them); dstat: message levels' update's counters, [0]
	 * the new frontier's degrees, [1] edges (none: the step counted them) */
	unsigned long long *lc, *h_lc, *dstat;
	unsigned long long *lcur, *d_lc; /* the level's counters (message levels:
	                        two sets, by level parity); h_lc mapped for the device */
	LevelStats *h_ls, *d_ls; /* device levels' level counts: mapped pinned */
	unsigned long long seq; /* the last level counts' sequence number */
	unsigned *tmpcnt;    /* device counters (counter()) */
	unsigned long long *dsum;
	unsigned long long *h_dsum; /* the degree sum; also the unresolved count (k_resolve) */
};

/* The deferred predecessors. */
struct cu_preds {
	int64_t *pred64;     /* [b] the global predecessors of the owned vertices */
	uint32_t *ans;       /* [C][b] answers to the row peers' predecessor requests */
	uint32_t *h_pred, *h_recv; /* pinned: requests and answers for a host transport */
	cudaEvent_t copied;  /* the predecessor requests are in pinned memory */
};

/* The peers' shared regions, mapped by a transport (CUDA IPC) for reading
 * in place: receive areas, bitmaps, predecessor arrays; [dir][peer], NULL
 * for self; peer[dir]: mapped. Pull mode: the flag words (in the receive
 * area, after the slots), where this rank's signals go, the last epoch. */
struct cu_peers {
	int peer[2];
	uint32_t **peer_in[2], **peer_bmp[2], **peer_pred;
	unsigned *flags;
	FlagPtrs sig;
	unsigned epoch;
};

/* Timing: device levels' phase events and update stamps; --trace's marks
 * of the predecessor exchange (pmark), printed by rank 0. */
struct cu_timing {
	cudaEvent_t *ev;
	int nev;
	unsigned long long *stamp, *h_stamp; /* per level: the update's wait and rest (PullFold) */
	int ptrace, npm;
	cudaEvent_t pm[PMARKS];
	const char *pmname[PMARKS];
};

struct cu_bk {
	b2_graph g;
	b2_bkopts o;
	int64_t b, bw, nr, nc, slotw;
	int nsm, grid;
	int bu_evict_first;  /* the bottom-up step's neighbour loads evict-first in L2 */
	cudaStream_t st;
	uint32_t *vis;       /* the visited bitmap over local rows (vis_words) */
	uint32_t *pred;      /* [nr] the local rows' predecessors (local columns) */
	int32_t *level;      /* [b] the owned vertices' levels */
	int devlev, plev;    /* device levels on; levels begun in this search */
	int carry;           /* the folds carry the visited state (B2_CARRY_) */
	int mem[2];          /* where each exchange's messages lie, [B2_DIR_] (B2_MEM_) */
	int preds;           /* how the predecessors are resolved (B2_PREDS_) */
	int row_reads_visited; /* the row peers take the own visited block (the plan's) */
	int row_peer;        /* the row peer whose blocks the folds carry, or -1 */
	int front_lists;     /* updates also write short frontiers as lists (b2_bkrun) */
	int lists_in_place;  /* which the column peers read in place */
	int step_dir;        /* the last step's direction */
	int step_carrying;   /* and what its fold carries (B2_CARRYING_, the plan's) */
	cu_graph gr;
	cu_front fr;
	cu_fold fo;
	cu_counts ct;
	cu_preds pd;
	cu_peers pe;
	cu_timing tm;
};

/* Device counters (tmpcnt): [c < C] unpacking of fold list c, then these. */
enum { CT_FRONT, CT_GATHER, CT_PF_COUNT, CT_PF_DONE, CT_LC_DONE, CT_UNRESOLVED,
	CT_FIRST, CT_TIMER, CT_STEP_DONE, CT_FLIST, CT_N };
static inline unsigned *counter(const struct cu_bk *k, int t)
{
	return k->ct.tmpcnt + k->g.C + t;
}

/* The degrees the direction rule sums over a new frontier: only after a
 * top-down step (backend.h), NULL otherwise. */
static inline const int64_t *front_tdeg(const struct cu_bk *k)
{
	return k->o.frontier_degree && k->step_dir == B2_TOP_DOWN ? k->gr.tdeg : NULL;
}

/* Receive area: R expand slots, then C fold slots, slotw words each, then
 * C flag words (device levels); one allocation, so one IPC handle names them
 * all; the same layout on every rank, so a sender finds its slot in a
 * peer's area at the offset of its own. */
static inline size_t slot_off(const cu_bk *k, int dir, int s)
{
	return (size_t)((dir == B2_DIR_FOLD ? k->g.R : 0) + s) * (size_t)k->slotw;
}
static inline uint32_t *in_slot(const cu_bk *k, int dir, int s)
{
	return k->fo.in + slot_off(k, dir, s);
}
/* Frontier lists (front_lists): the frontier a rank's
 * update of level lvl - 1 found (the one level lvl expands), as a list in
 * the rank's own expand slot, which no message uses: a half of it per level
 * parity (slotw >= 2 bw), so that a list is not rewritten before every
 * column peer has read it (in place) or the transport has sent it. */
static inline uint32_t *own_front_list(const cu_bk *k, int lvl)
{
	return in_slot(k, B2_DIR_EXPAND, k->g.i) + (size_t)(lvl & 1) * (size_t)k->bw;
}
/* ... and column peer s's, in its receive area (mapped) */
static inline const uint32_t *peer_front_list(const cu_bk *k, int s, int lvl)
{
	return k->pe.peer_in[B2_DIR_EXPAND][s] + slot_off(k, B2_DIR_EXPAND, s) +
	       (size_t)(lvl & 1) * (size_t)k->bw;
}
static inline size_t flags_off(const cu_bk *k)
{
	return (size_t)(k->g.R + k->g.C) * (size_t)k->slotw;
}
/* Discovery bitmaps: two sets of C (one per level parity in pull mode, where
 * peers read the previous level's set while this one is written; set 0
 * otherwise), bw + 1 words each (the last: a message's count word); then
 * the own block of the visited bitmap, aligned (bw words), which the row
 * peers read for bottom-up levels: one allocation, one IPC handle. */
static inline size_t bmp_off(const cu_bk *k, int set, int c)
{
	return ((size_t)set * (size_t)k->g.C + (size_t)c) * (size_t)(k->bw + 1);
}
static inline uint32_t *bmp_set(const cu_bk *k, int set, int c)
{
	return k->fo.bmp + bmp_off(k, set, c);
}
static inline uint32_t *bmp_of(const cu_bk *k, int c)
{
	return bmp_set(k, 0, c);
}
static inline size_t vown_off(const cu_bk *k)
{
	return bmp_off(k, 2, 0);
}
/* Beside the visited bitmap where a row has peers (same layout, zeroed
 * with it): the rows the row peers carried, i.e. found themselves
 * (message levels, transport.h). */
static inline uint32_t *carried(const cu_bk *k)
{
	return k->vis + b2_bmp_words(k->nr);
}
static inline int64_t vis_words(const cu_bk *k)
{
	return (k->g.C > 1 ? 2 : 1) * b2_bmp_words(k->nr);
}
/* The sets a level reads its frontier from and writes its discoveries to. */
static inline int front_set(const cu_bk *k)
{
	return k->devlev ? (k->plev & 1) ^ 1 : 0;
}
static inline int disc_set(const cu_bk *k)
{
	return k->devlev ? k->plev & 1 : 0;
}

#define DALLOC(ptr, bytes)                                                                    \
	do {                                                                                      \
		size_t b_ = (bytes);                                                                  \
		if (cudaMalloc((void **)&(ptr), b_ ? b_ : 8) != cudaSuccess) {                        \
			cudaGetLastError();                                                               \
			error = b2_err_held(B2_EIO_, "out of device memory: %zu bytes for %s", b_, #ptr); \
			goto done;                                                                        \
		}                                                                                     \
	} while (0)
#define HALLOC(ptr, bytes)                                                                    \
	do {                                                                                      \
		if ((error = cu_host_alloc(&(ptr), (bytes), #ptr)) != 0)                               \
			goto done;                                                                        \
	} while (0)

/* Blocks for a grid-stride kernel over n items: at most k->grid, 2048 / TPB
 * blocks an SM, which fit on the SMs at once only where a thread has at
 * most 32 registers. A kernel that would take more (ptxas -v) is declared
 * GRID_STRIDE: else the blocks left over run as a second wave, each with a
 * whole block's share of the work. */
#define GRID_STRIDE __launch_bounds__(TPB, 2048 / TPB)
static inline int blocks_for(const cu_bk *k, int64_t n)
{
	int64_t g = (n + TPB - 1) / TPB;
	return g < 1 ? 1 : g > k->grid ? k->grid : (int)g;
}

/* Where fold list c is sent from: the device (where it is made), or the
 * pinned host buffer a host transport sends from (k_fold_to_host). */
static inline uint32_t *fold_list(const cu_bk *k, int c)
{
	return k->fo.fold_host ? k->fo.h_dst + (size_t)c * (size_t)k->slotw : k->fo.dst + (size_t)c * (size_t)k->b;
}

/* Where the own visited block goes for the row peers: the device (read in
 * place, or sent from there), or straight into the pinned host buffer a
 * host transport sends from. */
static inline uint32_t *vown_out(const cu_bk *k)
{
	return k->fo.vis_host ? k->fo.h_vsend : k->fo.bmp + vown_off(k);
}

static const Zero no_zero = {NULL, 0, 0};

/* The discovery bitmaps of set `set` (all C, count words included). */
static inline Zero disc_zero(const cu_bk *k, int set)
{
	Zero z = {bmp_set(k, set, 0), k->bw + 1, k->g.C};
	return z;
}

/* ---- device levels: a level without host round trips inside -------------
 * Level lvl writes the discovery bitmaps of set lvl & 1; the frontier it
 * expands is the own-column bitmap of the other set, on this rank and on
 * its column peers (read in place, or sent into the expand slots). After
 * the local step the row peers are signalled (read in place) or sent the
 * bitmaps; once they have signalled too, the update reads their discovery
 * bitmaps for this grid column. Why nothing read in place is overwritten
 * early: a rank writes a set again only two levels later, and every rank
 * has finished each level (search.c's allgather of the level counts)
 * before any starts the next. The update times itself by the GPU clock
 * (PullFold.stamp); events time only what lies between kernels: 0 the
 * level's start and 1 the column's frontier gathered, where the column
 * peers' frontiers are read or copied (R > 1); 2 the step done and 3 the
 * fold's copies done, where a transport puts them on the stream. A timing
 * event costs a small level about 1.5 us (docs/PERFORMANCE.md). */
static inline int ev_gather(const cu_bk *k)
{
	return k->g.R > 1;
}

static inline int ev_fold(const cu_bk *k)
{
	return k->g.C > 1 && !k->pe.peer[B2_DIR_FOLD];
}

static inline cudaEvent_t *level_events(cu_bk *k)
{
	return k->tm.ev + (size_t)(k->plev - 1) * PULL_EV;
}

/* This device level's fold carries the visited state (transport.h; only
 * bottom-up levels do, so that a next bottom-up level needs no visited
 * exchange): each message is the sender's whole discovery set, and the
 * update ORs the row peer's discoveries of its own block into the visited
 * bitmap too. */
static inline int carrying(const cu_bk *k)
{
	return k->devlev && k->step_carrying != B2_CARRYING_NONE;
}

/* Every fold carries the visited state (transport.h; message levels on a
 * grid row of two): the own discoveries go with every fold message. */
static inline int carrying_every(const cu_bk *k)
{
	return k->carry == B2_CARRY_EVERY;
}

/* The row peers read the own visited block (bottom-up levels), as the
 * plan decided. */
static inline int vis_wanted(const cu_bk *k)
{
	return k->row_reads_visited;
}

/* ---- host functions one file calls in another ---------------------------- */

/* the backend's operations (backend.h), in the table of backend.cu */
int cu_host_alloc(void *out, size_t bytes, const char *what);
void cu_host_free(void *p);
int cu_create(void **out, const b2_graph *g, const b2_bkopts *o);
void cu_destroy(void *p);
int cu_begin(void *p, int64_t root_k);
int cu_front_msg(void *p, int form, b2_msg *m);
int cu_compact_masks(void *p, const uint32_t *masks);
/* compact.cu: the masks as the run began (a search's begin); the own
 * frontier bitmap src packed into pinned memory (*m; *packed = 0 where it
 * has a vertex its mask lacks, or more bits than cbits said), the own mask
 * losing it; or only that (compact_drop_own, frontier bitmap bmp); peer
 * q's message m, in the device slot, taken from its mask (compact_drop);
 * peer q's compact bitmap *m unpacked into its device slot (*m then a
 * bitmap there), its mask losing it */
int compact_begin(cu_bk *k);
int compact_pack(cu_bk *k, const uint32_t *src, b2_msg *m, int *packed);
int compact_drop_own(cu_bk *k, const uint32_t *bmp);
int compact_drop(cu_bk *k, const b2_msg *m, int q);
int compact_unpack(cu_bk *k, b2_msg *m, int q, uint32_t *slot);
/* preds.cu: pref = the exclusive scan (n entries) of pop, the set bits of
 * bitmap bmp's nw words (bmp NULL: pop as it is) */
int word_scan(cu_bk *k, const uint32_t *bmp, int64_t nw, uint32_t *pop, uint32_t *pref, int64_t n);
int cu_stage_in(void *p, int dir, const b2_msg *in, int nslots, int self);
int cu_visited_bufs(void *p, uint32_t **send, uint32_t **recv);
int cu_visited_in(void *p, const uint32_t *recv);
int cu_visited_in_place(void *p);
int cu_expand(void *p, const b2_step *st, int64_t *cnt_out, int64_t *examined);
int cu_fold_msgs(void *p, const int *use_bitmap, b2_msg *out);
int cu_carry_in(void *p, const b2_msg *m, int c);
int cu_update(void *p, int lvl, b2_level_stats *st);
int cu_pred_requests(void *p, b2_msg *out);
int cu_pred_answers(void *p, const b2_msg *in, b2_msg *out);
int cu_pred_resolve(void *p, const b2_msg *in);
int cu_pred(void *p, int64_t *out);
int cu_degree_sum(void *p, int64_t *sum);
int cu_regions(void *p, b2_regions *r);
int cu_peers(void *p, int dir, int n, int me, const b2_regions *peer);
int cu_configure(void *p, const b2_bkrun *run);
int cu_level_phases(void *p, int nlev, const double *busy, double *lv);

/* frontier.cu */
int expand_grids(cu_bk *k);
int unpack(cu_bk *k, const uint32_t *src, uint32_t off, uint32_t *dst, uint64_t *deg,
           unsigned *ctr, Zero z);
StepEnd step_end_args(const cu_bk *k);
const uint32_t *column_bitmap(const cu_bk *k, int s, int set);
int64_t column_count(const cu_bk *k, int s);
int gather_columns(cu_bk *k, int set, Zero z, int64_t *n_out, int *zeroed);
int expand_columns(cu_bk *k, int64_t n, int lvl, int set);
int column_degree_max(cu_bk *k);
/* bottom_up.cu */
int build_csr(cu_bk *k);
int build_csc(cu_bk *k);
int export_visited(cu_bk *k);
int column_frontier(cu_bk *k, int set, Zero z, const uint32_t **fc, const uint32_t **copy,
                    int *zeroed);
int bottom_up(cu_bk *k, int lvl, int set, const uint32_t *fcol);
int bottom_up_turns(cu_bk *k, int lvl, int set, const uint32_t *fcol);
/* fold.cu */
int set_bits(cu_bk *k, const uint32_t *list, int64_t n, uint32_t at, uint32_t *dst,
             const uint32_t *count);
/* level.cu */
int pull_events(cu_bk *k, int lvl);
int wait_counts(cu_bk *k, const volatile unsigned long long *at, unsigned long long seq);

#endif
