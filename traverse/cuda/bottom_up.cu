/* bottom_up.cu — the bottom-up step (Beamer et al.): the local block made
 * row-major at create, the column's frontier as a bitmap, every unvisited
 * local row looking among its neighbours for one in it, all at once or in
 * turns along the grid row (plan.h BOTTOM_UP_TURNS); and the visited state
 * of the row's other blocks that such a step needs. */
#include "common.cuh"
#include "../transpose.h"

/* The local CSC turned row-major at create: row counts, then each column's
 * warp appends the column to its rows' lists. For the bottom-up rows, a
 * launch a hub class (transpose.h), the largest first: a row lists its
 * hubs first; within a class the order is whichever came first (any
 * neighbour in the frontier is a valid parent). */
__global__ void k_row_count(const uint32_t *__restrict__ rowidx, uint64_t nnz,
                            unsigned long long *rowcnt)
{
	for (uint64_t e = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; e < nnz;
	     e += (uint64_t)gridDim.x * blockDim.x)
		atomicAdd(&rowcnt[__ldg(&rowidx[e])], 1ull);
}

__global__ void k_row_fill(const uint64_t *__restrict__ colptr, const uint32_t *__restrict__ rowidx,
                           int64_t ncols, uint64_t lo, uint64_t hi, unsigned long long *fill,
                           uint32_t *__restrict__ colidx)
{
	const int lane = threadIdx.x & 31;
	for (int64_t u = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) >> 5; u < ncols;
	     u += ((int64_t)gridDim.x * blockDim.x) >> 5) {
		const uint64_t d = colptr[u + 1] - colptr[u];
		if (d < lo || d >= hi)
			continue;
		for (uint64_t e = colptr[u] + lane; e < colptr[u + 1]; e += 32)
			colidx[atomicAdd(&fill[rowidx[e]], 1ull)] = (uint32_t)u;
	}
}

/* nz bit r: local row r has an edge in this block (bits past nr: 0);
 * first[r]: its first column (0 where it has none). */
__global__ void k_nonempty(const uint64_t *__restrict__ rowptr, const uint32_t *__restrict__ colidx,
                           int64_t nr, uint32_t *nz, uint32_t *first)
{
	for (int64_t w = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; w < (nr + 31) / 32;
	     w += (int64_t)gridDim.x * blockDim.x) {
		uint32_t m = 0;
		for (int q = 0; q < 32 && w * 32 + q < nr; q++) {
			const int64_t r = w * 32 + q;
			const bool any = rowptr[r + 1] > rowptr[r];
			m |= (uint32_t)any << q;
			first[r] = any ? colidx[rowptr[r]] : 0;
		}
		nz[w] = m;
	}
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

/* Bits [o, o + 32) of a bitmap of b bits (o > -32): the bits outside [0,
 * b) are 0. It may be a peer GPU's: read uncached. */
static __device__ __forceinline__ uint32_t bits_at(const uint32_t *src, int64_t b, int64_t o)
{
	const int64_t bw = (b + 31) / 32, w0 = o < 0 ? -1 : o / 32;
	const uint32_t sh = (uint32_t)(o - 32 * w0);
	const uint32_t lo = w0 >= 0 ? __ldcv(&src[w0]) : 0;
	const uint32_t hi = sh && w0 + 1 < bw ? __ldcv(&src[w0 + 1]) : 0;
	uint32_t v = sh ? lo >> sh | hi << (32 - sh) : lo;
	if (b - o < 32)
		v &= (1u << (b - o)) - 1;
	return v;
}

/* out[0 .. ceil(n/32)) = bits [at, at + n) of src: the own block of the
 * visited bitmap, aligned, for the row peers. */
__global__ void k_get_shifted(const uint32_t *__restrict__ src, uint32_t at, int64_t n,
                              uint32_t *__restrict__ out)
{
	const int64_t nw = (n + 31) / 32;
	for (int64_t x = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; x < nw;
	     x += (int64_t)gridDim.x * blockDim.x)
		out[x] = bits_at(src, at + n, at + 32 * x);
}

enum { BU_K = 4 };

struct BottomUpArgs {
	const uint64_t *rowptr;
	const uint32_t *colidx, *fcol, *nzrow, *first;
	uint32_t *vis, *pred, *bmp;
	int32_t *level;
	int64_t r0, r1; /* the rows scanned: [r0, r1) */
	uint32_t b, j;
	uint64_t bw1;
	int lvl;
	unsigned long long *examined;
	StepEnd end;
};

/* A neighbour's load that L2 evicts first: the neighbour lists stream
 * through once, and would otherwise push out the column frontier */
static __device__ __forceinline__ uint32_t ld_evict_first(const uint32_t *p, uint64_t policy)
{
	uint32_t v;
	asm("ld.global.nc.L2::cache_hint.u32 %0, [%1], %2;" : "=r"(v) : "l"(p), "l"(policy));
	return v;
}

/* A row's neighbours nb(e) for e in [e0, e1) in order, BU_K at a time
 * (their loads, then their frontier words, in flight together), up to the
 * first whose bit(u) (a word whose bit 0 says) is set: 1 with *parent =
 * that neighbour; *seen += the neighbours looked at. */
template <class Nb, class Bit>
static __device__ __forceinline__ bool first_parent(Nb nb, uint64_t e0, uint64_t e1, Bit bit,
                                                    uint32_t *parent, unsigned long long *seen)
{
	for (uint64_t e = e0; e < e1; e += BU_K) {
		uint32_t uu[BU_K], fw[BU_K];
#pragma unroll
		for (int q = 0; q < BU_K; q++)
			uu[q] = e + q < e1 ? nb(e + q) : 0;
#pragma unroll
		for (int q = 0; q < BU_K; q++)
			fw[q] = e + q < e1 ? bit(uu[q]) : 0;
		int hit = BU_K;
#pragma unroll
		for (int q = BU_K - 1; q >= 0; q--)
			if (fw[q] & 1)
				hit = q;
		if (hit < BU_K) {
			*parent = uu[hit];
			*seen += e + hit + 1 - e0;
			return true;
		}
	}
	*seen += e1 - e0;
	return false;
}

/* The bottom-up step over rows [r0, r1) (RANGE; else over every row): a
 * warp owns a word of the visited bitmap (32 local rows, a row per lane);
 * each unvisited row scans its neighbours for one in the column frontier
 * and stops at the first. The warp alone writes its visited word (no
 * atomic); discoveries go to the same bitmaps as top-down's. EVICT_FIRST:
 * the neighbour loads are evicted from L2 first (b2_bottom_up_evict_first). */
template <bool EVICT_FIRST, bool RANGE>
__global__ void __launch_bounds__(TPB) k_bottom_up(BottomUpArgs a)
{
	typedef cub::BlockReduce<unsigned long long, TPB> BR;
	__shared__ typename BR::TempStorage tmp;
	const int lane = threadIdx.x & 31;
	const int64_t w0 = RANGE ? a.r0 >> 5 : 0, w1 = (a.r1 + 31) >> 5;
	const int64_t wstride = ((int64_t)gridDim.x * blockDim.x) >> 5;
	unsigned long long seen = 0;
	uint64_t policy = 0;
	if (EVICT_FIRST)
		asm("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(policy));
	for (int64_t w = w0 + (((int64_t)blockIdx.x * blockDim.x + threadIdx.x) >> 5); w < w1;
	     w += wstride) {
		/* rows without local edges cannot find a parent here: never load
		 * their row pointers; nor rows outside the range */
		const uint32_t in = !RANGE ? ~0u
		                  : (w == w0 ? ~0u << (a.r0 & 31) : ~0u) &
		                    (w == w1 - 1 && (a.r1 & 31) ? (1u << (a.r1 & 31)) - 1 : ~0u);
		const uint32_t vw = a.vis[w], todo = ~vw & __ldg(&a.nzrow[w]) & in;
		if (!todo)
			continue;
		const int64_t r = w * 32 + lane;
		bool found = false;
		uint32_t u = 0;
		if (todo >> lane & 1) {
			const auto in_frontier = [&](uint32_t c) { return __ldg(&a.fcol[c >> 5]) >> (c & 31); };
			/* the row's first column, most often its parent in a dense
			 * level: no row pointers, no neighbour list */
			const uint32_t f = __ldg(&a.first[r]);
			seen++;
			if (in_frontier(f) & 1) {
				found = true;
				u = f;
			} else
				found = first_parent(
				        [&](uint64_t e) {
					        return EVICT_FIRST ? ld_evict_first(&a.colidx[e], policy) : __ldg(&a.colidx[e]);
				        },
				        __ldg(&a.rowptr[r]) + 1, __ldg(&a.rowptr[r + 1]), in_frontier, &u, &seen);
		}
		const uint32_t mask = __ballot_sync(FULL, found);
		if (found) {
			const uint32_t rr = (uint32_t)r, c = rr / a.b, kk = rr - c * a.b;
			a.pred[rr] = u;
			if (c == a.j)
				a.level[kk] = a.lvl;
			if (a.b & 31) /* blocks share the word's rows: a bit each */
				atomicOr(&a.bmp[c * a.bw1 + (kk >> 5)], 1u << (kk & 31));
		}
		/* blocks of whole words: the word's rows are one word of one
		 * block's discovery bitmap, set by one atomic, not 32 */
		if (lane == 0 && mask) {
			a.vis[w] = vw | mask;
			if (!(a.b & 31)) {
				const uint32_t r0 = (uint32_t)(w * 32), c = r0 / a.b;
				atomicOr(&a.bmp[c * a.bw1 + ((r0 - c * a.b) >> 5)], mask);
			}
		}
	}
	seen = BR(tmp).Sum(seen);
	if (threadIdx.x == 0 && seen)
		atomicAdd(a.examined, seen);
	step_end(a.end);
}

/* out (m + 1 pointers, nnz indices) = the transpose of in's n lists of
 * indices below m: the counts per index, their scan (CUB), then each list's
 * warp appends the list's number to its entries' lists through a cursor
 * each. */
static int transpose(cu_bk *k, const uint64_t *iptr, const uint32_t *iidx, int64_t n, int64_t m,
                     int hubs_first, uint64_t *optr, uint32_t *oidx)
{
	int error = 0;
	uint64_t lo[B2_HUB_CLASSES] = {0}, hi[B2_HUB_CLASSES] = {UINT64_MAX};
	const int nclass = hubs_first ? B2_HUB_CLASSES : 1;
	if (hubs_first)
		b2_hub_classes(k->g.nnz, n, lo, hi);
	unsigned long long *fill = NULL;
	void *tmp = NULL;
	size_t tb = 0;
	DALLOC(fill, (size_t)(m + 1) * 8);
	CU_TRY(cudaMemsetAsync(fill, 0, (size_t)(m + 1) * 8, k->st));
	k_row_count<<<k->grid, TPB, 0, k->st>>>(iidx, k->g.nnz, fill);
	CU_TRY(cudaGetLastError());
	CU_TRY(cub::DeviceScan::ExclusiveSum(NULL, tb, (uint64_t *)fill, optr, (int64_t)(m + 1), k->st));
	DALLOC(tmp, tb);
	CU_TRY(cub::DeviceScan::ExclusiveSum(tmp, tb, (uint64_t *)fill, optr, (int64_t)(m + 1), k->st));
	CU_TRY(cudaMemcpyAsync(fill, optr, (size_t)m * 8, cudaMemcpyDeviceToDevice, k->st));
	for (int c = 0; c < nclass; c++) {
		k_row_fill<<<k->grid, TPB, 0, k->st>>>(iptr, iidx, n, lo[c], hi[c], fill, oidx);
		CU_TRY(cudaGetLastError());
	}
	CU_TRY(cudaStreamSynchronize(k->st));
done:
	if (fill)
		cudaFree(fill);
	if (tmp)
		cudaFree(tmp);
	return error;
}

/* A block given row-major (b2_graph.rowmajor, plan.h ROW_AS_COLUMN), in
 * gr.rowptr and gr.colidx: its CSC, the searches' top-down orientation. */
int build_csc(cu_bk *k)
{
	return transpose(k, k->gr.rowptr, k->gr.colidx, k->nr, k->nc, 0, k->gr.colptr, k->gr.rowidx);
}

/* The local block row-major, on the device, hubs first: the CSC's
 * transpose (into the rows' own arrays where the block was given so: the
 * same rows whichever way it came); nzrow marks the rows with local edges,
 * first holds each row's first column. */
int build_csr(cu_bk *k)
{
	int error = 0;
	if (!k->g.rowmajor) {
		DALLOC(k->gr.rowptr, (size_t)(k->nr + 1) * 8);
		DALLOC(k->gr.colidx, k->g.nnz * 4);
	}
	B2_TRY(transpose(k, k->gr.colptr, k->gr.rowidx, k->nc, k->nr, 1, k->gr.rowptr, k->gr.colidx));
	DALLOC(k->gr.nzrow, (size_t)b2_bmp_words(k->nr) * 4);
	DALLOC(k->gr.first, (size_t)k->nr * 4);
	k_nonempty<<<blocks_for(k, b2_bmp_words(k->nr)), TPB, 0, k->st>>>(k->gr.rowptr, k->gr.colidx, k->nr,
	                                                                   k->gr.nzrow, k->gr.first);
	CU_TRY(cudaGetLastError());
	CU_TRY(cudaStreamSynchronize(k->st));
done:
	return error;
}

/* The own block of the visited bitmap, aligned, where the row peers find
 * it (bottom-up levels): after begin and after every update. */
int export_visited(cu_bk *k)
{
	int error = 0;
	if (!vis_wanted(k))
		return 0;
	k_get_shifted<<<blocks_for(k, k->bw), TPB, 0, k->st>>>(
		k->vis, (uint32_t)(k->g.j * k->b), k->b, vown_out(k));
	CU_TRY(cudaGetLastError());
done:
	return error;
}

/* dst |= each bitmap of src (n of them, any number) shifted to its tag. */
static int or_shifted(cu_bk *k, const uint32_t *const *bmp, const uint32_t *tag, int n, uint32_t *dst)
{
	int error = 0;
	for (int x0 = 0; x0 < n; x0 += PULL_MAX) {
		Sources src;
		int m = n - x0 < PULL_MAX ? n - x0 : PULL_MAX;
		for (int x = 0; x < m; x++) {
			src.bmp[x] = bmp[x0 + x];
			src.tag[x] = tag[x0 + x];
		}
		k_or_shifted<<<dim3(blocks_for(k, k->bw), m), TPB, 0, k->st>>>(src, k->bw, dst);
		CU_TRY(cudaGetLastError());
	}
done:
	return error;
}

int cu_visited_bufs(void *p, uint32_t **send, uint32_t **recv)
{
	cu_bk *k = (cu_bk *)p;
	const int mem = k->mem[B2_DIR_FOLD];
	int error = 0;
	if (mem == B2_MEM_DEVICE) {
		*send = k->fo.bmp + vown_off(k);
		*recv = k->fo.vrecv;
		return 0;
	}
	/* once: from then on begin and the update write it there themselves
	 * (and wait for the stream) */
	if (!k->fo.vis_host) {
		CU_TRY(cudaMemcpyAsync(k->fo.h_vsend, k->fo.bmp + vown_off(k), (size_t)k->bw * 4,
		                   cudaMemcpyDeviceToHost, k->st));
		CU_TRY(cudaStreamSynchronize(k->st));
		k->fo.vis_host = 1;
	}
	*send = k->fo.h_vsend;
	*recv = k->fo.h_vrecv;
done:
	return error;
}

/* The row peers' visited blocks into the visited bitmap: from recv (host,
 * copied to the device gather area first, or that area), or, recv NULL,
 * read in place from the peers. */
int cu_visited_in(void *p, const uint32_t *recv)
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
		if (recv && recv != k->fo.vrecv) {
			CU_TRY(cudaMemcpyAsync(k->fo.vrecv + at, recv + at, (size_t)k->bw * 4,
			                       cudaMemcpyHostToDevice, k->st));
		}
		bmp[n] = recv ? k->fo.vrecv + at : k->pe.peer_bmp[B2_DIR_FOLD][c] + vown_off(k);
		tag[n++] = (uint32_t)(c * k->b);
	}
	error = or_shifted(k, bmp, tag, n, k->vis);
done:
	free(bmp);
	free(tag);
	return error;
}

/* The column frontier by destination word: bits [s b, (s + 1) b) of dst
 * are bitmap s - s0 of src for s in [s0, s1) (NULL: no bits), dst having
 * nw words. Each word is written once, with no memset before it and no
 * atomics, whatever b is; a word the window shares with source s0 - 1
 * keeps that source's bits (the launch before wrote them). The discovery
 * bitmaps z are zeroed on the way (what k_copy_zero does otherwise):
 * the caller passes them only where no source is one of them. */
__global__ void k_column_frontier(Sources src, int64_t s0, int64_t s1, int64_t b, int64_t nw,
                                  uint32_t *dst, Zero z)
{
	const int64_t w0 = s0 * b / 32, w1 = (s1 * b + 31) / 32 < nw ? (s1 * b + 31) / 32 : nw;
	const int64_t zw = (int64_t)z.n * z.w1, n = w1 - w0 > zw ? w1 - w0 : zw;
	for (int64_t x = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; x < n;
	     x += (int64_t)gridDim.x * blockDim.x) {
		if (x < zw)
			z.at[x] = 0;
		if (x >= w1 - w0)
			continue;
		const int64_t bit = 32 * (w0 + x);
		uint32_t v = bit < s0 * b ? dst[w0 + x] : 0;
		for (int64_t s = bit / b > s0 ? bit / b : s0; s < s1 && s * b < bit + 32; s++)
			if (src.bmp[s - s0])
				v |= bits_at(src.bmp[s - s0], b, bit - s * b);
		dst[w0 + x] = v;
	}
}

/* Bottom-up: the grid column's frontier as a bitmap over local columns,
 * *fc. With R == 1 it is the own frontier bitmap, aligned: read where it is
 * with device levels (the step writes the other set); in message levels
 * this level's discovery bitmaps are the same, so *copy says to copy it to
 * fcol first (the zeroing kernel does, cu_expand). With R > 1 the column's
 * bitmaps are read into fcol by one launch (k_column_frontier), which also
 * zeroes the discovery bitmaps z where it can (*zeroed = 1): with device
 * levels, whose frontier is the other set; then the list messages' bits. */
int column_frontier(cu_bk *k, int set, Zero z, const uint32_t **fc, const uint32_t **copy,
                    int *zeroed)
{
	const int R = k->g.R;
	const int64_t nw = b2_bmp_words(k->nc);
	int error = 0;
	*fc = R == 1 && k->devlev ? bmp_set(k, set, k->g.j) : k->fr.fcol;
	*copy = R == 1 && !k->devlev ? bmp_set(k, set, k->g.j) : NULL;
	*zeroed = R > 1 && set != disc_set(k);
	if (R == 1)
		return 0;
	for (int s0 = 0; s0 < R; s0 += PULL_MAX) {
		const int s1 = R - s0 < PULL_MAX ? R : s0 + PULL_MAX;
		const Zero zs = s0 == 0 && *zeroed ? z : no_zero;
		Sources src;
		for (int s = s0; s < s1; s++)
			src.bmp[s - s0] = column_count(k, s) ? column_bitmap(k, s, set) : NULL;
		const int64_t words = ((int64_t)s1 * k->b + 31) / 32 - (int64_t)s0 * k->b / 32;
		k_column_frontier<<<blocks_for(k, words > zs.n * zs.w1 ? words : zs.n * zs.w1), TPB, 0,
		                    k->st>>>(src, s0, s1, k->b, nw, k->fr.fcol, zs);
		CU_TRY(cudaGetLastError());
	}
	for (int s = 0; s < R; s++) /* the list messages */
		if (column_count(k, s) && !column_bitmap(k, s, set))
			B2_TRY(set_bits(k, k->fr.in_msgs[s].data, k->fr.in_msgs[s].count,
			                (uint32_t)(s * k->b), k->fr.fcol, NULL));
done:
	return error;
}

/* The bottom-up step over local rows [r0, r1), discoveries into set `set`;
 * its last block signals the row peers (step_end_args: the epoch after
 * the last one signalled). */
static int bottom_up_rows(cu_bk *k, int lvl, int set, const uint32_t *fcol, int64_t r0, int64_t r1)
{
	int error = 0;
	BottomUpArgs a;
	a.rowptr = k->gr.rowptr; a.colidx = k->gr.colidx; a.fcol = fcol; a.nzrow = k->gr.nzrow; a.first = k->gr.first;
	a.vis = k->vis; a.pred = k->pred; a.bmp = bmp_set(k, set, 0); a.level = k->level;
	a.r0 = r0; a.r1 = r1; a.b = (uint32_t)k->b; a.j = (uint32_t)k->g.j;
	a.bw1 = (uint64_t)(k->bw + 1); a.lvl = lvl; a.examined = k->ct.lcur + k->g.C + 1;
	a.end = step_end_args(k);
	/* the whole block: the kernel without the range's tests */
	const bool range = r0 > 0 || r1 < k->nr;
	void (*step)(BottomUpArgs) = k->bu_evict_first ? (range ? k_bottom_up<true, true> : k_bottom_up<true, false>)
	                                               : (range ? k_bottom_up<false, true> : k_bottom_up<false, false>);
	step<<<blocks_for(k, ((r1 + 31) / 32 - r0 / 32) * 32), TPB, 0, k->st>>>(a);
	CU_TRY(cudaGetLastError());
done:
	return error;
}

int bottom_up(cu_bk *k, int lvl, int set, const uint32_t *fcol)
{
	return bottom_up_rows(k, lvl, set, fcol, 0, k->nr);
}

/* A turn's start (BOTTOM_UP_TURNS): once the row peer after this rank has
 * signalled `epoch` (the end of its turn before), the finds of the nsrc
 * ranks that scanned the block before this rank (their discovery bitmaps
 * of it, read in place; tag: the block's first row) join the visited
 * bitmap. Each block waits: no block reads a bitmap before it is done. */
__global__ void k_turn_in(const unsigned *flag, unsigned epoch, Sources src, int nsrc,
                          int64_t nwords, uint32_t *vis)
{
	if (threadIdx.x == 0)
		spin_until(flag, epoch);
	__syncthreads();
	for (int m = 0; m < nsrc; m++) {
		const uint32_t at = src.tag[m], sh = at & 31;
		for (int64_t x = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; x < nwords;
		     x += (int64_t)gridDim.x * blockDim.x) {
			const uint32_t w = __ldcv(&src.bmp[m][x]);
			if (w)
				or_word_shifted(vis + (at >> 5), x, w, sh);
		}
	}
}

/* The bottom-up step in C turns along the row (plan.h BOTTOM_UP_TURNS):
 * turn s scans the rows of block t = j + s (mod C), the own block first;
 * before turn s > 0, the finds in block t of ranks j + 1 .. j + s, which
 * scanned it in the turns before, join the visited bitmap, so those rows
 * are not scanned again. Rank j + 1 signals the end of each of its turns
 * with an epoch of its own (every rank counts them alike); the ranks
 * after it had signalled theirs before it began, so its signal is the
 * only one waited for. The last turn signals the update's epoch. */
int bottom_up_turns(cu_bk *k, int lvl, int set, const uint32_t *fcol)
{
	int error = 0;
	const int C = k->g.C, j = k->g.j, next = (j + 1) % C;
	for (int s = 0; s < C; s++) {
		const int t = (j + s) % C;
		const int64_t r0 = (int64_t)t * k->b, r1 = r0 + k->b < k->nr ? r0 + k->b : k->nr;
		if (s > 0) {
			Sources src;
			for (int q = 1; q <= s; q++) {
				src.bmp[q - 1] = k->pe.peer_bmp[B2_DIR_FOLD][(j + q) % C] + bmp_off(k, set, t);
				src.tag[q - 1] = (uint32_t)r0;
			}
			k_turn_in<<<blocks_for(k, k->bw), TPB, 0, k->st>>>(k->pe.flags + next, k->pe.epoch, src,
			                                                   s, k->bw, k->vis);
			CU_TRY(cudaGetLastError());
		}
		B2_TRY(bottom_up_rows(k, lvl, set, fcol, r0, r1));
		if (s < C - 1)
			k->pe.epoch++;
	}
done:
	return error;
}

/* The row peers' visited blocks, read where they lie (the row is mapped). */
int cu_visited_in_place(void *p)
{
	return cu_visited_in(p, NULL);
}
