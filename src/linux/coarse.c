/* SPDX-License-Identifier: MIT */
/*
 * cyclock_coarse(): one load of a value a ticker thread refreshes from
 * cyclock_now() every period (1 ms; CYCLOCK_COARSE_PERIOD_US sets it).
 * A reading is at most a period plus the ticker's scheduling delay behind
 * cyclock_now(), and never ahead of it.  The value 0 means "no ticker":
 * the first call starts one, and a child of fork(), which inherits no
 * thread, gets 0 again from the fork handler.
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

static void *ticker(void *arg)
{
	struct timespec ts = { 0, (long)period_ns };

	(void)arg;
	for (;;) {
		/* One writer: the values it stores only grow. */
		atomic_store_explicit(&cyclock__coarse.ns, cyclock_now(), memory_order_relaxed);
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

/* CYCLOCK_COARSE_PERIOD_US, 1..1000000; anything else keeps 1000. */
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
		static const char msg[] = "cyclock: ignoring CYCLOCK_COARSE_PERIOD_US (expected 1..1000000)\n";
		ssize_t ignored = write(STDERR_FILENO, msg, sizeof(msg) - 1);

		(void)ignored;
		return;
	}
	period_ns = us * NSEC_PER_USEC;
}

/* Start the ticker once (per process image).  Not async-signal-safe. */
void cyclock__coarse_start(void)
{
	pthread_attr_t attr;
	pthread_t t;
	uint32_t no = 0;

	if (!atomic_compare_exchange_strong(&ticker_started, &no, 1))
		return;
	read_period();
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	if (pthread_create(&t, &attr, ticker, NULL))
		atomic_store(&ticker_started, 0); /* try again at the next call */
	pthread_attr_destroy(&attr);
}

uint64_t cyclock__coarse_slow(void)
{
	cyclock__coarse_start();
	return cyclock_now();
}

/* In a child of fork(): no ticker runs; the next call starts one. */
void cyclock__coarse_fork_child(void)
{
	atomic_store(&cyclock__coarse.ns, 0);
	atomic_store(&ticker_started, 0);
}
