/* SPDX-License-Identifier: MIT */
/*
 * cyclock-bench-hosted: the timed loops of the CYCLOCK_INLINE readers.
 * The loop itself lives here, so that each read is inlined into it, as in
 * a program built with CYCLOCK_INLINE; a wrapper function would add the
 * very call that inlining saves.  The floors are inlined the same way.
 */
#define CYCLOCK_INLINE 1
#include <cyclock.h>

#include "hosted_bench.h"

/* Without a counter, cyclock-bench-hosted only says so (hosted_read.c). */
#if CYCLOCK_ARCH_HAS_COUNTER

BENCH_LOOP(inl_loop_rdtsc, cyclock_arch_counter())
BENCH_LOOP(inl_loop_lfence, bench_lfence_counter())
BENCH_LOOP(inl_loop_ordered, cyclock_arch_counter_ordered())
BENCH_LOOP(inl_loop_now, cyclock_now())
BENCH_LOOP(inl_loop_relaxed, cyclock_now_relaxed())
BENCH_LOOP(inl_loop_raw, cyclock_raw())
BENCH_LOOP(inl_loop_realtime, cyclock_realtime())
BENCH_LOOP(inl_loop_boottime, cyclock_boottime())
BENCH_LOOP(inl_loop_local, cyclock_local())
BENCH_LOOP(inl_loop_coarse, cyclock_coarse())

/* One cold read, inlined between the brackets: see hosted_cold.c. */
uint64_t inl_time_now(uint64_t empty)
{
	uint64_t t0 = bench_fenced_counter(), t1;

	bench_sink = cyclock_now();
	t1 = bench_fenced_counter();
	return t1 - t0 > empty ? t1 - t0 - empty : 0;
}

#endif /* CYCLOCK_ARCH_HAS_COUNTER */
