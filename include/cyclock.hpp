// SPDX-License-Identifier: MIT
/*
 * cyclock's hosted clocks as std::chrono clocks, for C++11 and later.
 * Header-only: each now() is one call of the C function of cyclock.h
 * (link -lcyclock as for C), inline, so it costs what that call costs.
 *
 *   #include <cyclock.hpp>
 *   auto t0 = cyclock_chrono::steady_clock::now();
 *   do_work();
 *   auto us = std::chrono::duration_cast<std::chrono::microseconds>(
 *           cyclock_chrono::steady_clock::now() - t0);
 *
 * The namespace is cyclock_chrono, not cyclock: the engine's struct
 * cyclock (cyclock/core.h) is a class name at global scope in C++, and a
 * namespace may not share its name (g++: "redeclared as different kind of
 * entity").  The cyclock_ prefix is the library's own, so the name takes
 * nothing from the program.
 *
 * Every clock is a TrivialClock ([time.clock.req], checked below as far as
 * a compiler can): rep std::int64_t, period std::nano, duration
 * std::chrono::nanoseconds, a time_point of its own, now() noexcept.
 * Values are cyclock's, ns on the zero of the kernel clock each follows
 * (the C functions' uint64_t; 2^63 ns is 292 years, so the signed rep
 * holds them).  Like the C functions, now() is thread-safe, fork-safe,
 * async-signal-safe and never blocks; the first call initialises the
 * library (cyclock_init()).
 *
 *   steady_clock  cyclock_now(): CLOCK_MONOTONIC, monotonic across threads;
 *                 is_steady.  The kernel clock std::chrono::steady_clock
 *                 reads on Linux (libstdc++: tests/build/cxx_chrono.cpp
 *                 checks it; libc++ too, by its source), so there
 *                 time_since_epoch() of either is on the same zero; the
 *                 two time_point types stay distinct all the same.
 *   system_clock  cyclock_realtime(): CLOCK_REALTIME, which
 *                 std::chrono::system_clock reads: Unix time.  Steps when
 *                 the system clock is set, so not is_steady.  to_time_t(),
 *                 from_time_t(), and to_sys()/from_sys() to and from
 *                 std::chrono::system_clock time points (the names
 *                 C++20's std::chrono::clock_cast looks for).
 *   raw_clock     cyclock_raw(): CLOCK_MONOTONIC_RAW, never slewed by NTP;
 *                 is_steady.  No std clock reads it.
 *   boot_clock    cyclock_boottime(): CLOCK_BOOTTIME, counts time
 *                 suspended; is_steady.  No std clock reads it.
 *   coarse_clock  cyclock_coarse(): steady_clock's timeline at the kernel's
 *                 tick, never ahead of it and monotonic across threads, so
 *                 is_steady; its period says ns, but it moves in steps of a
 *                 tick (4 ms here), or of the ticker's period after
 *                 cyclock_init(CYCLOCK_INIT_COARSE).
 *
 * Waiting: std::this_thread::sleep_until() and
 * std::condition_variable::wait_until() take these time points.  For a
 * clock that is_steady, libstdc++'s sleep_until() sleeps once for the
 * difference, by the kernel's CLOCK_MONOTONIC, so it wakes no earlier than
 * the deadline by this clock within the clock's agreement with the
 * kernel's (docs/hosted.md); wait_until() waits on its own clock, then
 * reports a timeout only once now() has reached the deadline.
 */
#ifndef CYCLOCK_HPP
#define CYCLOCK_HPP

#include <chrono>
#include <cstdint>
#include <ctime>
#include <ratio>
#include <type_traits>

#include "cyclock.h"

namespace cyclock_chrono {

namespace detail {

// The common part of every clock: the types, and now() from @Read, a C
// function of cyclock.h.  @Clock is the clock itself (its time_point's
// clock), @Steady its is_steady.
template <class Clock, std::uint64_t (*Read)(void), bool Steady>
struct clock_base {
	typedef std::int64_t rep;
	typedef std::nano period;
	typedef std::chrono::duration<rep, period> duration;
	typedef std::chrono::time_point<Clock, duration> time_point;
	static constexpr bool is_steady = Steady;

	// One call of @Read; never throws, never blocks.
	static time_point now() noexcept
	{
		return time_point(duration(static_cast<rep>(Read())));
	}
};

#if __cplusplus < 201703L
// Before C++17 an odr-used static constexpr member needs a definition.
template <class Clock, std::uint64_t (*Read)(void), bool Steady>
constexpr bool clock_base<Clock, Read, Steady>::is_steady;
#endif

// What [time.clock.req] asks of a TrivialClock that a compiler can check.
template <class C>
struct check_trivial_clock {
	typedef typename C::rep rep;
	typedef typename C::duration duration;
	typedef typename C::time_point time_point;
	static_assert(std::is_arithmetic<rep>::value && std::is_signed<rep>::value,
		      "rep: a signed arithmetic type");
	static_assert(C::period::num > 0 && C::period::den > 0, "period: a positive std::ratio");
	static_assert(std::is_same<duration,
				   std::chrono::duration<rep, typename C::period>>::value,
		      "duration: std::chrono::duration<rep, period>");
	static_assert(std::is_same<time_point,
				   std::chrono::time_point<C, duration>>::value,
		      "time_point: std::chrono::time_point<C, duration>");
	static_assert(std::is_same<decltype(C::is_steady), const bool>::value,
		      "is_steady: a const bool");
	static_assert(noexcept(C::now()), "now() is noexcept");
	static_assert(std::is_same<decltype(C::now()), time_point>::value,
		      "now() returns time_point");
	static_assert(std::is_nothrow_copy_constructible<time_point>::value &&
			      std::is_nothrow_copy_assignable<time_point>::value &&
			      std::is_nothrow_copy_constructible<duration>::value,
		      "time_point and duration copy without throwing");
	static constexpr bool value = true;
};

} // namespace detail

// CLOCK_MONOTONIC from the counter, ordered (cyclock_now()).
struct steady_clock : detail::clock_base<steady_clock, cyclock_now, true> {
};

// CLOCK_REALTIME (cyclock_realtime()): Unix time, steps with the system clock.
struct system_clock : detail::clock_base<system_clock, cyclock_realtime, false> {
	// Whole seconds, truncated toward zero as std::chrono::system_clock's.
	static std::time_t to_time_t(const time_point &t) noexcept
	{
		return static_cast<std::time_t>(
			std::chrono::duration_cast<std::chrono::seconds>(t.time_since_epoch())
				.count());
	}

	static time_point from_time_t(std::time_t t) noexcept
	{
		return time_point(std::chrono::seconds(t));
	}

	// The same instant as a std::chrono::system_clock time point (same epoch).
	template <class Duration>
	static std::chrono::time_point<std::chrono::system_clock, Duration>
	to_sys(const std::chrono::time_point<system_clock, Duration> &t) noexcept
	{
		return std::chrono::time_point<std::chrono::system_clock, Duration>(
			t.time_since_epoch());
	}

	template <class Duration>
	static std::chrono::time_point<system_clock, Duration>
	from_sys(const std::chrono::time_point<std::chrono::system_clock, Duration> &t) noexcept
	{
		return std::chrono::time_point<system_clock, Duration>(t.time_since_epoch());
	}
};

// CLOCK_MONOTONIC_RAW (cyclock_raw()): never slewed by NTP.
struct raw_clock : detail::clock_base<raw_clock, cyclock_raw, true> {
};

// CLOCK_BOOTTIME (cyclock_boottime()): CLOCK_MONOTONIC plus time suspended.
struct boot_clock : detail::clock_base<boot_clock, cyclock_boottime, true> {
};

// steady_clock's timeline at the kernel's tick (cyclock_coarse()).
struct coarse_clock : detail::clock_base<coarse_clock, cyclock_coarse, true> {
};

static_assert(detail::check_trivial_clock<steady_clock>::value, "steady_clock");
static_assert(detail::check_trivial_clock<system_clock>::value, "system_clock");
static_assert(detail::check_trivial_clock<raw_clock>::value, "raw_clock");
static_assert(detail::check_trivial_clock<boot_clock>::value, "boot_clock");
static_assert(detail::check_trivial_clock<coarse_clock>::value, "coarse_clock");
static_assert(steady_clock::is_steady && raw_clock::is_steady && boot_clock::is_steady &&
		      coarse_clock::is_steady && !system_clock::is_steady,
	      "only system_clock steps");

} // namespace cyclock_chrono

#endif /* CYCLOCK_HPP */
