// SPDX-License-Identifier: MIT
/*
 * cyclock.hpp's clocks as the tool times them: cxx_steady_clock and
 * cxx_system_clock, a C++ program's cyclock_chrono::steady_clock::now()
 * and system_clock::now(), beside cyclock_now and cyclock_realtime (one
 * call of the same C function each, so they should cost the same).
 *
 * Built only where CMake finds a C++ compiler (bench/CMakeLists.txt),
 * which defines CYCLOCK_BENCH_CXX for clocks.c's table.  bench.h and
 * loops.h are C (_Thread_local, designated initialisers), so this file
 * declares the three functions clocks.c's SHARED_ENTRY() expects with C
 * linkage itself, and its loops are loops.h's BENCH__LOOPS written out in
 * C++: the same loop bodies, the same fence, the same stopwatch.
 */
#include <cyclock.hpp>

#include <cstdint>

extern "C" {
std::uint64_t bench_now_ns(void); // bench.h

std::uint64_t bench__read_cxx_steady_clock(void);
double bench__tp_cxx_steady_clock(long calls);
double bench__lat_cxx_steady_clock(long calls);
std::uint64_t bench__read_cxx_system_clock(void);
double bench__tp_cxx_system_clock(long calls);
double bench__lat_cxx_system_clock(long calls);
}

namespace {

// Keeps each loop's sum alive, as loops.h's bench_sink does.
thread_local volatile std::uint64_t sink;

inline void serialize()
{
#if defined(__x86_64__) || defined(__i386__)
	__asm__ __volatile__("lfence" ::: "memory");
#elif defined(__aarch64__)
	__asm__ __volatile__("isb" ::: "memory");
#else
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
#endif
}

// What a program writes: the clock's now(), its count of ns.
template <class Clock>
inline std::uint64_t reading()
{
	return static_cast<std::uint64_t>(Clock::now().time_since_epoch().count());
}

// Throughput: reads may overlap.  Latency: each read finishes first.
template <class Clock, bool Serialize>
double loop(long calls)
{
	std::uint64_t acc = 0, t0 = bench_now_ns();
	for (long i = 0; i < calls; i++) {
		acc += reading<Clock>();
		if (Serialize)
			serialize();
	}
	std::uint64_t t1 = bench_now_ns();
	sink = acc;
	return static_cast<double>(t1 - t0) / static_cast<double>(calls);
}

} // namespace

std::uint64_t bench__read_cxx_steady_clock(void)
{
	return reading<cyclock_chrono::steady_clock>();
}

double bench__tp_cxx_steady_clock(long calls)
{
	return loop<cyclock_chrono::steady_clock, false>(calls);
}

double bench__lat_cxx_steady_clock(long calls)
{
	return loop<cyclock_chrono::steady_clock, true>(calls);
}

std::uint64_t bench__read_cxx_system_clock(void)
{
	return reading<cyclock_chrono::system_clock>();
}

double bench__tp_cxx_system_clock(long calls)
{
	return loop<cyclock_chrono::system_clock, false>(calls);
}

double bench__lat_cxx_system_clock(long calls)
{
	return loop<cyclock_chrono::system_clock, true>(calls);
}
