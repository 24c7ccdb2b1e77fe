/* SPDX-License-Identifier: MIT */
/*
 * A signal handler that reads the clock while the thread it interrupted is
 * inside cyclock_update().  With a plain seqlock the handler would spin
 * forever on the odd sequence its own thread left; the latch sends it to
 * the other copy.  A fast interval timer interrupts a thread that does
 * nothing but update, so many signals land inside the writer, some while
 * the sequence is odd.  The handler checks that its reading brackets
 * between two raw-clock readings (the counter is CLOCK_MONOTONIC_RAW in ns,
 * converted exactly) and never goes backwards, and that cyclock_update()
 * called from the handler returns at once instead of deadlocking on the
 * writer flag.  A hang is a failure too: CTest's timeout ends it.
 *
 * Usage: core_validate_latch_signal [seconds]   (default 3)
 *
 * Benchmark: `cyclock bench falseshare` measures what the latch costs: its reader
 * against a writer moving the epoch.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/time.h>
#include <time.h>

#include "cyclock/core.h"
#include "kclock.h"

static struct cyclock clk;
static uint64_t start_ns; /* raw time at which the clock reads 0; 0 until set */
static volatile sig_atomic_t signals, in_writer, odd_seq, errors;
static uint64_t handler_last;

static uint64_t raw_ns(void)
{
	return kclock_ns(CLOCK_MONOTONIC_RAW);
}

static uint64_t read_elapsed(const struct cyclock_source *src)
{
	(void)src;
	return start_ns ? (raw_ns() - start_ns) & 0xffffffffu : 0;
}

static const struct cyclock_source timer = { "raw32", read_elapsed, NULL, 1000000000, 32, 100 };

static void on_alarm(int sig)
{
	bool writing = atomic_load_explicit(&clk.writer, memory_order_relaxed);
	bool odd = atomic_load_explicit(&clk.seq, memory_order_relaxed) & 1;
	uint64_t r0 = raw_ns() - start_ns, v = cyclock_read(&clk), r1 = raw_ns() - start_ns;

	(void)sig;
	signals++;
	in_writer += writing;
	odd_seq += odd;
	if (v < r0 || v > r1 || v < handler_last)
		errors++;
	handler_last = v;
	cyclock_update(&clk); /* skips if we interrupted the writer */
}

static bool built_with_tsan(void)
{
#if defined(__SANITIZE_THREAD__)
	return true;
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
	return true;
#endif
#endif
	return false;
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 3.0;
	struct itimerval every = { { 0, 20 }, { 0, 20 } }, off = { { 0, 0 }, { 0, 0 } };
	struct sigaction sa = { .sa_handler = on_alarm };
	uint64_t end, last = 0, updates = 0;
	bool covered;

	if (cyclock_register(&clk, &timer) != 0) /* at counter 0 */
		return 1;
	start_ns = raw_ns();
	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, NULL);
	setitimer(ITIMER_REAL, &every, NULL);
	end = raw_ns() + (uint64_t)(seconds * 1e9);
	while (raw_ns() < end) {
		cyclock_update(&clk);
		updates++;
		if (updates % 64 == 0) {
			uint64_t v = cyclock_read(&clk);

			if (v < last)
				errors++;
			last = v;
		}
	}
	setitimer(ITIMER_REAL, &off, NULL);

	/* ThreadSanitizer defers signals to its own safe points, which are
	 * never inside the writer: there the count is reported, not required. */
	covered = (in_writer > 0 && odd_seq > 0) || built_with_tsan();
	printf("validate_latch_signal: %lu updates, %d signals, %d inside the writer, %d with the "
	       "sequence odd, %d errors\n",
	       (unsigned long)updates, (int)signals, (int)in_writer, (int)odd_seq, (int)errors);
	return errors || !signals || !covered ? 1 : 0;
}
