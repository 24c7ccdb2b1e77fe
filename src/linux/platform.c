/* SPDX-License-Identifier: MIT */
/*
 * What the hosted layer needs of the process: one-line messages on
 * stderr, the environment (CYCLOCK_SOURCE, CYCLOCK_ORDERED_READ), the
 * shield around an explicit call's initialisation, and the library's own
 * threads.  Everything here is async-signal-safe except where noted.
 *
 * Tests: tests/linux/test_source_env.c (CYCLOCK_SOURCE), the per-read
 * variants (CYCLOCK_ORDERED_READ, tests/common/per_read.sh),
 * tests/preload/test_stderr.c (the messages), tests/linux/test_threads.c
 * (the library's threads), test_first_call.c (the shield).
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
 * The architecture's counter by its name ("tsc" on x86), or "counter" on
 * every architecture. */
static int env_source(void)
{
	static CYCLOCK_ATOMIC(uint32_t) said;
	const char *v = getenv("CYCLOCK_SOURCE");

	if (!v)
		return FORCE_NONE;
	if (!strcmp(v, "kernel"))
		return FORCE_KERNEL;
	if (!strcmp(v, CYCLOCK_ARCH_COUNTER_NAME) || !strcmp(v, "counter"))
		return FORCE_COUNTER;
	complain_once(&said, "cyclock: ignoring CYCLOCK_SOURCE=\"", v,
		      "\" (expected " CYCLOCK_ARCH_COUNTER_NAME ", counter or kernel)");
	return FORCE_NONE;
}

/* Read once, at load (checks.c): a bad value's message is written there,
 * not on a read, which writes nothing.  The simulation reads it anew at
 * each reset, as a test sets it. */
static CYCLOCK_ATOMIC(int) source_read = -1;

int cyclock__env_source(void)
{
	int v = cyclock_atomic_load(&source_read, CYCLOCK_RELAXED);

#ifdef CYCLOCK_SIM
	v = -1;
#endif
	if (v < 0) {
		v = env_source();
		cyclock_atomic_store(&source_read, v, CYCLOCK_RELAXED);
	}
	return v;
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
static int env_ordered(void)
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

/* CYCLOCK_ORDERED_READ's, read at load (checks.c), where a bad value or
 * a read that does not work here is said (the ordered read that works
 * everywhere needs no asking; any other is asked of CPUID, or of the
 * machine's record); -1 for either, so that no read writes a message.
 * The simulation reads it at each initialisation. */
static CYCLOCK_ATOMIC(int) ordered_read = -2;

void cyclock__env_ordered_at_load(void)
{
	int v = env_ordered();
	const char *why = "";

	if (v >= 0 && v != CYCLOCK_ARCH_ORDERED_ANY &&
	    !cyclock_arch_ordered_works((uint32_t)v, &why)) {
		cyclock__say_ordered_refused((uint32_t)v, why);
		v = -1;
	}
	cyclock_atomic_store(&ordered_read, v, CYCLOCK_RELAXED);
}

int cyclock__env_ordered(void)
{
	int v = cyclock_atomic_load(&ordered_read, CYCLOCK_RELAXED);

#ifdef CYCLOCK_SIM
	v = -2;
#endif
	return v == -2 ? env_ordered() : v;
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
	cpu_set_t cpus, mine;
	int err = pthread_attr_init(&attr);

	if (err)
		return err;
	if (detached)
		pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	/* Only a caller pinned otherwise than the process pins its thread
	 * (sched_setaffinity(2), systemd's @resources): most callers make no
	 * such call. */
	if (sched_getaffinity(getpid(), sizeof(cpus), &cpus) == 0 &&
	    sched_getaffinity(0, sizeof(mine), &mine) == 0 && !CPU_EQUAL(&cpus, &mine))
		pthread_attr_setaffinity_np(&attr, sizeof(cpus), &cpus);
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = pthread_create(t, &attr, fn, arg);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&attr);
	return err;
}
