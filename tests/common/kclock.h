/* SPDX-License-Identifier: MIT */
/*
 * Shared by every test folder: a timespec in ns and back, and the kernel's
 * clocks in ns.  Plain libc, so that the preload's tests, which are not
 * linked with cyclock, can use it too.
 */
#ifndef CYCLOCK_TEST_KCLOCK_H
#define CYCLOCK_TEST_KCLOCK_H

#include <stdint.h>
#include <time.h>

#define KCLOCK_SEC 1000000000u

static inline uint64_t ts_ns(const struct timespec *ts)
{
	return (uint64_t)ts->tv_sec * KCLOCK_SEC + (uint64_t)ts->tv_nsec;
}

static inline struct timespec ns_ts(uint64_t ns)
{
	struct timespec ts = { .tv_sec = (time_t)(ns / KCLOCK_SEC),
			       .tv_nsec = (long)(ns % KCLOCK_SEC) };

	return ts;
}

static inline uint64_t kclock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return ts_ns(&ts);
}

static inline uint64_t kclock_mono(void)
{
	return kclock_ns(CLOCK_MONOTONIC);
}

#endif /* CYCLOCK_TEST_KCLOCK_H */
