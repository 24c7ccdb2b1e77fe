/* SPDX-License-Identifier: MIT */
/*
 * cyclock-bench-hosted: two threads reading at once.  Readers never write
 * shared memory, so two CPUs reading cyclock_now() together should each go
 * as fast as one alone: the timeline's line stays shared in both caches.
 * The ordered counter read is timed the same way, to show what the machine
 * itself does with two busy CPUs (on a VM, two vCPUs may be hyperthreads of
 * one core, and then nothing is free).
 *
 * Each round times one thread alone on each CPU, then both at once behind
 * a barrier; rounds repeat and each figure keeps its best.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>

#include "hosted_bench.h"

/* Without a counter, cyclock-bench-hosted only says so (hosted_read.c). */
#if CYCLOCK_ARCH_HAS_COUNTER

struct worker {
	bench_loop_fn *fn;
	long calls;
	int cpu;                  /* -1: not pinned */
	pthread_barrier_t *start; /* NULL: running alone */
	double ns;
};

/* The first two CPUs this process may run on, or -1s when it has one. */
static int pick_cpus(int cpu[2])
{
	cpu_set_t set;
	int found = 0;

	cpu[0] = cpu[1] = -1;
	if (sched_getaffinity(0, sizeof(set), &set) != 0 || CPU_COUNT(&set) < 2)
		return 0;
	for (int c = 0; c < CPU_SETSIZE && found < 2; c++)
		if (CPU_ISSET(c, &set))
			cpu[found++] = c;
	return found;
}

static void *work(void *arg)
{
	struct worker *w = arg;

	if (w->cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(w->cpu, &set);
		pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	}
	/* Fault in the stack and warm the line before the timed loop. */
	w->fn(w->calls / 100 + 1);
	if (w->start)
		pthread_barrier_wait(w->start);
	w->ns = w->fn(w->calls);
	return NULL;
}

/* Runs @n workers at once (a barrier lines up their timed loops). */
static void run_workers(struct worker *w, int n)
{
	pthread_barrier_t start;
	pthread_t tid[2];

	pthread_barrier_init(&start, NULL, (unsigned int)n);
	for (int i = 0; i < n; i++) {
		w[i].start = n > 1 ? &start : NULL;
		pthread_create(&tid[i], NULL, work, &w[i]);
	}
	for (int i = 0; i < n; i++)
		pthread_join(tid[i], NULL);
	pthread_barrier_destroy(&start);
}

static void keep_best(double *best, double ns)
{
	if (ns < *best)
		*best = ns;
}

/* Best ns/call of @fn: alone[i] on cpu[i] by itself, both[i] there
 * while the other CPU runs it too. */
static void measure(bench_loop_fn *fn, long calls, int reps, const int cpu[2],
		    double alone[2], double both[2])
{
	alone[0] = alone[1] = both[0] = both[1] = 1e30;
	for (int rep = 0; rep < reps; rep++) {
		struct worker w[2] = { { fn, calls, cpu[0], NULL, 0 },
				       { fn, calls, cpu[1], NULL, 0 } };

		for (int i = 0; i < 2; i++) {
			run_workers(&w[i], 1);
			keep_best(&alone[i], w[i].ns);
		}
		run_workers(w, 2);
		for (int i = 0; i < 2; i++)
			keep_best(&both[i], w[i].ns);
	}
}

static void print_row(const char *name, const double alone[2], const double both[2],
		      double target)
{
	double r0 = both[0] / alone[0], r1 = both[1] / alone[1];
	double worst = r0 > r1 ? r0 : r1;

	printf("%-26s %8.2f %8.2f %8.2f %8.2f %7.3f", name, alone[0], alone[1], both[0],
	       both[1], worst);
	if (target > 0)
		printf("  <= %.2f %s", target, worst <= target ? "met" : "MISSED");
	else
		printf("  (the machine itself)");
	putchar('\n');
}

void bench_threads_report(bench_loop_fn *now, bench_loop_fn *floor_fn, long calls, int reps)
{
	int cpu[2];
	double alone[2], both[2];

	if (pick_cpus(cpu) == 2)
		printf("\ntwo threads at once, pinned to CPUs %d and %d: ns per call,"
		       " best of %d loops of %ld calls\n",
		       cpu[0], cpu[1], reps, calls);
	else
		printf("\ntwo threads at once (fewer than 2 CPUs allowed: not pinned)\n");
	printf("%-26s %8s %8s %8s %8s %7s  %s\n", "reader", "alone A", "alone B", "both A",
	       "both B", "worst", "target (both / alone)");
	measure(now, calls, reps, cpu, alone, both);
	print_row("cyclock_now()", alone, both, 1.05);
	measure(floor_fn, calls, reps, cpu, alone, both);
	print_row(BENCH_FLOOR_ORDERED " (a call)", alone, both, 0);
}

#endif /* CYCLOCK_ARCH_HAS_COUNTER */
