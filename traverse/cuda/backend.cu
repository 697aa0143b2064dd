/* backend.cu — the CUDA backend's set-up and glue: device memory for the
 * graph and the search, the regions the transports address or map, the
 * backend table, and the device queries main.c makes. */
#include "common.cuh"

int cu_host_alloc(void *out, size_t bytes, const char *what)
{
	void *p = NULL;
	if (cudaHostAlloc(&p, bytes ? bytes : 4, cudaHostAllocDefault) != cudaSuccess) {
		*(void **)out = NULL;
		return b2_err_held(B2_EIO_, "out of pinned host memory: %zu bytes for %s", bytes, what);
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
	void *dev[] = {k->gr.colptr, k->fr.deg, k->fr.cumul, k->gr.rowidx, k->vis, k->pred, k->fr.front, k->fo.dst,
	               k->fo.bmp, k->fr.af, k->fo.in, k->level, k->gr.tdeg, k->pd.pred64, k->ct.tmpcnt,
	               k->ct.dsum, k->fr.cubtmp, k->tm.stamp, k->gr.rowptr, k->gr.colidx, k->fr.fcol, k->fo.vrecv,
	               k->ct.dstat, k->ct.lc, k->gr.nzrow, k->gr.first, k->pd.ans, k->fr.cmask0, k->fr.cmask, k->fr.cpop, k->fr.coff,
	               k->fr.cpack};
	for (size_t x = 0; x < sizeof dev / sizeof dev[0]; x++)
		if (dev[x])
			cudaFree(dev[x]);
	void *host[] = {k->fr.h_front, k->fo.h_dst, k->pd.h_pred, k->pd.h_recv, k->ct.h_dsum,
	                k->tm.h_stamp, k->ct.h_ls, k->fo.h_vsend, k->fo.h_vrecv, k->ct.h_lc};
	for (size_t x = 0; x < sizeof host / sizeof host[0]; x++)
		cu_host_free(host[x]);
	for (int e = 0; e < k->tm.nev; e++)
		cudaEventDestroy(k->tm.ev[e]);
	for (int e = 0; e < PMARKS; e++)
		if (k->tm.pm[e])
			cudaEventDestroy(k->tm.pm[e]);
	if (k->pd.copied)
		cudaEventDestroy(k->pd.copied);
	free(k->tm.ev);
	if (k->st)
		cudaStreamDestroy(k->st);
	free(k->fr.in_msgs);
	free(k->fr.ncol);
	free(k);
}

int cu_create(void **out, const b2_graph *g, const b2_bkopts *o)
{
	int error = 0;
	size_t fre = 0, tot = 0, need, pbytes = 0;
	cudaDeviceProp prop;
	cu_bk *k = (cu_bk *)calloc(1, sizeof *k);
	if (!k)
		return b2_err(B2_EIO_, "out of host memory");
	k->g = *g;
	k->o = *o;
	b2_geometry(g, &k->b, &k->bw, &k->nr, &k->nc, &k->slotw);
	k->fr.in_msgs = (b2_msg *)calloc((size_t)(g->R > g->C ? g->R : g->C), sizeof(b2_msg));
	if (!k->fr.in_msgs) {
		error = b2_err(B2_EIO_, "out of host memory");
		goto done;
	}
	if (cudaSetDevice(o->device) != cudaSuccess || cudaGetDeviceProperties(&prop, o->device) != cudaSuccess) {
		error = b2_err(B2_EIO_, "cannot use CUDA device %d", o->device);
		goto done;
	}
	k->nsm = prop.multiProcessorCount;
	k->grid = k->nsm * (2048 / TPB);
	k->bu_evict_first = o->evict_first == B2_EVICT_FIRST_AUTO
	                            ? b2_bottom_up_evict_first(b2_bmp_words(k->nc) * 4, prop.l2CacheSize)
	                            : o->evict_first == B2_EVICT_FIRST_ON;
	k->tm.ptrace = o->trace;
	if ((error = expand_grids(k)))
		goto done;
	/* the expansion's scan, and the predecessor requests' (ordered_list) */
	if (cub::DeviceScan::ExclusiveSum(NULL, k->fr.cubbytes, (uint64_t *)NULL, (uint64_t *)NULL,
	                                  (int64_t)(k->nc + 1)) != cudaSuccess ||
	    cub::DeviceScan::ExclusiveSum(NULL, pbytes, (uint32_t *)NULL, (uint32_t *)NULL,
	                                  k->bw) != cudaSuccess) {
		error = b2_err(B2_EFAIL_, "CUB scan set-up failed");
		goto done;
	}
	if (pbytes > k->fr.cubbytes)
		k->fr.cubbytes = pbytes;
	need = (size_t)(k->nc + 1) * 8 * 3 + g->nnz * 4 + (size_t)k->b * (8 + 4 + 4 + 8) +
	       (size_t)k->nr * (4 + 4) + (size_t)vis_words(k) * 4 +
	       (size_t)2 * g->C * (size_t)(k->bw + 1) * 4 + (size_t)k->nc * 4 +
	       ((size_t)(g->R + g->C) * (size_t)k->slotw + (size_t)g->C) * 4 + k->fr.cubbytes +
	       (64u << 20);
	/* bottom-up: the CSR (and, while it is built, a fill cursor per row),
	 * each row's first column, the column frontier bitmap, the row peers'
	 * visited blocks */
	if (o->bottom_up)
		need += g->nnz * 4 + (size_t)(k->nr + 1) * 8 * 2 + (size_t)k->nr * 4 +
		        (size_t)b2_bmp_words(k->nc) * 4 + (size_t)b2_bmp_words(k->nr) * 4 +
		        (size_t)g->C * (size_t)(k->bw + 1) * 4 * 2;
	if (g->C > 1) /* the answers to the predecessor requests */
		need += (size_t)k->nr * 4;
	if (g->rowmajor) /* the rows given, the CSC made: a cursor per column, and
	                    the rows, freed after the CSC where no bottom-up step
	                    needs them */
		need += (size_t)(k->nc + 1) * 8 + (o->bottom_up ? 0 : g->nnz * 4 + (size_t)(k->nr + 1) * 8);
	cudaMemGetInfo(&fre, &tot);
	if (need > fre) {
		error = b2_err(B2_EIO_, "not enough device memory on GPU %d (%s): the graph and search state need %.2f GiB, %.2f GiB are free of %.2f GiB",
		               o->device, prop.name, need / 1073741824.0, fre / 1073741824.0,
		               tot / 1073741824.0);
		goto done;
	}
	if (cudaStreamCreateWithFlags(&k->st, cudaStreamNonBlocking) != cudaSuccess) {
		cudaGetLastError();
		error = b2_err(B2_EFAIL_, "cannot create a CUDA stream");
		goto done;
	}
	DALLOC(k->gr.colptr, (size_t)(k->nc + 1) * 8);
	DALLOC(k->gr.rowidx, g->nnz * 4);
	if (g->rowmajor) {
		DALLOC(k->gr.rowptr, (size_t)(k->nr + 1) * 8);
		DALLOC(k->gr.colidx, g->nnz * 4);
	}
	DALLOC(k->gr.tdeg, (size_t)k->b * 8);
	DALLOC(k->vis, (size_t)vis_words(k) * 4);
	DALLOC(k->level, (size_t)k->b * 4);
	DALLOC(k->pred, (size_t)k->nr * 4);
	DALLOC(k->fr.front, (size_t)k->b * 4);
	DALLOC(k->fo.dst, (size_t)k->nr * 4);
	DALLOC(k->fo.bmp, (vown_off(k) + (size_t)k->bw + 1) * 4);
	DALLOC(k->fr.af, (size_t)k->nc * 4);
	DALLOC(k->fr.deg, (size_t)(k->nc + 1) * 8);
	DALLOC(k->fr.cumul, (size_t)(k->nc + 1) * 8);
	DALLOC(k->fo.in, (flags_off(k) + (size_t)g->C) * 4);
	k->pe.flags = k->fo.in + flags_off(k);
	DALLOC(k->pd.pred64, (size_t)k->b * 8);
	if (g->C > 1)
		DALLOC(k->pd.ans, (size_t)k->nr * 4);
	DALLOC(k->ct.lc, (size_t)2 * (size_t)(g->C + 2) * 8);
	k->ct.lcur = k->ct.lc;
	DALLOC(k->ct.tmpcnt, (size_t)(g->C + CT_N) * 4);
	DALLOC(k->tm.stamp, (size_t)(PULL_LEVELS + 1) * 16);
	DALLOC(k->ct.dsum, 8);
	DALLOC(k->ct.dstat, 4 * 8);
	DALLOC(k->fr.cubtmp, k->fr.cubbytes);
	HALLOC(k->fr.h_front, (size_t)k->slotw * 4);
	HALLOC(k->fo.h_dst, (size_t)g->C * (size_t)k->slotw * 4);
	HALLOC(k->pd.h_pred, (size_t)g->C * (size_t)k->slotw * 4);
	HALLOC(k->pd.h_recv, (size_t)k->nr * 4);
	HALLOC(k->ct.h_dsum, 8);
	HALLOC(k->tm.h_stamp, (size_t)PULL_LEVELS * 16);
	k->fr.ncol = (int64_t *)calloc((size_t)g->R, 8);
	if (!k->fr.ncol) {
		error = b2_err(B2_EIO_, "out of host memory");
		goto done;
	}
	if (cudaHostAlloc((void **)&k->ct.h_ls, sizeof(LevelStats), cudaHostAllocMapped) != cudaSuccess ||
	    cudaHostGetDevicePointer((void **)&k->ct.d_ls, k->ct.h_ls, 0) != cudaSuccess ||
	    cudaHostAlloc((void **)&k->ct.h_lc, (size_t)(2 * g->C + 3) * 8, cudaHostAllocMapped) != cudaSuccess ||
	    cudaHostGetDevicePointer((void **)&k->ct.d_lc, k->ct.h_lc, 0) != cudaSuccess) {
		cudaGetLastError();
		error = b2_err(B2_EIO_, "cannot map pinned host memory into GPU %d", o->device);
		goto done;
	}
	if (cudaMemcpy(g->rowmajor ? k->gr.rowptr : k->gr.colptr, g->col_ptr,
	               (size_t)((g->rowmajor ? k->nr : k->nc) + 1) * 8, cudaMemcpyHostToDevice) != cudaSuccess ||
	    cudaMemcpy(g->rowmajor ? k->gr.colidx : k->gr.rowidx, g->row_idx, g->nnz * 4,
	               cudaMemcpyHostToDevice) != cudaSuccess ||
	    cudaMemcpy(k->gr.tdeg, g->tdeg, (size_t)k->b * 8, cudaMemcpyHostToDevice) != cudaSuccess ||
	    cudaMemset(k->pe.flags, 0, (size_t)g->C * 4) != cudaSuccess ||
	    cudaMemset(k->ct.tmpcnt, 0, (size_t)(g->C + CT_N) * 4) != cudaSuccess ||
	    cudaMemset(k->fr.deg, 0, (size_t)(k->nc + 1) * 8) != cudaSuccess ||
	    cudaMemset(k->ct.dstat, 0, 4 * 8) != cudaSuccess ||
	    cudaMemset(k->ct.lc, 0, (size_t)2 * (size_t)(g->C + 2) * 8) != cudaSuccess ||
	    cudaMemset(k->fo.bmp, 0, (vown_off(k) + (size_t)k->bw + 1) * 4) != cudaSuccess) {
		error = b2_err(B2_EFAIL_, "cannot copy the graph to GPU %d", o->device);
		goto done;
	}
	if (g->rowmajor && (error = build_csc(k)))
		goto done;
	/* the rows given serve only bottom-up steps */
	if (g->rowmajor && !o->bottom_up) {
		void *rows = k->gr.rowptr, *cols = k->gr.colidx;
		k->gr.rowptr = NULL;
		k->gr.colidx = NULL;
		CU_TRY(cudaFree(rows));
		CU_TRY(cudaFree(cols));
	}
	if ((error = column_degree_max(k)))
		goto done;
	if (o->bottom_up) {
		DALLOC(k->fr.fcol, (size_t)b2_bmp_words(k->nc) * 4);
		DALLOC(k->fo.vrecv, (size_t)g->C * (size_t)k->bw * 4);
		HALLOC(k->fo.h_vsend, (size_t)k->bw * 4);
		HALLOC(k->fo.h_vrecv, (size_t)g->C * (size_t)k->bw * 4);
		if ((error = build_csr(k)))
			goto done;
	}
	*out = k;
	k = NULL;
done:
	cu_destroy(k);
	return error;
}

int cu_configure(void *p, const b2_bkrun *run)
{
	cu_bk *k = (cu_bk *)p;
	const int on = run->device_levels, carry = run->carry;
	if (on && carry == B2_CARRY_EVERY)
		return b2_err(B2_EFAIL_, "internal: device levels carry the visited state only on "
		              "bottom-up levels");
	k->devlev = on;
	k->carry = carry;
	k->mem[B2_DIR_EXPAND] = run->mem[B2_DIR_EXPAND];
	k->mem[B2_DIR_FOLD] = run->mem[B2_DIR_FOLD];
	k->preds = run->preds;
	k->row_reads_visited = run->row_reads_visited;
	k->row_peer = run->row_peer;
	k->front_lists = on && run->front_lists;
	k->lists_in_place = k->front_lists && run->lists_in_place;
	if (carry && run->row_peer < 0)
		return b2_err(B2_EFAIL_, "internal: carrying folds without a row peer");
	return 0;
}

/* ---- what transports address or map -------------------------------------- */

int cu_regions(void *p, b2_regions *r)
{
	cu_bk *k = (cu_bk *)p;
	memset(r, 0, sizeof *r);
	r->share[B2_SHARE_RECV] = k->fo.in;
	r->share[B2_SHARE_BMP] = k->fo.bmp;
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
	free(k->pe.peer_in[dir]);
	free(k->pe.peer_bmp[dir]);
	k->pe.peer_in[dir] = k->pe.peer_bmp[dir] = NULL;
	if (dir == B2_DIR_FOLD) {
		free(k->pe.peer_pred);
		k->pe.peer_pred = NULL;
		memset(&k->pe.sig, 0, sizeof k->pe.sig);
	}
	k->pe.peer[dir] = 0;
	if (n == 0)
		return 0;
	k->pe.peer_in[dir] = (uint32_t **)calloc((size_t)n, sizeof(uint32_t *));
	k->pe.peer_bmp[dir] = (uint32_t **)calloc((size_t)n, sizeof(uint32_t *));
	if (dir == B2_DIR_FOLD)
		k->pe.peer_pred = (uint32_t **)calloc((size_t)n, sizeof(uint32_t *));
	if (!k->pe.peer_in[dir] || !k->pe.peer_bmp[dir] || (dir == B2_DIR_FOLD && !k->pe.peer_pred))
		return b2_err(B2_EIO_, "out of host memory");
	for (int q = 0; q < n; q++) {
		if (q == me)
			continue;
		k->pe.peer_in[dir][q] = (uint32_t *)peer[q].share[B2_SHARE_RECV];
		k->pe.peer_bmp[dir][q] = (uint32_t *)peer[q].share[B2_SHARE_BMP];
		if (dir == B2_DIR_FOLD)
			k->pe.peer_pred[q] = (uint32_t *)peer[q].share[B2_SHARE_PRED];
	}
	if (dir == B2_DIR_FOLD && n <= PULL_MAX)
		for (int q = 0; q < n; q++)
			k->pe.sig.to[q] = q == me ? NULL : k->pe.peer_in[dir][q] + flags_off(k) + me;
	k->pe.peer[dir] = 1;
	return 0;
}

extern "C" {
static const b2_device_ops cu_device = {
	cu_regions, cu_peers, cu_visited_in_place, cu_level_phases,
};
const b2_backend b2_cuda_backend = {
	"cuda", cu_create, cu_destroy, cu_host_alloc, cu_host_free, cu_configure, cu_begin,
	cu_front_msg, cu_stage_in, cu_visited_bufs, cu_visited_in, cu_expand, cu_fold_msgs,
	cu_carry_in, cu_update, cu_pred_requests, cu_pred_answers, cu_pred_resolve, cu_pred,
	cu_degree_sum, &cu_device, cu_compact_masks,
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
