/* SPDX-License-Identifier: MIT */
/*
 * Tracking on a well-behaved simulated machine: the hosted clocks must
 * converge on their kernel clocks (within 1 us after 10 ms of virtual
 * time) and stay there for a minute of virtual time, whether the counter's
 * frequency comes from an exact hint, from the library's own measurement,
 * or from a hint 200 ppm off; the resync interval must lengthen to its
 * ceiling, and the frequency estimate end within 0.1 ppm of the truth.
 * A young estimate read again after a long pause resyncs without taking
 * the drift for a change of the kernel's rate.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "sim_world.h"
#include "internal.h" /* CYCLOCK_OFFSETS_NS */

#define RUN_NS (60 * SEC)
#define SETTLE_NS (10 * MS) /* converged from here on */
#define GOOD_NS 1000        /* "converged": within 1 us */
#define EARLY_BOUND_NS (100 * US)

/* cyclock_cycles() is the counter, and converts back onto now's timeline. */
static void check_cycles(uint64_t rate_hz)
{
	uint64_t c = cyclock_cycles(), t_c = w.t, ns, later;
	int64_t err, slope_err;

	if (c != w.last_cyc)
		fail_msg("cyclock_cycles() %" PRIu64 " is not the counter %" PRIu64, c, w.last_cyc);
	ns = cyclock_cycles_to_ns(c);
	err = (int64_t)(ns - w_mono_at(t_c));
	if (abs64(err) > GOOD_NS)
		fail_msg("cycles_to_ns off by %" PRId64 " ns at t=%" PRIu64, err, t_c);
	/* One millisecond's worth of counts converts to one millisecond. */
	later = cyclock_cycles_to_ns(c + rate_hz / 1000);
	slope_err = (int64_t)(later - ns) - (int64_t)MS;
	if (abs64(slope_err) > GOOD_NS)
		fail_msg("1 ms of counts converts to %" PRIu64 " ns", later - ns);
}

/* The other readers of now's timeline agree with it. */
static void check_relaxed_and_local(void)
{
	uint64_t lo = w_clock(CLOCK_MONOTONIC), v = cyclock_now_relaxed();
	uint64_t hi = w_clock(CLOCK_MONOTONIC);

	if (v + GOOD_NS < lo || v > hi + GOOD_NS)
		fail_msg("now_relaxed %" PRIu64 " outside [%" PRIu64 ", %" PRIu64 "]", v, lo, hi);
	lo = w_clock(CLOCK_MONOTONIC);
	v = cyclock_local();
	hi = w_clock(CLOCK_MONOTONIC);
	if (v + GOOD_NS < lo || v > hi + GOOD_NS)
		fail_msg("local %" PRIu64 " outside [%" PRIu64 ", %" PRIu64 "]", v, lo, hi);
}

/* Mostly 100 us between reads; now and then a long idle gap (up to 1.5 s,
 * longer than the longest resync interval) or a shorter one (up to 20 ms),
 * but not in the first 50 ms (the library cannot converge while nobody
 * reads) nor in the last 10 s (so the interval ends at its ceiling). */
static uint64_t next_stride(uint64_t *rng, uint64_t elapsed)
{
	uint64_t x = prng_next(rng);

	if (elapsed < 50 * MS)
		return 100 * US;
	if (elapsed < RUN_NS - 10 * SEC && x % 20000 == 0)
		return 1 + (x >> 20) % (1500 * MS);
	if (x % 97 == 0)
		return 1 + (x >> 20) % (20 * MS);
	return 100 * US;
}

/* The end-of-run checks: the interval, the resyncs, the frequency. */
static void check_final_info(uint64_t rate_hz, uint64_t resyncs_at_settle)
{
	struct cyclock_state info = state_now();
	double ppm = (info.hz - (double)rate_hz) / (double)rate_hz * 1e6;

	print_message("  hz %.3f (%+.4f ppm, source %s, hint %.0f), resyncs %" PRIu64
		      ", interval %" PRIu64 "/%" PRIu64 " ns, last err %" PRId64 "/%" PRId64
		      " ns\n",
		      info.hz, ppm, info.hz_source ? info.hz_source : "?", info.hz_hint,
		      info.resyncs, info.interval_ns, info.max_interval_ns, info.last_err_ns,
		      info.raw_last_err_ns);
	assert_int_equal(info.using_counter, CYCLOCK_USING_COUNTER);
	assert_true(info.resyncs > resyncs_at_settle);
	assert_true(info.max_interval_ns > 1 * MS && info.max_interval_ns <= 1 * SEC);
	/* At the ceiling: interval_ns is converted back from counts with the
	 * refined frequency, hence not exactly equal. */
	if (info.interval_ns < info.max_interval_ns - info.max_interval_ns / 1000)
		fail_msg("interval %" PRIu64 " ns below its ceiling %" PRIu64, info.interval_ns,
			 info.max_interval_ns);
	if (ppm > 0.1 || ppm < -0.1)
		fail_msg("hz %.3f is %.4f ppm from the true %" PRIu64, info.hz, ppm, rate_hz);
	assert_int_equal(info.anomalies, 0);
	assert_int_equal(w.bad_ids, 0);
}

static void run_tracking(uint64_t rate_hz, uint64_t hint_hz)
{
	struct track tr = {0};
	struct reading r[NCLOCKS];
	struct conv cv;
	uint64_t rng = 0x9e3779b97f4a7c15ull ^ rate_hz ^ hint_hz, start;
	uint64_t resyncs_at_settle = UINT64_MAX;
	int64_t max_settled = 0;

	sim_start(rate_hz, hint_hz, true, true);
	start = w.t;
	conv_start(&cv);
	while (w.t - start < RUN_NS) {
		bool settled = w.t - start >= SETTLE_NS;

		sim_read_all(&tr, r);
		conv_note(&cv, r[NOW].err, GOOD_NS);
		check_bound(r, settled ? GOOD_NS : EARLY_BOUND_NS, settled ? "settled" : "settling");
		if (settled && resyncs_at_settle == UINT64_MAX)
			resyncs_at_settle = state_now().resyncs;
		for (int c = 0; settled && c < NCLOCKS; c++)
			if (abs64(r[c].err) > max_settled)
				max_settled = abs64(r[c].err);
		if (tr.reads % 512 == 0) {
			check_cycles(rate_hz);
			check_relaxed_and_local();
		}
		w.t += next_stride(&rng, w.t - start);
	}
	print_message("  rate %" PRIu64 " hint %" PRIu64 ": %lu reads, under 1 us after %.6f s,"
		      " largest error after 10 ms %" PRId64 " ns (now %" PRId64 ", raw %" PRId64
		      ")\n",
		      rate_hz, hint_hz, tr.reads, conv_secs(&cv), max_settled, tr.max_err[NOW],
		      tr.max_err[RAW]);
	check_final_info(rate_hz, resyncs_at_settle);
}

static void exact_hint(void **state)
{
	(void)state;
	run_tracking(3000000000ull, 3000000000ull);
}

static void measured_frequency(void **state)
{
	(void)state;
	run_tracking(3000000000ull, 0);
	assert_non_null(state_now().hz_source);
	assert_non_null(strstr(state_now().hz_source, "measured"));
}

/* An odd rate, measured: nothing may rely on round numbers. */
static void measured_odd_rate(void **state)
{
	(void)state;
	run_tracking(2893417123ull, 0);
}

static void hint_200ppm_high(void **state)
{
	(void)state;
	run_tracking(3000000000ull, 3000600000ull);
}

static void hint_200ppm_low(void **state)
{
	(void)state;
	run_tracking(2893417123ull, 2893417123ull - 578683ull);
}

/* A slow counter (an ARM generic timer's 25 MHz): 40 ns per count. */
static void slow_counter(void **state)
{
	(void)state;
	run_tracking(25000000ull, 0);
}

/* A first read long after reset, and a resync asked for by hand, change
 * nothing: the clocks stay on their kernel clocks. */
static void explicit_resync_keeps_tracking(void **state)
{
	struct track tr = {0};
	struct reading r[NCLOCKS];

	(void)state;
	sim_start(3000000000ull, 3000000000ull, true, true);
	w.t += 5 * SEC;
	for (int i = 0; i < 200000; i++) {
		sim_read_all(&tr, r);
		if (w.t - SIM_T0 >= 5 * SEC + SETTLE_NS)
			check_bound(r, GOOD_NS, "around resyncs");
		if (i % 1000 == 0)
			cyclock_resync();
		w.t += 50 * US;
	}
	assert_int_equal(state_now().anomalies, 0);
}

/*
 * A thread that reads cyclock_now() every 50 us for a second: its
 * resyncs measure the REALTIME and BOOTTIME offsets every 32 ms, each
 * after the first with one bracket of three kernel readings (the
 * simulated kernel's are always tight), not three brackets
 * (cyclock__offsets_read()), and the values stay right.
 */
static void later_offsets_take_one_bracket(void **state)
{
	struct track tr = {0};
	struct reading r[NCLOCKS];
	unsigned long real, boot;
	uint64_t t0;
	int measured;

	(void)state;
	sim_start(3000000000ull, 3000000000ull, true, true);
	for (t0 = w.t; w.t - t0 < 100 * MS; w.t += 50 * US)
		sim_read_all(&tr, r);
	real = w.gettime_of[CLOCK_REALTIME];
	boot = w.gettime_of[CLOCK_BOOTTIME];
	for (t0 = w.t; w.t - t0 < SEC; w.t += 50 * US)
		(void)cyclock_now();
	measured = (int)(SEC / CYCLOCK_OFFSETS_NS);
	print_message("  1 s of reads: %lu REALTIME and %lu BOOTTIME readings for about %d "
		      "measurements\n",
		      w.gettime_of[CLOCK_REALTIME] - real, w.gettime_of[CLOCK_BOOTTIME] - boot,
		      measured);
	assert_true(w.gettime_of[CLOCK_REALTIME] - real >= (unsigned long)measured / 2);
	assert_true(w.gettime_of[CLOCK_REALTIME] - real <= (unsigned long)measured + 1);
	assert_true(w.gettime_of[CLOCK_BOOTTIME] - boot <= (unsigned long)measured + 1);
	sim_read_all(&tr, r);
	check_bound(r, GOOD_NS, "after a second of offsets");
}

/*
 * A program that reads rarely (every 7.3 ms, 50 ms, 300 ms, 1.3 s) from
 * the start: every read may resync, and the library must converge all the
 * same, on a kernel clock at RAW's rate and on one NTP runs 50 ppm fast.
 * Each case is reported; the test fails at the end if any did.
 */
static bool sparse_case(uint64_t stride, int64_t ppb)
{
	struct track tr = {0};
	struct reading r[NCLOCKS];
	int64_t worst = 0;
	uint64_t start;
	struct cyclock_state info;

	sim_start(3000000000ull, 3000000000ull, true, true);
	w_mono_rate(ppb);
	start = w.t;
	while (w.t - start < RUN_NS) {
		sim_read_all(&tr, r);
		for (int c = 0; w.t - start >= 10 * SEC && c < NCLOCKS; c++)
			if (abs64(r[c].err) > worst)
				worst = abs64(r[c].err);
		w.t += stride;
	}
	info = state_now();
	print_message("  reads every %8.1f ms, MONOTONIC %+3d ppm: largest error after 10 s %7" PRId64
		      " ns, %" PRIu64 " anomalies, interval %" PRIu64 " ns%s\n",
		      (double)stride / 1e6, (int)(ppb / 1000), worst, info.anomalies,
		      info.interval_ns, worst > GOOD_NS || info.anomalies ? "  <-- FAIL" : "");
	return worst <= GOOD_NS && !info.anomalies;
}

static void sparse_reads(void **state)
{
	static const uint64_t strides[] = {7300 * US, 50 * MS, 300 * MS, 1300 * MS};
	static const int64_t ppbs[] = {0, 50000};
	bool ok = true;

	(void)state;
	for (size_t i = 0; i < sizeof(strides) / sizeof(strides[0]); i++)
		for (size_t j = 0; j < sizeof(ppbs) / sizeof(ppbs[0]); j++)
			ok &= sparse_case(strides[i], ppbs[j]);
	if (!ok)
		fail_msg("with sparse reads the clocks do not converge (see above)");
}

/*
 * A young process (its rate from a hint @ppm off: what a 500 us
 * measurement gives on a loaded machine) reads for 2 ms, sleeps for
 * @idle_ns, and reads again, as a PostgreSQL postmaster's children do: its
 * first resync finds the timeline @ppm x idle ahead (a hint too low) or
 * behind.  That is drift, not a change of the kernel's rate nor a counter
 * gone wrong: no spell on the kernel's clock, no anomaly, within 1 us
 * again in 5 ms, and no clock back.
 */
static void pause_case(uint64_t idle_ns, int ppm)
{
	struct track tr = { 0 };
	struct reading r[NCLOCKS];
	struct cyclock_state info;
	uint64_t t0;

	sim_start(3000000000ull, (uint64_t)(3000000000ll + 3000ll * ppm), true, true);
	for (t0 = w.t; w.t - t0 < 2 * MS; w.t += 10 * US)
		sim_read_all(&tr, r);
	w.t += idle_ns;
	for (t0 = w.t; w.t - t0 < 20 * MS; w.t += 10 * US) {
		sim_read_all(&tr, r);
		if (w.t - t0 > 5 * MS)
			check_bound(r, GOOD_NS, "after the pause");
	}
	info = state_now();
	print_message("  hint %+d ppm, idle %.1f s: %" PRIu64 " spells, %" PRIu64 " anomalies\n",
		      ppm, (double)idle_ns / 1e9, info.kernel_spells, info.anomalies);
	assert_int_equal(info.kernel_spells, 0);
	assert_int_equal(info.anomalies, 0);
}

static void young_estimate_then_a_pause(void **state)
{
	(void)state;
	for (int ppm = -20; ppm <= 20; ppm += 40) {
		pause_case(SEC, ppm);
		pause_case(10 * SEC, ppm);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(exact_hint),
		cmocka_unit_test(measured_frequency),
		cmocka_unit_test(measured_odd_rate),
		cmocka_unit_test(hint_200ppm_high),
		cmocka_unit_test(hint_200ppm_low),
		cmocka_unit_test(slow_counter),
		cmocka_unit_test(explicit_resync_keeps_tracking),
		cmocka_unit_test(later_offsets_take_one_bracket),
		cmocka_unit_test(sparse_reads),
		cmocka_unit_test(young_estimate_then_a_pause),
	};

	unsetenv("CYCLOCK_SOURCE");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
