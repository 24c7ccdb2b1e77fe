/* SPDX-License-Identifier: MIT */
/*
 * A small SVG writer for "cyclock plot": primitives that escape every
 * string they are given, axes in linear or log scale, and three charts
 * (horizontal bars, lines, histograms) that each draw at a given height
 * and say how much room they took, so that a picture is a stack of them.
 * The output is standalone: no script, no external font or file.
 */
#ifndef CYCLOCK_TOOL_SVG_H
#define CYCLOCK_TOOL_SVG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "svg_font.h" /* the text's measure */

#define SVG_WIDTH 800.0
#define SVG_MARGIN 8.0 /* the least room between a text and the picture's edge */

struct svg {
	FILE *f; /* the body; svg_finish() puts the header around it */
};

/* Writes @s to @f with &, <, >, " and ' escaped, and what XML forbids or
 * a viewer could misread (control characters, bytes that are not UTF-8)
 * made visible by bench_text_clean() ("\x1b"). */
void svg_escape(FILE *f, const char *s);
/* Ends an element <@tag whose attributes are written: with @tip as its
 * tooltip (<title>), or empty when @tip is NULL. */
void svg_close(struct svg *s, const char *tag, const char *tip);
/* <text> at (@x, @y) of class @cls (space-separated; NULL: none). */
void svg_text(struct svg *s, double x, double y, const char *cls, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
/* A rectangle filled with @fill, with @tip as its tooltip (NULL: none). */
void svg_rect(struct svg *s, double x, double y, double w, double h, const char *fill,
	      double opacity, const char *tip);
void svg_line(struct svg *s, double x1, double y1, double x2, double y2, const char *cls);
/* Writes the document (header, style, @title, body @body[0..len)) to @out.
 * 0, or -1 when @out reports an error. */
int svg_finish(FILE *out, double height, const char *title, const char *body, size_t len);

/* ---- text that fits (svg_text.c) ---- */

/* svg_text(), the text cut at a character boundary with an ellipsis when
 * it is wider than @maxw; returns the width drawn. */
double svg_text_fit(struct svg *s, double x, double y, const char *cls, double maxw,
		    const char *fmt, ...) __attribute__((format(printf, 6, 7)));
/* @text in lines of at most @x1 - @x0 px, broken at spaces, the first at
 * @y, each @leading below the last, anchored in [@x0, @x1] as @cls says;
 * returns how many lines it took. */
int svg_text_wrap(struct svg *s, double x0, double x1, double y, const char *cls,
		  double leading, const char *text);

/* A legend's entry: what a colour means. */
struct svg_key {
	const char *name, *colour;
};

/* A swatch and a name, for legends; returns where the next one goes. */
double svg_legend_item(struct svg *s, double x, double y, const char *colour, double opacity,
		       const char *name);
/* @keys[0..n) from (@x, @y) on, in as many rows 18 px apart as the width
 * takes; returns the last row's y. */
double svg_keys(struct svg *s, double x, double y, const struct svg_key *keys, size_t n);

/* ---- axes ---- */

struct svg_axis {
	double lo, hi; /* values at the ends; powers of ten in log scale */
	double p0, p1; /* where they land, in px */
	bool log;
};

/* The values an axis can span: what lies outside (a subnormal, an
 * infinity, NaN) is put on its end. */
#define SVG_AXIS_MIN 1e-300
#define SVG_AXIS_MAX 1e300

/* Fits @a around [@vmin, @vmax] (log scale: whole decades; linear starts
 * at 0 and ends on a round number), clamped to [SVG_AXIS_MIN,
 * SVG_AXIS_MAX], so that any input gives finite ends. */
void svg_axis_fit(struct svg_axis *a, double vmin, double vmax, bool log, double p0, double p1);
/* Where @v lands on @a, within [p0, p1] whatever @v is (NaN: at p0). */
double svg_axis_at(const struct svg_axis *a, double v);
/* Grid lines and labels of @a, every decade in log scale, five steps in
 * linear: an x axis (@is_x) with its lines from @from (top) to @to
 * (bottom) and its labels below them, or a y axis with its lines from
 * @from (left) to @to (right) and its labels left of them.  Where the
 * labels would crowd each other (many decades), every second, fifth or
 * tenth has one, the rest a line only. */
void svg_grid(struct svg *s, const struct svg_axis *a, bool is_x, double from, double to);

/* ---- charts (svg_charts.c) ---- */

struct svg_bar {
	char label[48];
	const char *group;  /* a heading row before the first bar of each group; NULL: none */
	const char *colour;
	double v[2];        /* the bars, in ns; NAN: absent */
	double ratio[2];    /* each against the floor, written after its value; NAN: none */
	bool noisy;
};

struct svg_hbars {
	const char *title, *caption;
	const char *series[2]; /* legend; series[1] NULL: one bar per row */
	const struct svg_key *keys; /* what the colours mean, under the title */
	size_t n_keys;
	const struct svg_bar *bars;
	size_t n;
};

/* Horizontal bars on a log axis; draws from @y, returns the height used. */
double svg_draw_hbars(struct svg *s, double y, const struct svg_hbars *c);

#define SVG_MAX_POINTS 32

/* One line's points, or one histogram's buckets (x: a bucket's bound in
 * ns, y: how many fell in it); x ascending either way. */
struct svg_series {
	char label[48];
	const char *colour;
	unsigned style; /* lines: a dash pattern and a marker, to tell lines of one colour apart */
	double x[SVG_MAX_POINTS], y[SVG_MAX_POINTS];
	size_t n;
};

/* A chart of series: lines or histograms. */
struct svg_chart {
	const char *title;
	const char *caption; /* lines: the x axis's name; histograms: the line under them */
	const struct svg_key *keys; /* what the colours mean, under the title */
	size_t n_keys;
	const struct svg_series *s;
	size_t n;
};

/* One line per series, x in log2 (thread counts), y in ns. */
double svg_draw_lines(struct svg *s, double y, const struct svg_chart *c);

/* One row of bars per series, a histogram each, sharing a log x axis. */
double svg_draw_hists(struct svg *s, double y, const struct svg_chart *c);

#endif /* CYCLOCK_TOOL_SVG_H */
