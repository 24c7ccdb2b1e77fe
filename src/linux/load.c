/* SPDX-License-Identifier: MIT */
/*
 * The library's load, and what a child of fork() repairs, registered at
 * load.  read.c's constructor calls here, so this file calls nothing that
 * reads (the coarse clock's ticker registers its own repair as it starts).
 *
 * Tests: tests/linux/validate_timeline_fork.c (children of fork() while
 * resyncs run), sim_defer.c (a child between initialisation's halves).
 */
#define _GNU_SOURCE
#include <pthread.h>

#include "internal.h"

/* The fork handler, for the child; also the tests'.  The parent's other
 * threads are gone: an initialisation one of them held, the writer flag
 * (which left the copies readers use whole).  Its process id is asked
 * here (getpid(2)), in fork(), so that no read asks. */
void cyclock__fork_child(void)
{
	cyclock__pid_fresh();
	cyclock__init_fork_child();
	cyclock_atomic_store(&cyclock__host.writer, 0, CYCLOCK_SEQ_CST);
}

/*
 * The library's load, before main() (read.c's constructor) and so before
 * any seccomp filter the program installs itself: everything the library
 * asks that takes a system call (docs/hosted.md, "System calls"): the
 * identity of the stderr messages may go to (platform.c), the process id,
 * and what initialisation asks the machine (checks.c); and the fork
 * handler, since a lazy first read may run where pthread_atfork() (which
 * allocates) may not.  It cannot block, and asks the machine nothing for
 * a process on the kernel's clocks (CYCLOCK_SOURCE=kernel); if the
 * handler fails for want of memory, a child of fork() still reads correct
 * time, but may resync less (see cyclock__fork_child()).
 */
void cyclock__load(void)
{
	pthread_atfork(NULL, NULL, cyclock__fork_child);
	cyclock__at_load();
	cyclock__pid_fresh();
	cyclock__check_at_load();
}
