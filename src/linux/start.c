/* SPDX-License-Identifier: MIT */
/*
 * How the timelines start: in kernel mode with floor 0 and the offsets of
 * REALTIME and BOOTTIME (initialisation's first half), then on the counter
 * (its second half, once the counter is trusted and its frequency known),
 * at or above kernel mode's floor, so that no clock steps back at the
 * hand-over (docs/hosted.md, "The first read").
 *
 * Tests: tests/linux/sim_defer.c and test_first_read.c (no clock back
 * across the hand-over), validate_first_reads.c (threads across it).
 */
#include "internal.h"

/* The first offsets of REALTIME and BOOTTIME, for the timelines' start;
 * still kernel mode with floor 0.  A publish that does not take (served
 * reads kept coming) leaves offsets 0 with floor 0, under which every read
 * is the kernel's own clock: the offsets reach readers with the first
 * counter segment, from the tracks. */
void cyclock__start_kernel_mode(void)
{
	struct cyclock__segv v = { 0 };
	struct cyclock__offsets o;

	cyclock__offsets_read(&o, true);
	cyclock__offsets_apply(&o, true);
	v.off_real = TRACKS_OFF(off_real);
	v.off_boot = TRACKS_OFF(off_boot);
	cyclock__publish(&cyclock__mono, &v);
}

/* Constants in counts, for a counter at @hz. */
static uint64_t counts(uint64_t ns, double hz)
{
	return (uint64_t)((double)ns * hz / 1e9) + 1;
}

struct cyclock__counts cyclock__counts_at(double hz)
{
	struct cyclock__counts c;
	uint32_t mult;

	cyclock_calc_mult_shift(&mult, &c.shift, (uint64_t)hz, NSEC_PER_SEC, 4);
	c.max_back_cyc = counts(CYCLOCK_MAX_BACK_NS, hz);
	c.min_int_cyc = counts(CYCLOCK_MIN_INTERVAL_NS, hz);
	c.max_int_cyc = counts(CYCLOCK_MAX_INTERVAL_NS, hz);
	c.fresh_cyc = counts(CYCLOCK_FRESH_NS, hz);
	c.fresh_margin_cyc = counts(CYCLOCK_FRESH_MARGIN_NS, hz);
	c.recheck_cyc = counts(CYCLOCK_RECHECK_NS, hz);
	c.quick_int_cyc = counts(CYCLOCK_QUICK_NS, hz);
	c.tight_cyc = counts(CYCLOCK_TIGHT_NS, hz);
	if (c.max_int_cyc > UINT32_MAX) /* a segment's horizon_cyc is 32 bits */
		c.max_int_cyc = UINT32_MAX;
	return c;
}

static void setup_scale(double hz)
{
	cyclock__setup.counts = cyclock__counts_at(hz);
	for (int i = 0; i < 2; i++) {
		struct cyclock__timeline *tl = i ? &cyclock__raw : &cyclock__mono;

		cyclock_atomic_store(&tl->pay_cyc, counts(CYCLOCK_PAY_NS, hz), CYCLOCK_RELAXED);
		cyclock_atomic_store(&tl->row_cyc, counts(CYCLOCK_ROW_NS, hz), CYCLOCK_RELAXED);
	}
}

/* From init's first sample (setup.first_raw) and @s1, taken @hz apart. */
void cyclock__start_counter(double hz, const struct cyclock__sample *s1)
{
	struct cyclock__sample sm;
	struct cyclock__offsets o;
	bool held;

	setup_scale(hz);
	cyclock__ordered_choose(hz);
	for (int i = 0; i < 2; i++) {
		struct cyclock__track *tr = i ? &cyclock__tracks.raw : &cyclock__tracks.mono;

		tr->tl = i ? &cyclock__raw : &cyclock__mono;
		tr->id = i ? CLOCK_MONOTONIC_RAW : CLOCK_MONOTONIC;
		tr->counts = &cyclock__setup.counts;
		tr->raw = &cyclock__tracks.raw;
		tr->first_raw = &cyclock__setup.first_raw;
		tr->state.rate = 1e9 / hz;
	}
	/* Not first: the first half measured them for the kernel-mode start,
	 * and realtime must not move back by the noise between the two. */
	cyclock__offsets_read(&o, false);
	cyclock__offsets_apply(&o, false);
	cyclock__sample(CLOCK_MONOTONIC, &sm);
	cyclock_atomic_store(&cyclock__tracks.offsets_ns, sm.ns, CYCLOCK_RELAXED);
	/* From the first counter segment on, a reader past its horizon may
	 * resync: the writer flag keeps it out until both timelines and their
	 * tracking are whole (it reads on, capped, meanwhile).  Nobody else
	 * can hold it yet, but a raw fork's child of ours may find it held. */
	held = cyclock__writer_try(false);
	cyclock__track_start(&cyclock__tracks.mono, &sm);
	cyclock__track_start(&cyclock__tracks.raw, s1);
	/* The rate's baseline starts at init's first sample. */
	cyclock__tracks.raw.state.anchor = cyclock__tracks.raw.state.mid = cyclock__setup.first_raw;
	if (held) {
		cyclock__status_counts(&cyclock__tracks.mono, sm.ns,
				       !cyclock__seg_load(&cyclock__mono).horizon_cyc);
		cyclock__writer_done();
	}
	cyclock_atomic_store(&cyclock__setup.using_counter, true, CYCLOCK_SEQ_CST);
}
