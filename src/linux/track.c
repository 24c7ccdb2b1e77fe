/* SPDX-License-Identifier: MIT */
/*
 * Tracking the kernel's clocks: the writer's side of the timelines.
 *
 * A resync reads the counter and the kernel clock together (the tightest
 * bracket of three), compares the timeline with it, re-estimates the
 * kernel clock's rate from the samples kept, and, once the counter is past
 * the current segment's horizon, publishes a segment that starts there,
 * continuing the current one exactly, with a slope that reaches the
 * kernel's projected value at its own horizon.  The slope stays within
 * +-CYCLOCK_MAX_SLEW of the estimated rate and above the old segment's low
 * slope (cyclock__mult_low()), so corrections are slews, never steps back,
 * however late the new segment is published.  Intervals start at 1 ms and
 * double while the error stays small, up to 250 ms.
 *
 * An error beyond cyclock__tol_ns() means the counter did something the
 * kernel's clock did not (stalled, jumped back, leaped forward): the
 * timeline restarts from the kernel's value plus the guard, a step that
 * is never backwards (see cyclock__guard_ns()).
 */
#define _GNU_SOURCE

#include "internal.h"

/*
 * How far the counter's time may differ from the kernel's after @gap_ns
 * without being wrong: the kernel's frequency may move by 500 ppm either
 * way (NTP's limit), so from one estimate to the next by up to 1000 ppm.
 */
uint64_t cyclock__tol_ns(uint64_t gap_ns)
{
	return CYCLOCK_TOL_NS + gap_ns / 1000;
}

/*
 * The guard: how far ahead of the kernel the timeline may be, so how far
 * above the kernel's reading a read that cannot trust the counter must
 * answer, and a restart must begin, not to go below a value already
 * handed out.  The largest lead seen at a resync plus 1 us, kept within
 * half the tolerance (a restart's own lead must not look like another
 * anomaly), and never lowered (a restart may follow reads that used it).
 */
uint64_t cyclock__guard_ns(void)
{
	uint64_t g = atomic_load_explicit(&cyclock__host.guard_ns, memory_order_relaxed);

	return g ? g : CYCLOCK_GUARD_MIN_NS;
}

static void raise_guard(int64_t lead)
{
	uint64_t g = CYCLOCK_GUARD_MIN_NS + (lead > 0 ? (uint64_t)lead : 0);

	if (g > CYCLOCK_GUARD_MAX_NS)
		g = CYCLOCK_GUARD_MAX_NS;
	if (g > cyclock__guard_ns())
		atomic_store_explicit(&cyclock__host.guard_ns, g, memory_order_relaxed);
}

static uint32_t mult_of(double ns_per_cyc)
{
	double m = ns_per_cyc * (double)(1ull << cyclock__host.shift) + 0.5;

	return m >= (double)UINT32_MAX ? UINT32_MAX : m <= 0 ? 0 : (uint32_t)m;
}

/*
 * A new sample for the rate: the kernel clock's ns per count from the
 * anchor to the newest sample.  The anchor is 0.5 to 1 s old (once that
 * much has passed): long enough for the brackets' noise to average out
 * (~20 ppb over 1 s) and for the rate not to follow every wobble of the
 * kernel's clock, short enough to follow it when NTP changes its
 * frequency.  However often resyncs come, the baseline stays that long.
 * Not before it reaches 500 us: until then the initial measurement is
 * better.  A rate beyond the slew bound from the current one means
 * something jumped between the samples (the kernel cannot slew so fast):
 * the baseline starts again from here.
 */
static void take_rate(struct cyclock__track *tr, const struct cyclock__sample *s)
{
	double rate;

	tr->last = *s;
	if (s->ns - tr->mid.ns >= CYCLOCK_RATE_SPAN_NS / 2) {
		tr->anchor = tr->mid;
		tr->mid = *s;
	}
	if (s->ns - tr->anchor.ns < 500 * NSEC_PER_USEC)
		return;
	rate = (double)(s->ns - tr->anchor.ns) / (double)(s->cyc - tr->anchor.cyc);
	if (rate > tr->rate * (1 + CYCLOCK_MAX_SLEW) || rate < tr->rate * (1 - CYCLOCK_MAX_SLEW)) {
		tr->anchor = tr->mid = *s;
		return;
	}
	tr->rate = rate;
}

/*
 * Start over from the kernel's value at the sample plus @guard_ns.  The
 * kernel read its clock somewhere inside the bracket, so starting from its
 * low end puts the timeline at or above the kernel's clock (by at most the
 * bracket's width), at that counter value and, at the same rate, after it.
 */
static void restart(struct cyclock__track *tr, const struct cyclock__sample *s, uint64_t guard_ns,
		    const uint64_t off[2])
{
	struct cyclock__segv v;

	v.cyc = s->lo;
	v.ns = s->ns + guard_ns;
	v.frac = 0;
	v.mult = v.mult_prev = v.mult_rate = mult_of(tr->rate);
	v.off_real = off[0];
	v.off_boot = off[1];
	tr->interval = cyclock__host.min_int_cyc;
	v.stale = (uint32_t)tr->interval;
	cyclock__publish(tr->tl, &v);
	tr->anchor = tr->mid = tr->last = *s;
}

void cyclock__track_start(struct cyclock__track *tr, const struct cyclock__sample *s)
{
	uint64_t off[2] = { cyclock__host.off_real, cyclock__host.off_boot };

	if (tr->id != CLOCK_MONOTONIC)
		off[0] = off[1] = 0;
	atomic_store_explicit(&tr->tl->shift, cyclock__host.shift, memory_order_relaxed);
	restart(tr, s, 0, off);
}

/* Double the interval while the error stays small; halve it when not. */
static void adapt_interval(struct cyclock__track *tr, uint64_t abs_err)
{
	if (abs_err <= CYCLOCK_GOOD_ERR_NS)
		tr->interval *= 2;
	else if (abs_err > 4 * CYCLOCK_GOOD_ERR_NS)
		tr->interval /= 2;
	if (tr->interval > cyclock__host.max_int_cyc)
		tr->interval = cyclock__host.max_int_cyc;
	if (tr->interval < cyclock__host.min_int_cyc)
		tr->interval = cyclock__host.min_int_cyc;
}

/*
 * The slope from @P (where the timeline is at @vp_ns + @vp_frac) that
 * meets the kernel's projected value @T counts later, within the slew
 * bound (ahead beyond the tolerance: as slow as allowed), and never below
 * @low, the slope readers of the old segment may be extrapolating at.
 */
static uint32_t aim(const struct cyclock__track *tr, const struct cyclock__sample *s, uint64_t P,
		    uint64_t vp_ns, uint32_t vp_frac, uint64_t T, bool ahead, uint32_t low)
{
	double tgt = (double)(int64_t)(s->ns - vp_ns) -
		     (double)vp_frac / (double)(1ull << cyclock__host.shift) +
		     (double)(int64_t)(P + T - s->cyc) * tr->rate;
	double slope = tgt / (double)T;
	double lo = ahead ? 0 : tr->rate * (1 - CYCLOCK_MAX_SLEW);
	double hi = tr->rate * (1 + CYCLOCK_MAX_SLEW);
	uint32_t mult = mult_of(slope < lo ? lo : slope > hi ? hi : slope);

	return mult < low ? low : mult;
}

/* Take sample @s into the rate estimate and the interval. */
static void learn(struct cyclock__track *tr, const struct cyclock__sample *s, int64_t e)
{
	take_rate(tr, s);
	adapt_interval(tr, (uint64_t)(e < 0 ? -e : e));
	tr->last_err = e;
}

/*
 * How long the next middle piece lasts, in counts: the interval, or long
 * enough to take error @e back at half the slew bound (ahead beyond the
 * tolerance: at the slowest slope allowed, 2000 ppm below the rate),
 * whichever is longer, within the longest interval, so that a large
 * error shrinks at every resync however seldom they come.
 */
static uint64_t correction_span(const struct cyclock__track *tr, int64_t e, bool ahead)
{
	double abs_ns = (double)(e < 0 ? -e : e);
	double span = abs_ns / (ahead ? 2 * CYCLOCK_MAX_SLEW : CYCLOCK_MAX_SLEW / 2) / tr->rate;

	if (span < (double)tr->interval)
		return tr->interval;
	if (span > (double)cyclock__host.max_int_cyc)
		return cyclock__host.max_int_cyc;
	return (uint64_t)span;
}

/* One timeline's resync at sample @s; the caller holds host.writer. */
static void track_refresh(struct cyclock__track *tr, const struct cyclock__sample *s,
			  const uint64_t off[2])
{
	struct cyclock__segv cur = cyclock__seg_load(tr->tl), next;
	uint64_t our, gap, tol, cw, end, T;
	uint32_t frac, low;
	bool ahead;
	int64_t e;

	cyclock__seg_at(&cur, cyclock__host.shift, s->cyc, &our, &frac);
	e = (int64_t)(our - s->ns);
	gap = s->cyc - cur.cyc;
	/* The sample's own uncertainty (its bracket) widens the tolerance: a
	 * writer preempted while sampling must not take that for an anomaly. */
	tol = cyclock__tol_ns((int64_t)gap > 0 ? (uint64_t)((double)gap * tr->rate) : 0) +
	      (uint64_t)((double)s->width * tr->rate);
	tr->refreshes++;
	/* Past the middle piece (or before P), readers checked the counter
	 * against the kernel too, and returned its value plus the guard. */
	if (e < -(int64_t)tol || (e > (int64_t)tol && gap >= cur.stale)) {
		atomic_fetch_add_explicit(&cyclock__host.anomalies, 1, memory_order_relaxed);
		restart(tr, s, cyclock__guard_ns(), off);
		tr->last_err = e;
		return;
	}
	ahead = e > (int64_t)tol; /* values already handed out: slow down as far as allowed */
	if (!ahead)
		raise_guard(e);
	learn(tr, s, e);

	next = cur;
	next.off_real = off[0];
	next.off_boot = off[1];
	cw = cyclock_arch_counter_ordered();
	end = cur.cyc + cur.stale;
	/* Past the horizon: every reader of the current segment is below it,
	 * or past it at the low slope.  Before it, keep the function (a new
	 * offset only). */
	if ((int64_t)(cw - end) >= 0) {
		low = cyclock__mult_low(cur.mult_rate);
		next.cyc = cw;
		cyclock__seg_at(&cur, cyclock__host.shift, cw, &next.ns, &next.frac);
		next.mult_prev = cw == end ? cur.mult : cur.mult_rate;
		T = correction_span(tr, e, ahead);
		next.mult = aim(tr, s, cw, next.ns, next.frac, T, ahead, low);
		next.mult_rate = mult_of(tr->rate) < low ? low : mult_of(tr->rate);
		next.stale = (uint32_t)T;
	}
	cyclock__publish(tr->tl, &next);
}

/*
 * Resync both timelines; the caller holds host.writer.  Runs again for
 * cyclock_resync() calls that arrived meanwhile (they found the flag taken
 * and left this to us), but at most twice: a thread that resyncs in a
 * loop must not keep this one here forever.
 */
void cyclock__refresh(void)
{
	static const uint64_t no_off[2] = { 0, 0 };
	struct cyclock__sample sm, sr;
	uint64_t off[2];
	int passes = 0;

	do {
		atomic_store_explicit(&cyclock__host.pending, 0, memory_order_relaxed);
		cyclock__measure_offsets(false);
		off[0] = cyclock__host.off_real;
		off[1] = cyclock__host.off_boot;
		cyclock__sample(CLOCK_MONOTONIC, &sm);
		track_refresh(&cyclock__host.mono, &sm, off);
		cyclock__sample(CLOCK_MONOTONIC_RAW, &sr);
		track_refresh(&cyclock__host.raw, &sr, no_off);
	} while (++passes < 3 && atomic_load_explicit(&cyclock__host.pending, memory_order_relaxed));
}

/* A reader's refresh: skipped if another writer is at it. */
bool cyclock__try_refresh(void)
{
	if (!cyclock__writer_trylock(&cyclock__host.writer))
		return false;
	cyclock__refresh();
	cyclock__writer_unlock(&cyclock__host.writer);
	return true;
}

