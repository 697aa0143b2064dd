/* backend.cu — the CUDA backend's set-up and glue: device memory for the
 * graph and the search, the regions the transports address or map, the
 * backend table, and the device queries main.c makes. */
#include "common.cuh"

int cu_host_alloc(void *out, size_t bytes, const char *what)
{
	void *p = NULL;
	if (cudaHostAlloc(&p, bytes ? bytes : 4, cudaHostAllocDefault) != cudaSuccess) {
		*(void **)out = NULL;
		return b2_err(B2_EIO_, "out of pinned host memory: %zu bytes for %s", bytes, what);
	}
	*(void **)out = p;
	return 0;
}

void cu_host_free(void *p)
{
	if (p)
		cudaFreeHost(p);
}

int cu_peers(void *p, int dir, int n, int me, const b2_regions *peer);

void cu_destroy(void *p)
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

int cu_create(void **out, const b2_graph *g, const b2_bkopts *o)
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
	if ((error = expand_grids(k)))
		goto done;
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

int cu_device_levels(void *p, int on, int carry)
{
	cu_bk *k = (cu_bk *)p;
	int error = 0;
	if (on && carry == B2_CARRY_EVERY)
		return b2_err(B2_EFAIL_, "internal: device levels carry the visited state only on "
		              "bottom-up levels");
	k->devlev = on;
	k->carry = carry;
	/* message levels on 1x2, every fold carrying: the peer's levels, and
	 * what the predecessors from them take (pred_level) */
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

/* ---- what transports address or map -------------------------------------- */

int cu_regions(void *p, b2_regions *r)
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
int cu_peers(void *p, int dir, int n, int me, const b2_regions *peer)
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
	k->peer[dir] = 1;
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
