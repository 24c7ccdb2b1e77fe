/* SPDX-License-Identifier: MIT */
/*
 * The library's life in a process: cyclock_init(), and what a child of
 * fork() repairs, registered at load.  It sits above initialisation
 * (init.c) and the coarse clock's ticker (coarse.c), which it starts and
 * repairs; nothing in the library calls here.
 */
#define _GNU_SOURCE
#include <pthread.h>

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

/* The fork handler, for the child; also the tests'.  The parent's other
 * threads are gone: an initialisation one of them held, the writer flag
 * (which left the copies readers use whole), the ticker. */
void cyclock__fork_child(void)
{
	cyclock__pid_forget();
	cyclock__init_fork_child();
	cyclock_atomic_store(&cyclock__host.writer, 0, CYCLOCK_SEQ_CST);
	cyclock__coarse_fork_child();
	cyclock__status_fork_child();
}

/*
 * The fork handler is registered at load time, since a lazy first read
 * may run where pthread_atfork() (which allocates) may not; so is the
 * identity of the stderr messages may go to (platform.c).  It cannot
 * block; if it fails for want of memory, a child of fork() still reads
 * correct time, but may resync less (see cyclock__fork_child()).
 */
__attribute__((constructor)) static void register_fork_child(void)
{
	pthread_atfork(NULL, NULL, cyclock__fork_child);
	cyclock__at_load();
}
