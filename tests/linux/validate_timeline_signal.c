/* SPDX-License-Identifier: MIT */
/*
 * Every reader is async-signal-safe, and so is cyclock_resync(): an
 * interval timer interrupts the main thread every 50 us while it does
 * nothing but resync and read.  Many signals land inside a resync, with the
 * latch half written; the handler then reads every clock, checks each
 * against the last value the main thread or an earlier handler saw (one
 * thread, so every clock but realtime must be monotonic), brackets each
 * against its kernel clock, converts a counter value, and every eighth
 * time resyncs itself, which must return without waiting for the resync
 * it interrupted.  A hang is a failure too: CTest's timeout ends it.
 *
 * Usage: linux_validate_timeline_signal [seconds]   (default 3)
 *
 * Benchmark: `cyclock bench warm` measures what the readers cost; `cyclock bench
 * scale`, under threads.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/time.h>
#include <unistd.h>

#include "cyclock.h"
#include "agree.h"

static uint64_t (*const readers[])(void) = {
	cyclock_now, cyclock_now_relaxed, cyclock_raw, cyclock_boottime,
	cyclock_coarse, cyclock_local, cyclock_cycles,
};
static const char *const names[] = {
	"cyclock_now", "cyclock_now_relaxed", "cyclock_raw", "cyclock_boottime",
	"cyclock_coarse", "cyclock_local", "cyclock_cycles",
};
#define NREADERS ((int)(sizeof(readers) / sizeof(readers[0])))

/* Shared by the main thread and the handler that interrupts it. */
static volatile uint64_t last[NREADERS];
static volatile sig_atomic_t runs, errors, off_main;
static volatile int err_what = -1; /* the first error: a clock, or -1 - a kclock case */
static volatile int64_t err_by;    /* its size, ns (counts for cyclock_cycles) */
static pid_t main_tid;

static void record(int what, int64_t by)
{
	if (errors++ == 0) {
		err_what = what;
		err_by = by;
	}
}

/* Reads clock @k after loading the last value seen, so that a handler
 * reading in between can only make the check weaker, never wrong. */
static void check(int k)
{
	uint64_t prev = last[k], t = readers[k]();

	if (t < prev)
		record(k, (int64_t)(prev - t));
	last[k] = t;
}

static void check_agreement(void)
{
	int n, i;
	const struct kclock_case *c = kclock_cases(&n);
	uint64_t n1, x, n2;

	for (i = 0; i < n; i++) {
		int64_t miss = kclock_miss(&c[i]);

		if (!kclock_within(miss, AGREE_NS))
			record(-1 - i, miss);
	}
	n1 = cyclock_now();
	x = cyclock_cycles_to_ns(cyclock_cycles());
	n2 = cyclock_now();
	if (x + AGREE_NS < n1 || x > n2 + AGREE_NS)
		record(NREADERS, (int64_t)(x - n1));
}

static void on_alarm(int sig)
{
	int saved = errno, k;

	(void)sig;
	if (gettid() != main_tid)
		off_main++; /* the shared state below would be racy: the test is void */
	for (k = 0; k < NREADERS; k++)
		check(k);
	check_agreement();
	if (runs % 8 == 0)
		cyclock_resync();
	runs++;
	errno = saved;
}

static void set_alarm_blocked(int how)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGALRM);
	sigprocmask(how, &set, NULL);
}

static const char *what_name(int what)
{
	int n;
	const struct kclock_case *c = kclock_cases(&n);

	if (what >= 0)
		return what < NREADERS ? names[what] : "cyclock_cycles_to_ns";
	return -1 - what < n ? c[-1 - what].name : "?";
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 3.0;
	struct itimerval every = { { 0, 50 }, { 0, 50 } }, off = { { 0, 0 }, { 0, 0 } };
	struct sigaction sa = { .sa_handler = on_alarm, .sa_flags = SA_RESTART };
	unsigned long rounds = 0;
	uint64_t end;
	int k;

	main_tid = gettid();
	/* The library's threads (the init check's, the ticker) inherit the
	 * block, so every SIGALRM interrupts this thread. */
	set_alarm_blocked(SIG_BLOCK);
	if (cyclock_init(CYCLOCK_INIT_COARSE) < 0)
		return 1;
	cyclock_coarse();
	set_alarm_blocked(SIG_UNBLOCK);
	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, NULL);
	setitimer(ITIMER_REAL, &every, NULL);
	end = kclock_mono() + (uint64_t)(seconds * 1e9);
	while (kclock_mono() < end) {
		cyclock_resync();
		for (k = 0; k < NREADERS; k++)
			check(k);
		if (++rounds % 64 == 0)
			check_agreement();
	}
	setitimer(ITIMER_REAL, &off, NULL);
	printf("validate_timeline_signal: %s\n", cyclock_describe());
	printf("validate_timeline_signal: %lu rounds, %d handler runs (%d off the main thread), %d errors\n",
	       rounds, (int)runs, (int)off_main, (int)errors);
	if (errors)
		printf("validate_timeline_signal: first error: %s %s %lld\n", what_name(err_what),
		       err_what >= 0 && err_what < NREADERS ? "went back by"
		       : err_what == NREADERS		   ? "off the clock by"
							   : "outside its kernel clock by",
		       (long long)err_by);
	return errors || off_main || !runs ? 1 : 0;
}
