/* snap_deal.c — blocks of text: the list of those a rank parsed, and a
 * gzip input's, which rank 0 inflates and deals to the other ranks. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "snap_import.h"

uint64_t snap_count_nl(const char *p, size_t n)
{
	uint64_t k = 0;
	const char *e = p + n;
	while (p < e && (p = memchr(p, '\n', (size_t)(e - p))) != NULL) {
		k++;
		p++;
	}
	return k;
}

int snap_blocks_add(snap_blocks *b, uint64_t id, uint64_t tuples, uint64_t lines)
{
	if (b->n == b->cap) {
		size_t nc = b->cap ? 2 * b->cap : 64;
		uint64_t *a = realloc(b->id, nc * sizeof *a), *t, *l;
		if (!a)
			return b2_err(B2_EIO, "out of host memory: block list");
		b->id = a;
		if (!(t = realloc(b->tuples, nc * sizeof *t)))
			return b2_err(B2_EIO, "out of host memory: block list");
		b->tuples = t;
		if (!(l = realloc(b->lines, nc * sizeof *l)))
			return b2_err(B2_EIO, "out of host memory: block list");
		b->lines = l;
		b->cap = nc;
	}
	b->id[b->n] = id;
	b->tuples[b->n] = tuples;
	b->lines[b->n] = lines;
	b->n++;
	return 0;
}

#define TAG_BLOCK 17

/* A gzip input, on rank 0: a thread inflates (and cuts blocks) while the
 * main thread parses them (one rank) or deals them to ranks 1..P-1 in turn
 * (P > 1), so inflating, the one part that cannot be shared, never waits
 * for a parse or a transfer. Blocks pass through NSLOT copies. */
#define NSLOT 3
typedef struct gzpipe {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	snap_lr *lr;
	char *buf[NSLOT];
	size_t len[NSLOT];
	uint64_t in_total[NSLOT];
	int full[NSLOT];
	int done, stop, error;
	uint64_t pend_nl; /* line ends before the bad spot (reader B2_EDATA) */
	char why[300];
} gzpipe;

static void *gz_producer(void *arg)
{
	gzpipe *g = arg;
	char why[300] = "";
	for (int i = 0;; i = (i + 1) % NSLOT) {
		pthread_mutex_lock(&g->mu);
		while (g->full[i] && !g->stop)
			pthread_cond_wait(&g->cv, &g->mu);
		int stop = g->stop;
		pthread_mutex_unlock(&g->mu);
		if (stop)
			break;
		char *text;
		size_t len;
		int error = snap_lr_block(g->lr, &text, &len, why, sizeof why);
		if (!error && len)
			memcpy(g->buf[i], text, len);
		pthread_mutex_lock(&g->mu);
		if (error || len == 0) {
			g->error = error;
			if (error == B2_EDATA) {
				snprintf(g->why, sizeof g->why, "%s", why);
				g->pend_nl = snap_count_nl(g->lr->buf + g->lr->beg, g->lr->end - g->lr->beg);
			}
			g->done = 1;
		} else {
			g->len[i] = len;
			g->in_total[i] = g->lr->src->in_total;
			g->full[i] = 1;
		}
		pthread_cond_broadcast(&g->cv);
		pthread_mutex_unlock(&g->mu);
		if (error || len == 0)
			break;
	}
	return NULL;
}

int snap_gz_deal(snap_parser *ps, snap_lr *lr, snap_blocks *bl, b2_progress *pg, int P, uint64_t *nblocks,
                    snap_err *deal_err)
{
	int error = 0, started = 0;
	uint64_t k = 0; /* blocks dealt */
	gzpipe g;
	pthread_t th;
	memset(&g, 0, sizeof g);
	g.lr = lr;
	pthread_mutex_init(&g.mu, NULL);
	pthread_cond_init(&g.cv, NULL);
	for (int i = 0; i < NSLOT; i++)
		B2_TRY(b2_alloc(&g.buf[i], lr->cap + 1, "text block buffer"));
	if (pthread_create(&th, NULL, gz_producer, &g) != 0)
		B2_FAIL(B2_EIO, "cannot start the inflating thread");
	started = 1;
	ps->block = 0;
	ps->lines = 0;
	for (int i = 0;; i = (i + 1) % NSLOT) {
		pthread_mutex_lock(&g.mu);
		while (!g.full[i] && !g.done)
			pthread_cond_wait(&g.cv, &g.mu);
		int have = g.full[i];
		pthread_mutex_unlock(&g.mu);
		if (!have)
			break; /* done, and every block before it handled */
		if (P == 1) {
			if (snap_parse(ps, g.buf[i], g.len[i]) == B2_EIO)
				error = B2_EIO;
		} else {
			MPI_Request req;
			int dest = 1 + (int)(k % (uint64_t)(P - 1));
			error = b2_mpi_ok(MPI_Isend(g.buf[i], (int)g.len[i], MPI_CHAR, dest, TAG_BLOCK, MPI_COMM_WORLD,
			                            &req), "MPI_Isend");
			if (!error)
				error = snap_wait(&req, "MPI_Isend");
			k++;
		}
		b2_progress_step(pg, (double)g.in_total[i]);
		pthread_mutex_lock(&g.mu);
		g.full[i] = 0;
		if (error || ps->err.code)
			g.stop = 1;
		pthread_cond_broadcast(&g.cv);
		pthread_mutex_unlock(&g.mu);
		if (g.stop)
			break;
	}
	pthread_join(th, NULL);
	started = 0;
	if (!error && g.error && g.error != B2_EDATA)
		error = g.error; /* printed by the thread */
	if (!error && g.error == B2_EDATA) {
		if (P == 1)
			snap_err_set(&ps->err, 0, ps->lines + g.pend_nl + 1, "%s", g.why);
		else /* in the block after the last one dealt */
			snap_err_set(deal_err, k, g.pend_nl + 1, "%s", g.why);
	}
	if (!error && P == 1)
		error = snap_blocks_add(bl, 0, ps->out->total, ps->lines);
done:
	if (started) {
		pthread_mutex_lock(&g.mu);
		g.stop = 1;
		pthread_cond_broadcast(&g.cv);
		pthread_mutex_unlock(&g.mu);
		pthread_join(th, NULL);
	}
	if (P > 1) /* an empty message ends, whatever happened */
		for (int r = 1; r < P; r++) {
			int rc = b2_mpi_ok(MPI_Send(NULL, 0, MPI_CHAR, r, TAG_BLOCK, MPI_COMM_WORLD), "MPI_Send");
			if (!error)
				error = rc;
		}
	*nblocks = P == 1 ? 1 : k;
	for (int i = 0; i < NSLOT; i++)
		free(g.buf[i]);
	pthread_cond_destroy(&g.cv);
	pthread_mutex_destroy(&g.mu);
	return error;
}

/* Ranks 1..P-1 with a gzip input: parse the blocks rank 0 sends. */
int snap_gz_take(snap_parser *ps, snap_blocks *bl, uint64_t block_bytes, int P)
{
	int error = 0;
	char *buf = NULL;
	uint64_t nth = 0;
	B2_TRY(b2_alloc(&buf, block_bytes + 1, "text block buffer"));
	for (;;) {
		MPI_Status stt;
		int len = 0;
		MPI_Request req;
		/* rank 0 inflates more slowly than we parse: wait without spinning */
		B2_TRY(b2_mpi_ok(MPI_Irecv(buf, (int)block_bytes, MPI_CHAR, 0, TAG_BLOCK, MPI_COMM_WORLD, &req),
		                 "MPI_Irecv"));
		int done = 0;
		for (long ns = 2000;; ns = ns < 50000 ? 2 * ns : 50000) { /* snap_wait, keeping the status */
			B2_TRY(b2_mpi_ok(MPI_Test(&req, &done, &stt), "MPI_Test"));
			if (done)
				break;
			struct timespec ts = {0, ns};
			nanosleep(&ts, NULL);
		}
		MPI_Get_count(&stt, MPI_CHAR, &len);
		if (len == 0)
			break;
		uint64_t id = nth * (uint64_t)(P - 1) + (uint64_t)(b2_rank - 1), t0 = ps->out->total;
		nth++;
		ps->block = id;
		ps->lines = 0;
		if (!ps->err.code && !error)
			if (snap_parse(ps, buf, (size_t)len) == B2_EIO)
				error = B2_EIO; /* keep receiving: rank 0 is still sending */
		if (!error)
			error = snap_blocks_add(bl, id, ps->out->total - t0, ps->lines);
	}
done:
	free(buf);
	return error;
}
