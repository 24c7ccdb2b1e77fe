/* SPDX-License-Identifier: MIT */
/*
 * Initialisation that never waits (every read's): the library's own
 * CYCLOCK__INIT_DEFER.  The first half returns at once, without the
 * 500 us measurement; what takes a system call was asked at load, and
 * what is left (CPUID, the ordered reads' timing: none in simulation) the
 * reads after it ask one check each, however far apart they come; reads
 * before 500 us have passed are the kernel's clocks, and the first read
 * after them with no check left starts the timelines, with the frequency
 * measured over the whole gap.  A stated frequency is checked over
 * 100 us first, and refused if it disagrees.  A counter the kernel distrusts is measured all
 * the same, for the per-CPU cyclock_local(), unless CYCLOCK__INIT_NO_LOCAL
 * (the preload's) says nobody asks for it: then it finishes after the
 * checks, without waiting.
 * Across the switch no clock goes back.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "sim_world.h"
#include "internal.h" /* cyclock__init_once(), CYCLOCK__INIT_DEFER, INIT_* */

#define RATE 3000000000ull
#define DEFER CYCLOCK__INIT_DEFER

/* A waiting initialisation makes some 70000 seam calls (500 us at 7 ns
 * each); the first half makes a handful. */
#define FEW_CALLS 100

/* CYCLOCK_SOURCE would override the distrust (the cross stages set it). */
static int clear_env(void **state)
{
	(void)state;
	unsetenv("CYCLOCK_SOURCE");
	return 0;
}

static uint32_t init_state(void)
{
	return CYCLOCK__INIT_STATE(atomic_load(&cyclock__host.state));
}

/* The counter's clocks: as close to the kernel's as sim_fallback.c asks
 * (a sample's counter value is the middle of its bracket). */
#define GOOD_NS 1000

/* Every clock within @bound of its kernel bracket (0: the kernel's own
 * reading), and none below its last value. */
static void read_all_in_order(uint64_t last[NCLOCKS], const char *when, int64_t bound)
{
	for (int c = 0; c < NCLOCKS; c++) {
		struct reading r = sim_read((enum which)c);

		if (abs64(r.err) > bound)
			fail_msg("%s: %s is %" PRId64 " ns outside the kernel's", when,
				 clock_name[c], r.err);
		if (r.v < last[c])
			fail_msg("%s: %s went back by %" PRIu64 " ns", when, clock_name[c],
				 last[c] - r.v);
		last[c] = r.v;
	}
}

/* The first read of all does the first half only, and returns the
 * kernel's clock: no waiting, no warp check (no thread). */
static void first_read_does_not_wait(void **state)
{
	uint64_t last[NCLOCKS] = { 0 };

	(void)state;
	sim_start(RATE, 0, true, true);
	read_all_in_order(last, "first read", 0);
	assert_int_equal(init_state(), INIT_MEASURING);
	if (w.gettime_calls + w.counter_calls > FEW_CALLS + 2 * NCLOCKS)
		fail_msg("the first reads made %lu seam calls: they waited",
			 w.gettime_calls + w.counter_calls);
	assert_false(cyclock__setup.warp_ran);
}

static void measured_frequency_waits_for_a_read(void **state)
{
	uint64_t last[NCLOCKS] = { 0 };
	unsigned long calls;

	(void)state;
	sim_start(RATE, 0, true, true);
	cyclock__init_once(DEFER);
	assert_int_equal(init_state(), INIT_MEASURING);
	if (w.gettime_calls + w.counter_calls > FEW_CALLS)
		fail_msg("the first half made %lu seam calls: it waited",
			 w.gettime_calls + w.counter_calls);

	/* Before 500 us: the kernel's clocks, and still measuring. */
	for (int i = 0; i < 20; i++) {
		w.t += 10 * US;
		read_all_in_order(last, "measuring", 0);
	}
	assert_int_equal(init_state(), INIT_MEASURING);

	/* After: one read finishes, and from then on the counter serves. */
	w.t += 400 * US;
	read_all_in_order(last, "at the switch", GOOD_NS);
	assert_int_equal(init_state(), INIT_DONE);
	assert_int_equal(state_now().using_counter, CYCLOCK_USING_COUNTER);
	calls = w.gettime_calls;
	for (int i = 0; i < 1000; i++) {
		w.t += 3 * US;
		read_all_in_order(last, "after", GOOD_NS);
	}
	/* sim_read()'s own brackets are 2 kernel calls a read; the library
	 * adds only its few resyncs. */
	if (w.gettime_calls - calls > 2 * 1000 * NCLOCKS + 200)
		fail_msg("%lu kernel calls for 4000 reads: the counter is not serving",
			 w.gettime_calls - calls);
	/* Measured over at least 600 us, not the 500 us a waiting init spins. */
	if (state_now().hz_hint < RATE * (1 - 1e-4) || state_now().hz_hint > RATE * (1 + 1e-4))
		fail_msg("frequency %.0f Hz, the counter's is %llu", state_now().hz_hint,
			 (unsigned long long)RATE);
}

/* cyclock_init() after a deferred first half finishes it, waiting out the
 * rest of the 500 us (the public call may wait; the constructor may not). */
static void cyclock_init_finishes(void **state)
{
	(void)state;
	sim_start(RATE, 0, true, true);
	cyclock__init_once(DEFER);
	assert_int_equal(init_state(), INIT_MEASURING);
	assert_int_equal(cyclock_init(0), CYCLOCK_USING_COUNTER);
	assert_int_equal(init_state(), INIT_DONE);
}

/* Reads until initialisation is done, @gap apart: how many it took
 * (fails past @most). */
static int reads_to_done(uint64_t gap, int most)
{
	int n = 0;

	while (init_state() != INIT_DONE) {
		if (++n > most)
			fail_msg("not done after %d reads %" PRIu64 " ns apart", most, gap);
		w.t += gap;
		(void)cyclock_now();
	}
	return n;
}

/* A stated frequency needs a span of 100 us, to check it, not the 500 us
 * of a measurement: what takes a system call was asked at load
 * (checks.c), and the simulation has no CPUID and its one ordered read
 * timed then, so reads 10 us apart finish at the tenth. */
static void stated_frequency_finishes_after_its_check(void **state)
{
	(void)state;
	sim_start(RATE, RATE, true, true);
	cyclock__init_once(DEFER | CYCLOCK__INIT_NO_LOCAL);
	assert_int_equal(init_state(), INIT_MEASURING);
	assert_int_equal(reads_to_done(10 * US, 11), 10);
	assert_int_equal(state_now().using_counter, CYCLOCK_USING_COUNTER);
	assert_string_equal(state_now().hz_source, "simulated CPUID");
	/* Timing the ordered reads takes a few hundred counter reads. */
	if (w.gettime_calls + w.counter_calls > FEW_CALLS + 1000)
		fail_msg("%lu seam calls: it waited", w.gettime_calls + w.counter_calls);
}

/* A stated frequency 2 % off (as a forged machine's record would state
 * it): refused at its check, the frequency measured over the 500 us, and
 * no clock further off the kernel's, across the hand-over and after it,
 * than a right one leaves it. */
static void a_wrong_stated_frequency_is_refused(void **state)
{
	uint64_t last[NCLOCKS] = { 0 };
	struct cyclock_state st;

	(void)state;
	sim_start(RATE, RATE + RATE / 50, true, true);
	cyclock__init_once(DEFER | CYCLOCK__INIT_NO_LOCAL);
	for (uint64_t t0 = w.t; w.t - t0 < 20 * MS; w.t += 10 * US)
		read_all_in_order(last, "a wrong stated frequency", GOOD_NS);
	st = state_now();
	assert_int_equal(st.using_counter, CYCLOCK_USING_COUNTER);
	if (!strstr(st.hz_source, "disagreed") || st.hz_hint < RATE * (1 - 1e-4) ||
	    st.hz_hint > RATE * (1 + 1e-4))
		fail_msg("the frequency %.0f Hz, from \"%s\"", st.hz_hint, st.hz_source);
}

/* One read a millisecond finds the span over at its first: with nothing
 * left to ask (asked at load), that read does the second half. */
static void a_late_read_does_the_second_half(void **state)
{
	(void)state;
	sim_start(RATE, 0, true, true);
	cyclock__init_once(DEFER);
	assert_true(cyclock__checked_ahead());
	assert_int_equal(init_state(), INIT_MEASURING);
	assert_int_equal(reads_to_done(1000 * US, 1), 1); /* the second half */
	assert_int_equal(state_now().using_counter, CYCLOCK_USING_COUNTER);
}

/* Distrusted, but invariant: measured all the same, for cyclock_local(). */
static void distrusted_measures_for_local(void **state)
{
	uint64_t last[NCLOCKS] = { 0 };

	(void)state;
	sim_start(RATE, 0, true, false);
	cyclock__init_once(DEFER);
	assert_int_equal(init_state(), INIT_MEASURING);
	w.t += 600 * US;
	read_all_in_order(last, "distrusted", 0);
	assert_int_equal(init_state(), INIT_DONE);
	assert_int_equal(state_now().using_counter, CYCLOCK_USING_KERNEL);
	assert_true(state_now().local_percpu);
}

/* The clocksource's check decides: the next read finishes, in kernel
 * mode, without a frequency. */
static void distrusted_finishes_without_measuring(void **state)
{
	uint64_t last[NCLOCKS] = { 0 };

	(void)state;
	sim_start(RATE, 0, true, false);
	cyclock__init_once(DEFER | CYCLOCK__INIT_NO_LOCAL);
	assert_int_equal(init_state(), INIT_MEASURING);
	assert_int_equal(reads_to_done(10 * US, 1), 1); /* asked at load: done */
	assert_int_equal(state_now().using_counter, CYCLOCK_USING_KERNEL);
	if (w.gettime_calls + w.counter_calls > FEW_CALLS)
		fail_msg("%lu seam calls: it measured a frequency it has no use for",
			 w.gettime_calls + w.counter_calls);
	read_all_in_order(last, "distrusted", 0);
}

/* A child of fork() that caught another thread between the halves starts
 * the second half again, not the first (which may create threads). */
static void fork_child_between_halves(void **state)
{
	(void)state;
	sim_start(RATE, 0, true, true);
	cyclock__init_once(DEFER);
	atomic_store(&cyclock__host.state, INIT_BUSY); /* as if a thread were finishing */
	cyclock__fork_child();
	assert_int_equal(init_state(), INIT_MEASURING);
	(void)reads_to_done(600 * US, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(first_read_does_not_wait, clear_env),
		cmocka_unit_test_setup(measured_frequency_waits_for_a_read, clear_env),
		cmocka_unit_test_setup(cyclock_init_finishes, clear_env),
		cmocka_unit_test_setup(stated_frequency_finishes_after_its_check, clear_env),
		cmocka_unit_test_setup(a_wrong_stated_frequency_is_refused, clear_env),
		cmocka_unit_test_setup(a_late_read_does_the_second_half, clear_env),
		cmocka_unit_test_setup(distrusted_measures_for_local, clear_env),
		cmocka_unit_test_setup(distrusted_finishes_without_measuring, clear_env),
		cmocka_unit_test_setup(fork_child_between_halves, clear_env),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
