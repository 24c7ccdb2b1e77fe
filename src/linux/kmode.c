/* SPDX-License-Identifier: MIT */
/*
 * Kernel mode, the writer's side: entering it (the kernel's rate changed
 * faster than the counter can follow, or the counter disagreed with the
 * kernel), staying in it while the kernel's rate is unsteady, and handing
 * back to the counter with a fresh segment once it is steady.  A kernel-
 * mode segment has no middle piece: every read serves the kernel's clock,
 * never below its floor, the most the counter segment before it handed
 * out (its value at its horizon; read.c).
 */
#include "internal.h"

/* Kernel mode with @cur's floor (a kernel-mode @cur's own), looking again
 * at the counter after CYCLOCK_RECHECK_NS. */
static struct cyclock__segv kernel_segment(const struct cyclock__segv *cur, uint64_t cw)
{
	struct cyclock__segv v = *cur;

	v.ns = cyclock__seg_horizon(cur, cyclock__host.shift);
	v.frac = 0;
	v.cyc = cw;
	v.horizon_cyc = 0;
	v.mult = v.mult_rate;
	v.recheck = cw + cyclock__host.recheck_cyc;
	return v;
}

/* Kernel mode from counter segment @cur: the kernel's rate changed faster
 * than the counter can follow, or (@counter_wrong) the counter went wrong. */
void cyclock__enter_kernel(struct cyclock__track *tr, const struct cyclock__segv *cur,
			   const struct cyclock__sample *s, uint64_t cw, bool counter_wrong,
			   const char *why)
{
	struct cyclock__segv v = kernel_segment(cur, cw);

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
	cyclock__publish(tr->tl, &v);
}

/*
 * Kernel mode: is the kernel's rate steady?  Two windows of at least
 * CYCLOCK_STEADY_NS (doubled for each spell in a row, up to 64 times: a
 * kernel whose rate keeps changing keeps being served) whose rates agree
 * within CYCLOCK_STEADY_PPM (plus their brackets' noise), with adjtimex
 * saying the same all along.  Then the counter takes over at the rate
 * over both; until then the same floor, new offsets, the next look later.
 */
void cyclock__kernel_step(struct cyclock__track *tr, const struct cyclock__segv *cur,
			  const struct cyclock__sample *s, uint64_t cw, bool adj_moved)
{
	int64_t span = (int64_t)(s->ns - tr->win.ns);
	struct cyclock__segv again = kernel_segment(cur, cw);
	double r, noise;

	if (adj_moved) {
		tr->win = tr->anchor = *s;
		tr->win_rate = 0;
	}
	if (adj_moved || span < (int64_t)(CYCLOCK_STEADY_NS << tr->streak)) {
		cyclock__publish(tr->tl, &again);
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
	cyclock__publish(tr->tl, &again);
}
