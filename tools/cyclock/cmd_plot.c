/* SPDX-License-Identifier: MIT */
/*
 * cyclock plot FILE.json --out FILE.svg [--table]: the pictures of a
 * stored run that a person would rather look at than read.  Three panels,
 * each left out when the run has nothing for it: what one call costs per
 * clock (warm), how that cost grows with threads (scale), and how finely
 * each clock ticks (resolution).  Costs span from a few ns (a counter
 * read) to hundreds (a system call), so every cost axis that must show
 * both is in log scale and says so.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>

#include "bench.h"
#include "cmd.h"
#include "svg.h"

struct plot_opts {
	const char *in, *out;
	bool table;
};

static void usage(FILE *f)
{
	fputs("usage: cyclock plot FILE.json --out FILE.svg [--table]\n"
	      "       cyclock plot FILE.json --table\n\n"
	      "Draws a run stored by \"cyclock bench --json FILE.json\" as one standalone SVG:\n"
	      "the cost of a call per clock (warm), the cost against threads (scale) and\n"
	      "the resolution per clock, each panel only when the run has it.\n\n"
	      "  --out FILE.svg  where to write it (\"-\": standard output); replaced whole\n"
	      "  --table         also print the run's table to standard output\n"
	      "  -h, --help      this text\n\n"
	      "Exit status: 0 done, 1 the output could not be written, 2 bad command line,\n"
	      "3 the input is unreadable, malformed or has nothing to plot.\n", f);
}

/* 0: parsed; 1: --help was asked for; -1: a usage error, printed. */
static int parse(int argc, char **argv, struct plot_opts *o)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			return 1;
		} else if (!strcmp(a, "--table")) {
			o->table = true;
		} else if (!strcmp(a, "--out") || !strcmp(a, "-o")) {
			if (++i == argc) {
				tool_error("plot: %s needs a file name", a);
				return -1;
			}
			o->out = argv[i];
		} else if (!strncmp(a, "--out=", 6)) {
			o->out = a + 6;
		} else if (a[0] == '-' && a[1]) {
			tool_error("plot: unknown option '%s' (try 'cyclock plot --help')", a);
			return -1;
		} else if (o->in) {
			tool_error("plot: one input file only ('%s' and '%s')", o->in, a);
			return -1;
		} else {
			o->in = a;
		}
	}
	if (o->table && o->out && !strcmp(o->out, "-")) {
		tool_error("plot: --table and --out - would mix on standard output");
		return -1;
	}
	if (!o->in || (!o->out && !o->table) || (o->out && !o->out[0])) {
		tool_error("plot: missing %s (try 'cyclock plot --help')",
			   !o->in ? "FILE.json" : "--out FILE.svg");
		return -1;
	}
	return 0;
}

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

static const char *group_of(const char *clock)
{
	static const char *const floors[] = {
		"rdtsc", "rdtscp", "lfence_rdtsc", "cntvct", "isb_cntvct",
	};

	if (!strncmp(clock, "cyclock", 7))
		return "cyclock";
	for (size_t i = 0; i < sizeof(floors) / sizeof(floors[0]); i++)
		if (!strcmp(clock, floors[i]))
			return "floors: the bare counter";
	return "kernel and libc";
}

static const char *group_colour(const char *group)
{
	return group[0] == 'c' ? "#1f77b4" : group[0] == 'f' ? "#7f7f7f" : "#e6750a";
}


/* ---- the panels ---- */

/* The bar of @clock in @bars[0..*n), added at the end of its group. */
static struct svg_bar *bar_for(struct svg_bar *bars, size_t *n, const char *clock)
{
	const char *group = group_of(clock);
	size_t at = *n;

	for (size_t i = 0; i < *n; i++) {
		if (!strcmp(bars[i].label, clock))
			return &bars[i];
		if (!strcmp(bars[i].group, group))
			at = i + 1;
	}
	/* Groups keep the order they were first met in; a clock joins the end
	 * of its own. */
	memmove(&bars[at + 1], &bars[at], (*n - at) * sizeof(bars[0]));
	memset(&bars[at], 0, sizeof(bars[0]));
	snprintf(bars[at].label, sizeof(bars[at].label), "%s", clock);
	bars[at].group = group;
	bars[at].colour = group_colour(group);
	bars[at].v[0] = bars[at].v[1] = NAN;
	(*n)++;
	return &bars[at];
}

static double panel_cost(struct svg *s, double y, const struct bench_run *run)
{
	struct svg_bar *bars = calloc(run->n + 1, sizeof(*bars));
	struct svg_hbars c = { .title = "What one call costs (warm: a tight loop)", .bars = bars };
	bool latency = false;
	char clock[48];

	if (!bars)
		return -1;
	for (size_t i = 0; i < run->n; i++) {
		const struct bench_result *r = &run->v[i];
		int k = is_variant(r, "throughput") ? 0 : is_variant(r, "latency") ? 1 : -1;
		struct svg_bar *b;

		if (strcmp(r->scenario, "warm") || k < 0 || r->higher_is_better)
			continue;
		clock_of(r, clock, sizeof(clock));
		b = bar_for(bars, &c.n, clock);
		b->v[k] = r->st.median;
		b->noisy |= r->noisy;
		latency |= k == 1;
	}
	c.series[0] = "throughput (back to back)";
	c.series[1] = latency ? "latency (each read waits for the last)" : NULL;
	c.caption = "median ns per call, log scale: each grid line is 10x the one before; "
		    "~ marks a noisy figure";
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

#define MAX_LINES 12

static double panel_scale(struct svg *s, double y, const struct bench_run *run)
{
	struct svg_series ser[MAX_LINES];
	struct svg_lines c = {
		.title = "What one call costs as threads read at once (scale)",
		.xlabel = "threads reading (log2)", .s = ser,
	};
	char clock[48];

	for (size_t i = 0; i < run->n; i++) {
		const struct bench_result *r = &run->v[i];
		struct svg_series *l;

		/* Idle threads are another question (does an idle sibling cost
		 * CPU time?) with its own variant; only readers are drawn. */
		if (strcmp(r->scenario, "scale") || threads_of(r) < 1 || r->variant[0] ||
		    !(r->st.median > 0))
			continue;
		clock_of(r, clock, sizeof(clock));
		l = series_for(ser, &c.n, MAX_LINES, clock);
		if (l)
			series_add(l, threads_of(r), r->st.median);
	}
	return c.n ? svg_draw_lines(s, y, &c) : 0;
}

/* The "hist_<ns>" extras of @r as a histogram; false when it has none. */
static bool hist_of(const struct bench_result *r, struct svg_hist *h)
{
	memset(h, 0, sizeof(*h));
	clock_of(r, h->label, sizeof(h->label));
	for (size_t e = 0; e < r->n_extra && h->n < SVG_MAX_POINTS; e++) {
		double at = atof(r->extra[e].key + 5);
		size_t k = h->n;

		if (strncmp(r->extra[e].key, "hist_", 5) || !(at > 0) || !(r->extra[e].value >= 0))
			continue;
		while (k > 0 && h->at[k - 1] > at) {
			h->at[k] = h->at[k - 1];
			h->count[k] = h->count[k - 1];
			k--;
		}
		h->at[k] = at;
		h->count[k] = r->extra[e].value;
		h->n++;
	}
	return h->n > 0;
}

static double panel_hists(struct svg *s, double y, const struct bench_run *run)
{
	struct svg_hist *h = calloc(run->n + 1, sizeof(*h));
	struct svg_hists c = {
		.title = "How finely each clock ticks (resolution)", .h = h,
		.caption = "steps between back-to-back readings, by size in ns (log scale); "
			   "bar height: share of the clock's steps",
	};

	if (!h)
		return -1;
	for (size_t i = 0; i < run->n; i++)
		if (!strcmp(run->v[i].scenario, "resolution") && hist_of(&run->v[i], &h[c.n]))
			c.n++;
	y = c.n ? svg_draw_hists(s, y, &c) : 0;
	free(h);
	return y;
}

/* Without histograms, the smallest step per clock, as bars. */
static double panel_resolution(struct svg *s, double y, const struct bench_run *run)
{
	struct svg_bar *bars = calloc(run->n + 1, sizeof(*bars));
	struct svg_hbars c = {
		.title = "How finely each clock ticks (resolution)", .bars = bars,
		.caption = "smallest non-zero step between two readings in ns, log scale: "
			   "each grid line is 10x the one before",
	};
	char clock[48];
	double h;

	if (!bars)
		return -1;
	for (size_t i = 0; i < run->n; i++) {
		const struct bench_result *r = &run->v[i];
		struct svg_bar *b;

		if (strcmp(r->scenario, "resolution"))
			continue;
		clock_of(r, clock, sizeof(clock));
		b = bar_for(bars, &c.n, clock);
		b->v[0] = r->st.median;
		b->noisy |= r->noisy;
	}
	h = panel_hists(s, y, run);
	if (!h && c.n)
		h = svg_draw_hbars(s, y, &c);
	free(bars);
	return h;
}

/* ---- the picture ---- */

#define HEADER_H 56.0

static void header(struct svg *s, const struct bench_run *run, const char *in)
{
	const struct bench_context *ctx = &run->ctx;

	svg_text(s, 8, 24, "title", "What time costs%s%s", ctx->cpu_model[0] ? " on " : "",
		 ctx->cpu_model);
	if (ctx->arch[0] || ctx->kernel[0])
		svg_text(s, 8, 44, "small", "%s%s%s%s%s%s%s", ctx->arch,
			 ctx->kernel[0] ? ", " : "", ctx->kernel,
			 ctx->clocksource[0] ? ", kernel clocksource " : "", ctx->clocksource,
			 ctx->date[0] ? ", " : "", ctx->date);
	else
		svg_text(s, 8, 44, "small", "from %s", in);
}

/* Draws every panel the run has below the header; the height in all, 0
 * when no panel had anything to show, -1 when out of memory. */
static double draw(struct svg *s, const struct bench_run *run, const char *in)
{
	static double (*const panels[])(struct svg *, double, const struct bench_run *) = {
		panel_cost, panel_scale, panel_resolution,
	};
	double y = HEADER_H;

	header(s, run, in);
	for (size_t i = 0; i < sizeof(panels) / sizeof(panels[0]); i++) {
		double h = panels[i](s, y, run);

		if (h < 0)
			return -1;
		y += h;
	}
	return y > HEADER_H ? y + 8 : 0;
}

/* The whole document into a buffer the caller frees, with its length;
 * NULL with *@nothing set when the run had nothing to plot. */
static char *render(const struct bench_run *run, const char *in, size_t *len, bool *nothing)
{
	char *body = NULL, *doc = NULL, title[256];
	size_t body_len = 0;
	struct svg s = { .f = open_memstream(&body, &body_len) };
	FILE *f;
	double h;

	*nothing = false;
	if (!s.f)
		return NULL;
	h = draw(&s, run, in);
	if (fclose(s.f) || h <= 0) {
		*nothing = h == 0;
		free(body);
		return NULL;
	}
	snprintf(title, sizeof(title), "cyclock: what time costs (%s)", in);
	f = open_memstream(&doc, len);
	if (f && svg_finish(f, h, title, body, body_len)) {
		fclose(f);
		f = NULL;
	}
	if (!f || fclose(f)) {
		free(doc);
		doc = NULL;
	}
	free(body);
	return doc;
}

static int plot(const struct bench_run *run, const struct plot_opts *o)
{
	bool nothing;
	size_t len = 0;
	char *doc = render(run, o->in, &len, &nothing);
	int ret;

	if (!doc && nothing) {
		tool_error("plot: %s: nothing to plot: no warm, scale or resolution results",
			   o->in);
		return EXIT_INPUT;
	}
	if (!doc) {
		tool_error("plot: out of memory");
		return EXIT_FAIL;
	}
	ret = bench__write_file(o->out, doc, len) ? EXIT_FAIL : EXIT_OK;
	free(doc);
	return ret;
}

int cmd_plot(int argc, char **argv)
{
	struct plot_opts o = { 0 };
	struct bench_run run;
	char err[512];
	int ret = parse(argc, argv, &o);

	if (ret) {
		if (ret > 0)
			usage(stdout);
		return ret > 0 ? EXIT_OK : EXIT_USAGE;
	}
	bench_run_init(&run);
	if (bench_read_json(o.in, &run, err, sizeof(err))) {
		tool_error("plot: %s", err);
		return EXIT_INPUT;
	}
	if (o.table) {
		bench_report_table(stdout, &run);
		fflush(stdout);
	}
	ret = o.out ? plot(&run, &o) : EXIT_OK;
	bench_run_free(&run);
	return ret;
}
