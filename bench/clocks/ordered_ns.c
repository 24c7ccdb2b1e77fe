/* SPDX-License-Identifier: MIT */
/*
 * ordered_ns, the floor the cost scenarios' x_floor ratios are to: the
 * least an ordered nanosecond clock can cost.  The ordered read cyclock's
 * readers use (timeline.how), then their arithmetic without the latch and
 * the range check around it, base + ((cyc * mult + k) >> shift), as in
 * timeline.h's cyclock__read_parts(), with one segment, NS_RANGE_S long.  It
 * starts at CLOCK_MONOTONIC at its first use and runs at the counter's
 * rate, uncorrected, until cyc * mult + k wraps, NS_RANGE_S later.
 *
 * The constants are set at run time, so the compiler cannot fold them,
 * and the loops copy them before the first read, so that they cost what
 * constants held in registers cost; a single reading (cold, resolution)
 * loads them from their line, as a clock loads its own.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <string.h>
#include <time.h>

#include <cyclock.h>
#include <cyclock/timeline.h>

#include "bench.h"
#include "loops.h"

#define NS_RANGE_S 86400u

struct ns_conv {
	uint64_t k;     /* -(cyc0 * mult) mod 2^64: the counter's start, scaled */
	uint64_t base;  /* CLOCK_MONOTONIC at cyc0, ns */
	uint32_t mult, shift;
	uint32_t how;   /* the ordered read: cyclock_arch_counter_ordered_how() */
};

/* The constants and the flag that says they are set, on one line. */
static struct {
	_Alignas(64) struct ns_conv conv;
	atomic_bool ready;
} ns_floor;

/* The ordered read cyclock's readers use: the one cyclock_get_state()
 * names (it waits for initialisation, which chooses it), or, with the
 * library on the kernel's clocks, the first that works here. */
static uint32_t library_how(void)
{
	struct cyclock_state info;
	const char *why;

	info.version = CYCLOCK_STATE_VERSION;
	cyclock_get_state(&info);
	for (uint32_t h = 0; h < CYCLOCK_ARCH_ORDERED_HOWS; h++)
		if (info.using_counter == CYCLOCK_USING_COUNTER && info.ordered &&
		    strcmp(info.ordered, cyclock_arch_ordered_name(h)) == 0)
			return h;
	for (uint32_t h = 0; h < CYCLOCK_ARCH_ORDERED_HOWS; h++)
		if (cyclock_arch_ordered_works(h, &why))
			return h;
	return 0;
}

/* The constants: the read cyclock chose, the counter's rate as a mult and
 * shift that convert NS_RANGE_S of counts without overflow, and a start
 * at CLOCK_MONOTONIC's now. */
static void find_ns_conv(void)
{
	struct ns_conv c = { .how = library_how() };
	uint64_t cyc0;

	cyclock_calc_mult_shift(&c.mult, &c.shift, (uint64_t)bench_counter_hz(), 1000000000u,
				NS_RANGE_S);
	cyc0 = cyclock_arch_counter_ordered_how(c.how);
	c.base = bench_kernel_ns(CLOCK_MONOTONIC);
	c.k = 0 - cyc0 * c.mult;
	ns_floor.conv = c;
	atomic_store_explicit(&ns_floor.ready, true, memory_order_release);
}

/* The constants, found at the first reading rather than when the clocks
 * are listed: listing them (--help, bench_clock_available()) must not
 * initialise the library, whose initialisation chooses the read. */
static inline struct ns_conv ns_conv_get(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	if (!atomic_load_explicit(&ns_floor.ready, memory_order_acquire))
		pthread_once(&once, find_ns_conv);
	return ns_floor.conv;
}

/* One reading with ordered read @how (a constant in a loop, so the branch
 * on it folds away). */
static inline uint64_t ordered_ns(uint32_t how, struct ns_conv c)
{
	return c.base + ((cyclock_arch_counter_ordered_how(how) * c.mult + c.k) >> c.shift);
}

/* A pair of loops per ordered read the architecture has, each with the
 * read written out; the clock's loops run the pair of the read cyclock
 * chose, picked once per loop, so that no loop branches on it.  A single
 * reading branches on it, as cyclock's readers do. */
#define ORDERED_NS_LOOPS(h) \
	DEFINE_LOOPS(how##h, const struct ns_conv c = ns_conv_get();, ordered_ns(h, c))
ORDERED_NS_LOOPS(0)
#if CYCLOCK_ARCH_ORDERED_HOWS > 1
ORDERED_NS_LOOPS(1)
#endif
#if CYCLOCK_ARCH_ORDERED_HOWS > 2
ORDERED_NS_LOOPS(2)
#endif
_Static_assert(CYCLOCK_ARCH_ORDERED_HOWS <= 3, "ordered_ns has loops for three ordered reads");

static const struct {
	bench_loop_fn *throughput, *latency;
} loops[CYCLOCK_ARCH_ORDERED_HOWS] = {
	{ tp_how0, lat_how0 },
#if CYCLOCK_ARCH_ORDERED_HOWS > 1
	{ tp_how1, lat_how1 },
#endif
#if CYCLOCK_ARCH_ORDERED_HOWS > 2
	{ tp_how2, lat_how2 },
#endif
};

uint64_t bench__read_ordered_ns(void)
{
	const struct ns_conv c = ns_conv_get();

	return ordered_ns(c.how, c);
}

double bench__tp_ordered_ns(long calls)
{
	return loops[ns_conv_get().how].throughput(calls);
}

double bench__lat_ordered_ns(long calls)
{
	return loops[ns_conv_get().how].latency(calls);
}

const char *bench_floor_read(void)
{
	if (!cyclock_arch_counter_usable())
		return NULL;
	return cyclock_arch_ordered_name(ns_conv_get().how);
}
