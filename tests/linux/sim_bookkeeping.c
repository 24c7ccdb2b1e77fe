/* SPDX-License-Identifier: MIT */
/*
 * Bookkeeping follows the publish: a resync whose publish does not take
 * (served reads kept coming between its raise and its swap, every time:
 * cyclock__publish()) counts nothing.  No resync, kernel-mode spell,
 * strike or anomaly is recorded, and the tracks (rate, interval,
 * baseline, windows) are left byte for byte as they were (the offsets of
 * REALTIME and BOOTTIME, measurements, are kept for the next publish); the same resync
 * with nobody in the way then counts what it decided.  Each case: a resync
 * that continues on the counter, one that leaves it because the counter
 * leapt (a spell and an anomaly), one that strikes (the counter drifted
 * from the kernel's clocks), one that follows a change of the kernel's
 * rate, and the fresh segment that ends a spell.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "sim_world.h"
#include "internal.h"

#define RATE 3000000000ull

/* A read of each timeline served the kernel's clock, as other threads'
 * would be just before the swap: their counts in the words (read.c's
 * serve()). */
static void served_meanwhile(void)
{
	cyclock_atomic_fetch_add(&cyclock__mono.seq, CYCLOCK__SERVED_ONE, CYCLOCK_RELEASE);
	cyclock_atomic_fetch_add(&cyclock__raw.seq, CYCLOCK__SERVED_ONE, CYCLOCK_RELEASE);
}

static void read_often(uint64_t ns)
{
	struct track tr = { 0 };
	struct reading r[NCLOCKS];

	for (uint64_t t0 = w.t; w.t - t0 < ns; w.t += 100 * US)
		sim_read_all(&tr, r);
}

/* Resyncs both timelines with served reads before each of their
 * publishes' swaps: nothing may be counted, the tracks must not change.
 * Then again with nobody in the way; returns the state's counts after. */
static struct cyclock_state resync_blocked_then_not(const char *what)
{
	struct cyclock_state before = state_now(), after;
	unsigned char track[2][sizeof(struct cyclock__track)];
	uint32_t seq = CYCLOCK__SEQ(cyclock_atomic_load(&cyclock__mono.seq, CYCLOCK_RELAXED));
	uint32_t raw_seq = CYCLOCK__SEQ(cyclock_atomic_load(&cyclock__raw.seq, CYCLOCK_RELAXED));

	memcpy(track[0], &cyclock__tracks.mono, sizeof(track[0]));
	memcpy(track[1], &cyclock__tracks.raw, sizeof(track[1]));
	w.swaps_hooked = 0;
	w.before_swap = served_meanwhile;
	cyclock_resync();
	w.before_swap = NULL;
	after = state_now();
	print_message("  %s: the publish tried %lu times, and did not take\n", what,
		      w.swaps_hooked);
	assert_true(w.swaps_hooked > 1);
	assert_int_equal(CYCLOCK__SEQ(cyclock_atomic_load(&cyclock__mono.seq, CYCLOCK_RELAXED)),
			 seq);
	assert_int_equal(CYCLOCK__SEQ(cyclock_atomic_load(&cyclock__raw.seq, CYCLOCK_RELAXED)),
			 raw_seq);
	assert_int_equal(after.resyncs, before.resyncs);
	assert_int_equal(after.kernel_spells, before.kernel_spells);
	assert_int_equal(after.anomalies, before.anomalies);
	assert_int_equal(after.rate_changes, before.rate_changes);
	assert_memory_equal(track[0], &cyclock__tracks.mono, sizeof(track[0]));
	assert_memory_equal(track[1], &cyclock__tracks.raw, sizeof(track[1]));
	cyclock_resync();
	after = state_now();
	assert_int_equal(after.resyncs, before.resyncs + 1);
	return after;
}

/* On the counter, a resync past the horizon: the next segment. */
static void a_next_segment(void **state)
{
	(void)state;
	sim_start(RATE, RATE, true, true);
	read_often(100 * MS);
	w.t += 5 * MS;
	assert_false(resync_blocked_then_not("the next segment").kernel_mode);
}

/* The counter leaps 10 s: each timeline's resync leaves it, a spell and
 * an anomaly each. */
static void a_spell_and_an_anomaly(void **state)
{
	struct cyclock_state before, after;

	(void)state;
	sim_start(RATE, RATE, true, true);
	read_often(100 * MS);
	w.t += 5 * MS;
	w_counter_jump(10 * (int64_t)SEC);
	before = state_now();
	after = resync_blocked_then_not("a spell and an anomaly");
	assert_true(after.kernel_mode);
	assert_int_equal(after.kernel_spells, before.kernel_spells + 2);
	assert_int_equal(after.anomalies, before.anomalies + 2);
}

/* The counter drifts 300 ppm from the kernel's clocks, MONOTONIC's rate
 * over RAW's unmoved: a strike (the track's strikes, compared byte for
 * byte above), the counter kept. */
static void a_strike(void **state)
{
	(void)state;
	sim_start(RATE, RATE, true, true);
	read_often(100 * MS);
	w_rebase_counter();
	w.rate_hz = RATE + RATE / 1000000 * 300;
	w.t += 20 * MS;
	assert_int_equal(cyclock__tracks.mono.state.strikes, 0);
	resync_blocked_then_not("a strike");
	assert_int_equal(cyclock__tracks.mono.state.strikes, 1);
}

/* The kernel's rate moves 300 ppm, as its clocks show: a rate change
 * followed (counted above only once the publish took), no strike. */
static void a_rate_change(void **state)
{
	struct cyclock_state before, after;

	(void)state;
	sim_start(RATE, RATE, true, true);
	read_often(100 * MS);
	w_mono_rate(300000);
	w.t += 5 * MS;
	before = state_now();
	after = resync_blocked_then_not("a rate change");
	assert_int_equal(after.rate_changes, before.rate_changes + 1);
	assert_int_equal(cyclock__tracks.mono.state.strikes, 0);
}

/* In kernel mode, once the rate is steady: the fresh segment that ends
 * the spell, and the rate it takes. */
static void the_end_of_a_spell(void **state)
{
	struct cyclock_state after;

	(void)state;
	sim_start(RATE, RATE, true, true);
	read_often(100 * MS);
	w.t += 5 * MS;
	w_counter_jump(10 * (int64_t)SEC);
	cyclock_resync();
	assert_true(state_now().kernel_mode);
	/* Kernel mode looks again every 2 ms; two steady 16 ms windows. */
	for (int i = 0; i < 1000 && state_now().kernel_mode; i++) {
		w.t += 2 * MS;
		if (cyclock__tracks.mono.state.win_rate > 0 &&
		    w_clock(CLOCK_MONOTONIC) - cyclock__tracks.mono.state.win.ns >=
			    (CYCLOCK_STEADY_NS << cyclock__tracks.mono.state.streak)) {
			after = resync_blocked_then_not("the end of a spell");
			assert_false(after.kernel_mode);
			return;
		}
		cyclock_resync();
	}
	fail_msg("kernel mode never came to its end");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_next_segment),
		cmocka_unit_test(a_spell_and_an_anomaly),
		cmocka_unit_test(a_strike),
		cmocka_unit_test(a_rate_change),
		cmocka_unit_test(the_end_of_a_spell),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
