/* SPDX-License-Identifier: MIT */
/*
 * The cross-CPU warp check at initialisation: two threads pinned to two
 * CPUs take turns, each reading the counter (ordered) and comparing it
 * with the other's last reading.  Every reading follows the other's in
 * time (the turn hands over through memory), so a smaller value means the
 * counters disagree: a warp.  The kernel runs the same test when it
 * brings a CPU up (arch/x86/kernel/tsc_sync.c); this one checks what user
 * space sees, for a bounded time.
 *
 * Tests: tests/linux/test_first_read.c (the check cyclock_init() asks for
 * runs, and cyclock_get_state() reports it), test_no_threads.c (no thread
 * to run it: said, not claimed).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>

#include "internal.h"

struct warp {
	CYCLOCK_ATOMIC(uint64_t) last; /* the last reading, by either thread */
	CYCLOCK_ATOMIC(uint32_t) turn; /* whose turn: 0 or 1 */
	CYCLOCK_ATOMIC(uint32_t) stop;
	CYCLOCK_ATOMIC(uint32_t) ready; /* threads pinned and waiting */
	uint64_t budget_ns;
	uint64_t start_by_ns;          /* CLOCK_MONOTONIC_RAW: give up if not both running */
	int cpu[2];
	int64_t worst[2];              /* largest backward step each saw */
	uint64_t turns[2];
	bool pinned[2];
};

struct warp_arg {
	struct warp *w;
	unsigned int me;
};

static bool pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return pthread_setaffinity_np(pthread_self(), sizeof(set), &set) == 0;
}

/*
 * Wait for the other thread (a busy machine may take a while to start
 * it); false if it is not there in time.  The budget runs from then.
 */
static bool both_ready(struct warp *w, uint64_t *deadline)
{
	cyclock_atomic_fetch_add(&w->ready, 1, CYCLOCK_SEQ_CST);
	while (cyclock_atomic_load(&w->ready, CYCLOCK_SEQ_CST) < 2) {
		if (cyclock__kernel_ns(CLOCK_MONOTONIC_RAW) > w->start_by_ns ||
		    cyclock_atomic_load(&w->stop, CYCLOCK_SEQ_CST)) {
			cyclock_atomic_store(&w->stop, 1, CYCLOCK_SEQ_CST);
			return false;
		}
		cyclock_cpu_relax();
	}
	*deadline = cyclock__kernel_ns(CLOCK_MONOTONIC_RAW) + w->budget_ns;
	return true;
}

/* One thread's turns until the deadline, or until the other stops. */
static void *warp_thread(void *p)
{
	struct warp_arg *a = p;
	struct warp *w = a->w;
	unsigned int me = a->me;
	uint64_t spins = 0, deadline;

	w->pinned[me] = pin(w->cpu[me]);
	if (!both_ready(w, &deadline))
		return NULL;
	while (!cyclock_atomic_load(&w->stop, CYCLOCK_ACQUIRE)) {
		uint64_t prev, now;

		if (cyclock_atomic_load(&w->turn, CYCLOCK_ACQUIRE) != me) {
			/* Check the time now and then, not at every spin. */
			if (++spins % 4096 == 0 &&
			    cyclock__kernel_ns(CLOCK_MONOTONIC_RAW) > deadline)
				cyclock_atomic_store(&w->stop, 1, CYCLOCK_RELEASE);
			cyclock_cpu_relax();
			continue;
		}
		prev = cyclock_atomic_load(&w->last, CYCLOCK_RELAXED);
		now = cyclock__ordered();
		if ((int64_t)(prev - now) > w->worst[me])
			w->worst[me] = (int64_t)(prev - now);
		cyclock_atomic_store(&w->last, now, CYCLOCK_RELAXED);
		w->turns[me]++;
		/* Release: the other thread's acquire of turn sees our reading. */
		cyclock_atomic_store(&w->turn, !me, CYCLOCK_RELEASE);
	}
	cyclock_atomic_store(&w->turn, !me, CYCLOCK_RELEASE);
	return NULL;
}

/*
 * The largest backward step seen between CPUs @cpu[0] and @cpu[1] within
 * @budget_ns, in counts: 0 if none, -1 if the check could not run (no
 * thread, no pinning, or the second thread not running within 4 budgets).
 * *comparisons counts the turns.
 */
int64_t cyclock__warp_check(const int cpu[2], uint64_t budget_ns, uint64_t *comparisons)
{
	struct warp w = { .cpu = { cpu[0], cpu[1] } };
	struct warp_arg arg[2] = { { &w, 0 }, { &w, 1 } };
	pthread_t t[2];
	int started = 0;

	cyclock_atomic_init(&w.last, 0);
	cyclock_atomic_init(&w.turn, 0);
	cyclock_atomic_init(&w.stop, 0);
	cyclock_atomic_init(&w.ready, 0);
	w.budget_ns = budget_ns;
	w.start_by_ns = cyclock__kernel_ns(CLOCK_MONOTONIC_RAW) + 4 * budget_ns;
	cyclock_atomic_store(&w.last, cyclock__ordered(), CYCLOCK_SEQ_CST);
	for (; started < 2; started++)
		if (cyclock__thread_start(&t[started], false, warp_thread, &arg[started]))
			break;
	if (started < 2)
		cyclock_atomic_store(&w.stop, 1, CYCLOCK_SEQ_CST);
	for (int i = 0; i < started; i++)
		pthread_join(t[i], NULL);
	*comparisons = w.turns[0] + w.turns[1];
	if (started < 2 || !w.pinned[0] || !w.pinned[1] ||
	    cyclock_atomic_load(&w.ready, CYCLOCK_SEQ_CST) < 2)
		return -1;
	return w.worst[0] > w.worst[1] ? w.worst[0] : w.worst[1];
}
