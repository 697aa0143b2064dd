/* main.c — bfs-gpu: distributed 2D BFS (Bisson, Bernaschi, Mastrostefano)
 * on R x C ranks, one GPU each, or on CPUs (--backend cpu).
 *
 *   bfs-gpu part.h5 [-n NROOTS] [--seed S] [--backend auto|cuda|cpu]
 *           [--bitmap auto|on|off] [--edges-per-thread K]
 *           [--keep-pred all|none|K] [--warmup W] [--ipc auto|push|off] -o bfs.h5
 *
 * Reads the rank's own CSC block and the degrees of its own vertices from
 * the partition file, draws the roots (FORMATS.md "BFS file"), runs warm-up
 * searches, then the timed searches, and writes the BFS file. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "b2.h"
#include "h5util.h"
#include "backend.h"
#include "search.h"

static const char help[] =
	"Usage: bfs-gpu PARTITION.h5 [options] -o BFS.h5\n"
	"Distributed 2D breadth-first search (Bisson et al.) on exactly R x C MPI ranks\n"
	"(the grid of the partition file), one GPU per rank, chosen by node-local rank.\n"
	"\n"
	"  -n, --nroots N           searches from up to N distinct random roots of degree\n"
	"                           >= 1 (default 64; 1..4096)\n"
	"      --seed S             seed of the root generator (default 1)\n"
	"      --backend B          auto (cuda when every rank sees a GPU), cuda or cpu\n"
	"      --bitmap M           bitmap-compressed messages: auto (when smaller than the\n"
	"                           list, per message), on (always) or off (never)\n"
	"      --edges-per-thread K CUDA expansion: K consecutive frontier edges per thread\n"
	"                           (1, 2, 4 or 8; default 4)\n"
	"      --keep-pred P        predecessor arrays written: all (default), none, or\n"
	"                           the first K searches\n"
	"      --warmup W           untimed searches before the timed ones (default 1)\n"
	"      --ipc M              CUDA, ranks of one node (CUDA IPC): auto (default)\n"
	"                           reads the peers' bitmaps in place, with no host\n"
	"                           round trip inside a level, when every exchange is\n"
	"                           within the node; push copies each message GPU to\n"
	"                           GPU where an exchange is within the node; off: MPI\n"
	"                           through pinned host buffers everywhere\n"
	"  -o, --output FILE        the BFS file (required)\n"
	"  -v, --verbose            per-search times on stderr; -q, --quiet\n"
	"  -h, --help; -V, --version\n"
	"\n"
	"Exit codes: 0 ok, 1 runtime error, 2 usage (also: --backend cuda in a build\n"
	"without CUDA; a rank count other than R x C), 3 bad partition file,\n"
	"4 I/O or resource error (no GPU for --backend cuda, device memory short).\n";

typedef struct opts {
	const char *part, *output;
	int64_t nroots, ept, keep, warmup; /* keep: -1 all */
	uint64_t seed;
	const char *backend;
	int bitmap, ipc;
	const char *bitmap_s;
} opts;

static int parse(opts *o, int argc, char **argv)
{
	int error = 0, c;
	b2_stdopts std = {0};
	static const struct option lo[] = {
		{"nroots", required_argument, 0, 'n'}, {"seed", required_argument, 0, 1},
		{"backend", required_argument, 0, 2}, {"bitmap", required_argument, 0, 3},
		{"edges-per-thread", required_argument, 0, 4}, {"keep-pred", required_argument, 0, 5},
		{"warmup", required_argument, 0, 6}, {"ipc", required_argument, 0, 7},
		B2_STD_LONGOPTS, {0, 0, 0, 0}};
	o->nroots = 64; o->seed = 1; o->backend = "auto"; o->bitmap = B2_BITMAP_AUTO;
	o->bitmap_s = "auto"; o->ept = 4; o->keep = -1; o->warmup = 1; o->ipc = B2_IPC_AUTO;
	while ((c = getopt_long(argc, argv, "n:" B2_STD_SHORTOPTS, lo, NULL)) != -1) {
		switch (c) {
		case 'n': B2_TRY(b2_parse_i64(&o->nroots, optarg, "--nroots", 1, 4096)); break;
		case 1: B2_TRY(b2_parse_u64(&o->seed, optarg, "--seed", 0, UINT64_MAX)); break;
		case 2:
			if (strcmp(optarg, "auto") && strcmp(optarg, "cuda") && strcmp(optarg, "cpu"))
				return b2_usage_err("--backend: expected auto, cuda or cpu, got '%s'", optarg);
			o->backend = optarg;
			break;
		case 3:
			if (!strcmp(optarg, "auto")) o->bitmap = B2_BITMAP_AUTO;
			else if (!strcmp(optarg, "on")) o->bitmap = B2_BITMAP_ON;
			else if (!strcmp(optarg, "off")) o->bitmap = B2_BITMAP_OFF;
			else return b2_usage_err("--bitmap: expected auto, on or off, got '%s'", optarg);
			o->bitmap_s = optarg;
			break;
		case 4:
			B2_TRY(b2_parse_i64(&o->ept, optarg, "--edges-per-thread", 1, 8));
			if (o->ept & (o->ept - 1))
				return b2_usage_err("--edges-per-thread: expected 1, 2, 4 or 8, got '%s'", optarg);
			break;
		case 5:
			if (!strcmp(optarg, "all")) o->keep = -1;
			else if (!strcmp(optarg, "none")) o->keep = 0;
			else B2_TRY(b2_parse_i64(&o->keep, optarg, "--keep-pred (all, none or a count)", 0, 4096));
			break;
		case 6: B2_TRY(b2_parse_i64(&o->warmup, optarg, "--warmup", 0, 100)); break;
		case 7:
			if (!strcmp(optarg, "auto")) o->ipc = B2_IPC_AUTO;
			else if (!strcmp(optarg, "push")) o->ipc = B2_IPC_PUSH;
			else if (!strcmp(optarg, "off")) o->ipc = B2_IPC_OFF;
			else return b2_usage_err("--ipc: expected auto, push or off, got '%s'", optarg);
			break;
		default:
			error = b2_std_option(&std, c, optarg, help);
			if (error == -1)
				error = B2_EUSAGE;
			if (error)
				goto done;
		}
	}
	if (optind != argc - 1)
		return b2_usage_err(optind >= argc ? "missing the partition file" : "too many arguments");
	o->part = argv[optind];
	if (!std.output)
		return b2_usage_err("missing -o OUTPUT");
	o->output = std.output;
done:
	return error;
}

/* What the partition file says about the whole graph. */
typedef struct pinfo {
	int64_t R, C, N, b, M;
	char *edges_file;
	uint64_t fingerprint;
	int has_scale, has_ef, has_gt, has_pt;
	int64_t scale, ef;
	double gen_time, part_time;
} pinfo;

static int read_partition(b2_graph *g, pinfo *pi, const char *path)
{
	int error = 0;
	hid_t f = -1, dcp = -1, dri = -1, doff = -1, dnnz = -1, dtd = -1;
	int64_t *offs = NULL, *nnzs = NULL;
	memset(pi, 0, sizeof *pi);
	B2_TRY(b2_h5_open(&f, path, MPI_COMM_WORLD, "bfs2d-partition"));
	B2_TRY(b2_attr_get_i64(&pi->R, f, "grid_rows", path));
	B2_TRY(b2_attr_get_i64(&pi->C, f, "grid_cols", path));
	B2_TRY(b2_attr_get_i64(&pi->N, f, "num_vertices", path));
	B2_TRY(b2_attr_get_i64(&pi->b, f, "block_size", path));
	B2_TRY(b2_attr_get_i64(&pi->M, f, "num_input_edges", path));
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
	B2_TRY(b2_alloc(&offs, (size_t)RC * 8, "partition offsets"));
	B2_TRY(b2_alloc(&nnzs, (size_t)RC * 8, "partition offsets"));
	B2_TRY(b2_alloc(&g->col_ptr, (size_t)cols * 8, "column pointers"));
	B2_TRY(b2_calloc(&g->tdeg, (size_t)b, 8, "degrees"));
	error = b2_dset_read_rows(doff, H5T_NATIVE_INT64, 0, (uint64_t)RC, offs, b2_nranks > 1);
	if (!error) error = b2_dset_read_rows(dnnz, H5T_NATIVE_INT64, 0, (uint64_t)RC, nnzs, b2_nranks > 1);
	if (!error) error = b2_dset_read_rows(dcp, H5T_NATIVE_UINT64, (uint64_t)b2_rank, 1, g->col_ptr, b2_nranks > 1);
	int64_t v0 = ((int64_t)g->j * g->R + g->i) * b, nown = pi->N - v0;
	nown = nown < 0 ? 0 : nown > b ? b : nown;
	if (!error) error = b2_dset_read_rows(dtd, H5T_NATIVE_INT64, (uint64_t)v0 < (uint64_t)pi->N ? (uint64_t)v0 : 0,
	                                      (uint64_t)nown, g->tdeg, b2_nranks > 1);
	if (b2_agree(error, MPI_COMM_WORLD))
		B2_FAIL0(B2_EDATA, "%s: cannot read the partition's index data (truncated file?)", path);
	int64_t off = offs[b2_rank], nnz = nnzs[b2_rank];
	if (off < 0 || nnz < 0 || (uint64_t)(off + nnz) > nri)
		B2_FAIL(B2_EDATA, "%s: /csc/row_off and /csc/nnz of rank %d (%lld, %lld) lie outside /csc/row_idx (%llu entries)",
		        path, b2_rank, (long long)off, (long long)nnz, (unsigned long long)nri);
	if (g->col_ptr[0] != 0 || g->col_ptr[cols - 1] != (uint64_t)nnz)
		B2_FAIL(B2_EDATA, "%s: /csc/col_ptr row %d should run from 0 to nnz = %lld", path,
		        b2_rank, (long long)nnz);
	for (uint64_t c = 1; c < cols; c++)
		if (g->col_ptr[c] < g->col_ptr[c - 1])
			B2_FAIL(B2_EDATA, "%s: /csc/col_ptr row %d decreases at column %llu", path, b2_rank,
			        (unsigned long long)c);
	for (int64_t x = 0; x < nown; x++)
		if (g->tdeg[x] < 0)
			B2_FAIL(B2_EDATA, "%s: /tuple_degree[%lld] is negative", path, (long long)(v0 + x));
	g->nnz = (uint64_t)nnz;
	B2_TRY(b2_alloc(&g->row_idx, (size_t)nnz * 4 + 4, "row indices"));
	error = b2_agree(error, MPI_COMM_WORLD);
	if (error)
		goto done;
	error = b2_dset_read_rows(dri, H5T_NATIVE_UINT32, (uint64_t)off, (uint64_t)nnz, g->row_idx, b2_nranks > 1);
	if (b2_agree(error, MPI_COMM_WORLD))
		B2_FAIL0(B2_EDATA, "%s: cannot read /csc/row_idx (truncated file?)", path);
	uint64_t nr = (uint64_t)(b * g->C), bad = 0;
#pragma omp parallel for reduction(+ : bad)
	for (int64_t e = 0; e < nnz; e++)
		bad += g->row_idx[e] >= nr;
	if (bad)
		B2_FAIL(B2_EDATA, "%s: /csc/row_idx of rank %d has %llu entries >= %llu local rows",
		        path, b2_rank, (unsigned long long)bad, (unsigned long long)nr);
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

/* FORMATS.md "BFS file", roots: candidates x_k = b2_rng_at(key, k) mod N,
 * key = b2_rng_key(seed, B2_ROOT_STREAM), k = 0, 1, ...; a candidate is taken
 * when its tuple_degree is > 0 and it was not taken before. */
#define B2_ROOT_STREAM 4
#define B2_ROOT_BATCH 4096
static int draw_roots(int64_t *roots, int64_t *nroots, int64_t want, uint64_t seed,
                      const b2_graph *g)
{
	int error = 0;
	unsigned char *flag = NULL, *all = NULL;
	int64_t b = g->b, v0 = ((int64_t)g->j * g->R + g->i) * b, npos = 0, have = 0;
	for (int64_t x = 0; x < b; x++)
		npos += g->tdeg[x] > 0;
	B2_TRY(b2_mpi_ok(MPI_Allreduce(MPI_IN_PLACE, &npos, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD),
	                 "MPI_Allreduce"));
	if (want > npos)
		want = npos;
	B2_TRY(b2_alloc(&flag, B2_ROOT_BATCH, "roots"));
	B2_TRY(b2_alloc(&all, B2_ROOT_BATCH, "roots"));
	uint64_t key = b2_rng_key(seed, B2_ROOT_STREAM);
	for (uint64_t k0 = 0; have < want; k0 += B2_ROOT_BATCH) {
		for (int q = 0; q < B2_ROOT_BATCH; q++) {
			int64_t x = (int64_t)(b2_rng_at(key, k0 + (uint64_t)q) % (uint64_t)g->N);
			flag[q] = x >= v0 && x < v0 + b && g->tdeg[x - v0] > 0;
		}
		B2_TRY(b2_mpi_ok(MPI_Allreduce(flag, all, B2_ROOT_BATCH, MPI_UNSIGNED_CHAR, MPI_MAX,
		                               MPI_COMM_WORLD), "MPI_Allreduce"));
		for (int q = 0; q < B2_ROOT_BATCH && have < want; q++) {
			if (!all[q])
				continue;
			int64_t x = (int64_t)(b2_rng_at(key, k0 + (uint64_t)q) % (uint64_t)g->N), dup = 0;
			for (int64_t r = 0; r < have && !dup; r++)
				dup = roots[r] == x;
			if (!dup)
				roots[have++] = x;
		}
	}
	*nroots = have;
done:
	free(flag);
	free(all);
	return error;
}

/* b2_dset_put_small, but an empty dataset is only created: a collective
 * write of nothing fails in parallel HDF5 (reported to the lead). */
static int put_small(hid_t loc, const char *name, hid_t type, int rank, const uint64_t *dims,
                     const void *buf)
{
	if (dims[0] > 0 && (rank == 1 || dims[1] > 0))
		return b2_dset_put_small(loc, name, type, rank, dims, buf);
	hid_t d = -1;
	int error = b2_dset_create(&d, loc, name, type, rank, dims, 0, 0);
	if (d >= 0 && H5Dclose(d) < 0 && !error)
		error = b2_h5_write_err(loc, "finishing dataset %s failed", name);
	return b2_agree(error, MPI_COMM_WORLD);
}

/* Row q of /pred, the columns this rank owns: collective. */
static int write_pred_row(hid_t d, int64_t q, int64_t v0, int64_t n, const int64_t *pred)
{
	int error = 0;
	hid_t fs = H5Dget_space(d), ms = -1, x = H5Pcreate(H5P_DATASET_XFER);
	hsize_t start[2] = {(hsize_t)q, (hsize_t)v0}, cnt[2] = {1, (hsize_t)n};
	if (n > 0) {
		H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, cnt, NULL);
		ms = H5Screate_simple(2, cnt, NULL);
	} else {
		H5Sselect_none(fs);
		ms = H5Scopy(fs);
		H5Sselect_none(ms);
	}
	if (b2_nranks > 1)
		H5Pset_dxpl_mpio(x, H5FD_MPIO_COLLECTIVE);
	if (H5Dwrite(d, H5T_NATIVE_INT64, ms, fs, x, pred) < 0)
		error = b2_h5_write_err(d, "dataset /pred, row %lld", (long long)q);
	H5Sclose(ms);
	H5Sclose(fs);
	H5Pclose(x);
	return error;
}

static int pick_backend(const b2_backend **be, int *device, int *shared, char *devname,
                        size_t dn, const char *want)
{
	*be = &b2_cpu_backend;
	*device = -1;
	*shared = 0;
	snprintf(devname, dn, "CPU (OpenMP)");
#ifndef B2_HAVE_CUDA
	if (!strcmp(want, "cuda"))
		return b2_err0(B2_EUSAGE, "--backend cuda: this bfs-gpu was built without CUDA (no nvcc at build time); use --backend cpu");
	return 0;
#else
	int error = 0, ndev = 0, local = 0, nlocal = 1, minv = 0;
	MPI_Comm node = MPI_COMM_NULL;
	if (!strcmp(want, "cpu"))
		return 0;
	/* one GPU per rank, chosen by the rank's place on its node */
	B2_TRY(b2_mpi_ok(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, b2_rank,
	                                     MPI_INFO_NULL, &node), "MPI_Comm_split_type"));
	B2_TRY(b2_mpi_ok(MPI_Comm_rank(node, &local), "MPI_Comm_rank"));
	B2_TRY(b2_mpi_ok(MPI_Comm_size(node, &nlocal), "MPI_Comm_size"));
	ndev = b2_cuda_device_count();
	B2_TRY(b2_mpi_ok(MPI_Allreduce(&ndev, &minv, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD),
	                 "MPI_Allreduce (GPU counts)"));
	if (minv == 0) {
		if (!strcmp(want, "cuda")) {
			if (ndev == 0)
				b2_err(B2_EIO, "--backend cuda: no CUDA device is visible to this rank");
			B2_FAIL(B2_EIO, "--backend cuda: no CUDA device visible");
		}
		goto done; /* auto: the CPU backend */
	}
	*shared = b2_agree(nlocal > ndev, MPI_COMM_WORLD);
	if (nlocal > ndev && local == 0)
		b2_warn("%d ranks on this node share %d GPU(s): allowed for testing, but the GPUs are oversubscribed",
		        nlocal, ndev);
	*be = &b2_cuda_backend;
	*device = local % ndev;
	B2_TRY(b2_cuda_device_name(*device, devname, dn));
done:
	if (node != MPI_COMM_NULL)
		MPI_Comm_free(&node);
	return b2_agree(error, MPI_COMM_WORLD);
#endif
}

int main(int argc, char **argv)
{
	int error = b2_init(&argc, &argv, "bfs-gpu");
	opts o;
	pinfo pi = {0};
	b2_graph g = {0};
	const b2_backend *be = NULL;
	void *bk = NULL;
	b2_search s;
	int have_search = 0, device = -1, shared = 0;
	char devname[256];
	int64_t *roots = NULL, nroots = 0, *nedge = NULL, *visited = NULL, *kept = NULL, nkept = 0;
	int64_t *fsz = NULL, maxlev = 1, *pred = NULL;
	double *times = NULL, *phases = NULL;
	b2_h5out out = {.file = -1};
	int out_open = 0;
	hid_t dpred = -1;
	if (error)
		return error;
	B2_TRY(parse(&o, argc, argv));
	B2_TRY(b2_check_output("-o", o.output, &o.part, 1, 0));
	double tl0 = b2_now();
	B2_TRY(read_partition(&g, &pi, o.part));
	b2_debug("read %s in %.3f s", o.part, b2_now() - tl0);
	B2_TRY(pick_backend(&be, &device, &shared, devname, sizeof devname, o.backend));
	b2_bkopts bo = {
		.edges_per_thread = (int)o.ept,
		.pack_front = g.R > 1 && o.bitmap != B2_BITMAP_OFF,
		.pack_fold = g.C > 1 && o.bitmap != B2_BITMAP_OFF,
		.fold_cap = o.bitmap == B2_BITMAP_ON ? 0 : o.bitmap == B2_BITMAP_AUTO ? g.b / 32 : g.b,
		.device = device,
	};
	error = be->create(&bk, &g, &bo);
	B2_TRY(b2_agree(error, MPI_COMM_WORLD));
	B2_TRY(b2_search_init(&s, be, bk, &g, o.bitmap, o.ipc, shared));
	have_search = 1;
	/* the CUDA backend keeps its own copy of the graph */
	if (be != &b2_cpu_backend) {
		free(g.row_idx);
		g.row_idx = NULL;
	}
	B2_TRY(b2_mpi_ok(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier"));
	double load_time = b2_now() - tl0;
	B2_TRY(b2_mpi_ok(MPI_Bcast(&load_time, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD), "MPI_Bcast"));

	B2_TRY(b2_alloc(&roots, (size_t)o.nroots * 8, "roots"));
	B2_TRY(draw_roots(roots, &nroots, o.nroots, o.seed, &g));
	if (nroots == 0)
		b2_warn0("%s: no vertex has an edge; no search to run", o.part);
	nkept = o.keep < 0 || o.keep > nroots ? nroots : o.keep;
	B2_TRY(b2_calloc(&nedge, (size_t)nroots + 1, 8, "results"));
	B2_TRY(b2_calloc(&visited, (size_t)nroots + 1, 8, "results"));
	B2_TRY(b2_calloc(&kept, (size_t)nkept + 1, 8, "results"));
	B2_TRY(b2_calloc(&times, (size_t)nroots + 1, 8, "results"));
	B2_TRY(b2_calloc(&phases, (size_t)nroots * B2_NPHASES + 1, 8, "results"));
	B2_TRY(b2_calloc(&fsz, 1, 8, "results"));
	B2_TRY(b2_calloc(&pred, (size_t)g.b, 8, "predecessors"));

	b2_debug("loaded in %.3f s, roots drawn at %.3f s", load_time, b2_now() - tl0);
	B2_TRY(b2_h5_create(&out, o.output, MPI_COMM_WORLD, "bfs2d-bfs", 1));
	out_open = 1;
	{
		uint64_t dims[2] = {(uint64_t)nkept, (uint64_t)g.N};
		error = b2_dset_create(&dpred, out.file, "/pred", H5T_NATIVE_INT64, 2, dims, 0, 0);
		B2_TRY(b2_agree(error, MPI_COMM_WORLD));
		B2_TRY(b2_h5_reserve(&out)); /* a full disk found now, not inside a write */
	}
	for (int64_t w = 0; w < (nroots ? o.warmup : 0); w++)
		B2_TRY(b2_search_run(&s, roots[0]));
	int64_t v0 = ((int64_t)g.j * g.R + g.i) * g.b, nown = g.N - v0;
	nown = nown < 0 ? 0 : nown > g.b ? g.b : nown;
	b2_progress prog;
	b2_progress_begin(&prog, "searching", "searches", (double)nroots);
	for (int64_t q = 0; q < nroots; q++) {
		B2_TRY(b2_search_run(&s, roots[q]));
		/* outside the timed region: statistics and output */
		times[q] = s.time;
		B2_TRY(b2_mpi_ok(MPI_Allreduce(s.phase, phases + q * B2_NPHASES, B2_NPHASES, MPI_DOUBLE,
		                               MPI_SUM, MPI_COMM_WORLD), "MPI_Allreduce (phase times)"));
		for (int p = 0; p < B2_NPHASES; p++)
			phases[q * B2_NPHASES + p] /= b2_nranks;
		int64_t ds = 0, vis = 0;
		error = be->degree_sum(bk, &ds);
		B2_TRY(b2_agree(error, MPI_COMM_WORLD));
		B2_TRY(b2_mpi_ok(MPI_Allreduce(MPI_IN_PLACE, &ds, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD),
		                 "MPI_Allreduce (nedge)"));
		nedge[q] = ds / 2;
		for (int64_t l = 0; l < s.nlevels; l++)
			vis += s.fsize[l];
		visited[q] = vis;
		if (s.nlevels > maxlev) {
			int64_t *f = realloc(fsz, (size_t)nroots * (size_t)s.nlevels * 8);
			if (!f)
				B2_FAIL(B2_EIO, "out of host memory for frontier sizes");
			/* re-lay rows of the old width into the new width */
			for (int64_t r = q - 1; r >= 0; r--) {
				memmove(f + r * s.nlevels, f + r * maxlev, (size_t)maxlev * 8);
				memset(f + r * s.nlevels + maxlev, 0, (size_t)(s.nlevels - maxlev) * 8);
			}
			fsz = f;
			maxlev = s.nlevels;
		} else if (q == 0) {
			int64_t *f = realloc(fsz, (size_t)nroots * (size_t)maxlev * 8);
			if (!f)
				B2_FAIL(B2_EIO, "out of host memory for frontier sizes");
			fsz = f;
		}
		memset(fsz + q * maxlev, 0, (size_t)maxlev * 8);
		memcpy(fsz + q * maxlev, s.fsize, (size_t)s.nlevels * 8);
		if (q < nkept) {
			kept[q] = q;
			error = be->pred(bk, pred);
			if (!error)
				error = write_pred_row(dpred, q, v0, nown, pred);
			B2_TRY(b2_agree(error, MPI_COMM_WORLD));
		}
		if (b2_log_verbosity() > 0)
			b2_info("search %lld: root %lld, %lld levels, %lld visited, nedge %lld, %.6f s, %.3f GTEPS",
			        (long long)q, (long long)roots[q], (long long)s.nlevels, (long long)vis,
			        (long long)nedge[q], s.time, nedge[q] / s.time * 1e-9);
		b2_progress_step(&prog, (double)(q + 1));
	}
	b2_progress_end(&prog);
	b2_debug("searches done at %.3f s", b2_now() - tl0);

	{
		hid_t f = out.file;
		uint64_t d1[1] = {(uint64_t)nroots}, d2[2] = {(uint64_t)nroots, B2_NPHASES},
		         d3[2] = {(uint64_t)nroots, (uint64_t)maxlev}, dk[1] = {(uint64_t)nkept};
		B2_TRY(put_small(f, "/roots", H5T_NATIVE_INT64, 1, d1, roots));
		B2_TRY(put_small(f, "/time", H5T_NATIVE_DOUBLE, 1, d1, times));
		B2_TRY(put_small(f, "/nedge", H5T_NATIVE_INT64, 1, d1, nedge));
		B2_TRY(put_small(f, "/visited", H5T_NATIVE_INT64, 1, d1, visited));
		B2_TRY(put_small(f, "/phase_time", H5T_NATIVE_DOUBLE, 2, d2, phases));
		B2_TRY(put_small(f, "/frontier_size", H5T_NATIVE_INT64, 2, d3, fsz));
		B2_TRY(put_small(f, "/kept", H5T_NATIVE_INT64, 1, dk, kept));
		/* device names: "P x NAME" when all ranks agree */
		char all[256] = "", devs[512];
		int same = 1;
		if (b2_rank == 0)
			memcpy(all, devname, sizeof all);
		B2_TRY(b2_mpi_ok(MPI_Bcast(all, sizeof all, MPI_CHAR, 0, MPI_COMM_WORLD), "MPI_Bcast"));
		int mine = strncmp(all, devname, sizeof all) == 0;
		B2_TRY(b2_mpi_ok(MPI_Allreduce(&mine, &same, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD),
		                 "MPI_Allreduce (device names)"));
		snprintf(devs, sizeof devs, same ? "%d x %s" : "%d x %s (and others)", b2_nranks, all);
		B2_TRY(b2_attr_put_str(f, "partition_file", o.part));
		B2_TRY(b2_attr_put_str(f, "edges_file", pi.edges_file));
		B2_TRY(b2_attr_put_u64(f, "edges_fingerprint", pi.fingerprint));
		B2_TRY(b2_attr_put_i64(f, "num_vertices", pi.N));
		B2_TRY(b2_attr_put_i64(f, "num_input_edges", pi.M));
		B2_TRY(b2_attr_put_i64(f, "grid_rows", pi.R));
		B2_TRY(b2_attr_put_i64(f, "grid_cols", pi.C));
		B2_TRY(b2_attr_put_i64(f, "num_ranks", b2_nranks));
		B2_TRY(b2_attr_put_str(f, "backend", be->name));
		B2_TRY(b2_attr_put_str(f, "devices", devs));
		B2_TRY(b2_attr_put_i64(f, "num_gpus", be == &b2_cpu_backend ? 0 : b2_nranks));
		B2_TRY(b2_attr_put_u64(f, "seed", o.seed));
		B2_TRY(b2_attr_put_i64(f, "nroots", o.nroots));
		B2_TRY(b2_attr_put_str(f, "bitmap", o.bitmap_s));
		B2_TRY(b2_attr_put_i64(f, "edges_per_thread", o.ept));
		B2_TRY(b2_attr_put_strv(f, "phase_names", b2_phase_names, B2_NPHASES));
		B2_TRY(b2_attr_put_i64(f, "warmup", o.warmup));
		int64_t msgs[2] = {s.bitmap_msgs, s.list_msgs};
		B2_TRY(b2_mpi_ok(MPI_Allreduce(MPI_IN_PLACE, msgs, 2, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD),
		                 "MPI_Allreduce (message counts)"));
		B2_TRY(b2_attr_put_i64(f, "bitmap_messages", msgs[0]));
		char xs[64];
		const char *dev = s.pull ? "cuda-ipc-pull" : "cuda-ipc";
		snprintf(xs, sizeof xs, "expand %s, fold %s",
		         pi.R == 1 ? "none" : s.expand.peer ? dev : "mpi",
		         pi.C == 1 ? "none" : s.fold.peer ? dev : "mpi");
		B2_TRY(b2_attr_put_str(f, "exchange", xs));
		B2_TRY(b2_attr_put_i64(f, "list_messages", msgs[1]));
		if (pi.has_scale) B2_TRY(b2_attr_put_i64(f, "scale", pi.scale));
		if (pi.has_ef) B2_TRY(b2_attr_put_i64(f, "edgefactor", pi.ef));
		if (pi.has_gt) B2_TRY(b2_attr_put_f64(f, "generation_time", pi.gen_time));
		if (pi.has_pt) B2_TRY(b2_attr_put_f64(f, "partition_time", pi.part_time));
		B2_TRY(b2_attr_put_f64(f, "load_time", load_time));
	}
	if (nroots > 0) {
		double inv = 0;
		for (int64_t q = 0; q < nroots; q++)
			inv += times[q] / (double)nedge[q];
		b2_info("%lld searches on %s (%s, %s): harmonic mean %.4g TEPS", (long long)nroots,
		        be->name, o.part, devname, (double)nroots / inv);
	}
	b2_debug("output written at %.3f s", b2_now() - tl0);
done:
	if (out_open) {
		error = b2_h5_close(&out, &dpred, error);
		error = b2_h5_commit(&out, error);
	}
	if (have_search)
		b2_search_free(&s);
	if (bk)
		be->destroy(bk);
	free(g.col_ptr); free(g.row_idx); free(g.tdeg);
	free(pi.edges_file);
	free(roots); free(nedge); free(visited); free(kept); free(times); free(phases);
	free(fsz); free(pred);
	return b2_finish(error);
}
