/* cuda.cu — the CUDA backend of bfs-gpu: the paper's kernels (section 3.4
 * frontier expansion with one thread per frontier edge and k edges per
 * thread, section 3.5 frontier update, section 5 bitmap messages built by
 * both and unpacked by warp-level kernels). All search state lives on the
 * device; the host sees only message data and counts.
 *
 * Per level (search.c drives): gather the column's frontier into `af`
 * (own frontier + received lists/bitmaps) with the columns' degrees ->
 * exclusive scan (CUB), expansion kernel (binary search once per thread for
 * the base column, K consecutive edges, interleaved independent loads,
 * test-then-atomicOr on the visited bitmap), discoveries set bits in one
 * bitmap per destination grid column (counted and, when small, turned into
 * lists afterwards), then the update kernel over what the fold brought.
 * How messages travel is the transports' business (transport.h): the
 * backend gives them in host or device memory, takes them from host memory
 * or from its own receive slots, and, where a transport mapped the peers'
 * memory (CUDA IPC), reads the peers' data in place. With device levels a
 * level needs the host only at its end: messages are bitmaps, read in place
 * (the GPUs signalling each other through flags) or put into the slots by
 * a transport on the stream (NCCL). */
#include <cuda_runtime.h>
#include <cub/cub.cuh>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#ifndef B2_HAVE_CUDA
#define B2_HAVE_CUDA /* this file is the CUDA build */
#endif
#include "backend.h"

/* common/b2.h pulls in mpi.h, which nvcc is not given: the few things used
 * here are declared again (same signatures as b2.h). */
extern "C" int b2_err(int code, const char *fmt, ...);
extern "C" int b2_rank;
enum { B2_EFAIL_ = 1, B2_EIO_ = 4 };

#define CU(call)                                                                              \
	do {                                                                                      \
		cudaError_t e_ = (call);                                                              \
		if (e_ != cudaSuccess)                                                                \
			return b2_err(B2_EFAIL_, "CUDA error: %s (%s, %s:%d)", cudaGetErrorString(e_),  \
			              #call, __FILE__, __LINE__);                                          \
	} while (0)
#define CU_LAUNCHED() CU(cudaGetLastError())
/* The same inside a function with `int error` and a `done:` exit. */
#define CU_TRY(call)                                                                          \
	do {                                                                                      \
		cudaError_t e_ = (call);                                                              \
		if (e_ != cudaSuccess) {                                                              \
			error = b2_err(B2_EFAIL_, "CUDA error: %s (%s, %s:%d)", cudaGetErrorString(e_), \
			               #call, __FILE__, __LINE__);                                         \
			goto done;                                                                        \
		}                                                                                     \
	} while (0)

#define FULL 0xffffffffu
enum { TPB = 256, PMARKS = 12 };

/* ---- kernels ------------------------------------------------------------ */

/* A search's start after the memsets of the visited bitmap and the levels
 * (large: the memset kernels are the fastest way): the own column's
 * discovery bitmap (bw words, the frontier between levels) cleared, the
 * root, when it is this rank's (r its row, k its own index; r = ~0: none),
 * visited, level 0 and in the frontier, and the nlc level counters and
 * nctr unpacking counters zeroed; one kernel where there were three
 * memsets and a launch. */
__global__ void k_begin(uint32_t *vis, int32_t *level, uint32_t *fbmp, int64_t bw, uint64_t r,
                        uint64_t k, unsigned *ctr, int nctr, unsigned long long *lc, int nlc)
{
	int64_t n = bw > nlc ? bw : nlc;
	n = n > nctr ? n : nctr;
	for (int64_t x = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; x < n;
	     x += (int64_t)gridDim.x * blockDim.x) {
		if (x < bw)
			fbmp[x] = (uint64_t)x == k >> 5 ? 1u << (k & 31) : 0;
		if (x < nlc)
			lc[x] = 0;
		if (x < nctr)
			ctr[x] = 0;
		if (x == 0) {
			if (r != ~(uint64_t)0) {
				vis[r >> 5] = 1u << (r & 31);
				level[k] = 0;
			}
		}
	}
}

/* A frontier column u joins the expansion's list at pos, with its degree
 * (the scan's input) when deg is given: no separate degree pass. */
static __device__ __forceinline__ void put_col(uint32_t *dst, uint64_t *deg,
                                               const uint64_t *__restrict__ colptr, unsigned pos,
                                               uint32_t u)
{
	dst[pos] = u;
	if (deg)
		deg[pos] = __ldg(&colptr[u + 1]) - __ldg(&colptr[u]);
}

enum { PULL_MAX = B2_PULL_MAX };
enum { PULL_EV = 4, PULL_LEVELS = 4096 }; /* events per level; levels with a timed update */

/* Bitmaps that one launch works on (blockIdx.y picks one in k_unpack; every
 * thread visits all in k_update_words), and a number per bitmap: the offset
 * added to its indices (unpacking) or its sender's grid column (update). */
struct Sources {
	const uint32_t *bmp[PULL_MAX];
	uint32_t tag[PULL_MAX];
};

/* dst[x] = src[x] + off: a received list as local columns */
__global__ void k_gather(const uint32_t *__restrict__ src, int64_t n, uint32_t off,
                         uint32_t *__restrict__ dst, uint64_t *__restrict__ deg,
                         const uint64_t *__restrict__ colptr)
{
	for (int64_t x = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; x < n;
	     x += (int64_t)gridDim.x * blockDim.x)
		put_col(dst, deg, colptr, (unsigned)x, __ldg(&src[x]) + off);
}

/* The discovery bitmaps a level is about to write (zn of them, w1 words
 * apart, count words included), zeroed by the kernel that reads the
 * frontier first: no memset of their own. A thread zeroes word w after it
 * has read word w of its source, which may be one of them. */
struct Zero {
	uint32_t *at;
	int64_t w1;
	int n;
};

/* Where k_unpack puts bitmap y's indices: list dst[y], at the positions
 * counter ctr[y] hands out (several bitmaps may share both). */
struct Lists {
	uint32_t *dst[PULL_MAX];
	unsigned *ctr[PULL_MAX];
};

/* Warp-level bitmap unpacking: the warp's 32 words, one per lane (word;
 * wb: the first one's index), popcounts scanned with shuffles, one atomic
 * on *counter for the warp's positions, which must start below cap (~0u:
 * no cap); then put(p, x) for each set bit x, at list position p. The
 * warp's non-empty words go one after the other, a lane per bit:
 * consecutive lanes write consecutive positions (coalesced), and the loads
 * put does for a word are issued together. */
template <class Put>
static __device__ __forceinline__ void warp_unpack(uint32_t word, int64_t wb, int lane,
                                                   unsigned *counter, unsigned cap, Put put)
{
	const unsigned c = __popc(word);
	unsigned incl = c;
#pragma unroll
	for (int d = 1; d < 32; d <<= 1) {
		unsigned y = __shfl_up_sync(FULL, incl, d);
		if (lane >= d)
			incl += y;
	}
	const unsigned total = __shfl_sync(FULL, incl, 31);
	unsigned base = 0;
	if (total == 0)
		return;
	if (lane == 0)
		base = atomicAdd(counter, total);
	base = __shfl_sync(FULL, base, 0);
	if (cap != ~0u && base >= cap) /* ~0u: no cap, no test */
		return;
	const unsigned pos = base + incl - c;
	for (unsigned nz = __ballot_sync(FULL, word != 0); nz; nz &= nz - 1) {
		const int src_lane = __ffs(nz) - 1;
		const uint32_t wd = __shfl_sync(FULL, word, src_lane);
		const unsigned p0 = __shfl_sync(FULL, pos, src_lane);
		if (wd >> lane & 1)
			put(p0 + __popc(wd & ((1u << lane) - 1)), (uint32_t)((wb + src_lane) * 32 + lane));
	}
}

/* Bitmap blockIdx.y of src, indices + its tag, into out's list y
 * (warp_unpack), with the columns' degrees where deg is given. A bitmap
 * may be a peer GPU's (device levels): read uncached (ld.cv). */
__global__ void k_unpack(Sources src, int64_t nwords, Lists out, uint64_t *__restrict__ deg,
                         const uint64_t *__restrict__ colptr, Zero z)
{
	uint32_t *const dst = out.dst[blockIdx.y];
	unsigned *const counter = out.ctr[blockIdx.y];
	const uint32_t *bmp = src.bmp[blockIdx.y];
	const uint32_t off = src.tag[blockIdx.y];
	const int lane = threadIdx.x & 31;
	const int64_t stride = (int64_t)gridDim.x * blockDim.x;
	if (blockIdx.y != 0)
		z.n = 0;
	for (int64_t wb = (int64_t)blockIdx.x * blockDim.x + (threadIdx.x & ~31); wb < nwords;
	     wb += stride) {
		int64_t w = wb + lane;
		uint32_t word = w < nwords ? __ldcv(&bmp[w]) : 0;
		for (int c = 0; c < z.n && w < nwords; c++) {
			z.at[c * z.w1 + w] = 0;
			if (w == 0)
				z.at[c * z.w1 + nwords] = 0;
		}
		warp_unpack(word, wb, lane, counter, ~0u, [&](unsigned p, uint32_t x) {
			put_col(dst, deg, colptr, p, x + off);
		});
	}
}

/* The fold messages a host transport sends (message levels): message y is
 * list[y] (k_level_end) where its length *count[y] <= cap, else bitmap
 * bmp[y] (bw words); host[y] is its pinned send buffer. */
struct FoldOut {
	const uint32_t *list[PULL_MAX], *bmp[PULL_MAX];
	const unsigned long long *count[PULL_MAX];
	uint32_t *host[PULL_MAX];
};

/* Fold message blockIdx.y into its pinned send buffer. Consecutive
 * threads, consecutive words, so whole lines cross PCIe, where the
 * unpacking's own writes of a sparse bitmap would cross it a word or two at
 * a time; and the host then has no copy of its own to issue and wait for. */
__global__ void k_fold_to_host(FoldOut f, int64_t bw, unsigned cap)
{
	const unsigned long long m = *f.count[blockIdx.y];
	const bool bitmap = m > cap;
	const uint32_t *__restrict__ src = bitmap ? f.bmp[blockIdx.y] : f.list[blockIdx.y];
	const int64_t n = bitmap ? bw : (int64_t)m;
	uint32_t *dst = f.host[blockIdx.y];
	for (int64_t x = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; x < n;
	     x += (int64_t)gridDim.x * blockDim.x)
		dst[x] = __ldg(&src[x]);
}

/* Message levels' end (device levels have the update's instead): the
 * step's discovery bitmaps counted, the fold messages among them unpacked
 * into lists on the way, and the counts handed to the host. */
struct LevelEnd {
	unsigned long long *next; /* the next level's counters, zeroed here */
	int nnext;
	unsigned *ctr;            /* [nc] bitmap c's count (the position counter of
	                             its list), then CT_FRONT and CT_GATHER: zero
	                             before, zeroed again by the last block */
	int nctr;
	uint32_t *lists;          /* fold list c at lists + c * b; NULL: no lists */
	int64_t b;
	unsigned cap;             /* a list's first cap entries are written: a
	                             longer one travels as its bitmap */
	int own_list;             /* the own column's discoveries become a list
	                             too (they travel, carried) */
	unsigned *done;           /* blocks finished (the last one zeroes it) */
	volatile unsigned long long *host; /* mapped pinned: the level's counters,
	                                      then host[nc + 2] = seq when they are there */
	unsigned long long seq;
};

/* The step's counts: out[c] = vertices in discovery bitmap c (blockIdx.y =
 * c, bitmaps bw1 words apart), counted by the unpacking's per-warp scan and
 * atomic, each fold message's indices written to its list on the way (so
 * that no second pass reads the bitmap); out[nc] += the tuple degrees of
 * those in the own column's (c == j: the new frontier; tdeg NULL: not
 * summed); out[nc + 1] (the edges examined) the step wrote. The last block
 * to finish hands out[0 .. nc + 1] to the host (e.host). */
__global__ void k_level_end(const uint32_t *__restrict__ bmp, int64_t bw, uint64_t bw1, int nc,
                            int j, const int64_t *__restrict__ tdeg, unsigned long long *out,
                            LevelEnd e)
{
	typedef cub::BlockReduce<unsigned long long, TPB> BR;
	__shared__ typename BR::TempStorage tmp;
	__shared__ bool last;
	const int c = blockIdx.y, lane = threadIdx.x & 31;
	const uint32_t *m = bmp + c * bw1;
	unsigned *const counter = e.ctr + c;
	uint32_t *const dst = e.lists && (c != j || e.own_list) ? e.lists + c * e.b : NULL;
	const int64_t stride = (int64_t)gridDim.x * blockDim.x;
	unsigned long long d = 0, cnt = 0; /* cnt: bitmaps that are not listed */
	if (blockIdx.x == 0 && c == 0)
		for (int x = threadIdx.x; x < e.nnext; x += blockDim.x)
			e.next[x] = 0;
	for (int64_t wb = (int64_t)blockIdx.x * blockDim.x + (threadIdx.x & ~31); wb < bw;
	     wb += stride) {
		const int64_t w = wb + lane;
		const uint32_t word = w < bw ? __ldg(&m[w]) : 0;
		if (c == j && tdeg)
			for (uint32_t v = word; v; v &= v - 1)
				d += (unsigned long long)__ldg(&tdeg[w * 32 + __ffs(v) - 1]);
		if (!dst) { /* counted by the block, one atomic */
			cnt += __popc(word);
			continue;
		}
		warp_unpack(word, wb, lane, counter, e.cap, [&](unsigned p, uint32_t x) {
			if (p < e.cap)
				dst[p] = x;
		});
	}
	d = BR(tmp).Sum(d);
	__syncthreads();
	cnt = BR(tmp).Sum(cnt);
	if (threadIdx.x == 0) {
		if (d)
			atomicAdd(&out[nc], d);
		if (cnt)
			atomicAdd(counter, (unsigned)cnt);
		__threadfence();
		last = atomicAdd(e.done, 1) == gridDim.x * gridDim.y - 1;
	}
	__syncthreads();
	if (last) {
		__threadfence();
		for (int x = threadIdx.x; x < nc + 2; x += blockDim.x) {
			const unsigned long long v = x < nc ? __ldcg(&e.ctr[x]) : __ldcg(&out[x]);
			if (x < nc)
				out[x] = v;
			e.host[x] = v;
		}
		__syncthreads();
		for (int x = threadIdx.x; x < e.nctr; x += blockDim.x)
			e.ctr[x] = 0;
		__threadfence_system();
		__syncthreads();
		if (threadIdx.x == 0) {
			e.host[nc + 2] = e.seq; /* after the counts: the host waits for it */
			*e.done = 0;
		}
	}
}

/* An exclusive scan of n <= SCAN1_MAX items in one block: the small
 * frontiers' scan in one launch (CUB's takes two). */
enum { SCAN1_ITEMS = 16, SCAN1_MAX = TPB * SCAN1_ITEMS };
__global__ void __launch_bounds__(TPB) k_scan1(const uint64_t *__restrict__ in, uint64_t *out, int64_t n)
{
	typedef cub::BlockScan<uint64_t, TPB> BS;
	__shared__ typename BS::TempStorage tmp;
	uint64_t v[SCAN1_ITEMS], sum = 0;
	const int64_t x0 = (int64_t)threadIdx.x * SCAN1_ITEMS;
#pragma unroll
	for (int q = 0; q < SCAN1_ITEMS; q++) {
		v[q] = x0 + q < n ? in[x0 + q] : 0;
		sum += v[q];
	}
	BS(tmp).ExclusiveSum(sum, sum);
#pragma unroll
	for (int q = 0; q < SCAN1_ITEMS; q++) {
		if (x0 + q < n)
			out[x0 + q] = sum;
		sum += v[q];
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
		/* the block's writes (the barrier orders them before this
		 * thread's) before its count */
		__threadfence();
		last = atomicAdd(s.done, 1) == gridDim.x - 1;
		if (last) {
			*s.done = 0;
			last = take_first(s.first, s.epoch);
		}
	}
	__syncthreads();
	if (last)
		signal_peers(s.sig, s.n, s.epoch);
}

struct ExpandArgs {
	const uint64_t *colptr;
	const uint32_t *rowidx;
	const uint32_t *af;
	const uint64_t *cumul;
	int64_t n;
	uint32_t *vis, *pred, *bmp;
	int32_t *level;
	uint32_t b;
	uint64_t bw1;
	uint32_t j;
	int lvl;
	unsigned long long *examined; /* the level's edges examined: the scan's total */
	StepEnd end;
};

/* Local row r, found from local column u, is new: its predecessor, its
 * level when the rank owns it, and a bit in the discovery bitmap of its
 * grid column (the own column's is the next frontier, the others become the
 * fold messages). Bitmaps rather than appended lists: no counter that every
 * discovery of the level would hit. */
static __device__ __forceinline__ void discover(const ExpandArgs &a, uint32_t r, uint32_t u)
{
	const uint32_t c = r / a.b, kk = r - c * a.b;
	a.pred[r] = u;
	if (c == a.j)
		a.level[kk] = a.lvl;
	atomicOr(&a.bmp[c * a.bw1 + (kk >> 5)], 1u << (kk & 31));
}

/* Largest idx in [lo, hi] with cumul[idx] <= e (cumul[lo] <= e), found by
 * the 32 lanes of a warp together: each round compares 32 pivots. */
static __device__ int64_t warp_search(const uint64_t *__restrict__ cumul, int64_t lo, int64_t hi,
                                      uint64_t e, int lane)
{
	while (hi - lo >= 32) {
		const int64_t span = hi - lo;
		const int64_t piv = lo + span * (lane + 1) / 33;
		const unsigned le = __ballot_sync(FULL, __ldg(&cumul[piv]) <= e);
		const int t = __popc(le); /* pivots 0..t-1 are <= e (cumul is sorted) */
		const int64_t nlo = t > 0 ? lo + span * t / 33 : lo;
		const int64_t nhi = t < 32 ? lo + span * (t + 1) / 33 - 1 : hi;
		lo = nlo;
		hi = nhi;
	}
	const int64_t idx = lo + lane;
	const unsigned le = __ballot_sync(FULL, idx <= hi && __ldg(&cumul[idx]) <= e);
	return lo + __popc(le) - 1;
}

/* A warp's window of WIN consecutive frontier columns (entries of af): the
 * scan value where each starts (one more entry: where the window ends), and
 * where its rows start in row_idx minus that value, so that the row index of
 * frontier edge e is at e + rowbase. */
enum { WIN = 64 };
struct Window {
	uint64_t first[WIN + 1];
	uint64_t rowbase[WIN];
	uint32_t col[WIN];
};

/* The visited word, cached in L1: a stale copy only costs an atomicOr that
 * then finds the bit set (the atomic decides who discovers). Against a
 * volatile (L2) read: 39.6 vs 31.8 GTEPS at scale 21, 46.9 vs 45.0 at 24. */
static __device__ __forceinline__ uint32_t vis_word(const uint32_t *vis, uint32_t r)
{
	return __ldca(&vis[r >> 5]);
}

/* Frontier expansion (paper, section 3.4): one thread per frontier edge of
 * the exclusive scan of frontier degrees, K consecutive edges per thread,
 * the base column found once by a binary search and advanced linearly, each
 * step done for the K edges before the next (independent loads in flight).
 * The search space is made small without block barriers: every warp owns an
 * equal contiguous share of the edges, finds its first column once (32-way
 * warp search), then walks its share through windows of WIN columns staged
 * in shared memory, where the threads' binary searches run. */
template <int K>
__global__ void __launch_bounds__(TPB) k_expand(ExpandArgs a)
{
	__shared__ Window wins[TPB / 32];
	Window &w = wins[threadIdx.x >> 5];
	const int lane = threadIdx.x & 31;
	const uint64_t total = __ldg(&a.cumul[a.n]);
	if (blockIdx.x == 0 && threadIdx.x == 0)
		*a.examined = total;
	const uint64_t nwarps = (uint64_t)gridDim.x * (TPB / 32);
	const uint64_t step = 32 * K;
	uint64_t share = (total + nwarps - 1) / nwarps;
	share = (share + step - 1) / step * step;
	uint64_t e = ((uint64_t)blockIdx.x * (TPB / 32) + (threadIdx.x >> 5)) * share;
	/* warp-uniform: a warp with no share skips to the end */
	const uint64_t end = e >= total ? e : e + share < total ? e + share : total;
	int64_t col = e < total ? warp_search(a.cumul, 0, a.n - 1, e, lane) : 0;
	while (e < end) {
		for (int x = lane; x <= WIN; x += 32) {
			const int64_t c = col + x;
			const uint64_t f = c <= a.n ? __ldg(&a.cumul[c]) : ~0ull;
			w.first[x] = f;
			if (x < WIN && c < a.n) {
				const uint32_t u = __ldg(&a.af[c]);
				w.col[x] = u;
				w.rowbase[x] = __ldg(&a.colptr[u]) - f;
			}
		}
		__syncwarp();
		const uint64_t lim = end < w.first[WIN] ? end : w.first[WIN];
		while (e < lim) {
			const uint64_t e0 = e + (uint64_t)lane * K;
			int x = 0;
			if (e0 < lim) {
				int hi = WIN - 1;
				while (x < hi) {
					const int mid = (x + hi + 1) >> 1;
					if (w.first[mid] <= e0)
						x = mid;
					else
						hi = mid - 1;
				}
			}
			uint32_t u[K], r[K], vw[K];
			uint64_t pos[K];
			bool ok[K];
#pragma unroll
			for (int k = 0; k < K; k++) {
				const uint64_t ek = e0 + k;
				ok[k] = ek < lim;
				if (ok[k])
					while (ek >= w.first[x + 1])
						x++;
				u[k] = w.col[x];
				pos[k] = ek + w.rowbase[x];
			}
#pragma unroll
			for (int k = 0; k < K; k++)
				r[k] = ok[k] ? __ldg(&a.rowidx[pos[k]]) : 0;
#pragma unroll
			for (int k = 0; k < K; k++)
				vw[k] = ok[k] ? vis_word(a.vis, r[k]) : FULL;
#pragma unroll
			for (int k = 0; k < K; k++) {
				const uint32_t m = 1u << (r[k] & 31);
				if (!(vw[k] & m) && !(atomicOr(&a.vis[r[k] >> 5], m) & m))
					discover(a, r[k], u[k]);
			}
			e = e + step < lim ? e + step : lim;
		}
		col += WIN;
		__syncwarp(); /* the window is rewritten next */
	}
	step_end(a.end);
}

/* ---- bottom-up (Beamer et al.) ------------------------------------------ */

/* The local CSC turned row-major at create: row counts, then each column's
 * warp appends the column to its rows' lists (order within a row is
 * whichever came first: any neighbour in the frontier is a valid parent). */
__global__ void k_row_count(const uint32_t *__restrict__ rowidx, uint64_t nnz,
                            unsigned long long *rowcnt)
{
	for (uint64_t e = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; e < nnz;
	     e += (uint64_t)gridDim.x * blockDim.x)
		atomicAdd(&rowcnt[__ldg(&rowidx[e])], 1ull);
}

__global__ void k_row_fill(const uint64_t *__restrict__ colptr, const uint32_t *__restrict__ rowidx,
                           int64_t ncols, unsigned long long *fill, uint32_t *__restrict__ colidx)
{
	const int lane = threadIdx.x & 31;
	for (int64_t u = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) >> 5; u < ncols;
	     u += ((int64_t)gridDim.x * blockDim.x) >> 5)
		for (uint64_t e = colptr[u] + lane; e < colptr[u + 1]; e += 32)
			colidx[atomicAdd(&fill[rowidx[e]], 1ull)] = (uint32_t)u;
}

/* nz bit r: local row r has an edge in this block (bits past nr: 0). */
__global__ void k_nonempty(const uint64_t *__restrict__ rowptr, int64_t nr, uint32_t *nz)
{
	for (int64_t w = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; w < (nr + 31) / 32;
	     w += (int64_t)gridDim.x * blockDim.x) {
		uint32_t m = 0;
		for (int q = 0; q < 32 && w * 32 + q < nr; q++)
			m |= (uint32_t)(rowptr[w * 32 + q + 1] > rowptr[w * 32 + q]) << q;
		nz[w] = m;
	}
}

/* The same over nr rows for the own rows lo .. lo + b - 1 (R = 1: row
 * lo + k is own column k): those with neighbours. */
__global__ void k_own_nonempty(const uint64_t *__restrict__ colptr, int64_t lo, int64_t b,
                               int64_t nr, uint32_t *nz)
{
	for (int64_t w = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; w < (nr + 31) / 32;
	     w += (int64_t)gridDim.x * blockDim.x) {
		uint32_t m = 0;
		for (int q = 0; q < 32; q++) {
			const int64_t c = w * 32 + q - lo;
			if (c >= 0 && c < b)
				m |= (uint32_t)(colptr[c + 1] > colptr[c]) << q;
		}
		nz[w] = m;
	}
}

/* Word w of a bitmap, shifted by sh bits, ORed into d[x] and d[x + 1]. */
__device__ __forceinline__ void or_word_shifted(uint32_t *d, int64_t x, uint32_t w, uint32_t sh)
{
	atomicOr(&d[x], w << sh);
	if (sh && (w >> (32 - sh)))
		atomicOr(&d[x + 1], w >> (32 - sh));
}

/* dst's bits [tag, tag + 32*nwords) |= bitmap blockIdx.y of src: blocks of
 * b bits that start anywhere in dst (the column frontier, the rows'
 * visited state). Neighbouring blocks share a word: atomics. */
__global__ void k_or_shifted(Sources src, int64_t nwords, uint32_t *dst)
{
	const uint32_t *bmp = src.bmp[blockIdx.y];
	const uint32_t at = src.tag[blockIdx.y], sh = at & 31;
	uint32_t *d = dst + (at >> 5);
	for (int64_t x = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; x < nwords;
	     x += (int64_t)gridDim.x * blockDim.x) {
		const uint32_t w = __ldcv(&bmp[x]);
		if (w)
			or_word_shifted(d, x, w, sh);
	}
}

/* Word x of a bitmap over the row peer's block (1x2): level lvl into
 * plevel for its rows, by k. The whole warp calls it (w 0 where a lane has
 * none), so that the levels go a word's 32 rows per store, not a row per
 * store of the word's own thread. */
static __device__ __forceinline__ void level_word(uint32_t w, int64_t x, int32_t *plevel, int lvl)
{
	const int lane = threadIdx.x & 31;
	for (unsigned m = __ballot_sync(FULL, w != 0); m; m &= m - 1) {
		const int from = __ffs(m) - 1;
		const uint32_t ws = __shfl_sync(FULL, w, from);
		const int64_t xs = __shfl_sync(FULL, x, from);
		if (ws >> lane & 1)
			plevel[xs * 32 + lane] = lvl;
	}
}

/* Word x of what a row peer carried (its own finds of level lvl, a bitmap
 * over rows base + k of the rank's rows): visited, carried (unless NULL),
 * and with plevel (1x2) their level (level_word; the whole warp calls it). */
static __device__ __forceinline__ void carry_word(uint32_t w, int64_t x, uint32_t base,
                                                  uint32_t *vis, uint32_t *carried,
                                                  int32_t *plevel, int lvl)
{
	const uint32_t sh = base & 31;
	if (w) {
		or_word_shifted(vis + (base >> 5), x, w, sh);
		if (carried)
			or_word_shifted(carried + (base >> 5), x, w, sh);
	}
	if (plevel)
		level_word(w, x, plevel, lvl);
}

/* What a row peer carried (above), from a list (n entries) or, list NULL,
 * a bitmap of n words. */
__global__ void k_carry(const uint32_t *__restrict__ list, const uint32_t *__restrict__ bmp,
                        int64_t n, uint32_t base, uint32_t *vis, uint32_t *carried,
                        int32_t *plevel, int lvl)
{
	/* warp-uniform loop: the bitmap's words go through carry_word */
	for (int64_t x0 = (int64_t)blockIdx.x * blockDim.x + (threadIdx.x & ~31); x0 < n;
	     x0 += (int64_t)gridDim.x * blockDim.x) {
		const int64_t x = x0 + (threadIdx.x & 31);
		if (list) {
			if (x >= n)
				continue;
			const uint32_t k = __ldg(&list[x]), r = base + k;
			atomicOr(&vis[r >> 5], 1u << (r & 31));
			atomicOr(&carried[r >> 5], 1u << (r & 31));
			if (plevel)
				plevel[k] = lvl;
			continue;
		}
		carry_word(x < n ? __ldg(&bmp[x]) : 0, x, base, vis, carried, plevel, lvl);
	}
}

/* The discovery bitmaps z zeroed, and with dst, dst = src first (nw words):
 * one kernel where a copy and a memset would be two operations, each a
 * wait in a small level. src may be one of z's bitmaps: the thread that
 * copies word x zeroes it afterwards. */
__global__ void k_copy_zero(const uint32_t *src, uint32_t *dst, int64_t nw, Zero z)
{
	for (int64_t x = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; x < z.w1;
	     x += (int64_t)gridDim.x * blockDim.x) {
		if (dst && x < nw)
			dst[x] = src[x];
		for (int c = 0; c < z.n; c++)
			z.at[c * z.w1 + x] = 0;
	}
}

/* A list message's vertices as bits of dst (at + k): n of them, or *count
 * (at most n) where the count is known on the device only (count not NULL:
 * device levels' fold lists). */
__global__ void k_set_bits(const uint32_t *__restrict__ list, int64_t n, uint32_t at, uint32_t *dst,
                           const uint32_t *count)
{
	if (count && (int64_t)*count < n)
		n = (int64_t)*count;
	for (int64_t x = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; x < n;
	     x += (int64_t)gridDim.x * blockDim.x) {
		const uint32_t u = at + __ldg(&list[x]);
		atomicOr(&dst[u >> 5], 1u << (u & 31));
	}
}

/* out[0 .. ceil(n/32)) = bits [at, at + n) of src (srcw words): the own
 * block of the visited bitmap, aligned, for the row peers. */
__global__ void k_get_shifted(const uint32_t *__restrict__ src, int64_t srcw, uint32_t at, int64_t n,
                              uint32_t *__restrict__ out)
{
	const int64_t nw = (n + 31) / 32, w0 = at >> 5;
	const uint32_t sh = at & 31;
	for (int64_t x = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; x < nw;
	     x += (int64_t)gridDim.x * blockDim.x) {
		const uint32_t hi = sh && w0 + x + 1 < srcw ? src[w0 + x + 1] << (32 - sh) : 0;
		uint32_t w = (src[w0 + x] >> sh) | hi;
		if (x == nw - 1 && (n & 31))
			w &= (1u << (n & 31)) - 1;
		out[x] = w;
	}
}

enum { BU_K = 4 };

struct BottomUpArgs {
	const uint64_t *rowptr;
	const uint32_t *colidx, *fcol, *nzrow;
	uint32_t *vis, *pred, *bmp;
	int32_t *level;
	int64_t nr;
	uint32_t b, j;
	uint64_t bw1;
	int lvl;
	unsigned long long *examined;
	/* own (R = 1, C > 1): the own rows only, through the own columns (CSC;
	 * no CSR then, and nzrow marks the own rows with neighbours); out: the
	 * predecessors found in the peers' blocks, resolved */
	int own;
	const uint64_t *colptr;
	const uint32_t *rowidx;
	int64_t *out;
	StepEnd end;
};

/* Own vertex k (row r = j * b + k, R = 1) through its own column, which
 * lists all its neighbours (R = 1, the graph undirected), BU_K loads in
 * flight at a time: a neighbour of the own block is a parent when in the
 * column frontier; one of a peer's block when visited, since the row's
 * visited state is current at a bottom-up step (transport.h: carried or
 * exchanged) and unvisited r has no neighbour of a level below lvl - 1.
 * 1 with *parent (a local row: the global id, R = 1), *seen += rows
 * looked at. */
static __device__ __forceinline__ bool own_column_parent(const BottomUpArgs &a, uint32_t k,
                                                         uint32_t *parent,
                                                         unsigned long long *seen)
{
	const uint64_t c0 = __ldg(&a.colptr[k]), c1 = __ldg(&a.colptr[k + 1]);
	const uint32_t lo = a.j * a.b;
	for (uint64_t e = c0; e < c1; e += BU_K) {
		uint32_t rr[BU_K], fw[BU_K];
#pragma unroll
		for (int q = 0; q < BU_K; q++)
			rr[q] = e + q < c1 ? __ldg(&a.rowidx[e + q]) : lo;
#pragma unroll
		for (int q = 0; q < BU_K; q++) {
			const uint32_t o = rr[q] - lo; /* own block: o < b */
			fw[q] = e + q >= c1 ? 0
			        : o < a.b ? __ldg(&a.fcol[o >> 5]) >> (o & 31)
			                  : a.vis[rr[q] >> 5] >> (rr[q] & 31);
		}
		int hit = BU_K;
#pragma unroll
		for (int q = BU_K - 1; q >= 0; q--)
			if (fw[q] & 1)
				hit = q;
		if (hit < BU_K) {
			*parent = rr[hit];
			*seen += e + hit + 1 - c0;
			return true;
		}
	}
	*seen += c1 - c0;
	return false;
}

/* The bottom-up step: a warp owns a word of the visited bitmap (32 local
 * rows, a row per lane); each unvisited row scans its neighbours for one in
 * the column frontier and stops at the first. The warp alone writes its
 * visited word (no atomic); discoveries go to the same bitmaps as
 * top-down's. A grid of one row (OWN, a.own) scans only the own rows, each
 * through its own column (own_column_parent): no row is scanned on two
 * ranks, every find is the own block's, and a parent in a peer's block
 * is resolved here (out), not asked for. Two instances, so that the
 * usual one keeps its 32 registers (full occupancy: the step is bound by
 * the rows in flight) whatever the own one's branch needs (36 when it was
 * written; held to 32 then, it spilled and ran no faster). */
template <bool OWN>
__global__ void __launch_bounds__(TPB) k_bottom_up(BottomUpArgs a)
{
	typedef cub::BlockReduce<unsigned long long, TPB> BR;
	__shared__ typename BR::TempStorage tmp;
	const int lane = threadIdx.x & 31;
	const int64_t rlo = OWN ? (int64_t)a.j * a.b : 0, rhi = OWN ? rlo + a.b : a.nr;
	const int64_t nw = (rhi + 31) / 32;
	const int64_t wstride = ((int64_t)gridDim.x * blockDim.x) >> 5;
	unsigned long long seen = 0;
	for (int64_t w = rlo / 32 + (((int64_t)blockIdx.x * blockDim.x + threadIdx.x) >> 5); w < nw;
	     w += wstride) {
		/* rows without local edges cannot find a parent here: never load
		 * their row pointers (a.own: rows of other blocks are not in
		 * nzrow; a boundary word's are left as they are) */
		const uint32_t vw = a.vis[w], todo = ~vw & __ldg(&a.nzrow[w]);
		if (!todo)
			continue;
		const int64_t r = w * 32 + lane;
		bool found = false, peer = false;
		uint32_t u = 0;
		if constexpr (OWN) {
			if (todo >> lane & 1) {
				found = own_column_parent(a, (uint32_t)(r - rlo), &u, &seen);
				peer = found && (u < rlo || u >= rhi);
				if (found && !peer)
					u -= (uint32_t)rlo; /* the own column */
			}
		} else if (todo >> lane & 1) {
			/* BU_K neighbours at a time: their loads, then their frontier
			 * words, are in flight together */
			const uint64_t e0 = __ldg(&a.rowptr[r]), e1 = __ldg(&a.rowptr[r + 1]);
			uint64_t e = e0;
			while (e < e1 && !found) {
				uint32_t uu[BU_K], fw[BU_K];
#pragma unroll
				for (int q = 0; q < BU_K; q++)
					uu[q] = e + q < e1 ? __ldg(&a.colidx[e + q]) : 0;
#pragma unroll
				for (int q = 0; q < BU_K; q++)
					fw[q] = e + q < e1 ? __ldg(&a.fcol[uu[q] >> 5]) : 0;
				int hit = BU_K;
#pragma unroll
				for (int q = BU_K - 1; q >= 0; q--)
					if (fw[q] >> (uu[q] & 31) & 1)
						hit = q;
				if (hit < BU_K) {
					found = true;
					u = uu[hit];
					e += hit + 1;
				} else {
					e = e + BU_K < e1 ? e + BU_K : e1;
				}
			}
			seen += e - e0;
		}
		const uint32_t mask = __ballot_sync(FULL, found);
		if (lane == 0 && mask)
			a.vis[w] = vw | mask;
		if (found) {
			const uint32_t rr = (uint32_t)r, c = rr / a.b, kk = rr - c * a.b;
			a.pred[rr] = peer ? B2_PRED_RESOLVED : u;
			if (peer)
				a.out[kk] = u;
			if (c == a.j)
				a.level[kk] = a.lvl;
			atomicOr(&a.bmp[c * a.bw1 + (kk >> 5)], 1u << (kk & 31));
		}
	}
	seen = BR(tmp).Sum(seen);
	if (threadIdx.x == 0 && seen)
		atomicAdd(a.examined, seen);
	step_end(a.end);
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

struct PullFold {
	FlagPtrs sig;          /* the row peers' flags this rank signals (pull) */
	unsigned *first;       /* the last epoch signalled (take_first) */
	unsigned *timer;       /* the last epoch whose update a block timed */
	const unsigned *flags; /* the flags it waits for (pull; else NULL) */
	int n, self;
	unsigned epoch;
	unsigned long long *stamp; /* the level's update by the GPU clock, ns:
	                          [0] the wait, [1] the rest (NULL: not timed) */
	unsigned *count, *done, *reset;
	const int64_t *tdeg;
	unsigned long long *degree, *examined; /* device counters, zeroed here for the next level */
	volatile LevelStats *host;
	unsigned long long seq;  /* host->seq when the counts are there */
	uint32_t *vout;  /* the own block of the visited bitmap, aligned, for the row
	                    peers' bottom-up steps (NULL: not wanted) */
	int64_t b;       /* rows in that block */
	const uint32_t *carry; /* the row peer's discoveries of its own block, OR'ed
	                          into the visited bitmap at local row carry_base
	                          (the fold carries the visited state; NULL: not) */
	uint32_t carry_base;
	uint32_t *carried;     /* every fold carries: the carried rows, and (1x2) */
	int32_t *plevel;       /* the peer's levels (carry_word); else NULL */
	const uint32_t *mine;  /* and the own finds of the peer's block at this
	                          level: their levels into plevel too */
};

static __device__ __forceinline__ uint64_t now_ns()
{
	uint64_t t;
	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
	return t;
}

/* Thread t < n, t != self, waits until flags[t] >= epoch (wrap-around
 * safe); the block waits for them. A peer that never signals (it died; MPI
 * aborts the job) ends the wait with a trap after 60 s rather than a hang. */
static __device__ void wait_flags(const unsigned *flags, int n, int self, unsigned epoch)
{
	const int t = threadIdx.x;
	if (t < n && t != self) {
		const uint64_t t0 = now_ns();
		for (;;) {
			unsigned v;
			asm volatile("ld.acquire.sys.global.u32 %0, [%1];" : "=r"(v) : "l"(flags + t) : "memory");
			if ((int)(v - epoch) >= 0)
				break;
			__nanosleep(32);
			if (now_ns() - t0 > 60000000000ull)
				__trap();
		}
	}
	__syncthreads();
}

/* Frontier update (section 3.5): one thread per received vertex; the
 * predecessor is provisionally the sender's grid column; new vertices join
 * the own column's discovery bitmap (the next frontier). */
static __device__ __forceinline__ void receive(uint32_t kk, uint32_t rowbase, uint32_t sender,
                                               uint32_t *vis, int32_t *level, uint32_t *pred,
                                               uint32_t *fbmp, int lvl)
{
	const uint32_t r = rowbase + kk, m = 1u << (r & 31);
	if (!(__ldca(&vis[r >> 5]) & m) && !(atomicOr(&vis[r >> 5], m) & m)) {
		level[kk] = lvl;
		pred[r] = B2_PRED_REMOTE | sender;
		atomicOr(&fbmp[kk >> 5], 1u << (kk & 31));
	}
}

__global__ void __launch_bounds__(TPB)
k_update(const uint32_t *__restrict__ list, int64_t n, uint32_t rowbase, uint32_t sender,
         uint32_t *vis, int32_t *level, uint32_t *pred, uint32_t *fbmp, int lvl)
{
	for (int64_t x = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; x < n;
	     x += (int64_t)gridDim.x * blockDim.x)
		receive(__ldg(&list[x]), rowbase, sender, vis, level, pred, fbmp, lvl);
}

/* The same over bitmap messages, word x of every message by thread x: the
 * word's 32 vertices are tested and set in the visited bitmap by one or two
 * atomicOr (rowbase need not be a multiple of 32), not one per vertex; only
 * the new ones get a level and a provisional predecessor (the tag: the
 * sender's grid column). Thread x alone writes frontier word x here, so it
 * can also count the word's final bits: the new frontier's size. In pull
 * mode the bitmaps are the row peers' own: read uncached. */
__global__ void __launch_bounds__(TPB)
k_update_words(Sources src, int nsrc, int64_t nwords, uint32_t rowbase, uint32_t *vis,
               int32_t *level, uint32_t *pred, uint32_t *fbmp, int lvl, PullFold pf)
{
	typedef cub::BlockReduce<unsigned long long, TPB> BR;
	__shared__ typename BR::TempStorage tmp;
	__shared__ bool last;
	const unsigned sh = rowbase & 31;
	unsigned long long total = 0, deg = 0;
	if (pf.stamp) {
		/* the step before this kernel on the stream is done: the first
		 * block to run says so to the row peers unless the step's last
		 * block did (step_end), then all wait for theirs; the first block
		 * to run times the update from its start */
		__shared__ bool first, timer;
		const uint64_t t0 = now_ns();
		if (threadIdx.x == 0) {
			first = take_first(pf.first, pf.epoch);
			timer = take_first(pf.timer, pf.epoch);
		}
		__syncthreads();
		if (first && pf.flags)
			signal_peers(pf.sig, pf.n, pf.epoch);
		if (pf.flags)
			wait_flags(pf.flags, pf.n, pf.self, pf.epoch);
		if (timer && threadIdx.x == 0) {
			const uint64_t t1 = now_ns();
			pf.stamp[0] = pf.flags ? t1 - t0 : 0;
			pf.stamp[1] = t1; /* the last block makes it a duration */
		}
	}
	if (pf.reset && blockIdx.x == 0 && threadIdx.x == 0)
		*pf.reset = 0;
	/* warp-uniform loop: the carried words go through carry_word */
	for (int64_t x0 = (int64_t)blockIdx.x * blockDim.x + (threadIdx.x & ~31); x0 < nwords;
	     x0 += (int64_t)gridDim.x * blockDim.x) {
		const int64_t x = x0 + (threadIdx.x & 31);
		if (pf.carry) /* the peer's rows: other threads' words may share the ends */
			carry_word(x < nwords ? __ldcv(&pf.carry[x]) : 0, x, pf.carry_base, vis, pf.carried,
			           pf.plevel, lvl);
		if (pf.mine) /* the peer's rows found here: their levels */
			level_word(x < nwords ? __ldcg(&pf.mine[x]) : 0, x, pf.plevel, lvl);
		if (x >= nwords)
			continue;
		uint32_t *v = vis + (rowbase >> 5) + x; /* rows rowbase + 32x + bit: bit sh + bit of v */
		uint32_t fresh_all = 0;
		for (int m = 0; m < nsrc; m++) {
			const uint32_t word = __ldcv(&src.bmp[m][x]);
			if (!word)
				continue;
			const uint32_t lo = word << sh, hi = sh ? word >> (32 - sh) : 0;
			uint32_t seen = (__ldca(&v[0]) >> sh) | (hi ? __ldca(&v[1]) << (32 - sh) : 0);
			if (!(word & ~seen))
				continue;
			seen = (lo ? atomicOr(&v[0], lo) >> sh : 0) | (hi ? atomicOr(&v[1], hi) << (32 - sh) : 0);
			uint32_t fresh = word & ~seen;
			fresh_all |= fresh;
			while (fresh) {
				const uint32_t kk = (uint32_t)x * 32 + (uint32_t)(__ffs(fresh) - 1);
				fresh &= fresh - 1;
				level[kk] = lvl;
				pred[rowbase + kk] = B2_PRED_REMOTE | src.tag[m];
			}
		}
		if (fresh_all)
			fbmp[x] |= fresh_all;
		if (pf.vout) {
			/* thread x alone changed its 32 rows' bits here: read back from
			 * L2 they are final (what export_visited would copy) */
			const int64_t rows = pf.b - 32 * x;
			uint32_t own = __ldcg(&v[0]) >> sh;
			if (sh && rows > 32 - (int64_t)sh)
				own |= __ldcg(&v[1]) << (32 - sh);
			if (rows < 32)
				own &= (1u << rows) - 1;
			pf.vout[x] = own;
		}
		if (pf.count && pf.tdeg)
			for (uint32_t f = fbmp[x]; f; f &= f - 1)
				deg += (unsigned long long)__ldg(&pf.tdeg[x * 32 + __ffs(f) - 1]);
		if (pf.count)
			total += __popc(fbmp[x]);
	}
	if (!pf.count)
		return;
	total = BR(tmp).Sum(total);
	__syncthreads();
	deg = BR(tmp).Sum(deg);
	if (threadIdx.x == 0) {
		if (total)
			atomicAdd(pf.count, (unsigned)total);
		if (deg)
			atomicAdd(pf.degree, deg);
		__threadfence();
		last = atomicAdd(pf.done, 1) == gridDim.x - 1;
	}
	__syncthreads();
	if (last && threadIdx.x == 0) {
		__threadfence();
		pf.host->front = atomicExch(pf.count, 0);
		pf.host->degree = atomicExch(pf.degree, 0ull);
		pf.host->examined = atomicExch(pf.examined, 0ull);
		if (pf.stamp)
			pf.stamp[1] = now_ns() - pf.stamp[1];
		__threadfence_system();
		pf.host->seq = pf.seq;
		*pf.done = 0;
	}
}

/* Deferred predecessors into global ids, the whole resolution in one pass:
 * peers.bmp[s][k], read in place from row peer s (CUDA IPC), is the local
 * column s recorded for owned vertex k (with C == 1 nothing is remote, and
 * after pred_local nothing unresolved: a remote one left with no peer to
 * read is counted in *unresolved, where not NULL, an internal error). */
__global__ void k_resolve(const int32_t *__restrict__ level, const uint32_t *__restrict__ pred,
                          Sources peers, int64_t b, int64_t R, int64_t i, int64_t j,
                          int64_t *__restrict__ out, unsigned *unresolved)
{
	for (int64_t x = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; x < b;
	     x += (int64_t)gridDim.x * blockDim.x) {
		const int lv = level[x];
		int64_t p;
		if (lv < 0)
			p = -1;
		else if (lv == 0)
			p = (j * R + i) * b + x;
		else {
			const uint32_t q = pred[j * b + x];
			if (q == B2_PRED_RESOLVED)
				continue; /* pred_local wrote out[x] */
			if (q & B2_PRED_REMOTE) {
				const int64_t s = q & ~B2_PRED_REMOTE;
				if (s >= PULL_MAX || !peers.bmp[s]) { /* nothing to read: a bug */
					if (unresolved)
						atomicAdd(unresolved, 1u);
					p = -1;
				} else
					p = s * b * R + __ldcv(&peers.bmp[s][x]);
			} else
				p = j * b * R + q;
		}
		out[x] = p;
	}
}

/* Rows t0 .. t0 + Q - 1 of own column [e0, e1) counted from the peer's end
 * (the last rows for j = 0), their loads issued together: 1 with *row the
 * first of a level below lv, 0 if none, -1 if the peer's rows [lo, hi)
 * ended among them (the column's rows ascend: no more are the peer's). */
template <int Q>
static __device__ __forceinline__ int peer_parent(const uint32_t *__restrict__ rowidx, uint64_t e0,
                                                  uint64_t e1, int64_t j, int t0, int64_t lo,
                                                  int64_t hi, const int32_t *__restrict__ plevel,
                                                  int lv, uint32_t *row)
{
	uint32_t r[Q];
	int pl[Q];
	const uint64_t n = e1 - e0;
#pragma unroll
	for (int t = 0; t < Q; t++)
		r[t] = (uint64_t)(t0 + t) < n ? __ldg(&rowidx[j == 0 ? e1 - 1 - (t0 + t) : e0 + t0 + t]) : 0;
	bool in = true;
#pragma unroll
	for (int t = 0; t < Q; t++) {
		in = in && (uint64_t)(t0 + t) < n && r[t] >= lo && r[t] < hi;
		pl[t] = in ? __ldg(&plevel[r[t] - lo]) : INT_MAX;
	}
	int got = -1;
#pragma unroll
	for (int t = Q - 1; t >= 0; t--)
		if (pl[t] < lv)
			got = t;
	if (got >= 0) {
		*row = r[got];
		return 1;
	}
	return in ? 0 : -1;
}

/* Rows of a column per k_pred_rest item (at least nnz / b, pred_level: see
 * cu_pred_local). */
enum { PRED_CHUNK = 1024 };

/* 1x2, every fold carrying the visited state (backend.h pred_local): a
 * vertex x of level L that the fold brought was found by the row peer from
 * a neighbour of level L - 1 in its block, and the own column x (R = 1:
 * all of x's neighbours, rows ascending) lists it: a peer row of a level
 * below L is one. plevel holds the peer rows' levels: those it carried,
 * and those found here (the update, level_word); unknown ones are 0x7f7f7f7f.
 * This runs per level L (= lvl, after its update) on a side stream while
 * the next levels run: those only raise plevel entries of rows of levels
 * above L, whichever value this reads, and write no level or predecessor
 * of a vertex of level L.
 * The first B2_PRED_SCAN peer rows are looked at here (the first two,
 * which mostly hold one, then the rest, so that the scattered level reads
 * are mostly two a vertex). Found: out[x], and pred marks x resolved. Not
 * found: the rest of the column goes to k_pred_rest in chunks of ch rows,
 * items (rest_x, rest_c) appended to nrest one atomic per warp
 * (warp-uniform loop: the warp's scan of the counts); block 0 zeroes the
 * next level's counter. */
__global__ void k_pred_local(const int32_t *__restrict__ level, uint32_t *pred,
                             const int32_t *__restrict__ plevel, const uint64_t *__restrict__ colptr,
                             const uint32_t *__restrict__ rowidx, int64_t b, int64_t j, int lvl,
                             int64_t *__restrict__ out, uint64_t ch, uint32_t *rest_x,
                             uint32_t *rest_c, unsigned *nrest, unsigned *nrest_next)
{
	enum { S = B2_PRED_SCAN, F = 2 };
	const int lane = threadIdx.x & 31;
	const int64_t lo = (1 - j) * b, hi = lo + b;
	if (blockIdx.x == 0 && threadIdx.x == 0)
		*nrest_next = 0;
	for (int64_t base = (int64_t)blockIdx.x * blockDim.x + (threadIdx.x & ~31); base < b;
	     base += (int64_t)gridDim.x * blockDim.x) {
		const int64_t x = base + lane;
		unsigned nch = 0;
		const int lv = x < b ? level[x] : 0;
		const uint32_t q = lv == lvl ? pred[j * b + x] : 0;
		/* brought by the fold; not resolved by a bottom-up step (own_rows) */
		if ((q & B2_PRED_REMOTE) && q != B2_PRED_RESOLVED) {
			const uint64_t e0 = colptr[x], e1 = colptr[x + 1];
			uint32_t r = 0;
			int got = peer_parent<F>(rowidx, e0, e1, j, 0, lo, hi, plevel, lv, &r);
			if (got == 0)
				got = peer_parent<S - F>(rowidx, e0, e1, j, F, lo, hi, plevel, lv, &r);
			if (got == 1) {
				out[x] = r; /* R = 1: local row r is global vertex r */
				pred[j * b + x] = B2_PRED_RESOLVED;
			} else if (got == 0) { /* got -1: no parent here; k_resolve says so */
				nch = (unsigned)((e1 - e0 - S + ch - 1) / ch);
			}
		}
		unsigned incl = nch;
		for (int d = 1; d < 32; d <<= 1) {
			const unsigned v = __shfl_up_sync(FULL, incl, d);
			if (lane >= d)
				incl += v;
		}
		unsigned at = 0;
		if (lane == 31 && incl)
			at = atomicAdd(nrest, incl);
		at = __shfl_sync(FULL, at, 31) + incl - nch;
		for (unsigned c = 0; c < nch; c++) {
			rest_x[at + c] = (uint32_t)x;
			rest_c[at + c] = c;
		}
	}
}

/* The rest: a warp per item, chunk c of x's column after the first
 * B2_PRED_SCAN rows (counted from the peer's end, as there), 32 * U rows a
 * step, their loads issued together. The first row of a level below L in
 * scan order of the step is x's predecessor; the chunks of one column run
 * at once, and a chunk stops at its next step once any has resolved x (so
 * a column of several chunks may get any of their finds: all are BFS
 * parents). A chunk also stops where the peer's rows end. */
__global__ void __launch_bounds__(TPB)
k_pred_rest(const uint32_t *__restrict__ rest_x, const uint32_t *__restrict__ rest_c,
            const unsigned *nrest, const int32_t *__restrict__ level, uint32_t *pred,
            const int32_t *__restrict__ plevel, const uint64_t *__restrict__ colptr,
            const uint32_t *__restrict__ rowidx, int64_t b, int64_t j, uint64_t ch,
            int64_t *__restrict__ out, unsigned *total)
{
	enum { U = 8 };
	const int lane = threadIdx.x & 31;
	const int64_t lo = (1 - j) * b, hi = lo + b, n = *nrest;
	if (total && blockIdx.x == 0 && threadIdx.x == 0) /* for the trace */
		atomicAdd(total, (unsigned)n);
	for (int64_t it = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) >> 5; it < n;
	     it += ((int64_t)gridDim.x * blockDim.x) >> 5) {
		const uint32_t x = rest_x[it];
		const int lv = level[x];
		const uint64_t e0 = colptr[x], e1 = colptr[x + 1];
		const uint64_t t0 = B2_PRED_SCAN + (uint64_t)rest_c[it] * ch;
		const uint64_t end = t0 + ch < e1 - e0 ? t0 + ch : e1 - e0;
		for (uint64_t t = t0; t < end; t += 32 * U) {
			/* the resolved test's load goes with the rows' */
			const unsigned done = lane == 0 && __ldcv(&pred[j * b + x]) == B2_PRED_RESOLVED;
			uint32_t r[U];
			bool ended = false;
			unsigned best = ~0u;
#pragma unroll
			for (int u = 0; u < U; u++) {
				const uint64_t q = t + (uint64_t)(u * 32 + lane);
				r[u] = q < end ? __ldg(&rowidx[j == 0 ? e1 - 1 - q : e0 + q]) : (uint32_t)lo;
			}
			if (__shfl_sync(FULL, done, 0))
				break;
#pragma unroll
			for (int u = 0; u < U; u++)
				ended = ended || r[u] < lo || r[u] >= hi;
			int pl[U];
#pragma unroll
			for (int u = 0; u < U; u++)
				pl[u] = r[u] >= lo && r[u] < hi && t + (uint64_t)(u * 32 + lane) < end
					? __ldg(&plevel[r[u] - lo]) : INT_MAX;
#pragma unroll
			for (int u = U - 1; u >= 0; u--)
				if (pl[u] < lv)
					best = (unsigned)(u * 32 + lane);
			best = __reduce_min_sync(FULL, best);
			if (best != ~0u) {
				if ((int)(best & 31) == lane) {
					out[x] = r[best >> 5];
					__threadfence();
					pred[j * b + x] = B2_PRED_RESOLVED;
				}
				break;
			}
			if (__any_sync(FULL, ended))
				break;
		}
	}
}

/* The lean predecessor exchange (backend.h). The owner: every owned vertex
 * gets its global predecessor where it knows it; those the fold brought
 * from row peer s are the bits of request bitmap s (w1 words apart; a warp
 * writes one word of each, so no bitmap needs clearing first), counted in
 * cnt[s]: a warp's count into the block's (shared memory), then one
 * global atomic per block and sender, since an atomic per warp would queue
 * on one word (65536 of them at b = 2^21). The lists made from them
 * (k_ordered) are in ascending order, the order the answers come back in,
 * whichever form the requests travel in. Dynamic shared memory: C counts. */
__global__ void k_pred_requests(const int32_t *__restrict__ level, const uint32_t *__restrict__ pred,
                                int64_t b, int64_t R, int64_t i, int64_t j,
                                int64_t *__restrict__ out, unsigned long long *cnt, uint32_t *rbmp,
                                int64_t w1, int C)
{
	extern __shared__ unsigned long long asked[];
	const int lane = threadIdx.x & 31;
	const int64_t stride = (int64_t)gridDim.x * blockDim.x;
	for (int c = threadIdx.x; c < C; c += blockDim.x)
		asked[c] = 0;
	__syncthreads();
	/* warp-uniform loop: every lane takes part in the match below */
	for (int64_t base = (int64_t)blockIdx.x * blockDim.x + (threadIdx.x & ~31); base < b;
	     base += stride) {
		const int64_t x = base + lane;
		uint32_t s = FULL; /* the sender to ask, none */
		if (x < b) {
			const int lv = level[x];
			const uint32_t q = lv > 0 ? pred[j * b + x] : 0;
			int64_t p = -1;
			if (lv == 0)
				p = (j * R + i) * b + x;
			else if (lv > 0 && (q & B2_PRED_REMOTE) && q != B2_PRED_RESOLVED)
				s = q & ~B2_PRED_REMOTE;
			else if (lv > 0 && !(q & B2_PRED_REMOTE))
				p = j * b * R + q;
			if (q != B2_PRED_RESOLVED) /* else pred_local wrote out[x] */
				out[x] = p;
		}
		for (int c = 0; c < C; c++) {
			if (c == j)
				continue;
			const uint32_t m = __ballot_sync(FULL, s == (uint32_t)c);
			if (lane == 0) {
				rbmp[c * w1 + (base >> 5)] = m;
				if (m)
					atomicAdd(&asked[c], (unsigned long long)__popc(m));
			}
		}
	}
	__syncthreads();
	for (int c = threadIdx.x; c < C; c += blockDim.x)
		if (asked[c])
			atomicAdd(&cnt[c], asked[c]);
}

/* pop[x] = the set bits of bitmap word x (x < nw): what k_ordered's scan adds up. */
__global__ void k_word_pop(const uint32_t *__restrict__ bmp, int64_t nw, uint32_t *pop)
{
	for (int64_t x = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; x < nw;
	     x += (int64_t)gridDim.x * blockDim.x)
		pop[x] = __popc(bmp[x]);
}

/* The bitmap as the ascending list of its bits: word x's go to dst from
 * pref[x] (the exclusive scan of k_word_pop) on. Deterministic, unlike
 * k_unpack's atomics: both ends of the predecessor exchange make the same
 * list from the same bitmap. */
__global__ void k_ordered(const uint32_t *__restrict__ bmp, int64_t nw, const uint32_t *__restrict__ pref,
                          uint32_t *dst)
{
	for (int64_t x = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; x < nw;
	     x += (int64_t)gridDim.x * blockDim.x) {
		uint32_t w = bmp[x], at = pref[x];
		for (; w; w &= w - 1)
			dst[at++] = (uint32_t)(x * 32 + __ffs(w) - 1);
	}
}

/* A row peer's requests answered: list[x] (an owned k of the peer)
 * becomes the local column recorded for row rowbase + k (pred is the
 * peer's block). n, or *dn where the count is only on the device. */
__global__ void k_pred_answers(const uint32_t *__restrict__ list, int64_t n,
                               const unsigned long long *dn, const uint32_t *__restrict__ pred,
                               uint32_t *out)
{
	if (dn)
		n = (int64_t)*dn;
	for (int64_t x = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; x < n;
	     x += (int64_t)gridDim.x * blockDim.x)
		out[x] = __ldg(&pred[list[x]]);
}

/* What a row peer will ask for when every fold carried the visited state
 * (backend.h): the rows at + x of its block (x < b) visited here and not
 * carried, as a bitmap (a warp writes one word of it, and its count to
 * pop, as k_word_pop would), counted in *cnt (per block first, as in
 * k_pred_requests). */
__global__ void k_pred_due(const uint32_t *__restrict__ vis, const uint32_t *__restrict__ carried,
                           int64_t at, int64_t b, uint32_t *due, uint32_t *pop,
                           unsigned long long *cnt)
{
	__shared__ unsigned long long n;
	const int lane = threadIdx.x & 31;
	const int64_t stride = (int64_t)gridDim.x * blockDim.x;
	if (threadIdx.x == 0)
		n = 0;
	__syncthreads();
	for (int64_t base = (int64_t)blockIdx.x * blockDim.x + (threadIdx.x & ~31); base < b;
	     base += stride) {
		const int64_t x = base + lane, r = at + x;
		const bool asked =
			x < b && ((__ldg(&vis[r >> 5]) & ~__ldg(&carried[r >> 5])) >> (r & 31) & 1);
		const uint32_t m = __ballot_sync(FULL, asked);
		if (lane == 0) {
			due[base >> 5] = m;
			pop[base >> 5] = __popc(m);
			if (m)
				atomicAdd(&n, (unsigned long long)__popc(m));
		}
	}
	__syncthreads();
	if (threadIdx.x == 0 && n)
		atomicAdd(cnt, n);
}

/* The answers of row peer s (its grid column's columns start at s*b*R). */
__global__ void k_pred_apply(const uint32_t *__restrict__ req, const uint32_t *__restrict__ ans,
                             int64_t n, int64_t base, int64_t *out)
{
	for (int64_t x = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; x < n;
	     x += (int64_t)gridDim.x * blockDim.x)
		out[req[x]] = base + ans[x];
}

__global__ void k_degsum(const int32_t *__restrict__ level, const int64_t *__restrict__ tdeg,
                         int64_t b, unsigned long long *sum)
{
	typedef cub::BlockReduce<unsigned long long, TPB> BR;
	__shared__ typename BR::TempStorage tmp;
	unsigned long long s = 0;
	for (int64_t x = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; x < b;
	     x += (int64_t)gridDim.x * blockDim.x)
		if (level[x] >= 0)
			s += (unsigned long long)tdeg[x];
	s = BR(tmp).Sum(s);
	if (threadIdx.x == 0)
		atomicAdd(sum, s);
}

/* ---- host side ---------------------------------------------------------- */

struct cu_bk {
	b2_graph g;
	b2_bkopts o;
	int64_t b, bw, nr, nc, slotw;
	int nsm, grid;
	int egrid[9];        /* expansion blocks per K: one full wave */
	cudaStream_t st;
	/* device */
	uint64_t *colptr, *deg, *cumul;
	uint32_t *rowidx, *vis, *pred, *front, *dst, *bmp, *af, *in;
	int32_t *level;
	int64_t *tdeg, *pred64;
	unsigned *tmpcnt;
	unsigned long long *dsum;
	void *cubtmp;
	size_t cubbytes;
	/* pinned host */
	uint32_t *h_front, *h_dst, *h_pred, *h_recv;
	unsigned long long *h_dsum; /* the degree sum; also the unresolved count (k_resolve) */
	int64_t nfront;
	int self;            /* own slot of the messages staged last */
	b2_msg *in_msgs;     /* [max(R,C)] */
	b2_msg fold_in[PULL_MAX]; /* device levels: the fold messages' forms (a list
	                             of count words, or a bitmap), from stage_in */
	/* the peers' shared regions, mapped by a transport (CUDA IPC) for
	 * reading in place: receive areas, bitmaps, predecessor arrays;
	 * [dir][peer], NULL for self; peer[dir]: mapped */
	int peer[2], npeer[2];
	uint32_t **peer_in[2], **peer_bmp[2], **peer_pred;
	/* pull mode: flag words (in the receive area, after the slots), where
	 * this rank's signals go, the last epoch, phase events per level */
	unsigned *flags;
	FlagPtrs sig;
	unsigned epoch;
	unsigned long long seq; /* the last level counts' sequence number */
	cudaEvent_t *ev;
	cudaEvent_t copied;  /* the predecessor requests are in pinned memory */
	int nev;
	unsigned long long *stamp, *h_stamp; /* per level: the update's wait and rest (PullFold) */
	LevelStats *h_ls, *d_ls; /* device levels' level counts: mapped pinned */
	int devlev, plev;    /* device levels on; levels begun in this search */
	int carry;           /* device levels: bottom-up levels' folds carry the
	                        visited state (carrying()) */
	int64_t *ncol;       /* device levels: the column peers' frontier sizes [R] */
	uint32_t *ans;       /* [C][b] answers to the row peers' predecessor requests */
	/* B2_TRACE_LEVELS: device times between the predecessor exchange's
	 * steps (pmark), printed by rank 0 */
	int ptrace, npm;
	cudaEvent_t pm[PMARKS];
	const char *pmname[PMARKS];
	int32_t *plevel;     /* 1x2, every fold carrying the visited state: the
	                        levels of the row peer's vertices, by k: carried
	                        with them, or found here (the update) */
	/* and there the predecessors of each level's vertices the fold brought,
	 * from the levels, on a side stream of lower priority while the next
	 * levels run (pred_level): its k_pred_rest items ([2][nr]), the event
	 * the level's update ends with, the event its work ends with */
	cudaStream_t side;
	int side_priority;   /* the device's lowest stream priority (cu_create) */
	uint32_t *rest;
	cudaEvent_t lvl_done, side_done;
	/* bottom-up: the local block row-major, the column frontier as a bitmap
	 * over local columns, the row peers' visited blocks (MPI) */
	uint64_t *rowptr;
	uint32_t *colidx, *fcol, *vrecv, *nzrow;
	uint32_t *h_vsend, *h_vrecv;
	int vis_host;        /* the own visited block goes to h_vsend (MPI sends it) */
	int fold_host;       /* fold messages are copied on to h_dst (MPI sends them) */
	int fold_copied;     /* and this level's were (cu_expand) */
	/* the step's counts: [c < C] discoveries per grid column, [C] the own
	 * column's degrees, [C + 1] edges examined (device levels: the last two are
	 * the update's counters; h_lc: [C + 2] the level's sequence number, and
	 * after the levels [0, C) the predecessor requests to each row peer,
	 * [C + 3, 2C + 3) the answers due to them); dstat: message levels' update's counters, [0]
	 * the new frontier's degrees, [1] edges (none: the step counted them) */
	unsigned long long *lc, *h_lc, *dstat;
	unsigned long long *lcur, *d_lc; /* the level's counters (message levels:
	                        two sets, by level parity); h_lc mapped for the device */
	int64_t own_degree;  /* lc[C] of the last step */
	int step_dir;        /* the last step's direction */
	int step_carrying;   /* and what its fold carries (B2_CARRYING_, the plan's) */
	uint64_t maxdeg;     /* the largest local column degree */
};

/* Device counters (tmpcnt): [c < C] unpacking of fold list c, then these. */
enum { CT_FRONT, CT_GATHER, CT_PF_COUNT, CT_PF_DONE, CT_LC_DONE, CT_REST, /* and CT_REST + 1:
	k_pred_rest items, by level parity */ CT_REST_ALL = CT_REST + 2, CT_UNRESOLVED,
	CT_FIRST, CT_TIMER, CT_STEP_DONE, CT_N };
static unsigned *counter(const struct cu_bk *k, int t)
{
	return k->tmpcnt + k->g.C + t;
}

/* The degrees the direction rule sums over a new frontier: only after a
 * top-down step (backend.h), NULL otherwise. */
static const int64_t *front_tdeg(const struct cu_bk *k)
{
	return k->o.frontier_degree && k->step_dir == B2_TOP_DOWN ? k->tdeg : NULL;
}

/* Receive area: R expand slots, then C fold slots, slotw words each, then
 * C flag words (device levels); one allocation, so one IPC handle names them
 * all; the same layout on every rank, so a sender finds its slot in a
 * peer's area at the offset of its own. */
static size_t slot_off(const cu_bk *k, int dir, int s)
{
	return (size_t)((dir == B2_DIR_FOLD ? k->g.R : 0) + s) * (size_t)k->slotw;
}
static uint32_t *in_slot(const cu_bk *k, int dir, int s)
{
	return k->in + slot_off(k, dir, s);
}
static size_t flags_off(const cu_bk *k)
{
	return (size_t)(k->g.R + k->g.C) * (size_t)k->slotw;
}
/* Discovery bitmaps: two sets of C (one per level parity in pull mode, where
 * peers read the previous level's set while this one is written; set 0
 * otherwise), bw + 1 words each (the last: a message's count word); then
 * the own block of the visited bitmap, aligned (bw words), which the row
 * peers read for bottom-up levels: one allocation, one IPC handle. */
static size_t bmp_off(const cu_bk *k, int set, int c)
{
	return ((size_t)set * (size_t)k->g.C + (size_t)c) * (size_t)(k->bw + 1);
}
static uint32_t *bmp_set(const cu_bk *k, int set, int c)
{
	return k->bmp + bmp_off(k, set, c);
}
static uint32_t *bmp_of(const cu_bk *k, int c)
{
	return bmp_set(k, 0, c);
}
static size_t vown_off(const cu_bk *k)
{
	return bmp_off(k, 2, 0);
}
/* Beside the visited bitmap where a row has peers (same layout, zeroed
 * with it): the rows the row peers carried, i.e. found themselves
 * (message levels, transport.h). */
static uint32_t *carried(const cu_bk *k)
{
	return k->vis + b2_bmp_words(k->nr);
}
static int64_t vis_words(const cu_bk *k)
{
	return (k->g.C > 1 ? 2 : 1) * b2_bmp_words(k->nr);
}
/* The sets a level reads its frontier from and writes its discoveries to. */
static int front_set(const cu_bk *k)
{
	return k->devlev ? (k->plev & 1) ^ 1 : 0;
}
static int disc_set(const cu_bk *k)
{
	return k->devlev ? k->plev & 1 : 0;
}

static int cu_host_alloc(void *out, size_t bytes, const char *what)
{
	void *p = NULL;
	if (cudaHostAlloc(&p, bytes ? bytes : 4, cudaHostAllocDefault) != cudaSuccess) {
		*(void **)out = NULL;
		return b2_err(B2_EIO_, "out of pinned host memory: %zu bytes for %s", bytes, what);
	}
	*(void **)out = p;
	return 0;
}

static void cu_host_free(void *p)
{
	if (p)
		cudaFreeHost(p);
}

static int cu_peers(void *p, int dir, int n, int me, const b2_regions *peer);

static void cu_destroy(void *p)
{
	cu_bk *k = (cu_bk *)p;
	if (!k)
		return;
	cu_peers(k, B2_DIR_EXPAND, 0, 0, NULL);
	cu_peers(k, B2_DIR_FOLD, 0, 0, NULL);
	void *dev[] = {k->colptr, k->deg, k->cumul, k->rowidx, k->vis, k->pred, k->front, k->dst,
	               k->bmp, k->af, k->in, k->level, k->tdeg, k->pred64, k->tmpcnt,
	               k->dsum, k->cubtmp, k->stamp, k->rowptr, k->colidx, k->fcol, k->vrecv,
	               k->dstat, k->lc, k->nzrow, k->ans, k->plevel, k->rest};
	for (size_t x = 0; x < sizeof dev / sizeof dev[0]; x++)
		if (dev[x])
			cudaFree(dev[x]);
	void *host[] = {k->h_front, k->h_dst, k->h_pred, k->h_recv, k->h_dsum,
	                k->h_stamp, k->h_ls, k->h_vsend, k->h_vrecv, k->h_lc};
	for (size_t x = 0; x < sizeof host / sizeof host[0]; x++)
		cu_host_free(host[x]);
	for (int e = 0; e < k->nev; e++)
		cudaEventDestroy(k->ev[e]);
	for (int e = 0; e < PMARKS; e++)
		if (k->pm[e])
			cudaEventDestroy(k->pm[e]);
	if (k->copied)
		cudaEventDestroy(k->copied);
	if (k->lvl_done)
		cudaEventDestroy(k->lvl_done);
	if (k->side_done)
		cudaEventDestroy(k->side_done);
	free(k->ev);
	if (k->side)
		cudaStreamDestroy(k->side);
	if (k->st)
		cudaStreamDestroy(k->st);
	free(k->in_msgs);
	free(k->ncol);
	free(k);
}

#define DALLOC(ptr, bytes)                                                                    \
	do {                                                                                      \
		size_t b_ = (bytes);                                                                  \
		if (cudaMalloc((void **)&(ptr), b_ ? b_ : 8) != cudaSuccess) {                        \
			cudaGetLastError();                                                               \
			error = b2_err(B2_EIO_, "out of device memory: %zu bytes for %s", b_, #ptr);     \
			goto done;                                                                        \
		}                                                                                     \
	} while (0)
#define HALLOC(ptr, bytes)                                                                    \
	do {                                                                                      \
		if ((error = cu_host_alloc(&(ptr), (bytes), #ptr)) != 0)                               \
			goto done;                                                                        \
	} while (0)

static int blocks_for(const cu_bk *k, int64_t n);

/* A grid of one row (R = 1, C > 1): the own columns list every neighbour
 * of the own vertices, and bottom-up steps scan only the own rows, through
 * them (k_bottom_up): no CSR. */
static int own_rows(const cu_bk *k)
{
	return k->g.R == 1 && k->g.C > 1;
}

/* The local block row-major, on the device: row counts, their scan (CUB),
 * then the columns appended through a cursor per row; nzrow marks the rows
 * with local edges. With own_rows, only nzrow: the own rows with
 * neighbours. */
static int build_csr(cu_bk *k)
{
	int error = 0;
	unsigned long long *fill = NULL;
	void *tmp = NULL;
	size_t tb = 0;
	if (own_rows(k)) {
		DALLOC(k->nzrow, (size_t)b2_bmp_words(k->nr) * 4);
		k_own_nonempty<<<blocks_for(k, b2_bmp_words(k->nr)), TPB, 0, k->st>>>(
			k->colptr, (int64_t)k->g.j * k->b, k->b, k->nr, k->nzrow);
		CU_TRY(cudaGetLastError());
		CU_TRY(cudaStreamSynchronize(k->st));
		goto done;
	}
	DALLOC(k->rowptr, (size_t)(k->nr + 1) * 8);
	DALLOC(k->colidx, k->g.nnz * 4);
	DALLOC(fill, (size_t)(k->nr + 1) * 8);
	CU_TRY(cudaMemsetAsync(fill, 0, (size_t)(k->nr + 1) * 8, k->st));
	k_row_count<<<k->grid, TPB, 0, k->st>>>(k->rowidx, k->g.nnz, fill);
	CU_TRY(cudaGetLastError());
	CU_TRY(cub::DeviceScan::ExclusiveSum(NULL, tb, (uint64_t *)fill, k->rowptr, (int64_t)(k->nr + 1),
	                                 k->st));
	DALLOC(tmp, tb);
	CU_TRY(cub::DeviceScan::ExclusiveSum(tmp, tb, (uint64_t *)fill, k->rowptr, (int64_t)(k->nr + 1),
	                                 k->st));
	CU_TRY(cudaMemcpyAsync(fill, k->rowptr, (size_t)k->nr * 8, cudaMemcpyDeviceToDevice, k->st));
	k_row_fill<<<k->grid, TPB, 0, k->st>>>(k->colptr, k->rowidx, k->nc, fill, k->colidx);
	CU_TRY(cudaGetLastError());
	DALLOC(k->nzrow, (size_t)b2_bmp_words(k->nr) * 4);
	k_nonempty<<<blocks_for(k, b2_bmp_words(k->nr)), TPB, 0, k->st>>>(k->rowptr, k->nr, k->nzrow);
	CU_TRY(cudaGetLastError());
	CU_TRY(cudaStreamSynchronize(k->st));
done:
	if (fill)
		cudaFree(fill);
	if (tmp)
		cudaFree(tmp);
	return error;
}

static int cu_create(void **out, const b2_graph *g, const b2_bkopts *o)
{
	int error = 0, hi_pri = 0;
	size_t fre = 0, tot = 0, need, pbytes = 0;
	cudaDeviceProp prop;
	cu_bk *k = (cu_bk *)calloc(1, sizeof *k);
	if (!k)
		return b2_err(B2_EIO_, "out of host memory");
	k->g = *g;
	k->o = *o;
	b2_geometry(g, &k->b, &k->bw, &k->nr, &k->nc, &k->slotw);
	k->in_msgs = (b2_msg *)calloc((size_t)(g->R > g->C ? g->R : g->C), sizeof(b2_msg));
	if (!k->in_msgs) {
		error = b2_err(B2_EIO_, "out of host memory");
		goto done;
	}
	if (cudaSetDevice(o->device) != cudaSuccess || cudaGetDeviceProperties(&prop, o->device) != cudaSuccess) {
		error = b2_err(B2_EIO_, "cannot use CUDA device %d", o->device);
		goto done;
	}
	k->nsm = prop.multiProcessorCount;
	k->grid = k->nsm * (2048 / TPB);
	k->ptrace = o->trace;
	{
		/* the expansion's warps split the edges evenly: all of them must be
		 * resident at once, or a second wave doubles the tail */
		int nb[4] = {0, 0, 0, 0};
		if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&nb[0], k_expand<1>, TPB, 0) != cudaSuccess ||
		    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&nb[1], k_expand<2>, TPB, 0) != cudaSuccess ||
		    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&nb[2], k_expand<4>, TPB, 0) != cudaSuccess ||
		    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&nb[3], k_expand<8>, TPB, 0) != cudaSuccess) {
			error = b2_err(B2_EFAIL_, "cannot query the expansion kernel's occupancy");
			goto done;
		}
		for (int q = 0; q < 4; q++)
			k->egrid[1 << q] = k->nsm * (nb[q] > 0 ? nb[q] : 1);
	}
	/* the expansion's scan, and the predecessor requests' (ordered_list) */
	if (cub::DeviceScan::ExclusiveSum(NULL, k->cubbytes, (uint64_t *)NULL, (uint64_t *)NULL,
	                                  (int64_t)(k->nc + 1)) != cudaSuccess ||
	    cub::DeviceScan::ExclusiveSum(NULL, pbytes, (uint32_t *)NULL, (uint32_t *)NULL,
	                                  k->bw) != cudaSuccess) {
		error = b2_err(B2_EFAIL_, "CUB scan set-up failed");
		goto done;
	}
	if (pbytes > k->cubbytes)
		k->cubbytes = pbytes;
	need = (size_t)(k->nc + 1) * 8 * 3 + g->nnz * 4 + (size_t)k->b * (8 + 4 + 4 + 8) +
	       (size_t)k->nr * (4 + 4) + (size_t)vis_words(k) * 4 +
	       (size_t)2 * g->C * (size_t)(k->bw + 1) * 4 + (size_t)k->nc * 4 +
	       ((size_t)(g->R + g->C) * (size_t)k->slotw + (size_t)g->C) * 4 + k->cubbytes +
	       (64u << 20);
	/* bottom-up: the CSR (and, while it is built, a fill cursor per row;
	 * none on a grid of one row: own_rows), the column frontier bitmap,
	 * the row peers' visited blocks */
	if (o->bottom_up)
		need += (own_rows(k) ? 0 : g->nnz * 4 + (size_t)(k->nr + 1) * 8 * 2) +
		        (size_t)b2_bmp_words(k->nc) * 4 + (size_t)b2_bmp_words(k->nr) * 4 +
		        (size_t)g->C * (size_t)(k->bw + 1) * 4 * 2;
	if (g->C > 1) /* the answers to the predecessor requests */
		need += (size_t)k->nr * 4;
	if (g->R == 1 && g->C == 2 && o->bottom_up) /* maybe the peer's levels and the
	                                              predecessor items (cu_device_levels) */
		need += (size_t)k->b * 4 + (size_t)k->nr * 8;
	cudaMemGetInfo(&fre, &tot);
	if (need > fre) {
		error = b2_err(B2_EIO_, "not enough device memory on GPU %d (%s): the graph and search state need %.2f GiB, %.2f GiB are free of %.2f GiB",
		               o->device, prop.name, need / 1073741824.0, fre / 1073741824.0,
		               tot / 1073741824.0);
		goto done;
	}
	/* the levels' stream first in line: a side stream (pred_level) takes
	 * what the levels leave */
	if (cudaDeviceGetStreamPriorityRange(&k->side_priority, &hi_pri) != cudaSuccess ||
	    cudaStreamCreateWithPriority(&k->st, cudaStreamNonBlocking, hi_pri) != cudaSuccess) {
		cudaGetLastError();
		error = b2_err(B2_EFAIL_, "cannot create a CUDA stream");
		goto done;
	}
	DALLOC(k->colptr, (size_t)(k->nc + 1) * 8);
	DALLOC(k->rowidx, g->nnz * 4);
	DALLOC(k->tdeg, (size_t)k->b * 8);
	DALLOC(k->vis, (size_t)vis_words(k) * 4);
	DALLOC(k->level, (size_t)k->b * 4);
	DALLOC(k->pred, (size_t)k->nr * 4);
	DALLOC(k->front, (size_t)k->b * 4);
	DALLOC(k->dst, (size_t)k->nr * 4);
	DALLOC(k->bmp, (vown_off(k) + (size_t)k->bw + 1) * 4);
	DALLOC(k->af, (size_t)k->nc * 4);
	DALLOC(k->deg, (size_t)(k->nc + 1) * 8);
	DALLOC(k->cumul, (size_t)(k->nc + 1) * 8);
	DALLOC(k->in, (flags_off(k) + (size_t)g->C) * 4);
	k->flags = k->in + flags_off(k);
	DALLOC(k->pred64, (size_t)k->b * 8);
	if (g->C > 1)
		DALLOC(k->ans, (size_t)k->nr * 4);
	DALLOC(k->lc, (size_t)2 * (size_t)(g->C + 2) * 8);
	k->lcur = k->lc;
	DALLOC(k->tmpcnt, (size_t)(g->C + CT_N) * 4);
	DALLOC(k->stamp, (size_t)(PULL_LEVELS + 1) * 16);
	DALLOC(k->dsum, 8);
	DALLOC(k->dstat, 4 * 8);
	DALLOC(k->cubtmp, k->cubbytes);
	HALLOC(k->h_front, (size_t)k->slotw * 4);
	HALLOC(k->h_dst, (size_t)g->C * (size_t)k->slotw * 4);
	HALLOC(k->h_pred, (size_t)g->C * (size_t)k->slotw * 4);
	HALLOC(k->h_recv, (size_t)k->nr * 4);
	HALLOC(k->h_dsum, 8);
	HALLOC(k->h_stamp, (size_t)PULL_LEVELS * 16);
	k->ncol = (int64_t *)calloc((size_t)g->R, 8);
	if (!k->ncol) {
		error = b2_err(B2_EIO_, "out of host memory");
		goto done;
	}
	if (cudaHostAlloc((void **)&k->h_ls, sizeof(LevelStats), cudaHostAllocMapped) != cudaSuccess ||
	    cudaHostGetDevicePointer((void **)&k->d_ls, k->h_ls, 0) != cudaSuccess ||
	    cudaHostAlloc((void **)&k->h_lc, (size_t)(2 * g->C + 3) * 8, cudaHostAllocMapped) != cudaSuccess ||
	    cudaHostGetDevicePointer((void **)&k->d_lc, k->h_lc, 0) != cudaSuccess) {
		cudaGetLastError();
		error = b2_err(B2_EIO_, "cannot map pinned host memory into GPU %d", o->device);
		goto done;
	}
	if (cudaMemcpy(k->colptr, g->col_ptr, (size_t)(k->nc + 1) * 8, cudaMemcpyHostToDevice) != cudaSuccess ||
	    cudaMemcpy(k->rowidx, g->row_idx, g->nnz * 4, cudaMemcpyHostToDevice) != cudaSuccess ||
	    cudaMemcpy(k->tdeg, g->tdeg, (size_t)k->b * 8, cudaMemcpyHostToDevice) != cudaSuccess ||
	    cudaMemset(k->flags, 0, (size_t)g->C * 4) != cudaSuccess ||
	    cudaMemset(k->tmpcnt, 0, (size_t)(g->C + CT_N) * 4) != cudaSuccess ||
	    cudaMemset(k->deg, 0, (size_t)(k->nc + 1) * 8) != cudaSuccess ||
	    cudaMemset(k->dstat, 0, 4 * 8) != cudaSuccess ||
	    cudaMemset(k->lc, 0, (size_t)2 * (size_t)(g->C + 2) * 8) != cudaSuccess ||
	    cudaMemset(k->bmp, 0, (vown_off(k) + (size_t)k->bw + 1) * 4) != cudaSuccess) {
		error = b2_err(B2_EFAIL_, "cannot copy the graph to GPU %d", o->device);
		goto done;
	}
	/* the expansion's grid for small frontiers: at most n * maxdeg edges */
	for (int64_t u = 0; u < k->nc; u++)
		if (g->col_ptr[u + 1] - g->col_ptr[u] > k->maxdeg)
			k->maxdeg = g->col_ptr[u + 1] - g->col_ptr[u];
	if (o->bottom_up) {
		DALLOC(k->fcol, (size_t)b2_bmp_words(k->nc) * 4);
		DALLOC(k->vrecv, (size_t)g->C * (size_t)k->bw * 4);
		HALLOC(k->h_vsend, (size_t)k->bw * 4);
		HALLOC(k->h_vrecv, (size_t)g->C * (size_t)k->bw * 4);
		if ((error = build_csr(k)))
			goto done;
	}
	*out = k;
	k = NULL;
done:
	cu_destroy(k);
	return error;
}

static int blocks_for(const cu_bk *k, int64_t n)
{
	int64_t g = (n + TPB - 1) / TPB;
	return g < 1 ? 1 : g > k->grid ? k->grid : (int)g;
}

/* Where fold list c is sent from: the device (where it is made), or the
 * pinned host buffer a host transport sends from (k_list_to_host). */
static uint32_t *fold_list(const cu_bk *k, int c)
{
	return k->fold_host ? k->h_dst + (size_t)c * (size_t)k->slotw : k->dst + (size_t)c * (size_t)k->b;
}

/* Where the own visited block goes for the row peers: the device (read in
 * place, or sent from there), or straight into the pinned host buffer a
 * host transport sends from. */
static uint32_t *vown_out(const cu_bk *k)
{
	return k->vis_host ? k->h_vsend : k->bmp + vown_off(k);
}

/* The own block of the visited bitmap, aligned, where the row peers find
 * it (bottom-up levels): after begin and after every update. */
static int vis_wanted(const cu_bk *k);
static int export_visited(cu_bk *k)
{
	if (!vis_wanted(k))
		return 0;
	k_get_shifted<<<blocks_for(k, k->bw), TPB, 0, k->st>>>(
		k->vis, b2_bmp_words(k->nr), (uint32_t)(k->g.j * k->b), k->b, vown_out(k));
	CU_LAUNCHED();
	return 0;
}

/* The level's counts are in mapped memory once *at == seq (the kernel's
 * last block writes seq after them): the host goes on from there, without
 * waiting for the rest of the stream (the kernel's end, events), which
 * orders itself before the next level's work. A kernel that failed never
 * writes seq: the stream is asked now and then, and its error returned. */
static int wait_counts(cu_bk *k, const volatile unsigned long long *at, unsigned long long seq)
{
	for (unsigned n = 1;; n++) {
		if (*at == seq)
			return 0;
		if (n % 4096 == 0) {
			cudaError_t e = cudaStreamQuery(k->st);
			if (e == cudaSuccess && *at != seq)
				return b2_err(B2_EFAIL_, "internal: the level's counts were not written");
			if (e != cudaSuccess && e != cudaErrorNotReady)
				return b2_err(B2_EFAIL_, "CUDA error: %s (a level's kernels)", cudaGetErrorString(e));
		}
	}
}

static int cu_begin(void *p, int64_t root_k)
{
	cu_bk *k = (cu_bk *)p;
	int error = 0;
	const uint64_t none = ~(uint64_t)0;
	k->nfront = root_k >= 0;
	k->plev = 0;
	CU(cudaMemsetAsync(k->vis, 0, (size_t)vis_words(k) * 4, k->st));
	CU(cudaMemsetAsync(k->level, 0xff, (size_t)k->b * 4, k->st));
	k_begin<<<blocks_for(k, k->bw), TPB, 0, k->st>>>(
		k->vis, k->level, bmp_of(k, k->g.j), k->bw,
		root_k >= 0 ? (uint64_t)k->g.j * (uint64_t)k->b + (uint64_t)root_k : none,
		root_k >= 0 ? (uint64_t)root_k : none, k->tmpcnt, k->g.C + CT_GATHER + 1, k->lc,
		2 * (k->g.C + 2));
	CU_LAUNCHED();
	if (k->plevel) { /* no peer row's level known yet (k_pred_local) */
		CU(cudaMemsetAsync(k->plevel, 0x7f, (size_t)k->b * 4, k->st));
		CU(cudaMemsetAsync(counter(k, CT_REST), 0, 3 * 4, k->st));
	}
	if ((error = export_visited(k)))
		return error;
	/* done before returning: in pull mode the column peers read the new
	 * frontier bitmap once every rank's begin has returned */
	CU(cudaStreamSynchronize(k->st));
	return 0;
}

/* Bitmap src (bw words) -> list at dst (k + off), appended through
 * device counter ctr (zero unless the list continues); with deg, the
 * columns' degrees too; z: bitmaps to zero on the way (Zero). */
static int unpack(cu_bk *k, const uint32_t *src, uint32_t off, uint32_t *dst, uint64_t *deg,
                  unsigned *ctr, Zero z)
{
	Sources one;
	Lists to;
	one.bmp[0] = src;
	one.tag[0] = off;
	to.dst[0] = dst;
	to.ctr[0] = ctr;
	k_unpack<<<blocks_for(k, k->bw), TPB, 0, k->st>>>(one, k->bw, to, deg, k->colptr, z);
	CU_LAUNCHED();
	return 0;
}

static const Zero no_zero = {NULL, 0, 0};

/* A list of its own from bitmap src (its counter CT_FRONT zeroed first). */
static int unpack_list(cu_bk *k, const uint32_t *src, uint32_t off, uint32_t *dst, uint64_t *deg)
{
	CU(cudaMemsetAsync(counter(k, CT_FRONT), 0, 4, k->st));
	return unpack(k, src, off, dst, deg, counter(k, CT_FRONT), no_zero);
}

/* The discovery bitmaps of set `set` (all C, count words included). */
static Zero disc_zero(const cu_bk *k, int set)
{
	Zero z = {bmp_set(k, set, 0), k->bw + 1, k->g.C};
	return z;
}

/* The frontier lives in the own column's bitmap; a list message is made
 * from it on demand. */
static int cu_front_msg(void *p, int bitmap, int mem, b2_msg *m)
{
	cu_bk *k = (cu_bk *)p;
	int error = 0;
	/* a list for a host transport is unpacked straight into pinned memory */
	uint32_t *list = mem == B2_MEM_DEVICE ? k->front : k->h_front;
	const uint32_t *src = bitmap ? bmp_set(k, front_set(k), k->g.j) : list;
	m->count = k->nfront;
	m->bitmap = bitmap;
	if (!bitmap && k->nfront &&
	    (error = unpack_list(k, bmp_set(k, front_set(k), k->g.j), 0, list, NULL)))
		return error;
	if (mem == B2_MEM_DEVICE) { /* the transport's copies follow on the stream */
		m->data = (uint32_t *)src;
		return 0;
	}
	m->data = k->h_front;
	if (bitmap)
		CU(cudaMemcpyAsync(k->h_front, src, (size_t)k->bw * 4, cudaMemcpyDeviceToHost, k->st));
	CU(cudaStreamSynchronize(k->st));
	if (bitmap)
		k->h_front[k->bw] = (uint32_t)k->nfront;
	return 0;
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
static int ev_gather(const cu_bk *k)
{
	return k->g.R > 1;
}

static int ev_fold(const cu_bk *k)
{
	return k->g.C > 1 && !k->peer[B2_DIR_FOLD];
}

static int pull_events(cu_bk *k, int lvl)
{
	int need = lvl * PULL_EV;
	if (need <= k->nev)
		return 0;
	int cap = need < 64 * PULL_EV ? 64 * PULL_EV : 2 * need;
	cudaEvent_t *ev = (cudaEvent_t *)realloc(k->ev, (size_t)cap * sizeof *ev);
	if (!ev)
		return b2_err(B2_EIO_, "out of host memory for CUDA events");
	k->ev = ev;
	for (; k->nev < cap; k->nev++)
		CU(cudaEventCreate(&k->ev[k->nev]));
	return 0;
}

static cudaEvent_t *level_events(cu_bk *k)
{
	return k->ev + (size_t)(k->plev - 1) * PULL_EV;
}

/* This device level's fold carries the visited state (transport.h): each
 * message is the sender's whole discovery set, and the update ORs the row
 * peer's discoveries of its own block into the visited bitmap too.
 * Bottom-up levels (a next bottom-up level then needs no visited
 * exchange), or every level (B2_CARRY_EVERY=1 on 1x2: then also into the
 * carried rows and the peer's levels, for pred_level). */
static int carrying(const cu_bk *k)
{
	return k->devlev && k->step_carrying != B2_CARRYING_NONE;
}

/* Every fold carries the visited state (transport.h): message levels'
 * own discoveries go with every fold message; device levels' fold
 * messages are the whole set every level. */
static int carrying_every(const cu_bk *k)
{
	return k->carry == B2_CARRY_EVERY;
}

/* Carrying on a bottom-up level of a grid of one row: the step found only
 * own rows (own_rows), so the fold message is the own block alone
 * (transport.h, B2_CARRYING_OWN; search.c applies the same rule). */
static int carrying_own(const cu_bk *k)
{
	return k->devlev && k->step_carrying == B2_CARRYING_OWN;
}

/* The row peers read the own visited block (bottom-up levels): unless
 * every fold carries the visited state. */
static int vis_wanted(const cu_bk *k)
{
	return k->o.bottom_up && k->g.C > 1 && !carrying_every(k);
}

static int cu_device_levels(void *p, int on, int carry)
{
	cu_bk *k = (cu_bk *)p;
	int error = 0;
	k->devlev = on;
	k->carry = carry;
	/* every fold carrying on 1x2: the peer's levels, and what the
	 * predecessors from them take (pred_level) */
	if (carry == B2_CARRY_EVERY && k->g.R == 1 && k->g.C == 2 && !k->plevel) {
		DALLOC(k->plevel, (size_t)k->b * 4);
		DALLOC(k->rest, (size_t)k->nr * 8);
		CU_TRY(cudaStreamCreateWithPriority(&k->side, cudaStreamNonBlocking, k->side_priority));
		CU_TRY(cudaEventCreateWithFlags(&k->lvl_done, cudaEventDisableTiming));
		CU_TRY(cudaEventCreateWithFlags(&k->side_done, cudaEventDisableTiming));
	}
done:
	return error;
}

/* Puts message m (a list, or a bitmap of bw words) into device slot
 * `slot` unless it is there, and points it there. */
static int to_device(cu_bk *k, b2_msg *m, uint32_t *slot)
{
	if (m->data != slot && m->count)
		CU(cudaMemcpyAsync(slot, m->data, (size_t)(m->bitmap ? k->bw : m->count) * 4,
		                   cudaMemcpyDefault, k->st));
	m->data = slot;
	return 0;
}

static int cu_stage_in(void *p, int dir, const b2_msg *in, int nslots, int self)
{
	cu_bk *k = (cu_bk *)p;
	int error = 0;
	k->self = self;
	if (k->devlev) {
		/* only the sizes: the bitmaps are read in place or arrive in the
		 * own slots on the stream; the level begins here */
		if (dir == B2_DIR_EXPAND) {
			for (int s = 0; s < nslots; s++) {
				k->ncol[s] = in[s].count;
				/* a list where the transport sends one (b2_link_list) */
				k->in_msgs[s] = (b2_msg){in_slot(k, dir, s), in[s].count, in[s].bitmap};
			}
			k->plev++;
			if ((error = pull_events(k, k->plev)))
				return error;
			if (ev_gather(k))
				CU(cudaEventRecord(level_events(k)[0], k->st));
		} else {
			for (int s = 0; s < nslots && s < PULL_MAX; s++)
				k->fold_in[s] = in[s];
		}
		return 0;
	}
	/* a device transport put the messages into the slots; a host one's
	 * (MPI) are copied there. The kernels could read pinned memory where
	 * it is, but on an H200 that made the levels slower than the copy did
	 * (docs/PERFORMANCE.md): data from the host is copied, data for the
	 * host is written there by the kernels. No wait: the step or the
	 * update that reads these copies waits for the stream before the
	 * transport reuses its buffers (MPI: two rounds later). */
	for (int s = 0; s < nslots; s++) {
		k->in_msgs[s] = in[s];
		if (s != self && in[s].count > 0 && (error = to_device(k, &k->in_msgs[s], in_slot(k, dir, s))))
			return error;
	}
	return 0;
}

/* dst |= each bitmap of src (n of them, any number) shifted to its tag. */
static int or_shifted(cu_bk *k, const uint32_t *const *bmp, const uint32_t *tag, int n, uint32_t *dst)
{
	for (int x0 = 0; x0 < n; x0 += PULL_MAX) {
		Sources src;
		int m = n - x0 < PULL_MAX ? n - x0 : PULL_MAX;
		for (int x = 0; x < m; x++) {
			src.bmp[x] = bmp[x0 + x];
			src.tag[x] = tag[x0 + x];
		}
		k_or_shifted<<<dim3(blocks_for(k, k->bw), m), TPB, 0, k->st>>>(src, k->bw, dst);
		CU_LAUNCHED();
	}
	return 0;
}

static int cu_visited_bufs(void *p, int mem, uint32_t **send, uint32_t **recv)
{
	cu_bk *k = (cu_bk *)p;
	if (mem == B2_MEM_DEVICE) {
		*send = k->bmp + vown_off(k);
		*recv = k->vrecv;
		return 0;
	}
	/* once: from then on begin and the update write it there themselves
	 * (and wait for the stream) */
	if (!k->vis_host) {
		CU(cudaMemcpyAsync(k->h_vsend, k->bmp + vown_off(k), (size_t)k->bw * 4,
		                   cudaMemcpyDeviceToHost, k->st));
		CU(cudaStreamSynchronize(k->st));
		k->vis_host = 1;
	}
	*send = k->h_vsend;
	*recv = k->h_vrecv;
	return 0;
}

/* The row peers' visited blocks into the visited bitmap: from recv (host,
 * copied to the device gather area first, or that area), or, recv NULL,
 * read in place from the peers. */
static int cu_visited_in(void *p, const uint32_t *recv)
{
	cu_bk *k = (cu_bk *)p;
	const int C = k->g.C;
	const uint32_t **bmp = (const uint32_t **)calloc((size_t)C, sizeof *bmp);
	uint32_t *tag = (uint32_t *)calloc((size_t)C, sizeof *tag);
	int n = 0, error = 0;
	if (!bmp || !tag) {
		error = b2_err(B2_EIO_, "out of host memory");
		goto done;
	}
	for (int c = 0; c < C; c++) {
		if (c == k->g.j)
			continue;
		const size_t at = (size_t)c * (size_t)k->bw;
		if (recv && recv != k->vrecv) {
			cudaError_t e = cudaMemcpyAsync(k->vrecv + at, recv + at, (size_t)k->bw * 4,
			                                cudaMemcpyHostToDevice, k->st);
			if (e != cudaSuccess) {
				error = b2_err(B2_EFAIL_, "CUDA error: %s (visited blocks to the device)",
				               cudaGetErrorString(e));
				goto done;
			}
		}
		bmp[n] = recv ? k->vrecv + at : k->peer_bmp[B2_DIR_FOLD][c] + vown_off(k);
		tag[n++] = (uint32_t)(c * k->b);
	}
	error = or_shifted(k, bmp, tag, n, k->vis);
done:
	free(bmp);
	free(tag);
	return error;
}

/* Appends staged message m to the expansion's columns at position at (as
 * k + off), with their degrees. */
static int append_msg(cu_bk *k, const b2_msg *m, uint32_t off, int64_t at)
{
	if (m->count == 0)
		return 0;
	if (m->bitmap)
		return unpack_list(k, m->data, off, k->af + at, k->deg + at);
	k_gather<<<blocks_for(k, m->count), TPB, 0, k->st>>>(m->data, m->count, off, k->af + at,
	                                                     k->deg + at, k->colptr);
	CU_LAUNCHED();
	return 0;
}

/* One full wave of blocks, or fewer when the n columns cannot have
 * that many edges (n * maxdeg): small frontiers launch small grids. */
template <int K>
static int launch_expand(cu_bk *k, const ExpandArgs &a)
{
	const double most = (double)a.n * (double)k->maxdeg / (TPB * K);
	const int grid = most < k->egrid[K] ? (int)most + 1 : k->egrid[K];
	k_expand<K><<<grid, TPB, 0, k->st>>>(a);
	CU_LAUNCHED();
	return 0;
}

/* Device levels whose row peers read the discoveries in place: the step
 * kernel's last block signals them (step_end), for the update's epoch. */
static StepEnd step_end_args(const cu_bk *k)
{
	StepEnd e;
	memset(&e, 0, sizeof e);
	if (k->devlev && k->g.C > 1 && k->peer[B2_DIR_FOLD]) {
		e.sig = k->sig;
		e.done = counter(k, CT_STEP_DONE);
		e.first = counter(k, CT_FIRST);
		e.n = k->g.C;
		e.epoch = k->epoch + 1;
	}
	return e;
}

/* Scan of the degrees of the n columns in af and the expansion kernel,
 * discoveries into the bitmaps of set `set`; the scan's total (the edges
 * examined) into the level's counter lcur[C + 1]. */
static int expand_columns(cu_bk *k, int64_t n, int lvl, int set)
{
	if (n == 0)
		return 0;
	/* deg[n] is read but does not matter: an exclusive scan of n + 1 items */
	if (n + 1 <= SCAN1_MAX) {
		k_scan1<<<1, TPB, 0, k->st>>>(k->deg, k->cumul, n + 1);
		CU_LAUNCHED();
	} else {
		size_t bytes = k->cubbytes;
		CU(cub::DeviceScan::ExclusiveSum(k->cubtmp, bytes, k->deg, k->cumul, (int64_t)(n + 1),
		                                 k->st));
	}
	ExpandArgs a;
	a.colptr = k->colptr; a.rowidx = k->rowidx; a.af = k->af; a.cumul = k->cumul; a.n = n;
	a.vis = k->vis; a.pred = k->pred; a.bmp = bmp_set(k, set, 0); a.level = k->level;
	a.b = (uint32_t)k->b; a.bw1 = (uint64_t)(k->bw + 1); a.j = (uint32_t)k->g.j; a.lvl = lvl;
	a.examined = k->lcur + k->g.C + 1;
	a.end = step_end_args(k);
	switch (k->o.edges_per_thread) {
	case 1: return launch_expand<1>(k, a);
	case 2: return launch_expand<2>(k, a);
	case 8: return launch_expand<8>(k, a);
	default: return launch_expand<4>(k, a);
	}
}

/* The bitmap of grid-column peer s's frontier: read in place (device
 * levels, the column mapped), or the message in its slot; NULL when it is
 * a list or empty. */
static const uint32_t *column_bitmap(const cu_bk *k, int s, int set)
{
	if (s == k->g.i)
		return bmp_set(k, set, k->g.j);
	if (k->devlev && (!k->ncol[s] || !k->in_msgs[s].bitmap))
		return NULL;
	if (k->devlev)
		return k->peer[B2_DIR_EXPAND] ? k->peer_bmp[B2_DIR_EXPAND][s] + bmp_off(k, set, k->g.j)
		                              : in_slot(k, B2_DIR_EXPAND, s);
	return k->in_msgs[s].count && k->in_msgs[s].bitmap ? k->in_msgs[s].data : NULL;
}

static int64_t column_count(const cu_bk *k, int s)
{
	if (s == k->g.i)
		return k->devlev ? k->ncol[s] : k->nfront;
	return k->devlev ? k->ncol[s] : k->in_msgs[s].count;
}

/* Top-down: the grid column's frontier as the list of local columns to
 * expand, with their degrees; *n = how many. The first unpacking also
 * zeroes the discovery bitmaps z (*zeroed = 1; none ran: 0). */
static int gather_columns(cu_bk *k, int set, Zero z, int64_t *n_out, int *zeroed)
{
	int error = 0;
	int64_t n = 0;
	*zeroed = 0;
	if (k->devlev) {
		/* the list messages first (b2_link_list: a transport's, at known
		 * offsets), then one launch for all the column's bitmaps; its
		 * counter is zeroed by begin, then by each level's update for the
		 * next */
		Sources src;
		Lists to; /* all into the one list, after the list messages */
		int nsrc = 0;
		int64_t nl = 0;
		for (int s = 0; s < k->g.R; s++) {
			const b2_msg *m = &k->in_msgs[s];
			n += column_count(k, s);
			if (column_count(k, s) && s != k->g.i && !m->bitmap) { /* a list message */
				if ((error = append_msg(k, m, (uint32_t)(s * k->b), nl)))
					return error;
				nl += m->count;
			}
		}
		for (int s = 0; s < k->g.R; s++) {
			if (!column_count(k, s) || !column_bitmap(k, s, set))
				continue;
			src.bmp[nsrc] = column_bitmap(k, s, set);
			src.tag[nsrc] = (uint32_t)(s * k->b);
			to.dst[nsrc] = k->af + nl;
			to.ctr[nsrc] = counter(k, CT_GATHER);
			nsrc++;
		}
		if (nsrc) {
			k_unpack<<<dim3(blocks_for(k, k->bw), nsrc), TPB, 0, k->st>>>(
				src, k->bw, to, k->deg + nl, k->colptr, z);
			CU_LAUNCHED();
			*zeroed = 1;
		}
		*n_out = n;
		return 0;
	}
	/* own frontier first (from its bitmap, which z may include: each word
	 * is read before it is zeroed), then the column peers'; the counter is
	 * zeroed by begin and by each level's counts for the next */
	n = k->nfront;
	if (n && (error = unpack(k, bmp_of(k, k->g.j), (uint32_t)(k->g.i * k->b), k->af, k->deg,
	                         counter(k, CT_GATHER), z)))
		return error;
	*zeroed = n > 0;
	for (int s = 0; s < k->g.R; s++) {
		if (s == k->self)
			continue;
		if ((error = append_msg(k, &k->in_msgs[s], (uint32_t)(s * k->b), n)))
			return error;
		n += k->in_msgs[s].count;
	}
	*n_out = n;
	return 0;
}

/* Bottom-up: the grid column's frontier as a bitmap over local columns,
 * *fc. With R == 1 it is the own frontier bitmap, aligned: read where it is
 * with device levels (the step writes the other set); in message levels
 * this level's discovery bitmaps are the same, so *copy says to copy it to
 * fcol first (the zeroing kernel does, cu_expand). */
static int column_frontier(cu_bk *k, int set, const uint32_t **fc, const uint32_t **copy)
{
	const int R = k->g.R;
	const uint32_t *bmp[PULL_MAX];
	uint32_t tag[PULL_MAX];
	int n = 0, error = 0;
	*fc = R == 1 && k->devlev ? bmp_set(k, set, k->g.j) : k->fcol;
	*copy = R == 1 && !k->devlev ? bmp_set(k, set, k->g.j) : NULL;
	if (R == 1)
		return 0;
	CU(cudaMemsetAsync(k->fcol, 0, (size_t)b2_bmp_words(k->nc) * 4, k->st));
	for (int s = 0; s < R; s++) {
		if (!column_count(k, s))
			continue;
		const uint32_t *b = column_bitmap(k, s, set);
		if (!b) { /* a list message */
			k_set_bits<<<blocks_for(k, k->in_msgs[s].count), TPB, 0, k->st>>>(
				k->in_msgs[s].data, k->in_msgs[s].count, (uint32_t)(s * k->b), k->fcol, NULL);
			CU_LAUNCHED();
			continue;
		}
		bmp[n] = b;
		tag[n++] = (uint32_t)(s * k->b);
		if (n == PULL_MAX) {
			if ((error = or_shifted(k, bmp, tag, n, k->fcol)))
				return error;
			n = 0;
		}
	}
	return or_shifted(k, bmp, tag, n, k->fcol);
}

static int bottom_up(cu_bk *k, int lvl, int set, const uint32_t *fcol)
{
	BottomUpArgs a;
	a.rowptr = k->rowptr; a.colidx = k->colidx; a.fcol = fcol; a.nzrow = k->nzrow;
	a.vis = k->vis; a.pred = k->pred; a.bmp = bmp_set(k, set, 0); a.level = k->level;
	a.nr = k->nr; a.b = (uint32_t)k->b; a.j = (uint32_t)k->g.j;
	a.bw1 = (uint64_t)(k->bw + 1); a.lvl = lvl; a.examined = k->lcur + k->g.C + 1;
	a.end = step_end_args(k);
	a.own = own_rows(k); a.colptr = k->colptr; a.rowidx = k->rowidx; a.out = k->pred64;
	int64_t warps = a.own ? b2_bmp_words(k->b) + 1 : b2_bmp_words(k->nr);
	if (a.own)
		k_bottom_up<true><<<blocks_for(k, warps * 32), TPB, 0, k->st>>>(a);
	else
		k_bottom_up<false><<<blocks_for(k, warps * 32), TPB, 0, k->st>>>(a);
	CU_LAUNCHED();
	return 0;
}

/* The fold messages of n bitmaps (cu_expand), each list or bitmap into
 * its pinned send buffer, where a host transport sends it. */
static int fold_to_host(cu_bk *k, const FoldOut &f, int n)
{
	k_fold_to_host<<<dim3(blocks_for(k, k->bw), n), TPB, 0, k->st>>>(f, k->bw,
	                                                                 (unsigned)k->o.fold_cap);
	CU_LAUNCHED();
	return 0;
}

static int cu_expand(void *p, const b2_step *st, int64_t *cnt_out, int64_t *examined)
{
	cu_bk *k = (cu_bk *)p;
	int error = 0, zeroed = 0;
	const int C = k->g.C, j = k->g.j, fs = front_set(k), ds = disc_set(k);
	cudaEvent_t *ev = k->devlev ? level_events(k) : NULL;
	int64_t n = 0;
	const uint32_t *fcol = NULL, *copy = NULL;
	const int lvl = st->lvl, dir = st->dir;
	k->step_dir = dir;
	k->step_carrying = st->carrying;
	/* the level's counters: device levels' are the update's; message
	 * levels alternate two sets, each level's counts zeroing the next's */
	unsigned long long *next = k->lc + (size_t)((lvl + 1) & 1) * (size_t)(C + 2);
	k->lcur = k->devlev ? k->lc : k->lc + (size_t)(lvl & 1) * (size_t)(C + 2);
	/* the column's frontier, in the form the direction wants; top-down's
	 * unpacking zeroes this level's discovery bitmaps on the way */
	if (dir == B2_BOTTOM_UP)
		error = column_frontier(k, fs, &fcol, &copy);
	else
		error = gather_columns(k, fs, disc_zero(k, ds), &n, &zeroed);
	if (error)
		return error;
	if (ev && ev_gather(k))
		CU(cudaEventRecord(ev[1], k->st));
	if (!zeroed) {
		k_copy_zero<<<blocks_for(k, k->bw + 1), TPB, 0, k->st>>>(
			copy, copy ? k->fcol : NULL, k->bw, disc_zero(k, ds));
		CU_LAUNCHED();
	}
	if (dir == B2_BOTTOM_UP)
		error = bottom_up(k, lvl, ds, fcol);
	else
		error = expand_columns(k, n, lvl, ds);
	if (error)
		return error;
	if (k->devlev) {
		/* the counts come with the update, which also tells the row peers
		 * that they may read this level's discoveries in place */
		if (ev_fold(k))
			CU(cudaEventRecord(ev[2], k->st));
		*examined = 0;
		return 0;
	}
	/* the level's counts in one kernel, handed to the host through mapped
	 * memory; a full grid, since summing degrees reads one scattered word
	 * per frontier vertex. Fold messages small enough to travel as lists
	 * become lists on the way; once a host transport has asked for them
	 * (fold_msgs), each list or bitmap is copied on into its pinned send
	 * buffer by whole lines (k_fold_to_host, one launch), so that nothing
	 * is left to copy. */
	LevelEnd e;
	e.next = next;
	e.nnext = C + 2;
	e.ctr = k->tmpcnt; /* the fold lists' counters, CT_FRONT and CT_GATHER */
	e.nctr = C + CT_GATHER + 1;
	e.lists = k->o.fold_cap > 0 ? k->dst : NULL;
	e.b = k->b;
	e.cap = (unsigned)k->o.fold_cap;
	e.own_list = carrying_every(k);
	e.done = counter(k, CT_LC_DONE);
	e.host = k->d_lc;
	e.seq = ++k->seq;
	k_level_end<<<dim3(blocks_for(k, k->bw), C), TPB, 0, k->st>>>(
		k->bmp, k->bw, (uint64_t)(k->bw + 1), C, j, front_tdeg(k), k->lcur, e);
	CU_LAUNCHED();
	FoldOut f;
	int nf = 0;
	k->fold_copied = k->fold_host;
	for (int c = 0; c < C && k->fold_host; c++) {
		if (c == j && !carrying_every(k))
			continue;
		if (nf == PULL_MAX) { /* more messages than one launch takes */
			if ((error = fold_to_host(k, f, nf)))
				return error;
			nf = 0;
		}
		f.list[nf] = k->dst + (size_t)c * (size_t)k->b;
		f.bmp[nf] = bmp_of(k, c);
		f.count[nf] = k->lcur + c;
		f.host[nf++] = fold_list(k, c);
	}
	if (nf && (error = fold_to_host(k, f, nf)))
		return error;
	/* with fold lists the host sends what the stream wrote: all of it done */
	if (C > 1)
		CU(cudaStreamSynchronize(k->st));
	else if ((error = wait_counts(k, k->h_lc + C + 2, k->seq)))
		return error;
	const volatile unsigned long long *h = k->h_lc;
	for (int c = 0; c < C; c++)
		cnt_out[c] = (int64_t)h[c];
	k->nfront = (int64_t)h[j];
	k->own_degree = (int64_t)h[C];
	*examined = (int64_t)h[C + 1];
	return 0;
}

static int cu_fold_msgs(void *p, const int *use_bitmap, int mem, b2_msg *out)
{
	cu_bk *k = (cu_bk *)p;
	const int peer = mem == B2_MEM_DEVICE;
	if (k->devlev) {
		/* carrying the visited state: the whole set, both blocks, or the
		 * own block alone (carrying_own); use_bitmap[c] == 0: a list, its
		 * count first (the search knows a bound: b2_link_list) */
		const int from = carrying_own(k) ? k->g.j : 0;
		for (int c = 0; c < k->g.C; c++) {
			out[c] = (b2_msg){bmp_set(k, disc_set(k), carrying(k) ? from : c), c == k->g.j ? 0 : -1, 1};
			if (use_bitmap && !use_bitmap[c] && c != k->g.j) { /* never carrying */
				uint32_t *msg = k->dst + (size_t)c * (size_t)k->b;
				CU(cudaMemsetAsync(msg, 0, 4, k->st));
				int error = unpack(k, out[c].data, 0, msg + 1, NULL, msg, no_zero);
				if (error)
					return error;
				out[c] = (b2_msg){msg, -1, 0};
			}
		}
		return 0;
	}
	int copied = 0;
	for (int c = 0; c < k->g.C; c++) {
		uint32_t *h = k->h_dst + (size_t)c * (size_t)k->slotw;
		/* the step's kernels put the message into h (k_fold_to_host) from
		 * the level after the first that asked for host messages */
		const uint32_t *src = k->fold_copied ? h : use_bitmap[c] ? bmp_of(k, c) : fold_list(k, c);
		out[c].count = (int64_t)k->h_lc[c];
		out[c].bitmap = use_bitmap[c] > 0;
		out[c].data = peer ? (uint32_t *)src : h;
		if ((c == k->g.j && use_bitmap[c] < 0) || peer || src == h)
			continue;
		if (use_bitmap[c] || out[c].count) {
			CU(cudaMemcpyAsync(h, src, (size_t)(use_bitmap[c] ? k->bw : out[c].count) * 4,
			                   cudaMemcpyDeviceToHost, k->st));
			copied = 1;
		}
	}
	if (peer)
		return 0;
	k->fold_host = 1; /* from the next level on, expand writes the messages here */
	if (copied)
		CU(cudaStreamSynchronize(k->st));
	for (int c = 0; c < k->g.C; c++)
		if (use_bitmap[c] > 0)
			k->h_dst[(size_t)c * (size_t)k->slotw + (size_t)k->bw] = (uint32_t)k->h_lc[c];
	return 0;
}

/* What row peer c carried (a list or a bitmap of its block), into the
 * fold slot after the first part's room, then into the visited bitmap,
 * the carried rows and (1x2) the peer's levels. */
static int cu_carry_in(void *p, const b2_msg *m, int c, int lvl)
{
	cu_bk *k = (cu_bk *)p;
	b2_msg x = *m;
	int error = to_device(k, &x, in_slot(k, B2_DIR_FOLD, c) + k->bw + 1);
	if (error || !x.count)
		return error;
	const int64_t n = x.bitmap ? k->bw : x.count;
	k_carry<<<blocks_for(k, n), TPB, 0, k->st>>>(x.bitmap ? NULL : x.data, x.data, n,
	                                             (uint32_t)(c * k->b), k->vis, carried(k),
	                                             k->plevel, lvl);
	CU_LAUNCHED();
	return 0;
}

/* Where pred_local serves (cu_pred_local): after each level's update, the
 * predecessors of the level's vertices that the fold brought, from the
 * levels (k_pred_local, then the items it left to k_pred_rest), on the
 * side stream: they need only what this level and the ones before it
 * wrote, and run while the next levels' exchanges leave the GPU idle.
 * Nothing after a bottom-up step: on a grid of one row it finds only own
 * rows, their parents resolved (k_bottom_up), and the fold brings none. */
static int pred_level(cu_bk *k, int lvl)
{
	if (!k->side || k->step_dir == B2_BOTTOM_UP)
		return 0;
	uint64_t ch = (k->g.nnz + (uint64_t)k->b - 1) / (uint64_t)k->b;
	ch = ch > (uint64_t)PRED_CHUNK ? ch : (uint64_t)PRED_CHUNK;
	unsigned *nrest = counter(k, CT_REST + (lvl & 1));
	uint32_t *rest_x = k->rest, *rest_c = k->rest + k->nr;
	CU(cudaEventRecord(k->lvl_done, k->st));
	CU(cudaStreamWaitEvent(k->side, k->lvl_done, 0));
	k_pred_local<<<blocks_for(k, k->b), TPB, 0, k->side>>>(
		k->level, k->pred, k->plevel, k->colptr, k->rowidx, k->b, k->g.j, lvl, k->pred64, ch,
		rest_x, rest_c, nrest, counter(k, CT_REST + ((lvl + 1) & 1)));
	CU_LAUNCHED();
	k_pred_rest<<<k->grid, TPB, 0, k->side>>>(rest_x, rest_c, nrest, k->level, k->pred,
	                                          k->plevel, k->colptr, k->rowidx, k->b, k->g.j, ch,
	                                          k->pred64, k->ptrace ? counter(k, CT_REST_ALL) : NULL);
	CU_LAUNCHED();
	return 0;
}

/* What both updates' k_update_words hands the host at the level's end
 * (LevelStats, mapped), with the own visited block for the row peers'
 * bottom-up steps; degree and examined: the counters it sums into. */
static PullFold counting_fold(const cu_bk *k, unsigned long long *degree,
                              unsigned long long *examined)
{
	PullFold pf;
	memset(&pf, 0, sizeof pf);
	pf.count = counter(k, CT_PF_COUNT);
	pf.done = counter(k, CT_PF_DONE);
	pf.tdeg = front_tdeg(k);
	pf.degree = degree;
	pf.examined = examined;
	pf.host = k->d_ls;
	pf.vout = vis_wanted(k) ? vown_out(k) : NULL;
	pf.b = k->b;
	return pf;
}

/* Row peer c's discovery bitmap for grid column d of the level: read in
 * place (the row mapped), or in the own slot where a transport put it (the
 * whole set when the fold carries the visited state, else only d == j). */
static const uint32_t *peer_disc(const cu_bk *k, int c, int d)
{
	if (k->peer[B2_DIR_FOLD])
		return k->peer_bmp[B2_DIR_FOLD][c] + bmp_off(k, disc_set(k), d);
	return in_slot(k, B2_DIR_FOLD, c) + (carrying(k) ? (size_t)d * (size_t)(k->bw + 1) : 0);
}

/* The update of device levels: the row peers' discovery bitmaps for this
 * grid column, read in place once their signals came (the row mapped), or
 * from the own slots where a transport put them on the stream; hands the
 * level's counts to the host through mapped memory. Carrying the visited
 * state (C == 2, bottom-up), the peer's discoveries of its own block go
 * into the visited bitmap as well. */
static int pull_update(cu_bk *k, int lvl, b2_level_stats *st)
{
	const int C = k->g.C, j = k->g.j, cur = disc_set(k);
	const unsigned epoch = ++k->epoch;
	Sources src;
	int nsrc = 0;
	for (int c = 0; c < C && !carrying_own(k); c++) { /* carrying_own: none found here */
		if (c == j)
			continue;
		src.bmp[nsrc] = peer_disc(k, c, j);
		const b2_msg *m = &k->fold_in[c];
		if (!m->bitmap && m->count > 0) {
			/* a list message (b2_link_list; never a carrying fold): its
			 * count, then its bits into a bitmap in the slot's second
			 * half, which only a carrying fold uses */
			const uint32_t *msg = in_slot(k, B2_DIR_FOLD, c);
			uint32_t *bits = in_slot(k, B2_DIR_FOLD, c) + k->bw + 1;
			CU(cudaMemsetAsync(bits, 0, (size_t)k->bw * 4, k->st));
			k_set_bits<<<blocks_for(k, m->count), TPB, 0, k->st>>>(msg + 1, m->count - 1, 0,
			                                                       bits, msg);
			CU_LAUNCHED();
			src.bmp[nsrc] = bits;
		}
		src.tag[nsrc++] = (uint32_t)c;
	}
	if (ev_fold(k))
		CU(cudaEventRecord(level_events(k)[3], k->st));
	PullFold pf = counting_fold(k, k->lcur + C, k->lcur + C + 1);
	if (carrying(k)) {
		pf.carry = peer_disc(k, 1 - j, 1 - j);
		pf.carry_base = (uint32_t)((1 - j) * k->b);
		pf.carried = carrying_every(k) ? carried(k) : NULL;
		pf.plevel = carrying_every(k) ? k->plevel : NULL;
		pf.mine = pf.plevel ? bmp_set(k, cur, 1 - j) : NULL;
	}
	pf.flags = C > 1 && k->peer[B2_DIR_FOLD] ? k->flags : NULL;
	if (pf.flags)
		pf.sig = k->sig;
	pf.first = counter(k, CT_FIRST);
	pf.timer = counter(k, CT_TIMER);
	pf.n = C;
	pf.self = j;
	pf.epoch = epoch;
	pf.stamp = k->stamp + 2 * (lvl <= PULL_LEVELS ? lvl - 1 : PULL_LEVELS);
	pf.reset = counter(k, CT_GATHER);
	pf.seq = ++k->seq;
	k_update_words<<<blocks_for(k, k->bw), TPB, 0, k->st>>>(
		src, nsrc, k->bw, (uint32_t)(j * k->b), k->vis, k->level, k->pred, bmp_set(k, cur, j), lvl,
		pf);
	CU_LAUNCHED();
	int error = pred_level(k, lvl);
	if (!error)
		error = wait_counts(k, &k->h_ls->seq, pf.seq);
	if (error)
		return error;
	volatile LevelStats *ls = k->h_ls;
	st->front = k->nfront = (int64_t)ls->front;
	st->degree = (int64_t)ls->degree;
	st->examined = (int64_t)ls->examined;
	return 0;
}

/* Message levels' update: list messages one kernel each, then one
 * k_update_words over the bitmap messages that also counts the new
 * frontier and its degrees into mapped memory and, for the row peers'
 * bottom-up steps, writes the own visited block (into the pinned buffer
 * MPI sends, once a host transport asked for it). One wait, where there
 * were up to five operations and a copy. */
static int cu_update(void *p, int lvl, b2_level_stats *st)
{
	cu_bk *k = (cu_bk *)p;
	const int C = k->g.C, j = k->g.j;
	const uint32_t rowbase = (uint32_t)(j * k->b);
	Sources src;
	int nsrc = 0, any = 0;
	if (k->devlev)
		return pull_update(k, lvl, st);
	PullFold none;
	memset(&none, 0, sizeof none);
	for (int s = 0; s < C; s++) {
		const b2_msg *m = &k->in_msgs[s];
		if (s == k->self || m->count == 0)
			continue;
		any = 1;
		if (!m->bitmap) {
			k_update<<<blocks_for(k, m->count), TPB, 0, k->st>>>(
				m->data, m->count, rowbase, (uint32_t)s, k->vis, k->level, k->pred,
				bmp_of(k, j), lvl);
			CU_LAUNCHED();
			continue;
		}
		if (nsrc == PULL_MAX) { /* more bitmaps than one launch takes */
			k_update_words<<<blocks_for(k, k->bw), TPB, 0, k->st>>>(
				src, nsrc, k->bw, rowbase, k->vis, k->level, k->pred, bmp_of(k, j), lvl, none);
			CU_LAUNCHED();
			nsrc = 0;
		}
		src.bmp[nsrc] = m->data;
		src.tag[nsrc++] = (uint32_t)s;
	}
	/* the levels of the peer's rows found here (pred_level), where they
	 * are kept and some were */
	const int mine = k->side && k->h_lc[1 - j] > 0;
	/* nothing arrived and no row peer reads the visited block: the step's
	 * counts stand, and the device has no work */
	if (!any && !vis_wanted(k) && !mine) {
		st->front = k->nfront;
		st->degree = k->own_degree;
		return 0;
	}
	PullFold pf = counting_fold(k, k->dstat, k->dstat + 1);
	if (mine) {
		pf.mine = bmp_of(k, 1 - j);
		pf.plevel = k->plevel;
	}
	k_update_words<<<blocks_for(k, k->bw), TPB, 0, k->st>>>(
		src, nsrc, k->bw, rowbase, k->vis, k->level, k->pred, bmp_of(k, j), lvl, pf);
	CU_LAUNCHED();
	if (any) {
		int error = pred_level(k, lvl);
		if (error)
			return error;
	}
	/* the whole kernel, not wait_counts: its blocks may write the own
	 * visited block into pinned memory that MPI sends next */
	CU(cudaStreamSynchronize(k->st));
	volatile LevelStats *ls = k->h_ls;
	st->front = k->nfront = (int64_t)ls->front;
	st->degree = k->own_degree = (int64_t)ls->degree;
	return 0;
}

/* dst = the ascending list of bitmap bmp's bits (bw words); deg and cumul,
 * the expansion's scan arrays, are free after the levels and hold the
 * words' counts (popped: already there, word_pops()) and their scan. */
static uint32_t *word_pops(const cu_bk *k)
{
	return (uint32_t *)k->deg;
}
static int ordered_list(cu_bk *k, const uint32_t *bmp, uint32_t *dst, int popped = 0)
{
	uint32_t *pop = word_pops(k), *pref = (uint32_t *)k->cumul;
	size_t bytes = k->cubbytes;
	if (!popped) {
		k_word_pop<<<blocks_for(k, k->bw), TPB, 0, k->st>>>(bmp, k->bw, pop);
		CU_LAUNCHED();
	}
	CU(cub::DeviceScan::ExclusiveSum(k->cubtmp, bytes, pop, pref, k->bw, k->st));
	k_ordered<<<blocks_for(k, k->bw), TPB, 0, k->st>>>(bmp, k->bw, pref, dst);
	CU_LAUNCHED();
	return 0;
}

/* B2_TRACE_LEVELS: a point of the predecessor exchange on the stream; the
 * device time up to it is printed under `what` (pmark_print, rank 0). */
static void pmark(cu_bk *k, const char *what)
{
	if (!k->ptrace || k->npm >= PMARKS)
		return;
	if (!k->pm[k->npm] && cudaEventCreate(&k->pm[k->npm]) != cudaSuccess)
		return;
	k->pmname[k->npm] = what;
	if (cudaEventRecord(k->pm[k->npm], k->st) == cudaSuccess)
		k->npm++;
}

/* The first mark of a search's exchange is its start; a later entry point
 * marks the host's gap since the last one. */
static void pmark_enter(cu_bk *k)
{
	pmark(k, k->npm ? "(wait)" : "start");
}

static void pmark_print(cu_bk *k)
{
	float ms;
	if (k->ptrace && b2_rank == 0 && k->npm > 1 &&
	    cudaEventSynchronize(k->pm[k->npm - 1]) == cudaSuccess) {
		fprintf(stderr, "pred device");
		for (int x = 1; x < k->npm; x++)
			if (cudaEventElapsedTime(&ms, k->pm[x - 1], k->pm[x]) == cudaSuccess)
				fprintf(stderr, "  %s %.1f", k->pmname[x], ms * 1e3);
		fprintf(stderr, " us\n");
	}
	k->npm = 0;
}

/* The lean predecessor exchange (backend.h). The owner's requests to row
 * peer s: a bitmap over its b vertices (in discovery bitmap s of set 0,
 * free after the levels) or, when the list is smaller (the fold's rule,
 * fold_cap), the ascending list of those vertices; that list (dst + s*b)
 * is made either way and kept: the answers are applied through it. Counts
 * in lc. For a host transport (MPI) the bitmaps go to pinned memory before
 * their counts are known, one wait for both, and the lists are made
 * meanwhile. Answers in ans, for a host transport written straight into
 * pinned memory (h_recv). Requests and answers from a host transport are
 * read where they arrived (pinned memory); a device transport's are in
 * the fold slots. */
static int cu_pred_requests(void *p, int mem, b2_msg *out)
{
	cu_bk *k = (cu_bk *)p;
	int error = 0, lists = 0;
	const int C = k->g.C, j = k->g.j, host = mem == B2_MEM_HOST;
	if (!k->copied)
		CU(cudaEventCreateWithFlags(&k->copied, cudaEventDisableTiming));
	pmark_enter(k);
	CU(cudaMemsetAsync(k->lc, 0, (size_t)C * 8, k->st));
	k_pred_requests<<<blocks_for(k, k->b), TPB, (size_t)C * 8, k->st>>>(
		k->level, k->pred, k->b, k->g.R, k->g.i, j, k->pred64, k->lc, bmp_set(k, 0, 0),
		k->bw + 1, C);
	CU_LAUNCHED();
	pmark(k, "requests");
	CU(cudaMemcpyAsync(k->h_lc, k->lc, (size_t)C * 8, cudaMemcpyDeviceToHost, k->st));
	for (int c = 0; c < C && host && out; c++)
		if (c != j)
			CU(cudaMemcpyAsync(k->h_pred + (size_t)c * (size_t)k->slotw, bmp_set(k, 0, c),
			                   (size_t)k->bw * 4, cudaMemcpyDeviceToHost, k->st));
	CU(cudaEventRecord(k->copied, k->st));
	for (int c = 0; c < C; c++)
		if (c != j && (error = ordered_list(k, bmp_set(k, 0, c), k->dst + (size_t)c * (size_t)k->b)))
			return error;
	pmark(k, "copy+lists");
	if (!out) /* the lists only: the requests do not travel (their counts,
	             for pred_resolve's check, arrive meanwhile) */
		return 0;
	CU(cudaEventSynchronize(k->copied));
	for (int c = 0; c < C; c++) {
		const int64_t n = c == j ? 0 : (int64_t)k->h_lc[c];
		const int bitmap = n > k->o.fold_cap;
		uint32_t *d = bitmap ? bmp_set(k, 0, c) : k->dst + (size_t)c * (size_t)k->b;
		uint32_t *h = k->h_pred + (size_t)c * (size_t)k->slotw;
		out[c] = (b2_msg){host ? h : d, n, bitmap};
		if (host && bitmap)
			h[k->bw] = (uint32_t)n; /* MPI's bitmap messages end in it */
		if (host && n && !bitmap) {
			CU(cudaMemcpyAsync(h, d, (size_t)n * 4, cudaMemcpyDeviceToHost, k->st));
			lists = 1;
		}
	}
	if (lists)
		CU(cudaStreamSynchronize(k->st));
	return 0;
}

/* The row peers' requests answered: into ans, or straight into pinned host
 * memory for a host transport. A bitmap is answered in the order of its
 * bits, the order of the requester's list. in NULL: no requests came, each
 * peer's are the rows due to it (k_pred_due, in bitmap set 1, free with
 * message levels), answered in that order, their counts (lc) read back. */
static int cu_pred_answers(void *p, int mem, const b2_msg *in, b2_msg *out)
{
	cu_bk *k = (cu_bk *)p;
	int error = 0;
	const int C = k->g.C, j = k->g.j;
	unsigned long long *due = k->lc + C + 2; /* the second set: free after the levels */
	pmark_enter(k);
	if (!in)
		CU(cudaMemsetAsync(due, 0, (size_t)C * 8, k->st));
	for (int c = 0; c < C; c++) {
		uint32_t *a = (mem == B2_MEM_HOST ? k->h_recv : k->ans) + (size_t)c * (size_t)k->b;
		const uint32_t *pred = k->pred + (size_t)c * (size_t)k->b;
		const int64_t n = c == j || !in ? 0 : in[c].count;
		out[c] = (b2_msg){a, n, 0};
		if (c == j || (in && !n))
			continue;
		if (in && !in[c].bitmap) {
			k_pred_answers<<<blocks_for(k, n), TPB, 0, k->st>>>(in[c].data, n, NULL, pred, a);
			CU_LAUNCHED();
			continue;
		}
		const uint32_t *bmp = in ? in[c].data : bmp_set(k, 1, c);
		if (!in) {
			k_pred_due<<<blocks_for(k, k->b), TPB, 0, k->st>>>(
				k->vis, carried(k), (int64_t)c * k->b, k->b, bmp_set(k, 1, c), word_pops(k),
				due + c);
			CU_LAUNCHED();
		}
		/* the same ascending list the requester made (in front: free after
		 * the levels), then one answer per thread: coalesced writes, which
		 * matter when they go to pinned host memory */
		if ((error = ordered_list(k, bmp, k->front, !in)))
			return error;
		k_pred_answers<<<blocks_for(k, in ? n : k->b), TPB, 0, k->st>>>(
			k->front, n, in ? NULL : due + c, pred, a);
		CU_LAUNCHED();
	}
	pmark(k, "answers");
	if (!in)
		CU(cudaMemcpyAsync(k->h_lc + C + 3, due, (size_t)C * 8, cudaMemcpyDeviceToHost, k->st));
	CU(cudaStreamSynchronize(k->st));
	for (int c = 0; c < C && !in; c++)
		out[c].count = c == j ? 0 : (int64_t)k->h_lc[C + 3 + c];
	return 0;
}

/* in: the answers to the requests pred_requests made, applied through the
 * request lists, read where they arrived. NULL: the whole resolution here,
 * reading the row peers' predecessors in place when the row is mapped
 * (with C == 1 nothing is remote). */
static int cu_pred_resolve(void *p, const b2_msg *in)
{
	cu_bk *k = (cu_bk *)p;
	const int j = k->g.j;
	pmark_enter(k);
	if (in) {
		for (int s = 0; s < k->g.C; s++) {
			const b2_msg m = in[s];
			if (s == j || !m.count)
				continue;
			if (m.count > k->b)
				break; /* not asked for: the check below says so */
			k_pred_apply<<<blocks_for(k, m.count), TPB, 0, k->st>>>(
				k->dst + (size_t)s * (size_t)k->b, m.data, m.count,
				(int64_t)s * k->b * k->g.R, k->pred64);
			CU_LAUNCHED();
		}
		pmark(k, "apply");
		CU(cudaStreamSynchronize(k->st));
		pmark_print(k);
		for (int s = 0; s < k->g.C; s++)
			if (s != j && in[s].count != (int64_t)k->h_lc[s])
				return b2_err(B2_EFAIL_, "internal: row peer %d answered %lld predecessors, "
				              "%lld were asked", s, (long long)in[s].count,
				              (long long)k->h_lc[s]);
		return 0;
	}
	if (k->g.C > PULL_MAX && k->peer[B2_DIR_FOLD])
		return b2_err(B2_EFAIL_, "internal: in-place predecessors on a row of %d ranks", k->g.C);
	Sources peers;
	memset(&peers, 0, sizeof peers);
	for (int c = 0; c < k->g.C && k->peer[B2_DIR_FOLD]; c++)
		if (c != j)
			peers.bmp[c] = k->peer_pred[c] + (size_t)j * (size_t)k->b;
	/* after pred_local (a row not mapped) every remote one must be
	 * resolved: counted; read in place (or C == 1) none can be left */
	unsigned *unresolved = k->g.C > 1 && !k->peer[B2_DIR_FOLD] ? counter(k, CT_UNRESOLVED) : NULL;
	if (unresolved)
		CU(cudaMemsetAsync(unresolved, 0, 4, k->st));
	k_resolve<<<blocks_for(k, k->b), TPB, 0, k->st>>>(k->level, k->pred, peers, k->b, k->g.R,
	                                                  k->g.i, j, k->pred64, unresolved);
	CU_LAUNCHED();
	pmark(k, "resolve");
	if (unresolved)
		CU(cudaMemcpyAsync(k->h_dsum, unresolved, 4, cudaMemcpyDeviceToHost, k->st));
	CU(cudaStreamSynchronize(k->st));
	pmark_print(k);
	if (unresolved && *(const unsigned *)k->h_dsum)
		return b2_err(B2_EFAIL_, "internal: %u predecessors neither resolved nor readable",
		              *(const unsigned *)k->h_dsum);
	return 0;
}

/* 1x2, every fold carried the visited state: the fold's predecessors from
 * the levels, all of them, found level by level on the side stream
 * (pred_level); here the levels' stream waits for that work. The rest
 * items per level: ceil((len - B2_PRED_SCAN) / ch) per vertex left, at
 * most b + nnz / ch <= 2b = nr of them with ch >= nnz / b. */
static int cu_pred_local(void *p)
{
	cu_bk *k = (cu_bk *)p;
	if (!k->side)
		return b2_err(B2_EFAIL_, "internal: predecessors from the levels on a %dx%d grid",
		              k->g.R, k->g.C);
	pmark_enter(k);
	CU(cudaEventRecord(k->side_done, k->side));
	CU(cudaStreamWaitEvent(k->st, k->side_done, 0));
	pmark(k, "side");
	if (k->ptrace && b2_rank == 0) { /* how many chunks the first scans left */
		unsigned n = 0;
		CU(cudaStreamSynchronize(k->side));
		CU(cudaMemcpy(&n, counter(k, CT_REST_ALL), 4, cudaMemcpyDeviceToHost));
		fprintf(stderr, "pred rest %u chunks\n", n);
	}
	return 0;
}

/* ---- what transports address or map -------------------------------------- */

static int cu_regions(void *p, b2_regions *r)
{
	cu_bk *k = (cu_bk *)p;
	memset(r, 0, sizeof *r);
	r->share[B2_SHARE_RECV] = k->in;
	r->share[B2_SHARE_BMP] = k->bmp;
	r->share[B2_SHARE_PRED] = k->pred;
	r->slot[B2_DIR_EXPAND] = in_slot(k, B2_DIR_EXPAND, 0);
	r->slot[B2_DIR_FOLD] = in_slot(k, B2_DIR_FOLD, 0);
	r->slotw = k->slotw;
	r->stream = (void *)k->st;
	r->device = k->o.device;
	return 0;
}

/* The peers of exchange dir, mapped by the transport: read in place from
 * now on; n == 0 forgets them (the transport unmaps). */
static int cu_peers(void *p, int dir, int n, int me, const b2_regions *peer)
{
	cu_bk *k = (cu_bk *)p;
	free(k->peer_in[dir]);
	free(k->peer_bmp[dir]);
	k->peer_in[dir] = k->peer_bmp[dir] = NULL;
	if (dir == B2_DIR_FOLD) {
		free(k->peer_pred);
		k->peer_pred = NULL;
		memset(&k->sig, 0, sizeof k->sig);
	}
	k->peer[dir] = 0;
	k->npeer[dir] = 0;
	if (n == 0)
		return 0;
	k->peer_in[dir] = (uint32_t **)calloc((size_t)n, sizeof(uint32_t *));
	k->peer_bmp[dir] = (uint32_t **)calloc((size_t)n, sizeof(uint32_t *));
	if (dir == B2_DIR_FOLD)
		k->peer_pred = (uint32_t **)calloc((size_t)n, sizeof(uint32_t *));
	if (!k->peer_in[dir] || !k->peer_bmp[dir] || (dir == B2_DIR_FOLD && !k->peer_pred))
		return b2_err(B2_EIO_, "out of host memory");
	for (int q = 0; q < n; q++) {
		if (q == me)
			continue;
		k->peer_in[dir][q] = (uint32_t *)peer[q].share[B2_SHARE_RECV];
		k->peer_bmp[dir][q] = (uint32_t *)peer[q].share[B2_SHARE_BMP];
		if (dir == B2_DIR_FOLD)
			k->peer_pred[q] = (uint32_t *)peer[q].share[B2_SHARE_PRED];
	}
	if (dir == B2_DIR_FOLD && n <= PULL_MAX)
		for (int q = 0; q < n; q++)
			k->sig.to[q] = q == me ? NULL : k->peer_in[dir][q] + flags_off(k) + me;
	k->npeer[dir] = n;
	k->peer[dir] = 1;
	return 0;
}

/* The phases of the last search's nlev device levels (backend.h): the
 * update's wait (the fold exchange where read in place) and the rest by
 * the GPU clock; the expand exchange with the column's gather (R > 1) and
 * a transport's fold on the stream by events; the expansion is the rest of
 * the level's busy time (its launches included). */
static int cu_level_phases(void *p, int nlev, const double *busy, double *lv)
{
	cu_bk *k = (cu_bk *)p;
	int nw = nlev < PULL_LEVELS ? nlev : PULL_LEVELS;
	if (nw > 0)
		CU(cudaMemcpy(k->h_stamp, k->stamp, (size_t)nw * 16, cudaMemcpyDeviceToHost));
	for (int l = 0; l < nlev; l++) {
		const cudaEvent_t *ev = k->ev + (size_t)l * PULL_EV;
		const int timed = (l + 1) * PULL_EV <= k->nev;
		float xexp = 0, xfold = 0;
		if (timed && ev_gather(k))
			CU(cudaEventElapsedTime(&xexp, ev[0], ev[1]));
		if (timed && ev_fold(k))
			CU(cudaEventElapsedTime(&xfold, ev[2], ev[3]));
		double *t = lv + (size_t)l * 4;
		t[0] = xexp * 1e-3;
		t[2] = xfold * 1e-3 + (l < nw ? k->h_stamp[2 * l] * 1e-9 : 0);
		/* with C == 1 the update only counts: the expansion's part, as
		 * in message mode */
		t[3] = l < nw && k->g.C > 1 ? k->h_stamp[2 * l + 1] * 1e-9 : 0;
		t[1] = busy[l] - t[0] - t[2] - t[3];
		t[1] = t[1] > 0 ? t[1] : 0;
	}
	return 0;
}

static int cu_pred(void *p, int64_t *out)
{
	cu_bk *k = (cu_bk *)p;
	CU(cudaMemcpy(out, k->pred64, (size_t)k->b * 8, cudaMemcpyDeviceToHost));
	return 0;
}

static int cu_degree_sum(void *p, int64_t *sum)
{
	cu_bk *k = (cu_bk *)p;
	CU(cudaMemsetAsync(k->dsum, 0, 8, k->st));
	k_degsum<<<blocks_for(k, k->b), TPB, 0, k->st>>>(k->level, k->tdeg, k->b, k->dsum);
	CU_LAUNCHED();
	CU(cudaMemcpyAsync(k->h_dsum, k->dsum, 8, cudaMemcpyDeviceToHost, k->st));
	CU(cudaStreamSynchronize(k->st));
	*sum = (int64_t)*k->h_dsum;
	return 0;
}

extern "C" {
const b2_backend b2_cuda_backend = {
	"cuda", cu_create, cu_destroy, cu_host_alloc, cu_host_free, cu_begin, cu_front_msg,
	cu_stage_in, cu_visited_bufs, cu_visited_in, cu_expand, cu_fold_msgs, cu_carry_in, cu_update,
	cu_pred_requests, cu_pred_answers, cu_pred_resolve, cu_pred_local, cu_pred,
	cu_degree_sum, cu_regions,
	cu_peers, cu_device_levels, cu_level_phases,
};

int b2_cuda_device_count(void)
{
	int n = 0;
	if (cudaGetDeviceCount(&n) != cudaSuccess) {
		cudaGetLastError();
		return 0;
	}
	return n;
}

int b2_cuda_device_name(int d, char *name, size_t n)
{
	cudaDeviceProp prop;
	if (cudaGetDeviceProperties(&prop, d) != cudaSuccess)
		return b2_err(B2_EIO_, "cannot query CUDA device %d", d);
	snprintf(name, n, "%s", prop.name);
	return 0;
}

}

/* Provenance (main.c, write_run_facts): the CUDA driver and runtime
 * versions, as CUDA gives them (1000 * major + 10 * minor); 0 when unknown. */
extern "C" void b2_cuda_versions(int *driver, int *runtime)
{
	if (cudaDriverGetVersion(driver) != cudaSuccess) {
		cudaGetLastError();
		*driver = 0;
	}
	if (cudaRuntimeGetVersion(runtime) != cudaSuccess) {
		cudaGetLastError();
		*runtime = 0;
	}
}
