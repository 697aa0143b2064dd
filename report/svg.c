/* svg.c — plain SVG plots written by hand: TEPS per search, the stacked
 * phase breakdown per configuration (as the paper's breakdown figure), TEPS
 * against GPUs across runs, frontier size per level. Every drawn value also
 * sits in data-* attributes and a <title> tooltip, so the numbers can be read
 * back (the tests do) and hovered in a browser. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "report.h"

/* Series colours: ten well-separated ones (Tableau 10), then hues a golden
 * angle apart, so that no two series share a colour. */
static const char *const palette[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                      "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};
#define NPAL 10
static void series_color(char *buf, size_t n, int i)
{
	if (i < NPAL)
		snprintf(buf, n, "%s", palette[i]);
	else
		snprintf(buf, n, "hsl(%d,70%%,%d%%)", (int)fmod(i * 137.508, 360.0), 30 + 15 * (i % 3));
}

/* Marker shapes, drawn as one <path> each: circle, square, triangle up,
 * diamond, triangle down, plus. attrs go into the element; the caller
 * closes it (with a <title> inside). */
#define NMARK 6
static void marker(FILE *f, int shape, double x, double y, double r, const char *fill,
                   const char *attrs)
{
	fprintf(f, "<path %s fill=\"%s\" stroke=\"%s\" stroke-width=\"%s\" d=\"", attrs,
	        shape == 5 ? "none" : fill, fill, shape == 5 ? "2.5" : "1");
	switch (shape % NMARK) {
	case 0:
		fprintf(f, "M%.1f %.1fa%.1f %.1f 0 1 0 %.1f 0a%.1f %.1f 0 1 0 %.1f 0z", x - r, y, r, r, 2 * r,
		        r, r, -2 * r);
		break;
	case 1:
		fprintf(f, "M%.1f %.1fh%.1fv%.1fh%.1fz", x - r * 0.9, y - r * 0.9, 1.8 * r, 1.8 * r, -1.8 * r);
		break;
	case 2:
		fprintf(f, "M%.1f %.1fL%.1f %.1fL%.1f %.1fz", x, y - 1.2 * r, x + 1.1 * r, y + 0.8 * r,
		        x - 1.1 * r, y + 0.8 * r);
		break;
	case 3:
		fprintf(f, "M%.1f %.1fL%.1f %.1fL%.1f %.1fL%.1f %.1fz", x, y - 1.3 * r, x + 1.1 * r, y, x,
		        y + 1.3 * r, x - 1.1 * r, y);
		break;
	case 4:
		fprintf(f, "M%.1f %.1fL%.1f %.1fL%.1f %.1fz", x, y + 1.2 * r, x + 1.1 * r, y - 0.8 * r,
		        x - 1.1 * r, y - 0.8 * r);
		break;
	default:
		fprintf(f, "M%.1f %.1fh%.1fM%.1f %.1fv%.1f", x - 1.2 * r, y, 2.4 * r, x, y - 1.2 * r, 2.4 * r);
	}
	fputs("\"", f);
}

/* The phases of phases.svg, bottom to top: FORMATS.md's six, the frontier
 * expansion split by direction when the file has it, and the time of the
 * search outside every phase (the slowest rank against the mean over ranks,
 * barriers), so that the bar reaches the mean search time. */
enum { SEG_EXPAND, SEG_EXP_TD, SEG_EXP_BU, SEG_FOLD, SEG_UPDATE, SEG_TERM, SEG_PRED, SEG_OTHER, NSEG };
static const char *const seg_color[NSEG] = {"#4e79a7", "#f28e2b", "#ffbe7d", "#59a14f",
                                            "#e15759", "#76b7b2", "#edc948", "#bab0ac"};

/* A file being written under DIR: staged under a temporary by b2_fout,
 * renamed by bfs-report only when every output succeeded. */
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

/* XML-escaped text, for strings from inputs */
static void xml(FILE *f, const char *t) { b2_fput_xml(f, t); }

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

/* A log-axis tick as people write it: 1, 20, 500, 1k, 20k, 1M, 0.5, 0.01. */
static void fmt_tick(char *b, size_t n, double v)
{
	static const char *const sfx[] = {"", "k", "M", "G", "T", "P"};
	int k = 0;
	if (v >= 1000) {
		while (v >= 1000 && k < 5)
			v /= 1000, k++;
		snprintf(b, n, "%g%s", v, sfx[k]);
	} else
		snprintf(b, n, "%g", v);
}

/* y axis on the left at x = px, from y pixel a->p0 (bottom) to a->p1 (top) */
static void draw_yaxis(FILE *f, const axis *a, double px, double x1, const char *label)
{
	fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"black\"/>\n", px,
	        a->p0, px, a->p1);
	if (a->logbase) {
		/* decades, and 2 and 5 between them when there are few decades */
		int few = a->hi - a->lo <= 3;
		for (double e = floor(a->lo); e <= a->hi + 1e-9; e += 1)
			for (int m = 1; m <= 5; m += m == 1 ? 1 : 3) {
				double v = log10((double)m) + e;
				if (v < a->lo - 1e-9 || v > a->hi + 1e-9 || (m > 1 && !few))
					continue;
				char b[32];
				double y = a->p0 + (v - a->lo) / (a->hi - a->lo) * (a->p1 - a->p0);
				fmt_tick(b, sizeof b, m * pow(10, e));
				fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"/>\n",
				        px, y, x1, y, m == 1 ? "#ccc" : "#eee");
				fprintf(f, "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
				        px - 4, y + 4, b);
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

/* One chart with one scale for every run: run i's searches are bars in slot
 * i, its harmonic mean a dashed line over the slot; labels and means sit
 * under the axis and in the legend below, never over the bars. */
static int plot_teps(b2_fout *out, const char *dir, run *runs, int nruns)
{
	int error = 0;
	int64_t nbars = 0;
	double ymax = 0;
	for (int i = 0; i < nruns; i++) {
		nbars += runs[i].K;
		for (int64_t k = 0; k < runs[i].K; k++) {
			const run *r = &runs[i];
			int64_t q = r->v_row ? r->v_row[k] : -1;
			double ne = (double)(q >= 0 ? r->v_nedge[q] : r->nedge[k]);
			if (r->status[k] != ST_FAILED)
				ymax = fmax(ymax, ne / r->time[k] * 1e-9);
		}
	}
	const int pw = (int)fmin(1500, fmax(700, (double)nbars * 4)), W = 100 + pw + 30;
	const int top = 50, PH = 300, H = top + PH + 70 + 16 * nruns;
	svgf s;
	B2_TRY(svg_open(&s, out, dir, "teps.svg", W, H, "TEPS per search (GTEPS); dashed: harmonic mean of each run"));
	FILE *f = s.f;
	axis ay;
	ax_linear(&ay, 0, ymax > 0 ? ymax : 1, top + PH, top);
	double x0 = 100, x1 = 100 + pw, slot = (x1 - x0) / nruns;
	draw_yaxis(f, &ay, x0 - 4, x1, "GTEPS");
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
		fputs("</text>\n</g>\n", f);
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
	const int bwid = 60, W = 120 + (bwid + 30) * (nruns > 2 ? nruns : 2) + 260, H = 460;
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
	ax_linear(&ay, 0, ymax > 0 ? ymax : 1e-3, H - 90, 60);
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
		fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">#%d %lldx%lld</text>\n", x + bwid / 2.0,
		        H - 72, r->index, (long long)r->rows, (long long)r->cols);
		fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" font-size=\"10\">", x + bwid / 2.0, H - 58);
		xml(f, r->graph);
		fprintf(f, "</text>\n<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" font-size=\"10\">",
		        x + bwid / 2.0, H - 44);
		xml(f, r->backend);
		fprintf(f, "%s</text>\n</g>\n", run_oversubscribed(r) ? " OVERSUB." : "");
	}
	for (int k = NSEG - 1, row = 0; k >= 0; k--, row++) {
		double y = 64 + row * 22;
		fprintf(f, "<rect x=\"%d\" y=\"%.0f\" width=\"14\" height=\"14\" fill=\"%s\"/><text x=\"%d\" y=\"%.0f\" font-size=\"11\">%s</text>\n",
		        W - 250, y, seg_color[k], W - 230, y + 12, seg_name[k]);
	}
	fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\" stroke-width=\"2\"/><text x=\"%d\" y=\"%d\" font-size=\"11\">mean search time</text>\n",
	        W - 252, 64 + NSEG * 22 + 7, W - 234, 64 + NSEG * 22 + 7, W - 230, 64 + NSEG * 22 + 11);
	fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"10\">(no bottom-up part: a file without</text>"
	           "<text x=\"%d\" y=\"%d\" font-size=\"10\">/expansion_time, or none ran)</text>\n",
	        W - 250, 64 + NSEG * 22 + 32, W - 250, 64 + NSEG * 22 + 45);
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
			gmin = fmin(gmin, fmin(r->hmean_teps * 1e-9, ideal));
			gmax = fmax(gmax, fmax(r->hmean_teps * 1e-9, ideal));
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
			snprintf(attrs, sizeof attrs, "class=\"run\" data-series=\"%d\" data-run=\"%d\" data-devices=\"%lld\" data-teps=\"%.9g\"",
			         sidx, r->index, (long long)r->ndev, r->hmean_teps);
			marker(f, sidx, ax_map(&ax, (double)r->ndev), ax_map(&ay, r->hmean_teps * 1e-9), 5, col, attrs);
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
	const int pw = 400, W = 40 + (panels ? panels : 1) * (pw + 110), top = 60, ph = 320;
	const int H = top + ph + 60 + 18 * nser + 20;
	B2_TRY(svg_open(&s, out, dir, "scaling.svg", W, H, "Harmonic-mean TEPS against GPUs"));
	FILE *f = s.f;
	if (!panels)
		fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">No scaling series: it needs runs of one graph "
		           "(strong) or of one R-MAT family (weak) on two GPU counts or more.</text>\n", W / 2, H / 2);
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
			fputs(" (dashed: ideal)</text>\n", f);
		}
done:
	free_groups(g[0], ng[0]);
	free_groups(g[1], ng[1]);
	return svg_close(&s, error, 1);
}

/* ---- frontier size per level -------------------------------------------------------- */

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
		fprintf(f, "<g class=\"series\" data-run=\"%d\" data-color=\"%s\">\n<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"",
		        r->index, col, col);
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
	      "<p><img src=\"teps.svg\"></p>\n<p><img src=\"phases.svg\"></p>\n"
	      "<p><img src=\"scaling.svg\"></p>\n<p><img src=\"frontier.svg\"></p>\n"
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
