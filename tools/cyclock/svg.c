/* SPDX-License-Identifier: MIT */
/*
 * The SVG writer behind "cyclock plot" (see svg.h): the primitives, the
 * axes and what the charts (svg_charts.c) draw them with.  Charts draw
 * into a body stream at absolute coordinates; svg_finish() wraps the body
 * once its height is known, so that the viewBox fits what was drawn.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "svg.h"

void svg_escape(FILE *f, const char *s)
{
	size_t len = strlen(s);
	char local[1024], *clean = len < sizeof(local) / 4 ? local : malloc(4 * len + 1);

	if (!clean) {
		fputc('?', f);
		return;
	}
	/* Control characters and bytes that are not UTF-8, which XML 1.0 has
	 * no way to write, come out visible ("\x1b"); 4 bytes per input byte
	 * is the most that takes. */
	bench_text_clean(clean, clean == local ? sizeof(local) : 4 * len + 1, s);
	for (const char *p = clean; *p; p++) {
		if (*p == '&')
			fputs("&amp;", f);
		else if (*p == '<')
			fputs("&lt;", f);
		else if (*p == '>')
			fputs("&gt;", f);
		else if (*p == '"')
			fputs("&quot;", f);
		else if (*p == '\'')
			fputs("&apos;", f);
		else
			fputc(*p, f);
	}
	if (clean != local)
		free(clean);
}

void svg_text(struct svg *s, double x, double y, const char *cls, const char *fmt, ...)
{
	char buf[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	fprintf(s->f, "<text x=\"%.1f\" y=\"%.1f\"", x, y);
	if (cls)
		fprintf(s->f, " class=\"%s\"", cls);
	fputc('>', s->f);
	svg_escape(s->f, buf);
	fputs("</text>\n", s->f);
}

void svg_rect(struct svg *s, double x, double y, double w, double h, const char *fill,
	      double opacity, const char *tip)
{
	fprintf(s->f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"",
		x, y, w > 0 ? w : 0, h > 0 ? h : 0, fill);
	if (opacity < 1)
		fprintf(s->f, " fill-opacity=\"%.2f\"", opacity);
	svg_close(s, "rect", tip);
}

void svg_close(struct svg *s, const char *tag, const char *tip)
{
	if (!tip) {
		fputs("/>\n", s->f);
		return;
	}
	fputs("><title>", s->f);
	svg_escape(s->f, tip);
	fprintf(s->f, "</title></%s>\n", tag);
}

void svg_line(struct svg *s, double x1, double y1, double x2, double y2, const char *cls)
{
	fprintf(s->f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" class=\"%s\"/>\n",
		x1, y1, x2, y2, cls);
}

int svg_finish(FILE *out, double height, const char *title, const char *body, size_t len)
{
	fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %.0f %.0f\" "
		"width=\"%.0f\" height=\"%.0f\">\n<title>", SVG_WIDTH, height, SVG_WIDTH, height);
	svg_escape(out, title);
	/* Generic font families only: a standalone file can rely on nothing else. */
	fputs("</title>\n<style>\n"
	      "text { font-family: sans-serif; font-size: 12px; fill: #222; }\n"
	      ".title { font-size: 17px; font-weight: bold; }\n"
	      ".head { font-size: 14px; font-weight: bold; }\n"
	      ".small { font-size: 10.5px; fill: #555; }\n"
	      ".group { font-weight: bold; fill: #555; }\n"
	      ".end { text-anchor: end; }\n"
	      ".mid { text-anchor: middle; }\n"
	      ".inbar { fill: #fff; }\n"
	      ".grid { stroke: #e3e3e3; stroke-width: 1; }\n"
	      ".axis { stroke: #888; stroke-width: 1; }\n"
	      "</style>\n<rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>\n", out);
	fwrite(body, 1, len, out);
	fputs("</svg>\n", out);
	return fflush(out) || ferror(out) ? -1 : 0;
}

/* ---- axes ---- */

/* @v within [@lo, @hi], NaN as @lo: an axis is made of finite numbers. */
static double clamp(double v, double lo, double hi)
{
	return v >= lo ? (v <= hi ? v : hi) : lo;
}

void svg_axis_fit(struct svg_axis *a, double vmin, double vmax, bool log, double p0, double p1)
{
	a->log = log;
	a->p0 = p0;
	a->p1 = p1;
	if (log) {
		/* Whole decades between SVG_AXIS_MIN and SVG_AXIS_MAX: pow(10, floor(
		 * log10(v))) of a subnormal v is 0, and of an infinite v infinite. */
		vmin = clamp(vmin, SVG_AXIS_MIN, SVG_AXIS_MAX);
		vmax = clamp(vmax, vmin, SVG_AXIS_MAX);
		a->lo = pow(10, floor(log10(vmin)));
		a->hi = pow(10, ceil(log10(vmax)));
		if (a->hi <= a->lo)
			a->hi = a->lo * 10;
		return;
	}
	a->lo = 0;
	a->hi = vmax > 0 ? clamp(vmax, SVG_AXIS_MIN, SVG_AXIS_MAX) : 1;
	/* Round up to 1, 2 or 5 times a power of ten, for round grid lines. */
	for (double step = pow(10, floor(log10(a->hi))); ; step *= 10) {
		if (a->hi <= step) { a->hi = step; break; }
		if (a->hi <= 2 * step) { a->hi = 2 * step; break; }
		if (a->hi <= 5 * step) { a->hi = 5 * step; break; }
	}
}

double svg_axis_at(const struct svg_axis *a, double v)
{
	double f;

	if (a->log)
		f = v > 0 ? log10(v / a->lo) / log10(a->hi / a->lo) : 0;
	else
		f = (v - a->lo) / (a->hi - a->lo);
	/* Off the axis (NaN too) lands on its ends, never outside them. */
	return a->p0 + clamp(f, 0, 1) * (a->p1 - a->p0);
}

/* A tick's label: round values as one would say them ("1 ns", "100 us"). */
static void tick_label(char *buf, size_t len, double v)
{
	static const char *const units[] = { "ns", "us", "ms", "s" };
	size_t u = 0;

	while (fabs(v) >= 1000 && u + 1 < sizeof(units) / sizeof(units[0])) {
		v /= 1000;
		u++;
	}
	snprintf(buf, len, "%.3g %s", v, units[u]);
}

/* Every how many lines of @a a label goes, so that labels @need px apart
 * (from one's middle to the next one's) never touch: 1, 2, 5, 10, 20... */
static int label_every(const struct svg_axis *a, int steps, double need)
{
	double gap = fabs(a->p1 - a->p0) / steps;

	for (int k = 1; ; k *= 10) {
		if (gap * k >= need || k >= steps)
			return k;
		if (gap * 2 * k >= need)
			return 2 * k;
		if (gap * 5 * k >= need)
			return 5 * k;
	}
}

void svg_grid(struct svg *s, const struct svg_axis *a, bool is_x, double from, double to)
{
	char buf[32];
	int steps = a->log ? (int)lround(log10(a->hi / a->lo)) : 5, every;
	double widest = 0;

	for (int i = 0; i <= steps; i++) {
		tick_label(buf, sizeof(buf), a->log ? a->lo * pow(10, i) : a->hi * i / steps);
		widest = fmax(widest, svg_text_width(buf, "small"));
	}
	/* Side by side (x), labels need their width and a gap; stacked (y),
	 * their height (10.5 px) and a gap. */
	every = label_every(a, steps, is_x ? widest + 6 : 14);
	for (int i = 0; i <= steps; i++) {
		double v = a->log ? a->lo * pow(10, i) : a->hi * i / steps;
		double at = svg_axis_at(a, v);

		tick_label(buf, sizeof(buf), v);
		svg_line(s, is_x ? at : from, is_x ? from : at, is_x ? at : to, is_x ? to : at,
			 "grid");
		if (i % every)
			continue;
		if (is_x)
			svg_text(s, at, to + 14, "small mid", "%s", buf);
		else
			svg_text(s, from - 6, at + 4, "small end", "%s", buf);
	}
	if (is_x)
		svg_line(s, a->p0, to, a->p1, to, "axis");
	else
		svg_line(s, from, a->p0, from, a->p1, "axis");
}
