/* partfile.c — reading and checking a partition file for bfs-gpu
 * (partfile.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "b2.h"
#include "h5util.h"
#include "partfile.h"

/* ---- checks of what a partition file states about itself (FORMATS.md
 * "Partition file"): bad data is exit 3, named by file, dataset and place.
 * The searches trust the CSC (indices into device arrays) and nedge sums
 * /tuple_degree, so both are checked before use. */

/* Every rank holds all of /csc/row_off and /csc/nnz: the same verdict on
 * every rank. Segments lie rank by rank: row_off[p] = nnz[0] + .. + nnz[p-1],
 * and the nnz add up to num_csc_edges and to the length of /csc/row_idx. */
static int check_segments(const int64_t *offs, const int64_t *nnzs, int64_t RC, int64_t E,
                          uint64_t nri, const char *path)
{
	uint64_t sum = 0; /* <= nri throughout: no overflow */
	for (int64_t p = 0; p < RC; p++) {
		if (nnzs[p] < 0)
			return b2_err0(B2_EDATA, "%s: /csc/nnz[%lld] = %lld is negative", path, (long long)p,
			               (long long)nnzs[p]);
		if (offs[p] < 0 || (uint64_t)offs[p] != sum)
			return b2_err0(B2_EDATA, "%s: /csc/row_off[%lld] = %lld, expected %llu (the sum of /csc/nnz "
			               "of the ranks before it: the segments lie rank by rank)", path, (long long)p,
			               (long long)offs[p], (unsigned long long)sum);
		if ((uint64_t)nnzs[p] > nri - sum)
			return b2_err0(B2_EDATA, "%s: /csc/nnz[%lld] = %lld: rank %lld's segment, from %llu, runs past "
			               "the end of /csc/row_idx (%llu entries)", path, (long long)p,
			               (long long)nnzs[p], (long long)p, (unsigned long long)sum,
			               (unsigned long long)nri);
		sum += (uint64_t)nnzs[p];
	}
	if (E < 0 || (uint64_t)E != sum)
		return b2_err0(B2_EDATA, "%s: attribute num_csc_edges is %lld, but /csc/nnz sums to %llu", path,
		               (long long)E, (unsigned long long)sum);
	if (sum != nri)
		return b2_err0(B2_EDATA, "%s: /csc/row_idx has %llu entries, but /csc/nnz sums to %llu", path,
		               (unsigned long long)nri, (unsigned long long)sum);
	if (sum % 2)
		return b2_err0(B2_EDATA, "%s: num_csc_edges = %lld is odd, but every edge is stored in both "
		               "directions", path, (long long)E);
	return 0;
}

/* This rank's column pointers: from 0 to its nnz, never decreasing, and the
 * columns of padding vertices (>= N) empty. */
static int check_col_ptr(const b2_graph *g, uint64_t nnz, const char *path)
{
	uint64_t nc = (uint64_t)(g->b * g->R);
	const uint64_t *cp = g->col_ptr;
	int64_t u0 = (int64_t)g->j * g->b * g->R; /* global vertex of local column 0 */
	if (cp[0] != 0 || cp[nc] != nnz)
		return b2_err(B2_EDATA, "%s: /csc/col_ptr row %d runs from %llu to %llu, expected 0 to "
		              "/csc/nnz[%d] = %llu", path, b2_rank, (unsigned long long)cp[0],
		              (unsigned long long)cp[nc], b2_rank, (unsigned long long)nnz);
	for (uint64_t c = 0; c < nc; c++) {
		if (cp[c + 1] < cp[c])
			return b2_err(B2_EDATA, "%s: /csc/col_ptr row %d decreases at column %llu", path, b2_rank,
			              (unsigned long long)(c + 1));
		if (u0 + (int64_t)c >= g->N && cp[c + 1] != cp[c])
			return b2_err(B2_EDATA, "%s: /csc/col_ptr row %d: column %llu is vertex %lld >= num_vertices "
			              "= %lld, yet it has %llu entries", path, b2_rank, (unsigned long long)c,
			              (long long)(u0 + (int64_t)c), (long long)g->N,
			              (unsigned long long)(cp[c + 1] - cp[c]));
	}
	return 0;
}

/* This rank's share of /tuple_degree: every entry in [0, max], and their sum
 * (at most `cap`; cap + 1 stands for anything larger). */
static int check_degrees(uint64_t *sum, const b2_graph *g, int64_t v0, int64_t nown, int64_t max,
                         uint64_t cap, const char *path)
{
	uint64_t s = 0;
	*sum = 0;
	for (int64_t x = 0; x < nown; x++) {
		int64_t d = g->tdeg[x];
		if (d < 0 || d > max)
			return b2_err(B2_EDATA, "%s: /tuple_degree of vertex %lld is %lld, outside 0 .. %lld (a vertex "
			              "is an end of at most the %lld input tuples that are not self-loops)",
			              path, (long long)(v0 + x), (long long)d, (long long)max, (long long)max);
		s = (uint64_t)d > cap - s ? cap + 1 : s + (uint64_t)d;
		if (s > cap)
			break;
	}
	*sum = s;
	return 0;
}

/* Σ over ranks of values <= 2^63 + 1, without overflow: high and low 32-bit
 * halves summed apart (P < 2^31 ranks), then joined; UINT64_MAX when the sum
 * does not fit. Collective. */
static int sum_u64(uint64_t *total, uint64_t mine)
{
	int error = 0;
	uint64_t part[2] = {mine >> 32, mine & 0xffffffffu}, all[2] = {0, 0};
	B2_TRY(b2_mpi_ok(MPI_Allreduce(part, all, 2, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD),
	                 "MPI_Allreduce"));
	*total = all[0] > (UINT64_MAX - all[1]) >> 32 ? UINT64_MAX : (all[0] << 32) + all[1];
done:
	return error;
}

/* What is wrong with entry e (of column c) of this rank's /csc/row_idx: 0
 * nothing, 1 not a local row, 2 a padding vertex, 3 the column's own vertex
 * (self-loops are dropped), 4 not above the entry before it (a column's rows
 * ascend, duplicates removed). */
static int row_fault(const b2_graph *g, uint64_t c, uint64_t e)
{
	uint64_t r = g->row_idx[e], b = (uint64_t)g->b;
	if (r >= b * (uint64_t)g->C)
		return 1;
	int64_t v = (int64_t)((r / b) * b * (uint64_t)g->R + (uint64_t)g->i * b + r % b);
	if (v >= g->N)
		return 2;
	if (v == (int64_t)g->j * g->b * g->R + (int64_t)c)
		return 3;
	if (e > g->col_ptr[c] && g->row_idx[e - 1] >= r)
		return 4;
	return 0;
}

static int check_row_idx(const b2_graph *g, int64_t off, const char *path)
{
	int64_t nc = g->b * g->R;
	uint64_t bad = 0;
#pragma omp parallel for reduction(+ : bad) schedule(dynamic, 4096)
	for (int64_t c = 0; c < nc; c++)
		for (uint64_t e = g->col_ptr[c]; e < g->col_ptr[c + 1]; e++)
			bad += row_fault(g, (uint64_t)c, e) != 0;
	if (!bad)
		return 0;
	/* the first faulty entry, for the message */
	for (int64_t c = 0; c < nc; c++)
		for (uint64_t e = g->col_ptr[c]; e < g->col_ptr[c + 1]; e++) {
			int k = row_fault(g, (uint64_t)c, e);
			if (!k)
				continue;
			uint32_t r = g->row_idx[e];
			int64_t u = (int64_t)g->j * g->b * g->R + c, b = g->b;
			int64_t v = (int64_t)(r / b) * b * g->R + (int64_t)g->i * b + (int64_t)(r % b);
			char what[160];
			if (k == 1)
				snprintf(what, sizeof what, "local row %u is not below the %lld local rows", r,
				         (long long)(b * g->C));
			else if (k == 2)
				snprintf(what, sizeof what, "local row %u is vertex %lld >= num_vertices = %lld", r,
				         (long long)v, (long long)g->N);
			else if (k == 3)
				snprintf(what, sizeof what, "local row %u is the column's own vertex %lld: a self-loop, "
				         "which the partition drops", r, (long long)v);
			else
				snprintf(what, sizeof what, "local row %u follows row %u: a column's rows ascend, "
				         "without duplicates", r, g->row_idx[e - 1]);
			return b2_err(B2_EDATA, "%s: /csc/row_idx[%llu] (rank %d, column %lld = vertex %lld): %s; "
			              "%llu such faults on this rank", path, (unsigned long long)((uint64_t)off + e),
			              b2_rank, (long long)c, (long long)u, what, (unsigned long long)bad);
		}
	return B2_EDATA;
}

/* Reads this rank's CSC block and the tuple degrees of its own vertices,
 * checking everything above. Collective: a check that fails on some ranks
 * only is agreed on (b2_agree) before the next collective, so every rank
 * takes the same path; the failing rank prints the message. */
int b2_read_partition(b2_graph *g, pinfo *pi, const char *path)
{
	int error = 0, has_loops = 0;
	hid_t f = -1, dcp = -1, dri = -1, doff = -1, dnnz = -1, dtd = -1;
	int64_t *offs = NULL, *nnzs = NULL, E = 0, loops = 0;
	memset(pi, 0, sizeof *pi);
	B2_TRY(b2_h5_open(&f, path, MPI_COMM_WORLD, "bfs2d-partition"));
	B2_TRY(b2_attr_get_i64(&pi->R, f, "grid_rows", path));
	B2_TRY(b2_attr_get_i64(&pi->C, f, "grid_cols", path));
	B2_TRY(b2_attr_get_i64(&pi->N, f, "num_vertices", path));
	B2_TRY(b2_attr_get_i64(&pi->b, f, "block_size", path));
	B2_TRY(b2_attr_get_i64(&pi->M, f, "num_input_edges", path));
	B2_TRY(b2_attr_get_i64(&E, f, "num_csc_edges", path));
	B2_TRY(b2_attr_opt_i64(&loops, &has_loops, f, "num_self_loops", path, 0));
	B2_TRY(b2_attr_get_str(&pi->edges_file, f, "edges_file", path));
	B2_TRY(b2_attr_get_u64(&pi->fingerprint, f, "edges_fingerprint", path));
	B2_TRY(b2_attr_opt_i64(&pi->scale, &pi->has_scale, f, "scale", path, 0));
	B2_TRY(b2_attr_opt_i64(&pi->ef, &pi->has_ef, f, "edgefactor", path, 0));
	B2_TRY(b2_attr_opt_f64(&pi->gen_time, &pi->has_gt, f, "generation_time", path, 0));
	B2_TRY(b2_attr_opt_f64(&pi->part_time, &pi->has_pt, f, "partition_time", path, 0));
	if (pi->R < 1 || pi->C < 1 || pi->R > 65536 || pi->C > 65536 || pi->N < 1)
		B2_FAIL0(B2_EDATA, "%s: attributes grid_rows=%lld, grid_cols=%lld, num_vertices=%lld are not a valid grid and graph",
		         path, (long long)pi->R, (long long)pi->C, (long long)pi->N);
	if (pi->R * pi->C != b2_nranks)
		B2_FAIL0(B2_EUSAGE, "%s is partitioned for a %lldx%lld grid, so it needs %lld ranks; "
		         "running on %d (start it with mpiexec -n %lld)", path, (long long)pi->R,
		         (long long)pi->C, (long long)(pi->R * pi->C), b2_nranks, (long long)(pi->R * pi->C));
	/* nedge sums tuple degrees (at most 2 x num_input_edges) in int64 */
	if (pi->M < 0 || pi->M >= ((int64_t)1 << 62))
		B2_FAIL0(B2_EDATA, "%s: attribute num_input_edges is %lld, expected 0 .. 2^62 - 1", path,
		         (long long)pi->M);
	if (loops < 0 || loops > pi->M)
		B2_FAIL0(B2_EDATA, "%s: attribute num_self_loops is %lld, expected 0 .. num_input_edges = %lld",
		         path, (long long)loops, (long long)pi->M);
	int64_t RC = pi->R * pi->C, b = (pi->N + RC - 1) / RC;
	if (pi->b != b)
		B2_FAIL0(B2_EDATA, "%s: attribute block_size is %lld, expected ceil(%lld / %lld) = %lld",
		         path, (long long)pi->b, (long long)pi->N, (long long)RC, (long long)b);
	if (b * pi->R > ((int64_t)1 << 31) || b * pi->C > ((int64_t)1 << 31))
		B2_FAIL0(B2_EDATA, "%s: %lld vertices on a %lldx%lld grid give %lld local columns and %lld local rows per rank; "
		         "bfs-gpu needs both <= 2^31 (use more ranks)", path, (long long)pi->N,
		         (long long)pi->R, (long long)pi->C, (long long)(b * pi->R), (long long)(b * pi->C));
	g->R = (int)pi->R; g->C = (int)pi->C;
	g->i = b2_rank / g->C; g->j = b2_rank % g->C;
	g->N = pi->N; g->b = b;
	uint64_t rows, cols = (uint64_t)(b * pi->R + 1), nri;
	B2_TRY(b2_dset_open(&dcp, f, "/csc/col_ptr", H5T_NATIVE_UINT64, 2, cols, path));
	B2_TRY(b2_dset_rows(&rows, dcp));
	if (rows != (uint64_t)RC)
		B2_FAIL0(B2_EDATA, "%s: /csc/col_ptr has %llu rows, expected %lld (one per rank)", path,
		         (unsigned long long)rows, (long long)RC);
	B2_TRY(b2_dset_open(&doff, f, "/csc/row_off", H5T_NATIVE_INT64, 1, 0, path));
	B2_TRY(b2_dset_open(&dnnz, f, "/csc/nnz", H5T_NATIVE_INT64, 1, 0, path));
	B2_TRY(b2_dset_open(&dri, f, "/csc/row_idx", H5T_NATIVE_UINT32, 1, 0, path));
	B2_TRY(b2_dset_open(&dtd, f, "/tuple_degree", H5T_NATIVE_INT64, 1, 0, path));
	B2_TRY(b2_dset_rows(&rows, doff));
	if (rows != (uint64_t)RC)
		B2_FAIL0(B2_EDATA, "%s: /csc/row_off has %llu entries, expected %lld", path,
		         (unsigned long long)rows, (long long)RC);
	B2_TRY(b2_dset_rows(&rows, dnnz));
	if (rows != (uint64_t)RC)
		B2_FAIL0(B2_EDATA, "%s: /csc/nnz has %llu entries, expected %lld", path,
		         (unsigned long long)rows, (long long)RC);
	B2_TRY(b2_dset_rows(&rows, dtd));
	if (rows != (uint64_t)pi->N)
		B2_FAIL0(B2_EDATA, "%s: /tuple_degree has %llu entries, expected num_vertices = %lld",
		         path, (unsigned long long)rows, (long long)pi->N);
	B2_TRY(b2_dset_rows(&nri, dri));
	/* local allocations: agreed on before the collective reads */
	error = b2_alloc(&offs, (size_t)RC * 8, "partition offsets");
	if (!error) error = b2_alloc(&nnzs, (size_t)RC * 8, "partition offsets");
	if (!error) error = b2_alloc(&g->col_ptr, (size_t)cols * 8, "column pointers");
	if (!error) error = b2_calloc(&g->tdeg, (size_t)b, 8, "degrees");
	B2_TRY(b2_agree(error, MPI_COMM_WORLD));
	error = b2_dset_read_rows(doff, H5T_NATIVE_INT64, 0, (uint64_t)RC, offs, b2_nranks > 1);
	if (!error) error = b2_dset_read_rows(dnnz, H5T_NATIVE_INT64, 0, (uint64_t)RC, nnzs, b2_nranks > 1);
	if (!error) error = b2_dset_read_rows(dcp, H5T_NATIVE_UINT64, (uint64_t)b2_rank, 1, g->col_ptr, b2_nranks > 1);
	int64_t v0 = ((int64_t)g->j * g->R + g->i) * b, nown = pi->N - v0;
	nown = nown < 0 ? 0 : nown > b ? b : nown;
	if (!error) error = b2_dset_read_rows(dtd, H5T_NATIVE_INT64, (uint64_t)v0 < (uint64_t)pi->N ? (uint64_t)v0 : 0,
	                                      (uint64_t)nown, g->tdeg, b2_nranks > 1);
	if (b2_agree(error, MPI_COMM_WORLD))
		B2_FAIL0(B2_EDATA, "%s: cannot read the partition's index data (truncated file?)", path);
	/* the same data on every rank: the same verdict */
	B2_TRY(check_segments(offs, nnzs, RC, E, nri, path));
	/* this rank's share; then one agreement */
	int64_t off = offs[b2_rank], nnz = nnzs[b2_rank];
	uint64_t cap = 2 * (uint64_t)pi->M, dsum = 0;
	error = check_col_ptr(g, (uint64_t)nnz, path);
	int e2 = check_degrees(&dsum, g, v0, nown, pi->M - loops, cap, path);
	error = error > e2 ? error : e2;
	g->nnz = (uint64_t)nnz;
	if (!error)
		error = b2_alloc(&g->row_idx, (size_t)nnz * 4 + 4, "row indices");
	B2_TRY(b2_agree(error, MPI_COMM_WORLD));
	/* each non-loop input tuple adds 2 to the sum of /tuple_degree, and each
	 * stored CSC edge pair comes from at least one of them */
	B2_TRY(sum_u64(&dsum, dsum));
	if (has_loops && dsum != 2 * (uint64_t)(pi->M - loops))
		B2_FAIL0(B2_EDATA, "%s: /tuple_degree sums to %s%llu, expected 2 x (num_input_edges - "
		         "num_self_loops) = 2 x (%lld - %lld) = %llu", path, dsum > cap ? "more than " : "",
		         (unsigned long long)(dsum > cap ? cap : dsum), (long long)pi->M, (long long)loops,
		         (unsigned long long)(2 * (uint64_t)(pi->M - loops)));
	if (dsum > cap || dsum % 2)
		B2_FAIL0(B2_EDATA, "%s: /tuple_degree sums to %s%llu, expected an even number at most 2 x "
		         "num_input_edges = %llu", path, dsum > cap ? "more than " : "",
		         (unsigned long long)(dsum > cap ? cap : dsum), (unsigned long long)cap);
	if ((uint64_t)E > dsum)
		B2_FAIL0(B2_EDATA, "%s: attribute num_csc_edges = %lld exceeds the sum of /tuple_degree, %llu "
		         "(every stored edge pair comes from an input tuple)", path, (long long)E,
		         (unsigned long long)dsum);
	error = b2_dset_read_rows(dri, H5T_NATIVE_UINT32, (uint64_t)off, (uint64_t)nnz, g->row_idx, b2_nranks > 1);
	if (b2_agree(error, MPI_COMM_WORLD))
		B2_FAIL0(B2_EDATA, "%s: cannot read /csc/row_idx (truncated file?)", path);
	error = check_row_idx(g, off, path);
done:
	error = b2_agree(error, MPI_COMM_WORLD);
	free(offs);
	free(nnzs);
	if (dcp >= 0) H5Dclose(dcp);
	if (dri >= 0) H5Dclose(dri);
	if (doff >= 0) H5Dclose(doff);
	if (dnnz >= 0) H5Dclose(dnnz);
	if (dtd >= 0) H5Dclose(dtd);
	if (f >= 0) H5Fclose(f);
	return error;
}
