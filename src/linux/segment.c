/* SPDX-License-Identifier: MIT */
/*
 * The timelines' segments (struct cyclock__seg in cyclock/hosted.h): read
 * one through the latch, evaluate it exactly anywhere, publish a new one,
 * and repair a latch a vanished writer left half-written after fork().
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
		v.stale = atomic_load_explicit(&s->stale_cyc, memory_order_relaxed);
		v.mult = atomic_load_explicit(&s->mult, memory_order_relaxed);
		v.mult_prev = atomic_load_explicit(&s->mult_prev, memory_order_relaxed);
		v.mult_rate = atomic_load_explicit(&s->mult_rate, memory_order_relaxed);
		v.frac = (uint32_t)(cyclock__load64(&s->epoch_k) + v.cyc * v.mult);
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
		forward(ns, frac, delta < v->stale ? delta : v->stale, v->mult, shift);
		if (delta > v->stale)
			forward(ns, frac, delta - v->stale, v->mult_rate, shift);
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
 * What a reader past the horizon hands out while another thread resyncs:
 * the value at the horizon, then cyclock__mult_low(mult_rate) per count.
 * Every later segment is at least this (track.c keeps their slopes above
 * it), so none is below a value handed out from here.
 */
uint64_t cyclock__seg_low(const struct cyclock__segv *v, uint32_t shift, uint64_t cyc)
{
	uint64_t ns = v->ns;
	uint32_t frac = v->frac;

	forward(&ns, &frac, v->stale, v->mult, shift);
	forward(&ns, &frac, cyc - v->cyc - v->stale, cyclock__mult_low(v->mult_rate), shift);
	return ns;
}

static void write_copy(struct cyclock__timeline *tl, unsigned int i, const struct cyclock__segv *v)
{
	struct cyclock__seg *s = &tl->seg[i];

	cyclock__store64(&s->epoch_cyc, v->cyc);
	cyclock__store64(&s->epoch_ns, v->ns);
	cyclock__store64(&s->epoch_k, v->frac - v->cyc * v->mult);
	cyclock__store64(&s->off_real, v->off_real);
	cyclock__store64(&s->off_boot, v->off_boot);
	atomic_store_explicit(&s->stale_cyc, v->stale, memory_order_relaxed);
	atomic_store_explicit(&s->mult, v->mult, memory_order_relaxed);
	atomic_store_explicit(&s->mult_prev, v->mult_prev, memory_order_relaxed);
	atomic_store_explicit(&s->mult_rate, v->mult_rate, memory_order_relaxed);
}

/* Both copies, in the latch's order; the caller holds host.writer. */
void cyclock__publish(struct cyclock__timeline *tl, const struct cyclock__segv *v)
{
	cyclock__latch_bump(&tl->seq); /* odd: readers use copy 1 */
	write_copy(tl, 0, v);
	cyclock__latch_bump(&tl->seq); /* even: readers use copy 0 */
	write_copy(tl, 1, v);
}

/*
 * In a child of fork(), the thread that was resyncing does not exist: its
 * latch may be half-written.  The copy the sequence points readers at is
 * whole (the writer only writes the other one); make the other one equal
 * to it, and leave the sequence even, as publish() expects.
 */
void cyclock__fork_child_latch(struct cyclock__timeline *tl)
{
	uint32_t seq = atomic_load_explicit(&tl->seq, memory_order_relaxed);
	struct cyclock__segv v = cyclock__seg_load(tl);

	write_copy(tl, !(seq & 1), &v);
	if (seq & 1)
		cyclock__latch_bump(&tl->seq); /* even: readers move to copy 0, now whole */
}
