/* SPDX-License-Identifier: MIT */
/*
 * Shared by the hosted clocks' tests (test_*.c, validate_*.c): the table of
 * cyclock's clocks and the kernel clock each follows, and the bracketed
 * agreement check.  Bounds are generous on purpose: these machines are
 * shared and noisy, and a test must fail on wrong behaviour, not on a slow
 * moment.
 */
#ifndef CYCLOCK_TEST_AGREE_H
#define CYCLOCK_TEST_AGREE_H

#include <stdint.h>
#include <time.h>

#include "cyclock.h"
#include "kclock.h"

/* The library aims at 1 us; a reading further than this from its kernel
 * clock, outside two kernel readings taken around it, is wrong. */
#define AGREE_NS 1000000ull

/* cyclock_coarse() lags as the kernel's coarse clock lags its own (a tick,
 * 4 ms here, though this guest's kernel shows up to 7 ms), or one ticker
 * period, plus scheduling: on a loaded 2-CPU guest that can take tens of
 * ms. */
#define COARSE_LAG_NS 100000000ull

#define KCLOCK_ORDERED 1u  /* monotonic across threads */
#define KCLOCK_MONO 2u     /* monotonic on one thread */
#define KCLOCK_COARSE 4u   /* lags its kernel clock by up to COARSE_LAG_NS */

struct kclock_case {
	const char *name;
	uint64_t (*read)(void);
	clockid_t kernel; /* the kernel clock it follows */
	unsigned int flags;
};

/* Every clock of cyclock.h that follows a kernel clock; *n gets the count.
 * cyclock_cycles() is not here: it is a counter, not ns. */
static inline const struct kclock_case *kclock_cases(int *n)
{
	static const struct kclock_case cases[] = {
		{ "cyclock_now", cyclock_now, CLOCK_MONOTONIC, KCLOCK_ORDERED | KCLOCK_MONO },
		{ "cyclock_now_relaxed", cyclock_now_relaxed, CLOCK_MONOTONIC, KCLOCK_MONO },
		{ "cyclock_raw", cyclock_raw, CLOCK_MONOTONIC_RAW, KCLOCK_ORDERED | KCLOCK_MONO },
		{ "cyclock_realtime", cyclock_realtime, CLOCK_REALTIME, 0 },
		{ "cyclock_boottime", cyclock_boottime, CLOCK_BOOTTIME, KCLOCK_ORDERED | KCLOCK_MONO },
		{ "cyclock_coarse", cyclock_coarse, CLOCK_MONOTONIC,
		  KCLOCK_ORDERED | KCLOCK_MONO | KCLOCK_COARSE },
		{ "cyclock_local", cyclock_local, CLOCK_MONOTONIC, KCLOCK_MONO },
	};

	*n = (int)(sizeof(cases) / sizeof(cases[0]));
	return cases;
}

/*
 * How far one reading of @c lands outside [k1 - slack, k2], where k1 and
 * k2 are readings of its kernel clock taken just before and just after
 * it, and slack is COARSE_LAG_NS for the coarse clock, else 0: 0 inside,
 * negative below, positive above.  Preemption only widens the bracket, so
 * a miss is the library's error, not the scheduler's.
 */
static inline int64_t kclock_miss(const struct kclock_case *c)
{
	uint64_t k1 = kclock_ns(c->kernel), v = c->read(), k2 = kclock_ns(c->kernel);
	uint64_t lo = k1 - (c->flags & KCLOCK_COARSE ? COARSE_LAG_NS : 0);

	if (v < lo)
		return -(int64_t)(lo - v);
	if (v > k2)
		return (int64_t)(v - k2);
	return 0;
}

/* Whether a miss is within @bound ns either way. */
static inline int kclock_within(int64_t miss, uint64_t bound)
{
	return (miss < 0 ? (uint64_t)-miss : (uint64_t)miss) <= bound;
}

#endif /* CYCLOCK_TEST_AGREE_H */
