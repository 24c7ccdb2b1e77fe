/* SPDX-License-Identifier: MIT */
/*
 * The JSON reader's first pass over the "benchmarks" array: what each
 * entry is (an iteration, the median aggregate that stands for its
 * benchmark in an aggregates-only file, or something to skip), its time
 * checked and in ns, and the benchmark name it is filed under, its
 * iterations chained in the order they came.  Every field is checked
 * before use: the input is untrusted.
 */
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "json_read.h"

enum kind { SKIP, ITERATION, MEDIAN };

/* Optional integer @key of entry @i in [0, max], else *@v stays. */
int bench__json_opt_int(struct reader *rd, size_t i, const char *key, long max, long *v)
{
	const json_t *j = json_object_get(json_array_get(rd->entries, i), key);
	double d;

	if (!j)
		return 0;
	if (!json_is_number(j))
		return bench__json_fail(rd, "benchmarks[%zu]: \"%s\" is not a number", i, key);
	d = json_number_value(j);
	if (!(d >= 0 && d <= (double)max) || d != floor(d))
		return bench__json_fail(rd,
					"benchmarks[%zu]: \"%s\" is not an integer from 0 to %ld",
					i, key, max);
	*v = (long)d;
	return 0;
}

/* The real_time of entry @i in ns, checked, into rd->ns[i]. */
static int read_time(struct reader *rd, size_t i, const json_t *e)
{
	const json_t *t = json_object_get(e, "real_time");
	const json_t *u = json_object_get(e, "time_unit");
	double mult = 1, v;

	if (!t)
		return bench__json_fail(rd, "benchmarks[%zu]: no \"real_time\"", i);
	if (!json_is_number(t))
		return bench__json_fail(rd, "benchmarks[%zu]: \"real_time\" is not a number", i);
	if (u && !json_is_string(u))
		return bench__json_fail(rd, "benchmarks[%zu]: \"time_unit\" is not a string", i);
	if (u && !(mult = bench__json_unit_ns(json_string_value(u))))
		return bench__json_fail(rd, "benchmarks[%zu]: unknown time_unit \"%.40s\"", i,
					json_string_value(u));
	v = json_number_value(t);
	if (v < 0)
		return bench__json_fail(rd, "benchmarks[%zu]: \"real_time\" is negative", i);
	v *= mult;
	if (!(v <= MAX_TIME_NS))
		return bench__json_fail(rd, "benchmarks[%zu]: \"real_time\" is out of range", i);
	rd->ns[i] = v;
	return 0;
}

/* Which aggregate entry @e is: a median stands for its benchmark, named
 * by its run_name or by its name without "_median"; an aggregate without
 * a name (as old Google Benchmark versions wrote) stands for itself. */
static enum kind aggregate_kind(const json_t *e, char *key, size_t size)
{
	const char *agg = bench__json_opt_str(e, "aggregate_name");
	const char *run_name = bench__json_opt_str(e, "run_name");
	size_t n = strlen(key);

	if (!agg)
		return ITERATION;
	if (strcmp(agg, "median") != 0)
		return SKIP;
	if (run_name)
		bench__json_copy_str(key, size, run_name);
	else if (n > 7 && strcmp(key + n - 7, "_median") == 0)
		key[n - 7] = '\0';
	return MEDIAN;
}

/* What entry @i is, and in @key the name of its benchmark, cut to the
 * length of a result's name. */
static int classify(struct reader *rd, size_t i, enum kind *kind, char *key, size_t size)
{
	const json_t *e = json_array_get(rd->entries, i);
	const char *name = bench__json_opt_str(e, "name");
	const char *type = bench__json_opt_str(e, "run_type");

	if (!json_is_object(e))
		return bench__json_fail(rd, "benchmarks[%zu] is not an object", i);
	if (!name)
		return bench__json_fail(rd, "benchmarks[%zu]: no \"name\" string", i);
	if (json_object_get(e, "run_type") && !type)
		return bench__json_fail(rd, "benchmarks[%zu]: \"run_type\" is not a string", i);
	bench__json_copy_str(key, size, name);
	if (!type || strcmp(type, "iteration") == 0)
		*kind = ITERATION;
	else if (strcmp(type, "aggregate") == 0)
		*kind = aggregate_kind(e, key, size);
	else
		return bench__json_fail(rd, "benchmarks[%zu]: unknown run_type \"%.40s\"", i, type);
	/* A failed benchmark of Google Benchmark's has no figure to compare. */
	if (json_is_true(json_object_get(e, "error_occurred")))
		*kind = SKIP;
	if (*kind == SKIP)
		return 0;
	rd->rep[i] = 0;
	if (read_time(rd, i, e))
		return -1;
	return bench__json_opt_int(rd, i, "repetition_index", LONG_MAX / 2, &rd->rep[i]);
}

/* The group called @key, made when new; -1 when there are too many. */
static int group_of(struct reader *rd, const char *key, size_t i, size_t *gi)
{
	json_t *have = json_object_get(rd->index, key);
	struct group *g;

	if (have) {
		*gi = (size_t)json_integer_value(have);
		return 0;
	}
	if (rd->ng == MAX_BENCHMARKS)
		return bench__json_fail(rd, "benchmarks[%zu]: more than %d benchmarks", i,
					MAX_BENCHMARKS);
	if (rd->ng == rd->cap) {
		size_t cap = rd->cap ? rd->cap * 2 : 64;
		struct group *v = realloc(rd->g, cap * sizeof(*v));

		if (!v)
			return bench__json_fail(rd, BENCH__JSON_OOM);
		rd->g = v;
		rd->cap = cap;
	}
	g = &rd->g[rd->ng];
	memset(g, 0, sizeof(*g));
	g->median = SIZE_MAX;
	g->key = strdup(key);
	if (!g->key || json_object_set_new(rd->index, key, json_integer((json_int_t)rd->ng))) {
		free(g->key);
		return bench__json_fail(rd, BENCH__JSON_OOM);
	}
	*gi = rd->ng++;
	return 0;
}

/* Files entry @i under its benchmark's name. */
int bench__json_file_entry(struct reader *rd, size_t i)
{
	char key[sizeof(((struct bench_result *)0)->name)];
	enum kind kind = SKIP;
	struct group *g;
	size_t gi = 0;

	if (classify(rd, i, &kind, key, sizeof(key)))
		return -1;
	if (kind == SKIP)
		return 0;
	if (group_of(rd, key, i, &gi))
		return -1;
	g = &rd->g[gi];
	if (kind == MEDIAN) {
		if (g->median == SIZE_MAX)
			g->median = i;
		return 0;
	}
	if (g->n == MAX_SAMPLES)
		return bench__json_fail(rd, "benchmarks[%zu]: more than %d repetitions of one "
					"benchmark", i, MAX_SAMPLES);
	if (g->n++)
		rd->next[g->tail] = i;
	else
		g->head = i;
	g->tail = i;
	return 0;
}
