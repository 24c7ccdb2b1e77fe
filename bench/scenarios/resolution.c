/* SPDX-License-Identifier: MIT */
/*
 * resolution: the smallest step each clock actually takes, as opposed to
 * what clock_getres() promises (Brodkin 2018: sched_clock() at 1/HZ gave 10 ms
 * granularity until a real counter was registered).  Back-to-back
 * readings on one pinned thread; every non-zero difference between two
 * consecutive readings is a step, every zero one a stall.
 *
 * A fast clock is read a fixed number of times.  A coarse or system-call
 * clock is read for longer, so that enough ticks go by to be seen (a 4 ms
 * tick needs tens of milliseconds), but never beyond a time bound.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

#define RES_READINGS 100000
#define RES_READINGS_QUICK 20000
#define RES_LIMIT_NS 200000000ull       /* at most this long per clock and repetition */
#define RES_LIMIT_NS_QUICK 50000000ull
#define RES_MIN_STEPS 16                 /* keep reading until this many steps */
#define RES_CHUNK 256                    /* readings between two looks at the stopwatch */
#define RES_MAX_HIST 5                   /* hist_<ns> extras per result */
#define RES_NOISE_LIMIT 0.5

/* Bucket upper bounds in ns; a step at or above the last counts in it. */
static const double hist_bounds[] = { 1, 10, 100, 1e3, 1e4, 1e6, 1e7, 1e8, 1e9 };
#define RES_BUCKETS (sizeof(hist_bounds) / sizeof(hist_bounds[0]))

/* One clock's readings over every repetition. */
struct res_acc {
	double *steps;         /* non-zero steps in the clock's units, all repetitions */
	size_t n_steps;
	uint64_t readings;     /* differences taken (readings - 1 per chunk) */
	uint64_t stalls;       /* equal consecutive readings */
	uint64_t backward;     /* a reading below the one before */
	double min_step;       /* this repetition's smallest step, in the clock's units */
};

/*
 * One chunk of @n back-to-back readings of @c; the first only starts the
 * chunk, so that the stopwatch between chunks never stretches a step.
 * The counts stay in locals: a call through c->read() could otherwise
 * make the compiler store them to memory at every reading.
 */
static void res_chunk(const struct bench_clock *c, int n, struct res_acc *a)
{
	uint64_t prev = c->read(), now, stalls = 0, backward = 0;
	double *steps = a->steps + a->n_steps, *next = steps, min = a->min_step;

	for (int i = 1; i < n; i++) {
		now = c->read();
		if (now == prev) {
			stalls++;
		} else if (now < prev) {
			backward++;
		} else {
			*next = (double)(now - prev);
			if (min == 0 || *next < min)
				min = *next;
			next++;
		}
		prev = now;
	}
	a->readings += (uint64_t)n - 1;
	a->stalls += stalls;
	a->backward += backward;
	a->n_steps += (size_t)(next - steps);
	a->min_step = min;
}

/*
 * One repetition: readings until there are @want of them and enough
 * steps, until there are @want steps, or until @limit_ns.  @a->steps has
 * room for a chunk more than @want.
 */
static void res_once(const struct bench_clock *c, struct res_acc *a, uint64_t want,
		     uint64_t limit_ns)
{
	size_t first = a->n_steps, limit = a->n_steps + want;
	uint64_t readings = a->readings, t0 = bench_now_ns();

	a->min_step = 0;
	do
		res_chunk(c, RES_CHUNK, a);
	while ((a->readings - readings < want || a->n_steps - first < RES_MIN_STEPS) &&
	       a->n_steps < limit && bench_now_ns() - t0 < limit_ns);
}

/* What the clock claims, in ns: clock_getres() for the kernel's clocks. */
static double res_nominal(const struct bench_clock *c)
{
	struct timespec ts;

	if (c->kernel_id != (clockid_t)-1 && clock_getres(c->kernel_id, &ts) == 0)
		return (double)bench_ts_ns(&ts);
	if (strcmp(c->name, "times") == 0)
		return 1e9 / (double)sysconf(_SC_CLK_TCK);
	if (strcmp(c->name, "gettimeofday") == 0)
		return 1000;
	/* cyclock_coarse() is the kernel's coarse clock on cyclock_now()'s
	 * timeline (the tool starts no ticker: cyclock_init() without
	 * CYCLOCK_INIT_COARSE), so it steps once a tick, as that clock does. */
	if ((c->flags & BENCH_CLOCK_COARSE) && clock_getres(CLOCK_MONOTONIC_COARSE, &ts) == 0)
		return (double)bench_ts_ns(&ts);
	return bench_clock_ns(c, 1);
}

/* A histogram bucket: the steps below @bound ns (and at or above the
 * bound of the bucket before). */
struct res_bucket {
	double bound;
	uint64_t count;
};

/*
 * The populated buckets of @ns[0..n), at most RES_MAX_HIST: the least
 * populated one is merged into a neighbour (the one above, which then
 * starts lower; the one below for the top bucket, which then ends
 * higher) until they fit, so the counts still add up to every step.
 */
static size_t res_histogram(const double *ns, size_t n, struct res_bucket *b)
{
	size_t nb = 0, low;

	for (size_t k = 0; k < RES_BUCKETS; k++)
		b[k] = (struct res_bucket){ hist_bounds[k], 0 };
	for (size_t i = 0; i < n; i++) {
		size_t k = 0;

		while (k + 1 < RES_BUCKETS && ns[i] >= hist_bounds[k])
			k++;
		b[k].count++;
	}
	for (size_t k = 0; k < RES_BUCKETS; k++)
		if (b[k].count)
			b[nb++] = b[k];
	while (nb > RES_MAX_HIST) {
		low = 0;
		for (size_t k = 1; k < nb; k++)
			if (b[k].count < b[low].count)
				low = k;
		if (low + 1 < nb) {
			b[low + 1].count += b[low].count;
		} else {
			b[low - 1].count += b[low].count;
			b[low - 1].bound = b[low].bound;
		}
		memmove(&b[low], &b[low + 1], (nb - low - 1) * sizeof(*b));
		nb--;
	}
	return nb;
}

/* The figures of all repetitions beyond the primary: @a's steps become ns. */
static void res_extras(struct bench_result *r, const struct bench_clock *c, struct res_acc *a,
		       double min_ticks)
{
	struct res_bucket b[RES_BUCKETS];
	double per = bench_clock_ns(c, 1);
	size_t nb;
	char key[32];

	for (size_t i = 0; i < a->n_steps; i++)
		a->steps[i] *= per;
	bench_sort(a->steps, a->n_steps);
	bench_result_extra(r, "step_p50_ns", bench_quantile(a->steps, a->n_steps, 0.5));
	bench_result_extra(r, "step_p99_ns", bench_quantile(a->steps, a->n_steps, 0.99));
	bench_result_extra(r, "stall_fraction",
			   a->readings ? (double)a->stalls / (double)a->readings : 0);
	bench_result_extra(r, "steps", (double)a->n_steps);
	bench_result_extra(r, "clock_getres_ns", res_nominal(c));
	if (a->backward)
		bench_result_extra(r, "backward", (double)a->backward);
	nb = res_histogram(a->steps, a->n_steps, b);
	for (size_t k = 0; k < nb; k++) {
		snprintf(key, sizeof(key), "hist_%.0f", b[k].bound);
		bench_result_extra(r, key, (double)b[k].count);
	}
	if (c->flags & BENCH_CLOCK_TICKS)
		snprintf(r->note, sizeof(r->note), "steps of %.0f ticks, the smallest %.0f",
			 bench_quantile(a->steps, a->n_steps, 0.5) / per, min_ticks);
	if (a->backward)
		snprintf(r->note, sizeof(r->note), "%llu backward on one thread",
			 (unsigned long long)a->backward);
}

/* @reps repetitions of @c; 0, or -1 when out of memory. */
static int res_clock(const struct bench_opts *o, struct bench_run *run,
		     const struct bench_clock *c, int reps)
{
	uint64_t want = o->quick ? RES_READINGS_QUICK : RES_READINGS;
	uint64_t limit_ns = o->quick ? RES_LIMIT_NS_QUICK : RES_LIMIT_NS;
	struct res_acc a = { 0 };
	double *samples = calloc((size_t)reps, sizeof(*samples)), min_ticks = 0;
	struct bench_result *r;

	a.steps = malloc((size_t)reps * (want + RES_CHUNK) * sizeof(*a.steps));
	if (!a.steps || !samples) {
		free(a.steps);
		free(samples);
		bench_error("resolution: out of memory");
		return -1;
	}
	for (int rep = 0; rep < reps; rep++) {
		bench_progress(o, "resolution: %s, repetition %d of %d", c->name, rep + 1, reps);
		res_once(c, &a, want, limit_ns);
		samples[rep] = bench_clock_ns(c, a.min_step);
		if (a.min_step > 0 && (min_ticks == 0 || a.min_step < min_ticks))
			min_ticks = a.min_step;
	}
	r = bench_run_add(run, "resolution", c->name, NULL, 0, (long)(a.readings / (uint64_t)reps),
			  samples, (size_t)reps, RES_NOISE_LIMIT);
	if (r)
		res_extras(r, c, &a, min_ticks);
	free(a.steps);
	free(samples);
	return r ? 0 : -1;
}

/*
 * Pins the calling thread to the CPU it is on, so that every pair of
 * readings comes from one CPU (an unordered counter read on two CPUs may
 * disagree); @saved keeps the affinity to restore.  Returns whether to.
 */
static bool res_pin(cpu_set_t *saved)
{
	int cpu = sched_getcpu();

	if (cpu < 0 || pthread_getaffinity_np(pthread_self(), sizeof(*saved), saved) != 0)
		return false;
	return bench_pin(cpu) == 0;
}

int bench_resolution(const struct bench_opts *o, struct bench_run *run)
{
	int reps = bench_reps(o, 3, 1), err = 0;
	cpu_set_t saved;
	bool pinned;

	/* A first call may start a thread (cyclock_coarse()'s ticker), which
	 * would inherit the pinning below for good: make them all first. */
	for (size_t i = 0; i < o->n_clocks; i++)
		o->clocks[i]->read();
	bench_counter_hz(); /* measured now, if it must be, rather than mid-clock */
	pinned = res_pin(&saved);
	for (size_t i = 0; i < o->n_clocks && !err; i++)
		err = res_clock(o, run, o->clocks[i], reps);
	if (pinned)
		pthread_setaffinity_np(pthread_self(), sizeof(saved), &saved);
	bench_progress_done(o);
	return err;
}
