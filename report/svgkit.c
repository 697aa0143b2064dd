/* svgkit.c — what the plots of svg.c draw with: series colours and marker
 * shapes, staged SVG files, XML text, axes (linear and log) and the runs'
 * labels and marks. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "svgkit.h"

/* Series colours: ten well-separated ones (Tableau 10), then hues a golden
 * angle apart, so that no two series share a colour. */
static const char *const palette[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                      "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};
#define NPAL 10
void series_color(char *buf, size_t n, int i)
{
	if (i < NPAL)
		snprintf(buf, n, "%s", palette[i]);
	else
		snprintf(buf, n, "hsl(%d,70%%,%d%%)", (int)fmod(i * 137.508, 360.0), 30 + 15 * (i % 3));
}

/* Marker shapes, drawn as one <path> each: circle, square, triangle up,
 * diamond, triangle down, plus. attrs go into the element; the caller
 * closes it (with a <title> inside). */
void marker(FILE *f, int shape, double x, double y, double r, const char *fill,
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


int svg_open(svgf *s, b2_fout *o, const char *dir, const char *name, int w, int h,
                    const char *title)
{
	int error = 0;
	size_t n = strlen(dir) + strlen(name) + 2;
	char *path = NULL;
	memset(s, 0, sizeof *s);
	s->o = o;
	s->w = w;
	s->h = h;
	B2_TRY(b2_alloc(&path, n, "file name"));
	snprintf(path, n, "%s/%s", dir, name);
	B2_TRY(b2_fout_open(o, path));
	s->f = o->f;
	if (w > 0) {
		/* the body first, in memory: the canvas is sized around its texts */
		if ((s->f = open_memstream(&s->body, &s->blen)) == NULL)
			B2_FAIL(B2_EIO, "out of host memory for %s", path);
		fprintf(s->f, "<text x=\"%d\" y=\"20\" text-anchor=\"middle\" font-size=\"15\">%s</text>\n",
		        w / 2, title);
	}
done:
	free(path);
	return error;
}

/* The value of attribute name in the tag from t to end, or def. */
static double attr_num(const char *t, const char *end, const char *name, double def)
{
	size_t n = strlen(name);
	for (const char *c = t + 1; c + n + 2 < end; c++) /* t: "<text", so c[-1] is in it */
		if (c[-1] == ' ' && strncmp(c, name, n) == 0 && c[n] == '=' && c[n + 1] == '"')
			return atof(c + n + 2);
	return def;
}

static int attr_is(const char *t, const char *end, const char *name, const char *val)
{
	size_t n = strlen(name), v = strlen(val);
	for (const char *c = t + 1; c + n + v + 3 <= end; c++)
		if (c[-1] == ' ' && strncmp(c, name, n) == 0 && c[n] == '=' && c[n + 1] == '"')
			return strncmp(c + n + 2, val, v) == 0 && c[n + 2 + v] == '"';
	return 0;
}

/* Characters of XML text from t to end: an entity or a UTF-8 sequence is one. */
static int xml_chars(const char *t, const char *end)
{
	int n = 0;
	for (const char *c = t; c < end; c++) {
		if (*c == '<') { /* a child element's tag: not drawn */
			while (c < end && *c != '>')
				c++;
			continue;
		}
		if (*c == '&')
			while (c < end && *c != ';')
				c++;
		n += ((unsigned char)*c & 0xc0) != 0x80;
	}
	return n;
}

/* The box around every <text> of body, by the estimate above. */
static void text_bounds(const char *body, double *x0, double *y0, double *x1, double *y1)
{
	for (const char *t = strstr(body, "<text "); t; t = strstr(t + 1, "<text ")) {
		const char *tagend = strchr(t, '>'), *close = tagend ? strstr(tagend, "</text>") : NULL;
		if (!close)
			break;
		double x = attr_num(t, tagend, "x", 0), y = attr_num(t, tagend, "y", 0);
		double fs = attr_num(t, tagend, "font-size", 12);
		double w = xml_chars(tagend + 1, close) * fs * SVG_CHAR_WIDTH;
		double lo = attr_is(t, tagend, "text-anchor", "middle") ? -w / 2
		            : attr_is(t, tagend, "text-anchor", "end") ? -w : 0;
		if (strstr(t, "rotate(-90") && strstr(t, "rotate(-90") < tagend) {
			/* turned a quarter left about (x, y): it runs upwards */
			*x0 = fmin(*x0, x - fs), *x1 = fmax(*x1, x + 0.25 * fs);
			*y0 = fmin(*y0, y - (lo + w)), *y1 = fmax(*y1, y - lo);
		} else {
			*x0 = fmin(*x0, x + lo), *x1 = fmax(*x1, x + lo + w);
			*y0 = fmin(*y0, y - fs), *y1 = fmax(*y1, y + 0.25 * fs);
		}
	}
}

/* Completes the staged file (every write checked), or removes it. An SVG
 * gets its canvas here: the size asked for, widened to hold every text. */
int svg_close(svgf *s, int error, int is_svg)
{
	if (!s->o || !s->o->f)
		return error;
	if (is_svg && s->f != s->o->f) { /* s->f NULL: its memory stream did not open */
		if (s->f && fclose(s->f) != 0 && !error)
			error = b2_err(B2_EIO, "out of host memory for %s", s->o->path);
		s->f = NULL;
		if (!error) {
			double x0 = 0, y0 = 0, x1 = s->w, y1 = s->h;
			text_bounds(s->body, &x0, &y0, &x1, &y1);
			x0 = floor(x0 < 0 ? x0 - 4 : 0), y0 = floor(y0 < 0 ? y0 - 4 : 0);
			x1 = ceil(x1 > s->w ? x1 + 4 : s->w), y1 = ceil(y1 > s->h ? y1 + 4 : s->h);
			fprintf(s->o->f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
			        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
			        "viewBox=\"%.0f %.0f %.0f %.0f\" font-family=\"sans-serif\" font-size=\"12\">\n"
			        "<rect x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" height=\"%.0f\" fill=\"white\"/>\n",
			        x1 - x0, y1 - y0, x0, y0, x1 - x0, y1 - y0, x0, y0, x1 - x0, y1 - y0);
			fwrite(s->body, 1, s->blen, s->o->f);
			fputs("</svg>\n", s->o->f);
		}
		free(s->body);
		s->body = NULL;
	}
	if (!error)
		error = b2_fout_close(s->o);
	if (error)
		b2_fout_discard(s->o);
	return error;
}

/* XML-escaped text */
void xml(FILE *f, const char *t)
{
	b2_fput_xml(f, t);
}

/* ---- axes -------------------------------------------------------------------- */


double ax_map(const axis *a, double v)
{
	if (a->logbase)
		v = log(v) / log((double)a->logbase);
	return a->p0 + (v - a->lo) / (a->hi - a->lo) * (a->p1 - a->p0);
}

double nice_step(double span, int nticks)
{
	double raw = span / nticks, p = pow(10, floor(log10(raw))), m = raw / p;
	return (m < 1.5 ? 1 : m < 3 ? 2 : m < 7 ? 5 : 10) * p;
}

/* A linear axis from 0 (or lo) to a nice value above hi. */
void ax_linear(axis *a, double lo, double hi, double p0, double p1)
{
	if (!isfinite(lo))
		lo = 0;
	if (!(hi > lo) || !isfinite(hi))
		hi = lo + 1;
	double st = nice_step(hi - lo, 5);
	a->lo = floor(lo / st) * st;
	a->hi = ceil(hi / st) * st;
	a->p0 = p0;
	a->p1 = p1;
	a->logbase = 0;
}

void fmt_num(char *b, size_t n, double v)
{
	if (v != 0 && (fabs(v) >= 1e5 || fabs(v) < 1e-3))
		snprintf(b, n, "%.3g", v);
	else
		snprintf(b, n, "%.4g", v);
}

/* A log-axis tick as people write it: 1, 20, 500, 1k, 20k, 1M, 0.5, 0.01. */
void fmt_tick(char *b, size_t n, double v)
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
void draw_yaxis(FILE *f, const axis *a, double px, double x1, const char *label)
{
	fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"black\"/>\n", px,
	        a->p0, px, a->p1);
	if (a->logbase && isfinite(a->lo) && isfinite(a->hi)) {
		/* decades, and 2 and 5 between them when there are few decades;
		 * every k-th decade where there are many, so the loop is short */
		int few = a->hi - a->lo <= 3;
		double every = fmax(1, ceil((a->hi - a->lo) / 12));
		for (double e = floor(a->lo); e <= a->hi + 1e-9; e += every)
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
	} else if (!a->logbase) {
		double st = nice_step(a->hi - a->lo, 5);
		int n = 0;
		for (double v = a->lo; st > 0 && v <= a->hi + st * 1e-9 && n < 64; v += st, n++) {
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

void run_label(char *b, size_t n, const run *r)
{
	snprintf(b, n, "#%d %s", r->index, r->label);
}

/* A run's marks as visible text from (x, y) down: OVERSUBSCRIBED in red,
 * NOISY, NBFS < 64 and UNVALIDATED (no predecessors kept) in orange, each a <text> of its class; short: the
 * narrow forms, for a bar. */
void run_flags(FILE *f, const run *r, double x, double y, int short_)
{
	static const char *const cls[4] = {"flag-oversubscribed", "flag-noisy", "flag-few", "flag-unvalidated"};
	const int on[4] = {run_oversubscribed(r), r->noisy, r->few_searches, r->no_pred};
	for (int k = 0; k < 4; k++) {
		if (!on[k])
			continue;
		fprintf(f, "<text class=\"%s\" data-run=\"%d\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" "
		           "font-size=\"%d\" font-weight=\"bold\" fill=\"%s\">", cls[k], r->index, x, y,
		        short_ ? 9 : 10, k == 0 ? "#d62728" : "#e6550d");
		if (k == 0)
			fputs(short_ ? "OVERSUB." : "OVERSUBSCRIBED", f);
		else if (k == 1)
			fputs("NOISY", f);
		else if (k == 2)
			fprintf(f, "NBFS %lld &lt; %d", (long long)r->nused, REPORT_GRAPH500_NBFS);
		else
			fputs(short_ ? "UNVALIDATED" : "UNVALIDATED: no predecessors kept", f);
		fputs("</text>\n", f);
		y += short_ ? 11 : 12;
	}
}
