// SPDX-License-Identifier: MIT
//
// gbench_clocks: the clocks of "cyclock bench warm" timed by Google
// Benchmark, an independent harness, for scripts/crosscheck.sh.  Each
// benchmark is the loop a program would write: one reading per iteration,
// kept alive with DoNotOptimize() and nothing else, so that reads may
// overlap as in cyclock's "throughput" variant.  Google Benchmark picks
// the iteration count and times the loop with its own clock; its
// per-iteration time includes the loop's few instructions, as cyclock's
// does.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <ctime>

#include <cyclock.h>
#include <cyclock/arch.h>

namespace {

// The counter reads are arch/'s, as cyclock's clocks of the same names
// are (bench/clocks/clocks.c).
#if defined(CYCLOCK_ARCH_X86_RDTSCP)
inline uint64_t counter_read()
{
	return cyclock_arch_counter();
}

// The kernel's rdtsc_ordered(): arch/x86_64.h's lfence;rdtsc, by its
// constant "how", so that only that one is read.
inline uint64_t counter_read_ordered()
{
	return cyclock_arch_counter_ordered_how(CYCLOCK_ARCH_X86_LFENCE_RDTSC);
}
#define COUNTER_NAMES "rdtsc", "lfence_rdtsc"
#elif defined(CYCLOCK_ARCH_ARM64_CNTVCT)
inline uint64_t counter_read()
{
	return cyclock_arch_counter();
}

inline uint64_t counter_read_ordered()
{
	return cyclock_arch_counter_ordered();
}
#define COUNTER_NAMES "cntvct", "isb_cntvct"
#endif

void monotonic(benchmark::State &state)
{
	struct timespec ts;

	for (auto _ : state) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		benchmark::DoNotOptimize(ts);
	}
}

void cyclock_now(benchmark::State &state)
{
	for (auto _ : state)
		benchmark::DoNotOptimize(::cyclock_now());
}

#if defined(COUNTER_NAMES)
void counter(benchmark::State &state)
{
	for (auto _ : state)
		benchmark::DoNotOptimize(counter_read());
}

void counter_ordered(benchmark::State &state)
{
	for (auto _ : state)
		benchmark::DoNotOptimize(counter_read_ordered());
}
#endif

// Names as cyclock's clocks are called, so that the script can match them.
void register_all()
{
	benchmark::RegisterBenchmark("monotonic", monotonic);
	benchmark::RegisterBenchmark("cyclock_now", cyclock_now);
#if defined(COUNTER_NAMES)
	const char *names[] = { COUNTER_NAMES };

	benchmark::RegisterBenchmark(names[0], counter);
	benchmark::RegisterBenchmark(names[1], counter_ordered);
#endif
}

} // namespace

int main(int argc, char **argv)
{
	// The first call initialises cyclock (frequency, checks); it must not
	// fall inside a timed loop.
	benchmark::DoNotOptimize(::cyclock_now());
	register_all();
	benchmark::Initialize(&argc, argv);
	if (benchmark::ReportUnrecognizedArguments(argc, argv))
		return 1;
	benchmark::RunSpecifiedBenchmarks();
	benchmark::Shutdown();
	return 0;
}
