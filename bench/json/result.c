/* SPDX-License-Identifier: MIT */
/*
 * The JSON reader's second pass: one benchmark name's filed entries made
 * into a result, its samples in repetition order, its labels, the
 * statistics an aggregates-only file stored beside its one sample, and
 * its extra figures (Google Benchmark's counters, cyclock's ratios).
 */
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "json_read.h"

/* A sample and where it came from, to put samples in repetition order. */
struct sample {
	long rep;
	size_t at;
	double ns;
};

static int cmp_sample(const void *a, const void *b)
{
	const struct sample *x = a, *y = b;

	if (x->rep != y->rep)
		return x->rep < y->rep ? -1 : 1;
	return (x->at > y->at) - (x->at < y->at);
}

/* @g's samples in repetition order into @v: its iterations, or else its
 * median aggregate as the one sample; returns how many. */
static size_t group_samples(const struct reader *rd, const struct group *g, double *v,
			    struct sample *s)
{
	size_t i = g->head;

	if (!g->n) {
		v[0] = rd->ns[g->median];
		return 1;
	}
	for (size_t k = 0; k < g->n; k++, i = rd->next[i])
		s[k] = (struct sample){ rd->rep[i], i, rd->ns[i] };
	qsort(s, g->n, sizeof(*s), cmp_sample);
	for (size_t k = 0; k < g->n; k++)
		v[k] = s[k].ns;
	return g->n;
}

/* Labels from entry @e; what a Google Benchmark file lacks is made up:
 * the scenario is the name up to its first '/'. */
static void fill_labels(struct bench_result *r, const char *key, const json_t *e)
{
	const char *sc = bench__json_opt_str(e, "scenario");
	const char *clock = bench__json_opt_str(e, "clock");
	const char *variant = bench__json_opt_str(e, "variant");
	const char *note = bench__json_opt_str(e, "note");
	char *slash;

	bench__json_copy_str(r->name, sizeof(r->name), key);
	bench__json_copy_str(r->scenario, sizeof(r->scenario), sc ? sc : key);
	slash = sc ? NULL : strchr(r->scenario, '/');
	if (slash)
		*slash = '\0';
	bench__json_copy_str(r->clock, sizeof(r->clock), clock ? clock : "");
	bench__json_copy_str(r->variant, sizeof(r->variant), variant ? variant : "");
	if (!note)
		note = bench__json_opt_str(e, "label");
	bench__json_copy_str(r->note, sizeof(r->note), note ? note : "");
	r->noisy = json_is_true(json_object_get(e, "noisy"));
	r->higher_is_better = json_is_true(json_object_get(e, "higher_is_better"));
}

/* A non-negative figure @key of @e times @mult, or @dflt. */
static double opt_figure(const json_t *e, const char *key, double mult, double dflt)
{
	const json_t *j = json_object_get(e, key);
	double v = json_is_number(j) ? json_number_value(j) * mult : -1;

	return v >= 0 && v <= MAX_TIME_NS ? v : dflt;
}

/* One sample says nothing about spread: a file that stored the statistics
 * of more samples than it kept (an aggregates-only file) is believed. */
static void fill_stats(struct bench_result *r, const json_t *e)
{
	const char *unit = bench__json_opt_str(e, "time_unit");
	double mult = unit ? bench__json_unit_ns(unit) : 1;

	if (r->n_samples != 1)
		return;
	r->st.min = opt_figure(e, "min", mult, r->st.min);
	r->st.p90 = opt_figure(e, "p90", mult, r->st.p90);
	r->st.p99 = opt_figure(e, "p99", mult, r->st.p99);
	r->st.spread = opt_figure(e, "spread", 1, r->st.spread);
}

/* Keys of an entry that are not extra figures. */
static bool is_entry_key(const char *key)
{
	static const char *const keys[] = {
		"family_index", "per_family_instance_index", "repetitions",
		"repetition_index", "threads", "iterations", "real_time", "cpu_time",
		"min", "p90", "p99", "spread",
	};

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (strcmp(key, keys[i]) == 0)
			return true;
	return false;
}

/* Numeric fields beyond the known ones are extra figures (Google
 * Benchmark's counters, cyclock's ratios), as far as they fit. */
static void fill_extras(struct bench_result *r, json_t *e)
{
	const char *key;
	json_t *v;

	json_object_foreach(e, key, v) {
		char clean[sizeof(r->extra[0].key)];

		if (!json_is_number(v) || is_entry_key(key) ||
		    strlen(key) >= sizeof(r->extra[0].key) || !isfinite(json_number_value(v)))
			continue;
		/* A key becomes a table's column heading: it is cleaned, and left
		 * out when cleaning did not leave it whole. */
		if (bench_text_clean(clean, sizeof(clean), key) == 0)
			bench_result_extra(r, clean, json_number_value(v));
	}
}

int bench__json_add_group(struct reader *rd, struct bench_run *run, const struct group *g)
{
	size_t at = g->median != SIZE_MAX ? g->median : g->head;
	size_t first = g->n ? g->head : g->median;
	struct sample *s = malloc((g->n ? g->n : 1) * sizeof(*s));
	double *v = malloc((g->n ? g->n : 1) * sizeof(*v));
	json_t *e = json_array_get(rd->entries, at);
	struct bench_result *r = NULL;
	long iterations = 0, threads = 0;
	size_t n;

	if (!s || !v) {
		free(s);
		free(v);
		return bench__json_fail(rd, BENCH__JSON_OOM);
	}
	n = group_samples(rd, g, v, s);
	if (!bench__json_opt_int(rd, first, "iterations", LONG_MAX / 2, &iterations) &&
	    !bench__json_opt_int(rd, at, "threads", 1 << 20, &threads))
		r = bench__run_add_quiet(run, "", NULL, NULL, (int)threads, iterations, v,
					  n, 0);
	free(s);
	free(v);
	if (!r)
		return rd->err[0] ? -1 : bench__json_fail(rd, BENCH__JSON_OOM);
	fill_labels(r, g->key, e);
	fill_stats(r, e);
	fill_extras(r, e);
	return 0;
}
