/* SPDX-License-Identifier: MIT */
/*
 * The kernel's clock_gettime() as the library reaches it (the seam
 * cyclock__kernel_gettime() calls, internal.h): the vDSO's directly where
 * the clock_gettime() the program reaches is libc's, which only calls it
 * (found at load: world.c), else that one.  Under cyclock's own preload
 * the one it reaches is the preload's, a cyclock clock: the library looks
 * past it to what the preload calls, as the preload itself does, so that
 * it follows the kernel's clock (tests/preload/test_linked.c).  The
 * preload builds without this file and defines the seam itself
 * (src/preload/preload.c), since the clock_gettime() the program reaches
 * is then its own; the simulation, in sim.c.
 */
#include "internal.h"

/* Weak: null where the process has no cyclock preload (machine.h). */
#pragma weak cyclock_preload_next_gettime

int cyclock__next_gettime(clockid_t id, struct timespec *ts)
{
	return clock_gettime(id, ts);
}

/* At load: the program's clock_gettime(), where it has one, or libc's;
 * or, where that is cyclock's preload's, the one the preload calls. */
__attribute__((constructor)) static void find_vdso_gettime(void)
{
	cyclock__gettime_fn *next = clock_gettime;

	if (cyclock_preload_next_gettime)
		next = cyclock_preload_next_gettime(next);
	cyclock__vdso_gettime_set(cyclock__vdso_gettime_of(next));
}
