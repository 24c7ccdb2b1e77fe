/* SPDX-License-Identifier: MIT */
/*
 * A plain libc program that "cyclock run" serves: it finds the preload's
 * marker cyclock_preload_active (the bitmask of served clock ids, 0 when it
 * passes every call to the kernel) and prints which object defines it.
 * Exits 1 if the preload is not loaded.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <time.h>

int main(void)
{
	const unsigned int *active = dlsym(RTLD_DEFAULT, "cyclock_preload_active");
	struct timespec ts;
	Dl_info info;

	if (!active || !dladdr(active, &info)) {
		fprintf(stderr, "preloaded: no cyclock_preload_active: the preload is not loaded\n");
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &ts);
	printf("preloaded: cyclock_preload_active 0x%x from %s; CLOCK_MONOTONIC %lld.%09ld\n",
	       *active, info.dli_fname, (long long)ts.tv_sec, ts.tv_nsec);
	return 0;
}
