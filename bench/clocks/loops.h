/* SPDX-License-Identifier: MIT */
/*
 * What clocks.c and ordered_ns.c share, and no one else: the macros that
 * turn a clock's expression into a reading function and two timed loops,
 * and ordered_ns's functions, which clocks.c's table lists.
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

/* The two timed loops of @expr, tp_ID and lat_ID, after @setup
 * (declarations the loops may use, run before the stopwatch starts; may
 * be empty). */
#define DEFINE_LOOPS(id, setup, expr)                                        \
	static double tp_##id(long calls)                                    \
	{                                                                    \
		setup                                                        \
		uint64_t acc = 0, t0 = bench_now_ns();                       \
		for (long i = 0; i < calls; i++)                             \
			acc += (expr);                                       \
		uint64_t t1 = bench_now_ns();                                \
		bench_sink = acc;                                            \
		return (double)(t1 - t0) / (double)calls;                    \
	}                                                                    \
	static double lat_##id(long calls)                                   \
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

/* read_ID, one reading, and the two loops. */
#define DEFINE_CLOCK(id, expr)                                               \
	static uint64_t read_##id(void) { return (expr); }                  \
	DEFINE_LOOPS(id, , expr)

/* ordered_ns.c: the clock ordered_ns's reading function and loops. */
uint64_t bench__ordered_ns_read(void);
double bench__ordered_ns_throughput(long calls);
double bench__ordered_ns_latency(long calls);

#endif /* CYCLOCK_BENCH_CLOCKS_LOOPS_H */
