/* svgplots.c — the plots across runs: TEPS against GPUs (strong and weak
 * scaling), frontier size per level, and bytes per level by exchange. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "svgkit.h"

/* ---- TEPS against GPUs ------------------------------------------------------------- */

/* The half-length of a point's error bar: the standard error of the
 * harmonic mean (Graph500's harmonic_stddev_TEPS), the spread of the
 * plotted statistic itself; 0 for a run of one search (no spread known). */
static double bar_se(const run *r)
{
	return isfinite(r->hstd_teps) ? r->hstd_teps : 0;
}

void roots_note(char *b, size_t n, const run *runs, int nruns)
{
	int any = 0, lc = 0, other = 0;
	for (int i = 0; i < nruns; i++) {
		const char *rf = runs[i].roots_from ? runs[i].roots_from : "any";
		any |= !strcmp(rf, "any");
		lc |= !strcmp(rf, "largest-component");
		other |= strcmp(rf, "any") && strcmp(rf, "largest-component");
	}
	if (any + lc + other > 1)
		snprintf(b, n, "roots: the runs differ (any = Graph500's rule, or largest-component)");
	else if (lc)
		snprintf(b, n, "roots: largest-component (the largest component only)");
	else if (any)
		snprintf(b, n, "roots: any (Graph500's rule: any vertex of positive degree)");
	else
		snprintf(b, n, "roots: %s", runs[0].roots_from);
}

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
			double lo = r->hmean_teps - bar_se(r), hi = r->hmean_teps + bar_se(r);
			gmin = fmin(gmin, fmin(fmin(r->hmean_teps, lo > 0 ? lo : INFINITY) * 1e-9, ideal));
			gmax = fmax(gmax, fmax(hi * 1e-9, ideal));
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
			char lab[600];
			run_label(lab, sizeof lab, r);
			double mx = ax_map(&ax, (double)r->ndev), my = ax_map(&ay, r->hmean_teps * 1e-9);
			/* the spread of the plotted statistic: the harmonic mean plus and
			 * minus its standard error (a bar below the axis stops at it) */
			double lo = r->hmean_teps - bar_se(r), hi = r->hmean_teps + bar_se(r);
			double y1 = lo > 0 ? fmin(ay.p0, ax_map(&ay, lo * 1e-9)) : ay.p0, y3 = ax_map(&ay, hi * 1e-9);
			fprintf(f, "<path class=\"errorbar\" data-run=\"%d\" data-lo=\"%.9g\" data-hi=\"%.9g\" "
			           "d=\"M%.1f %.1fV%.1fM%.1f %.1fh8M%.1f %.1fh8\" stroke=\"%s\" stroke-width=\"1.2\" fill=\"none\">"
			           "<title>run %d: harmonic mean %.4g GTEPS, plus or minus its standard error %.3g</title></path>\n",
			        r->index, lo, hi, mx, y1, y3, mx - 4, y1, mx - 4, y3, col, r->index, r->hmean_teps * 1e-9,
			        bar_se(r) * 1e-9);
			const char *doubt = run_doubt(r);
			if (doubt) {
				/* where users compare: a point of a noisy or small run says so */
				fprintf(f, "<text class=\"flag-doubt\" data-run=\"%d\" x=\"%.1f\" y=\"%.1f\" font-size=\"9\" "
				           "fill=\"#e6550d\" font-weight=\"bold\">%s</text>\n", r->index, mx + 8, my + 14,
				        !strcmp(doubt, "NBFS<64") ? "NBFS&lt;64" : !strcmp(doubt, "NOISY") ? "NOISY" : "NOISY, NBFS&lt;64");
			}
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

int plot_scaling(b2_fout *out, const char *dir, run *runs, int nruns)
{
	int error = 0;
	group *g[2] = {NULL, NULL};
	int ng[2] = {0, 0};
	svgf s = {0};
	B2_TRY(find_groups(&g[0], &ng[0], runs, nruns, 0));
	B2_TRY(find_groups(&g[1], &ng[1], runs, nruns, 1));
	int panels = (ng[0] > 0) + (ng[1] > 0), nser = ng[0] + ng[1];
	const int pw = 400, W = 40 + (panels ? panels : 1) * (pw + 110), top = 108, ph = panels ? 320 : 0;
	const int H = panels ? top + ph + 60 + 18 * nser + 20 : 90;
	char roots[256];
	roots_note(roots, sizeof roots, runs, nruns);
	B2_TRY(svg_open(&s, out, dir, "scaling.svg", W, H, "Harmonic-mean TEPS against GPUs"));
	FILE *f = s.f;
	if (panels) {
		/* what the points and bars are, a short line each */
		static const char *const note[] = {
			"point: harmonic mean of the searches' TEPS; dashed: ideal scaling",
			"bars: plus or minus its standard error (harmonic_stddev_TEPS)", NULL,
			"NOISY, NBFS&lt;64: rates spread widely, or under 64 searches"};
		for (int k = 0; k < 4; k++) {
			fprintf(f, "<text class=\"subtitle\" x=\"%d\" y=\"%d\" text-anchor=\"middle\" font-size=\"11\">",
			        W / 2, 36 + 14 * k);
			if (note[k])
				fputs(note[k], f);
			else
				xml(f, roots);
			fputs("</text>\n", f);
		}
	}
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
			fputs("</text>\n", f);
		}
done:
	free_groups(g[0], ng[0]);
	free_groups(g[1], ng[1]);
	return svg_close(&s, error, 1);
}

/* ---- frontier size per level -------------------------------------------------------- */

/* Levels 0..lmax across (px0 to px1), log values up (ybot to ytop), with
 * their ticks and labels: frontier.svg's and bytes.svg's axes. */
static void level_axes(FILE *f, axis *ax, axis *ay, int64_t lmax, double vmin, double vmax, double px0,
                       double px1, double ybot, double ytop, const char *ylabel, const char *xlabel)
{
	if (!(vmax > 0))
		vmin = vmax = 1;
	ax_linear(ax, 0, (double)lmax, px0, px1);
	*ay = (axis){floor(log10(vmin)), ceil(log10(vmax)), ybot, ytop, 10};
	if (ay->hi <= ay->lo)
		ay->hi = ay->lo + 1;
	draw_yaxis(f, ay, px0, px1, ylabel);
	fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"black\"/>\n", px0, ay->p0,
	        px1, ay->p0);
	double st = fmax(1, nice_step(ax->hi - ax->lo, 8));
	for (double v = 0; v <= ax->hi + 1e-9; v += st)
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%.0f</text>\n", ax_map(ax, v),
		        ay->p0 + 16, v);
	fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n", (ax->p0 + ax->p1) / 2,
	        ybot + 40, xlabel);
}

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

int plot_frontier(b2_fout *out, const char *dir, run *runs, int nruns)
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
	axis ax, ay;
	level_axes(f, &ax, &ay, lmax, vmin, vmax, 90, W - 360, H - 70, 40, "vertices (log scale)", "level");
	for (int i = 0; i < nruns; i++) {
		const run *r = &runs[i];
		char col[32], lab[600], attrs[256];
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


/* ---- bytes per level by exchange ----------------------------------------------------- */

/* Bytes sent at each step by exchange (/level_bytes: summed over ranks,
 * mean over the searches that have that step), log scale: a line per run
 * and exchange, the run's colour, the exchange's dashes and marker. */
int plot_bytes(b2_fout *out, const char *dir, run *runs, int nruns)
{
	int error = 0, n = 0;
	static const char *const dash[NEXCH] = {"", "6 3", "2 3"};
	int64_t lmax = 1;
	double vmin = INFINITY, vmax = 0;
	for (int i = 0; i < nruns; i++)
		if (runs[i].lbytes_mean) {
			n++;
			for (int64_t j = 0; j < NEXCH * runs[i].L; j++)
				if (runs[i].lbytes_mean[j] > 0) {
					lmax = j % runs[i].L > lmax ? j % runs[i].L : lmax;
					vmin = fmin(vmin, runs[i].lbytes_mean[j]);
					vmax = fmax(vmax, runs[i].lbytes_mean[j]);
				}
		}
	const int W = 980, H = n ? (440 > 130 + 16 * NEXCH * n + 80 ? 440 : 130 + 16 * NEXCH * n + 80) : 90;
	svgf s;
	B2_TRY(svg_open(&s, out, dir, "bytes.svg", W, H,
	                "Bytes sent per level by exchange (summed over ranks, mean over searches)"));
	FILE *f = s.f;
	if (!n) {
		fprintf(f, "<text x=\"%d\" y=\"55\" text-anchor=\"middle\">No run records bytes per level "
		           "(/level_bytes, written by newer bfs-gpu).</text>\n", W / 2);
		goto done;
	}
	axis ax, ay;
	level_axes(f, &ax, &ay, lmax, vmin, vmax, 100, W - 380, H - 70, 50, "bytes (log scale)",
	           "level (the step that expands it)");
	for (int i = 0, row = 0; i < nruns; i++) {
		const run *r = &runs[i];
		char col[32], lab[600], attrs[256];
		if (!r->lbytes_mean)
			continue;
		series_color(col, sizeof col, i);
		run_label(lab, sizeof lab, r);
		for (int x = 0; x < NEXCH; x++, row++) {
			const double *v = r->lbytes_mean + x * r->L;
			fprintf(f, "<g class=\"bytes\" data-run=\"%d\" data-exchange=\"%s\">\n<polyline fill=\"none\" "
			           "stroke=\"%s\" stroke-width=\"2\" stroke-dasharray=\"%s\" points=\"", r->index,
			        report_exchange_names[x], col, dash[x]);
			for (int64_t l = 0, first = 1; l < r->L; l++)
				if (v[l] > 0) {
					fprintf(f, "%s%.1f,%.1f", first ? "" : " ", ax_map(&ax, (double)l), ax_map(&ay, v[l]));
					first = 0;
				}
			fputs("\"/>\n", f);
			for (int64_t l = 0; l < r->L; l++) {
				if (!(v[l] > 0))
					continue;
				snprintf(attrs, sizeof attrs, "class=\"level-bytes\" data-run=\"%d\" data-exchange=\"%s\" "
				         "data-level=\"%lld\" data-bytes=\"%.9g\"", r->index, report_exchange_names[x],
				         (long long)l, v[l]);
				marker(f, x, ax_map(&ax, (double)l), ax_map(&ay, v[l]), 4, col, attrs);
				fprintf(f, "><title>run %d, level %lld, %s: %.6g bytes</title></path>\n", r->index,
				        (long long)l, report_exchange_names[x], v[l]);
			}
			double y = 60 + 16 * row;
			fprintf(f, "<line x1=\"%d\" y1=\"%.0f\" x2=\"%d\" y2=\"%.0f\" stroke=\"%s\" stroke-width=\"2\" "
			           "stroke-dasharray=\"%s\"/><text x=\"%d\" y=\"%.0f\" font-size=\"10\">", W - 370, y,
			        W - 345, y, col, dash[x], W - 340, y + 4);
			xml(f, lab);
			fprintf(f, ": %s", report_exchange_names[x]);
			if (x == NEXCH - 1 && r->pred_bytes_kp)
				fprintf(f, " (predecessors: %.4g bytes a search)", r->pred_bytes);
			fputs("</text>\n</g>\n", f);
		}
	}
done:
	return svg_close(&s, error, 1);
}
