/* SPDX-License-Identifier: MIT */
/* The results of one run: a growing array of named figures. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

void bench_run_init(struct bench_run *run)
{
	memset(run, 0, sizeof(*run));
}

void bench_run_free(struct bench_run *run)
{
	for (size_t i = 0; i < run->n; i++)
		free(run->v[i].samples);
	free(run->v);
	bench_run_init(run);
}

/* "SCENARIO/CLOCK/VARIANT/threads:N", leaving out the empty parts. */
static void result_name(struct bench_result *r)
{
	size_t len = sizeof(r->name);
	int n = snprintf(r->name, len, "%s", r->scenario);

	if (r->clock[0] && n >= 0 && (size_t)n < len)
		n += snprintf(r->name + n, len - (size_t)n, "/%s", r->clock);
	if (r->variant[0] && n >= 0 && (size_t)n < len)
		n += snprintf(r->name + n, len - (size_t)n, "/%s", r->variant);
	if (r->threads > 0 && n >= 0 && (size_t)n < len)
		snprintf(r->name + n, len - (size_t)n, "/threads:%d", r->threads);
}

static struct bench_result *run_slot(struct bench_run *run)
{
	if (run->n == run->cap) {
		size_t cap = run->cap ? run->cap * 2 : 64;
		struct bench_result *v = realloc(run->v, cap * sizeof(*v));

		if (!v)
			return NULL;
		run->v = v;
		run->cap = cap;
	}
	return &run->v[run->n];
}

struct bench_result *bench__run_add_quiet(struct bench_run *run, const char *scenario,
					  const char *clock, const char *variant, int threads,
					  long iterations, const double *samples, size_t n,
					  double noise_limit)
{
	struct bench_result *r = run_slot(run);
	double *copy = malloc((n ? n : 1) * sizeof(*copy));
	double *sorted = malloc((n ? n : 1) * sizeof(*sorted));

	if (!r || !copy || !sorted) {
		free(copy);
		free(sorted);
		return NULL;
	}
	memset(r, 0, sizeof(*r));
	snprintf(r->scenario, sizeof(r->scenario), "%s", scenario);
	snprintf(r->clock, sizeof(r->clock), "%s", clock ? clock : "");
	snprintf(r->variant, sizeof(r->variant), "%s", variant ? variant : "");
	r->threads = threads;
	r->iterations = iterations;
	result_name(r);
	if (n)
		memcpy(copy, samples, n * sizeof(*copy));
	r->samples = copy;
	r->n_samples = n;
	/* The samples stay in measurement order; statistics sort a copy. */
	if (n)
		memcpy(sorted, samples, n * sizeof(*sorted));
	bench_stats_of(sorted, n, &r->st);
	free(sorted);
	r->noisy = noise_limit > 0 && r->st.spread > noise_limit;
	run->n++;
	return r;
}

struct bench_result *bench_run_add(struct bench_run *run, const char *scenario,
				   const char *clock, const char *variant, int threads,
				   long iterations, const double *samples, size_t n,
				   double noise_limit)
{
	struct bench_result *r = bench__run_add_quiet(run, scenario, clock, variant, threads,
						      iterations, samples, n, noise_limit);

	if (!r)
		bench_error("out of memory for results");
	return r;
}

void bench_result_extra(struct bench_result *r, const char *key, double value)
{
	size_t i;

	for (i = 0; i < r->n_extra; i++)
		if (strcmp(r->extra[i].key, key) == 0)
			break;
	if (i == BENCH_MAX_EXTRA)
		return;
	snprintf(r->extra[i].key, sizeof(r->extra[i].key), "%s", key);
	r->extra[i].value = value;
	if (i == r->n_extra)
		r->n_extra++;
}

double bench_result_get(const struct bench_result *r, const char *key)
{
	for (size_t i = 0; i < r->n_extra; i++)
		if (strcmp(r->extra[i].key, key) == 0)
			return r->extra[i].value;
	return NAN;
}

const struct bench_result *bench_run_find(const struct bench_run *run, const char *name)
{
	for (size_t i = 0; i < run->n; i++)
		if (strcmp(run->v[i].name, name) == 0)
			return &run->v[i];
	return NULL;
}

/* The row of @r's scenario, variant and threads for clock @clock. */
static const struct bench_result *peer(const struct bench_run *run,
				       const struct bench_result *r, const char *clock)
{
	for (size_t i = 0; i < run->n; i++) {
		const struct bench_result *p = &run->v[i];

		if (strcmp(p->scenario, r->scenario) == 0 && strcmp(p->clock, clock) == 0 &&
		    strcmp(p->variant, r->variant) == 0 && p->threads == r->threads)
			return p;
	}
	return NULL;
}

/* The scenarios whose figure is a cost per call, where a ratio to the
 * floors means something. */
static bool costs(const char *scenario)
{
	return strcmp(scenario, "warm") == 0 || strcmp(scenario, "cold") == 0 ||
	       strcmp(scenario, "scale") == 0 || strcmp(scenario, "sparse") == 0;
}

/* The scenarios of one call at a time, whose tail is a cost of its own. */
static bool tails(const char *scenario)
{
	return strcmp(scenario, "cold") == 0 || strcmp(scenario, "sparse") == 0;
}

void bench_run_ratios(struct bench_run *run)
{
	const char *floor = bench_floor_ordered(), *vdso = bench_floor_plain();

	for (size_t i = 0; i < run->n; i++) {
		struct bench_result *r = &run->v[i];
		const struct bench_result *f, *k;

		if (!r->clock[0] || r->higher_is_better || !costs(r->scenario))
			continue;
		f = floor ? peer(run, r, floor) : NULL;
		k = vdso ? peer(run, r, vdso) : NULL;
		if (f && f->st.median > 0)
			bench_result_extra(r, "x_floor", r->st.median / f->st.median);
		if (k && k->st.median > 0)
			bench_result_extra(r, "x_monotonic", r->st.median / k->st.median);
		if (k && k->st.p99 > 0 && tails(r->scenario))
			bench_result_extra(r, "x_monotonic_p99", r->st.p99 / k->st.p99);
	}
}
