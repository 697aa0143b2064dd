/* records.c — the searches' records (records.h): gathered after each
 * search, outside its timed region, and written once at the end. */
#include <stdlib.h>
#include <string.h>
#include "b2.h"
#include "h5util.h"
#include "records.h"

int b2_put_small(hid_t loc, const char *name, hid_t type, int rank, const uint64_t *dims,
                 const void *buf)
{
	int error = 0, empty = 0;
	hsize_t d[4];
	for (int x = 0; x < rank; x++) {
		d[x] = dims[x];
		empty |= dims[x] == 0;
	}
	hid_t s = H5Screate_simple(rank, d, NULL), dcpl = H5Pcreate(H5P_DATASET_CREATE), ds = -1;
	if (s < 0 || dcpl < 0) {
		error = b2_h5_write_err(loc, "creating dataset %s failed", name);
		goto done;
	}
	H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER);
	H5Pset_alloc_time(dcpl, H5D_ALLOC_TIME_EARLY);
	ds = H5Dcreate2(loc, name, type, s, H5P_DEFAULT, dcpl, H5P_DEFAULT);
	if (ds < 0) {
		error = b2_h5_write_err(loc, "creating dataset %s failed", name);
		goto done;
	}
	/* rank 0 alone, independently: a collective write that failed on one
	 * rank would leave the others inside it */
	if (b2_rank == 0 && !empty && H5Dwrite(ds, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0)
		error = b2_h5_write_err(loc, "writing dataset %s failed", name);
done:
	error = b2_agree(error, MPI_COMM_WORLD);
	if (ds >= 0 && H5Dclose(ds) < 0 && !error)
		error = b2_h5_write_err(loc, "finishing dataset %s failed", name);
	if (dcpl >= 0)
		H5Pclose(dcpl);
	if (s >= 0)
		H5Sclose(s);
	return b2_agree(error, MPI_COMM_WORLD);
}

int b2_records_init(b2_records *r, int64_t cap, int P)
{
	int error = 0;
	const size_t n = (size_t)cap + 1;
	memset(r, 0, sizeof *r);
	r->cap = cap;
	r->P = P;
	r->maxlev = 1;
	B2_TRY(b2_calloc(&r->roots, n, 8, "results"));
	B2_TRY(b2_calloc(&r->nedge, n, 8, "results"));
	B2_TRY(b2_calloc(&r->visited, n, 8, "results"));
	B2_TRY(b2_calloc(&r->time, n, 8, "results"));
	B2_TRY(b2_calloc(&r->phase, n * B2_NPHASES, 8, "results"));
	B2_TRY(b2_calloc(&r->expdir, n * 2, 8, "results"));
	B2_TRY(b2_calloc(&r->rows, n, sizeof *r->rows, "results"));
	if (b2_rank == 0) {
		B2_TRY(b2_alloc_n(&r->rank_phase, n * (uint64_t)P, B2_NPHASES * 8, "per-rank results"));
		B2_TRY(b2_alloc_n(&r->pred_bytes, n * (uint64_t)P, 8, "per-rank results"));
	}
done:
	return error;
}

/* Each rank's w 8-byte values a level (mine, [L][w]), gathered on rank 0
 * into *out as [L][P][w]. */
static int gather_levels(const b2_records *r, const void *mine, int64_t L, int w, MPI_Datatype t,
                         const char *what, void *out)
{
	int error = 0;
	char *by_rank = NULL, *to = NULL; /* rank p's [L][w] block lands at [p] */
	if (b2_rank == 0) {
		error = b2_alloc_n(out, (uint64_t)L * (uint64_t)r->P, (uint64_t)w * 8, "per-rank level records");
		if (!error)
			error = b2_alloc_n(&by_rank, (uint64_t)L * (uint64_t)r->P, (uint64_t)w * 8,
			                   "per-rank level records");
		to = *(char **)out;
	}
	B2_TRY(b2_agree(error, MPI_COMM_WORLD));
	B2_TRY(b2_mpi_ok(MPI_Gather(mine, (int)(L * w), t, by_rank, (int)(L * w), t, 0, MPI_COMM_WORLD),
	                 what));
	for (int64_t l = 0; b2_rank == 0 && l < L; l++)
		for (int p = 0; p < r->P; p++)
			memcpy(to + (size_t)(l * r->P + p) * (size_t)w * 8,
			       by_rank + (size_t)(p * L + l) * (size_t)w * 8, (size_t)w * 8);
done:
	free(by_rank);
	return error;
}

/* Each rank's own numbers of the search just run, gathered on rank 0. */
static int gather_ranks(b2_records *r, b2_level_rows *lr, const b2_search *s)
{
	int error = 0;
	const int64_t q = r->n, L = s->nlevels;
	B2_TRY(gather_levels(r, s->lbytes, L, B2_NXCHG, MPI_INT64_T, "MPI_Gather (level bytes)",
	                     &lr->bytes));
	B2_TRY(gather_levels(r, s->lphase, L, B2_NLPHASES, MPI_DOUBLE, "MPI_Gather (level phases)",
	                     &lr->phase));
	B2_TRY(b2_mpi_ok(MPI_Gather(s->phase, B2_NPHASES, MPI_DOUBLE,
	                            b2_rank == 0 ? r->rank_phase + q * r->P * B2_NPHASES : NULL,
	                            B2_NPHASES, MPI_DOUBLE, 0, MPI_COMM_WORLD),
	                 "MPI_Gather (phase times)"));
	B2_TRY(b2_mpi_ok(MPI_Gather(&s->pred_bytes, 1, MPI_INT64_T,
	                            b2_rank == 0 ? r->pred_bytes + q * r->P : NULL, 1, MPI_INT64_T, 0,
	                            MPI_COMM_WORLD),
	                 "MPI_Gather (predecessor bytes)"));
done:
	return error;
}

int b2_records_add(b2_records *r, int64_t root, int64_t nedge, const b2_search *s)
{
	int error = 0;
	const int64_t q = r->n;
	const size_t L = (size_t)s->nlevels;
	b2_level_rows *lr = &r->rows[q];
	if (q >= r->cap)
		return b2_err(B2_EFAIL, "more searches than the records were made for");
	r->roots[q] = root;
	r->nedge[q] = nedge;
	r->time[q] = s->time;
	B2_TRY(b2_mpi_ok(MPI_Allreduce(s->phase, r->phase + q * B2_NPHASES, B2_NPHASES, MPI_DOUBLE,
	                               MPI_SUM, MPI_COMM_WORLD), "MPI_Allreduce (phase times)"));
	B2_TRY(b2_mpi_ok(MPI_Allreduce(s->expansion_by_dir, r->expdir + 2 * q, 2, MPI_DOUBLE, MPI_SUM,
	                               MPI_COMM_WORLD), "MPI_Allreduce (expansion times)"));
	for (int p = 0; p < B2_NPHASES; p++)
		r->phase[q * B2_NPHASES + p] /= r->P;
	r->expdir[2 * q] /= r->P;
	r->expdir[2 * q + 1] /= r->P;
	lr->n = s->nlevels;
	error = b2_alloc(&lr->front, L * 8, "level records");
	if (!error) error = b2_alloc(&lr->exam, L * 8, "level records");
	if (!error) error = b2_alloc(&lr->dir, L, "level records");
	if (!error) error = b2_alloc(&lr->time, L * 8, "level records");
	B2_TRY(b2_agree(error, MPI_COMM_WORLD));
	memcpy(lr->front, s->fsize, L * 8);
	memcpy(lr->exam, s->lexam, L * 8);
	memcpy(lr->dir, s->ldir, L);
	memcpy(lr->time, s->ltime, L * 8);
	B2_TRY(gather_ranks(r, lr, s));
	r->visited[q] = 0;
	for (size_t l = 0; l < L; l++)
		r->visited[q] += s->fsize[l];
	r->maxlev = s->nlevels > r->maxlev ? s->nlevels : r->maxlev;
	r->n++;
done:
	return error;
}

/* The [searches][levels] tables, padded past each search's end (frontier
 * 0, direction -1, nothing examined, no time, no bytes). */
static int write_level_tables(const b2_records *r, hid_t f)
{
	int error = 0;
	const int64_t K = r->n, W = r->maxlev, P = r->P;
	const size_t cells = (size_t)(K * W) + 1;
	int64_t *front = NULL, *exam = NULL, *bytes = NULL;
	signed char *dir = NULL;
	double *time = NULL, *phase = NULL;
	error = b2_calloc(&front, cells, 8, "level tables");
	if (!error) error = b2_calloc(&exam, cells, 8, "level tables");
	if (!error) error = b2_alloc(&dir, cells, "level tables");
	if (!error) error = b2_calloc(&time, cells, 8, "level tables");
	if (!error && b2_rank == 0)
		error = b2_calloc(&bytes, cells * (size_t)P * B2_NXCHG, 8, "level tables");
	if (!error && b2_rank == 0)
		error = b2_calloc(&phase, cells * (size_t)P * B2_NLPHASES, 8, "level tables");
	B2_TRY(b2_agree(error, MPI_COMM_WORLD));
	memset(dir, -1, cells);
	for (int64_t q = 0; q < K; q++) {
		const b2_level_rows *lr = &r->rows[q];
		const size_t at = (size_t)(q * W), n = (size_t)lr->n;
		memcpy(front + at, lr->front, n * 8);
		memcpy(exam + at, lr->exam, n * 8);
		memcpy(dir + at, lr->dir, n);
		memcpy(time + at, lr->time, n * 8);
		if (bytes)
			memcpy(bytes + at * (size_t)P * B2_NXCHG, lr->bytes, n * (size_t)P * B2_NXCHG * 8);
		if (phase)
			memcpy(phase + at * (size_t)P * B2_NLPHASES, lr->phase,
			       n * (size_t)P * B2_NLPHASES * 8);
	}
	uint64_t d2[2] = {(uint64_t)K, (uint64_t)W};
	uint64_t d4[4] = {(uint64_t)K, (uint64_t)W, (uint64_t)P, B2_NXCHG};
	uint64_t d5[4] = {(uint64_t)K, (uint64_t)W, (uint64_t)P, B2_NLPHASES};
	B2_TRY(b2_put_small(f, "/frontier_size", H5T_NATIVE_INT64, 2, d2, front));
	B2_TRY(b2_put_small(f, "/level_direction", H5T_NATIVE_SCHAR, 2, d2, dir));
	B2_TRY(b2_put_small(f, "/edges_examined", H5T_NATIVE_INT64, 2, d2, exam));
	B2_TRY(b2_put_small(f, "/level_time", H5T_NATIVE_DOUBLE, 2, d2, time));
	B2_TRY(b2_put_small(f, "/level_bytes", H5T_NATIVE_INT64, 4, d4, bytes));
	B2_TRY(b2_attr_put_strv(f, "level_bytes_names", b2_exchange_names, B2_NXCHG));
	B2_TRY(b2_put_small(f, "/level_phase_time", H5T_NATIVE_DOUBLE, 4, d5, phase));
done:
	free(front); free(exam); free(dir); free(time); free(bytes); free(phase);
	return error;
}

int b2_records_write(const b2_records *r, hid_t f)
{
	int error = 0;
	const uint64_t K = (uint64_t)r->n, P = (uint64_t)r->P;
	uint64_t d1[1] = {K}, d2[2] = {K, B2_NPHASES}, de[2] = {K, 2}, dp[2] = {K, P},
	         d3[3] = {K, P, B2_NPHASES};
	B2_TRY(b2_put_small(f, "/roots", H5T_NATIVE_INT64, 1, d1, r->roots));
	B2_TRY(b2_put_small(f, "/time", H5T_NATIVE_DOUBLE, 1, d1, r->time));
	B2_TRY(b2_put_small(f, "/nedge", H5T_NATIVE_INT64, 1, d1, r->nedge));
	B2_TRY(b2_put_small(f, "/visited", H5T_NATIVE_INT64, 1, d1, r->visited));
	B2_TRY(b2_put_small(f, "/phase_time", H5T_NATIVE_DOUBLE, 2, d2, r->phase));
	B2_TRY(b2_put_small(f, "/rank_phase_time", H5T_NATIVE_DOUBLE, 3, d3, r->rank_phase));
	B2_TRY(b2_put_small(f, "/expansion_time", H5T_NATIVE_DOUBLE, 2, de, r->expdir));
	B2_TRY(b2_put_small(f, "/pred_bytes", H5T_NATIVE_INT64, 2, dp, r->pred_bytes));
	B2_TRY(write_level_tables(r, f));
done:
	return error;
}

void b2_records_free(b2_records *r)
{
	for (int64_t q = 0; r->rows && q < r->cap; q++) {
		b2_level_rows *lr = &r->rows[q];
		free(lr->front); free(lr->exam); free(lr->dir); free(lr->time); free(lr->bytes);
		free(lr->phase);
	}
	free(r->rows);
	free(r->roots); free(r->nedge); free(r->visited); free(r->time);
	free(r->phase); free(r->expdir); free(r->rank_phase); free(r->pred_bytes);
	memset(r, 0, sizeof *r);
}
