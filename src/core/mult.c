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
 *
 * Tests: tests/core/test_mult.c, against 128-bit arithmetic of its own; the
 * wrap interval also in test_clock.c.
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

uint64_t cyclock__scale_wide(uint64_t delta, uint32_t mult, uint64_t frac, uint32_t shift,
			    uint64_t *rem)
{
	struct u128 p = mul_64x64(delta, mult);

	p.lo += frac;
	p.hi += p.lo < frac;
	if (rem)
		*rem = shift ? p.lo & ((1ull << shift) - 1) : 0;
	if (!shift)
		return p.hi ? UINT64_MAX : p.lo;
	if (p.hi >> shift)
		return UINT64_MAX;
	return (p.hi << (64 - shift)) | (p.lo >> shift);
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
 * How far mult / 2^shift is from 1e9 / rate, in parts per trillion,
 * rounded up: |mult * rate - 1e9 * 2^shift| * 1000 / 2^shift.  mult is
 * rounded to nearest, so the difference is at most rate / 2 (64 bits);
 * a result beyond 64 bits saturates.
 */
static uint64_t rate_error_ppt(uint64_t rate, uint32_t mult, uint32_t shift)
{
	struct u128 a = mul_64x64(mult, rate), b = u128_shl(CYCLOCK_NSEC_PER_SEC, shift);
	struct u128 d = u128_le(a, b) ? b : a, e = u128_le(a, b) ? a : b;
	struct u128 x = mul_64x64(d.lo - e.lo, 1000);
	uint64_t below = shift ? x.lo & ((1ull << shift) - 1) : 0;
	uint64_t q;

	if (shift ? x.hi >> shift : x.hi)
		return UINT64_MAX;
	q = shift ? (x.lo >> shift) | (x.hi << (64 - shift)) : x.lo;
	return q + (below != 0);
}

/* The longest delta that converts without overflow, with the epoch's fraction added. */
static uint64_t max_delta(uint64_t mask, uint32_t mult, uint32_t shift)
{
	uint64_t half = (mask >> 1) + 1; /* see cyclock__delta() */
	uint64_t frac_max = (1ull << shift) - 1;
	uint64_t overflow = (UINT64_MAX - frac_max) / mult;

	return half < overflow ? half : overflow;
}

/*
 * The choice (see cyclock__choose_scale()): the longest interval up to an
 * hour, and a rate error of at most 100 ppb where the interval must give
 * way, but the interval never shorter than a second for precision.
 */
#define SCALE_MAX_NS (3600 * CYCLOCK_NSEC_PER_SEC)
#define SCALE_MIN_NS CYCLOCK_NSEC_PER_SEC
#define SCALE_ERROR_PPT 100000u

static uint64_t add_sat(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* The counts in @ns at @rate, at least 1; saturates.  No 128-bit division:
 * whole seconds, then the rest against the rate's whole and part GHz. */
static uint64_t counts_in(uint64_t ns, uint64_t rate)
{
	uint64_t secs = ns / CYCLOCK_NSEC_PER_SEC, rest = ns % CYCLOCK_NSEC_PER_SEC;
	struct u128 whole = mul_64x64(secs, rate);
	uint64_t c = whole.hi ? UINT64_MAX : whole.lo;

	c = add_sat(c, rest * (rate / CYCLOCK_NSEC_PER_SEC));
	c = add_sat(c, rest * (rate % CYCLOCK_NSEC_PER_SEC) / CYCLOCK_NSEC_PER_SEC);
	return c ? c : 1;
}

/* The interval mult/shift allow: the delta that still converts (and stays
 * under half the period), less a 12.5% margin for late updates; @cap_cyc at most. */
static uint64_t interval_cyc(uint64_t mask, uint32_t mult, uint32_t shift, uint64_t cap_cyc)
{
	uint64_t lim = max_delta(mask, mult, shift);

	lim -= lim >> 3;
	return lim < cap_cyc ? lim : cap_cyc;
}

/* round(1e9 * 2^s / rate) for each s in turn, by long division (s < 64). */
struct mult_walk {
	uint64_t q, r, rate;
	uint32_t s;
};

static uint64_t walk_start(struct mult_walk *w, uint64_t rate)
{
	w->q = CYCLOCK_NSEC_PER_SEC / rate;
	w->r = CYCLOCK_NSEC_PER_SEC % rate;
	w->rate = rate;
	w->s = 0;
	return w->q + (w->r >= rate - w->r); /* round half up, as cyclock_calc_mult_shift() */
}

static uint64_t walk_next(struct mult_walk *w)
{
	next_quotient_bit(&w->q, &w->r, w->rate);
	w->s++;
	return w->q + (w->r >= w->rate - w->r);
}

#define NO_SHIFT 64u

/*
 * Shifts in ascending order give ever larger mults, so ever shorter
 * intervals and, roughly, finer rates.  Picks the largest shift whose
 * interval still reaches @goal_cyc (the finest rate at the longest
 * interval); if that rate is off by more than SCALE_ERROR_PPT, the first
 * shift beyond it that is within, so long as its interval reaches
 * @floor_cyc; if none is, the finest rate among those that reach it.
 * NO_SHIFT if no mult fits.
 */
static uint32_t pick_shift(uint64_t rate, uint64_t mask, uint64_t cap_cyc, uint64_t goal_cyc,
			   uint64_t floor_cyc)
{
	uint32_t at_goal = NO_SHIFT, finest = NO_SHIFT, first = NO_SHIFT;
	uint64_t goal_ppt = 0, finest_ppt = 0, cyc, ppt, m;
	struct mult_walk w;

	for (m = walk_start(&w, rate); w.s < 64 && m <= UINT32_MAX; m = walk_next(&w)) {
		if (!m)
			continue;
		cyc = interval_cyc(mask, (uint32_t)m, w.s, cap_cyc);
		ppt = rate_error_ppt(rate, (uint32_t)m, w.s);
		if (first == NO_SHIFT)
			first = w.s;
		if (cyc >= floor_cyc && (finest == NO_SHIFT || ppt < finest_ppt)) {
			finest = w.s;
			finest_ppt = ppt;
		}
		if (cyc >= goal_cyc) {
			at_goal = w.s;
			goal_ppt = ppt;
			continue;
		}
		if (at_goal != NO_SHIFT && goal_ppt <= SCALE_ERROR_PPT)
			return at_goal;
		if (cyc < floor_cyc)
			break;
		if (ppt <= SCALE_ERROR_PPT)
			return w.s;
	}
	if (at_goal != NO_SHIFT && goal_ppt <= SCALE_ERROR_PPT)
		return at_goal;
	return finest != NO_SHIFT ? finest : first;
}

/* The mult of shift @s, as pick_shift() saw it. */
static uint32_t mult_at(uint64_t rate, uint32_t s)
{
	struct mult_walk w;
	uint64_t m = walk_start(&w, rate);

	while (w.s < s)
		m = walk_next(&w);
	return (uint32_t)m;
}

/*
 * The most counts, up to @cyc, that convert to at most @ns (the cap's
 * counts may convert to a little more, with a mult rounded up), or 1.
 * Bisection: (c * mult) >> shift <= ns iff c * mult < (ns + 1) * 2^shift.
 */
static uint64_t within_ns(uint64_t cyc, uint64_t ns, uint32_t mult, uint32_t shift)
{
	struct u128 lim = u128_shl(ns + 1, shift); /* ns + 1: no wrap, ns <= an hour */
	uint64_t lo = 1, hi = cyc, mid;

	if (lim.lo-- == 0) /* (ns + 1) * 2^shift - 1 */
		lim.hi--;
	if (u128_le(mul_64x64(cyc, mult), lim))
		return cyc;
	while (hi - lo > 1) { /* hi converts to more than ns; lo does not, or is 1 */
		mid = lo + (hi - lo) / 2;
		if (u128_le(mul_64x64(mid, mult), lim))
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

int cyclock__choose_scale(struct cyclock__scale *sc, uint64_t rate_hz, unsigned int bits,
			  uint64_t max_interval_ns)
{
	uint64_t mask = bits == 64 ? UINT64_MAX : (1ull << bits) - 1;
	uint64_t half = (mask >> 1) + 1, want = SCALE_MAX_NS, cap, goal, floor_cyc;
	uint32_t shift, mult;

	if (max_interval_ns && max_interval_ns < want)
		want = max_interval_ns;
	cap = counts_in(want, rate_hz);
	goal = half - (half >> 3) < cap ? half - (half >> 3) : cap;
	floor_cyc = counts_in(SCALE_MIN_NS, rate_hz);
	if (floor_cyc > goal)
		floor_cyc = goal;
	shift = pick_shift(rate_hz, mask, cap, goal, floor_cyc);
	if (shift == NO_SHIFT)
		return CYCLOCK_ERANGE;
	mult = mult_at(rate_hz, shift);
	sc->mask = mask;
	sc->mult = mult;
	sc->shift = shift;
	sc->wrap_cyc = within_ns(interval_cyc(mask, mult, shift, cap), want, mult, shift);
	sc->wrap_ns = cyclock_cyc_to_ns(sc->wrap_cyc, mult, shift);
	sc->error_ppt = rate_error_ppt(rate_hz, mult, shift);
	return 0;
}
