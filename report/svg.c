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

/* ---- TEPS per search ------------------------------------------------------------- */

/* One chart with one scale for every run: run i's searches are bars in slot
 * i, its harmonic mean a dashed line over the slot; labels and means sit
 * under the axis and in the legend below, never over the bars. */
static int plot_teps(b2_fout *out, const char *dir, run *runs, int nruns)
{
	int error = 0;
	int64_t nbars = 0;
	double ymax = 0, ymin = INFINITY, wmin = INFINITY;
	for (int i = 0; i < nruns; i++) {
		nbars += runs[i].K;
		double big = 0;
		for (int64_t k = 0; k < runs[i].K; k++)
			big = fmax(big, (double)runs[i].nedge[k]);
		for (int64_t k = 0; k < runs[i].K; k++) {
			const run *r = &runs[i];
			int64_t q = r->v_row ? r->v_row[k] : -1;
			double ne = (double)(q >= 0 ? r->v_nedge[q] : r->nedge[k]);
			if (r->status[k] != ST_FAILED) {
				ymax = fmax(ymax, ne / r->time[k] * 1e-9);
				ymin = fmin(ymin, ne / r->time[k] * 1e-9);
				/* searches of tiny components (flagged apart) do not decide the scale */
				if ((double)r->nedge[k] >= 0.01 * big)
					wmin = fmin(wmin, ne / r->time[k] * 1e-9);
			}
		}
	}
	/* a log axis where the rates spread widely, so the slow runs stay readable */
	int logy = ymax > 0 && isfinite(wmin) && ymax / wmin > REPORT_TEPS_LOG_SPREAD;
	const int pw = (int)fmin(1500, fmax(700, (double)nbars * 4)), W = 100 + pw + 30;
	const int top = 50, PH = 300, H = top + PH + 70 + 16 * nruns;
	svgf s;
	B2_TRY(svg_open(&s, out, dir, "teps.svg", W, H, logy ? "TEPS per search (GTEPS, log scale); dashed: harmonic mean of each run"
	                                                   : "TEPS per search (GTEPS); dashed: harmonic mean of each run"));
	FILE *f = s.f;
	axis ay;
	if (logy) {
		ay = (axis){floor(log10(ymin)), ceil(log10(ymax)), top + PH, top, 10};
		if (ay.hi <= ay.lo)
			ay.hi = ay.lo + 1;
	} else
		ax_linear(&ay, 0, ymax > 0 ? ymax : 1, top + PH, top);
	fprintf(f, "<desc class=\"y-scale\">%s</desc>\n", logy ? "log" : "linear");
	double x0 = 100, x1 = 100 + pw, slot = (x1 - x0) / nruns;
	draw_yaxis(f, &ay, x0 - 4, x1, logy ? "GTEPS (log scale)" : "GTEPS");
	fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"black\"/>\n", x0 - 4,
	        ay.p0, x1, ay.p0);
	for (int i = 0; i < nruns; i++) {
		const run *r = &runs[i];
		double sx = x0 + slot * i, bw = slot / (double)r->K;
		char lab[256];
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
		if (r->nused > 0 && r->npassed < r->nused)
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

/* Mean seconds per search of each segment of run r (SEG_*); the expansion is
 * split only when /expansion_time adds up to the frontier expansion. */
static void segments(double *v, int *split, const run *r)
{
	const double *pm = r->phase_mean;
	double e = r->exp_mean[0] + r->exp_mean[1];
	*split = r->has_expdir && fabs(e - pm[1]) <= 1e-6 * fmax(pm[1], 1e-12) + 1e-12;
	v[SEG_EXPAND] = pm[0];
	v[SEG_EXP_TD] = *split ? r->exp_mean[0] : pm[1];
	v[SEG_EXP_BU] = *split ? r->exp_mean[1] : 0;
	v[SEG_FOLD] = pm[2];
	v[SEG_UPDATE] = pm[3];
	v[SEG_TERM] = pm[4];
	v[SEG_PRED] = pm[5];
	double sum = 0;
	for (int k = 0; k < SEG_OTHER; k++)
		sum += v[k];
	v[SEG_OTHER] = r->nused > 0 && r->time_st.mean > sum ? r->time_st.mean - sum : 0;
}

static int plot_phases(b2_fout *out, const char *dir, run *runs, int nruns)
{
	int error = 0;
	static const char *const seg_name[NSEG] = {
		"expand exchange", "frontier expansion (top-down)", "frontier expansion (bottom-up)",
		"fold exchange", "frontier update", "termination test", "predecessor resolution",
		"outside the phases"};
	const int bwid = 60, W = 120 + (bwid + 30) * (nruns > 2 ? nruns : 2) + 260, H = 500;
	double ymax = 0;
	svgf s;
	B2_TRY(svg_open(&s, out, dir, "phases.svg", W, H, "Time per BFS phase"));
	FILE *f = s.f;
	fprintf(f, "<text x=\"%d\" y=\"38\" text-anchor=\"middle\" font-size=\"11\">mean seconds per search "
	           "(phases: summed over levels, mean over ranks); a bar adds up to the mean search time</text>\n",
	        W / 2);
	for (int i = 0; i < nruns; i++) {
		double v[NSEG], t = 0;
		int split;
		segments(v, &split, &runs[i]);
		for (int k = 0; k < NSEG; k++)
			t += v[k];
		ymax = fmax(ymax, t);
	}
	axis ay;
	ax_linear(&ay, 0, ymax > 0 ? ymax : 1e-3, H - 130, 60);
	draw_yaxis(f, &ay, 100, W - 260, "seconds");
	for (int i = 0; i < nruns; i++) {
		const run *r = &runs[i];
		double x = 120 + (bwid + 30) * i, acc = 0, v[NSEG];
		int split;
		segments(v, &split, r);
		fprintf(f, "<g class=\"bar\" data-run=\"%d\" data-total=\"%.9g\">\n", r->index,
		        r->nused > 0 ? r->time_st.mean : NAN);
		for (int k = 0; k < NSEG && r->nused > 0; k++) {
			if (k == SEG_EXP_BU && !split)
				continue;
			/* data-phase: FORMATS.md's phase name; the split halves of the
			 * expansion keep it and say their direction */
			const char *ph = k == SEG_EXPAND ? report_phase_names[0]
			                 : k == SEG_EXP_TD || k == SEG_EXP_BU ? report_phase_names[1]
			                 : k == SEG_OTHER ? "outside the phases"
			                 : report_phase_names[k - 1];
			const char *dirn = !split || (k != SEG_EXP_TD && k != SEG_EXP_BU) ? ""
			                   : k == SEG_EXP_TD ? " data-direction=\"top-down\"" : " data-direction=\"bottom-up\"";
			double ya = ax_map(&ay, acc), yb = ax_map(&ay, acc + v[k]);
			fprintf(f, "<rect class=\"phase\" data-run=\"%d\" data-phase=\"%s\"%s data-seconds=\"%.9g\" "
			           "x=\"%.1f\" y=\"%.2f\" width=\"%d\" height=\"%.2f\" fill=\"%s\"><title>run %d, %s: %.4g s</title></rect>\n",
			        r->index, ph, dirn, v[k], x, yb, bwid, ya - yb, seg_color[k], r->index,
			        k == SEG_EXP_TD && !split ? report_phase_names[1] : seg_name[k], v[k]);
			acc += v[k];
		}
		if (r->nused > 0) {
			double y = ax_map(&ay, r->time_st.mean);
			fprintf(f, "<line class=\"mean-time\" x1=\"%.1f\" y1=\"%.2f\" x2=\"%.1f\" y2=\"%.2f\" stroke=\"black\" stroke-width=\"2\">"
			           "<title>run %d: mean search time %.4g s</title></line>\n",
			        x - 4, y, x + bwid + 4, y, r->index, r->time_st.mean);
		} else
			fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"10\">no valid search</text>\n",
			        x + bwid / 2.0, ay.p0 - 6);
		/* said under the bar whose expansion has no bottom-up part, and why */
		if (r->nused > 0 && (!split || !(v[SEG_EXP_BU] > 0)))
			fprintf(f, "<text class=\"no-bottom-up\" data-run=\"%d\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" "
			           "font-size=\"9\">%s</text>\n", r->index, x + bwid / 2.0, H - 70,
			        !r->has_expdir ? "(no direction data)" : "(no bottom-up step)");
		fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">#%d %lldx%lld</text>\n", x + bwid / 2.0,
		        H - 112, r->index, (long long)r->rows, (long long)r->cols);
		fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" font-size=\"10\">", x + bwid / 2.0, H - 98);
		xml(f, r->graph);
		fprintf(f, "</text>\n<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" font-size=\"10\">", x + bwid / 2.0, H - 84);
		xml(f, r->backend);
		fprintf(f, "</text>\n");
		run_flags(f, r, x + bwid / 2.0, H - 56, 1);
		fprintf(f, "</g>\n");
	}
	for (int k = NSEG - 1, row = 0; k >= 0; k--, row++) {
		double y = 64 + row * 22;
		fprintf(f, "<rect x=\"%d\" y=\"%.0f\" width=\"14\" height=\"14\" fill=\"%s\"/><text x=\"%d\" y=\"%.0f\" font-size=\"11\">%s</text>\n",
		        W - 250, y, seg_color[k], W - 230, y + 12, seg_name[k]);
	}
	fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\" stroke-width=\"2\"/><text x=\"%d\" y=\"%d\" font-size=\"11\">mean search time</text>\n",
	        W - 252, 64 + NSEG * 22 + 7, W - 234, 64 + NSEG * 22 + 7, W - 230, 64 + NSEG * 22 + 11);
done:
	return svg_close(&s, error, 1);
}

/* ---- TEPS against GPUs ------------------------------------------------------------- */

/* One panel (strong or weak scaling): log2 devices across, log GTEPS up,
 * each series its colour and marker, its ideal (linear in devices from its
 * first point) dashed. *first_series numbers the series across panels. */
static void scaling_panel(FILE *f, run *runs, group *g, int ng, int weak, double px, double pw,
                          double top, double ph, int *first_series)
{
	double dmin = INFINITY, dmax = 0, gmin = INFINITY, gmax = 0;
	for (int k = 0; k < ng; k++)
		for (int m = 0; m < g[k].n; m++) {
			const run *r = &runs[g[k].members[m]], *r0 = &runs[g[k].members[0]];
			double ideal = r0->hmean_teps * 1e-9 * (double)r->ndev / (double)r0->ndev;
			dmin = fmin(dmin, (double)r->ndev);
			dmax = fmax(dmax, (double)r->ndev);
			gmin = fmin(gmin, fmin(fmin(r->hmean_teps, r->teps_q1) * 1e-9, ideal));
			gmax = fmax(gmax, fmax(fmax(r->hmean_teps, r->teps_q3) * 1e-9, ideal));
		}
	axis ax = {floor(log2(dmin)) - 0.3, ceil(log2(dmax)) + 0.3, px, px + pw, 2};
	axis ay = {floor(log10(gmin)), ceil(log10(gmax)), top + ph, top, 10};
	if (ay.hi - ay.lo < 1)
		ay.hi = ay.lo + 1;
	fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"13\" font-weight=\"bold\">%s scaling</text>\n",
	        px + pw / 2, top - 8, weak ? "Weak (work per GPU fixed)" : "Strong (one graph)");
	draw_yaxis(f, &ay, px, px + pw, "GTEPS (harmonic mean, log scale)");
	fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"black\"/>\n", px, ay.p0,
	        px + pw, ay.p0);
	for (double e = ceil(ax.lo); e <= ax.hi; e += 1)
		fprintf(f, "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%.0f</text>\n",
		        ax_map(&ax, pow(2, e)), ay.p0 + 16, pow(2, e));
	fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">GPUs, log2 scale (CPU ranks for the cpu backend)</text>\n",
	        px + pw / 2, ay.p0 + 34);
	for (int k = 0; k < ng; k++) {
		int sidx = *first_series + k;
		char col[32], attrs[256];
		series_color(col, sizeof col, sidx);
		const run *r0 = &runs[g[k].members[0]], *rl = &runs[g[k].members[g[k].n - 1]];
		double i0 = r0->hmean_teps * 1e-9, i1 = i0 * (double)rl->ndev / (double)r0->ndev;
		fprintf(f, "<line class=\"ideal\" data-series=\"%d\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
		           "stroke-width=\"1.5\" stroke-dasharray=\"5 4\" opacity=\"0.7\"><title>ideal scaling from run %d</title></line>\n",
		        sidx, ax_map(&ax, (double)r0->ndev), ax_map(&ay, i0), ax_map(&ax, (double)rl->ndev),
		        ax_map(&ay, i1), col, r0->index);
		fprintf(f, "<polyline class=\"%s\" data-series=\"%d\" data-color=\"%s\" data-runs=\"", weak ? "weak" : "strong",
		        sidx, col);
		for (int m = 0; m < g[k].n; m++)
			fprintf(f, "%s%d", m ? " " : "", runs[g[k].members[m]].index);
		fprintf(f, "\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"", col);
		for (int m = 0; m < g[k].n; m++) {
			const run *r = &runs[g[k].members[m]];
			fprintf(f, "%s%.1f,%.1f", m ? " " : "", ax_map(&ax, (double)r->ndev),
			        ax_map(&ay, r->hmean_teps * 1e-9));
		}
		fputs("\"/>\n", f);
		for (int m = 0; m < g[k].n; m++) {
			const run *r = &runs[g[k].members[m]];
			char lab[256];
			run_label(lab, sizeof lab, r);
			double mx = ax_map(&ax, (double)r->ndev), my = ax_map(&ay, r->hmean_teps * 1e-9);
			/* the spread of the run's searches: first to third quartile of TEPS */
			double y1 = ax_map(&ay, r->teps_q1 * 1e-9), y3 = ax_map(&ay, r->teps_q3 * 1e-9);
			fprintf(f, "<path class=\"errorbar\" data-run=\"%d\" data-q1=\"%.9g\" data-q3=\"%.9g\" "
			           "d=\"M%.1f %.1fV%.1fM%.1f %.1fh8M%.1f %.1fh8\" stroke=\"%s\" stroke-width=\"1.2\" fill=\"none\">"
			           "<title>run %d: TEPS quartiles %.4g to %.4g GTEPS</title></path>\n", r->index, r->teps_q1,
			        r->teps_q3, mx, y1, y3, mx - 4, y1, mx - 4, y3, col, r->index, r->teps_q1 * 1e-9,
			        r->teps_q3 * 1e-9);
			if (run_oversubscribed(r)) {
				/* visibly, not only in the tooltip: a red ring and a word */
				fprintf(f, "<circle class=\"oversubscribed\" data-run=\"%d\" cx=\"%.1f\" cy=\"%.1f\" r=\"9\" "
				           "fill=\"none\" stroke=\"#d62728\" stroke-width=\"2\"/>\n", r->index, mx, my);
				fprintf(f, "<text class=\"flag-oversubscribed\" data-run=\"%d\" x=\"%.1f\" y=\"%.1f\" font-size=\"9\" "
				           "fill=\"#d62728\">oversubscribed</text>\n", r->index, mx + 11, my - 8);
			}
			snprintf(attrs, sizeof attrs, "class=\"run\" data-series=\"%d\" data-run=\"%d\" data-devices=\"%lld\" data-teps=\"%.9g\"",
			         sidx, r->index, (long long)r->ndev, r->hmean_teps);
			marker(f, sidx, mx, my, 5, col, attrs);
			fputs("><title>", f);
			xml(f, lab);
			fprintf(f, ": %.4g GTEPS%s</title></path>\n", r->hmean_teps * 1e-9,
			        run_oversubscribed(r) ? " (OVERSUBSCRIBED)" : "");
		}
	}
	*first_series += ng;
}

static int plot_scaling(b2_fout *out, const char *dir, run *runs, int nruns)
{
	int error = 0;
	group *g[2] = {NULL, NULL};
	int ng[2] = {0, 0};
	svgf s = {0};
	B2_TRY(find_groups(&g[0], &ng[0], runs, nruns, 0));
	B2_TRY(find_groups(&g[1], &ng[1], runs, nruns, 1));
	int panels = (ng[0] > 0) + (ng[1] > 0), nser = ng[0] + ng[1];
	const int pw = 400, W = 40 + (panels ? panels : 1) * (pw + 110), top = 60, ph = panels ? 320 : 0;
	const int H = panels ? top + ph + 60 + 18 * nser + 20 : 90;
	B2_TRY(svg_open(&s, out, dir, "scaling.svg", W, H, "Harmonic-mean TEPS against GPUs"));
	FILE *f = s.f;
	if (!panels)
		fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">No scaling series: it needs runs of one graph "
		           "(strong) or of one R-MAT family (weak) on two GPU counts or more.</text>\n", W / 2, 55);
	int series = 0, p = 0;
	for (int w = 0; w < 2; w++)
		if (ng[w] > 0)
			scaling_panel(f, runs, g[w], ng[w], w, 100 + (pw + 110) * p++, pw, top, ph, &series);
	/* the legend, below the panels: one row per series */
	for (int w = 0, sidx = 0; w < 2; w++)
		for (int k = 0; k < ng[w]; k++, sidx++) {
			char col[32], attrs[64];
			double y = top + ph + 62 + 18 * sidx;
			series_color(col, sizeof col, sidx);
			fprintf(f, "<line x1=\"40\" y1=\"%.0f\" x2=\"70\" y2=\"%.0f\" stroke=\"%s\" stroke-width=\"2\"/>", y, y, col);
			snprintf(attrs, sizeof attrs, "class=\"legend\" data-series=\"%d\"", sidx);
			marker(f, sidx, 55, y, 5, col, attrs);
			fprintf(f, "/><text x=\"80\" y=\"%.0f\" font-size=\"11\">%s: ", y + 4, w ? "weak" : "strong");
			xml(f, g[w][k].label);
			fputs(" (dashed: ideal; bars: quartiles of the searches' TEPS)</text>\n", f);
		}
done:
	free_groups(g[0], ng[0]);
	free_groups(g[1], ng[1]);
	return svg_close(&s, error, 1);
}

/* ---- frontier size per level -------------------------------------------------------- */

/* Two runs whose mean frontier lines coincide (to 1e-9). */
static int same_frontier(const run *a, const run *b)
{
	int64_t L = a->L > b->L ? a->L : b->L;
	for (int64_t l = 0; l < L; l++) {
		double x = l < a->L ? a->frontier_mean[l] : 0, y = l < b->L ? b->frontier_mean[l] : 0;
		if (fabs(x - y) > 1e-9 * fmax(fabs(x), fabs(y)))
			return 0;
	}
	return 1;
}

static int plot_frontier(b2_fout *out, const char *dir, run *runs, int nruns)
{
	int error = 0;
	const int W = 980, H = 440 > 110 + 16 * nruns + 120 ? 440 : 110 + 16 * nruns + 120;
	int64_t lmax = 1;
	double vmin = INFINITY, vmax = 0;
	svgf s;
	B2_TRY(svg_open(&s, out, dir, "frontier.svg", W, H,
	                "Frontier size per level (vertices discovered, mean over searches)"));
	FILE *f = s.f;
	for (int i = 0; i < nruns; i++)
		for (int64_t l = 0; l < runs[i].L; l++)
			if (runs[i].frontier_mean[l] > 0) {
				lmax = l > lmax ? l : lmax;
				vmin = fmin(vmin, runs[i].frontier_mean[l]);
				vmax = fmax(vmax, runs[i].frontier_mean[l]);
			}
	if (!(vmax > 0))
		vmin = vmax = 1;
	axis ax;
	ax_linear(&ax, 0, (double)lmax, 90, W - 360);
	axis ay = {floor(log10(vmin)), ceil(log10(vmax)), H - 70, 40, 10};
	if (ay.hi <= ay.lo)
		ay.hi = ay.lo + 1;
	draw_yaxis(f, &ay, 90, W - 360, "vertices (log scale)");
	fprintf(f, "<line x1=\"90\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"black\"/>\n", ay.p0, W - 360,
	        ay.p0);
	double st = fmax(1, nice_step(ax.hi - ax.lo, 8));
	for (double v = 0; v <= ax.hi + 1e-9; v += st)
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%.0f</text>\n", ax_map(&ax, v),
		        ay.p0 + 16, v);
	fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">level</text>\n", (ax.p0 + ax.p1) / 2,
	        H - 30);
	for (int i = 0; i < nruns; i++) {
		const run *r = &runs[i];
		char col[32], lab[256], attrs[256];
		series_color(col, sizeof col, i);
		run_label(lab, sizeof lab, r);
		/* a line that another run's covers exactly is drawn dashed (each
		 * repeat its own dashes) and says so in the legend */
		int same = -1, nsame = 0;
		for (int j = 0; j < i; j++)
			if (same_frontier(&runs[j], r)) {
				if (same < 0)
					same = j;
				nsame++;
			}
		static const char *const dash[4] = {"8 4", "3 3", "10 3 2 3", "1 4"};
		fprintf(f, "<g class=\"series\" data-run=\"%d\" data-color=\"%s\"", r->index, col);
		if (same >= 0)
			fprintf(f, " data-same-as=\"%d\"", runs[same].index);
		fprintf(f, ">\n<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"%s\"", col, same >= 0 ? "3" : "2");
		if (same >= 0)
			fprintf(f, " stroke-dasharray=\"%s\"", dash[(nsame - 1) % 4]);
		fputs(" points=\"", f);
		int first = 1;
		for (int64_t l = 0; l < r->L; l++)
			if (r->frontier_mean[l] > 0) {
				fprintf(f, "%s%.1f,%.1f", first ? "" : " ", ax_map(&ax, (double)l),
				        ax_map(&ay, r->frontier_mean[l]));
				first = 0;
			}
		fputs("\"/>\n", f);
		for (int64_t l = 0; l < r->L; l++) {
			if (!(r->frontier_mean[l] > 0))
				continue;
			/* the direction of step l, the step that expands this frontier:
			 * circle top-down, square bottom-up, diamond when searches differ */
			double bu = r->dir_bu ? r->dir_bu[l] : -1;
			const char *dn = bu < 0 ? "unknown" : bu == 0 ? "top-down" : bu == 1 ? "bottom-up" : "mixed";
			int shape = bu < 0 || bu == 0 ? 0 : bu == 1 ? 1 : 3;
			snprintf(attrs, sizeof attrs, "class=\"frontier\" data-run=\"%d\" data-level=\"%lld\" data-size=\"%.9g\" data-direction=\"%s\"",
			         r->index, (long long)l, r->frontier_mean[l], dn);
			marker(f, shape, ax_map(&ax, (double)l), ax_map(&ay, r->frontier_mean[l]), 4, col, attrs);
			fprintf(f, "><title>run %d, level %lld: %.6g vertices, expanded %s</title></path>\n", r->index,
			        (long long)l, r->frontier_mean[l], dn);
		}
		double y = 50 + 16 * i;
		fprintf(f, "<line x1=\"%d\" y1=\"%.0f\" x2=\"%d\" y2=\"%.0f\" stroke=\"%s\" stroke-width=\"2\"/><text x=\"%d\" y=\"%.0f\" font-size=\"10\">",
		        W - 350, y, W - 325, y, col, W - 320, y + 4);
		xml(f, lab);
		if (same >= 0)
			fprintf(f, " (same as #%d: dashed)", runs[same].index);
		fputs("</text>\n</g>\n", f);
	}
	{
		double y = 50 + 16 * nruns + 14;
		fprintf(f, "<text x=\"%d\" y=\"%.0f\" font-size=\"10\">marker: direction of the step that expands the level</text>\n",
		        W - 350, y);
		marker(f, 0, W - 342, y + 16, 4, "#555", "class=\"key\"");
		fprintf(f, "/><text x=\"%d\" y=\"%.0f\" font-size=\"10\">top-down</text>\n", W - 330, y + 20);
		marker(f, 1, W - 262, y + 16, 4, "#555", "class=\"key\"");
		fprintf(f, "/><text x=\"%d\" y=\"%.0f\" font-size=\"10\">bottom-up</text>\n", W - 250, y + 20);
		marker(f, 3, W - 182, y + 16, 4, "#555", "class=\"key\"");
		fprintf(f, "/><text x=\"%d\" y=\"%.0f\" font-size=\"10\">searches differ</text>\n", W - 170, y + 20);
	}
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
		char lab[256];
		run_label(lab, sizeof lab, &runs[i]);
		fputs("<li>", f);
		xml(f, lab);
		fprintf(f, ": %.4g GTEPS (harmonic mean of %lld searches%s%s)</li>\n",
		        runs[i].nused ? runs[i].hmean_teps * 1e-9 : NAN, (long long)runs[i].nused,
		        runs[i].nused > runs[i].npassed ? ", UNVALIDATED" : "",
		        run_oversubscribed(&runs[i]) ? ", OVERSUBSCRIBED" : "");
	}
	fputs("</ul>\n<p>Data: <a href=\"report.json\">report.json</a>, <a href=\"report.csv\">report.csv</a></p>\n"
	      "<p><img src=\"teps.svg\"></p>\n<p><img src=\"phases.svg\"></p>\n", f);
	/* a scaling plot only where runs make a series: no empty panel */
	if (has_scaling(runs, nruns))
		fputs("<p><img src=\"scaling.svg\"></p>\n", f);
	fputs("<p><img src=\"frontier.svg\"></p>\n"
	      "<h2>Report: Graph500 statistics, provenance, comparison and scaling tables</h2>\n<pre>", f);
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
done:
	return error;
}
