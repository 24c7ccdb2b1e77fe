/* SPDX-License-Identifier: MIT */
/*
 * Every clock the tool can time: cyclock's (their CYCLOCK_INLINE forms in
 * inline.c, cyclock.hpp's in cxx.cpp), the engine's (engine.c), the floors nothing can beat (the
 * bare counter reads, and ordered_ns, the ordered read in ns, in
 * ordered_ns.c) and the kernel's.  Each is one expression; the macros of
 * loops.h turn it into a reading function and two timed loops, so a
 * loop runs exactly what a program would write (a direct call, not a call
 * through a pointer, whose cost would be measured too).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/times.h>
#include <time.h>
#include <unistd.h>

#include <cyclock.h>
#include <cyclock/arch.h>
#include <cyclock/timeline.h>

#include "bench.h"
#include "loops.h"

#ifdef CYCLOCK_BENCH_CXX
/* cxx.cpp: cyclock.hpp's clocks, where CMake found a C++ compiler. */
DECLARE_SHARED_CLOCK(cxx_steady_clock)
DECLARE_SHARED_CLOCK(cxx_system_clock)
#endif

/* ---- the kernel's clocks, converted to ns as a program would ---- */
static inline uint64_t k_syscall_monotonic(void)
{
	struct timespec ts;

	syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &ts);
	return bench_ts_ns(&ts);
}

static inline uint64_t k_gettimeofday(void)
{
	struct timeval tv;

	gettimeofday(&tv, NULL);
	return (uint64_t)tv.tv_sec * 1000000000u + (uint64_t)tv.tv_usec * 1000u;
}

/* times()'s return value: elapsed ticks of sysconf(_SC_CLK_TCK) per second. */
static uint64_t ns_per_clk_tck = 10000000;

static inline uint64_t k_times(void)
{
	struct tms t;

	return (uint64_t)times(&t) * ns_per_clk_tck;
}

/* ---- one reading function and two loops per clock (loops.h) ---- */
#define CLOCK_ENTRY(id, group, flags, follows, what)                           \
	{ #id, BENCH_GROUP_##group, flags, follows, what, read_##id, tp_##id, lat_##id, \
	  (clockid_t)-1 }
/* A clock another file of clocks/ defines (loops.h). */
#define SHARED_ENTRY(id, group, flags, follows, what)                          \
	{ #id, BENCH_GROUP_##group, flags, follows, what,                      \
	  bench__read_##id, bench__tp_##id, bench__lat_##id, (clockid_t)-1 }
/* A clock_gettime() clock, @clk its id. */
#define KERNEL_ENTRY(id, clk, flags, what)                                     \
	{ #id, BENCH_GROUP_KERNEL, flags, NULL, what, read_##id, tp_##id, lat_##id, clk }

DEFINE_CLOCK(cyclock_now, cyclock_now())
DEFINE_CLOCK(cyclock_now_relaxed, cyclock_now_relaxed())
DEFINE_CLOCK(cyclock_raw, cyclock_raw())
DEFINE_CLOCK(cyclock_realtime, cyclock_realtime())
DEFINE_CLOCK(cyclock_boottime, cyclock_boottime())
DEFINE_CLOCK(cyclock_coarse, cyclock_coarse())
DEFINE_CLOCK(cyclock_local, cyclock_local())
DEFINE_CLOCK(cyclock_cycles, cyclock_cycles())
/* The floors are arch/'s reads, where arch.h chose x86_64.h or arm64.h
 * (each names its reads for #if; a CYCLOCK_ARCH_GENERIC or CYCLOCK_SIM
 * build has none).  A constant how folds the branch in
 * cyclock_arch_counter_ordered_how(), so each loop runs one instruction. */
#if defined(CYCLOCK_ARCH_X86_RDTSCP)
DEFINE_CLOCK(rdtsc, cyclock_arch_counter())
DEFINE_CLOCK(rdtscp, cyclock_arch_counter_ordered_how(CYCLOCK_ARCH_X86_RDTSCP))
DEFINE_CLOCK(lfence_rdtsc, cyclock_arch_counter_ordered_how(CYCLOCK_ARCH_X86_LFENCE_RDTSC))
#elif defined(CYCLOCK_ARCH_ARM64_CNTVCT)
DEFINE_CLOCK(cntvct, cyclock_arch_counter())
DEFINE_CLOCK(isb_cntvct, cyclock_arch_counter_ordered())
#endif
DEFINE_CLOCK(monotonic, bench_kernel_ns(CLOCK_MONOTONIC))
DEFINE_CLOCK(monotonic_raw, bench_kernel_ns(CLOCK_MONOTONIC_RAW))
DEFINE_CLOCK(realtime, bench_kernel_ns(CLOCK_REALTIME))
DEFINE_CLOCK(boottime, bench_kernel_ns(CLOCK_BOOTTIME))
DEFINE_CLOCK(monotonic_coarse, bench_kernel_ns(CLOCK_MONOTONIC_COARSE))
DEFINE_CLOCK(realtime_coarse, bench_kernel_ns(CLOCK_REALTIME_COARSE))
DEFINE_CLOCK(thread_cputime, bench_kernel_ns(CLOCK_THREAD_CPUTIME_ID))
DEFINE_CLOCK(process_cputime, bench_kernel_ns(CLOCK_PROCESS_CPUTIME_ID))
DEFINE_CLOCK(times, k_times())
DEFINE_CLOCK(gettimeofday, k_gettimeofday())
DEFINE_CLOCK(syscall_monotonic, k_syscall_monotonic())

#define ORD BENCH_CLOCK_ORDERED
static const struct bench_clock clocks[] = {
	CLOCK_ENTRY(cyclock_now, CYCLOCK, ORD, "monotonic",
		    "CLOCK_MONOTONIC from the counter, ordered"),
	SHARED_ENTRY(cyclock_now_inline, CYCLOCK, ORD, "monotonic",
		     "cyclock_now() inlined (CYCLOCK_INLINE): the same reader, no call"),
	CLOCK_ENTRY(cyclock_now_relaxed, CYCLOCK, 0, "monotonic",
		    "cyclock_now() unordered: monotonic per thread only"),
	CLOCK_ENTRY(cyclock_raw, CYCLOCK, ORD, "monotonic_raw", "CLOCK_MONOTONIC_RAW"),
	CLOCK_ENTRY(cyclock_realtime, CYCLOCK, ORD | BENCH_CLOCK_WALL, "realtime",
		    "CLOCK_REALTIME"),
	CLOCK_ENTRY(cyclock_boottime, CYCLOCK, ORD, "boottime", "CLOCK_BOOTTIME"),
	CLOCK_ENTRY(cyclock_coarse, CYCLOCK, ORD | BENCH_CLOCK_COARSE, "monotonic",
		    "the kernel's coarse clock on cyclock_now()'s timeline (no thread)"),
	CLOCK_ENTRY(cyclock_local, CYCLOCK, 0, "monotonic",
		    "the kernel's local_clock(): per CPU on an unsynchronised counter"),
	CLOCK_ENTRY(cyclock_cycles, CYCLOCK, BENCH_CLOCK_TICKS, NULL,
		    "the raw counter, unordered, to convert later (cyclock_cycles_to_ns())"),
	SHARED_ENTRY(cyclock_now_relaxed_inline, CYCLOCK, 0, "monotonic",
		     "cyclock_now_relaxed() inlined (CYCLOCK_INLINE)"),
	SHARED_ENTRY(cyclock_raw_inline, CYCLOCK, ORD, "monotonic_raw",
		     "cyclock_raw() inlined (CYCLOCK_INLINE)"),
	SHARED_ENTRY(cyclock_realtime_inline, CYCLOCK, ORD | BENCH_CLOCK_WALL, "realtime",
		     "cyclock_realtime() inlined (CYCLOCK_INLINE)"),
	SHARED_ENTRY(cyclock_boottime_inline, CYCLOCK, ORD, "boottime",
		     "cyclock_boottime() inlined (CYCLOCK_INLINE)"),
	SHARED_ENTRY(cyclock_coarse_inline, CYCLOCK, ORD | BENCH_CLOCK_COARSE, "monotonic",
		     "cyclock_coarse() inlined (CYCLOCK_INLINE)"),
	SHARED_ENTRY(cyclock_local_inline, CYCLOCK, 0, "monotonic",
		     "cyclock_local() inlined (CYCLOCK_INLINE)"),
	SHARED_ENTRY(preload_monotonic, CYCLOCK, ORD, "monotonic",
		     "clock_gettime(CLOCK_MONOTONIC) of libcyclock-preload.so, called as a "
		     "preloaded program calls it"),
#ifdef CYCLOCK_BENCH_CXX
	SHARED_ENTRY(cxx_steady_clock, CYCLOCK, ORD, "monotonic",
		     "cyclock_chrono::steady_clock::now(), cyclock.hpp: cyclock_now() from C++"),
	SHARED_ENTRY(cxx_system_clock, CYCLOCK, ORD | BENCH_CLOCK_WALL, "realtime",
		     "cyclock_chrono::system_clock::now(): cyclock_realtime() from C++"),
#endif
	SHARED_ENTRY(engine_read, ENGINE, 0, NULL,
		     "the engine's cyclock_read() over the bare counter read: a call"),
	SHARED_ENTRY(engine_read_inline, ENGINE, 0, NULL,
		     "cyclock_read_inline(): the engine's latch reader inlined"),
	SHARED_ENTRY(engine_percpu, ENGINE, 0, NULL,
		     "cyclock_percpu_read() over engine_read's clock, stable: the raw clock"),
	SHARED_ENTRY(engine_percpu_unstable, ENGINE, 0, NULL,
		     "the same, unstable: the tick's latch, the clamp and a compare-and-swap"),
#if defined(CYCLOCK_ARCH_X86_RDTSCP)
	CLOCK_ENTRY(rdtsc, FLOOR, BENCH_CLOCK_TICKS, NULL, "the bare TSC read"),
	CLOCK_ENTRY(rdtscp, FLOOR, BENCH_CLOCK_TICKS | ORD, NULL,
		    "rdtscp: waits for earlier instructions"),
	CLOCK_ENTRY(lfence_rdtsc, FLOOR, BENCH_CLOCK_TICKS | ORD, NULL,
		    "lfence;rdtsc: the kernel's rdtsc_ordered()"),
#elif defined(CYCLOCK_ARCH_ARM64_CNTVCT)
	CLOCK_ENTRY(cntvct, FLOOR, BENCH_CLOCK_TICKS, NULL, "the bare CNTVCT_EL0 read"),
	CLOCK_ENTRY(isb_cntvct, FLOOR, BENCH_CLOCK_TICKS | ORD, NULL,
		    "isb; CNTVCT_EL0 and a load that waits for it: the ordered read"),
#endif
	SHARED_ENTRY(ordered_ns, FLOOR, ORD, NULL,
		     "the ordered read cyclock chose, then a multiply, add and shift into ns: "
		     "the least an ordered ns clock can cost"),
	KERNEL_ENTRY(monotonic, CLOCK_MONOTONIC, ORD, "clock_gettime(CLOCK_MONOTONIC), the vDSO"),
	KERNEL_ENTRY(monotonic_raw, CLOCK_MONOTONIC_RAW, ORD,
		     "clock_gettime(CLOCK_MONOTONIC_RAW)"),
	KERNEL_ENTRY(realtime, CLOCK_REALTIME, ORD | BENCH_CLOCK_WALL,
		     "clock_gettime(CLOCK_REALTIME)"),
	KERNEL_ENTRY(boottime, CLOCK_BOOTTIME, ORD, "clock_gettime(CLOCK_BOOTTIME)"),
	KERNEL_ENTRY(monotonic_coarse, CLOCK_MONOTONIC_COARSE, ORD,
		     "clock_gettime(CLOCK_MONOTONIC_COARSE): the last tick"),
	KERNEL_ENTRY(realtime_coarse, CLOCK_REALTIME_COARSE, ORD | BENCH_CLOCK_WALL,
		     "clock_gettime(CLOCK_REALTIME_COARSE)"),
	KERNEL_ENTRY(thread_cputime, CLOCK_THREAD_CPUTIME_ID,
		     BENCH_CLOCK_CPUTIME | BENCH_CLOCK_PER_THREAD | BENCH_CLOCK_SYSCALL,
		     "clock_gettime(CLOCK_THREAD_CPUTIME_ID)"),
	KERNEL_ENTRY(process_cputime, CLOCK_PROCESS_CPUTIME_ID,
		     BENCH_CLOCK_CPUTIME | BENCH_CLOCK_SYSCALL,
		     "clock_gettime(CLOCK_PROCESS_CPUTIME_ID): sums every thread"),
	CLOCK_ENTRY(times, KERNEL, ORD | BENCH_CLOCK_SYSCALL, NULL,
		    "times(): elapsed clock ticks (sysconf(_SC_CLK_TCK))"),
	CLOCK_ENTRY(gettimeofday, KERNEL, ORD | BENCH_CLOCK_WALL, NULL,
		    "gettimeofday(): microseconds"),
	KERNEL_ENTRY(syscall_monotonic, CLOCK_MONOTONIC, ORD | BENCH_CLOCK_SYSCALL,
		     "CLOCK_MONOTONIC through a real system call"),
};
#undef ORD

static void find_clk_tck(void)
{
	long tck = sysconf(_SC_CLK_TCK);

	if (tck > 0)
		ns_per_clk_tck = 1000000000u / (uint64_t)tck;
}

const struct bench_clock *bench_clocks(size_t *n)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, find_clk_tck);
	*n = sizeof(clocks) / sizeof(clocks[0]);
	return clocks;
}

const struct bench_clock *bench_clock_find(const char *name)
{
	size_t n;
	const struct bench_clock *c = bench_clocks(&n);

	for (size_t i = 0; i < n; i++)
		if (strcmp(c[i].name, name) == 0)
			return &c[i];
	return NULL;
}

bool bench_clock_available(const struct bench_clock *c)
{
	struct timespec ts;

#if defined(CYCLOCK_ARCH_X86_RDTSCP)
	const char *why;

	if (strcmp(c->name, "rdtscp") == 0)
		return cyclock_arch_ordered_works(CYCLOCK_ARCH_X86_RDTSCP, &why);
#endif
	if (strcmp(c->name, "ordered_ns") == 0 || c->group == BENCH_GROUP_ENGINE)
		return cyclock_arch_counter_usable();
	if (strcmp(c->name, "preload_monotonic") == 0)
		return bench_preload_available();
	if (c->kernel_id != (clockid_t)-1)
		return clock_gettime(c->kernel_id, &ts) == 0;
	return true;
}

double bench_clock_ns(const struct bench_clock *c, double delta)
{
	double hz;

	if (!(c->flags & BENCH_CLOCK_TICKS))
		return delta;
	hz = bench_counter_hz();
	return hz > 0 ? delta * 1e9 / hz : delta;
}

const char *bench_floor_ordered(void)
{
	return cyclock_arch_counter_usable() ? "ordered_ns" : NULL;
}

const char *bench_floor_plain(void)
{
	return "monotonic";
}
