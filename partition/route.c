/* route.c — partition2d's reading and routing: every rank reads its share
 * of /edges (whole chunks, collective hyperslab reads), recomputes the
 * fingerprint, drops self-loops, turns each tuple into its two directed
 * edges and sends each to the rank handling its grid block, in rounds of at
 * most T tuples per rank (so that MPI's int counts and the owners' stores
 * stay bounded). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "part.h"

/* Rows [row0, row0+n) of /edges into buf; collective (n may be 0). */
static int read_rows(const part *pt, hid_t dset, uint64_t row0, uint64_t n, int64_t *buf)
{
	int error = 0;
	hsize_t start[2] = {row0, 0}, cnt[2] = {n, 2};
	hid_t fs = H5Dget_space(dset), ms = -1, dxpl = H5Pcreate(H5P_DATASET_XFER);
	if (fs < 0 || dxpl < 0)
		B2_FAIL(B2_EIO, "%s: cannot set up reading /edges", pt->edges_path);
	if (n == 0) {
		H5Sselect_none(fs);
		ms = H5Scopy(fs);
		H5Sselect_none(ms);
	} else {
		H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, cnt, NULL);
		ms = H5Screate_simple(2, cnt, NULL);
	}
	if (pt->P > 1)
		H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE);
	if (H5Dread(dset, H5T_NATIVE_INT64, ms, fs, dxpl, buf) < 0)
		B2_FAIL(B2_EDATA, "%s: cannot read /edges rows %llu..%llu (truncated or corrupt file?)",
		        pt->edges_path, (unsigned long long)row0, (unsigned long long)(row0 + n));
done:
	if (ms >= 0) H5Sclose(ms);
	if (fs >= 0) H5Sclose(fs);
	if (dxpl >= 0) H5Pclose(dxpl);
	return error;
}

/* Block index t = x div b of a vertex: its grid row t mod R and t div R. */
static inline void split_block(const part *pt, uint64_t t, uint64_t *q, uint64_t *r)
{
	if (pt->blk_q) {
		*q = pt->blk_q[t];
		*r = pt->blk_r[t];
	} else {
		*q = t / (uint64_t)pt->R;
		*r = t % (uint64_t)pt->R;
	}
}

/* Where make_keys puts keys: a key for this rank goes straight to its store
 * (mine), any other to out, with its rank in dest (dest == NULL: there is
 * only one other rank, P = 2). Both places are written and one count
 * advances, so that the unpredictable choice costs no branch. */
typedef struct sink {
	uint64_t *mine, nmine;
	uint64_t *out, nout;
	uint32_t *dest;
	uint32_t me;
} sink;

static inline void emit(sink *s, uint32_t d, uint64_t key)
{
	uint64_t self = d == s->me;
	s->mine[s->nmine] = key;
	s->out[s->nout] = key;
	if (s->dest)
		s->dest[s->nout] = d;
	s->nmine += self;
	s->nout += 1 - self;
}

/* Turns tuples into directed-edge keys. One rank: all keys go to
 * s->mine in order; several: see sink. Returns 0, or B2_EDATA after
 * reporting an out-of-range vertex. */
static int make_keys(part *pt, const int64_t *tup, uint64_t n, uint64_t row0, sink *s)
{
	const uint64_t N = (uint64_t)pt->N, b = pt->b, bR = pt->bR, C = (uint64_t)pt->C;
	const uint64_t P = (uint64_t)pt->P;
	const int rb = pt->rowbits;
	uint64_t fp = 0, loops = 0;
	for (uint64_t t = 0; t < n; t++) {
		uint64_t u = (uint64_t)tup[2 * t], v = (uint64_t)tup[2 * t + 1];
		if (u >= N || v >= N)
			return b2_err(B2_EDATA, "%s: /edges row %llu: (%lld, %lld) has a vertex outside "
			              "0..%lld (num_vertices = %lld)", pt->edges_path,
			              (unsigned long long)(row0 + t), (long long)tup[2 * t],
			              (long long)tup[2 * t + 1], (long long)(pt->N - 1), (long long)pt->N);
		fp += b2_fp_tuple(row0 + t, (int64_t)u, (int64_t)v);
		if (u == v) {
			loops++;
			continue;
		}
		uint64_t mu, mv, qu, ru, qv, rv;
		uint64_t tu = fdiv_qr(&pt->div_b, u, &mu), tv = fdiv_qr(&pt->div_b, v, &mv);
		split_block(pt, tu, &qu, &ru);
		split_block(pt, tv, &qv, &rv);
		/* u->v lives on P(rv, qu): local column ru*b+mu, local row qv*b+mv;
		 * v->u on P(ru, qv) symmetrically */
		uint64_t p1 = rv * C + qu, p2 = ru * C + qv;
		uint64_t c1 = ru * b + mu, r1 = qv * b + mv;
		uint64_t c2 = rv * b + mv, r2 = qu * b + mu;
		if (P == 1) {
			s->mine[s->nmine++] = ((p1 * bR + c1) << rb) | r1;
			s->mine[s->nmine++] = ((p2 * bR + c2) << rb) | r2;
		} else if (pt->u_dest) {
			uint64_t u1 = p1, u2 = p2;
			if (pt->k > 1) {
				u1 = p1 * pt->k + fdiv_qr(&pt->div_w, c1, &c1);
				u2 = p2 * pt->k + fdiv_qr(&pt->div_w, c2, &c2);
			}
			emit(s, pt->u_dest[u1], ((pt->u_base[u1] + c1) << rb) | r1);
			emit(s, pt->u_dest[u2], ((pt->u_base[u2] + c2) << rb) | r2);
		} else { /* k = 1 and too many blocks for tables */
			emit(s, (uint32_t)(p1 % P), (((p1 / P) * bR + c1) << rb) | r1);
			emit(s, (uint32_t)(p2 % P), (((p2 / P) * bR + c2) << rb) | r2);
		}
	}
	pt->fp += fp;
	pt->loops += loops;
	return 0;
}

int part_route(part *pt, hid_t dset)
{
	int error = 0, P = pt->P;
	int64_t *tup = NULL;
	uint64_t *ekey = NULL, *sendbuf = NULL;
	uint32_t *edest = NULL;
	int *scnt = NULL, *sdsp = NULL, *rcnt = NULL, *rdsp = NULL;
	hid_t dcpl = -1;
	uint64_t chunk = 1 << 20, lo, hi, nch, rounds, my_rounds;
	b2_progress pr;
	int prog = 0;

	/* shares of whole chunks, so that no chunk is read by two ranks */
	dcpl = H5Dget_create_plist(dset);
	if (dcpl >= 0 && H5Pget_layout(dcpl) == H5D_CHUNKED) {
		hsize_t cd[2];
		if (H5Pget_chunk(dcpl, 2, cd) == 2 && cd[0] > 0)
			chunk = cd[0];
	}
	nch = ((uint64_t)pt->M + chunk - 1) / chunk;
	b2_share(&lo, &hi, nch, P, pt->me);
	lo *= chunk;
	hi *= chunk;
	if (hi > (uint64_t)pt->M) hi = (uint64_t)pt->M;
	if (lo > hi) lo = hi;
	my_rounds = (hi - lo + pt->T - 1) / pt->T;
	B2_TRY(b2_mpi_ok(MPI_Allreduce(&my_rounds, &rounds, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD),
	                 "MPI_Allreduce (rounds)"));
	b2_debug("reading: %llu rounds of up to %llu tuples per rank; store of %llu keys per rank",
	         (unsigned long long)rounds, (unsigned long long)pt->T, (unsigned long long)pt->S);

	error = b2_alloc(&tup, pt->T * 2 * sizeof *tup, "tuples read");
	if (!error && P > 1) {
		error = b2_alloc(&sendbuf, pt->T * 2 * sizeof *sendbuf, "routing send buffer");
		if (!error && P > 2)
			error = b2_alloc(&ekey, pt->T * 2 * sizeof *ekey, "routing keys");
		if (!error && P > 2)
			error = b2_alloc(&edest, pt->T * 2 * sizeof *edest, "routing destinations");
		if (!error) error = b2_calloc(&scnt, (size_t)P * 4, sizeof *scnt, "routing counts");
		if (!error) {
			sdsp = scnt + P;
			rcnt = scnt + 2 * P;
			rdsp = scnt + 3 * P;
		}
	}
	B2_TRY(b2_agree(error, MPI_COMM_WORLD));

	b2_progress_begin(&pr, "partitioning: reading and routing", "tuples", (double)pt->M);
	prog = 1;
	uint64_t pos = lo;
	for (uint64_t round = 0; round < rounds; round++) {
		uint64_t n = hi - pos < pt->T ? hi - pos : pt->T;
		double t0 = b2_now(), sort0 = pt->t_sort;
		error = read_rows(pt, dset, pos, n, tup);
		double t1 = b2_now();
		pt->t_read += t1 - t0;
		/* this rank's own keys go straight to the store: room for all */
		if (!error && pt->nkeys + 2 * n > pt->S)
			error = part_spill(pt);
		sink s = {.mine = pt->keys + pt->nkeys, .out = P == 2 ? sendbuf : ekey,
		          .dest = P == 2 ? NULL : edest, .me = (uint32_t)pt->me};
		if (!error)
			error = make_keys(pt, tup, n, pos, &s);
		pt->nkeys += s.nmine;
		pt->read_tuples += n;
		pos += n;
		B2_TRY(b2_agree(error, MPI_COMM_WORLD));
		if (P > 1) {
			memset(scnt, 0, (size_t)P * sizeof *scnt);
			memset(sdsp, 0, (size_t)P * sizeof *sdsp);
			if (P == 2) {
				scnt[1 - pt->me] = (int)s.nout;
			} else {
				/* counting sort of the other ranks' keys by destination */
				for (uint64_t k = 0; k < s.nout; k++)
					scnt[edest[k]]++;
				for (int d = 1; d < P; d++)
					sdsp[d] = sdsp[d - 1] + scnt[d - 1];
				for (uint64_t k = 0; k < s.nout; k++)
					sendbuf[sdsp[edest[k]]++] = ekey[k];
				for (int d = 0; d < P; d++)
					sdsp[d] -= scnt[d];
			}
			B2_TRY(b2_mpi_ok(MPI_Alltoall(scnt, 1, MPI_INT, rcnt, 1, MPI_INT, MPI_COMM_WORLD),
			                 "MPI_Alltoall (routing counts)"));
			uint64_t in = 0;
			for (int d = 0; d < P; d++) {
				rdsp[d] = (int)in;
				in += (uint64_t)rcnt[d];
			}
			if (pt->nkeys + in > pt->S)
				error = part_spill(pt);
			B2_TRY(b2_agree(error, MPI_COMM_WORLD));
			B2_TRY(b2_mpi_ok(MPI_Alltoallv(sendbuf, scnt, sdsp, MPI_UINT64_T, pt->keys + pt->nkeys,
			                               rcnt, rdsp, MPI_UINT64_T, MPI_COMM_WORLD),
			                 "MPI_Alltoallv (routing edges)"));
			pt->nkeys += in;
		}
		pt->t_route += b2_now() - t1 - (pt->t_sort - sort0); /* spills count as sorting */
		b2_progress_step(&pr, (double)(pos - lo) * P);
	}
done:
	if (prog)
		b2_progress_end(&pr);
	if (dcpl >= 0)
		H5Pclose(dcpl);
	free(tup);
	free(ekey);
	free(sendbuf);
	free(edest);
	free(scnt);
	return error;
}
