/* mpi.c — the MPI transport (transport.h): the paper's point-to-point
 * scheme (section 3.3) through host buffers. Start the sends, wait for the
 * receives posted in the previous round, post the receives of the next
 * round. Double-buffered receive sets keep the data of this round valid
 * while the next round's receives are already posted. A message is a list
 * (tag B2_TAG_LIST, one 32-bit word per vertex) or a bitmap of b bits plus
 * a trailing count word (tag B2_TAG_BITMAP). */
#include <stdlib.h>
#include <string.h>
#include "b2.h"
#include "transport.h"

enum { B2_TAG_LIST = 1, B2_TAG_BITMAP = 2 };

typedef struct mpi_link {
	uint32_t *buf[2];      /* two sets of n receive buffers (n*words each) */
	MPI_Request *rreq, *sreq;
	int cur;               /* set whose receives are posted */
	int posted;
} mpi_link;

static int post(b2_link *l)
{
	int error = 0;
	mpi_link *m = l->impl;
	for (int p = 0; p < l->n; p++) {
		if (p == l->me) {
			m->rreq[p] = MPI_REQUEST_NULL;
			continue;
		}
		B2_TRY(b2_mpi_ok(MPI_Irecv(m->buf[m->cur] + (size_t)p * l->words, (int)l->words,
		                           MPI_UINT32_T, p, MPI_ANY_TAG, l->comm, &m->rreq[p]),
		                 "MPI_Irecv"));
	}
	m->posted = 1;
done:
	return error;
}

static void mpi_close(b2_link *l)
{
	mpi_link *m = l->impl;
	if (!m)
		return;
	if (m->posted)
		for (int p = 0; p < l->n; p++)
			if (m->rreq[p] != MPI_REQUEST_NULL) {
				MPI_Cancel(&m->rreq[p]);
				MPI_Wait(&m->rreq[p], MPI_STATUS_IGNORE);
			}
	for (int s = 0; s < 2; s++)
		if (m->buf[s])
			l->be->host_free(m->buf[s]);
	free(m->rreq);
	free(m->sreq);
	free(m);
	l->impl = NULL;
}

static int mpi_open(b2_link *l, int *ok)
{
	int error = 0;
	mpi_link *m = NULL;
	B2_TRY(b2_calloc(&m, 1, sizeof *m, "MPI link"));
	l->impl = m;
	B2_TRY(b2_calloc(&m->rreq, (size_t)l->n, sizeof *m->rreq, "MPI requests"));
	B2_TRY(b2_calloc(&m->sreq, (size_t)l->n, sizeof *m->sreq, "MPI requests"));
	for (int s = 0; s < 2; s++)
		B2_TRY(l->be->host_alloc(&m->buf[s], (size_t)l->n * (size_t)l->words * 4,
		                         "receive buffers"));
	B2_TRY(post(l));
done:
	error = b2_agree(error, l->comm);
	if (error)
		mpi_close(l);
	*ok = !error;
	return error;
}

static int mpi_round(b2_link *l, const b2_msg *out, const int64_t *known)
{
	int error = 0;
	mpi_link *m = l->impl;
	int64_t bw = b2_bmp_words(l->b);
	if (known)
		return b2_err(B2_EFAIL, "internal: the MPI transport has no device levels");
	for (int p = 0; p < l->n; p++) {
		m->sreq[p] = MPI_REQUEST_NULL;
		if (p == l->me)
			continue;
		int64_t words = out[p].bitmap ? bw + 1 : out[p].count;
		l->bytes_sent += 4.0 * (double)words;
		B2_TRY(b2_mpi_ok(MPI_Isend(out[p].data, (int)words, MPI_UINT32_T, p,
		                           out[p].bitmap ? B2_TAG_BITMAP : B2_TAG_LIST, l->comm,
		                           &m->sreq[p]),
		                 "MPI_Isend"));
	}
	for (int p = 0; p < l->n; p++) {
		MPI_Status st;
		int words = 0;
		l->in[p] = (b2_msg){NULL, 0, 0};
		if (p == l->me)
			continue;
		B2_TRY(b2_mpi_ok(MPI_Wait(&m->rreq[p], &st), "MPI_Wait (receive)"));
		MPI_Get_count(&st, MPI_UINT32_T, &words);
		l->in[p].data = m->buf[m->cur] + (size_t)p * l->words;
		if (st.MPI_TAG == B2_TAG_BITMAP) {
			if (words != bw + 1)
				B2_FAIL(B2_EFAIL, "internal: bitmap message of %d words, expected %lld",
				        words, (long long)(bw + 1));
			l->in[p].bitmap = 1;
			l->in[p].count = l->in[p].data[bw];
		} else {
			l->in[p].count = words;
		}
	}
	m->cur ^= 1;
	B2_TRY(post(l));
	for (int p = 0; p < l->n; p++)
		B2_TRY(b2_mpi_ok(MPI_Wait(&m->sreq[p], MPI_STATUS_IGNORE), "MPI_Wait (send)"));
done:
	return error;
}

static int mpi_allgather(b2_link *l, const uint32_t *send, uint32_t *recv, int64_t words)
{
	l->bytes_sent += 4.0 * (double)words * (l->n - 1);
	return b2_mpi_ok(MPI_Allgather(send, (int)words, MPI_UINT32_T, recv, (int)words,
	                               MPI_UINT32_T, l->comm), "MPI_Allgather");
}

const b2_link_ops b2_link_mpi = {
	.name = "mpi", .mem = B2_MEM_HOST, .device_levels = 0,
	.open = mpi_open, .round = mpi_round, .allgather = mpi_allgather, .close = mpi_close,
};
