/* nccl.c — the NCCL transport (transport.h): messages by ncclSend/ncclRecv
 * in groups, the visited blocks by ncclAllGather, all on the backend's
 * stream, so that no message data passes through the host inside a level.
 * MPI does the start-up (the ncclUniqueId, broadcast on the link's
 * communicator) and the control: the message headers when sizes travel
 * with the messages. With device levels the sizes are the plan's and a
 * level needs no host step at all.
 *
 * libnccl is loaded at run time (dlopen), so that bfs-gpu starts on hosts
 * without it and --transport auto falls back to MPI there; B2_NCCL_LIB
 * names the library when it is not on the loader's path.
 *
 * --test-shared-gpus: ranks that share a GPU. NCCL refuses two ranks of a
 * communicator on one GPU of one host, so bfs-gpu gives each rank a host
 * identity of its own (NCCL_HOSTID, main.c) and NCCL joins them by its
 * network (socket) transport, as it would ranks on different nodes. */
#ifdef B2_HAVE_NCCL
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <nccl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "b2.h"
#include "transport.h"

#define NCCL_FN(X) X(ncclGetVersion) X(ncclGetUniqueId) X(ncclCommInitRank) X(ncclCommDestroy) \
	X(ncclGetErrorString) X(ncclGroupStart) X(ncclGroupEnd) X(ncclSend) X(ncclRecv)          \
	X(ncclAllGather)
static struct {
	int tried, ok, version;
	char why[200];
#define NCCL_PTR(f) __typeof__(f) *f;
	NCCL_FN(NCCL_PTR)
} N;

static void load(void)
{
	const char *name = getenv("B2_NCCL_LIB");
	void *lib;
	if (N.tried)
		return;
	N.tried = 1;
	name = name && *name ? name : "libnccl.so.2";
	lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		snprintf(N.why, sizeof N.why, "cannot load %s (%s); set B2_NCCL_LIB or LD_LIBRARY_PATH",
		         name, dlerror());
		return;
	}
#define NCCL_SYM(f)                                                                           \
	if (!(*(void **)&N.f = dlsym(lib, #f))) {                                                 \
		snprintf(N.why, sizeof N.why, "%s lacks %s (NCCL 2.7 or newer is needed)", name, #f); \
		return;                                                                               \
	}
	NCCL_FN(NCCL_SYM)
	if (N.ncclGetVersion(&N.version) != ncclSuccess) {
		snprintf(N.why, sizeof N.why, "%s: ncclGetVersion failed", name);
		return;
	}
	N.ok = 1;
}

int b2_nccl_available(char *why, size_t n)
{
	load();
	if (!N.ok)
		snprintf(why, n, "%s", N.why);
	return N.ok;
}

int b2_nccl_version(void)
{
	load();
	return N.ok ? N.version : 0;
}

/* One of NCCL's own switches is on: NAME=1. */
static int nccl_env_on(const char *name)
{
	const char *v = getenv(name);
	return v && !strcmp(v, "1");
}

static int nccl_ok(ncclResult_t r, const char *what)
{
	if (r == ncclSuccess)
		return 0;
	return b2_err(B2_EFAIL, "NCCL error: %s (%s)", N.ncclGetErrorString(r), what);
}

typedef struct nccl_link {
	ncclComm_t comm;
	b2_regions own;
} nccl_link;

static void nccl_close(b2_link *l)
{
	nccl_link *m = l->impl;
	if (!m)
		return;
	if (m->comm)
		N.ncclCommDestroy(m->comm);
	free(m);
	l->impl = NULL;
}

static int nccl_open(b2_link *l, int *ok)
{
	int error = 0;
	nccl_link *m = NULL;
	ncclUniqueId id;
	*ok = 0;
	{
		/* over NCCL's network, bytes cost: device levels' messages of a
		 * known size go as lists where smaller (plan.h; on
		 * NVLink only the lists the updates wrote, FRONT_LISTS). So it is
		 * where the ranks are on different nodes, where NCCL has nothing
		 * else (its P2P and SHM disabled), and under --test-shared-gpus
		 * (each rank a host of its own to NCCL) */
		int local = 0;
		B2_TRY(b2_link_one_node(l->comm, l->n, &local));
		const int net = !local || l->test_shared ||
		                (nccl_env_on("NCCL_P2P_DISABLE") && nccl_env_on("NCCL_SHM_DISABLE"));
		l->lists = !b2_agree(!net, l->comm);
	}
	load();
	if (!N.ok)
		B2_FAIL(B2_EFAIL, "%s", N.why);
	B2_TRY(b2_calloc(&m, 1, sizeof *m, "NCCL link"));
	l->impl = m;
	B2_TRY(l->be->device->regions(l->bk, &m->own));
	memset(&id, 0, sizeof id);
	if (l->me == 0)
		B2_TRY(nccl_ok(N.ncclGetUniqueId(&id), "ncclGetUniqueId"));
done:
	/* every rank of the link reaches ncclCommInitRank, or none */
	if ((error = b2_agree(error, l->comm)) == 0) {
		error = b2_mpi_ok(MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, l->comm), "MPI_Bcast (ncclUniqueId)");
		if (!error && cudaSetDevice(m->own.device) != cudaSuccess)
			error = b2_err(B2_EFAIL, "cannot use CUDA device %d", m->own.device);
		if (!error)
			error = nccl_ok(N.ncclCommInitRank(&m->comm, l->n, id, l->me), "ncclCommInitRank");
		error = b2_agree(error, l->comm);
	}
	if (error)
		nccl_close(l);
	*ok = !error;
	return error;
}

static int nccl_round(b2_link *l, const b2_msg *out, const b2_msg *expect)
{
	int error = 0, group = 0;
	nccl_link *m = l->impl;
	const int64_t bw = b2_bmp_words(l->b), slotw = m->own.slotw;
	const int64_t dw = l->carrying ? 2 * (bw + 1) : bw; /* device levels */
	cudaStream_t st = (cudaStream_t)m->own.stream;
	if (!expect)
		B2_TRY(b2_link_headers(l, out, m->own.slot[l->dir], slotw));
	B2_TRY(nccl_ok(N.ncclGroupStart(), "ncclGroupStart"));
	group = 1;
	for (int p = 0; p < l->n; p++) {
		if (p == l->me)
			continue;
		int64_t sw, rw;
		uint32_t *slot = m->own.slot[l->dir] + (size_t)p * (size_t)slotw;
		if (expect) { /* a bitmap, or a list of the size the plan gave */
			sw = out[p].count ? (out[p].bitmap ? dw : out[p].count) : 0;
			rw = expect[p].count ? (expect[p].bitmap ? dw : expect[p].count) : 0;
		} else { /* a bitmap's count travelled in its header */
			sw = out[p].bitmap ? (out[p].count ? bw : 0) : out[p].count;
			rw = l->in[p].bitmap ? (l->in[p].count ? bw : 0) : l->in[p].count;
		}
		l->bytes_sent += 4.0 * (double)sw;
		if (sw)
			B2_TRY(nccl_ok(N.ncclSend(out[p].data, (size_t)sw, ncclUint32, p, m->comm, st), "ncclSend"));
		if (rw)
			B2_TRY(nccl_ok(N.ncclRecv(slot, (size_t)rw, ncclUint32, p, m->comm, st), "ncclRecv"));
	}
done:
	if (group) {
		int e = nccl_ok(N.ncclGroupEnd(), "ncclGroupEnd");
		error = error ? error : e;
	}
	return error;
}

static int nccl_allgather(b2_link *l, const uint32_t *send, uint32_t *recv, int64_t words)
{
	nccl_link *m = l->impl;
	l->bytes_sent += 4.0 * (double)words * (l->n - 1);
	return nccl_ok(N.ncclAllGather(send, recv, (size_t)words, ncclUint32, m->comm,
	                               (cudaStream_t)m->own.stream), "ncclAllGather");
}

const b2_link_ops b2_link_nccl = {
	.name = "nccl", .mem = B2_MEM_DEVICE, .needs_device = 1, .gpu_per_rank = 1,
	.device_levels = 1, .carry = 1, .available = b2_nccl_available,
	.open = nccl_open, .round = nccl_round, .allgather = nccl_allgather,
	.visited = b2_link_visited_gather, .preds = b2_link_preds_exchange, .close = nccl_close,
};
#else
typedef int b2_nccl_not_built; /* ISO C: a translation unit is not empty */
#endif
