/* SPDX-License-Identifier: MIT */
/*
 * Kernel mode, the writer's side: entering it (the kernel's rate changed
 * faster than the counter can follow, or the counter disagreed with the
 * kernel), staying in it while the kernel's rate is unsteady, and handing
 * back to the counter with a fresh segment once it is steady (the first
 * counter segment of all is one too: the timelines start in kernel mode).
 * track.c and resync.c call here; nothing here calls them.  A kernel-
 * mode segment has no middle piece: every read serves the kernel's clock,
 * never below its floor, the most the counter segment before it handed
 * out (its value at its horizon; read.c).
 *
 * Tests: tests/linux/test_decide.c (its cases, with track.c's), sim_slew.c
 * (spells as the kernel's rate changes), sim_anomaly.c (a counter that
 * misbehaves), sim_bookkeeping.c (a spell counted only once published).
 */
#include "internal.h"

/*
 * A fresh segment from sample @s: the first counter segment after kernel
 * mode (or the first of all).  Its start is at or above the kernel's
 * clock at the end of the bracket (the bracket's width and 10 ns ahead of
 * its reading), and at least the floor, the most @old handed out; its
 * slope is a little above the rate, so it stays at or above the kernel's
 * clock up to its short horizon.
 */
static struct cyclock__segv fresh_segment(const struct cyclock__track *tr,
					  const struct cyclock__sample *s,
					  const struct cyclock__segv *old)
{
	struct cyclock__segv v = *old;
	/* The kernel read its clock inside the bracket, at a rate within
	 * CYCLOCK_STEADY_PPM of ours: at its end it is at most this. */
	uint64_t k = s->ns + (uint64_t)((double)s->width * tr->state.rate * (1 + 1e-4)) + 10;
	uint64_t floor = cyclock__seg_horizon(old, tr->counts->shift);

	v.cyc = s->lo + s->width;
	v.ns = k > floor ? k : floor;
	v.frac = 0;
	v.mult = cyclock__mult_of(tr->state.rate * (1 + 2e-6 * CYCLOCK_STEADY_PPM),
				  tr->counts->shift);
	v.mult_rate = cyclock__mult_of(tr->state.rate, tr->counts->shift);
	v.horizon_cyc = (uint32_t)tr->counts->fresh_cyc;
	v.drift_ppb = cyclock__drift_ppb(tr);
	return v;
}

/* Whether the fresh segment was published; the track starts its baseline
 * there only if it was. */
bool cyclock__start_fresh(struct cyclock__track *tr, const struct cyclock__sample *s,
			  const struct cyclock__segv *cur)
{
	struct cyclock__sample fresh = *s;

	/* A sample older than the margin (this thread was preempted, or the
	 * machine is emulated) would make a segment whose horizon is past:
	 * sample again, a few times, then leave it to the next read. */
	for (int i = 0; i < 3; i++) {
		struct cyclock__segv v = fresh_segment(tr, &fresh, cur);

		if (cyclock__ordered() - v.cyc <= tr->counts->fresh_margin_cyc) {
			if (!cyclock__publish(tr->tl, &v))
				return false;
			tr->state.interval = tr->counts->min_int_cyc;
			tr->state.anchor = tr->state.mid = tr->state.last = fresh;
			return true;
		}
		cyclock__sample(tr->id, &fresh);
	}
	return false;
}

/* Kernel mode with @cur's floor (a kernel-mode @cur's own), looking again
 * at the counter after CYCLOCK_RECHECK_NS (@c's recheck_cyc). */
static struct cyclock__segv kernel_segment(const struct cyclock__counts *c,
					   const struct cyclock__segv *cur, uint64_t cw)
{
	struct cyclock__segv v = *cur;

	v.ns = cyclock__seg_horizon(cur, c->shift);
	v.frac = 0;
	v.cyc = cw;
	v.horizon_cyc = 0;
	v.mult = v.mult_rate;
	v.recheck = cw + c->recheck_cyc;
	return v;
}

/* Kernel mode from counter segment @cur: the kernel's rate changed faster
 * than the counter can follow, or (@counter_wrong) the counter went wrong. */
struct cyclock__decision cyclock__enter_kernel(struct cyclock__track *tr,
					       const struct cyclock__segv *cur,
					       const struct cyclock__sample *s, uint64_t cw,
					       bool counter_wrong, const char *why)
{
	struct cyclock__decision d = { CYCLOCK__KERNEL, kernel_segment(tr->counts, cur, cw), why,
				       counter_wrong };

	/* Spells in a row (each within CYCLOCK_RECENT_NS of the last) ask
	 * for longer steadiness before the counter takes over again. */
	if (!cyclock__spell_recent(tr, s->ns))
		tr->state.streak = 0;
	else if (tr->state.streak < CYCLOCK_STREAK_MAX)
		tr->state.streak++;
	tr->state.spells++;
	tr->state.kernel_why = why;
	tr->state.win = tr->state.anchor = *s;
	tr->state.win_rate = 0;
	tr->state.strikes = 0;
	return d;
}

/*
 * Kernel mode: is the kernel's rate steady?  Two windows of at least
 * CYCLOCK_STEADY_NS (doubled for each spell in a row, CYCLOCK_STREAK_MAX times at most: a
 * kernel whose rate keeps changing keeps being served) whose rates agree
 * within CYCLOCK_STEADY_PPM (plus their brackets' noise), with the
 * kernel's clocks showing no change of its rate all along (@moved: one
 * now).  Then the counter takes over at the rate
 * over both; until then the same floor, new offsets, the next look later.
 */
struct cyclock__decision cyclock__kernel_step(struct cyclock__track *tr,
					      const struct cyclock__segv *cur,
					      const struct cyclock__sample *s, uint64_t cw,
					      bool moved)
{
	int64_t span = (int64_t)(s->ns - tr->state.win.ns);
	struct cyclock__decision d = { CYCLOCK__KERNEL, kernel_segment(tr->counts, cur, cw), NULL, false };
	double r, noise;

	tr->state.last = *s; /* the ratio's next interval starts here (rate.c) */
	if (moved) {
		tr->state.win = tr->state.anchor = *s;
		tr->state.win_rate = 0;
	}
	if (moved || span < (int64_t)(CYCLOCK_STEADY_NS << tr->state.streak))
		return d;
	r = (double)span / (double)(s->cyc - tr->state.win.cyc);
	noise = (double)(s->width + 2 * tr->state.win.width + tr->state.anchor.width) * r /
		(double)span;
	if (tr->state.win_rate > 0 &&
	    cyclock__absd(r / tr->state.win_rate - 1) < CYCLOCK_STEADY_PPM * 1e-6 + noise) {
		tr->state.rate = cyclock__best_rate(tr, (double)(s->ns - tr->state.anchor.ns) /
							        (double)(s->cyc - tr->state.anchor.cyc));
		tr->state.spell_end_ns = s->ns;
		d.what = CYCLOCK__FRESH;
		d.seg = *cur;
		return d;
	}
	tr->state.anchor = tr->state.win; /* the previous window's start: both windows' baseline */
	tr->state.win = *s;
	tr->state.win_rate = r;
	return d;
}
