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

int b2_xchg_init(b2_xchg *x, MPI_Comm comm, int64_t words, const b2_backend *be)
{
	int error = 0;
	memset(x, 0, sizeof *x);
	x->comm = comm;
	x->be = be;
	x->words = words;
	MPI_Comm_size(comm, &x->n);
	MPI_Comm_rank(comm, &x->me);
	B2_TRY(b2_calloc(&x->rreq, (size_t)x->n, sizeof *x->rreq, "MPI requests"));
	B2_TRY(b2_calloc(&x->sreq, (size_t)x->n, sizeof *x->sreq, "MPI requests"));
	B2_TRY(b2_calloc(&x->in, (size_t)x->n, sizeof *x->in, "messages"));
	if (x->n > 1) {
		for (int s = 0; s < 2; s++)
			B2_TRY(be->host_alloc(&x->buf[s], (size_t)x->n * (size_t)words * 4,
			                      "receive buffers"));
		B2_TRY(post(x));
	}
done:
	return b2_agree(error, comm);
}

int b2_xchg_round(b2_xchg *x, const b2_msg *out, int64_t b)
{
	int error = 0;
	if (x->n == 1)
		return 0;
	int64_t bw = b2_bmp_words(b);
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
	memset(x, 0, sizeof *x);
}
