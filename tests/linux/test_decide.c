/* SPDX-License-Identifier: MIT */
/*
 * The writer's decision, cyclock__decide() (track.c, kmode.c), case by
 * case, with no kernel and no simulated one: a counter at 3 GHz, a
 * current segment, and a sample of the kernel's clock made up for each
 * case.  What it must publish: the next segment continuing the current
 * one when the kernel agrees, a forward step when the timeline is behind,
 * a lead dropped (never below the floor) when it is ahead, a change of
 * the kernel's rate that its clocks show (MONOTONIC's rate over RAW's,
 * from the RAW - MONOTONIC offset each sample carries) followed within
 * CYCLOCK_FOLLOW_PPM, however small, and offsets that move within their
 * brackets taken for no change; kernel mode (at the floor) for a change
 * beyond it (not an anomaly, even with an error over CYCLOCK_WRONG_NS),
 * an error beyond CYCLOCK_WRONG_NS the kernel's rate does not explain (an
 * anomaly), two unexplained errors in a row or a counter that went back;
 * the same segment with new offsets before the horizon, and the counter
 * again once two kernel-mode windows agree.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "internal.h"

#define HZ 3000000000.0
#define RATE (1e9 / HZ)            /* ns per count */
#define US 3000ull                 /* counts per microsecond */
#define MS (1000 * US)
#define P0 (1000000000000ull)      /* the current segment's start, counts */
#define NS0 (500000000000ull)      /* and its value there, ns */

static uint64_t counts(uint64_t ns)
{
	return (uint64_t)((double)ns * HZ / 1e9) + 1;
}

/* The tuning in counts of a 3 GHz counter, as initialisation sets it
 * (cyclock__counts_at()), and what a MONOTONIC track points at besides: RAW's
 * track at the same rate (MONOTONIC's stated rate is RAW's times the
 * kernel's ratio) and init's first RAW sample (none: a zero one).  The
 * library's own are poisoned: the decision must read none of them. */
static struct cyclock__counts k;
static struct cyclock__track raw_track;
static struct cyclock__sample first_raw;

static void setup(void)
{
	k = cyclock__counts_at(HZ);
	raw_track.state.rate = RATE;
	/* What the decision once read of the library's own: counts of 4.5e18,
	 * a RAW rate of 0.0005 ns per count. */
	memset(&cyclock__setup.counts, 0x3f, sizeof(cyclock__setup.counts));
	memset(&cyclock__setup.first_raw, 0x3f, sizeof(cyclock__setup.first_raw));
	memset(&cyclock__tracks.raw.state.last, 0x3f, sizeof(cyclock__tracks.raw.state.last));
	cyclock__tracks.raw.state.rate = 5e-4;
}

/* RAW - MONOTONIC at NS0, and MONOTONIC's rate over RAW's from there on
 * (ppm; each case sets it: what the kernel's clocks show). */
#define RAW_OFF0 12345678ull
static double kernel_ppm;
static int64_t raw_noise; /* ns added to the offset, within its bracket */

/* A sample at counter @cyc reading @ns, 60 counts wide, with RAW -
 * MONOTONIC as kernel_ppm has it, within 20 ns. */
static struct cyclock__sample sample(uint64_t cyc, uint64_t ns)
{
	double gained = kernel_ppm * 1e-6 * (double)(int64_t)(ns - NS0);
	struct cyclock__sample s = { cyc, cyc - 30, 60, ns,
				     RAW_OFF0 - (uint64_t)(int64_t)gained + (uint64_t)raw_noise, 20 };

	return s;
}

/* The current counter segment: from P0 at NS0, at the rate, 2 ms long. */
static struct cyclock__segv segment(void)
{
	struct cyclock__segv v = { 0 };

	v.cyc = P0;
	v.ns = NS0;
	v.mult = v.mult_rate = cyclock__mult_of(RATE, k.shift);
	v.horizon_cyc = (uint32_t)k.max_int_cyc;
	v.off_real = 7;
	v.off_boot = 3;
	return v;
}

/* A steady track on that segment: the rate known for a second, the
 * kernel's ratio 0 ppm all along, known within 0.05 ppm. */
static struct cyclock__track track(void)
{
	struct cyclock__track tr;

	memset(&tr, 0, sizeof(tr));
	tr.id = CLOCK_MONOTONIC;
	tr.counts = &k;
	tr.raw = &raw_track;
	tr.first_raw = &first_raw;
	tr.state.rate = RATE;
	tr.state.interval = k.max_int_cyc;
	tr.state.anchor = tr.state.mid = sample(P0 - counts(NSEC_PER_SEC), NS0 - NSEC_PER_SEC);
	tr.state.last = sample(P0, NS0);
	tr.state.ratio_unc = 0.05;
	tr.state.hold_ns = 0;
	return tr;
}

/* The segment's value at @cyc. */
static uint64_t value(const struct cyclock__segv *v, uint64_t cyc)
{
	uint64_t ns;
	uint32_t frac;

	cyclock__seg_at(v, k.shift, cyc, &ns, &frac);
	return ns;
}

static uint64_t floor_of(const struct cyclock__segv *v)
{
	return cyclock__seg_horizon(v, k.shift);
}

/* One case: the current segment, a steady track on it, and the writer's
 * counter read at the resync (and kernel_ppm). */
struct fixture {
	struct cyclock__segv cur;
	struct cyclock__track tr;
	uint64_t cw;
};

static int steady(void **state)
{
	static struct fixture f;

	f.cur = segment();
	kernel_ppm = 0;
	raw_noise = 0;
	f.tr = track();
	f.cw = 0;
	*state = &f;
	return 0;
}

/* A resync @past counts past the horizon whose sample reads the
 * segment's own value plus @err_ns (the kernel ahead of us by @err_ns). */
static struct cyclock__decision resync_at(struct fixture *f, uint64_t past, int64_t err_ns)
{
	uint64_t sc = f->cur.cyc + f->cur.horizon_cyc + past;
	struct cyclock__sample s = sample(sc, (uint64_t)((int64_t)value(&f->cur, sc) + err_ns));

	f->cw = sc + 30;
	return cyclock__decide(&f->tr, &f->cur, &s, f->cw, NULL, false);
}

/* The same 100 us past the horizon. */
static struct cyclock__decision past_horizon(struct fixture *f, int64_t err_ns)
{
	return resync_at(f, 100 * US, err_ns);
}

static void slope_within_follow(const struct cyclock__segv *v)
{
	double ppm = ((double)v->mult / (double)cyclock__mult_of(RATE, k.shift) - 1) * 1e6;

	if (ppm > CYCLOCK_FOLLOW_PPM + 1 || ppm < -1954)
		fail_msg("the next slope is %.1f ppm off the rate", ppm);
}

static void agreeing_kernel_continues_the_segment(void **state)
{
	struct fixture *f = *state;
	struct cyclock__decision d;

	d = past_horizon(f, 0);
	assert_int_equal(d.what, CYCLOCK__NEXT);
	assert_null(d.why);
	assert_int_equal(d.seg.cyc, f->cw);
	/* Where the segment is at cw, or down to the kernel's least value
	 * there (the sample's bracket ended 30 counts, 10 ns, before cw):
	 * never higher than it must, never below the floor. */
	assert_true(d.seg.ns <= value(&f->cur, f->cw) && d.seg.ns + 20 >= value(&f->cur, f->cw));
	assert_true(d.seg.ns >= floor_of(&f->cur));
	/* An interval already at its longest stays there. */
	assert_int_equal(d.seg.horizon_cyc, k.max_int_cyc);
	assert_int_equal(d.seg.off_real, f->cur.off_real);
	slope_within_follow(&d.seg);
}

static void behind_steps_forward(void **state)
{
	struct fixture *f = *state;
	struct cyclock__decision d;

	d = past_horizon(f, 10000); /* the kernel 10 us ahead */
	assert_int_equal(d.what, CYCLOCK__NEXT);
	/* At the kernel's clock at cw, not at the segment's. */
	assert_true(d.seg.ns >= value(&f->cur, f->cw) + 9900);
	slope_within_follow(&d.seg);
}

static void ahead_drops_the_lead_but_not_below_the_floor(void **state)
{
	struct fixture *f = *state;
	struct cyclock__decision d;

	d = past_horizon(f, -5000); /* we are 5 us ahead */
	assert_int_equal(d.what, CYCLOCK__NEXT);
	assert_true(d.seg.ns < value(&f->cur, f->cw));  /* the lead dropped at once, */
	assert_true(d.seg.ns + 5100 >= value(&f->cur, f->cw)); /* down to the kernel's */
	/* 50 us ahead, 10 us past the horizon: the kernel's clock is below the
	 * floor, the most the segment handed out, so the next starts there. */
	f->tr = track();
	d = resync_at(f, 10 * US, -50000);
	assert_int_equal(d.what, CYCLOCK__NEXT);
	assert_int_equal(d.seg.ns, floor_of(&f->cur));
}

static void expect_kernel(const struct cyclock__decision *d, const struct cyclock__segv *cur,
			  const char *why)
{
	assert_int_equal(d->what, CYCLOCK__KERNEL);
	assert_int_equal(d->seg.horizon_cyc, 0);
	assert_int_equal(d->seg.ns, floor_of(cur));
	assert_non_null(d->why);
	if (!strstr(d->why, why))
		fail_msg("why \"%s\", not \"%s\"", d->why, why);
}

static void a_change_beyond_follow_goes_to_kernel_mode(void **state)
{
	struct fixture *f = *state;
	struct cyclock__decision d;

	kernel_ppm = 10000; /* the tick +1 % */
	d = past_horizon(f, 0);
	expect_kernel(&d, &f->cur, "1000 ppm");
	assert_false(d.counter_wrong);
	assert_int_equal(f->tr.state.spells, 1);
}

/* A 10 % tick change, 300 us off by the resync: the kernel's, not an
 * anomaly, because its clocks show it. */
static void a_large_error_the_kernels_clocks_explain_is_no_anomaly(void **state)
{
	struct fixture *f = *state;
	struct cyclock__decision d;

	kernel_ppm = 100000;
	d = past_horizon(f, 300000);
	expect_kernel(&d, &f->cur, "1000 ppm");
	assert_false(d.counter_wrong);
}

static void a_change_within_follow_is_followed(void **state)
{
	struct fixture *f = *state;
	struct cyclock__decision d;

	kernel_ppm = 500;
	d = past_horizon(f, 0);
	assert_int_equal(d.what, CYCLOCK__NEXT);
	assert_int_equal(f->tr.state.rate_changes, 1);
	assert_true(d.seg.mult_rate > f->cur.mult_rate);
	assert_true(f->tr.state.ratio_ppm > 499 && f->tr.state.ratio_ppm < 501);
}

/* 20 ppm, 40 ns over the 2 ms: within the noise of the counter's error,
 * but beyond the offsets' brackets: followed, as adjtimex(2) would have
 * told it. */
static void a_small_change_is_followed(void **state)
{
	struct fixture *f = *state;
	struct cyclock__decision d;
	double want = RATE * (1 + 20e-6);

	kernel_ppm = 20;
	d = past_horizon(f, 0);
	assert_int_equal(d.what, CYCLOCK__NEXT);
	assert_int_equal(f->tr.state.rate_changes, 1);
	if (cyclock__absd(f->tr.state.rate / want - 1) > 2e-6)
		fail_msg("rate %.9f, not %.9f", f->tr.state.rate, want);
}

/* An offset off by as much as its bracket allows: no change, and the
 * ratio stays. */
static void offsets_within_their_brackets_are_no_change(void **state)
{
	struct fixture *f = *state;
	struct cyclock__decision d;

	raw_noise = 20; /* both brackets, 20 ns each, allow 20 */
	d = past_horizon(f, 0);
	assert_int_equal(d.what, CYCLOCK__NEXT);
	assert_int_equal(f->tr.state.rate_changes, 0);
	assert_true(f->tr.state.ratio_ppm < 1 && f->tr.state.ratio_ppm > -1);
}

static void an_unexplained_large_error_is_the_counters(void **state)
{
	struct fixture *f = *state;
	struct cyclock__decision d;

	d = past_horizon(f, 300000); /* 300 us */
	expect_kernel(&d, &f->cur, "counter");
	assert_true(d.counter_wrong);
}

static void two_unexplained_errors_in_a_row_go_to_kernel_mode(void **state)
{
	struct fixture *f = *state;
	struct cyclock__decision d;

	d = past_horizon(f, 3000); /* 3 us: beyond the noise */
	assert_int_equal(d.what, CYCLOCK__NEXT);
	assert_int_equal(f->tr.state.strikes, 1);
	f->cur = d.seg;
	d = past_horizon(f, 3000);
	expect_kernel(&d, &f->cur, "drifted apart");
	assert_false(d.counter_wrong);
}

static void a_counter_that_went_back_goes_to_kernel_mode(void **state)
{
	struct fixture *f = *state;
	struct cyclock__sample s = sample(P0 - MS, NS0);
	struct cyclock__decision d = cyclock__decide(&f->tr, &f->cur, &s, P0 - MS, NULL, true);

	expect_kernel(&d, &f->cur, "went back");
	assert_true(d.counter_wrong);
}

static void before_the_horizon_only_the_offsets_change(void **state)
{
	struct fixture *f = *state;
	uint64_t off[2] = { 1000000007, 11 }, sc = P0 + f->cur.horizon_cyc / 2;
	struct cyclock__sample s = sample(sc, value(&f->cur, sc));
	struct cyclock__decision d = cyclock__decide(&f->tr, &f->cur, &s, sc + 30, off, false);

	assert_int_equal(d.what, CYCLOCK__KEEP);
	assert_int_equal(d.seg.cyc, f->cur.cyc);
	assert_int_equal(d.seg.ns, f->cur.ns);
	assert_int_equal(d.seg.mult, f->cur.mult);
	assert_int_equal(d.seg.off_real, off[0]);
	assert_int_equal(d.seg.off_boot, off[1]);
}

/* A look in kernel mode @since counts after the track's window opened,
 * the kernel at @ns_per_count meanwhile. */
static struct cyclock__decision kernel_look(struct fixture *f, uint64_t since, double ns_per_count)
{
	uint64_t cyc = f->tr.state.win.cyc + since;
	struct cyclock__sample s =
		sample(cyc, f->tr.state.win.ns + (uint64_t)((double)since * ns_per_count));

	f->cw = cyc + 30;
	return cyclock__decide(&f->tr, &f->cur, &s, f->cw, NULL, false);
}

static void kernel_mode_hands_back_once_two_windows_agree(void **state)
{
	struct fixture *f = *state;
	struct cyclock__decision d;
	uint64_t window = counts(CYCLOCK_STEADY_NS) + MS;

	kernel_ppm = 10000; /* and steady at that from here */
	d = past_horizon(f, 0); /* into kernel mode */
	assert_int_equal(d.what, CYCLOCK__KERNEL);
	f->cur = d.seg;
	/* Too soon: stays. */
	d = kernel_look(f, MS, RATE);
	assert_int_equal(d.what, CYCLOCK__KERNEL);
	assert_null(d.why);
	/* The first whole window: its rate noted, stays. */
	d = kernel_look(f, window, RATE);
	assert_int_equal(d.what, CYCLOCK__KERNEL);
	assert_true(f->tr.state.win_rate > 0);
	/* A second window 100 ppm off the first: not steady, stays. */
	d = kernel_look(f, window, RATE * (1 + 100e-6));
	assert_int_equal(d.what, CYCLOCK__KERNEL);
	/* The next agrees with that one: the counter again, above the floor. */
	d = kernel_look(f, window, RATE * (1 + 100e-6));
	assert_int_equal(d.what, CYCLOCK__FRESH);
	assert_int_equal(floor_of(&d.seg), floor_of(&f->cur));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(agreeing_kernel_continues_the_segment, steady),
		cmocka_unit_test_setup(behind_steps_forward, steady),
		cmocka_unit_test_setup(ahead_drops_the_lead_but_not_below_the_floor, steady),
		cmocka_unit_test_setup(a_change_beyond_follow_goes_to_kernel_mode, steady),
		cmocka_unit_test_setup(a_large_error_the_kernels_clocks_explain_is_no_anomaly,
				       steady),
		cmocka_unit_test_setup(a_change_within_follow_is_followed, steady),
		cmocka_unit_test_setup(a_small_change_is_followed, steady),
		cmocka_unit_test_setup(offsets_within_their_brackets_are_no_change, steady),
		cmocka_unit_test_setup(an_unexplained_large_error_is_the_counters, steady),
		cmocka_unit_test_setup(two_unexplained_errors_in_a_row_go_to_kernel_mode, steady),
		cmocka_unit_test_setup(a_counter_that_went_back_goes_to_kernel_mode, steady),
		cmocka_unit_test_setup(before_the_horizon_only_the_offsets_change, steady),
		cmocka_unit_test_setup(kernel_mode_hands_back_once_two_windows_agree, steady),
	};

	setup();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
