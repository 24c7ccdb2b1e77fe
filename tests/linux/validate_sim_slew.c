/* SPDX-License-Identifier: MIT */
/*
 * Validate the timelines' hand-over between segments when every resync
 * really changes the slope.  On this machine the kernel's clocks run at a
 * steady rate, so the resyncs of validate_timeline.c change mult by parts per
 * billion; here (a CYCLOCK_SIM build) the counter is the real TSC but
 * CLOCK_MONOTONIC is made to wobble: CLOCK_MONOTONIC_RAW plus a sine of
 * 2.5 us over 20 ms, so its rate swings by +-785 ppm and each resync
 * publishes a slope up to ~1000 ppm from the last.  A writer resyncs
 * continuously; readers on two CPUs check that cyclock_now() never goes
 * below a reading published before by any thread (an acquire load of the
 * published maximum before reading, a release CAS after), nor below
 * their own previous one, and stays within 200 us of the wobbling clock.
 *
 * Usage: linux_validate_sim_slew [seconds]   (default 3)
 *
 * Benchmark: `cyclock bench scale` measures what the timelines cost under threads;
 * `cyclock bench accuracy`, how closely they follow the kernel's clocks.
 */
#define _GNU_SOURCE
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "cyclock.h"
#include "cyclock/timeline.h"
#include "emulated.h"
#include "kclock.h"
#include "state.h"

#define READERS 2
#define WOBBLE_NS 2500.0    /* amplitude */
#define WOBBLE_PERIOD 20e6  /* ns */
#define BOUND_NS 200000

static atomic_bool stop;
static _Atomic uint64_t published;
static atomic_ulong reads, resyncs, errors;

/* The simulation seam (cyclock/arch/sim.h): thread-safe, since
 * both are pure functions of the real counter and the real raw clock.
 * The readers compare values across threads, so the read is ordered on
 * every x86-64 CPU, not only where LFENCE serializes: both fences, as
 * arch/x86_64.h's read before the library has chosen. */
uint64_t cyclock_sim_counter(void)
{
#if defined(__x86_64__)
	uint32_t lo, hi;

	__asm__ __volatile__("mfence; lfence; rdtsc" : "=a"(lo), "=d"(hi) : : "memory");
	return (uint64_t)hi << 32 | lo;
#else
	/* Elsewhere the raw clock itself: a 1 GHz counter, still unwobbled. */
	return kclock_ns(CLOCK_MONOTONIC_RAW);
#endif
}

static uint64_t wobbled(uint64_t raw)
{
	return raw + (uint64_t)(int64_t)(WOBBLE_NS * sin(2 * M_PI * (double)raw / WOBBLE_PERIOD));
}

int cyclock_sim_clock_gettime(clockid_t id, struct timespec *ts)
{
	uint64_t ns;

	if (clock_gettime(CLOCK_MONOTONIC_RAW, ts))
		return -1;
	if (id == CLOCK_MONOTONIC_RAW)
		return 0;
	ns = wobbled(ts_ns(ts));
	if (id == CLOCK_REALTIME)
		ns += 1700000000ull * KCLOCK_SEC;
	*ts = ns_ts(ns);
	return 0;
}

static void fail(const char *what, uint64_t got, uint64_t want)
{
	if (atomic_fetch_add(&errors, 1) < 10)
		fprintf(stderr, "validate_sim_slew: %s: %llu, want %llu (%lld ns off)\n", what,
			(unsigned long long)got, (unsigned long long)want,
			(long long)(want - got));
}

static uint64_t raw_ns(void)
{
	return kclock_ns(CLOCK_MONOTONIC_RAW);
}

/* One reading against the published maximum, this thread's last reading,
 * and (now and then) the wobbling clock itself. */
static void check_one(uint64_t *last, unsigned long round)
{
	uint64_t g = atomic_load_explicit(&published, memory_order_acquire), k1 = 0, t, k2;

	if (round % 1024 == 0)
		k1 = wobbled(raw_ns());
	t = cyclock_now();
	if (t < g)
		fail("below a reading published before", t, g);
	if (t < *last)
		fail("below this thread's previous reading", t, *last);
	*last = t;
	/* Release pairs with the acquire load above in the other readers. */
	while (g < t && !atomic_compare_exchange_weak_explicit(&published, &g, t,
								memory_order_release,
								memory_order_relaxed))
		;
	if (k1) {
		k2 = wobbled(raw_ns());
		if (t + BOUND_NS < k1 || t > k2 + BOUND_NS)
			fail("far from the wobbling CLOCK_MONOTONIC", t, k1);
	}
}

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set); /* best effort */
}

static void *reader(void *arg)
{
	uint64_t last = 0;
	unsigned long n = 0;

	pin((int)(long)arg);
	while (!atomic_load_explicit(&stop, memory_order_relaxed))
		check_one(&last, n++);
	atomic_fetch_add(&reads, n);
	return NULL;
}

static void *writer(void *arg)
{
	(void)arg;
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		cyclock_resync();
		atomic_fetch_add_explicit(&resyncs, 1, memory_order_relaxed);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	struct timespec run = { argc > 1 ? atoi(argv[1]) : 3, 0 };
	const struct cyclock_sim_config cfg = { 0, true, true };
	pthread_t r[READERS], w;
	struct cyclock_state info;

	/* Its counter is the real one. */
	if (emulated_unordered_counter("validate_sim_slew"))
		return 77;
	cyclock__sim_reset(&cfg);
	if (cyclock_init(0) != CYCLOCK_USING_COUNTER) {
		fprintf(stderr, "validate_sim_slew: the simulated counter was not used\n");
		return 1;
	}
	for (long i = 0; i < READERS; i++)
		pthread_create(&r[i], NULL, reader, (void *)i);
	pthread_create(&w, NULL, writer, NULL);
	nanosleep(&run, NULL);
	atomic_store(&stop, true);
	for (int i = 0; i < READERS; i++)
		pthread_join(r[i], NULL);
	pthread_join(w, NULL);
	info = state_now();
	printf("validate_sim_slew: %lu reads, %lu resync calls (%llu resyncs, %llu anomalies), "
	       "last error %lld ns, %lu errors\n",
	       atomic_load(&reads), atomic_load(&resyncs),
	       (unsigned long long)info.resyncs, (unsigned long long)info.anomalies,
	       (long long)info.last_err_ns, atomic_load(&errors));
	return atomic_load(&errors) || !atomic_load(&resyncs) ? 1 : 0;
}
