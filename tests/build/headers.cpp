// The public headers from C++, under headers.sh's warnings: they give the
// same layout as C (the C side has the same static asserts, in
// src/core/clock.c), their functions are noexcept, and a C++ program can
// use the library.
#include <cyclock.h>
#include <cyclock.hpp>
#include <cyclock/arch.h>
#include <cyclock/core.h>
#include <cyclock/latch.h>
#include <cyclock/timeline.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>

#if defined(__x86_64__)
static_assert(alignof(cyclock) == 64, "struct cyclock is line-aligned");
static_assert(offsetof(cyclock, read_data) == 8, "epoch next to seq, line 0");
static_assert(offsetof(cyclock, read_mostly) == 64, "read-mostly on line 1");
static_assert(offsetof(cyclock, cold) == 128, "cold on line 2");
static_assert(sizeof(cyclock) == 192, "three lines");
static_assert(sizeof(cyclock_percpu_slot) == 64, "one line per CPU");
static_assert(offsetof(cyclock__timeline, seg) == 16, "segment 0 with the word, line 0");
static_assert(offsetof(cyclock__timeline, ext) == 128, "the slow path's copies on line 2");
static_assert(sizeof(cyclock__timeline) == 256, "a timeline is four lines");
#endif

// noexcept, so that cyclock.hpp's noexcept now() can end in a tail call.
static_assert(noexcept(cyclock_now()) && noexcept(cyclock_realtime()) &&
		      noexcept(cyclock_init(0)) && noexcept(cyclock_describe()) &&
		      noexcept(cyclock_read(nullptr)) && noexcept(cyclock_update(nullptr)),
	      "the library's functions are noexcept in C++");

namespace {

std::uint64_t counter; // the "hardware": bumped by hand

int fail(const char *what, unsigned long long got)
{
	std::fprintf(stderr, "headers.cpp: %s (got %llu)\n", what, got);
	return 1;
}

} // namespace

// A counter read with C language linkage, like the library's own type.
extern "C" {
static std::uint64_t read_counter(const cyclock_source *)
{
	return counter;
}
}

int main()
{
	static cyclock clk; // zero-initialised: reads 0 until registered
	static cyclock_source src;
	src.name = "c++ counter";
	src.read = read_counter;
	src.rate_hz = 1000000000; // 1 count = 1 ns
	src.bits = 32;
	src.rating = 1;

	if (cyclock_read(&clk) != 0)
		return fail("a zero-initialised clock must read 0", cyclock_read(&clk));
	if (cyclock_wrap_ns(&clk) != 0)
		return fail("no source: wrap_ns must be 0", cyclock_wrap_ns(&clk));
	int err = cyclock_register(&clk, &src);
	if (err != 0)
		return fail("cyclock_register failed", static_cast<unsigned long long>(-err));
	counter += 1000;
	std::uint64_t t1 = cyclock_read(&clk);
	if (t1 != 1000)
		return fail("1000 counts at 1 GHz after registering must read 1000 ns", t1);
	cyclock_update(&clk);
	counter += 500;
	if (cyclock_read(&clk) != 1500)
		return fail("1500 counts at 1 GHz must read 1500 ns", cyclock_read(&clk));

	char line[128];
	std::size_t len = cyclock_format_summary(&clk, line, sizeof line);
	if (len == 0 || len >= sizeof line)
		return fail("cyclock_format_summary length", len);
	std::printf("headers.cpp: %s\n", line);

	// The hosted clocks from C++: two readings in order.
	std::uint64_t a = cyclock_now(), b = cyclock_now();
	if (a == 0 || b < a)
		return fail("cyclock_now() went back", a - b);
	std::printf("headers.cpp: %s\n", cyclock_describe());
	return 0;
}
