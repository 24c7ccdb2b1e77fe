/* SPDX-License-Identifier: MIT */
/*
 * A program that sandboxes itself, as OpenSSH's pre-authentication child
 * and browsers' renderers do: a seccomp filter that kills the process on
 * any system call it did not list, installed before its first clock read
 * (or, "--after-first-read", after one, with initialisation begun).  It
 * lists only what it needs itself (write, exit_group, the kernel's
 * clock_gettime() for its reference),
 * then reads every served clock on two threads for 200 ms, across
 * initialisation and many resyncs: each thread's readings never go back,
 * the ordered ones never go back across the threads either, and every
 * reading is within 1 ms of the kernel's, read with the system call.  The
 * library makes no system call after load (docs/hosted.md, "System
 * calls"), so the filter never sees one of its: one would kill the
 * process (SIGSYS), and fail the test.
 *
 * With "--trace", no filter: the same reads between two lines on stdout,
 * "reading" and "read", each thread done before the second, for a tracer
 * to see that no system call comes between (tests/preload/syscalls.sh).
 *
 * Built twice: preload_test_sandbox, plain libc's clock_gettime(),
 * gettimeofday() and timespec_get(), run under the preload (default and
 * relaxed: then in order per thread only); preload_test_sandbox_linked
 * (SANDBOX_LINKED): cyclock_now(), _raw(), _realtime() and _boottime()
 * of libcyclock.so.  Exit 77 where the filter cannot be installed
 * (qemu-user), or the preload passes every clock through.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <seccomp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#ifdef SANDBOX_LINKED
#include "cyclock.h"
#else
#include "preload_check.h"
#endif

#define SPAN_NS 200000000ull
#define BOUND_NS 1000000ull
#define NCLOCKS 4

static const clockid_t kernel_id[NCLOCKS] = { CLOCK_MONOTONIC, CLOCK_MONOTONIC_RAW,
					      CLOCK_REALTIME, CLOCK_BOOTTIME };
static const char *const name[NCLOCKS] = { "monotonic", "raw", "realtime", "boottime" };
static bool across;                      /* the clocks are ordered across threads */
static bool traced;                      /* --trace: no system call of the program's own */
static _Atomic int started, go, failed, done, released;
static _Atomic uint64_t latest[NCLOCKS]; /* the greatest reading of each, both threads */

/* One line on stdout, by write(2) alone: the filter allows nothing else. */
static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
	char line[256];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (n > (int)sizeof(line) - 1)
		n = (int)sizeof(line) - 1;
	if (n > 0 && write(STDOUT_FILENO, line, (size_t)n) < 0)
		_exit(1);
}

/* The kernel's clock, by the system call; traced, none (0). */
static uint64_t kernel_ns(clockid_t id)
{
	struct timespec ts;

	if (traced)
		return 0;
	syscall(SYS_clock_gettime, id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Clock @c as the program reads it; realtime in turn through each of its
 * calls (@turn), gettimeofday()'s in microseconds. */
static uint64_t read_clock(int c, unsigned int turn)
{
#ifdef SANDBOX_LINKED
	static uint64_t (*const fn[NCLOCKS])(void) = { cyclock_now, cyclock_raw,
						       cyclock_realtime, cyclock_boottime };

	(void)turn;
	return fn[c]();
#else
	struct timespec ts;
	struct timeval tv;

	if (c == 2 && turn % 3 == 1) {
		gettimeofday(&tv, NULL);
		return (uint64_t)tv.tv_sec * 1000000000ull + (uint64_t)tv.tv_usec * 1000;
	}
	if (c == 2 && turn % 3 == 2)
		timespec_get(&ts, TIME_UTC);
	else
		clock_gettime(kernel_id[c], &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
#endif
}

/* Reading @v of clock @c, between the kernel's @k0 and @k1, after this
 * thread's @mine and all threads' @before: false on a failure (said).
 * Realtime in microseconds may be up to 1 us below what came before. */
static bool checked(int c, uint64_t v, uint64_t k0, uint64_t k1, uint64_t mine, uint64_t before)
{
	uint64_t trunc = c == 2 ? 1000 : 0;

	if (v + trunc < mine || (across && v + trunc < before)) {
		say("sandbox: %s went back by %llu ns (%s)\n", name[c],
		    (unsigned long long)((v + trunc < mine ? mine : before) - v),
		    v + trunc < mine ? "one thread" : "across threads");
		return false;
	}
	if (!traced && (v + BOUND_NS + trunc < k0 || v > k1 + BOUND_NS)) {
		say("sandbox: %s %lld ns off the kernel's\n", name[c],
		    v > k1 ? (long long)(v - k1) : -(long long)(k0 - v));
		return false;
	}
	return true;
}

static void *reader(void *unused)
{
	uint64_t mine[NCLOCKS] = { 0 }, end;
	unsigned int turn = 0;

	(void)unused;
	atomic_store(&started, 1); /* past the thread's own start (rseq(2)) */
	while (!atomic_load(&go))
		;
	end = (traced ? read_clock(0, 0) : kernel_ns(CLOCK_MONOTONIC)) + SPAN_NS;
	while ((traced ? read_clock(0, 0) : kernel_ns(CLOCK_MONOTONIC)) < end &&
	       !atomic_load(&failed))
		for (int c = 0; c < NCLOCKS; c++) {
			uint64_t before = atomic_load(&latest[c]), k0 = kernel_ns(kernel_id[c]);
			uint64_t v = read_clock(c, turn++), k1 = kernel_ns(kernel_id[c]);

			if (!checked(c, v, k0, k1, mine[c], before))
				atomic_store(&failed, 1);
			mine[c] = v > mine[c] ? v : mine[c];
			while (before < v && !atomic_compare_exchange_weak(&latest[c], &before, v))
				;
		}
	/* Both done before the last line, and no thread's exit before it. */
	atomic_fetch_add(&done, 1);
	while (atomic_load(&done) < 2 || (unused && !atomic_load(&released)))
		;
	return NULL;
}

/* The filter: kill the process on anything but these, on every thread. */
static int sandbox(void)
{
	static const int allowed[] = { SCMP_SYS(write), SCMP_SYS(exit_group), SCMP_SYS(rt_sigreturn),
				       SCMP_SYS(clock_gettime) };
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_KILL_PROCESS);
	int r = ctx ? seccomp_attr_set(ctx, SCMP_FLTATR_CTL_TSYNC, 1) : -1;

	for (size_t i = 0; !r && i < sizeof(allowed) / sizeof(allowed[0]); i++)
		r = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, allowed[i], 0);
	if (!r)
		r = seccomp_load(ctx);
	seccomp_release(ctx);
	return r;
}

int main(int argc, char **argv)
{
	bool after = argc > 1 && !strcmp(argv[1], "--after-first-read");
	bool trace = traced = argc > 1 && !strcmp(argv[1], "--trace");
	pthread_t t;

#ifdef SANDBOX_LINKED
	across = true;
#else
	/* Traced, it runs under an empty library too, to compare with. */
	unsigned int mask = trace ? 1 : preload_mask("preload_test_sandbox");

	if (!mask)
		return preload_result(mask, "preload_test_sandbox");
	across = !getenv("CYCLOCK_PRELOAD_RELAXED") || strcmp(getenv("CYCLOCK_PRELOAD_RELAXED"), "1");
#endif
	alarm(20);
	if (after)
		(void)read_clock(0, 0);
	if (pthread_create(&t, NULL, reader, &released)) {
		say("sandbox: no thread\n");
		return 1;
	}
	while (!atomic_load(&started))
		;
	if (trace) {
		say("reading\n");
		atomic_store(&go, 1);
		(void)reader(NULL);
		say("read\n");
		atomic_store(&released, 1);
		pthread_join(t, NULL);
		return atomic_load(&failed);
	}
	if (sandbox()) {
		say("sandbox: a seccomp filter cannot be installed here: skipped\n");
		atomic_store(&failed, 1);
		atomic_store(&done, 1); /* as if this thread had read */
		atomic_store(&released, 1);
		atomic_store(&go, 1);
		pthread_join(t, NULL);
		return 77;
	}
	atomic_store(&go, 1);
	(void)reader(NULL);
	/* The other thread stays (its exit would block signals, a call the
	 * filter does not list): _exit() ends both. */
	if (atomic_load(&failed))
		_exit(1);
	say("sandbox: every clock read on two threads for %llu ms under a filter that kills on "
	    "any system call it did not list%s: in order, within 1 ms of the kernel's\n",
	    (unsigned long long)(SPAN_NS / 1000000), after ? " (installed after a first read)" : "");
	_exit(0);
}
