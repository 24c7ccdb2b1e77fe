/* SPDX-License-Identifier: MIT */
/*
 * What the hosted layer needs of the process: the process id's cache, one-line messages on stderr, the environment
 * (CYCLOCK_SOURCE, CYCLOCK_ORDERED_READ), the shield around
 * initialisation, and the library's own threads.  Everything here is
 * async-signal-safe except where noted, since a reader's first call
 * initialises.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "internal.h"

/* What file descriptor 2 was when the library was loaded (its device and
 * inode), so that nothing is written into a file a program opened after
 * closing its stderr; zero: not open then. */
static struct {
	dev_t dev;
	ino_t ino;
	CYCLOCK_ATOMIC(uint32_t) known; /* 32 bits: no libatomic for a byte's exchange (riscv64) */
} stderr_at_load;

/* At load; or at the first message, if it comes from a constructor that
 * ran before ours, or from a variable set after load. */
static void stderr_remember(void)
{
	struct stat st;

	if (cyclock_atomic_exchange(&stderr_at_load.known, 1, CYCLOCK_SEQ_CST))
		return;
	if (fstat(STDERR_FILENO, &st) == 0) {
		stderr_at_load.dev = st.st_dev;
		stderr_at_load.ino = st.st_ino;
	}
}

/*
 * Every message cyclock says is about one of its environment variables
 * (a value it ignores or cannot honour), so stderr is remembered at load
 * only when one is set: a process without one pays no system call at
 * load.
 */
void cyclock__at_load(void)
{
	for (char **e = environ; e && *e; e++)
		if (!strncmp(*e, "CYCLOCK_", 8)) {
			stderr_remember();
			return;
		}
}

static bool stderr_is_ours(void)
{
	struct stat st;

	stderr_remember();
	return fstat(STDERR_FILENO, &st) == 0 && (stderr_at_load.dev || stderr_at_load.ino) &&
	       st.st_dev == stderr_at_load.dev && st.st_ino == stderr_at_load.ino;
}

/*
 * The process id, cached: getpid() once per process.  A child of fork()
 * forgets its parent's in the fork handler (cyclock__pid_forget()); a
 * child of a raw fork system call, which runs no handler, still holds its
 * parent's, which matters only where a word in shared state names our
 * cached id (the writer flag, initialisation's owner): there
 * cyclock__pid_fresh() asks the kernel.  (A page the kernel wipes at
 * fork, MADV_WIPEONFORK, would spare that question, but had cost every
 * process 15 us at its start: docs/hosted.md, "A process's start, summed".)
 */
static CYCLOCK_ATOMIC(uint32_t) pid_cached;

uint32_t cyclock__pid(void)
{
	uint32_t pid = cyclock_atomic_load(&pid_cached, CYCLOCK_RELAXED);

	return pid ? pid : cyclock__pid_fresh();
}

uint32_t cyclock__pid_fresh(void)
{
	uint32_t pid = (uint32_t)syscall(SYS_getpid);

	cyclock_atomic_store(&pid_cached, pid, CYCLOCK_RELAXED);
	return pid;
}

void cyclock__pid_forget(void)
{
	cyclock_atomic_store(&pid_cached, 0, CYCLOCK_RELAXED);
}

uint32_t cyclock__tid(void)
{
	return (uint32_t)syscall(SYS_gettid);
}

/*
 * Whether task @tid has not exited: kill(2) with no signal finds it (a
 * thread's id too), and /proc says whether it is a zombie, which still
 * takes signals.  Where /proc cannot be read, alive: a zombie is then
 * found dead only once reaped.  Not async-signal-safe (snprintf).
 */
bool cyclock__task_alive(uint32_t tid)
{
	char path[32], buf[512], *state;
	int saved = errno, fd;
	ssize_t n = 0;

	if (kill((pid_t)tid, 0) && errno == ESRCH) {
		errno = saved;
		return false;
	}
	snprintf(path, sizeof(path), "/proc/%u/stat", (unsigned int)tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) { /* no /proc, or reaped since */
		bool alive = !(kill((pid_t)tid, 0) && errno == ESRCH);

		errno = saved;
		return alive;
	}
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	errno = saved;
	if (n <= 0)
		return false; /* reaped since */
	buf[n] = '\0';
	/* "pid (comm) S ...": the comm may hold anything, so the last ')'. */
	state = strrchr(buf, ')');
	return !state || (state[1] != ' ' || (state[2] != 'Z' && state[2] != 'X'));
}

/*
 * Holds off everything that could end the calling thread's section half
 * done: every signal blocked (a handler that longjmps out), and
 * cancellation disabled and made deferred.  Deferred as well, because
 * glibc up to 2.36 acts on an asynchronous cancel whose signal was sent
 * before the thread disabled cancellation but arrives after: its handler
 * asks only whether the type is asynchronous.  cyclock__unshield() gives
 * all three back, cancellation first; a cancel that came meanwhile acts
 * there, once the section is done.  Not async-signal-safe.
 */
void cyclock__shield(struct cyclock__shield *s)
{
	sigset_t all;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &s->mask);
	pthread_setcanceltype(PTHREAD_CANCEL_DEFERRED, &s->cancel_type);
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &s->cancel_state);
}

void cyclock__unshield(const struct cyclock__shield *s)
{
	pthread_setcancelstate(s->cancel_state, NULL);
	pthread_setcanceltype(s->cancel_type, NULL);
	pthread_sigmask(SIG_SETMASK, &s->mask, NULL);
}

/*
 * @n bytes of @msg on stderr in one write(2) (no stdio, and no other
 * thread's output in the middle of it), or nothing: never blocking (a
 * full pipe: dropped) and never raising SIGPIPE (a pipe nobody reads: the
 * signal our write caused is taken back), so that a constructor's message
 * can neither stop nor kill its program.  Async-signal-safe.
 */
void cyclock__say(const char *msg, size_t n)
{
	struct pollfd p = { .fd = STDERR_FILENO, .events = POLLOUT };
	struct timespec zero = { 0, 0 };
	sigset_t pipe_set, old, pending;
	int saved = errno;
	bool ours;

	if (n > PIPE_BUF || !stderr_is_ours() || poll(&p, 1, 0) != 1 ||
	    !(p.revents & POLLOUT)) {
		errno = saved;
		return;
	}
	sigemptyset(&pipe_set);
	sigaddset(&pipe_set, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
	/* Take back only a SIGPIPE this write raised, whatever the caller's
	 * mask (initialisation blocks every signal around us). */
	ours = !sigpending(&pending) && !sigismember(&pending, SIGPIPE);
	if (write(STDERR_FILENO, msg, n) < 0 && errno == EPIPE && ours)
		sigtimedwait(&pipe_set, NULL, &zero);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	errno = saved;
}

/* @msg with cyclock__say(), the first time only for each @said. */
void cyclock__say_once(CYCLOCK_ATOMIC(uint32_t) *said, const char *msg, size_t n)
{
	if (!cyclock_atomic_exchange(said, 1, CYCLOCK_SEQ_CST))
		cyclock__say(msg, n);
}

/*
 * One line on stderr, once per process for each @said (cyclock__say_once()):
 * @head, @value, @tail.  Control characters in the value become '?', so
 * it stays one line; a long value is cut.
 */
static void complain_once(CYCLOCK_ATOMIC(uint32_t) *said, const char *head, const char *value,
			  const char *tail)
{
	char line[256];
	size_t n = 0, i;

	if (cyclock_atomic_load(said, CYCLOCK_SEQ_CST))
		return;
	for (i = 0; head[i] && n < 96; i++)
		line[n++] = head[i];
	for (i = 0; value[i] && i < 64; i++)
		line[n++] = (unsigned char)value[i] < 0x20 || value[i] == 0x7f ? '?' : value[i];
	if (value[i]) {
		memcpy(line + n, "...", 3);
		n += 3;
	}
	for (i = 0; tail[i] && n < sizeof(line) - 1; i++)
		line[n++] = tail[i];
	line[n++] = '\n';
	cyclock__say_once(said, line, n);
}

/* CYCLOCK_SOURCE: FORCE_NONE (unset or bad), FORCE_COUNTER or FORCE_KERNEL.
 * "tsc" names the x86 counter; "counter" is accepted on every architecture. */
int cyclock__env_source(void)
{
	static CYCLOCK_ATOMIC(uint32_t) said;
	const char *v = getenv("CYCLOCK_SOURCE");

	if (!v)
		return FORCE_NONE;
	if (!strcmp(v, "kernel"))
		return FORCE_KERNEL;
	if (!strcmp(v, CYCLOCK_ARCH_COUNTER_NAME) || !strcmp(v, "counter"))
		return FORCE_COUNTER;
#ifdef CYCLOCK_SIM
	if (!strcmp(v, "tsc")) /* tests are written for the x86 spelling */
		return FORCE_COUNTER;
#endif
	complain_once(&said, "cyclock: ignoring CYCLOCK_SOURCE=\"", v,
		      "\" (expected " CYCLOCK_ARCH_COUNTER_NAME ", counter or kernel)");
	return FORCE_NONE;
}

/* Whether @v names ordered read @how: its whole name, or the part before
 * a ';' ("lfence" for "lfence;rdtsc"). */
static bool names_ordered(const char *v, uint32_t how)
{
	const char *name = cyclock_arch_ordered_name(how);
	size_t n = strlen(v);

	return !strcmp(v, name) || (n && !strncmp(v, name, n) && name[n] == ';');
}

/* CYCLOCK_ORDERED_READ: the ordered read it names, or -1 (unset or bad). */
int cyclock__env_ordered(void)
{
	static CYCLOCK_ATOMIC(uint32_t) said;
	const char *v = getenv("CYCLOCK_ORDERED_READ");
	char expected[96] = "\" (expected ";
	size_t n = strlen(expected);

	if (!v)
		return -1;
	for (uint32_t h = 0; h < CYCLOCK_ARCH_ORDERED_HOWS; h++) {
		if (names_ordered(v, h))
			return (int)h;
		n += (size_t)snprintf(expected + n, sizeof(expected) - n, "%s%s", h ? " or " : "",
				      cyclock_arch_ordered_name(h));
	}
	snprintf(expected + n, sizeof(expected) - n, ")");
	complain_once(&said, "cyclock: ignoring CYCLOCK_ORDERED_READ=\"", v, expected);
	return -1;
}

/* CYCLOCK_ORDERED_READ named a read that does not work here. */
void cyclock__say_ordered_refused(uint32_t how, const char *why)
{
	static CYCLOCK_ATOMIC(uint32_t) said;
	char tail[128];

	snprintf(tail, sizeof(tail), ": this CPU does not say it orders the read (%s)", why);
	complain_once(&said, "cyclock: ignoring CYCLOCK_ORDERED_READ=", cyclock_arch_ordered_name(how),
		      tail);
}

/*
 * Starts one of the library's threads (the coarse ticker, the warp
 * check's).  It runs with every signal blocked, so that a signal meant
 * for the program is never handled on a thread the program does not know
 * of, and on the CPUs the process's main thread may use rather than the
 * caller's: a first call from a pinned thread must not pin the ticker for
 * the life of the process.  Returns 0 or pthread_create()'s error.  Not
 * async-signal-safe.
 */
int cyclock__thread_start(pthread_t *t, bool detached, void *(*fn)(void *), void *arg)
{
	pthread_attr_t attr;
	sigset_t all, old;
	cpu_set_t cpus;
	int err = pthread_attr_init(&attr);

	if (err)
		return err;
	if (detached)
		pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	if (sched_getaffinity(getpid(), sizeof(cpus), &cpus) == 0)
		pthread_attr_setaffinity_np(&attr, sizeof(cpus), &cpus);
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = pthread_create(t, &attr, fn, arg);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&attr);
	return err;
}
