/* SPDX-License-Identifier: MIT */
/*
 * cyclock_get_state(), the public view of what the library did: in one
 * simulated run that makes every count move (a followed rate change, a
 * 10% tick change, which puts the clock on the kernel's for a spell, a
 * counter that jumps back), every field is set
 * and says what happened; with a counter the kernel distrusts, the
 * kernel's clocks and why, and cyclock_local() per CPU.
 * Every field is written: the struct comes back the same byte for byte
 * whatever it held before.  The version is honoured: 0 and NULL are
 * refused with nothing written, and a caller's newer version gets the
 * library's, with nothing written past it.  (The warp check's three
 * fields are the real machine's: test_first_read.c.)
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "sim_world.h"

#define RATE 3000000000ull

/* The state, asked twice over a struct first filled with 0x00 and then
 * with 0xff bytes: the two must agree byte for byte, so every byte (every
 * field) was written by the library, none left as the caller had it. */
static struct cyclock_state state_every_byte(void)
{
	struct cyclock_state a, b;

	memset(&a, 0, sizeof(a));
	memset(&b, 0xff, sizeof(b));
	a.version = b.version = CYCLOCK_STATE_VERSION;
	assert_int_equal(cyclock_get_state(&a), 0);
	assert_int_equal(cyclock_get_state(&b), 0);
	/* The counts may move between the two calls only through reads,
	 * and nothing reads in between here. */
	if (memcmp(&a, &b, sizeof(a)))
		for (size_t i = 0; i < sizeof(a); i++)
			if (((unsigned char *)&a)[i] != ((unsigned char *)&b)[i])
				fail_msg("byte %zu of struct cyclock_state is not written by "
					 "cyclock_get_state() (0x%02x over 0x00, 0x%02x over 0xff)",
					 i, ((unsigned char *)&a)[i], ((unsigned char *)&b)[i]);
	assert_int_equal(a.version, CYCLOCK_STATE_VERSION);
	return a;
}

/* Read every clock every 100 us for @ns of virtual time. */
static void read_for(struct track *tr, uint64_t ns)
{
	struct reading r[NCLOCKS];

	for (uint64_t end = w.t + ns; w.t < end; w.t += 100 * US)
		sim_read_all(tr, r);
}

static void counter_run_sets_every_field(void **state)
{
	struct track tr = {0};
	struct cyclock_state st;
	bool saw_kernel_mode = false;

	(void)state;
	/* Forced onto a counter the kernel distrusts, frequency measured. */
	setenv("CYCLOCK_SOURCE", CYCLOCK_ARCH_COUNTER_NAME, 1);
	sim_start(RATE, 0, true, false);
	read_for(&tr, 2 * SEC);
	st = state_every_byte();
	assert_int_equal(st.rate_changes, 0);
	assert_int_equal(st.anomalies, 0);

	w_kernel_rate(10000, 500); /* +500 ppm: followed */
	read_for(&tr, 2 * SEC);
	w_kernel_rate(11000, 500); /* the tick by 10%: a spell */
	for (uint64_t end = w.t + 2 * SEC; w.t < end && !saw_kernel_mode;) {
		read_for(&tr, 100 * US);
		st = state_every_byte();
		saw_kernel_mode = st.kernel_mode;
	}
	if (!saw_kernel_mode)
		fail_msg("a 10%% tick change never showed kernel_mode");
	assert_string_not_equal(st.kernel_why, "");
	read_for(&tr, 3 * SEC);
	w_counter_jump(-(int64_t)SEC); /* the counter steps back 1 s */
	tr.allow_back_ns = SEC;
	read_for(&tr, 3 * SEC);
	st = state_every_byte();
	unsetenv("CYCLOCK_SOURCE");

	print_message("  %s at %.3f MHz +-%.3f ppm (%s %.3f MHz), ordered %s (%s), mult %u >> %u,"
		      " raw %u, every %.3f ms of %.3f, %" PRIu64 " resyncs, %" PRIu64
		      " anomalies, %" PRIu64 " spells (%s), %" PRIu64 " rate changes, err %" PRId64
		      " / %" PRId64 " ns, init %" PRIu64 " ns, per-CPU local %d\n",
		      st.counter, st.hz / 1e6, st.hz_ppm, st.hz_source, st.hz_hint / 1e6, st.ordered,
		      st.ordered_why, st.mult, st.shift, st.raw_mult, (double)st.interval_ns / 1e6,
		      (double)st.max_interval_ns / 1e6, st.resyncs, st.anomalies, st.kernel_spells,
		      st.kernel_why, st.rate_changes, st.last_err_ns, st.raw_last_err_ns, st.init_ns,
		      st.local_percpu);
	assert_int_equal(st.using_counter, CYCLOCK_USING_COUNTER);
	assert_string_equal(st.why, "");
	assert_true(st.forced);
	assert_string_equal(st.counter, CYCLOCK_ARCH_COUNTER_NAME);
	assert_true(st.hz > RATE * (1 - 1e-5) && st.hz < RATE * (1 + 1e-5));
	assert_true(st.hz_ppm > 0 && st.hz_ppm < 100);
	assert_true(st.hz_hint > RATE * 0.99 && st.hz_hint < RATE * 1.01);
	assert_non_null(strstr(st.hz_source, "measured"));
	assert_string_not_equal(st.ordered, "");
	assert_string_not_equal(st.ordered_why, "");
	assert_false(st.warp_ran); /* no warp check in sim builds */
	assert_int_equal(st.warp_turns, 0);
	assert_true(st.init_ns > 0);
	assert_true(st.mult > 0 && st.shift > 0 && st.raw_mult > 0);
	/* MONOTONIC runs 10% fast by now, RAW does not. */
	assert_true(st.mult > st.raw_mult);
	assert_false(st.kernel_mode);
	assert_string_not_equal(st.kernel_why, "");
	assert_true(st.interval_ns > 0 && st.interval_ns <= st.max_interval_ns);
	assert_true(st.max_interval_ns >= MS);
	assert_true(st.resyncs > 100);
	assert_true(st.anomalies >= 1);
	assert_true(st.kernel_spells >= 1);
	assert_true(st.rate_changes >= 1);
	assert_true(abs64(st.last_err_ns) < 1000 && abs64(st.raw_last_err_ns) < 1000);
}

/* The kernel's clocks, because the kernel distrusts the counter: why, and
 * cyclock_local() per CPU over the counter. */
static void kernel_clocks_say_why(void **state)
{
	struct cyclock_state st;

	(void)state;
	sim_start(RATE, RATE, true, false);
	st = state_every_byte();
	assert_int_equal(st.using_counter, CYCLOCK_USING_KERNEL);
	assert_non_null(strstr(st.why, "clocksource"));
	assert_true(st.local_percpu);
	assert_false(st.forced);
	assert_true(st.hz == 0 && st.mult == 0 && st.resyncs == 0 && st.kernel_mode == 0);
}

/* Version 0 and NULL: refused, nothing written.  A newer version than the
 * library's: the library's, and nothing past its struct written. */
static void version_honoured(void **state)
{
	struct {
		struct cyclock_state st;
		unsigned char after[64]; /* a newer version's fields */
	} big;
	struct cyclock_state st;
	unsigned char before[sizeof(st)];

	(void)state;
	sim_start(RATE, RATE, true, true);
	assert_int_equal(cyclock_get_state(NULL), CYCLOCK_EINVAL);
	memset(&st, 0x5a, sizeof(st));
	st.version = 0;
	memcpy(before, &st, sizeof(st));
	assert_int_equal(cyclock_get_state(&st), CYCLOCK_EINVAL);
	assert_memory_equal(before, &st, sizeof(st));

	memset(&big, 0x5a, sizeof(big));
	big.st.version = CYCLOCK_STATE_VERSION + 1;
	assert_int_equal(cyclock_get_state(&big.st), 0);
	assert_int_equal(big.st.version, CYCLOCK_STATE_VERSION);
	for (size_t i = 0; i < sizeof(big.after); i++)
		if (big.after[i] != 0x5a)
			fail_msg("byte %zu past struct cyclock_state written for version %u", i,
				 CYCLOCK_STATE_VERSION + 1);
	assert_int_equal(big.st.using_counter, CYCLOCK_USING_COUNTER);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(counter_run_sets_every_field),
		cmocka_unit_test(kernel_clocks_say_why),
		cmocka_unit_test(version_honoured),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
