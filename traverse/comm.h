/* comm.h — expand (grid column) and fold (grid row) exchanges with the
 * paper's point-to-point scheme, and the predecessor exchange along rows. */
#ifndef B2_TRAVERSE_COMM_H
#define B2_TRAVERSE_COMM_H

#include <mpi.h>
#include "backend.h"

typedef struct b2_xchg {
	MPI_Comm comm;
	int n, me;            /* peers in comm (self included), own rank in it */
	int64_t words;        /* capacity of one receive buffer */
	uint32_t *buf[2];     /* two sets of n receive buffers (n*words each) */
	MPI_Request *rreq, *sreq;
	int cur;              /* set whose receives are posted */
	int posted;
	const b2_backend *be; /* allocates the buffers (pinned for CUDA) */
	void *bk;
	int dir;              /* B2_DIR_EXPAND or B2_DIR_FOLD */
	int peer;             /* 1: device-direct copies (backend peer_*), MPI carries
	                         only the message headers */
	int64_t *hdr_out, *hdr_in; /* [n] count | bitmap flag << 62 (peer mode) */
	b2_msg *in;           /* received messages of the last round */
	double bytes_sent;    /* statistics */
} b2_xchg;

/* Collective over comm. With try_peer, uses the backend's device-direct
 * copies when every rank of comm is on this node and all can map each
 * other's buffers (decided together); otherwise MPI through host buffers,
 * whose first round of receives it posts. */
int b2_xchg_init(b2_xchg *x, MPI_Comm comm, int64_t words, const b2_backend *be, void *bk,
                 int dir, int try_peer);
/* One round: start the sends of out[p] (p != me), wait for the receives
 * posted in the previous round (x->in[p] then describes them), post the next
 * receives, wait for the sends. */
int b2_xchg_round(b2_xchg *x, const b2_msg *out, int64_t b);
/* Cancels the outstanding receives and frees everything. */
void b2_xchg_free(b2_xchg *x);

#endif
