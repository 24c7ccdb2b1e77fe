/* SPDX-License-Identifier: MIT */
/*
 * CLOCK_MONOTONIC changes rate under the library (NTP's +-500 ppm, the
 * most adjtimex allows): cyclock_now() must follow by slewing, never by
 * a step back or a jump, stay within a generous 1 ms of the kernel while
 * it catches up, and be back within 1 us in a few seconds of virtual time.
 * cyclock_raw() follows MONOTONIC_RAW, which does not change: it must not
 * notice at all.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "sim_world.h"

#define SETTLE_NS (10 * MS)
#define GOOD_NS 1000
#define SLEW_BOUND_NS (1 * MS)      /* the most now may be off while catching up */
#define CONVERGE_NS (5 * SEC)       /* "a few seconds" */
#define AFTER_NS (30 * SEC)         /* how long to watch after the last change */
#define MAX_SLOPE_PPM 2000          /* a slew, not a step: now's rate vs virtual time */

struct change {
	uint64_t at;  /* virtual time since start */
	int64_t ppb;  /* MONOTONIC's new rate, parts per billion fast */
};

/*
 * Between two reads now advanced at a rate within MAX_SLOPE_PPM of virtual
 * time: it slewed, it did not step (forward or back).  Each value may
 * belong to any moment of its call (a call that resyncs spends a few
 * hundred ns of virtual time in the seam), hence the two brackets.
 */
static void check_slope(const struct reading *prev, const struct reading *r)
{
	int64_t dv = (int64_t)(r->v - prev->v);
	int64_t least = (int64_t)(r->t_lo - prev->t_hi), most = (int64_t)(r->t_hi - prev->t_lo);

	least -= least / (1000000 / MAX_SLOPE_PPM) + 2;
	most += most / (1000000 / MAX_SLOPE_PPM) + 2;
	if (dv < least || dv > most)
		fail_msg("now moved %" PRId64 " ns between reads %" PRIu64 "..%" PRIu64
			 " ns of virtual time apart at t=%" PRIu64 " (a step, not a slew)",
			 dv, r->t_lo - prev->t_hi, r->t_hi - prev->t_lo, r->t_hi);
}

/* Read every @stride from the start, applying @changes as their times come;
 * returns the convergence after the last change. */
static struct conv run_changes(const struct change *changes, int n, uint64_t stride)
{
	struct track tr = {0};
	struct reading r[NCLOCKS];
	struct conv cv;
	struct reading prev = {0};
	uint64_t start, end;
	int next = 0;

	sim_start(3000000000ull, 3000000000ull, true, true);
	start = w.t;
	end = start + changes[n - 1].at + AFTER_NS;
	conv_start(&cv);
	while (w.t < end) {
		if (next < n && w.t - start >= changes[next].at) {
			w_mono_rate(changes[next++].ppb);
			conv_start(&cv);
		}
		sim_read_all(&tr, r);
		if (tr.reads > 1)
			check_slope(&prev, &r[NOW]);
		prev = r[NOW];
		if (w.t - start >= SETTLE_NS) {
			check_bound(r, next ? SLEW_BOUND_NS : GOOD_NS, next ? "slewing" : "before");
			if (abs64(r[RAW].err) > GOOD_NS)
				fail_msg("raw off by %" PRId64 " ns while MONOTONIC slews", r[RAW].err);
		}
		if (next)
			conv_note(&cv, r[NOW].err, GOOD_NS);
		w.t += stride;
	}
	assert_int_equal(sim_info().anomalies, 0);
	return cv;
}

static void expect_converged(const struct conv *cv, const char *what)
{
	struct cyclock__info info = sim_info();

	print_message("  %s: largest error %" PRId64 " ns, under 1 us %.3f s after the change"
		      " (interval now %" PRIu64 " ns, %" PRIu64 " refreshes)\n",
		      what, cv->max_abs, conv_secs(cv), info.interval_ns, info.refreshes);
	if (cv->last_bad - cv->from > CONVERGE_NS)
		fail_msg("%s: still over 1 us %.3f s after the change", what, conv_secs(cv));
}

static void plus_500ppm_converged(void **state)
{
	const struct change ch[] = {{20 * SEC, 500000}};
	struct conv cv = run_changes(ch, 1, 100 * US);

	(void)state;
	expect_converged(&cv, "+500 ppm at 20 s");
}

static void minus_500ppm_converged(void **state)
{
	const struct change ch[] = {{20 * SEC, -500000}};
	struct conv cv = run_changes(ch, 1, 100 * US);

	(void)state;
	expect_converged(&cv, "-500 ppm at 20 s");
}

/* While the interval is still short, just after initialisation. */
static void plus_500ppm_early(void **state)
{
	const struct change ch[] = {{5 * MS, 500000}};
	struct conv cv = run_changes(ch, 1, 100 * US);

	(void)state;
	expect_converged(&cv, "+500 ppm at 5 ms");
}

/* A 1000 ppm swing: +500 ppm, then -500 ppm before the first settled. */
static void swing_1000ppm(void **state)
{
	const struct change ch[] = {{20 * SEC, 500000}, {21500 * MS, -500000}};
	struct conv cv = run_changes(ch, 2, 100 * US);

	(void)state;
	expect_converged(&cv, "+500 then -500 ppm 1.5 s later");
}

/* Back to the rate it started from, after the library converged on +500. */
static void plus_then_back(void **state)
{
	const struct change ch[] = {{10 * SEC, 500000}, {25 * SEC, 0}};
	struct conv cv = run_changes(ch, 2, 100 * US);

	(void)state;
	expect_converged(&cv, "+500 ppm, then back to 0 15 s later");
}

/* Few reads: one every 7.3 ms, so each resync comes late. */
static void minus_500ppm_sparse_reads(void **state)
{
	const struct change ch[] = {{20 * SEC, -500000}};
	struct conv cv = run_changes(ch, 1, 7300 * US);

	(void)state;
	expect_converged(&cv, "-500 ppm at 20 s, reads every 7.3 ms");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(plus_500ppm_converged),
		cmocka_unit_test(minus_500ppm_converged),
		cmocka_unit_test(plus_500ppm_early),
		cmocka_unit_test(swing_1000ppm),
		cmocka_unit_test(plus_then_back),
		cmocka_unit_test(minus_500ppm_sparse_reads),
	};

	unsetenv("CYCLOCK_SOURCE");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
