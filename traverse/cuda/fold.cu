/* fold.cu — the fold (the paper's section 3.5): received messages staged,
 * the outgoing fold messages, the frontier update over what the fold
 * brought (device levels: read in place from the row peers once they
 * signalled), and the visited state that a fold carries. */
#include "common.cuh"

/* Word x of a bitmap of rows found at level lvl: their level into level
 * and, pred not NULL, tag into pred, by row 32x + bit. The whole warp
 * calls it (w 0 where a lane has none), so that a word's 32 rows go in one
 * store, not a row per store of the word's own thread: the rows of a dense
 * level, scattered a thread at a time, cost the update a sector each. */
static __device__ __forceinline__ void level_word(uint32_t w, int64_t x, int32_t *level, int lvl,
                                                  uint32_t *pred = NULL, uint32_t tag = 0)
{
	const int lane = threadIdx.x & 31;
	for (unsigned m = __ballot_sync(FULL, w != 0); m; m &= m - 1) {
		const int from = __ffs(m) - 1;
		const uint32_t ws = __shfl_sync(FULL, w, from);
		const int64_t r = __shfl_sync(FULL, x, from) * 32 + lane;
		if (ws >> lane & 1) {
			level[r] = lvl;
			if (pred)
				pred[r] = tag;
		}
	}
}

/* Word x of what a row peer carried (its own finds, a bitmap over rows
 * base + k of the rank's rows): visited, and carried (unless NULL). */
static __device__ __forceinline__ void carry_word(uint32_t w, int64_t x, uint32_t base,
                                                  uint32_t *vis, uint32_t *carried)
{
	const uint32_t sh = base & 31;
	if (w) {
		or_word_shifted(vis + (base >> 5), x, w, sh);
		if (carried)
			or_word_shifted(carried + (base >> 5), x, w, sh);
	}
}

/* What a row peer carried (above), from a list (n entries) or, list NULL,
 * a bitmap of n words. */
__global__ void k_carry(const uint32_t *__restrict__ list, const uint32_t *__restrict__ bmp,
                        int64_t n, uint32_t base, uint32_t *vis, uint32_t *carried)
{
	for (int64_t x = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; x < n;
	     x += (int64_t)gridDim.x * blockDim.x) {
		if (list) {
			const uint32_t r = base + __ldg(&list[x]);
			atomicOr(&vis[r >> 5], 1u << (r & 31));
			atomicOr(&carried[r >> 5], 1u << (r & 31));
		} else {
			carry_word(__ldg(&bmp[x]), x, base, vis, carried);
		}
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
		const uint32_t u = at + __ldcv(&list[x]); /* maybe a peer GPU's list */
		atomicOr(&dst[u >> 5], 1u << (u & 31));
	}
}

int set_bits(cu_bk *k, const uint32_t *list, int64_t n, uint32_t at, uint32_t *dst,
             const uint32_t *count)
{
	int error = 0;
	k_set_bits<<<blocks_for(k, n), TPB, 0, k->st>>>(list, n, at, dst, count);
	CU_TRY(cudaGetLastError());
done:
	return error;
}

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
	uint32_t *flist;       /* front_lists: the new frontier as a list, while it has
	                          fewer than fcap vertices, its length counted in
	                          *fcount (zeroed here for the next level); else NULL */
	unsigned *fcount;
	unsigned fcap;
};

/* front_lists: word x of the new frontier, w, into the next expand's list,
 * while the list is short enough to go as one (plan.h FRONT_LISTS); the
 * whole block calls it. */
static __device__ __forceinline__ void front_list_word(uint32_t w, int64_t x, const PullFold &pf)
{
	block_unpack(w, x, pf.fcount, pf.fcap, [&](unsigned p, uint32_t kk) {
		if (p < pf.fcap)
			pf.flist[p] = kk;
	});
}

/* Thread t < n, t != self, waits until flags[t] >= epoch (spin_until);
 * the block waits for them. */
static __device__ void wait_flags(const unsigned *flags, int n, int self, unsigned epoch)
{
	const int t = threadIdx.x;
	if (t < n && t != self)
		spin_until(flags + t, epoch);
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
	/* block-uniform loop: level_word takes the whole warp, front_list_word
	 * the whole block */
	for (int64_t b0 = (int64_t)blockIdx.x * blockDim.x; b0 < nwords;
	     b0 += (int64_t)gridDim.x * blockDim.x) {
		const int64_t x = b0 + threadIdx.x;
		if (pf.carry) /* the peer's rows: other threads' words may share the ends */
			carry_word(x < nwords ? __ldcv(&pf.carry[x]) : 0, x, pf.carry_base, vis, NULL);
		/* rows rowbase + 32x + bit: bit sh + bit of v */
		uint32_t *v = vis + (rowbase >> 5) + x, fresh_all = 0;
		for (int m = 0; m < nsrc; m++) {
			const uint32_t word = x < nwords ? __ldcv(&src.bmp[m][x]) : 0;
			uint32_t fresh = 0;
			if (word) {
				const uint32_t lo = word << sh, hi = sh ? word >> (32 - sh) : 0;
				uint32_t seen = (__ldca(&v[0]) >> sh) | (hi ? __ldca(&v[1]) << (32 - sh) : 0);
				if (word & ~seen) {
					seen = (lo ? atomicOr(&v[0], lo) >> sh : 0) |
					       (hi ? atomicOr(&v[1], hi) << (32 - sh) : 0);
					fresh = word & ~seen;
				}
			}
			fresh_all |= fresh;
			level_word(fresh, x, level, lvl, pred + rowbase, B2_PRED_REMOTE | src.tag[m]);
		}
		if (x < nwords) {
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
		if (pf.flist) /* the whole block: thread x's word is final */
			front_list_word(x < nwords ? fbmp[x] : 0, x, pf);
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
		last = last_block(pf.done, gridDim.x);
	}
	__syncthreads();
	if (last && threadIdx.x == 0) {
		__threadfence();
		pf.host->front = atomicExch(pf.count, 0);
		pf.host->degree = atomicExch(pf.degree, 0ull);
		pf.host->examined = atomicExch(pf.examined, 0ull);
		if (pf.fcount)
			*pf.fcount = 0;
		if (pf.stamp)
			pf.stamp[1] = now_ns() - pf.stamp[1];
		__threadfence_system();
		pf.host->seq = pf.seq;
		*pf.done = 0;
	}
}

/* Puts message m (a list, or a bitmap of bw words) into device slot
 * `slot` unless it is there, and points it there. */
static int to_device(cu_bk *k, b2_msg *m, uint32_t *slot)
{
	int error = 0;
	if (m->data != slot && m->count)
		CU_TRY(cudaMemcpyAsync(slot, m->data, (size_t)(m->bitmap ? k->bw : m->count) * 4,
		                   cudaMemcpyDefault, k->st));
	m->data = slot;
done:
	return error;
}

int cu_stage_in(void *p, int dir, const b2_msg *in, int nslots, int self)
{
	cu_bk *k = (cu_bk *)p;
	int error = 0;
	k->fr.self = self;
	if (k->devlev) {
		/* only the sizes: the bitmaps are read in place or arrive in the
		 * own slots on the stream; the level begins here (the fold's are
		 * bitmaps: nothing to note) */
		if (dir == B2_DIR_EXPAND) {
			for (int s = 0; s < nslots; s++) {
				k->fr.ncol[s] = in[s].count;
				/* a list where the transport sends one (the plan's list), or
				 * where the peer's update wrote it (lists_in_place) */
				uint32_t *at = in_slot(k, dir, s);
				if (k->lists_in_place && !in[s].bitmap && s != k->g.i)
					at = (uint32_t *)peer_front_list(k, s, k->plev + 1);
				k->fr.in_msgs[s] = (b2_msg){at, in[s].count, in[s].bitmap, 0};
			}
			k->plev++;
			B2_TRY(pull_events(k, k->plev));
			if (ev_gather(k))
				CU_TRY(cudaEventRecord(level_events(k)[0], k->st));
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
		b2_msg *m = &k->fr.in_msgs[s];
		*m = in[s];
		if (s == self || in[s].count <= 0)
			continue;
		if (m->bitmap == B2_MSG_COMPACT) {
			B2_TRY(compact_unpack(k, m, s, in_slot(k, dir, s)));
			continue;
		}
		B2_TRY(to_device(k, m, in_slot(k, dir, s)));
		if (dir == B2_DIR_EXPAND && k->fr.cmask)
			B2_TRY(compact_drop(k, m, s));
	}
done:
	return error;
}

int cu_fold_msgs(void *p, const int *use_bitmap, b2_msg *out)
{
	cu_bk *k = (cu_bk *)p;
	int error = 0, copied = 0;
	const int peer = k->mem[B2_DIR_FOLD] == B2_MEM_DEVICE;
	if (k->devlev) {
		/* bitmaps (the plan's); carrying the visited state, the whole
		 * discovery set, every block */
		for (int c = 0; c < k->g.C; c++)
			out[c] = (b2_msg){bmp_set(k, disc_set(k), carrying(k) ? 0 : c), c == k->g.j ? 0 : -1, 1, 0};
		return 0;
	}
	for (int c = 0; c < k->g.C; c++) {
		uint32_t *h = k->fo.h_dst + (size_t)c * (size_t)k->slotw;
		/* the step's kernels put the message into h (k_fold_to_host) from
		 * the level after the first that asked for host messages */
		const uint32_t *src = k->fo.fold_copied ? h : use_bitmap[c] ? bmp_of(k, c) : fold_list(k, c);
		out[c].count = (int64_t)k->ct.h_lc[c];
		out[c].bitmap = use_bitmap[c] > 0;
		out[c].data = peer ? (uint32_t *)src : h;
		if ((c == k->g.j && use_bitmap[c] < 0) || peer || src == h)
			continue;
		if (use_bitmap[c] || out[c].count) {
			CU_TRY(cudaMemcpyAsync(h, src, (size_t)(use_bitmap[c] ? k->bw : out[c].count) * 4,
			                   cudaMemcpyDeviceToHost, k->st));
			copied = 1;
		}
	}
	if (peer)
		return 0;
	k->fo.fold_host = 1; /* from the next level on, expand writes the messages here */
	if (copied)
		CU_TRY(cudaStreamSynchronize(k->st));
	for (int c = 0; c < k->g.C; c++)
		if (use_bitmap[c] > 0)
			k->fo.h_dst[(size_t)c * (size_t)k->slotw + (size_t)k->bw] = (uint32_t)k->ct.h_lc[c];
done:
	return error;
}

/* What row peer c carried (a list or a bitmap of its block), into the
 * fold slot after the first part's room, then into the visited bitmap and
 * the carried rows. */
int cu_carry_in(void *p, const b2_msg *m, int c)
{
	cu_bk *k = (cu_bk *)p;
	int error = 0;
	b2_msg x = *m;
	int64_t n;
	B2_TRY(to_device(k, &x, in_slot(k, B2_DIR_FOLD, c) + k->bw + 1));
	if (!x.count)
		goto done;
	n = x.bitmap ? k->bw : x.count;
	k_carry<<<blocks_for(k, n), TPB, 0, k->st>>>(x.bitmap ? NULL : x.data, x.data, n,
	                                             (uint32_t)(c * k->b), k->vis, carried(k));
	CU_TRY(cudaGetLastError());
done:
	return error;
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
	pf.host = k->ct.d_ls;
	pf.vout = vis_wanted(k) ? vown_out(k) : NULL;
	pf.b = k->b;
	return pf;
}

/* The new frontier's size and degree sum, as the update handed them over
 * (LevelStats), into st and kept for the next step. */
static void update_stats(cu_bk *k, b2_level_stats *st)
{
	volatile LevelStats *ls = k->ct.h_ls;
	st->front = k->fr.nfront = (int64_t)ls->front;
	st->degree = k->fo.own_degree = (int64_t)ls->degree;
}

/* Row peer c's discovery bitmap for grid column d of the level: read in
 * place (the row mapped), or in the own slot where a transport put it (the
 * whole set when the fold carries the visited state, else only d == j). */
static const uint32_t *peer_disc(const cu_bk *k, int c, int d)
{
	if (k->pe.peer[B2_DIR_FOLD])
		return k->pe.peer_bmp[B2_DIR_FOLD][c] + bmp_off(k, disc_set(k), d);
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
	int error = 0;
	const int C = k->g.C, j = k->g.j, cur = disc_set(k);
	const unsigned epoch = ++k->pe.epoch;
	Sources src;
	PullFold pf;
	int nsrc = 0;
	for (int c = 0; c < C; c++) {
		if (c == j)
			continue;
		src.bmp[nsrc] = peer_disc(k, c, j);
		src.tag[nsrc++] = (uint32_t)c;
	}
	if (ev_fold(k))
		CU_TRY(cudaEventRecord(level_events(k)[3], k->st));
	pf = counting_fold(k, k->ct.lcur + C, k->ct.lcur + C + 1);
	if (carrying(k)) {
		pf.carry = peer_disc(k, k->row_peer, k->row_peer);
		pf.carry_base = (uint32_t)(k->row_peer * k->b);
	}
	pf.flags = C > 1 && k->pe.peer[B2_DIR_FOLD] ? k->pe.flags : NULL;
	if (pf.flags)
		pf.sig = k->pe.sig;
	pf.first = counter(k, CT_FIRST);
	pf.timer = counter(k, CT_TIMER);
	pf.n = C;
	pf.self = j;
	pf.epoch = epoch;
	pf.stamp = k->tm.stamp + 2 * (lvl <= PULL_LEVELS ? lvl - 1 : PULL_LEVELS);
	pf.reset = counter(k, CT_GATHER);
	if (k->front_lists) { /* the next level's expand message */
		pf.flist = own_front_list(k, lvl + 1);
		pf.fcount = counter(k, CT_FLIST);
		pf.fcap = (unsigned)b2_front_list_cap(k->b);
	}
	pf.seq = ++k->ct.seq;
	k_update_words<<<blocks_for(k, k->bw), TPB, 0, k->st>>>(
		src, nsrc, k->bw, (uint32_t)(j * k->b), k->vis, k->level, k->pred, bmp_set(k, cur, j), lvl,
		pf);
	CU_TRY(cudaGetLastError());
	B2_TRY(wait_counts(k, &k->ct.h_ls->seq, pf.seq));
	update_stats(k, st);
	st->examined = (int64_t)k->ct.h_ls->examined;
done:
	return error;
}

/* Message levels' update: list messages one kernel each, then one
 * k_update_words over the bitmap messages that also counts the new
 * frontier and its degrees into mapped memory and, for the row peers'
 * bottom-up steps, writes the own visited block (into the pinned buffer
 * MPI sends, once a host transport asked for it): one wait for the host. */
int cu_update(void *p, int lvl, b2_level_stats *st)
{
	cu_bk *k = (cu_bk *)p;
	int error = 0;
	const int C = k->g.C, j = k->g.j;
	const uint32_t rowbase = (uint32_t)(j * k->b);
	Sources src;
	PullFold pf;
	int nsrc = 0, any = 0;
	if (k->devlev)
		return pull_update(k, lvl, st);
	PullFold none;
	memset(&none, 0, sizeof none);
	for (int s = 0; s < C; s++) {
		const b2_msg *m = &k->fr.in_msgs[s];
		if (s == k->fr.self || m->count == 0)
			continue;
		any = 1;
		if (!m->bitmap) {
			k_update<<<blocks_for(k, m->count), TPB, 0, k->st>>>(
				m->data, m->count, rowbase, (uint32_t)s, k->vis, k->level, k->pred,
				bmp_of(k, j), lvl);
			CU_TRY(cudaGetLastError());
			continue;
		}
		if (nsrc == PULL_MAX) { /* more bitmaps than one launch takes */
			k_update_words<<<blocks_for(k, k->bw), TPB, 0, k->st>>>(
				src, nsrc, k->bw, rowbase, k->vis, k->level, k->pred, bmp_of(k, j), lvl, none);
			CU_TRY(cudaGetLastError());
			nsrc = 0;
		}
		src.bmp[nsrc] = m->data;
		src.tag[nsrc++] = (uint32_t)s;
	}
	/* nothing arrived and no row peer reads the visited block: the step's
	 * counts stand, and the device has no work */
	if (!any && !vis_wanted(k)) {
		st->front = k->fr.nfront;
		st->degree = k->fo.own_degree;
		goto done;
	}
	pf = counting_fold(k, k->ct.dstat, k->ct.dstat + 1);
	k_update_words<<<blocks_for(k, k->bw), TPB, 0, k->st>>>(
		src, nsrc, k->bw, rowbase, k->vis, k->level, k->pred, bmp_of(k, j), lvl, pf);
	CU_TRY(cudaGetLastError());
	/* the whole kernel, not wait_counts: its blocks may write the own
	 * visited block into pinned memory that MPI sends next */
	CU_TRY(cudaStreamSynchronize(k->st));
	update_stats(k, st);
done:
	return error;
}
