/* snap_relabel.c — sparse original ids to 0..N-1, in increasing order of
 * original id, computed by all ranks together. The result is the same for
 * any P, and with P > 1 no rank holds the whole id set.
 *
 * One rank: a bitmap over [min id, max id] with per-word prefix counts (new
 * id = ones before the id), or for sparse ids a hash set whose keys are
 * sorted once.
 *
 * P > 1, ids dense enough for bitmaps (the usual case): presence bitmaps
 * (below, presence_relabel): each rank marks its own ids, the owners of
 * slices of the id range count what is present, and no end leaves its rank.
 *
 * P > 1, sparse ids (or --id-map hash): the id space is cut into P ranges by
 * splitters drawn from a sample of all tuple ends (sample sort), so each rank
 * owns the ids of one range. Two passes over the tuples, in rounds of `batch`
 * ends: (1) every end is sent to its owner, which marks it seen; the owners
 * then number their distinct ids and an exclusive scan gives each its first
 * new id; (2) every end is sent to its owner again, which answers with the
 * new id, written back in place. An owner whose range is dense enough marks
 * ids in a bitmap, else in a hash set.
 *
 * Matrix Market needs none of this (snap_declared, at the end): the matrix
 * declares its vertices, so vertex numbers are the indices less one. */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "snap_import.h"
#include "snap_owner.h"

int snap_wait(MPI_Request *req, const char *what)
{
	int done = 0;
	long ns = 0;
	for (int spins = 0;; spins++) {
		int rc = MPI_Test(req, &done, MPI_STATUS_IGNORE);
		if (rc != MPI_SUCCESS)
			return b2_mpi_ok(rc, what);
		if (done)
			return 0;
		if (spins < 64)
			continue;
		/* short sleeps, 2 us doubling to 50 us: long ones would slow the
		 * transfers, which progress only inside MPI calls */
		ns = ns ? (ns < 50000 ? 2 * ns : 50000) : 2000;
		struct timespec ts = {0, ns};
		nanosleep(&ts, NULL);
	}
}

int snap_agree(int code, MPI_Comm comm)
{
	int all = code, error = 0;
	MPI_Request r;
	if (code)
		return b2_agree(code, comm); /* the same collective, with its deadline */
	B2_TRY(b2_mpi_ok(MPI_Iallreduce(&code, &all, 1, MPI_INT, MPI_MAX, comm, &r), "MPI_Iallreduce"));
	B2_TRY(snap_wait(&r, "MPI_Iallreduce"));
	error = all;
done:
	return error;
}

/* ---- exchange rounds --------------------------------------------------------- */

/* Recently exchanged ids (direct-mapped), with --id-cache: high-degree ids
 * recur, and a hit needs no message. Pass 1 remembers ids sent; pass 2 ids
 * with their answer. Off by default: within one node a message is a memory
 * copy, cheaper than the cache's random accesses; across nodes it may pay. */
#define CACHE_BITS 16
typedef struct xch {
	MPI_Comm comm;
	int P, me;
	uint64_t *cid, *cval; /* 2^CACHE_BITS each; NULL: no cache */
	const uint64_t *spl; /* P-1 splitters: owner(x) = how many are <= x */
	int *scnt, *sdis, *rcnt, *rdis, *cur;
	uint64_t *sbuf, *rbuf;
	uint32_t *own;
	uint64_t rcap;
} xch;

static inline uint32_t owner_of(const uint64_t *restrict spl, int P, uint64_t x)
{
	if (P <= 8) { /* branch-free count of the splitters <= x */
		uint32_t w = 0;
		for (int j = 0; j < P - 1; j++)
			w += spl[j] <= x;
		return w;
	}
	int lo = 0, hi = P - 1;
	while (lo < hi) {
		int mid = (lo + hi) / 2;
		if (spl[mid] <= x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (uint32_t)lo;
}

/* A round's ends: up to MAXSEG pieces of chunks (chunks hold at most 2^21
 * ends, and a round may want more). */
#define MAXSEG 64
typedef struct slice {
	uint64_t *x[MAXSEG];
	uint64_t n[MAXSEG];
	int nseg;
} slice;

/* One round on the ends of sl (possibly none). translate 0: the owners mark
 * what they get; 1: they answer with new ids, written back into x. Returns
 * an error all ranks agreed on; *local is an error of this rank alone (from
 * marking), carried into the next round's agreement (one agreement a round:
 * every synchronisation costs when ranks share cores). */
static inline uint64_t cslot(uint64_t x)
{
	return (x * UINT64_C(0x9e3779b97f4a7c15)) >> (64 - CACHE_BITS);
}

#define DONE UINT32_MAX /* own[] of an end handled without a message */

static int xch_round(xch *X, snap_owner *o, const slice *sl, int translate, int *local)
{
	int error = *local, P = X->P, me = X->me;
	uint64_t k = 0;
	const uint64_t *restrict spl = X->spl;
	uint32_t *restrict own = X->own;
	int *restrict scnt = X->scnt, *restrict cur = X->cur;
	uint64_t *restrict sbuf = X->sbuf, *restrict cid = X->cid, *restrict cval = X->cval;
	const int bitmap = o->mode == SNAP_MAP_BITMAP;
	memset(scnt, 0, (size_t)P * sizeof(int));
	/* ends this rank owns, and cache hits, are handled here, in place */
	for (int g = 0; g < sl->nseg; g++) {
		uint64_t *restrict x = sl->x[g];
		uint64_t n = sl->n[g];
		uint32_t *restrict ow = own + k;
		for (uint64_t i = 0; i < n; i++) {
			uint64_t v = x[i];
			uint32_t w = owner_of(spl, P, v);
			if (w == (uint32_t)me) {
				ow[i] = DONE;
				if (translate)
					x[i] = snap_owner_map(o, v);
				else if (bitmap) { /* in range: owner_of said so */
					uint64_t d = v - o->lo;
					o->bw[d >> 6][0] |= UINT64_C(1) << (d & 63);
				} else if (!error)
					error = snap_owner_mark(o, &x[i], 1);
				continue;
			}
			if (cid) {
				uint64_t h = cslot(v);
				if (cid[h] == v) {
					ow[i] = DONE;
					if (translate)
						x[i] = cval[h];
					continue;
				}
				if (!translate)
					cid[h] = v;
			}
			ow[i] = w;
			scnt[w]++;
		}
		k += n;
	}
	*local = error;
	X->sdis[0] = 0;
	for (int r = 1; r < P; r++)
		X->sdis[r] = X->sdis[r - 1] + scnt[r - 1];
	memcpy(cur, X->sdis, (size_t)P * sizeof(int));
	k = 0;
	for (int g = 0; g < sl->nseg; g++) {
		const uint64_t *restrict x = sl->x[g];
		uint64_t n = sl->n[g];
		const uint32_t *restrict ow = own + k;
		for (uint64_t i = 0; i < n; i++)
			if (ow[i] != DONE)
				sbuf[cur[ow[i]]++] = x[i];
		k += n;
	}
	MPI_Request req;
	B2_TRY(b2_mpi_ok(MPI_Ialltoall(scnt, 1, MPI_INT, X->rcnt, 1, MPI_INT, X->comm, &req), "MPI_Ialltoall"));
	B2_TRY(snap_wait(&req, "MPI_Ialltoall"));
	uint64_t nr = 0;
	for (int r = 0; r < P; r++) {
		X->rdis[r] = (int)nr;
		nr += (uint64_t)X->rcnt[r];
	}
	if (!error && nr > X->rcap) {
		free(X->rbuf);
		X->rcap = nr;
		error = b2_alloc(&X->rbuf, nr * sizeof(uint64_t), "id exchange buffer");
	}
	/* no rank may be left waiting in the exchange below */
	B2_TRY(snap_agree(error, X->comm));
	B2_TRY(b2_mpi_ok(MPI_Ialltoallv(sbuf, scnt, X->sdis, MPI_UINT64_T, X->rbuf, X->rcnt,
	                                X->rdis, MPI_UINT64_T, X->comm, &req), "MPI_Ialltoallv"));
	B2_TRY(snap_wait(&req, "MPI_Ialltoallv"));
	if (!translate) {
		if (!*local)
			*local = snap_owner_mark(o, X->rbuf, nr);
	} else {
		uint64_t *restrict rb = X->rbuf;
		for (uint64_t i = 0; i < nr; i++)
			rb[i] = snap_owner_map(o, rb[i]);
		B2_TRY(b2_mpi_ok(MPI_Ialltoallv(rb, X->rcnt, X->rdis, MPI_UINT64_T, sbuf, scnt,
		                                X->sdis, MPI_UINT64_T, X->comm, &req), "MPI_Ialltoallv"));
		B2_TRY(snap_wait(&req, "MPI_Ialltoallv"));
		memcpy(cur, X->sdis, (size_t)P * sizeof(int));
		k = 0;
		for (int g = 0; g < sl->nseg; g++) {
			uint64_t *restrict x = sl->x[g];
			uint64_t n = sl->n[g];
			const uint32_t *restrict ow = own + k;
			for (uint64_t i = 0; i < n; i++)
				if (ow[i] != DONE) {
					uint64_t v = x[i], nv = sbuf[cur[ow[i]]++];
					if (cid) {
						uint64_t h = cslot(v);
						cid[h] = v;
						cval[h] = nv;
					}
					x[i] = nv;
				}
			k += n;
		}
	}
done:
	return error;
}

/* Walks the store's ends in slices of at most batch. */
typedef struct cursor {
	snap_store *st;
	size_t c;
	uint64_t off;
} cursor;

/* The next at most batch ends (none at the end), in at most MAXSEG pieces. */
static void next_slice(cursor *k, uint64_t batch, slice *sl)
{
	uint64_t want = batch;
	sl->nseg = 0;
	while (want > 0 && sl->nseg < MAXSEG) {
		while (k->c < k->st->nch && k->off >= 2 * k->st->ch[k->c].n) {
			k->c++;
			k->off = 0;
		}
		if (k->c == k->st->nch)
			break;
		snap_chunk *ch = &k->st->ch[k->c];
		uint64_t left = 2 * ch->n - k->off, n = left < want ? left : want;
		sl->x[sl->nseg] = (uint64_t *)(ch->a + k->off);
		sl->n[sl->nseg++] = n;
		k->off += n;
		want -= n;
	}
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* Splitters from a sample of every rank's ends, in proportion to its count. */
static int splitters(uint64_t *spl, snap_store *st, uint64_t total, MPI_Comm comm, int P)
{
	int error = 0;
	uint64_t *mine = NULL, *all = NULL;
	int *cnt = NULL, *dis = NULL;
	uint64_t ends = 2 * st->total, want = 256 * (uint64_t)P;
	uint64_t k = ends ? (st->total * want + total - 1) / total : 0;
	if (k > ends)
		k = ends;
	B2_TRY(b2_alloc(&mine, (k ? k : 1) * sizeof(uint64_t), "id sample"));
	/* sample j is end number floor(j * ends / k): one walk over the chunks */
	uint64_t j = 0, seen = 0;
	for (size_t c = 0; c < st->nch && j < k; c++) {
		uint64_t m = 2 * st->ch[c].n;
		while (j < k) {
			uint64_t pos = (uint64_t)((unsigned __int128)j * ends / k);
			if (pos >= seen + m)
				break;
			mine[j++] = (uint64_t)st->ch[c].a[pos - seen];
		}
		seen += m;
	}
	int kk = (int)k;
	B2_TRY(b2_calloc(&cnt, (size_t)P, sizeof(int), "sample counts"));
	B2_TRY(b2_calloc(&dis, (size_t)P, sizeof(int), "sample counts"));
	B2_TRY(b2_mpi_ok(MPI_Allgather(&kk, 1, MPI_INT, cnt, 1, MPI_INT, comm), "MPI_Allgather"));
	int ns = 0;
	for (int r = 0; r < P; r++) {
		dis[r] = ns;
		ns += cnt[r];
	}
	B2_TRY(b2_alloc(&all, (size_t)(ns ? ns : 1) * sizeof(uint64_t), "id sample"));
	B2_TRY(b2_mpi_ok(MPI_Allgatherv(mine, kk, MPI_UINT64_T, all, cnt, dis, MPI_UINT64_T, comm),
	                 "MPI_Allgatherv"));
	qsort(all, (size_t)ns, sizeof(uint64_t), cmp_u64);
	for (int r = 0; r < P - 1; r++)
		spl[r] = ns ? all[(uint64_t)(r + 1) * (uint64_t)ns / (uint64_t)P] : 0;
done:
	free(mine);
	free(all);
	free(cnt);
	free(dis);
	return error;
}

/* ---- presence bitmaps (P > 1, dense ids) ------------------------------------ */

/* When the ids span a range small enough for bitmaps, no end leaves its rank:
 *  1. every rank marks the ids of its own tuples in a bitmap over the range;
 *  2. the range is cut into P slices of whole 64-id words, rank q owning
 *     slice q; every rank sends each owner its part of the bitmap;
 *  3. an owner ORs the parts it got: the ids present in its slice, which it
 *     numbers in order (an exclusive scan of the counts gives its first new
 *     id) and lists for /vertex_ids;
 *  4. it answers every rank, per word of the slice, with the new id of the
 *     word's first present id and a *count word*: a 64-bit word whose ones
 *     below each id of that rank are as many as the present ids below it in
 *     the word (built from the counts alone: below the rank's i-th id of the
 *     word it holds, from where the (i-1)-th sits, one bit per present id in
 *     between, packed low; so it tells how many ids other ranks have between
 *     two of the rank's ids, not which);
 *  5. every end x then maps to base[w] + popcount(count[w] below x): the same
 *     two words per end and the same loop as one rank's bitmap.
 * A rank holds 16 bytes per word of the range (its marks, then its answers)
 * and, as an owner, the parts of its slice; never the whole id set. */

/* Bytes a rank holds at most for W words of presence bitmaps (P slices of
 * W/P words as owner, its records, and the answers it sends). */
#define PRESENCE_BYTES(W, P) (40 * ((W) + (uint64_t)(P)))

/* MPI counts are int: a rank receives 2 W uint64 of answers, sends 2 (W + P). */
static int presence_fits(uint64_t W, int P)
{
	return W <= (uint64_t)(INT32_MAX / 2) - (uint64_t)P;
}

/* The count word of a word whose present ids are g, for the ids l (within g). */
static inline uint64_t count_word(uint64_t g, uint64_t l)
{
	uint64_t e = 0, pos = 0, before = 0;
	for (; l; l &= l - 1) {
		uint64_t b = (uint64_t)__builtin_ctzll(l), r = pop64(g & ((UINT64_C(1) << b) - 1));
		/* r - before <= b - pos: the ones fit below b */
		e |= ((UINT64_C(1) << (r - before)) - 1) << pos;
		pos = b;
		before = r;
	}
	return e;
}

static int presence_relabel(snap_relabel_out *out, snap_store *st, uint64_t lo, uint64_t W, MPI_Comm comm,
                            int P, int me)
{
	int error = 0;
	uint64_t *wlo = NULL, *nd = NULL, *rp = NULL, *gw = NULL, (*ans)[2] = NULL;
	int *scnt = NULL, *sdis = NULL, *rcnt = NULL, *rdis = NULL;
	snap_owner o;
	MPI_Request req;
	double t0 = b2_now();
	memset(&o, 0, sizeof o);

	error = b2_alloc(&wlo, ((size_t)P + 1) * sizeof(uint64_t), "presence slices");
	if (!error)
		error = b2_alloc(&nd, (size_t)P * sizeof(uint64_t), "presence counts");
	if (!error)
		error = b2_alloc(&scnt, 4 * (size_t)P * sizeof(int), "exchange counts");
	if (!error)
		error = b2_calloc(&o.bw, W ? W : 1, 2 * sizeof(uint64_t), "id bitmap");
	B2_TRY(snap_agree(error, comm));
	sdis = scnt + P;
	rcnt = sdis + P;
	rdis = rcnt + P;
	for (int q = 0; q < P; q++) {
		uint64_t a, b;
		b2_share(&a, &b, W, P, q);
		wlo[q] = a;
	}
	wlo[P] = W;
	const uint64_t w0 = wlo[me], wq = wlo[me + 1] - w0;
	uint64_t(*restrict bw)[2] = o.bw;

	/* 1. this rank's ids */
	for (size_t c = 0; c < st->nch; c++) {
		const uint64_t *restrict x = (const uint64_t *)st->ch[c].a;
		for (uint64_t i = 0, n = 2 * st->ch[c].n; i < n; i++) {
			uint64_t d = x[i] - lo;
			bw[d >> 6][0] |= UINT64_C(1) << (d & 63);
		}
	}
	out->t_mark = b2_now() - t0;

	/* 2. each owner gets every rank's part of its slice (every other word of
	 * the records: a resized type) */
	error = b2_alloc(&rp, ((size_t)P * wq + 1) * sizeof(uint64_t), "presence slices");
	B2_TRY(snap_agree(error, comm));
	{
		MPI_Datatype every2;
		B2_TRY(b2_mpi_ok(MPI_Type_create_resized(MPI_UINT64_T, 0, 2 * sizeof(uint64_t), &every2),
		                 "MPI_Type_create_resized"));
		error = b2_mpi_ok(MPI_Type_commit(&every2), "MPI_Type_commit");
		for (int q = 0; q < P; q++) {
			scnt[q] = (int)(wlo[q + 1] - wlo[q]);
			sdis[q] = (int)wlo[q];
			rcnt[q] = (int)wq;
			rdis[q] = (int)(wq * (uint64_t)q);
		}
		if (!error)
			error = b2_mpi_ok(MPI_Ialltoallv(bw, scnt, sdis, every2, rp, rcnt, rdis, MPI_UINT64_T, comm, &req),
			                  "MPI_Ialltoallv");
		if (!error)
			error = snap_wait(&req, "MPI_Ialltoallv");
		MPI_Type_free(&every2);
		B2_TRY(error);
	}

	/* 3. the owner's present ids: the OR of the parts, numbered in order */
	uint64_t ndist = 0;
	error = b2_alloc(&gw, (wq ? wq : 1) * sizeof(uint64_t), "presence bitmap");
	if (!error) {
		for (uint64_t w = 0; w < wq; w++) {
			uint64_t g = 0;
			for (int r = 0; r < P; r++)
				g |= rp[(uint64_t)r * wq + w];
			gw[w] = g;
			ndist += pop64(g);
		}
		error = b2_alloc(&out->ids, (ndist ? ndist : 1) * sizeof(int64_t), "vertex ids");
	}
	if (!error) {
		uint64_t k = 0;
		for (uint64_t w = 0; w < wq; w++)
			for (uint64_t b = gw[w]; b; b &= b - 1)
				out->ids[k++] = (int64_t)(lo + 64 * (w0 + w) + (uint64_t)__builtin_ctzll(b));
	}
	B2_TRY(snap_agree(error, comm));
	B2_TRY(b2_mpi_ok(MPI_Iallgather(&ndist, 1, MPI_UINT64_T, nd, 1, MPI_UINT64_T, comm, &req), "MPI_Iallgather"));
	B2_TRY(snap_wait(&req, "MPI_Iallgather"));
	uint64_t base = 0, nv = 0;
	for (int q = 0; q < P; q++) {
		if (q == me)
			base = nv;
		nv += nd[q];
	}
	out->num_vertices = nv;
	out->base = base;
	out->count = ndist;

	/* 4. answers, straight into the records (the marks have been sent) */
	error = b2_alloc(&ans, ((size_t)P * wq + 1) * 2 * sizeof(uint64_t), "id answers");
	B2_TRY(snap_agree(error, comm));
	for (int r = 0; r < P; r++) {
		const uint64_t *restrict l = rp + (uint64_t)r * wq;
		uint64_t(*restrict a)[2] = ans + (uint64_t)r * wq, g = base;
		for (uint64_t w = 0; w < wq; w++) {
			a[w][0] = count_word(gw[w], l[w]);
			a[w][1] = g;
			g += pop64(gw[w]);
		}
		scnt[r] = (int)(2 * wq);
		sdis[r] = (int)(2 * wq * (uint64_t)r);
		rcnt[r] = (int)(2 * (wlo[r + 1] - wlo[r]));
		rdis[r] = (int)(2 * wlo[r]);
	}
	free(rp);
	rp = NULL;
	free(gw);
	gw = NULL;
	B2_TRY(b2_mpi_ok(MPI_Ialltoallv(ans, scnt, sdis, MPI_UINT64_T, bw, rcnt, rdis, MPI_UINT64_T, comm, &req),
	                 "MPI_Ialltoallv"));
	B2_TRY(snap_wait(&req, "MPI_Ialltoallv"));
	free(ans);
	ans = NULL;
	out->t_exchange = b2_now() - t0 - out->t_mark;

	/* 5. every end gets its new id */
	o.lo = lo;
	o.base = 0;
	for (size_t c = 0; c < st->nch; c++)
		snap_owner_map_bitmap((uint64_t *)st->ch[c].a, 2 * st->ch[c].n, &o);
	out->t_map = b2_now() - t0 - out->t_mark - out->t_exchange;
	out->mode = SNAP_MAP_BITMAP;
	out->presence = 1;
	out->map_bytes = 2 * W * sizeof(uint64_t);
done:
	free(wlo);
	free(nd);
	free(scnt);
	free(rp);
	free(gw);
	free(ans);
	free(o.bw);
	return error;
}

/* One pass of all ranks over the stored ends: grounds rounds of at most
 * batch ends each (every rank runs them all, empty ones too, since a round
 * is collective); an error of this rank alone, from marking, is returned
 * once the rounds are done. */
static int xch_pass(xch *X, snap_owner *o, snap_store *st, uint64_t batch, int64_t grounds,
                    int translate)
{
	int error = 0, local = 0;
	cursor k = {st, 0, 0};
	slice sl;
	for (int64_t r = 0; r < grounds && !error; r++) {
		next_slice(&k, batch, &sl);
		error = xch_round(X, o, &sl, translate, &local);
	}
	return error ? error : local;
}

int snap_relabel(snap_relabel_out *out, snap_store *st, uint64_t total, uint64_t batch, int mode,
                 int id_cache, MPI_Comm comm)
{
	int error = 0, P = 1, me = 0;
	snap_owner o;
	xch X;
	uint64_t *spl = NULL;
	memset(out, 0, sizeof *out);
	memset(&o, 0, sizeof o);
	memset(&X, 0, sizeof X);
	MPI_Comm_size(comm, &P);
	MPI_Comm_rank(comm, &me);

	/* the id range of all ranks */
	/* ids are in [0, 2^62], so signed int64 reductions are exact (this
	 * MPICH compares MPI_UINT64_T as signed in MIN/MAX: avoid it) */
	int64_t mn = st->total ? (int64_t)st->idmin : INT64_MAX, mx = st->total ? (int64_t)st->idmax : 0, gmn, gmx;
	B2_TRY(b2_mpi_ok(MPI_Allreduce(&mn, &gmn, 1, MPI_INT64_T, MPI_MIN, comm), "MPI_Allreduce"));
	B2_TRY(b2_mpi_ok(MPI_Allreduce(&mx, &gmx, 1, MPI_INT64_T, MPI_MAX, comm), "MPI_Allreduce"));

	/* P > 1 and dense enough ids: presence bitmaps, no end travels */
	if (P > 1 && gmx >= gmn && mode != SNAP_MAP_HASH) {
		uint64_t W = ((uint64_t)gmx - (uint64_t)gmn) / 64 + 1, ends = 2 * total / (uint64_t)P;
		uint64_t allow = UINT64_C(1) << 27;
		if (allow < 2 * ends)
			allow = 2 * ends;
		if (mode == SNAP_MAP_BITMAP && !presence_fits(W, P))
			B2_FAIL0(B2_EUSAGE, "--id-map bitmap: the ids span %llu values, too many for bitmaps on %d "
			         "ranks (at most %llu); use --id-map auto or hash", (unsigned long long)(gmx - gmn + 1),
			         P, (unsigned long long)(64 * ((uint64_t)(INT32_MAX / 2) - (uint64_t)P)));
		if (mode == SNAP_MAP_BITMAP || (presence_fits(W, P) && PRESENCE_BYTES(W, P) <= allow)) {
			error = presence_relabel(out, st, (uint64_t)gmn, W, comm, P, me);
			goto done;
		}
	}
	B2_TRY(b2_alloc(&spl, (size_t)P * sizeof(uint64_t), "splitters"));
	if (P > 1)
		B2_TRY(splitters(spl, st, total, comm, P));
	uint64_t lo = me == 0 ? (uint64_t)gmn : spl[me - 1], hi = me == P - 1 ? (uint64_t)gmx + 1 : spl[me];
	if (hi < lo)
		hi = lo;
	error = snap_owner_setup(&o, mode, lo, hi, 2 * total / (uint64_t)P + 1);
	B2_TRY(b2_agree(error, comm));

	/* MPI counts and displacements are int: a round receives at most P*batch */
	if (batch > (uint64_t)INT32_MAX / (uint64_t)P)
		batch = (uint64_t)INT32_MAX / (uint64_t)P;
	if (P > 1) {
		X.comm = comm;
		X.P = P;
		X.me = me;
		X.spl = spl;
		B2_TRY(b2_calloc(&X.scnt, (size_t)P, sizeof(int), "exchange counts"));
		B2_TRY(b2_calloc(&X.sdis, (size_t)P, sizeof(int), "exchange counts"));
		B2_TRY(b2_calloc(&X.rcnt, (size_t)P, sizeof(int), "exchange counts"));
		B2_TRY(b2_calloc(&X.rdis, (size_t)P, sizeof(int), "exchange counts"));
		B2_TRY(b2_calloc(&X.cur, (size_t)P, sizeof(int), "exchange counts"));
		B2_TRY(b2_alloc(&X.sbuf, batch * sizeof(uint64_t), "id exchange buffer"));
		B2_TRY(b2_alloc(&X.own, batch * sizeof(uint32_t), "id exchange buffer"));
		if (id_cache) {
			B2_TRY(b2_alloc(&X.cid, sizeof(uint64_t) << CACHE_BITS, "id cache"));
			B2_TRY(b2_alloc(&X.cval, sizeof(uint64_t) << CACHE_BITS, "id cache"));
			memset(X.cid, 0xff, sizeof(uint64_t) << CACHE_BITS); /* no id is 2^64-1 */
		}
	}
	/* count this rank's rounds by walking the cursor once */
	int64_t rounds = 0, grounds = 0;
	if (P > 1) {
		cursor k = {st, 0, 0};
		slice sl;
		for (next_slice(&k, batch, &sl); sl.nseg; next_slice(&k, batch, &sl))
			rounds++;
	}
	B2_TRY(b2_mpi_ok(MPI_Allreduce(&rounds, &grounds, 1, MPI_INT64_T, MPI_MAX, comm), "MPI_Allreduce"));

	/* pass 1: owners learn their ids */
	double t0 = b2_now();
	if (P == 1) {
		for (size_t c = 0; c < st->nch && !error; c++)
			error = snap_owner_mark(&o, (const uint64_t *)st->ch[c].a, 2 * st->ch[c].n);
	} else {
		error = xch_pass(&X, &o, st, batch, grounds, 0);
	}
	B2_TRY(b2_agree(error, comm));
	out->t_mark = b2_now() - t0;
	error = snap_owner_finish(&o, &out->ids);
	B2_TRY(b2_agree(error, comm));
	B2_TRY(b2_mpi_ok(MPI_Exscan(&o.ndist, &o.base, 1, MPI_UINT64_T, MPI_SUM, comm), "MPI_Exscan"));
	if (me == 0)
		o.base = 0;
	B2_TRY(b2_mpi_ok(MPI_Allreduce(&o.ndist, &out->num_vertices, 1, MPI_UINT64_T, MPI_SUM, comm),
	                 "MPI_Allreduce"));
	out->base = o.base;
	out->count = o.ndist;
	out->mode = o.mode;
	out->map_bytes = o.mode == SNAP_MAP_BITMAP ? 2 * o.nwords * sizeof(uint64_t)
	                                           : 2 * o.hcap * sizeof(uint64_t);

	out->t_exchange = b2_now() - t0 - out->t_mark;
	/* pass 2: every end gets its new id; the cache now holds answers */
	if (X.cid)
		memset(X.cid, 0xff, sizeof(uint64_t) << CACHE_BITS);
	if (P == 1) {
		for (size_t c = 0; c < st->nch; c++) {
			uint64_t *a = (uint64_t *)st->ch[c].a, n = 2 * st->ch[c].n;
			if (o.mode == SNAP_MAP_BITMAP)
				snap_owner_map_bitmap(a, n, &o);
			else
				for (uint64_t i = 0; i < n; i++)
					a[i] = snap_owner_map(&o, a[i]);
		}
	} else {
		error = xch_pass(&X, &o, st, batch, grounds, 1);
	}
	error = b2_agree(error, comm);
	out->t_map = b2_now() - t0 - out->t_mark - out->t_exchange;
done:
	snap_owner_free(&o);
	free(spl);
	free(X.scnt);
	free(X.sdis);
	free(X.rcnt);
	free(X.rdis);
	free(X.cur);
	free(X.sbuf);
	free(X.rbuf);
	free(X.own);
	free(X.cid);
	free(X.cval);
	if (error)
		snap_relabel_free(out);
	return error;
}

void snap_relabel_free(snap_relabel_out *out)
{
	free(out->ids);
	out->ids = NULL;
}

int snap_declared(snap_relabel_out *out, snap_store *st, uint64_t n, MPI_Comm comm)
{
	int error = 0, P = 1, me = 0;
	uint64_t lo, hi;
	double t0 = b2_now();
	memset(out, 0, sizeof *out);
	MPI_Comm_size(comm, &P);
	MPI_Comm_rank(comm, &me);
	for (size_t c = 0; c < st->nch; c++) {
		int64_t *a = st->ch[c].a;
		for (uint64_t i = 0; i < 2 * st->ch[c].n; i++)
			a[i] -= 1;
	}
	b2_share(&lo, &hi, n, P, me);
	out->num_vertices = n;
	out->base = lo;
	out->count = hi - lo;
	out->mode = SNAP_MAP_DECLARED;
	error = b2_alloc_n(&out->ids, out->count, sizeof(int64_t), "vertex ids");
	if (!error)
		for (uint64_t k = 0; k < out->count; k++)
			out->ids[k] = (int64_t)(lo + k + 1);
	error = b2_agree(error, comm);
	out->t_map = b2_now() - t0;
	if (error)
		snap_relabel_free(out);
	return error;
}
