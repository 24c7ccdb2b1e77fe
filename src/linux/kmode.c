/* SPDX-License-Identifier: MIT */
/*
 * Kernel mode, the writer's side: entering it (the kernel's rate changed
 * faster than the counter can follow, or the counter disagreed with the
 * kernel), staying in it while the kernel's rate is unsteady, and handing
 * back to the counter with a fresh segment once it is steady.  Reads in
 * kernel mode serve the kernel's clock, never below the floor set here
 * (read.c, segment.c).
 */
#include "internal.h"

/* In kernel mode, reads return at least the kernel's clock, which was at
 * least @s->ns when sampled, and at least every cap published before. */
static uint64_t below_kernel(const struct cyclock__sample *s)
{
	uint64_t b = atomic_load_explicit(&cyclock__coarse.below, memory_order_relaxed);

	return s->ns > b ? s->ns : b;
}
/*
 * The ceiling of @v's function up to v->until; after the counter went
 * wrong, only what its readers can have handed out: up to the horizon,
 * and past it no more than the kernel's clock now (readers past the
 * horizon check the counter against the kernel first; one that waited for
 * this writer and read the kernel later has its own value covered by every
 * later kernel-mode read, which reads the kernel again).
 */
static uint64_t wrong_ceil(const struct cyclock__segv *v, clockid_t id, bool counter_wrong)
{
	uint64_t ceil = cyclock__seg_ceil(v, cyclock__host.shift), horizon;

	if (!counter_wrong)
		return ceil;
	horizon = cyclock__seg_horizon(v, cyclock__host.shift);
	ceil = cyclock__floor_cap(ceil, horizon, cyclock__kernel_ns(id));
	/* Its until may lie before the horizon (the counter went back), where
	 * the middle piece's readers may have read up to the horizon. */
	return ceil > horizon ? ceil : horizon;
}
/*
 * Kernel mode from counter segment @cur: reads serve the kernel's clock,
 * at least what @cur's readers can have handed out, and look again after
 * CYCLOCK_RECHECK_NS.  Those readers stop at the publish: a reader of
 * @cur whose read spans it retries, and sees kernel mode.  So the floor
 * follows @cur's function up to a counter past the publish, then stops:
 * first CYCLOCK_CAP_NS past @cw; if the counter is already beyond that
 * after the publish (this thread was preempted), once more, up to the
 * counter then.  Readers of the first publish stopped below either.
 * After the counter went wrong no value of it counts: the floor is the
 * whole ceiling.
 */
void cyclock__enter_kernel(struct cyclock__track *tr, const struct cyclock__segv *cur,
			   const struct cyclock__sample *s, uint64_t cw, bool counter_wrong,
			   const char *why)
{
	struct cyclock__segv v = *cur;
	uint64_t after, margin = cyclock__host.cap_cyc / 16 + 1;

	/* Spells in a row (each within CYCLOCK_RECENT_NS of the last) ask
	 * for longer steadiness before the counter takes over again. */
	tr->streak = cyclock__spell_recent(tr, s->ns) ? (tr->streak < 6 ? tr->streak + 1 : 6) : 0;
	tr->spells++;
	if (counter_wrong)
		atomic_fetch_add_explicit(&cyclock__host.anomalies, 1, memory_order_relaxed);
	tr->kernel_why = why;
	tr->win = tr->anchor = *s;
	tr->win_rate = 0;
	tr->strikes = 0;
	v.mode = counter_wrong ? CYCLOCK__MODE_KERNEL : CYCLOCK__MODE_KERNEL_FN;
	v.horizon_cyc = 0; /* every read to the slow path; the function keeps fn_horizon_cyc */
	v.fresh = 0;
	v.recheck = cw + cyclock__host.recheck_cyc;
	v.below = below_kernel(s);
	v.until = cw + cyclock__host.cap_cyc;
	v.ceil = wrong_ceil(&v, tr->id, counter_wrong);
	cyclock__track_publish(tr, &v);
	after = cyclock__ordered() + margin;
	if ((int64_t)(after - v.until) > 0) {
		v.until = after;
		v.ceil = wrong_ceil(&v, tr->id, counter_wrong);
		cyclock__track_publish(tr, &v);
	}
}
/* Kernel mode goes on: the same floor, new offsets, the next look later. */
static void recheck_later(struct cyclock__track *tr, const struct cyclock__segv *cur,
			  const struct cyclock__sample *s, uint64_t cw)
{
	struct cyclock__segv v = *cur;

	v.recheck = cw + cyclock__host.recheck_cyc;
	v.below = below_kernel(s);
	cyclock__track_publish(tr, &v);
}
/*
 * Kernel mode: is the kernel's rate steady?  Two windows of at least
 * CYCLOCK_STEADY_NS (doubled for each spell in a row, up to 64 times: a
 * kernel whose rate keeps changing keeps being served) whose rates agree
 * within CYCLOCK_STEADY_PPM (plus their brackets' noise), with adjtimex
 * saying the same all along.  Then the counter takes over at the rate
 * over both.
 */
void cyclock__kernel_step(struct cyclock__track *tr, const struct cyclock__segv *cur,
			  const struct cyclock__sample *s, uint64_t cw, bool adj_moved)
{
	int64_t span = (int64_t)(s->ns - tr->win.ns);
	double r, noise;

	if (adj_moved) {
		tr->win = tr->anchor = *s;
		tr->win_rate = 0;
	}
	if (adj_moved || span < (int64_t)(CYCLOCK_STEADY_NS << tr->streak)) {
		recheck_later(tr, cur, s, cw);
		return;
	}
	r = (double)span / (double)(s->cyc - tr->win.cyc);
	noise = (double)(s->width + 2 * tr->win.width + tr->anchor.width) * r / (double)span;
	if (tr->win_rate > 0 &&
	    cyclock__absd(r / tr->win_rate - 1) < CYCLOCK_STEADY_PPM * 1e-6 + noise) {
		tr->rate = cyclock__best_rate(tr, (double)(s->ns - tr->anchor.ns) /
							  (double)(s->cyc - tr->anchor.cyc));
		tr->spell_end_ns = s->ns;
		cyclock__start_fresh(tr, s, cur);
		return;
	}
	tr->anchor = tr->win; /* the previous window's start: both windows' baseline */
	tr->win = *s;
	tr->win_rate = r;
	recheck_later(tr, cur, s, cw);
}
