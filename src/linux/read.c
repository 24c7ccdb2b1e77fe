/* SPDX-License-Identifier: MIT */
/*
 * The public clocks: one-line wrappers over the inline fast path in
 * cyclock/timeline.h, and the slow path every reader falls into when the
 * fast path's single check fails (docs/hosted.md, "Tracking the kernel's
 * clocks", argues each case once):
 * - not initialised yet: the first read initialises without waiting
 *   (init.c) and, like every read until the timelines start, serves the
 *   kernel's clock;
 * - no trusted counter: the kernel's clock itself;
 * - a counter before the segment's start (a relaxed read that ran a
 *   little early): the start's value;
 * - past the horizon, or in kernel mode (a segment of no length): the
 *   kernel's clock, never below the most the segment handed out (its value
 *   at its horizon, with the offset), counted in the sequence word when it
 *   is the kernel's (serve()); or, when it pays, a resync first.
 *
 * Tests: tests/linux/sim_sparse.c (reads past each horizon served, not
 * resynced), sim_fallback.c (no counter in use), validate_timeline.c and
 * its fork and signal variants (order across threads while segments
 * change), test_kernel_reads.c (the kernel's clock the slow path calls),
 * tests/model/model_publish.cpp (serve()'s count, under the model
 * checker), tests/build/read_pages.sh (its code and data on one page each)
 * and the preload's tests, which run this file in the preload.
 */
#define _GNU_SOURCE
#include "internal.h"

/* The cache-line budget in cyclock/timeline.h. */
CYCLOCK_LAYOUT_ASSERT(sizeof(struct cyclock__seg) == 48, "a segment is 48 bytes");
CYCLOCK_LAYOUT_ASSERT(offsetof(struct cyclock__timeline, preload_clocks) == 12 &&
		      offsetof(struct cyclock__timeline, seg[0]) == 16,
	       "the word, shift, how, the preload's clocks and seg[0]: line 0");
CYCLOCK_LAYOUT_ASSERT(offsetof(struct cyclock__timeline, seg[1]) == CYCLOCK_CACHELINE,
	       "seg[1] is line 1");
CYCLOCK_LAYOUT_ASSERT(offsetof(struct cyclock__timeline, ext) == 2 * CYCLOCK_CACHELINE,
	       "the slow path's copies: line 2");
CYCLOCK_LAYOUT_ASSERT(offsetof(struct cyclock__timeline, served_cyc) == 3 * CYCLOCK_CACHELINE,
	       "what served reads note down: line 3");
CYCLOCK_LAYOUT_ASSERT(sizeof(struct cyclock__timeline) == 4 * CYCLOCK_CACHELINE &&
			      _Alignof(struct cyclock__timeline) == 4 * CYCLOCK_CACHELINE,
		      "a timeline is aligned to its size: on one page");

#ifndef CYCLOCK_PRELOAD
CYCLOCK__READ_PATH_PAGE;
#endif

/* The slow paths' parts, inlined into each: one the compiler kept apart
 * would be outside the read path's section, on a page of its own. */
#define PART static inline __attribute__((always_inline))

PART clockid_t kernel_id(unsigned int kind)
{
	if (kind & CYCLOCK__RAW)
		return CLOCK_MONOTONIC_RAW;
	if (kind & CYCLOCK__REAL)
		return CLOCK_REALTIME;
	if (kind & CYCLOCK__BOOT)
		return CLOCK_BOOTTIME;
	return CLOCK_MONOTONIC;
}

/*
 * Whether a read past the horizon (@past counts past it; in kernel mode,
 * past the moment to look again, and never before it) resyncs, or serves
 * the kernel's clock instead (one vDSO read, no system call).  A resync
 * costs more than that and pays only if its segment is read again and
 * again before its horizon: so a read resyncs when it comes within
 * CYCLOCK_PAY_NS of the horizon (the timeline is read often), or after
 * CYCLOCK_ROW_READS served reads in a row, each within CYCLOCK_ROW_NS of
 * the one before (it is read often again, after a pause).  A program that
 * reads after longer gaps, even a few clocks at each, is served the
 * kernel's clock.
 */
PART bool resync_pays(const struct cyclock__timeline *tl, int64_t past, uint64_t cyc)
{
	if (past < 0)
		return false;
	return (uint64_t)past < cyclock_atomic_load(&tl->pay_cyc, CYCLOCK_RELAXED) ||
	       (cyclock_atomic_load(&tl->served_row, CYCLOCK_RELAXED) >= CYCLOCK_ROW_READS &&
		cyc - cyclock_atomic_load(&tl->served_cyc, CYCLOCK_RELAXED) <
			cyclock_atomic_load(&tl->row_cyc, CYCLOCK_RELAXED));
}

/* A read at counter @cyc served the kernel's clock (resync_pays()).  Plain
 * stores: a count lost to a race only delays a resync. */
PART void served(struct cyclock__timeline *tl, uint64_t cyc)
{
	uint32_t row = cyclock_atomic_load(&tl->served_row, CYCLOCK_RELAXED);

	if (cyc - cyclock_atomic_load(&tl->served_cyc, CYCLOCK_RELAXED) >=
	    cyclock_atomic_load(&tl->row_cyc, CYCLOCK_RELAXED))
		row = 0;
	cyclock_atomic_store(&tl->served_row, row + 1, CYCLOCK_RELAXED);
	cyclock_atomic_store(&tl->served_cyc, cyc, CYCLOCK_RELAXED);
}

/*
 * Serve the kernel's clock @k, or @floor where that is more, read with
 * sequence word @word: the value in *@ns, or false if the sequence moved
 * (read again).  A value of the kernel's goes out only counted in the
 * word: a compare-and-swap that fails if the sequence moved, so that a
 * writer whose own swap comes after it has read the kernel's clock later
 * and raised its segment to that (segment.c; the release pairs with its
 * acquire: model_publish, serve-count).  The new word depends on the
 * value (an add of 0 the CPU cannot see through), so the swap cannot
 * happen before the kernel's counter read did.
 */
PART bool serve(struct cyclock__timeline *tl, uint64_t word, uint64_t k, uint64_t floor,
		uint64_t *ns)
{
	if (k <= floor) {
		*ns = floor;
		return !cyclock__tl_retry(tl, word);
	}
	*ns = k;
	for (uint32_t seq = CYCLOCK__SEQ(word);;) {
		if (cyclock_atomic_cas_weak(&tl->seq, &word, word + CYCLOCK__SERVED_ONE + (k == 0),
					    CYCLOCK_RELEASE, CYCLOCK_RELAXED))
			return true;
		if (CYCLOCK__SEQ(word) != seq) /* only the count may have moved */
			return false;
	}
}

/* What the slow path reads of the segment under one sequence word. */
struct slow_read {
	uint64_t word, cyc, P, sec_ns, k, off, recheck;
	uint32_t H, mult, shift;
};

/* The segment's value at counter @cyc in [P, P+H], the fast path's formula
 * (exact up to the horizon: cyclock/timeline.h). */
PART uint64_t slow_value(const struct slow_read *r, uint64_t cyc)
{
	return r->sec_ns + ((cyc * r->mult + r->k) >> r->shift);
}

/* Whether the library reads the counter, so that a resync has a track to
 * follow (a counter segment, horizon_cyc > 0, says so by itself). */
PART bool on_counter(const struct slow_read *r)
{
	return r->H || (cyclock_atomic_load(&cyclock__host.state, CYCLOCK_ACQUIRE) ==
				INIT_DONE &&
			cyclock_atomic_load(&cyclock__setup.using_counter, CYCLOCK_SEQ_CST));
}

/* The segment's copy that @r->word names, and @r->cyc read after it
 * unless @again is false (the fast path's own); false if torn. */
PART bool slow_load(struct cyclock__timeline *tl, unsigned int kind, struct slow_read *r,
		    bool again)
{
	const struct cyclock__seg *s;

	if (again) {
		r->word = cyclock__tl_begin(tl);
		r->cyc = (kind & CYCLOCK__ORDERED) ? cyclock__counter_ordered(tl)
						   : cyclock_arch_counter();
	}
	s = &tl->seg[r->word & 1];
	r->P = cyclock__load64(&s->epoch_cyc);
	r->sec_ns = cyclock__load64(&s->epoch_sec_ns);
	r->k = cyclock__load64(&s->epoch_k);
	r->H = cyclock_atomic_load(&s->horizon_cyc, CYCLOCK_RELAXED);
	r->mult = cyclock_atomic_load(&s->mult, CYCLOCK_RELAXED);
	r->off = cyclock__off_ns(cyclock__seg_off(s, kind));
	r->shift = cyclock_atomic_load(&tl->shift, CYCLOCK_RELAXED);
	/* Kernel mode's moment to look again is the slow path's own line. */
	r->recheck = r->H ? 0 : cyclock__load64(&tl->ext[r->word & 1].recheck_cyc);
	return !cyclock__tl_retry(tl, r->word);
}

/* Serve the kernel's clock for @kind, at least the floor of the copy in
 * @r, counted and noted (serve(), served()): the value in *@ns, or false
 * if the sequence moved (read again). */
PART bool serve_noted(struct cyclock__timeline *tl, unsigned int kind,
		      const struct slow_read *r, uint64_t *ns)
{
	/* REALTIME and BOOTTIME: the kernel's own, so that a step of the
	 * system clock shows at once; the floor with the segment's offset. */
	uint64_t floor = slow_value(r, r->P + r->H) + r->off;

	if (!serve(tl, r->word, cyclock__kernel_ns(kernel_id(kind)), floor, ns))
		return false;
	served(tl, r->cyc);
	return true;
}

/*
 * The slow path's common case, alone so that it is a few lines of code
 * that a read after a pause fetches (docs/hosted.md, "A read after a
 * pause"): the copy @r holds a counter segment, its counter is past the
 * horizon and a resync does not pay.  The value in *@ns, or false for
 * counter_slow() to decide, from the start.
 */
PART bool serve_past(struct cyclock__timeline *tl, unsigned int kind,
		     const struct slow_read *r, uint64_t *ns)
{
	int64_t past = (int64_t)(r->cyc - r->P - r->H);

	if (cyclock_unlikely(!r->H || past < 0 || resync_pays(tl, past, r->cyc)))
		return false;
	return serve_noted(tl, kind, r, ns);
}

/*
 * The timeline's slow path once initialised on the counter, or before
 * the timelines start (kernel mode with floor 0): the cases at the top.
 * Starts from the fast path's word and counter (@word, @cyc).  The value
 * with @kind's offset.
 */
PART uint64_t timeline_slow(unsigned int kind, uint64_t word, uint64_t cyc)
{
	bool raw = kind & CYCLOCK__RAW;
	struct cyclock__timeline *tl = cyclock__tl_of(kind);
	struct cyclock__track *tr = raw ? &cyclock__tracks.raw : &cyclock__tracks.mono;
	struct slow_read r = { .word = word, .cyc = cyc };
	uint64_t ns;
	int64_t past;

	for (int pass = 0;; pass++) {
		if (!slow_load(tl, kind, &r, pass > 0))
			continue;
		past = (int64_t)(r.cyc - r.P - r.H);
		if (r.H && (int64_t)(r.cyc - r.P) < 0) {
			/* Before the start: the counter went back (leave it, then
			 * read in kernel mode), or a relaxed read ran early. */
			if (r.P - r.cyc > cyclock__setup.counts.max_back_cyc && pass < CYCLOCK_SLOW_PASSES &&
			    cyclock__resync(tr, true, false))
				continue;
			return slow_value(&r, r.P) + r.off;
		}
		if (r.H && past < 0) /* a segment went out meanwhile */
			return slow_value(&r, r.cyc) + r.off;
		if (pass < CYCLOCK_SLOW_PASSES && resync_pays(tl, r.H ? past : (int64_t)(r.cyc - r.recheck), r.cyc) &&
		    on_counter(&r) && cyclock__resync(tr, false, false))
			continue;
		if (serve_noted(tl, kind, &r, &ns))
			return ns;
	}
}

/* No counter in use: how is set to CYCLOCK__HOW_KERNEL once initialised,
 * with release, which the acquire pairs with, so that the reader sees
 * what initialisation decided (cyclock_local()'s per-CPU mode). */
PART bool no_counter(const struct cyclock__timeline *tl)
{
	return cyclock_atomic_load(&tl->how, CYCLOCK_ACQUIRE) == CYCLOCK__HOW_KERNEL;
}

/* The kernel's clock of @kind, or cyclock_local()'s per-CPU clock. */
PART uint64_t kernel_value(unsigned int kind)
{
	if ((kind & CYCLOCK__LOCAL) &&
	    cyclock_atomic_load(&cyclock__setup.local_percpu, CYCLOCK_SEQ_CST))
		return cyclock__local_read();
	return cyclock__kernel_ns(kernel_id(kind));
}

/* timeline_or_past() but for serve_past()'s case. */
static CYCLOCK__READ_PATH __attribute__((noinline, cold)) uint64_t
counter_slow(unsigned int kind, uint64_t word, uint64_t cyc)
{
	/* A counter segment (horizon_cyc > 0) means initialised on the counter. */
	if (!cyclock_atomic_load(&cyclock__tl_of(kind)->seg[word & 1].horizon_cyc,
				 CYCLOCK_RELAXED)) {
		if (cyclock_atomic_load(&cyclock__host.state, CYCLOCK_ACQUIRE) != INIT_DONE)
			cyclock__init_once(CYCLOCK__INIT_DEFER | CYCLOCK__INIT_READ);
		if (cyclock_atomic_load(&cyclock__host.state, CYCLOCK_ACQUIRE) == INIT_DONE &&
		    !cyclock_atomic_load(&cyclock__setup.using_counter, CYCLOCK_SEQ_CST))
			return kernel_value(kind);
	}
	return timeline_slow(kind, word, cyc);
}

/* cyclock__slow() with a counter in use, or before initialisation:
 * serve_past()'s case here, the rest in counter_slow(). */
static CYCLOCK__READ_PATH __attribute__((noinline)) uint64_t
timeline_or_past(unsigned int kind, uint64_t word, uint64_t cyc)
{
	struct cyclock__timeline *tl = cyclock__tl_of(kind);
	struct slow_read r = { .word = word, .cyc = cyc };
	uint64_t ns;

	if (cyclock_likely(slow_load(tl, kind, &r, false) && serve_past(tl, kind, &r, &ns)))
		return ns;
	return counter_slow(kind, word, cyc);
}

CYCLOCK__READ_PATH uint64_t cyclock__slow(unsigned int kind, uint64_t word, uint64_t cyc)
{
	/* The kernel's clock, for a load and a call more than its own; kept
	 * apart from the frame the rest needs. */
	if (no_counter(cyclock__tl_of(kind)))
		return kernel_value(kind);
	return timeline_or_past(kind, word, cyc);
}

/* At load, before main() and any seccomp filter of the program's: what
 * the reads will need that takes a system call (load.c).  Here, so
 * that every program that reads has it, one linked statically too. */
__attribute__((constructor)) static void reads_at_load(void)
{
	cyclock__load();
}

/* kernel_value() for read_kind(), one function for each clock: apart, so
 * that the fast path keeps no frame, and with its kind folded in. */
#define KERNEL_READ(name, kind)                                                   \
	static CYCLOCK__READ_PATH __attribute__((noinline)) uint64_t name(void) \
	{                                                                         \
		return kernel_value(kind);                                        \
	}
KERNEL_READ(kernel_mono, 0)
KERNEL_READ(kernel_raw, CYCLOCK__RAW)
KERNEL_READ(kernel_real, CYCLOCK__REAL)
KERNEL_READ(kernel_boot, CYCLOCK__BOOT)
KERNEL_READ(kernel_local, CYCLOCK__LOCAL)

PART uint64_t kernel_read(unsigned int kind)
{
	return kind & CYCLOCK__RAW    ? kernel_raw()
	       : kind & CYCLOCK__REAL  ? kernel_real()
	       : kind & CYCLOCK__BOOT  ? kernel_boot()
	       : kind & CYCLOCK__LOCAL ? kernel_local()
				       : kernel_mono();
}

/* The public clocks: the fast path inlined, on their timeline; with no
 * counter in use, the kernel's clock without cyclock__slow()'s dispatch on
 * @kind, so that such a read costs little more than the kernel's own; the
 * rest in cyclock__slow(). */
PART uint64_t read_kind(unsigned int kind)
{
	struct cyclock__timeline *tl = cyclock__tl_read(kind);
	uint64_t base, since, off;

	if (cyclock_likely(cyclock__read_parts(tl, kind, &base, &since, &off)))
		return base + since + cyclock__off_ns(off);
	if (no_counter(tl))
		return kernel_read(kind);
	return cyclock__slow(kind, base, since);
}

CYCLOCK__READ_PATH uint64_t cyclock_now(void)
{
	return read_kind(CYCLOCK__ORDERED);
}

CYCLOCK__READ_PATH uint64_t cyclock_now_relaxed(void)
{
	return read_kind(0);
}

CYCLOCK__READ_PATH uint64_t cyclock_raw(void)
{
	return read_kind(CYCLOCK__ORDERED | CYCLOCK__RAW);
}

CYCLOCK__READ_PATH uint64_t cyclock_realtime(void)
{
	return read_kind(CYCLOCK__ORDERED | CYCLOCK__REAL);
}

CYCLOCK__READ_PATH uint64_t cyclock_boottime(void)
{
	return read_kind(CYCLOCK__ORDERED | CYCLOCK__BOOT);
}

CYCLOCK__READ_PATH uint64_t cyclock_local(void)
{
	return read_kind(CYCLOCK__LOCAL);
}

/* Initialised: the counter is in use or known not to be.  Waits for a
 * deferred initialisation's second half, as cyclock_init() does. */
static bool ready(void)
{
	if (cyclock_atomic_load(&cyclock__host.state, CYCLOCK_ACQUIRE) != INIT_DONE)
		cyclock__init_wait(0, false);
	return cyclock_atomic_load(&cyclock__setup.using_counter, CYCLOCK_SEQ_CST);
}

uint64_t cyclock_cycles(void)
{
	return ready() ? cyclock_arch_counter() : 0;
}

/*
 * @cycles on cyclock_now()'s timeline, counted back from now at slope
 * @mult: in kernel mode, where the last counter function may be far from
 * the kernel's clock (that is why it is kernel mode), and past a segment's
 * horizon, where the kernel's rate may have changed since; not
 * extrapolated from that function's start.
 */
static uint64_t from_now(uint64_t cycles, uint32_t mult)
{
	uint64_t c_now = cyclock__ordered(), ns = cyclock_now();
	int64_t d = (int64_t)(c_now - cycles);
	uint64_t span = (uint64_t)(((unsigned __int128)(uint64_t)(d < 0 ? -d : d) * mult) >>
				   cyclock__setup.counts.shift);

	return d >= 0 ? ns - span : ns + span;
}

uint64_t cyclock_cycles_to_ns(uint64_t cycles)
{
	struct cyclock__segv v;
	uint64_t ns;
	uint32_t frac;

	if (!ready())
		return cyclock_now();
	v = cyclock__seg_load(&cyclock__mono);
	if (!v.mult) /* no counter segment yet (kernel mode since the start) */
		return cyclock_now();
	/* Kernel mode, a segment past its horizon (a read after a gap was
	 * served the kernel's clock, not resynced), or a count outside the
	 * segment: counted back from now. */
	if (cyclock__ordered() - v.cyc >= v.horizon_cyc || cycles - v.cyc >= v.horizon_cyc)
		return from_now(cycles, v.mult_rate);
	cyclock__seg_at(&v, cyclock__setup.counts.shift, cycles, &ns, &frac);
	return ns;
}

void cyclock_resync(void)
{
	if (!ready())
		return;
	cyclock__resync_all();
}
