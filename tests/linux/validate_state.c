/* SPDX-License-Identifier: MIT */
/*
 * Validate cyclock_get_state()'s read of the process's own status block
 * (src/linux/status.c; cyclock/status.h has the latch): a writer thread
 * writes the counts as a resync does, under the writer flag, as fast as
 * it can, each write's fields all derived from one number i; SIGUSR1,
 * sent flat out to that very thread, runs cyclock_get_state() in a
 * handler that often interrupted a write, and the main thread reads too.
 * Every state read must be one write's (its fields agree with one i) and
 * never go back.  A handler on the writer's own thread cannot wait for
 * the write it interrupted, nor take the writer flag: cyclock_get_state()
 * may do neither, nor yield: sched_yield() is counted (this program's
 * definition takes the library's calls, linked statically).
 *
 * Usage: linux_validate_state [seconds]   (default 3); exit 77 (a skip)
 * where the library has no counter to be on.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "internal.h"

static atomic_bool stop;
static atomic_ulong writes, yields, reads, torn, back, mid_write;
static atomic_int in_write;

static const char *const why[2] = { "even: a reason of one length",
				    "odd: a reason of another, longer length than the even one" };

int sched_yield(void)
{
	atomic_fetch_add(&yields, 1);
	return (int)syscall(SYS_sched_yield);
}

/* The tracks' fields the counts are made of, each set to @i. */
static void tracks_at(uint64_t i)
{
	struct cyclock__track_state *m = &cyclock__tracks.mono.state;

	m->resyncs = m->spells = m->rate_changes = m->interval = i;
	m->last_err = (int64_t)i;
	m->kernel_why = why[i & 1];
	cyclock__tracks.raw.state.last_err = (int64_t)i;
	cyclock_atomic_store(&cyclock__tracks.anomalies, i, CYCLOCK_RELAXED);
}

static void *writer(void *arg)
{
	(void)arg;
	/* RAW's rate 1 ns per count makes interval_ns the interval. */
	cyclock__tracks.raw.state.rate = 1.0;
	cyclock__tracks.raw.state.spells = 0;
	for (uint64_t i = 1; !atomic_load_explicit(&stop, memory_order_relaxed); i++) {
		while (!cyclock__writer_try(false))
			;
		atomic_store(&in_write, 1);
		tracks_at(i);
		cyclock__status_counts(&cyclock__tracks.mono, i, i & 1);
		atomic_store(&in_write, 0);
		cyclock__writer_done();
		atomic_store_explicit(&writes, i, memory_order_relaxed);
	}
	return NULL;
}

/* One read, checked against the last one @last of the same reader. */
static void check(uint64_t *last)
{
	struct cyclock_state st = { .version = CYCLOCK_STATE_VERSION };
	uint64_t i;

	if (cyclock_get_state(&st))
		return (void)atomic_fetch_add(&torn, 1);
	atomic_fetch_add(&reads, 1);
	if (!atomic_load(&writes) && (i = st.resyncs) != 1)
		return; /* before the first write: initialisation's counts */
	i = st.resyncs;
	if (st.kernel_spells != i || st.rate_changes != i || st.anomalies != i ||
	    (uint64_t)st.last_err_ns != i || (uint64_t)st.raw_last_err_ns != i ||
	    st.interval_ns != i || st.kernel_mode != (int32_t)(i & 1) ||
	    strcmp(st.kernel_why, why[i & 1]) || st.hz != 1e9)
		atomic_fetch_add(&torn, 1);
	if (i < *last)
		atomic_fetch_add(&back, 1);
	*last = i;
}

static uint64_t handler_last;

static void on_usr1(int sig)
{
	int saved = errno;

	(void)sig;
	if (atomic_load(&in_write))
		atomic_fetch_add(&mid_write, 1);
	check(&handler_last);
	errno = saved;
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 3;
	struct sigaction sa = { .sa_handler = on_usr1 };
	uint64_t main_last = 0, t0;
	pthread_t w;

	/* On the counter, whatever this machine's trust, since the counts
	 * are reported only there. */
	setenv("CYCLOCK_SOURCE", CYCLOCK_ARCH_COUNTER_NAME, 1);
	if (!CYCLOCK_ARCH_HAS_COUNTER || cyclock_init(0) != CYCLOCK_USING_COUNTER ||
	    !cyclock_atomic_load(&cyclock__setup.using_counter, CYCLOCK_SEQ_CST)) {
		printf("validate_state: no counter to be on here: skipped\n");
		return 77;
	}
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGUSR1, &sa, NULL) || pthread_create(&w, NULL, writer, NULL))
		return 1;
	atomic_store(&yields, 0);
	t0 = cyclock__kernel_ns(CLOCK_MONOTONIC);
	while (cyclock__kernel_ns(CLOCK_MONOTONIC) - t0 < (uint64_t)(seconds * 1e9)) {
		pthread_kill(w, SIGUSR1);
		check(&main_last);
	}
	atomic_store(&stop, true);
	pthread_join(w, NULL);
	printf("validate_state: %lu reads (%lu in a handler that interrupted a write) of %lu "
	       "writes: %lu torn, %lu back, %lu sched_yield()s\n",
	       atomic_load(&reads), atomic_load(&mid_write), atomic_load(&writes),
	       atomic_load(&torn), atomic_load(&back), atomic_load(&yields));
	if (atomic_load(&mid_write) < 100) {
		fprintf(stderr, "validate_state: too few reads interrupted a write to say anything\n");
		return 1;
	}
	return atomic_load(&torn) || atomic_load(&back) || atomic_load(&yields) ? 1 : 0;
}
