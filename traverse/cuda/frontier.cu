/* frontier.cu — the grid column's frontier gathered and expanded top-down
 * (the paper's section 3.4): received lists and bitmaps become the list of
 * local columns to expand with their degrees, an exclusive scan of those,
 * then one thread per frontier edge; discoveries go to one bitmap per
 * destination grid column. */
#include "common.cuh"

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

/* dst[x] = src[x] + off for the x of this thread across the grid's
 * blocks of one list: a received list (or a column peer's, read in place:
 * uncached) as local columns */
static __device__ __forceinline__ void gather_list(const uint32_t *src, int64_t n, uint32_t off,
                                                   uint32_t *dst, uint64_t *deg,
                                                   const uint64_t *__restrict__ colptr)
{
	for (int64_t x = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; x < n;
	     x += (int64_t)gridDim.x * blockDim.x)
		put_col(dst, deg, colptr, (unsigned)x, __ldcv(&src[x]) + off);
}

__global__ void k_gather(const uint32_t *__restrict__ src, int64_t n, uint32_t off,
                         uint32_t *__restrict__ dst, uint64_t *__restrict__ deg,
                         const uint64_t *__restrict__ colptr)
{
	gather_list(src, n, off, dst, deg, colptr);
}

/* Where k_unpack puts bitmap y's indices: list dst[y], at the positions
 * counter ctr[y] hands out (several bitmaps may share both). */
struct Lists {
	uint32_t *dst[PULL_MAX];
	unsigned *ctr[PULL_MAX];
};

/* The list messages k_unpack takes beside its bitmaps: list y, n[y]
 * entries (maybe a peer GPU's: read uncached), + tag[y], at dst + at[y],
 * their degrees at deg + at[y]. */
struct ListMsgs {
	const uint32_t *src[PULL_MAX];
	uint32_t tag[PULL_MAX];
	int64_t n[PULL_MAX], at[PULL_MAX];
	int count;
	uint32_t *dst;
	uint64_t *deg;
};

/* The column's frontier in one launch: the first gridDim.y - lm.count
 * blocks of y unpack bitmap y of src, indices + its tag, into out's list y
 * (block_unpack), with the columns' degrees where deg is given; the rest
 * copy list message y - that into its place. A bitmap may be a peer GPU's
 * (device levels): read uncached (ld.cv). The discovery bitmaps z are
 * zeroed by y = 0. */
__global__ void k_unpack(Sources src, int64_t nwords, Lists out, uint64_t *__restrict__ deg,
                         ListMsgs lm, const uint64_t *__restrict__ colptr, Zero z)
{
	const int nbmp = gridDim.y - lm.count;
	const int64_t stride = (int64_t)gridDim.x * blockDim.x;
	if ((int)blockIdx.y >= nbmp) {
		const int y = blockIdx.y - nbmp;
		gather_list(lm.src[y], lm.n[y], lm.tag[y], lm.dst + lm.at[y], lm.deg ? lm.deg + lm.at[y] : NULL,
		            colptr);
		for (int64_t x = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; blockIdx.y == 0 &&
		     x < (int64_t)z.n * z.w1; x += stride)
			z.at[x] = 0;
		return;
	}
	uint32_t *const dst = out.dst[blockIdx.y];
	unsigned *const counter = out.ctr[blockIdx.y];
	const uint32_t *bmp = src.bmp[blockIdx.y];
	const uint32_t off = src.tag[blockIdx.y];
	if (blockIdx.y != 0)
		z.n = 0;
	/* block-uniform loop: block_unpack takes the whole block */
	for (int64_t b0 = (int64_t)blockIdx.x * blockDim.x; b0 < nwords; b0 += stride) {
		const int64_t w = b0 + threadIdx.x;
		uint32_t word = w < nwords ? __ldcv(&bmp[w]) : 0;
		for (int c = 0; c < z.n && w < nwords; c++) {
			z.at[c * z.w1 + w] = 0;
			if (w == 0)
				z.at[c * z.w1 + nwords] = 0;
		}
		block_unpack(word, w, counter, ~0u, [&](unsigned p, uint32_t x) {
			put_col(dst, deg, colptr, p, x + off);
		});
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

struct MaxOp {
	__device__ unsigned long long operator()(unsigned long long a, unsigned long long b) const
	{
		return a > b ? a : b;
	}
};

/* *out = max(*out, the longest of the n lists of ptr) */
__global__ void k_longest(const uint64_t *__restrict__ ptr, int64_t n, unsigned long long *out)
{
	typedef cub::BlockReduce<unsigned long long, TPB> BR;
	__shared__ typename BR::TempStorage tmp;
	unsigned long long m = 0;
	for (int64_t x = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; x < n;
	     x += (int64_t)gridDim.x * blockDim.x)
		m = ptr[x + 1] - ptr[x] > m ? ptr[x + 1] - ptr[x] : m;
	m = BR(tmp).Reduce(m, MaxOp());
	if (threadIdx.x == 0)
		atomicMax(out, m);
}

/* gr.maxdeg, the largest local column degree, from the CSC on the device
 * (however it got there): the expansion's grid for small frontiers is at
 * most n * maxdeg edges. */
int column_degree_max(cu_bk *k)
{
	int error = 0;
	unsigned long long *longest = NULL;
	DALLOC(longest, 8);
	CU_TRY(cudaMemsetAsync(longest, 0, 8, k->st));
	k_longest<<<blocks_for(k, k->nc), TPB, 0, k->st>>>(k->gr.colptr, k->nc, longest);
	CU_TRY(cudaGetLastError());
	CU_TRY(cudaMemcpyAsync(&k->gr.maxdeg, longest, 8, cudaMemcpyDeviceToHost, k->st));
	CU_TRY(cudaStreamSynchronize(k->st));
done:
	if (longest)
		cudaFree(longest);
	return error;
}

/* The expansion's blocks per K (egrid): its warps split the edges evenly,
 * so all of them must be resident at once, or a second wave doubles the
 * tail. */
int expand_grids(cu_bk *k)
{
	int nb[4] = {0, 0, 0, 0};
	if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&nb[0], k_expand<1>, TPB, 0) != cudaSuccess ||
	    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&nb[1], k_expand<2>, TPB, 0) != cudaSuccess ||
	    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&nb[2], k_expand<4>, TPB, 0) != cudaSuccess ||
	    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&nb[3], k_expand<8>, TPB, 0) != cudaSuccess)
		return b2_err(B2_EFAIL_, "cannot query the expansion kernel's occupancy");
	for (int q = 0; q < 4; q++)
		k->fr.egrid[1 << q] = k->nsm * (nb[q] > 0 ? nb[q] : 1);
	return 0;
}

/* Bitmap src (bw words) -> list at dst (k + off), appended through
 * device counter ctr (zero unless the list continues); with deg, the
 * columns' degrees too; z: bitmaps to zero on the way (Zero). */
int unpack(cu_bk *k, const uint32_t *src, uint32_t off, uint32_t *dst, uint64_t *deg,
                  unsigned *ctr, Zero z)
{
	int error = 0;
	Sources one;
	Lists to;
	ListMsgs none;
	none.count = 0;
	one.bmp[0] = src;
	one.tag[0] = off;
	to.dst[0] = dst;
	to.ctr[0] = ctr;
	k_unpack<<<blocks_for(k, k->bw), TPB, 0, k->st>>>(one, k->bw, to, deg, none, k->gr.colptr, z);
	CU_TRY(cudaGetLastError());
done:
	return error;
}

/* A list of its own from bitmap src (its counter CT_FRONT zeroed first). */
static int unpack_list(cu_bk *k, const uint32_t *src, uint32_t off, uint32_t *dst, uint64_t *deg)
{
	int error = 0;
	CU_TRY(cudaMemsetAsync(counter(k, CT_FRONT), 0, 4, k->st));
	error = unpack(k, src, off, dst, deg, counter(k, CT_FRONT), no_zero);
done:
	return error;
}

/* The frontier lives in the own column's bitmap; a list message is made
 * from it on demand. */
int cu_front_msg(void *p, int form, b2_msg *m)
{
	cu_bk *k = (cu_bk *)p;
	const int mem = k->mem[B2_DIR_EXPAND], bitmap = form != B2_MSG_LIST;
	int error = 0, packed = 0;
	/* a list for a host transport is unpacked straight into pinned memory */
	uint32_t *list = mem == B2_MEM_DEVICE ? k->fr.front : k->fr.h_front;
	const uint32_t *src = bitmap ? bmp_set(k, front_set(k), k->g.j) : list;
	*m = (b2_msg){NULL, k->fr.nfront, bitmap, 0};
	if (!bitmap && k->front_lists && k->fr.nfront < b2_front_list_cap(k->b)) { /* the update wrote it */
		m->data = own_front_list(k, k->plev);
		return 0;
	}
	if (!bitmap && k->fr.nfront &&
	    (error = unpack_list(k, bmp_set(k, front_set(k), k->g.j), 0, list, NULL)))
		return error;
	if (mem == B2_MEM_DEVICE) { /* the transport's copies follow on the stream */
		m->data = (uint32_t *)src;
		return 0;
	}
	if (form == B2_MSG_COMPACT && k->fr.cmask)
		B2_TRY(compact_pack(k, src, m, &packed));
	else if (k->fr.cmask) /* the column peers take it from their copy of the mask */
		B2_TRY(compact_drop_own(k, bmp_set(k, front_set(k), k->g.j)));
	if (packed)
		return 0;
	*m = (b2_msg){k->fr.h_front, k->fr.nfront, bitmap, 0};
	if (bitmap)
		CU_TRY(cudaMemcpyAsync(k->fr.h_front, src, (size_t)k->bw * 4, cudaMemcpyDeviceToHost, k->st));
	CU_TRY(cudaStreamSynchronize(k->st));
	if (bitmap)
		k->fr.h_front[k->bw] = (uint32_t)k->fr.nfront;
done:
	return error;
}

/* Appends staged message m to the expansion's columns at position at (as
 * k + off), with their degrees. */
static int append_msg(cu_bk *k, const b2_msg *m, uint32_t off, int64_t at)
{
	int error = 0;
	if (m->count == 0)
		return 0;
	if (m->bitmap)
		return unpack_list(k, m->data, off, k->fr.af + at, k->fr.deg + at);
	k_gather<<<blocks_for(k, m->count), TPB, 0, k->st>>>(m->data, m->count, off, k->fr.af + at,
	                                                     k->fr.deg + at, k->gr.colptr);
	CU_TRY(cudaGetLastError());
done:
	return error;
}

/* One full wave of blocks, or fewer when the n columns cannot have
 * that many edges (n * maxdeg): small frontiers launch small grids. */
template <int K>
static int launch_expand(cu_bk *k, const ExpandArgs &a)
{
	int error = 0;
	const double most = (double)a.n * (double)k->gr.maxdeg / (TPB * K);
	const int grid = most < k->fr.egrid[K] ? (int)most + 1 : k->fr.egrid[K];
	k_expand<K><<<grid, TPB, 0, k->st>>>(a);
	CU_TRY(cudaGetLastError());
done:
	return error;
}

/* Device levels whose row peers read the discoveries in place: the step
 * kernel's last block signals them (step_end), for the update's epoch. */
StepEnd step_end_args(const cu_bk *k)
{
	StepEnd e;
	memset(&e, 0, sizeof e);
	if (k->devlev && k->g.C > 1 && k->pe.peer[B2_DIR_FOLD]) {
		e.sig = k->pe.sig;
		e.done = counter(k, CT_STEP_DONE);
		e.first = counter(k, CT_FIRST);
		e.n = k->g.C;
		e.epoch = k->pe.epoch + 1;
	}
	return e;
}

/* Scan of the degrees of the n columns in af and the expansion kernel,
 * discoveries into the bitmaps of set `set`; the scan's total (the edges
 * examined) into the level's counter lcur[C + 1]. */
int expand_columns(cu_bk *k, int64_t n, int lvl, int set)
{
	int error = 0;
	if (n == 0)
		return 0;
	/* deg[n] is read but does not matter: an exclusive scan of n + 1 items */
	if (n + 1 <= SCAN1_MAX) {
		k_scan1<<<1, TPB, 0, k->st>>>(k->fr.deg, k->fr.cumul, n + 1);
		CU_TRY(cudaGetLastError());
	} else {
		size_t bytes = k->fr.cubbytes;
		CU_TRY(cub::DeviceScan::ExclusiveSum(k->fr.cubtmp, bytes, k->fr.deg, k->fr.cumul, (int64_t)(n + 1),
		                                 k->st));
	}
	ExpandArgs a;
	a.colptr = k->gr.colptr; a.rowidx = k->gr.rowidx; a.af = k->fr.af; a.cumul = k->fr.cumul; a.n = n;
	a.vis = k->vis; a.pred = k->pred; a.bmp = bmp_set(k, set, 0); a.level = k->level;
	a.b = (uint32_t)k->b; a.bw1 = (uint64_t)(k->bw + 1); a.j = (uint32_t)k->g.j; a.lvl = lvl;
	a.examined = k->ct.lcur + k->g.C + 1;
	a.end = step_end_args(k);
	switch (k->o.edges_per_thread) {
	case 1: error = launch_expand<1>(k, a); break;
	case 2: error = launch_expand<2>(k, a); break;
	case 8: error = launch_expand<8>(k, a); break;
	default: error = launch_expand<4>(k, a); break;
	}
done:
	return error;
}

/* The bitmap of grid-column peer s's frontier: read in place (device
 * levels, the column mapped), or the message in its slot; NULL when it is
 * a list or empty. */
const uint32_t *column_bitmap(const cu_bk *k, int s, int set)
{
	if (s == k->g.i)
		return bmp_set(k, set, k->g.j);
	if (k->devlev && (!k->fr.ncol[s] || !k->fr.in_msgs[s].bitmap))
		return NULL;
	if (k->devlev)
		return k->pe.peer[B2_DIR_EXPAND] ? k->pe.peer_bmp[B2_DIR_EXPAND][s] + bmp_off(k, set, k->g.j)
		                              : in_slot(k, B2_DIR_EXPAND, s);
	return k->fr.in_msgs[s].count && k->fr.in_msgs[s].bitmap ? k->fr.in_msgs[s].data : NULL;
}

int64_t column_count(const cu_bk *k, int s)
{
	if (s == k->g.i)
		return k->devlev ? k->fr.ncol[s] : k->fr.nfront;
	return k->devlev ? k->fr.ncol[s] : k->fr.in_msgs[s].count;
}

/* Top-down: the grid column's frontier as the list of local columns to
 * expand, with their degrees; *n = how many. The first unpacking also
 * zeroes the discovery bitmaps z (*zeroed = 1; none ran: 0). */
int gather_columns(cu_bk *k, int set, Zero z, int64_t *n_out, int *zeroed)
{
	int error = 0;
	int64_t n = 0;
	*zeroed = 0;
	if (k->devlev) {
		/* one launch for the column: the list messages first in the
		 * list (the plan's, of known sizes), then the bitmaps' vertices
		 * through a counter zeroed by begin, then by each level's update
		 * for the next (R <= PULL_MAX: device levels' transports) */
		Sources src;
		Lists to;
		ListMsgs lm;
		int nsrc = 0;
		int64_t nl = 0;
		lm.count = 0;
		lm.dst = k->fr.af;
		lm.deg = k->fr.deg;
		for (int s = 0; s < k->g.R; s++) {
			const b2_msg *m = &k->fr.in_msgs[s];
			n += column_count(k, s);
			if (column_count(k, s) && s != k->g.i && !m->bitmap) { /* a list message */
				lm.src[lm.count] = m->data;
				lm.tag[lm.count] = (uint32_t)(s * k->b);
				lm.n[lm.count] = m->count;
				lm.at[lm.count++] = nl;
				nl += m->count;
			}
		}
		for (int s = 0; s < k->g.R; s++) {
			if (!column_count(k, s) || !column_bitmap(k, s, set))
				continue;
			src.bmp[nsrc] = column_bitmap(k, s, set);
			src.tag[nsrc] = (uint32_t)(s * k->b);
			to.dst[nsrc] = k->fr.af + nl;
			to.ctr[nsrc] = counter(k, CT_GATHER);
			nsrc++;
		}
		if (nsrc + lm.count) {
			k_unpack<<<dim3(blocks_for(k, k->bw), nsrc + lm.count), TPB, 0, k->st>>>(
				src, k->bw, to, k->fr.deg + nl, lm, k->gr.colptr, z);
			CU_TRY(cudaGetLastError());
			*zeroed = 1;
		}
		*n_out = n;
		return 0;
	}
	/* own frontier first (from its bitmap, which z may include: each word
	 * is read before it is zeroed), then the column peers'; the counter is
	 * zeroed by begin and by each level's counts for the next */
	n = k->fr.nfront;
	if (n && (error = unpack(k, bmp_of(k, k->g.j), (uint32_t)(k->g.i * k->b), k->fr.af, k->fr.deg,
	                         counter(k, CT_GATHER), z)))
		return error;
	*zeroed = n > 0;
	for (int s = 0; s < k->g.R; s++) {
		if (s == k->fr.self)
			continue;
		B2_TRY(append_msg(k, &k->fr.in_msgs[s], (uint32_t)(s * k->b), n));
		n += k->fr.in_msgs[s].count;
	}
	*n_out = n;
done:
	return error;
}
