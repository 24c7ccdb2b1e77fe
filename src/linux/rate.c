/* SPDX-License-Identifier: MIT */
/*
 * What the writer knows of the kernel's rate: adjtimex's statement of it,
 * the rate measured against the counter over a baseline of 0.5 to 1 s,
 * which of the two to take, how the resync interval adapts, and how far
 * the rate's own uncertainty lets the timeline drift (track.c's decisions
 * rest on these).
 */
#define _GNU_SOURCE
#include <sys/timex.h>

#include "internal.h"

uint32_t cyclock__mult_of(double ns_per_cyc, uint32_t shift)
{
	double m = ns_per_cyc * (double)(1ull << shift) + 0.5;

	return m >= (double)UINT32_MAX ? UINT32_MAX : m <= 0 ? 0 : (uint32_t)m;
}
/*
 * The kernel's CLOCK_MONOTONIC rate over its RAW rate as adjtimex states
 * it, in ppm: the tick (us per 1/100 s; CYCLOCK_NOMINAL_TICK), the frequency
 * (ppm << 16) and the PLL's offset slew this second (the offset shifted
 * right by SHIFT_PLL (2) plus the time constant, as kernel/time/ntp.c
 * takes it each second, from what adjtimex shows left).  adjtime()'s
 * slews do not show here.
 */
double cyclock__adj_ppm(const struct cyclock__kadj *a)
{
	double ppm = (double)(a->tick - CYCLOCK_NOMINAL_TICK) * 100.0 + (double)a->freq / 65536.0;

	if ((a->status & STA_PLL) && a->offset && a->constant >= 0 && a->constant < 40) {
		double off_ns = (a->status & STA_NANO) ? (double)a->offset : a->offset * 1e3;

		/* The offset shown is what is left after this second's chunk:
		 * chunk = (left + chunk) >> shift, so chunk = left / (2^shift - 1). */
		ppm += off_ns / (double)((1ull << (2 + a->constant)) - 1) / 1e3;
	}
	return ppm;
}
/*
 * CLOCK_MONOTONIC's rate as adjtimex states it: RAW's (which never
 * changes, so its estimate has the longest baseline) times the stated
 * ratio.  0 if adjtimex is not known, or for the RAW timeline.
 */
double cyclock__stated_rate(const struct cyclock__track *tr)
{
	if (tr->id != CLOCK_MONOTONIC || !tr->adj.known)
		return 0;
	return tr->raw->rate * (1 + tr->adj_ppm * 1e-6);
}
/* @measured, or the stated rate if it agrees within CYCLOCK_AGREE_PPM:
 * the measurement checks the statement (adjtime()'s slews are not in it),
 * the statement is the better figure. */
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
 * better until then), nor for 500 ms after a change adjtimex stated (the
 * stated rate is: a baseline of 50 ms is 1 ppm of noise).
 */
void cyclock__take_rate(struct cyclock__track *tr, const struct cyclock__sample *s)
{
	tr->last = *s;
	if (s->ns - tr->mid.ns >= CYCLOCK_RATE_SPAN_NS / 2) {
		tr->anchor = tr->mid;
		tr->mid = *s;
	}
	if (s->ns - tr->anchor.ns < CYCLOCK_RATE_MIN_NS || (int64_t)(s->ns - tr->hold_ns) < 0)
		return;
	tr->rate = cyclock__best_rate(tr, (double)(s->ns - tr->anchor.ns) /
						  (double)(s->cyc - tr->anchor.cyc));
}
/* A kernel-mode spell ended within CYCLOCK_RECENT_NS of @now_ns: the
 * kernel's rate may change again soon. */
bool cyclock__spell_recent(const struct cyclock__track *tr, uint64_t now_ns)
{
	return tr->spells && now_ns - tr->spell_end_ns < CYCLOCK_RECENT_NS;
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
		tr->interval *= 2;
	else if (abs_err > 4 * CYCLOCK_GOOD_ERR_NS)
		tr->interval /= 2;
	if (tr->interval > max)
		tr->interval = max;
	if (tr->interval < tr->counts->quick_int_cyc)
		tr->interval = tr->counts->quick_int_cyc;
}
/*
 * Has the kernel's rate changed?  adjtimex's word first: a change within
 * CYCLOCK_FOLLOW_PPM is followed at once at the stated rate (the kernel
 * takes it up at its next tick); a larger one is not.  Returns false if
 * the timeline must go to kernel mode.
 */
bool cyclock__follow_adj(struct cyclock__track *tr, const struct cyclock__kadj *a, bool *moved)
{
	double now = a->known ? cyclock__adj_ppm(a) : tr->adj_ppm, d = now - tr->adj_ppm, stated;

	*moved = a->known && (cyclock__absd(d) > 0.01 || a->tick != tr->adj.tick);
	if (!*moved)
		return true;
	tr->adj = *a;
	tr->adj_ppm = now;
	if (cyclock__absd(d) > CYCLOCK_FOLLOW_PPM)
		return false;
	stated = cyclock__stated_rate(tr);
	tr->rate = stated > 0 ? stated : tr->rate * (1 + now * 1e-6) / (1 + (now - d) * 1e-6);
	tr->rate_changes++;
	return true;
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
	const struct cyclock__sample *a = tr->first_raw, *b = &tr->raw->last;
	double unc = 0.5, ppb; /* no baseline at all: each bracket as wide as it */

	if (b->ns > a->ns)
		unc = cyclock__rate_unc(a, b, tr->rate);
	if (tr->last.ns > tr->anchor.ns) {
		double own = cyclock__rate_unc(&tr->anchor, &tr->last, tr->rate);

		unc = own < unc ? own : unc;
	}
	/* Twice the sum of the widths, the mean's four times. */
	ppb = (4 * unc + 1e-6) * 1e9;
	return ppb < UINT32_MAX ? (uint32_t)ppb : UINT32_MAX;
}

uint64_t cyclock__drift_slack(const struct cyclock__track *tr, uint64_t gap)
{
	return cyclock__drift_ns((double)gap * tr->rate, cyclock__drift_ppb(tr));
}
