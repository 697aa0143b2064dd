/* preds.cu — deferred predecessors (the paper's section 3.6): an owned
 * vertex the fold brought knows only the sender's grid column; after the
 * levels, one request and one answer round along the grid row (or a read
 * in place of the row peers' predecessors, or, 1x2, none: found from the
 * levels) turn those into global ids. */
#include "common.cuh"

/* Owned vertex x's global predecessor, from its level lv and (lv > 0) the
 * predecessor q the levels recorded for it: PRED_KNOWN with *p (-1:
 * unreached), PRED_ASK where q is only the sender's grid column (row peer
 * q & ~B2_PRED_REMOTE knows the local column), PRED_DONE where pred_local
 * has written it already (B2_PRED_RESOLVED). */
enum { PRED_KNOWN, PRED_ASK, PRED_DONE };
static __device__ __forceinline__ int decode_pred(int lv, uint32_t q, int64_t x, int64_t b,
                                                  int64_t R, int64_t i, int64_t j, int64_t *p)
{
	if (lv < 0)
		return PRED_KNOWN;
	if (lv == 0) {
		*p = (j * R + i) * b + x;
		return PRED_KNOWN;
	}
	if (q == B2_PRED_RESOLVED)
		return PRED_DONE;
	if (q & B2_PRED_REMOTE)
		return PRED_ASK;
	*p = j * b * R + q;
	return PRED_KNOWN;
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
		const uint32_t q = lv > 0 ? pred[j * b + x] : 0;
		int64_t p = -1;
		const int d = decode_pred(lv, q, x, b, R, i, j, &p);
		if (d == PRED_DONE)
			continue;
		if (d == PRED_ASK) {
			const int64_t s = q & ~B2_PRED_REMOTE;
			if (s >= PULL_MAX || !peers.bmp[s]) { /* nothing to read: a bug */
				if (unresolved)
					atomicAdd(unresolved, 1u);
			} else
				p = s * b * R + __ldcv(&peers.bmp[s][x]);
		}
		out[x] = p;
	}
}

/* Rows t0 .. t0 + Q - 1 of own column [e0, e1) counted from the peer's end
 * (from the column's end where the peer's block lies above the own),
 * their loads issued together: 1 with *row the
 * first of a level below lv, 0 if none, -1 if the peer's rows [lo, hi)
 * ended among them (the column's rows ascend: no more are the peer's). */
template <int Q>
static __device__ __forceinline__ int peer_parent(const uint32_t *__restrict__ rowidx, uint64_t e0,
                                                  uint64_t e1, bool from_end, int t0, int64_t lo,
                                                  int64_t hi, const int32_t *__restrict__ plevel,
                                                  int lv, uint32_t *row)
{
	uint32_t r[Q];
	int pl[Q];
	const uint64_t n = e1 - e0;
#pragma unroll
	for (int t = 0; t < Q; t++)
		r[t] = (uint64_t)(t0 + t) < n ? __ldg(&rowidx[from_end ? e1 - 1 - (t0 + t) : e0 + t0 + t]) : 0;
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
                             const uint32_t *__restrict__ rowidx, int64_t b, int64_t j,
                             int64_t peer, int lvl,
                             int64_t *__restrict__ out, uint64_t ch, uint32_t *rest_x,
                             uint32_t *rest_c, unsigned *nrest, unsigned *nrest_next)
{
	enum { S = B2_PRED_SCAN, F = 2 };
	const int lane = threadIdx.x & 31;
	const int64_t lo = peer * b, hi = lo + b;
	const bool from_end = peer > j;
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
			int got = peer_parent<F>(rowidx, e0, e1, from_end, 0, lo, hi, plevel, lv, &r);
			if (got == 0)
				got = peer_parent<S - F>(rowidx, e0, e1, from_end, F, lo, hi, plevel, lv, &r);
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
            const uint32_t *__restrict__ rowidx, int64_t b, int64_t j, int64_t peer, uint64_t ch,
            int64_t *__restrict__ out, unsigned *total)
{
	enum { U = 8 };
	const int lane = threadIdx.x & 31;
	const int64_t lo = peer * b, hi = lo + b, n = *nrest;
	const bool from_end = peer > j;
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
				r[u] = q < end ? __ldg(&rowidx[from_end ? e1 - 1 - q : e0 + q]) : (uint32_t)lo;
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
			const int d = decode_pred(lv, q, x, b, R, i, j, &p);
			if (d == PRED_ASK)
				s = q & ~B2_PRED_REMOTE;
			if (d != PRED_DONE)
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

/* Where pred_local serves (cu_pred_local): after each level's update, the
 * predecessors of the level's vertices that the fold brought, from the
 * levels (k_pred_local, then the items it left to k_pred_rest), on the
 * side stream: they need only what this level and the ones before it
 * wrote, and run while the next levels' exchanges leave the GPU idle.
 * Nothing after a bottom-up step: on a grid of one row it finds only own
 * rows, their parents resolved (k_bottom_up), and the fold brings none. */
int pred_level(cu_bk *k, int lvl)
{
	int error = 0;
	if (!k->pd.side || k->step_dir == B2_BOTTOM_UP)
		return 0;
	uint64_t ch = (k->g.nnz + (uint64_t)k->b - 1) / (uint64_t)k->b;
	ch = ch > (uint64_t)PRED_CHUNK ? ch : (uint64_t)PRED_CHUNK;
	unsigned *nrest = counter(k, CT_REST + (lvl & 1));
	uint32_t *rest_x = k->pd.rest, *rest_c = k->pd.rest + k->nr;
	CU_TRY(cudaEventRecord(k->pd.lvl_done, k->st));
	CU_TRY(cudaStreamWaitEvent(k->pd.side, k->pd.lvl_done, 0));
	k_pred_local<<<blocks_for(k, k->b), TPB, 0, k->pd.side>>>(
		k->level, k->pred, k->pd.plevel, k->gr.colptr, k->gr.rowidx, k->b, k->g.j, k->row_peer, lvl,
		k->pd.pred64, ch,
		rest_x, rest_c, nrest, counter(k, CT_REST + ((lvl + 1) & 1)));
	CU_TRY(cudaGetLastError());
	k_pred_rest<<<k->grid, TPB, 0, k->pd.side>>>(rest_x, rest_c, nrest, k->level, k->pred,
	                                          k->pd.plevel, k->gr.colptr, k->gr.rowidx, k->b, k->g.j,
	                                          k->row_peer, ch,
	                                          k->pd.pred64, k->tm.ptrace ? counter(k, CT_REST_ALL) : NULL);
	CU_TRY(cudaGetLastError());
done:
	return error;
}

/* dst = the ascending list of bitmap bmp's bits (bw words); deg and cumul,
 * the expansion's scan arrays, are free after the levels and hold the
 * words' counts (popped: already there, word_pops()) and their scan. */
static uint32_t *word_pops(const cu_bk *k)
{
	return (uint32_t *)k->fr.deg;
}
static int ordered_list(cu_bk *k, const uint32_t *bmp, uint32_t *dst, int popped = 0)
{
	int error = 0;
	uint32_t *pop = word_pops(k), *pref = (uint32_t *)k->fr.cumul;
	size_t bytes = k->fr.cubbytes;
	if (!popped) {
		k_word_pop<<<blocks_for(k, k->bw), TPB, 0, k->st>>>(bmp, k->bw, pop);
		CU_TRY(cudaGetLastError());
	}
	CU_TRY(cub::DeviceScan::ExclusiveSum(k->fr.cubtmp, bytes, pop, pref, k->bw, k->st));
	k_ordered<<<blocks_for(k, k->bw), TPB, 0, k->st>>>(bmp, k->bw, pref, dst);
	CU_TRY(cudaGetLastError());
done:
	return error;
}

/* --trace: a point of the predecessor exchange on the stream; the
 * device time up to it is printed under `what` (pmark_print, rank 0). */
static void pmark(cu_bk *k, const char *what)
{
	if (!k->tm.ptrace || k->tm.npm >= PMARKS)
		return;
	if (!k->tm.pm[k->tm.npm] && cudaEventCreate(&k->tm.pm[k->tm.npm]) != cudaSuccess)
		return;
	k->tm.pmname[k->tm.npm] = what;
	if (cudaEventRecord(k->tm.pm[k->tm.npm], k->st) == cudaSuccess)
		k->tm.npm++;
}

/* The first mark of a search's exchange is its start; a later entry point
 * marks the host's gap since the last one. */
static void pmark_enter(cu_bk *k)
{
	pmark(k, k->tm.npm ? "(wait)" : "start");
}

static void pmark_print(cu_bk *k)
{
	float ms;
	if (k->tm.ptrace && b2_rank == 0 && k->tm.npm > 1 &&
	    cudaEventSynchronize(k->tm.pm[k->tm.npm - 1]) == cudaSuccess) {
		fprintf(stderr, "pred device");
		for (int x = 1; x < k->tm.npm; x++)
			if (cudaEventElapsedTime(&ms, k->tm.pm[x - 1], k->tm.pm[x]) == cudaSuccess)
				fprintf(stderr, "  %s %.1f", k->tm.pmname[x], ms * 1e3);
		fprintf(stderr, " us\n");
	}
	k->tm.npm = 0;
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
int cu_pred_requests(void *p, b2_msg *out)
{
	cu_bk *k = (cu_bk *)p;
	const int mem = k->mem[B2_DIR_FOLD];
	if (k->preds == B2_PREDS_ANSWERS)
		out = NULL; /* the lists only: the requests do not travel */
	int error = 0, lists = 0;
	const int C = k->g.C, j = k->g.j, host = mem == B2_MEM_HOST;
	if (!k->pd.copied)
		CU_TRY(cudaEventCreateWithFlags(&k->pd.copied, cudaEventDisableTiming));
	pmark_enter(k);
	CU_TRY(cudaMemsetAsync(k->ct.lc, 0, (size_t)C * 8, k->st));
	k_pred_requests<<<blocks_for(k, k->b), TPB, (size_t)C * 8, k->st>>>(
		k->level, k->pred, k->b, k->g.R, k->g.i, j, k->pd.pred64, k->ct.lc, bmp_set(k, 0, 0),
		k->bw + 1, C);
	CU_TRY(cudaGetLastError());
	pmark(k, "requests");
	CU_TRY(cudaMemcpyAsync(k->ct.h_lc, k->ct.lc, (size_t)C * 8, cudaMemcpyDeviceToHost, k->st));
	for (int c = 0; c < C && host && out; c++)
		if (c != j)
			CU_TRY(cudaMemcpyAsync(k->pd.h_pred + (size_t)c * (size_t)k->slotw, bmp_set(k, 0, c),
			                   (size_t)k->bw * 4, cudaMemcpyDeviceToHost, k->st));
	CU_TRY(cudaEventRecord(k->pd.copied, k->st));
	for (int c = 0; c < C; c++)
		if (c != j && (error = ordered_list(k, bmp_set(k, 0, c), k->fo.dst + (size_t)c * (size_t)k->b)))
			return error;
	pmark(k, "copy+lists");
	if (!out) /* the lists only: the requests do not travel (their counts,
	             for pred_resolve's check, arrive meanwhile) */
		return 0;
	CU_TRY(cudaEventSynchronize(k->pd.copied));
	for (int c = 0; c < C; c++) {
		const int64_t n = c == j ? 0 : (int64_t)k->ct.h_lc[c];
		const int bitmap = n > k->o.fold_cap;
		uint32_t *d = bitmap ? bmp_set(k, 0, c) : k->fo.dst + (size_t)c * (size_t)k->b;
		uint32_t *h = k->pd.h_pred + (size_t)c * (size_t)k->slotw;
		out[c] = (b2_msg){host ? h : d, n, bitmap};
		if (host && bitmap)
			h[k->bw] = (uint32_t)n; /* MPI's bitmap messages end in it */
		if (host && n && !bitmap) {
			CU_TRY(cudaMemcpyAsync(h, d, (size_t)n * 4, cudaMemcpyDeviceToHost, k->st));
			lists = 1;
		}
	}
	if (lists)
		CU_TRY(cudaStreamSynchronize(k->st));
done:
	return error;
}

/* The row peers' requests answered: into ans, or straight into pinned host
 * memory for a host transport. A bitmap is answered in the order of its
 * bits, the order of the requester's list. in NULL: no requests came, each
 * peer's are the rows due to it (k_pred_due, in bitmap set 1, free with
 * message levels), answered in that order, their counts (lc) read back. */
int cu_pred_answers(void *p, const b2_msg *in, b2_msg *out)
{
	cu_bk *k = (cu_bk *)p;
	const int mem = k->mem[B2_DIR_FOLD];
	if (k->preds == B2_PREDS_ANSWERS)
		in = NULL; /* no requests came: the rows due to each peer */
	int error = 0;
	const int C = k->g.C, j = k->g.j;
	unsigned long long *due = k->ct.lc + C + 2; /* the second set: free after the levels */
	pmark_enter(k);
	if (!in)
		CU_TRY(cudaMemsetAsync(due, 0, (size_t)C * 8, k->st));
	for (int c = 0; c < C; c++) {
		uint32_t *a = (mem == B2_MEM_HOST ? k->pd.h_recv : k->pd.ans) + (size_t)c * (size_t)k->b;
		const uint32_t *pred = k->pred + (size_t)c * (size_t)k->b;
		const int64_t n = c == j || !in ? 0 : in[c].count;
		out[c] = (b2_msg){a, n, 0};
		if (c == j || (in && !n))
			continue;
		if (in && !in[c].bitmap) {
			k_pred_answers<<<blocks_for(k, n), TPB, 0, k->st>>>(in[c].data, n, NULL, pred, a);
			CU_TRY(cudaGetLastError());
			continue;
		}
		const uint32_t *bmp = in ? in[c].data : bmp_set(k, 1, c);
		if (!in) {
			k_pred_due<<<blocks_for(k, k->b), TPB, 0, k->st>>>(
				k->vis, carried(k), (int64_t)c * k->b, k->b, bmp_set(k, 1, c), word_pops(k),
				due + c);
			CU_TRY(cudaGetLastError());
		}
		/* the same ascending list the requester made (in front: free after
		 * the levels), then one answer per thread: coalesced writes, which
		 * matter when they go to pinned host memory */
		B2_TRY(ordered_list(k, bmp, k->fr.front, !in));
		k_pred_answers<<<blocks_for(k, in ? n : k->b), TPB, 0, k->st>>>(
			k->fr.front, n, in ? NULL : due + c, pred, a);
		CU_TRY(cudaGetLastError());
	}
	pmark(k, "answers");
	if (!in)
		CU_TRY(cudaMemcpyAsync(k->ct.h_lc + C + 3, due, (size_t)C * 8, cudaMemcpyDeviceToHost, k->st));
	CU_TRY(cudaStreamSynchronize(k->st));
	for (int c = 0; c < C && !in; c++)
		out[c].count = c == j ? 0 : (int64_t)k->ct.h_lc[C + 3 + c];
done:
	return error;
}

/* in: the answers to the requests pred_requests made, applied through the
 * request lists, read where they arrived. NULL: the whole resolution here,
 * reading the row peers' predecessors in place when the row is mapped
 * (with C == 1 nothing is remote). */
int cu_pred_resolve(void *p, const b2_msg *in)
{
	cu_bk *k = (cu_bk *)p;
	if (k->preds != B2_PREDS_EXCHANGE && k->preds != B2_PREDS_ANSWERS)
		in = NULL; /* nothing travelled: resolved here, or read in place */
	int error = 0;
	const int j = k->g.j;
	unsigned *unresolved;
	pmark_enter(k);
	if (in) {
		for (int s = 0; s < k->g.C; s++) {
			const b2_msg m = in[s];
			if (s == j || !m.count)
				continue;
			if (m.count > k->b)
				break; /* not asked for: the check below says so */
			k_pred_apply<<<blocks_for(k, m.count), TPB, 0, k->st>>>(
				k->fo.dst + (size_t)s * (size_t)k->b, m.data, m.count,
				(int64_t)s * k->b * k->g.R, k->pd.pred64);
			CU_TRY(cudaGetLastError());
		}
		pmark(k, "apply");
		CU_TRY(cudaStreamSynchronize(k->st));
		pmark_print(k);
		for (int s = 0; s < k->g.C; s++)
			if (s != j && in[s].count != (int64_t)k->ct.h_lc[s])
				return b2_err(B2_EFAIL_, "internal: row peer %d answered %lld predecessors, "
				              "%lld were asked", s, (long long)in[s].count,
				              (long long)k->ct.h_lc[s]);
		return 0;
	}
	if (k->g.C > PULL_MAX && k->pe.peer[B2_DIR_FOLD])
		return b2_err(B2_EFAIL_, "internal: in-place predecessors on a row of %d ranks", k->g.C);
	Sources peers;
	memset(&peers, 0, sizeof peers);
	for (int c = 0; c < k->g.C && k->pe.peer[B2_DIR_FOLD]; c++)
		if (c != j)
			peers.bmp[c] = k->pe.peer_pred[c] + (size_t)j * (size_t)k->b;
	/* after pred_local (a row not mapped) every remote one must be
	 * resolved: counted; read in place (or C == 1) none can be left */
	unresolved = k->g.C > 1 && !k->pe.peer[B2_DIR_FOLD] ? counter(k, CT_UNRESOLVED) : NULL;
	if (unresolved)
		CU_TRY(cudaMemsetAsync(unresolved, 0, 4, k->st));
	k_resolve<<<blocks_for(k, k->b), TPB, 0, k->st>>>(k->level, k->pred, peers, k->b, k->g.R,
	                                                  k->g.i, j, k->pd.pred64, unresolved);
	CU_TRY(cudaGetLastError());
	pmark(k, "resolve");
	if (unresolved)
		CU_TRY(cudaMemcpyAsync(k->ct.h_dsum, unresolved, 4, cudaMemcpyDeviceToHost, k->st));
	CU_TRY(cudaStreamSynchronize(k->st));
	pmark_print(k);
	if (unresolved && *(const unsigned *)k->ct.h_dsum)
		return b2_err(B2_EFAIL_, "internal: %u predecessors neither resolved nor readable",
		              *(const unsigned *)k->ct.h_dsum);
done:
	return error;
}

/* 1x2, every fold carried the visited state: the fold's predecessors from
 * the levels, all of them, found level by level on the side stream
 * (pred_level); here the levels' stream waits for that work. The rest
 * items per level: ceil((len - B2_PRED_SCAN) / ch) per vertex left, at
 * most b + nnz / ch <= 2b = nr of them with ch >= nnz / b. */
int cu_pred_local(void *p)
{
	cu_bk *k = (cu_bk *)p;
	int error = 0;
	if (!k->pd.side)
		return b2_err(B2_EFAIL_, "internal: predecessors from the levels on a %dx%d grid",
		              k->g.R, k->g.C);
	pmark_enter(k);
	CU_TRY(cudaEventRecord(k->pd.side_done, k->pd.side));
	CU_TRY(cudaStreamWaitEvent(k->st, k->pd.side_done, 0));
	pmark(k, "side");
	if (k->tm.ptrace && b2_rank == 0) { /* how many chunks the first scans left */
		unsigned n = 0;
		CU_TRY(cudaStreamSynchronize(k->pd.side));
		CU_TRY(cudaMemcpy(&n, counter(k, CT_REST_ALL), 4, cudaMemcpyDeviceToHost));
		fprintf(stderr, "pred rest %u chunks\n", n);
	}
done:
	return error;
}

int cu_pred(void *p, int64_t *out)
{
	cu_bk *k = (cu_bk *)p;
	int error = 0;
	CU_TRY(cudaMemcpy(out, k->pd.pred64, (size_t)k->b * 8, cudaMemcpyDeviceToHost));
done:
	return error;
}
