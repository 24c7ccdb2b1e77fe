/* SPDX-License-Identifier: MIT */
/*
 * After the kernel's timers selftest inconsistency-check: threads read each
 * clock through clock_gettime() back to back in windows, and every reading
 * must be no less than the one before it, on the thread and across threads
 * (a reading taken after seeing another thread's must not be less), and lie
 * between direct syscall readings taken before and after its window, within
 * SLACK_NS.  A coarse clock the preload serves (cyclock_coarse(), ticked
 * by a thread of its own) is bracketed by the fine kernel clock instead,
 * and may lag it by up to COARSE_LAG_NS: a period and the ticker's
 * scheduling delay on a busy machine.  With CYCLOCK_PRELOAD_RELAXED=1
 * the preload must say it serves the fine clocks relaxed (and must not
 * say so otherwise), and they are checked within each thread only, which
 * is all that mode promises.  Usage: consistency [SECONDS] (default 2).
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <string.h>

#include "preload_check.h"

#define WINDOW 64
#define MAX_THREADS 4
#define COARSE_LAG_NS (250 * 1000 * 1000ll)
#define RELAXED (1u << 31) /* in the preload's marker: the fine clocks from the unordered read */

static const struct {
	clockid_t id;
	const char *name;
	clockid_t fine; /* a coarse clock's fine one */
} clocks[] = {
	{ CLOCK_REALTIME, "CLOCK_REALTIME", CLOCK_REALTIME },
	{ CLOCK_MONOTONIC, "CLOCK_MONOTONIC", CLOCK_MONOTONIC },
	{ CLOCK_MONOTONIC_RAW, "CLOCK_MONOTONIC_RAW", CLOCK_MONOTONIC_RAW },
	{ CLOCK_BOOTTIME, "CLOCK_BOOTTIME", CLOCK_BOOTTIME },
	{ CLOCK_REALTIME_COARSE, "CLOCK_REALTIME_COARSE", CLOCK_REALTIME },
	{ CLOCK_MONOTONIC_COARSE, "CLOCK_MONOTONIC_COARSE", CLOCK_MONOTONIC },
	{ CLOCK_TAI, "CLOCK_TAI", CLOCK_TAI },
};
#define NCLOCKS (sizeof(clocks) / sizeof(clocks[0]))

/* The largest reading of each clock any thread has published. */
static _Atomic int64_t latest[NCLOCKS];
/* The furthest any reading lay outside its window's syscall brackets. */
static _Atomic int64_t outside[NCLOCKS];
static _Atomic long failures;
static _Atomic long windows;
static int64_t stop_ns;
static unsigned int served; /* the preload's marker */
/* This thread's last reading of each clock. */
static _Thread_local int64_t mine[NCLOCKS];

static void fail(size_t c, const char *what, int64_t a, int64_t b)
{
	if (atomic_fetch_add(&failures, 1) < 10)
		fprintf(stderr, "FAIL %s: %s: %lld then %lld (%+lld ns)\n", clocks[c].name,
			what, (long long)a, (long long)b, (long long)(b - a));
}

static void publish(size_t c, int64_t v)
{
	int64_t old = atomic_load(&latest[c]);

	while (old < v && !atomic_compare_exchange_weak(&latest[c], &old, v))
		;
}

static void note_outside(size_t c, int64_t ns)
{
	int64_t old = atomic_load(&outside[c]);

	while (old < ns && !atomic_compare_exchange_weak(&outside[c], &old, ns))
		;
}

static void window(size_t c)
{
	bool ticked = clocks[c].id != clocks[c].fine && (served >> clocks[c].id & 1);
	bool per_thread = (served & RELAXED) && clocks[c].id == clocks[c].fine &&
			  (served >> clocks[c].id & 1);
	clockid_t kernel = ticked ? clocks[c].fine : clocks[c].id;
	int64_t seen = atomic_load(&latest[c]); /* acquire: before our reads */
	int64_t before = sys_ns(kernel) - (ticked ? COARSE_LAG_NS : 0), after, r[WINDOW];

	for (int i = 0; i < WINDOW; i++)
		r[i] = lib_ns(clocks[c].id);
	after = sys_ns(kernel);
	if (r[0] < seen && !per_thread)
		fail(c, "below another thread's earlier reading", seen, r[0]);
	if (r[0] < mine[c])
		fail(c, "below this thread's earlier reading", mine[c], r[0]);
	mine[c] = r[WINDOW - 1];
	for (int i = 1; i < WINDOW; i++)
		if (r[i] < r[i - 1])
			fail(c, "out of order", r[i - 1], r[i]);
	if (r[0] < before - SLACK_NS)
		fail(c, "below the syscall before", before, r[0]);
	if (r[WINDOW - 1] > after + SLACK_NS)
		fail(c, "above the syscall after", after, r[WINDOW - 1]);
	publish(c, r[WINDOW - 1]);
	note_outside(c, before - r[0] > r[WINDOW - 1] - after ? before - r[0]
							      : r[WINDOW - 1] - after);
	atomic_fetch_add(&windows, 1);
}

static void *reader(void *arg)
{
	(void)arg;
	while (sys_ns(CLOCK_MONOTONIC) < stop_ns && atomic_load(&failures) == 0)
		for (size_t c = 0; c < NCLOCKS; c++)
			window(c);
	return NULL;
}

int main(int argc, char **argv)
{
	unsigned int mask = preload_mask(argv[0]);
	const char *want = getenv("CYCLOCK_PRELOAD_RELAXED");
	bool want_relaxed = want && !strcmp(want, "1");
	double seconds = argc > 1 ? atof(argv[1]) : 2;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	int n = ncpu < 2 ? 2 : ncpu > MAX_THREADS ? MAX_THREADS : (int)ncpu;
	pthread_t t[MAX_THREADS];

	served = mask;
	if (mask && want_relaxed != !!(mask & RELAXED)) {
		fprintf(stderr, "FAIL: the preload is %srelaxed, CYCLOCK_PRELOAD_RELAXED is %s\n",
			mask & RELAXED ? "" : "not ", want ? want : "unset");
		return 1;
	}
	stop_ns = sys_ns(CLOCK_MONOTONIC) + (int64_t)(seconds * 1e9);
	for (int i = 0; i < n; i++)
		if (pthread_create(&t[i], NULL, reader, NULL)) {
			perror("pthread_create");
			return 1;
		}
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	printf("%d threads, %ld windows of %d readings, served mask %#x%s, %ld failures\n",
	       n, atomic_load(&windows), WINDOW, mask,
	       mask & RELAXED ? " (relaxed: fine clocks checked per thread)" : "",
	       atomic_load(&failures));
	for (size_t c = 0; c < NCLOCKS; c++)
		printf("  %-24s %s, furthest outside the syscall brackets: %lld ns\n",
		       clocks[c].name, mask >> clocks[c].id & 1 ? "served " : "kernel's",
		       (long long)atomic_load(&outside[c]));
	if (atomic_load(&failures))
		return 1;
	return preload_result(mask, argv[0]);
}
