/* SPDX-License-Identifier: MIT */
/* What the scenarios and the clocks' timed loops share: the clocks
 * selected, repetitions, progress, CPUs and pinning, the stopwatch, the
 * sink and loop calibration. */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

_Thread_local volatile uint64_t bench_sink;

bool bench_selected(const struct bench_opts *o, const char *name)
{
	for (size_t i = 0; i < o->n_clocks; i++)
		if (strcmp(o->clocks[i]->name, name) == 0)
			return true;
	return false;
}

int bench_reps(const struct bench_opts *o, int dflt, int quick_dflt)
{
	if (o->repetitions > 0)
		return o->repetitions;
	return o->quick ? quick_dflt : dflt;
}

static bool progress_shown;

void bench_progress(const struct bench_opts *o, const char *fmt, ...)
{
	va_list ap;

	if (o->quiet || !isatty(STDERR_FILENO))
		return;
	fputs("\r\033[K", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fflush(stderr);
	progress_shown = true;
}

void bench_progress_done(const struct bench_opts *o)
{
	if (!progress_shown || o->quiet)
		return;
	fputs("\r\033[K", stderr);
	fflush(stderr);
	progress_shown = false;
}

int bench_allowed_cpus(int *cpus, int max)
{
	cpu_set_t set;
	int n = 0;

	if (sched_getaffinity(0, sizeof(set), &set) != 0) {
		if (max > 0)
			cpus[n++] = sched_getcpu() >= 0 ? sched_getcpu() : 0;
		return n;
	}
	for (int c = 0; c < CPU_SETSIZE && n < max; c++)
		if (CPU_ISSET(c, &set))
			cpus[n++] = c;
	return n;
}

int bench_pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

_Static_assert(sizeof(cpu_set_t) == sizeof(((struct bench_affinity *)0)->mask),
	       "struct bench_affinity holds a cpu_set_t");

bool bench_pin_here(struct bench_affinity *a)
{
	int cpus[CPU_SETSIZE];
	int n = bench_allowed_cpus(cpus, CPU_SETSIZE), here = sched_getcpu(), cpu;
	cpu_set_t set;

	a->saved = n >= 1 && pthread_getaffinity_np(pthread_self(), sizeof(set), &set) == 0;
	if (!a->saved)
		return false;
	memcpy(a->mask, &set, sizeof(set));
	cpu = cpus[0];
	for (int i = 0; i < n; i++)
		if (cpus[i] == here)
			cpu = here;
	return bench_pin(cpu) == 0;
}

void bench_unpin(const struct bench_affinity *a)
{
	cpu_set_t set;

	if (!a->saved)
		return;
	memcpy(&set, a->mask, sizeof(set));
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

uint64_t bench_now_ns(void)
{
	return bench_kernel_ns(CLOCK_MONOTONIC_RAW);
}

long bench_calibrate(bench_loop_fn *fn, double target_ns)
{
	long calls = 64;

	/* Double until a loop lasts a tenth of the target, then scale:
	 * short enough to start fast, long enough to be timed well. */
	for (;;) {
		double per_call = fn(calls);
		double total = per_call * (double)calls;

		if (total >= target_ns / 10 || calls > (1L << 40)) {
			double want = per_call > 0 ? target_ns / per_call : (double)calls;

			return want < 1 ? 1 : (long)want;
		}
		calls *= 2;
	}
}
