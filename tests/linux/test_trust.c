/* SPDX-License-Identifier: MIT */
/*
 * The trust decision (src/linux/trust.c), case by case, with no machine:
 * what the caller, the environment and the machine answered goes in, and
 * whether the counter is used, why not, and whether cyclock_local() runs
 * per CPU come out.  The library's own state it once read (the setup,
 * the host's state) is poisoned first: the decision must read none of it.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include "internal.h"

#define HZ 2.6e9

/* A machine that says yes to everything, for a plain caller. */
static struct cyclock__answers good(void)
{
	struct cyclock__answers a = { .force = FORCE_NONE,
				      .has_counter = true,
				      .invariant = true,
				      .clocksource = CYCLOCK__CS_THIS,
				      .hz = HZ,
				      .counter_cpu = true };

	memcpy(a.clocksource_name, CYCLOCK_ARCH_KERNEL_CLOCKSOURCE,
	       sizeof(CYCLOCK_ARCH_KERNEL_CLOCKSOURCE));
	return a;
}

static int poison(void **state)
{
	(void)state;
	memset(&cyclock__setup, 0x5a, sizeof(cyclock__setup));
	memset(&cyclock__host, 0x5a, sizeof(cyclock__host));
	return 0;
}

static void trusted(void **state)
{
	struct cyclock__answers a = good();
	struct cyclock__trust t;

	(void)state;
	assert_true(cyclock__trust_needs_hz(&a));
	t = cyclock__trust(&a);
	assert_true(t.use_counter);
	assert_false(t.local_percpu);
	assert_false(t.forced);
	assert_string_equal(t.why, "");
	assert_string_equal(t.distrust, "");
}

/* Asked for no counter, whatever the machine says: no question of it. */
static void no_counter_at_all(void **state)
{
	static const struct {
		bool kernel_asked;
		int force;
		bool has_counter;
		const char *why;
	} cases[] = {
		{ true, FORCE_NONE, true, "cyclock_init(CYCLOCK_INIT_KERNEL)" },
		{ true, FORCE_COUNTER, true, "cyclock_init(CYCLOCK_INIT_KERNEL)" },
		{ false, FORCE_KERNEL, true, "CYCLOCK_SOURCE=kernel" },
		{ false, FORCE_COUNTER, false, "no user-space counter on this architecture" },
		{ false, FORCE_NONE, false, "no user-space counter on this architecture" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct cyclock__answers a = good();
		struct cyclock__trust t;

		a.kernel_asked = cases[i].kernel_asked;
		a.force = cases[i].force;
		a.has_counter = cases[i].has_counter;
		assert_string_equal(cyclock__trust_none(&a), cases[i].why);
		assert_false(cyclock__trust_needs_hz(&a));
		t = cyclock__trust(&a);
		assert_false(t.use_counter);
		assert_false(t.local_percpu);
		assert_string_equal(t.why, cases[i].why);
	}
}

/* Each answer that distrusts the counter, alone: the kernel's clocks and
 * why; cyclock_local() per CPU when the rate is constant and the read
 * names the CPU. */
static void each_distrust(void **state)
{
	enum { NOT_INVARIANT, UNREAD, OTHER, WARP, N };
	static const char *const why[N] = {
		[NOT_INVARIANT] = "the " CYCLOCK_ARCH_COUNTER_NAME " is not invariant",
		[UNREAD] = "the kernel's clocksource cannot be read",
		[OTHER] = "the kernel's clocksource is hpet",
		[WARP] = "the " CYCLOCK_ARCH_COUNTER_NAME " goes back by 85 counts between CPUs 0 and 1",
	};

	(void)state;
	for (int i = 0; i < N; i++) {
		struct cyclock__answers a = good();
		struct cyclock__trust t;

		a.invariant = i != NOT_INVARIANT;
		a.clocksource = i == UNREAD ? CYCLOCK__CS_UNREAD :
				i == OTHER  ? CYCLOCK__CS_OTHER :
					      CYCLOCK__CS_THIS;
		if (i == OTHER)
			strcpy(a.clocksource_name, "hpet");
		if (i == WARP) {
			a.warp_cyc = 85;
			a.warp_cpu[0] = 0;
			a.warp_cpu[1] = 1;
		}
		assert_true(cyclock__trust_needs_hz(&a)); /* for the per-CPU clock */
		t = cyclock__trust(&a);
		assert_false(t.use_counter);
		assert_string_equal(t.why, why[i]);
		assert_string_equal(t.distrust, why[i]);
		assert_int_equal(t.local_percpu, i != NOT_INVARIANT);
		/* No per-CPU clock wanted (the preload): no frequency needed. */
		a.no_local = true;
		assert_false(cyclock__trust_needs_hz(&a));
		a.hz = 0;
		t = cyclock__trust(&a);
		assert_false(t.use_counter);
		assert_false(t.local_percpu);
		assert_string_equal(t.why, why[i]);
		/* Forced: the counter all the same, the reason kept for describe. */
		a = good();
		a.invariant = i != NOT_INVARIANT;
		a.clocksource = i == UNREAD ? CYCLOCK__CS_UNREAD : i == OTHER ? CYCLOCK__CS_OTHER :
										CYCLOCK__CS_THIS;
		a.warp_cyc = i == WARP ? 85 : 0;
		a.force = FORCE_COUNTER;
		t = cyclock__trust(&a);
		assert_true(t.use_counter);
		assert_true(t.forced);
		assert_string_equal(t.why, "");
		assert_string_not_equal(t.distrust, "");
	}
}

/* A counter that does not advance is never used, forced or not; a warp
 * check that saw nothing, or could not run (-1), distrusts nothing. */
static void the_frequency_and_the_warp_check(void **state)
{
	struct cyclock__answers a = good();
	struct cyclock__trust t;

	(void)state;
	a.hz = 0;
	t = cyclock__trust(&a);
	assert_false(t.use_counter);
	assert_false(t.local_percpu);
	assert_string_equal(t.why, "the " CYCLOCK_ARCH_COUNTER_NAME " does not advance");
	a.force = FORCE_COUNTER;
	t = cyclock__trust(&a);
	assert_false(t.use_counter);
	a = good();
	a.warp_cyc = -1;
	assert_true(cyclock__trust(&a).use_counter);
	a.warp_cyc = 0;
	assert_true(cyclock__trust(&a).use_counter);
	/* No per-CPU read of the counter and its CPU: no cyclock_local() per CPU. */
	a = good();
	a.clocksource = CYCLOCK__CS_OTHER;
	a.counter_cpu = false;
	assert_false(cyclock__trust(&a).local_percpu);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(trusted, poison),
		cmocka_unit_test_setup(no_counter_at_all, poison),
		cmocka_unit_test_setup(each_distrust, poison),
		cmocka_unit_test_setup(the_frequency_and_the_warp_check, poison),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
