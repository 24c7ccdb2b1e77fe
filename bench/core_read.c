/* SPDX-License-Identifier: MIT */
/*
 * cyclock-bench-core: what a read of the engine's clock costs, as ratios
 * against the floors measured in the same run (the bare counter read,
 * unordered and ordered) and against the vDSO's clock_gettime().
 *
 * Each figure is the best of several timed loops of back-to-back calls
 * (throughput, warm caches).  "with a writer" runs cyclock_update() as
 * fast as it can on another thread meanwhile, so the reader's hot line
 * keeps moving between CPUs: the latch's worst case.  The per-CPU reads
 * are local_clock()'s: stable (the raw clock) and unstable (the tick's
 * latch, the raw clock, the clamp and a compare-and-swap on the CPU's slot).
 *
 * x86-64 only for now: the TSC is the counter.  Usage: cyclock-bench-core [calls]
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <cyclock.h>

#if defined(__x86_64__)
#include <x86intrin.h>

static struct cyclock clk;
static struct cyclock_percpu pc;
static struct cyclock_percpu_slot slot[1];
static atomic_bool writer_stop;
static volatile uint64_t sink;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t read_tsc(const struct cyclock_source *src)
{
	(void)src;
	return __rdtsc();
}

static uint64_t bare_rdtsc(void)
{
	return __rdtsc();
}

static uint64_t lfence_rdtsc(void)
{
	_mm_lfence();
	return __rdtsc();
}

static uint64_t vdso_monotonic(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_nsec;
}

static uint64_t engine_read(void)
{
	return cyclock_read(&clk);
}

static uint64_t engine_read_inline(void)
{
	return cyclock_read_inline(&clk);
}

static uint64_t percpu_read(void)
{
	return cyclock_percpu_read(&pc, 0);
}

/* Unstable, ticked often enough (every 4096 reads, ~40 us) that the clamp
 * to a tick never holds the clock still, which would skip the publish. */
static uint64_t percpu_read_ticked(void)
{
	static unsigned int n;

	if (++n % 4096 == 0)
		cyclock_percpu_tick(&pc, 0, now_ns());
	return cyclock_percpu_read(&pc, 0);
}

/* ns per call of @fn, best of 7 loops of @calls. */
static double cost(uint64_t (*fn)(void), long calls)
{
	double best = 1e30;

	for (int rep = 0; rep < 7; rep++) {
		uint64_t acc = 0, t0 = now_ns();

		for (long i = 0; i < calls; i++)
			acc += fn();
		double per = (double)(now_ns() - t0) / (double)calls;

		sink = acc;
		best = per < best ? per : best;
	}
	return best;
}

static void *writer(void *arg)
{
	unsigned long *updates = arg;

	while (!atomic_load_explicit(&writer_stop, memory_order_relaxed)) {
		cyclock_update(&clk);
		(*updates)++;
	}
	return NULL;
}

static uint64_t measure_tsc_hz(void)
{
	struct timespec pause = { 0, 50000000 };
	uint64_t t0 = now_ns(), c0 = __rdtsc(), t1, c1;

	nanosleep(&pause, NULL);
	t1 = now_ns();
	c1 = __rdtsc();
	return (uint64_t)((unsigned __int128)(c1 - c0) * 1000000000u / (t1 - t0));
}

int main(int argc, char **argv)
{
	long calls = argc > 1 ? atol(argv[1]) : 2000000;
	struct cyclock_source tsc = { "tsc", read_tsc, NULL, measure_tsc_hz(), 64, 300 };
	pthread_t tid;
	unsigned long updates = 0;
	double floor, ordered, vdso, engine, inl, contended, stable, unstable;

	if (calls <= 0 || cyclock_register(&clk, &tsc) != 0 ||
	    cyclock_percpu_init(&pc, &clk, slot, 1, 1000000) != 0) {
		fprintf(stderr, "usage: cyclock-bench-core [calls > 0]\n");
		return 2;
	}
	floor = cost(bare_rdtsc, calls);
	ordered = cost(lfence_rdtsc, calls);
	vdso = cost(vdso_monotonic, calls);
	engine = cost(engine_read, calls);
	inl = cost(engine_read_inline, calls);
	pthread_create(&tid, NULL, writer, &updates);
	contended = cost(engine_read, calls);
	atomic_store(&writer_stop, true);
	pthread_join(tid, NULL);
	stable = cost(percpu_read, calls);
	cyclock_percpu_set_unstable(&pc, 0, now_ns());
	unstable = cost(percpu_read_ticked, calls);

	printf("%-36s %8s %10s %10s\n", "read", "ns/call", "x rdtsc", "x vDSO");
	printf("%-36s %8.2f %10.2f %10.2f\n", "rdtsc", floor, 1.0, floor / vdso);
	printf("%-36s %8.2f %10.2f %10.2f\n", "lfence; rdtsc", ordered, ordered / floor,
	       ordered / vdso);
	printf("%-36s %8.2f %10.2f %10.2f\n", "clock_gettime(CLOCK_MONOTONIC)", vdso, vdso / floor,
	       1.0);
	printf("%-36s %8.2f %10.2f %10.2f\n", "cyclock_read (tsc source)", engine, engine / floor,
	       engine / vdso);
	printf("%-36s %8.2f %10.2f %10.2f\n", "cyclock_read_inline", inl, inl / floor, inl / vdso);
	printf("%-36s %8.2f %10.2f %10.2f\n", "cyclock_read, with a writer", contended,
	       contended / floor, contended / vdso);
	printf("%-36s %8.2f %10.2f %10.2f\n", "cyclock_percpu_read, stable", stable,
	       stable / floor, stable / vdso);
	printf("%-36s %8.2f %10.2f %10.2f\n", "cyclock_percpu_read, unstable", unstable,
	       unstable / floor, unstable / vdso);
	printf("(%ld calls a loop, best of 7; the writer made %lu updates)\n", calls, updates);
	return 0;
}

#else

int main(void)
{
	puts("cyclock-bench-core: x86-64 only for now");
	return 0;
}

#endif
