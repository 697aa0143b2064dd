/* svgkit.h — drawing helpers of bfs-report's plots (svgkit.c). */
#ifndef B2_SVGKIT_H
#define B2_SVGKIT_H

#include <stdio.h>
#include "report.h"

#define NMARK 6 /* marker shapes */

/* A file being written under DIR: staged under a temporary by b2_fout,
 * renamed by bfs-report only when every output succeeded. */
typedef struct svgf {
	b2_fout *o;
	FILE *f;        /* where the plot draws: the body in memory, for an SVG */
	char *body;     /* open_memstream's buffer */
	size_t blen;
	int w, h;       /* the canvas asked for; svg_close widens it to fit every text */
} svgf;

/* The width of text as svg_close estimates it: characters x font size x
 * this (sans-serif capitals and digits stay within it); the tests measure
 * every <text> of every plot by the same rule. */
#define SVG_CHAR_WIDTH 0.6

typedef struct axis {
	double lo, hi;  /* data range (log axes: log10 or log2 of the data) */
	double p0, p1;  /* pixels for lo and hi */
	int logbase;    /* 0 linear, else the base of a log axis */
} axis;

void series_color(char *buf, size_t n, int i);
void marker(FILE *f, int shape, double x, double y, double r, const char *fill, const char *attrs);
int svg_open(svgf *s, b2_fout *o, const char *dir, const char *name, int w, int h, const char *title);
int svg_close(svgf *s, int error, int is_svg);
void xml(FILE *f, const char *t);
double ax_map(const axis *a, double v);
double nice_step(double span, int nticks);
void ax_linear(axis *a, double lo, double hi, double p0, double p1);
void fmt_num(char *b, size_t n, double v);
void fmt_tick(char *b, size_t n, double v);
void draw_yaxis(FILE *f, const axis *a, double px, double x1, const char *label);
void run_label(char *b, size_t n, const run *r);
void run_flags(FILE *f, const run *r, double x, double y, int short_);

/* svgplots.c: scaling.svg, frontier.svg, bytes.svg */
int plot_scaling(b2_fout *out, const char *dir, run *runs, int nruns);
int plot_frontier(b2_fout *out, const char *dir, run *runs, int nruns);
int plot_bytes(b2_fout *out, const char *dir, run *runs, int nruns);
/* The root rules of the runs, for a subtitle: "roots: any (Graph500's rule)" ... */
void roots_note(char *b, size_t n, const run *runs, int nruns);

#endif
