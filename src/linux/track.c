/* SPDX-License-Identifier: MIT */
/*
 * Tracking the kernel's clocks, the writer's decision: from a resync's
 * sample (resync.c), cyclock__decide() says what the timeline publishes
 * next.  The cases and their reasons are docs/hosted.md's ("Tracking the
 * kernel's clocks").  This file decides for counter segments; rate.c
 * keeps the rate and the interval; kmode.c decides in kernel mode and
 * makes the fresh segments that end it.
 *
 * Tests: tests/linux/test_decide.c (cyclock__decide(), case by case),
 * sim_track.c (convergence on a well-behaved machine), sim_anomaly.c (a
 * counter that misbehaves), sim_bookkeeping.c.
 */
#include "internal.h"

void cyclock__track_start(struct cyclock__track *tr, const struct cyclock__sample *s)
{
	struct cyclock__segv zero = { 0 };

	cyclock_atomic_store(&tr->tl->shift, tr->counts->shift, CYCLOCK_RELAXED);
	zero.off_real = tr->id == CLOCK_MONOTONIC ? TRACKS_OFF(off_real) : 0;
	zero.off_boot = tr->id == CLOCK_MONOTONIC ? TRACKS_OFF(off_boot) : 0;
	/* MONOTONIC runs at RAW's rate times a ratio the kernel's clocks show
	 * from @s on (rate.c): until it is measured, at RAW's rate (both start
	 * at the same rate, start.c). */
	tr->state.ratio_ppm = 0;
	tr->state.ratio_unc = CYCLOCK_RATIO_UNKNOWN;
	/* Kernel mode's first window, should the fresh segment not take (the
	 * timeline then stays in kernel mode and looks again later). */
	tr->state.win = tr->state.anchor = tr->state.mid = tr->state.last = *s;
	tr->state.win_rate = 0;
	cyclock__start_fresh(tr, s, &zero);
}

/*
 * The slope from @P (where the timeline is at @vp_ns + @vp_frac) that
 * meets the kernel's projected value @T counts later: within +-1000 ppm
 * of the rate, or as low as the low slope to take a lead back.
 */
static uint32_t aim(const struct cyclock__track *tr, const struct cyclock__sample *s, uint64_t P,
		    uint64_t vp_ns, uint32_t vp_frac, uint64_t T, uint32_t low)
{
	double tgt = (double)(int64_t)(s->ns - vp_ns) -
		     (double)vp_frac / (double)(1ull << tr->counts->shift) +
		     (double)(int64_t)(P + T - s->cyc) * tr->state.rate;
	double slope = tgt / (double)T;
	double hi = tr->state.rate * (1 + CYCLOCK_FOLLOW_PPM * 1e-6);
	uint32_t mult = cyclock__mult_of(slope > hi ? hi : slope, tr->counts->shift);

	return mult < low ? low : mult;
}

/*
 * Over how many counts to take the error back: a sample's own noise
 * (within CYCLOCK_NOISE_NS) gently, over CYCLOCK_GENTLE_NS, so that the
 * slope does not jitter by tens of ppm from one interval to the next; a
 * real error at 500 ppm, but within one interval at least.
 */
static uint64_t correction_span(const struct cyclock__track *tr, uint64_t at_ns,
				const struct cyclock__sample *s, uint64_t cw)
{
	double k = (double)s->ns + (double)(int64_t)(cw - s->cyc) * tr->state.rate;
	double e = cyclock__absd((double)at_ns - k), span_ns;

	span_ns = e <= CYCLOCK_NOISE_NS ? CYCLOCK_GENTLE_NS : e / (CYCLOCK_CORRECT_PPM * 1e-6);
	if (span_ns > CYCLOCK_GENTLE_NS)
		span_ns = CYCLOCK_GENTLE_NS;
	if (span_ns < (double)tr->state.interval * tr->state.rate)
		return tr->state.interval;
	return (uint64_t)(span_ns / tr->state.rate);
}

/*
 * The next counter segment at @cw: continuing @cur, or stepping forward to
 * the kernel's clock if @cur is behind by more than the noise, or, if
 * @cur is ahead, starting no higher than it must: at the kernel's clock,
 * but at least at the most @cur handed out (its value at its horizon: its
 * readers past it served the kernel's clock, which raises the segment at
 * the publish, cyclock__publish()), so that a lead @cur's extrapolation
 * gathered past its horizon, where nobody read it (a process idle for a
 * second on a young rate estimate is 10 us ahead), is not slewed back
 * over tens of milliseconds.
 */
static struct cyclock__segv next_segment(const struct cyclock__track *tr,
					 const struct cyclock__segv *cur,
					 const struct cyclock__sample *s, uint64_t cw)
{
	struct cyclock__segv next = *cur;
	uint64_t hand = cyclock__seg_horizon(cur, tr->counts->shift);
	double ahead_of_lo = (double)(int64_t)(cw - s->lo - s->width) * tr->state.rate;
	uint64_t k_low = s->ns + (uint64_t)(ahead_of_lo > 0 ? ahead_of_lo : 0);
	uint32_t low = cyclock__mult_low(cur->mult_rate);

	next.cyc = cw;
	cyclock__seg_at(cur, tr->counts->shift, cw, &next.ns, &next.frac);
	if (k_low > hand + CYCLOCK_STEP_NS && k_low > next.ns) {
		next.ns = s->ns + (uint64_t)((double)(int64_t)(cw - s->cyc) * tr->state.rate);
		next.frac = 0;
	} else if (k_low < next.ns && hand < next.ns) {
		next.ns = k_low > hand ? k_low : hand;
		next.frac = 0;
	}
	next.horizon_cyc = (uint32_t)tr->state.interval;
	next.mult = aim(tr, s, cw, next.ns, next.frac, correction_span(tr, next.ns, s, cw), low);
	next.mult_rate = cyclock__mult_of(tr->state.rate, tr->counts->shift);
	if (next.mult_rate < low)
		next.mult_rate = low;
	return next;
}

/*
 * Whether to leave the counter, from the error @e (ns, ours - kernel) and
 * what the kernel's clocks said of its rate (@moved: it changed,
 * @followed: by at most CYCLOCK_FOLLOW_PPM).  An error beyond
 * CYCLOCK_WRONG_NS that the kernel's rate does not explain means the
 * counter went wrong; two in a row beyond the noise, that the counter and
 * the kernel drifted apart (the counter, or RAW's rate estimate).
 * Returns why, or NULL to stay.
 */
static const char *leave_counter(struct cyclock__track *tr, int64_t e, uint64_t slack, bool moved,
				 bool followed, bool *counter_wrong)
{
	uint64_t abs_e = (uint64_t)(e < 0 ? -e : e);

	*counter_wrong = false;
	if (!followed)
		return "the kernel's rate changed by more than 1000 ppm";
	if (abs_e > CYCLOCK_WRONG_NS + slack) {
		*counter_wrong = !moved;
		return moved ? "the kernel's rate changed" : "the counter disagreed with the kernel";
	}
	if (moved || abs_e <= slack) {
		tr->state.strikes = 0;
		return NULL;
	}
	return ++tr->state.strikes >= 2 ? "the counter and the kernel's clock drifted apart" : NULL;
}

/*
 * What timeline @tr publishes after sample @s, with the writer's counter
 * read @cw, the offsets @off (NULL: @cur's), from the
 * current segment @cur; @went_back: a reader saw the counter far before
 * it.  Reads only these and what @tr points at (its counts, RAW's track,
 * init's first sample), updates the track's own state (its rate,
 * interval, strikes, windows) and nothing else: the kernel and the
 * counter are what the arguments say (tests/linux/test_decide.c).  The
 * caller holds the writer flag.
 */
struct cyclock__decision cyclock__decide(struct cyclock__track *tr,
					 const struct cyclock__segv *cur,
					 const struct cyclock__sample *s, uint64_t cw,
					 const uint64_t *off, bool went_back)
{
	struct cyclock__decision d = { CYCLOCK__KEEP, *cur, NULL, false };
	uint64_t our, slack;
	uint32_t frac;
	bool moved, followed = cyclock__follow_kernel(tr, s, &moved), wrong;
	const char *why;
	int64_t e;

	if (off) {
		d.seg.off_real = off[0];
		d.seg.off_boot = off[1];
	}
	tr->state.resyncs++;
	if (!cur->horizon_cyc)
		d = cyclock__kernel_step(tr, &d.seg, s, cw, moved);
	else if (went_back)
		d = cyclock__enter_kernel(tr, &d.seg, s, cw, true, "the counter went back");
	else if ((int64_t)(cw - cur->cyc - cur->horizon_cyc) < 0)
		return d; /* before the horizon (cyclock_resync()): new offsets only */
	else {
		cyclock__seg_at(cur, tr->counts->shift, s->cyc, &our, &frac);
		e = (int64_t)(our - s->ns);
		tr->state.last_err = e;
		/* The bracket's own uncertainty (a writer preempted while
		 * sampling must not take that for the counter's error), and the
		 * drift the rate's may have gathered since the horizon. */
		slack = CYCLOCK_NOISE_NS + (uint64_t)((double)s->width * tr->state.rate) +
			cyclock__drift_slack(tr, cw - cur->cyc - cur->horizon_cyc);
		why = leave_counter(tr, e, slack, moved, followed, &wrong);
		if (why)
			return cyclock__enter_kernel(tr, &d.seg, s, cw, wrong, why);
		if (moved) {
			tr->state.anchor = tr->state.mid = tr->state.last = *s;
			tr->state.hold_ns = s->ns + CYCLOCK_RATE_SPAN_NS / 2;
		} else {
			cyclock__take_rate(tr, s);
		}
		cyclock__adapt_interval(tr, (uint64_t)(e < 0 ? -e : e), s->ns);
		d.seg = next_segment(tr, &d.seg, s, cw);
		d.seg.drift_ppb = cyclock__drift_ppb(tr);
		d.what = CYCLOCK__NEXT;
	}
	return d;
}
