/* SPDX-License-Identifier: MIT */
/*
 * warp: does a clock go backwards between CPUs?  Ingo Molnar's
 * time-warp-test and the kernel's tools/testing/selftests/timers in their
 * simplest form: two threads pinned to two CPUs take strict turns.  On its
 * turn a thread reads the clock and compares the reading with the other
 * thread's last one.  The turn passes through memory (a release store
 * read by an acquire load), so every reading is taken after the one it is
 * compared with: a smaller value is the clock going backwards, a "warp".
 *
 * An ordered clock (lfence;rdtsc, rdtscp, cyclock_now(), the kernel's)
 * must show none.  A bare rdtsc may execute before the load that saw the
 * turn, and so read the counter before the other CPU's last reading did.
 * CPU-time and per-thread clocks are not one timeline across threads and
 * are left out; a wall clock may be stepped by NTP or settimeofday() in
 * the middle of a run, which would show as a warp that is no fault.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include <cyclock/deps.h>

#include "bench.h"

#define WARP_BUDGET_NS 200000000ull     /* per clock and repetition */
#define WARP_BUDGET_NS_QUICK 40000000ull
#define WARP_CHECK_EVERY 256             /* turns or spins between looks at the stopwatch */

/* What two threads share: the turn and the last reading, on one line, as
 * in time-warp-test, where both sit under one lock. */
struct warp_shared {
	_Alignas(64) _Atomic uint32_t turn; /* 0 or 1: whose turn it is */
	_Atomic uint32_t stop;
	_Atomic uint64_t last;              /* the last reading, by either thread */
	_Alignas(64) _Atomic uint32_t ready;
	const struct bench_clock *c;
	uint64_t budget_ns;
};

/* One thread's side; its figures are read after join.  A line each: the
 * counters change at every turn, and must not bounce between the CPUs. */
struct warp_side {
	_Alignas(64) struct warp_shared *sh;
	unsigned int me;
	int cpu;
	uint64_t comparisons, backward, worst; /* worst: largest backward step, clock units */
	pthread_t tid;
};

/* Waits for the other side, pinned too: the budget starts with both. */
static void warp_ready(struct warp_shared *sh)
{
	/* Relaxed: ready only paces the start; no data rides on it. */
	atomic_fetch_add_explicit(&sh->ready, 1, memory_order_relaxed);
	while (atomic_load_explicit(&sh->ready, memory_order_relaxed) < 2)
		cyclock_cpu_relax();
}

/* One turn: read, compare with the other side's reading, publish, pass. */
static void warp_turn(struct warp_side *s)
{
	struct warp_shared *sh = s->sh;
	/* Relaxed: the acquire load of turn that gave us this turn ordered
	 * it after the other side's store. */
	uint64_t prev = atomic_load_explicit(&sh->last, memory_order_relaxed);
	uint64_t now = sh->c->read();

	s->comparisons++;
	if (now < prev) {
		s->backward++;
		if (prev - now > s->worst)
			s->worst = prev - now;
	}
	atomic_store_explicit(&sh->last, now, memory_order_relaxed);
	/* Release pairs with the other side's acquire load of turn in
	 * warp_wait(): it sees our reading in last. */
	atomic_store_explicit(&sh->turn, s->me ^ 1, memory_order_release);
}

/*
 * Waits for @s's turn: true when it comes, false once the run is over
 * (the other side stopped it, or @deadline passed: the other side may wait
 * for a CPU for milliseconds on a busy machine, and the budget holds
 * meanwhile too).
 */
static bool warp_wait(struct warp_side *s, uint64_t deadline)
{
	struct warp_shared *sh = s->sh;
	unsigned int spins = 0;

	/* Acquire pairs with the release store of turn in warp_turn().  The
	 * pause leaves the core to a sibling hyperthread; it also made the
	 * unordered reads show more of their warps here. */
	while (atomic_load_explicit(&sh->turn, memory_order_acquire) != s->me) {
		if (atomic_load_explicit(&sh->stop, memory_order_relaxed))
			return false;
		cyclock_cpu_relax();
		if (++spins % WARP_CHECK_EVERY == 0 && bench_now_ns() > deadline)
			return false;
	}
	return true;
}

static void *warp_main(void *arg)
{
	struct warp_side *s = arg;
	struct warp_shared *sh = s->sh;
	uint64_t deadline, turns = 0;

	bench_pin(s->cpu);
	warp_ready(sh);
	deadline = bench_now_ns() + sh->budget_ns;
	/* Either side may end the run; the other then finishes its turn, if
	 * it is in one, and sees stop while it waits for the next. */
	while (warp_wait(s, deadline)) {
		warp_turn(s);
		if (++turns % WARP_CHECK_EVERY == 0 && bench_now_ns() > deadline)
			break;
	}
	atomic_store_explicit(&sh->stop, 1, memory_order_relaxed);
	return NULL;
}

/* One run of @c on @cpu[0..1]; fills @side.  0 or an errno. */
static int warp_once(const struct bench_clock *c, uint64_t budget_ns, const int *cpu,
		     struct warp_side side[2])
{
	struct warp_shared *sh = aligned_alloc(64, sizeof(*sh));
	int err = 0, started = 0;

	if (!sh)
		return ENOMEM;
	memset(sh, 0, sizeof(*sh));
	sh->c = c;
	sh->budget_ns = budget_ns;
	for (; started < 2 && !err; started++) {
		memset(&side[started], 0, sizeof(side[started]));
		side[started].sh = sh;
		side[started].me = (unsigned int)started;
		side[started].cpu = cpu[started];
		err = pthread_create(&side[started].tid, NULL, warp_main, &side[started]);
	}
	if (err) {
		/* Side 0 alone: let it start, and stop at once. */
		started--;
		atomic_store_explicit(&sh->stop, 1, memory_order_relaxed);
		atomic_fetch_add_explicit(&sh->ready, 2 - (uint32_t)started, memory_order_relaxed);
	}
	for (int i = 0; i < started; i++)
		pthread_join(side[i].tid, NULL);
	free(sh);
	return err;
}

/* "1.2M", "340k", "87": a count for the table's note. */
static void warp_count(char *buf, size_t len, uint64_t n)
{
	if (n >= 1000000)
		snprintf(buf, len, "%.1fM", (double)n / 1e6);
	else if (n >= 1000)
		snprintf(buf, len, "%.0fk", (double)n / 1e3);
	else
		snprintf(buf, len, "%llu", (unsigned long long)n);
}

/* Fewer comparisons than this (a busy machine gave the pinned threads
 * few turns) make a run inconclusive, whatever they found. */
#define WARP_CONCLUSIVE 100

static void warp_publish(struct bench_run *run, const struct bench_clock *c, const double *samples,
			 int reps, uint64_t comparisons, uint64_t backward, uint64_t worst)
{
	struct bench_result *r;
	char nb[16], nc[16];

	r = bench_run_add(run, "warp", c->name, NULL, 0, (long)(comparisons / (uint64_t)reps),
			  samples, (size_t)reps, 0);
	if (!r)
		return;
	bench_result_extra(r, "backward_steps", (double)backward);
	bench_result_extra(r, "comparisons", (double)comparisons);
	if (c->flags & BENCH_CLOCK_TICKS)
		bench_result_extra(r, "largest_backward_ticks", (double)worst);
	warp_count(nb, sizeof(nb), backward);
	warp_count(nc, sizeof(nc), comparisons);
	/* As the library's own check: so few turns say nothing, not "no warp". */
	snprintf(r->note, sizeof(r->note), "%s backward in %s%s", nb, nc,
		 comparisons < WARP_CONCLUSIVE ? "; inconclusive: too few turns"
		 : c->flags & BENCH_CLOCK_WALL ? "; a wall clock: NTP may step it"
					       : "");
}

/* @reps runs of @c on @cpu[0..1]; 0, or -1 after saying why. */
static int warp_clock(const struct bench_opts *o, struct bench_run *run,
		      const struct bench_clock *c, const int *cpu, int reps)
{
	uint64_t budget = o->quick ? WARP_BUDGET_NS_QUICK : WARP_BUDGET_NS;
	uint64_t comparisons = 0, backward = 0, worst = 0;
	double *samples = calloc((size_t)reps, sizeof(*samples));
	struct warp_side side[2];
	int err = samples ? 0 : ENOMEM;

	for (int rep = 0; rep < reps && !err; rep++) {
		uint64_t w;

		bench_progress(o, "warp: %s, repetition %d of %d", c->name, rep + 1, reps);
		err = warp_once(c, budget, cpu, side);
		if (err)
			break;
		w = side[0].worst > side[1].worst ? side[0].worst : side[1].worst;
		samples[rep] = bench_clock_ns(c, (double)w);
		worst = w > worst ? w : worst;
		comparisons += side[0].comparisons + side[1].comparisons;
		backward += side[0].backward + side[1].backward;
	}
	if (err)
		bench_error("warp: %s: %s", c->name, strerror(err));
	else
		warp_publish(run, c, samples, reps, comparisons, backward, worst);
	free(samples);
	return err ? -1 : 0;
}

int bench_warp(const struct bench_opts *o, struct bench_run *run)
{
	int cpu[2], reps = bench_reps(o, 3, 1), err = 0;

	if (bench_allowed_cpus(cpu, 2) < 2) {
		bench_error("warp: needs 2 CPUs, this process may use 1: no results");
		return 0;
	}
	bench_counter_hz(); /* measured here, if it must be, not by the pinned threads */
	/* A first call may start a thread (cyclock_coarse()'s ticker): made
	 * here, it does not inherit a measuring thread's pinning. */
	for (size_t i = 0; i < o->n_clocks; i++)
		o->clocks[i]->read();
	for (size_t i = 0; i < o->n_clocks && !err; i++) {
		const struct bench_clock *c = o->clocks[i];

		if (!(c->flags & (BENCH_CLOCK_PER_THREAD | BENCH_CLOCK_CPUTIME)))
			err = warp_clock(o, run, c, cpu, reps);
	}
	bench_progress_done(o);
	return err;
}
