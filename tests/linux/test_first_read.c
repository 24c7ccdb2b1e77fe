/* SPDX-License-Identifier: MIT */
/*
 * The first reads of a process never wait: on the real counter and
 * kernel, each clock's very first call (in a fresh child of fork(), the
 * test process itself never calls the library) only notes that it came,
 * with no system call, and returns the kernel's clock; the second does
 * initialisation's first half only.  It measures no frequency (the state
 * is still MEASURING afterwards), runs no warp check and starts no thread
 * (the process has as many as before).  The counter
 * then takes over at the first read 500 us or more later, and across
 * that hand-over no clock goes back, on one thread or between threads
 * (skipped where the library does not use the counter).  The reads in
 * between do the second half's checks ahead of it, one CPUID at most
 * each, so that the read that starts the counter asks none and makes no
 * system call but the shield's two and gettid().  A warp check asked for by
 * cyclock_init() after such a start still runs.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "child.h"
#include "state.h"
#include "syscount.h"
#include "internal.h"
#include "kclock.h"

#define CHILDREN 20
#define FAIL(...) (child_fail(__VA_ARGS__), 1)
#define SKIP 77
#define HANDOVER_NS 20000000ull /* readers run across the hand-over for this long */

static const struct {
	const char *name;
	uint64_t (*read)(void);
} clocks[] = {
	{ "cyclock_now", cyclock_now },
	{ "cyclock_now_relaxed", cyclock_now_relaxed },
	{ "cyclock_raw", cyclock_raw },
	{ "cyclock_realtime", cyclock_realtime },
	{ "cyclock_boottime", cyclock_boottime },
	{ "cyclock_local", cyclock_local },
	{ "cyclock_coarse", cyclock_coarse },
};
#define NCLOCKS (sizeof(clocks) / sizeof(clocks[0]))

static unsigned int threads_now(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	unsigned int n = 0;

	if (!d)
		return 0;
	while ((e = readdir(d)) != NULL)
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

/* Runs @fn(@arg) in a fresh child; its exit code (0: held). */
static int in_child(int (*fn)(size_t), size_t arg)
{
	pid_t pid = fork();
	int code;

	if (pid < 0)
		fail_msg("fork failed");
	if (pid == 0) {
		int rc;

		alarm(10);
		rc = fn(arg);
		fflush(stdout);
		_exit(rc);
	}
	code = child_wait(pid, "child");
	if (code < 0)
		fail_msg("the child did not exit (above)");
	return code;
}

/* Whether initialisation is done without a frequency (the kernel's
 * clocks for a stated reason: CYCLOCK_SOURCE=kernel, no counter), or
 * waits for a later read to measure it. */
static bool measured_nothing(void)
{
	if (atomic_load(&cyclock__host.state) == INIT_MEASURING ||
	    atomic_load(&cyclock__host.state) == INIT_FIRST) /* cyclock_coarse(): no cyclock_now() */
		return true;
	return atomic_load(&cyclock__host.state) == INIT_DONE && !cyclock__setup.using_counter &&
	       !cyclock__setup.local_percpu;
}

/* A clock's first two calls, with the system calls each makes counted
 * where seccomp can count them (bench/syscount.h; not under qemu-user). */
struct first_call {
	size_t c;
	uint64_t v, k0, k1, v2;
	uint32_t state;
};

static void first_call_body(struct bench_syscount *sc, void *arg)
{
	struct first_call *f = arg;

	f->k0 = kclock_ns(CLOCK_MONOTONIC);
	bench_syscount_phase(sc, 1);
	f->v = clocks[f->c].read();
	bench_syscount_phase(sc, 0);
	f->k1 = kclock_ns(CLOCK_MONOTONIC);
	f->state = CYCLOCK__INIT_STATE(atomic_load(&cyclock__host.state));
	bench_syscount_phase(sc, 2);
	f->v2 = clocks[f->c].read(); /* the first half */
	bench_syscount_phase(sc, 0);
}

/* Child: clock @c's first call only notes that it came (INIT_FIRST) and
 * returns the kernel's clock; the second does the first half, and starts
 * nothing and waits for nothing; neither makes a system call. */
static int first_call_child(size_t c)
{
	struct first_call f = { .c = c };
	struct bench_syscount sc;
	const char *why;
	unsigned int threads = threads_now(); /* 1, or more under qemu-user (its own) */

	if (atomic_load(&cyclock__host.state) != INIT_NONE)
		return FAIL("%s: the library was initialised before its first call",
			    clocks[c].name);
	/* Its fast path reads the counter before anything is asked: with the
	 * read every CPU has (x86-64's rdtscp, how 0, may be missing). */
	if (atomic_load(&cyclock__mono.how) != CYCLOCK_ARCH_ORDERED_ANY ||
	    atomic_load(&cyclock__raw.how) != CYCLOCK_ARCH_ORDERED_ANY)
		return FAIL("%s: before the first call the readers would use %s",
			    clocks[c].name, cyclock_arch_ordered_name(atomic_load(&cyclock__mono.how)));
	if (bench_syscount(&sc, first_call_body, &f, &why) == 0) {
		if (sc.counts[1] || sc.counts[2])
			return FAIL("%s: the first call made %llu system calls, the second %llu",
				    clocks[c].name, (unsigned long long)sc.counts[1],
				    (unsigned long long)sc.counts[2]);
	} else {
		first_call_body(&(struct bench_syscount){ 0 }, &f);
	}
	if (f.state != INIT_FIRST)
		return FAIL("%s: state %u after the first call, not INIT_FIRST", clocks[c].name,
			    f.state);
	/* The kernel's clock on its own timeline (realtime and boottime are
	 * offsets of it), so only CLOCK_MONOTONIC's can be bracketed here. */
	if (c == 0 && (f.v < f.k0 || f.v > f.k1))
		return FAIL("%s: the first call's %llu is outside the kernel's [%llu, %llu]",
			    clocks[c].name, (unsigned long long)f.v, (unsigned long long)f.k0,
			    (unsigned long long)f.k1);
	/* The counting thread is joined, but may stay in /proc/self/task a
	 * moment longer (under qemu-user). */
	for (int i = 0; i < 1000 && threads_now() != threads; i++)
		usleep(1000);
	if (f.v2 < f.v)
		return FAIL("%s: the second call went back", clocks[c].name);
	if (!measured_nothing())
		return FAIL("%s: the second call finished initialising (state %u): it "
			    "measured the frequency",
			    clocks[c].name, CYCLOCK__INIT_STATE(atomic_load(&cyclock__host.state)));
	if (cyclock__setup.warp_ran)
		return FAIL("%s: the second call ran the warp check", clocks[c].name);
	if (threads_now() != threads)
		return FAIL("%s: %u threads after the second call, %u before", clocks[c].name,
			    threads_now(), threads);
	return 0;
}

static void first_call_of_each_clock_does_not_wait(void **unused)
{
	(void)unused;
	for (size_t c = 0; c < NCLOCKS; c++)
		for (int i = 0; i < CHILDREN; i++)
			if (in_child(first_call_child, c))
				fail_msg("%s: child %d failed", clocks[c].name, i);
}

/* The hand-over: readers from the first call on, each checking its clock
 * against the largest value any reader has seen before its own read. */
static CYCLOCK_ATOMIC(uint64_t) seen;
static CYCLOCK_ATOMIC(uint32_t) bad;
static CYCLOCK_ATOMIC(uint32_t) go;
static uint64_t back_by;

static void *handover_reader(void *unused)
{
	uint64_t end;

	(void)unused;
	while (!atomic_load(&go))
		;
	end = kclock_ns(CLOCK_MONOTONIC) + HANDOVER_NS;
	while (kclock_ns(CLOCK_MONOTONIC) < end && !atomic_load(&bad)) {
		uint64_t before = atomic_load(&seen), v = cyclock_now(), cur = before;

		if (v < before) {
			back_by = before - v;
			atomic_store(&bad, 1);
		}
		while (cur < v && !atomic_compare_exchange_weak(&seen, &cur, v))
			;
	}
	return NULL;
}

static int handover_child(size_t unused)
{
	pthread_t t[2];

	(void)unused;
	for (int i = 0; i < 2; i++)
		if (pthread_create(&t[i], NULL, handover_reader, NULL))
			return FAIL("pthread_create failed");
	atomic_store(&go, 1);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	if (atomic_load(&bad))
		return FAIL("cyclock_now() went back by %llu ns across threads",
			    (unsigned long long)back_by);
	if (atomic_load(&cyclock__host.state) != INIT_DONE)
		return FAIL("initialisation did not finish within %llu ms",
			    (unsigned long long)(HANDOVER_NS / 1000000));
	return cyclock__setup.using_counter ? 0 : SKIP;
}

static void handover_does_not_go_back(void **unused)
{
	(void)unused;
	for (int i = 0; i < CHILDREN; i++) {
		int rc = in_child(handover_child, 0);

		if (rc == SKIP)
			skip(); /* the counter is not used here: no hand-over */
		if (rc)
			fail_msg("child %d failed", i);
	}
}

/*
 * The read that starts the counter, alone on a thread whose system calls
 * are counted (bench/syscount.h), after the span.  That thread is started
 * before the first read, and the reads through the span are another
 * thread's: starting a thread can take a millisecond (under ASan), which
 * must not make the hand-over read late.
 */
#define HANDOVER_SKIP 79

struct handover_read {
	atomic_bool counted_ready; /* the counted thread is running */
	atomic_bool span_done;     /* the span's reads are over, with: */
	int span_rc;               /* 0 to read, else the child's result */
	uint64_t t0;               /* MONOTONIC_RAW when the first half began */
	uint64_t end;              /* and when the hand-over read had returned */
	uint32_t state;
};

/* The span: the first read, the second (the first half), then reads for
 * 400 us, which do every check ahead of the second half. */
static void *handover_span(void *arg)
{
	struct handover_read *h = arg;

	while (!atomic_load(&h->counted_ready))
		;
	(void)cyclock_now(); /* notes that it came */
	(void)cyclock_now(); /* the first half */
	h->t0 = kclock_ns(CLOCK_MONOTONIC_RAW);
	if (atomic_load(&cyclock__host.state) != INIT_MEASURING) {
		h->span_rc = atomic_load(&cyclock__host.state) == INIT_DONE ? SKIP
									 : FAIL("no first half");
	} else {
		while (kclock_ns(CLOCK_MONOTONIC_RAW) - h->t0 < 400000 &&
		       atomic_load(&cyclock__host.state) == INIT_MEASURING)
			(void)cyclock_now();
		if (!cyclock__checked_ahead() ||
		    atomic_load(&cyclock__host.state) != INIT_MEASURING)
			h->span_rc = HANDOVER_SKIP; /* preempted through the span */
	}
	atomic_store(&h->span_done, true);
	return NULL;
}

/* The counted thread: waits for the span (its system calls meanwhile are
 * phase 0's), then reads once the span is over, in phase 1. */
static void handover_read_body(struct bench_syscount *sc, void *arg)
{
	struct handover_read *h = arg;
	const struct timespec nap = { 0, 20000 };

	atomic_store(&h->counted_ready, true);
	while (!atomic_load(&h->span_done))
		nanosleep(&nap, NULL);
	if (h->span_rc)
		return;
	/* The span ends 500 us after the first half began. */
	while (kclock_ns(CLOCK_MONOTONIC_RAW) < h->t0 + 510000)
		;
	bench_syscount_phase(sc, 1);
	(void)cyclock_now();
	bench_syscount_phase(sc, 0);
	h->end = kclock_ns(CLOCK_MONOTONIC_RAW);
	h->state = CYCLOCK__INIT_STATE(atomic_load(&cyclock__host.state));
}

/* Child: once the reads in the span have done every check ahead of the
 * second half (what the load left: CPUID, the ordered reads' timing), the
 * read that starts the counter makes no system call at all (a read's
 * step blocks no signal and names no task: docs/hosted.md, "System
 * calls"). */
static int handover_calls_child(size_t unused)
{
	struct handover_read h = { 0 };
	struct bench_syscount sc;
	const char *why;
	char source[32];
	pthread_t span;

	(void)unused;
	/* The counter is not used under a clocksource not the counter's
	 * (qemu-user sees the build machine's). */
	if (!cyclock__kernel_clocksource(source, sizeof(source)) ||
	    strcmp(source, CYCLOCK_ARCH_KERNEL_CLOCKSOURCE))
		return SKIP;
	if (pthread_create(&span, NULL, handover_span, &h))
		return FAIL("pthread_create");
	if (bench_syscount(&sc, handover_read_body, &h, &why)) {
		atomic_store(&h.counted_ready, true);
		pthread_join(span, NULL);
		return SKIP; /* nothing can be counted here (qemu-user) */
	}
	pthread_join(span, NULL);
	if (h.span_rc)
		return h.span_rc;
	/* The span not over yet for the library (a loaded machine). */
	if (h.state != INIT_DONE)
		return HANDOVER_SKIP;
	if (!cyclock__setup.using_counter)
		return SKIP;
	if (sc.counts[1])
		return FAIL("the read that started the counter, %llu us after the first half, "
			    "made %llu system calls",
			    (unsigned long long)((h.end - h.t0) / 1000),
			    (unsigned long long)sc.counts[1]);
	return 0;
}

/* Children until CHILDREN did every check in the span (a child on a busy
 * machine may be too late to), at most five times as many. */
static void handover_makes_no_system_call_of_its_own(void **unused)
{
	int checked = 0, tried = 0;

	(void)unused;
	for (; checked < CHILDREN && tried < 5 * CHILDREN; tried++) {
		int rc = in_child(handover_calls_child, 0);

		if (rc == SKIP)
			skip(); /* not the kernel's clocksource, the counter not used, or
				 * nothing counts system calls */
		if (rc && rc != HANDOVER_SKIP)
			fail_msg("child %d failed", tried);
		checked += rc == 0;
	}
	print_message("%d of %d children did every check in the span\n", checked, tried);
	if (checked < CHILDREN / 2)
		fail_msg("only %d of %d children did every check in the span", checked, tried);
}

/* Child: the second half's checks are spread over the reads before it,
 * one CPUID (5 us in a KVM guest) at most per read, so that the read that
 * starts the counter asks none, when enough reads came before it (x86-64
 * only: elsewhere none is asked).  A child preempted through the whole
 * span leaves the checks to the hand-over: SPREAD_SKIP. */
#define SPREAD_READS 16 /* reads in the span: more than there are checks */
#define SPREAD_SKIP 78

static int spread_child(size_t unused)
{
	uint64_t end = kclock_ns(CLOCK_MONOTONIC) + HANDOVER_NS;
	unsigned int before, most = 0, reads = 0, in_span = 0, at_handover = 0;

	(void)unused;
	while (atomic_load(&cyclock__host.state) != INIT_DONE && kclock_ns(CLOCK_MONOTONIC) < end) {
		bool measuring = atomic_load(&cyclock__host.state) == INIT_MEASURING;

		before = cyclock__cpuid_asked();
		(void)cyclock_now();
		reads++;
		if (cyclock__cpuid_asked() - before > most)
			most = cyclock__cpuid_asked() - before;
		if (measuring && atomic_load(&cyclock__host.state) == INIT_DONE)
			at_handover = cyclock__cpuid_asked() - before;
		else if (measuring)
			in_span++;
	}
	if (atomic_load(&cyclock__host.state) != INIT_DONE)
		return FAIL("initialisation did not finish within %llu ms",
			    (unsigned long long)(HANDOVER_NS / 1000000));
	if (!cyclock__cpuid_asked())
		return SKIP;
	if (in_span < SPREAD_READS)
		return SPREAD_SKIP;
	if (at_handover)
		return FAIL("after %u reads in the span, the read that started the counter "
			    "asked CPUID %u times",
			    in_span, at_handover);
	if (most > 1)
		return FAIL("a read asked CPUID %u times (of %u in %u reads)", most,
			    cyclock__cpuid_asked(), reads);
	return 0;
}

static void checks_are_spread_over_reads(void **unused)
{
	int checked = 0;

	(void)unused;
	for (int i = 0; i < CHILDREN; i++) {
		int rc = in_child(spread_child, 0);

		if (rc == SKIP)
			skip(); /* no CPUID here (not x86-64), or the counter not used */
		if (rc && rc != SPREAD_SKIP)
			fail_msg("child %d failed", i);
		checked += rc == 0;
	}
	print_message("%d of %d children read %d times or more in the span\n", checked, CHILDREN,
		      SPREAD_READS);
	if (checked < CHILDREN / 2)
		fail_msg("only %d of %d children read often enough in the span to check", checked,
			 CHILDREN);
}

/* Child: a warp check asked for after a lazy start still runs, at the
 * second half's checks, and cyclock_get_state() says it ran (where two
 * CPUs are allowed and the counter is trusted so far, else SKIP: under
 * qemu-user it is forced). */
static int warp_check_child(size_t unused)
{
	cpu_set_t set;

	(void)unused;
	(void)cyclock_now();
	if (cyclock_init(CYCLOCK_INIT_WARP_CHECK) != CYCLOCK_USING_COUNTER)
		return SKIP;
	if (sched_getaffinity(0, sizeof(set), &set) || CPU_COUNT(&set) < 2)
		return SKIP;
	if (cyclock__setup.distrust) /* forced (CYCLOCK_SOURCE): no check past a distrust */
		return SKIP;
	/* The public state says so, with no step back (a warp would have
	 * made the counter distrusted); a busy machine may leave it few
	 * turns, even none. */
	struct cyclock_state st = state_now();

	if (!st.warp_ran || st.warp_cyc != 0)
		return FAIL("cyclock_init(CYCLOCK_INIT_WARP_CHECK) after the first read: no check "
			    "in the state (%" PRIu64 " turns, %" PRId64 " counts back; %s)",
			    st.warp_turns, st.warp_cyc, cyclock_describe());
	return 0;
}

static void warp_check_after_a_lazy_start(void **unused)
{
	int rc = in_child(warp_check_child, 0);

	(void)unused;
	if (rc == SKIP)
		skip();
	assert_int_equal(rc, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(first_call_of_each_clock_does_not_wait),
		cmocka_unit_test(handover_does_not_go_back),
		cmocka_unit_test(checks_are_spread_over_reads),
		cmocka_unit_test(handover_makes_no_system_call_of_its_own),
		cmocka_unit_test(warp_check_after_a_lazy_start),
	};

	/* Every check asked of the machine, as by a boot's first process: a
	 * machine's record would answer CPUID (test_machine_record.c). */
	setenv("CYCLOCK_MACHINE_RECORD", "off", 1);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
