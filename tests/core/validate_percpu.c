/* SPDX-License-Identifier: MIT */
/*
 * Validate per-CPU mode under concurrency: three threads play two CPUs
 * (two of them share CPU 0, as two threads that migrate would), tick their
 * CPU lazily with the reference time, read their CPU's clock and now and
 * then the other CPU's, while one of them switches the clock from stable
 * to unstable a third of the way in.  CPU 1's counter runs 1000 ppm fast
 * once the switch is done (stable mode presumes synchronised counters).  Everything is in ns elapsed since the start, on
 * CLOCK_MONOTONIC_RAW.
 *
 * Checked: no reading of a CPU's clock is below one that any thread took
 * of it before (each thread publishes what it saw); a remote read returns
 * at least the remote CPU's clock, and after it returned R neither CPU
 * reads less than R; no reading is more than a tick (plus the switch's
 * offset) ahead of the reference.
 *
 * Usage: core_validate_percpu [seconds]   (default 3)
 *
 * Benchmark: `cyclock bench warm` measures what per-CPU mode costs (cyclock_local(),
 * per call), and `cyclock bench warp` how far two CPUs' readings disagree.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "cyclock/core.h"
#include "kclock.h"

#if CYCLOCK_U64_IS_SPLIT
int main(void)
{
	puts("validate_percpu: per-CPU mode needs 64-bit atomics; not built on this target");
	return 0;
}
#else

#define NR_CPUS 2
#define NR_THREADS 3
#define TICK_NS 1000000ull

static struct cyclock raw;
static struct cyclock_percpu pc;
static struct cyclock_percpu_slot slots[NR_CPUS];
static uint64_t start_ns, switch_at, stop_at;
static atomic_uint_fast64_t skew_from = UINT64_MAX; /* when CPU 1 started running fast */
static atomic_bool started;
static _Thread_local unsigned int this_cpu;
static atomic_uint_fast64_t floor_of[NR_CPUS]; /* the most any thread saw of the CPU */
static atomic_uint_fast64_t last_tick[NR_CPUS];
static atomic_ulong errors, reads, remotes;

static uint64_t elapsed_ns(void)
{
	return kclock_ns(CLOCK_MONOTONIC_RAW) - start_ns;
}

/* Each CPU's counter: CPU 1's runs 1000 ppm fast after the switch. */
static uint64_t read_this_cpu(const struct cyclock_source *src)
{
	uint64_t t, from = atomic_load_explicit(&skew_from, memory_order_relaxed);

	(void)src;
	if (!atomic_load_explicit(&started, memory_order_acquire))
		return 0;
	t = elapsed_ns();
	return this_cpu == 1 && t > from ? t + (t - from) / 1000 : t;
}

static const struct cyclock_source tsc = { "sim-tsc", read_this_cpu, NULL, 1000000000, 64, 300 };

static void fail(const char *what, uint64_t got, uint64_t bound)
{
	if (atomic_fetch_add(&errors, 1) < 10)
		fprintf(stderr, "validate_percpu: cpu %u: %s: %llu vs %llu\n", this_cpu, what,
			(unsigned long long)got, (unsigned long long)bound);
}

static void raise_floor(unsigned int cpu, uint64_t v)
{
	uint_fast64_t f = atomic_load_explicit(&floor_of[cpu], memory_order_relaxed);

	while (f < v && !atomic_compare_exchange_weak_explicit(&floor_of[cpu], &f, v,
							      memory_order_release,
							      memory_order_relaxed))
		;
}

static void maybe_tick(void)
{
	uint64_t now = elapsed_ns();

	if (now - atomic_load_explicit(&last_tick[this_cpu], memory_order_relaxed) >= TICK_NS) {
		atomic_store_explicit(&last_tick[this_cpu], now, memory_order_relaxed);
		cyclock_percpu_tick(&pc, this_cpu, now);
	}
}

/* One reading of this CPU's clock, checked. */
static uint64_t check_local(uint64_t last)
{
	/* Acquire pairs with raise_floor(): that remote read came first. */
	uint64_t floor = atomic_load_explicit(&floor_of[this_cpu], memory_order_acquire);
	uint64_t v = cyclock_percpu_read(&pc, this_cpu);
	uint64_t ahead = atomic_load_explicit(&pc.gtod_offset, memory_order_relaxed);

	if (v < last)
		fail("went backwards", v, last);
	if (v < floor)
		fail("below an earlier reading on another thread", v, floor);
	if (v > elapsed_ns() + ahead + TICK_NS)
		fail("more than a tick ahead", v, elapsed_ns() + ahead + TICK_NS);
	raise_floor(this_cpu, v);
	return v;
}

static void *cpu_thread(void *arg)
{
	unsigned int id = (unsigned int)(uintptr_t)arg, other;
	uint64_t last = 0, r;
	unsigned long n = 0;

	this_cpu = id == 2 ? 1 : 0;
	other = 1 - this_cpu;
	while (elapsed_ns() < stop_at) {
		if (id == 0 && cyclock_percpu_is_stable(&pc) && elapsed_ns() >= switch_at) {
			cyclock_percpu_set_unstable(&pc, this_cpu, elapsed_ns());
			atomic_store_explicit(&skew_from, elapsed_ns(), memory_order_relaxed);
		}
		maybe_tick();
		last = check_local(last);
		if (++n % 16 == 0) {
			uint64_t seen = atomic_load_explicit(&floor_of[other], memory_order_acquire);

			r = cyclock_percpu_read_remote(&pc, this_cpu, other);
			if (r < seen)
				fail("remote read below the remote clock", r, seen);
			raise_floor(this_cpu, r);
			raise_floor(other, r);
			last = last > r ? last : r;
			atomic_fetch_add_explicit(&remotes, 1, memory_order_relaxed);
		}
	}
	atomic_fetch_add_explicit(&reads, n, memory_order_relaxed);
	return NULL;
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 3.0;
	pthread_t tid[NR_THREADS];

	if (cyclock_register(&raw, &tsc) != 0 ||
	    cyclock_percpu_init(&pc, &raw, slots, NR_CPUS, TICK_NS) != 0)
		return 1;
	start_ns = kclock_ns(CLOCK_MONOTONIC_RAW);
	switch_at = (uint64_t)(seconds * 1e9 / 3);
	stop_at = (uint64_t)(seconds * 1e9);
	atomic_store(&started, true);
	for (uintptr_t i = 0; i < NR_THREADS; i++)
		pthread_create(&tid[i], NULL, cpu_thread, (void *)i);
	for (int i = 0; i < NR_THREADS; i++)
		pthread_join(tid[i], NULL);
	printf("validate_percpu: %d threads on %d CPUs, %lu reads, %lu remote reads, "
	       "%s at the end, %lu errors\n",
	       NR_THREADS, NR_CPUS, atomic_load(&reads), atomic_load(&remotes),
	       cyclock_percpu_is_stable(&pc) ? "stable" : "unstable", atomic_load(&errors));
	return atomic_load(&errors) || cyclock_percpu_is_stable(&pc) ? 1 : 0;
}

#endif /* CYCLOCK_U64_IS_SPLIT */
