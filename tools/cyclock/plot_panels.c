/* SPDX-License-Identifier: MIT */
/*
 * The panels of "cyclock plot": what one call costs per clock (warm), how
 * that cost grows with threads (scale) and how finely each clock ticks
 * (resolution), each from the results of its scenario.  A stored run
 * names its clock and variant; a Google Benchmark file only has names
 * like "warm/rdtsc/latency", so what a result is about is read from
 * whichever the file has.  Every clock belongs to a group (cyclock's, the
 * C++ clocks over it, the kernel's and libc's, the engine's, the floors),
 * and a group has one colour in every panel, which each panel's legend
 * names.
 *
 * Over 400 lines: the three panels and what only they share, reading a
 * run (its first section: names, groups, colours), so that each panel is
 * read beside the helpers it uses.  A fourth panel, or another user of
 * the groups, is the time to give that section a file of its own.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "plot.h"
#include "svg.h"

/* ---- what the run has ---- */

/* The part @k (0: the scenario) of @r's name, into @buf. */
static void name_part(const struct bench_result *r, int k, char *buf, size_t len)
{
	const char *p = r->name, *end;

	for (; k > 0 && p; k--)
		p = (p = strchr(p, '/')) ? p + 1 : NULL;
	end = p ? strchr(p, '/') : NULL;
	snprintf(buf, len, "%.*s", p ? (int)(end ? (size_t)(end - p) : strlen(p)) : 0,
		 p ? p : "");
}

/* The clock of @r: its own label, or, in a Google Benchmark file without
 * one, the second part of its name. */
static void clock_of(const struct bench_result *r, char *buf, size_t len)
{
	if (r->clock[0])
		snprintf(buf, len, "%s", r->clock);
	else
		name_part(r, 1, buf, len);
}

/* The N of "/threads:N" in @r's name, or 0.  A stored run's "threads"
 * field says 1 for results that are not about threads. */
static int threads_of(const struct bench_result *r)
{
	const char *t = strstr(r->name, "/threads:");

	return t ? atoi(t + 9) : 0;
}

static bool is_variant(const struct bench_result *r, const char *variant)
{
	char v[64];

	if (r->variant[0])
		return !strcmp(r->variant, variant);
	name_part(r, 2, v, sizeof(v));
	return !strcmp(v, variant) || (!strcmp(variant, "throughput") && !v[0]);
}

/* The groups in the order of the legends, each with its colour, tellable
 * apart on white and by most colour-blind eyes (a blue, a purple, an
 * orange, a green and a grey), and its heading in the cost panel. */
static const struct plot_group {
	struct svg_key key;
	const char *heading;
} groups[] = {
	{ { "cyclock", "#1f77b4" }, "cyclock" },
	{ { "C++ on cyclock", "#9467bd" }, "C++ on cyclock: cyclock.hpp's std::chrono clocks" },
	{ { "kernel and libc", "#e6750a" }, "kernel and libc" },
	{ { "engine", "#2ca02c" }, "engine: cyclock_read() on a clock of the tool's own" },
	{ { "floors", "#7f7f7f" }, "floors: the counter read, bare or in ns" },
};

enum { G_CYCLOCK, G_CXX, G_KERNEL, G_ENGINE, G_FLOORS, N_GROUPS };

static const struct plot_group *group_of(const char *clock)
{
	static const char *const floors[] = {
		"rdtsc", "rdtscp", "lfence_rdtsc", "cntvct", "isb_cntvct", "ordered_ns",
	};

	if (!strncmp(clock, "cyclock", 7))
		return &groups[G_CYCLOCK];
	if (!strncmp(clock, "cxx_", 4))
		return &groups[G_CXX];
	if (!strncmp(clock, "engine_", 7))
		return &groups[G_ENGINE];
	for (size_t i = 0; i < sizeof(floors) / sizeof(floors[0]); i++)
		if (!strcmp(clock, floors[i]))
			return &groups[G_FLOORS];
	return &groups[G_KERNEL];
}

/* The legend of a panel whose clocks are @labels[0..n) (@stride bytes
 * apart): the groups they belong to, in the legends' order, into @keys;
 * returns how many. */
static size_t keys_of(struct svg_key *keys, const char *labels, size_t stride, size_t n)
{
	bool present[N_GROUPS] = { false };
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		present[group_of(labels + i * stride) - groups] = true;
	for (size_t g = 0; g < N_GROUPS; g++)
		if (present[g])
			keys[k++] = groups[g].key;
	return k;
}

/* Each series in its group's colour, the lines of one group told apart
 * by their style (the how-manieth of the group each is). */
static void colour_series(struct svg_series *ser, size_t n)
{
	unsigned seen[N_GROUPS] = { 0 };

	for (size_t i = 0; i < n; i++) {
		const struct plot_group *g = group_of(ser[i].label);

		ser[i].colour = g->key.colour;
		ser[i].style = seen[g - groups]++;
	}
}

/* ---- the panels ---- */

/* Whether @ns is a time a panel can draw: finite and from PLOT_MIN_NS to
 * PLOT_MAX_NS.  Below a thousandth of a ns no clock measures, and a
 * subnormal or infinite figure has no place on a log axis; what is left
 * out is counted, and the panel's caption says how many. */
static bool usable(double ns, size_t *dropped)
{
	if (isfinite(ns) && ns >= PLOT_MIN_NS && ns <= PLOT_MAX_NS)
		return true;
	(*dropped)++;
	return false;
}

/* "; 3 figures left out ...", or "" when none was. */
static const char *dropped_note(char *buf, size_t len, size_t dropped)
{
	buf[0] = '\0';
	if (dropped)
		snprintf(buf, len, "; %zu figure%s left out (not finite, or not from %g ns to "
			 "%g ns)", dropped, dropped == 1 ? "" : "s", PLOT_MIN_NS, PLOT_MAX_NS);
	return buf;
}

/* The bar of @clock in @bars[0..*n), added at the end of its group. */
static struct svg_bar *bar_for(struct svg_bar *bars, size_t *n, const char *clock)
{
	const struct plot_group *g = group_of(clock);
	size_t at = *n;

	for (size_t i = 0; i < *n; i++) {
		if (!strcmp(bars[i].label, clock))
			return &bars[i];
		if (bars[i].group == g->heading)
			at = i + 1;
	}
	/* Groups keep the order they were first met in; a clock joins the end
	 * of its own. */
	memmove(&bars[at + 1], &bars[at], (*n - at) * sizeof(bars[0]));
	memset(&bars[at], 0, sizeof(bars[0]));
	snprintf(bars[at].label, sizeof(bars[at].label), "%s", clock);
	bars[at].group = g->heading;
	bars[at].colour = g->key.colour;
	bars[at].v[0] = bars[at].v[1] = NAN;
	bars[at].ratio[0] = bars[at].ratio[1] = NAN;
	(*n)++;
	return &bars[at];
}

/* The cost panel's caption: its scale, what its ratios are against (when
 * it has any), the noisy mark, and what was left out. */
static void cost_caption(char *buf, size_t len, const struct bench_run *run, bool ratios,
			 size_t dropped)
{
	char note[100];

	snprintf(buf, len,
		 "median ns per call, log scale: each grid line is 10x the one before%s%s%s; "
		 "~\u00a0marks a noisy figure%s",
		 ratios ? "; (1.04x): against " : "",
		 !ratios ? "" : run->ctx.floor[0] ? run->ctx.floor : "the floor",
		 ratios && run->ctx.floor[0] ? ", the least an ordered ns clock can cost" : "",
		 dropped_note(note, sizeof(note), dropped));
}

double tool_plot_cost(struct svg *s, double y, const struct bench_run *run)
{
	struct svg_bar *bars = calloc(run->n + 1, sizeof(*bars));
	struct svg_hbars c = { .title = "What one call costs (warm: a tight loop)", .bars = bars };
	struct svg_key keys[N_GROUPS];
	bool latency = false, ratios = false;
	char clock[48], caption[300];
	size_t dropped = 0;

	if (!bars)
		return -1;
	for (size_t i = 0; i < run->n; i++) {
		const struct bench_result *r = &run->v[i];
		int k = is_variant(r, "throughput") ? 0 : is_variant(r, "latency") ? 1 : -1;
		struct svg_bar *b;

		if (strcmp(r->scenario, "warm") || k < 0 || r->higher_is_better ||
		    !usable(r->st.median, &dropped))
			continue;
		clock_of(r, clock, sizeof(clock));
		b = bar_for(bars, &c.n, clock);
		b->v[k] = r->st.median;
		b->ratio[k] = bench_result_get(r, "x_floor");
		ratios |= b->ratio[k] > 0;
		b->noisy |= r->noisy;
		latency |= k == 1;
	}
	c.series[0] = "throughput (back to back)";
	c.series[1] = latency ? "latency (each read waits for the last)" : NULL;
	cost_caption(caption, sizeof(caption), run, ratios, dropped);
	c.caption = caption;
	c.keys = keys;
	c.n_keys = keys_of(keys, bars[0].label, sizeof(bars[0]), c.n);
	y = c.n ? svg_draw_hbars(s, y, &c) : 0;
	free(bars);
	return y;
}

/* The series of @clock in @ser[0..*n), or a new one (NULL when full). */
static struct svg_series *series_for(struct svg_series *ser, size_t *n, size_t max,
				     const char *clock)
{
	for (size_t i = 0; i < *n; i++)
		if (!strcmp(ser[i].label, clock))
			return &ser[i];
	if (*n == max)
		return NULL;
	memset(&ser[*n], 0, sizeof(ser[0]));
	snprintf(ser[*n].label, sizeof(ser[0].label), "%s", clock);
	return &ser[(*n)++];
}

/* Adds the point (@x, @y) to @l, keeping x ascending. */
static void series_add(struct svg_series *l, double x, double y)
{
	size_t at = l->n;

	if (l->n == SVG_MAX_POINTS)
		return;
	while (at > 0 && l->x[at - 1] > x)
		at--;
	memmove(&l->x[at + 1], &l->x[at], (l->n - at) * sizeof(l->x[0]));
	memmove(&l->y[at + 1], &l->y[at], (l->n - at) * sizeof(l->y[0]));
	l->x[at] = x;
	l->y[at] = y;
	l->n++;
}

/* As many lines as a chart can tell apart (by group colour, dash and
 * marker) and its legend hold. */
#define MAX_LINES 10

/* When a run has more clocks than lines, these are drawn: cyclock's main
 * readers, the floors (ordered_ns, the x floor ratios' reference, or, in
 * a file from before it, the ordered read), the vDSO, its coarse clock,
 * and the system calls whose cost grows with threads. */
static const char *const scale_picks[] = {
	"cyclock_now", "cyclock_now_relaxed", "cyclock_coarse", "rdtsc", "ordered_ns",
	"lfence_rdtsc", "cntvct", "isb_cntvct", "monotonic", "monotonic_coarse",
	"syscall_monotonic", "process_cputime",
};

/* Whether the clock of scale result @r gets a line: every clock when the
 * run has few, else the picks. */
static bool scale_drawn(const struct bench_run *run, const char *clock)
{
	size_t clocks = 0;

	for (size_t i = 0; i < run->n; i++)
		clocks += !strcmp(run->v[i].scenario, "scale") && threads_of(&run->v[i]) == 1 &&
			  !run->v[i].variant[0];
	if (clocks <= MAX_LINES)
		return true;
	for (size_t k = 0; k < sizeof(scale_picks) / sizeof(scale_picks[0]); k++)
		if (!strcmp(clock, scale_picks[k]))
			return true;
	return false;
}

double tool_plot_scale(struct svg *s, double y, const struct bench_run *run)
{
	struct svg_series ser[MAX_LINES];
	struct svg_chart c = {
		.title = "What one call costs as threads read at once (scale)", .s = ser,
	};
	struct svg_key keys[N_GROUPS];
	char clock[48], caption[160], note[100];
	size_t dropped = 0;

	for (size_t i = 0; i < run->n; i++) {
		const struct bench_result *r = &run->v[i];
		struct svg_series *l;

		/* Idle threads are another question (does an idle sibling cost
		 * CPU time?) with its own variant; only readers are drawn. */
		if (strcmp(r->scenario, "scale") || threads_of(r) < 1 || r->variant[0] ||
		    !usable(r->st.median, &dropped))
			continue;
		clock_of(r, clock, sizeof(clock));
		if (!scale_drawn(run, clock))
			continue;
		l = series_for(ser, &c.n, MAX_LINES, clock);
		if (l)
			series_add(l, threads_of(r), r->st.median);
	}
	snprintf(caption, sizeof(caption), "threads reading (log2)%s",
		 dropped_note(note, sizeof(note), dropped));
	c.caption = caption;
	c.keys = keys;
	c.n_keys = keys_of(keys, ser[0].label, sizeof(ser[0]), c.n);
	colour_series(ser, c.n);
	return c.n ? svg_draw_lines(s, y, &c) : 0;
}

/* The "hist_<ns>" extras of @r as a histogram; false when it has none. */
static bool hist_of(const struct bench_result *r, struct svg_series *h, size_t *dropped)
{
	memset(h, 0, sizeof(*h));
	clock_of(r, h->label, sizeof(h->label));
	for (size_t e = 0; e < r->n_extra && h->n < SVG_MAX_POINTS; e++) {
		double at = atof(r->extra[e].key + 5);
		size_t k = h->n;

		if (strncmp(r->extra[e].key, "hist_", 5))
			continue;
		if (!usable(at, dropped) || !(r->extra[e].value >= 0))
			continue;
		while (k > 0 && h->x[k - 1] > at) {
			h->x[k] = h->x[k - 1];
			h->y[k] = h->y[k - 1];
			k--;
		}
		h->x[k] = at;
		h->y[k] = r->extra[e].value;
		h->n++;
	}
	return h->n > 0;
}

static double panel_hists(struct svg *s, double y, const struct bench_run *run)
{
	struct svg_series *h = calloc(run->n + 1, sizeof(*h));
	struct svg_chart c = { .title = "How finely each clock ticks (resolution)", .s = h };
	struct svg_key keys[N_GROUPS];
	char caption[220], note[100];
	size_t dropped = 0;

	if (!h)
		return -1;
	for (size_t i = 0; i < run->n; i++)
		if (!strcmp(run->v[i].scenario, "resolution") &&
		    hist_of(&run->v[i], &h[c.n], &dropped))
			c.n++;
	snprintf(caption, sizeof(caption), "steps between back-to-back readings, by size in ns "
		 "(log scale); bar height: share of the clock's steps%s",
		 dropped_note(note, sizeof(note), dropped));
	c.caption = caption;
	c.keys = keys;
	c.n_keys = keys_of(keys, h[0].label, sizeof(h[0]), c.n);
	colour_series(h, c.n);
	y = c.n ? svg_draw_hists(s, y, &c) : 0;
	free(h);
	return y;
}

/* Without histograms, the smallest step per clock, as bars. */
double tool_plot_resolution(struct svg *s, double y, const struct bench_run *run)
{
	struct svg_bar *bars = calloc(run->n + 1, sizeof(*bars));
	struct svg_hbars c = { .title = "How finely each clock ticks (resolution)", .bars = bars };
	struct svg_key keys[N_GROUPS];
	char clock[48], caption[220], note[100];
	size_t dropped = 0;
	double h;

	if (!bars)
		return -1;
	for (size_t i = 0; i < run->n; i++) {
		const struct bench_result *r = &run->v[i];
		struct svg_bar *b;

		if (strcmp(r->scenario, "resolution") || !usable(r->st.median, &dropped))
			continue;
		clock_of(r, clock, sizeof(clock));
		b = bar_for(bars, &c.n, clock);
		b->v[0] = r->st.median;
		b->noisy |= r->noisy;
	}
	snprintf(caption, sizeof(caption), "smallest non-zero step between two readings in ns, "
		 "log scale: each grid line is 10x the one before%s",
		 dropped_note(note, sizeof(note), dropped));
	c.caption = caption;
	c.keys = keys;
	c.n_keys = keys_of(keys, bars[0].label, sizeof(bars[0]), c.n);
	h = panel_hists(s, y, run);
	if (!h && c.n)
		h = svg_draw_hbars(s, y, &c);
	free(bars);
	return h;
}
