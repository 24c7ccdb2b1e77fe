/* SPDX-License-Identifier: MIT */
/*
 * scale: what one call of each clock costs while N threads call it at
 * once, and, for the process's CPU-time clocks, while the process merely
 * has many threads.  Giovanni Gherdovich's table for times() and
 * clock_gettime() (Gherdovich 2016) is the model: the kernel sums every thread's
 * runtime for CLOCK_PROCESS_CPUTIME_ID and times(), so their cost grows
 * with the thread count even when the other threads sleep.
 *
 * Each of the N threads is pinned round-robin to the CPUs this process
 * may use, warms up, waits at a gate until all are ready, then runs the
 * clock's throughput loop for a number of calls calibrated on one thread
 * (about 2 ms there).  The figure is the mean of the threads' ns per
 * call; the slowest thread's is an extra.  Beyond one thread per CPU the
 * threads share CPUs and the figure shows that too.
 *
 * scale_threads.c starts, releases and joins the threads; this file
 * chooses the counts, repeats them and reports.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "scale.h"

#define SCALE_LOOP_NS 2e6
#define SCALE_LOOP_NS_QUICK 1e6
#define SCALE_NOISE_LIMIT 0.20 /* several threads sharing a noisy VM */
#define SCALE_MAX_COUNTS 32
#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

static const int idle_counts[] = { 1, 8, 64, 256 };
static const int idle_counts_quick[] = { 1, 64, 256 };

/* A figure's repetitions: the mean over threads and the slowest thread. */
struct series {
	double *mean, *slowest;
	bool failed; /* its threads could not all be started */
};

/* Thread counts: --threads (each once), or 1, 2, 4 ... up to twice the
 * CPUs, with the CPU count itself (under --quick: 1, the CPUs, twice). */
static size_t thread_counts(const struct bench_opts *o, int ncpus, int *out)
{
	size_t n = 0;

	for (size_t i = 0; i < o->n_threads && n < SCALE_MAX_COUNTS; i++) {
		bool seen = false;

		for (size_t j = 0; j < n; j++)
			seen |= out[j] == o->threads[i];
		if (!seen)
			out[n++] = o->threads[i];
	}
	for (int t = 1; o->n_threads == 0 && t <= 2 * ncpus && n < SCALE_MAX_COUNTS; t++) {
		bool pow2 = (t & (t - 1)) == 0;

		if (t == 1 || t == ncpus || t == 2 * ncpus || (pow2 && !o->quick))
			out[n++] = t;
	}
	return n;
}

/* ---- the run ---- */

struct scale {
	int cpus[CPU_SETSIZE];
	int ncpus;
	int counts[SCALE_MAX_COUNTS]; /* threads calling at once */
	size_t n_counts;
	const int *idle;
	size_t n_idle, idle_done;     /* idle counts, and those measured */
	int reps;
	long *calls;                  /* per clock */
	struct series *s;             /* [clock][count], then [clock][idle count] */
	double *buf;
};

/* The kernel sums every thread of the process for these. */
static bool grows_with_threads(const struct bench_clock *c)
{
	return strcmp(c->name, "process_cputime") == 0 || strcmp(c->name, "times") == 0;
}

static struct series *series(const struct scale *k, size_t clock, size_t j)
{
	return &k->s[clock * (k->n_counts + k->n_idle) + j];
}

/* One sample of each clock with @n threads calling at once. */
static void one_count(const struct bench_opts *o, struct scale *k, size_t j, int r)
{
	int n = k->counts[j];

	for (size_t i = 0; i < o->n_clocks; i++) {
		struct series *s = series(k, i, j);
		int err;

		if (s->failed)
			continue;
		err = bench__scale_run_threads(o->clocks[i]->throughput, k->calls[i], n, k->cpus, k->ncpus,
				  &s->mean[r], &s->slowest[r]);
		if (err) {
			bench_error("scale: cannot start %d thread%s (%s): "
				"no figures for threads:%d", n, n == 1 ? "" : "s",
				strerror(err), n);
			for (size_t c = 0; c < o->n_clocks; c++)
				series(k, c, j)->failed = true;
		}
	}
}

/* Every clock at every thread count, rep by rep, so that a noisy moment
 * hurts one repetition of each rather than one clock's whole series. */
static void measure_counts(const struct bench_opts *o, struct scale *k)
{
	double target = o->quick ? SCALE_LOOP_NS_QUICK : SCALE_LOOP_NS;

	for (size_t i = 0; i < o->n_clocks; i++) {
		o->clocks[i]->throughput(64); /* a first call may initialise */
		k->calls[i] = bench_calibrate(o->clocks[i]->throughput, target);
	}
	for (int r = 0; r < k->reps; r++) {
		bench_progress(o, "scale: round %d/%d", r + 1, k->reps);
		for (size_t j = 0; j < k->n_counts; j++)
			one_count(o, k, j, r);
	}
}

/* One sample of each clock that grows with the process's threads, on one
 * thread, while @j's count of idle threads sleeps. */
static void one_idle_rep(const struct bench_opts *o, struct scale *k, size_t j, int r)
{
	for (size_t i = 0; i < o->n_clocks; i++) {
		struct series *s = series(k, i, k->n_counts + j);

		if (grows_with_threads(o->clocks[i]) &&
		    bench__scale_run_threads(o->clocks[i]->throughput, k->calls[i], 1, k->cpus, 1,
				&s->mean[r], &s->slowest[r]) != 0)
			s->failed = true;
	}
}

static void measure_idle(const struct bench_opts *o, struct scale *k)
{
	for (size_t j = 0; j < k->n_idle; j++) {
		struct scale_idle d = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, false,
				  NULL, 0 };
		int err = bench__scale_idle_start(&d, k->idle[j]);

		if (!err) {
			bench_progress(o, "scale: %d idle threads", k->idle[j]);
			for (int r = 0; r < k->reps; r++)
				one_idle_rep(o, k, j, r);
		}
		bench__scale_idle_stop(&d);
		if (err) {
			bench_error("scale: started %d of %d idle threads (%s): "
				"no figures from idle_threads:%d up", d.n, k->idle[j],
				strerror(err), k->idle[j]);
			return;
		}
		k->idle_done = j + 1;
	}
}

static int add_series(struct bench_run *run, const struct scale *k, const char *clock,
		      const char *variant, int threads, long calls, struct series *s)
{
	struct bench_result *r;
	struct bench_stats st;

	if (s->failed)
		return 0;
	r = bench_run_add(run, "scale", clock, variant, threads, calls, s->mean,
			  (size_t)k->reps, SCALE_NOISE_LIMIT);
	if (!r)
		return -1;
	if (threads > 1) {
		bench_stats_of(s->slowest, (size_t)k->reps, &st);
		bench_result_extra(r, "slowest_ns", st.median);
	}
	return 0;
}

/* Each clock's rows: its thread counts, then its idle thread counts. */
static int add_results(const struct bench_opts *o, struct bench_run *run,
		       const struct scale *k)
{
	for (size_t i = 0; i < o->n_clocks; i++) {
		const char *name = o->clocks[i]->name;
		char variant[40];

		for (size_t j = 0; j < k->n_counts; j++)
			if (add_series(run, k, name, NULL, k->counts[j], k->calls[i],
				       series(k, i, j)) != 0)
				return -1;
		for (size_t j = 0; j < k->idle_done && grows_with_threads(o->clocks[i]); j++) {
			snprintf(variant, sizeof(variant), "idle_threads:%d", k->idle[j]);
			if (add_series(run, k, name, variant, 1, k->calls[i],
				       series(k, i, k->n_counts + j)) != 0)
				return -1;
		}
	}
	return 0;
}

/* The thread counts and the room for every sample; 0 or -1 (no memory). */
static int setup(const struct bench_opts *o, struct scale *k)
{
	bool idle = false;
	size_t per = 2 * (size_t)k->reps, n_series;

	k->ncpus = bench_allowed_cpus(k->cpus, CPU_SETSIZE);
	if (k->ncpus < 1)
		k->ncpus = 1; /* cpus[0] is 0: pinning then fails harmlessly */
	k->n_counts = thread_counts(o, k->ncpus, k->counts);
	for (size_t i = 0; i < o->n_clocks; i++)
		idle |= grows_with_threads(o->clocks[i]);
	if (idle) {
		k->idle = o->quick ? idle_counts_quick : idle_counts;
		k->n_idle = o->quick ? N_OF(idle_counts_quick) : N_OF(idle_counts);
	}
	n_series = o->n_clocks * (k->n_counts + k->n_idle);
	k->calls = calloc(o->n_clocks + 1, sizeof(*k->calls));
	k->s = calloc(n_series + 1, sizeof(*k->s));
	k->buf = calloc(n_series * per + 1, sizeof(double));
	if (!k->calls || !k->s || !k->buf)
		return -1;
	for (size_t i = 0; i < n_series; i++) {
		k->s[i].mean = k->buf + i * per;
		k->s[i].slowest = k->s[i].mean + k->reps;
	}
	return 0;
}

int bench_scale(const struct bench_opts *o, struct bench_run *run)
{
	struct scale *k = calloc(1, sizeof(*k));
	int rc = -1;

	if (k)
		k->reps = bench_reps(o, 7, 3);
	if (k && setup(o, k) == 0) {
		measure_counts(o, k);
		measure_idle(o, k);
		bench_progress_done(o);
		rc = add_results(o, run, k);
	} else {
		bench_error("scale: out of memory");
	}
	if (k) {
		free(k->calls);
		free(k->s);
		free(k->buf);
	}
	free(k);
	return rc;
}
