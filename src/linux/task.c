/* SPDX-License-Identifier: MIT */
/*
 * Who the process and its tasks are, to the kernel: the process id's
 * cache, a task's thread id, and an identity no other task can have while
 * anyone looks (owner.c's question: is initialisation's owner gone?).
 * Async-signal-safe but where noted.
 *
 * Tests: tests/linux/test_owner_reuse.c (an identity, not an id: a thread
 * id reused), test_clone_vm.c (a task that is no thread).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "internal.h"

/*
 * The process id, cached: getpid() at load (the library's constructor)
 * and in a child of fork() (its handler), so that no read asks; 0 before
 * load.  A child of a raw fork system call, which runs no handler, still
 * holds its parent's, which matters only where a word in shared state
 * names our cached id (the writer flag, initialisation's owner): there an
 * explicit call asks the kernel (cyclock__pid_fresh()), and reads leave
 * such a word alone.  (A page the kernel wipes at fork, MADV_WIPEONFORK,
 * would tell without asking, but had cost every process 15 us at its
 * start: docs/hosted.md, "A process's start, summed".)
 */
static CYCLOCK_ATOMIC(uint32_t) pid_cached;

uint32_t cyclock__pid(void)
{
	return cyclock_atomic_load(&pid_cached, CYCLOCK_RELAXED);
}

uint32_t cyclock__pid_fresh(void)
{
	uint32_t pid = (uint32_t)syscall(SYS_getpid);

	cyclock_atomic_store(&pid_cached, pid, CYCLOCK_RELAXED);
	return pid;
}

uint32_t cyclock__tid(void)
{
	return (uint32_t)syscall(SYS_gettid);
}

#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL /* Linux 6.9: a pidfd of a thread, not a thread group */
#endif
#define PID_FS_MAGIC_ 0x50494446
#define IDENT_PIDFS (1ull << 63) /* an identity that is a pidfs inode, not a start time */

static int pidfd_of(uint32_t tid)
{
	return (int)syscall(SYS_pidfd_open, (pid_t)tid, PIDFD_THREAD);
}

/* The inode of pidfd @fd on pidfs (Linux 6.9 on), which no other task
 * gets for the life of the boot; 0 where pidfds are anonymous inodes. */
static uint64_t pidfs_ino(int fd)
{
	struct statfs fs;
	struct stat st;

	if (fstatfs(fd, &fs) || fs.f_type != PID_FS_MAGIC_ || fstat(fd, &st))
		return 0;
	return (uint64_t)st.st_ino;
}

/* Task @tid's state letter and start time (clock ticks since boot) from
 * /proc/<tid>/stat: false, errno ENOENT, if it has none. */
static bool proc_stat(uint32_t tid, char *state, uint64_t *start)
{
	char path[32], buf[1024], *p;
	int fd, field = 3;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%u/stat", (unsigned int)tid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	/* "tid (comm) S ...": the comm may hold anything, so the last ')'. */
	if (!(p = strrchr(buf, ')')) || p[1] != ' ') {
		errno = ENOENT;
		return false;
	}
	*state = p[2];
	for (p += 2; *p && field < 22; p++)
		field += *p == ' ';
	*start = strtoull(p, NULL, 10);
	return true;
}

uint64_t cyclock__task_ident(uint32_t tid)
{
	int saved = errno, fd = pidfd_of(tid);
	uint64_t ident = 0, start;
	char state;

	if (fd >= 0) {
		ident = pidfs_ino(fd);
		close(fd);
	}
	if (ident)
		ident |= IDENT_PIDFS;
	else if (proc_stat(tid, &state, &start))
		ident = start + 1;
	errno = saved;
	return ident;
}

/* Gone, by its pidfd: none for the id (reaped), one of another inode
 * (the id reused), or one that says the task exited. */
static bool gone_by_pidfd(uint32_t tid, uint64_t ino)
{
	struct pollfd p = { .fd = pidfd_of(tid), .events = POLLIN };
	bool gone;

	if (p.fd < 0)
		return errno == ESRCH;
	gone = pidfs_ino(p.fd) != ino || poll(&p, 1, 0) > 0;
	close(p.fd);
	return gone;
}

/*
 * Whether task @tid of identity @ident (cyclock__task_ident()) is gone.
 * By its pidfd, exactly; by its start time, which a task that took the id
 * over within the same clock tick shares (then not gone: a bounded wait
 * ends it); with no identity, only once nothing has the id.  Not
 * async-signal-safe (snprintf).
 */
bool cyclock__task_gone(uint32_t tid, uint64_t ident)
{
	int saved = errno;
	uint64_t start;
	char state;
	bool gone;

	if (ident & IDENT_PIDFS)
		gone = gone_by_pidfd(tid, ident & ~IDENT_PIDFS);
	else if (ident)
		gone = !proc_stat(tid, &state, &start) || state == 'Z' || state == 'X' ||
		       start + 1 != ident;
	else
		gone = kill((pid_t)tid, 0) && errno == ESRCH;
	errno = saved;
	return gone;
}
