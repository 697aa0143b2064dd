/* svg.c — plain SVG plots written by hand: TEPS per search, the stacked
 * phase breakdown per configuration (as the paper's breakdown figure), TEPS
 * against GPUs across runs, frontier size per level. Every drawn value also
 * sits in data-* attributes and a <title> tooltip, so the numbers can be read
 * back (the tests do) and hovered in a browser. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "svgkit.h"

/* The phases of phases.svg, bottom to top: FORMATS.md's six, the frontier
 * expansion split by direction when the file has it, and the time of the
 * search outside every phase (the slowest rank against the mean over ranks,
 * barriers), so that the bar reaches the mean search time. */
enum { SEG_EXPAND, SEG_EXP_TD, SEG_EXP_BU, SEG_FOLD, SEG_UPDATE, SEG_TERM, SEG_PRED, SEG_OTHER, NSEG };
static const char *const seg_color[NSEG] = {"#4e79a7", "#f28e2b", "#ffbe7d", "#59a14f",
                                            "#e15759", "#76b7b2", "#edc948", "#bab0ac"};

const char *const report_svg_names[REPORT_NSVG] = {"teps.svg", "phases.svg", "scaling.svg",
                                                   "frontier.svg", "report.json", "report.csv",
                                                   "index.html", "bytes.svg"};

/* ---- TEPS per search ------------------------------------------------------------- */

/* One chart with one scale for every run: run i's searches are bars in slot
 * i, its harmonic mean a dashed line over the slot; labels and means sit
 * under the axis and in the legend below, never over the bars. */
static int plot_teps(b2_fout *out, const char *dir, run *runs, int nruns)
{
	int error = 0;
	int64_t nbars = 0;
	double ymax = 0;
	for (int i = 0; i < nruns; i++) {
		const run *r = &runs[i];
		nbars += r->K;
		for (int64_t k = 0; k < r->K; k++) {
			int64_t q = r->v_row ? r->v_row[k] : -1;
			double ne = (double)(q >= 0 ? r->v_nedge[q] : r->nedge[k]);
			if (r->status[k] != ST_FAILED)
				ymax = fmax(ymax, ne / r->time[k] * 1e-9);
		}
	}
	/* bars on a linear axis, so that a bar's length is its rate; searches
	 * of tiny components show as slivers (and are flagged in the text) */
	char roots[256];
	roots_note(roots, sizeof roots, runs, nruns);
	const int pw = (int)fmin(1500, fmax(700, (double)nbars * 4)), W = 100 + pw + 30;
	const int top = 50, PH = 300, H = top + PH + 70 + 16 * nruns;
	svgf s;
	B2_TRY(svg_open(&s, out, dir, "teps.svg", W, H, "TEPS per search (GTEPS); dashed: harmonic mean of each run"));
	FILE *f = s.f;
	fprintf(f, "<text class=\"subtitle\" x=\"%d\" y=\"38\" text-anchor=\"middle\" font-size=\"11\">", W / 2);
	xml(f, roots);
	fputs("</text>\n", f);
	axis ay;
	ax_linear(&ay, 0, ymax > 0 ? ymax : 1, top + PH, top);
	fprintf(f, "<desc class=\"y-scale\">linear</desc>\n");
	double x0 = 100, x1 = 100 + pw, slot = (x1 - x0) / nruns;
	draw_yaxis(f, &ay, x0 - 4, x1, "GTEPS");
	fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"black\"/>\n", x0 - 4,
	        ay.p0, x1, ay.p0);
	for (int i = 0; i < nruns; i++) {
		const run *r = &runs[i];
		double sx = x0 + slot * i, bw = slot / (double)r->K;
		char lab[600];
		run_label(lab, sizeof lab, r);
		fprintf(f, "<g class=\"panel\" data-run=\"%d\">\n", r->index);
		if (i > 0)
			fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#999\" stroke-dasharray=\"2 3\"/>\n",
			        sx, ay.p1, sx, ay.p0 + 4);
		if (nruns == 1) {
			int64_t every = r->K <= 16 ? 1 : (r->K + 15) / 16;
			for (int64_t k = 0; k < r->K; k += every)
				fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"10\">%lld</text>\n",
				        sx + bw * ((double)k + 0.5), ay.p0 + 12, (long long)k);
			fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">search (%lld in all)</text>\n",
			        sx + slot / 2, ay.p0 + 28, (long long)r->K);
		} else
			fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"11\">#%d</text>\n",
			        sx + slot / 2, ay.p0 + 14, r->index);
		for (int64_t k = 0; k < r->K; k++) {
			int64_t q = r->v_row ? r->v_row[k] : -1;
			double ne = (double)(q >= 0 ? r->v_nedge[q] : r->nedge[k]);
			double teps = ne / r->time[k];
			double x = sx + bw * (double)k;
			const char *st = r->status[k] == ST_PASSED ? "passed"
			                 : r->status[k] == ST_FAILED ? "failed" : "unvalidated";
			if (r->status[k] == ST_FAILED) {
				/* no TEPS for a failed search: a red cross on the axis */
				double cx = x + bw / 2, cy = ay.p0 - 6;
				fprintf(f, "<path class=\"failed\" data-run=\"%d\" data-search=\"%lld\" d=\"M%.1f %.1fl8 8m0 -8l-8 8\" "
				           "stroke=\"#d62728\" stroke-width=\"2\"><title>run %d, search %lld, root %lld: FAILED validation</title></path>\n",
				        r->index, (long long)k, cx - 4, cy - 4, r->index, (long long)k, (long long)r->roots[k]);
				continue;
			}
			double y = ax_map(&ay, teps * 1e-9);
			fprintf(f, "<rect class=\"teps\" data-run=\"%d\" data-search=\"%lld\" data-root=\"%lld\" "
			           "data-teps=\"%.9g\" data-status=\"%s\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"%s\">"
			           "<title>run %d, search %lld, root %lld: %.4g GTEPS (%s)</title></rect>\n",
			        r->index, (long long)k, (long long)r->roots[k], teps, st, x + bw * 0.1, y,
			        bw * 0.8, ay.p0 - y, r->status[k] == ST_PASSED ? "#1f77b4" : "#aaaaaa", r->index,
			        (long long)k, (long long)r->roots[k], teps * 1e-9, st);
		}
		if (r->nused > 0) {
			double y = ax_map(&ay, r->hmean_teps * 1e-9);
			fprintf(f, "<line class=\"hmean\" data-run=\"%d\" data-teps=\"%.9g\" x1=\"%.1f\" y1=\"%.2f\" x2=\"%.1f\" y2=\"%.2f\" "
			           "stroke=\"#d62728\" stroke-width=\"2\" stroke-dasharray=\"6 3\"><title>run %d: harmonic mean %.4g GTEPS</title></line>\n",
			        r->index, r->hmean_teps, sx, y, sx + slot, y, r->index, r->hmean_teps * 1e-9);
		}
		/* the legend row: label and harmonic mean, below the chart */
		fprintf(f, "<text x=\"%.1f\" y=\"%d\" font-size=\"11\">", x0, top + PH + 50 + 16 * i);
		xml(f, lab);
		if (r->nused > 0)
			fprintf(f, ": harmonic mean %.4g GTEPS", r->hmean_teps * 1e-9);
		else
			fputs(": no valid search", f);
		if (r->no_pred)
			fputs(" (UNVALIDATED: no predecessors kept)", f);
		else if (r->nused > 0 && r->npassed < r->nused)
			fputs(" (UNVALIDATED)", f);
		if (run_oversubscribed(r))
			fputs(" (OVERSUBSCRIBED)", f);
		if (r->noisy)
			fprintf(f, " (NOISY: rate spread %.2f)", r->spe_cv);
		if (r->few_searches)
			fprintf(f, " (NBFS %lld &lt; %d)", (long long)r->nused, REPORT_GRAPH500_NBFS);
		fputs("</text>\n", f);
		/* the marks also over the run's bars, where the eye is */
		run_flags(f, r, sx + slot / 2, ay.p1 + 12, slot < 110);
		fputs("</g>\n", f);
	}
done:
	return svg_close(&s, error, 1);
}

/* ---- phase breakdown ------------------------------------------------------------ */

/* Seconds of each segment (SEG_*) of search k of run r; the expansion is
 * split only when /expansion_time adds up to the frontier expansion. */
static void segments(double *v, int *split, const run *r, int64_t k)
{
	const double *pm = r->phase + k * NPHASE;
	double e0 = r->expdir ? r->expdir[k * 2] : 0, e1 = r->expdir ? r->expdir[k * 2 + 1] : 0;
	*split = r->expdir && fabs(e0 + e1 - pm[1]) <= 1e-6 * fmax(pm[1], 1e-12) + 1e-12;
	v[SEG_EXPAND] = pm[0];
	v[SEG_EXP_TD] = *split ? e0 : pm[1];
	v[SEG_EXP_BU] = *split ? e1 : 0;
	v[SEG_FOLD] = pm[2];
	v[SEG_UPDATE] = pm[3];
	v[SEG_TERM] = pm[4];
	v[SEG_PRED] = pm[5];
	double sum = 0;
	for (int s = 0; s < SEG_OTHER; s++)
		sum += v[s];
	v[SEG_OTHER] = r->time[k] > sum ? r->time[k] - sum : 0;
}

/* The mean time of a search outside every phase. */
static double outside_mean(const run *r)
{
	double sum = 0;
	for (int p = 0; p < NPHASE; p++)
		sum += r->phase_mean[p];
	return r->time_st.mean > sum ? r->time_st.mean - sum : 0;
}

/* The phase of /phase_time a segment belongs to. */
static int seg_phase(int k)
{
	return k == SEG_EXPAND ? 0 : k == SEG_EXP_TD || k == SEG_EXP_BU ? 1 : k == SEG_OTHER ? -1 : k - 1;
}

/* The slowest rank's seconds of phase p in search k (/rank_phase_time). */
static double rank_max(const run *r, int64_t k, int p)
{
	double m = 0;
	for (int64_t q = 0; q < r->ranks; q++)
		m = fmax(m, r->rank_phase[(k * r->ranks + q) * NPHASE + p]);
	return m;
}

/* One bar per run: the phases of its median search (by time), stacked up
 * to that search's time, so that one outlier search does not make the
 * bar; a black line at the mean search time; with per-rank records, a red
 * tick per phase where the slowest rank's time of that phase would end. */
static int plot_phases(b2_fout *out, const char *dir, run *runs, int nruns)
{
	int error = 0;
	static const char *const seg_name[NSEG] = {
		"expand exchange", "frontier expansion (top-down)", "frontier expansion (bottom-up)",
		"fold exchange", "frontier update", "termination test", "predecessor resolution",
		"outside the phases"};
	/* a bar's slot holds its widest label (the backend and the label's tag,
	 * 10 px type at about 0.6 em a character), so neighbours never overlap */
	const int bwid = 60, H = 500;
	int slot = bwid + 30;
	for (int i = 0; i < nruns; i++) {
		const size_t n = (runs[i].backend ? strlen(runs[i].backend) : 0) + 1 + strlen(runs[i].tag);
		int w = (int)(0.6 * 10 * (double)n) + 12;
		slot = w > slot ? w : slot;
	}
	const int W = 120 + slot * (nruns > 2 ? nruns : 2) + 260;
	double ymax = 0;
	int any_ranks = 0;
	svgf s;
	char roots[256];
	roots_note(roots, sizeof roots, runs, nruns);
	B2_TRY(svg_open(&s, out, dir, "phases.svg", W, H, "Time per BFS phase"));
	FILE *f = s.f;
	fprintf(f, "<text class=\"subtitle\" x=\"%d\" y=\"36\" text-anchor=\"middle\" font-size=\"11\">bar: "
	           "the median search (by time), phases summed over levels</text>\n", W / 2);
	fprintf(f, "<text class=\"subtitle\" x=\"%d\" y=\"50\" text-anchor=\"middle\" font-size=\"11\">and "
	           "averaged over ranks; black line: the mean search time</text>\n", W / 2);
	fprintf(f, "<text class=\"subtitle\" x=\"%d\" y=\"64\" text-anchor=\"middle\" font-size=\"11\">", W / 2);
	xml(f, roots);
	fputs("</text>\n", f);
	for (int i = 0; i < nruns; i++) {
		const run *r = &runs[i];
		double v[NSEG], t = 0;
		int split;
		if (r->nused == 0)
			continue;
		segments(v, &split, r, r->median_search);
		for (int k = 0; k < NSEG; k++)
			t += v[k];
		ymax = fmax(ymax, fmax(t, r->time_st.mean));
		if (r->rank_phase) {
			any_ranks = 1;
			double acc = 0;
			for (int k = 0; k < NSEG; k++) {
				int p = seg_phase(k);
				if (p >= 0 && k != SEG_EXP_BU)
					ymax = fmax(ymax, acc + rank_max(r, r->median_search, p));
				acc += v[k];
			}
		}
	}
	axis ay;
	ax_linear(&ay, 0, ymax > 0 ? ymax : 1e-3, H - 130, 84);
	draw_yaxis(f, &ay, 100, W - 260, "seconds");
	for (int i = 0; i < nruns; i++) {
		const run *r = &runs[i];
		double x = 120 + slot * i + (slot - bwid - 30) / 2.0, acc = 0, v[NSEG];
		int split = 0;
		int64_t ks = r->median_search;
		if (r->nused > 0)
			segments(v, &split, r, ks);
		fprintf(f, "<g class=\"bar\" data-run=\"%d\" data-search=\"%lld\" data-total=\"%.9g\" data-mean=\"%.9g\">\n",
		        r->index, (long long)ks, r->nused > 0 ? r->time[ks] : NAN, r->nused > 0 ? r->time_st.mean : NAN);
		for (int k = 0; k < NSEG && r->nused > 0; k++) {
			if (k == SEG_EXP_BU && !split)
				continue;
			/* data-phase: FORMATS.md's phase name; the split halves of the
			 * expansion keep it and say their direction */
			int p = seg_phase(k);
			const char *ph = p >= 0 ? report_phase_names[p] : "outside the phases";
			double mean = p >= 0 ? r->phase_mean[p] : outside_mean(r);
			const char *dirn = !split || (k != SEG_EXP_TD && k != SEG_EXP_BU) ? ""
			                   : k == SEG_EXP_TD ? " data-direction=\"top-down\"" : " data-direction=\"bottom-up\"";
			double ya = ax_map(&ay, acc), yb = ax_map(&ay, acc + v[k]);
			fprintf(f, "<rect class=\"phase\" data-run=\"%d\" data-phase=\"%s\"%s data-seconds=\"%.9g\" "
			           "data-mean=\"%.9g\" x=\"%.1f\" y=\"%.2f\" width=\"%d\" height=\"%.2f\" fill=\"%s\">"
			           "<title>run %d, %s: %.4g s in the median search (mean over searches %.4g s)</title></rect>\n",
			        r->index, ph, dirn, v[k], mean, x, yb, bwid, ya - yb,
			        seg_color[k], r->index, k == SEG_EXP_TD && !split ? report_phase_names[1] : seg_name[k],
			        v[k], mean);
			if (r->rank_phase && p >= 0 && k != SEG_EXP_BU) {
				double mx = rank_max(r, ks, p), y = ax_map(&ay, acc + mx);
				fprintf(f, "<line class=\"rank-max\" data-run=\"%d\" data-phase=\"%s\" data-seconds=\"%.9g\" "
				           "x1=\"%.1f\" y1=\"%.2f\" x2=\"%.1f\" y2=\"%.2f\" stroke=\"#d62728\" stroke-width=\"2\">"
				           "<title>run %d, %s: the slowest rank %.4g s</title></line>\n",
				        r->index, ph, mx, x + bwid * 0.6, y, x + bwid + 6, y, r->index, ph, mx);
			}
			acc += v[k];
		}
		if (r->nused > 0) {
			double y = ax_map(&ay, r->time_st.mean);
			fprintf(f, "<line class=\"mean-time\" data-seconds=\"%.9g\" x1=\"%.1f\" y1=\"%.2f\" x2=\"%.1f\" y2=\"%.2f\" "
			           "stroke=\"black\" stroke-width=\"2\"><title>run %d: mean search time %.4g s</title></line>\n",
			        r->time_st.mean, x - 4, y, x + bwid + 4, y, r->index, r->time_st.mean);
		} else
			fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"10\">no valid search</text>\n",
			        x + bwid / 2.0, ay.p0 - 6);
		/* said under the bar whose expansion has no bottom-up part, and why */
		if (r->nused > 0 && (!split || !(v[SEG_EXP_BU] > 0)))
			fprintf(f, "<text class=\"no-bottom-up\" data-run=\"%d\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" "
			           "font-size=\"9\">%s</text>\n", r->index, x + bwid / 2.0, H - 70,
			        !r->expdir ? "(no direction data)" : "(no bottom-up step)");
		fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">#%d %lldx%lld</text>\n", x + bwid / 2.0,
		        H - 112, r->index, (long long)r->rows, (long long)r->cols);
		fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" font-size=\"10\">", x + bwid / 2.0, H - 98);
		xml(f, r->graph);
		fprintf(f, "</text>\n<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" font-size=\"10\">", x + bwid / 2.0, H - 84);
		xml(f, r->backend);
		if (r->tag[0]) {
			fputs(" ", f);
			xml(f, r->tag);
		}
		fprintf(f, "</text>\n");
		run_flags(f, r, x + bwid / 2.0, H - 56, 1);
		fprintf(f, "</g>\n");
	}
	for (int k = NSEG - 1, row = 0; k >= 0; k--, row++) {
		double y = 84 + row * 22;
		fprintf(f, "<rect x=\"%d\" y=\"%.0f\" width=\"14\" height=\"14\" fill=\"%s\"/><text x=\"%d\" y=\"%.0f\" font-size=\"11\">%s</text>\n",
		        W - 250, y, seg_color[k], W - 230, y + 12, seg_name[k]);
	}
	fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\" stroke-width=\"2\"/><text x=\"%d\" y=\"%d\" font-size=\"11\">mean search time</text>\n",
	        W - 252, 84 + NSEG * 22 + 7, W - 234, 84 + NSEG * 22 + 7, W - 230, 84 + NSEG * 22 + 11);
	if (any_ranks)
		fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#d62728\" stroke-width=\"2\"/><text x=\"%d\" y=\"%d\" font-size=\"11\">the slowest rank's time of the phase</text>\n",
		        W - 252, 84 + NSEG * 22 + 29, W - 234, 84 + NSEG * 22 + 29, W - 230, 84 + NSEG * 22 + 33);
done:
	return svg_close(&s, error, 1);
}

/* A plain file in dir written by fn (report.json, report.csv). */
static int write_plain(b2_fout *out, const char *dir, const char *name, run *runs, int nruns,
                       int (*fn)(FILE *, run *, int))
{
	int error = 0;
	svgf s;
	B2_TRY(svg_open(&s, out, dir, name, 0, 0, NULL));
	error = fn(s.f, runs, nruns);
done:
	return svg_close(&s, error, 0);
}

/* Whether the runs make a strong or weak scaling series. */
static int has_scaling(run *runs, int nruns)
{
	int n = 0;
	for (int weak = 0; weak <= 1; weak++) {
		group *g = NULL;
		int ng = 0;
		if (find_groups(&g, &ng, runs, nruns, weak) == 0)
			n += ng;
		free_groups(g, ng);
	}
	return n > 0;
}

static int write_index(b2_fout *out, const char *dir, run *runs, int nruns, const report_opts *o)
{
	int error = 0;
	svgf s;
	char *text = NULL;
	size_t tlen = 0;
	FILE *mem = NULL;
	B2_TRY(svg_open(&s, out, dir, "index.html", 0, 0, NULL));
	FILE *f = s.f;
	/* the text report (Graph500 blocks, provenance, comparison and
	 * scaling tables) as it prints */
	if ((mem = open_memstream(&text, &tlen)) == NULL)
		B2_FAIL(B2_EIO, "out of host memory for the report");
	B2_TRY(print_text(mem, runs, nruns, o));
	fclose(mem);
	mem = NULL;
	fputs("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>bfs2d report</title></head>\n"
	      "<body style=\"font-family:sans-serif\">\n<h1>bfs2d report</h1>\n<ul>\n", f);
	for (int i = 0; i < nruns; i++) {
		char lab[600];
		run_label(lab, sizeof lab, &runs[i]);
		fputs("<li>", f);
		xml(f, lab);
		const run *r = &runs[i];
		fprintf(f, ": %.4g GTEPS (harmonic mean of %lld searches, roots ", r->nused ? r->hmean_teps * 1e-9 : NAN,
		        (long long)r->nused);
		xml(f, r->roots_from ? r->roots_from : "any");
		fprintf(f, ")%s%s%s%s", r->no_pred ? ", <b>UNVALIDATED: " REPORT_NO_PRED "</b>"
		                         : r->nused > r->npassed ? ", <b>UNVALIDATED</b>" : "",
		        run_oversubscribed(r) ? ", <b>OVERSUBSCRIBED</b>" : "",
		        r->noisy ? ", <b>NOISY</b> (the searches' rates spread widely)" : "",
		        r->few_searches ? ", <b>NBFS &lt; 64</b> (not a Graph500 result)" : "");
		fputs("</li>\n", f);
	}
	fputs("</ul>\n<p>Data: <a href=\"report.json\">report.json</a>, <a href=\"report.csv\">report.csv</a></p>\n"
	      "<p><img src=\"teps.svg\"></p>\n<p><img src=\"phases.svg\"></p>\n", f);
	/* a scaling plot only where runs make a series: no empty panel */
	if (has_scaling(runs, nruns))
		fputs("<p><img src=\"scaling.svg\"></p>\n", f);
	fputs("<p><img src=\"frontier.svg\"></p>\n", f);
	for (int i = 0; i < nruns; i++)
		if (runs[i].lbytes_mean || runs[i].pred_bytes_kp) {
			fputs("<p><img src=\"bytes.svg\"></p>\n", f);
			break;
		}
	fputs("<h2>Report: Graph500 statistics, provenance, comparison and scaling tables</h2>\n<pre>", f);
	b2_fput_xml_lines(f, text);
	fputs("</pre>\n</body></html>\n", f);
done:
	if (mem)
		fclose(mem);
	free(text);
	return svg_close(&s, error, 0);
}

int write_svgs(b2_fout out[REPORT_NSVG], const char *dir, run *runs, int nruns, const report_opts *o)
{
	int error = 0;
	B2_TRY(plot_teps(&out[0], dir, runs, nruns));
	B2_TRY(plot_phases(&out[1], dir, runs, nruns));
	B2_TRY(plot_scaling(&out[2], dir, runs, nruns));
	B2_TRY(plot_frontier(&out[3], dir, runs, nruns));
	B2_TRY(write_plain(&out[4], dir, "report.json", runs, nruns, print_json));
	B2_TRY(write_plain(&out[5], dir, "report.csv", runs, nruns, print_csv));
	B2_TRY(write_index(&out[6], dir, runs, nruns, o));
	B2_TRY(plot_bytes(&out[7], dir, runs, nruns));
done:
	return error;
}
