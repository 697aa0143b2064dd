/* output.c — the Graph500 statistics block, comparison and scaling tables,
 * JSON and CSV. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "h5util.h"
#include "report.h"

/* ---- scaling groups ------------------------------------------------------ */

static int ilog2_exact(int64_t x) /* log2 of a power of two, else -1 */
{
	int l = 0;
	if (x < 1 || (x & (x - 1)))
		return -1;
	while (x > 1)
		x >>= 1, l++;
	return l;
}

/* Strong scaling (weak = 0): runs of one graph (same edge-file fingerprint)
 * and backend. Weak scaling (weak = 1): R-MAT runs of one edgefactor, seed
 * and backend whose scale minus log2(devices) is the same. A group needs two
 * device counts at least; members are sorted by devices, then run order. */
static int same_group(const run *a, const run *b, int weak)
{
	if (strcmp(a->backend, b->backend) != 0 || strcmp(a->tag, b->tag) != 0)
		return 0; /* a variant is a series of its own */
	if (!weak)
		return a->fp == b->fp;
	return a->scale >= 0 && b->scale >= 0 && a->edgefactor == b->edgefactor &&
	       a->seed == b->seed && ilog2_exact(a->ndev) >= 0 && ilog2_exact(b->ndev) >= 0 &&
	       a->scale - ilog2_exact(a->ndev) == b->scale - ilog2_exact(b->ndev);
}

static int eligible(const run *r, int weak)
{
	return r->nused > 0 && (!weak || (r->scale >= 0 && ilog2_exact(r->ndev) >= 0));
}

int find_groups(group **out, int *ngroups, run *runs, int nruns, int weak)
{
	int error = 0, ng = 0;
	group *g = NULL;
	int *taken = NULL;
	*out = NULL;
	*ngroups = 0;
	B2_TRY(b2_calloc(&g, (size_t)nruns, sizeof *g, "scaling groups"));
	B2_TRY(b2_calloc(&taken, (size_t)nruns, sizeof *taken, "scaling groups"));
	for (int i = 0; i < nruns; i++) {
		if (taken[i] || !eligible(&runs[i], weak))
			continue;
		group *gr = &g[ng];
		B2_TRY(b2_calloc(&gr->members, (size_t)nruns, sizeof(int), "scaling group"));
		ng++;
		int ndistinct = 0;
		for (int j = i; j < nruns; j++) {
			if (taken[j] || !eligible(&runs[j], weak) || !same_group(&runs[i], &runs[j], weak))
				continue;
			int newdev = 1;
			for (int m = 0; m < gr->n; m++)
				if (runs[gr->members[m]].ndev == runs[j].ndev)
					newdev = 0;
			ndistinct += newdev;
			gr->members[gr->n++] = j;
			taken[j] = 1;
		}
		/* insertion sort by devices, stable */
		for (int a = 1; a < gr->n; a++)
			for (int b = a; b > 0 && runs[gr->members[b - 1]].ndev > runs[gr->members[b]].ndev; b--) {
				int t = gr->members[b];
				gr->members[b] = gr->members[b - 1];
				gr->members[b - 1] = t;
			}
		const run *r0 = &runs[gr->members[0]];
		if (weak)
			snprintf(gr->label, sizeof gr->label, "R-MAT EF %lld, scale %lld+log2(%s), %s%s%s",
			         (long long)r0->edgefactor, (long long)(r0->scale - ilog2_exact(r0->ndev)),
			         r0->gpus > 0 ? "GPUs" : "ranks", r0->backend, r0->tag[0] ? ", " : "", r0->tag);
		else
			snprintf(gr->label, sizeof gr->label, "%s, %s%s%s", r0->graph, r0->backend,
			         r0->tag[0] ? ", " : "", r0->tag);
		if (ndistinct < 2) { /* not a scaling series */
			free(gr->members);
			memset(gr, 0, sizeof *gr);
			ng--;
		}
	}
	*out = g;
	*ngroups = ng;
	g = NULL;
done:
	if (g)
		free_groups(g, ng);
	free(taken);
	return error;
}

void free_groups(group *g, int n)
{
	if (!g)
		return;
	for (int i = 0; i < n; i++)
		free(g[i].members);
	free(g);
}

/* ---- text ------------------------------------------------------------------ */

static void kv_i(FILE *f, const char *k, long long v) { fprintf(f, "%-32s%lld\n", k, v); }
static void kv_g(FILE *f, const char *k, double v) { fprintf(f, "%-32s%g\n", k, v); }
static void kv_n(FILE *f, const char *k, double v) { fprintf(f, "%-32s%.11g\n", k, v); }

/* The reference's seven statistics lines: PREmin_WHAT: ... PREstddev_WHAT: */
static void kv_stats(FILE *f, const char *pre, const char *what, const stats *st,
                     void (*kv)(FILE *, const char *, double))
{
	static const char *const name[7] = {"min", "firstquartile", "median", "thirdquartile",
	                                    "max", "mean", "stddev"};
	const double v[7] = {st->min, st->q1, st->median, st->q3, st->max, st->mean, st->std};
	char k[64];
	for (int x = 0; x < 7; x++) {
		snprintf(k, sizeof k, "%s%s_%s:", pre, name[x], what);
		kv(f, k, v[x]);
	}
}

const char *status_name(int s)
{
	return s == ST_PASSED ? "passed" : s == ST_FAILED ? "FAILED" : "unvalidated";
}

void grid_str(char *buf, size_t n, const run *r)
{
	snprintf(buf, n, "%lldx%lld", (long long)r->rows, (long long)r->cols);
}

static void print_block(FILE *f, const run *r)
{
	/* field names, order and number formats of the Graph500 reference
	 * output, so that its parsers read this block */
	kv_i(f, "SCALE:", r->scale_shown);
	kv_i(f, "edgefactor:", r->ef_shown);
	kv_i(f, "NBFS:", r->nused);
	kv_g(f, "graph_generation:", r->gen_time);
	kv_i(f, "num_mpi_processes:", r->ranks);
	/* Graph500's construction_time: building the graph structure from the
	 * edge list: partition2d's work and bfs-gpu's build at load (the split
	 * is in the run's header) */
	kv_g(f, "construction_time:", r->construction_time);
	kv_stats(f, "bfs  ", "time", &r->time_st, kv_g);
	kv_stats(f, "", "nedge", &r->nedge_st, kv_n);
	kv_g(f, "bfs  min_TEPS:", r->teps_min);
	kv_g(f, "bfs  firstquartile_TEPS:", r->teps_q1);
	kv_g(f, "bfs  median_TEPS:", r->teps_median);
	kv_g(f, "bfs  thirdquartile_TEPS:", r->teps_q3);
	kv_g(f, "bfs  max_TEPS:", r->teps_max);
	fprintf(f, "bfs  harmonic_mean_TEPS:     !  %g\n", r->hmean_teps);
	kv_g(f, "bfs  harmonic_stddev_TEPS:", r->hstd_teps);
	if (r->has_valid_st) {
		kv_stats(f, "bfs  ", "validate", &r->valid_st, kv_g);
	} else {
		/* the reference prints -1 for validation it did not run */
		const stats none = {-1, -1, -1, -1, -1, -1, -1};
		kv_stats(f, "bfs  ", "validate", &none, kv_g);
	}
}

/* The provenance of a file; with `same` (the BFS file's), only what differs
 * from it, so that a run's facts are printed once. */
static void print_prov(FILE *f, const char *what, const char *path, char *const *prov,
                       char *const *same)
{
	int any = 0, differ = 0;
	for (int i = 0; i < NPROV; i++) {
		any |= prov[i] != NULL;
		differ |= prov[i] && !(same && same[i] && strcmp(same[i], prov[i]) == 0);
	}
	if (!any)
		return;
	if (!differ) {
		fprintf(f, "# %s %s: the same build and hosts\n", what, b2_text(path));
		return;
	}
	fprintf(f, "# %s %s%s:\n", what, b2_text(path), same ? " (what differs from the run's)" : "");
	for (int i = 0; i < NPROV; i++)
		if (prov[i] && !(same && same[i] && strcmp(same[i], prov[i]) == 0))
			fprintf(f, "#   %-21s %s\n", report_prov_names[i], b2_text(prov[i]));
}

static void print_options(FILE *f, const run *r);

/* The root rule of a run's numbers, in words. */
static const char *roots_rule(const run *r)
{
	if (!r->roots_from)
		return "any (Graph500's rule; not recorded, older file)";
	if (strcmp(r->roots_from, "any") == 0)
		return "any (Graph500's rule: any vertex of positive degree)";
	if (strcmp(r->roots_from, "largest-component") == 0)
		return "largest-component (roots in the largest connected component only)";
	return b2_text(r->roots_from);
}

/* The short name of the root rule, for tables */
static const char *roots_short(const run *r)
{
	return r->roots_from ? r->roots_from : "any";
}

static void print_run_header(FILE *f, const run *r, int nruns, const report_opts *o)
{
	char grid[64];
	grid_str(grid, sizeof grid, r);
	fprintf(f, "== run %d of %d: %s\n", r->index, nruns, b2_text(r->bfs_path));
	fprintf(f, "# label %s\n", b2_text(r->label));
	fprintf(f, "# graph %s: %lld vertices, %lld input tuples", b2_text(r->graph), (long long)r->N,
	        (long long)r->M);
	if (r->approx_scale)
		fprintf(f, " (SCALE and edgefactor below are the nearest Kronecker shape)");
	fprintf(f, "\n# grid %s", grid);
	if (r->grid_searched && strcmp(r->grid_searched, grid) != 0)
		fprintf(f, " (searched as %s)", b2_text(r->grid_searched));
	fprintf(f, ", %lld ranks, backend %s", (long long)r->ranks, b2_text(r->backend));
	if (r->devices && r->devices[0])
		fprintf(f, ", devices %s", b2_text(r->devices));
	if (r->exchange && r->exchange[0])
		fprintf(f, ", exchanges %s", b2_text(r->exchange));
	if (r->threads_per_rank >= 0)
		fprintf(f, ", %lld thread%s per rank", (long long)r->threads_per_rank,
		        r->threads_per_rank == 1 ? "" : "s");
	fprintf(f, ", %lld searches\n", (long long)r->K);
	print_options(f, r);
	if (r->no_pred)
		fprintf(f, "# UNVALIDATED: %s\n", REPORT_NO_PRED);
	else if (r->valid_path)
		fprintf(f, "# validation %s: %lld passed, %lld FAILED, %lld not validated\n", b2_text(r->valid_path),
		        (long long)r->npassed, (long long)r->nfailed, (long long)r->nunvalidated);
	else
		fprintf(f, "# validation: none\n");
	if (r->no_pred)
		; /* said above */
	else if (r->nunvalidated > 0 && o->unvalidated)
		fprintf(f, "# UNVALIDATED: %lld of the %lld searches below were not validated (--unvalidated)\n",
		        (long long)r->nunvalidated, (long long)r->nused);
	else if (r->nunvalidated > 0)
		fprintf(f, "# %lld searches were not validated and are left out (--unvalidated includes them)\n",
		        (long long)r->nunvalidated);
	if (r->nfailed > 0) {
		fprintf(f, "# %lld searches FAILED validation and are left out:\n", (long long)r->nfailed);
		for (int64_t k = 0; k < r->K; k++)
			if (r->status[k] == ST_FAILED) {
				int64_t q = r->v_row[k];
				fprintf(f, "#   search %lld (root %lld): rule %lld '%s'", (long long)k,
				        (long long)r->roots[k], (long long)r->v_rule[q],
				        b2_text(run_rule_name(r, r->v_rule[q])));
				if (r->v_example[q] >= 0)
					fprintf(f, " at vertex %lld", (long long)r->v_example[q]);
				fprintf(f, "\n");
			}
	}
	fprintf(f, "# phases (mean seconds per search):");
	for (int p = 0; p < NPHASE; p++)
		fprintf(f, "%s %s %.3g", p ? "," : "", report_phase_names[p], r->phase_mean[p]);
	fprintf(f, "\n");
	if (r->has_expdir)
		fprintf(f, "# frontier expansion by direction (mean seconds per search): top-down %.3g, "
		           "bottom-up %.3g\n", r->exp_mean[0], r->exp_mean[1]);
	if (isfinite(r->examined_ratio))
		fprintf(f, "# edges examined: %.3g times the component's edges (sum of edges_examined / "
		           "(2 nedge), mean over searches; top-down steps alone give about 1, less with duplicate tuples)\n", r->examined_ratio);
	if (isfinite(r->load_build_time))
		fprintf(f, "# times: graph_generation %g s, construction_time %g s = partition2d %g s + bfs-gpu's "
		           "build at load %g s (CSR copy, device arrays); bfs-gpu also read the partition in "
		           "%g s\n", r->gen_time, r->construction_time, r->part_time, r->load_build_time,
		        r->load_read_time);
	else
		fprintf(f, "# times: graph_generation %g s, construction_time (partition2d) %g s, loading into "
		           "bfs-gpu %g s\n", r->gen_time, r->part_time, r->load_time);
	if (r->nsmall > 0)
		fprintf(f, "# WARNING: %lld of %lld searches reached a component with under 1 %% of the "
		           "largest nedge; they pull harmonic_mean_TEPS down (bfs-gpu --roots "
		           "largest-component draws roots in the largest component only)\n",
		        (long long)r->nsmall, (long long)r->nused);
	if (run_oversubscribed(r))
	{
		if (r->gpus > 0)
			fprintf(f, "# OVERSUBSCRIBED: %lld ranks on a node with fewer GPUs", (long long)r->ranks_per_node);
		else
			fprintf(f, "# OVERSUBSCRIBED: %lld ranks on a node with %lld cores", (long long)r->ranks_per_node,
			        (long long)r->cores_per_node);
		fprintf(f, ": the times and efficiencies of this run say little\n");
	}
	if (r->noisy)
		fprintf(f, "# NOISY: the searches' rates spread widely (coefficient of variation of seconds "
		           "per edge %.2f > %.2f; slowest/fastest search time %.3g): compare this run with care\n",
		        r->spe_cv, REPORT_NOISY_CV, r->time_max_over_min);
	if (r->few_searches)
		fprintf(f, "# FEW SEARCHES: NBFS %lld < %d: not a Graph500 result (Graph500 runs %d searches)\n",
		        (long long)r->nused, REPORT_GRAPH500_NBFS, REPORT_GRAPH500_NBFS);
	print_prov(f, "made", r->bfs_path, r->prov, NULL);
	if (r->valid_path)
		print_prov(f, "validated", r->valid_path, r->vprov, r->prov);
}

/* The options that made the run, so that two runs tell what made them differ. */
static void print_options(FILE *f, const run *r)
{
	if (r->run_id)
		fprintf(f, "# run id %s%s\n", r->run_id, r->valid_path && r->v_run_id ? " (validated as such)" : "");
	fprintf(f, "# options: direction %s", r->direction ? r->direction : "?");
	if (isfinite(r->alpha) || isfinite(r->beta))
		fprintf(f, " (alpha %g, beta %g)", r->alpha, r->beta);
	fprintf(f, ", bitmap %s, seed %llu", r->bitmap ? r->bitmap : "?", (unsigned long long)r->seed);
	if (r->warmup >= 0)
		fprintf(f, ", warm-up %lld", (long long)r->warmup);
	if (r->nroots >= 0)
		fprintf(f, ", -n %lld", (long long)r->nroots);
	if (r->ept >= 0)
		fprintf(f, ", edges per thread %lld", (long long)r->ept);
	fprintf(f, "\n# roots: %s\n", roots_rule(r));
}

static void print_per_search(FILE *f, const run *r)
{
	fprintf(f, "# %6s %12s %12s %14s %12s  %s\n", "search", "root", "time_s", "nedge", "GTEPS",
	        "status");
	for (int64_t k = 0; k < r->K; k++) {
		int64_t q = r->v_row ? r->v_row[k] : -1;
		int64_t ne = q >= 0 ? r->v_nedge[q] : r->nedge[k];
		fprintf(f, "# %6lld %12lld %12.6g %14lld %12.6g  %s\n", (long long)k,
		        (long long)r->roots[k], r->time[k], (long long)ne, (double)ne / r->time[k] * 1e-9,
		        status_name(r->status[k]));
	}
}

static double gteps(const run *r) { return r->hmean_teps * 1e-9; }

/* --baseline, for every run, one run or many. */
static void print_baseline(FILE *f, const run *r, const char *path)
{
	if (!r->baseline_run) {
		fprintf(f, "# baseline %s: no run of the same graph and grid%s\n", path,
		        r->nused ? "" : " (and this run has no validated search)");
		return;
	}
	fprintf(f, "# baseline %s, run %d (commit %s): %.4g GTEPS (standard error %.3g); this run "
	           "%.4g GTEPS (%.3g): speed-up %.3g, %s", path, r->baseline_run, r->baseline_commit,
	        r->baseline_hmean * 1e-9, r->baseline_hstd * 1e-9, gteps(r), r->hstd_teps * 1e-9,
	        r->baseline_speedup, r->baseline_verdict);
	/* a verdict between runs of other options compares the options too */
	if (r->nbdiff == 0)
		fputs("; the same recorded options\n", f);
	else {
		fputs("; OPTIONS DIFFER:", f);
		for (int k = 0; k < r->nbdiff; k++) {
			fprintf(f, "%s %s %s", k ? "," : "", r->bdiff[k].opt, b2_text(r->bdiff[k].run));
			fprintf(f, " (baseline %s)", b2_text(r->bdiff[k].base));
		}
		fputs("\n", f);
	}
}

/* The marks of a run where runs compare: each a word, space-separated. */
static void row_marks(FILE *f, const run *r)
{
	if (r->noisy)
		fputs("  NOISY", f);
	if (r->few_searches)
		fputs("  NBFS<64", f);
	if (r->no_pred)
		fputs("  UNVALIDATED(no-predecessors)", f);
	else if (r->nunvalidated > 0 && r->npassed < r->nused)
		fputs("  UNVALIDATED", f);
	if (run_oversubscribed(r))
		fputs("  OVERSUBSCRIBED", f);
}

/* An efficiency of run r against r0, flagged with what makes either doubtful. */
static void efficiency(FILE *f, double pct, const run *r, const run *r0)
{
	int noisy = r->noisy || r0->noisy, few = r->few_searches || r0->few_searches;
	fprintf(f, " %10.1f%%", pct);
	if (noisy || few)
		fprintf(f, " (%s%s%s)", noisy ? "NOISY" : "", noisy && few ? ", " : "", few ? "NBFS<64" : "");
}

static void print_tables(FILE *f, run *runs, int nruns)
{
	int any_cpu = 0;
	fprintf(f, "== comparison (harmonic-mean TEPS over the validated searches)\n");
	int base = 0, marks = 0, noisy = 0, few = 0, nopred = 0;
	for (int i = 0; i < nruns; i++)
		base |= isfinite(runs[i].baseline_speedup);
	fprintf(f, "%4s  %-24s %6s %7s %5s %-8s %10s %10s %9s%s  %-17s %s\n", "run", "graph", "scale", "grid",
	        "GPUs", "backend", "GTEPS", "GTEPS/GPU", "speed-up", base ? "  baseline" : "", "roots",
	        "variant/options");
	for (int i = 0; i < nruns; i++) {
		const run *r = &runs[i];
		char grid[64], sc[32];
		grid_str(grid, sizeof grid, r);
		snprintf(sc, sizeof sc, "%s%lld", r->approx_scale ? "~" : "", (long long)r->scale_shown);
		any_cpu |= r->gpus == 0;
		marks |= run_oversubscribed(r);
		noisy |= r->noisy;
		few |= r->few_searches;
		nopred |= r->no_pred;
		if (r->nused == 0) {
			fprintf(f, "%4d  %-24s %6s %7s %5lld %-8s %10s %10s %9s%s", r->index, b2_text(r->graph), sc, grid,
			        (long long)r->ndev, b2_text(r->backend), "-", "-", "-", base ? " " : "");
		} else {
			char bs[64] = "";
			if (base && isfinite(r->baseline_speedup))
				snprintf(bs, sizeof bs, " %9.3g %s", r->baseline_speedup,
				         strncmp(r->baseline_verdict, "undecided", 9) ? r->baseline_verdict : "undecided");
			else if (base)
				snprintf(bs, sizeof bs, " %9s", "-");
			fprintf(f, "%4d  %-24s %6s %7s %5lld %-8s %10.4g %10.4g %9.3g%s", r->index, b2_text(r->graph),
			        sc, grid, (long long)r->ndev, b2_text(r->backend), gteps(r), gteps(r) / (double)r->ndev,
			        r->speedup, bs);
		}
		fprintf(f, "  %-17s %s", b2_text(roots_short(r)), r->tag[0] ? b2_text(r->tag) : "-");
		row_marks(f, r);
		fputs("\n", f);
	}
	fprintf(f, "(speed-up: over the first run of the same graph%s; roots: the root rule, any = "
	        "Graph500's; variant/options: bfs-gpu --variant, or the options that differ from its defaults)\n",
	        base ? "; baseline: over the --baseline run of the same graph and grid" : "");
	if (any_cpu)
		fprintf(f, "(cpu backend: the GPUs column counts CPU ranks)\n");
	if (marks)
		fprintf(f, "(OVERSUBSCRIBED: more ranks on a node than cores or GPUs; its times say little)\n");
	if (noisy)
		fprintf(f, "(NOISY: the searches' rates spread widely, coefficient of variation over %.2f)\n",
		        REPORT_NOISY_CV);
	if (nopred)
		fprintf(f, "(UNVALIDATED(no-predecessors): %s)\n", REPORT_NO_PRED);
	if (few) {
		fprintf(f, "(NBFS<64: fewer than %d searches, not Graph500 results: run", REPORT_GRAPH500_NBFS);
		for (int i = 0, n = 0; i < nruns; i++)
			if (runs[i].few_searches)
				fprintf(f, "%s %d", n++ ? "," : "", runs[i].index);
		fprintf(f, ")\n");
	}
	for (int weak = 0; weak <= 1; weak++) {
		group *g = NULL;
		int ng = 0;
		if (find_groups(&g, &ng, runs, nruns, weak) != 0)
			return;
		for (int k = 0; k < ng; k++) {
			const run *r0 = &runs[g[k].members[0]];
			fprintf(f, "\n== %s scaling: %s (roots %s)\n", weak ? "weak" : "strong", b2_text(g[k].label),
			        b2_text(roots_short(r0)));
			if (weak)
				fprintf(f, "%5s %7s %6s %5s %10s %10s %11s\n", "GPUs", "grid", "scale", "EF", "GTEPS",
				        "GTEPS/GPU", "efficiency");
			else
				fprintf(f, "%5s %7s %10s %10s %9s %11s\n", "GPUs", "grid", "GTEPS", "GTEPS/GPU",
				        "speed-up", "efficiency");
			int doubt = 0;
			for (int m = 0; m < g[k].n; m++) {
				const run *r = &runs[g[k].members[m]];
				char grid[64];
				grid_str(grid, sizeof grid, r);
				double per = gteps(r) / (double)r->ndev, per0 = gteps(r0) / (double)r0->ndev;
				doubt |= run_doubt(r) != NULL;
				if (weak) {
					fprintf(f, "%5lld %7s %6lld %5lld %10.4g %10.4g", (long long)r->ndev,
					        grid, (long long)r->scale, (long long)r->edgefactor, gteps(r), per);
					efficiency(f, 100.0 * per / per0, r, r0);
				} else {
					double su = r->hmean_teps / r0->hmean_teps;
					fprintf(f, "%5lld %7s %10.4g %10.4g %9.3g", (long long)r->ndev, grid, gteps(r), per, su);
					efficiency(f, 100.0 * su / ((double)r->ndev / (double)r0->ndev), r, r0);
				}
				fprintf(f, "  #%d", r->index);
				row_marks(f, r);
				fputs("\n", f);
			}
			if (doubt)
				fprintf(f, "(an efficiency marked NOISY or NBFS<64 comes from a run whose rates spread "
				           "widely or that has too few searches: it may be far off)\n");
		}
		free_groups(g, ng);
	}
}

int print_text(FILE *f, run *runs, int nruns, const report_opts *o)
{
	/* several runs: the tables first, where a reader of the file (and the
	 * pipeline, which prints only them) finds them; the runs' details follow */
	if (nruns > 1)
		print_tables(f, runs, nruns);
	for (int i = 0; i < nruns; i++) {
		run *r = &runs[i];
		if (i || nruns > 1)
			fprintf(f, "\n");
		print_run_header(f, r, nruns, o);
		if (o->per_search)
			print_per_search(f, r);
		if (r->nused == 0)
			fprintf(f, "No results printed for invalid run.\n");
		else {
			print_block(f, r);
			/* in words, not with a key of the block: parsers grep the keys */
			fprintf(f, "# the harmonic mean above: roots %s\n", roots_rule(r));
		}
		ranks_print_text(f, r);
		if (o->baseline)
			print_baseline(f, r, o->baseline);
	}
	return 0; /* write errors: the caller finds them (ferror) and names the file */
}

