/* mpi.c — the MPI transport (transport.h): the paper's point-to-point
 * scheme (section 3.3) through host buffers. Start the sends, wait for the
 * receives posted in the previous round, post the receives of the next
 * round. Double-buffered receive sets keep the data of this round valid
 * while the next round's receives are already posted. A message is a list
 * (tag B2_TAG_LIST, one 32-bit word per vertex) or a bitmap of b bits plus
 * a trailing count word (tag B2_TAG_BITMAP), or a compact bitmap with its
 * count word last (B2_TAG_COMPACT, compact.h). Carrying the visited state
 * (transport.h), the sender's own discoveries follow as a second message,
 * list or bitmap alike, on a duplicate of the link's communicator: its
 * receive matches nothing else. (One message of both parts, a derived
 * datatype, was slower: MPICH packs it instead of sending from place.) */
#include <stdlib.h>
#include <string.h>
#include "b2.h"
#include "transport.h"

enum { B2_TAG_LIST = 1, B2_TAG_BITMAP = 2, B2_TAG_COMPACT = 3 };

typedef struct mpi_link {
	uint32_t *buf[2];      /* two sets of n receive buffers (n*words each) */
	MPI_Request *rreq, *sreq;
	MPI_Comm carry;        /* the carried messages' communicator */
	uint32_t *cbuf;        /* n receive buffers of bmp_words(b) + 1 words for them
	                          (one set: the update after carry_in waits for
	                          the backend, before the next round) */
	MPI_Request *creq;     /* [2n] their receives, then their sends */
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
	if (m->cbuf)
		l->be->host_free(m->cbuf);
	if (m->carry != MPI_COMM_NULL)
		MPI_Comm_free(&m->carry);
	free(m->rreq);
	free(m->sreq);
	free(m->creq);
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
	m->carry = MPI_COMM_NULL;
	B2_TRY(b2_calloc(&m->creq, 2 * (size_t)l->n, sizeof *m->creq, "MPI requests"));
	for (int p = 0; p < 2 * l->n; p++)
		m->creq[p] = MPI_REQUEST_NULL;
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

static int64_t msg_words(const b2_msg *m, int64_t bw)
{
	return m->bitmap == B2_MSG_COMPACT ? m->words : m->bitmap ? bw + 1 : m->count;
}

static int msg_tag(const b2_msg *m)
{
	return m->bitmap == B2_MSG_COMPACT ? B2_TAG_COMPACT : m->bitmap ? B2_TAG_BITMAP : B2_TAG_LIST;
}

/* A received part of `words` words at data, as its tag says. */
static int part_in(b2_msg *in, uint32_t *data, int64_t words, int tag, int64_t bw)
{
	*in = (b2_msg){data, words, B2_MSG_LIST, 0};
	if (tag == B2_TAG_LIST)
		return 0;
	if (tag == B2_TAG_BITMAP ? words != bw + 1 : words < 1 || words > bw + 1)
		return b2_err(B2_EFAIL, "internal: bitmap message of %lld words, expected %s%lld",
		              (long long)words, tag == B2_TAG_BITMAP ? "" : "at most ", (long long)(bw + 1));
	in->bitmap = tag == B2_TAG_BITMAP ? B2_MSG_BITMAP : B2_MSG_COMPACT;
	in->words = words;
	in->count = data[words - 1];
	return 0;
}

/* What carrying the visited state needs, made at the first fold that
 * carries (every rank of the row there alike: the plan's). */
static int carry_open(b2_link *l)
{
	int error = 0;
	mpi_link *m = l->impl;
	B2_TRY(b2_mpi_ok(MPI_Comm_dup(l->comm, &m->carry), "MPI_Comm_dup"));
	B2_TRY(l->be->host_alloc(&m->cbuf, (size_t)l->n * (size_t)(b2_bmp_words(l->b) + 1) * 4,
	                         "receive buffers"));
done:
	return error;
}

static int mpi_round(b2_link *l, const b2_msg *out, const b2_msg *expect)
{
	int error = 0;
	mpi_link *m = l->impl;
	int64_t bw = b2_bmp_words(l->b);
	if (expect)
		return b2_err(B2_EFAIL, "internal: the MPI transport has no device levels");
	if (l->carrying && !m->cbuf)
		B2_TRY(carry_open(l));
	const int64_t cw = bw + 1;
	MPI_Request *csend = m->creq + l->n;
	for (int p = 0; p < l->n && l->carrying; p++) {
		if (p == l->me)
			continue;
		B2_TRY(b2_mpi_ok(MPI_Irecv(m->cbuf + (size_t)p * (size_t)cw, (int)cw, MPI_UINT32_T, p,
		                           MPI_ANY_TAG, m->carry, &m->creq[p]), "MPI_Irecv"));
	}
	for (int p = 0; p < l->n; p++) {
		m->sreq[p] = MPI_REQUEST_NULL;
		if (p == l->me)
			continue;
		for (int part = 0; part <= l->carrying; part++) {
			const b2_msg *o = part ? &out[l->me] : &out[p];
			const int64_t words = msg_words(o, bw);
			l->bytes_sent += 4.0 * (double)words;
			B2_TRY(b2_mpi_ok(MPI_Isend(o->data, (int)words, MPI_UINT32_T, p, msg_tag(o),
			                           part ? m->carry : l->comm, part ? &csend[p] : &m->sreq[p]),
			                 "MPI_Isend"));
		}
	}
	for (int p = 0; p < l->n; p++) {
		MPI_Status st;
		int words = 0;
		l->in[p] = l->carried[p] = (b2_msg){NULL, 0, 0, 0};
		if (p == l->me)
			continue;
		B2_TRY(b2_mpi_ok(MPI_Wait(&m->rreq[p], &st), "MPI_Wait (receive)"));
		MPI_Get_count(&st, MPI_UINT32_T, &words);
		B2_TRY(part_in(&l->in[p], m->buf[m->cur] + (size_t)p * l->words, words, st.MPI_TAG, bw));
		if (!l->carrying)
			continue;
		B2_TRY(b2_mpi_ok(MPI_Wait(&m->creq[p], &st), "MPI_Wait (receive)"));
		MPI_Get_count(&st, MPI_UINT32_T, &words);
		B2_TRY(part_in(&l->carried[p], m->cbuf + (size_t)p * (size_t)cw, words, st.MPI_TAG, bw));
	}
	m->cur ^= 1;
	B2_TRY(post(l));
	for (int p = 0; p < l->n; p++) {
		B2_TRY(b2_mpi_ok(MPI_Wait(&m->sreq[p], MPI_STATUS_IGNORE), "MPI_Wait (send)"));
		B2_TRY(b2_mpi_ok(MPI_Wait(&csend[p], MPI_STATUS_IGNORE), "MPI_Wait (send)"));
	}
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
	.name = "mpi", .mem = B2_MEM_HOST, .carry = 1,
	.open = mpi_open, .round = mpi_round, .allgather = mpi_allgather,
	.visited = b2_link_visited_gather, .preds = b2_link_preds_exchange, .close = mpi_close,
};
