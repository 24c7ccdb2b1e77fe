/* SPDX-License-Identifier: MIT */
/*
 * scale's threads (see scale.c): N threads released together by a gate
 * to run a clock's throughput loop, and threads that only sleep, for the
 * process-size half of the scenario.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

#include "bench.h"
#include "scale.h"

#define SCALE_STACK (128 << 10)

/* The start line: threads wait here until all exist, then go together,
 * or skip their timed loop when the run is called off. */
struct gate {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int ready;
	bool open, abort;
};

struct worker {
	bench_loop_fn *fn;
	long calls;
	int cpu;
	struct gate *gate;
	double ns; /* written by the worker, read after pthread_join() */
};

/* Waits for the gate; returns whether to run. */
static bool gate_pass(struct gate *g)
{
	bool run;

	pthread_mutex_lock(&g->lock);
	g->ready++;
	pthread_cond_broadcast(&g->cond);
	while (!g->open)
		pthread_cond_wait(&g->cond, &g->lock);
	run = !g->abort;
	pthread_mutex_unlock(&g->lock);
	return run;
}

/* Waits until @n threads are at the gate, then opens it. */
static void gate_open(struct gate *g, int n, bool abort)
{
	pthread_mutex_lock(&g->lock);
	while (g->ready < n)
		pthread_cond_wait(&g->cond, &g->lock);
	g->open = true;
	g->abort = abort;
	pthread_cond_broadcast(&g->cond);
	pthread_mutex_unlock(&g->lock);
}

static void *work(void *arg)
{
	struct worker *w = arg;

	bench_pin(w->cpu);
	/* Stack, code and the clock's line warm before the timed loop. */
	w->fn(w->calls / 100 + 1);
	if (gate_pass(w->gate))
		w->ns = w->fn(w->calls);
	return NULL;
}

/* Starts a thread with a small stack: a thousand default ones would
 * reserve gigabytes for loops that need a few kilobytes. */
static int start_thread(pthread_t *t, void *(*fn)(void *), void *arg)
{
	pthread_attr_t attr;
	int err = pthread_attr_init(&attr);

	if (err)
		return err;
	pthread_attr_setstacksize(&attr, SCALE_STACK);
	err = pthread_create(t, &attr, fn, arg);
	pthread_attr_destroy(&attr);
	return err;
}

int bench__scale_run_threads(bench_loop_fn *fn, long calls, int n, const int *cpus, int ncpus,
			     double *mean, double *slowest)
{
	struct gate g = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, false, false };
	struct worker *w = calloc((size_t)n, sizeof(*w));
	pthread_t *tid = calloc((size_t)n, sizeof(*tid));
	int started = 0, err = w && tid ? 0 : ENOMEM;

	while (!err && started < n) {
		w[started] = (struct worker){ fn, calls, cpus[started % ncpus], &g, 0 };
		err = start_thread(&tid[started], work, &w[started]);
		started += !err;
	}
	gate_open(&g, started, err != 0);
	*mean = *slowest = 0;
	for (int i = 0; i < started; i++) {
		pthread_join(tid[i], NULL);
		*mean += w[i].ns / n;
		if (w[i].ns > *slowest)
			*slowest = w[i].ns;
	}
	free(w);
	free(tid);
	return err;
}

/* ---- idle threads: the process's size, not its load ---- */

static void *idle_main(void *arg)
{
	struct scale_idle *d = arg;

	pthread_mutex_lock(&d->lock);
	while (!d->stop)
		pthread_cond_wait(&d->cond, &d->lock);
	pthread_mutex_unlock(&d->lock);
	return NULL;
}

int bench__scale_idle_start(struct scale_idle *d, int want)
{
	int err = 0;

	d->n = 0;
	d->tid = calloc((size_t)want, sizeof(*d->tid));
	if (!d->tid)
		return ENOMEM;
	while (!err && d->n < want) {
		err = start_thread(&d->tid[d->n], idle_main, d);
		d->n += !err;
	}
	return err;
}

void bench__scale_idle_stop(struct scale_idle *d)
{
	pthread_mutex_lock(&d->lock);
	d->stop = true;
	pthread_cond_broadcast(&d->cond);
	pthread_mutex_unlock(&d->lock);
	for (int i = 0; i < d->n; i++)
		pthread_join(d->tid[i], NULL);
	free(d->tid);
}
