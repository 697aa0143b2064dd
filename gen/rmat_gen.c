/* rmat-gen — the Graph500 Kronecker generator, streamed in bounded chunks
 * from any number of ranks into an edge file (docs/FORMATS.md). */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "h5util.h"
#include "kronecker.h"

#define CHUNK_ROWS (UINT64_C(1) << 20) /* 16 MiB of tuples: HDF5 chunk and generation buffer */

static const char usage[] =
"Usage: rmat-gen -s SCALE [-e EDGEFACTOR] [--seed S] [--initiator A,B,C] [--deflate LEVEL]\n"
"                [--stats] -o edges.h5\n"
"Generates a Graph500 Kronecker graph: N = 2^SCALE vertices, M = EDGEFACTOR * N\n"
"tuples, initiator A, B, C, D = 1-A-B-C, vertices relabelled by a random bijection,\n"
"tuples in random order. The file's /edges depends only on (SCALE, EDGEFACTOR,\n"
"seed, initiator): the same bytes on any number of ranks.\n"
"\n"
"  -s, --scale SCALE       log2 of the number of vertices, 1..40 (required)\n"
"  -e, --edgefactor EF     tuples per vertex (default 16)\n"
"      --seed S            random seed (default 1)\n"
"      --initiator A,B,C   Kronecker initiator (default 0.57,0.19,0.19)\n"
"      --deflate LEVEL     compress /edges with shuffle+deflate 1..9 (rank 0 writes\n"
"                          alone: Debian's parallel HDF5 has no parallel filters)\n"
"      --no-relabel        keep raw Kronecker samples in sample order (for tests of\n"
"                          the generator; not a Graph500 graph)\n"
"      --stats             print the degree distribution (needs 4*N bytes per rank)\n"
"      --print-relabel     print the relabelling sigma(0..N-1), one per line, and\n"
"                          exit (scale <= 24; for tests of the bijection)\n"
"  -o, --output FILE       the edge file to write (replaced atomically if it exists)\n"
"  -v, --verbose           progress even when stderr is not a terminal\n"
"  -q, --quiet             no summary\n"
"      --progress          progress even under mpiexec (B2_PROGRESS=1 too; default:\n"
"                          only when stderr is a terminal)\n"
"  -h, --help, -V, --version (with the git commit built in)\n"
"\n"
"Example:\n"
"  mpiexec -n 2 rmat-gen -s 20 -e 16 --seed 1 --stats -o data/rmat-s20-e16.h5\n"
"\n"
"Memory: each rank holds one chunk of 2^20 tuples (16 MiB) at a time; with\n"
"--deflate and P ranks, rank 0 holds P chunks (16 MiB each).\n"
"Exit codes: 0 ok, 2 usage, 4 cannot write (the output is never left half-written).\n";

typedef struct options {
	int scale, deflate, stats, relabel, print_relabel;
	uint64_t edgefactor, seed;
	double init[4];
	b2_stdopts std;
} options;

static int parse(options *o, int argc, char **argv)
{
	static const struct option longopts[] = {
		{"scale", required_argument, 0, 's'}, {"edgefactor", required_argument, 0, 'e'},
		{"seed", required_argument, 0, 'S'}, {"initiator", required_argument, 0, 'I'},
		{"deflate", required_argument, 0, 'z'}, {"stats", no_argument, 0, 'T'},
		{"no-relabel", no_argument, 0, 'R'}, {"print-relabel", no_argument, 0, 'P'}, B2_STD_LONGOPTS, {0, 0, 0, 0}};
	int c, error = 0, have_scale = 0;
	uint64_t u;
	memset(o, 0, sizeof *o);
	o->edgefactor = 16;
	o->seed = 1;
	o->relabel = 1;
	o->init[0] = 0.57, o->init[1] = 0.19, o->init[2] = 0.19;
	while ((c = getopt_long(argc, argv, "s:e:" B2_STD_SHORTOPTS, longopts, NULL)) != -1) {
		switch (c) {
		case 's':
			B2_TRY(b2_parse_u64(&u, optarg, "-s/--scale", 1, 40));
			o->scale = (int)u;
			have_scale = 1;
			break;
		case 'e': B2_TRY(b2_parse_u64(&o->edgefactor, optarg, "-e/--edgefactor", 1, UINT64_C(1) << 40)); break;
		case 'S': B2_TRY(b2_parse_u64(&o->seed, optarg, "--seed", 0, UINT64_MAX)); break;
		case 'I': {
			int n;
			B2_TRY(b2_parse_doubles(o->init, &n, 3, optarg, "--initiator"));
			if (n != 3)
				return b2_usage_err("--initiator: expected A,B,C (three numbers), got '%s'", optarg);
			break;
		}
		case 'z':
			B2_TRY(b2_parse_u64(&u, optarg, "--deflate", 0, 9));
			o->deflate = (int)u;
			break;
		case 'T': o->stats = 1; break;
		case 'R': o->relabel = 0; break;
		case 'P': o->print_relabel = 1; break;
		default:
			if ((error = b2_std_option(&o->std, c, optarg, usage)) != 0)
				return error;
		}
	}
	if (optind < argc)
		return b2_usage_err("unexpected argument '%s'", argv[optind]);
	if (!have_scale)
		return b2_usage_err("missing -s SCALE");
	if (!o->std.output && !o->print_relabel)
		return b2_usage_err("missing -o FILE");
done:
	return error;
}

/* Degree summary: tuple ends per vertex (a self-loop counts twice). */
static int print_stats(const rmat *g, uint64_t lo, uint64_t hi, int64_t *buf)
{
	int error = 0;
	uint64_t n = UINT64_C(1) << g->scale;
	uint32_t *deg = NULL, *all = NULL;
	if (g->scale > 30)
		return b2_err0(B2_EUSAGE, "--stats needs 4*N bytes per rank; refused above scale 30");
	B2_TRY(b2_calloc(&deg, n, sizeof *deg, "--stats degree counts"));
	if (b2_rank == 0)
		B2_TRY(b2_calloc(&all, n, sizeof *all, "--stats degree counts"));
	for (uint64_t r = lo; r < hi; r += CHUNK_ROWS) {
		uint64_t k = hi - r < CHUNK_ROWS ? hi - r : CHUNK_ROWS;
		(void)rmat_fill(g, r, k, buf);
		for (uint64_t i = 0; i < 2 * k; i++)
			deg[buf[i]]++;
	}
done:
	error = b2_agree(error, MPI_COMM_WORLD);
	if (error)
		goto out;
	for (uint64_t off = 0; off < n; off += UINT64_C(1) << 26) {
		int cnt = (int)(n - off < (UINT64_C(1) << 26) ? n - off : (UINT64_C(1) << 26));
		B2_TRY(b2_mpi_ok(MPI_Reduce(deg + off, all ? all + off : NULL, cnt, MPI_UINT32_T, MPI_SUM, 0,
		                            MPI_COMM_WORLD), "MPI_Reduce of degrees"));
	}
	if (b2_rank == 0) {
		uint64_t isolated = 0, maxd = 0, hist[34] = {0};
		for (uint64_t v = 0; v < n; v++) {
			uint32_t d = all[v];
			if (!d) { isolated++; continue; }
			if (d > maxd) maxd = d;
			int bkt = 0;
			while ((UINT64_C(1) << (bkt + 1)) <= d) bkt++;
			hist[bkt]++;
		}
		/* share of tuple ends held by the top 1% of vertices: the skew of a
		 * Kronecker graph; counting sort of the degrees finds the cut */
		uint64_t top = n / 100 ? n / 100 : 1, ends = 2 * g->num_edges, topends = 0, left = top;
		uint64_t *c = NULL;
		if (b2_calloc(&c, maxd + 1, sizeof *c, "--stats histogram") == 0) {
			for (uint64_t v = 0; v < n; v++)
				c[all[v]]++;
			for (uint64_t d = maxd; d > 0 && left; d--) {
				uint64_t take = c[d] < left ? c[d] : left;
				topends += take * d;
				left -= take;
			}
			free(c);
		}
		printf("degree distribution (tuple ends per vertex):\n");
		printf("  vertices %llu, isolated %llu (%.1f%%), mean degree %.2f, max degree %llu\n",
		       (unsigned long long)n, (unsigned long long)isolated, 100.0 * (double)isolated / (double)n,
		       (double)ends / (double)n, (unsigned long long)maxd);
		printf("  top 1%% of vertices hold %.1f%% of tuple ends\n", 100.0 * (double)topends / (double)ends);
		printf("  degree        vertices\n");
		for (int b = 0; b < 34; b++)
			if (hist[b])
				printf("  %6llu-%-8llu %llu\n", (unsigned long long)(UINT64_C(1) << b),
				       (unsigned long long)((UINT64_C(1) << (b + 1)) - 1), (unsigned long long)hist[b]);
	}
out:
	free(deg);
	free(all);
	return error;
}

/* Each rank makes its own rows [lo, hi), one chunk per round. Every rank
 * writes its chunk collectively; with --deflate on several ranks
 * (gather != NULL on rank 0) rank 0 writes every rank's chunk alone instead. */
static int generate(hid_t dset, const rmat *g, uint64_t lo, uint64_t hi, int64_t *buf, int one_writer,
                    int64_t *gather, uint64_t *fp, double *tgen, double *twrite, b2_progress *pr)
{
	int error = 0;
	uint64_t rounds = (hi - lo + CHUNK_ROWS - 1) / CHUNK_ROWS, maxr = 0;
	B2_TRY(b2_mpi_ok(MPI_Allreduce(&rounds, &maxr, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD), "MPI_Allreduce"));
	for (uint64_t r = 0; r < maxr; r++) {
		uint64_t row = lo + r * CHUNK_ROWS, k = row < hi ? (hi - row < CHUNK_ROWS ? hi - row : CHUNK_ROWS) : 0;
		double t0 = b2_now();
		*fp += rmat_fill(g, row, k, buf);
		double t1 = b2_now();
		int e = 0;
		if (!one_writer) {
			e = b2_dset_write_rows(dset, H5T_NATIVE_INT64, k ? row : 0, k, buf, 1);
		} else {
			B2_TRY(b2_mpi_ok(MPI_Gather(buf, (int)(2 * k), MPI_INT64_T, gather, 2 * (int)CHUNK_ROWS, MPI_INT64_T,
			                            0, MPI_COMM_WORLD), "MPI_Gather of generated rows"));
			for (int p = 0; b2_rank == 0 && p < b2_nranks && !e; p++) {
				uint64_t plo, phi;
				b2_share(&plo, &phi, g->num_edges, b2_nranks, p);
				uint64_t prow = plo + r * CHUNK_ROWS;
				if (prow < phi)
					e = b2_dset_write_rows(dset, H5T_NATIVE_INT64, prow, phi - prow < CHUNK_ROWS ? phi - prow : CHUNK_ROWS,
					                       gather + (size_t)p * 2 * CHUNK_ROWS, 0);
			}
		}
		*tgen += t1 - t0;
		*twrite += b2_now() - t1;
		B2_TRY(b2_agree(e, MPI_COMM_WORLD));
		b2_progress_step(pr, (double)((row - lo) + k) * (double)b2_nranks);
	}
done:
	return error;
}

int main(int argc, char **argv)
{
	options o;
	rmat g;
	b2_h5out out = {.file = -1};
	hid_t dset = -1;
	int64_t *buf = NULL, *gather = NULL;
	char tmpname[4096] = "";
	int error = b2_init(&argc, &argv, "rmat-gen"), created = 0;
	if (error)
		return error;
	B2_TRY(parse(&o, argc, argv));
	B2_TRY(rmat_setup(&g, o.scale, o.edgefactor, o.seed, o.init, o.relabel));
	if (o.print_relabel) {
		if (g.scale > 24)
			B2_FAIL0(B2_EUSAGE, "--print-relabel: scale at most 24");
		for (uint64_t x = 0; b2_rank == 0 && x < (UINT64_C(1) << g.scale); x++)
			printf("%llu\n", (unsigned long long)rmat_relabel(&g, x));
		goto done;
	}

	B2_TRY(b2_check_output("-o", o.std.output, NULL, 0, 0));
	double t_start = b2_now(), tgen = 0, twrite = 0;
	uint64_t myfp = 0;
	uint64_t lo, hi, n = UINT64_C(1) << g.scale;
	b2_share(&lo, &hi, g.num_edges, b2_nranks, b2_rank);
	int one_writer = o.deflate > 0 && b2_nranks > 1;
	int e = b2_alloc(&buf, 2 * CHUNK_ROWS * sizeof *buf, "the generation buffer");
	if (!e && one_writer && b2_rank == 0)
		e = b2_alloc(&gather, (size_t)b2_nranks * 2 * CHUNK_ROWS * sizeof *gather, "rank 0's gather buffer");
	B2_TRY(b2_agree(e, MPI_COMM_WORLD));

	if (b2_rank == 0 && !o.deflate)
		e = b2_check_space(o.std.output, g.num_edges * 16 + (UINT64_C(1) << 20));
	B2_TRY(b2_agree(e, MPI_COMM_WORLD));
	if (one_writer) {
		/* rank 0 writes alone, but a signal to any rank must remove its file:
		 * every rank knows the name (rank 0's b2_h5_create makes the same)
		 * before it exists */
		if (b2_rank == 0)
			e = b2_tmp_name(tmpname, sizeof tmpname, o.std.output);
		B2_TRY(b2_agree(e, MPI_COMM_WORLD));
		B2_TRY(b2_mpi_ok(MPI_Bcast(tmpname, sizeof tmpname, MPI_CHAR, 0, MPI_COMM_WORLD), "MPI_Bcast"));
		if (b2_rank != 0)
			e = b2_tmp_register(tmpname, o.std.output, 0);
		B2_TRY(b2_agree(e, MPI_COMM_WORLD));
	}
	if (!one_writer || b2_rank == 0)
		e = b2_h5_create(&out, o.std.output, one_writer ? MPI_COMM_SELF : MPI_COMM_WORLD, "bfs2d-edges", 1);
	created = !e && (!one_writer || b2_rank == 0);
	B2_TRY(b2_agree(e, MPI_COMM_WORLD));
	if (!one_writer || b2_rank == 0) {
		uint64_t dims[2] = {g.num_edges, 2};
		e = b2_dset_create(&dset, out.file, "edges", H5T_STD_I64LE, 2, dims, CHUNK_ROWS, o.deflate);
		if (!e && !o.deflate)
			e = b2_h5_reserve(&out); /* a full disk found now, not inside a write */
	}
	B2_TRY(b2_agree(e, MPI_COMM_WORLD));

	b2_progress pr;
	b2_progress_begin(&pr, "generating", "tuples", (double)g.num_edges);
	B2_TRY(generate(dset, &g, lo, hi, buf, one_writer, gather, &myfp, &tgen, &twrite, &pr));
	b2_progress_end(&pr);

	uint64_t fp = 0;
	B2_TRY(b2_mpi_ok(MPI_Allreduce(&myfp, &fp, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD),
	                 "MPI_Allreduce of the fingerprint"));
	double total = b2_now() - t_start;
	if (!one_writer || b2_rank == 0) {
		hid_t f = out.file;
		int64_t scale = g.scale, ef = (int64_t)g.edgefactor;
		e = b2_h5_close(&out, &dset, 0);
		if (!e) e = b2_attr_put_i64(f, "num_vertices", (int64_t)n);
		if (!e) e = b2_attr_put_i64(f, "num_edges", (int64_t)g.num_edges);
		if (!e) e = b2_attr_put_i64(f, "directed", 0);
		if (!e) e = b2_attr_put_u64(f, "fingerprint", fp);
		if (!e) e = b2_attr_put_i64(f, "scale", scale);
		if (!e) e = b2_attr_put_i64(f, "edgefactor", ef);
		if (!e) e = b2_attr_put_u64(f, "seed", g.seed);
		if (!e) e = b2_attr_put_f64v(f, "initiator", g.initiator, 4);
		if (!e) e = b2_attr_put_i64(f, "relabelled", g.relabel);
		if (!e) e = b2_attr_put_f64(f, "generation_time", total);
		if (!e) e = b2_attr_put_i64(f, "num_ranks", b2_nranks);
		e = b2_h5_commit(&out, e);
		created = 0;
	}
	B2_TRY(b2_agree(e, MPI_COMM_WORLD));

	/* generation and write overlap nothing, so the slowest rank's sums tell */
	double mx[2] = {tgen, twrite}, all[2];
	B2_TRY(b2_mpi_ok(MPI_Reduce(mx, all, 2, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD), "MPI_Reduce"));
	if (b2_rank == 0 && b2_log_verbosity() >= 0) {
		printf("rmat-gen: wrote %s: scale %d, edgefactor %llu, seed %llu, initiator %g,%g,%g,%g\n",
		       o.std.output, g.scale, (unsigned long long)g.edgefactor, (unsigned long long)g.seed,
		       g.initiator[0], g.initiator[1], g.initiator[2], g.initiator[3]);
		printf("  vertices %llu, tuples %llu (%.1f MiB), %d rank%s%s\n", (unsigned long long)n,
		       (unsigned long long)g.num_edges, (double)g.num_edges * 16 / 1048576.0, b2_nranks,
		       b2_nranks > 1 ? "s" : "", o.deflate ? ", deflated" : "");
		/* the rate the progress line shows: tuples over the whole time;
		 * generation alone (without the writes) is faster */
		printf("  time: total %.3f s (%.1f M tuples/s), of which generation %.3f s (%.1f M tuples/s "
		       "alone), write %.3f s\n", total, total > 0 ? (double)g.num_edges / total / 1e6 : 0.0,
		       all[0], all[0] > 0 ? (double)g.num_edges / all[0] / 1e6 : 0.0, all[1]);
	}
	if (o.stats)
		B2_TRY(print_stats(&g, lo, hi, buf));
done:
	if (created) {
		/* on this path the output is always given up */
		int e2 = b2_h5_close(&out, &dset, error ? error : B2_EFAIL);
		b2_h5_commit(&out, e2);
	}
	if (tmpname[0] && b2_rank != 0)
		b2_tmp_forget(tmpname);
	free(buf);
	free(gather);
	return b2_finish(error);
}
