/* SPDX-License-Identifier: MIT */
/*
 * The latch clock, single-threaded: registration, narrow counters through
 * many wraps, source switches, suspend/resume, bad input.  The concurrent
 * behaviour is in validate_latch.c and validate_latch_signal.c.
 *
 * Over 400 lines: one cmocka suite of the latch clock's API, each test a
 * few lines over the shared simulated counter (sim.h).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include "internal.h"
#include "sim.h"

static struct cyclock clk;

static int reset_clock(void **state)
{
	(void)state;
	memset(&clk, 0, sizeof(clk));
	return 0;
}

/* The counts that fit in one wrap interval of a registered clock. */
static uint64_t wrap_counts(uint64_t rate_hz, unsigned int bits)
{
	struct cyclock__scale sc;

	assert_int_equal(cyclock__choose_scale(&sc, rate_hz, bits, 0), 0);
	return sc.wrap_cyc;
}

static void zero_initialised_clock_reads_zero(void **state)
{
	(void)state;
	assert_int_equal(cyclock_read(&clk), 0);
	assert_int_equal(cyclock_wrap_ns(&clk), 0);
	cyclock_update(&clk);
	cyclock_suspend(&clk);
	assert_int_equal(cyclock_read(&clk), 0);
	cyclock_resume(&clk);
	assert_int_equal(cyclock_read(&clk), 0);
	assert_int_equal(cyclock_read_inline(&clk), 0);
}

static void first_source_starts_at_zero_and_counts(void **state)
{
	struct sim_counter a;

	(void)state;
	sim_init(&a, "a", 1000000000, 32);
	a.count = 123456; /* the counter's own value does not matter */
	assert_int_equal(cyclock_register(&clk, &a.src), 0);
	assert_int_equal(cyclock_read(&clk), 0);
	a.count += 1000;
	assert_int_equal(cyclock_read(&clk), 1000);
	assert_int_equal(cyclock_read_inline(&clk), 1000);
	assert_true(cyclock_wrap_ns(&clk) > 0);
}

/*
 * Drive @sim through @wraps wraps of its counter (or as many update
 * intervals, for a counter too wide to wrap) with reads and updates at
 * random points, the update never later than the wrap interval and at its
 * very end a quarter of the time.  Each read must equal floor(total *
 * mult / 2^shift): updates carry the truncated fraction, so the clock is
 * an exact function of the counts.  It must never go backwards, and stay
 * within the scale's rate error (error_ppt) of the exact total * 1e9 /
 * rate, plus 1 ns of rounding.
 */
static void run_through_wraps(struct sim_counter *sim, uint64_t wraps, uint64_t seed)
{
	struct cyclock__scale sc;
	uint64_t rng = seed, since_update = 0, last = 0, reads = 0, updates = 0;
	uint64_t period = sim->src.bits == 64 ? UINT64_MAX : 1ull << sim->src.bits;
	bool wide;

	assert_int_equal(cyclock__choose_scale(&sc, sim->src.rate_hz, sim->src.bits, 0), 0);
	wide = period / sc.wrap_cyc > 64; /* would take more than 64 intervals to wrap */
	assert_int_equal(cyclock_register(&clk, &sim->src), 0);
	while (wide ? updates < wraps : sim->count / period < wraps) {
		uint64_t left = sc.wrap_cyc - since_update;
		uint64_t step = prng_next(&rng) % 4 == 0 ? left : prng_upto(&rng, left);
		unsigned __int128 exact_num = (unsigned __int128)sim->count * 1000000000u;
		unsigned __int128 model = ((unsigned __int128)sim->count * sc.mult) >> sc.shift;
		uint64_t ns = cyclock_read(&clk);
		__int128 err = (__int128)((unsigned __int128)ns * sim->src.rate_hz) - (__int128)exact_num;
		/* error_ppt of the exact ns, in the same units (ns * rate). */
		const uint64_t tera = 1000000000000u;
		unsigned __int128 allowed = exact_num / tera * sc.error_ppt +
					    exact_num % tera * sc.error_ppt / tera;

		assert_true(ns == (uint64_t)model);
		assert_true(ns >= last);
		if (err < 0)
			err = -err;
		assert_true((unsigned __int128)err <= allowed + sim->src.rate_hz);
		last = ns;
		reads++;
		sim->count += step;
		since_update += step;
		if (since_update == sc.wrap_cyc || prng_next(&rng) % 4 == 0) {
			cyclock_update(&clk);
			since_update = 0;
			updates++;
		}
	}
	assert_true(reads > wraps);
}

static void narrow_1ghz_counter_survives_1000_wraps(void **state)
{
	struct sim_counter sim;

	(void)state;
	sim_init(&sim, "timer1", 1000000000, 32);
	run_through_wraps(&sim, 1000, 0x1234567);
	/* 1 GHz converts exactly: the clock is the count itself. */
	assert_int_equal(cyclock_read(&clk), sim.count);
}

struct counter_case {
	const char *name;
	uint64_t rate_hz;
	unsigned int bits;
	uint64_t seed;
};

/* run_through_wraps() for each of @n counters, each on a fresh clock. */
static void run_counters(const struct counter_case *c, size_t n)
{
	struct sim_counter sim;

	for (size_t i = 0; i < n; i++) {
		memset(&clk, 0, sizeof(clk));
		sim_init(&sim, c[i].name, c[i].rate_hz, c[i].bits);
		run_through_wraps(&sim, 1000, c[i].seed);
	}
}

static void narrow_inexact_counters_survive_wraps(void **state)
{
	static const struct counter_case c[] = {
		{ "24-bit 19.2 MHz", 19200000, 24, 42 },
		{ "32-bit 2.6 GHz", 2600000000u, 32, 7 },
		{ "16-bit 32768 Hz", 32768, 16, 99 },
	};

	(void)state;
	run_counters(c, sizeof(c) / sizeof(c[0]));
}

/* Wide counters, updated at intervals of up to an hour: 1000 of them. */
static void wide_counters_stay_exact_over_1000_intervals(void **state)
{
	static const struct counter_case c[] = {
		{ "56-bit 24 MHz", 24000000, 56, 5 },
		{ "64-bit 2.6 GHz", 2600000000u, 64, 11 },
		{ "64-bit 4.8 GHz", 4800000000u, 64, 13 },
	};

	(void)state;
	run_counters(c, sizeof(c) / sizeof(c[0]));
}

/* An update as late as the wrap interval allows still converts correctly. */
static void update_at_the_wrap_limit(void **state)
{
	struct sim_counter sim;
	uint64_t limit = wrap_counts(1000000000, 32);

	(void)state;
	sim_init(&sim, "timer", 1000000000, 32);
	assert_int_equal(cyclock_register(&clk, &sim.src), 0);
	for (int i = 0; i < 10; i++) {
		sim.count += limit;
		assert_int_equal(cyclock_read(&clk), sim.count);
		cyclock_update(&clk);
		assert_int_equal(cyclock_read(&clk), sim.count);
	}
	/* The interval in ns is what the counts take. */
	assert_int_equal(cyclock_wrap_ns(&clk), limit);
}

/*
 * A 64-bit counter nobody updated for far longer than the update interval
 * (a process idle for hours, with no timer to update it): reads and the
 * late update are still the exact conversion of every count, and the
 * clock goes on from there.  The intervals at 2.6 GHz and 1 GHz are tens
 * of minutes; 1000 of them is weeks.
 */
static void a_64_bit_counter_left_alone_reads_exactly(void **state)
{
	static const uint64_t rates[] = { 2600000000u, 1000000000u, 19200000u };
	static const uint64_t gaps[] = { 2, 10, 1000, 100000 }; /* update intervals */

	(void)state;
	for (size_t r = 0; r < sizeof(rates) / sizeof(rates[0]); r++) {
		for (size_t g = 0; g < sizeof(gaps) / sizeof(gaps[0]); g++) {
			struct cyclock__scale sc;
			struct sim_counter sim;
			uint64_t want;

			memset(&clk, 0, sizeof(clk));
			assert_int_equal(cyclock__choose_scale(&sc, rates[r], 64, 0), 0);
			sim_init(&sim, "64-bit", rates[r], 64);
			assert_int_equal(cyclock_register(&clk, &sim.src), 0);
			sim.count = sc.wrap_cyc * gaps[g] + 12345;
			want = (uint64_t)(((unsigned __int128)sim.count * sc.mult) >> sc.shift);
			assert_int_equal(cyclock_read(&clk), want);
			assert_int_equal(cyclock_read_inline(&clk), want);
			cyclock_update(&clk);
			assert_int_equal(cyclock_read(&clk), want);
			sim.count += sc.wrap_cyc / 3;
			want = (uint64_t)(((unsigned __int128)sim.count * sc.mult) >> sc.shift);
			assert_int_equal(cyclock_read(&clk), want);
		}
	}
}

static void switching_sources_does_not_jump(void **state)
{
	struct sim_counter a, b;
	uint64_t t = 5000000000ull, before, after; /* simulated true ns */

	(void)state;
	sim_init(&a, "32-bit 1 GHz", 1000000000, 32);
	sim_init(&b, "64-bit 2.6 GHz", 2600000000u, 64);
	a.count = t;
	b.count = t * 26 / 10;
	assert_int_equal(cyclock_register(&clk, &a.src), 0);
	for (int round = 0; round < 6; round++) {
		struct sim_counter *next = round % 2 ? &a : &b;

		t += 777777;
		a.count = t;
		b.count = t * 26 / 10;
		before = cyclock_read(&clk);
		assert_int_equal(cyclock_register(&clk, &next->src), 0);
		after = cyclock_read(&clk);
		assert_int_equal(after, before); /* the counters did not move */
		t += 1000000;
		a.count = t;
		b.count = t * 26 / 10;
		after = cyclock_read(&clk);
		/* One count of either source is at most 1 ns. */
		assert_true(after >= before + 1000000 - 1 && after <= before + 1000000 + 1);
	}
}

static void suspend_freezes_and_resume_continues(void **state)
{
	struct sim_counter sim;
	uint64_t frozen;
	unsigned long reads;

	(void)state;
	sim_init(&sim, "timer", 1000000000, 32);
	assert_int_equal(cyclock_register(&clk, &sim.src), 0);
	sim.count += 1000;
	cyclock_suspend(&clk);
	frozen = cyclock_read(&clk);
	assert_int_equal(frozen, 1000);
	reads = sim.reads;

	/* Advancing through three wraps, then stopping: nothing shows. */
	sim.count += 3 * (1ull << 32) + 17;
	assert_int_equal(cyclock_read(&clk), frozen);
	cyclock_update(&clk);
	cyclock_suspend(&clk); /* idempotent */
	assert_int_equal(cyclock_read(&clk), frozen);
	assert_int_equal(sim.reads, reads); /* the counter was left alone */

	cyclock_resume(&clk);
	assert_int_equal(cyclock_read(&clk), frozen);
	sim.count += 500;
	assert_int_equal(cyclock_read(&clk), frozen + 500);
	cyclock_resume(&clk); /* not suspended: nothing happens */
	assert_int_equal(cyclock_read(&clk), frozen + 500);
}

static void suspend_with_a_stopped_counter(void **state)
{
	struct sim_counter sim;

	(void)state;
	sim_init(&sim, "timer", 32768, 16);
	assert_int_equal(cyclock_register(&clk, &sim.src), 0);
	sim.count = 32768; /* one second */
	cyclock_suspend(&clk);
	sim.count = 0; /* the counter lost power and restarted */
	cyclock_resume(&clk);
	assert_int_equal(cyclock_read(&clk), 1000000000);
	sim.count = 32768;
	assert_int_equal(cyclock_read(&clk), 2000000000);
}

static void register_while_suspended_starts_at_resume(void **state)
{
	struct sim_counter a, b;
	unsigned long reads;

	(void)state;
	sim_init(&a, "a", 1000000000, 32);
	sim_init(&b, "b", 1000000, 64);
	assert_int_equal(cyclock_register(&clk, &a.src), 0);
	a.count += 2000;
	cyclock_suspend(&clk);
	reads = b.reads;
	assert_int_equal(cyclock_register(&clk, &b.src), 0);
	assert_int_equal(b.reads, reads); /* not read while suspended */
	b.count += 5;
	assert_int_equal(cyclock_read(&clk), 2000);
	cyclock_resume(&clk);
	assert_int_equal(cyclock_read(&clk), 2000);
	b.count += 5; /* 5 us */
	assert_int_equal(cyclock_read(&clk), 7000);
}

/* A read a little behind the epoch is the epoch, not a near-wrap. */
static void counter_behind_the_epoch_reads_the_epoch(void **state)
{
	struct sim_counter sim;

	(void)state;
	sim_init(&sim, "tsc", 1000000000, 64);
	assert_int_equal(cyclock_register(&clk, &sim.src), 0);
	sim.count = 10000;
	cyclock_update(&clk);
	sim.count = 9990;
	assert_int_equal(cyclock_read(&clk), 10000);
	cyclock_update(&clk); /* must not move the epoch back */
	sim.count = 10010;
	assert_int_equal(cyclock_read(&clk), 10010);

	memset(&clk, 0, sizeof(clk));
	sim_init(&sim, "timer", 1000000000, 32);
	sim.count = 5;
	assert_int_equal(cyclock_register(&clk, &sim.src), 0);
	sim.count = 0; /* 5 behind, across the wrap */
	assert_int_equal(cyclock_read(&clk), 0);
}

static void expect_refused(const struct cyclock_source *src, int err)
{
	struct cyclock before;

	memcpy(&before, &clk, sizeof(clk));
	assert_int_equal(cyclock_register(&clk, src), err);
	assert_memory_equal(&before, &clk, sizeof(clk));
}

static void bad_input_is_refused_and_changes_nothing(void **state)
{
	struct sim_counter good, bad;

	(void)state;
	sim_init(&good, "good", 1000000000, 32);
	assert_int_equal(cyclock_register(&clk, &good.src), 0);
	good.count = 100;

	assert_int_equal(cyclock_register(NULL, &good.src), CYCLOCK_EINVAL);
	expect_refused(NULL, CYCLOCK_EINVAL);
	sim_init(&bad, "no read", 1000, 32);
	bad.src.read = NULL;
	expect_refused(&bad.src, CYCLOCK_EINVAL);
	sim_init(&bad, "0 bits", 1000, 0);
	expect_refused(&bad.src, CYCLOCK_EINVAL);
	sim_init(&bad, "65 bits", 1000, 65);
	expect_refused(&bad.src, CYCLOCK_EINVAL);
	sim_init(&bad, "0 Hz", 0, 32);
	expect_refused(&bad.src, CYCLOCK_EINVAL);
	sim_init(&bad, "too fast", CYCLOCK_MAX_RATE_HZ + 1, 64);
	expect_refused(&bad.src, CYCLOCK_ERANGE);

	assert_int_equal(cyclock_read(&clk), 100); /* still the good source */
	assert_int_equal(bad.reads, 0);
}

static void expect_refused_opts(const struct cyclock_source *src,
				const struct cyclock_register_options *opts, int err)
{
	struct cyclock before;

	memcpy(&before, &clk, sizeof(clk));
	assert_int_equal(cyclock_register_opts(&clk, src, opts), err);
	assert_memory_equal(&before, &clk, sizeof(clk));
}

/* A lower rating does not replace a higher one, unless forced. */
static void a_lower_rated_source_is_refused_unless_forced(void **state)
{
	static const struct cyclock_register_options force = { .flags = CYCLOCK_REGISTER_FORCE };
	static const struct cyclock_register_options unknown = { .flags = 2 };
	struct sim_counter good, worse, same, better;

	(void)state;
	sim_init(&good, "good", 1000000000, 64);
	sim_init(&worse, "worse", 32768, 32);
	sim_init(&same, "same", 1000000, 64);
	sim_init(&better, "better", 1000000000, 64);
	worse.src.rating = good.src.rating - 1;
	better.src.rating = good.src.rating + 1;
	assert_int_equal(cyclock_register(&clk, &good.src), 0);
	good.count = 1000;

	expect_refused(&worse.src, CYCLOCK_EBUSY);
	expect_refused_opts(&worse.src, NULL, CYCLOCK_EBUSY);
	expect_refused_opts(&worse.src, &unknown, CYCLOCK_EINVAL);
	assert_int_equal(worse.reads, 0);
	assert_int_equal(cyclock_read(&clk), 1000);

	/* An equal rating replaces (a source re-registered at a new rate). */
	assert_int_equal(cyclock_register(&clk, &same.src), 0);
	same.count += 1; /* 1 us */
	assert_int_equal(cyclock_read(&clk), 2000);
	assert_int_equal(cyclock_register(&clk, &better.src), 0);
	expect_refused(&same.src, CYCLOCK_EBUSY);
	/* Forced, the worst goes in, and continues from the clock's value. */
	assert_int_equal(cyclock_register_opts(&clk, &worse.src, &force), 0);
	assert_int_equal(cyclock_read(&clk), 2000);
	assert_true(clk.cold.src == &worse.src);
}

/* A maximum interval at registration is kept, and buys a finer rate. */
static void a_maximum_interval_is_kept(void **state)
{
	struct cyclock_register_options opts = { .max_interval_ns = 6000000000ull };
	struct sim_counter sim;
	uint64_t def_ppt, def_wrap;

	(void)state;
	sim_init(&sim, "arm timer", 19200000, 56);
	assert_int_equal(cyclock_register(&clk, &sim.src), 0);
	def_ppt = clk.cold.error_ppt;
	def_wrap = cyclock_wrap_ns(&clk);
	assert_int_equal(cyclock_register_opts(&clk, &sim.src, &opts), 0);
	assert_true(cyclock_wrap_ns(&clk) <= opts.max_interval_ns);
	assert_true(cyclock_wrap_ns(&clk) < def_wrap);
	assert_true(clk.cold.error_ppt < def_ppt);
	sim.count += 19200000; /* one second, at the finer rate's conversion */
	assert_true(cyclock_read(&clk) + 1 >= 1000000000 && cyclock_read(&clk) <= 1000000000);
}

static void limits_of_width_and_rate_are_accepted(void **state)
{
	struct sim_counter sim;

	(void)state;
	sim_init(&sim, "fastest", CYCLOCK_MAX_RATE_HZ, 64);
	assert_int_equal(cyclock_register(&clk, &sim.src), 0);
	sim.count = CYCLOCK_MAX_RATE_HZ; /* one second of counts */
	assert_int_equal(cyclock_read(&clk), 1000000000);

	memset(&clk, 0, sizeof(clk));
	sim_init(&sim, "slowest", 1, 64);
	assert_int_equal(cyclock_register(&clk, &sim.src), 0);
	sim.count = 3;
	assert_int_equal(cyclock_read(&clk), 3000000000u);

	memset(&clk, 0, sizeof(clk));
	sim_init(&sim, "one bit", 1000, 1);
	assert_int_equal(cyclock_register(&clk, &sim.src), 0);
	sim.count = 1;
	assert_int_equal(cyclock_read(&clk), 1000000);
	cyclock_update(&clk);
	sim.count = 2; /* wrapped to 0 */
	assert_int_equal(cyclock_read(&clk), 2000000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(zero_initialised_clock_reads_zero, reset_clock),
		cmocka_unit_test_setup(first_source_starts_at_zero_and_counts, reset_clock),
		cmocka_unit_test_setup(narrow_1ghz_counter_survives_1000_wraps, reset_clock),
		cmocka_unit_test_setup(narrow_inexact_counters_survive_wraps, reset_clock),
		cmocka_unit_test_setup(wide_counters_stay_exact_over_1000_intervals, reset_clock),
		cmocka_unit_test_setup(update_at_the_wrap_limit, reset_clock),
		cmocka_unit_test_setup(a_64_bit_counter_left_alone_reads_exactly, reset_clock),
		cmocka_unit_test_setup(switching_sources_does_not_jump, reset_clock),
		cmocka_unit_test_setup(suspend_freezes_and_resume_continues, reset_clock),
		cmocka_unit_test_setup(suspend_with_a_stopped_counter, reset_clock),
		cmocka_unit_test_setup(register_while_suspended_starts_at_resume, reset_clock),
		cmocka_unit_test_setup(counter_behind_the_epoch_reads_the_epoch, reset_clock),
		cmocka_unit_test_setup(bad_input_is_refused_and_changes_nothing, reset_clock),
		cmocka_unit_test_setup(a_lower_rated_source_is_refused_unless_forced, reset_clock),
		cmocka_unit_test_setup(a_maximum_interval_is_kept, reset_clock),
		cmocka_unit_test_setup(limits_of_width_and_rate_are_accepted, reset_clock),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
