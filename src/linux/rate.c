/* SPDX-License-Identifier: MIT */
/*
 * What the writer knows of the kernel's rate: its own clocks' statement of
 * it (MONOTONIC's rate over RAW's, no system call), the rate measured
 * against the counter over a baseline of 0.5 to 1 s, which of the two to
 * take, how the resync interval adapts, and how far the rate's own
 * uncertainty lets the timeline drift (track.c's decisions rest on these).
 *
 * Tests: tests/linux/test_decide.c (the ratio followed or not, case by
 * case), sim_slew.c (the kernel's rate changed over its whole range),
 * sim_track.c (the rate converging, the interval lengthening, a young
 * estimate after a pause).
 */
#include "internal.h"

/* The multiplier that turns counts into ns at @ns_per_cyc with @shift,
 * rounded, within 32 bits. */
uint32_t cyclock__mult_of(double ns_per_cyc, uint32_t shift)
{
	double m = ns_per_cyc * (double)(1ull << shift) + 0.5;

	return m >= (double)UINT32_MAX ? UINT32_MAX : m <= 0 ? 0 : (uint32_t)m;
}

/*
 * MONOTONIC's rate over RAW's from sample @a to sample @b (later), in
 * ppm, and how far off it may be (@unc, ppm): each RAW - MONOTONIC offset
 * is within half its bracket (and a ns of rounding), and both clocks are
 * the kernel's reading of one counter, so no read of ours is in it.
 */
static double ratio_between(const struct cyclock__sample *a, const struct cyclock__sample *b,
			    double *unc)
{
	double span = (double)(b->ns - a->ns);

	*unc = ((double)(a->raw_w + b->raw_w) / 2 + 2) / span * 1e6;
	return (double)(int64_t)(a->raw_off - b->raw_off) / span * 1e6;
}

/*
 * CLOCK_MONOTONIC's rate as the kernel's clocks state it: RAW's (which
 * never changes, so its estimate has the longest baseline) times the
 * ratio.  0 while the ratio is not known yet, and for the RAW timeline.
 */
double cyclock__stated_rate(const struct cyclock__track *tr)
{
	if (tr->id != CLOCK_MONOTONIC || tr->state.ratio_unc >= CYCLOCK_RATIO_UNKNOWN)
		return 0;
	return tr->raw->state.rate * (1 + tr->state.ratio_ppm * 1e-6);
}

/* @measured, or the stated rate if it agrees within CYCLOCK_AGREE_PPM:
 * the measurement checks the statement (RAW's rate, which it rests on, is
 * an estimate too), the statement is the better figure. */
double cyclock__best_rate(const struct cyclock__track *tr, double measured)
{
	double stated = cyclock__stated_rate(tr);

	if (stated > 0 && cyclock__absd(measured / stated - 1) < CYCLOCK_AGREE_PPM * 1e-6)
		return stated;
	return measured;
}

/*
 * A new sample for the rate: the kernel clock's ns per count from the
 * anchor to the newest sample.  The anchor is 0.5 to 1 s old once that
 * much has passed: long enough for the brackets' noise to average out,
 * short enough to follow NTP.  Not before 50 ms (the initial rate is
 * better until then), nor for 500 ms after a change the kernel's clocks
 * showed (the stated rate is, as its ratio is measured again over a
 * longer baseline: a baseline of 50 ms is 1 ppm of noise).
 */
void cyclock__take_rate(struct cyclock__track *tr, const struct cyclock__sample *s)
{
	double stated = cyclock__stated_rate(tr);

	tr->state.last = *s;
	if (s->ns - tr->state.mid.ns >= CYCLOCK_RATE_SPAN_NS / 2) {
		tr->state.anchor = tr->state.mid;
		tr->state.mid = *s;
	}
	if ((int64_t)(s->ns - tr->state.hold_ns) < 0 && stated > 0) {
		tr->state.rate = stated;
		return;
	}
	if (s->ns - tr->state.anchor.ns < CYCLOCK_RATE_MIN_NS)
		return;
	tr->state.rate = cyclock__best_rate(tr, (double)(s->ns - tr->state.anchor.ns) /
						        (double)(s->cyc - tr->state.anchor.cyc));
}

/* A kernel-mode spell ended within CYCLOCK_RECENT_NS of @now_ns: the
 * kernel's rate may change again soon. */
bool cyclock__spell_recent(const struct cyclock__track *tr, uint64_t now_ns)
{
	return tr->state.spells && now_ns - tr->state.spell_end_ns < CYCLOCK_RECENT_NS;
}

/*
 * Double the interval while the error stays small; halve it when not.
 * Soon after a kernel-mode spell, at most CYCLOCK_QUICK_NS: a tick change
 * is unseen until the next resync, and a clock behind the kernel by then
 * makes an absolute-deadline sleep look early.
 */
void cyclock__adapt_interval(struct cyclock__track *tr, uint64_t abs_err, uint64_t now_ns)
{
	uint64_t max = cyclock__spell_recent(tr, now_ns) ? tr->counts->quick_int_cyc
						: tr->counts->max_int_cyc;

	if (abs_err <= CYCLOCK_GOOD_ERR_NS)
		tr->state.interval *= 2;
	else if (abs_err > 4 * CYCLOCK_GOOD_ERR_NS)
		tr->state.interval /= 2;
	if (tr->state.interval > max)
		tr->state.interval = max;
	if (tr->state.interval < tr->counts->quick_int_cyc)
		tr->state.interval = tr->counts->quick_int_cyc;
}

/* Whether the RAW - MONOTONIC offset of @s is where the ratio in use puts
 * it from the last sample's: within both brackets, the ratio's own
 * uncertainty over the interval, and CYCLOCK_RATIO_SLACK_NS. */
static bool ratio_holds(const struct cyclock__track *tr, const struct cyclock__sample *s)
{
	const struct cyclock__sample *last = &tr->state.last;
	double span = (double)(s->ns - last->ns);
	double off = (double)(int64_t)(last->raw_off - s->raw_off) -
		     tr->state.ratio_ppm * 1e-6 * span;

	return cyclock__absd(off) <= (double)(last->raw_w + s->raw_w) / 2 + CYCLOCK_RATIO_SLACK_NS +
					     tr->state.ratio_unc * 1e-6 * span;
}

/*
 * Has the kernel's rate changed?  Its own clocks say, with no system
 * call: MONOTONIC's rate over RAW's (which nothing disciplines), from the
 * RAW - MONOTONIC offsets the samples carry.  While the offset moved over
 * the last interval as the ratio in use says, it has not, and the ratio
 * is measured again over the rate's baseline (0.5 to 1 s, or since the
 * last change: a change too small to show in one interval is taken up
 * within a second); the first such measurement makes the ratio known, and
 * the rate with it.  Beyond, it has: the new ratio is the last
 * interval's (a change within that interval shows again at the next
 * resync, and is followed again).  A change within CYCLOCK_FOLLOW_PPM is
 * followed at once; a larger one is not: returns false, for kernel mode.
 * *@moved: it changed.  RAW's track has no ratio, and never moves.
 */
bool cyclock__follow_kernel(struct cyclock__track *tr, const struct cyclock__sample *s, bool *moved)
{
	const struct cyclock__sample *base = &tr->state.anchor;
	bool known = tr->state.ratio_unc < CYCLOCK_RATIO_UNKNOWN, followed;
	double unc, r;

	*moved = false;
	if (tr->id != CLOCK_MONOTONIC || !s->raw_w || !tr->state.last.raw_w ||
	    s->ns <= tr->state.last.ns)
		return true;
	if (!known || ratio_holds(tr, s)) {
		if (!base->raw_w || base->ns >= tr->state.last.ns)
			base = &tr->state.last;
		r = ratio_between(base, s, &unc);
		if (unc < tr->state.ratio_unc || unc < CYCLOCK_RATIO_GOOD_PPM) {
			tr->state.ratio_ppm = r;
			tr->state.ratio_unc = unc;
		}
		if (!known)
			tr->state.rate = cyclock__stated_rate(tr);
		return true;
	}
	r = ratio_between(&tr->state.last, s, &unc);
	*moved = true;
	followed = cyclock__absd(r - tr->state.ratio_ppm) <= CYCLOCK_FOLLOW_PPM;
	tr->state.ratio_ppm = r;
	tr->state.ratio_unc = unc;
	if (followed) {
		tr->state.rate = cyclock__stated_rate(tr);
		tr->state.rate_changes++;
	}
	return followed;
}

/*
 * How far the timeline may have drifted from the kernel's clock over @gap
 * counts past its horizon through its rate's uncertainty alone: the
 * rate's baseline's brackets over its length (the track's own, or RAW's
 * from initialisation's first sample, whichever is the better), twice,
 * plus 1 ppm.  A process that reads again after a long pause on a young
 * estimate is that far off without anything having gone wrong.
 */
uint32_t cyclock__drift_ppb(const struct cyclock__track *tr)
{
	const struct cyclock__sample *a = tr->first_raw, *b = &tr->raw->state.last;
	double unc = 0.5, ppb; /* no baseline at all: each bracket as wide as it */

	if (b->ns > a->ns)
		unc = cyclock__rate_unc(a, b, tr->state.rate);
	if (tr->state.last.ns > tr->state.anchor.ns) {
		double own = cyclock__rate_unc(&tr->state.anchor, &tr->state.last, tr->state.rate);

		unc = own < unc ? own : unc;
	}
	/* Twice the sum of the widths, the mean's four times. */
	ppb = (4 * unc + 1e-6) * 1e9;
	return ppb < UINT32_MAX ? (uint32_t)ppb : UINT32_MAX;
}

/* That drift over @gap counts, in ns. */
uint64_t cyclock__drift_slack(const struct cyclock__track *tr, uint64_t gap)
{
	return cyclock__drift_ns((double)gap * tr->state.rate, cyclock__drift_ppb(tr));
}
