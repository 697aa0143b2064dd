/* edge-export — an edge file out to the text formats other tools read:
 * Matrix Market (SuiteSparse, Gunrock, networkx, scipy) and gapbs/SNAP
 * edge lists (gapbs .el and .wel, networkx read_edgelist). The output goes
 * back in through snap-import (FORMATS.md "edge-export"). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "h5util.h"

static const char help[] =
	"Usage: edge-export EDGES.h5 -o OUTPUT.mtx|OUTPUT.el|OUTPUT.wel [options]\n"
	"Writes the tuples of a bfs2d edge file, in file order, as text:\n"
	"  .mtx  Matrix Market 'matrix coordinate pattern general' (N x N, one entry\n"
	"        i j = u+1 v+1 per tuple), or 'symmetric' with --symmetric (each tuple\n"
	"        as its lower-triangle entry max+1 min+1: the undirected graph); '%'\n"
	"        comment lines say where it came from and when it was made\n"
	"  .el   gapbs / SNAP edge list: 'u v' per line, 0-based, no comments\n"
	"  .wel  gapbs weighted edge list: 'u v 1' per line\n"
	"Self-loops and duplicate tuples are written as they are. Reading it back with\n"
	"snap-import gives the same /edges: exactly for .mtx general; for .el/.wel up\n"
	"to snap-import's renumbering of the ids that occur (the original ids are its\n"
	"/vertex_ids), and for --symmetric with each tuple as (max, min).\n"
	"Rank 0 does the work; other ranks, if started, wait.\n"
	"\n"
	"      --format F       mtx, el or wel (default: from the output's extension)\n"
	"      --symmetric      .mtx: write the symmetric form (default: general)\n"
	"  -o, --output FILE    the text file to write (required; written atomically)\n"
	"  -v, --verbose        progress even when stderr is not a terminal; provenance\n"
	"  -q, --quiet          errors only\n"
	"      --progress       progress even under mpiexec\n"
	"  -h, --help, -V, --version (with the git commit built in)\n"
	"\n"
	"Example:\n"
	"  edge-export data/rmat-s16-e16.h5 -o rmat-s16-e16.mtx\n"
	"\n"
	"Exit codes: 0 ok, 2 usage, 3 bad edge file (wrong format, an id outside\n"
	"0..N-1, contents that do not match its fingerprint), 4 cannot read or write.\n";

enum { FMT_MTX, FMT_EL, FMT_WEL };
enum { OPT_FORMAT = 1000, OPT_SYMMETRIC };

typedef struct opts {
	b2_stdopts std;
	const char *input;
	int format, symmetric;
} opts;

static int ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n >= k && strcmp(s + n - k, suffix) == 0;
}

static int parse(opts *o, int argc, char **argv)
{
	int error = 0, c;
	const char *fmt = NULL;
	static const struct option lo[] = {
		{"format", required_argument, 0, OPT_FORMAT}, {"symmetric", no_argument, 0, OPT_SYMMETRIC},
		B2_STD_LONGOPTS, {0, 0, 0, 0}};
	memset(o, 0, sizeof *o);
	while ((c = getopt_long(argc, argv, B2_STD_SHORTOPTS, lo, NULL)) != -1) {
		switch (c) {
		case OPT_FORMAT: fmt = optarg; break;
		case OPT_SYMMETRIC: o->symmetric = 1; break;
		default:
			B2_TRY(b2_std_option(&o->std, c, optarg, help));
		}
	}
	if (optind != argc - 1)
		return b2_usage_err(optind >= argc ? "missing the edge file" : "too many arguments");
	o->input = argv[optind];
	if (!o->std.output)
		return b2_usage_err("missing -o OUTPUT");
	const char *out = o->std.output;
	if (!fmt)
		fmt = ends_with(out, ".mtx") ? "mtx" : ends_with(out, ".wel") ? "wel"
		      : ends_with(out, ".el") ? "el" : NULL;
	if (!fmt)
		return b2_usage_err("%s: cannot tell the format from the name (.mtx, .el or .wel); give --format", out);
	B2_TRY(b2_parse_choice(&o->format, fmt, "--format", (const char *[]){"mtx", "el", "wel", NULL},
	                       (const int[]){FMT_MTX, FMT_EL, FMT_WEL}));
	if (o->symmetric && o->format != FMT_MTX)
		return b2_usage_err("--symmetric is for Matrix Market (.mtx) output only");
done:
	return error;
}

/* Decimal digits of v at p; returns the end. */
static char *put_u64(char *p, uint64_t v)
{
	char t[24];
	int n = 0;
	do {
		t[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n)
		*p++ = t[--n];
	return p;
}

#define ROWS (UINT64_C(1) << 18) /* tuples read and formatted at a time */

static int export_edges(const opts *o)
{
	int error = 0;
	hid_t f = -1, d = -1;
	b2_fout out = {0};
	int64_t *buf = NULL;
	char *text = NULL;
	int64_t N = 0, M = 0, directed = 0;
	uint64_t fp_attr = 0, fp = 0, rows = 0;
	const char *path = o->std.output;
	B2_TRY(b2_h5_open(&f, o->input, MPI_COMM_SELF, "bfs2d-edges"));
	B2_TRY(b2_attr_get_i64(&N, f, "num_vertices", o->input));
	B2_TRY(b2_attr_get_i64(&M, f, "num_edges", o->input));
	B2_TRY(b2_attr_get_u64(&fp_attr, f, "fingerprint", o->input));
	B2_TRY(b2_attr_opt_i64(&directed, NULL, f, "directed", o->input, 1));
	B2_TRY(b2_dset_open(&d, f, "edges", H5T_NATIVE_INT64, 2, 2, o->input));
	B2_TRY(b2_dset_rows(&rows, d));
	if (N < 1 || M < 0 || (uint64_t)M != rows)
		B2_FAIL(B2_EDATA, "%s: num_vertices = %lld, num_edges = %lld, /edges has %llu rows: expected "
		        "N >= 1 and num_edges = the rows", o->input, (long long)N, (long long)M,
		        (unsigned long long)rows);
	B2_TRY(b2_alloc(&buf, ROWS * 16, "edge buffer"));
	B2_TRY(b2_alloc(&text, ROWS * 64, "text buffer"));
	B2_TRY(b2_fout_open(&out, path));
	if (o->format == FMT_MTX) {
		char prov[2048];
		b2_provenance_text(prov, sizeof prov, "% ");
		fprintf(out.f, "%%%%MatrixMarket matrix coordinate pattern %s\n",
		        o->symmetric ? "symmetric" : "general");
		fprintf(out.f, "%% bfs2d edge file %s: %lld vertices, %lld tuples, directed %lld, "
		        "fingerprint %016llx\n%% entry (i, j) is the tuple (i-1, j-1)%s\n%s",
		        b2_text(o->input), (long long)N, (long long)M, (long long)directed,
		        (unsigned long long)fp_attr, o->symmetric ? " or (j-1, i-1)" : "", prov);
		fprintf(out.f, "%lld %lld %lld\n", (long long)N, (long long)N, (long long)M);
	}
	b2_progress pr;
	b2_progress_begin(&pr, "exporting", "tuples", (double)M);
	for (uint64_t r0 = 0; r0 < rows; r0 += ROWS) {
		uint64_t k = rows - r0 < ROWS ? rows - r0 : ROWS;
		B2_TRY(b2_dset_read_rows(d, H5T_NATIVE_INT64, r0, k, buf, 0));
		char *p = text;
		for (uint64_t i = 0; i < k; i++) {
			int64_t u = buf[2 * i], v = buf[2 * i + 1];
			if (u < 0 || u >= N || v < 0 || v >= N)
				B2_FAIL(B2_EDATA, "%s: /edges row %llu is (%lld, %lld), outside 0..%lld", o->input,
				        (unsigned long long)(r0 + i), (long long)u, (long long)v, (long long)N - 1);
			fp += b2_fp_tuple(r0 + i, u, v);
			uint64_t a = (uint64_t)u, b = (uint64_t)v;
			if (o->format == FMT_MTX) {
				if (o->symmetric && a < b) {
					uint64_t t = a;
					a = b;
					b = t;
				}
				a++, b++;
			}
			p = put_u64(p, a);
			*p++ = ' ';
			p = put_u64(p, b);
			if (o->format == FMT_WEL) {
				*p++ = ' ';
				*p++ = '1';
			}
			*p++ = '\n';
		}
		/* a full disk ends the export here, not after the last tuple */
		if (fwrite(text, 1, (size_t)(p - text), out.f) != (size_t)(p - text))
			B2_FAIL(B2_EIO, "cannot write %s: %s", path, strerror(errno));
		b2_progress_step(&pr, (double)(r0 + k));
	}
	b2_progress_end(&pr);
	if (fp != fp_attr)
		B2_FAIL(B2_EDATA, "%s: /edges does not match the file's fingerprint attribute (%016llx, "
		        "computed %016llx): the file is damaged or was changed", o->input,
		        (unsigned long long)fp_attr, (unsigned long long)fp);
	B2_TRY(b2_fout_commit(&out));
	b2_info("wrote %s: %lld vertices, %lld tuples (%s)", path, (long long)N, (long long)M,
	        o->format == FMT_MTX ? (o->symmetric ? "Matrix Market, symmetric" : "Matrix Market, general")
	        : o->format == FMT_EL ? "edge list" : "weighted edge list");
	if (b2_log_verbosity() > 0) {
		char prov[2048];
		b2_provenance_text(prov, sizeof prov, "  ");
		fputs(prov, stderr);
	}
done:
	b2_fout_discard(&out); /* removes the temporary unless committed */
	if (d >= 0)
		H5Dclose(d);
	if (f >= 0)
		H5Fclose(f);
	free(buf);
	free(text);
	return error;
}

int main(int argc, char **argv)
{
	opts o;
	int error = b2_init(&argc, &argv, "edge-export");
	if (error)
		return error;
	B2_TRY(parse(&o, argc, argv));
	B2_TRY(b2_check_output("-o", o.std.output, (const char *const *)&o.input, 1, 0));
	if (b2_rank == 0)
		error = export_edges(&o);
done:
	return b2_finish(error);
}
