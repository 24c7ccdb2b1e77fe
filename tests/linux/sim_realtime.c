/* SPDX-License-Identifier: MIT */
/*
 * The offsets: CLOCK_REALTIME stepped (the system clock set) and
 * CLOCK_BOOTTIME growing (a suspend).  cyclock_realtime() and
 * cyclock_boottime() must show the new offset at the next resync (within
 * the 1 s interval plus a read) or at once after cyclock_resync(), show
 * either the old offset or the new one meanwhile, never a mixture, and
 * never go back to the old one; cyclock_now() and the other clocks must
 * not notice.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "sim_world.h"
#include "internal.h" /* CYCLOCK_OFFSETS_NS */

#define SETTLE_NS (10 * MS)
#define GOOD_NS 1000
#define STRIDE_NS (100 * US)
#define WATCH_NS (3 * SEC)

/* Run a converged library for @ns, every clock within 1 us throughout. */
static void run_quiet(struct track *tr, uint64_t ns)
{
	uint64_t start = w.t;
	struct reading r[NCLOCKS];

	while (w.t - start < ns) {
		sim_read_all(tr, r);
		if (w.t - SIM_T0 >= SETTLE_NS)
			check_bound(r, GOOD_NS, "quiet");
		w.t += STRIDE_NS;
	}
}

static void shift_offset(enum which c, int64_t delta)
{
	if (c == REAL)
		w.off_real += (uint64_t)delta;
	else
		w.off_boot += (uint64_t)delta;
}

/* The other clocks, unaffected: within 1 us (and, through sim_read_all(),
 * never back). */
static void check_others(const struct reading r[NCLOCKS], enum which c)
{
	for (int o = 0; o < NCLOCKS; o++)
		if (o != (int)c && abs64(r[o].err) > GOOD_NS)
			fail_msg("%s off by %" PRId64 " ns after %s's offset changed", clock_name[o],
				 r[o].err, clock_name[c]);
}

/* run_offset_step()'s flags: cyclock_resync() just before the step (so
 * the lazy resync that shows it is a whole interval away), or just after. */
#define RESYNC_BEFORE 1u
#define RESYNC_AFTER 2u

/*
 * Converge for @at, shift clock @c's offset by @delta, resync by hand as
 * @flags say, and watch: @c shows the old offset or the new one, switches
 * once, and within the offsets' period (CYCLOCK_OFFSETS_NS) plus the
 * longest interval and a read (at once after a resync).  Returns how long
 * the new offset took to show.
 */
static uint64_t run_offset_step(enum which c, int64_t delta, unsigned int flags, uint64_t at)
{
	bool resync = flags & RESYNC_AFTER;
	struct track tr = {0};
	struct reading r[NCLOCKS];
	uint64_t step_t, shown_t = 0, max_interval;

	sim_start(3000000000ull, 3000000000ull, true, true);
	run_quiet(&tr, at);
	max_interval = state_now().max_interval_ns;
	if (flags & RESYNC_BEFORE)
		cyclock_resync();
	shift_offset(c, delta);
	step_t = w.t;
	if (resync)
		cyclock_resync();
	while (w.t - step_t < WATCH_NS) {
		sim_read_all(&tr, r);
		check_others(r, c);
		if (abs64(r[c].err) <= GOOD_NS) {
			if (!shown_t)
				shown_t = w.t;
		} else if (shown_t || abs64(r[c].err + delta) > GOOD_NS) {
			fail_msg("%s off by %" PRId64 " ns %.6f s after a step of %" PRId64
				 " ns (shown at %.6f s)",
				 clock_name[c], r[c].err, (double)(w.t - step_t) / 1e9, delta,
				 shown_t ? (double)(shown_t - step_t) / 1e9 : -1.0);
		}
		if (resync && !shown_t)
			fail_msg("%s: the step not shown right after cyclock_resync()", clock_name[c]);
		w.t += STRIDE_NS;
	}
	assert_true(shown_t != 0);
	if (shown_t - step_t > CYCLOCK_OFFSETS_NS + max_interval + 2 * STRIDE_NS)
		fail_msg("%s: the step showed after %.6f s (interval %" PRIu64 " ns)", clock_name[c],
			 (double)(shown_t - step_t) / 1e9, max_interval);
	print_message("  %s %+.3f s at %.3f s%s: shown after %.6f s\n", clock_name[c],
		      (double)delta / 1e9, (double)at / 1e9,
		      resync ? ", resync after" : flags ? ", resync before" : "",
		      (double)(shown_t - step_t) / 1e9);
	assert_int_equal(state_now().anomalies, 0);
	return shown_t - step_t;
}

/*
 * A loaded machine during initialisation's first half: every kernel read
 * comes after a gap, 200 and 100 us in turn, so each offset bracket is
 * 300 us wide and its middle 50 us off, one way or the other.
 */
static bool alternate_big;

static void alternate(void)
{
	alternate_big = !alternate_big;
	w.t += alternate_big ? 200 * US : 100 * US;
	w.hook = alternate;
	w.hook_at = w_calls() + 1;
}

static int64_t off_real_err(void)
{
	return (int64_t)(TRACKS_OFF(off_real) - w.off_real);
}

/* The first offsets, 50 us off, are replaced at the second half by an
 * exact reading in a bracket 40 us wide, 7.5 times tighter: not kept
 * because they differ by less than twice its width. */
static void noisy_first_offsets_are_replaced(void **state)
{
	(void)state;
	sim_start(3000000000ull, 0, true, true);
	w.hook = alternate;
	w.hook_at = w_calls();
	cyclock__init_once(CYCLOCK__INIT_DEFER);
	w.hook = NULL;
	if (abs64(off_real_err()) < 40 * (int64_t)US)
		fail_msg("the first offsets are %" PRId64 " ns off: the noise did not reach them",
			 off_real_err());
	w.step = 20 * US; /* every bracket 40 us wide, its middle exact */
	w.t += 600 * US;
	/* The checks, one a read, then the second half. */
	for (int i = 0; i < 8 && CYCLOCK__INIT_STATE(atomic_load(&cyclock__host.state)) !=
					INIT_DONE; i++)
		(void)cyclock_now();
	w.step = SIM_STEP;
	if (abs64(off_real_err()) > (int64_t)US)
		fail_msg("REALTIME's offset %" PRId64 " ns off after the second half",
			 off_real_err());
	assert_int_equal(sim_read(REAL).err, 0);
}

static void realtime_plus_1s(void **state)
{
	(void)state;
	run_offset_step(REAL, (int64_t)SEC, 0, 20370 * MS);
}

/* The worst case: the step comes just after a resync. */
static void realtime_step_after_a_resync(void **state)
{
	(void)state;
	run_offset_step(REAL, (int64_t)SEC, RESYNC_BEFORE, 20370 * MS);
	run_offset_step(REAL, -(int64_t)SEC, RESYNC_BEFORE, 20370 * MS);
}

static void realtime_minus_1s(void **state)
{
	(void)state;
	run_offset_step(REAL, -(int64_t)SEC, 0, 20370 * MS);
}

static void realtime_step_early(void **state)
{
	(void)state;
	run_offset_step(REAL, (int64_t)SEC, 0, 5 * MS);
	run_offset_step(REAL, -(int64_t)SEC, 0, 5 * MS);
}

static void realtime_step_then_resync(void **state)
{
	(void)state;
	run_offset_step(REAL, (int64_t)SEC, RESYNC_AFTER, 20370 * MS);
	run_offset_step(REAL, -(int64_t)SEC, RESYNC_AFTER, 20370 * MS);
}

/* Suspended 5 s with the counter stopped too: only BOOTTIME moves. */
static void suspend_lazy(void **state)
{
	(void)state;
	run_offset_step(BOOT, 5 * (int64_t)SEC, 0, 20370 * MS);
	run_offset_step(BOOT, 5 * (int64_t)SEC, RESYNC_BEFORE, 20370 * MS);
}

static void suspend_then_resync(void **state)
{
	(void)state;
	run_offset_step(BOOT, 5 * (int64_t)SEC, RESYNC_AFTER, 20370 * MS);
}

/*
 * Suspended 5 s with the counter still counting: to the library the
 * counter leapt 5 s while MONOTONIC stood still.  now must not jump with
 * it (within 10 ms of the kernel at every read, never back), boottime must
 * gain the 5 s, and all clocks be back within 1 us in 2 s.
 */
static void suspend_counter_running(void **state)
{
	struct track tr = {0};
	struct reading r[NCLOCKS];
	struct conv cv;

	(void)state;
	sim_start(3000000000ull, 3000000000ull, true, true);
	run_quiet(&tr, 20370 * MS);
	w_suspend(5 * SEC, true);
	conv_start(&cv);
	while (w.t - cv.from < WATCH_NS) {
		sim_read_all(&tr, r);
		check_bound(r, 10 * MS, "after a suspend with the counter running");
		for (int c = 0; c < NCLOCKS; c++)
			conv_note(&cv, r[c].err, GOOD_NS);
		w.t += STRIDE_NS;
	}
	print_message("  suspend 5 s, counter running: within 1 us after %.6f s, largest"
		      " error %" PRId64 " ns\n",
		      conv_secs(&cv), cv.max_abs);
	if (cv.last_bad > cv.from + 2 * SEC)
		fail_msg("still over 1 us %.3f s after resume", conv_secs(&cv));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(noisy_first_offsets_are_replaced),
		cmocka_unit_test(realtime_plus_1s),
		cmocka_unit_test(realtime_minus_1s),
		cmocka_unit_test(realtime_step_after_a_resync),
		cmocka_unit_test(realtime_step_early),
		cmocka_unit_test(realtime_step_then_resync),
		cmocka_unit_test(suspend_lazy),
		cmocka_unit_test(suspend_then_resync),
		cmocka_unit_test(suspend_counter_running),
	};

	unsetenv("CYCLOCK_SOURCE");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
