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
 *
 * This file formats, measures, fits and prints; columns.c chooses
 * each group's columns.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bench.h"
#include "table.h"

#define TABLE_WIDTH 100
#define TABLE_INDENT "  "
#define TABLE_GAP 2
#define CELL_LEN 120

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

/* @v in format @f; "" when it is absent (NAN), "n/a" when it is not a
 * number a table can show (an infinity: a ratio to a zero, say). */
static void fmt_value(char *buf, size_t len, enum fmt f, double v)
{
	if (isnan(v)) {
		buf[0] = '\0';
		return;
	}
	if (isinf(v)) {
		snprintf(buf, len, "n/a");
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
		bench_fmt_ratio(buf, len, v);
		break;
	default:
		fmt_num(buf, len, v);
		break;
	}
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

/* A cost measured as a difference of two noisy figures (ctxsw's clock
 * cost), with the noise @r carries for it: "~0 (+-25 ns)" within it, and
 * a negative cost is noise whatever the noise, never a figure. */
static void fmt_cost(char *buf, size_t len, const struct bench_result *r, const char *key)
{
	char k[sizeof(r->extra[0].key) + 8], v[32], u[32];
	double cost = bench_result_get(r, key), noise;
	size_t n = strlen(key);

	snprintf(k, sizeof(k), "%.*s_noise_ns", n > 3 ? (int)n - 3 : (int)n, key);
	noise = bench_result_get(r, k);
	if (!isfinite(cost)) {
		fmt_value(buf, len, FMT_NS, cost);
		return;
	}
	bench_fmt_ns(v, sizeof(v), cost);
	bench_fmt_ns(u, sizeof(u), noise);
	if (isfinite(noise) && (cost <= noise || cost < 0))
		snprintf(buf, len, "~0 (+-%s)", u);
	else if (cost < 0)
		snprintf(buf, len, "~0 (noise)");
	else if (isfinite(noise))
		snprintf(buf, len, "%s (+-%s)", v, u);
	else
		snprintf(buf, len, "%s", v);
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
		if (c->fmt == FMT_COST)
			fmt_cost(buf, len, r, c->key);
		else
			fmt_value(buf, len, c->fmt, bench_result_get(r, c->key));
		break;
	default:
		/* A statistic of samples that has no value is not absent. */
		fmt_value(buf, len, c->fmt, r->st.n ? stat_of(r, c->src) : NAN);
		if (r->st.n && !buf[0])
			snprintf(buf, len, "n/a");
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
			if (!bench__table_in_group(t, &t->run->v[k]))
				continue;
			cell(c, &t->run->v[k], buf, sizeof(buf));
			if ((int)bench_text_width(buf) > c->width)
				c->width = (int)bench_text_width(buf);
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

/* Prints one line of cells, each padded to its column's width in
 * columns, not bytes ("zürich" is 7 bytes, 6 columns), without the blanks
 * an empty last cell or a left-aligned last column would leave at its end. */
static void print_line(FILE *f, const struct table *t, char cells[][CELL_LEN])
{
	char line[MAX_COLS * (CELL_LEN + TABLE_GAP) + 8];
	size_t o = 0;

	o += (size_t)snprintf(line, sizeof(line), "%s", TABLE_INDENT);
	for (int i = 0; i < t->n_cols && o < sizeof(line); i++) {
		const struct col *c = &t->cols[i];
		int gap = i ? TABLE_GAP : 0, fill = c->width - (int)bench_text_width(cells[i]);

		fill = fill > 0 ? fill : 0;
		if (c->right)
			o += (size_t)snprintf(line + o, sizeof(line) - o, "%*s%*s%s", gap, "", fill,
					      "", cells[i]);
		else
			o += (size_t)snprintf(line + o, sizeof(line) - o, "%*s%s%*s", gap, "",
					      cells[i], fill, "");
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
		if (!bench__table_in_group(t, &t->run->v[k]))
			continue;
		for (int i = 0; i < t->n_cols; i++)
			cell(&t->cols[i], &t->run->v[k], cells[i], CELL_LEN);
		print_line(f, t, cells);
	}
}

/* What the run's x_floor ratios are to, into @buf: the floor its context
 * names, ordered_ns, with the ordered read it was made of; a file from
 * before the context named it had the ordered counter read alone, named
 * here by the architecture it came from. */
static void floor_name(const struct bench_run *run, char *buf, size_t len)
{
	const struct bench_context *ctx = &run->ctx;
	const char *arch = ctx->arch;

	if (ctx->floor[0] && ctx->ordered[0])
		snprintf(buf, len, "%s (%s, multiply, add, shift)", ctx->floor, ctx->ordered);
	else if (ctx->floor[0])
		snprintf(buf, len, "%s", ctx->floor);
	else if (!strcmp(arch, "x86_64") || !strcmp(arch, "i686") || !strcmp(arch, "i386"))
		snprintf(buf, len, "lfence;rdtsc");
	else if (!strcmp(arch, "aarch64") || !strncmp(arch, "arm", 3))
		snprintf(buf, len, "isb;cntvct");
	else
		snprintf(buf, len, "the ordered counter read");
}

/* The heading, then the ratios' legend: after it when it fits, else on a
 * line of its own, else one line per ratio. */
static void print_heading(FILE *f, const struct table *t)
{
	const struct scenario_text *s = bench__table_scenario_text(t->scenario);
	bool x_floor = bench__table_has_col(t, "x_floor");
	bool x_vdso = bench__table_has_col(t, "x_monotonic");
	struct group_facts g;
	char what[160], name[CELL_LEN], fl[CELL_LEN + 16] = "", vd[64] = "";
	const char *sep;
	int len, both;

	bench__table_group_facts(t, &g);
	if (s)
		snprintf(what, sizeof(what), "%s", s->what);
	else
		snprintf(what, sizeof(what), "%s per result", g.higher ?
			 "primary figure, higher is better," : "primary figure in ns");
	if (x_floor) {
		floor_name(t->run, name, sizeof(name));
		snprintf(fl, sizeof(fl), "x floor = vs %s", name);
	}
	if (x_vdso)
		snprintf(vd, sizeof(vd), "x vDSO = vs clock_gettime(CLOCK_MONOTONIC)");
	sep = x_floor && x_vdso ? ", " : "";
	both = (int)(strlen(fl) + strlen(sep) + strlen(vd));
	len = fprintf(f, "%s: %s", t->scenario, what);
	if (!both)
		fputc('\n', f);
	else if (len + 2 + both <= TABLE_WIDTH)
		fprintf(f, "; %s%s%s\n", fl, sep, vd);
	else if (x_floor && x_vdso && (int)strlen(TABLE_INDENT) + both > TABLE_WIDTH)
		fprintf(f, "\n%s%s,\n%s%s\n", TABLE_INDENT, fl, TABLE_INDENT, vd);
	else
		fprintf(f, "\n%s%s%s%s\n", TABLE_INDENT, fl, sep, vd);
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
		bench__table_choose_cols(&t);
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
