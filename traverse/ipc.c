/* ipc.c — the CUDA IPC transport (transport.h) between the GPUs of one
 * node. Every rank maps its peers' shared regions (backend.h: the receive
 * area, the discovery bitmaps, the predecessors) and tells the backend,
 * which then reads the visited blocks and predecessors in place. Messages:
 *   ipc   copied into the receiving peer's slot on the backend's stream;
 *         then the headers (sizes, which also say the data is complete) go
 *         by one MPI all-to-all;
 *   pull  not moved at all: the backend reads the peers' bitmaps where they
 *         lie, its kernels signalling each other through device flags. */
#ifdef B2_HAVE_CUDA
#include <cuda_runtime_api.h>
#include <stdlib.h>
#include <string.h>
#include "b2.h"
#include "transport.h"

typedef struct ipc_link {
	b2_regions own;
	b2_regions *peer;     /* [n], share[] mapped (peer[me]: own) */
} ipc_link;

static void ipc_close(b2_link *l)
{
	ipc_link *m = l->impl;
	if (!m)
		return;
	l->be->device->peers(l->bk, l->dir, 0, 0, NULL);
	for (int q = 0; m->peer && q < l->n; q++)
		for (int s = 0; q != l->me && s < B2_NSHARE; s++)
			if (m->peer[q].share[s])
				cudaIpcCloseMemHandle(m->peer[q].share[s]);
	free(m->peer);
	free(m);
	l->impl = NULL;
}

/* Maps all or nothing, decided by the ranks of the link together. */
static int ipc_open(b2_link *l, int *ok)
{
	int error = 0, fail = 0;
	ipc_link *m = NULL;
	cudaIpcMemHandle_t *h = NULL;
	*ok = 0;
	if (l->n > B2_PULL_MAX) /* the backend's in-place reads name every peer at once */
		return 0;
	B2_TRY(b2_calloc(&m, 1, sizeof *m, "IPC link"));
	l->impl = m;
	B2_TRY(b2_calloc(&m->peer, (size_t)l->n, sizeof *m->peer, "IPC link"));
	B2_TRY(b2_calloc(&h, (size_t)l->n * B2_NSHARE, sizeof *h, "IPC handles"));
	B2_TRY(l->be->device->regions(l->bk, &m->own));
	for (int s = 0; s < B2_NSHARE && !fail; s++)
		fail = cudaIpcGetMemHandle(&h[(size_t)l->me * B2_NSHARE + s], m->own.share[s]) != cudaSuccess;
	B2_TRY(b2_mpi_ok(MPI_Allgather(MPI_IN_PLACE, (int)(B2_NSHARE * sizeof *h), MPI_BYTE, h,
	                               (int)(B2_NSHARE * sizeof *h), MPI_BYTE, l->comm),
	                 "MPI_Allgather (IPC handles)"));
	for (int q = 0; q < l->n && !fail; q++) {
		m->peer[q] = m->own;
		if (q == l->me)
			continue;
		memset(m->peer[q].share, 0, sizeof m->peer[q].share);
		for (int s = 0; s < B2_NSHARE && !fail; s++) {
			fail = cudaIpcOpenMemHandle(&m->peer[q].share[s], h[(size_t)q * B2_NSHARE + s],
			                            cudaIpcMemLazyEnablePeerAccess) != cudaSuccess;
		}
	}
	if (fail)
		cudaGetLastError();
	else
		fail = l->be->device->peers(l->bk, l->dir, l->n, l->me, m->peer) != 0;
	if (b2_agree(fail, l->comm))
		goto done;
	*ok = 1;
done:
	free(h);
	if (!*ok)
		ipc_close(l);
	return error;
}

/* Where own address p (in share s) lies in peer q's copy. */
static void *at_peer(const ipc_link *m, int q, int s, const void *p)
{
	return (char *)m->peer[q].share[s] + ((const char *)p - (const char *)m->own.share[s]);
}

static int ipc_round(b2_link *l, const b2_msg *out, const b2_msg *expect)
{
	int error = 0;
	ipc_link *m = l->impl;
	const int64_t bw = b2_bmp_words(l->b), slotw = m->own.slotw;
	cudaStream_t st = (cudaStream_t)m->own.stream;
	cudaError_t e = cudaSuccess;
	if (expect) /* pull: the backend reads the bitmaps in place */
		return 0;
	for (int q = 0; q < l->n && e == cudaSuccess; q++) {
		int64_t words = out[q].bitmap ? bw : out[q].count;
		if (q == l->me || out[q].count == 0)
			continue;
		l->bytes_sent += 4.0 * (double)words;
		e = cudaMemcpyAsync(at_peer(m, q, B2_SHARE_RECV, m->own.slot[l->dir] + (size_t)l->me * (size_t)slotw),
		                    out[q].data, (size_t)words * 4, cudaMemcpyDefault, st);
	}
	if (e == cudaSuccess)
		e = cudaStreamSynchronize(st);
	if (e != cudaSuccess)
		B2_FAIL(B2_EFAIL, "CUDA error: %s (message copy to a peer GPU)", cudaGetErrorString(e));
	/* the headers also tell the receivers that the copies are complete */
	B2_TRY(b2_link_headers(l, out, m->own.slot[l->dir], slotw));
done:
	return error;
}

const b2_link_ops b2_link_pull = {
	.name = "cuda-ipc-pull", .mem = B2_MEM_DEVICE, .needs_device = 1, .one_node = 1,
	.gpu_per_rank = 1, .device_levels = 1, .in_place = 1, .carry = 1, .in_place_lists = 1,
	.open = ipc_open, .round = ipc_round, .visited = b2_link_visited_in_place,
	.preds = b2_link_preds_in_place, .close = ipc_close,
};
const b2_link_ops b2_link_ipc = {
	.name = "cuda-ipc", .mem = B2_MEM_DEVICE, .needs_device = 1, .one_node = 1,
	.in_place = 1, .with_device_levels = &b2_link_pull,
	.open = ipc_open, .round = ipc_round, .visited = b2_link_visited_in_place,
	.preds = b2_link_preds_in_place, .close = ipc_close,
};
#else
typedef int b2_ipc_not_built; /* ISO C: a translation unit is not empty */
#endif
