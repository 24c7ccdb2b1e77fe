/* SPDX-License-Identifier: MIT */
/*
 * cyclock_coarse(): one load of a value a ticker thread refreshes from
 * cyclock_now() every period (1 ms; CYCLOCK_COARSE_PERIOD_US sets it).
 * A reading is at most a period plus the ticker's scheduling delay behind
 * cyclock_now(), and never ahead of it.  The value 0 means "no ticker":
 * the first call starts one, and a child of fork(), which inherits no
 * thread, gets 0 again from the fork handler.
 *
 * The value only ever rises (coarse_raise()): the first call stores the
 * cyclock_now() it returns, and the ticker's first store, computed a
 * moment earlier on another thread, must not then take it back.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include "internal.h"

struct cyclock__coarse cyclock__coarse;

static CYCLOCK_ATOMIC(uint32_t) ticker_started;
static uint64_t period_ns = 1000 * NSEC_PER_USEC;

/* Raise the value to @ns unless it is already past; returns the value. */
static uint64_t coarse_raise(uint64_t ns)
{
	uint64_t old = atomic_load_explicit(&cyclock__coarse.ns, memory_order_relaxed);

	while (old < ns && !atomic_compare_exchange_weak_explicit(&cyclock__coarse.ns, &old, ns,
								  memory_order_relaxed,
								  memory_order_relaxed))
		;
	return old > ns ? old : ns;
}

static void *ticker(void *arg)
{
	struct timespec ts = { 0, (long)period_ns };

	(void)arg;
	for (;;) {
		coarse_raise(cyclock_now());
		if (period_ns >= NSEC_PER_SEC) {
			ts.tv_sec = (time_t)(period_ns / NSEC_PER_SEC);
			ts.tv_nsec = (long)(period_ns % NSEC_PER_SEC);
		}
		while (nanosleep(&ts, &ts) && errno == EINTR)
			;
		ts.tv_sec = 0;
		ts.tv_nsec = (long)period_ns;
	}
	return NULL;
}

/* CYCLOCK_COARSE_PERIOD_US, 1..1000000; anything else keeps 1000, with
 * one message per process. */
static void read_period(void)
{
	static CYCLOCK_ATOMIC(uint32_t) said;
	const char *v = getenv("CYCLOCK_COARSE_PERIOD_US");
	char *end;
	unsigned long us;

	if (!v)
		return;
	errno = 0;
	us = strtoul(v, &end, 10);
	if (errno || end == v || *end || us < 1 || us > 1000000) {
		static const char msg[] = "cyclock: ignoring CYCLOCK_COARSE_PERIOD_US (expected 1..1000000)\n";

		if (!atomic_exchange(&said, 1)) {
			ssize_t ignored = write(STDERR_FILENO, msg, sizeof(msg) - 1);

			(void)ignored;
		}
		return;
	}
	period_ns = us * NSEC_PER_USEC;
}

/* The period, unless CYCLOCK_COARSE_PERIOD_US says otherwise; for the
 * preload, which ticks at the kernel's coarse resolution.  Call before
 * the ticker starts. */
void cyclock__coarse_period(uint64_t ns)
{
	if (ns >= NSEC_PER_USEC && ns <= NSEC_PER_SEC)
		period_ns = ns;
}

/* Start the ticker once (per process image); false if it could not be
 * started (the next call tries again).  Not async-signal-safe. */
bool cyclock__coarse_start(void)
{
	pthread_t t;
	uint32_t no = 0;
	int err;

	if (!atomic_compare_exchange_strong(&ticker_started, &no, 1))
		return true;
	read_period();
	err = cyclock__thread_start(&t, true, ticker, NULL);
	if (err) {
		atomic_store(&ticker_started, 0);
		return false;
	}
	/* A name for ps -L and top; a thread that never exits keeps @t valid. */
	pthread_setname_np(t, "cyclock-coarse");
	return true;
}

/* With no ticker running, a stored value would stand still: store only
 * once one runs. */
uint64_t cyclock__coarse_slow(void)
{
	return cyclock__coarse_start() ? coarse_raise(cyclock_now()) : cyclock_now();
}

/* In a child of fork(): no ticker runs; the next call starts one. */
void cyclock__coarse_fork_child(void)
{
	atomic_store(&cyclock__coarse.ns, 0);
	atomic_store(&ticker_started, 0);
}
