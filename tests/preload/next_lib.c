/* SPDX-License-Identifier: MIT */
/*
 * A second preload, after libcyclock-preload.so in LD_PRELOAD: a
 * clock_gettime() that counts its calls and passes them on.  preload_next
 * checks that the clocks cyclock does not serve reach it, rather than
 * going around it to the vDSO.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdatomic.h>
#include <time.h>

typedef int gettime_fn(clockid_t id, struct timespec *ts);

__attribute__((visibility("default"))) atomic_long preload_next_calls;

__attribute__((visibility("default"))) int clock_gettime(clockid_t id, struct timespec *ts)
{
	gettime_fn *next = (gettime_fn *)dlsym(RTLD_NEXT, "clock_gettime");

	atomic_fetch_add(&preload_next_calls, 1);
	return next ? next(id, ts) : -1;
}
