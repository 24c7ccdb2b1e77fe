/* SPDX-License-Identifier: MIT */
/*
 * engine: the engine's reader, alone and while a writer thread on another
 * CPU runs cyclock_update() on its clock as fast as it can, so that the
 * line the reader's epoch lives on keeps moving between the two CPUs and
 * a read now and then retries: the latch's worst case, which no program's
 * writer comes near (the kernel updates sched_clock once per wrap).  The
 * engine clocks (engine_read, engine_read_inline, engine_percpu*) time
 * their throughput loop on one pinned CPU, the writer pinned to another;
 * rounds alternate alone and with the writer, so a noisy moment hurts
 * both alike.  The primary figure is ns per read; the writer's rows carry
 * the updates per second it made and their ratio to the alone rows.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include <cyclock.h>

#include "bench.h"

#define ENGINE_LOOP_NS 2e6
#define ENGINE_LOOP_NS_QUICK 1e6
#define ENGINE_NOISE_LIMIT 0.20

enum { ALONE, WRITER, VARIANTS };
static const char *const variant_names[VARIANTS] = { "alone", "writer" };

struct writer {
	pthread_t tid;
	int cpu;
	atomic_bool running, stop;
	uint64_t updates, ns; /* written by the writer, read after pthread_join() */
};

static void *writer_main(void *arg)
{
	struct writer *w = arg;
	struct cyclock *clk = bench_engine_clock();
	uint64_t n = 0, t0;

	bench_pin(w->cpu);
	t0 = bench_now_ns();
	/* Relaxed: the flags only start and end the loop; pthread_join()
	 * orders what the writer leaves behind. */
	atomic_store_explicit(&w->running, true, memory_order_relaxed);
	while (!atomic_load_explicit(&w->stop, memory_order_relaxed)) {
		cyclock_update(clk);
		n++;
	}
	w->ns = bench_now_ns() - t0;
	w->updates = n;
	return NULL;
}

/* One timed loop of @c with the writer running; *@updates_per_s its rate,
 * or a negative figure when it could not be started. */
static double with_writer(const struct bench_clock *c, long calls, int cpu, double *updates_per_s)
{
	struct writer w = { .cpu = cpu };
	double ns;

	if (pthread_create(&w.tid, NULL, writer_main, &w) != 0)
		return -1;
	while (!atomic_load_explicit(&w.running, memory_order_relaxed))
		;
	ns = c->throughput(calls);
	atomic_store_explicit(&w.stop, true, memory_order_relaxed);
	pthread_join(w.tid, NULL);
	*updates_per_s = w.ns ? (double)w.updates * 1e9 / (double)w.ns : 0;
	return ns;
}

/* @c's two results from its samples; the writer's with its rate and the
 * ratio to the reads alone. */
static int add_results(struct bench_run *run, const struct bench_clock *c, long calls,
		       double *samples[VARIANTS], double *rate, int reps)
{
	struct bench_result *r[VARIANTS];
	struct bench_stats st;

	for (int v = 0; v < VARIANTS; v++) {
		r[v] = bench_run_add(run, "engine", c->name, variant_names[v], 0, calls,
				     samples[v], (size_t)reps, ENGINE_NOISE_LIMIT);
		if (!r[v])
			return -1;
	}
	bench_stats_of(rate, (size_t)reps, &st);
	bench_result_extra(r[WRITER], "updates_per_s", st.median);
	if (r[ALONE]->st.median > 0)
		bench_result_extra(r[WRITER], "x_alone", r[WRITER]->st.median / r[ALONE]->st.median);
	return 0;
}

/* @reps rounds of @c, alone then with the writer on @cpu[1], the reader
 * pinned to @cpu[0]. */
static int engine_clock(const struct bench_opts *o, struct bench_run *run,
			const struct bench_clock *c, const int cpu[2], int reps)
{
	double *buf = calloc(3 * (size_t)reps, sizeof(double));
	double *samples[VARIANTS] = { buf, buf + reps }, *rate = buf + 2 * reps;
	long calls;
	int rc = 0;

	if (!buf) {
		bench_error("engine: out of memory");
		return -1;
	}
	bench_pin(cpu[0]);
	c->throughput(64); /* the first call registers the clock */
	calls = bench_calibrate(c->throughput, o->quick ? ENGINE_LOOP_NS_QUICK : ENGINE_LOOP_NS);
	for (int k = 0; k < reps && rc == 0; k++) {
		bench_progress(o, "engine: %s, round %d/%d", c->name, k + 1, reps);
		samples[ALONE][k] = c->throughput(calls);
		samples[WRITER][k] = with_writer(c, calls, cpu[1], &rate[k]);
		if (samples[WRITER][k] < 0) {
			bench_error("engine: cannot start the writer thread");
			rc = -1;
		}
	}
	if (rc == 0)
		rc = add_results(run, c, calls, samples, rate, reps);
	free(buf);
	return rc;
}

int bench_engine(const struct bench_opts *o, struct bench_run *run)
{
	int cpu[2], reps = bench_reps(o, 9, 3), rc = 0;
	struct bench_affinity saved;

	if (bench_allowed_cpus(cpu, 2) < 2) {
		bench_error("engine: needs 2 CPUs, this process may use 1: no results");
		return 0;
	}
	if (!bench_engine_clock())
		return 0; /* no counter: the engine clocks are not offered either */
	bench_pin_here(&saved);
	for (size_t i = 0; i < o->n_clocks && rc == 0; i++)
		if (o->clocks[i]->group == BENCH_GROUP_ENGINE)
			rc = engine_clock(o, run, o->clocks[i], cpu, reps);
	bench_unpin(&saved);
	bench_progress_done(o);
	return rc;
}
