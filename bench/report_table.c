/* SPDX-License-Identifier: MIT */
/*
 * The readable table: one group per scenario, in the order the run met
 * them, each under a line that says what its figures mean, with columns
 * chosen from what the group's results carry.  It is for a person who
 * wants to learn in a minute what time costs on this machine, so numbers
 * are rounded the way one would say them ("20.2 ns", "1.53 us", "4.2M"),
 * widths come from the content, and a group wider than TABLE_WIDTH sheds
 * its least telling columns first.  Scenarios and extras this file does
 * not know still print, under a generic heading and a column per extra.
 * Plain ASCII throughout ("us", not the micro sign), so that logs, diffs
 * and any terminal keep the columns straight.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bench.h"
#include "svg.h" /* bench_fmt_ns(), bench_fmt_count(), until bench.h has them */

#define TABLE_WIDTH 100
#define TABLE_INDENT "  "
#define TABLE_GAP 2
#define MAX_COLS (8 + BENCH_MAX_EXTRA * 2)
#define CELL_LEN 120

enum fmt { FMT_NS, FMT_COUNT, FMT_PCT, FMT_RATIO, FMT_NUM, FMT_TENTHS, FMT_TEXT };
enum src { SRC_NAME, SRC_MEDIAN, SRC_MIN, SRC_P90, SRC_P99, SRC_SPREAD, SRC_EXTRA, SRC_NOTE };

struct col {
	char head[40];
	enum src src;
	const char *key; /* SRC_EXTRA: the extra's key */
	enum fmt fmt;
	int drop;        /* 0: always kept; else shed when too wide, highest first */
	bool right;      /* right-aligned (numbers) */
	bool mark;       /* SRC_MEDIAN: some row is noisy, so every cell gets a mark */
	int width;
};

struct table {
	const struct bench_run *run;
	const char *scenario;
	struct col cols[MAX_COLS];
	int n_cols;
};

/* What a scenario's primary figure is, for its heading and first column. */
struct scenario_text {
	const char *name, *what, *primary;
	bool p99; /* its tail matters as much as its middle */
};

static const struct scenario_text scenario_texts[] = {
	{ "warm", "ns per call, tight loop", "median", false },
	{ "cold", "ns for one call after the caches were flushed", "median", true },
	{ "scale", "ns per call with N threads reading at once", "median", false },
	{ "falseshare", "ns per read while a writer dirties a line nearby", "median", false },
	{ "resolution", "smallest step between readings; stalls = readings equal to the last",
	  "step", false },
	{ "warp", "largest backward step seen between CPUs (0: time never went back)",
	  "largest", false },
	{ "ctxsw", "round trip of a pipe ping-pong between two processes; clock cost = "
		   "per switch", "round trip", false },
	{ "accuracy", "p99 |offset| from the kernel clock each cyclock clock follows; "
		      "busyloop: a fixed loop's length as each clock measured it", "value",
	  false },
};

struct known_extra {
	const char *key, *head;
	enum fmt fmt;
	int drop;
};

/* The extras the scenarios set, in column order; others follow these. */
static const struct known_extra known_extras[] = {
	{ "ticks", "ticks", FMT_TENTHS, 2 },
	{ "x_floor", "x floor", FMT_RATIO, 0 },
	{ "x_monotonic", "x vDSO", FMT_RATIO, 0 },
	{ "comparisons", "comparisons", FMT_COUNT, 0 },
	{ "backward_steps", "backward steps", FMT_COUNT, 0 },
	{ "step_p50_ns", "p50 step", FMT_NS, 0 },
	{ "stall_fraction", "stalls %", FMT_PCT, 0 },
	{ "steps", "steps", FMT_COUNT, 5 },
	{ "p50_ns", "p50", FMT_NS, 0 },
	{ "p999_ns", "p99.9", FMT_NS, 0 },
	{ "drift_ppm", "drift ppm", FMT_NUM, 0 },
	{ "writer_hz", "writer Hz", FMT_COUNT, 0 },
	{ "reads_per_s", "reads/s", FMT_COUNT, 0 },
	{ "retries_per_read", "retries/read", FMT_NUM, 0 },
	{ "slowest_ns", "slowest", FMT_NS, 0 },
	{ "switches_per_s", "switches/s", FMT_COUNT, 0 },
	{ "clock_cost_ns", "clock cost", FMT_NS, 0 },
	{ "error_ns", "error", FMT_NS, 0 },
};

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static const struct scenario_text *scenario_text(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(scenario_texts); i++)
		if (!strcmp(scenario_texts[i].name, name))
			return &scenario_texts[i];
	return NULL;
}

/* A figure of unknown kind: whole numbers as counts, others to 3 figures. */
static void fmt_num(char *buf, size_t len, double v)
{
	if (fabs(v) >= 99999.5 || v == floor(v))
		bench_fmt_count(buf, len, v);
	else if (fabs(v) >= 99.95)
		snprintf(buf, len, "%.0f", v);
	else if (fabs(v) >= 9.995)
		snprintf(buf, len, "%.1f", v);
	else
		snprintf(buf, len, "%.2f", v);
}

static void fmt_value(char *buf, size_t len, enum fmt f, double v)
{
	if (isnan(v)) {
		buf[0] = '\0';
		return;
	}
	if (isinf(v)) {
		snprintf(buf, len, "%s", v > 0 ? "inf" : "-inf");
		return;
	}
	switch (f) {
	case FMT_NS:
		bench_fmt_ns(buf, len, v);
		break;
	case FMT_COUNT:
		bench_fmt_count(buf, len, v);
		break;
	case FMT_PCT:
		snprintf(buf, len, "%.1f", v * 100);
		break;
	case FMT_TENTHS:
		snprintf(buf, len, "%.1f", v);
		break;
	case FMT_RATIO:
		snprintf(buf, len, fabs(v) < 9.995 ? "%.2fx" : "%.1fx", v);
		break;
	default:
		fmt_num(buf, len, v);
		break;
	}
}

/* ---- choosing the columns ---- */

static bool in_group(const struct table *t, const struct bench_result *r)
{
	return !strcmp(r->scenario, t->scenario);
}

static struct col *add_col(struct table *t, const char *head, enum src src, enum fmt fmt,
			   int drop)
{
	struct col *c;

	if (t->n_cols >= MAX_COLS)
		return NULL;
	c = &t->cols[t->n_cols++];
	memset(c, 0, sizeof(*c));
	snprintf(c->head, sizeof(c->head), "%s", head);
	c->src = src;
	c->fmt = fmt;
	c->drop = drop;
	c->right = src != SRC_NAME && src != SRC_NOTE;
	return c;
}

static bool has_col(const struct table *t, const char *key)
{
	for (int i = 0; i < t->n_cols; i++)
		if (t->cols[i].key && !strcmp(t->cols[i].key, key))
			return true;
	return false;
}

/* Whether some result of the group carries extra @key. */
static bool group_has_extra(const struct table *t, const char *key)
{
	for (size_t i = 0; i < t->run->n; i++)
		if (in_group(t, &t->run->v[i]) && !isnan(bench_result_get(&t->run->v[i], key)))
			return true;
	return false;
}

static void add_extra_col(struct table *t, const char *key, const char *head, enum fmt fmt,
			  int drop)
{
	struct col *c = add_col(t, head, SRC_EXTRA, fmt, drop);

	if (c)
		c->key = key;
}

/* An extra no scenario announced: its kind guessed from its key's shape. */
static void add_unknown_extra(struct table *t, const char *key)
{
	size_t len = strlen(key);
	char head[40];
	enum fmt fmt = FMT_NUM;

	memcpy(head, key, len < sizeof(head) ? len + 1 : sizeof(head));
	head[sizeof(head) - 1] = '\0';
	for (char *p = head; *p; p++)
		if (*p == '_')
			*p = ' ';
	if (!strncmp(key, "x_", 2))
		fmt = FMT_RATIO;
	else if (len > 3 && !strcmp(key + len - 3, "_ns"))
		fmt = FMT_NS;
	else if (len > 9 && !strcmp(key + len - 9, "_fraction"))
		fmt = FMT_PCT;
	if (fmt == FMT_NS && len - 3 < sizeof(head))
		head[len - 3] = '\0';
	if (fmt == FMT_PCT)
		snprintf(head + len - 9, sizeof(head) - (len - 9), " %%");
	add_extra_col(t, key, head, fmt, 6);
}

static void add_extra_cols(struct table *t)
{
	for (size_t i = 0; i < ARRAY_SIZE(known_extras); i++) {
		const struct known_extra *k = &known_extras[i];

		if (group_has_extra(t, k->key))
			add_extra_col(t, k->key, k->head, k->fmt, k->drop);
	}
	for (size_t i = 0; i < t->run->n; i++) {
		const struct bench_result *r = &t->run->v[i];

		if (!in_group(t, r))
			continue;
		/* Histogram buckets are for the plot; a table cannot hold them. */
		for (size_t e = 0; e < r->n_extra; e++)
			if (strncmp(r->extra[e].key, "hist_", 5) && !has_col(t, r->extra[e].key))
				add_unknown_extra(t, r->extra[e].key);
	}
}

/* What the group's results have in common, for choosing its columns. */
struct group_facts {
	bool repeated;  /* some result has more than one sample: min and p90 mean something */
	bool noisy;
	bool notes;
	bool all_clocks; /* every result is one clock's */
	bool higher;     /* every result's primary figure is better higher */
};

static void group_facts(const struct table *t, struct group_facts *g)
{
	memset(g, 0, sizeof(*g));
	g->all_clocks = g->higher = true;
	for (size_t i = 0; i < t->run->n; i++) {
		const struct bench_result *r = &t->run->v[i];

		if (!in_group(t, r))
			continue;
		g->repeated |= r->st.n > 1;
		g->noisy |= r->noisy;
		g->notes |= r->note[0] != '\0';
		g->all_clocks &= r->clock[0] != '\0';
		g->higher &= r->higher_is_better;
	}
}

static void choose_cols(struct table *t)
{
	const struct scenario_text *s = scenario_text(t->scenario);
	struct group_facts g;
	struct col *c;
	enum fmt fmt;

	group_facts(t, &g);
	/* Figures better higher are rates, not durations. */
	fmt = g.higher ? FMT_NUM : FMT_NS;
	t->n_cols = 0;
	add_col(t, g.all_clocks ? "clock" : "name", SRC_NAME, FMT_TEXT, 0);
	c = add_col(t, s ? s->primary : "median", SRC_MEDIAN, fmt, 0);
	c->mark = g.noisy;
	if (g.repeated) {
		add_col(t, "min", SRC_MIN, fmt, 1);
		add_col(t, "p90", SRC_P90, fmt, 3);
		if (s && s->p99)
			add_col(t, "p99", SRC_P99, fmt, 4);
		add_col(t, "spread %", SRC_SPREAD, FMT_PCT, 0);
	}
	add_extra_cols(t);
	if (g.notes)
		add_col(t, "note", SRC_NOTE, FMT_TEXT, 0);
}

/* ---- cells and widths ---- */

/* The result's name without "SCENARIO/": the scenario heads its group. */
static const char *short_name(const struct bench_result *r)
{
	size_t len = strlen(r->scenario);

	if (!strncmp(r->name, r->scenario, len) && r->name[len] == '/')
		return r->name + len + 1;
	return r->name[0] && strcmp(r->name, r->scenario) ? r->name : "(all)";
}

static double stat_of(const struct bench_result *r, enum src src)
{
	switch (src) {
	case SRC_MEDIAN:
		return r->st.median;
	case SRC_MIN:
		return r->st.min;
	case SRC_P90:
		return r->st.p90;
	case SRC_P99:
		return r->st.p99;
	default:
		return r->st.spread;
	}
}

static void cell(const struct col *c, const struct bench_result *r, char *buf, size_t len)
{
	switch (c->src) {
	case SRC_NAME:
		snprintf(buf, len, "%s", short_name(r));
		break;
	case SRC_NOTE:
		snprintf(buf, len, "%s", r->note);
		break;
	case SRC_EXTRA:
		fmt_value(buf, len, c->fmt, bench_result_get(r, c->key));
		break;
	default:
		fmt_value(buf, len, c->fmt, r->st.n ? stat_of(r, c->src) : NAN);
		break;
	}
	/* A mark on every cell of the column, a blank where not noisy, keeps
	 * the digits aligned. */
	if (c->mark && strlen(buf) + 2 <= len)
		strcat(buf, r->noisy ? "~" : " ");
}

static void measure(struct table *t)
{
	char buf[CELL_LEN];

	for (int i = 0; i < t->n_cols; i++) {
		struct col *c = &t->cols[i];

		c->width = (int)strlen(c->head) + (c->mark ? 1 : 0);
		for (size_t k = 0; k < t->run->n; k++) {
			if (!in_group(t, &t->run->v[k]))
				continue;
			cell(c, &t->run->v[k], buf, sizeof(buf));
			if ((int)strlen(buf) > c->width)
				c->width = (int)strlen(buf);
		}
	}
}

static int total_width(const struct table *t)
{
	int w = (int)strlen(TABLE_INDENT);

	for (int i = 0; i < t->n_cols; i++)
		w += t->cols[i].width + (i ? TABLE_GAP : 0);
	return w;
}

/* Sheds the columns that tell least, one by one, until the group fits. */
static void fit(struct table *t)
{
	while (total_width(t) > TABLE_WIDTH) {
		int worst = -1;

		for (int i = 0; i < t->n_cols; i++)
			if (t->cols[i].drop && (worst < 0 || t->cols[i].drop > t->cols[worst].drop))
				worst = i;
		if (worst < 0)
			return;
		memmove(&t->cols[worst], &t->cols[worst + 1],
			(size_t)(t->n_cols - worst - 1) * sizeof(t->cols[0]));
		t->n_cols--;
	}
}

/* ---- printing ---- */

/* Prints one line of cells, without the blanks an empty last cell or a
 * left-aligned last column would leave at its end. */
static void print_line(FILE *f, const struct table *t, char cells[][CELL_LEN])
{
	char line[MAX_COLS * (CELL_LEN + TABLE_GAP) + 8];
	size_t o = 0;

	o += (size_t)snprintf(line, sizeof(line), "%s", TABLE_INDENT);
	for (int i = 0; i < t->n_cols && o < sizeof(line); i++) {
		const struct col *c = &t->cols[i];

		o += (size_t)snprintf(line + o, sizeof(line) - o, c->right ? "%*s%*s" : "%*s%-*s",
				      i ? TABLE_GAP : 0, "", c->width, cells[i]);
	}
	if (o >= sizeof(line))
		o = sizeof(line) - 1;
	while (o > 0 && line[o - 1] == ' ')
		o--;
	fprintf(f, "%.*s\n", (int)o, line);
}

static void print_rows(FILE *f, const struct table *t)
{
	char cells[MAX_COLS][CELL_LEN];

	for (int i = 0; i < t->n_cols; i++)
		snprintf(cells[i], CELL_LEN, "%s%s", t->cols[i].head, t->cols[i].mark ? " " : "");
	print_line(f, t, cells);
	for (size_t k = 0; k < t->run->n; k++) {
		if (!in_group(t, &t->run->v[k]))
			continue;
		for (int i = 0; i < t->n_cols; i++)
			cell(&t->cols[i], &t->run->v[k], cells[i], CELL_LEN);
		print_line(f, t, cells);
	}
}

/* The ordered counter read the run's ratios are to; a stored run says
 * which machine it came from, so the name follows its architecture. */
static const char *floor_name(const struct bench_run *run)
{
	const char *arch = run->ctx.arch;

	if (!strcmp(arch, "x86_64") || !strcmp(arch, "i686") || !strcmp(arch, "i386"))
		return "lfence;rdtsc";
	if (!strcmp(arch, "aarch64") || !strncmp(arch, "arm", 3))
		return "isb;cntvct";
	return "the ordered counter read";
}

static void print_heading(FILE *f, const struct table *t)
{
	const struct scenario_text *s = scenario_text(t->scenario);
	struct group_facts g;
	char what[160], ratios[160];
	int len;

	group_facts(t, &g);
	if (s)
		snprintf(what, sizeof(what), "%s", s->what);
	else
		snprintf(what, sizeof(what), "%s per result", g.higher ?
			 "primary figure, higher is better," : "primary figure in ns");
	snprintf(ratios, sizeof(ratios), "%s%s%s%s", has_col(t, "x_floor") ? "x floor = vs " : "",
		 has_col(t, "x_floor") ? floor_name(t->run) : "",
		 has_col(t, "x_floor") && has_col(t, "x_monotonic") ? ", " : "",
		 has_col(t, "x_monotonic") ? "x vDSO = vs clock_gettime(CLOCK_MONOTONIC)" : "");
	len = fprintf(f, "%s: %s", t->scenario, what);
	/* The ratios' legend goes on a line of its own when both won't fit. */
	if (!ratios[0])
		fputc('\n', f);
	else if (len + 2 + (int)strlen(ratios) <= TABLE_WIDTH)
		fprintf(f, "; %s\n", ratios);
	else
		fprintf(f, "\n%s%s\n", TABLE_INDENT, ratios);
}

/* One line about the machine, when the run knows it. */
static void print_machine(FILE *f, const struct bench_context *ctx)
{
	char hz[CELL_LEN];

	if (!ctx->cpu_model[0] && !ctx->arch[0])
		return;
	fprintf(f, "%s", ctx->cpu_model[0] ? ctx->cpu_model : ctx->arch);
	if (ctx->cpu_model[0] && ctx->arch[0])
		fprintf(f, ", %s", ctx->arch);
	if (ctx->num_cpus > 0)
		fprintf(f, ", %d CPUs", ctx->num_cpus);
	if (ctx->counter[0] && strcmp(ctx->counter, "none") && ctx->counter_hz > 0) {
		bench_fmt_count(hz, sizeof(hz), ctx->counter_hz);
		fprintf(f, ", %s %sHz", ctx->counter, hz);
	}
	if (ctx->clocksource[0])
		fprintf(f, ", kernel uses %s", ctx->clocksource);
	fputs("\n\n", f);
}

static bool seen_before(const struct bench_run *run, size_t i)
{
	for (size_t k = 0; k < i; k++)
		if (!strcmp(run->v[k].scenario, run->v[i].scenario))
			return true;
	return false;
}

void bench_report_table(FILE *f, const struct bench_run *run)
{
	struct table t = { .run = run };
	bool noisy = false, first = true;

	print_machine(f, &run->ctx);
	for (size_t i = 0; i < run->n; i++) {
		noisy |= run->v[i].noisy;
		if (seen_before(run, i))
			continue;
		t.scenario = run->v[i].scenario;
		choose_cols(&t);
		measure(&t);
		fit(&t);
		if (!first)
			fputc('\n', f);
		first = false;
		print_heading(f, &t);
		print_rows(f, &t);
	}
	if (noisy)
		fputs("\n~ noisy: the repetitions spread more than the scenario's limit "
		      "((p90-min)/median);\n  the machine was busy, so rerun before "
		      "trusting these figures.\n", f);
}
