/* SPDX-License-Identifier: MIT */
/*
 * The counter's rate, which the tick clocks' conversion to ns, the engine's
 * clock and ordered_ns all need: cyclock's estimate, or measured when
 * cyclock fell back to the kernel.  A file of its own, so that the clocks
 * call in here and clocks.c's table calls the clocks, never the other way.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>

#include <cyclock.h>
#include <cyclock/arch.h>
#include <cyclock/timeline.h>

#include "bench.h"

static uint64_t arch_counter(void)
{
	return cyclock_arch_counter();
}

/* The counter's rate measured against CLOCK_MONOTONIC_RAW over 20 ms, read
 * by the bare counter read (the first floor, rdtsc or cntvct, where there
 * is one); 0 without a counter. */
static double measure_hz(void)
{
	uint64_t (*ticks)(void) = CYCLOCK_ARCH_HAS_COUNTER ? arch_counter : NULL;
	uint64_t t0, c0, t1, c1;

	if (!ticks)
		return 0;
	t0 = bench_now_ns();
	c0 = ticks();
	do
		t1 = bench_now_ns();
	while (t1 - t0 < 20000000);
	c1 = ticks();
	return (double)(c1 - c0) * 1e9 / (double)(t1 - t0);
}

static double counter_hz;

static void find_counter_hz(void)
{
	struct cyclock_state info = {.version = CYCLOCK_STATE_VERSION};

	cyclock_get_state(&info);
	if (info.using_counter == CYCLOCK_USING_COUNTER && info.hz > 0)
		counter_hz = info.hz;
	else
		counter_hz = measure_hz();
}

/* Found once: threads timing at once may all ask. */
double bench_counter_hz(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, find_counter_hz);
	return counter_hz;
}
