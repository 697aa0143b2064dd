/* cuda.cu — the CUDA backend of bfs-gpu: the paper's kernels (section 3.4
 * frontier expansion with one thread per frontier edge and k edges per
 * thread, section 3.5 frontier update, section 5 bitmap packing fused into
 * both and warp-level unpacking). All search state lives on the device; the
 * host sees only message data (pinned staging buffers) and counts.
 *
 * Per level (search.c drives): gather the column's frontier into `af`
 * (own frontier + received lists/bitmaps), degrees -> exclusive scan (CUB),
 * expansion kernel (binary search once per thread for the base column,
 * K consecutive edges, interleaved independent loads, test-then-atomicOr on
 * the visited bitmap, discovered vertices appended per destination grid
 * column through warp-aggregated atomic counters), then the update kernel
 * over what the fold brought. */
#include <cuda_runtime.h>
#include <cub/cub.cuh>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#ifndef B2_HAVE_CUDA
#define B2_HAVE_CUDA /* this file is the CUDA build */
#endif
#include "backend.h"

/* common/b2.h pulls in mpi.h, which nvcc is not given: the few things used
 * here are declared again (same signatures as b2.h). */
extern "C" int b2_err(int code, const char *fmt, ...);
enum { B2_EFAIL_ = 1, B2_EIO_ = 4 };

#define CU(call)                                                                              \
	do {                                                                                      \
		cudaError_t e_ = (call);                                                              \
		if (e_ != cudaSuccess)                                                                \
			return b2_err(B2_EFAIL_, "CUDA error: %s (%s, %s:%d)", cudaGetErrorString(e_),  \
			              #call, __FILE__, __LINE__);                                          \
	} while (0)
#define CU_LAUNCHED() CU(cudaGetLastError())

#define FULL 0xffffffffu
enum { TPB = 256 };

/* ---- kernels ------------------------------------------------------------ */

__global__ void k_begin(uint32_t *vis, int32_t *level, uint32_t *front, uint32_t *fbmp,
                        uint64_t r, uint32_t k)
{
	vis[r >> 5] |= 1u << (r & 31);
	level[k] = 0;
	front[0] = k;
	if (fbmp)
		fbmp[k >> 5] |= 1u << (k & 31);
}

/* dst[x] = src[x] + off: a received list (or the own frontier) as local columns */
__global__ void k_gather(const uint32_t *__restrict__ src, int64_t n, uint32_t off,
                         uint32_t *__restrict__ dst)
{
	for (int64_t x = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; x < n;
	     x += (int64_t)gridDim.x * blockDim.x)
		dst[x] = __ldg(&src[x]) + off;
}

/* Warp-level bitmap unpacking: one word per lane, popcounts scanned with
 * shuffles, one atomic per warp for the output position. */
__global__ void k_unpack(const uint32_t *__restrict__ bmp, int64_t nwords, uint32_t off,
                         uint32_t *__restrict__ dst, unsigned *counter)
{
	const int lane = threadIdx.x & 31;
	const int64_t stride = (int64_t)gridDim.x * blockDim.x;
	for (int64_t wb = (int64_t)blockIdx.x * blockDim.x + (threadIdx.x & ~31); wb < nwords;
	     wb += stride) {
		int64_t w = wb + lane;
		uint32_t word = w < nwords ? __ldg(&bmp[w]) : 0;
		unsigned c = __popc(word), incl = c;
#pragma unroll
		for (int d = 1; d < 32; d <<= 1) {
			unsigned y = __shfl_up_sync(FULL, incl, d);
			if (lane >= d)
				incl += y;
		}
		unsigned total = __shfl_sync(FULL, incl, 31), base = 0;
		if (total == 0)
			continue;
		if (lane == 0)
			base = atomicAdd(counter, total);
		base = __shfl_sync(FULL, base, 0);
		unsigned pos = base + incl - c;
		while (word) {
			int bit = __ffs(word) - 1;
			word &= word - 1;
			dst[pos++] = (uint32_t)(w * 32 + bit) + off;
		}
	}
}

__global__ void k_degree(const uint32_t *__restrict__ af, int64_t n,
                         const uint64_t *__restrict__ colptr, uint64_t *__restrict__ deg)
{
	for (int64_t x = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; x <= n;
	     x += (int64_t)gridDim.x * blockDim.x) {
		if (x == n) {
			deg[x] = 0;
		} else {
			uint32_t u = __ldg(&af[x]);
			deg[x] = __ldg(&colptr[u + 1]) - __ldg(&colptr[u]);
		}
	}
}

struct ExpandArgs {
	const uint64_t *colptr;
	const uint32_t *rowidx;
	const uint32_t *af;
	const uint64_t *cumul;
	int64_t n;
	uint32_t *vis, *pred, *front, *dst, *bmp;
	int32_t *level;
	unsigned *cnt;
	uint32_t b;
	uint64_t bw1;
	uint32_t j;
	unsigned cap;
	int pack_front, pack_fold, lvl;
};

static __device__ __forceinline__ unsigned lanemask_lt()
{
	unsigned m;
	asm("mov.u32 %0, %%lanemask_lt;" : "=r"(m));
	return m;
}

/* Appends vertex r (found from local column u) to its destination grid
 * column's list and bitmap; f says whether this lane found one. Warp-uniform
 * call: lanes going to the same column share one atomicAdd. */
static __device__ __forceinline__ void discover(const ExpandArgs &a, bool f, uint32_t r,
                                                uint32_t u)
{
	unsigned fm = __ballot_sync(FULL, f);
	if (!f)
		return;
	uint32_t c = r / a.b, kk = r - c * a.b;
	a.pred[r] = u;
	unsigned peers = __match_any_sync(fm, c);
	int leader = __ffs(peers) - 1;
	unsigned base = 0;
	if ((int)(threadIdx.x & 31) == leader)
		base = atomicAdd(&a.cnt[c], (unsigned)__popc(peers));
	base = __shfl_sync(peers, base, leader);
	unsigned off = base + __popc(peers & lanemask_lt());
	if (c == a.j) {
		a.level[kk] = a.lvl;
		a.front[off] = kk;
		if (a.pack_front)
			atomicOr(&a.bmp[c * a.bw1 + (kk >> 5)], 1u << (kk & 31));
	} else {
		if (off < a.cap)
			a.dst[(uint64_t)c * a.b + off] = kk;
		if (a.pack_fold)
			atomicOr(&a.bmp[c * a.bw1 + (kk >> 5)], 1u << (kk & 31));
	}
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

/* Frontier expansion (paper's Algorithm 4 with the section 3.4.1
 * optimizations): thread t of a block handles K consecutive frontier edges;
 * a binary search in the cumulative degrees gives its base column once,
 * later edges advance it linearly; each step is done for the K edges before
 * the next (independent loads in flight together). The binary searches are
 * narrowed to the columns of the block's edge range, which the first warp
 * finds first (so they stay in a few cache lines). The loop is block-
 * uniform, so the warp-level appends are safe. */
template <int K>
__global__ void __launch_bounds__(TPB) k_expand(ExpandArgs a)
{
	__shared__ int64_t range[2];
	const uint64_t total = __ldg(&a.cumul[a.n]);
	const int lane = threadIdx.x & 31;
	for (uint64_t blk = blockIdx.x; blk * (uint64_t)(TPB * K) < total; blk += gridDim.x) {
		const uint64_t E0 = blk * (uint64_t)(TPB * K);
		const uint64_t E1 = (E0 + TPB * K < total ? E0 + TPB * K : total) - 1;
		if (threadIdx.x < 32) {
			const int64_t c0 = warp_search(a.cumul, 0, a.n - 1, E0, lane);
			const int64_t c1 = warp_search(a.cumul, c0, a.n - 1, E1, lane);
			if (lane == 0) {
				range[0] = c0;
				range[1] = c1;
			}
		}
		__syncthreads();
		const uint64_t e0 = E0 + (uint64_t)threadIdx.x * K;
		const uint64_t es = e0 < total ? e0 : total - 1;
		int64_t lo = range[0], hi = range[1];
		__syncthreads(); /* range is rewritten in the next round */
		while (lo < hi) {
			int64_t mid = (lo + hi + 1) >> 1;
			if (__ldg(&a.cumul[mid]) <= es)
				lo = mid;
			else
				hi = mid - 1;
		}
		int64_t idx = lo;
		uint64_t cur = __ldg(&a.cumul[idx]), nxt = __ldg(&a.cumul[idx + 1]);
		uint32_t u[K], r[K], w[K];
		uint64_t pos[K];
		bool ok[K];
#pragma unroll
		for (int k = 0; k < K; k++) {
			const uint64_t e = e0 + k;
			ok[k] = e < total;
			if (ok[k]) {
				while (e >= nxt) {
					idx++;
					cur = nxt;
					nxt = __ldg(&a.cumul[idx + 1]);
				}
			}
			u[k] = __ldg(&a.af[idx]);
			pos[k] = ok[k] ? e - cur : 0;
		}
#pragma unroll
		for (int k = 0; k < K; k++)
			pos[k] += __ldg(&a.colptr[u[k]]);
#pragma unroll
		for (int k = 0; k < K; k++)
			r[k] = ok[k] ? __ldg(&a.rowidx[pos[k]]) : 0;
#pragma unroll
		for (int k = 0; k < K; k++)
			w[k] = ok[k] ? *(volatile uint32_t *)&a.vis[r[k] >> 5] : FULL;
#pragma unroll
		for (int k = 0; k < K; k++) {
			const uint32_t m = 1u << (r[k] & 31);
			bool f = false;
			if (!(w[k] & m))
				f = !(atomicOr(&a.vis[r[k] >> 5], m) & m);
			discover(a, f, r[k], u[k]);
		}
	}
}

/* Frontier update (section 3.5): one thread per received vertex; the
 * predecessor is provisionally the sender's grid column. */
__global__ void __launch_bounds__(TPB)
k_update(const uint32_t *__restrict__ list, int64_t n, uint32_t rowbase, uint32_t sender,
         uint32_t *vis, int32_t *level, uint32_t *pred, uint32_t *front, unsigned *cnt,
         uint32_t *fbmp, int lvl)
{
	const int lane = threadIdx.x & 31;
	const int64_t stride = (int64_t)gridDim.x * blockDim.x;
	for (int64_t wb = (int64_t)blockIdx.x * blockDim.x + (threadIdx.x & ~31); wb < n;
	     wb += stride) {
		const int64_t x = wb + lane;
		bool f = false;
		uint32_t kk = 0;
		if (x < n) {
			kk = __ldg(&list[x]);
			const uint32_t r = rowbase + kk, m = 1u << (r & 31);
			if (!(*(volatile uint32_t *)&vis[r >> 5] & m))
				f = !(atomicOr(&vis[r >> 5], m) & m);
			if (f) {
				level[kk] = lvl;
				pred[r] = B2_PRED_REMOTE | sender;
			}
		}
		unsigned fm = __ballot_sync(FULL, f);
		if (!fm)
			continue;
		unsigned base = 0;
		int leader = __ffs(fm) - 1;
		if (lane == leader)
			base = atomicAdd(cnt, (unsigned)__popc(fm));
		base = __shfl_sync(FULL, base, leader);
		if (f) {
			front[base + __popc(fm & lanemask_lt())] = kk;
			if (fbmp)
				atomicOr(&fbmp[kk >> 5], 1u << (kk & 31));
		}
	}
}

/* Deferred predecessors into global ids: recv[s*b + k] is the local column
 * that sender s recorded for owned vertex k. */
__global__ void k_resolve(const int32_t *__restrict__ level, const uint32_t *__restrict__ pred,
                          const uint32_t *__restrict__ recv, int64_t b, int64_t R, int64_t i,
                          int64_t j, int64_t *__restrict__ out)
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
			if (q & B2_PRED_REMOTE) {
				const int64_t s = q & ~B2_PRED_REMOTE;
				p = s * b * R + recv[s * b + x];
			} else
				p = j * b * R + q;
		}
		out[x] = p;
	}
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
	int nslots, self, nsm, grid;
	cudaStream_t st;
	/* device */
	uint64_t *colptr, *deg, *cumul;
	uint32_t *rowidx, *vis, *pred, *front, *dst, *bmp, *af, *in;
	int32_t *level;
	int64_t *tdeg, *pred64;
	unsigned *cnt, *tmpcnt;
	unsigned long long *dsum;
	void *cubtmp;
	size_t cubbytes;
	/* pinned host */
	uint32_t *h_front, *h_dst, *h_pred, *h_recv;
	unsigned *h_cnt;
	unsigned long long *h_dsum;
	int64_t nfront;
	b2_msg *in_msgs;
};

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

static void cu_destroy(void *p)
{
	cu_bk *k = (cu_bk *)p;
	if (!k)
		return;
	void *dev[] = {k->colptr, k->deg, k->cumul, k->rowidx, k->vis, k->pred, k->front, k->dst,
	               k->bmp, k->af, k->in, k->level, k->tdeg, k->pred64, k->cnt, k->tmpcnt,
	               k->dsum, k->cubtmp};
	for (size_t x = 0; x < sizeof dev / sizeof dev[0]; x++)
		if (dev[x])
			cudaFree(dev[x]);
	void *host[] = {k->h_front, k->h_dst, k->h_pred, k->h_recv, k->h_cnt, k->h_dsum};
	for (size_t x = 0; x < sizeof host / sizeof host[0]; x++)
		cu_host_free(host[x]);
	if (k->st)
		cudaStreamDestroy(k->st);
	free(k->in_msgs);
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

static int cu_create(void **out, const b2_graph *g, const b2_bkopts *o)
{
	int error = 0;
	size_t fre = 0, tot = 0, need;
	cudaDeviceProp prop;
	cu_bk *k = (cu_bk *)calloc(1, sizeof *k);
	if (!k)
		return b2_err(B2_EIO_, "out of host memory");
	k->g = *g;
	k->o = *o;
	k->b = g->b;
	k->bw = b2_bmp_words(g->b);
	k->nr = g->b * g->C;
	k->nc = g->b * g->R;
	k->slotw = b2_msg_words(g->b);
	k->nslots = g->R > g->C ? g->R : g->C;
	k->in_msgs = (b2_msg *)calloc((size_t)k->nslots, sizeof(b2_msg));
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
	if (cub::DeviceScan::ExclusiveSum(NULL, k->cubbytes, (uint64_t *)NULL, (uint64_t *)NULL,
	                                  (int64_t)(k->nc + 1)) != cudaSuccess) {
		error = b2_err(B2_EFAIL_, "CUB scan set-up failed");
		goto done;
	}
	need = (size_t)(k->nc + 1) * 8 * 3 + g->nnz * 4 + (size_t)k->b * (8 + 4 + 4 + 8) +
	       (size_t)k->nr * (4 + 4) + (size_t)b2_bmp_words(k->nr) * 4 +
	       (size_t)g->C * (size_t)(k->bw + 1) * 4 + (size_t)k->nc * 4 +
	       (size_t)k->nslots * (size_t)k->slotw * 4 + k->cubbytes + (64u << 20);
	cudaMemGetInfo(&fre, &tot);
	if (need > fre) {
		error = b2_err(B2_EIO_, "not enough device memory on GPU %d (%s): the graph and search state need %.2f GiB, %.2f GiB are free of %.2f GiB",
		               o->device, prop.name, need / 1073741824.0, fre / 1073741824.0,
		               tot / 1073741824.0);
		goto done;
	}
	if (cudaStreamCreateWithFlags(&k->st, cudaStreamNonBlocking) != cudaSuccess) {
		error = b2_err(B2_EFAIL_, "cannot create a CUDA stream");
		goto done;
	}
	DALLOC(k->colptr, (size_t)(k->nc + 1) * 8);
	DALLOC(k->rowidx, g->nnz * 4);
	DALLOC(k->tdeg, (size_t)k->b * 8);
	DALLOC(k->vis, (size_t)b2_bmp_words(k->nr) * 4);
	DALLOC(k->level, (size_t)k->b * 4);
	DALLOC(k->pred, (size_t)k->nr * 4);
	DALLOC(k->front, (size_t)k->b * 4);
	DALLOC(k->dst, (size_t)k->nr * 4);
	DALLOC(k->bmp, (size_t)g->C * (size_t)(k->bw + 1) * 4);
	DALLOC(k->af, (size_t)k->nc * 4);
	DALLOC(k->deg, (size_t)(k->nc + 1) * 8);
	DALLOC(k->cumul, (size_t)(k->nc + 1) * 8);
	DALLOC(k->in, (size_t)k->nslots * (size_t)k->slotw * 4);
	DALLOC(k->pred64, (size_t)k->b * 8);
	DALLOC(k->cnt, (size_t)g->C * 4);
	DALLOC(k->tmpcnt, 4);
	DALLOC(k->dsum, 8);
	DALLOC(k->cubtmp, k->cubbytes);
	HALLOC(k->h_front, (size_t)k->slotw * 4);
	HALLOC(k->h_dst, (size_t)g->C * (size_t)k->slotw * 4);
	HALLOC(k->h_pred, (size_t)k->nr * 4);
	HALLOC(k->h_recv, (size_t)k->nr * 4);
	HALLOC(k->h_cnt, (size_t)g->C * 4);
	HALLOC(k->h_dsum, 8);
	if (cudaMemcpy(k->colptr, g->col_ptr, (size_t)(k->nc + 1) * 8, cudaMemcpyHostToDevice) != cudaSuccess ||
	    cudaMemcpy(k->rowidx, g->row_idx, g->nnz * 4, cudaMemcpyHostToDevice) != cudaSuccess ||
	    cudaMemcpy(k->tdeg, g->tdeg, (size_t)k->b * 8, cudaMemcpyHostToDevice) != cudaSuccess) {
		error = b2_err(B2_EFAIL_, "cannot copy the graph to GPU %d", o->device);
		goto done;
	}
	*out = k;
	k = NULL;
done:
	cu_destroy(k);
	return error;
}

static int cu_begin(void *p, int64_t root_k)
{
	cu_bk *k = (cu_bk *)p;
	uint32_t *fbmp = k->o.pack_front ? k->bmp + (size_t)k->g.j * (size_t)(k->bw + 1) : NULL;
	CU(cudaMemsetAsync(k->vis, 0, (size_t)b2_bmp_words(k->nr) * 4, k->st));
	CU(cudaMemsetAsync(k->level, 0xff, (size_t)k->b * 4, k->st));
	if (fbmp)
		CU(cudaMemsetAsync(fbmp, 0, (size_t)k->bw * 4, k->st));
	k->nfront = 0;
	if (root_k >= 0) {
		k_begin<<<1, 1, 0, k->st>>>(k->vis, k->level, k->front, fbmp,
		                            (uint64_t)k->g.j * (uint64_t)k->b + (uint64_t)root_k,
		                            (uint32_t)root_k);
		CU_LAUNCHED();
		k->nfront = 1;
	}
	return 0;
}

static int cu_front_msg(void *p, int bitmap, b2_msg *m)
{
	cu_bk *k = (cu_bk *)p;
	m->count = k->nfront;
	m->bitmap = bitmap;
	m->data = k->h_front;
	if (bitmap)
		CU(cudaMemcpyAsync(k->h_front, k->bmp + (size_t)k->g.j * (size_t)(k->bw + 1),
		                   (size_t)k->bw * 4, cudaMemcpyDeviceToHost, k->st));
	else if (k->nfront)
		CU(cudaMemcpyAsync(k->h_front, k->front, (size_t)k->nfront * 4, cudaMemcpyDeviceToHost,
		                   k->st));
	CU(cudaStreamSynchronize(k->st));
	if (bitmap)
		k->h_front[k->bw] = (uint32_t)k->nfront;
	return 0;
}

static int cu_stage_in(void *p, const b2_msg *in, int nslots, int self)
{
	cu_bk *k = (cu_bk *)p;
	int any = 0;
	k->self = self;
	for (int s = 0; s < nslots; s++) {
		k->in_msgs[s] = in[s];
		k->in_msgs[s].data = k->in + (size_t)s * (size_t)k->slotw;
		if (s == self)
			continue;
		int64_t words = in[s].bitmap ? k->bw : in[s].count;
		if (words > 0 && (in[s].bitmap ? in[s].count > 0 : 1)) {
			CU(cudaMemcpyAsync(k->in_msgs[s].data, in[s].data, (size_t)words * 4,
			                   cudaMemcpyHostToDevice, k->st));
			any = 1;
		}
	}
	for (int s = nslots; s < k->nslots; s++)
		k->in_msgs[s].count = 0;
	if (any)
		CU(cudaStreamSynchronize(k->st));
	return 0;
}

static int blocks_for(const cu_bk *k, int64_t n)
{
	int64_t g = (n + TPB - 1) / TPB;
	return g < 1 ? 1 : g > k->grid ? k->grid : (int)g;
}

/* Appends staged message s to dst (as k + off); returns the count. */
static int append_msg(cu_bk *k, const b2_msg *m, uint32_t off, uint32_t *dst)
{
	if (m->count == 0)
		return 0;
	if (m->bitmap) {
		CU(cudaMemsetAsync(k->tmpcnt, 0, 4, k->st));
		k_unpack<<<blocks_for(k, k->bw), TPB, 0, k->st>>>(m->data, k->bw, off, dst, k->tmpcnt);
	} else {
		k_gather<<<blocks_for(k, m->count), TPB, 0, k->st>>>(m->data, m->count, off, dst);
	}
	CU_LAUNCHED();
	return 0;
}

template <int K>
static int launch_expand(cu_bk *k, const ExpandArgs &a)
{
	k_expand<K><<<k->grid, TPB, 0, k->st>>>(a);
	CU_LAUNCHED();
	return 0;
}

static int cu_expand(void *p, int lvl, int64_t *cnt_out)
{
	cu_bk *k = (cu_bk *)p;
	int error = 0;
	const int C = k->g.C, j = k->g.j;
	int64_t n = 0;
	b2_msg own = {k->front, k->nfront, 0};
	if ((error = append_msg(k, &own, (uint32_t)(k->g.i * k->b), k->af)))
		return error;
	n = k->nfront;
	for (int s = 0; s < k->g.R; s++) {
		if (s == k->self)
			continue;
		if ((error = append_msg(k, &k->in_msgs[s], (uint32_t)(s * k->b), k->af + n)))
			return error;
		n += k->in_msgs[s].count;
	}
	CU(cudaMemsetAsync(k->cnt, 0, (size_t)C * 4, k->st));
	for (int c = 0; c < C; c++)
		if (c == j ? k->o.pack_front : k->o.pack_fold)
			CU(cudaMemsetAsync(k->bmp + (size_t)c * (size_t)(k->bw + 1), 0, (size_t)k->bw * 4,
			                   k->st));
	if (n > 0) {
		k_degree<<<blocks_for(k, n + 1), TPB, 0, k->st>>>(k->af, n, k->colptr, k->deg);
		CU_LAUNCHED();
		size_t bytes = k->cubbytes;
		CU(cub::DeviceScan::ExclusiveSum(k->cubtmp, bytes, k->deg, k->cumul, (int64_t)(n + 1),
		                                 k->st));
		ExpandArgs a;
		a.colptr = k->colptr; a.rowidx = k->rowidx; a.af = k->af; a.cumul = k->cumul; a.n = n;
		a.vis = k->vis; a.pred = k->pred; a.front = k->front; a.dst = k->dst; a.bmp = k->bmp;
		a.level = k->level; a.cnt = k->cnt; a.b = (uint32_t)k->b; a.bw1 = (uint64_t)(k->bw + 1);
		a.j = (uint32_t)j; a.cap = (unsigned)k->o.fold_cap; a.pack_front = k->o.pack_front;
		a.pack_fold = k->o.pack_fold; a.lvl = lvl;
		switch (k->o.edges_per_thread) {
		case 1: error = launch_expand<1>(k, a); break;
		case 2: error = launch_expand<2>(k, a); break;
		case 8: error = launch_expand<8>(k, a); break;
		default: error = launch_expand<4>(k, a); break;
		}
		if (error)
			return error;
	}
	CU(cudaMemcpyAsync(k->h_cnt, k->cnt, (size_t)C * 4, cudaMemcpyDeviceToHost, k->st));
	CU(cudaStreamSynchronize(k->st));
	for (int c = 0; c < C; c++)
		cnt_out[c] = k->h_cnt[c];
	k->nfront = k->h_cnt[j];
	return 0;
}

static int cu_fold_msgs(void *p, const int *use_bitmap, b2_msg *out)
{
	cu_bk *k = (cu_bk *)p;
	for (int c = 0; c < k->g.C; c++) {
		uint32_t *h = k->h_dst + (size_t)c * (size_t)k->slotw;
		out[c].count = k->h_cnt[c];
		out[c].bitmap = use_bitmap[c];
		out[c].data = h;
		if (c == k->g.j)
			continue;
		if (use_bitmap[c])
			CU(cudaMemcpyAsync(h, k->bmp + (size_t)c * (size_t)(k->bw + 1), (size_t)k->bw * 4,
			                   cudaMemcpyDeviceToHost, k->st));
		else if (out[c].count)
			CU(cudaMemcpyAsync(h, k->dst + (size_t)c * (size_t)k->b, (size_t)out[c].count * 4,
			                   cudaMemcpyDeviceToHost, k->st));
	}
	CU(cudaStreamSynchronize(k->st));
	for (int c = 0; c < k->g.C; c++)
		if (c != k->g.j && use_bitmap[c])
			k->h_dst[(size_t)c * (size_t)k->slotw + (size_t)k->bw] = k->h_cnt[c];
	return 0;
}

static int cu_update(void *p, int lvl, int64_t *front_out)
{
	cu_bk *k = (cu_bk *)p;
	int error = 0, any = 0;
	const int j = k->g.j;
	uint32_t *fbmp = k->o.pack_front ? k->bmp + (size_t)j * (size_t)(k->bw + 1) : NULL;
	for (int s = 0; s < k->g.C; s++) {
		const b2_msg *m = &k->in_msgs[s];
		if (s == k->self || m->count == 0)
			continue;
		const uint32_t *list = m->data;
		if (m->bitmap) {
			if ((error = append_msg(k, m, 0, k->af)))
				return error;
			list = k->af;
		}
		k_update<<<blocks_for(k, m->count), TPB, 0, k->st>>>(
			list, m->count, (uint32_t)(j * k->b), (uint32_t)s, k->vis, k->level, k->pred,
			k->front, k->cnt + j, fbmp, lvl);
		CU_LAUNCHED();
		any = 1;
	}
	if (any) {
		CU(cudaMemcpyAsync(k->h_cnt + j, k->cnt + j, 4, cudaMemcpyDeviceToHost, k->st));
		CU(cudaStreamSynchronize(k->st));
		k->nfront = k->h_cnt[j];
	}
	*front_out = k->nfront;
	return 0;
}

static int cu_resolve_bufs(void *p, uint32_t **send, uint32_t **recv)
{
	cu_bk *k = (cu_bk *)p;
	for (int c = 0; c < k->g.C; c++)
		if (c != k->g.j)
			CU(cudaMemcpyAsync(k->h_pred + (size_t)c * (size_t)k->b,
			                   k->pred + (size_t)c * (size_t)k->b, (size_t)k->b * 4,
			                   cudaMemcpyDeviceToHost, k->st));
	CU(cudaStreamSynchronize(k->st));
	*send = k->h_pred;
	*recv = k->h_recv;
	return 0;
}

static int cu_resolve(void *p, const uint32_t *recv)
{
	cu_bk *k = (cu_bk *)p;
	if (recv)
		for (int c = 0; c < k->g.C; c++)
			if (c != k->g.j)
				CU(cudaMemcpyAsync(k->dst + (size_t)c * (size_t)k->b,
				                   recv + (size_t)c * (size_t)k->b, (size_t)k->b * 4,
				                   cudaMemcpyHostToDevice, k->st));
	k_resolve<<<blocks_for(k, k->b), TPB, 0, k->st>>>(k->level, k->pred, k->dst, k->b, k->g.R,
	                                                  k->g.i, k->g.j, k->pred64);
	CU_LAUNCHED();
	CU(cudaStreamSynchronize(k->st));
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
	cu_stage_in, cu_expand, cu_fold_msgs, cu_update, cu_resolve_bufs, cu_resolve, cu_pred,
	cu_degree_sum,
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

int b2_cuda_mem_info(int d, size_t *free_b, size_t *total_b)
{
	if (cudaSetDevice(d) != cudaSuccess || cudaMemGetInfo(free_b, total_b) != cudaSuccess)
		return b2_err(B2_EIO_, "cannot query CUDA device %d", d);
	return 0;
}
}
