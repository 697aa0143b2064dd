/* partition2d — turns an edge file into the partition file of an R×C grid
 * (docs/DESIGN.md "The 2D decomposition", docs/FORMATS.md "Partition file").
 *
 * Any number of ranks P: rank r handles the grid blocks p with p mod P = r.
 * Each rank reads its share of /edges, routes the two directed edges of
 * every non-loop tuple to the rank handling their block (route.c); the
 * owners sort and deduplicate them into CSC, spilling sorted runs to disk
 * when the --mem budget is full (csc.c); the file is written here. */
#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#include "h5util.h"
#include "part.h"

static const char help[] =
	"Usage: partition2d --grid RxC EDGES.h5 -o PART.h5 [options]\n"
	"Partitions an edge file for an R x C grid of ranks (2D, as in Bisson et al.):\n"
	"per-rank CSC blocks with 32-bit local row indices, degree data and counts.\n"
	"Runs on any number of MPI ranks, independent of R x C; the output is the same.\n"
	"\n"
	"  -g, --grid RxC      grid rows x grid columns (required)\n"
	"  -o, --output FILE   the partition file (written atomically)\n"
	"  -m, --mem BYTES     memory budget per rank for edges in flight (suffixes\n"
	"                      K, M, G, T; default: a quarter of physical memory shared\n"
	"                      by the ranks on the node). Beyond it, sorted runs are\n"
	"                      spilled to temporary files beside the output. The\n"
	"                      per-vertex arrays (16 bytes per column a rank holds)\n"
	"                      must fit in it, or in the default where --mem is\n"
	"                      smaller; a graph whose do not is refused (exit 4)\n"
	"                      with the memory it needs.\n"
	"  -v, --verbose       progress, phase times, peak memory per rank\n"
	"  -q, --quiet         errors only\n"
	"      --progress      progress even under mpiexec, whose stderr is a pipe\n"
	"                      (B2_PROGRESS=1 does the same; default: only when\n"
	"                      stderr is a terminal)\n"
	"  -h, --help          this text\n"
	"  -V, --version       version, with the git commit built in\n"
	"\n"
	"Its wall time is recorded as partition_time: Graph500's construction_time.\n"
	"\n"
	"Example:\n"
	"  mpiexec -n 4 partition2d --grid 2x2 data/g.h5 -o data/g.g2x2.h5\n"
	"\n"
	"Exit codes: 0 ok, 1 runtime failure, 2 usage (bad grid, grid too small for\n"
	"32-bit local indices), 3 bad input (not an edge file, corrupt, fingerprint\n"
	"mismatch, vertex out of range), 4 I/O or memory.\n";

static int parse_bytes(uint64_t *out, const char *s)
{
	char *end;
	errno = 0;
	if (!s || !(*s >= '0' && *s <= '9'))
		goto bad;
	double v = strtod(s, &end);
	if (errno || end == s)
		goto bad;
	double mul = 1;
	switch (*end) {
	case 'k': case 'K': mul = 1024.0; end++; break;
	case 'm': case 'M': mul = 1024.0 * 1024; end++; break;
	case 'g': case 'G': mul = 1024.0 * 1024 * 1024; end++; break;
	case 't': case 'T': mul = 1024.0 * 1024 * 1024 * 1024; end++; break;
	default: break;
	}
	if (*end == 'i' || *end == 'B')
		end += *end == 'i' && end[1] == 'B' ? 2 : 1;
	if (*end || !(v * mul >= 4096) || v * mul > 1e18)
		goto bad;
	*out = (uint64_t)(v * mul);
	return 0;
bad:
	return b2_usage_err("--mem: expected a number of bytes of at least 4096, optionally with "
	                    "a suffix K, M, G or T (e.g. 2G), got '%s'", s ? s : "");
}

static uint64_t default_mem(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
	uint64_t phys = pages > 0 && psz > 0 ? (uint64_t)pages * (uint64_t)psz : (uint64_t)8 << 30;
	int local = 1;
	MPI_Comm node;
	if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) ==
	    MPI_SUCCESS) {
		MPI_Comm_size(node, &local);
		MPI_Comm_free(&node);
	}
	uint64_t m = phys / 4 / (uint64_t)(local > 0 ? local : 1);
	return m < ((uint64_t)64 << 20) ? (uint64_t)64 << 20 : m;
}

static int bits_for(uint64_t maxval)
{
	int k = 1;
	while (k < 64 && (maxval >> k) != 0)
		k++;
	return k;
}

/* Local indices of grid (r, c): columns b*r, rows b*c; both must stay below
 * 2^32 (docs/DESIGN.md: N/R and N/C below 2^32; UINT32_MAX stays free). */
static void local_sizes(uint64_t n, uint64_t r, uint64_t c, uint64_t *cols, uint64_t *rows)
{
	uint64_t b = (n + r * c - 1) / (r * c);
	*cols = b * r;
	*rows = b * c;
}

static int grid_fits(uint64_t n, uint64_t r, uint64_t c)
{
	uint64_t cols, rows;
	local_sizes(n, r, c, &cols, &rows);
	return cols < ((uint64_t)1 << 32) && rows < ((uint64_t)1 << 32);
}

/* The smallest R (rows: 1) or C (rows: 0), from max(current, N / 2^32) up
 * to 65536, that brings the local rows, resp. columns, below 2^32; 65537
 * when none does. */
static uint64_t grow_side(uint64_t n, uint64_t r, uint64_t c, int rows)
{
	const uint64_t lim = (uint64_t)1 << 32;
	uint64_t x = rows ? r : c;
	if (n / lim > x)
		x = n / lim;
	for (; x <= 65536; x++) {
		uint64_t lc, lr;
		local_sizes(n, rows ? x : r, rows ? c : x, &lc, &lr);
		if ((rows ? lr : lc) < lim)
			break;
	}
	return x;
}

/* Refuses grids whose local indices do not fit 32 bits, naming the dimension
 * and the smallest grid (growing the offending dimensions) that fits. */
static int check_grid(uint64_t n, int R, int C)
{
	uint64_t cols, rows, lim = (uint64_t)1 << 32;
	local_sizes(n, (uint64_t)R, (uint64_t)C, &cols, &rows);
	if (cols < lim && rows < lim)
		return 0;
	uint64_t r = (uint64_t)R, c = (uint64_t)C;
	for (int iter = 0; iter < 4 && !grid_fits(n, r, c); iter++) {
		uint64_t lc, lr;
		local_sizes(n, r, c, &lc, &lr);
		if (lr >= lim) /* rows ~ N/R: grow R */
			r = grow_side(n, r, c, 1);
		local_sizes(n, r, c, &lc, &lr);
		if (lc >= lim) /* columns ~ N/C: grow C */
			c = grow_side(n, r, c, 0);
	}
	char which[256];
	if (rows >= lim && cols >= lim)
		snprintf(which, sizeof which, "both N/R and N/C are too large (local rows b*C = %llu, "
		         "local columns b*R = %llu)", (unsigned long long)rows, (unsigned long long)cols);
	else if (rows >= lim)
		snprintf(which, sizeof which, "N/R is too large (local rows b*C = %llu)",
		         (unsigned long long)rows);
	else
		snprintf(which, sizeof which, "N/C is too large (local columns b*R = %llu)",
		         (unsigned long long)cols);
	if (r <= 65536 && c <= 65536 && grid_fits(n, r, c))
		return b2_usage_err("--grid %dx%d: %s for %llu vertices: local indices are 32-bit and "
		                    "must stay below 2^32; the smallest grid that fits is %llux%llu",
		                    R, C, which, (unsigned long long)n, (unsigned long long)r,
		                    (unsigned long long)c);
	return b2_usage_err("--grid %dx%d: %s for %llu vertices: local indices are 32-bit and "
	                    "must stay below 2^32, and no grid up to 65536x65536 fits", R, C, which,
	                    (unsigned long long)n);
}

static uint64_t gcd_u64(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t t = a % b;
		a = b;
		b = t;
	}
	return a;
}

/* Cuts blocks into pieces when there are fewer blocks than ranks, and lists
 * this rank's pieces (units u = p*k + q with u mod P = rank). */
static int setup_units(part *pt)
{
	int error = 0;
	uint64_t P = (uint64_t)pt->P, me = (uint64_t)pt->me;
	pt->k = pt->RC < P ? P / gcd_u64(pt->RC, P) : 1;
	pt->w = (pt->bR + pt->k - 1) / pt->k;
	fdiv_init(&pt->div_w, pt->w);
	pt->nunits = pt->RC * pt->k;
	pt->nslots = me < pt->nunits ? (pt->nunits - me + P - 1) / P : 0;
	B2_TRY(b2_calloc(&pt->s_lo, pt->nslots + 1, sizeof *pt->s_lo, "piece list"));
	B2_TRY(b2_calloc(&pt->s_width, pt->nslots + 1, sizeof *pt->s_width, "piece list"));
	B2_TRY(b2_calloc(&pt->s_base, pt->nslots + 1, sizeof *pt->s_base, "piece list"));
	pt->NC = 0;
	for (uint64_t s = 0; s < pt->nslots; s++) {
		uint64_t q = (s * P + me) % pt->k;
		uint64_t lo = q * pt->w < pt->bR ? q * pt->w : pt->bR;
		uint64_t hi = (q + 1) * pt->w < pt->bR ? (q + 1) * pt->w : pt->bR;
		pt->s_lo[s] = lo;
		pt->s_width[s] = hi - lo;
		pt->s_base[s] = pt->NC;
		pt->NC += hi - lo;
	}
	pt->colbits = pt->NC > 0 ? bits_for(pt->NC - 1) : 1;
	if (pt->colbits + pt->rowbits > 64)
		B2_FAIL(B2_EIO, "%s: %lld vertices on a %dx%d grid are too many for %d rank(s): "
		        "run on more ranks", pt->edges_path, (long long)pt->N, pt->R, pt->C, pt->P);
	if (P > 1 && pt->nunits <= ((uint64_t)1 << 20)) {
		/* per unit: its owner and where its columns start there */
		uint64_t *acc = NULL;
		B2_TRY(b2_alloc(&pt->u_base, pt->nunits * sizeof *pt->u_base, "unit table"));
		B2_TRY(b2_alloc(&pt->u_dest, pt->nunits * sizeof *pt->u_dest, "unit table"));
		B2_TRY(b2_calloc(&acc, P, sizeof *acc, "unit table"));
		for (uint64_t u = 0; u < pt->nunits; u++) {
			uint64_t q = u % pt->k, d = u % P;
			uint64_t lo = q * pt->w < pt->bR ? q * pt->w : pt->bR;
			uint64_t hi = (q + 1) * pt->w < pt->bR ? (q + 1) * pt->w : pt->bR;
			pt->u_dest[u] = (uint32_t)d;
			pt->u_base[u] = acc[d];
			acc[d] += hi - lo;
		}
		free(acc);
	} else if (pt->k > 1) {
		B2_FAIL(B2_EIO, "internal: %llu pieces need a unit table", (unsigned long long)pt->nunits);
	}
done:
	return error;
}

/* Columns [c0, c0+n) of row `row` of a 2-D uint64 dataset; independent. */
static int write_row_part(hid_t dset, uint64_t row, uint64_t c0, uint64_t n, const uint64_t *buf,
                          const char *what)
{
	int error = 0;
	hsize_t start[2] = {row, c0}, cnt[2] = {1, n};
	hid_t fs = H5Dget_space(dset), ms = H5Screate_simple(2, cnt, NULL);
	if (fs < 0 || ms < 0 ||
	    H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, cnt, NULL) < 0 ||
	    H5Dwrite(dset, H5T_NATIVE_UINT64, ms, fs, H5P_DEFAULT, buf) < 0)
		error = b2_h5_write_err(dset, "dataset %s, row %llu", what, (unsigned long long)row);
	if (ms >= 0) H5Sclose(ms);
	if (fs >= 0) H5Sclose(fs);
	return error;
}

#define WCHUNK ((uint64_t)1 << 20)

/* This rank's pieces of /csc/col_ptr rows and /csc/row_idx segments: piece q
 * of block p holds its columns [lo, lo+width) (and the last piece the final
 * pointer), offset by the edges of the block's earlier pieces. */
static int write_csc(part *pt, hid_t colptr, hid_t rowidx, const int64_t *row_off,
                     const int64_t *unnz)
{
	int error = 0;
	uint64_t *buf = NULL;
	uint32_t *rbuf = NULL;
	B2_TRY(b2_alloc(&buf, WCHUNK * sizeof *buf, "output buffer"));
	B2_TRY(b2_alloc(&rbuf, WCHUNK * sizeof *rbuf, "output buffer"));
	for (uint64_t s = 0; s < pt->nslots; s++) {
		uint64_t u = s * (uint64_t)pt->P + (uint64_t)pt->me, p = u / pt->k, q = u % pt->k;
		uint64_t before = 0; /* edges of the block's earlier pieces */
		for (uint64_t x = 0; x < q; x++)
			before += (uint64_t)unnz[p * pt->k + x];
		const uint64_t *cp = pt->cp + pt->s_base[s], base = cp[0];
		uint64_t ncols = pt->s_width[s] + (q == pt->k - 1 ? 1 : 0);
		for (uint64_t c0 = 0; c0 < ncols; c0 += WCHUNK) {
			uint64_t n = ncols - c0 < WCHUNK ? ncols - c0 : WCHUNK;
			for (uint64_t x = 0; x < n; x++)
				buf[x] = cp[c0 + x] - base + before;
			B2_TRY(write_row_part(colptr, p, pt->s_lo[s] + c0, n, buf, "/csc/col_ptr"));
		}
		uint64_t nnz = cp[pt->s_width[s]] - base;
		for (uint64_t o = 0; o < nnz; o += WCHUNK) {
			uint64_t n = nnz - o < WCHUNK ? nnz - o : WCHUNK;
			B2_TRY(part_rows_read(pt, rbuf, base + o, n));
			B2_TRY(b2_dset_write_rows(rowidx, H5T_NATIVE_UINT32, (uint64_t)row_off[p] + before + o,
			                          n, rbuf, 0));
		}
	}
done:
	free(buf);
	free(rbuf);
	return error;
}

/* /tuple_degree: vertex v of grid column j = v div (b*R) has its column in
 * the R blocks (i, j); their counts are summed onto rank j mod P, which
 * writes them. Collective. */
static int write_degree(part *pt, hid_t dset)
{
	int error = 0;
	uint64_t *sb = NULL, *rb = NULL;
	error = b2_alloc(&sb, WCHUNK * sizeof *sb, "degree buffer");
	if (!error)
		error = b2_alloc(&rb, WCHUNK * sizeof *rb, "degree buffer");
	B2_TRY(b2_agree(error, MPI_COMM_WORLD));
	for (uint64_t j = 0; j < (uint64_t)pt->C; j++) {
		uint64_t v0 = j * pt->bR;
		if (v0 >= (uint64_t)pt->N)
			break;
		uint64_t len = (uint64_t)pt->N - v0 < pt->bR ? (uint64_t)pt->N - v0 : pt->bR;
		int root = (int)(j % (uint64_t)pt->P);
		for (uint64_t c0 = 0; c0 < len; c0 += WCHUNK) {
			uint64_t n = len - c0 < WCHUNK ? len - c0 : WCHUNK;
			memset(sb, 0, n * sizeof *sb);
			for (uint64_t s = 0; s < pt->nslots; s++) {
				uint64_t u = s * (uint64_t)pt->P + (uint64_t)pt->me, p = u / pt->k;
				if (p % (uint64_t)pt->C != j)
					continue;
				/* the piece's columns [lo, hi) within the chunk [c0, c0+n) */
				uint64_t lo = pt->s_lo[s], hi = lo + pt->s_width[s];
				uint64_t a = lo > c0 ? lo : c0, e = hi < c0 + n ? hi : c0 + n;
				const uint64_t *d = pt->deg + pt->s_base[s];
				for (uint64_t x = a; x < e; x++)
					sb[x - c0] += d[x - lo];
			}
			B2_TRY(b2_mpi_ok(MPI_Reduce(sb, rb, (int)n, MPI_UINT64_T, MPI_SUM, root, MPI_COMM_WORLD),
			                 "MPI_Reduce (degrees)"));
			if (pt->me == root)
				error = b2_dset_write_rows(dset, H5T_NATIVE_INT64, v0 + c0, n, rb, 0);
			B2_TRY(b2_agree(error, MPI_COMM_WORLD));
		}
	}
done:
	free(sb);
	free(rb);
	return error;
}

static long peak_rss_kib(void)
{
	struct rusage ru;
	return getrusage(RUSAGE_SELF, &ru) == 0 ? ru.ru_maxrss : -1;
}

int main(int argc, char **argv)
{
	int error = b2_init(&argc, &argv, "partition2d");
	b2_stdopts std = {0};
	const char *grid = NULL, *mem_s = NULL;
	hid_t in = -1, edges = -1, grp = -1, d_cp = -1, d_ri = -1, d_deg = -1;
	b2_h5out out = {.file = -1};
	int have_out = 0;
	part pt;
	int64_t *nnz = NULL, *row_off = NULL, *unnz = NULL;
	double t_start = b2_now(), tmax = 0;
	int64_t E = 0;
	memset(&pt, 0, sizeof pt);
	pt.spill_fd = pt.rows_fd = -1;
	if (error)
		return error;

	static const struct option longopts[] = {
		{"grid", required_argument, 0, 'g'}, {"mem", required_argument, 0, 'm'},
		B2_STD_LONGOPTS, {0, 0, 0, 0}};
	int c;
	while ((c = getopt_long(argc, argv, "g:m:" B2_STD_SHORTOPTS, longopts, NULL)) != -1) {
		if (c == 'g')
			grid = optarg;
		else if (c == 'm')
			mem_s = optarg;
		else if ((error = b2_std_option(&std, c, optarg, help)) != 0)
			goto done;
	}
	if (!grid) {
		error = b2_usage_err("--grid RxC is required");
		goto done;
	}
	B2_TRY(b2_parse_grid(&pt.R, &pt.C, grid));
	if (optind != argc - 1) {
		error = b2_usage_err("expected one edge file, got %d arguments", argc - optind);
		goto done;
	}
	if (!std.output) {
		error = b2_usage_err("-o PART.h5 is required");
		goto done;
	}
	uint64_t dflt_mem = default_mem();
	pt.mem = dflt_mem;
	if (mem_s)
		B2_TRY(parse_bytes(&pt.mem, mem_s));
	pt.mem_given = mem_s != NULL;
	pt.edges_path = argv[optind];
	pt.out_path = std.output;
	B2_TRY(b2_check_output("-o", pt.out_path, (const char *const *)&argv[optind], 1, 0));
	pt.P = b2_nranks;
	pt.me = b2_rank;

	/* ---- the edge file ---- */
	B2_TRY(b2_h5_open(&in, pt.edges_path, MPI_COMM_WORLD, "bfs2d-edges"));
	int64_t directed = 0;
	uint64_t fingerprint = 0, rows = 0;
	B2_TRY(b2_attr_get_i64(&pt.N, in, "num_vertices", pt.edges_path));
	B2_TRY(b2_attr_get_i64(&pt.M, in, "num_edges", pt.edges_path));
	B2_TRY(b2_attr_get_i64(&directed, in, "directed", pt.edges_path));
	B2_TRY(b2_attr_get_u64(&fingerprint, in, "fingerprint", pt.edges_path));
	B2_TRY(b2_dset_open(&edges, in, "edges", H5T_NATIVE_INT64, 2, 2, pt.edges_path));
	B2_TRY(b2_dset_rows(&rows, edges));
	if (pt.N < 1)
		B2_FAIL0(B2_EDATA, "%s: attribute num_vertices is %lld; expected at least 1",
		         pt.edges_path, (long long)pt.N);
	if (pt.M < 0 || (uint64_t)pt.M != rows)
		B2_FAIL0(B2_EDATA, "%s: attribute num_edges is %lld but /edges has %llu rows",
		         pt.edges_path, (long long)pt.M, (unsigned long long)rows);

	/* ---- the grid ---- */
	B2_TRY(check_grid((uint64_t)pt.N, pt.R, pt.C));
	pt.RC = (uint64_t)pt.R * (uint64_t)pt.C;
	pt.b = ((uint64_t)pt.N + pt.RC - 1) / pt.RC;
	pt.bR = pt.b * (uint64_t)pt.R;
	pt.bC = pt.b * (uint64_t)pt.C;
	pt.rowbits = bits_for(pt.bC - 1);
	fdiv_init(&pt.div_b, pt.b);
	B2_TRY(b2_agree(setup_units(&pt), MPI_COMM_WORLD));
	if (pt.RC <= ((uint64_t)1 << 20)) {
		error = b2_alloc(&pt.blk_q, pt.RC * sizeof *pt.blk_q, "block table");
		if (!error)
			error = b2_alloc(&pt.blk_r, pt.RC * sizeof *pt.blk_r, "block table");
		if (!error)
			for (uint64_t t = 0; t < pt.RC; t++) {
				pt.blk_q[t] = t / (uint64_t)pt.R;
				pt.blk_r[t] = (uint32_t)(t % (uint64_t)pt.R);
			}
		B2_TRY(b2_agree(error, MPI_COMM_WORLD));
	}

	/* ---- the budget: T tuples per round, a store of S keys ---- */
	{
		uint64_t per = pt.P == 1 ? 16 : 56; /* routing bytes per tuple read */
		uint64_t T = pt.mem / 8 / per;
		if (T > ((uint64_t)1 << 20)) T = (uint64_t)1 << 20;
		uint64_t S = (pt.mem - per * T) / 16; /* 8 B per key, twice while sorting */
		uint64_t tmax = S / (2 * (uint64_t)pt.P); /* a round's keys fit an empty store */
		if (T > tmax) T = tmax;
		if (T > (uint64_t)(INT32_MAX / 2) / (uint64_t)pt.P) /* MPI's int counts */
			T = (uint64_t)(INT32_MAX / 2) / (uint64_t)pt.P;
		/* no more than the input needs: a rank reads at most ceil(M/P)
		 * tuples, so one round and a store of its keys hold them all (the
		 * budget is a bound, not a size: a small graph takes little) */
		uint64_t Tin = (uint64_t)pt.M / (uint64_t)pt.P + 1;
		if (T > Tin)
			T = Tin;
		if (T >= 1 && S > 2 * (uint64_t)pt.P * T)
			S = 2 * (uint64_t)pt.P * T;
		if (T < 1) {
			error = b2_usage_err("--mem %llu: too small for %d ranks; give at least %llu bytes",
			                     (unsigned long long)pt.mem, pt.P,
			                     (unsigned long long)(per + 24 * (uint64_t)pt.P + 64));
			goto done;
		}
		pt.T = T;
		pt.S = S;
	}
	/* ---- the per-vertex arrays (column pointers, degree counts: 16 bytes
	 * per column of a rank's CSC) within the budget too, or the default one
	 * where --mem is smaller (a test's tiny --mem bounds edges only); and the
	 * output's per-vertex datasets within the disk. N comes from the input:
	 * a small file can declare a huge graph ---- */
	{
		uint64_t v = 0, vmax = 0, lim = pt.mem > dflt_mem ? pt.mem : dflt_mem, out_bytes = 0, a, b;
		if (!b2_mul_ok(&v, pt.NC + 1, 2 * sizeof(uint64_t)))
			v = UINT64_MAX;
		B2_TRY(b2_mpi_ok(MPI_Allreduce(&v, &vmax, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD),
		                 "MPI_Allreduce"));
		if (vmax > lim) {
			error = b2_err0(B2_EIO, "%s: N = %lld vertices on a %dx%d grid need %.4g GiB per rank for "
			                "the per-vertex arrays (column pointers and degree counts, 16 bytes per "
			                "column a rank holds), more than the budget of %.4g GiB per rank (%s): give "
			                "--mem %.4gG or more, or more ranks", pt.edges_path, (long long)pt.N, pt.R,
			                pt.C, (double)vmax / 1073741824.0, (double)lim / 1073741824.0,
			                lim == pt.mem && mem_s ? "--mem" : "the default, a quarter of this node's "
			                "memory per rank", (double)vmax / 1073741824.0 + 0.001);
			goto done;
		}
		if (b2_mul_ok(&a, pt.RC, pt.bR + 1) && b2_mul_ok(&a, a, 8) && b2_mul_ok(&b, (uint64_t)pt.N, 8))
			out_bytes = a + b;
		else
			out_bytes = UINT64_MAX;
		if (b2_rank == 0)
			error = b2_check_space(pt.out_path, out_bytes);
		B2_TRY(b2_agree(error, MPI_COMM_WORLD));
	}
	b2_debug("N = %lld, M = %lld, grid %dx%d, b = %llu, %d rank(s), budget %.1f MiB per rank",
	         (long long)pt.N, (long long)pt.M, pt.R, pt.C, (unsigned long long)pt.b, pt.P,
	         (double)pt.mem / 1048576.0);

	/* ---- the output: created first, so that an unwritable target fails fast ---- */
	B2_TRY(b2_h5_create(&out, pt.out_path, MPI_COMM_WORLD, "bfs2d-partition", 1));
	have_out = 1;
	{
		long pid = (long)getpid();
		char tag[64];
		error = b2_mpi_ok(MPI_Bcast(&pid, 1, MPI_LONG, 0, MPI_COMM_WORLD), "MPI_Bcast");
		snprintf(tag, sizeof tag, "spill-%ld-r%d", pid, pt.me);
		if (!error)
			error = b2_side_name(pt.spill_prefix, sizeof pt.spill_prefix, pt.out_path, tag);
	}
	B2_TRY(b2_agree(error, MPI_COMM_WORLD));
	B2_TRY(b2_agree(part_store_alloc(&pt), MPI_COMM_WORLD));

	/* ---- read, route, check ---- */
	B2_TRY(part_route(&pt, edges));
	{
		uint64_t fp = 0, loops = 0;
		B2_TRY(b2_mpi_ok(MPI_Allreduce(&pt.fp, &fp, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD),
		                 "MPI_Allreduce (fingerprint)"));
		B2_TRY(b2_mpi_ok(MPI_Allreduce(&pt.loops, &loops, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD),
		                 "MPI_Allreduce (self-loops)"));
		pt.fp = fp;
		pt.loops = loops;
		if (fp != fingerprint)
			B2_FAIL0(B2_EDATA, "%s: the contents of /edges do not match the file's fingerprint "
			         "attribute (computed %llu, attribute %llu): the file is corrupt or was modified",
			         pt.edges_path, (unsigned long long)fp, (unsigned long long)fingerprint);
	}
	H5Dclose(edges);
	edges = -1;

	/* ---- the owners' CSC ---- */
	B2_TRY(b2_agree(part_finalize(&pt), MPI_COMM_WORLD));
	error = b2_calloc(&unnz, pt.nunits, sizeof *unnz, "piece sizes");
	if (!error)
		error = b2_calloc(&nnz, pt.RC, sizeof *nnz, "block sizes");
	if (!error)
		error = b2_calloc(&row_off, pt.RC, sizeof *row_off, "block offsets");
	B2_TRY(b2_agree(error, MPI_COMM_WORLD));
	for (uint64_t s = 0; s < pt.nslots; s++)
		unnz[s * (uint64_t)pt.P + (uint64_t)pt.me] =
			(int64_t)(pt.cp[pt.s_base[s] + pt.s_width[s]] - pt.cp[pt.s_base[s]]);
	for (uint64_t o = 0; o < pt.nunits; o += (uint64_t)1 << 24) {
		int n = (int)(pt.nunits - o < ((uint64_t)1 << 24) ? pt.nunits - o : (uint64_t)1 << 24);
		B2_TRY(b2_mpi_ok(MPI_Allreduce(MPI_IN_PLACE, unnz + o, n, MPI_INT64_T, MPI_SUM,
		                               MPI_COMM_WORLD), "MPI_Allreduce (block sizes)"));
	}
	for (uint64_t p = 0; p < pt.RC; p++) {
		row_off[p] = E;
		for (uint64_t q = 0; q < pt.k; q++)
			nnz[p] += unnz[p * pt.k + q];
		E += nnz[p];
	}

	/* ---- write ---- */
	double tw = b2_now();
	{
		uint64_t dcp[2] = {pt.RC, pt.bR + 1}, dri[1] = {(uint64_t)E}, dn[1] = {(uint64_t)pt.N},
		         drc[1] = {pt.RC};
		grp = H5Gcreate2(out.file, "csc", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
		if (grp < 0)
			B2_FAIL0(B2_EIO, "%s: cannot create group /csc", pt.out_path);
		B2_TRY(b2_dset_create(&d_cp, grp, "col_ptr", H5T_STD_U64LE, 2, dcp, 0, 0));
		B2_TRY(b2_dset_create(&d_ri, grp, "row_idx", H5T_STD_U32LE, 1, dri, 0, 0));
		B2_TRY(b2_dset_put_small(grp, "row_off", H5T_STD_I64LE, 1, drc, row_off));
		B2_TRY(b2_dset_put_small(grp, "nnz", H5T_STD_I64LE, 1, drc, nnz));
		B2_TRY(b2_dset_create(&d_deg, out.file, "tuple_degree", H5T_STD_I64LE, 1, dn, 0, 0));
	}
	B2_TRY(b2_agree(error, MPI_COMM_WORLD));
	B2_TRY(b2_h5_reserve(&out)); /* a full disk found now, not inside a write */
	B2_TRY(b2_agree(write_csc(&pt, d_cp, d_ri, row_off, unnz), MPI_COMM_WORLD));
	B2_TRY(write_degree(&pt, d_deg));
	pt.t_write = b2_now() - tw;

	/* ---- attributes ---- */
	{
		hid_t f = out.file;
		double el = b2_now() - t_start;
		B2_TRY(b2_mpi_ok(MPI_Allreduce(&el, &tmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD),
		                 "MPI_Allreduce"));
		B2_TRY(b2_attr_put_i64(f, "grid_rows", pt.R));
		B2_TRY(b2_attr_put_i64(f, "grid_cols", pt.C));
		B2_TRY(b2_attr_put_i64(f, "num_vertices", pt.N));
		B2_TRY(b2_attr_put_i64(f, "block_size", (int64_t)pt.b));
		B2_TRY(b2_attr_put_i64(f, "num_input_edges", pt.M));
		B2_TRY(b2_attr_put_i64(f, "num_csc_edges", E));
		B2_TRY(b2_attr_put_i64(f, "num_self_loops", (int64_t)pt.loops));
		B2_TRY(b2_attr_put_str(f, "edges_file", pt.edges_path));
		B2_TRY(b2_attr_put_u64(f, "edges_fingerprint", fingerprint));
		B2_TRY(b2_attr_put_i64(f, "directed", directed));
		B2_TRY(b2_attr_copy(f, in, "scale", pt.edges_path));
		B2_TRY(b2_attr_copy(f, in, "edgefactor", pt.edges_path));
		B2_TRY(b2_attr_copy(f, in, "seed", pt.edges_path));
		B2_TRY(b2_attr_copy(f, in, "generation_time", pt.edges_path));
		B2_TRY(b2_attr_put_f64(f, "partition_time", tmax));
	}

	/* ---- statistics (-v) ---- */
	if (b2_log_verbosity() >= 1) {
		long rss = peak_rss_kib(), *all = NULL;
		double mine[7] = {pt.t_read, pt.t_route, pt.t_sort, pt.t_merge, pt.t_write,
		                  (double)pt.nruns, (double)pt.spill_bytes};
		double *tall = NULL;
		if (b2_rank == 0) {
			all = calloc((size_t)pt.P, sizeof *all);
			tall = calloc((size_t)pt.P * 7, sizeof *tall);
		}
		error = b2_mpi_ok(MPI_Gather(&rss, 1, MPI_LONG, all, 1, MPI_LONG, 0, MPI_COMM_WORLD),
		                  "MPI_Gather");
		if (!error)
			error = b2_mpi_ok(MPI_Gather(mine, 7, MPI_DOUBLE, tall, 7, MPI_DOUBLE, 0, MPI_COMM_WORLD),
			                  "MPI_Gather");
		if (b2_rank == 0 && all && tall)
			for (int r = 0; r < pt.P; r++)
				b2_debug("rank %d: peak memory %.1f MiB; read %.2f s, route %.2f s, sort %.2f s, "
				         "merge %.2f s, write %.2f s; %d spilled runs, %.1f MiB spilled", r,
				         (double)all[r] / 1024.0, tall[7 * r], tall[7 * r + 1], tall[7 * r + 2],
				         tall[7 * r + 3], tall[7 * r + 4], (int)tall[7 * r + 5],
				         tall[7 * r + 6] / 1048576.0);
		free(all);
		free(tall);
		B2_TRY(error);
	}
done:
	if (have_out) {
		error = b2_h5_close(&out, &d_cp, error);
		error = b2_h5_close(&out, &d_ri, error);
		error = b2_h5_close(&out, &d_deg, error);
		error = b2_h5_close(&out, &grp, error);
	}
	if (edges >= 0) H5Dclose(edges);
	if (in >= 0) H5Fclose(in);
	if (have_out)
		error = b2_h5_commit(&out, error);
	/* said only once the file is complete */
	if (!error && have_out)
		b2_info("%s: %lld vertices, %lld tuples (%llu self-loops) -> %dx%d grid, b = %llu, "
		        "%lld CSC edges in %.2f s (%.3g tuples/s)", pt.out_path, (long long)pt.N,
		        (long long)pt.M, (unsigned long long)pt.loops, pt.R, pt.C,
		        (unsigned long long)pt.b, (long long)E, tmax, tmax > 0 ? (double)pt.M / tmax : 0.0);
	part_free(&pt);
	free(nnz);
	free(row_off);
	free(unnz);
	return b2_finish(error);
}
