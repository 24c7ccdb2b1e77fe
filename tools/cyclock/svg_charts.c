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

#define LABEL_X SVG_MARGIN /* left edge of the row labels */
#define PLOT_X0 200.0   /* left edge of the plotting area: room for cyclock_now_relaxed_inline */
#define PLOT_X1 640.0   /* right edge; the value labels follow it ("10.0 ms (529.10x) ~") */
#define RIGHT (SVG_WIDTH - SVG_MARGIN) /* where every text ends at the latest */
#define LEADING 14.0    /* between the lines of a caption */

/* A chart's title and, under it, what its colours mean; the y of the
 * keys' last row. */
static double title_keys(struct svg *s, double y, const char *title, const struct svg_key *keys,
			 size_t n)
{
	svg_text_fit(s, LABEL_X, y + 18, "head", RIGHT - LABEL_X, "%s", title);
	return n ? svg_keys(s, LABEL_X, y + 36, keys, n) : y + 18;
}

/* The caption under a chart whose lowest line is at @bottom, wrapped to
 * the picture's width; returns the chart's bottom under it. */
static double caption(struct svg *s, double bottom, const char *text)
{
	int lines = svg_text_wrap(s, LABEL_X, RIGHT, bottom + 32, "small mid", LEADING, text);

	return bottom + 48 + LEADING * (lines - 1);
}

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

/* The value of a bar ending at @x, its baseline @base: right of it where
 * it fits, else inside it (white on the bar), else right of it, cut. */
static void hbar_value(struct svg *s, double x, double base, bool second, const char *text)
{
	const char *cls = second ? "small" : NULL;
	double w = svg_text_width(text, cls);

	if (x + 4 + w <= RIGHT)
		svg_text(s, x + 4, base, cls, "%s", text);
	else if (!second && x - 4 - w >= PLOT_X0)
		svg_text(s, x - 4, base, "end inbar", "%s", text);
	else
		svg_text_fit(s, x + 4, base, cls, RIGHT - x - 4, "%s", text);
}

static void hbar_one(struct svg *s, const struct svg_axis *a, const struct svg_bar *b,
		     int k, double y, double h)
{
	char val[32], ratio[24] = "", tip[160], text[64];
	double x;

	if (!(b->v[k] > 0))
		return;
	x = svg_axis_at(a, b->v[k]);
	bench_fmt_ns(val, sizeof(val), b->v[k]);
	if (b->ratio[k] > 0 && isfinite(b->ratio[k]))
		snprintf(ratio, sizeof(ratio), " (%.2fx)", b->ratio[k]);
	snprintf(tip, sizeof(tip), "%s: %s%s%s", b->label, val, ratio, b->noisy ? " (noisy)" : "");
	svg_rect(s, a->p0, y, x - a->p0, h, b->colour, k ? 0.45 : 1, tip);
	/* The first bar's value sits on its baseline, 2 px above its bottom;
	 * the second's on the second bar's bottom, clear of the first's
	 * descenders (the parentheses of its ratio). */
	snprintf(text, sizeof(text), "%s%s%s", val, ratio, b->noisy ? " ~" : "");
	hbar_value(s, x, k ? y + h : y + h - 2, k, text);
}

double svg_draw_hbars(struct svg *s, double y, const struct svg_hbars *c)
{
	struct svg_axis a;
	double vmin, vmax, row = hbar_row(c), top, bottom;

	top = title_keys(s, y, c->title, c->keys, c->n_keys);
	if (c->series[1]) {
		double x = svg_legend_item(s, PLOT_X0, top + 18, "#555", 1, c->series[0]);

		svg_legend_item(s, x, top + 18, "#555", 0.45, c->series[1]);
		top += 18;
	}
	top = bottom = top + 16;
	for (size_t i = 0; i < c->n; i++)
		bottom += row + (new_group(c, i) ? 18 : 0);
	hbar_range(c, &vmin, &vmax);
	svg_axis_fit(&a, vmin, vmax, true, PLOT_X0, PLOT_X1);
	svg_grid(s, &a, true, top - 4, bottom + 2);
	for (size_t i = 0; i < c->n; i++) {
		const struct svg_bar *b = &c->bars[i];

		if (new_group(c, i)) {
			svg_text_fit(s, LABEL_X, top + 13, "group", RIGHT - LABEL_X, "%s", b->group);
			top += 18;
		}
		svg_text_fit(s, PLOT_X0 - 8, top + BAR_H - 2, "end", PLOT_X0 - 8 - LABEL_X, "%s",
			     b->label);
		hbar_one(s, &a, b, 0, top, BAR_H);
		if (c->series[1])
			hbar_one(s, &a, b, 1, top + BAR_H + 2, BAR2_H);
		top += row;
	}
	return caption(s, bottom, c->caption) - y;
}

/* ---- lines ---- */

#define LINES_X0 80.0
#define LINES_X1 560.0  /* the legend follows: a sample, then the name */
#define LINES_H 220.0

/* The x axis: log2 of the thread counts, a tick at each count present and
 * a label at each that has room (one per count, not per line). */
static void lines_x(struct svg *s, const struct svg_chart *c, struct svg_axis *a, double bottom)
{
	double lo = INFINITY, hi = 0, last = -INFINITY;

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
	/* The counts in ascending order, each once: the next above @prev. */
	for (double prev = 0;;) {
		double next = INFINITY, x;
		char buf[32];

		for (size_t i = 0; i < c->n; i++)
			for (size_t k = 0; k < c->s[i].n; k++)
				if (c->s[i].x[k] > prev)
					next = fmin(next, c->s[i].x[k]);
		if (next == INFINITY)
			break;
		prev = next;
		x = svg_axis_at(a, log2(next));
		svg_line(s, x, bottom, x, bottom + 4, "axis");
		snprintf(buf, sizeof(buf), "%g", next);
		if (x - svg_text_width(buf, "small") / 2 < last + 4)
			continue;
		svg_text(s, x, bottom + 16, "small mid", "%s", buf);
		last = x + svg_text_width(buf, "small") / 2;
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

/* Lines of one colour (one group) told apart by their dash and marker. */
static const char *const dashes[] = { "", "7 3", "2 3", "9 3 2 3" };

/* A marker of style @style at (@x, @y), with @tip as its tooltip (NULL:
 * none). */
static void marker(struct svg *s, unsigned style, double x, double y, const char *colour,
		   const char *tip)
{
	static const char *const tags[] = { "circle", "rect", "path" };
	unsigned shape = style / 4 % 3;

	if (shape == 0)
		fprintf(s->f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\"", x, y);
	else if (shape == 1)
		fprintf(s->f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"6\" height=\"6\"", x - 3, y - 3);
	else
		fprintf(s->f, "<path d=\"M%.1f %.1fl4 4l-4 4l-4 -4z\"", x, y - 4);
	fprintf(s->f, " fill=\"%s\"", colour);
	svg_close(s, tags[shape], tip);
}

/* The stroke of a line of style @style: its colour, width and dashes. */
static void stroke(struct svg *s, unsigned style, const char *colour)
{
	fprintf(s->f, " fill=\"none\" stroke=\"%s\" stroke-width=\"2\"", colour);
	if (dashes[style % 4][0])
		fprintf(s->f, " stroke-dasharray=\"%s\"", dashes[style % 4]);
}

static void lines_one(struct svg *s, const struct svg_series *l, const struct svg_axis *ax,
		      const struct svg_axis *ay)
{
	char val[32], tip[128];

	fputs("<polyline", s->f);
	stroke(s, l->style, l->colour);
	fputs(" points=\"", s->f);
	for (size_t k = 0; k < l->n; k++)
		fprintf(s->f, "%s%.1f,%.1f", k ? " " : "", svg_axis_at(ax, log2(l->x[k])),
			svg_axis_at(ay, l->y[k]));
	fputs("\"/>\n", s->f);
	for (size_t k = 0; k < l->n; k++) {
		bench_fmt_ns(val, sizeof(val), l->y[k]);
		snprintf(tip, sizeof(tip), "%s, %g threads: %s", l->label, l->x[k], val);
		marker(s, l->style, svg_axis_at(ax, log2(l->x[k])), svg_axis_at(ay, l->y[k]),
		       l->colour, tip);
	}
}

/* The legend of line @l at @y right of the chart: a sample of it, then its name. */
static void lines_legend(struct svg *s, const struct svg_series *l, double y)
{
	double x = LINES_X1 + 16;

	fprintf(s->f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"", x, y - 4, x + 24,
		y - 4);
	stroke(s, l->style, l->colour);
	fputs("/>\n", s->f);
	marker(s, l->style, x + 12, y - 4, l->colour, NULL);
	svg_text_fit(s, x + 30, y, NULL, RIGHT - x - 30, "%s", l->label);
}

double svg_draw_lines(struct svg *s, double y, const struct svg_chart *c)
{
	struct svg_axis ax, ay;
	char text[300];
	double vmin, vmax, top, bottom;
	bool log;

	top = title_keys(s, y, c->title, c->keys, c->n_keys) + 22;
	bottom = top + LINES_H;
	lines_range(c, &vmin, &vmax);
	/* A system call beside a 10-ns read flattens the reads in linear scale. */
	log = vmax / vmin > 20;
	svg_axis_fit(&ay, vmin, vmax, log, bottom, top);
	svg_grid(s, &ay, false, LINES_X0, LINES_X1);
	lines_x(s, c, &ax, bottom);
	for (size_t i = 0; i < c->n; i++) {
		lines_one(s, &c->s[i], &ax, &ay);
		lines_legend(s, &c->s[i], top + 4 + 18.0 * (double)i);
	}
	snprintf(text, sizeof(text), "%s; ns per call, %s", c->caption,
		 log ? "log scale (each grid line 10x)" : "linear scale");
	bottom = fmax(bottom, top + 18.0 * (double)c->n);
	return caption(s, bottom, text) - y;
}

/* ---- histograms ---- */

#define HIST_ROW 56.0

static void hist_one(struct svg *s, const struct svg_series *h, const struct svg_axis *a,
		     double top)
{
	double max = 0, total = 0;
	char val[32], tip[128];

	for (size_t k = 0; k < h->n; k++) {
		max = fmax(max, h->y[k]);
		total += h->y[k];
	}
	svg_text_fit(s, PLOT_X0 - 8, top + HIST_ROW / 2 + 4, "end", PLOT_X0 - 8 - LABEL_X, "%s",
		     h->label);
	/* A bucket holds the steps from the bucket before it up to its own
	 * bound, so its bar spans that range (the first, a decade). */
	for (size_t k = 0; k < h->n && max > 0; k++) {
		double bh = (HIST_ROW - 12) * h->y[k] / max;
		double x0 = svg_axis_at(a, k ? h->x[k - 1] : h->x[k] / 10);
		double x1 = svg_axis_at(a, h->x[k]);

		bench_fmt_ns(val, sizeof(val), h->x[k]);
		snprintf(tip, sizeof(tip), "%s: %.1f%% of steps below %s", h->label,
			 100 * h->y[k] / total, val);
		svg_rect(s, x0 + 1, top + HIST_ROW - 6 - bh, fmax(x1 - x0 - 2, 2), bh, h->colour,
			 1, tip);
	}
	svg_line(s, PLOT_X0, top + HIST_ROW - 6, PLOT_X1, top + HIST_ROW - 6, "grid");
}

double svg_draw_hists(struct svg *s, double y, const struct svg_chart *c)
{
	struct svg_axis a;
	double vmin = INFINITY, vmax = 0, top, bottom;

	top = title_keys(s, y, c->title, c->keys, c->n_keys) + 12;
	bottom = top + HIST_ROW * (double)c->n;
	for (size_t i = 0; i < c->n; i++)
		for (size_t k = 0; k < c->s[i].n; k++)
			if (c->s[i].x[k] > 0) {
				vmin = fmin(vmin, c->s[i].x[k]);
				vmax = fmax(vmax, c->s[i].x[k]);
			}
	if (vmax <= 0)
		vmin = vmax = 1;
	svg_axis_fit(&a, vmin / 10, vmax, true, PLOT_X0, PLOT_X1);
	svg_grid(s, &a, true, top, bottom);
	for (size_t i = 0; i < c->n; i++)
		hist_one(s, &c->s[i], &a, top + HIST_ROW * (double)i);
	return caption(s, bottom, c->caption) - y;
}
