/* main.c — bfs-gpu: distributed 2D BFS (Bisson, Bernaschi, Mastrostefano)
 * on R x C ranks, one GPU each, or on CPUs (--backend cpu).
 *
 *   bfs-gpu part.h5 [-n NROOTS] [--seed S] [--backend auto|cuda|cpu]
 *           [--bitmap auto|on|off] [--edges-per-thread K]
 *           [--keep-pred all|none|K] [--warmup W]
 *           [--transport auto|pull|ipc|nccl|mpi]
 *           [--direction auto|top-down|bottom-up] [--alpha A] [--beta B]
 *           [--roots any|largest-component] -o bfs.h5
 *
 * Reads the rank's own CSC block and the degrees of its own vertices from
 * the partition file, draws the roots (FORMATS.md "BFS file"), runs warm-up
 * searches, then the timed searches, and writes the BFS file. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
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
	"      --transport T        how the exchanges move data (CUDA backend):\n"
	"                           auto (default): per exchange, pull where all its\n"
	"                           ranks share a node, else nccl when NCCL is found,\n"
	"                           else mpi; pull: CUDA IPC, the GPUs read each\n"
	"                           other's bitmaps in place, one host wait a level\n"
	"                           (on 1x1: the same levels, nothing to read);\n"
	"                           ipc: CUDA IPC copies, sizes by MPI; nccl: NCCL on\n"
	"                           the GPU's stream; mpi: MPI through pinned host\n"
	"                           buffers (the CPU backend's only transport). A named\n"
	"                           transport that cannot serve the run is an error.\n"
	"      --ipc M              old name: auto = --transport auto, push = ipc,\n"
	"                           off = mpi\n"
	"      --direction D        auto (default: Beamer's rule per level), top-down, or\n"
	"                           bottom-up (every level; a testing mode)\n"
	"      --alpha A            go bottom-up when the frontier's edges exceed 1/A of\n"
	"                           the unexplored edges (default 10 on GPUs, 15 on CPUs)\n"
	"      --beta B             go back top-down when the frontier shrinks below N/B\n"
	"                           vertices (default 18)\n"
	"      --roots R            any (default): roots anywhere; largest-component: only\n"
	"                           in the largest connected component (found first by\n"
	"                           untimed searches), so that no search measures a tiny\n"
	"                           component of a real graph\n"
	"  -o, --output FILE        the BFS file (required)\n"
	"  -v, --verbose            per-search times on stderr; -q, --quiet\n"
	"      --progress           progress on stderr even under mpiexec (its stderr is a\n"
	"                           pipe, not a terminal; B2_PROGRESS=1 does the same)\n"
	"  -h, --help; -V, --version (with the git commit built in)\n"
	"\n"
	"Example:\n"
	"  mpiexec -n 4 bfs-gpu data/g.g2x2.h5 -n 64 --backend auto -o results/g.bfs.h5\n"
	"\n"
	"Exit codes: 0 ok, 1 runtime error, 2 usage (also: --backend cuda in a build\n"
	"without CUDA; a rank count other than R x C), 3 bad partition file,\n"
	"4 I/O or resource error (no GPU for --backend cuda, device memory short).\n";

typedef struct opts {
	const char *part, *output;
	int64_t nroots, ept, keep, warmup; /* keep: -1 all */
	uint64_t seed;
	const char *backend;
	int bitmap, transport, direction;
	double alpha, beta;
	const char *bitmap_s, *direction_s;
	int roots_lc; /* --roots largest-component */
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
		{"transport", required_argument, 0, 12},
		{"direction", required_argument, 0, 8}, {"alpha", required_argument, 0, 9},
		{"beta", required_argument, 0, 10}, {"roots", required_argument, 0, 11},
		B2_STD_LONGOPTS, {0, 0, 0, 0}};
	o->nroots = 64; o->seed = 1; o->backend = "auto"; o->bitmap = B2_BITMAP_AUTO;
	o->bitmap_s = "auto"; o->ept = 4; o->keep = -1; o->warmup = 1; o->transport = B2_TP_AUTO;
	o->direction = B2_DIRECTION_AUTO; o->direction_s = "auto"; o->alpha = 0; o->beta = 18; /* alpha 0: the backend's */
	o->roots_lc = 0;
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
			B2_TRY(b2_parse_choice(&o->bitmap, optarg, "--bitmap", (const char *[]){"auto", "on", "off", NULL},
			                       (const int[]){B2_BITMAP_AUTO, B2_BITMAP_ON, B2_BITMAP_OFF}));
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
			B2_TRY(b2_parse_choice(&o->transport, optarg, "--ipc", (const char *[]){"auto", "push", "off", NULL},
			                       (const int[]){B2_TP_AUTO, B2_TP_IPC, B2_TP_MPI}));
			break;
		case 12:
			B2_TRY(b2_parse_choice(&o->transport, optarg, "--transport",
			                       (const char *[]){"auto", "pull", "ipc", "nccl", "mpi", NULL},
			                       (const int[]){B2_TP_AUTO, B2_TP_PULL, B2_TP_IPC, B2_TP_NCCL,
			                                     B2_TP_MPI}));
			break;
		case 8:
			B2_TRY(b2_parse_choice(&o->direction, optarg, "--direction",
			                       (const char *[]){"auto", "top-down", "bottom-up", NULL},
			                       (const int[]){B2_DIRECTION_AUTO, B2_DIRECTION_TOP_DOWN,
			                                     B2_DIRECTION_BOTTOM_UP}));
			o->direction_s = optarg;
			break;
		case 9: B2_TRY(b2_parse_double(&o->alpha, optarg, "--alpha", 1e-3, 1e9)); break;
		case 10: B2_TRY(b2_parse_double(&o->beta, optarg, "--beta", 1e-3, 1e9)); break;
		case 11:
			B2_TRY(b2_parse_choice(&o->roots_lc, optarg, "--roots",
			                       (const char *[]){"any", "largest-component", NULL}, NULL));
			break;
		default:
			B2_TRY(b2_std_option(&std, c, optarg, help));
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
static int read_partition(b2_graph *g, pinfo *pi, const char *path)
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

/* FORMATS.md "BFS file", roots: candidates x_k = b2_rng_at(key, k) mod N,
 * key = b2_rng_key(seed, B2_ROOT_STREAM), k = 0, 1, ...; a candidate is taken
 * when its tuple_degree is > 0 and it was not taken before. */
#define B2_ROOT_STREAM 4
#define B2_ROOT_BATCH 4096
static int draw_roots(int64_t *roots, int64_t *nroots, int64_t want, uint64_t seed,
                      const b2_graph *g, const unsigned char *allow)
{
	int error = 0;
	unsigned char *flag = NULL, *all = NULL;
	int64_t b = g->b, v0 = ((int64_t)g->j * g->R + g->i) * b, npos = 0, have = 0;
	for (int64_t x = 0; x < b; x++)
		npos += g->tdeg[x] > 0 && (!allow || allow[x]);
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
			flag[q] = x >= v0 && x < v0 + b && g->tdeg[x - v0] > 0 && (!allow || allow[x - v0]);
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

/* One search's per-level records (search.h), kept until the output, then
 * laid out as [searches][levels] tables padded past each search's end
 * (frontier 0, direction -1, nothing examined, no time). */
typedef struct level_rows {
	int64_t n;
	int64_t *front, *exam;
	signed char *dir;
	double *time;
} level_rows, level_table;

static void level_rows_free(level_rows *r)
{
	free(r->front); free(r->exam); free(r->dir); free(r->time);
	memset(r, 0, sizeof *r);
}

static int keep_levels(level_rows *r, const b2_search *s)
{
	int error = 0;
	size_t n = (size_t)s->nlevels;
	r->n = s->nlevels;
	B2_TRY(b2_alloc(&r->front, n * 8, "level records"));
	B2_TRY(b2_alloc(&r->exam, n * 8, "level records"));
	B2_TRY(b2_alloc(&r->dir, n, "level records"));
	B2_TRY(b2_alloc(&r->time, n * 8, "level records"));
	memcpy(r->front, s->fsize, n * 8);
	memcpy(r->exam, s->lexam, n * 8);
	memcpy(r->dir, s->ldir, n);
	memcpy(r->time, s->ltime, n * 8);
done:
	return error;
}

static int level_table_make(level_table *t, const level_rows *rows, int64_t nroots, int64_t width)
{
	int error = 0;
	size_t cells = (size_t)nroots * (size_t)width + 1;
	B2_TRY(b2_calloc(&t->front, cells, 8, "level tables"));
	B2_TRY(b2_calloc(&t->exam, cells, 8, "level tables"));
	B2_TRY(b2_alloc(&t->dir, cells, "level tables"));
	B2_TRY(b2_calloc(&t->time, cells, 8, "level tables"));
	memset(t->dir, -1, cells);
	for (int64_t q = 0; q < nroots; q++) {
		size_t at = (size_t)(q * width), n = (size_t)rows[q].n;
		memcpy(t->front + at, rows[q].front, n * 8);
		memcpy(t->exam + at, rows[q].exam, n * 8);
		memcpy(t->dir + at, rows[q].dir, n);
		memcpy(t->time + at, rows[q].time, n * 8);
	}
done:
	return error;
}

/* Facts about the run beyond the searches (FORMATS.md "BFS file"): how the
 * roots were chosen, how full the nodes were, what made the file. */
typedef struct runfacts {
	int64_t comp_vertices, comp_searches;  /* --roots largest-component */
	int64_t ranks_per_node, cores_per_node; /* the most ranks, the fewest cores of a node */
	int oversubscribed;
} runfacts;

/* --roots largest-component. The partition file has degrees, not
 * components, so the searches find them: a search from the unlabelled
 * vertex of positive degree with the smallest id labels its component, until
 * the largest component found has at least as many vertices as remain
 * unlabelled (none left can be larger). With a giant component that takes
 * one or two searches. Ties go to the component of the smaller vertex id,
 * so the result does not depend on the grid. Nothing here is timed or
 * recorded but the component's size. *allow marks its owned vertices. */
static int largest_component(unsigned char **allow, runfacts *rf, b2_search *s,
                             const b2_backend *be, void *bk, const b2_graph *g)
{
	int error = 0;
	int64_t b = g->b, v0 = ((int64_t)g->j * g->R + g->i) * b, left = 0, best = 0, best_root = -1;
	int64_t *comp = NULL, *pred = NULL;
	unsigned char *mask = NULL;
	*allow = NULL;
	error = b2_calloc(&mask, (size_t)b + 1, 1, "component labels");
	if (!error) error = b2_alloc(&comp, (size_t)b * 8 + 8, "component labels");
	if (!error) error = b2_alloc(&pred, (size_t)b * 8 + 8, "component labels");
	B2_TRY(b2_agree(error, MPI_COMM_WORLD));
	for (int64_t x = 0; x < b; x++) {
		comp[x] = -1;
		left += g->tdeg[x] > 0;
	}
	B2_TRY(b2_mpi_ok(MPI_Allreduce(MPI_IN_PLACE, &left, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD),
	                 "MPI_Allreduce"));
	while (left > best) {
		int64_t next = INT64_MAX, reached = 0;
		for (int64_t x = 0; x < b && next == INT64_MAX; x++)
			if (g->tdeg[x] > 0 && comp[x] < 0)
				next = v0 + x;
		B2_TRY(b2_mpi_ok(MPI_Allreduce(MPI_IN_PLACE, &next, 1, MPI_INT64_T, MPI_MIN, MPI_COMM_WORLD),
		                 "MPI_Allreduce"));
		if (next == INT64_MAX)
			break;
		B2_TRY(b2_search_run(s, next));
		B2_TRY(b2_agree(be->pred(bk, pred), MPI_COMM_WORLD));
		for (int64_t l = 0; l < s->nlevels; l++)
			reached += s->fsize[l];
		/* every reached vertex has a non-loop tuple, so positive degree */
		for (int64_t x = 0; x < b; x++)
			if (pred[x] != -1 && comp[x] < 0)
				comp[x] = next;
		left -= reached;
		rf->comp_searches++;
		if (reached > best) {
			best = reached;
			best_root = next;
		}
	}
	for (int64_t x = 0; x < b; x++)
		mask[x] = best_root >= 0 && comp[x] == best_root;
	rf->comp_vertices = best;
	b2_debug("largest component: %lld vertices, found with %lld search(es)", (long long)best,
	         (long long)rf->comp_searches);
	*allow = mask;
	mask = NULL;
done:
	free(mask);
	free(comp);
	free(pred);
	return error;
}

/* Ranks per node against the node's cores (cpu backend) or GPUs (cuda):
 * more ranks than either makes the timings meaningless, so the run says so
 * (once, on rank 0; pick_backend has warned of shared GPUs already) and the
 * BFS file records it for the report. */
static int node_facts(runfacts *rf, const b2_backend *be, int gpus_shared)
{
	int error = 0, nlocal = 1;
	MPI_Comm node = MPI_COMM_NULL;
	B2_TRY(b2_mpi_ok(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, b2_rank,
	                                     MPI_INFO_NULL, &node), "MPI_Comm_split_type"));
	MPI_Comm_size(node, &nlocal);
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	int64_t v[3] = {nlocal, -(int64_t)(cores > 0 ? cores : 1), nlocal > cores};
	B2_TRY(b2_mpi_ok(MPI_Allreduce(MPI_IN_PLACE, v, 3, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD),
	                 "MPI_Allreduce"));
	rf->ranks_per_node = v[0];
	rf->cores_per_node = -v[1];
	if (be == &b2_cpu_backend) {
		rf->oversubscribed = v[2] > 0;
		if (rf->oversubscribed)
			b2_warn0("%lld ranks on a node with %lld cores: the CPU backend is oversubscribed, so its "
			         "times and scaling efficiencies say little (the report marks this run)",
			         (long long)rf->ranks_per_node, (long long)rf->cores_per_node);
	} else
		rf->oversubscribed = gpus_shared;
done:
	if (node != MPI_COMM_NULL)
		MPI_Comm_free(&node);
	return error;
}

#ifdef B2_HAVE_CUDA
void b2_cuda_versions(int *driver, int *runtime); /* cuda.cu */
#endif

/* "12.4" from CUDA's 1000 * major + 10 * minor; "none" for 0. */
static void cuda_version_str(char *buf, size_t n, int v)
{
	if (v > 0)
		snprintf(buf, n, "%d.%d", v / 1000, (v % 1000) / 10);
	else
		snprintf(buf, n, "none");
}

/* The run's facts and bfs-gpu's part of the provenance (the common part is
 * b2_h5_create's): CUDA driver and runtime, and each rank's device name. */
static int write_run_facts(hid_t f, const opts *o, const runfacts *rf, const char *devname, int cuda)
{
	int error = 0, drv = 0, rt = 0;
	char vs[32], *all = NULL;
	const char **names = NULL;
#ifdef B2_HAVE_CUDA
	b2_cuda_versions(&drv, &rt);
#endif
	/* rank 0's view, so that every rank writes the same */
	int dv[2] = {drv, rt};
	B2_TRY(b2_mpi_ok(MPI_Bcast(dv, 2, MPI_INT, 0, MPI_COMM_WORLD), "MPI_Bcast"));
	cuda_version_str(vs, sizeof vs, dv[0]);
	B2_TRY(b2_attr_put_str(f, "cuda_driver_version", vs));
	cuda_version_str(vs, sizeof vs, dv[1]);
	B2_TRY(b2_attr_put_str(f, "cuda_runtime_version", vs));
	if (cuda) {
		error = b2_alloc(&all, (size_t)b2_nranks * 256, "device names");
		if (!error) error = b2_alloc(&names, (size_t)b2_nranks * sizeof *names, "device names");
		B2_TRY(b2_agree(error, MPI_COMM_WORLD));
		char mine[256];
		snprintf(mine, sizeof mine, "%s", devname);
		B2_TRY(b2_mpi_ok(MPI_Allgather(mine, 256, MPI_CHAR, all, 256, MPI_CHAR, MPI_COMM_WORLD),
		                 "MPI_Allgather of device names"));
		for (int r = 0; r < b2_nranks; r++)
			names[r] = all + (size_t)r * 256;
		B2_TRY(b2_attr_put_strv(f, "gpu_names", names, (size_t)b2_nranks));
	}
	B2_TRY(b2_attr_put_str(f, "roots_from", o->roots_lc ? "largest-component" : "any"));
	if (o->roots_lc) {
		B2_TRY(b2_attr_put_i64(f, "component_vertices", rf->comp_vertices));
		B2_TRY(b2_attr_put_i64(f, "component_searches", rf->comp_searches));
	}
	B2_TRY(b2_attr_put_i64(f, "ranks_per_node", rf->ranks_per_node));
	B2_TRY(b2_attr_put_i64(f, "cores_per_node", rf->cores_per_node));
	B2_TRY(b2_attr_put_i64(f, "oversubscribed", rf->oversubscribed));
done:
	free(all);
	free(names);
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
			/* one message for the job, not one per rank */
			int without = ndev == 0, nwithout = 0;
			MPI_Allreduce(&without, &nwithout, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
			B2_FAIL0(B2_EIO, "--backend cuda: %d of %d rank(s) see no CUDA device (--backend auto "
			         "or cpu runs on the CPUs)", nwithout, b2_nranks);
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
	int64_t maxlev = 1, *pred = NULL;
	level_rows *lrows = NULL;
	level_table lt = {0};
	runfacts rf = {0};
	unsigned char *allow = NULL; /* --roots largest-component */
	double *times = NULL, *phases = NULL, *expdir = NULL;
	b2_h5out out = {.file = -1};
	int out_open = 0;
	hid_t dpred = -1;
	if (error)
		return error;
	B2_TRY(parse(&o, argc, argv));
	B2_TRY(b2_check_output("-o", o.output, &o.part, 1, 0));
	double tl0 = b2_now();
	B2_TRY(read_partition(&g, &pi, o.part));
	double read_time = b2_now() - tl0; /* the rest of the load builds the search structure */
	b2_debug("read %s in %.3f s", o.part, b2_now() - tl0);
	B2_TRY(pick_backend(&be, &device, &shared, devname, sizeof devname, o.backend));
	B2_TRY(node_facts(&rf, be, shared));
	/* Beamer's alpha weighs a top-down step's edges against a bottom-up
	 * step's: measured best at 10 on the GPU (one H200, scales 21-26) and
	 * 15 (gapbs's value) on the CPU backend (docs/PERFORMANCE.md) */
	if (o.alpha == 0)
		o.alpha = be == &b2_cpu_backend ? 15 : 10;
	b2_bkopts bo = {
		.bottom_up = o.direction != B2_DIRECTION_TOP_DOWN,
		.frontier_degree = o.direction == B2_DIRECTION_AUTO,
		.edges_per_thread = (int)o.ept,
		/* the own frontier's bitmap: the expand messages, and what a row
		 * of two carries with the fold (transport.h) */
		.pack_front = (g.R > 1 || (g.C == 2 && o.direction != B2_DIRECTION_TOP_DOWN)) &&
		              o.bitmap != B2_BITMAP_OFF,
		.pack_fold = g.C > 1 && o.bitmap != B2_BITMAP_OFF,
		.fold_cap = o.bitmap == B2_BITMAP_ON ? 0 : o.bitmap == B2_BITMAP_AUTO ? g.b / 32 : g.b,
		.device = device,
	};
	error = be->create(&bk, &g, &bo);
	B2_TRY(b2_agree(error, MPI_COMM_WORLD));
	b2_search_opts so = {.bitmap_mode = o.bitmap, .transport = o.transport, .gpus_shared = shared,
	                     .direction = o.direction, .alpha = o.alpha, .beta = o.beta};
	B2_TRY(b2_search_init(&s, be, bk, &g, &so));
	have_search = 1;
	/* the CUDA backend keeps its own copy of the graph */
	if (be != &b2_cpu_backend) {
		free(g.row_idx);
		g.row_idx = NULL;
	}
	B2_TRY(b2_mpi_ok(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier"));
	double load_time = b2_now() - tl0;
	B2_TRY(b2_mpi_ok(MPI_Bcast(&load_time, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD), "MPI_Bcast"));
	B2_TRY(b2_mpi_ok(MPI_Bcast(&read_time, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD), "MPI_Bcast"));

	B2_TRY(b2_alloc(&roots, (size_t)o.nroots * 8, "roots"));
	if (o.roots_lc)
		B2_TRY(largest_component(&allow, &rf, &s, be, bk, &g));
	B2_TRY(draw_roots(roots, &nroots, o.nroots, o.seed, &g, allow));
	if (nroots == 0)
		b2_warn0("%s: no vertex has an edge; no search to run", o.part);
	nkept = o.keep < 0 || o.keep > nroots ? nroots : o.keep;
	B2_TRY(b2_calloc(&nedge, (size_t)nroots + 1, 8, "results"));
	B2_TRY(b2_calloc(&visited, (size_t)nroots + 1, 8, "results"));
	B2_TRY(b2_calloc(&kept, (size_t)nkept + 1, 8, "results"));
	B2_TRY(b2_calloc(&times, (size_t)nroots + 1, 8, "results"));
	B2_TRY(b2_calloc(&phases, (size_t)nroots * B2_NPHASES + 1, 8, "results"));
	B2_TRY(b2_calloc(&expdir, (size_t)nroots * 2 + 1, 8, "results"));
	B2_TRY(b2_calloc(&lrows, (size_t)nroots + 1, sizeof *lrows, "results"));
	B2_TRY(b2_calloc(&pred, (size_t)g.b, 8, "predecessors"));

	b2_debug("loaded in %.3f s, roots drawn at %.3f s", load_time, b2_now() - tl0);
	B2_TRY(b2_h5_create(&out, o.output, MPI_COMM_WORLD, "bfs2d-bfs", 1));
	out_open = 1;
	{
		char run_id[B2_RUN_ID_SIZE];
		B2_TRY(b2_run_id_new(run_id, MPI_COMM_WORLD));
		B2_TRY(b2_attr_put_str(out.file, "run_id", run_id));
	}
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
		B2_TRY(b2_mpi_ok(MPI_Allreduce(s.expansion_by_dir, expdir + 2 * q, 2, MPI_DOUBLE, MPI_SUM,
		                               MPI_COMM_WORLD), "MPI_Allreduce (expansion times)"));
		expdir[2 * q] /= b2_nranks;
		expdir[2 * q + 1] /= b2_nranks;
		int64_t ds = 0, vis = 0;
		error = be->degree_sum(bk, &ds);
		B2_TRY(b2_agree(error, MPI_COMM_WORLD));
		B2_TRY(b2_mpi_ok(MPI_Allreduce(MPI_IN_PLACE, &ds, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD),
		                 "MPI_Allreduce (nedge)"));
		nedge[q] = ds / 2;
		for (int64_t l = 0; l < s.nlevels; l++)
			vis += s.fsize[l];
		visited[q] = vis;
		B2_TRY(keep_levels(&lrows[q], &s));
		maxlev = s.nlevels > maxlev ? s.nlevels : maxlev;
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

	char exchange[160], nccl_version[32] = "";
	int nccl = 0;
	B2_TRY(b2_links_describe(&s.expand, &s.fold, exchange, sizeof exchange, &nccl));
	if (nccl) {
		int v = b2_nccl_version();
		snprintf(nccl_version, sizeof nccl_version, "%d.%d.%d", v / 10000, v / 100 % 100, v % 100);
	}
	{
		hid_t f = out.file;
		uint64_t d1[1] = {(uint64_t)nroots}, d2[2] = {(uint64_t)nroots, B2_NPHASES},
		         d3[2] = {(uint64_t)nroots, (uint64_t)maxlev}, dk[1] = {(uint64_t)nkept};
		B2_TRY(put_small(f, "/roots", H5T_NATIVE_INT64, 1, d1, roots));
		B2_TRY(put_small(f, "/time", H5T_NATIVE_DOUBLE, 1, d1, times));
		B2_TRY(put_small(f, "/nedge", H5T_NATIVE_INT64, 1, d1, nedge));
		B2_TRY(put_small(f, "/visited", H5T_NATIVE_INT64, 1, d1, visited));
		B2_TRY(put_small(f, "/phase_time", H5T_NATIVE_DOUBLE, 2, d2, phases));
		uint64_t de[2] = {(uint64_t)nroots, 2};
		B2_TRY(put_small(f, "/expansion_time", H5T_NATIVE_DOUBLE, 2, de, expdir));
		B2_TRY(level_table_make(&lt, lrows, nroots, maxlev));
		B2_TRY(put_small(f, "/frontier_size", H5T_NATIVE_INT64, 2, d3, lt.front));
		B2_TRY(put_small(f, "/level_direction", H5T_NATIVE_SCHAR, 2, d3, lt.dir));
		B2_TRY(put_small(f, "/edges_examined", H5T_NATIVE_INT64, 2, d3, lt.exam));
		B2_TRY(put_small(f, "/level_time", H5T_NATIVE_DOUBLE, 2, d3, lt.time));
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
		B2_TRY(b2_attr_put_str(f, "direction", o.direction_s));
		B2_TRY(b2_attr_put_f64(f, "alpha", o.alpha));
		B2_TRY(b2_attr_put_f64(f, "beta", o.beta));
		B2_TRY(b2_attr_put_strv(f, "phase_names", b2_phase_names, B2_NPHASES));
		B2_TRY(b2_attr_put_i64(f, "warmup", o.warmup));
		int64_t msgs[2] = {s.bitmap_msgs, s.list_msgs};
		B2_TRY(b2_mpi_ok(MPI_Allreduce(MPI_IN_PLACE, msgs, 2, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD),
		                 "MPI_Allreduce (message counts)"));
		B2_TRY(b2_attr_put_i64(f, "bitmap_messages", msgs[0]));
		B2_TRY(b2_attr_put_str(f, "exchange", exchange));
		if (nccl)
			B2_TRY(b2_attr_put_str(f, "nccl_version", nccl_version));
		B2_TRY(b2_attr_put_i64(f, "list_messages", msgs[1]));
		if (pi.has_scale) B2_TRY(b2_attr_put_i64(f, "scale", pi.scale));
		if (pi.has_ef) B2_TRY(b2_attr_put_i64(f, "edgefactor", pi.ef));
		if (pi.has_gt) B2_TRY(b2_attr_put_f64(f, "generation_time", pi.gen_time));
		if (pi.has_pt) B2_TRY(b2_attr_put_f64(f, "partition_time", pi.part_time));
		B2_TRY(b2_attr_put_f64(f, "load_time", load_time));
		B2_TRY(b2_attr_put_f64(f, "load_read_time", read_time));
		B2_TRY(b2_attr_put_f64(f, "load_build_time", load_time - read_time));
		B2_TRY(write_run_facts(f, &o, &rf, devname, be != &b2_cpu_backend));
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
	free(roots); free(nedge); free(visited); free(kept); free(times); free(phases); free(expdir);
	free(pred);
	free(allow);
	for (int64_t q = 0; lrows && q < nroots; q++)
		level_rows_free(&lrows[q]);
	free(lrows);
	level_rows_free(&lt);
	return b2_finish(error);
}
