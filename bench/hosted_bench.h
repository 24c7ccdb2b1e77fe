/* SPDX-License-Identifier: MIT */
/*
 * cyclock-bench-hosted: what the parts of the benchmark share.  Each
 * scenario is one file: hosted_read.c (main, the speed table),
 * hosted_inline.c (the CYCLOCK_INLINE readers' loops), hosted_threads.c,
 * and hosted_accuracy.c.  The cold cost is the cyclock tool's cold scenario
 * (bench/cold.c).
 */
#ifndef CYCLOCK_BENCH_HOSTED_H
#define CYCLOCK_BENCH_HOSTED_H

#include <stdint.h>
#include <time.h>

#include <cyclock/arch.h>

/*
 * The floors: the bare counter read, the classic ordered read
 * (lfence;rdtsc, the kernel's rdtsc_ordered()) and the library's own
 * ordered read (rdtscp on x86-64).
 */
#if defined(__x86_64__)
#define BENCH_FLOOR "rdtsc"
#define BENCH_FLOOR_ORDERED "lfence;rdtsc"
#define BENCH_FLOOR_LIB "rdtscp"
static inline uint64_t bench_lfence_counter(void)
{
	uint32_t lo, hi;

	__asm__ __volatile__("lfence; rdtsc" : "=a"(lo), "=d"(hi) : : "memory");
	return (uint64_t)hi << 32 | lo;
}

/* A bracket for timing one call: no later instruction starts before it. */
static inline uint64_t bench_fenced_counter(void)
{
	uint32_t lo, hi;

	__asm__ __volatile__("lfence; rdtsc; lfence" : "=a"(lo), "=d"(hi) : : "memory");
	return (uint64_t)hi << 32 | lo;
}
#else
#define BENCH_FLOOR "counter"
#define BENCH_FLOOR_ORDERED "ordered counter"
#define BENCH_FLOOR_LIB "ordered counter (library)"
static inline uint64_t bench_lfence_counter(void)
{
	return cyclock_arch_counter_ordered();
}

static inline uint64_t bench_fenced_counter(void)
{
	return cyclock_arch_counter_ordered();
}
#endif

/* One timed loop of @calls back-to-back reads; returns ns per call. */
typedef double bench_loop_fn(long calls);

/* Where every loop stores its sum, so the reads cannot be optimised away. */
extern volatile uint64_t bench_sink;

/* A kernel clock in ns: what a program that does not use cyclock would
 * write, so the conversion is part of the kernel's cost as it is of ours. */
static inline uint64_t bench_kernel_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The loops' own stopwatch: the raw clock, which NTP does not slew. */
static inline uint64_t bench_ns(void)
{
	return bench_kernel_ns(CLOCK_MONOTONIC_RAW);
}

/*
 * Defines `double name(long calls)`, one timed loop of @expr.  A macro
 * rather than a loop over a function pointer, so that each read is exactly
 * what a program would write: a direct call into the library, or with
 * CYCLOCK_INLINE the reader inlined into the loop.
 */
#define BENCH_LOOP(name, expr)                                              \
	double name(long calls)                                             \
	{                                                                   \
		uint64_t acc = 0, t0 = bench_ns();                          \
                                                                            \
		for (long i = 0; i < calls; i++)                            \
			acc += (expr);                                      \
		uint64_t t1 = bench_ns();                                   \
		bench_sink = acc;                                           \
		return (double)(t1 - t0) / (double)calls;                   \
	}

/* hosted_inline.c: the same loops over the CYCLOCK_INLINE readers, with
 * floors inlined the same way. */
double inl_loop_rdtsc(long calls);
double inl_loop_lfence(long calls);
double inl_loop_ordered(long calls);
uint64_t inl_time_now(uint64_t empty);
double inl_loop_now(long calls);
double inl_loop_relaxed(long calls);
double inl_loop_raw(long calls);
double inl_loop_realtime(long calls);
double inl_loop_boottime(long calls);
double inl_loop_local(long calls);
double inl_loop_coarse(long calls);

/* hosted_read.c: statistics. */
void bench_sort_u64(uint64_t *v, long n);
/* The nearest-rank @p quantile (0 < p <= 1) of sorted @v. */
uint64_t bench_quantile(const uint64_t *v, long n, double p);
/* Counter ticks per second, measured against CLOCK_MONOTONIC_RAW. */
double bench_tsc_hz(void);

/* hosted_threads.c: @now and its floor @floor_fn on two threads at once
 * against one alone; prints the table. */
void bench_threads_report(bench_loop_fn *now, bench_loop_fn *floor_fn, long calls, int reps);

/* hosted_accuracy.c: the library's first call, bracketed, and its
 * agreement with the kernel's clocks from then on. */
struct bench_first {
	uint64_t k1, value, k2; /* CLOCK_MONOTONIC, cyclock_now(), CLOCK_MONOTONIC */
};
void bench_first_call(struct bench_first *first);
/* Samples for @seconds from @first and prints the report; 0 on success. */
int bench_accuracy(const struct bench_first *first, double seconds);

#endif /* CYCLOCK_BENCH_HOSTED_H */
