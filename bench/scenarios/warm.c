/* SPDX-License-Identifier: MIT */
/*
 * warm: what one call of each clock costs when its code and data are in
 * the caches, as Peter Zijlstra's "(warm) sched_clock" loop measured it
 * (Zijlstra 2013): a tight loop of calls, timed as a whole.  Two loops per
 * clock, both from clocks/clocks.c: "throughput" lets calls overlap, as a loop
 * that only stores timestamps does; "latency" fences after every call, so
 * each one starts when the previous result is ready.
 *
 * The repetitions go in rounds, and each round times every clock once:
 * a noisy stretch of this shared machine then hurts a clock and the
 * floors it is compared with alike, instead of one clock's whole series.
 */
#define _GNU_SOURCE
#include <stdlib.h>

#include "bench.h"

#define WARM_LOOP_NS 2e6       /* one timed loop: long enough for the stopwatch */
#define WARM_LOOP_NS_QUICK 1e6
#define WARM_NOISE_LIMIT 0.10

enum { WARM_TP, WARM_LAT, WARM_VARIANTS };

static const char *const variant_names[WARM_VARIANTS] = { "throughput", "latency" };

/* One clock's loops: calls per timed loop and a sample per round. */
struct warm_clock {
	const struct bench_clock *c;
	long calls[WARM_VARIANTS];
	double *samples[WARM_VARIANTS];
};

/*
 * Whether the first call of @c starts a thread: cyclock_coarse() starts
 * its ticker, which then wakes every millisecond for the rest of the
 * process.  Such clocks are timed after all the others, so the ticker
 * cannot disturb their figures.
 */
static bool starts_thread(const struct bench_clock *c)
{
	return c->flags & BENCH_CLOCK_COARSE;
}

static bench_loop_fn *loop_of(const struct bench_clock *c, int v)
{
	return v == WARM_TP ? c->throughput : c->latency;
}

/* One round: each clock of the group, both loops. */
static void one_round(struct warm_clock *w, size_t n, int r, bool late)
{
	for (size_t i = 0; i < n; i++) {
		if (starts_thread(w[i].c) != late)
			continue;
		for (int v = 0; v < WARM_VARIANTS; v++)
			w[i].samples[v][r] = loop_of(w[i].c, v)(w[i].calls[v]);
	}
}

/*
 * Times those clocks of @w[0..n) that start a thread (@late) or those that
 * do not, in @reps rounds, after calibrating each loop once.
 */
static void measure_group(const struct bench_opts *o, struct warm_clock *w, size_t n,
			  int reps, bool late)
{
	double target = o->quick ? WARM_LOOP_NS_QUICK : WARM_LOOP_NS;
	size_t in_group = 0;

	for (size_t i = 0; i < n; i++) {
		if (starts_thread(w[i].c) != late)
			continue;
		in_group++;
		for (int v = 0; v < WARM_VARIANTS; v++) {
			/* A first loop outside the calibration: the first call of
			 * a cyclock clock initialises the library (milliseconds),
			 * which would make the loop look slow and short. */
			loop_of(w[i].c, v)(64);
			w[i].calls[v] = bench_calibrate(loop_of(w[i].c, v), target);
		}
	}
	for (int r = 0; r < reps && in_group > 0; r++) {
		bench_progress(o, "warm: round %d/%d of %zu clock%s", r + 1, reps, in_group,
			       in_group == 1 ? "" : "s");
		one_round(w, n, r, late);
	}
}

/* Adds @w's two results, each with its cost in counter ticks. */
static int add_results(struct bench_run *run, const struct warm_clock *w, int reps)
{
	double hz = bench_counter_hz();

	for (int v = 0; v < WARM_VARIANTS; v++) {
		struct bench_result *r =
			bench_run_add(run, "warm", w->c->name, variant_names[v], 0,
				      w->calls[v], w->samples[v], (size_t)reps,
				      WARM_NOISE_LIMIT);

		if (!r)
			return -1;
		/* These VMs count no cycles; the counter's ticks per call are
		 * the nearest unit that does not depend on the stopwatch. */
		if (hz > 0)
			bench_result_extra(r, "ticks", r->st.median * hz / 1e9);
	}
	return 0;
}

static void free_clocks(struct warm_clock *w, size_t n)
{
	for (size_t i = 0; w && i < n; i++)
		for (int v = 0; v < WARM_VARIANTS; v++)
			free(w[i].samples[v]);
	free(w);
}

/* @w[0..n) for the selected clocks; NULL when out of memory. */
static struct warm_clock *alloc_clocks(const struct bench_opts *o, int reps)
{
	struct warm_clock *w = calloc(o->n_clocks ? o->n_clocks : 1, sizeof(*w));

	for (size_t i = 0; w && i < o->n_clocks; i++) {
		w[i].c = o->clocks[i];
		for (int v = 0; v < WARM_VARIANTS; v++) {
			w[i].samples[v] = calloc((size_t)reps, sizeof(double));
			if (!w[i].samples[v]) {
				free_clocks(w, o->n_clocks);
				return NULL;
			}
		}
	}
	return w;
}

int bench_warm(const struct bench_opts *o, struct bench_run *run)
{
	int reps = bench_reps(o, 15, 5), rc = 0;
	size_t n = o->n_clocks;
	struct warm_clock *w = alloc_clocks(o, reps);
	struct bench_affinity saved;

	if (!w) {
		bench_error("warm: out of memory");
		return -1;
	}
	bench_pin_here(&saved);
	measure_group(o, w, n, reps, false);
	measure_group(o, w, n, reps, true);
	bench_unpin(&saved);
	bench_progress_done(o);
	for (size_t i = 0; i < n && rc == 0; i++)
		rc = add_results(run, &w[i], reps);
	free_clocks(w, n);
	return rc;
}
