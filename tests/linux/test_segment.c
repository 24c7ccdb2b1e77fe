/* SPDX-License-Identifier: MIT */
/*
 * The segment arithmetic behind "never backwards at a resync"
 * (docs/hosted.md): a new segment that starts at P continues the old one
 * exactly there, to the fraction; before P (a relaxed read that ran
 * early) it reads P's value, never below the old one's; every segment
 * only goes forward; and the fast path's cyc * mult + k form equals the
 * exact value in the middle piece.  Random segments, many counter values.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "prng.h"
#include "internal.h"

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t next(void)
{
	return prng_next(&rng);
}

static uint64_t below(uint64_t n)
{
	return next() % n;
}

/* A segment as a resync would leave it, with shift <= 32. */
static struct cyclock__segv random_segment(uint32_t shift)
{
	struct cyclock__segv v = { 0 };
	uint32_t base = (uint32_t)(1u << (shift - 2)) + (uint32_t)below(1u << (shift - 2));

	v.cyc = next() >> 4;
	v.ns = next() >> 12;
	v.frac = (uint32_t)below(1ull << shift);
	v.horizon_cyc = (uint32_t)(1000 + below(1u << 28));
	v.mult = base + (uint32_t)below(base >> 10);      /* rate plus a correction */
	v.mult_rate = base;
	return v;
}

static void value(const struct cyclock__segv *v, uint32_t shift, uint64_t cyc, uint64_t *ns,
		  uint32_t *frac)
{
	cyclock__seg_at(v, shift, cyc, ns, frac);
}

/* The next segment, as track_resync() plans it from counter value @cw. */
static struct cyclock__segv successor(const struct cyclock__segv *a, uint32_t shift, uint64_t cw)
{
	struct cyclock__segv b = *a;

	b.cyc = cw;
	value(a, shift, b.cyc, &b.ns, &b.frac);
	b.mult = a->mult_rate + (uint32_t)below(a->mult_rate >> 9) - (a->mult_rate >> 10);
	b.horizon_cyc = (uint32_t)(1000 + below(1u << 28));
	return b;
}

/* The new segment equals the old one at its start P, exactly, and
 * before P (a relaxed read that ran early) is never below it. */
static void successor_continues_exactly(void **state)
{
	(void)state;
	for (int i = 0; i < 20000; i++) {
		uint32_t shift = 20 + (uint32_t)below(13);
		struct cyclock__segv a = random_segment(shift), b;
		/* In the middle piece, or past it (the rate alone). */
		uint64_t cw = a.cyc + (i & 1 ? below(a.horizon_cyc) : a.horizon_cyc + below(1u << 30));
		uint64_t an, bn;
		uint32_t af, bf;

		b = successor(&a, shift, cw);
		value(&a, shift, cw, &an, &af);
		value(&b, shift, cw, &bn, &bf);
		if (an != bn || af != bf)
			fail_msg("shift %u, at P: old %llu+%u, new %llu+%u", shift,
				 (unsigned long long)an, af, (unsigned long long)bn, bf);
		for (int j = 0; j < 16; j++) {
			uint64_t c = cw - 1 - below(60000);

			value(&a, shift, c, &an, &af);
			value(&b, shift, c, &bn, &bf);
			if (bn < an || (bn == an && bf < af))
				fail_msg("shift %u, %llu counts before P: old %llu+%u, new %llu+%u", shift,
					 (unsigned long long)(cw - c), (unsigned long long)an, af,
					 (unsigned long long)bn, bf);
		}
	}
}

/* Every piece, and every boundary between them, only goes forward. */
static void segment_is_monotonic(void **state)
{
	(void)state;
	for (int i = 0; i < 20000; i++) {
		uint32_t shift = 20 + (uint32_t)below(13);
		struct cyclock__segv v = random_segment(shift);
		uint64_t c = v.cyc - 100000 + below(v.horizon_cyc + 200000), step = 1 + below(5000);
		uint64_t n1, n2;
		uint32_t f1, f2;

		value(&v, shift, c, &n1, &f1);
		value(&v, shift, c + step, &n2, &f2);
		if (n2 < n1 || (n2 == n1 && f2 < f1))
			fail_msg("went back from %llu to %llu over %llu counts at %lld from P",
				 (unsigned long long)n1, (unsigned long long)n2,
				 (unsigned long long)step, (long long)(c - v.cyc));
	}
}

/* The fast path's form (cyclock__seg_form()): epoch_sec_ns, a multiple of
 * 10^9, plus ((cyc * mult + k) >> shift) is the exact value in the middle
 * piece, and cyclock__seg_start() gives the start back. */
static void fast_path_form_is_exact(void **state)
{
	(void)state;
	for (int i = 0; i < 20000; i++) {
		uint32_t shift = 20 + (uint32_t)below(13);
		struct cyclock__segv v = random_segment(shift);
		uint64_t c = v.cyc + below(v.horizon_cyc), sec_ns, k, ns;
		uint32_t frac;

		cyclock__seg_form(v.ns, v.frac, v.cyc, v.mult, shift, &sec_ns, &k);
		assert_int_equal(sec_ns % 1000000000u, 0);
		value(&v, shift, c, &ns, &frac);
		assert_int_equal(sec_ns + ((c * v.mult + k) >> shift), ns);
		cyclock__seg_start(sec_ns, k, v.cyc, v.mult, shift, &ns, &frac);
		assert_int_equal(ns, v.ns);
		assert_int_equal(frac, v.frac);
	}
}

/* An offset packed as a copy keeps it (cyclock__off_pack()) gives itself
 * back, its whole seconds rounded down and its rest below 10^9: from minus an
 * uptime of 68 years to KTIME_MAX, the edges and at random; and 0 is kept
 * as 0, as a timeline is before its first publish. */
static void offsets_pack_exactly(void **state)
{
	const int64_t sec = 1000000000, lo = -(INT64_C(1) << 31) * sec, hi = INT64_MAX;
	const int64_t edges[] = { lo, lo + 1, -sec - 1, -sec, -1, 0, 1, sec - 1, sec, hi - 1, hi };

	(void)state;
	assert_int_equal(cyclock__off_pack(0), 0);
	for (int i = 0; i < 20000 + (int)(sizeof(edges) / sizeof(edges[0])); i++) {
		/* lo plus a random distance, in unsigned arithmetic (no overflow) */
		int64_t off = i < 20000 ? (int64_t)((uint64_t)lo + below((uint64_t)hi - (uint64_t)lo))
					: edges[i - 20000];
		uint64_t f = cyclock__off_pack((uint64_t)off);

		assert_int_equal(cyclock__off_ns(f), (uint64_t)off);
		assert_true(cyclock__off_rest(f) < (uint64_t)sec);
		assert_int_equal((int64_t)cyclock__off_sec(f), off / sec - (off % sec < 0));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(successor_continues_exactly),
		cmocka_unit_test(segment_is_monotonic),
		cmocka_unit_test(fast_path_form_is_exact),
		cmocka_unit_test(offsets_pack_exactly),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
