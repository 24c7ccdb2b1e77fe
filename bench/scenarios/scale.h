/* SPDX-License-Identifier: MIT */
/*
 * What the scale scenario's two files share: scale_threads.c starts and
 * stops its threads, scale.c picks the counts, repeats and reports.
 */
#ifndef CYCLOCK_BENCH_SCALE_H
#define CYCLOCK_BENCH_SCALE_H

#include <pthread.h>
#include <stdbool.h>

#include "bench.h"

/*
 * Runs @fn on @n threads at once, thread i pinned to @cpus[i % @ncpus]
 * and released with the others by a gate once all exist; sets the mean
 * and the largest ns per call.  Returns 0, or an errno when not all
 * threads could be started (nothing is then timed).
 */
int bench__scale_run_threads(bench_loop_fn *fn, long calls, int n, const int *cpus, int ncpus,
			     double *mean, double *slowest);

/* Threads that sleep on @cond until told to stop: the process's size,
 * not its load.  Initialise lock, cond and stop as for a static. */
struct scale_idle {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool stop;
	pthread_t *tid;
	int n;
};

/* Starts @want threads that sleep until bench__scale_idle_stop(); 0 or an
 * errno (then d->n says how many did start). */
int bench__scale_idle_start(struct scale_idle *d, int want);
/* Wakes, joins and frees them. */
void bench__scale_idle_stop(struct scale_idle *d);

#endif /* CYCLOCK_BENCH_SCALE_H */
