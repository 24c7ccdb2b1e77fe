/* SPDX-License-Identifier: MIT */
/*
 * What qemu-user cannot do.  A cross build's tests run under it with
 * CYCLOCK_TEST_EMULATED set (cmake/CyclockCrossLinux.cmake); a test that
 * cannot run there says why and exits 77, a skip.
 */
#ifndef CYCLOCK_TEST_EMULATED_H
#define CYCLOCK_TEST_EMULATED_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

/*
 * Whether the counter is unordered here, so that no check of the order of
 * readings between threads can hold: on riscv64 under qemu-user, rdtime is
 * the host's bare rdtsc, which no guest fence orders (readings on two
 * threads disagree by ~100 ns).  If so, says it after @prog.
 */
static inline bool emulated_unordered_counter(const char *prog)
{
#if defined(__riscv)
	if (getenv("CYCLOCK_TEST_EMULATED")) {
		printf("%s: qemu-user's rdtime is unordered: skipped\n", prog);
		return true;
	}
#endif
	(void)prog;
	return false;
}

#endif /* CYCLOCK_TEST_EMULATED_H */
