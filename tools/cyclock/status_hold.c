/* SPDX-License-Identifier: MIT */
/*
 * The process cyclock status reads, held from the start of the read to its
 * end (status_target.h): a pidfd of it, its /proc directory (whatever is
 * opened in it later is this process's, never another's that took its
 * number), its start time, and its maps open, which read empty once the
 * memory they were opened on is gone (the process exited or ran exec).
 * Its memory is read by number (process_vm_readv(2) takes no pidfd), so
 * the end checks all four: a process that ended or was replaced during
 * the read is refused, never answered with another's block.  And the
 * wording of why a process cannot be read, and the block's reads
 * (status_fetch(), for status_read.c and status_v1.c).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "status_target.h"

void status_say(char *why, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, len, fmt, ap);
	va_end(ap);
}

/* ---- /proc/PID/stat ---- */

/* The state letter and the start time (field 22) of the stat at @path in
 * @dir; 0, or -1 when it cannot be read. */
static int stat_fields(int dir, const char *path, char *state, unsigned long long *start)
{
	char buf[1024], *p;
	ssize_t n;
	int fd = openat(dir, path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	p = strrchr(buf, ')'); /* the command may hold anything, ')' too */
	if (!p || p[1] != ' ' || !p[2])
		return -1;
	*state = p[2];
	p += 2;
	for (int field = 3; field < 22; field++) {
		p = strchr(p, ' ');
		if (!p)
			return -1;
		p++;
	}
	*start = strtoull(p, NULL, 10);
	return 0;
}

/* Its state letter ('Z': a zombie), or 0. */
static char proc_state(pid_t pid)
{
	char path[64], state;
	unsigned long long start;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	return stat_fields(AT_FDCWD, path, &state, &start) ? 0 : state;
}

/* ---- why a process cannot be read ---- */

enum status_err status_denied(pid_t pid, char *why, size_t len)
{
	char path[64];
	struct stat st;
	int scope = -1;
	FILE *f = fopen("/proc/sys/kernel/yama/ptrace_scope", "re");

	if (f) {
		if (fscanf(f, "%d", &scope) != 1)
			scope = -1;
		fclose(f);
	}
	snprintf(path, sizeof(path), "/proc/%d", (int)pid);
	if (stat(path, &st) == 0 && st.st_uid != geteuid())
		status_say(why, len,
			   "permission denied: process %d belongs to uid %u, and reading another "
			   "user's process takes root (CAP_SYS_PTRACE)",
			   (int)pid, (unsigned)st.st_uid);
	else if (scope >= 1)
		status_say(why, len,
			   "permission denied by Yama (kernel.yama.ptrace_scope = %d: %s)", scope,
			   scope == 1 ? "only a process's ancestors may read its memory; run as "
					"root or with CAP_SYS_PTRACE"
			   : scope == 2 ? "only CAP_SYS_PTRACE may read a process's memory"
					: "no process may read another's memory");
	else
		status_say(why, len,
			   "permission denied: process %d cannot be read (not dumpable: "
			   "set-user-ID, or PR_SET_DUMPABLE 0)", (int)pid);
	return STATUS_DENIED;
}

enum status_err status_gone(pid_t pid, char *why, size_t len)
{
	if (proc_state(pid) == 'Z')
		status_say(why, len, "process %d has exited (a zombie: nothing left to read)",
			   (int)pid);
	else
		status_say(why, len, "no process %d (it exited, or never was)", (int)pid);
	return STATUS_GONE;
}

/* ---- its memory ---- */

int status_vm_read(pid_t pid, uint64_t addr, void *buf, size_t len)
{
	struct iovec local = { buf, len }, remote = { (void *)(uintptr_t)addr, len };
	ssize_t n = process_vm_readv(pid, &local, 1, &remote, 1, 0);

	if (n < 0)
		return errno;
	return (size_t)n == len ? 0 : EFAULT;
}

int status_vm_string(pid_t pid, uint64_t addr, char *buf, size_t size)
{
	size_t got = 0;

	/* A page at a time: the string may end just before unmapped memory,
	 * and a read that crosses into it fails whole. */
	while (got + 1 < size) {
		size_t chunk = 4096 - ((addr + got) & 4095);
		int err;

		if (chunk > size - 1 - got)
			chunk = size - 1 - got;
		err = status_vm_read(pid, addr + got, buf + got, chunk);
		if (err) {
			buf[got] = 0;
			return got ? 0 : err;
		}
		if (memchr(buf + got, 0, chunk))
			return 0;
		got += chunk;
	}
	buf[got] = 0;
	return 0;
}

enum status_err status_vm_error(pid_t pid, int err, char *why, size_t len)
{
	if (err == EPERM || err == EACCES)
		return status_denied(pid, why, len);
	if (err == ESRCH)
		return status_gone(pid, why, len);
	if (err == EFAULT) {
		if (kill(pid, 0) != 0 && errno == ESRCH)
			return status_gone(pid, why, len);
		status_say(why, len, "process %d unmapped its status block while it was read "
			   "(it exited or ran exec)", (int)pid);
		return STATUS_GONE;
	}
	status_say(why, len, "process_vm_readv: %s", strerror(err));
	return STATUS_BAD;
}

/* ---- holding it ---- */

static int pidfd_open(pid_t pid)
{
#ifdef SYS_pidfd_open
	return (int)syscall(SYS_pidfd_open, pid, 0);
#else
	(void)pid;
	errno = ENOSYS;
	return -1;
#endif
}

/* Whether the process of @pidfd is still there (EPERM: it is). */
static bool pidfd_alive(int pidfd)
{
#ifdef SYS_pidfd_send_signal
	return syscall(SYS_pidfd_send_signal, pidfd, 0, NULL, 0) == 0 || errno != ESRCH;
#else
	(void)pidfd;
	return true;
#endif
}

enum status_err status_hold(struct status_target *t, pid_t pid, char *why, size_t wlen)
{
	char path[64], state;

	memset(t, 0, sizeof(*t));
	t->pid = pid;
	t->why = why;
	t->wlen = wlen;
	t->procfd = t->maps_fd = -1;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t->cpu0);
	/* Where there is no pidfd (before Linux 5.3; a thread's id), the
	 * /proc directory and the start time still tell. */
	t->pidfd = pidfd_open(pid);
	if (t->pidfd < 0 && errno == ESRCH)
		return status_gone(pid, why, wlen);
	snprintf(path, sizeof(path), "/proc/%d", (int)pid);
	t->procfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (t->procfd < 0 || stat_fields(t->procfd, "stat", &state, &t->start) ||
	    state == 'Z' || state == 'X')
		return status_gone(pid, why, wlen);
	t->maps_fd = openat(t->procfd, "maps", O_RDONLY | O_CLOEXEC);
	if (t->maps_fd < 0)
		return errno == EACCES || errno == EPERM ? status_denied(pid, why, wlen)
							 : status_gone(pid, why, wlen);
	return STATUS_OK;
}

enum status_err status_still(struct status_target *t, const char *comm)
{
	unsigned long long start;
	char state, c;

	if (!stat_fields(t->procfd, "stat", &state, &start) && start == t->start &&
	    state != 'Z' && state != 'X' && (t->pidfd < 0 || pidfd_alive(t->pidfd)) &&
	    (t->n_maps == 0 ||
	     (lseek(t->maps_fd, 0, SEEK_SET) == 0 && read(t->maps_fd, &c, 1) == 1)))
		return STATUS_OK;
	status_say(t->why, t->wlen,
		   "process %d (%s): the process ended or was replaced during the read",
		   (int)t->pid, comm);
	return STATUS_GONE;
}

void status_release(struct status_target *t)
{
	if (t->maps_fd >= 0)
		close(t->maps_fd);
	if (t->procfd >= 0)
		close(t->procfd);
	if (t->pidfd >= 0)
		close(t->pidfd);
	t->maps_fd = t->procfd = t->pidfd = -1;
}

bool status_over_budget(struct status_target *t)
{
	struct timespec now;
	long long ns;

	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now))
		return false;
	ns = (long long)(now.tv_sec - t->cpu0.tv_sec) * 1000000000ll +
	     (now.tv_nsec - t->cpu0.tv_nsec);
	if (ns <= STATUS_BUDGET_NS)
		return false;
	t->over = true;
	status_say(t->why, t->wlen,
		   "process %d: reading its mappings and objects took more than %lld ms of CPU, "
		   "and was stopped (a process with cyclock takes far less)",
		   (int)t->pid, STATUS_BUDGET_NS / 1000000);
	return true;
}

/* @len bytes at @addr of process @pid; 0, or an errno.  @pid 0: this
 * process's own memory, loaded in place a word at a time as the library's
 * own readers load the block (relaxed atomics), each read then ordered
 * before the next by an acquire fence as the latch's loads are: no system
 * call, for cyclock info's own block (qemu-user has no
 * process_vm_readv(2), nor have sandboxes that refuse it). */
int status_fetch(pid_t pid, uint64_t addr, void *buf, size_t len)
{
	const uint32_t *s = (const uint32_t *)(uintptr_t)addr;
	uint32_t *d = buf;

	if (pid)
		return status_vm_read(pid, addr, buf, len);
	for (size_t i = 0; i < len / 4; i++)
		d[i] = __atomic_load_n(&s[i], __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	return 0;
}

enum status_err status_busy(pid_t pid, const char *name, const char *how, char *why,
			    size_t wlen)
{
	status_say(why, wlen, "process %d's status %s %s at each of %d reads", (int)pid, name,
		   how, STATUS_TRIES);
	return STATUS_BUSY;
}
