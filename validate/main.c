/* bfs-validate — Graph500 validation of every kept BFS tree against the
 * original edge file, on any number of ranks (docs/FORMATS.md, "Validation
 * file"; the method is in validate.h). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "h5util.h"
#include "validate.h"

static const char usage[] =
"Usage: bfs-validate edges.h5 bfs.h5 -o valid.h5\n"
"Checks every search whose predecessors bfs.h5 kept against Graph500's rules\n"
"on the graph of edges.h5 (the edge file the BFS ran on), and recomputes nedge.\n"
"Rules, in the order they are reported (the lowest failing number is the search's\n"
"rule): 1 root, 2 range, 3 component, 4 tree, 5 tree_level, 6 edge_level,\n"
"7 tree_edge, 8 nedge (docs/FORMATS.md explains each).\n"
"\n"
"  -o, --output FILE      the validation file to write (replaced atomically)\n"
"      --read-rows R      tuples each rank reads per round of /edges (default 1048576)\n"
"  -v, --verbose          progress even when stderr is not a terminal\n"
"  -q, --quiet            no per-search lines on stdout, only the totals\n"
"      --progress         progress even under mpiexec (B2_PROGRESS=1 too)\n"
"  -h, --help, -V, --version (with the git commit built in)\n"
"\n"
"Example:\n"
"  mpiexec -n 4 bfs-validate data/g.h5 results/g.bfs.h5 -o results/g.valid.h5\n"
"\n"
"Memory: each rank holds its block of vertices' adjacency (about 10 bytes per\n"
"stored neighbour, each input tuple stored at both ends; 16 bytes per tuple end\n"
"while building) and one share of one predecessor row at a time.\n"
"Output: one line per search on stdout (search, root, pass/FAIL, rule, example\n"
"vertex, nedge, seconds), then the totals; the same, per search, in valid.h5.\n"
"Exit codes: 0 every search passed, 1 a search failed, 2 usage, 3 bad input\n"
"(bfs.h5 from another graph, /edges not matching its fingerprint, not a bfs2d\n"
"file, truncated, ids out of range), 4 cannot read or write a file, out of\n"
"memory, more than 2^32-1 vertices.\n";

typedef struct options {
	const char *edges, *bfs;
	uint64_t read_rows;
	b2_stdopts std;
} options;

static int parse(options *o, int argc, char **argv)
{
	static const struct option longopts[] = {
		{"read-rows", required_argument, 0, 'R'}, B2_STD_LONGOPTS, {0, 0, 0, 0}};
	int c, error = 0;
	memset(o, 0, sizeof *o);
	o->read_rows = UINT64_C(1) << 20;
	while ((c = getopt_long(argc, argv, B2_STD_SHORTOPTS, longopts, NULL)) != -1) {
		if (c == 'R') {
			B2_TRY(b2_parse_u64(&o->read_rows, optarg, "--read-rows", 1, UINT64_C(1) << 26));
			continue;
		}
		int r = b2_std_option(&o->std, c, optarg, usage);
		if (r)
			return r;
	}
	if (argc - optind != 2)
		return b2_usage_err("expected two inputs, edges.h5 and bfs.h5 (got %d)", argc - optind);
	o->edges = argv[optind];
	o->bfs = argv[optind + 1];
	if (!o->std.output)
		return b2_usage_err("missing -o valid.h5");
done:
	return error;
}

/* Reads a whole rank-1 int64 dataset of `rows` rows on every rank. */
static int read_vec(int64_t **out, hid_t file, const char *name, uint64_t rows, const char *path)
{
	int error = 0;
	hid_t d = -1;
	uint64_t have;
	*out = NULL;
	B2_TRY(b2_dset_open(&d, file, name, H5T_NATIVE_INT64, 1, 0, path));
	B2_TRY(b2_dset_rows(&have, d));
	if (have != rows)
		B2_FAIL0(B2_EDATA, "%s: dataset %s has %llu entries, expected %llu", path, name,
		         (unsigned long long)have, (unsigned long long)rows);
	error = b2_alloc_n(out, rows ? rows : 1, sizeof **out, name);
	B2_TRY(b2_agree(error, MPI_COMM_WORLD));
	error = b2_dset_read_rows(d, H5T_NATIVE_INT64, 0, rows, *out, b2_nranks > 1);
	if (error)
		b2_err(B2_EDATA, "%s: cannot read dataset %s (truncated file?)", path, name);
	error = b2_agree(error, MPI_COMM_WORLD);
done:
	if (d >= 0)
		H5Dclose(d);
	if (error) {
		free(*out);
		*out = NULL;
	}
	return error;
}

/* This rank's share [col0, col0+ncols) of row q of /pred. Collective. */
static int read_pred(int64_t *buf, hid_t dset, uint64_t q, uint64_t col0, uint64_t ncols, const char *path)
{
	int error = 0;
	hsize_t start[2] = {q, col0}, cnt[2] = {1, ncols}, mcnt = ncols ? ncols : 1;
	hid_t fs = H5Dget_space(dset), ms = H5Screate_simple(1, &mcnt, NULL), x = H5Pcreate(H5P_DATASET_XFER);
	if (fs < 0 || ms < 0 || x < 0)
		B2_FAIL(B2_EIO, "%s: cannot set up reading /pred", path);
	if (ncols) {
		H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, cnt, NULL);
	} else {
		H5Sselect_none(fs);
		H5Sselect_none(ms);
	}
	if (b2_nranks > 1)
		H5Pset_dxpl_mpio(x, H5FD_MPIO_COLLECTIVE);
	if (H5Dread(dset, H5T_NATIVE_INT64, ms, fs, x, buf) < 0)
		error = b2_err(B2_EDATA, "%s: cannot read /pred row %llu, columns %llu..%llu (truncated file?)",
		               path, (unsigned long long)q, (unsigned long long)col0,
		               (unsigned long long)(col0 + ncols));
done:
	if (fs >= 0) H5Sclose(fs);
	if (ms >= 0) H5Sclose(ms);
	if (x >= 0) H5Pclose(x);
	return error;
}

/* This process's peak resident memory in bytes (VmHWM), 0 if unknown. */
static double peak_rss(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	double kb = 0;
	while (f && fgets(line, sizeof line, f))
		if (sscanf(line, "VmHWM: %lf", &kb) == 1)
			break;
	if (f)
		fclose(f);
	return kb * 1024;
}

static int put_vec(hid_t file, const char *name, hid_t type, uint64_t rows, const void *buf)
{
	uint64_t dims[1] = {rows};
	return b2_dset_put_small(file, name, type, 1, dims, buf);
}

int main(int argc, char **argv)
{
	options o;
	vgraph g;
	b2_h5out out = {.file = -1};
	hid_t ef = -1, bf = -1, pd = -1;
	int64_t *roots = NULL, *nedge = NULL, *kept = NULL, *pred = NULL;
	int64_t *r_search = NULL, *r_root = NULL, *r_pass = NULL, *r_rule = NULL, *r_ex = NULL,
	        *r_nedge = NULL, *r_bfsnedge = NULL;
	double *r_time = NULL, *r_read = NULL;
	char *run_id = NULL; /* the BFS file's, absent in files of older builds */
	uint64_t n = 0, m = 0, efp = 0, bfp = 0, K = 0, Kp = 0, npass = 0;
	int64_t a;
	int error = b2_init(&argc, &argv, "bfs-validate"), created = 0;
	memset(&g, 0, sizeof g);
	if (error)
		return error;
	B2_TRY(parse(&o, argc, argv));
	{
		const char *in[2] = {o.edges, o.bfs};
		B2_TRY(b2_check_output("-o", o.std.output, in, 2, 0));
	}
	double t0 = b2_now();
	{
		/* one thread per rank: its times mean something only with a core each */
		b2_node_load nl;
		B2_TRY(b2_node_load_get(&nl, 1));
		b2_node_load_warn(&nl, "bfs-validate");
	}

	/* inputs, and the graph identity check before any work */
	B2_TRY(b2_h5_open(&ef, o.edges, MPI_COMM_WORLD, "bfs2d-edges"));
	B2_TRY(b2_h5_open(&bf, o.bfs, MPI_COMM_WORLD, "bfs2d-bfs"));
	B2_TRY(b2_attr_get_i64(&a, ef, "num_vertices", o.edges));
	n = (uint64_t)a;
	if (a < 1 || n > UINT32_MAX)
		B2_FAIL0(a < 1 ? B2_EDATA : B2_EIO, "%s: num_vertices is %lld: bfs-validate handles 1 to %llu "
		         "vertices", o.edges, (long long)a, (unsigned long long)UINT32_MAX);
	B2_TRY(b2_attr_get_i64(&a, ef, "num_edges", o.edges));
	if (a < 0)
		B2_FAIL0(B2_EDATA, "%s: num_edges is %lld", o.edges, (long long)a);
	m = (uint64_t)a;
	B2_TRY(b2_attr_get_u64(&efp, ef, "fingerprint", o.edges));
	B2_TRY(b2_attr_get_u64(&bfp, bf, "edges_fingerprint", o.bfs));
	B2_TRY(b2_attr_opt_str(&run_id, bf, "run_id", o.bfs));
	if (efp != bfp)
		B2_FAIL0(B2_EDATA, "%s was computed on another graph: its edges_fingerprint is %016llx, the "
		         "fingerprint of %s is %016llx", o.bfs, (unsigned long long)bfp, o.edges,
		         (unsigned long long)efp);
	B2_TRY(b2_attr_get_i64(&a, bf, "num_vertices", o.bfs));
	if ((uint64_t)a != n)
		B2_FAIL0(B2_EDATA, "%s was computed on another graph: num_vertices %lld, %s has %llu", o.bfs,
		         (long long)a, o.edges, (unsigned long long)n);
	B2_TRY(b2_attr_get_i64(&a, bf, "num_input_edges", o.bfs));
	if ((uint64_t)a != m)
		B2_FAIL0(B2_EDATA, "%s was computed on another graph: num_input_edges %lld, %s has %llu", o.bfs,
		         (long long)a, o.edges, (unsigned long long)m);
	{
		hid_t d = -1;
		B2_TRY(b2_dset_open(&d, bf, "/roots", H5T_NATIVE_INT64, 1, 0, o.bfs));
		error = b2_dset_rows(&K, d);
		H5Dclose(d);
		B2_TRY(error);
		B2_TRY(b2_dset_open(&d, bf, "/kept", H5T_NATIVE_INT64, 1, 0, o.bfs));
		error = b2_dset_rows(&Kp, d);
		H5Dclose(d);
		B2_TRY(error);
	}
	B2_TRY(read_vec(&roots, bf, "/roots", K, o.bfs));
	B2_TRY(read_vec(&nedge, bf, "/nedge", K, o.bfs));
	B2_TRY(read_vec(&kept, bf, "/kept", Kp, o.bfs));
	for (uint64_t k = 0; k < K; k++)
		if (roots[k] < 0 || (uint64_t)roots[k] >= n)
			B2_FAIL0(B2_EDATA, "%s: /roots[%llu] is %lld, not a vertex id (0..%llu)", o.bfs,
			         (unsigned long long)k, (long long)roots[k], (unsigned long long)(n - 1));
	/* row q of /pred is search kept[q]: a repeated or unordered index would
	 * check a row against another search's root */
	for (uint64_t q = 0; q < Kp; q++)
		if (kept[q] < 0 || (uint64_t)kept[q] >= K)
			B2_FAIL0(B2_EDATA, "%s: dataset /kept: /kept[%llu] is %lld, not a search index (%s%llu)",
			         o.bfs, (unsigned long long)q, (long long)kept[q], K ? "0.." : "there are ",
			         (unsigned long long)(K ? K - 1 : 0));
		else if (q > 0 && kept[q] <= kept[q - 1])
			B2_FAIL0(B2_EDATA, "%s: dataset /kept: /kept[%llu] is %lld after /kept[%llu] = %lld: "
			         "/kept lists search indices strictly increasing", o.bfs, (unsigned long long)q,
			         (long long)kept[q], (unsigned long long)q - 1, (long long)kept[q - 1]);
	B2_TRY(b2_dset_open(&pd, bf, "/pred", H5T_NATIVE_INT64, 2, n, o.bfs));
	{
		uint64_t pr;
		B2_TRY(b2_dset_rows(&pr, pd));
		if (pr != Kp)
			B2_FAIL0(B2_EDATA, "%s: /pred has %llu rows, /kept lists %llu searches", o.bfs,
			         (unsigned long long)pr, (unsigned long long)Kp);
	}

	/* the output can be written: find out now, not after the work */
	error = b2_h5_create(&out, o.std.output, MPI_COMM_WORLD, "bfs2d-validation", 1);
	created = !error;
	B2_TRY(error);

	if (Kp == 0)
		b2_warn0("no predecessors kept: nothing to validate (rerun bfs-gpu with --keep-pred)");
	else
		B2_TRY(vgraph_build(&g, ef, o.edges, n, m, o.read_rows));
	if (Kp > 0 && g.fingerprint != efp)
		B2_FAIL0(B2_EDATA, "%s: /edges does not match its fingerprint attribute (recomputed %016llx, "
		         "attribute %016llx): the file was changed or damaged", o.edges,
		         (unsigned long long)g.fingerprint, (unsigned long long)efp);
	double setup = b2_now() - t0;
	if (Kp > 0)
		b2_info("graph: %llu vertices, %llu tuples (%llu self-loops), %llu stored neighbours; set-up %.3f s",
	        (unsigned long long)n, (unsigned long long)m, (unsigned long long)g.selfloops,
	        (unsigned long long)g.nnz_total, setup);

	error = b2_alloc_n(&pred, g.nloc ? g.nloc : 1, sizeof *pred, "a predecessor share");
	if (!error) error = b2_calloc(&r_search, Kp + 1, 7 * sizeof(int64_t), "results");
	if (!error) error = b2_calloc(&r_time, Kp + 1, 2 * sizeof(double), "results");
	B2_TRY(b2_agree(error, MPI_COMM_WORLD));
	r_root = r_search + (Kp + 1), r_pass = r_root + (Kp + 1), r_rule = r_pass + (Kp + 1);
	r_ex = r_rule + (Kp + 1), r_nedge = r_ex + (Kp + 1), r_bfsnedge = r_nedge + (Kp + 1);
	r_read = r_time + (Kp + 1);

	if (b2_rank == 0 && o.std.verbosity >= 0)
		printf("%-7s %-12s %-6s %-11s %-12s %-14s %-10s\n", "search", "root", "result", "rule",
		       "vertex", "nedge", "time_s");
	b2_progress prog;
	b2_progress_begin(&prog, "validating", "searches", (double)Kp);
	for (uint64_t q = 0; q < Kp; q++) {
		vresult res;
		uint64_t k = (uint64_t)kept[q];
		B2_TRY(b2_mpi_ok(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier"));
		double ts = b2_now();
		error = read_pred(pred, pd, q, g.lo, g.nloc, o.bfs);
		B2_TRY(b2_agree(error, MPI_COMM_WORLD));
		double tr = b2_now() - ts;
		B2_TRY(vcheck(&res, &g, pred, roots[k], nedge[k]));
		double tv = b2_now() - ts, tmax = tv, trmax = tr;
		B2_TRY(b2_mpi_ok(MPI_Allreduce(&tv, &tmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD), "MPI_Allreduce"));
		B2_TRY(b2_mpi_ok(MPI_Allreduce(&tr, &trmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD), "MPI_Allreduce"));
		r_search[q] = (int64_t)k;
		r_root[q] = roots[k];
		r_pass[q] = res.rule == V_PASS;
		r_rule[q] = res.rule;
		r_ex[q] = res.example;
		r_nedge[q] = res.nedge;
		r_bfsnedge[q] = nedge[k];
		r_time[q] = tmax;
		r_read[q] = trmax;
		npass += res.rule == V_PASS;
		if (b2_rank == 0 && o.std.verbosity >= 0) {
			char vx[32] = "-";
			if (res.example >= 0)
				snprintf(vx, sizeof vx, "%lld", (long long)res.example);
			printf("%-7llu %-12lld %-6s %-11s %-12s %-14lld %-10.6f\n", (unsigned long long)k,
			       (long long)roots[k], res.rule ? "FAIL" : "pass", res.rule ? v_rule_names[res.rule] : "-",
			       vx, (long long)res.nedge, tmax);
			if (res.rule == V_NEDGE)
				printf("        nedge: the BFS file says %lld, the edge file gives %lld\n",
				       (long long)nedge[k], (long long)res.nedge);
			fflush(stdout);
		}
		b2_debug("search %llu: read %.4f s, init %.4f, jump %.4f (%d rounds), ghosts %.4f, scan %.4f (cpu %.4f, %d-byte levels) (rank 0)",
		         (unsigned long long)k, tr, res.t_init, res.t_jump, res.rounds, res.t_ghost, res.t_scan, res.c_scan, res.level_bytes);
		b2_progress_step(&prog, (double)(q + 1));
	}
	b2_progress_end(&prog);

	/* the validation file */
	B2_TRY(put_vec(out.file, "search", H5T_STD_I64LE, Kp, r_search));
	B2_TRY(put_vec(out.file, "root", H5T_STD_I64LE, Kp, r_root));
	B2_TRY(put_vec(out.file, "passed", H5T_STD_I64LE, Kp, r_pass));
	B2_TRY(put_vec(out.file, "rule", H5T_STD_I64LE, Kp, r_rule));
	B2_TRY(put_vec(out.file, "example_vertex", H5T_STD_I64LE, Kp, r_ex));
	B2_TRY(put_vec(out.file, "nedge", H5T_STD_I64LE, Kp, r_nedge));
	B2_TRY(put_vec(out.file, "bfs_nedge", H5T_STD_I64LE, Kp, r_bfsnedge));
	B2_TRY(put_vec(out.file, "time", H5T_IEEE_F64LE, Kp, r_time));
	B2_TRY(put_vec(out.file, "read_time", H5T_IEEE_F64LE, Kp, r_read));
	B2_TRY(b2_attr_put_str(out.file, "bfs_file", o.bfs));
	if (run_id)
		B2_TRY(b2_attr_put_str(out.file, "bfs_run_id", run_id));
	B2_TRY(b2_attr_put_str(out.file, "edges_file", o.edges));
	B2_TRY(b2_attr_put_u64(out.file, "edges_fingerprint", efp));
	B2_TRY(b2_attr_put_i64(out.file, "num_vertices", (int64_t)n));
	B2_TRY(b2_attr_put_i64(out.file, "num_input_edges", (int64_t)m));
	B2_TRY(b2_attr_put_i64(out.file, "num_searches", (int64_t)Kp));
	B2_TRY(b2_attr_put_i64(out.file, "validated_searches", (int64_t)Kp));
	B2_TRY(b2_attr_put_i64(out.file, "num_passed", (int64_t)npass));
	B2_TRY(b2_attr_put_i64(out.file, "num_failed", (int64_t)(Kp - npass)));
	B2_TRY(b2_attr_put_i64(out.file, "num_ranks", b2_nranks));
	B2_TRY(b2_attr_put_f64(out.file, "setup_time", setup));
	B2_TRY(b2_attr_put_strv(out.file, "rule_names", v_rule_names, V_NRULES + 1));

	{
		double rss = peak_rss(), rmax = 0, rsum = 0;
		B2_TRY(b2_mpi_ok(MPI_Allreduce(&rss, &rmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD), "MPI_Allreduce"));
		B2_TRY(b2_mpi_ok(MPI_Allreduce(&rss, &rsum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD), "MPI_Allreduce"));
		b2_info("peak memory: %.2f GiB on the largest rank, %.2f GiB over all ranks",
		        rmax / (1 << 30), rsum / (1 << 30));
	}
	if (b2_rank == 0) {
		double sum = 0;
		for (uint64_t q = 0; q < Kp; q++)
			sum += r_time[q];
		printf("%llu searches: %llu passed, %llu failed; set-up %.3f s (read /edges, build); "
		       "mean %.6f s per search on %d rank%s\n", (unsigned long long)Kp,
		       (unsigned long long)npass, (unsigned long long)(Kp - npass), setup,
		       Kp ? sum / (double)Kp : 0.0, b2_nranks, b2_nranks > 1 ? "s" : "");
	}
done:
	if (created)
		error = b2_h5_commit(&out, error);
	if (!error && npass < Kp)
		error = B2_EFAIL;
	if (pd >= 0) H5Dclose(pd);
	if (ef >= 0) H5Fclose(ef);
	if (bf >= 0) H5Fclose(bf);
	vgraph_free(&g);
	free(roots); free(nedge); free(kept); free(pred); free(r_search); free(r_time);
	free(run_id);
	return b2_finish(error);
}
