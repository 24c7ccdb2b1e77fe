/* SPDX-License-Identifier: MIT */
/*
 * What the files of clocks/ share, and no one else: the macros that turn
 * a clock's expression into a reading function and two timed loops, and
 * the functions of the clocks that clocks.c's table lists but other files
 * define.
 *
 * Latency loops fence after every read (lfence on x86, isb on arm64): the
 * next read starts only when this one's result is ready, as when a program
 * needs each timestamp before going on.  Throughput loops let reads
 * overlap, as a loop that only stores timestamps does.
 */
#ifndef CYCLOCK_BENCH_CLOCKS_LOOPS_H
#define CYCLOCK_BENCH_CLOCKS_LOOPS_H

#include <stdint.h>

#include "bench.h"

#if defined(__x86_64__) || defined(__i386__)
#define SERIALIZE() __asm__ __volatile__("lfence" ::: "memory")
#elif defined(__aarch64__)
#define SERIALIZE() __asm__ __volatile__("isb" ::: "memory")
#else
#define SERIALIZE() __atomic_thread_fence(__ATOMIC_SEQ_CST)
#endif

/* The two timed loops of @expr, TP and LAT, with storage class @storage
 * (static, or empty for a clock another file's table lists), after
 * @setup (declarations the loops may use, run before the stopwatch
 * starts; may be empty). */
#define BENCH__LOOPS(storage, tp, lat, setup, expr)                          \
	storage double tp(long calls)                                        \
	{                                                                    \
		setup                                                        \
		uint64_t acc = 0, t0 = bench_now_ns();                       \
		for (long i = 0; i < calls; i++)                             \
			acc += (expr);                                       \
		uint64_t t1 = bench_now_ns();                                \
		bench_sink = acc;                                            \
		return (double)(t1 - t0) / (double)calls;                    \
	}                                                                    \
	storage double lat(long calls)                                       \
	{                                                                    \
		setup                                                        \
		uint64_t acc = 0, t0 = bench_now_ns();                       \
		for (long i = 0; i < calls; i++) {                           \
			acc += (expr);                                       \
			SERIALIZE();                                         \
		}                                                            \
		uint64_t t1 = bench_now_ns();                                \
		bench_sink = acc;                                            \
		return (double)(t1 - t0) / (double)calls;                    \
	}

/* The two loops tp_ID and lat_ID of this file. */
#define DEFINE_LOOPS(id, setup, expr) BENCH__LOOPS(static, tp_##id, lat_##id, setup, expr)

/* read_ID, one reading, and the two loops, for this file's table. */
#define DEFINE_CLOCK(id, expr)                                               \
	static uint64_t read_##id(void) { return (expr); }                  \
	DEFINE_LOOPS(id, , expr)

/*
 * A clock defined in one file of clocks/ and listed in clocks.c's table:
 * bench__read_ID, bench__tp_ID and bench__lat_ID.  inline.c needs a file
 * of its own (CYCLOCK_INLINE changes what cyclock.h declares), engine.c
 * and ordered_ns.c keep state of their own.  @setup runs before the
 * reading too.
 */
#define DECLARE_SHARED_CLOCK(id)                                             \
	uint64_t bench__read_##id(void);                                     \
	double bench__tp_##id(long calls);                                   \
	double bench__lat_##id(long calls);
#define DEFINE_SHARED_CLOCK(id, setup, expr)                                 \
	uint64_t bench__read_##id(void)                                      \
	{                                                                    \
		setup                                                        \
		return (expr);                                               \
	}                                                                    \
	BENCH__LOOPS(, bench__tp_##id, bench__lat_##id, setup, expr)

/* inline.c: the CYCLOCK_INLINE forms of cyclock.h's readers. */
DECLARE_SHARED_CLOCK(cyclock_now_inline)
DECLARE_SHARED_CLOCK(cyclock_now_relaxed_inline)
DECLARE_SHARED_CLOCK(cyclock_raw_inline)
DECLARE_SHARED_CLOCK(cyclock_realtime_inline)
DECLARE_SHARED_CLOCK(cyclock_boottime_inline)
DECLARE_SHARED_CLOCK(cyclock_coarse_inline)
DECLARE_SHARED_CLOCK(cyclock_local_inline)
/* engine.c: the engine's reader and its per-CPU clock, on a struct cyclock of its own. */
DECLARE_SHARED_CLOCK(engine_read)
DECLARE_SHARED_CLOCK(engine_read_inline)
DECLARE_SHARED_CLOCK(engine_percpu)
DECLARE_SHARED_CLOCK(engine_percpu_unstable)
/* ordered_ns.c: the floor ordered_ns. */
DECLARE_SHARED_CLOCK(ordered_ns)
/* preload.c: the preload's clock_gettime(). */
DECLARE_SHARED_CLOCK(preload_monotonic)

#endif /* CYCLOCK_BENCH_CLOCKS_LOOPS_H */
