/* SPDX-License-Identifier: MIT */
/*
 * Shared by the preload tests: programs of plain libc, not linked with
 * cyclock, run with LD_PRELOAD=libcyclock-preload.so.  A test that passed
 * without the preload would prove nothing, so each first checks that it
 * is loaded, through its marker, and reports which clocks it serves.
 */
#ifndef CYCLOCK_PRELOAD_CHECK_H
#define CYCLOCK_PRELOAD_CHECK_H

#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "kclock.h"

#define NS_PER_SEC 1000000000ll

/* How far a preloaded reading may lie outside the kernel's readings around
 * it: cyclock tracks the kernel to well under a microsecond, but a resync
 * on a busy machine may leave it further behind for a moment. */
#define SLACK_NS (100 * 1000ll)

/* A failed expectation: said on stderr and counted in the including
 * file's own `failures`, so that one run reports every one. */
#define CHECK(cond, ...)                                    \
	do {                                                \
		if (!(cond)) {                              \
			fprintf(stderr, "FAIL: " __VA_ARGS__); \
			fputc('\n', stderr);                \
			failures++;                         \
		}                                           \
	} while (0)

/* The kernel's clock, past libc, the vDSO and the preload. */
static inline int64_t sys_ns(clockid_t id)
{
	struct timespec ts;

	if (syscall(SYS_clock_gettime, id, &ts))
		return -1;
	return (int64_t)ts_ns(&ts);
}

/* Through whatever clock_gettime() the program sees: the preload's. */
static inline int64_t lib_ns(clockid_t id)
{
	struct timespec ts;

	if (clock_gettime(id, &ts))
		return -1;
	return (int64_t)ts_ns(&ts);
}

/* The served clocks' bits; exits 1 if the preload is not loaded. */
static inline unsigned int preload_mask(const char *prog)
{
	unsigned int *marker = dlsym(RTLD_DEFAULT, "cyclock_preload_active");

	if (!marker) {
		fprintf(stderr, "%s: libcyclock-preload.so is not loaded (LD_PRELOAD)\n", prog);
		exit(1);
	}
	return __atomic_load_n(marker, __ATOMIC_RELAXED);
}

/* Exit status when the preload serves nothing (the kernel's clocks in
 * use): what passed checked only the pass-through. */
static inline int preload_result(unsigned int mask, const char *prog)
{
	if (mask)
		return 0;
	printf("%s: the preload passes every clock through (no trusted counter)\n", prog);
	return 77;
}

#endif /* CYCLOCK_PRELOAD_CHECK_H */
