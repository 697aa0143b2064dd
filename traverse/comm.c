/* comm.c — the expand and fold exchanges (paper, section 3.3): start the
 * sends, wait for the receives posted in the previous round, post the
 * receives of the next round. Double-buffered receive sets keep the data of
 * this round valid while the next round's receives are already posted.
 * A message is a list (tag B2_TAG_LIST, one 32-bit word per vertex) or a
 * bitmap of b bits plus a trailing count word (tag B2_TAG_BITMAP). */
#include <stdlib.h>
#include <string.h>
#include "b2.h"
#include "comm.h"

enum { B2_TAG_LIST = 1, B2_TAG_BITMAP = 2 };

static int post(b2_xchg *x)
{
	int error = 0;
	for (int p = 0; p < x->n; p++) {
		if (p == x->me) {
			x->rreq[p] = MPI_REQUEST_NULL;
			continue;
		}
		B2_TRY(b2_mpi_ok(MPI_Irecv(x->buf[x->cur] + (size_t)p * x->words, (int)x->words,
		                           MPI_UINT32_T, p, MPI_ANY_TAG, x->comm, &x->rreq[p]),
		                 "MPI_Irecv"));
	}
	x->posted = 1;
done:
	return error;
}

/* Device-direct mode when all ranks of the exchange share this node and
 * every rank maps every peer's receive area; all or none. */
static int try_peer_mode(b2_xchg *x)
{
	int error = 0, local = 0, fail = 0;
	MPI_Comm node = MPI_COMM_NULL;
	char *blobs = NULL;
	B2_TRY(b2_mpi_ok(MPI_Comm_split_type(x->comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node),
	                 "MPI_Comm_split_type"));
	MPI_Comm_size(node, &local);
	if (b2_agree(local != x->n, x->comm))
		goto done;
	B2_TRY(b2_calloc(&blobs, (size_t)x->n, B2_PEER_BLOB, "IPC handles"));
	fail = x->be->peer_export(x->bk, blobs + (size_t)x->me * B2_PEER_BLOB) != 0;
	B2_TRY(b2_mpi_ok(MPI_Allgather(MPI_IN_PLACE, B2_PEER_BLOB, MPI_BYTE, blobs, B2_PEER_BLOB,
	                               MPI_BYTE, x->comm),
	                 "MPI_Allgather"));
	if (!fail)
		fail = x->be->peer_open(x->bk, x->dir, x->n, x->me, blobs) != 0;
	if (b2_agree(fail, x->comm)) {
		x->be->peer_open(x->bk, x->dir, x->n, x->me, NULL);
		goto done;
	}
	x->peer = 1;
	B2_TRY(b2_calloc(&x->hdr_out, (size_t)x->n, 8, "message headers"));
	B2_TRY(b2_calloc(&x->hdr_in, (size_t)x->n, 8, "message headers"));
done:
	free(blobs);
	if (node != MPI_COMM_NULL)
		MPI_Comm_free(&node);
	return error;
}

int b2_xchg_init(b2_xchg *x, MPI_Comm comm, int64_t words, const b2_backend *be, void *bk,
                 int dir, int try_peer)
{
	int error = 0;
	memset(x, 0, sizeof *x);
	x->comm = comm;
	x->be = be;
	x->bk = bk;
	x->dir = dir;
	x->words = words;
	MPI_Comm_size(comm, &x->n);
	MPI_Comm_rank(comm, &x->me);
	B2_TRY(b2_calloc(&x->rreq, (size_t)x->n, sizeof *x->rreq, "MPI requests"));
	B2_TRY(b2_calloc(&x->sreq, (size_t)x->n, sizeof *x->sreq, "MPI requests"));
	B2_TRY(b2_calloc(&x->in, (size_t)x->n, sizeof *x->in, "messages"));
	if (x->n > 1 && try_peer && be->peer_export)
		B2_TRY(try_peer_mode(x));
	if (x->n > 1 && !x->peer) {
		for (int s = 0; s < 2; s++)
			B2_TRY(be->host_alloc(&x->buf[s], (size_t)x->n * (size_t)words * 4,
			                      "receive buffers"));
		B2_TRY(post(x));
	}
done:
	return b2_agree(error, comm);
}

/* Peer mode: the payloads go device to device, then the headers (which also
 * tell the receiver that its data is complete) by one all-to-all. */
static int peer_round(b2_xchg *x, const b2_msg *out, int64_t bw)
{
	int error = 0;
	B2_TRY(x->be->peer_send(x->bk, x->dir, out, x->n, x->me));
	for (int p = 0; p < x->n; p++) {
		x->hdr_out[p] = p == x->me ? 0 : out[p].count | (int64_t)(out[p].bitmap != 0) << 62;
		if (p != x->me)
			x->bytes_sent += 4.0 * (double)(out[p].bitmap ? bw : out[p].count);
	}
	B2_TRY(b2_mpi_ok(MPI_Alltoall(x->hdr_out, 1, MPI_INT64_T, x->hdr_in, 1, MPI_INT64_T, x->comm),
	                 "MPI_Alltoall (message headers)"));
	for (int p = 0; p < x->n; p++) {
		x->in[p].data = NULL;
		x->in[p].bitmap = p != x->me && (x->hdr_in[p] >> 62 & 1);
		x->in[p].count = p == x->me ? 0 : x->hdr_in[p] & ((INT64_C(1) << 62) - 1);
	}
done:
	return error;
}

int b2_xchg_round(b2_xchg *x, const b2_msg *out, int64_t b)
{
	int error = 0;
	if (x->n == 1)
		return 0;
	int64_t bw = b2_bmp_words(b);
	if (x->peer)
		return peer_round(x, out, bw);
	for (int p = 0; p < x->n; p++) {
		x->sreq[p] = MPI_REQUEST_NULL;
		if (p == x->me)
			continue;
		int64_t words = out[p].bitmap ? bw + 1 : out[p].count;
		x->bytes_sent += 4.0 * (double)words;
		B2_TRY(b2_mpi_ok(MPI_Isend(out[p].data, (int)words, MPI_UINT32_T, p,
		                           out[p].bitmap ? B2_TAG_BITMAP : B2_TAG_LIST, x->comm,
		                           &x->sreq[p]),
		                 "MPI_Isend"));
	}
	for (int p = 0; p < x->n; p++) {
		MPI_Status st;
		int words = 0;
		x->in[p].data = NULL;
		x->in[p].count = 0;
		x->in[p].bitmap = 0;
		if (p == x->me)
			continue;
		B2_TRY(b2_mpi_ok(MPI_Wait(&x->rreq[p], &st), "MPI_Wait (receive)"));
		MPI_Get_count(&st, MPI_UINT32_T, &words);
		x->in[p].data = x->buf[x->cur] + (size_t)p * x->words;
		if (st.MPI_TAG == B2_TAG_BITMAP) {
			if (words != bw + 1)
				B2_FAIL(B2_EFAIL, "internal: bitmap message of %d words, expected %lld",
				        words, (long long)(bw + 1));
			x->in[p].bitmap = 1;
			x->in[p].count = x->in[p].data[bw];
		} else {
			x->in[p].count = words;
		}
	}
	x->cur ^= 1;
	B2_TRY(post(x));
	for (int p = 0; p < x->n; p++)
		B2_TRY(b2_mpi_ok(MPI_Wait(&x->sreq[p], MPI_STATUS_IGNORE), "MPI_Wait (send)"));
done:
	return error;
}

void b2_xchg_free(b2_xchg *x)
{
	if (x->posted) {
		for (int p = 0; p < x->n; p++)
			if (x->rreq[p] != MPI_REQUEST_NULL) {
				MPI_Cancel(&x->rreq[p]);
				MPI_Wait(&x->rreq[p], MPI_STATUS_IGNORE);
			}
	}
	for (int s = 0; s < 2; s++)
		if (x->buf[s])
			x->be->host_free(x->buf[s]);
	free(x->rreq);
	free(x->sreq);
	free(x->in);
	free(x->hdr_out);
	free(x->hdr_in);
	memset(x, 0, sizeof *x);
}
