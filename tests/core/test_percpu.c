/* SPDX-License-Identifier: MIT */
/*
 * Per-CPU unstable mode, simulated: two CPUs with their own counters, a
 * reference time ("gtod") that the test advances, and ticks the test
 * delivers by hand.  CPU 1's counter can run fast, stop, or miss ticks.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include "cyclock/core.h"
#include "sim.h"

#define NR_CPUS 2
#define TICK_NS 1000000ull /* 1 ms */

static struct cyclock raw;
static struct cyclock_percpu pc;
static struct cyclock_percpu_slot slots[NR_CPUS];
static uint64_t counter[NR_CPUS]; /* each CPU's own 1 GHz counter */
static unsigned int cur_cpu;      /* the CPU the simulated code runs on */
static uint64_t gtod;             /* the reference time */
static void (*meanwhile)(void);   /* run once, inside the next counter read */

static uint64_t read_this_cpu(const struct cyclock_source *src)
{
	void (*run)(void) = meanwhile;
	unsigned int cpu = cur_cpu;

	(void)src;
	if (run) { /* another CPU's work, between a reader's look at the mode and its read */
		meanwhile = NULL;
		run();
		cur_cpu = cpu;
	}
	return counter[cur_cpu];
}

static const struct cyclock_source tsc = { "sim-tsc", read_this_cpu, NULL, 1000000000, 64, 300 };

static int setup(void **state)
{
	(void)state;
	memset(&raw, 0, sizeof(raw));
	memset(&pc, 0, sizeof(pc));
	memset(counter, 0, sizeof(counter));
	cur_cpu = 0;
	gtod = 0;
	meanwhile = NULL;
	assert_int_equal(cyclock_register(&raw, &tsc), 0);
	return 0;
}

#if CYCLOCK_U64_IS_SPLIT

static void needs_64bit_atomics(void **state)
{
	(void)state;
	assert_int_equal(cyclock_percpu_init(&pc, &raw, slots, NR_CPUS, TICK_NS),
			 CYCLOCK_ENOTSUP);
	assert_int_equal(cyclock_percpu_read(&pc, 0), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(needs_64bit_atomics, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

#else

static uint64_t read_on(unsigned int cpu)
{
	cur_cpu = cpu;
	return cyclock_percpu_read(&pc, cpu);
}

static void tick_on(unsigned int cpu)
{
	cur_cpu = cpu;
	assert_int_equal(cyclock_percpu_tick(&pc, cpu, gtod), 0);
}

static void bad_input_is_refused(void **state)
{
	(void)state;
	assert_int_equal(cyclock_percpu_read(&pc, 0), 0); /* zero-initialised */
	assert_int_equal(cyclock_percpu_tick(&pc, 0, 0), CYCLOCK_EINVAL);
	assert_int_equal(cyclock_percpu_init(NULL, &raw, slots, NR_CPUS, TICK_NS), CYCLOCK_EINVAL);
	assert_int_equal(cyclock_percpu_init(&pc, NULL, slots, NR_CPUS, TICK_NS), CYCLOCK_EINVAL);
	assert_int_equal(cyclock_percpu_init(&pc, &raw, NULL, NR_CPUS, TICK_NS), CYCLOCK_EINVAL);
	assert_int_equal(cyclock_percpu_init(&pc, &raw, slots, 0, TICK_NS), CYCLOCK_EINVAL);
	assert_int_equal(cyclock_percpu_init(&pc, &raw, slots, NR_CPUS, 0), CYCLOCK_EINVAL);

	assert_int_equal(cyclock_percpu_init(&pc, &raw, slots, NR_CPUS, TICK_NS), 0);
	assert_int_equal(cyclock_percpu_tick(&pc, NR_CPUS, 0), CYCLOCK_EINVAL);
	assert_int_equal(cyclock_percpu_set_unstable(&pc, NR_CPUS, 0), CYCLOCK_EINVAL);
	assert_true(cyclock_percpu_is_stable(&pc));
	counter[0] = 5;
	assert_int_equal(cyclock_percpu_read(&pc, NR_CPUS), 0);
	assert_int_equal(cyclock_percpu_read_remote(&pc, 0, NR_CPUS), 0);
	assert_int_equal(cyclock_percpu_read_remote(&pc, NR_CPUS, 0), 0);
	assert_int_equal(read_on(0), 5);
}

static void stable_mode_reads_the_raw_clock(void **state)
{
	(void)state;
	assert_int_equal(cyclock_percpu_init(&pc, &raw, slots, NR_CPUS, TICK_NS), 0);
	counter[0] = counter[1] = 12345;
	assert_int_equal(read_on(0), 12345);
	assert_int_equal(read_on(1), 12345);
	assert_int_equal(cyclock_percpu_read_remote(&pc, 0, 1), 12345);
	tick_on(1);
	assert_int_equal(read_on(1), 12345);
}

static void switch_to_unstable_has_no_jump(void **state)
{
	uint64_t before, after;

	(void)state;
	assert_int_equal(cyclock_percpu_init(&pc, &raw, slots, NR_CPUS, TICK_NS), 0);
	counter[0] = counter[1] = 7000000;
	before = read_on(0);
	gtod = 5000000000ull; /* the reference is on another timeline */
	assert_int_equal(cyclock_percpu_set_unstable(&pc, 0, gtod), 0);
	assert_false(cyclock_percpu_is_stable(&pc));
	after = read_on(0);
	assert_int_equal(after, before);
	assert_int_equal(read_on(1), before);
	counter[0] += 300;
	gtod += 300;
	assert_int_equal(read_on(0), before + 300);
	/* A second switch changes nothing. */
	assert_int_equal(cyclock_percpu_set_unstable(&pc, 1, 1), 0);
	assert_int_equal(read_on(0), before + 300);
}

/* Advance true time by @ns: the reference and CPU 0 exactly, CPU 1 by @ppm fast. */
static void advance(uint64_t ns, int64_t ppm)
{
	gtod += ns;
	counter[0] += ns;
	counter[1] += ns + (uint64_t)((int64_t)ns * ppm / 1000000);
}

static void unstable(void)
{
	counter[0] = counter[1] = 1000000000ull;
	gtod = 1000000000ull;
	assert_int_equal(cyclock_percpu_init(&pc, &raw, slots, NR_CPUS, TICK_NS), 0);
	assert_int_equal(cyclock_percpu_set_unstable(&pc, 0, gtod), 0);
}

/*
 * CPU 1 runs 1000 ppm fast.  With ticks every millisecond it gains 1 us a
 * tick; when it misses its ticks for a second (a tickless CPU) its own
 * extrapolation runs ahead, but its values never get more than a tick
 * past the reference at its last tick, and never go backwards when the
 * ticks resume.
 */
static void fast_cpu_stays_within_a_tick(void **state)
{
	uint64_t rng = 5, last[NR_CPUS] = { 0 }, last_tick = 0;
	uint64_t gtod_at_tick1 = gtod, counter_at_tick1 = 0;
	bool capped = false;

	(void)state;
	unstable();
	gtod_at_tick1 = gtod;
	counter_at_tick1 = counter[1];
	for (int step = 0; step < 40000; step++) {
		unsigned int cpu = prng_next(&rng) % NR_CPUS;
		bool cpu1_tickless = step > 10000 && step < 30000;
		uint64_t v;

		advance(1 + prng_upto(&rng, 100000), 1000);
		if (gtod - last_tick >= TICK_NS) {
			last_tick = gtod;
			tick_on(0);
			if (!cpu1_tickless) {
				tick_on(1);
				gtod_at_tick1 = gtod;
				counter_at_tick1 = counter[1];
			}
		}
		v = read_on(cpu);
		assert_true(v >= last[cpu]);
		assert_true(v <= gtod + TICK_NS); /* gtod_offset is 0 here */
		if (cpu == 1) {
			assert_true(v <= gtod_at_tick1 + TICK_NS);
			capped |= v < gtod_at_tick1 + (counter[1] - counter_at_tick1);
		}
		last[cpu] = v;
	}
	assert_true(capped); /* the extrapolation ran ahead and the clamp held it */
}

/* A CPU whose counter stops still follows the reference, a tick at a time. */
static void stopped_cpu_follows_the_reference(void **state)
{
	uint64_t v, last = 0;

	(void)state;
	unstable();
	for (int t = 0; t < 100; t++) {
		advance(TICK_NS, 0);
		counter[1] -= TICK_NS; /* CPU 1's counter stands still */
		tick_on(1);
		v = read_on(1);
		assert_true(v >= gtod && v >= last);
		assert_true(v <= gtod + TICK_NS);
		last = v;
	}
}

/* A remote read returns the later clock and pulls the earlier one up to it. */
static void remote_read_couples_two_cpus(void **state)
{
	uint64_t a, b, r;

	(void)state;
	unstable();
	advance(TICK_NS / 2, 0);
	counter[1] -= TICK_NS / 4; /* CPU 1 is behind */
	a = read_on(0);
	b = read_on(1);
	assert_true(a > b);
	cur_cpu = 1;
	r = cyclock_percpu_read_remote(&pc, 1, 0);
	assert_true(r >= a);
	assert_true(read_on(1) >= r); /* CPU 1 was pulled up */
	cur_cpu = 0;
	r = cyclock_percpu_read_remote(&pc, 0, 1);
	assert_true(r >= a);
	assert_int_equal(cyclock_percpu_read_remote(&pc, 0, 0), read_on(0));
}

/* CPU 0 switches to unstable mode, then ticks late: its reference was
 * taken 250 us before its counter, so its clock stands still a while. */
static void switch_then_late_tick_on_0(void)
{
	uint64_t ref;

	cur_cpu = 0;
	assert_int_equal(cyclock_percpu_set_unstable(&pc, 0, gtod), 0);
	advance(TICK_NS / 4, 0);
	ref = gtod;
	advance(TICK_NS / 4, 0);
	assert_int_equal(cyclock_percpu_tick(&pc, 0, ref), 0);
}

/* A remote read that began in stable mode and read the counter after a
 * switch still couples the two CPUs. */
static void remote_read_across_the_switch_couples(void **state)
{
	uint64_t r;

	(void)state;
	counter[0] = counter[1] = gtod = 1000000000ull;
	assert_int_equal(cyclock_percpu_init(&pc, &raw, slots, NR_CPUS, TICK_NS), 0);
	meanwhile = switch_then_late_tick_on_0;
	cur_cpu = 1;
	r = cyclock_percpu_read_remote(&pc, 1, 0);
	assert_null(meanwhile);
	assert_false(cyclock_percpu_is_stable(&pc));
	assert_int_equal(r, counter[1]);
	assert_true(read_on(0) >= r); /* CPU 0 was pulled up */
	assert_true(read_on(1) >= r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(bad_input_is_refused, setup),
		cmocka_unit_test_setup(stable_mode_reads_the_raw_clock, setup),
		cmocka_unit_test_setup(switch_to_unstable_has_no_jump, setup),
		cmocka_unit_test_setup(fast_cpu_stays_within_a_tick, setup),
		cmocka_unit_test_setup(stopped_cpu_follows_the_reference, setup),
		cmocka_unit_test_setup(remote_read_couples_two_cpus, setup),
		cmocka_unit_test_setup(remote_read_across_the_switch_couples, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

#endif /* CYCLOCK_U64_IS_SPLIT */
