/* SPDX-License-Identifier: MIT */
/*
 * The fallbacks: CYCLOCK_SOURCE=kernel, cyclock_init(CYCLOCK_INIT_KERNEL),
 * a counter that is not invariant, a kernel that does not use it as its
 * clocksource.  Each must leave the counter unused, say why in
 * cyclock_describe(), and make every clock exactly the kernel clock it
 * follows, read during the call (except cyclock_local() in per-CPU mode,
 * within a tick of CLOCK_MONOTONIC).  CYCLOCK_SOURCE=tsc overrides the
 * distrust; an unknown value is ignored; the environment is read again at
 * each initialisation.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "sim_world.h"

#define RATE 3000000000ull
#define GOOD_NS 1000

static const struct {
	const char *name;
	uint64_t (*fn)(void);
	clockid_t id;
} readers[] = {
	{"now", cyclock_now, CLOCK_MONOTONIC},
	{"now_relaxed", cyclock_now_relaxed, CLOCK_MONOTONIC},
	{"local", cyclock_local, CLOCK_MONOTONIC},
	{"raw", cyclock_raw, CLOCK_MONOTONIC_RAW},
	{"realtime", cyclock_realtime, CLOCK_REALTIME},
	{"boottime", cyclock_boottime, CLOCK_BOOTTIME},
};

/* cyclock_cycles_to_ns() with no counter is cyclock_now(). */
static uint64_t cycles_to_ns_any(void)
{
	return cyclock_cycles_to_ns(123456789);
}

/* @v is what the kernel said during the call: within the bracket, and the
 * very reading the library took of that clock last. */
static void expect_kernel_value(const char *name, clockid_t id, uint64_t lo, uint64_t v,
				uint64_t hi)
{
	if (v < lo || v > hi)
		fail_msg("%s = %" PRIu64 " outside the kernel's [%" PRIu64 ", %" PRIu64 "]", name, v,
			 lo, hi);
	if (v != w.last_ns[id])
		fail_msg("%s = %" PRIu64 " is not the kernel reading %" PRIu64, name, v,
			 w.last_ns[id]);
}

/* cyclock_local() in per-CPU mode (an invariant counter the kernel does
 * not use): never back on this thread, within a tick (1 ms) of
 * CLOCK_MONOTONIC, as cyclock.h promises. */
static void expect_local_percpu(uint64_t *last)
{
	uint64_t lo = w_clock(CLOCK_MONOTONIC), v = cyclock_local(), hi = w_clock(CLOCK_MONOTONIC);

	if (v + MS < lo || v > hi + MS)
		fail_msg("per-CPU local = %" PRIu64 ", CLOCK_MONOTONIC [%" PRIu64 ", %" PRIu64 "]"
			 " (%" PRId64 " ns off)",
			 v, lo, hi, (int64_t)(v - lo));
	if (v < *last)
		fail_msg("per-CPU local went back by %" PRIu64 " ns", *last - v);
	*last = v;
}

/* Every clock is exactly its kernel clock, over 2 s of virtual time in
 * which MONOTONIC slews and REALTIME steps (nothing to track: no error). */
static void expect_kernel_clocks(void)
{
	bool percpu = state_now().local_percpu;
	uint64_t last_local = 0;

	for (int i = 0; i < 20000; i++) {
		for (size_t k = 0; k < sizeof(readers) / sizeof(readers[0]); k++) {
			if (percpu && readers[k].fn == cyclock_local) {
				expect_local_percpu(&last_local);
				continue;
			}
			uint64_t lo = w_clock(readers[k].id), calls = w.counter_calls;
			uint64_t v = readers[k].fn();

			/* Without the counter, no read reads it first. */
			if (w.counter_calls != calls)
				fail_msg("%s read the counter with no counter in use",
					 readers[k].name);
			expect_kernel_value(readers[k].name, readers[k].id, lo, v,
					    w_clock(readers[k].id));
		}
		uint64_t lo = w_clock(CLOCK_MONOTONIC), v = cycles_to_ns_any();

		expect_kernel_value("cycles_to_ns", CLOCK_MONOTONIC, lo, v, w_clock(CLOCK_MONOTONIC));
		assert_int_equal(cyclock_cycles(), 0);
		if (i == 5000)
			w_mono_rate(500000);
		if (i == 10000)
			w.off_real -= 3 * SEC;
		w.t += 100 * US;
	}
	assert_int_equal(w.bad_ids, 0);
}

/* The counter is not used, and describe() and the info say @why. */
static void expect_fallback(const char *why)
{
	struct cyclock_state info = state_now();
	const char *d = cyclock_describe();

	print_message("  describe: %s\n", d);
	assert_int_equal(info.using_counter, CYCLOCK_USING_KERNEL);
	assert_non_null(d);
	assert_non_null(info.why);
	if (!strstr(d, why))
		fail_msg("describe() \"%s\" does not mention \"%s\"", d, why);
	if (!strstr(info.why, why))
		fail_msg("info.why \"%s\" does not mention \"%s\"", info.why, why);
	expect_kernel_clocks();
}

/* The counter is used and tracks its kernel clocks within 1 us. */
static void expect_counter(void)
{
	struct track tr = {0};
	struct reading r[NCLOCKS];
	uint64_t start = w.t;

	while (w.t - start < 2 * SEC) {
		sim_read_all(&tr, r);
		if (w.t - start >= 10 * MS)
			check_bound(r, GOOD_NS, "on the counter");
		w.t += 100 * US;
	}
	assert_int_equal(state_now().using_counter, CYCLOCK_USING_COUNTER);
	assert_true(cyclock_cycles() != 0);
	assert_non_null(strstr(cyclock_describe(), CYCLOCK_ARCH_COUNTER_NAME));
}

static int clear_env(void **state)
{
	(void)state;
	unsetenv("CYCLOCK_SOURCE");
	return 0;
}

static void env_kernel(void **state)
{
	(void)state;
	setenv("CYCLOCK_SOURCE", "kernel", 1);
	sim_start(RATE, RATE, true, true);
	assert_int_equal(cyclock_init(0), CYCLOCK_USING_KERNEL);
	expect_fallback("CYCLOCK_SOURCE");
}

/* The first read initialises too, and falls back just the same. */
static void env_kernel_first_read(void **state)
{
	uint64_t lo, v;

	(void)state;
	setenv("CYCLOCK_SOURCE", "kernel", 1);
	sim_start(RATE, RATE, true, true);
	lo = w_clock(CLOCK_MONOTONIC);
	v = cyclock_now();
	expect_kernel_value("first now", CLOCK_MONOTONIC, lo, v, w_clock(CLOCK_MONOTONIC));
	expect_fallback("CYCLOCK_SOURCE");
}

static void init_kernel_flag(void **state)
{
	(void)state;
	sim_start(RATE, RATE, true, true);
	assert_int_equal(cyclock_init(CYCLOCK_INIT_KERNEL), CYCLOCK_USING_KERNEL);
	expect_fallback("CYCLOCK_INIT_KERNEL");
}

static void not_invariant(void **state)
{
	(void)state;
	sim_start(RATE, RATE, false, true);
	expect_fallback("invariant");
}

static void kernel_distrusts(void **state)
{
	(void)state;
	sim_start(RATE, RATE, true, false);
	expect_fallback("clocksource");
}

/* cyclock_local() per CPU after nobody read it for longer than its raw
 * clock's update interval (cyclock_wrap_ns(): about 18 minutes at 2.6 GHz;
 * here 2 hours and a day): still within a tick of CLOCK_MONOTONIC, though
 * nothing updated the raw clock meanwhile. */
static void local_after_a_long_idle(void **state)
{
	uint64_t last = 0;

	(void)state;
	sim_start(RATE, RATE, true, false);
	expect_fallback("clocksource");
	assert_true(state_now().local_percpu);
	expect_local_percpu(&last);
	w.t += 2 * 3600 * SEC;
	expect_local_percpu(&last);
	w.t += 24 * 3600 * SEC;
	expect_local_percpu(&last);
	for (int i = 0; i < 100; i++, w.t += 100 * US)
		expect_local_percpu(&last);
}

/* Measured frequency, same verdict: the fallback does not depend on it. */
static void kernel_distrusts_measured(void **state)
{
	(void)state;
	sim_start(RATE, 0, true, false);
	expect_fallback("clocksource");
}

static void env_source_forces_counter(void **state)
{
	(void)state;
	setenv("CYCLOCK_SOURCE", CYCLOCK_ARCH_COUNTER_NAME, 1);
	sim_start(RATE, RATE, false, false);
	assert_int_equal(cyclock_init(0), CYCLOCK_USING_COUNTER);
	expect_counter();
	print_message("  describe: %s\n", cyclock_describe());
	assert_non_null(strstr(cyclock_describe(), "CYCLOCK_SOURCE"));
}

static void env_source_forces_measured(void **state)
{
	(void)state;
	setenv("CYCLOCK_SOURCE", CYCLOCK_ARCH_COUNTER_NAME, 1);
	sim_start(RATE, 0, true, false);
	expect_counter();
}

/* A value it does not know: ignored, the counter is used as usual. */
static void env_unknown_ignored(void **state)
{
	(void)state;
	setenv("CYCLOCK_SOURCE", "hpet-please", 1);
	sim_start(RATE, RATE, true, true);
	expect_counter();
}

/* Each initialisation reads the environment again; later cyclock_init()
 * calls only return the result, and an unknown flag does nothing. */
static void env_read_at_each_init(void **state)
{
	(void)state;
	setenv("CYCLOCK_SOURCE", "kernel", 1);
	sim_start(RATE, RATE, true, true);
	assert_int_equal(cyclock_init(0), CYCLOCK_USING_KERNEL);
	unsetenv("CYCLOCK_SOURCE");
	assert_int_equal(cyclock_init(0), CYCLOCK_USING_KERNEL);
	sim_start(RATE, RATE, true, true);
	assert_int_equal(cyclock_init(0), CYCLOCK_USING_COUNTER);
	assert_int_equal(cyclock_init(CYCLOCK_INIT_KERNEL), CYCLOCK_USING_COUNTER);
	assert_int_equal(cyclock_init(0x80), CYCLOCK_EINVAL);
	expect_counter();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(env_kernel, clear_env),
		cmocka_unit_test_setup(env_kernel_first_read, clear_env),
		cmocka_unit_test_setup(init_kernel_flag, clear_env),
		cmocka_unit_test_setup(not_invariant, clear_env),
		cmocka_unit_test_setup(kernel_distrusts, clear_env),
		cmocka_unit_test_setup(kernel_distrusts_measured, clear_env),
		cmocka_unit_test_setup(local_after_a_long_idle, clear_env),
		cmocka_unit_test_setup(env_source_forces_counter, clear_env),
		cmocka_unit_test_setup(env_source_forces_measured, clear_env),
		cmocka_unit_test_setup(env_unknown_ignored, clear_env),
		cmocka_unit_test_setup(env_read_at_each_init, clear_env),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
