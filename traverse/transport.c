/* transport.c — choosing the transports of a search's two exchanges
 * (--transport), and what every transport does alike: the visited exchange
 * of bottom-up levels and the predecessor exchange, built on a transport's
 * allgather and rounds. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "b2.h"
#include "plan.h"
#include "transport.h"

#ifndef B2_HAVE_CUDA
/* Built without CUDA: no device transports. */
const b2_link_ops b2_link_ipc = {.name = "cuda-ipc", .needs_device = 1},
                  b2_link_pull = {.name = "cuda-ipc-pull", .needs_device = 1};
#endif
#ifndef B2_HAVE_NCCL
int b2_nccl_available(char *why, size_t n);
const b2_link_ops b2_link_nccl = {.name = "nccl", .needs_device = 1, .gpu_per_rank = 1,
                                  .available = b2_nccl_available};
int b2_nccl_available(char *why, size_t n)
{
	snprintf(why, n, "bfs-gpu was built without NCCL (nccl.h not found; see NCCL_HOME in README)");
	return 0;
}
int b2_nccl_version(void) { return 0; }
#endif

static const char *const dir_names[] = {"expand", "fold"};

static int link_init(b2_link *l, MPI_Comm comm, int dir, const b2_backend *be, void *bk,
                     int64_t b)
{
	memset(l, 0, sizeof *l);
	l->comm = comm;
	l->dir = dir;
	l->be = be;
	l->bk = bk;
	l->b = b;
	l->words = b2_msg_words(b);
	MPI_Comm_size(comm, &l->n);
	MPI_Comm_rank(comm, &l->me);
	int error = b2_calloc(&l->hdr, 2 * (size_t)l->n, 8, "message headers");
	if (!error)
		error = b2_calloc(&l->carried, (size_t)l->n, sizeof *l->carried, "messages");
	return error ? error : b2_calloc(&l->in, (size_t)l->n, sizeof *l->in, "messages");
}

int b2_link_headers(b2_link *l, const b2_msg *out, uint32_t *slot0, int64_t slotw)
{
	int64_t *h_out = l->hdr, *h_in = l->hdr + l->n;
	const int64_t mask = (INT64_C(1) << 62) - 1;
	for (int p = 0; p < l->n; p++)
		h_out[p] = p == l->me ? 0 : out[p].count | (int64_t)(out[p].bitmap != 0) << 62;
	int error = b2_mpi_ok(MPI_Alltoall(h_out, 1, MPI_INT64_T, h_in, 1, MPI_INT64_T, l->comm),
	                      "MPI_Alltoall (message headers)");
	for (int p = 0; p < l->n && !error; p++)
		l->in[p] = p == l->me ? (b2_msg){NULL, 0, 0, 0}
		                      : (b2_msg){slot0 + (size_t)p * (size_t)slotw, h_in[p] & mask,
		                                 (int)(h_in[p] >> 62 & 1), 0};
	return error;
}

int b2_link_one_node(MPI_Comm comm, int n, int *yes)
{
	int error = 0, local = 0;
	MPI_Comm node = MPI_COMM_NULL;
	B2_TRY(b2_mpi_ok(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node),
	                 "MPI_Comm_split_type"));
	MPI_Comm_size(node, &local);
	*yes = !b2_agree(local != n, comm);
done:
	if (node != MPI_COMM_NULL)
		MPI_Comm_free(&node);
	return error;
}

/* The transports, one entry each for --transport's names; auto tries
 * those marked, in this order, for each exchange. */
static const struct {
	int kind;
	const char *option;
	const b2_link_ops *ops;
	int in_auto;
} transports[] = {
	{B2_TP_PULL, "pull", &b2_link_ipc, 0},
	{B2_TP_IPC, "ipc", &b2_link_ipc, 1},
	{B2_TP_NCCL, "nccl", &b2_link_nccl, 1},
	{B2_TP_MPI, "mpi", &b2_link_mpi, 1},
};
enum { NTRANSPORTS = sizeof transports / sizeof transports[0] };

static const char *kind_name(int k)
{
	for (int t = 0; t < NTRANSPORTS; t++)
		if (transports[t].kind == k)
			return transports[t].option;
	return "auto";
}

static int try_open(b2_link *l, const b2_link_ops *ops, int *ok)
{
	int error;
	*ok = 0;
	if (!ops->open)
		return 0;
	l->ops = ops;
	error = ops->open(l, ok);
	if (error || !*ok)
		l->ops = NULL;
	return error;
}

/* One link as --transport says; *bad (this rank) when a named transport
 * cannot serve it, with the reason printed. usable[t]: entry t may be
 * tried at all (agreed by every rank). */
static int pick(b2_link *l, const b2_transport_opts *o, const int *usable, int *bad)
{
	int error = 0, ok = 0;
	if (l->n == 1)
		return 0;
	for (int t = 0; t < NTRANSPORTS && !ok; t++) {
		const b2_link_ops *ops = transports[t].ops;
		int local = 1;
		if (o->kind == B2_TP_AUTO ? !transports[t].in_auto : transports[t].kind != o->kind)
			continue;
		if (!usable[t])
			continue;
		if (ops->one_node)
			B2_TRY(b2_link_one_node(l->comm, l->n, &local));
		if (local)
			B2_TRY(try_open(l, ops, &ok));
		if (!ok && o->kind != B2_TP_AUTO) {
			b2_warn("--transport %s: the %s exchange's %d ranks %s", transports[t].option,
			        dir_names[l->dir], l->n,
			        !local ? "are not all on one node"
			        : ops->one_node ? "cannot map each other's GPU memory (CUDA IPC)"
			                        : "could not set it up");
			*bad = 1;
			return 0;
		}
	}
	if (!ok)
		B2_FAIL(B2_EFAIL, "cannot set up the %s exchange", dir_names[l->dir]);
done:
	return error;
}

/* Which entries may be tried: a device backend's memory, a GPU per rank,
 * a library that loads on every rank. */
static int usable_transports(int *usable, const b2_transport_opts *o, int device, int shared)
{
	int error = 0;
	for (int t = 0; t < NTRANSPORTS; t++) {
		const b2_link_ops *ops = transports[t].ops;
		const int named = transports[t].kind == o->kind;
		char why[256] = "";
		usable[t] = 0;
		if (o->kind != B2_TP_AUTO && !named)
			continue;
		if (ops->needs_device && !device) {
			if (named)
				B2_FAIL0(B2_EUSAGE, "--transport %s needs the CUDA backend (the CPU backend's "
				         "messages are in host memory: they go by MPI)", transports[t].option);
			continue;
		}
		if ((ops->gpu_per_rank || transports[t].kind == B2_TP_PULL) && shared) {
			if (named)
				B2_FAIL0(B2_EUSAGE, "--transport %s needs a GPU per rank (ranks share GPUs here; "
				         "--test-shared-gpus runs it all the same, for testing)",
				         transports[t].option);
			continue;
		}
		if (ops->available) {
			int ok = ops->available(why, sizeof why), all = 0;
			B2_TRY(b2_mpi_ok(MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD),
			                 "MPI_Allreduce"));
			if (!all && named)
				B2_FAIL0(B2_EUSAGE, "--transport %s: %s", transports[t].option,
				         ok ? "it is missing on some node" : why);
			if (!all)
				continue;
		}
		usable[t] = 1;
	}
done:
	return error;
}

int b2_links_open(b2_link *expand, b2_link *fold, MPI_Comm col, MPI_Comm row,
                  const b2_backend *be, void *bk, int64_t b, const b2_transport_opts *o,
                  b2_plan_caps *caps)
{
	int error = 0, bad = 0, usable[NTRANSPORTS];
	const int k = o->kind, device = be->device != NULL;
	/* --test-shared-gpus: the named pull or nccl although ranks share a
	 * GPU. A device wait then ends only when the GPU time-slices to the
	 * peer's context (slow), but a one-GPU host checks their levels */
	const int shared = o->gpus_shared && !(o->test_shared && (k == B2_TP_PULL || k == B2_TP_NCCL));
	b2_link *both[2] = {expand, fold};
	memset(caps, 0, sizeof *caps);
	B2_TRY(link_init(expand, col, B2_DIR_EXPAND, be, bk, b));
	B2_TRY(link_init(fold, row, B2_DIR_FOLD, be, bk, b));
	expand->test_shared = fold->test_shared = o->test_shared && o->gpus_shared;
	if (k == B2_TP_PULL && !o->bitmaps)
		B2_FAIL0(B2_EUSAGE, "--transport pull reads bitmaps in place: not with --bitmap off");
	B2_TRY(usable_transports(usable, o, device, shared));
	B2_TRY(pick(expand, o, usable, &bad));
	B2_TRY(pick(fold, o, usable, &bad));
	if (b2_agree(bad ? B2_EUSAGE : 0, MPI_COMM_WORLD))
		B2_FAIL0(B2_EUSAGE, "--transport %s cannot serve this run (see above); --transport auto "
		         "picks what can", kind_name(k));
	/* device levels: every exchange moves bitmaps device to device, the
	 * GPUs are not shared, and all ranks agree (their loops must match).
	 * One rank has no exchange: it runs device levels when pull is named. */
	int dl = device && o->bitmaps && !shared && k != B2_TP_IPC &&
	         expand->n <= B2_PULL_MAX && fold->n <= B2_PULL_MAX &&
	         (expand->n * fold->n > 1 || k == B2_TP_PULL);
	for (int x = 0; x < 2; x++)
		if (both[x]->n > 1 && !both[x]->ops->device_levels && !both[x]->ops->with_device_levels)
			dl = 0;
	caps->device_levels = !b2_agree(!dl, MPI_COMM_WORLD);
	if (k == B2_TP_PULL && !caps->device_levels)
		B2_FAIL0(B2_EUSAGE, "--transport pull: the grid's sides must have at most %d ranks",
		         B2_PULL_MAX);
	for (int x = 0; caps->device_levels && x < 2; x++)
		if (both[x]->ops && both[x]->ops->with_device_levels)
			both[x]->ops = both[x]->ops->with_device_levels;
	const int carries = fold->n == 1 || fold->ops->carry;
	caps->fold_carries = !b2_agree(!carries, MPI_COMM_WORLD);
	/* each link's own (its ranks agree): only they exchange its messages */
	caps->fold_in_place = fold->n > 1 && fold->ops->in_place;
	caps->expand_lists = expand->lists;
done:
	return b2_agree(error, MPI_COMM_WORLD);
}

void b2_links_close(b2_link *expand, b2_link *fold)
{
	b2_link *both[2] = {expand, fold};
	int mapped = 0;
	for (int x = 0; x < 2; x++) {
		if (both[x]->ops) {
			mapped |= both[x]->ops->in_place;
			both[x]->ops->close(both[x]);
		}
		free(both[x]->in);
		free(both[x]->carried);
		free(both[x]->hdr);
		memset(both[x], 0, sizeof *both[x]);
	}
	/* no rank frees memory that a peer still maps */
	if (b2_agree(mapped, MPI_COMM_WORLD))
		MPI_Barrier(MPI_COMM_WORLD);
}

int b2_links_describe(const b2_link *expand, const b2_link *fold, char *buf, size_t n,
                      int *nccl)
{
	/* bit 0: no exchange; bit t + 1: ops t */
	static const b2_link_ops *const ids[] = {&b2_link_mpi, &b2_link_ipc, &b2_link_pull,
	                                         &b2_link_nccl};
	enum { NIDS = sizeof ids / sizeof ids[0] };
	const b2_link *both[2] = {expand, fold};
	int mask[2] = {0, 0}, error = 0;
	for (int x = 0; x < 2; x++) {
		mask[x] |= !both[x]->ops;
		for (int t = 0; t < NIDS; t++)
			mask[x] |= (both[x]->ops == ids[t]) << (t + 1);
	}
	B2_TRY(b2_mpi_ok(MPI_Allreduce(MPI_IN_PLACE, mask, 2, MPI_INT, MPI_BOR, MPI_COMM_WORLD),
	                 "MPI_Allreduce (transports)"));
	size_t at = 0;
	for (int x = 0; x < 2; x++) {
		at += (size_t)snprintf(buf + at, at < n ? n - at : 0, "%s%s ", x ? ", " : "", dir_names[x]);
		for (int t = 0, first = 1; t <= NIDS; t++)
			if (mask[x] >> t & 1) {
				at += (size_t)snprintf(buf + at, at < n ? n - at : 0, "%s%s", first ? "" : "+",
				                       t ? ids[t - 1]->name : "none");
				first = 0;
			}
	}
	*nccl = ((mask[0] | mask[1]) >> 4) & 1;
done:
	return error;
}

int b2_link_round(b2_link *l, const b2_msg *out)
{
	return l->n == 1 ? 0 : l->ops->round(l, out, NULL);
}


int b2_link_visited_gather(b2_link *l)
{
	int error = 0;
	uint32_t *send = NULL, *recv = NULL;
	B2_TRY(l->be->visited_bufs(l->bk, &send, &recv));
	B2_TRY(l->ops->allgather(l, send, recv, b2_bmp_words(l->b)));
	B2_TRY(l->be->visited_in(l->bk, recv));
done:
	return error;
}

int b2_link_visited_in_place(b2_link *l)
{
	return l->be->device->visited_in_place(l->bk);
}

int b2_link_preds_in_place(b2_link *l, int answers)
{
	(void)answers;
	return l->be->pred_resolve(l->bk, NULL);
}

/* Requests (the owned vertices whose predecessor a row peer recorded) and
 * answers (those predecessors), one round each: 8 bytes per vertex the
 * fold brought, not a block of b words per peer. Where every fold carried
 * the visited state, each peer already knows what it will be asked
 * (backend.h): the answers' round only. */
int b2_link_preds_exchange(b2_link *l, int answers)
{
	int error = 0;
	const b2_backend *be = l->be;
	b2_msg *out = NULL;
	double *d = l->pred_time, t = b2_now(), u;
	B2_TRY(b2_calloc(&out, (size_t)l->n, sizeof *out, "messages"));
	if (answers) {
		/* the answers first: their wait is then not for the own lists,
		 * which the backend makes while the answers travel */
		B2_TRY(be->pred_answers(l->bk, NULL, out));
		d[2] = (u = b2_now()) - t;
		B2_TRY(be->pred_requests(l->bk, out));
		d[0] = (t = b2_now()) - u;
	} else {
		B2_TRY(be->pred_requests(l->bk, out));
		d[0] = (u = b2_now()) - t;
		B2_TRY(l->ops->round(l, out, NULL));
		d[1] = (t = b2_now()) - u;
		B2_TRY(be->pred_answers(l->bk, l->in, out));
		d[2] = (u = b2_now()) - t;
		t = u;
	}
	B2_TRY(l->ops->round(l, out, NULL));
	d[3] = (u = b2_now()) - t;
	B2_TRY(be->pred_resolve(l->bk, l->in));
	d[4] = b2_now() - u;
done:
	free(out);
	return error;
}
