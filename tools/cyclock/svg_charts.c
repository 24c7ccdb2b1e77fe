/* SPDX-License-Identifier: MIT */
/*
 * The three charts of "cyclock plot"'s SVG writer (see svg.h): horizontal
 * bars, lines and histograms, each drawn at a given height from svg.c's
 * primitives and axes, each saying how much room it took.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bench.h"
#include "svg.h"

#define LABEL_X 8.0     /* left edge of the row labels */
#define PLOT_X0 200.0   /* left edge of the plotting area */
#define PLOT_X1 690.0   /* right edge; the value labels follow it */

/* ---- horizontal bars ---- */

#define BAR_H 13.0
#define BAR2_H 8.0

static double hbar_row(const struct svg_hbars *c)
{
	return c->series[1] ? BAR_H + BAR2_H + 7 : BAR_H + 6;
}

static bool new_group(const struct svg_hbars *c, size_t i)
{
	const char *g = c->bars[i].group;

	return g && (i == 0 || !c->bars[i - 1].group || strcmp(g, c->bars[i - 1].group));
}

static void hbar_range(const struct svg_hbars *c, double *vmin, double *vmax)
{
	*vmin = INFINITY;
	*vmax = 0;
	for (size_t i = 0; i < c->n; i++)
		for (int k = 0; k < 2; k++) {
			double v = c->bars[i].v[k];

			if (v > 0 && v < *vmin)
				*vmin = v;
			if (v > 0 && v > *vmax)
				*vmax = v;
		}
	if (*vmax <= 0)
		*vmin = *vmax = 1;
}

static void hbar_one(struct svg *s, const struct svg_axis *a, const struct svg_bar *b,
		     int k, double y, double h)
{
	char val[32], ratio[24] = "", tip[160];
	double x;

	if (!(b->v[k] > 0))
		return;
	x = svg_axis_at(a, b->v[k]);
	bench_fmt_ns(val, sizeof(val), b->v[k]);
	if (b->ratio[k] > 0 && isfinite(b->ratio[k]))
		snprintf(ratio, sizeof(ratio), " (%.2fx)", b->ratio[k]);
	snprintf(tip, sizeof(tip), "%s: %s%s%s", b->label, val, ratio, b->noisy ? " (noisy)" : "");
	svg_rect(s, a->p0, y, x - a->p0, h, b->colour, k ? 0.45 : 1, tip);
	svg_text(s, x + 4, y + h - 2, k ? "small" : NULL, "%s%s%s", val, ratio,
		 b->noisy ? " ~" : "");
}

double svg_draw_hbars(struct svg *s, double y, const struct svg_hbars *c)
{
	struct svg_axis a;
	double vmin, vmax, row = hbar_row(c), top = y + (c->series[1] ? 52 : 34), bottom = top;

	for (size_t i = 0; i < c->n; i++)
		bottom += row + (new_group(c, i) ? 18 : 0);
	hbar_range(c, &vmin, &vmax);
	svg_axis_fit(&a, vmin, vmax, true, PLOT_X0, PLOT_X1);
	svg_text(s, LABEL_X, y + 18, "head", "%s", c->title);
	if (c->series[1]) {
		double x = svg_legend_item(s, PLOT_X0, y + 36, "#555", 1, c->series[0]);

		svg_legend_item(s, x, y + 36, "#555", 0.45, c->series[1]);
	}
	svg_grid(s, &a, true, top - 4, bottom + 2);
	for (size_t i = 0; i < c->n; i++) {
		const struct svg_bar *b = &c->bars[i];

		if (new_group(c, i)) {
			svg_text(s, LABEL_X, top + 13, "group", "%s", b->group);
			top += 18;
		}
		svg_text(s, PLOT_X0 - 8, top + BAR_H - 2, "end", "%s", b->label);
		hbar_one(s, &a, b, 0, top, BAR_H);
		if (c->series[1])
			hbar_one(s, &a, b, 1, top + BAR_H + 1, BAR2_H);
		top += row;
	}
	svg_text(s, (PLOT_X0 + PLOT_X1) / 2, bottom + 32, "small mid", "%s", c->caption);
	return bottom + 48 - y;
}

/* ---- lines ---- */

#define LINES_X0 80.0
#define LINES_X1 590.0
#define LINES_H 220.0

/* The x axis: log2 of the thread counts, a tick at each count present. */
static void lines_x(struct svg *s, const struct svg_chart *c, struct svg_axis *a, double bottom)
{
	double lo = INFINITY, hi = 0;

	for (size_t i = 0; i < c->n; i++)
		for (size_t k = 0; k < c->s[i].n; k++) {
			lo = fmin(lo, c->s[i].x[k]);
			hi = fmax(hi, c->s[i].x[k]);
		}
	a->log = false;
	a->lo = log2(lo) - (hi > lo ? 0 : 1);
	a->hi = log2(hi) + (hi > lo ? 0 : 1);
	a->p0 = LINES_X0 + 12;
	a->p1 = LINES_X1 - 12;
	svg_line(s, LINES_X0, bottom, LINES_X1, bottom, "axis");
	for (size_t i = 0; i < c->n; i++)
		for (size_t k = 0; k < c->s[i].n; k++) {
			double x = svg_axis_at(a, log2(c->s[i].x[k]));

			svg_line(s, x, bottom, x, bottom + 4, "axis");
			svg_text(s, x, bottom + 16, "small mid", "%g", c->s[i].x[k]);
		}
}

static void lines_range(const struct svg_chart *c, double *vmin, double *vmax)
{
	*vmin = INFINITY;
	*vmax = 0;
	for (size_t i = 0; i < c->n; i++)
		for (size_t k = 0; k < c->s[i].n; k++)
			if (c->s[i].y[k] > 0) {
				*vmin = fmin(*vmin, c->s[i].y[k]);
				*vmax = fmax(*vmax, c->s[i].y[k]);
			}
	if (*vmax <= 0)
		*vmin = *vmax = 1;
}

static void lines_one(struct svg *s, const struct svg_series *l, const struct svg_axis *ax,
		      const struct svg_axis *ay, const char *colour)
{
	char val[32], tip[128];

	fprintf(s->f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"", colour);
	for (size_t k = 0; k < l->n; k++)
		fprintf(s->f, "%s%.1f,%.1f", k ? " " : "", svg_axis_at(ax, log2(l->x[k])),
			svg_axis_at(ay, l->y[k]));
	fputs("\"/>\n", s->f);
	for (size_t k = 0; k < l->n; k++) {
		bench_fmt_ns(val, sizeof(val), l->y[k]);
		fprintf(s->f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"><title>",
			svg_axis_at(ax, log2(l->x[k])), svg_axis_at(ay, l->y[k]), colour);
		snprintf(tip, sizeof(tip), "%s, %g threads: %s", l->label, l->x[k], val);
		svg_escape(s->f, tip);
		fputs("</title></circle>\n", s->f);
	}
}

double svg_draw_lines(struct svg *s, double y, const struct svg_chart *c)
{
	struct svg_axis ax, ay;
	double vmin, vmax, top = y + 40, bottom = y + 40 + LINES_H;
	bool log;

	lines_range(c, &vmin, &vmax);
	/* A system call beside a 10-ns read flattens the reads in linear scale. */
	log = vmax / vmin > 20;
	svg_axis_fit(&ay, vmin, vmax, log, bottom, top);
	svg_text(s, LABEL_X, y + 18, "head", "%s", c->title);
	svg_grid(s, &ay, false, LINES_X0, LINES_X1);
	lines_x(s, c, &ax, bottom);
	for (size_t i = 0; i < c->n; i++) {
		double ly = top + 4 + 18.0 * (double)i;

		lines_one(s, &c->s[i], &ax, &ay, svg_colour(i));
		svg_rect(s, LINES_X1 + 16, ly - 9, 12, 10, svg_colour(i), 1, NULL);
		svg_text(s, LINES_X1 + 32, ly, NULL, "%s", c->s[i].label);
	}
	svg_text(s, (LINES_X0 + LINES_X1) / 2, bottom + 32, "small mid", "%s; ns per call, %s",
		 c->caption, log ? "log scale (each grid line 10x)" : "linear scale");
	bottom = fmax(bottom, top + 18.0 * (double)c->n);
	return bottom + 48 - y;
}

/* ---- histograms ---- */

#define HIST_ROW 56.0

static void hist_one(struct svg *s, const struct svg_series *h, const struct svg_axis *a,
		     double top, const char *colour)
{
	double max = 0, total = 0;
	char val[32], tip[128];

	for (size_t k = 0; k < h->n; k++) {
		max = fmax(max, h->y[k]);
		total += h->y[k];
	}
	svg_text(s, PLOT_X0 - 8, top + HIST_ROW / 2 + 4, "end", "%s", h->label);
	/* A bucket holds the steps from the bucket before it up to its own
	 * bound, so its bar spans that range (the first, a decade). */
	for (size_t k = 0; k < h->n && max > 0; k++) {
		double bh = (HIST_ROW - 12) * h->y[k] / max;
		double x0 = svg_axis_at(a, k ? h->x[k - 1] : h->x[k] / 10);
		double x1 = svg_axis_at(a, h->x[k]);

		bench_fmt_ns(val, sizeof(val), h->x[k]);
		snprintf(tip, sizeof(tip), "%s: %.1f%% of steps below %s", h->label,
			 100 * h->y[k] / total, val);
		svg_rect(s, x0 + 1, top + HIST_ROW - 6 - bh, fmax(x1 - x0 - 2, 2), bh, colour, 1,
			 tip);
	}
	svg_line(s, PLOT_X0, top + HIST_ROW - 6, PLOT_X1, top + HIST_ROW - 6, "grid");
}

double svg_draw_hists(struct svg *s, double y, const struct svg_chart *c)
{
	struct svg_axis a;
	double vmin = INFINITY, vmax = 0, top = y + 30, bottom = top + HIST_ROW * (double)c->n;

	for (size_t i = 0; i < c->n; i++)
		for (size_t k = 0; k < c->s[i].n; k++)
			if (c->s[i].x[k] > 0) {
				vmin = fmin(vmin, c->s[i].x[k]);
				vmax = fmax(vmax, c->s[i].x[k]);
			}
	if (vmax <= 0)
		vmin = vmax = 1;
	svg_axis_fit(&a, vmin / 10, vmax, true, PLOT_X0, PLOT_X1);
	svg_text(s, LABEL_X, y + 18, "head", "%s", c->title);
	svg_grid(s, &a, true, top, bottom);
	for (size_t i = 0; i < c->n; i++)
		hist_one(s, &c->s[i], &a, top + HIST_ROW * (double)i, svg_colour(i));
	svg_text(s, (PLOT_X0 + PLOT_X1) / 2, bottom + 32, "small mid", "%s", c->caption);
	return bottom + 48 - y;
}
