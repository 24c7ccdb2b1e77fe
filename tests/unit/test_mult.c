/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of counts-to-nanoseconds scaling (src/core/mult.c):
 * cyclock_calc_mult_shift(), cyclock_cyc_to_ns() and the internal
 * cyclock__choose_scale().
 *
 * Every expected value is recomputed here in 128-bit arithmetic from the
 * contract, never by calling the function under test, so a wrong mult,
 * shift or wrap interval shows up as a failed property with its input.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <inttypes.h>

#include "internal.h"

typedef unsigned __int128 u128;

#define NSEC_PER_SEC 1000000000ull

/* Fails the test with the input that broke @cond, so a report is actionable. */
#define expect(cond, fmt, ...)                                                   \
	do {                                                                     \
		if (!(cond))                                                     \
			fail_msg("%s: " fmt, #cond, __VA_ARGS__);               \
	} while (0)

/* Rates from real hardware and around the 32-bit and 64-bit edges. */
static const uint64_t real_rates[] = {
	1,          1000,        32768,       1000000,    19200000,   24000000,   62500000,
	1000000000, 2600000000,  2899999999,  3000000000, 4294967296, 4294967297, 10000000000,
};

static const uint32_t maxsecs[] = { 0, 1, 4, 60, 600, 3600 };

#define MAX_SWEEP 128

/* 1 Hz .. 10 GHz in steps of about 1.37, then the real rates. */
static size_t rate_sweep(uint64_t *rates)
{
	size_t n = 0, i;
	double r;

	for (r = 1.0; r <= 1e10; r *= 1.37)
		rates[n++] = (uint64_t)(r + 0.5);
	for (i = 0; i < sizeof(real_rates) / sizeof(real_rates[0]); i++)
		rates[n++] = real_rates[i];
	return n;
}

/* A fixed-seed xorshift64, so a failing delta is the same on every run. */
static uint64_t xorshift64(uint64_t *state)
{
	uint64_t x = *state;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return *state = x;
}

/* round(to * 2^s / from), halves rounded up, exactly; s < 64. */
static u128 ref_mult(uint64_t to, uint64_t from, unsigned int s)
{
	u128 x = (u128)to << s;
	u128 q = x / from, r = x % from;

	return q + (2 * r >= from);
}

/*
 * Property (c): mult fits 32 bits and @maxsec seconds of counts convert
 * without overflowing 64 bits.  maxsec * from may itself exceed 64 bits,
 * and then no mult >= 1 fits; checked first so that the product below
 * stays under 2^96.
 */
static bool ref_fits(u128 mult, uint64_t from, uint32_t maxsec)
{
	u128 cmax = (u128)maxsec * from;

	if (mult > UINT32_MAX)
		return false;
	if (maxsec == 0)
		return true;
	return cmax <= UINT64_MAX && mult * cmax <= UINT64_MAX;
}

/* Whether any shift 0..63 gives a mult >= 1 that fits: the contract's "valid result". */
static bool ref_result_exists(uint64_t from, uint64_t to, uint32_t maxsec)
{
	for (unsigned int s = 0; s < 64; s++) {
		u128 m = ref_mult(to, from, s);

		if (m >= 1 && ref_fits(m, from, maxsec))
			return true;
	}
	return false;
}

/* How a failed check of cyclock_calc_mult_shift() names its input and output. */
#define CALC_FMT "from %" PRIu64 " to %" PRIu64 " maxsec %u: mult %u shift %u"
#define CALC_ARGS from, to, maxsec, *mult, *shift

/* Checks (a)-(d) of cyclock_calc_mult_shift() for one input; from > 0. */
static void check_calc(uint64_t from, uint64_t to, uint32_t maxsec, uint32_t *mult,
		       uint32_t *shift)
{
	*mult = 0xdeadbeef; /* the function must write both, whatever happens */
	*shift = 0xdeadbeef;
	cyclock_calc_mult_shift(mult, shift, from, to, maxsec);

	if (!ref_result_exists(from, to, maxsec)) {
		expect(*mult == 0 && *shift == 0, CALC_FMT, CALC_ARGS);
		return;
	}
	expect(*mult >= 1 && *shift < 64, CALC_FMT, CALC_ARGS);
	expect(*mult == ref_mult(to, from, *shift), CALC_FMT, CALC_ARGS);
	expect(ref_fits(*mult, from, maxsec), CALC_FMT, CALC_ARGS);
	/* Maximal: one more bit of shift would no longer fit. */
	expect(*shift == 63 || !ref_fits(ref_mult(to, from, *shift + 1), from, maxsec), CALC_FMT,
	       CALC_ARGS);
}

/*
 * The kernel's clocks_calc_mult_shift() (kernel/time/clocksource.c), with
 * its 32-bit rates: the shift is capped at 32, and the overflow bound is
 * the bit length of maxsec * from, a power of two at or above the exact one.
 */
static void kernel_calc_mult_shift(uint32_t *mult, uint32_t *shift, uint32_t from, uint32_t to,
				   uint32_t maxsec)
{
	uint64_t tmp = ((uint64_t)maxsec * from) >> 32;
	uint32_t sft, sftacc = 32;

	while (tmp) {
		tmp >>= 1;
		sftacc--;
	}
	for (sft = 32; sft > 0; sft--) {
		tmp = (uint64_t)to << sft;
		tmp += from / 2;
		tmp /= from;
		if ((tmp >> sftacc) == 0)
			break;
	}
	*mult = (uint32_t)tmp;
	*shift = sft;
}

/* Ours is at least as precise as the kernel's wherever the kernel applies. */
static void check_against_kernel(uint64_t from, uint64_t to, uint32_t maxsec, uint32_t mult,
				 uint32_t shift)
{
	uint32_t kmult, kshift;

	if (from > UINT32_MAX || to > UINT32_MAX)
		return;
	kernel_calc_mult_shift(&kmult, &kshift, (uint32_t)from, (uint32_t)to, maxsec);
	if (kshift == 0 || kmult == 0)
		return; /* the kernel found nothing: its loop ran out */
	expect(shift >= kshift, "from %" PRIu64 " to %" PRIu64 " maxsec %u: shift %u < kernel's %u",
	       from, to, maxsec, shift, kshift);
	/* Same shift, same rounding: the kernel's from/2 is half up too. */
	expect(shift != kshift || mult == kmult, "from %" PRIu64 " to %" PRIu64
	       " maxsec %u: mult %u, kernel's %u", from, to, maxsec, mult, kmult);
}

static void check_calc_both_ways(uint64_t rate, uint32_t maxsec)
{
	uint32_t mult, shift;

	check_calc(rate, NSEC_PER_SEC, maxsec, &mult, &shift);
	check_against_kernel(rate, NSEC_PER_SEC, maxsec, mult, shift);
	/* The reverse, nanoseconds to counts, as a timer would program it. */
	check_calc(NSEC_PER_SEC, rate, maxsec, &mult, &shift);
	check_against_kernel(NSEC_PER_SEC, rate, maxsec, mult, shift);
}

static void test_calc_mult_shift_is_exact_and_maximal_over_rates(void **state)
{
	uint64_t rates[MAX_SWEEP];
	size_t n = rate_sweep(rates);

	(void)state;
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < sizeof(maxsecs) / sizeof(maxsecs[0]); j++)
			check_calc_both_ways(rates[i], maxsecs[j]);
}

/* The 64-bit corners, where 128-bit products and a shift of 63 come in. */
static void test_calc_mult_shift_keeps_contract_at_64bit_extremes(void **state)
{
	static const uint64_t vals[] = { 1, 2, 3, UINT32_MAX, 1ull << 32, 1ull << 63,
					 UINT64_MAX - 1, UINT64_MAX };
	static const uint32_t secs[] = { 0, 1, 2, 3600, UINT32_MAX };
	uint32_t mult, shift;

	(void)state;
	for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++)
		for (size_t j = 0; j < sizeof(vals) / sizeof(vals[0]); j++)
			for (size_t k = 0; k < sizeof(secs) / sizeof(secs[0]); k++)
				check_calc(vals[i], vals[j], secs[k], &mult, &shift);
}

/* A rate of 2^63 Hz with no overflow bound: 1e9 * 2^63 / 2^63, the largest shift. */
static void test_calc_mult_shift_reaches_shift_63(void **state)
{
	uint32_t mult, shift;

	(void)state;
	cyclock_calc_mult_shift(&mult, &shift, 1ull << 63, NSEC_PER_SEC, 0);
	assert_int_equal(shift, 63);
	assert_int_equal(mult, NSEC_PER_SEC);
}

static void test_calc_mult_shift_zero_from_gives_zero(void **state)
{
	uint32_t mult = 1, shift = 1;

	(void)state;
	cyclock_calc_mult_shift(&mult, &shift, 0, NSEC_PER_SEC, 0);
	assert_int_equal(mult, 0);
	assert_int_equal(shift, 0);
	mult = shift = 1;
	cyclock_calc_mult_shift(&mult, &shift, 0, NSEC_PER_SEC, 3600);
	assert_int_equal(mult, 0);
	assert_int_equal(shift, 0);
}

static void test_calc_mult_shift_zero_to_gives_zero(void **state)
{
	uint32_t mult = 1, shift = 1;

	(void)state;
	cyclock_calc_mult_shift(&mult, &shift, 24000000, 0, 600);
	assert_int_equal(mult, 0);
	assert_int_equal(shift, 0);
}

/* 3600 s at 2^63 Hz is beyond 64 bits: even mult = 1 would overflow. */
static void test_calc_mult_shift_huge_from_fits_no_mult(void **state)
{
	uint32_t mult = 1, shift = 1;

	(void)state;
	cyclock_calc_mult_shift(&mult, &shift, 1ull << 63, NSEC_PER_SEC, 3600);
	assert_int_equal(mult, 0);
	assert_int_equal(shift, 0);
}

static void test_cyc_to_ns_is_product_shifted(void **state)
{
	static const struct {
		uint64_t cyc;
		uint32_t mult, shift;
	} cases[] = {
		{ 0, 4194304, 22 },
		{ 1, 1, 0 },
		{ 123456789, 2796202667u, 32 },      /* ~1.5 GHz */
		{ UINT64_MAX, 1, 0 },                /* the product is 2^64 - 1 */
		{ UINT64_MAX, 1, 63 },
		{ (1ull << 32) + 1, UINT32_MAX, 32 }, /* (2^32 + 1)(2^32 - 1) = 2^64 - 1 */
		{ UINT64_MAX / 4194304, 4194304, 22 },
		{ UINT64_MAX / 3000000000u, 3000000000u, 31 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		u128 prod = (u128)cases[i].cyc * cases[i].mult;

		/* The caller's side of the contract: the product fits. */
		assert_true(prod <= UINT64_MAX);
		assert_int_equal(cyclock_cyc_to_ns(cases[i].cyc, cases[i].mult, cases[i].shift),
				 (uint64_t)(prod >> cases[i].shift));
	}
}

/*
 * Converting @d counts is within 1 ns of the exact d * 1e9 / rate before
 * truncation, d * |mult * rate - 1e9 * 2^shift| <= rate * 2^shift, and so
 * within 2 ns (strictly) once truncated.
 */
static void check_delta_error(const struct cyclock__scale *sc, uint64_t rate, unsigned int bits,
			      uint64_t d)
{
	u128 a = (u128)sc->mult * rate, b = (u128)NSEC_PER_SEC << sc->shift;
	u128 err = a > b ? a - b : b - a;
	u128 ns = ((u128)d * sc->mult) >> sc->shift;
	u128 got = ns * rate, exact = (u128)d * NSEC_PER_SEC;

	expect((u128)d * err <= (u128)rate << sc->shift,
	       "rate %" PRIu64 " bits %u delta %" PRIu64 ": mult %u shift %u off by more than 1 ns",
	       rate, bits, d, sc->mult, sc->shift);
	expect((got > exact ? got - exact : exact - got) < 2 * (u128)rate,
	       "rate %" PRIu64 " bits %u delta %" PRIu64 ": %" PRIu64 " ns off by 2 ns or more",
	       rate, bits, d, (uint64_t)ns);
}

static void check_errors_within_wrap(const struct cyclock__scale *sc, uint64_t rate,
				     unsigned int bits, uint64_t *seed)
{
	check_delta_error(sc, rate, bits, sc->wrap_cyc);
	check_delta_error(sc, rate, bits, 1);
	check_delta_error(sc, rate, bits, 2);
	check_delta_error(sc, rate, bits, sc->wrap_cyc / 3);
	for (int i = 0; i < 8; i++)
		check_delta_error(sc, rate, bits, xorshift64(seed) % (sc->wrap_cyc + 1));
}

/* Checks (a), (b), (c) and (e) of a scale; the caller checks (d), if it applies. */
static void check_scale(const struct cyclock__scale *sc, uint64_t rate, unsigned int bits)
{
	u128 mask = ((u128)1 << bits) - 1;
	u128 frac_max = ((u128)1 << sc->shift) - 1;
	u128 wrap_ns = ((u128)sc->wrap_cyc * sc->mult) >> sc->shift;

	expect(sc->mask == mask, "rate %" PRIu64 " bits %u: mask %" PRIx64, rate, bits, sc->mask);
	expect(sc->mult >= 1 && sc->shift < 64, "rate %" PRIu64 " bits %u: mult %u shift %u", rate,
	       bits, sc->mult, sc->shift);
	/* The epoch's fraction is added before the shift (cyclock__ns_at()). */
	expect((u128)sc->wrap_cyc * sc->mult + frac_max <= UINT64_MAX,
	       "rate %" PRIu64 " bits %u: wrap_cyc %" PRIu64 " mult %u shift %u overflows", rate,
	       bits, sc->wrap_cyc, sc->mult, sc->shift);
	/* Beyond half the period, cyclock__delta() reads a delta as 0. */
	expect(sc->wrap_cyc >= 1 && sc->wrap_cyc <= (mask >> 1) + 1,
	       "rate %" PRIu64 " bits %u: wrap_cyc %" PRIu64, rate, bits, sc->wrap_cyc);
	expect(sc->wrap_ns == wrap_ns, "rate %" PRIu64 " bits %u: wrap_ns %" PRIu64 ", expected %"
	       PRIu64, rate, bits, sc->wrap_ns, (uint64_t)wrap_ns);
	/* An interval of 2 ns or more cannot truncate to 0 with a 1 ns error. */
	expect((u128)sc->wrap_cyc * NSEC_PER_SEC < 2 * (u128)rate || sc->wrap_ns > 0,
	       "rate %" PRIu64 " bits %u: wrap_ns 0 for %" PRIu64 " counts", rate, bits,
	       sc->wrap_cyc);
}

static void choose_scale_ok(struct cyclock__scale *sc, uint64_t rate, unsigned int bits)
{
	int err = cyclock__choose_scale(sc, rate, bits);

	expect(err == 0, "rate %" PRIu64 " bits %u: error %d", rate, bits, err);
	check_scale(sc, rate, bits);
}

static void test_choose_scale_is_safe_over_rates_and_widths(void **state)
{
	uint64_t rates[MAX_SWEEP];
	size_t n = rate_sweep(rates);
	struct cyclock__scale sc;

	(void)state;
	for (size_t i = 0; i < n; i++)
		for (unsigned int bits = 8; bits <= 64; bits++)
			choose_scale_ok(&sc, rates[i], bits);
}

/*
 * core.h: "one conversion of a whole interval is off by at most 1 ns",
 * with an exception only beyond ~37 GHz; checked over the whole interval
 * and at deltas inside it.
 */
static void test_choose_scale_is_within_1ns_over_the_wrap_interval(void **state)
{
	uint64_t rates[MAX_SWEEP], seed = 0x9e3779b97f4a7c15ull;
	size_t n = rate_sweep(rates);
	struct cyclock__scale sc;

	(void)state;
	for (size_t i = 0; i < n; i++) {
		for (unsigned int bits = 8; bits <= 64; bits++) {
			choose_scale_ok(&sc, rates[i], bits);
			check_errors_within_wrap(&sc, rates[i], bits, &seed);
		}
	}
}

/* Exact rates convert without rounding error, so only overflow bounds the interval. */
static void test_choose_scale_exact_rates_wrap_after_half_an_hour(void **state)
{
	static const uint64_t rates[] = { 1, 1000, 32768, 1000000, 1000000000 };
	struct cyclock__scale sc;

	(void)state;
	for (size_t i = 0; i < sizeof(rates) / sizeof(rates[0]); i++) {
		choose_scale_ok(&sc, rates[i], 64);
		expect(sc.wrap_ns >= 1800 * NSEC_PER_SEC, "rate %" PRIu64 ": wrap_ns %" PRIu64,
		       rates[i], sc.wrap_ns);
	}
}

/* Inexact GHz rates trade interval for precision, but not below half a second. */
static void test_choose_scale_inexact_ghz_rates_wrap_after_half_a_second(void **state)
{
	static const uint64_t rates[] = { 1000000001, 2600000000, 2899999999, 3000000000,
					  4294967297, 10000000000 };
	struct cyclock__scale sc;

	(void)state;
	for (size_t i = 0; i < sizeof(rates) / sizeof(rates[0]); i++) {
		choose_scale_ok(&sc, rates[i], 64);
		expect(sc.wrap_ns >= NSEC_PER_SEC / 2, "rate %" PRIu64 ": wrap_ns %" PRIu64,
		       rates[i], sc.wrap_ns);
	}
}

/*
 * Beyond ~37 GHz the 1 ns bound is given up for a 1 s interval (core.h):
 * still no overflow, and a 64-bit counter still wraps after half a second,
 * up to the fastest rate accepted.
 */
static void test_choose_scale_fast_rates_up_to_max_stay_safe(void **state)
{
	static const uint64_t rates[] = { 20000000000ull, 37000000000ull, 100000000000ull,
					  1000000000000ull, 1000000000000000000ull,
					  CYCLOCK_MAX_RATE_HZ - 1, CYCLOCK_MAX_RATE_HZ };
	struct cyclock__scale sc;

	(void)state;
	for (size_t i = 0; i < sizeof(rates) / sizeof(rates[0]); i++) {
		for (unsigned int bits = 8; bits < 64; bits += 8)
			choose_scale_ok(&sc, rates[i], bits);
		choose_scale_ok(&sc, rates[i], 64);
		expect(sc.wrap_ns >= NSEC_PER_SEC / 2, "rate %" PRIu64 ": wrap_ns %" PRIu64,
		       rates[i], sc.wrap_ns);
	}
}

/* Not asserted: the numbers for the docs, next to the worst error over the interval. */
static void test_choose_scale_table_for_real_counters(void **state)
{
	static const struct {
		uint64_t rate;
		unsigned int bits;
	} counters[] = {
		{ 32768, 32 },       { 19200000, 56 },   { 24000000, 56 },
		{ 1000000000, 32 },  { 2600000000, 64 }, { 10000000000, 64 },
		{ CYCLOCK_MAX_RATE_HZ, 64 },
	};
	struct cyclock__scale sc;

	(void)state;
	print_message("%20s %4s %10s %5s %20s %16s %9s\n", "rate_hz", "bits", "mult", "shift",
		      "wrap_ns", "wrap_s", "err_ns");
	for (size_t i = 0; i < sizeof(counters) / sizeof(counters[0]); i++) {
		uint64_t rate = counters[i].rate;
		u128 a, b, err;

		choose_scale_ok(&sc, rate, counters[i].bits);
		a = (u128)sc.mult * rate;
		b = (u128)NSEC_PER_SEC << sc.shift;
		err = (a > b ? a - b : b - a) * sc.wrap_cyc;
		print_message("%20" PRIu64 " %4u %10u %5u %20" PRIu64 " %16.3f %9.3g\n", rate,
			      counters[i].bits, sc.mult, sc.shift, sc.wrap_ns, sc.wrap_ns / 1e9,
			      (double)err / ((double)rate * (double)((u128)1 << sc.shift)));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_calc_mult_shift_is_exact_and_maximal_over_rates),
		cmocka_unit_test(test_calc_mult_shift_keeps_contract_at_64bit_extremes),
		cmocka_unit_test(test_calc_mult_shift_reaches_shift_63),
		cmocka_unit_test(test_calc_mult_shift_zero_from_gives_zero),
		cmocka_unit_test(test_calc_mult_shift_zero_to_gives_zero),
		cmocka_unit_test(test_calc_mult_shift_huge_from_fits_no_mult),
		cmocka_unit_test(test_cyc_to_ns_is_product_shifted),
		cmocka_unit_test(test_choose_scale_is_safe_over_rates_and_widths),
		cmocka_unit_test(test_choose_scale_is_within_1ns_over_the_wrap_interval),
		cmocka_unit_test(test_choose_scale_exact_rates_wrap_after_half_an_hour),
		cmocka_unit_test(test_choose_scale_inexact_ghz_rates_wrap_after_half_a_second),
		cmocka_unit_test(test_choose_scale_fast_rates_up_to_max_stay_safe),
		cmocka_unit_test(test_choose_scale_table_for_real_counters),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
