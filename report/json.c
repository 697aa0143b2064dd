/* json.c — the JSON report (--format json, report.json under --svg):
 * per run the facts of the text report under the CSV's names. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "report.h"


static void jstr(FILE *f, const char *s) { b2_fput_json(f, s); }
static void jstr_or_null(FILE *f, const char *s)
{
	if (s)
		jstr(f, s);
	else
		fputs("null", f);
}
static void jint_or_null(FILE *f, int64_t v) /* negative: not recorded */
{
	if (v >= 0)
		fprintf(f, "%lld", (long long)v);
	else
		fputs("null", f);
}
static void jnum(FILE *f, double v)
{
	if (isfinite(v))
		fprintf(f, "%.17g", v);
	else
		fputs("null", f);
}
static void jstats(FILE *f, const char *name, const stats *s)
{
	fprintf(f, ",\n    ");
	jstr(f, name);
	fputs(": {\"min\": ", f); jnum(f, s->min);
	fputs(", \"firstquartile\": ", f); jnum(f, s->q1);
	fputs(", \"median\": ", f); jnum(f, s->median);
	fputs(", \"thirdquartile\": ", f); jnum(f, s->q3);
	fputs(", \"max\": ", f); jnum(f, s->max);
	fputs(", \"mean\": ", f); jnum(f, s->mean);
	fputs(", \"stddev\": ", f); jnum(f, s->std);
	fputs("}", f);
}
static void jfield(FILE *f, const char *k) { fprintf(f, ",\n    \"%s\": ", k); }

/* A JSON array of n numbers. */
static void jnums(FILE *f, const double *v, int64_t n)
{
	fputs("[", f);
	for (int64_t i = 0; i < n; i++) {
		fputs(i ? ", " : "", f);
		jnum(f, v[i]);
	}
	fputs("]", f);
}

/* --baseline's differing options: [{"option", "run", "baseline"}, ...] */
static void jdiffs(FILE *f, const run *r)
{
	fputs("[", f);
	for (int n = 0; n < r->nbdiff; n++) {
		fprintf(f, "%s{\"option\": ", n ? ", " : "");
		jstr(f, r->bdiff[n].opt);
		fputs(", \"run\": ", f);
		jstr(f, r->bdiff[n].run);
		fputs(", \"baseline\": ", f);
		jstr(f, r->bdiff[n].base);
		fputs("}", f);
	}
	fputs("]", f);
}

/* The provenance attributes present, as a JSON object. */
static void jprov(FILE *f, char *const *prov)
{
	int n = 0;
	fputs("{", f);
	for (int i = 0; i < NPROV; i++)
		if (prov[i]) {
			fputs(n++ ? ", " : "", f);
			jstr(f, report_prov_names[i]);
			fputs(": ", f);
			jstr(f, prov[i]);
		}
	fputs("}", f);
}

static void jgroups(FILE *f, run *runs, int nruns, int weak)
{
	group *g = NULL;
	int ng = 0;
	fprintf(f, ",\n  \"%s_scaling\": [", weak ? "weak" : "strong");
	if (find_groups(&g, &ng, runs, nruns, weak) == 0) {
		for (int k = 0; k < ng; k++) {
			fprintf(f, "%s\n    {\"label\": ", k ? "," : "");
			jstr(f, g[k].label);
			fputs(", \"runs\": [", f);
			for (int m = 0; m < g[k].n; m++)
				fprintf(f, "%s%d", m ? ", " : "", runs[g[k].members[m]].index);
			fputs("]}", f);
		}
		free_groups(g, ng);
	}
	fputs("]", f);
}

int print_json(FILE *f, run *runs, int nruns)
{
	char v[128], host[64] = "", utc[32] = "";
	time_t now = time(NULL);
	struct tm tm;
	b2_version_string(v, sizeof v);
	if (gethostname(host, sizeof host - 1) != 0)
		snprintf(host, sizeof host, "unknown");
	if (gmtime_r(&now, &tm))
		strftime(utc, sizeof utc, "%Y-%m-%dT%H:%M:%SZ", &tm);
	char prog[160];
	snprintf(prog, sizeof prog, "bfs-report %s", v);
	fputs("{\n  \"program\": ", f);
	jstr(f, prog);
	fputs(",\n  \"report_provenance\": {\"created_utc\": ", f);
	jstr(f, utc);
	fputs(", \"created_on\": ", f);
	jstr(f, host);
	fputs(", \"program_version\": ", f);
	jstr(f, v);
	fputs(", \"git_commit\": ", f);
	jstr(f, b2_git_commit());
	fputs("},\n  \"runs\": [", f);
	for (int i = 0; i < nruns; i++) {
		const run *r = &runs[i];
		char grid[64];
		grid_str(grid, sizeof grid, r);
		fprintf(f, "%s\n   {\"run\": %d", i ? "," : "", r->index);
		jfield(f, "bfs_file"); jstr(f, r->bfs_path);
		jfield(f, "validation_file");
		if (r->valid_path) jstr(f, r->valid_path); else fputs("null", f);
		jfield(f, "edges_file"); jstr(f, r->edges_file);
		jfield(f, "graph"); jstr(f, r->graph);
		jfield(f, "label"); jstr(f, r->label);
		jfield(f, "variant"); jstr_or_null(f, r->variant);
		jfield(f, "rules_off"); jstr_or_null(f, r->rules_off);
		jfield(f, "evict_first"); jstr_or_null(f, r->evict_first);
		jfield(f, "options_tag"); jstr(f, r->tag);
		jfield(f, "num_vertices"); fprintf(f, "%lld", (long long)r->N);
		jfield(f, "num_input_edges"); fprintf(f, "%lld", (long long)r->M);
		jfield(f, "SCALE"); fprintf(f, "%lld", (long long)r->scale_shown);
		jfield(f, "edgefactor"); fprintf(f, "%lld", (long long)r->ef_shown);
		jfield(f, "scale_approximate"); fputs(r->approx_scale ? "true" : "false", f);
		jfield(f, "grid"); jstr(f, grid);
		jfield(f, "grid_searched"); jstr_or_null(f, r->grid_searched);
		jfield(f, "num_mpi_processes"); fprintf(f, "%lld", (long long)r->ranks);
		jfield(f, "num_gpus"); fprintf(f, "%lld", (long long)r->gpus);
		jfield(f, "devices_counted"); fprintf(f, "%lld", (long long)r->ndev);
		jfield(f, "backend"); jstr(f, r->backend);
		jfield(f, "devices"); jstr(f, r->devices ? r->devices : "");
		jfield(f, "exchange"); jstr(f, r->exchange ? r->exchange : "");
		jfield(f, "num_searches"); fprintf(f, "%lld", (long long)r->K);
		jfield(f, "num_passed"); fprintf(f, "%lld", (long long)r->npassed);
		jfield(f, "num_failed"); fprintf(f, "%lld", (long long)r->nfailed);
		jfield(f, "num_unvalidated"); fprintf(f, "%lld", (long long)r->nunvalidated);
		jfield(f, "validated"); fputs(r->nused > 0 && r->npassed == r->nused ? "true" : "false", f);
		jfield(f, "unvalidated_reason"); jstr_or_null(f, r->no_pred ? REPORT_NO_PRED : NULL);
		jfield(f, "threads_per_rank"); jint_or_null(f, r->threads_per_rank);
		jfield(f, "NBFS"); fprintf(f, "%lld", (long long)r->nused);
		jfield(f, "edges_fingerprint"); fprintf(f, "\"%016llx\"", (unsigned long long)r->fp);
		jfield(f, "graph_generation"); jnum(f, r->gen_time);
		jfield(f, "construction_time"); jnum(f, r->construction_time);
		jfield(f, "partition_time"); jnum(f, r->part_time);
		jfield(f, "load_time"); jnum(f, r->load_time);
		jfield(f, "load_read_time"); jnum(f, r->load_read_time);
		jfield(f, "load_build_time"); jnum(f, r->load_build_time);
		jfield(f, "run_id"); jstr_or_null(f, r->run_id);
		jfield(f, "validation_run_id"); jstr_or_null(f, r->v_run_id);
		jfield(f, "direction"); jstr_or_null(f, r->direction);
		jfield(f, "alpha"); jnum(f, r->alpha);
		jfield(f, "beta"); jnum(f, r->beta);
		jfield(f, "bitmap"); jstr_or_null(f, r->bitmap);
		jfield(f, "seed"); fprintf(f, "%llu", (unsigned long long)r->seed);
		jfield(f, "nroots"); jint_or_null(f, r->nroots);
		jfield(f, "warmup"); jint_or_null(f, r->warmup);
		jfield(f, "edges_per_thread"); jint_or_null(f, r->ept);
		jfield(f, "git_commit"); jstr_or_null(f, r->prov[4]);
		jfield(f, "cuda_driver_version"); jstr_or_null(f, r->prov[7]);
		jfield(f, "gpu_names"); jstr_or_null(f, r->prov[9]);
		jfield(f, "time_max_over_min"); jnum(f, r->time_max_over_min);
		jfield(f, "rate_cv"); jnum(f, r->spe_cv);
		jfield(f, "noisy"); fputs(r->noisy ? "true" : "false", f);
		jfield(f, "graph500_nbfs"); fputs(r->few_searches ? "false" : "true", f);
		jfield(f, "baseline_verdict"); jstr_or_null(f, r->baseline_verdict);
		jfield(f, "baseline_commit"); jstr_or_null(f, r->baseline_run ? r->baseline_commit : NULL);
		jfield(f, "baseline_option_diffs");
		if (r->baseline_run) jdiffs(f, r); else fputs("null", f);
		jfield(f, "oversubscribed");
		fputs(r->oversubscribed < 0 ? "null" : r->oversubscribed ? "true" : "false", f);
		jfield(f, "ranks_per_node");
		if (r->ranks_per_node < 0) fputs("null", f); else fprintf(f, "%lld", (long long)r->ranks_per_node);
		jfield(f, "roots_from");
		if (r->roots_from) jstr(f, r->roots_from); else fputs("null", f);
		jfield(f, "small_component_searches"); fprintf(f, "%lld", (long long)r->nsmall);
		jfield(f, "edges_examined_ratio"); jnum(f, r->examined_ratio);
		jfield(f, "expansion_mean");
		if (r->has_expdir) jnums(f, r->exp_mean, 2); else fputs("null", f);
		jfield(f, "speedup_over_run"); fprintf(f, "%d", r->speedup_base);
		jfield(f, "baseline_speedup"); jnum(f, r->baseline_speedup);
		jfield(f, "provenance");
		fputs("{\"bfs_file\": ", f);
		jprov(f, r->prov);
		fputs(", \"validation_file\": ", f);
		if (r->valid_path) jprov(f, r->vprov); else fputs("null", f);
		fputs("}", f);
		if (r->nused > 0) {
			jstats(f, "time", &r->time_st);
			jstats(f, "nedge", &r->nedge_st);
			stats t = {r->teps_min, r->teps_q1, r->teps_median, r->teps_q3, r->teps_max, NAN, NAN};
			fprintf(f, ",\n    \"TEPS\": {\"min\": "); jnum(f, t.min);
			fputs(", \"firstquartile\": ", f); jnum(f, t.q1);
			fputs(", \"median\": ", f); jnum(f, t.median);
			fputs(", \"thirdquartile\": ", f); jnum(f, t.q3);
			fputs(", \"max\": ", f); jnum(f, t.max);
			fputs("}", f);
			jfield(f, "harmonic_mean_TEPS"); jnum(f, r->hmean_teps);
			jfield(f, "harmonic_stddev_TEPS"); jnum(f, r->hstd_teps);
			jfield(f, "GTEPS_per_gpu"); jnum(f, r->hmean_teps * 1e-9 / (double)r->ndev);
			jfield(f, "speedup"); jnum(f, r->speedup);
		}
		if (r->has_valid_st)
			jstats(f, "validate", &r->valid_st);
		jfield(f, "phase_names");
		fputs("[", f);
		for (int p = 0; p < NPHASE; p++) {
			fputs(p ? ", " : "", f);
			jstr(f, report_phase_names[p]);
		}
		fputs("]", f);
		jfield(f, "phase_mean");
		jnums(f, r->phase_mean, NPHASE);
		jfield(f, "frontier_mean");
		jnums(f, r->frontier_mean, r->L);
		jfield(f, "median_search");
		jint_or_null(f, r->median_search);
		jfield(f, "phase_rank_mean");
		if (r->rank_phase) jnums(f, r->phase_rank_mean, NPHASE); else fputs("null", f);
		jfield(f, "phase_rank_max");
		if (r->rank_phase) jnums(f, r->phase_rank_max, NPHASE); else fputs("null", f);
		jfield(f, "phase_imbalance");
		if (r->rank_phase) jnums(f, r->phase_imbalance, NPHASE); else fputs("null", f);
		jfield(f, "level_bytes");
		if (r->lbytes_mean) {
			for (int x = 0; x < NEXCH; x++) {
				fprintf(f, "%s\"%s\": ", x ? ", " : "{", report_exchange_names[x]);
				jnums(f, r->lbytes_mean + x * r->L, r->L);
			}
			fputs("}", f);
		} else
			fputs("null", f);
		jfield(f, "bytes_per_search");
		if (r->lbytes_mean) {
			for (int x = 0; x < NEXCH; x++) {
				fprintf(f, "%s\"%s\": ", x ? ", " : "{", report_exchange_names[x]);
				jnum(f, r->bytes_total[x]);
			}
			fputs("}", f);
		} else
			fputs("null", f);
		jfield(f, "pred_bytes");
		jnum(f, r->pred_bytes);
		jfield(f, "level_phases");
		if (r->lphase_mean) {
			for (int m = 0; m < 2; m++) {
				fprintf(f, "%s\"%s\": ", m ? ", " : "{", m ? "max" : "mean");
				for (int p = 0; p < NLPHASE; p++) {
					fprintf(f, "%s\"%s\": ", p ? ", " : "{", report_phase_names[p]);
					jnums(f, (m ? r->lphase_max : r->lphase_mean) + p * r->L, r->L);
				}
				fputs("}", f);
			}
			fputs("}", f);
		} else
			fputs("null", f);
		jfield(f, "searches");
		fputs("[", f);
		for (int64_t k = 0; k < r->K; k++) {
			int64_t q = r->v_row ? r->v_row[k] : -1;
			int64_t ne = q >= 0 ? r->v_nedge[q] : r->nedge[k];
			fprintf(f, "%s\n      {\"search\": %lld, \"root\": %lld, \"time\": ", k ? "," : "",
			        (long long)k, (long long)r->roots[k]);
			jnum(f, r->time[k]);
			fprintf(f, ", \"nedge\": %lld, \"visited\": %lld, \"status\": \"%s\", \"TEPS\": ",
			        (long long)ne, (long long)r->visited[k], status_name(r->status[k]));
			if (r->status[k] == ST_FAILED) fputs("null", f); else jnum(f, (double)ne / r->time[k]);
			if (q >= 0) {
				fprintf(f, ", \"rule\": %lld, \"rule_name\": ", (long long)r->v_rule[q]);
				jstr(f, run_rule_name(r, r->v_rule[q]));
				fputs(", \"validate_time\": ", f);
				jnum(f, r->v_time[q]);
			}
			fputs("}", f);
		}
		fputs("]}", f);
	}
	fputs("]", f);
	jgroups(f, runs, nruns, 0);
	jgroups(f, runs, nruns, 1);
	fputs("\n}\n", f);
	return 0; /* write errors: the caller finds them (ferror) and names the file */
}

