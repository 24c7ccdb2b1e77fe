/* SPDX-License-Identifier: MIT */
/*
 * The timelines' segments (struct cyclock__seg and cyclock__seg_ext in
 * cyclock/timeline.h): read one through the latch, evaluate it exactly,
 * and publish a new one.
 *
 * Publishing, under the writer flag: write the copy readers are not
 * using, then move the sequence to it with one compare-and-swap of the
 * word.  A reader past the horizon that hands out the kernel's clock
 * counts itself in the same word (read.c's serve()), so a count that
 * moved since the writer looked makes the swap fail: the writer then
 * reads the kernel's clock again, raises its copy to it and tries again.
 * Whatever a reader handed out before the swap is at most that reading,
 * and every reader after it reads the new copy; so a new segment is never
 * below a value handed out before it.  A writer abandoned anywhere (a
 * handler that longjmps out, a cancel, a raw fork that left it behind)
 * leaves the copy readers use whole: nothing is ever to repair.
 *
 * Tests: tests/linux/test_segment.c (the arithmetic, over random segments),
 * tests/model/model_publish.cpp (the publish, under the model checker),
 * tests/linux/sim_bookkeeping.c (a swap that fails), validate_timeline.c
 * and validate_sim_slew.c (hand-overs under readers).
 */
#define _GNU_SOURCE
#include "internal.h"

typedef unsigned __int128 u128;

/* The fast path's form of a segment starting at (@ns, @frac) at counter
 * @cyc (cyclock/timeline.h): the whole second in *@sec_ns, the rest in
 * fixed point with the start folded in, in *@k. */
void cyclock__seg_form(uint64_t ns, uint32_t frac, uint64_t cyc, uint32_t mult, uint32_t shift,
		       uint64_t *sec_ns, uint64_t *k)
{
	uint64_t rest = ns % NSEC_PER_SEC;

	*sec_ns = ns - rest;
	*k = (rest << shift) + frac - cyc * mult;
}

/* Its inverse: the start's whole ns into *@ns, its fraction into *@frac. */
void cyclock__seg_start(uint64_t sec_ns, uint64_t k, uint64_t cyc, uint32_t mult, uint32_t shift,
			uint64_t *ns, uint32_t *frac)
{
	uint64_t at = k + cyc * mult;

	*ns = sec_ns + (at >> shift);
	*frac = (uint32_t)(at & ((1ull << shift) - 1));
}

/* Offset @ns (mod 2^64, so negative too) packed as a copy keeps it
 * (cyclock/timeline.h, CYCLOCK__OFF_BIAS: every offset a kernel can have
 * fits). */
uint64_t cyclock__off_pack(uint64_t ns)
{
	int64_t sec = (int64_t)ns / (int64_t)NSEC_PER_SEC, rest = (int64_t)ns % (int64_t)NSEC_PER_SEC;

	if (rest < 0) {
		rest += (int64_t)NSEC_PER_SEC;
		sec--;
	}
	return ((uint64_t)(sec + (int64_t)CYCLOCK__OFF_BIAS) ^ CYCLOCK__OFF_BIAS) << CYCLOCK__OFF_REST_BITS |
	       (uint64_t)rest;
}

/* The published segment, through the latch (a reader or the writer). */
struct cyclock__segv cyclock__seg_load(const struct cyclock__timeline *tl)
{
	uint32_t shift = cyclock_atomic_load(&tl->shift, CYCLOCK_RELAXED);
	struct cyclock__segv v;
	const struct cyclock__seg *s;
	uint64_t word;

	do {
		word = cyclock__tl_begin(tl);
		s = &tl->seg[word & 1];
		v.cyc = cyclock__load64(&s->epoch_cyc);
		v.off_real = cyclock__off_ns(cyclock__load64(&s->off_real));
		v.off_boot = cyclock__off_ns(cyclock__load64(&s->off_boot));
		v.horizon_cyc = cyclock_atomic_load(&s->horizon_cyc, CYCLOCK_RELAXED);
		v.mult = cyclock_atomic_load(&s->mult, CYCLOCK_RELAXED);
		cyclock__seg_start(cyclock__load64(&s->epoch_sec_ns), cyclock__load64(&s->epoch_k),
				   v.cyc, v.mult, shift, &v.ns, &v.frac);
		v.mult_rate = cyclock_atomic_load(&tl->ext[word & 1].mult_rate, CYCLOCK_RELAXED);
		v.recheck = cyclock__load64(&tl->ext[word & 1].recheck_cyc);
		v.drift_ppb = cyclock_atomic_load(&tl->ext[word & 1].drift_ppb, CYCLOCK_RELAXED);
	} while (cyclock__tl_retry(tl, word));
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
 * The segment's value at @cyc, exactly, as whole ns and fraction: before
 * P, P's (a relaxed read that ran a little early); then the middle piece;
 * past the horizon, the rate alone (mult_rate), which no reader returns
 * (they serve the kernel's clock there) but the writer compares with the
 * kernel's.  In 128 bits, so that any distance works.
 */
void cyclock__seg_at(const struct cyclock__segv *v, uint32_t shift, uint64_t cyc, uint64_t *ns,
		     uint32_t *frac)
{
	uint64_t delta = cyc - v->cyc;

	*ns = v->ns;
	*frac = v->frac;
	if ((int64_t)delta < 0)
		return;
	forward(ns, frac, delta < v->horizon_cyc ? delta : v->horizon_cyc, v->mult, shift);
	if (delta > v->horizon_cyc)
		forward(ns, frac, delta - v->horizon_cyc, v->mult_rate, shift);
}

/* The most a segment's readers hand out without the kernel's clock: its
 * value at the horizon, which for kernel mode (no middle piece) is the
 * floor at P. */
uint64_t cyclock__seg_horizon(const struct cyclock__segv *v, uint32_t shift)
{
	uint64_t ns = v->ns;
	uint32_t frac = v->frac;

	forward(&ns, &frac, v->horizon_cyc, v->mult, shift);
	return ns;
}

static void write_copy(struct cyclock__timeline *tl, unsigned int i, const struct cyclock__segv *v)
{
	struct cyclock__seg *s = &tl->seg[i];
	uint64_t sec_ns, k;

	cyclock__seg_form(v->ns, v->frac, v->cyc, v->mult,
			  cyclock_atomic_load(&tl->shift, CYCLOCK_RELAXED), &sec_ns, &k);

	/* Pairs with cyclock__tl_retry()'s acquire fence: a reader of this
	 * copy from two publishes ago that sees any store below sees the
	 * sequence that moved past it, and reads again (model_publish:
	 * publish-copy-fence). */
	cyclock_atomic_fence(CYCLOCK_RELEASE);
	cyclock__store64(&s->epoch_cyc, v->cyc);
	cyclock__store64(&s->epoch_sec_ns, sec_ns);
	cyclock__store64(&s->epoch_k, k);
	cyclock__store64(&s->off_real, cyclock__off_pack(v->off_real));
	cyclock__store64(&s->off_boot, cyclock__off_pack(v->off_boot));
	cyclock_atomic_store(&s->horizon_cyc, v->horizon_cyc, CYCLOCK_RELAXED);
	cyclock_atomic_store(&s->mult, v->mult, CYCLOCK_RELAXED);
	cyclock_atomic_store(&tl->ext[i].mult_rate, v->mult_rate, CYCLOCK_RELAXED);
	cyclock__store64(&tl->ext[i].recheck_cyc, v->recheck);
	cyclock_atomic_store(&tl->ext[i].drift_ppb, v->drift_ppb, CYCLOCK_RELAXED);
}

/*
 * Raise counter segment @w to the kernel's clock now: every value a
 * reader handed out before this reading is at most it, so @w, from the
 * counter read after it on, must not be below it.  Past @w's horizon
 * already (a writer preempted that long), its readers serve the kernel's
 * clock themselves: nothing to raise.
 */
static void raise_to_kernel(struct cyclock__segv *w, clockid_t id)
{
	uint64_t k = cyclock__kernel_ns(id), c = cyclock__ordered(), ns;
	uint32_t frac;

	if (!w->horizon_cyc || c - w->cyc >= w->horizon_cyc)
		return;
	cyclock__seg_at(w, cyclock__setup.counts.shift, c, &ns, &frac);
	if (ns < k)
		w->ns += k - ns;
}

/* The word that moves the sequence on by one, keeping (@served) or
 * zeroing the count of served reads above it. */
static uint64_t next_word(uint64_t word, bool served)
{
	return (uint64_t)(CYCLOCK__SEQ(word) + 1u) | (served ? word & ~0xffffffffull : 0);
}

/*
 * The publish (see the top): @v into the copy readers do not use, and
 * the sequence moved to it; then, if that made it odd, the same copied
 * into copy 0 and the sequence made even, so that readers stay on line 0.
 * The caller holds host.writer.  false: reads that served the kernel's
 * clock kept coming, PUBLISH_TRIES times in a row, between the raise and
 * the swap; nothing was published.  The swap releases the copy to the
 * readers, and acquires, when it fails, the served reads it found
 * counted, so that the raise after it reads the kernel's clock later than
 * they did (serve()'s release); acq_rel, since C11 lets no swap fail with
 * an order stronger than it succeeds with (model_publish fails without
 * either half: publish-swap-release, publish-swap-acquire; docs/hosted.md).
 */
#define PUBLISH_TRIES 8
bool cyclock__publish(struct cyclock__timeline *tl, const struct cyclock__segv *v)
{
	clockid_t id = tl == &cyclock__raw ? CLOCK_MONOTONIC_RAW : CLOCK_MONOTONIC;
	struct cyclock__segv w = *v;
	uint64_t word = cyclock_atomic_load(&tl->seq, CYCLOCK_ACQUIRE);
	int tries = 0;

	for (;;) {
		if (word >> 32)
			raise_to_kernel(&w, id);
		write_copy(tl, !(word & 1), &w);
		cyclock__sim_before_swap(); /* the simulation's other threads (sim.c) */
		if (cyclock_atomic_cas(&tl->seq, &word, next_word(word, false), CYCLOCK_ACQ_REL,
				       CYCLOCK_ACQUIRE))
			break;
		if (++tries == PUBLISH_TRIES)
			return false;
	}
	word = next_word(word, false);
	if (word & 1) {
		uint32_t odd = CYCLOCK__SEQ(word);

		write_copy(tl, 0, &w);
		/* A read that served the kernel's clock meanwhile counted itself
		 * against the same segment: keep its count, for the next writer. */
		while (!cyclock_atomic_cas_weak(&tl->seq, &word, next_word(word, true),
						CYCLOCK_RELEASE, CYCLOCK_RELAXED) &&
		       CYCLOCK__SEQ(word) == odd)
			;
	}
	return true;
}
