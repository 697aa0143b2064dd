/* svg.c — plain SVG plots written by hand: TEPS per search, the stacked
 * phase breakdown per configuration (as the paper's breakdown figure), TEPS
 * against GPUs across runs, frontier size per level. Every drawn value also
 * sits in data-* attributes and a <title> tooltip, so the numbers can be read
 * back (the tests do) and hovered in a browser. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "report.h"

static const char *const palette[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728",
                                      "#9467bd", "#8c564b", "#e377c2", "#17becf"};
#define NPAL 8
/* the four phases of the paper's breakdown, bottom to top */
static const char *const phase_color[4] = {"#4e79a7", "#f28e2b", "#59a14f", "#e15759"};

/* A plot being written: staged under a temporary by b2_fout, renamed by
 * bfs-report only when every output succeeded. */
typedef struct svgf {
	b2_fout *o;
	FILE *f;
} svgf;

static int svg_open(svgf *s, b2_fout *o, const char *dir, const char *name, int w, int h,
                    const char *title)
{
	int error = 0;
	size_t n = strlen(dir) + strlen(name) + 2;
	char *path = NULL;
	s->o = o;
	s->f = NULL;
	B2_TRY(b2_alloc(&path, n, "file name"));
	snprintf(path, n, "%s/%s", dir, name);
	B2_TRY(b2_fout_open(o, path));
	s->f = o->f;
	if (w > 0) {
		fprintf(s->f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		              "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		              "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\">\n"
		              "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"white\"/>\n",
		        w, h, w, h, w, h);
		fprintf(s->f, "<text x=\"%d\" y=\"20\" text-anchor=\"middle\" font-size=\"15\">%s</text>\n",
		        w / 2, title);
	}
done:
	free(path);
	return error;
}

/* Completes the staged file (every write checked), or removes it. */
static int svg_close(svgf *s, int error, int is_svg)
{
	if (!s->o || !s->o->f)
		return error;
	if (is_svg && !error)
		fputs("</svg>\n", s->f);
	if (!error)
		error = b2_fout_close(s->o);
	if (error)
		b2_fout_discard(s->o);
	return error;
}

/* XML-escaped text */
static void xml(FILE *f, const char *t)
{
	for (; t && *t; t++) {
		switch (*t) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		default: fputc(*t, f);
		}
	}
}

/* ---- axes -------------------------------------------------------------------- */

typedef struct axis {
	double lo, hi;  /* data range (log axes: log10 or log2 of the data) */
	double p0, p1;  /* pixels for lo and hi */
	int logbase;    /* 0 linear, else the base of a log axis */
} axis;

static double ax_map(const axis *a, double v)
{
	if (a->logbase)
		v = log(v) / log((double)a->logbase);
	return a->p0 + (v - a->lo) / (a->hi - a->lo) * (a->p1 - a->p0);
}

static double nice_step(double span, int nticks)
{
	double raw = span / nticks, p = pow(10, floor(log10(raw))), m = raw / p;
	return (m < 1.5 ? 1 : m < 3 ? 2 : m < 7 ? 5 : 10) * p;
}

/* A linear axis from 0 (or lo) to a nice value above hi. */
static void ax_linear(axis *a, double lo, double hi, double p0, double p1)
{
	if (!(hi > lo))
		hi = lo + 1;
	double st = nice_step(hi - lo, 5);
	a->lo = floor(lo / st) * st;
	a->hi = ceil(hi / st) * st;
	a->p0 = p0;
	a->p1 = p1;
	a->logbase = 0;
}

static void fmt_num(char *b, size_t n, double v)
{
	if (v != 0 && (fabs(v) >= 1e5 || fabs(v) < 1e-3))
		snprintf(b, n, "%.3g", v);
	else
		snprintf(b, n, "%.4g", v);
}

/* y axis on the left at x = px, from y pixel a->p0 (bottom) to a->p1 (top) */
static void draw_yaxis(FILE *f, const axis *a, double px, double x1, const char *label)
{
	fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"black\"/>\n", px,
	        a->p0, px, a->p1);
	if (a->logbase) {
		for (double e = ceil(a->lo); e <= a->hi + 1e-9; e += 1) {
			double y = a->p0 + (e - a->lo) / (a->hi - a->lo) * (a->p1 - a->p0);
			fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n",
			        px, y, x1, y);
			fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">1e%d</text>\n", px - 4,
			        y + 4, (int)e);
		}
	} else {
		double st = nice_step(a->hi - a->lo, 5);
		for (double v = a->lo; v <= a->hi + st * 1e-9; v += st) {
			char b[32];
			double y = ax_map(a, v);
			fmt_num(b, sizeof b, fabs(v) < st * 1e-9 ? 0 : v);
			fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n",
			        px, y, x1, y);
			fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n", px - 4, y + 4, b);
		}
	}
	double ym = (a->p0 + a->p1) / 2;
	fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" transform=\"rotate(-90 %.1f %.1f)\">",
	        px - 62, ym, px - 62, ym);
	xml(f, label);
	fputs("</text>\n", f);
}

static void run_label(char *b, size_t n, const run *r)
{
	snprintf(b, n, "#%d %s %lldx%lld %s", r->index, r->graph, (long long)r->rows,
	         (long long)r->cols, r->backend);
}

/* ---- TEPS per search ------------------------------------------------------------- */

static int plot_teps(b2_fout *o, const char *dir, run *runs, int nruns)
{
	int error = 0;
	const int W = 860, PH = 220, top = 36;
	svgf s;
	B2_TRY(svg_open(&s, o, dir, "teps.svg", W, top + PH * nruns + 10, "TEPS per search (GTEPS)"));
	FILE *f = s.f;
	for (int i = 0; i < nruns; i++) {
		const run *r = &runs[i];
		double y0 = top + PH * i, ymax = 0;
		char lab[256];
		for (int64_t k = 0; k < r->K; k++) {
			int64_t q = r->v_row ? r->v_row[k] : -1;
			double ne = (double)(q >= 0 ? r->v_nedge[q] : r->nedge[k]);
			if (r->status[k] != ST_FAILED)
				ymax = fmax(ymax, ne / r->time[k] * 1e-9);
		}
		axis ay;
		ax_linear(&ay, 0, ymax > 0 ? ymax : 1, y0 + PH - 40, y0 + 24);
		run_label(lab, sizeof lab, r);
		fprintf(f, "<g class=\"panel\" data-run=\"%d\">\n<text x=\"90\" y=\"%.1f\" font-weight=\"bold\">",
		        r->index, y0 + 16);
		xml(f, lab);
		if (r->nused > 0 && r->npassed < r->nused)
			fputs(" (UNVALIDATED)", f);
		fputs("</text>\n", f);
		draw_yaxis(f, &ay, 84, W - 20, "GTEPS");
		double x0 = 86, x1 = W - 20, bw = (x1 - x0) / (double)r->K;
		int64_t every = r->K <= 16 ? 1 : (r->K + 15) / 16;
		for (int64_t k = 0; k < r->K; k += every)
			fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"10\">%lld</text>\n",
			        x0 + bw * ((double)k + 0.5), ay.p0 + 12, (long long)k);
		fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"black\"/>\n", x0 - 2,
		        ay.p0, x1, ay.p0);
		for (int64_t k = 0; k < r->K; k++) {
			int64_t q = r->v_row ? r->v_row[k] : -1;
			double ne = (double)(q >= 0 ? r->v_nedge[q] : r->nedge[k]);
			double teps = ne / r->time[k];
			double x = x0 + bw * (double)k;
			const char *st = r->status[k] == ST_PASSED ? "passed"
			                 : r->status[k] == ST_FAILED ? "failed" : "unvalidated";
			if (r->status[k] == ST_FAILED) {
				/* no TEPS for a failed search: a red cross on the axis */
				double cx = x + bw / 2, cy = ay.p0 - 6;
				fprintf(f, "<path class=\"failed\" data-run=\"%d\" data-search=\"%lld\" d=\"M%.1f %.1fl8 8m0 -8l-8 8\" "
				           "stroke=\"#d62728\" stroke-width=\"2\"><title>search %lld, root %lld: FAILED validation</title></path>\n",
				        r->index, (long long)k, cx - 4, cy - 4, (long long)k, (long long)r->roots[k]);
				continue;
			}
			double y = ax_map(&ay, teps * 1e-9);
			fprintf(f, "<rect class=\"teps\" data-run=\"%d\" data-search=\"%lld\" data-root=\"%lld\" "
			           "data-teps=\"%.9g\" data-status=\"%s\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"%s\">"
			           "<title>search %lld, root %lld: %.4g GTEPS (%s)</title></rect>\n",
			        r->index, (long long)k, (long long)r->roots[k], teps, st, x + bw * 0.1, y,
			        bw * 0.8, ay.p0 - y, r->status[k] == ST_PASSED ? "#1f77b4" : "#aaaaaa",
			        (long long)k, (long long)r->roots[k], teps * 1e-9, st);
		}
		if (r->nused > 0) {
			double y = ax_map(&ay, r->hmean_teps * 1e-9);
			fprintf(f, "<line class=\"hmean\" data-run=\"%d\" data-teps=\"%.9g\" x1=\"%.1f\" y1=\"%.2f\" x2=\"%.1f\" y2=\"%.2f\" "
			           "stroke=\"#d62728\" stroke-dasharray=\"6 3\"><title>harmonic mean %.4g GTEPS</title></line>\n",
			        r->index, r->hmean_teps, x0, y, x1, y, r->hmean_teps * 1e-9);
			fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" fill=\"#d62728\">harmonic mean %.4g GTEPS</text>\n",
			        x1, y - 4, r->hmean_teps * 1e-9);
		}
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">search (%lld in all)</text>\n</g>\n",
		        (x0 + x1) / 2, ay.p0 + 28, (long long)r->K);
	}
done:
	return svg_close(&s, error, 1);
}

/* ---- phase breakdown ------------------------------------------------------------ */

static int plot_phases(b2_fout *o, const char *dir, run *runs, int nruns)
{
	int error = 0;
	const int bwid = 70, W = 200 + (bwid + 30) * (nruns > 2 ? nruns : 2) + 170, H = 440;
	double ymax = 0;
	svgf s;
	B2_TRY(svg_open(&s, o, dir, "phases.svg", W, H, "Time per BFS phase"));
	FILE *f = s.f;
	fprintf(f, "<text x=\"%d\" y=\"36\" text-anchor=\"middle\" font-size=\"11\">seconds per search, summed over levels, mean over ranks and searches</text>\n",
	        W / 2);
	for (int i = 0; i < nruns; i++) {
		double t = 0;
		for (int p = 0; p < 4; p++)
			t += runs[i].phase_mean[p];
		ymax = fmax(ymax, t);
	}
	axis ay;
	ax_linear(&ay, 0, ymax > 0 ? ymax : 1e-3, H - 80, 56);
	draw_yaxis(f, &ay, 100, W - 170, "seconds");
	for (int i = 0; i < nruns; i++) {
		const run *r = &runs[i];
		double x = 120 + (bwid + 30) * i, acc = 0;
		fprintf(f, "<g class=\"bar\" data-run=\"%d\">\n", r->index);
		for (int p = 0; p < 4; p++) {
			double v = r->phase_mean[p];
			double ya = ax_map(&ay, acc), yb = ax_map(&ay, acc + v);
			fprintf(f, "<rect class=\"phase\" data-run=\"%d\" data-phase=\"%s\" data-seconds=\"%.9g\" "
			           "x=\"%.1f\" y=\"%.2f\" width=\"%d\" height=\"%.2f\" fill=\"%s\"><title>run %d, %s: %.4g s</title></rect>\n",
			        r->index, report_phase_names[p], v, x, yb, bwid, ya - yb, phase_color[p], r->index,
			        report_phase_names[p], v);
			acc += v;
		}
		fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">#%d %lldx%lld</text>\n", x + bwid / 2.0,
		        H - 62, r->index, (long long)r->rows, (long long)r->cols);
		fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">", x + bwid / 2.0, H - 48);
		xml(f, r->graph);
		fprintf(f, "</text>\n<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>\n</g>\n",
		        x + bwid / 2.0, H - 34, r->backend);
	}
	for (int p = 3; p >= 0; p--) {
		double y = 60 + (3 - p) * 22;
		fprintf(f, "<rect x=\"%d\" y=\"%.0f\" width=\"14\" height=\"14\" fill=\"%s\"/><text x=\"%d\" y=\"%.0f\">%s</text>\n",
		        W - 160, y, phase_color[p], W - 140, y + 12, report_phase_names[p]);
	}
done:
	return svg_close(&s, error, 1);
}

/* ---- TEPS against GPUs ------------------------------------------------------------- */

static int plot_scaling(b2_fout *o, const char *dir, run *runs, int nruns)
{
	int error = 0;
	const int W = 940, H = 460;
	double dmin = INFINITY, dmax = 0, gmax = 0;
	group *g[2] = {NULL, NULL};
	int ng[2] = {0, 0};
	svgf s = {0};
	B2_TRY(find_groups(&g[0], &ng[0], runs, nruns, 0));
	B2_TRY(find_groups(&g[1], &ng[1], runs, nruns, 1));
	B2_TRY(svg_open(&s, o, dir, "scaling.svg", W, H, "Harmonic-mean TEPS against GPUs"));
	FILE *f = s.f;
	for (int i = 0; i < nruns; i++)
		if (runs[i].nused > 0) {
			dmin = fmin(dmin, (double)runs[i].ndev);
			dmax = fmax(dmax, (double)runs[i].ndev);
			gmax = fmax(gmax, runs[i].hmean_teps * 1e-9);
		}
	if (!(dmax > 0))
		dmin = dmax = 1;
	axis ax = {floor(log2(dmin)) - 0.5, ceil(log2(dmax)) + 0.5, 90, W - 330, 2};
	axis ay;
	ax_linear(&ay, 0, gmax > 0 ? gmax : 1, H - 70, 40);
	draw_yaxis(f, &ay, 90, W - 330, "GTEPS (harmonic mean)");
	fprintf(f, "<line x1=\"90\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"black\"/>\n", ay.p0, W - 330,
	        ay.p0);
	for (double e = ceil(ax.lo); e <= ax.hi; e += 1) {
		double x = ax.p0 + (e - ax.lo) / (ax.hi - ax.lo) * (ax.p1 - ax.p0);
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%.0f</text>\n", x, ay.p0 + 16,
		        pow(2, e));
	}
	fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">GPUs (CPU ranks for the cpu backend)</text>\n",
	        (ax.p0 + ax.p1) / 2, H - 30);
	int legend = 0;
	for (int w = 0; w < 2; w++)
		for (int k = 0; k < ng[w]; k++) {
			const char *col = palette[legend % NPAL];
			fprintf(f, "<polyline class=\"%s\" data-runs=\"", w ? "weak" : "strong");
			for (int m = 0; m < g[w][k].n; m++)
				fprintf(f, "%s%d", m ? " " : "", runs[g[w][k].members[m]].index);
			fprintf(f, "\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\"%s points=\"", col,
			        w ? " stroke-dasharray=\"6 3\"" : "");
			for (int m = 0; m < g[w][k].n; m++) {
				const run *r = &runs[g[w][k].members[m]];
				fprintf(f, "%s%.1f,%.1f", m ? " " : "", ax_map(&ax, (double)r->ndev),
				        ax_map(&ay, r->hmean_teps * 1e-9));
			}
			fputs("\"/>\n", f);
			double y = 50 + 20 * legend;
			fprintf(f, "<line x1=\"%d\" y1=\"%.0f\" x2=\"%d\" y2=\"%.0f\" stroke=\"%s\" stroke-width=\"2\"%s/>",
			        W - 320, y, W - 300, y, col, w ? " stroke-dasharray=\"6 3\"" : "");
			fprintf(f, "<text x=\"%d\" y=\"%.0f\" font-size=\"10\">%s: ", W - 295, y + 4,
			        w ? "weak" : "strong");
			xml(f, g[w][k].label);
			fputs("</text>\n", f);
			legend++;
		}
	for (int i = 0; i < nruns; i++) {
		const run *r = &runs[i];
		if (r->nused == 0)
			continue;
		double x = ax_map(&ax, (double)r->ndev), y = ax_map(&ay, r->hmean_teps * 1e-9);
		char lab[256];
		run_label(lab, sizeof lab, r);
		fprintf(f, "<circle class=\"run\" data-run=\"%d\" data-devices=\"%lld\" data-teps=\"%.9g\" cx=\"%.1f\" cy=\"%.1f\" r=\"5\" fill=\"black\"><title>",
		        r->index, (long long)r->ndev, r->hmean_teps, x, y);
		xml(f, lab);
		fprintf(f, ": %.4g GTEPS</title></circle>\n", r->hmean_teps * 1e-9);
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"10\">#%d</text>\n", x + 7, y - 5, r->index);
	}
done:
	free_groups(g[0], ng[0]);
	free_groups(g[1], ng[1]);
	return svg_close(&s, error, 1);
}

/* ---- frontier size per level -------------------------------------------------------- */

static int plot_frontier(b2_fout *o, const char *dir, run *runs, int nruns)
{
	int error = 0;
	const int W = 940, H = 440;
	int64_t lmax = 1;
	double vmin = INFINITY, vmax = 0;
	svgf s;
	B2_TRY(svg_open(&s, o, dir, "frontier.svg", W, H,
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
	ax_linear(&ax, 0, (double)lmax, 90, W - 330);
	axis ay = {floor(log10(vmin)), ceil(log10(vmax)), H - 70, 40, 10};
	if (ay.hi <= ay.lo)
		ay.hi = ay.lo + 1;
	draw_yaxis(f, &ay, 90, W - 330, "vertices");
	fprintf(f, "<line x1=\"90\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"black\"/>\n", ay.p0, W - 330,
	        ay.p0);
	double st = fmax(1, nice_step(ax.hi - ax.lo, 8));
	for (double v = 0; v <= ax.hi + 1e-9; v += st)
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%.0f</text>\n", ax_map(&ax, v),
		        ay.p0 + 16, v);
	fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">level</text>\n", (ax.p0 + ax.p1) / 2,
	        H - 30);
	for (int i = 0; i < nruns; i++) {
		const run *r = &runs[i];
		const char *col = palette[i % NPAL];
		char lab[256];
		run_label(lab, sizeof lab, r);
		fprintf(f, "<g class=\"series\" data-run=\"%d\">\n<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"",
		        r->index, col);
		int first = 1;
		for (int64_t l = 0; l < r->L; l++)
			if (r->frontier_mean[l] > 0) {
				fprintf(f, "%s%.1f,%.1f", first ? "" : " ", ax_map(&ax, (double)l),
				        ax_map(&ay, r->frontier_mean[l]));
				first = 0;
			}
		fputs("\"/>\n", f);
		for (int64_t l = 0; l < r->L; l++)
			if (r->frontier_mean[l] > 0)
				fprintf(f, "<circle class=\"frontier\" data-run=\"%d\" data-level=\"%lld\" data-size=\"%.9g\" cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"><title>run %d, level %lld: %.6g vertices</title></circle>\n",
				        r->index, (long long)l, r->frontier_mean[l], ax_map(&ax, (double)l),
				        ax_map(&ay, r->frontier_mean[l]), col, r->index, (long long)l,
				        r->frontier_mean[l]);
		double y = 50 + 18 * i;
		fprintf(f, "<line x1=\"%d\" y1=\"%.0f\" x2=\"%d\" y2=\"%.0f\" stroke=\"%s\" stroke-width=\"2\"/><text x=\"%d\" y=\"%.0f\" font-size=\"10\">",
		        W - 320, y, W - 300, y, col, W - 295, y + 4);
		xml(f, lab);
		fputs("</text>\n</g>\n", f);
	}
done:
	return svg_close(&s, error, 1);
}

static int write_index(b2_fout *o, const char *dir, run *runs, int nruns)
{
	int error = 0;
	svgf s;
	B2_TRY(svg_open(&s, o, dir, "index.html", 0, 0, NULL));
	FILE *f = s.f;
	fputs("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>bfs2d report</title></head>\n"
	      "<body style=\"font-family:sans-serif\">\n<h1>bfs2d report</h1>\n<ul>\n", f);
	for (int i = 0; i < nruns; i++) {
		char lab[256];
		run_label(lab, sizeof lab, &runs[i]);
		fputs("<li>", f);
		xml(f, lab);
		fprintf(f, ": %.4g GTEPS (harmonic mean of %lld searches%s)</li>\n",
		        runs[i].nused ? runs[i].hmean_teps * 1e-9 : NAN, (long long)runs[i].nused,
		        runs[i].nused > runs[i].npassed ? ", UNVALIDATED" : "");
	}
	fputs("</ul>\n<p><img src=\"teps.svg\"></p>\n<p><img src=\"phases.svg\"></p>\n"
	      "<p><img src=\"scaling.svg\"></p>\n<p><img src=\"frontier.svg\"></p>\n</body></html>\n", f);
done:
	return svg_close(&s, error, 0);
}

int write_svgs(b2_fout out[REPORT_NSVG], const char *dir, run *runs, int nruns)
{
	int error = 0;
	B2_TRY(plot_teps(&out[0], dir, runs, nruns));
	B2_TRY(plot_phases(&out[1], dir, runs, nruns));
	B2_TRY(plot_scaling(&out[2], dir, runs, nruns));
	B2_TRY(plot_frontier(&out[3], dir, runs, nruns));
	B2_TRY(write_index(&out[4], dir, runs, nruns));
done:
	return error;
}
