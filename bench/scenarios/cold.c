/* SPDX-License-Identifier: MIT */
/*
 * cold: what one call of each clock costs when nothing of it is cached,
 * as a program that asks the time now and then sees it.  This is Peter
 * Zijlstra's cache_cold_sched_clock() (Zijlstra 2013) in user space: he
 * wrote a buffer the size of his last-level cache before each call.  A
 * sweep of the last level does not fit every machine: caches of hundreds
 * of MiB are ordinary on servers, and twice such a cache written twice a
 * sample took 40 s and 1 GB for --quick on a 480 MiB one.  So before each
 * sample evict.c empties what the call may touch, at a cost set by the
 * program, not by the cache:
 *  - every line of every loaded object (the tool with cyclock linked in,
 *    libc, ld.so, whose data holds libc's pointers into the vDSO, the
 *    vDSO) and of the vDSO's data page, flushed (clflushopt): out of
 *    every level, the last one included;
 *  - a buffer twice the cache below the last level, 8 MiB at most,
 *    written twice, one store a line, in 4 KiB pages: the L1 and L2 and
 *    the first-level data TLB hold other data, as after real work;
 *  - one read of each page of a span never written (16,384 pages, all
 *    the kernel's zero page): the second-level TLB holds other pages.
 * What no flush reaches is the page tables' own lines, which stay in the
 * last level: a cold call's page walk finds them there, where the full
 * sweep sent it to memory, so its figures are lower by about one walk
 * from memory per page the call touches (docs/scenarios/cold.md has both).
 * Without a flush a user may issue (anything but x86-64 here), evict.c
 * falls back to the sweep, capped at 64 MiB.  Then time one call between
 * two fenced counter reads and subtract what the bracket costs around an
 * empty function.
 *
 * On x86-64 the call goes through a retpoline, so that the front end
 * cannot fetch the clock's code ahead of the first counter read: an lfence
 * stops execution, not fetch, and while the eviction's stores drain, a
 * predicted call would otherwise bring the whole of a small function in
 * before the bracket opens (the floors then looked warm).
 *
 * The clocks take turns sample by sample, so each sees the same stretch
 * of this shared machine.  An eviction costs about half a millisecond
 * here, whatever the clock: the default count is therefore also bounded
 * by a time budget, so that a run over every clock stays within a minute
 * (under two seconds with --quick); --repetitions asks for an exact count
 * and gets it.
 */
#define _GNU_SOURCE
#include <stdatomic.h>
#include <stdlib.h>

#include "bench.h"
#include "bracket.h"
#include "evict.h"

#define COLD_SAMPLES 1000
#define COLD_SAMPLES_QUICK 100
#define COLD_BUDGET_NS 40e9      /* default samples stop here ... */
#define COLD_BUDGET_NS_QUICK 1.7e9
#define COLD_MIN_SAMPLES 5       /* ... but not before this many */
#define COLD_LINE 64

struct cold {
	struct bench_evict evict;
	struct bench_bracket bracket;
	double *samples;             /* [clock][sample], ns */
	int max_samples;
};

/* A program's stack top is always in its caches: bring ours back after
 * the eviction, so that the clock's locals do not count as its misses. */
__attribute__((noinline)) static void warm_stack(void)
{
	volatile unsigned char pad[4096];

	for (size_t i = 0; i < sizeof(pad); i += COLD_LINE)
		pad[i] = 0;
}

/* The eviction (evict.c), then the stack and the bracket's own code come
 * back, as they are warm in a program (the empty bracket was timed warm). */
static void evict(const struct cold *k, unsigned int round)
{
	bench_evict_run(&k->evict, round);
	warm_stack();
	bench_bracket_warm(&k->bracket);
	/* Pairs with nothing: it drains the store buffer, so that the timed
	 * call does not wait behind the eviction's missing stores. */
	atomic_thread_fence(memory_order_seq_cst);
}

/*
 * Samples round by round, each round one cold call of every clock (the
 * first clock rotating), until @k->max_samples or, for a default count,
 * the time budget.  Returns the samples each clock got.
 */
static int take_samples(const struct bench_opts *o, struct cold *k)
{
	double budget = o->quick ? COLD_BUDGET_NS_QUICK : COLD_BUDGET_NS;
	uint64_t start = bench_now_ns();
	size_t n = o->n_clocks;
	int r;

	for (r = 0; r < k->max_samples; r++) {
		if (o->repetitions <= 0 && r >= COLD_MIN_SAMPLES &&
		    (double)(bench_now_ns() - start) > budget)
			break;
		if (r % 10 == 0)
			bench_progress(o, "cold: round %d/%d of %zu clock%s", r + 1,
				       k->max_samples, n, n == 1 ? "" : "s");
		for (size_t j = 0; j < n; j++) {
			size_t c = (j + (size_t)r) % n;

			evict(k, (unsigned int)r);
			k->samples[c * (size_t)k->max_samples + (size_t)r] =
				bench_bracket_time(&k->bracket, o->clocks[c]->read);
		}
	}
	bench_progress_done(o);
	return r;
}

static int add_results(const struct bench_opts *o, struct bench_run *run,
		       const struct cold *k, int got)
{
	for (size_t c = 0; c < o->n_clocks; c++) {
		struct bench_result *r =
			bench_run_add(run, "cold", o->clocks[c]->name, NULL, 0, 1,
				      k->samples + c * (size_t)k->max_samples, (size_t)got, 0);

		if (!r)
			return -1;
		bench_result_extra(r, "bracket_ns", bench_bracket_empty_ns(&k->bracket));
		bench_result_extra(r, "evict_bytes", (double)k->evict.buf_len);
		bench_result_extra(r, "flush_bytes", (double)k->evict.flush_bytes);
	}
	return 0;
}

int bench_cold(const struct bench_opts *o, struct bench_run *run)
{
	struct cold k = { .max_samples = bench_reps(o, COLD_SAMPLES, COLD_SAMPLES_QUICK) };
	struct bench_affinity saved;
	int rc, got;

	if (o->n_clocks == 0)
		return 0;
	k.samples = calloc(o->n_clocks * (size_t)k.max_samples, sizeof(double));
	if (!k.samples) {
		bench_error("cold: out of memory");
		return -1;
	}
	if (bench_evict_init(&k.evict, o->mid_bytes, o->llc_bytes) != 0) {
		free(k.samples);
		return -1;
	}
	bench_pin_here(&saved);
	/* One call each first: a first call may bind a symbol, initialise
	 * cyclock or start a thread, none of which a cold call repeats. */
	for (size_t i = 0; i < o->n_clocks; i++)
		bench_sink = o->clocks[i]->read();
	bench_bracket_init(&k.bracket);
	got = take_samples(o, &k);
	bench_unpin(&saved);
	rc = add_results(o, run, &k, got);
	bench_evict_free(&k.evict);
	free(k.samples);
	return rc;
}
