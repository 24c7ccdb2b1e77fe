/* SPDX-License-Identifier: MIT */
/*
 * Validate the hosted timelines: a writer calls cyclock_resync() as fast
 * as it can, each call publishing a new segment (perhaps with a new
 * slope), while readers check the ordered clocks (cyclock_now(),
 * cyclock_raw(), cyclock_boottime()).  Per thread, no reading may be below
 * the one before.  Across threads, each clock has a published maximum G: a
 * reader loads G (acquire), then reads the clock, which must not be below
 * G, then raises G to its reading (release), so any reader's value must
 * be at least any value published before.  Every 1000 rounds a reader
 * also brackets every clock between two readings of its kernel clock.
 *
 * Usage: linux_validate_timeline [seconds]   (default 3)
 *
 * Benchmark: `cyclock bench scale` measures what the timelines cost under threads
 * (every clock with N threads calling it at once).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "cyclock.h"
#include "cyclock/timeline.h"
#include "agree.h"
#include "emulated.h"
#include "state.h"

#define READERS 2

static const struct kclock_case ordered[] = {
	{ "cyclock_now", cyclock_now, CLOCK_MONOTONIC, KCLOCK_ORDERED | KCLOCK_MONO },
	{ "cyclock_raw", cyclock_raw, CLOCK_MONOTONIC_RAW, KCLOCK_ORDERED | KCLOCK_MONO },
	{ "cyclock_boottime", cyclock_boottime, CLOCK_BOOTTIME, KCLOCK_ORDERED | KCLOCK_MONO },
};
#define NCLOCKS ((int)(sizeof(ordered) / sizeof(ordered[0])))

static atomic_bool stop;
static _Atomic uint64_t published[NCLOCKS]; /* G: the largest reading of each clock */
static atomic_ulong reads, resyncs, brackets, errors;

static void fail(const char *clock, const char *what, uint64_t got, uint64_t want)
{
	if (atomic_fetch_add(&errors, 1) < 10)
		fprintf(stderr, "validate_timeline: %s: %s: %llu, want >= %llu (%lld ns short)\n",
			clock, what, (unsigned long long)got, (unsigned long long)want,
			(long long)(want - got));
}

/* One reading of clock @k, checked against the published maximum and
 * against this thread's previous reading @last, then published. */
static void check_one(int k, uint64_t *last)
{
	uint64_t g = atomic_load_explicit(&published[k], memory_order_acquire);
	uint64_t t = ordered[k].read();

	if (t < g)
		fail(ordered[k].name, "below a reading published before", t, g);
	if (t < *last)
		fail(ordered[k].name, "below this thread's previous reading", t, *last);
	*last = t;
	/* Pairs with the acquire load above in the other readers. */
	while (g < t && !atomic_compare_exchange_weak_explicit(&published[k], &g, t,
							       memory_order_release,
							       memory_order_acquire))
		;
}

/* Every clock of cyclock.h against its kernel clock, realtime included. */
static void check_brackets(void)
{
	int n, i;
	const struct kclock_case *c = kclock_cases(&n);

	for (i = 0; i < n; i++) {
		int64_t miss = kclock_miss(&c[i]);

		if (!kclock_within(miss, AGREE_NS) && atomic_fetch_add(&errors, 1) < 10)
			fprintf(stderr, "validate_timeline: %s: %lld ns outside its kernel clock\n",
				c[i].name, (long long)miss);
	}
	atomic_fetch_add_explicit(&brackets, 1, memory_order_relaxed);
}

static void *reader(void *arg)
{
	uint64_t last[NCLOCKS] = { 0 };
	unsigned long n = 0;
	int k;

	(void)arg;
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		for (k = 0; k < NCLOCKS; k++)
			check_one(k, &last[k]);
		if (++n % 1000 == 0)
			check_brackets();
	}
	atomic_fetch_add(&reads, n * NCLOCKS);
	return NULL;
}

static void *writer(void *arg)
{
	unsigned long n = 0;

	(void)arg;
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		cyclock_resync();
		n++;
	}
	atomic_fetch_add(&resyncs, n);
	return NULL;
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 3.0;
	struct timespec run = { (time_t)seconds, (long)((seconds - (time_t)seconds) * 1e9) };
	struct cyclock_state before, after;
	pthread_t t[READERS + 1];
	int i;

	if (emulated_unordered_counter("validate_timeline"))
		return 77;
	if (cyclock_init(0) < 0)
		return 1;
	before = state_now();
	pthread_create(&t[0], NULL, writer, NULL);
	for (i = 1; i <= READERS; i++)
		pthread_create(&t[i], NULL, reader, NULL);
	nanosleep(&run, NULL);
	atomic_store(&stop, true);
	for (i = 0; i <= READERS; i++)
		pthread_join(t[i], NULL);
	after = state_now();
	printf("validate_timeline: %s\n", cyclock_describe());
	printf("validate_timeline: %lu reads, %lu bracket checks, %lu resync calls (%llu resyncs, "
	       "%llu anomalies), %lu errors\n",
	       atomic_load(&reads), atomic_load(&brackets), atomic_load(&resyncs),
	       (unsigned long long)(after.resyncs - before.resyncs),
	       (unsigned long long)(after.anomalies - before.anomalies), atomic_load(&errors));
	/* A run that checked nothing proves nothing. */
	if (!atomic_load(&reads) || !atomic_load(&brackets) || !atomic_load(&resyncs))
		return 1;
	return atomic_load(&errors) ? 1 : 0;
}
