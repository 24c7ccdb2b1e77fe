/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of counts-to-nanoseconds scaling (src/core/mult.c):
 * cyclock_calc_mult_shift(), cyclock_cyc_to_ns() and the internal
 * cyclock__choose_scale().
 *
 * Every expected value is recomputed here in 128-bit arithmetic from the
 * contract, never by calling the function under test, so a wrong mult,
 * shift or wrap interval shows up as a failed property with its input.
 *
 * Over 400 lines: one suite of one contract, with its 128-bit reference
 * arithmetic; split, each half would need that arithmetic again.
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
 * cyclock__choose_scale(), against its contract in core.h, recomputed
 * here in 128 bits for every shift: the hard limit (half the period, and
 * the delta whose conversion with the epoch's fraction would overflow),
 * the 12.5% margin, the cap (an hour, or the caller's maximum), and the
 * rate's error in parts per trillion, rounded up.
 */
#define ERROR_BOUND_PPT 100000u /* 100 ppb */
#define HOUR_NS (3600 * NSEC_PER_SEC)

struct ref_shift {
	bool valid;
	u128 mult;
	u128 cyc;  /* the interval this shift allows, in counts, as the choice weighs it */
	u128 trim; /* and of those, as many as convert to at most the cap's ns */
	u128 ppt;
};

/* max(1, floor(@ns * rate / 1e9)). */
static u128 ref_counts(uint64_t ns, uint64_t rate)
{
	u128 c = (u128)ns * rate / NSEC_PER_SEC;

	return c ? c : 1;
}

/*
 * The interval shift @s allows: the hard limit less 12.5%, at most the
 * cap's counts; trimmed, at most as many as convert to @cap_ns.
 */
static struct ref_shift ref_at(uint64_t rate, unsigned int bits, u128 cap, uint64_t cap_ns,
			       unsigned int s)
{
	u128 half = ((((u128)1 << bits) - 1) >> 1) + 1, lim;
	struct ref_shift r = { .mult = ref_mult(NSEC_PER_SEC, rate, s) };
	u128 a, b;

	r.valid = r.mult >= 1 && r.mult <= UINT32_MAX;
	if (!r.valid)
		return r;
	lim = ((u128)UINT64_MAX - (((u128)1 << s) - 1)) / r.mult;
	if (lim > half)
		lim = half;
	r.cyc = lim - lim / 8;
	if (r.cyc > cap)
		r.cyc = cap;
	r.trim = r.cyc;
	if (((r.trim * r.mult) >> s) > cap_ns)
		r.trim = ((((u128)cap_ns + 1) << s) - 1) / r.mult;
	if (!r.trim)
		r.trim = 1;
	a = r.mult * rate;
	b = (u128)NSEC_PER_SEC << s;
	r.ppt = ((a > b ? a - b : b - a) * 1000 + ((u128)1 << s) - 1) >> s;
	return r;
}

/* How a failed check names its input and output. */
#define SC_FMT "rate %" PRIu64 " bits %u max %" PRIu64 ": mult %u shift %u wrap_cyc %" PRIu64
#define SC_ARGS rate, bits, max_ns, sc->mult, sc->shift, sc->wrap_cyc

/*
 * Every property of one choice.  Returns whether the interval was
 * shortened below the goal (the lesser of the cap and half the period
 * less the margin) for the rate's sake.
 */
static bool check_choice(const struct cyclock__scale *sc, uint64_t rate, unsigned int bits,
			 uint64_t max_ns)
{
	uint64_t cap_ns = max_ns && max_ns < HOUR_NS ? max_ns : HOUR_NS;
	u128 cap = ref_counts(cap_ns, rate);
	u128 half = ((((u128)1 << bits) - 1) >> 1) + 1;
	u128 goal = half - half / 8 < cap ? half - half / 8 : cap;
	u128 floor_cyc = ref_counts(NSEC_PER_SEC, rate);
	struct ref_shift me = ref_at(rate, bits, cap, cap_ns, sc->shift);

	if (floor_cyc > goal)
		floor_cyc = goal;
	expect(sc->mask == ((u128)1 << bits) - 1, SC_FMT, SC_ARGS);
	expect(me.valid && sc->mult == me.mult, SC_FMT, SC_ARGS);
	/* The interval is what this shift allows: within the hard limit less
	 * 12.5%, so no delta up to it overflows or reads as behind. */
	expect(sc->wrap_cyc == me.trim, SC_FMT " (expected %" PRIu64 ")", SC_ARGS,
	       (uint64_t)me.trim);
	expect(sc->wrap_ns <= cap_ns || sc->wrap_cyc == 1, SC_FMT, SC_ARGS);
	expect((u128)sc->wrap_cyc * sc->mult + (((u128)1 << sc->shift) - 1) <= UINT64_MAX,
	       SC_FMT, SC_ARGS);
	expect(sc->wrap_cyc >= 1 && sc->wrap_cyc <= half, SC_FMT, SC_ARGS);
	expect(sc->wrap_ns == (uint64_t)(((u128)sc->wrap_cyc * sc->mult) >> sc->shift), SC_FMT,
	       SC_ARGS);
	expect(sc->error_ppt == me.ppt, SC_FMT ": error %" PRIu64 " ppt, expected %" PRIu64,
	       SC_ARGS, sc->error_ppt, (uint64_t)me.ppt);
	if (me.cyc >= goal) {
		/* The longest interval: the finest rate that still reaches it. */
		struct ref_shift next = ref_at(rate, bits, cap, cap_ns, sc->shift + 1);

		expect(sc->shift == 63 || !next.valid || next.cyc < goal, SC_FMT, SC_ARGS);
		return false;
	}
	/* Shortened: only for the rate, and no longer than it needed. */
	for (unsigned int s = 0; s < sc->shift; s++) {
		struct ref_shift r = ref_at(rate, bits, cap, cap_ns, s);

		expect(!r.valid || r.cyc < floor_cyc || r.ppt > ERROR_BOUND_PPT,
		       SC_FMT ": shift %u allows %" PRIu64 " counts within the bound", SC_ARGS, s,
		       (uint64_t)r.cyc);
	}
	expect(me.cyc >= floor_cyc, SC_FMT, SC_ARGS);
	return true;
}

static void choose_ok(struct cyclock__scale *sc, uint64_t rate, unsigned int bits,
		      uint64_t max_ns)
{
	int err = cyclock__choose_scale(sc, rate, bits, max_ns);

	expect(err == 0, "rate %" PRIu64 " bits %u: error %d", rate, bits, err);
	check_choice(sc, rate, bits, max_ns);
}

/* The stated bound: for rates 1 Hz .. 10 GHz and widths 8..64, the rate
 * within 100 ppb and the interval at least a second or the goal. */
static void test_choose_scale_keeps_its_contract_over_rates_and_widths(void **state)
{
	uint64_t rates[MAX_SWEEP];
	size_t n = rate_sweep(rates);
	struct cyclock__scale sc;
	unsigned int shortened = 0;

	(void)state;
	for (size_t i = 0; i < n; i++) {
		for (unsigned int bits = 8; bits <= 64; bits++) {
			choose_ok(&sc, rates[i], bits, 0);
			shortened += check_choice(&sc, rates[i], bits, 0);
			expect(sc.error_ppt <= ERROR_BOUND_PPT,
			       "rate %" PRIu64 " bits %u: error %" PRIu64 " ppt", rates[i], bits,
			       sc.error_ppt);
		}
	}
	/* The fast 64-bit counters give way; the sweep must reach them. */
	assert_true(shortened > 0);
}

/* An hour wherever the counter and the rate allow it. */
static void test_choose_scale_waits_up_to_an_hour(void **state)
{
	static const uint64_t rates[] = { 1, 1000, 32768, 1000000, 19200000, 24000000,
					  1000000000 };
	struct cyclock__scale sc;

	(void)state;
	for (size_t i = 0; i < sizeof(rates) / sizeof(rates[0]); i++) {
		choose_ok(&sc, rates[i], 64, 0);
		expect(sc.wrap_ns >= HOUR_NS - NSEC_PER_SEC && sc.wrap_ns <= HOUR_NS,
		       "rate %" PRIu64 ": wrap_ns %" PRIu64, rates[i], sc.wrap_ns);
	}
}

/* A narrow counter: half its period less the margin, and no less. */
static void test_choose_scale_narrow_counters_use_most_of_half_the_period(void **state)
{
	static const uint64_t rates[] = { 32768, 19200000, 24000000, 25000000, 1000000000 };
	struct cyclock__scale sc;

	(void)state;
	for (size_t i = 0; i < sizeof(rates) / sizeof(rates[0]); i++) {
		uint64_t half = 1ull << 31;

		choose_ok(&sc, rates[i], 32, 0);
		if ((u128)half * NSEC_PER_SEC / rates[i] > HOUR_NS)
			continue; /* the hour binds first */
		expect(sc.wrap_cyc == half - half / 8, "rate %" PRIu64 ": wrap_cyc %" PRIu64,
		       rates[i], sc.wrap_cyc);
	}
}

/* Fast 64-bit counters give way for the rate, to 100 ppb, not below a second. */
static void test_choose_scale_fast_counters_give_way_for_the_rate(void **state)
{
	static const uint64_t rates[] = { 2600000000, 2899999999, 4294967297, 4800000000,
					  10000000000, 100000000000ull, 1000000000000ull };
	struct cyclock__scale sc;

	(void)state;
	for (size_t i = 0; i < sizeof(rates) / sizeof(rates[0]); i++) {
		choose_ok(&sc, rates[i], 64, 0);
		expect(sc.error_ppt <= ERROR_BOUND_PPT && sc.wrap_ns >= NSEC_PER_SEC,
		       "rate %" PRIu64 ": error %" PRIu64 " ppt, wrap_ns %" PRIu64, rates[i],
		       sc.error_ppt, sc.wrap_ns);
	}
}

/*
 * Beyond 1 THz the bound cannot hold at a second: the finest rate at a
 * second or more, still without overflow, up to the fastest rate accepted.
 */
static void test_choose_scale_fast_rates_up_to_max_stay_safe(void **state)
{
	static const uint64_t rates[] = { 4000000000000ull, 1000000000000000000ull,
					  CYCLOCK_MAX_RATE_HZ - 1, CYCLOCK_MAX_RATE_HZ };
	struct cyclock__scale sc;

	(void)state;
	for (size_t i = 0; i < sizeof(rates) / sizeof(rates[0]); i++) {
		for (unsigned int bits = 8; bits <= 64; bits += 8)
			choose_ok(&sc, rates[i], bits, 0);
		expect(sc.wrap_ns >= NSEC_PER_SEC / 2, "rate %" PRIu64 ": wrap_ns %" PRIu64,
		       rates[i], sc.wrap_ns);
	}
}

/* A caller's maximum interval buys a finer rate, and is kept. */
static void test_choose_scale_max_interval_gives_a_finer_rate(void **state)
{
	static const uint64_t max_ns[] = { 1, 1000, 1000000, NSEC_PER_SEC, 6 * NSEC_PER_SEC,
					   600 * NSEC_PER_SEC, 2 * HOUR_NS };
	struct cyclock__scale def, sc;

	(void)state;
	for (size_t i = 0; i < sizeof(real_rates) / sizeof(real_rates[0]); i++) {
		uint64_t rate = real_rates[i];

		choose_ok(&def, rate, 64, 0);
		for (size_t j = 0; j < sizeof(max_ns) / sizeof(max_ns[0]); j++) {
			choose_ok(&sc, rate, 64, max_ns[j]);
			expect((sc.shift >= def.shift && sc.error_ppt <= def.error_ppt) ||
				       sc.wrap_cyc == 1,
			       "rate %" PRIu64 " max %" PRIu64 ": shift %u error %" PRIu64,
			       rate, max_ns[j], sc.shift, sc.error_ppt);
			/* At most the maximum, or the one count it rounds up to. */
			expect(sc.wrap_ns <= max_ns[j] || sc.wrap_cyc == 1,
			       "rate %" PRIu64 " max %" PRIu64 ": wrap_ns %" PRIu64, rate,
			       max_ns[j], sc.wrap_ns);
		}
	}
}

/* Not asserted: the numbers for the docs and the closing note. */
static void test_choose_scale_table_for_real_counters(void **state)
{
	static const struct {
		uint64_t rate;
		unsigned int bits;
	} counters[] = {
		{ 32768, 32 },      { 19200000, 32 },   { 19200000, 56 },   { 24000000, 56 },
		{ 25000000, 32 },   { 1000000000, 64 }, { 2600000000, 64 }, { 4800000000, 64 },
		{ 10000000000, 64 }, { CYCLOCK_MAX_RATE_HZ, 64 },
	};
	struct cyclock__scale sc;

	(void)state;
	print_message("%20s %4s %10s %5s %16s %12s\n", "rate_hz", "bits", "mult", "shift",
		      "update_s", "error_ppb");
	for (size_t i = 0; i < sizeof(counters) / sizeof(counters[0]); i++) {
		choose_ok(&sc, counters[i].rate, counters[i].bits, 0);
		print_message("%20" PRIu64 " %4u %10u %5u %16.3f %12.3f\n", counters[i].rate,
			      counters[i].bits, sc.mult, sc.shift, sc.wrap_ns / 1e9,
			      sc.error_ppt / 1e3);
	}
}

/* cyclock__scale() against 128-bit arithmetic: every delta (within the
 * 64-bit product and past it), every shift, the remainder too, and
 * saturation where the nanoseconds need more than 64 bits. */
static void test_scale_is_exact_past_64_bits(void **state)
{
	uint64_t x = 0x9e3779b97f4a7c15ull;

	(void)state;
	for (int i = 0; i < 200000; i++) {
		uint64_t delta, frac, rem = 0, ns;
		uint32_t mult, shift;
		unsigned __int128 p;

		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		delta = x >> (x % 64);
		mult = (uint32_t)(x >> 17) | 1u;
		shift = (uint32_t)(x % 33);
		frac = shift ? (x >> 3) & ((1ull << shift) - 1) : 0;
		p = (unsigned __int128)delta * mult + frac;
		ns = cyclock__scale(delta, mult, frac, shift, &rem);
		if ((p >> shift) >> 64)
			assert_true(ns == UINT64_MAX);
		else
			assert_true(ns == (uint64_t)(p >> shift));
		assert_true(rem == (shift ? (uint64_t)p & ((1ull << shift) - 1) : 0));
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
		cmocka_unit_test(test_choose_scale_keeps_its_contract_over_rates_and_widths),
		cmocka_unit_test(test_choose_scale_waits_up_to_an_hour),
		cmocka_unit_test(test_choose_scale_narrow_counters_use_most_of_half_the_period),
		cmocka_unit_test(test_choose_scale_fast_counters_give_way_for_the_rate),
		cmocka_unit_test(test_choose_scale_fast_rates_up_to_max_stay_safe),
		cmocka_unit_test(test_choose_scale_max_interval_gives_a_finer_rate),
		cmocka_unit_test(test_choose_scale_table_for_real_counters),
		cmocka_unit_test(test_scale_is_exact_past_64_bits),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
