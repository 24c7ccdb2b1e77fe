/* SPDX-License-Identifier: MIT */
/*
 * A library whose constructor reads the clock: it runs before the
 * preload's constructor (a library is initialised before the program that
 * needs it, and the preload is not among its dependencies), so its call is
 * passed through.  "early" checks the reading.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <time.h>

int64_t early_lib_ns = -1;          /* its CLOCK_MONOTONIC reading */
int early_lib_served = -1;          /* the preload's marker then */

__attribute__((constructor)) static void early_lib_init(void)
{
	unsigned int *marker = dlsym(RTLD_DEFAULT, "cyclock_preload_active");
	struct timespec ts;

	early_lib_served = marker ? (int)__atomic_load_n(marker, __ATOMIC_RELAXED) : -1;
	if (clock_gettime(CLOCK_MONOTONIC, &ts) == 0)
		early_lib_ns = ts.tv_sec * 1000000000ll + ts.tv_nsec;
}
