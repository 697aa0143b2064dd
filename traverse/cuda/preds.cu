/* preds.cu — deferred predecessors (the paper's section 3.6): an owned
 * vertex the fold brought knows only the sender's grid column; after the
 * levels, one request and one answer round along the grid row (or a read
 * in place of the row peers' predecessors) turn those into global ids. */
#include "common.cuh"

/* Owned vertex x's global predecessor, from its level lv and (lv > 0) the
 * predecessor q the levels recorded for it: PRED_KNOWN with *p (-1:
 * unreached), PRED_ASK where q is only the sender's grid column (row peer
 * q & ~B2_PRED_REMOTE knows the local column). */
enum { PRED_KNOWN, PRED_ASK };
static __device__ __forceinline__ int decode_pred(int lv, uint32_t q, int64_t x, int64_t b,
                                                  int64_t R, int64_t i, int64_t j, int64_t *p)
{
	if (lv < 0)
		return PRED_KNOWN;
	if (lv == 0) {
		*p = (j * R + i) * b + x;
		return PRED_KNOWN;
	}
	if (q & B2_PRED_REMOTE)
		return PRED_ASK;
	*p = j * b * R + q;
	return PRED_KNOWN;
}

/* Deferred predecessors into global ids, the whole resolution in one pass:
 * peers.bmp[s][k], read in place from row peer s (CUDA IPC), is the local
 * column s recorded for owned vertex k (with C == 1 nothing is remote: a
 * remote one left with no peer to read is counted in *unresolved, where
 * not NULL, an internal error). */
__global__ void k_resolve(const int32_t *__restrict__ level, const uint32_t *__restrict__ pred,
                          Sources peers, int64_t b, int64_t R, int64_t i, int64_t j,
                          int64_t *__restrict__ out, unsigned *unresolved)
{
	for (int64_t x = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; x < b;
	     x += (int64_t)gridDim.x * blockDim.x) {
		const int lv = level[x];
		const uint32_t q = lv > 0 ? pred[j * b + x] : 0;
		int64_t p = -1;
		if (decode_pred(lv, q, x, b, R, i, j, &p) == PRED_ASK) {
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

/* The lean predecessor exchange (backend.h). The owner: every owned vertex
 * gets its global predecessor where it knows it; those the fold brought
 * from row peer s are the bits of request bitmap s (w1 words apart; a warp
 * writes one word of each, so no bitmap needs clearing first), counted in
 * cnt[s]: a warp's count into the block's (shared memory), then one
 * global atomic per block and sender, since an atomic per warp would queue
 * on one word (65536 of them at b = 2^21). The lists made from them
 * (k_ordered) are in ascending order, the order the answers come back in,
 * whichever form the requests travel in. Dynamic shared memory: C counts. */
__global__ void GRID_STRIDE k_pred_requests(const int32_t *__restrict__ level, const uint32_t *__restrict__ pred,
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
			if (decode_pred(lv, q, x, b, R, i, j, &p) == PRED_ASK)
				s = q & ~B2_PRED_REMOTE;
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

/* dst = the ascending list of bitmap bmp's bits (bw words); deg and cumul,
 * the expansion's scan arrays, are free after the levels and hold the
 * words' counts (popped: already there, word_pops()) and their scan. */
static uint32_t *word_pops(const cu_bk *k)
{
	return (uint32_t *)k->fr.deg;
}
int word_scan(cu_bk *k, const uint32_t *bmp, int64_t nw, uint32_t *pop, uint32_t *pref, int64_t n)
{
	int error = 0;
	size_t bytes = k->fr.cubbytes;
	if (bmp) {
		k_word_pop<<<blocks_for(k, nw), TPB, 0, k->st>>>(bmp, nw, pop);
		CU_TRY(cudaGetLastError());
	}
	CU_TRY(cub::DeviceScan::ExclusiveSum(k->fr.cubtmp, bytes, pop, pref, n, k->st));
done:
	return error;
}

static int ordered_list(cu_bk *k, const uint32_t *bmp, uint32_t *dst, int popped = 0)
{
	int error = 0;
	uint32_t *pop = word_pops(k), *pref = (uint32_t *)k->fr.cumul;
	B2_TRY(word_scan(k, popped ? NULL : bmp, k->bw, pop, pref, k->bw));
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
		out[c] = (b2_msg){host ? h : d, n, bitmap, 0};
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
		out[c] = (b2_msg){a, n, 0, 0};
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
	/* a row not mapped has no remote one left to read: counted; read in
	 * place (or C == 1) none can be left */
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

int cu_pred(void *p, int64_t *out)
{
	cu_bk *k = (cu_bk *)p;
	int error = 0;
	CU_TRY(cudaMemcpy(out, k->pd.pred64, (size_t)k->b * 8, cudaMemcpyDeviceToHost));
done:
	return error;
}
