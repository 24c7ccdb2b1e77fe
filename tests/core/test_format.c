/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of cyclock_format_summary() (src/core/format.c): the kernel's
 * registration line, its resolution rounding, and snprintf()'s contract
 * for the return value and the buffer.
 *
 * Expected lines are literal strings or built here with snprintf(), so
 * the engine's own digit writer is never its own reference.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cyclock/core.h"

#define CANARY 'X'

/* What every test source reads; the line never depends on it. */
static uint64_t counter = 12345;

static uint64_t read_counter(const struct cyclock_source *src)
{
	(void)src;
	return counter;
}

/* A clock remembers its source, so each test starts from a zeroed one. */
static struct cyclock *new_clock(void)
{
	struct cyclock *clk = aligned_alloc(CYCLOCK_CACHELINE, sizeof(*clk));

	assert_non_null(clk);
	memset(clk, 0, sizeof(*clk));
	return clk;
}

/* A clock with @src registered; @src must outlive it. */
static struct cyclock *clock_with(const struct cyclock_source *src)
{
	struct cyclock *clk = new_clock();

	assert_int_equal(cyclock_register(clk, src), 0);
	return clk;
}

static struct cyclock_source source(uint64_t rate_hz, unsigned int bits)
{
	struct cyclock_source src = {
		.name = "test", .read = read_counter, .rate_hz = rate_hz, .bits = bits,
	};

	return src;
}

/*
 * How far the registered mult / 2^shift is from 1e9 / rate, in parts per
 * trillion rounded up, recomputed here in 128 bits.
 */
static uint64_t error_ppt(const struct cyclock *clk, uint64_t rate)
{
	unsigned __int128 a = (unsigned __int128)clk->cold.mult * rate;
	unsigned __int128 b = (unsigned __int128)1000000000u << clk->cold.shift;
	unsigned __int128 d = (a > b ? a - b : b - a) * 1000;

	return (uint64_t)((d + ((unsigned __int128)1 << clk->cold.shift) - 1) >> clk->cold.shift);
}

/* The whole line for @clk, as the contract spells it, with @res as the resolution. */
static void expected_line(char *buf, size_t len, const struct cyclock *clk,
			  const struct cyclock_source *src, const char *res)
{
	uint64_t ppt = error_ppt(clk, src->rate_hz);
	int n = snprintf(buf, len, "%u bits at %" PRIu64 " Hz, resolution %s ns, update every %"
			 PRIu64 " ns, rate within %" PRIu64 ".%03" PRIu64 " ppb", src->bits,
			 src->rate_hz, res, cyclock_wrap_ns(clk), ppt / 1000, ppt % 1000);

	assert_true(n > 0 && (size_t)n < len);
}

static void test_summary_without_source_says_so(void **state)
{
	static struct cyclock clk;
	char buf[64];

	(void)state;
	assert_int_equal(cyclock_format_summary(&clk, buf, sizeof(buf)),
			 strlen("no source registered"));
	assert_string_equal(buf, "no source registered");
}

static void test_summary_of_32_bits_at_1ghz_is_the_kernel_line(void **state)
{
	static struct cyclock clk;
	struct cyclock_source src = source(1000000000, 32);
	char buf[128], want[128];

	(void)state;
	assert_int_equal(cyclock_register(&clk, &src), 0);
	/* Half the 32-bit period less 12.5%; 1 GHz is exact in binary. */
	snprintf(want, sizeof(want), "32 bits at 1000000000 Hz, resolution 1 ns, update every "
		 "1879048192 ns, rate within 0.000 ppb");
	assert_int_equal(cyclock_format_summary(&clk, buf, sizeof(buf)), strlen(want));
	assert_string_equal(buf, want);
}

/* An arm timer: 2^26 * 1e9 / 19.2e6 is 3495253333.3, so the rate is off by
 * 0.3 / 3495253333 of itself, 0.095 ppb, shown rounded up. */
static void test_summary_gives_the_update_interval_and_the_rate_error(void **state)
{
	static struct cyclock clk;
	struct cyclock_source src = source(19200000, 32);
	char buf[160];
	size_t n;

	(void)state;
	assert_int_equal(cyclock_register(&clk, &src), 0);
	n = cyclock_format_summary(&clk, buf, sizeof(buf));
	assert_int_equal(n, strlen(buf));
	assert_string_equal(buf, "32 bits at 19200000 Hz, resolution 52.083 ns, update every "
				 "97867093324 ns, rate within 0.096 ppb");
}

/*
 * 1e9 / rate ns: whole when exact or at least 1000 ns (rounded), else
 * three decimals, rounded half up.  Worked out by hand.
 */
static void test_summary_resolution_is_rounded_to_three_decimals_or_whole(void **state)
{
	static const struct {
		uint64_t rate_hz;
		const char *res;
	} cases[] = {
		{ 2600000000u, "0.385" },          /* 0.3846... */
		{ 10000000000u, "0.100" },         /* exactly 0.1: not whole, so decimals */
		{ 3000000000u, "0.333" },
		{ 2000000000u, "0.500" },
		{ 2899999999u, "0.345" },          /* 0.34482758... */
		{ 600000000, "1.667" },
		{ 24000000, "41.667" },
		{ 19200000, "52.083" },
		{ 1000001, "999.999" },            /* 999.999000999... */
		{ 1024000, "976.563" },            /* 976.5625: a tie, rounded up */
		{ 1000000000, "1" },               /* exact */
		{ 62500000, "16" },                /* exact */
		{ 1000000, "1000" },               /* exact */
		{ 999999, "1000" },                /* 1000.001: >= 1000, whole */
		{ 640000, "1563" },                /* 1562.5: a tie, rounded up */
		{ 32768, "30518" },                /* 30517.578125 */
		{ 7, "142857143" },                /* 142857142.857... */
		{ 1, "1000000000" },
		{ CYCLOCK_MAX_RATE_HZ, "0.000" },  /* 2^-32 ns */
	};
	char buf[160], want[160];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct cyclock_source src = source(cases[i].rate_hz, 64);
		struct cyclock *clk = clock_with(&src);

		expected_line(want, sizeof(want), clk, &src, cases[i].res);
		assert_int_equal(cyclock_format_summary(clk, buf, sizeof(buf)), strlen(want));
		assert_string_equal(buf, want);
		free(clk);
	}
}

/* The bits field is the source's width, every width printed as it is. */
static void test_summary_prints_each_width(void **state)
{
	char buf[160], want[160];

	(void)state;
	for (unsigned int bits = 1; bits <= 64; bits++) {
		struct cyclock_source src = source(24000000, bits);
		struct cyclock *clk = clock_with(&src);

		expected_line(want, sizeof(want), clk, &src, "41.667");
		assert_int_equal(cyclock_format_summary(clk, buf, sizeof(buf)), strlen(want));
		assert_string_equal(buf, want);
		free(clk);
	}
}

/* A registered line long enough for truncation to matter; returns its length. */
static size_t full_line(const struct cyclock *clk, char *buf, size_t len)
{
	size_t n = cyclock_format_summary(clk, buf, len);

	assert_true(n > 0 && n < len);
	assert_int_equal(strlen(buf), n);
	return n;
}

static void test_summary_returns_full_length_whatever_len(void **state)
{
	static struct cyclock clk;
	struct cyclock_source src = source(2600000000u, 64);
	char full[160], buf[160];
	size_t n;

	(void)state;
	assert_int_equal(cyclock_register(&clk, &src), 0);
	n = full_line(&clk, full, sizeof(full));
	for (size_t len = 0; len <= n + 2; len++)
		assert_int_equal(cyclock_format_summary(&clk, buf, len), n);
	/* As with snprintf(NULL, 0, ...), measuring needs no buffer. */
	assert_int_equal(cyclock_format_summary(&clk, NULL, 0), n);
}

static void test_summary_with_len_0_writes_nothing(void **state)
{
	static struct cyclock clk;
	struct cyclock_source src = source(1000000000, 32);
	char buf[8];

	(void)state;
	assert_int_equal(cyclock_register(&clk, &src), 0);
	memset(buf, CANARY, sizeof(buf));
	assert_true(cyclock_format_summary(&clk, buf, 0) > 0);
	for (size_t i = 0; i < sizeof(buf); i++)
		assert_int_equal(buf[i], CANARY);
}

static void test_summary_with_small_len_truncates_and_terminates(void **state)
{
	static struct cyclock clk;
	struct cyclock_source src = source(19200000, 56);
	char full[160], buf[160];
	size_t n;

	(void)state;
	assert_int_equal(cyclock_register(&clk, &src), 0);
	n = full_line(&clk, full, sizeof(full));

	memset(buf, CANARY, sizeof(buf));
	assert_int_equal(cyclock_format_summary(&clk, buf, 1), n);
	assert_int_equal(buf[0], '\0');
	assert_int_equal(buf[1], CANARY);

	memset(buf, CANARY, sizeof(buf));
	assert_int_equal(cyclock_format_summary(&clk, buf, 10), n);
	assert_string_equal(buf, "56 bits a");
	assert_int_equal(buf[10], CANARY);

	/* One byte short: all but the last character. */
	memset(buf, CANARY, sizeof(buf));
	assert_int_equal(cyclock_format_summary(&clk, buf, n), n);
	assert_int_equal(strlen(buf), n - 1);
	assert_memory_equal(buf, full, n - 1);
	assert_int_equal(buf[n], CANARY);
}

static void test_summary_with_exact_len_is_complete(void **state)
{
	static struct cyclock clk;
	struct cyclock_source src = source(32768, 32);
	char full[160], buf[160];
	size_t n;

	(void)state;
	assert_int_equal(cyclock_register(&clk, &src), 0);
	n = full_line(&clk, full, sizeof(full));
	memset(buf, CANARY, sizeof(buf));
	assert_int_equal(cyclock_format_summary(&clk, buf, n + 1), n);
	assert_string_equal(buf, full);
	assert_int_equal(buf[n + 1], CANARY);
}

/*
 * Every len from 0 to past the end: the first min(len - 1, n) bytes of
 * the line, a NUL after them, and nothing written at or beyond len.
 */
static void test_summary_never_writes_past_len(void **state)
{
	static struct cyclock clk;
	struct cyclock_source src = source(3000000000u, 64);
	char full[160], buf[160];
	size_t n;

	(void)state;
	assert_int_equal(cyclock_register(&clk, &src), 0);
	n = full_line(&clk, full, sizeof(full));
	for (size_t len = 0; len <= n + 2; len++) {
		size_t kept = len == 0 ? 0 : (len - 1 < n ? len - 1 : n);

		memset(buf, CANARY, sizeof(buf));
		assert_int_equal(cyclock_format_summary(&clk, buf, len), n);
		assert_memory_equal(buf, full, kept);
		if (len)
			assert_int_equal(buf[kept], '\0');
		for (size_t i = len; i < sizeof(buf); i++)
			assert_int_equal(buf[i], CANARY);
	}
}

/* "no source registered" obeys the same truncation rules. */
static void test_summary_without_source_truncates_too(void **state)
{
	static struct cyclock clk;
	char buf[16];

	(void)state;
	memset(buf, CANARY, sizeof(buf));
	assert_int_equal(cyclock_format_summary(&clk, buf, 10), strlen("no source registered"));
	assert_string_equal(buf, "no source");
	assert_int_equal(buf[10], CANARY);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_summary_without_source_says_so),
		cmocka_unit_test(test_summary_of_32_bits_at_1ghz_is_the_kernel_line),
		cmocka_unit_test(test_summary_gives_the_update_interval_and_the_rate_error),
		cmocka_unit_test(test_summary_resolution_is_rounded_to_three_decimals_or_whole),
		cmocka_unit_test(test_summary_prints_each_width),
		cmocka_unit_test(test_summary_returns_full_length_whatever_len),
		cmocka_unit_test(test_summary_with_len_0_writes_nothing),
		cmocka_unit_test(test_summary_with_small_len_truncates_and_terminates),
		cmocka_unit_test(test_summary_with_exact_len_is_complete),
		cmocka_unit_test(test_summary_never_writes_past_len),
		cmocka_unit_test(test_summary_without_source_truncates_too),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
