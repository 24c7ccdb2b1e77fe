/* SPDX-License-Identifier: MIT */
/*
 * The timelines' segments (struct cyclock__seg and cyclock__seg_ext in
 * cyclock/timeline.h): read one through the latch, evaluate it exactly
 * anywhere, bound what it can have handed out, publish a new one, and
 * repair a latch a vanished writer left half-written after fork().
 */
#define _GNU_SOURCE
#include "internal.h"

typedef unsigned __int128 u128;

/* The published segment, through the latch (a reader or the writer). */
struct cyclock__segv cyclock__seg_load(const struct cyclock__timeline *tl)
{
	struct cyclock__segv v;
	const struct cyclock__seg *s;
	uint32_t seq;

	do {
		seq = cyclock__latch_begin(&tl->seq);
		s = &tl->seg[seq & 1];
		v.cyc = cyclock__load64(&s->epoch_cyc);
		v.ns = cyclock__load64(&s->epoch_ns);
		v.off_real = cyclock__load64(&s->off_real);
		v.off_boot = cyclock__load64(&s->off_boot);
		v.horizon_cyc = atomic_load_explicit(&s->horizon_cyc, memory_order_relaxed);
		v.mult = atomic_load_explicit(&s->mult, memory_order_relaxed);
		v.mult_prev = atomic_load_explicit(&s->mult_prev, memory_order_relaxed);
		v.mult_rate = atomic_load_explicit(&s->mult_rate, memory_order_relaxed);
		v.frac = (uint32_t)(cyclock__load64(&s->epoch_k) + v.cyc * v.mult);
		v.ceil = cyclock__load64(&tl->ext[seq & 1].ceil);
		v.until = cyclock__load64(&tl->ext[seq & 1].until_cyc);
		v.recheck = cyclock__load64(&tl->ext[seq & 1].recheck_cyc);
		v.fn_horizon_cyc = atomic_load_explicit(&tl->ext[seq & 1].fn_horizon_cyc, memory_order_relaxed);
		v.mode = atomic_load_explicit(&tl->ext[seq & 1].mode, memory_order_relaxed);
		v.fresh = atomic_load_explicit(&tl->ext[seq & 1].fresh, memory_order_relaxed);
	} while (cyclock__latch_retry(&tl->seq, seq));
	return v;
}

/* x + n * mult in fixed point (ns, frac < 2^shift), n >= 0. */
static void forward(uint64_t *ns, uint32_t *frac, uint64_t n, uint32_t mult, uint32_t shift)
{
	u128 t = (u128)n * mult + *frac;

	*ns += (uint64_t)(t >> shift);
	*frac = (uint32_t)(t & ((1ull << shift) - 1));
}

/*
 * The segment's value at @cyc, exactly, as whole ns and fraction: the
 * three pieces of struct cyclock__seg, in 128 bits so that any distance
 * works.  Before P the previous slope runs backwards from P, which gives
 * exactly the previous segment's value there: floor(x - t) for the fixed
 * point x = ns + frac / 2^shift.
 */
void cyclock__seg_at(const struct cyclock__segv *v, uint32_t shift, uint64_t cyc, uint64_t *ns,
		     uint32_t *frac)
{
	uint64_t delta = cyc - v->cyc;
	u128 t, need, k;

	*ns = v->ns;
	*frac = v->frac;
	if ((int64_t)delta >= 0) {
		forward(ns, frac, delta < v->horizon_cyc ? delta : v->horizon_cyc, v->mult, shift);
		if (delta > v->horizon_cyc)
			forward(ns, frac, delta - v->horizon_cyc, v->mult_rate, shift);
		return;
	}
	t = (u128)(v->cyc - cyc) * v->mult_prev;
	if (t <= v->frac) {
		*frac = v->frac - (uint32_t)t;
		return;
	}
	need = t - v->frac;
	k = (need + (1ull << shift) - 1) >> shift;
	*ns = v->ns - (uint64_t)k;
	*frac = (uint32_t)((k << shift) - need);
}

/*
 * The most that segment @v (counter mode) can have handed out by the time
 * the counter reads @cyc: its value there up to the horizon; past it, what
 * a reader waiting for another thread's resync returns without the
 * writer's knowing (read.c's low_value()): the value at the horizon, then
 * cyclock__mult_low(mult_rate) per count, up to until_cyc, where it stands
 * still.  Every later segment is at least this (track.c keeps their slopes
 * above the low one), so none is below a value handed out from here; what
 * a waiting reader hands out above it, the kernel's clock, goes through the
 * writer (cyclock__publish()).
 */
uint64_t cyclock__seg_handed(const struct cyclock__segv *v, uint32_t shift, uint64_t cyc)
{
	struct cyclock__segv f = *v;
	uint64_t ns = v->ns, past;
	uint32_t frac = v->frac;

	f.horizon_cyc = v->fn_horizon_cyc;
	if (cyc - v->cyc < f.horizon_cyc || (int64_t)(cyc - v->cyc) < 0) {
		cyclock__seg_at(&f, shift, cyc, &ns, &frac);
		return ns;
	}
	forward(&ns, &frac, f.horizon_cyc, v->mult, shift);
	past = ((int64_t)(cyc - v->until) < 0 ? cyc : v->until) - v->cyc - f.horizon_cyc;
	if ((int64_t)past > 0)
		forward(&ns, &frac, past, cyclock__mult_low(v->mult_rate), shift);
	return ns;
}

/* The most the middle piece hands out: its value at the horizon. */
uint64_t cyclock__seg_horizon(const struct cyclock__segv *v, uint32_t shift)
{
	return cyclock__seg_handed(v, shift, v->cyc + v->fn_horizon_cyc);
}

/*
 * @floor capped at what @v's readers can have handed out past its
 * horizon: a reader there waiting for another's resync returns no more
 * than the kernel's clock it read, or the horizon's value where that is
 * more (read.c's waiting_value(); low_value() is this cap), and every such
 * reading that happened before a reader's own kernel reading @k is at most
 * max(@k, horizon).  So a kernel that slowed while nobody read (a long
 * pause) does not leave the floor, the old function's low slope over the
 * pause, milliseconds ahead of it, nor even a timer slack ahead.  @floor,
 * @k and the horizon's value @horizon are on one clock.
 */
uint64_t cyclock__floor_cap(uint64_t floor, uint64_t horizon, uint64_t k)
{
	uint64_t cap = k > horizon ? k : horizon;

	return floor < cap ? floor : cap;
}

/* The segment's ceiling: the most it can ever hand out. */
uint64_t cyclock__seg_ceil(const struct cyclock__segv *v, uint32_t shift)
{
	return cyclock__seg_handed(v, shift, v->until);
}

/*
 * The least a read at counter @cyc must return so as not to be below a
 * value @v's readers handed out before: what its counter function gives
 * there (counter mode, and kernel mode after a change of the kernel's
 * rate), or its whole ceiling (kernel mode after the counter went wrong,
 * when no value of the counter can be trusted).
 */
uint64_t cyclock__seg_floor(const struct cyclock__segv *v, uint32_t shift, uint64_t cyc)
{
	if (v->mode == CYCLOCK__MODE_KERNEL)
		return v->ceil;
	return cyclock__seg_handed(v, shift, cyc);
}

/*
 * May readers past @v's horizon continue it?  Not a fresh one (the first
 * after kernel mode) until its writer confirmed that it was published
 * before its horizon: until then, a value the kernel's clock gave while
 * it was being published may be above its continuation.  @seq is the
 * sequence the reader used; an odd one reads copy 1, published at seq - 1.
 */
bool cyclock__seg_trusted(const struct cyclock__timeline *tl, const struct cyclock__segv *v,
			  uint32_t seq)
{
	return !v->fresh ||
	       atomic_load_explicit(&tl->confirmed, memory_order_acquire) == (seq & ~1u);
}

static void write_copy(struct cyclock__timeline *tl, unsigned int i, const struct cyclock__segv *v)
{
	struct cyclock__seg *s = &tl->seg[i];

	cyclock__store64(&s->epoch_cyc, v->cyc);
	cyclock__store64(&s->epoch_ns, v->ns);
	cyclock__store64(&s->epoch_k, v->frac - v->cyc * v->mult);
	cyclock__store64(&s->off_real, v->off_real);
	cyclock__store64(&s->off_boot, v->off_boot);
	atomic_store_explicit(&s->horizon_cyc, v->horizon_cyc, memory_order_relaxed);
	atomic_store_explicit(&s->mult, v->mult, memory_order_relaxed);
	atomic_store_explicit(&s->mult_prev, v->mult_prev, memory_order_relaxed);
	atomic_store_explicit(&s->mult_rate, v->mult_rate, memory_order_relaxed);
	cyclock__store64(&tl->ext[i].ceil, v->ceil);
	cyclock__store64(&tl->ext[i].until_cyc, v->until);
	cyclock__store64(&tl->ext[i].recheck_cyc, v->recheck);
	atomic_store_explicit(&tl->ext[i].fn_horizon_cyc, v->fn_horizon_cyc, memory_order_relaxed);
	atomic_store_explicit(&tl->ext[i].mode, v->mode, memory_order_relaxed);
	atomic_store_explicit(&tl->ext[i].fresh, v->fresh, memory_order_relaxed);
}

/*
 * Raise counter segment @w, about to go out, to @h, the most that readers
 * waiting past the previous horizon handed out (the kernel's clock they
 * read), at the counter read after taking it: a segment on time is at or
 * above them already, and one a preempted writer publishes late starts
 * there, not ahead of the kernel.  What it is raised by is the least it
 * hands out there (cyclock__seg_handed()), not its value: a writer
 * preempted past the segment's horizon publishes one whose readers and
 * successors follow the low slope from the horizon.
 */
static void raise_to(struct cyclock__segv *w, uint64_t h)
{
	uint64_t least = cyclock__seg_handed(w, cyclock__host.shift, cyclock__ordered());

	if (least < h)
		w->ns += h - least;
}

/*
 * Both copies, in the latch's order; the caller holds host.writer.
 * @seal: readers may be waiting past the horizon (read.c's
 * waiting_value()), whose word, tl->handed, a counter segment then
 * takes sealed, so that no reader adds to it until the segment is out:
 * a reader's addition is either in what this writer took, or after the
 * unseal, which is after both bumps (release), so that reader sees the new
 * sequence and reads again.  For CLOCK_MONOTONIC's, cyclock_coarse()'s cap
 * rises after: the release pairs with coarse.c's acquire, so a reader that
 * sees it sees this segment.
 */
void cyclock__publish(struct cyclock__timeline *tl, const struct cyclock__segv *v, bool seal)
{
	struct cyclock__segv w = *v;
	uint64_t h = 0;

	seal = seal && w.mode == CYCLOCK__MODE_COUNTER;
	if (seal) {
		h = atomic_fetch_or_explicit(&tl->handed, CYCLOCK__HANDED_SEALED,
					     memory_order_acq_rel) &
		    ~CYCLOCK__HANDED_SEALED;
		raise_to(&w, h);
	}
	cyclock__latch_bump(&tl->seq); /* odd: readers use copy 1 */
	write_copy(tl, 0, &w);
	cyclock__latch_bump(&tl->seq); /* even: readers use copy 0 */
	write_copy(tl, 1, &w);
	if (seal)
		atomic_store_explicit(&tl->handed, h, memory_order_release);
	if (tl == &cyclock__mono &&
	    w.below > atomic_load_explicit(&cyclock__coarse.below, memory_order_relaxed))
		atomic_store_explicit(&cyclock__coarse.below, w.below, memory_order_release);
}

/*
 * In a child of fork(), the thread that was resyncing does not exist: its
 * latch may be half-written.  The copy the sequence points readers at is
 * whole (the writer only writes the other one); make the other one equal
 * to it, and leave the sequence even, as publish() expects.
 */
static void fork_child_latch(struct cyclock__timeline *tl)
{
	uint32_t seq = atomic_load_explicit(&tl->seq, memory_order_relaxed);
	struct cyclock__segv v = cyclock__seg_load(tl);

	write_copy(tl, !(seq & 1), &v);
	if (seq & 1)
		cyclock__latch_bump(&tl->seq); /* even: readers move to copy 0, now whole */
}

/* What a writer that vanished (a fork child's resyncing thread, or the
 * holder of the flag in another process) can have left half-done: both
 * latches, and the waiting readers' words it had sealed. */
void cyclock__writer_repair(void)
{
	fork_child_latch(&cyclock__mono);
	fork_child_latch(&cyclock__raw);
	atomic_fetch_and(&cyclock__mono.handed, ~CYCLOCK__HANDED_SEALED);
	atomic_fetch_and(&cyclock__raw.handed, ~CYCLOCK__HANDED_SEALED);
}
