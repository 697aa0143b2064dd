/* bfs-report — Graph500 statistics, comparison and scaling tables, JSON/CSV
 * and SVG plots from BFS files and their validation files. One process. */
#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "h5util.h"
#include "report.h"

static const char help[] =
	"Usage: bfs-report BFS.h5 [VALID.h5] [BFS.h5 [VALID.h5] ...] [options]\n"
	"Prints, for each run (a BFS file of bfs-gpu, followed by its validation file of\n"
	"bfs-validate), the Graph500 statistics block with the reference code's field\n"
	"names (SCALE, edgefactor, NBFS, ..., bfs  harmonic_mean_TEPS, ... validate),\n"
	"so that Graph500 output parsers read it, and where and how the run was made.\n"
	"TEPS count only searches that passed validation. With several runs: a\n"
	"comparison table (graph, scale, grid, GPUs, backend, harmonic-mean GTEPS,\n"
	"GTEPS per GPU, speed-up over the first run of the same graph, root rule,\n"
	"variant or options) and the weak- and strong-scaling tables the runs make up.\n"
	"Every run has a label: graph, grid, backend, and its bfs-gpu --variant or else\n"
	"the options that differ from bfs-gpu's defaults (e.g. direction=top-down), in\n"
	"every table, plot legend, JSON and CSV; variants make scaling series apart.\n"
	"With per-rank records (newer bfs-gpu): each phase's mean and max over ranks and\n"
	"their imbalance, bytes per level by exchange, predecessor bytes, and each\n"
	"level's phases, mean and max over ranks.\n"
	"\n"
	"      --format FMT     text (default), json or csv\n"
	"      --svg DIR        also write plots into DIR, made if missing (its parent\n"
	"                       must exist; a DIR that exists and is not a directory is\n"
	"                       exit 2): teps.svg (TEPS per search, linear axis),\n"
	"                       phases.svg (the phases of the median search, the mean\n"
	"                       search time and the slowest rank marked), scaling.svg\n"
	"                       (TEPS against GPUs; bars: the harmonic mean plus or\n"
	"                       minus its standard error), frontier.svg, bytes.svg (bytes\n"
	"                       per level by exchange), report.json, report.csv and\n"
	"                       index.html showing them all. -o and --append may lie in\n"
	"                       DIR, but not on one of these files (exit 2)\n"
	"      --append FILE    also add one CSV row per run to FILE (created with its\n"
	"                       header if missing, in a directory that must exist; the\n"
	"                       columns are fixed, so the file collects a campaign's\n"
	"                       results). Concurrent appends queue on a lock file\n"
	"                       .FILE.lock beside it, there while one appends. A run\n"
	"                       whose run id FILE already has is refused (exit 2); a row\n"
	"                       with a quoted field that does not close on its line is\n"
	"                       a damaged table (exit 3, naming the line)\n"
	"      --append-again   add such runs again all the same\n"
	"      --baseline OLD   compare with the run of the same graph and grid in OLD, an\n"
	"                       earlier report of --format json (strict JSON): speed-up,\n"
	"                       OLD's commit, a verdict and the recorded options that\n"
	"                       differ under each run, and a table column\n"
	"      --unvalidated    accept BFS files without a validation file (their TEPS\n"
	"                       are marked UNVALIDATED; default: refuse them)\n"
	"      --per-search     text: also list every search (root, time, nedge, TEPS)\n"
	"  -o, --output FILE    write the report to FILE (atomically; default stdout)\n"
	"  -v, --verbose        more messages on stderr\n"
	"  -q, --quiet          no warnings\n"
	"      --progress       (accepted, as by every bfs2d program; bfs-report is quick)\n"
	"  -h, --help, -V, --version (with the git commit built in)\n"
	"\n"
	"Example:\n"
	"  bfs-report results/g.bfs.h5 results/g.valid.h5 --svg results/g.svg \\\n"
	"             --append results/campaign.csv\n"
	"\n"
	"Runs are flagged NOISY when the coefficient of variation of their searches'\n"
	"seconds per edge exceeds 0.25, and NBFS<64 (no Graph500 result) below 64\n"
	"searches, in every table row, scaling efficiency and plot point they make;\n"
	"--baseline's verdict is faster/slower when the harmonic means differ by more\n"
	"than twice their combined standard error (harmonic_stddev_TEPS), else within noise.\n"
	"The root rule of every number (any: Graph500's; largest-component) is named.\n"
	"A BFS file that kept no predecessors (bfs-gpu --keep-pred none), with its empty\n"
	"validation file or with --unvalidated, is reported UNVALIDATED: rerun bfs-gpu\n"
	"with --keep-pred all (or N) and bfs-validate to validate it.\n"
	"\n"
	"Exit codes: 0 ok; 1 a search failed validation (its run is reported without it);\n"
	"2 usage (also: a BFS file without validation and no --unvalidated, a run the\n"
	"--append table already has, an output on one of --svg's files, --svg on a\n"
	"file); 3 bad input (not a BFS or validation file, a validation file of another\n"
	"run (run ids differ) or graph, an empty run, num_ranks, grid and devices that\n"
	"disagree, a time that is not a number of seconds from 0 to 1e9 (a search time\n"
	"from 1e-12), counts that overflow, per-rank datasets of other shapes or with\n"
	"negative bytes, a --baseline that is not a JSON report, an --append file with\n"
	"other columns or a damaged row); 4 cannot read or write (also: a missing\n"
	"directory of -o, --append or --svg's parent).\n";

#define USAGE(...) do { error = b2_usage_err(__VA_ARGS__); goto done; } while (0)

enum { OPT_FORMAT = 1000, OPT_SVG, OPT_UNVALIDATED, OPT_PER_SEARCH, OPT_APPEND, OPT_BASELINE,
       OPT_APPEND_AGAIN };

static int print_report(FILE *f, run *runs, int nruns, const report_opts *o, const char *format)
{
	if (strcmp(format, "json") == 0)
		return print_json(f, runs, nruns);
	if (strcmp(format, "csv") == 0)
		return print_csv(f, runs, nruns);
	return print_text(f, runs, nruns, o);
}

/* Every output or none: the -o report, the files under --svg DIR and the
 * --append table are staged under temporaries and renamed only when all are
 * complete; the report on stdout comes after they are staged. A plot
 * directory this run made is removed again on failure. The --append table
 * is renamed last: a rename that fails before it leaves the table as it
 * was, and the outputs renamed before it are put back (b2_fout_undo). */
static int write_outputs(run *runs, int nruns, const report_opts *o, const char *format,
                         const char *output, const char *svgdir)
{
	int error = 0, lock = -1;
	char *lockpath = NULL;
	b2_fout rep = {0}, csv = {0}, svg[REPORT_NSVG];
	memset(svg, 0, sizeof svg);
	if (svgdir)
		B2_TRY(write_svgs(svg, svgdir, runs, nruns, o));
	if (o->append)
		B2_TRY(append_csv(&csv, &lock, &lockpath, o->append, runs, nruns, o->append_again));
	if (output) {
		B2_TRY(b2_fout_open(&rep, output));
		error = print_report(rep.f, runs, nruns, o, format);
		if (!error)
			error = b2_fout_close(&rep);
		B2_TRY(error);
	} else {
		errno = 0; /* stdio keeps no reason with ferror: the failing write's errno */
		B2_TRY(print_report(stdout, runs, nruns, o, format));
		int seen = errno, bad = fflush(stdout) != 0 ? errno : ferror(stdout) ? (seen ? seen : EIO) : 0;
		if (bad)
			B2_FAIL(B2_EIO, "cannot write the report to standard output: %s", strerror(bad));
	}
	if (output)
		B2_TRY(b2_fout_commit(&rep));
	for (int k = 0; k < REPORT_NSVG; k++)
		if (svg[k].path)
			B2_TRY(b2_fout_commit(&svg[k]));
	if (o->append)
		B2_TRY(b2_fout_commit(&csv));
done:
	/* a rename that failed midway: the outputs renamed before it go too */
	if (error)
		b2_fout_undo(&rep);
	for (int k = 0; k < REPORT_NSVG; k++) {
		if (error)
			b2_fout_undo(&svg[k]);
		b2_fout_discard(&svg[k]);
	}
	b2_fout_discard(&rep);
	b2_fout_discard(&csv);
	/* the table is renamed (or left as it was): the next append may read it */
	unlock_table(&lock, &lockpath);
	return error;
}

/* --svg DIR: an existing directory, or a new one in an existing
 * directory, made here before the other outputs are checked, so that an
 * -o or --append inside it is taken alike whether DIR was there or not
 * (*made: to remove again on failure). A path that is there and is not a
 * directory is a usage error. */
static int make_svgdir(const char *dir, const char *const *in, int nin, int *made)
{
	int error = 0;
	struct stat st;
	*made = 0;
	if (stat(dir, &st) == 0 && S_ISREG(st.st_mode)) /* other kinds: b2_check_output names them */
		B2_FAIL(B2_EUSAGE, "--svg %s: it exists and is not a directory (--svg names a directory, "
		        "made if missing)", dir);
	B2_TRY(b2_check_output("--svg", dir, in, nin, 1));
	if (mkdir(dir, 0777) == 0) {
		*made = 1;
		B2_TRY(b2_tmp_register(dir, dir, 1));
	} else if (errno != EEXIST)
		B2_FAIL(B2_EIO, "cannot write %s: cannot create the directory: %s", dir, strerror(errno));
done:
	return error;
}

/* An output inside --svg DIR may not be one of the files DIR gets. */
static int clear_of_svg(const char *what, const char *path, const char *dir)
{
	int error = 0;
	char *d1 = strdup(path), *d2 = strdup(path), *rp = NULL, *rd = NULL;
	if (!d1 || !d2)
		B2_FAIL(B2_EIO, "out of host memory");
	rp = realpath(dirname(d1), NULL);
	rd = realpath(dir, NULL);
	if (rp && rd && strcmp(rp, rd) == 0)
		for (int k = 0; k < REPORT_NSVG; k++)
			if (strcmp(basename(d2), report_svg_names[k]) == 0)
				B2_FAIL(B2_EUSAGE, "%s %s is the %s that --svg %s writes: two outputs of one run "
				        "cannot share a path", what, path, report_svg_names[k], dir);
done:
	free(d1);
	free(d2);
	free(rp);
	free(rd);
	return error;
}

int main(int argc, char **argv)
{
	int error = b2_init(&argc, &argv, "bfs-report");
	b2_stdopts std = {0};
	report_opts o = {0};
	const char *format = "text", *svgdir = NULL;
	run *runs = NULL;
	int nruns = 0, made_dir = 0;
	static const struct option longopts[] = {
		{"format", required_argument, 0, OPT_FORMAT},
		{"svg", required_argument, 0, OPT_SVG},
		{"unvalidated", no_argument, 0, OPT_UNVALIDATED},
		{"per-search", no_argument, 0, OPT_PER_SEARCH},
		{"append", required_argument, 0, OPT_APPEND},
		{"append-again", no_argument, 0, OPT_APPEND_AGAIN},
		{"baseline", required_argument, 0, OPT_BASELINE},
		B2_STD_LONGOPTS, {0, 0, 0, 0}};
	if (error)
		return error;
	int c;
	while ((c = getopt_long(argc, argv, B2_STD_SHORTOPTS, longopts, NULL)) != -1) {
		switch (c) {
		case OPT_FORMAT:
			format = optarg;
			if (strcmp(format, "text") && strcmp(format, "json") && strcmp(format, "csv"))
				USAGE("--format must be text, json or csv, not '%s'", optarg);
			break;
		case OPT_SVG: svgdir = optarg; break;
		case OPT_UNVALIDATED: o.unvalidated = 1; break;
		case OPT_PER_SEARCH: o.per_search = 1; break;
		case OPT_APPEND: o.append = optarg; break;
		case OPT_APPEND_AGAIN: o.append_again = 1; break;
		case OPT_BASELINE: o.baseline = optarg; break;
		default:
			B2_TRY(b2_std_option(&std, c, optarg, help));
		}
	}
	if (optind >= argc)
		USAGE("no BFS file given");
	if (b2_rank != 0) /* one process does the work; others only agree on the exit */
		goto done;
	/* the BFS and validation files and the baseline are regular files and
	 * never outputs; the outputs are apart (the --append table is read, and
	 * checked as an output) */
	{
		const char **in = NULL;
		int nin = 0, nout = 0;
		b2_output out[3];
		B2_TRY(b2_calloc(&in, (size_t)(argc - optind) + 1, sizeof *in, "file names"));
		for (int i = optind; i < argc; i++)
			in[nin++] = argv[i];
		if (o.baseline)
			in[nin++] = o.baseline;
		if (std.output)
			out[nout++] = (b2_output){"-o", std.output, 0};
		if (o.append)
			out[nout++] = (b2_output){"--append", o.append, 0};
		if (svgdir)
			error = make_svgdir(svgdir, in, nin, &made_dir);
		if (!error)
			error = b2_check_files(out, nout, in, nin);
		for (int k = 0; k < nout && svgdir && !error; k++)
			error = clear_of_svg(out[k].what, out[k].path, svgdir);
		free(in);
		B2_TRY(error);
	}
	B2_TRY(b2_calloc(&runs, (size_t)(argc - optind), sizeof *runs, "runs"));
	for (int i = optind; i < argc; i++) {
		char fmt[128];
		const char *path = argv[i];
		B2_TRY(report_file_format(fmt, sizeof fmt, path));
		if (strcmp(fmt, "bfs2d-bfs") == 0) {
			run *r = &runs[nruns++];
			r->index = nruns;
			B2_TRY(run_load_bfs(r, path));
		} else if (strcmp(fmt, "bfs2d-validation") == 0) {
			if (nruns == 0)
				USAGE("%s is a validation file, but no BFS file comes before it", path);
			if (runs[nruns - 1].valid_path)
				USAGE("%s: %s already has its validation file %s", path,
				                     runs[nruns - 1].bfs_path, runs[nruns - 1].valid_path);
			B2_TRY(run_load_valid(&runs[nruns - 1], path));
		} else
			B2_FAIL(B2_EDATA, "%s: a %s file, not a BFS file (bfs2d-bfs) or a validation file (bfs2d-validation)",
			        path, fmt[0] ? fmt : "HDF5 (no format attribute)");
	}
	for (int i = 0; i < nruns; i++)
		if (!runs[i].valid_path && !o.unvalidated)
			USAGE("%s has no validation file after it: validate it (bfs-validate EDGES %s -o VALID.h5) "
			                     "and give VALID.h5 after it, or pass --unvalidated",
			                     runs[i].bfs_path, runs[i].bfs_path);
	for (int i = 0; i < nruns; i++)
		B2_TRY(run_derive(&runs[i], &o));
	/* speed-up over the first run of the same graph: across graphs a ratio
	 * of TEPS says nothing */
	for (int i = 0; i < nruns; i++) {
		runs[i].speedup = NAN;
		runs[i].speedup_base = 0;
		runs[i].baseline_speedup = NAN;
		for (int j = 0; j <= i; j++)
			if (runs[j].fp == runs[i].fp && runs[j].nused > 0 && runs[i].nused > 0) {
				runs[i].speedup = runs[i].hmean_teps / runs[j].hmean_teps;
				runs[i].speedup_base = runs[j].index;
				break;
			}
	}
	if (o.baseline)
		B2_TRY(apply_baseline(o.baseline, runs, nruns));
	B2_TRY(write_outputs(runs, nruns, &o, format, std.output, svgdir));
	for (int i = 0; i < nruns; i++)
		if (runs[i].nfailed > 0) {
			b2_err(B2_EFAIL, "%s: %lld of %lld searches FAILED validation (%s)", runs[i].bfs_path,
			       (long long)runs[i].nfailed, (long long)runs[i].K, runs[i].valid_path);
			error = B2_EFAIL;
		}
done:
	if (made_dir) { /* a plot directory this run made goes again on failure */
		b2_tmp_forget(svgdir);
		if (error && error != B2_EFAIL)
			rmdir(svgdir);
	}
	for (int i = 0; i < nruns; i++)
		run_free(&runs[i]);
	free(runs);
	return b2_finish(error);
}
