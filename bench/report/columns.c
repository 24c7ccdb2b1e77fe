/* SPDX-License-Identifier: MIT */
/*
 * The readable table's columns: for each scenario's group, the name, the
 * primary figure under the name its scenario gives it, min, p90 (and p99
 * where the tail matters) and spread when the results were repeated, the
 * extras the group carries (known ones in a fixed order with their own
 * headings and formats, unknown ones after them, their kind guessed from
 * their key) and the notes.  Each column says how readily it is shed
 * when the group is too wide.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bench.h"
#include "table.h"

static const struct scenario_text scenario_texts[] = {
	{ "warm", "ns per call, tight loop", "median", false },
	{ "cold", "ns for one call after the caches were flushed", "median", true },
	{ "sparse", "ns for one read after a gap (idle: asleep; busy: in other code)", "median",
	  true },
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
	{ "engine", "ns per read of the engine's clock, alone and while a writer updates it "
		    "flat out", "median", false },
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
	{ "x_monotonic_p99", "x vDSO p99", FMT_RATIO, 1 },
	{ "syscalls_per_read", "syscalls/read", FMT_NUM, 0 },
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
	{ "clock_cost_ns", "clock cost", FMT_COST, 0 },
	{ "error_ns", "error", FMT_NS, 0 },
	{ "updates_per_s", "updates/s", FMT_COUNT, 0 },
	{ "x_alone", "x alone", FMT_RATIO, 0 },
};

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

const struct scenario_text *bench__table_scenario_text(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(scenario_texts); i++)
		if (!strcmp(scenario_texts[i].name, name))
			return &scenario_texts[i];
	return NULL;
}

bool bench__table_in_group(const struct table *t, const struct bench_result *r)
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

bool bench__table_has_col(const struct table *t, const char *key)
{
	for (int i = 0; i < t->n_cols; i++)
		if (t->cols[i].key && !strcmp(t->cols[i].key, key))
			return true;
	return false;
}

/* Whether some result of the group carries extra @key. */
static bool group_has_extra(const struct table *t, const char *key)
{
	for (size_t i = 0; i < t->run->n; i++) {
		const struct bench_result *r = &t->run->v[i];

		if (bench__table_in_group(t, r) && !isnan(bench_result_get(r, key)))
			return true;
	}
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

/* Histogram buckets are for the plot; a table cannot hold them.  A
 * cost's noise is said in the cost's own cell.  Cold's eviction sizes
 * say what the run did, the same on every row: the JSON keeps them. */
static bool table_skips(const char *key)
{
	return !strncmp(key, "hist_", 5) || !strcmp(key, "clock_cost_noise_ns") ||
	       !strcmp(key, "evict_bytes") || !strcmp(key, "flush_bytes");
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

		if (!bench__table_in_group(t, r))
			continue;
		for (size_t e = 0; e < r->n_extra; e++)
			if (!table_skips(r->extra[e].key) &&
			    !bench__table_has_col(t, r->extra[e].key))
				add_unknown_extra(t, r->extra[e].key);
	}
}

void bench__table_group_facts(const struct table *t, struct group_facts *g)
{
	memset(g, 0, sizeof(*g));
	g->all_clocks = g->higher = true;
	for (size_t i = 0; i < t->run->n; i++) {
		const struct bench_result *r = &t->run->v[i];

		if (!bench__table_in_group(t, r))
			continue;
		g->repeated |= r->st.n > 1;
		g->noisy |= r->noisy;
		g->notes |= r->note[0] != '\0';
		g->all_clocks &= r->clock[0] != '\0';
		g->higher &= r->higher_is_better;
	}
}

void bench__table_choose_cols(struct table *t)
{
	const struct scenario_text *s = bench__table_scenario_text(t->scenario);
	struct group_facts g;
	struct col *c;
	enum fmt fmt;

	bench__table_group_facts(t, &g);
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
