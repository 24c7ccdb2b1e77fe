/* SPDX-License-Identifier: MIT */
/*
 * Counts to nanoseconds: mult/shift and the wrap interval.
 *
 * A count lasts to_hz/from_hz units; we keep it as mult / 2^shift, mult
 * a 32-bit integer, so that a conversion is one multiply and one shift.  A
 * larger shift is more precise but overflows 64 bits after fewer counts,
 * so precision is traded against how often the epoch must be moved.
 *
 * Some products here need 128 bits.  The engine must build for 32-bit
 * firmware without __int128, so they go through a small pair of words.
 */
#include "internal.h"

struct u128 {
	uint64_t hi, lo;
};

static struct u128 mul_64x64(uint64_t a, uint64_t b)
{
	uint64_t a_lo = (uint32_t)a, a_hi = a >> 32, b_lo = (uint32_t)b, b_hi = b >> 32;
	uint64_t lo_lo = a_lo * b_lo, hi_lo = a_hi * b_lo, lo_hi = a_lo * b_hi;
	uint64_t cross = (lo_lo >> 32) + (uint32_t)hi_lo + lo_hi;
	struct u128 r;

	r.lo = (cross << 32) | (uint32_t)lo_lo;
	r.hi = a_hi * b_hi + (hi_lo >> 32) + (cross >> 32);
	return r;
}

static bool u128_le(struct u128 a, struct u128 b)
{
	return a.hi < b.hi || (a.hi == b.hi && a.lo <= b.lo);
}

/* v * 2^s for s < 64. */
static struct u128 u128_shl(uint64_t v, uint32_t s)
{
	struct u128 r = { s ? v >> (64 - s) : 0, v << s };

	return r;
}

/*
 * One more bit of the long division of to * 2^s by from: from the
 * quotient @q and remainder @r for s, those for s + 1.
 */
static void next_quotient_bit(uint64_t *q, uint64_t *r, uint64_t from)
{
	*q <<= 1;
	/* r < from, so r + r may not fit: compare against from - r. */
	if (*r >= from - *r) {
		*r -= from - *r;
		*q += 1;
	} else {
		*r += *r;
	}
}

/* The largest mult allowed by @cmax counts converting without overflow. */
static uint64_t mult_limit(uint64_t cmax_secs, uint64_t from_hz)
{
	struct u128 cmax = mul_64x64(cmax_secs, from_hz);

	if (cmax.hi)
		return 0;
	if (cmax.lo <= 1)
		return UINT32_MAX;
	return UINT64_MAX / cmax.lo < UINT32_MAX ? UINT64_MAX / cmax.lo : UINT32_MAX;
}

void cyclock_calc_mult_shift(uint32_t *mult, uint32_t *shift, uint64_t from_hz, uint64_t to_hz,
			     uint32_t maxsec)
{
	uint64_t limit = from_hz ? mult_limit(maxsec, from_hz) : 0;
	uint64_t q, r, m;

	*mult = 0;
	*shift = 0;
	if (!limit)
		return;
	/* mult = round(to * 2^s / from) only grows with s: the last s whose
	 * mult fits wins.  The quotient gains one bit a step. */
	q = to_hz / from_hz;
	r = to_hz % from_hz;
	for (uint32_t s = 0; s < 64; s++) {
		if (s)
			next_quotient_bit(&q, &r, from_hz);
		m = q + (r >= from_hz - r); /* round half up */
		if (m > limit)
			break;
		if (m) {
			*mult = (uint32_t)m;
			*shift = s;
		}
	}
}

uint64_t cyclock_cyc_to_ns(uint64_t cyc, uint32_t mult, uint32_t shift)
{
	return (cyc * mult) >> shift;
}

/*
 * Whether converting @cyc counts with mult/shift is off by at most 1 ns
 * (before the final truncation) from the exact cyc * 1e9 / rate:
 * cyc * |mult * rate - 1e9 * 2^shift| <= rate * 2^shift.
 */
static bool error_within_1ns(uint64_t cyc, uint64_t rate, uint32_t mult, uint32_t shift)
{
	struct u128 a = mul_64x64(mult, rate), b = u128_shl(CYCLOCK_NSEC_PER_SEC, shift);
	struct u128 d = u128_le(a, b) ? b : a, e = u128_le(a, b) ? a : b;
	uint64_t diff;

	/* mult is rounded to nearest, so |a - b| <= rate / 2 fits 64 bits. */
	diff = d.lo - e.lo;
	return u128_le(mul_64x64(cyc, diff), u128_shl(rate, shift));
}

/* The longest delta that converts without overflow, with the epoch's fraction added. */
static uint64_t max_delta(uint64_t mask, uint32_t mult, uint32_t shift)
{
	uint64_t half = (mask >> 1) + 1; /* see cyclock__delta() */
	uint64_t frac_max = (1ull << shift) - 1;
	uint64_t overflow = (UINT64_MAX - frac_max) / mult;

	return half < overflow ? half : overflow;
}

/* An hour, as the kernel's sched_clock asks of its counters. */
#define SCALE_MAXSEC_CAP 3600u

int cyclock__choose_scale(struct cyclock__scale *sc, uint64_t rate_hz, unsigned int bits)
{
	uint64_t mask = bits == 64 ? UINT64_MAX : (1ull << bits) - 1;
	uint64_t half_secs = ((mask >> 1) + 1) / rate_hz + 1;
	uint32_t maxsec = half_secs < SCALE_MAXSEC_CAP ? (uint32_t)half_secs : SCALE_MAXSEC_CAP;
	uint32_t mult, shift;
	uint64_t cyc;

	/*
	 * The error of one conversion grows with the interval, and faster than
	 * it where a longer interval forces a smaller shift: halve it until
	 * converting a whole interval is within 1 ns.  The interval is the
	 * conversion range itself, not the longer overflow bound, or halving
	 * would not shorten it where the 32-bit mult, not maxsec, set the shift.
	 */
	for (;; maxsec /= 2) {
		cyclock_calc_mult_shift(&mult, &shift, rate_hz, CYCLOCK_NSEC_PER_SEC, maxsec);
		if (!mult)
			return CYCLOCK_ERANGE;
		cyc = max_delta(mask, mult, shift);
		if (cyc / rate_hz >= maxsec)
			cyc = (uint64_t)maxsec * rate_hz; /* less than cyc: no overflow */
		cyc -= cyc >> 3; /* a 12.5% margin for late updates */
		if (maxsec == 1 || error_within_1ns(cyc, rate_hz, mult, shift))
			break;
	}
	sc->mask = mask;
	sc->mult = mult;
	sc->shift = shift;
	sc->wrap_cyc = cyc;
	sc->wrap_ns = cyclock_cyc_to_ns(cyc, mult, shift);
	return 0;
}
