/* SPDX-License-Identifier: MIT */
/*
 * A caller that never returns from its first call.  The first call of a
 * process initialises the library, and a caller may leave it without
 * returning: its thread is cancelled, or a signal handler longjmps out of
 * it, or the process forks with the raw system call, which copies memory
 * but not the thread that was initialising or resyncing.  None of these
 * may leave the process with a state nobody will finish: cyclock_init()
 * and cyclock_describe() must still return, and the clocks must still
 * agree with the kernel's.
 *
 * Each case needs a process whose library is not initialised yet, so each
 * attempt runs in a fresh child of fork() (the test process itself never
 * calls the library), with alarm(10) to turn a hang into a failure:
 * - cancelled: a thread whose first call is cyclock_now() or
 *   cyclock_init(0) is cancelled (asynchronously, or at a cancellation
 *   point) at once or a random moment later, then joined;
 * - longjmp: a second thread sends SIGUSR1 again and again while the main
 *   thread makes its first call; the handler reads cyclock_now() and
 *   siglongjmp()s out of whatever it interrupted (out of a read's step of
 *   the initialisation, it leaves it held: the child must then be on the
 *   kernel's clocks, and say why);
 * - cancelled resync: a thread resyncing in a tight loop, with
 *   asynchronous cancellation, is cancelled at a random moment, again and
 *   again; the writer flag must be free after each;
 * - raw fork: a process resyncs in a tight loop on one thread and reads on
 *   another while its main thread forks with syscall(SYS_fork) (no fork
 *   handler runs); each child, alone, must keep cyclock_now() on the
 *   kernel's clock (a child that cannot take the parent's writer flag
 *   over extrapolates at the low slope and falls 2 ms behind a second),
 *   and resync.  Such a child reports by exit code and write(2) only.
 * Under ThreadSanitizer the cancels are deferred only and the other two
 * cases are skipped; each place says why.
 *
 * One file of ~700 lines on purpose: the four ways out of a first call share
 * the harness (a fresh child per attempt, the watchdog, the resyncer, the
 * checks after), and apart they would each carry a copy of it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "internal.h"
#include "agree.h"
#include "child.h"

#if defined(__SANITIZE_THREAD__)
#define FIRST_CALL_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define FIRST_CALL_TSAN 1
#endif
#endif

#define WATCHDOG_S 10
#ifndef CANCEL_CHILDREN /* -D for a longer hunt */
#define CANCEL_CHILDREN 160
#endif
#ifndef SIGNAL_CHILDREN
#define SIGNAL_CHILDREN 100
#endif
/* Raw forks: at least RAW_FORKS, then more until RAW_HELD_WANTED of them
 * caught the parent's resync holding the writer flag (a few percent do),
 * within RAW_BUDGET_NS. */
#ifndef RAW_FORKS
#define RAW_FORKS 50
#endif
#define RAW_HELD_WANTED 8
#ifndef RAW_BUDGET_NS
#define RAW_BUDGET_NS (5000 * 1000000ull)
#endif
#define READS_HELD_NS (200 * 1000000ull) /* a raw child that caught the writer */
#define READS_FREE_NS (10 * 1000000ull)  /* one that did not */
/* Behind the kernel by more than this is the low slope's drift (1953 ppm:
 * 390 us in 200 ms), not tracking error: a resync stays within 100 us or
 * leaves the counter, and a reading is compared with the kernel's just
 * before it, so preemption can only hide a lag, never make one. */
#define LAG_NS 250000ull

/* The exit code of a child that checked something and found it wrong. */
#define CHILD_FAILED 10

static _Thread_local uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

/* Spin (no sleep, no system call but the clock's) for @ns. */
static void spin_ns(uint64_t ns)
{
	uint64_t end = kclock_mono() + ns;

	while (kclock_mono() < end)
		;
}

/* Runs @fn(@arg) in a child of fork() and returns its exit code; a child
 * killed by a signal fails the test (SIGALRM: the watchdog, a hang). */
static int in_child(int (*fn)(int), int arg)
{
	pid_t pid;
	int rc;

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int code = fn(arg);

		fflush(stdout);
		fflush(stderr);
		_exit(code);
	}
	rc = child_wait(pid, "child");
	if (rc < 0)
		fail_msg("child %d did not exit (above)", arg);
	return rc;
}

__attribute__((format(printf, 2, 3))) static int child_failed(int i, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "child %d: ", i);
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	return CHILD_FAILED;
}

/* Whether initialisation was left held where it may be, and said so: a
 * handler jumped out of a read's step of it (@read_left), which blocks no
 * signal (a read makes no system call), so it stays held and the process
 * is on the kernel's clocks, cyclock_init(0) returning within its bound
 * and cyclock_get_state() saying why (docs/hosted.md, "fork(), signals,
 * threads").  Anything else must leave initialisation done. */
static bool init_left_and_said(int r, bool read_left)
{
	struct cyclock_state st = { .version = CYCLOCK_STATE_VERSION };

	return read_left && r == CYCLOCK_USING_KERNEL && cyclock_get_state(&st) == 0 &&
	       strstr(st.why, "did not finish within 250 ms");
}

/*
 * After the interrupted first call: cyclock_init(0) and cyclock_describe()
 * return (the watchdog is set), nothing process-wide is left held (but an
 * initialisation a handler jumped out of a read's step of, if
 * @read_left), and cyclock_now() is monotonic and within AGREE_NS of
 * CLOCK_MONOTONIC.  0, or CHILD_FAILED with a line on stderr.
 */
static int check_recovered(int i, bool read_left)
{
	const char *d;
	uint64_t prev, v, k1, k2;
	int r;

	alarm(WATCHDOG_S);
	r = cyclock_init(0);
	d = cyclock_describe();
	alarm(0);
	if (r != CYCLOCK_USING_COUNTER && r != CYCLOCK_USING_KERNEL)
		return child_failed(i, "cyclock_init(0) returned %d", r);
	if (!d || !d[0])
		return child_failed(i, "cyclock_describe() returned nothing");
	if (atomic_load(&cyclock__host.state) != INIT_DONE && !init_left_and_said(r, read_left))
		return child_failed(i, "state %u after cyclock_init(0), not INIT_DONE",
				  (unsigned)atomic_load(&cyclock__host.state));
	if (atomic_load(&cyclock__host.writer) != 0)
		return child_failed(i, "writer flag held by pid %u, nobody resyncing",
				  (unsigned)atomic_load(&cyclock__host.writer));
	prev = cyclock_now();
	for (int j = 0; j < 20000; j++, prev = v) {
		k1 = kclock_mono();
		v = cyclock_now();
		k2 = kclock_mono();
		if (v < prev)
			return child_failed(i, "cyclock_now() went back by %llu ns",
					  (unsigned long long)(prev - v));
		if (v + AGREE_NS < k1 || v > k2 + AGREE_NS)
			return child_failed(i, "cyclock_now() %llu outside [%llu, %llu] by more than "
					  "1 ms (%s)", (unsigned long long)v, (unsigned long long)k1,
					  (unsigned long long)k2, d);
	}
	return 0;
}

/* ---- A thread cancelled in its first call. ---- */

struct victim {
	atomic_int calling; /* about to make its first call */
	bool async;         /* PTHREAD_CANCEL_ASYNCHRONOUS, else deferred */
	bool init_call;     /* cyclock_init(0), else cyclock_now() */
};

static void *victim_thread(void *p)
{
	struct victim *v = p;

	if (v->async)
		pthread_setcanceltype(PTHREAD_CANCEL_ASYNCHRONOUS, NULL);
	atomic_store(&v->calling, 1);
	if (v->init_call)
		cyclock_init(0);
	else
		(void)cyclock_now();
	for (;;)
		pause(); /* a cancellation point: the cancel ends the thread here, at the latest */
	return NULL;
}

/*
 * Child @i: start the thread, cancel it at once (every fourth child), or
 * once it is about to call, after a random delay: up to 20 us (the start
 * of the initialisation) or up to 3 ms (anywhere in it).  Exit 0 if the
 * thread was gone before it began to initialise, 1 if after.
 */
static int cancel_child(int i)
{
	struct victim v = { .async = true, .init_call = (i / 4) % 2 };
	pthread_t t;
	uint64_t state;

#ifdef FIRST_CALL_TSAN
	/* ThreadSanitizer cannot follow an asynchronous cancellation (a
	 * signal handler that unwinds instrumented frames): deferred only. */
	v.async = false;
#else
	v.async = i % 8 < 6; /* and a quarter deferred: init's open() and pthread_join() */
#endif
	rng_state ^= (uint64_t)i * 0x2545f4914f6cdd1dull;
	atomic_init(&v.calling, 0);
	alarm(WATCHDOG_S);
	if (pthread_create(&t, NULL, victim_thread, &v))
		return child_failed(i, "pthread_create failed");
	if (i % 4) {
		while (!atomic_load(&v.calling))
			;
		spin_ns(i % 4 == 1 ? rng() % 3000000 : rng() % 20000);
	}
	pthread_cancel(t);
	/* The thread never returns, so the join means it was cancelled;
	 * its result is not checked: glibc 2.36 leaves it NULL when the
	 * cancel acts at pthread_setcancelstate() re-enabling it. */
	pthread_join(t, NULL);
	alarm(0);
	state = atomic_load(&cyclock__host.state);
	if (CYCLOCK__INIT_STATE(state) == INIT_BUSY)
		fprintf(stderr, "child %d: the cancelled thread left the initialisation busy "
			"(state word %#llx, this process %u): it ended inside the initialisation, "
			"which runs shielded\n",
			i, (unsigned long long)state, (unsigned)getpid());
	/* A read's first call only notes it came (one compare-and-swap): it
	 * holds nothing a cancel could leave. */
	if (check_recovered(i, false))
		return CHILD_FAILED;
	return state != INIT_NONE;
}

static void cancelled_in_the_first_call(void **unused)
{
	int tally[2] = { 0, 0 }, r;

	(void)unused;
	for (int i = 0; i < CANCEL_CHILDREN; i++) {
		r = in_child(cancel_child, i);
		if (r != 0 && r != 1)
			fail_msg("child %d failed (exit %d)", i, r);
		tally[r]++;
	}
	printf("cancelled: %d threads before their first call began, %d after\n", tally[0],
	       tally[1]);
	/* The random delays put most cancels inside the initialisation. */
	assert_true(tally[1] > 0);
}

/* ---- A signal handler that longjmps out of the first call. ---- */

static sigjmp_buf jump_env;
static volatile sig_atomic_t armed, calling;
static atomic_int stop_sending;
static atomic_ulong handled, handled_busy;
static pthread_t main_thread;

/* Reads only once the main thread's first call is under way: a handler
 * that interrupted anything else (pthread_create(), stdio) and made the
 * process's first read would initialise where it may not (cyclock.h). */
static void on_usr1(int sig)
{
	(void)sig;
	if (!calling)
		return;
	/* An explicit call initialises with every signal blocked; a read's
	 * step of it blocks none (no system call), and this handler jumps out
	 * of it, leaving it held. */
	if (CYCLOCK__INIT_STATE(atomic_load_explicit(&cyclock__host.state, memory_order_relaxed)) ==
		    INIT_BUSY &&
	    atomic_fetch_add(&handled_busy, 1) == 0) {
		static const char msg[] = "a SIGUSR1 handler interrupted the initialisation\n";

		if (write(STDERR_FILENO, msg, sizeof(msg) - 1) < 0)
			handled_busy++;
	}
	(void)cyclock_now();
	atomic_fetch_add(&handled, 1);
	/* Out of anything but a read's own resync, which a longjmp may leave
	 * with the writer flag taken (test_abandoned.c): a first call that
	 * finds the counter already past its first horizon (qemu-user is that
	 * slow) may make one. */
	if (armed && !atomic_load(&cyclock__host.writer)) {
		armed = 0; /* until sigsetjmp() has saved the context again */
		siglongjmp(jump_env, 1);
	}
}

/* SIGUSR1 to the main thread, then a random pause of up to 20 us; again. */
static void *sender(void *seed)
{
	rng_state ^= (uint64_t)(uintptr_t)seed * 0x2545f4914f6cdd1dull;
	while (!atomic_load(&stop_sending)) {
		pthread_kill(main_thread, SIGUSR1);
		spin_ns(rng() % 20000);
	}
	return NULL;
}

/* The first call, made until it returns; the number of jumps out of it. */
static unsigned long first_call_jumped(bool init_call)
{
	volatile unsigned long jumps = 0;

	while (sigsetjmp(jump_env, 1))
		jumps++;
	armed = calling = 1;
	if (init_call)
		cyclock_init(0);
	else
		(void)cyclock_now();
	armed = 0;
	return jumps;
}

/* Child @i: exit 0 if no handler jumped out of its first call, 1 if one did. */
static int signal_child(int i)
{
	struct sigaction sa;
	unsigned long jumps;
	pthread_t t;

	rng_state ^= (uint64_t)i * 0x2545f4914f6cdd1dull;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	main_thread = pthread_self();
	alarm(WATCHDOG_S);
	if (pthread_create(&t, NULL, sender, (void *)(uintptr_t)(i + 1)))
		return child_failed(i, "pthread_create failed");
	spin_ns(rng() % 200000);
	jumps = first_call_jumped(i % 2);
	atomic_store(&stop_sending, 1);
	pthread_join(t, NULL);
	alarm(0);
	if (atomic_load(&handled_busy))
		fprintf(stderr, "child %d: %lu handlers interrupted an initialisation\n", i,
			atomic_load(&handled_busy));
	if (check_recovered(i, atomic_load(&handled_busy) > 0))
		return CHILD_FAILED;
	return jumps > 0;
}

static void longjmp_out_of_the_first_call(void **unused)
{
	int tally[2] = { 0, 0 }, r;

	(void)unused;
#ifdef FIRST_CALL_TSAN
	/* ThreadSanitizer defers a signal that arrives in uninstrumented code
	 * to its next interceptor and runs the handler there whatever the mask
	 * is by then: that may be the very pthread_sigmask() that blocked every
	 * signal for the initialisation, which the handler then leaves. */
	skip();
#endif
	/* A loaded machine may leave the sender no CPU during a child's first
	 * call (16 us): then more children, until one was jumped out of. */
	for (int i = 0; i < SIGNAL_CHILDREN || (!tally[1] && i < 4 * SIGNAL_CHILDREN); i++) {
		r = in_child(signal_child, i);
		if (r != 0 && r != 1)
			fail_msg("child %d failed (exit %d)", i, r);
		tally[r]++;
	}
	printf("longjmp: %d first calls returned at once, %d after handlers jumped out\n",
	       tally[0], tally[1]);
#if CYCLOCK_ARCH_HAS_COUNTER
	assert_true(tally[1] > 0);
#else
	/* No counter: the initialisation is a few stores, often over before
	 * the first signal comes; the children's checks still ran. */
#endif
}

/* ---- A thread cancelled while it resyncs. ---- */

#define RESYNC_CANCELS 300

static atomic_int stop_threads;
static atomic_ulong resyncs, reads;

/* Resyncs until told to stop (the raw-fork case) or cancelled. */
static void *resyncer(void *unused)
{
	(void)unused;
	while (!atomic_load_explicit(&stop_threads, memory_order_relaxed)) {
		cyclock_resync();
		atomic_fetch_add_explicit(&resyncs, 1, memory_order_relaxed);
	}
	return NULL;
}

static void *resync_victim(void *unused)
{
	pthread_setcanceltype(PTHREAD_CANCEL_ASYNCHRONOUS, NULL);
	return resyncer(unused);
}

/* Initialises; false (and says so) if the kernel's clocks are in use,
 * since then nothing resyncs. */
static bool on_the_counter(void)
{
	if (cyclock_init(0) == CYCLOCK_USING_COUNTER)
		return true;
	printf("the kernel's clocks are in use (%s): no resync to interrupt\n",
	       cyclock_describe());
	return false;
}

/* Runs @fn in a child; skips the case if the child found no counter (77). */
static void in_child_on_the_counter(int (*fn)(int))
{
	int r = in_child(fn, 0);

	if (r == 77)
		skip();
	assert_int_equal(r, 0);
}

/* The cancelling process: a fresh child of the test, 0, CHILD_FAILED, or 77. */
static int resync_cancel_child(int unused)
{
	uint32_t held;
	pthread_t t;

	(void)unused;
	alarm(6 * WATCHDOG_S);
	if (!on_the_counter())
		return 77;
	for (int i = 0; i < RESYNC_CANCELS; i++) {
		unsigned long before = atomic_load(&resyncs);

		if (pthread_create(&t, NULL, resync_victim, NULL))
			return child_failed(i, "pthread_create failed");
		while (atomic_load(&resyncs) == before)
			;
		spin_ns(rng() % 20000);
		pthread_cancel(t);
		pthread_join(t, NULL);
		held = atomic_load(&cyclock__host.writer);
		if (held)
			return child_failed(i, "a cancelled resync left the writer flag held "
					  "(pid %u)", (unsigned)held);
	}
	printf("%d resyncing threads cancelled (%lu resyncs)\n", RESYNC_CANCELS,
	       atomic_load(&resyncs));
	return check_recovered(RESYNC_CANCELS, false);
}

static void cancelled_while_resyncing(void **unused)
{
	(void)unused;
#ifdef FIRST_CALL_TSAN
	/* Deferred cancellation cannot act inside a resync (it has no
	 * cancellation point), and ThreadSanitizer allows no other. */
	skip();
#endif
	in_child_on_the_counter(resync_cancel_child);
}

/* ---- A raw fork while a thread resyncs. ---- */

/* A line on stderr by write(2) alone: the child of a raw fork may not
 * use stdio (a parent's thread may have held its lock). */
struct line {
	char b[256];
	size_t n;
};

static void line_s(struct line *l, const char *s)
{
	while (*s && l->n < sizeof(l->b) - 1)
		l->b[l->n++] = *s++;
}

static void line_u(struct line *l, uint64_t v)
{
	char d[24];
	int n = 0;

	do
		d[n++] = (char)('0' + v % 10);
	while ((v /= 10) && n < 24);
	while (n && l->n < sizeof(l->b) - 1)
		l->b[l->n++] = d[--n];
}

/* "raw child <i>: <what> <a><what2>", one write. */
static int raw_fail(int i, const char *what, uint64_t a, const char *what2)
{
	struct line l = { .n = 0 };

	line_s(&l, "raw child ");
	line_u(&l, (uint64_t)i);
	line_s(&l, ": ");
	line_s(&l, what);
	line_u(&l, a);
	line_s(&l, what2);
	l.b[l.n++] = '\n';
	if (write(STDERR_FILENO, l.b, l.n) < 0)
		return CHILD_FAILED;
	return CHILD_FAILED;
}

/*
 * Reads for @span ns: cyclock_now() never back, never more than LAG_NS
 * behind the kernel reading just before it, nor AGREE_NS ahead of the one
 * just after it.
 */
static int raw_reads(int i, uint64_t span)
{
	uint64_t start = kclock_mono(), prev = cyclock_now(), k1, v, k2;

	do {
		k1 = kclock_mono();
		v = cyclock_now();
		k2 = kclock_mono();
		if (v < prev)
			return raw_fail(i, "cyclock_now() went back by ", prev - v, " ns");
		if (v + LAG_NS < k1)
			return raw_fail(i, "cyclock_now() fell behind CLOCK_MONOTONIC by ", k1 - v,
					" ns");
		if (v > k2 + AGREE_NS)
			return raw_fail(i, "cyclock_now() ahead of CLOCK_MONOTONIC by ", v - k2,
					" ns");
		prev = v;
	} while (k2 - start < span);
	return 0;
}

/*
 * The child of a raw fork, alone, with whatever the parent's threads left.
 * Exit 0 (the writer flag was free at the fork) or 1 (the parent's
 * resyncing thread held it), plus 2 if a latch was half-written.
 */
static int raw_child(int i)
{
	uint32_t me, held, w;
	uint64_t done;
	const char *d;
	bool odd;
	int r;

	alarm(WATCHDOG_S); /* first: what the parent left may hang anything */
	me = (uint32_t)syscall(SYS_getpid);
	held = atomic_load(&cyclock__host.writer);
	odd = (atomic_load(&cyclock__mono.seq) | atomic_load(&cyclock__raw.seq)) & 1;
	if ((r = raw_reads(i, held || odd ? READS_HELD_NS : READS_FREE_NS)))
		return r;
	d = cyclock_describe();
	if (!d || !d[0])
		return raw_fail(i, "cyclock_describe() returned nothing", 0, "");
	done = cyclock__tracks.mono.state.resyncs;
	cyclock_resync();
	w = atomic_load(&cyclock__host.writer);
	if (w != 0 && w != me)
		return raw_fail(i, "after cyclock_resync() the writer flag is held by pid ", w,
				" (the parent's)");
	if (cyclock__tracks.mono.state.resyncs <= done)
		return raw_fail(i, "cyclock_resync() did not resync; resyncs ", done, "");
	if ((r = raw_reads(i, 1000000)))
		return r;
	return (held != 0) + 2 * odd;
}

/* A fork as the system call, which runs no fork handler (the library's
 * pthread_atfork() child handler stays out of it). */
static pid_t raw_fork(void)
{
#ifdef SYS_fork
	return (pid_t)syscall(SYS_fork);
#else
	return (pid_t)syscall(SYS_clone, SIGCHLD, 0, 0, 0, 0);
#endif
}

static void *reader(void *unused)
{
	(void)unused;
	while (!atomic_load_explicit(&stop_threads, memory_order_relaxed)) {
		(void)cyclock_now();
		(void)cyclock_raw();
		(void)cyclock_coarse();
		atomic_fetch_add_explicit(&reads, 1, memory_order_relaxed);
	}
	return NULL;
}

/* Waits for raw child @i; its exit code, or -1 (said why). */
static int raw_wait(pid_t pid, int i)
{
	char who[32];

	snprintf(who, sizeof(who), "raw fork %d", i);
	return child_wait(pid, who);
}

/* The forking process: a fresh child of the test, 0 (all passed), 1, or 77. */
static int raw_fork_parent(int unused)
{
	int tally[4] = { 0, 0, 0, 0 }, r = 0, i;
	struct timespec pause_ts;
	uint64_t end = kclock_mono() + RAW_BUDGET_NS;
	pthread_t t[2];

	(void)unused;
	alarm(6 * WATCHDOG_S); /* the forks' budget, and one child's watchdog */
	if (!on_the_counter())
		return 77;
	pthread_create(&t[0], NULL, resyncer, NULL);
	pthread_create(&t[1], NULL, reader, NULL);
	while (!atomic_load(&resyncs) || !atomic_load(&reads))
		sched_yield();
	for (i = 0; r == 0 && (i < RAW_FORKS || (tally[1] + tally[3] < RAW_HELD_WANTED &&
						 kclock_mono() < end)); i++) {
		pid_t pid = raw_fork();

		if (pid == 0)
			_exit(raw_child(i));
		if (pid < 0) {
			printf("raw fork %d: %s\n", i, strerror(errno));
			r = 1;
			break;
		}
		int code = raw_wait(pid, i);

		if (code < 0 || code > 3)
			r = 1;
		else
			tally[code]++;
		pause_ts.tv_sec = 0;
		pause_ts.tv_nsec = (long)(rng() % 1000000);
		nanosleep(&pause_ts, NULL);
	}
	atomic_store(&stop_threads, 1);
	pthread_join(t[0], NULL);
	pthread_join(t[1], NULL);
	printf("%d raw forks: %d with the writer flag free, %d held by the parent's resync, "
	       "%d with a latch half-written (%lu resyncs, %lu reads)\n", i,
	       tally[0] + tally[2], tally[1] + tally[3], tally[2] + tally[3],
	       atomic_load(&resyncs), atomic_load(&reads));
	return r;
}

static void raw_fork_while_resyncing(void **unused)
{
	(void)unused;
#ifdef FIRST_CALL_TSAN
	/* The raw fork bypasses ThreadSanitizer's fork interceptor: the child
	 * inherits its runtime with locks the parent's threads may hold, and
	 * (clang 14) hangs on one before its first line. */
	skip();
#endif
	if (getenv("CYCLOCK_TEST_EMULATED")) {
		printf("qemu-user cannot fork a threaded program: skipped\n");
		skip();
	}
	in_child_on_the_counter(raw_fork_parent);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(cancelled_in_the_first_call),
		cmocka_unit_test(longjmp_out_of_the_first_call),
		cmocka_unit_test(cancelled_while_resyncing),
		cmocka_unit_test(raw_fork_while_resyncing),
	};

	/* Every case needs an uninitialised library in its children. */
	assert_true(atomic_load(&cyclock__host.state) == INIT_NONE);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
