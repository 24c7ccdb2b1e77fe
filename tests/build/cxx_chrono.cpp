// cyclock.hpp's std::chrono clocks, as a C++ program uses them: built as
// C++11 and C++20 by every C++ compiler present (cxx_chrono.sh) and run.
// Behaviour only, never speed: chrono arithmetic on their durations,
// monotonic across threads, agreement with the std and kernel clocks each
// follows within a generous bound, sleep_until() and wait_until() waking no
// earlier than their deadline by the same clock, to_time_t()/from_time_t()
// and to_sys()/from_sys() round trips.
#include <cyclock.hpp>

#include <time.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <mutex>
#include <thread>
#include <type_traits>
#include <vector>

using namespace std::chrono;
namespace cc = cyclock_chrono;

namespace {

int failures;

void check(bool ok, const char *what, long long got = 0)
{
	if (!ok) {
		std::fprintf(stderr, "cxx_chrono: FAIL: %s (got %lld)\n", what, got);
		failures++;
	}
}

// Generous: the clocks agree within microseconds; this only has to catch a
// wrong zero or unit, on a loaded machine.
const nanoseconds agree = milliseconds(50);

std::int64_t kernel_ns(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return static_cast<std::int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

// @Clock's reading, taken between two readings of a reference on the same
// zero, lies within @agree of them.
template <class Clock, class Ref>
void check_agrees(const char *what, Ref ref)
{
	std::int64_t a = ref();
	std::int64_t c = duration_cast<nanoseconds>(Clock::now().time_since_epoch()).count();
	std::int64_t b = ref();
	check(c >= a - agree.count() && c <= b + agree.count(), what,
	      c < a ? c - a : c - b);
}

void test_types()
{
	static_assert(std::is_same<cc::steady_clock::duration, nanoseconds>::value,
		      "duration is std::chrono::nanoseconds");
	static_assert(std::is_same<cc::steady_clock::time_point::clock, cc::steady_clock>::value,
		      "a time point of its own clock");
	static_assert(cc::steady_clock::is_steady && !cc::system_clock::is_steady,
		      "steady, and the wall clock not");
#if __cplusplus >= 202002L
	static_assert(is_clock_v<cc::steady_clock> && is_clock_v<cc::system_clock> &&
			      is_clock_v<cc::raw_clock> && is_clock_v<cc::boot_clock> &&
			      is_clock_v<cc::coarse_clock>,
		      "std::chrono::is_clock_v");
#endif
	// Durations and arithmetic.
	cc::steady_clock::time_point t0 = cc::steady_clock::now();
	cc::steady_clock::time_point t1 = t0 + milliseconds(3);
	check(t1 - t0 == microseconds(3000), "t0 + 3 ms - t0 is 3000 us");
	check(duration_cast<milliseconds>(t1 - t0).count() == 3, "duration_cast to ms");
	check(time_point_cast<microseconds>(t1).time_since_epoch().count() ==
		      t1.time_since_epoch().count() / 1000,
	      "time_point_cast to us");
	check(t0 < t1 && t1 - milliseconds(3) == t0, "time point comparison");
	check(t0.time_since_epoch().count() > 0, "steady_clock reads past its zero",
	      t0.time_since_epoch().count());
	cc::steady_clock::time_point t2 = cc::steady_clock::now();
	check(t2 >= t0, "steady_clock went back", (t2 - t0).count());
}

// A reading taken after acquiring a lock is never less than one taken
// before its release, on any thread.
template <class Clock>
void test_monotonic_threads(const char *what)
{
	std::mutex m;
	typename Clock::time_point last = Clock::now();
	long backwards = 0;
	auto run = [&] {
		for (int i = 0; i < 100000; i++) {
			std::lock_guard<std::mutex> g(m);
			typename Clock::time_point t = Clock::now();
			if (t < last)
				backwards++;
			last = t;
		}
	};
	std::vector<std::thread> threads;
	for (int i = 0; i < 3; i++)
		threads.emplace_back(run);
	for (auto &t : threads)
		t.join();
	check(backwards == 0, what, backwards);
}

template <class StdClock>
std::int64_t std_ns()
{
	return static_cast<std::int64_t>(
		duration_cast<nanoseconds>(StdClock::now().time_since_epoch()).count());
}

void test_agreement()
{
	check_agrees<cc::steady_clock>("steady_clock within 50 ms of std::chrono::steady_clock",
				       std_ns<std::chrono::steady_clock>);
	check_agrees<cc::steady_clock>("steady_clock within 50 ms of CLOCK_MONOTONIC",
				       [] { return kernel_ns(CLOCK_MONOTONIC); });
	check_agrees<cc::system_clock>("system_clock within 50 ms of std::chrono::system_clock",
				       std_ns<std::chrono::system_clock>);
	check_agrees<cc::raw_clock>("raw_clock within 50 ms of CLOCK_MONOTONIC_RAW",
				    [] { return kernel_ns(CLOCK_MONOTONIC_RAW); });
	check_agrees<cc::boot_clock>("boot_clock within 50 ms of CLOCK_BOOTTIME",
				     [] { return kernel_ns(CLOCK_BOOTTIME); });
	// The coarse clock is behind steady_clock by up to a tick, never ahead.
	cc::coarse_clock::time_point c = cc::coarse_clock::now();
	cc::steady_clock::time_point s = cc::steady_clock::now();
	std::int64_t behind = (s.time_since_epoch() - c.time_since_epoch()).count();
	check(behind >= 0 && behind < agree.count(),
	      "coarse_clock at most 50 ms behind steady_clock, never ahead", behind);
}

// Wakes no earlier than the deadline by the same clock.
template <class Clock>
void test_sleep_until(const char *what)
{
	for (int i = 0; i < 3; i++) {
		typename Clock::time_point deadline = Clock::now() + milliseconds(2);
		std::this_thread::sleep_until(deadline);
		typename Clock::time_point woke = Clock::now();
		check(woke >= deadline, what, (woke - deadline).count());
	}
}

// Times out no earlier than the deadline by the same clock.
template <class Clock>
void test_wait_until(const char *what)
{
	std::mutex m;
	std::condition_variable cv;
	std::unique_lock<std::mutex> lk(m);
	typename Clock::time_point deadline = Clock::now() + milliseconds(2);
	while (cv.wait_until(lk, deadline) != std::cv_status::timeout) {
		// A spurious wakeup: wait again.
	}
	typename Clock::time_point woke = Clock::now();
	check(woke >= deadline, what, (woke - deadline).count());

	deadline = Clock::now() + milliseconds(2);
	bool got = cv.wait_until(lk, deadline, [] { return false; });
	woke = Clock::now();
	check(!got && woke >= deadline, what, (woke - deadline).count());
}

void test_time_t()
{
	typedef cc::system_clock sc;
	const std::time_t some[] = {0, 1, 1700000000, -1};
	for (std::time_t t : some)
		check(sc::to_time_t(sc::from_time_t(t)) == t, "from_time_t then to_time_t",
		      static_cast<long long>(t));
	check(sc::from_time_t(1).time_since_epoch() == seconds(1), "from_time_t(1) is 1 s");

	std::time_t before = std::time(nullptr);
	std::time_t now = sc::to_time_t(sc::now());
	std::time_t after = std::time(nullptr);
	check(now >= before - 1 && now <= after + 1, "to_time_t(now()) is time()",
	      static_cast<long long>(now - before));

	// The same instant as std::chrono::system_clock, both ways.
	sc::time_point t = sc::now();
	auto sys = sc::to_sys(t);
	static_assert(std::is_same<decltype(sys)::clock, std::chrono::system_clock>::value,
		      "to_sys gives a std::chrono::system_clock time point");
	check(sc::from_sys(sys) == t, "to_sys then from_sys");
	check(std::chrono::system_clock::to_time_t(
		      time_point_cast<std::chrono::system_clock::duration>(sys)) ==
		      sc::to_time_t(t),
	      "std::chrono::system_clock::to_time_t(to_sys(t)) is to_time_t(t)");
#if defined(__cpp_lib_chrono) && __cpp_lib_chrono >= 201907L
	check(clock_cast<std::chrono::system_clock>(t) == sys, "std::chrono::clock_cast");
#endif
}

} // namespace

int main()
{
	test_types();
	test_monotonic_threads<cc::steady_clock>("steady_clock went back across threads");
	test_monotonic_threads<cc::raw_clock>("raw_clock went back across threads");
	test_monotonic_threads<cc::boot_clock>("boot_clock went back across threads");
	test_monotonic_threads<cc::coarse_clock>("coarse_clock went back across threads");
	test_agreement();
	test_sleep_until<cc::steady_clock>("sleep_until(steady_clock) woke before its deadline");
	test_sleep_until<cc::system_clock>("sleep_until(system_clock) woke before its deadline");
	test_wait_until<cc::steady_clock>("wait_until(steady_clock) timed out before its deadline");
	test_wait_until<cc::system_clock>("wait_until(system_clock) timed out before its deadline");
	test_time_t();
	if (failures)
		return 1;
	std::printf("cxx_chrono: ok (C++ %ld)\n", static_cast<long>(__cplusplus));
	return 0;
}
