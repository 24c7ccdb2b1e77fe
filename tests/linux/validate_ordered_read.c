/* SPDX-License-Identifier: MIT */
/*
 * The strict cross-CPU time-warp test.  Two threads pinned to two CPUs
 * pass a token back and forth; on its turn a thread reads the clock and
 * compares it with the value the other thread read on the turn before.
 * Taking the turn is an acquire that pairs with the other thread's release
 * of it, so the other reading happened before this one, and an ordered
 * clock must not be below it.  The seconds are split over the clocks in
 * phases[]: the ordered ones must show no backward step at all; the
 * unordered ones (cyclock_now_relaxed(), cyclock_local(), a bare counter
 * read: rdtsc, cntvct, rdtime) may, and are reported, in ns or, for the
 * bare counter, in counts.  Each bare ordered read the CPU says orders the
 * counter (x86-64: rdtscp, lfence;rdtsc, mfence;lfence;rdtsc) is a phase
 * of its own, which must show none either, in counts.
 *
 * Usage: linux_validate_ordered_read [seconds]   (default 3); exits 77 when fewer than
 * two CPUs are allowed, or when CYCLOCK_ORDERED_READ names a read the
 * library did not take (this CPU does not say it orders the counter).
 *
 * Benchmark: `cyclock bench warp` runs the same turns over every clock, the kernel's
 * too, and counts the backward steps; `cyclock bench warm` times each
 * ordered read.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cyclock.h"
#include "cyclock/arch.h"
#include "cyclock/timeline.h"
#include "emulated.h"
#include "kclock.h"
#include "state.h"

static uint64_t bare_counter(void)
{
	return cyclock_arch_counter();
}

static uint64_t ordered0(void)
{
	return cyclock_arch_counter_ordered_how(0);
}

static uint64_t ordered1(void)
{
	return cyclock_arch_counter_ordered_how(1);
}

static uint64_t ordered2(void)
{
	return cyclock_arch_counter_ordered_how(2);
}

static uint64_t (*const ordered_read[])(void) = { ordered0, ordered1, ordered2 };

struct phase {
	const char *name;
	uint64_t (*read)(void);
	int ordered; /* a backward step fails the test */
	const char *unit;
};
#define MAX_PHASES 16
static struct phase phases[MAX_PHASES] = {
	{ "cyclock_now", cyclock_now, 1, "ns" },
	{ "cyclock_raw", cyclock_raw, 1, "ns" },
	{ "cyclock_boottime", cyclock_boottime, 1, "ns" },
	{ "cyclock_coarse", cyclock_coarse, 1, "ns" },
	{ "cyclock_now_relaxed", cyclock_now_relaxed, 0, "ns" },
	{ "cyclock_local", cyclock_local, 0, "ns" },
	{ "bare " CYCLOCK_ARCH_COUNTER_NAME, bare_counter, 0, "counts" },
};
static int nphases = 7; /* and the bare ordered reads that work (add_ordered_reads()) */

static void add_ordered_reads(void)
{
	for (uint32_t h = 0; h < CYCLOCK_ARCH_ORDERED_HOWS && h < 3; h++) {
		const char *why;

		if (cyclock_arch_ordered_works(h, &why))
			phases[nphases++] = (struct phase){ cyclock_arch_ordered_name(h),
							    ordered_read[h], 1, "counts" };
	}
}

struct result {
	unsigned long compares, back;
	uint64_t largest; /* the largest backward step */
};

/* Everything below the turn is read and written only by the thread that
 * holds the turn: the token orders it, so none of it needs to be atomic. */
static atomic_int turn;      /* 0 or 1: whose turn */
static int phase;            /* the clock being tested; nphases: stop */
static uint64_t last;        /* the value read on the turn before */
static int have_last;        /* whether last belongs to this phase */
static struct result results[MAX_PHASES];
static uint64_t phase_ns;    /* each phase's length */
static uint64_t phase_end;   /* CLOCK_MONOTONIC at which thread 0 moves on */
static int cpus[2];

/* One turn: read, compare, publish; thread 0 also moves the phases on. */
static void take_turn(int me, unsigned long *turns)
{
	uint64_t t = phases[phase].read();
	struct result *r = &results[phase];

	if (have_last) {
		r->compares++;
		if (t < last) {
			r->back++;
			if (last - t > r->largest)
				r->largest = last - t;
		}
	}
	last = t;
	have_last = 1;
	if (me == 0 && ++*turns % 256 == 0 && kclock_mono() >= phase_end) {
		phase++;
		have_last = 0;
		phase_end = kclock_mono() + phase_ns;
	}
}

static void *player(void *arg)
{
	int me = (int)(intptr_t)arg;
	unsigned long turns = 0;

	if (sched_getcpu() != cpus[me]) {
		fprintf(stderr, "validate_ordered_read: thread %d on CPU %d, not %d\n", me, sched_getcpu(),
			cpus[me]);
		exit(1);
	}
	for (;;) {
		while (atomic_load_explicit(&turn, memory_order_acquire) != me)
			cyclock_cpu_relax();
		if (phase >= nphases) {
			atomic_store_explicit(&turn, 1 - me, memory_order_release);
			return NULL;
		}
		take_turn(me, &turns);
		atomic_store_explicit(&turn, 1 - me, memory_order_release);
	}
}

/* The first two CPUs this process may run on; false if there are not two. */
static int pick_cpus(void)
{
	cpu_set_t set;
	int cpu, n = 0;

	if (sched_getaffinity(0, sizeof(set), &set) != 0)
		return 0;
	for (cpu = 0; cpu < CPU_SETSIZE && n < 2; cpu++)
		if (CPU_ISSET(cpu, &set))
			cpus[n++] = cpu;
	return n == 2;
}

static pthread_t start_player(int me)
{
	pthread_attr_t attr;
	cpu_set_t set;
	pthread_t t;

	CPU_ZERO(&set);
	CPU_SET(cpus[me], &set);
	pthread_attr_init(&attr);
	if (pthread_attr_setaffinity_np(&attr, sizeof(set), &set) != 0 ||
	    pthread_create(&t, &attr, player, (void *)(intptr_t)me) != 0) {
		fprintf(stderr, "validate_ordered_read: cannot start a thread on CPU %d\n", cpus[me]);
		exit(1);
	}
	pthread_attr_destroy(&attr);
	return t;
}

/* Prints every phase; returns how many ordered phases failed. */
static int report(void)
{
	int i, failed = 0;

	for (i = 0; i < nphases; i++) {
		const struct result *r = &results[i];
		int bad = phases[i].ordered && (r->back || !r->compares);

		printf("validate_ordered_read: %-20s %9lu comparisons, %lu backward, largest %llu %s%s\n",
		       phases[i].name, r->compares, r->back, (unsigned long long)r->largest,
		       phases[i].unit, bad ? "  FAIL" : phases[i].ordered ? "" : "  (reported only)");
		failed += bad;
	}
	return failed;
}

/* CYCLOCK_ORDERED_READ, if set, names the read the library took. */
static bool ordered_as_asked(void)
{
	const char *want = getenv("CYCLOCK_ORDERED_READ");
	struct cyclock_state info;

	if (!want)
		return true;
	info = state_now();
	if (info.using_counter != CYCLOCK_USING_COUNTER || !strncmp(info.ordered, want, strlen(want)))
		return true;
	printf("validate_ordered_read: CYCLOCK_ORDERED_READ=%s not taken (%s): skipped\n", want,
	       info.ordered_why);
	return false;
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 3.0;
	pthread_t t[2];
	int r;

	if (emulated_unordered_counter("validate_ordered_read"))
		return 77;
	if (!pick_cpus()) {
		printf("validate_ordered_read: fewer than 2 CPUs allowed: skipped\n");
		return 77;
	}
	r = cyclock_init(CYCLOCK_INIT_COARSE);
	printf("validate_ordered_read: CPUs %d and %d, %s\n", cpus[0], cpus[1], cyclock_describe());
	if (r < 0)
		return 1;
	if (!ordered_as_asked())
		return 77;
	add_ordered_reads();
	phase_ns = (uint64_t)(seconds * 1e9 / nphases);
	phase_end = kclock_mono() + phase_ns;
	t[0] = start_player(0);
	t[1] = start_player(1);
	pthread_join(t[0], NULL);
	pthread_join(t[1], NULL);
	return report() ? 1 : 0;
}
