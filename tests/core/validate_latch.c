/* SPDX-License-Identifier: MIT */
/*
 * Validate the clock's latch: one writer changes the clock as fast as it
 * can while readers check invariants, in the manner of Concurrency Kit's
 * validate programs.
 *
 * The counter is CLOCK_MONOTONIC_RAW in ns seen as a 32-bit 1 GHz counter
 * (it wraps every 4.3 s), so the clock must equal the elapsed raw time to
 * the nanosecond.  Phase 1: the writer only updates the epoch; a reader
 * brackets each read between two raw readings, which catches any torn
 * epoch.  Phase 2: the writer also switches between two sources whose
 * counters differ by 2^40, so a reader pairing one's epoch with the
 * other's counter would be off by hours.  A switch moves the clock ahead
 * by the few ns between its two counter reads (never back); the writer
 * sees those reads, so it keeps the exact drift, raised by 10 s before each
 * switch (readers may see the switch before the writer knows its gap) and
 * trimmed to the truth after.  In both phases
 * no value may be below one read earlier, on the same thread or, through
 * a published maximum, on another.
 *
 * Suspend is not exercised here: like the kernel's, it is to be called
 * with no reader running concurrently (see cyclock_suspend() in core.h).
 *
 * Usage: core_validate_latch [seconds]   (default 3)
 *
 * Benchmark: `cyclock bench falseshare` measures what the latch costs: its reader
 * against a writer moving the epoch, with the sequence and the writer's
 * lock word laid out three ways.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "cyclock/core.h"
#include "kclock.h"

static struct cyclock clk;
static uint64_t start_ns;       /* raw time at which the clock reads 0 */
static atomic_bool started;     /* false: the counters read 0 */
static atomic_int phase;        /* 1: updates only, 2: switches too, 3: stop */
static atomic_int acked;        /* readers that saw phase 2 */
static atomic_uint_fast64_t published; /* the largest value any reader saw */
static atomic_uint_fast64_t drift;     /* bounds how far switches moved the clock ahead */
static atomic_ulong errors;

static uint64_t raw_ns(void)
{
	return kclock_ns(CLOCK_MONOTONIC_RAW);
}

static _Thread_local bool is_writer;
static _Thread_local uint64_t writer_reads[2]; /* the writer's last two counter reads */

/* Elapsed raw ns plus the source's own base (its priv), masked to its width. */
static uint64_t read_elapsed(const struct cyclock_source *src)
{
	uint64_t mask = src->bits == 64 ? UINT64_MAX : (1ull << src->bits) - 1;
	uint64_t elapsed;

	if (!atomic_load_explicit(&started, memory_order_acquire))
		return 0;
	elapsed = raw_ns() - start_ns;
	if (is_writer) {
		writer_reads[0] = writer_reads[1];
		writer_reads[1] = elapsed;
	}
	return (elapsed + (uintptr_t)src->priv) & mask;
}

/* Rated alike, so that each may replace the other (cyclock_register()). */
static const struct cyclock_source narrow = { "raw32", read_elapsed, NULL, 1000000000, 32, 100 };
static const struct cyclock_source wide = { "raw64", read_elapsed, (void *)(1ull << 40),
					    1000000000, 64, 100 };

static void fail(const char *what, uint64_t got, uint64_t lo, uint64_t hi)
{
	if (atomic_fetch_add(&errors, 1) < 10)
		fprintf(stderr, "validate_latch: %s: %llu not in [%llu, %llu]\n", what,
			(unsigned long long)got, (unsigned long long)lo, (unsigned long long)hi);
}

static void publish(uint64_t v)
{
	uint_fast64_t seen = atomic_load_explicit(&published, memory_order_relaxed);

	while (seen < v && !atomic_compare_exchange_weak_explicit(
				   &published, &seen, v, memory_order_release, memory_order_relaxed))
		;
}

static void *reader(void *arg)
{
	unsigned long *reads = arg;
	uint64_t last = 0;
	bool in_phase2 = false;
	int ph;

	while ((ph = atomic_load(&phase)) != 3) {
		/* Acquire pairs with publish(): that reading happened before ours. */
		uint64_t other = atomic_load_explicit(&published, memory_order_acquire);
		uint64_t r0 = raw_ns() - start_ns, v = cyclock_read(&clk), r1 = raw_ns() - start_ns;

		if (ph == 2 && !in_phase2) {
			in_phase2 = true;
			atomic_fetch_add(&acked, 1);
		}
		if (v < last || v < other)
			fail("went backwards", v, last > other ? last : other, UINT64_MAX);
		/* Acquire pairs with switch_source()'s release: a switch whose
		 * copy we read had raised the bound first. */
		uint64_t ahead = in_phase2 ? atomic_load_explicit(&drift, memory_order_acquire) : 0;

		if (v < r0 || v > r1 + ahead)
			fail("torn or off the counter", v, r0, r1 + ahead);
		last = v;
		publish(v);
		(*reads)++;
	}
	return NULL;
}

/*
 * Register @src, keeping the drift bound at or above the truth: the switch
 * reads the new counter, then the old clock, and moves the clock ahead by
 * exactly the time between the two.
 */
static void switch_source(const struct cyclock_source *src)
{
	const uint64_t allowance = 10000000000ull; /* 10 s: a preempted writer's gap is ms */
	uint64_t gap;

	atomic_fetch_add_explicit(&drift, allowance, memory_order_release);
	if (cyclock_register(&clk, src) != 0)
		fail("register refused", 0, 0, 0);
	gap = writer_reads[1] - writer_reads[0];
	if (gap > allowance)
		fail("switch gap over the allowance", gap, 0, allowance);
	atomic_fetch_sub_explicit(&drift, allowance - gap, memory_order_relaxed);
}

static unsigned long run_writer(double seconds, int ph)
{
	uint64_t end = raw_ns() + (uint64_t)(seconds * 1e9);
	unsigned long ops = 0;

	while (raw_ns() < end) {
		cyclock_update(&clk);
		if (ph == 2)
			switch_source(ops % 2 ? &narrow : &wide);
		ops++;
	}
	return ops;
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 3.0;
	long nr = sysconf(_SC_NPROCESSORS_ONLN);
	int nr_readers = nr > 2 ? (int)nr : 2;
	pthread_t tid[64];
	unsigned long reads[64] = { 0 }, total = 0, updates, switches;

	if (nr_readers > 64)
		nr_readers = 64;
	if (cyclock_register(&clk, &narrow) != 0)
		return 1;
	start_ns = raw_ns();
	atomic_store(&started, true);
	atomic_store(&phase, 1);
	for (int i = 0; i < nr_readers; i++)
		pthread_create(&tid[i], NULL, reader, &reads[i]);

	is_writer = true;
	updates = run_writer(seconds / 2, 1);
	atomic_store(&phase, 2);
	while (atomic_load(&acked) < nr_readers)
		cyclock_update(&clk);
	switches = run_writer(seconds / 2, 2);
	atomic_store(&phase, 3);
	for (int i = 0; i < nr_readers; i++) {
		pthread_join(tid[i], NULL);
		total += reads[i];
	}
	printf("validate_latch: %d readers, %lu reads, %lu updates, %lu switches "
	       "(clock ahead by <= %llu ns), %lu errors\n",
	       nr_readers, total, updates, switches, (unsigned long long)atomic_load(&drift),
	       atomic_load(&errors));
	return atomic_load(&errors) || total == 0 ? 1 : 0;
}
