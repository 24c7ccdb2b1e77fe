/* SPDX-License-Identifier: MIT */
/*
 * The kernel's clock_gettime() as the library reaches it (the seam
 * cyclock__kernel_gettime() calls, internal.h): the vDSO's directly where
 * the clock_gettime() the program reaches is libc's, which only calls it
 * (found at load: world.c), else that one.  The preload builds without
 * this file and defines the seam itself (src/preload/preload.c), since
 * the clock_gettime() the program reaches is then its own; the
 * simulation, in sim.c.
 */
#include "internal.h"

int cyclock__next_gettime(clockid_t id, struct timespec *ts)
{
	return clock_gettime(id, ts);
}

/* At load: the program's clock_gettime(), where it has one, or libc's. */
__attribute__((constructor)) static void find_vdso_gettime(void)
{
	cyclock__vdso_gettime_set(cyclock__vdso_gettime_of(clock_gettime));
}
