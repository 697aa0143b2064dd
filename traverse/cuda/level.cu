/* level.cu — a search's begin and a level's step: the frontier in the
 * direction's form, the step, and (message levels) the level's counts
 * handed to the host with the fold messages made on the way; the timing
 * of device levels' phases. */
#include "common.cuh"

/* A search's start after the memsets of the visited bitmap and the levels
 * (large: the memset kernels are the fastest way): the own column's
 * discovery bitmap (bw words, the frontier between levels) cleared, the
 * root, when it is this rank's (r its row, k its own index; r = ~0: none),
 * visited, level 0 and in the frontier, and the nlc level counters and
 * nctr unpacking counters zeroed: one kernel, not three memsets and a
 * launch. rlist (front_lists): where the root goes as a list. */
__global__ void k_begin(uint32_t *vis, int32_t *level, uint32_t *fbmp, int64_t bw, uint64_t r,
                        uint64_t k, unsigned *ctr, int nctr, unsigned long long *lc, int nlc,
                        uint32_t *rlist)
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
				if (rlist) /* the first level's frontier as a list too */
					rlist[0] = (uint32_t)k;
			}
		}
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
 * c, bitmaps bw1 words apart), counted by the unpacking's per-block scan and
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
	const int c = blockIdx.y;
	const uint32_t *m = bmp + c * bw1;
	unsigned *const counter = e.ctr + c;
	uint32_t *const dst = e.lists && (c != j || e.own_list) ? e.lists + c * e.b : NULL;
	const int64_t stride = (int64_t)gridDim.x * blockDim.x;
	unsigned long long d = 0, cnt = 0; /* cnt: bitmaps that are not listed */
	if (blockIdx.x == 0 && c == 0)
		for (int x = threadIdx.x; x < e.nnext; x += blockDim.x)
			e.next[x] = 0;
	/* block-uniform loop: block_unpack takes the whole block */
	for (int64_t b0 = (int64_t)blockIdx.x * blockDim.x; b0 < bw; b0 += stride) {
		const int64_t w = b0 + threadIdx.x;
		const uint32_t word = w < bw ? __ldg(&m[w]) : 0;
		if (c == j && tdeg)
			for (uint32_t v = word; v; v &= v - 1)
				d += (unsigned long long)__ldg(&tdeg[w * 32 + __ffs(v) - 1]);
		if (!dst) { /* counted by the block, one atomic */
			cnt += __popc(word);
			continue;
		}
		block_unpack(word, w, counter, e.cap, [&](unsigned p, uint32_t x) {
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
		last = last_block(e.done, gridDim.x * gridDim.y);
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

/* The level's counts are in mapped memory once *at == seq (the kernel's
 * last block writes seq after them): the host goes on from there, without
 * waiting for the rest of the stream (the kernel's end, events), which
 * orders itself before the next level's work. A kernel that failed never
 * writes seq: the stream is asked now and then, and its error returned. */
int wait_counts(cu_bk *k, const volatile unsigned long long *at, unsigned long long seq)
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

int cu_begin(void *p, int64_t root_k)
{
	cu_bk *k = (cu_bk *)p;
	int error = 0;
	const uint64_t none = ~(uint64_t)0;
	k->fr.nfront = root_k >= 0;
	k->plev = 0;
	CU_TRY(cudaMemsetAsync(k->vis, 0, (size_t)vis_words(k) * 4, k->st));
	CU_TRY(cudaMemsetAsync(k->level, 0xff, (size_t)k->b * 4, k->st));
	k_begin<<<blocks_for(k, k->bw), TPB, 0, k->st>>>(
		k->vis, k->level, bmp_of(k, k->g.j), k->bw,
		root_k >= 0 ? (uint64_t)k->g.j * (uint64_t)k->b + (uint64_t)root_k : none,
		root_k >= 0 ? (uint64_t)root_k : none, k->ct.tmpcnt, k->g.C + CT_GATHER + 1, k->ct.lc,
		2 * (k->g.C + 2), k->front_lists ? own_front_list(k, 1) : NULL);
	CU_TRY(cudaGetLastError());
	B2_TRY(export_visited(k));
	B2_TRY(compact_begin(k));
	/* done before returning: in pull mode the column peers read the new
	 * frontier bitmap once every rank's begin has returned */
	CU_TRY(cudaStreamSynchronize(k->st));
done:
	return error;
}

int pull_events(cu_bk *k, int lvl)
{
	int error = 0;
	int need = lvl * PULL_EV;
	if (need <= k->tm.nev)
		return 0;
	int cap = need < 64 * PULL_EV ? 64 * PULL_EV : 2 * need;
	cudaEvent_t *ev = (cudaEvent_t *)realloc(k->tm.ev, (size_t)cap * sizeof *ev);
	if (!ev)
		return b2_err(B2_EIO_, "out of host memory for CUDA events");
	k->tm.ev = ev;
	for (; k->tm.nev < cap; k->tm.nev++)
		CU_TRY(cudaEventCreate(&k->tm.ev[k->tm.nev]));
done:
	return error;
}

/* The fold messages of n bitmaps (cu_expand), each list or bitmap into
 * its pinned send buffer, where a host transport sends it. */
static int fold_to_host(cu_bk *k, const FoldOut &f, int n)
{
	int error = 0;
	k_fold_to_host<<<dim3(blocks_for(k, k->bw), n), TPB, 0, k->st>>>(f, k->bw,
	                                                                 (unsigned)k->o.fold_cap);
	CU_TRY(cudaGetLastError());
done:
	return error;
}

int cu_expand(void *p, const b2_step *st, int64_t *cnt_out, int64_t *examined)
{
	cu_bk *k = (cu_bk *)p;
	int error = 0, zeroed = 0, nf = 0;
	const int C = k->g.C, j = k->g.j, fs = front_set(k), ds = disc_set(k);
	const volatile unsigned long long *h = k->ct.h_lc;
	LevelEnd e;
	FoldOut f;
	cudaEvent_t *ev = k->devlev ? level_events(k) : NULL;
	int64_t n = 0;
	const uint32_t *fcol = NULL, *copy = NULL;
	const int lvl = st->lvl, dir = st->dir;
	k->step_dir = dir;
	k->step_carrying = st->carrying;
	/* the level's counters: device levels' are the update's; message
	 * levels alternate two sets, each level's counts zeroing the next's */
	unsigned long long *next = k->ct.lc + (size_t)((lvl + 1) & 1) * (size_t)(C + 2);
	k->ct.lcur = k->devlev ? k->ct.lc : k->ct.lc + (size_t)(lvl & 1) * (size_t)(C + 2);
	/* the column's frontier, in the form the direction wants; top-down's
	 * unpacking zeroes this level's discovery bitmaps on the way */
	if (dir == B2_BOTTOM_UP)
		error = column_frontier(k, fs, disc_zero(k, ds), &fcol, &copy, &zeroed);
	else
		error = gather_columns(k, fs, disc_zero(k, ds), &n, &zeroed);
	if (error)
		return error;
	if (ev && ev_gather(k))
		CU_TRY(cudaEventRecord(ev[1], k->st));
	if (!zeroed) {
		k_copy_zero<<<blocks_for(k, k->bw + 1), TPB, 0, k->st>>>(
			copy, copy ? k->fr.fcol : NULL, k->bw, disc_zero(k, ds));
		CU_TRY(cudaGetLastError());
	}
	if (dir == B2_BOTTOM_UP)
		error = st->turns ? bottom_up_turns(k, lvl, ds, fcol) : bottom_up(k, lvl, ds, fcol);
	else
		error = expand_columns(k, n, lvl, ds);
	if (error)
		return error;
	if (k->devlev) {
		/* the counts come with the update, which also tells the row peers
		 * that they may read this level's discoveries in place */
		if (ev_fold(k))
			CU_TRY(cudaEventRecord(ev[2], k->st));
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
	e.next = next;
	e.nnext = C + 2;
	e.ctr = k->ct.tmpcnt; /* the fold lists' counters, CT_FRONT and CT_GATHER */
	e.nctr = C + CT_GATHER + 1;
	e.lists = k->o.fold_cap > 0 ? k->fo.dst : NULL;
	e.b = k->b;
	e.cap = (unsigned)k->o.fold_cap;
	e.own_list = carrying_every(k);
	e.done = counter(k, CT_LC_DONE);
	e.host = k->ct.d_lc;
	e.seq = ++k->ct.seq;
	k_level_end<<<dim3(blocks_for(k, k->bw), C), TPB, 0, k->st>>>(
		k->fo.bmp, k->bw, (uint64_t)(k->bw + 1), C, j, front_tdeg(k), k->ct.lcur, e);
	CU_TRY(cudaGetLastError());
	k->fo.fold_copied = k->fo.fold_host;
	for (int c = 0; c < C && k->fo.fold_host; c++) {
		if (c == j && !carrying_every(k))
			continue;
		if (nf == PULL_MAX) { /* more messages than one launch takes */
			B2_TRY(fold_to_host(k, f, nf));
			nf = 0;
		}
		f.list[nf] = k->fo.dst + (size_t)c * (size_t)k->b;
		f.bmp[nf] = bmp_of(k, c);
		f.count[nf] = k->ct.lcur + c;
		f.host[nf++] = fold_list(k, c);
	}
	if (nf && (error = fold_to_host(k, f, nf)))
		return error;
	/* with fold lists the host sends what the stream wrote: all of it done */
	if (C > 1)
		CU_TRY(cudaStreamSynchronize(k->st));
	else
		B2_TRY(wait_counts(k, k->ct.h_lc + C + 2, k->ct.seq));
	for (int c = 0; c < C; c++)
		cnt_out[c] = (int64_t)h[c];
	k->fr.nfront = (int64_t)h[j];
	k->fo.own_degree = (int64_t)h[C];
	*examined = (int64_t)h[C + 1];
done:
	return error;
}

/* The phases of the last search's nlev device levels (backend.h): the
 * update's wait (the fold exchange where read in place) and the rest by
 * the GPU clock; the expand exchange with the column's gather (R > 1) and
 * a transport's fold on the stream by events; the expansion is the rest of
 * the level's busy time (its launches included). */
int cu_level_phases(void *p, int nlev, const double *busy, double *lv)
{
	cu_bk *k = (cu_bk *)p;
	int error = 0;
	int nw = nlev < PULL_LEVELS ? nlev : PULL_LEVELS;
	if (nw > 0)
		CU_TRY(cudaMemcpy(k->tm.h_stamp, k->tm.stamp, (size_t)nw * 16, cudaMemcpyDeviceToHost));
	for (int l = 0; l < nlev; l++) {
		const cudaEvent_t *ev = k->tm.ev + (size_t)l * PULL_EV;
		const int timed = (l + 1) * PULL_EV <= k->tm.nev;
		float xexp = 0, xfold = 0;
		if (timed && ev_gather(k))
			CU_TRY(cudaEventElapsedTime(&xexp, ev[0], ev[1]));
		if (timed && ev_fold(k))
			CU_TRY(cudaEventElapsedTime(&xfold, ev[2], ev[3]));
		double *t = lv + (size_t)l * 4;
		t[0] = xexp * 1e-3;
		t[2] = xfold * 1e-3 + (l < nw ? k->tm.h_stamp[2 * l] * 1e-9 : 0);
		/* with C == 1 the update only counts: the expansion's part, as
		 * in message mode */
		t[3] = l < nw && k->g.C > 1 ? k->tm.h_stamp[2 * l + 1] * 1e-9 : 0;
		t[1] = busy[l] - t[0] - t[2] - t[3];
		t[1] = t[1] > 0 ? t[1] : 0;
	}
done:
	return error;
}

int cu_degree_sum(void *p, int64_t *sum)
{
	cu_bk *k = (cu_bk *)p;
	int error = 0;
	CU_TRY(cudaMemsetAsync(k->ct.dsum, 0, 8, k->st));
	k_degsum<<<blocks_for(k, k->b), TPB, 0, k->st>>>(k->level, k->gr.tdeg, k->b, k->ct.dsum);
	CU_TRY(cudaGetLastError());
	CU_TRY(cudaMemcpyAsync(k->ct.h_dsum, k->ct.dsum, 8, cudaMemcpyDeviceToHost, k->st));
	CU_TRY(cudaStreamSynchronize(k->st));
	*sum = (int64_t)*k->ct.h_dsum;
done:
	return error;
}
