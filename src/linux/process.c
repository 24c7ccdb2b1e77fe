/* SPDX-License-Identifier: MIT */
/*
 * cyclock_init(): initialisation asked for (init.c), and the coarse
 * clock's ticker (coarse.c) started.  Nothing in the library calls here.
 *
 * Tests: tests/linux/test_api.c (what cyclock_init() returns),
 * test_threads.c (the ticker it starts).
 */
#include "internal.h"

int cyclock_init(unsigned int flags)
{
	bool counter;

	if (flags & ~(CYCLOCK_INIT_KERNEL | CYCLOCK_INIT_COARSE | CYCLOCK_INIT_NO_WARP_CHECK |
		      CYCLOCK_INIT_WARP_CHECK))
		return CYCLOCK_EINVAL;
	counter = cyclock__init_wait(flags, flags & CYCLOCK_INIT_WARP_CHECK);
	if (flags & CYCLOCK_INIT_COARSE)
		cyclock__coarse_start();
	return counter ? CYCLOCK_USING_COUNTER : CYCLOCK_USING_KERNEL;
}
