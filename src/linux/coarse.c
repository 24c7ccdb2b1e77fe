/* SPDX-License-Identifier: MIT */
/*
 * cyclock_coarse().  By default no thread: the kernel's coarse clock
 * (CLOCK_MONOTONIC_COARSE, which the kernel moves at every tick) brought
 * onto cyclock's timeline: the lesser of it and the cap, a value
 * cyclock_now() returned (so every later cyclock_now() is at least it),
 * so it is never ahead of cyclock_now() and never goes back.  When the
 * kernel's tick takes its coarse clock past the cap, one cyclock_now()
 * raises the cap: once a tick, so a read costs the kernel's coarse clock
 * and a compare, and lags cyclock_now() by what the kernel's coarse clock
 * lags the kernel's own, a tick at most.
 *
 * On request (cyclock_init(CYCLOCK_INIT_COARSE)) a ticker thread instead
 * stores cyclock_now() every period (1 ms unless CYCLOCK_COARSE_PERIOD_US
 * says otherwise: read as the ticker starts, it starts none by itself),
 * and a read is one load.  The value 0 means
 * "no ticker"; a child of fork(), which inherits no thread, gets 0 again
 * from the fork handler, and reads the kernel's coarse clock.  A ticker
 * that could not be started is not tried again.
 *
 * The stored value only ever rises (coarse_raise()): the ticker's first
 * store, computed a moment earlier on another thread, must not take back
 * a value a reader returned.  So while a ticker runs, a reader that still
 * found 0 raises the value to what it returns (cyclock__coarse_slow()).
 *
 * Tests: tests/model/model_coarse.cpp (the cap, with and without a ticker,
 * under the model checker), tests/linux/test_api.c and test_threads.c (the
 * ticker), test_no_threads.c (a ticker that cannot start),
 * validate_timeline_fork.c (a child's ticker), tests/preload/test_coarse.c
 * (served by the preload).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include "internal.h"

enum { TICKER_NONE, TICKER_RUNNING, TICKER_FAILED };
static CYCLOCK_ATOMIC(uint32_t) ticker_state;
static uint64_t period_ns = 1000 * NSEC_PER_USEC;

/* Raise the value to @ns unless it is already past; returns the value.
 * Sequentially consistent, for cyclock__coarse_slow()'s look at the
 * ticker's state after it; and a value another thread stored is returned
 * only through an acquire of its store, so that the caller's own
 * cyclock_now() after is not below it (docs/model.md, model_coarse). */
static uint64_t coarse_raise(uint64_t ns)
{
	uint64_t old = cyclock_atomic_load(&cyclock__coarse.ns, CYCLOCK_ACQUIRE);

	while (old < ns && !cyclock_atomic_cas_weak(&cyclock__coarse.ns, &old, ns, CYCLOCK_SEQ_CST,
						    CYCLOCK_SEQ_CST))
		;
	return old > ns ? old : ns;
}

/* The ticker's one step: cyclock_now(), stored where readers load it. */
void cyclock__coarse_tick(void)
{
	coarse_raise(cyclock_now());
}

static void *ticker(void *arg)
{
	struct timespec ts = { 0, (long)period_ns };

	(void)arg;
	for (;;) {
		cyclock__coarse_tick();
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

/* The ticker's period from CYCLOCK_COARSE_PERIOD_US, 1..1000000 us, read
 * as the ticker starts (cyclock__coarse_start()): the variable alone
 * starts none.  Anything else keeps the period, with one message per
 * process. */
static void read_period(void)
{
	const char *v = getenv("CYCLOCK_COARSE_PERIOD_US");
	char *end;
	unsigned long us;

	if (!v)
		return;
	errno = 0;
	us = strtoul(v, &end, 10);
	if (errno || end == v || *end || us < 1 || us > 1000000) {
		static const char msg[] =
			"cyclock: ignoring CYCLOCK_COARSE_PERIOD_US (expected 1..1000000)\n";
		static CYCLOCK_ATOMIC(uint32_t) said;

		cyclock__say_once(&said, msg, sizeof(msg) - 1);
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

/* In a child of fork(), registered as the ticker starts: no ticker runs,
 * and none is started for it. */
static void coarse_fork_child(void)
{
	cyclock_atomic_store(&cyclock__coarse.ns, 0, CYCLOCK_SEQ_CST);
	if (cyclock_atomic_load(&ticker_state, CYCLOCK_SEQ_CST) == TICKER_RUNNING)
		cyclock_atomic_store(&ticker_state, TICKER_FAILED, CYCLOCK_SEQ_CST);
}

/* Start the ticker once (per process image); false if it could not be
 * started, which is remembered.  Not async-signal-safe. */
bool cyclock__coarse_start(void)
{
	pthread_t t;
	uint32_t none = TICKER_NONE;

	if (!cyclock_atomic_cas(&ticker_state, &none, TICKER_RUNNING, CYCLOCK_SEQ_CST,
				CYCLOCK_SEQ_CST))
		return none == TICKER_RUNNING;
	read_period();
	if (pthread_atfork(NULL, NULL, coarse_fork_child) ||
	    cyclock__thread_start(&t, true, ticker, NULL)) {
		cyclock_atomic_store(&ticker_state, TICKER_FAILED, CYCLOCK_SEQ_CST);
		/* Back to the kernel's coarse clock, which a reader meanwhile
		 * may have stored: it never reads less than that reader. */
		cyclock_atomic_store(&cyclock__coarse.ns, 0, CYCLOCK_SEQ_CST);
		return false;
	}
	/* A name for ps -L and top; a thread that never exits keeps @t valid. */
	pthread_setname_np(t, "cyclock-coarse");
	return true;
}

/* Raise the cap to @ns, a value every cyclock_now() from now on is at
 * least, unless it is past already (readers and the writer both raise
 * it); returns the cap.  The release pairs with the acquires that read
 * the cap (cyclock__coarse_slow()'s, and this function's, which returns
 * a cap another thread set): a reader that sees the cap sees the segment
 * that set it. */
uint64_t cyclock__coarse_below(uint64_t ns)
{
	uint64_t b = cyclock_atomic_load(&cyclock__coarse.below, CYCLOCK_ACQUIRE);

	while (b < ns && !cyclock_atomic_cas_weak(&cyclock__coarse.below, &b, ns, CYCLOCK_ACQ_REL,
						  CYCLOCK_ACQUIRE))
		;
	return b > ns ? b : ns;
}

/* @k, the kernel's coarse clock, on cyclock's timeline (above), past
 * the cap. */
static uint64_t past_cap(uint64_t k)
{
	uint64_t b;

	if (cyclock_atomic_load(&cyclock__host.state, CYCLOCK_ACQUIRE) == INIT_DONE &&
	    !cyclock_atomic_load(&cyclock__setup.using_counter, CYCLOCK_SEQ_CST))
		return k; /* every clock is the kernel's: below CLOCK_MONOTONIC */
	/* Every later cyclock_now() is at least this one, which is the
	 * kernel's clock or a little off it: past its coarse clock. */
	b = cyclock__coarse_below(cyclock_now());
	return k < b ? k : b;
}

/*
 * No ticker, or one that has not stored yet: then its first store may
 * have been computed before this reading, so the reading is stored too.
 * If the ticker failed to start meanwhile, the value goes back to 0 (the
 * kernel's coarse clock, which never reads less than this): the starter
 * stores 0 after it says so, and a raise it did not see is undone here.
 * The common case first: the kernel's coarse clock below the cap and no
 * ticker, for a load and a compare more than the kernel's clock.
 */
uint64_t cyclock__coarse_slow(void)
{
	uint64_t ns = cyclock__kernel_ns(CLOCK_MONOTONIC_COARSE);

	if (cyclock_unlikely(ns > cyclock_atomic_load(&cyclock__coarse.below, CYCLOCK_ACQUIRE)))
		ns = past_cap(ns);
	if (cyclock_likely(cyclock_atomic_load(&ticker_state, CYCLOCK_SEQ_CST) != TICKER_RUNNING))
		return ns;
	ns = coarse_raise(ns);
	if (cyclock_atomic_load(&ticker_state, CYCLOCK_SEQ_CST) != TICKER_RUNNING)
		cyclock_atomic_store(&cyclock__coarse.ns, 0, CYCLOCK_SEQ_CST);
	return ns;
}

uint64_t cyclock_coarse(void)
{
	return cyclock__coarse_read();
}
