/* SPDX-License-Identifier: MIT */
/*
 * The hosted clocks' public API on the real counter, one thread: what
 * cyclock_init() returns, agreement of every clock with the kernel clock
 * it follows, monotonic readings, cycles, the coarse ticker, describe and
 * resync.  The tests run in the order listed in main(): the bad-flags one
 * comes before anything initialises the library, and the ticker one
 * before anything reads cyclock_coarse().  Concurrency, signals and fork
 * are in validate_*.c; the environment in test_source_env.c.
 */
#define _GNU_SOURCE /* strcasestr */
#include <dirent.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "cyclock.h"
#include "cyclock/timeline.h"
#include "agree.h"
#include "state.h"

#define MONO_READS 1000000 /* per clock in the monotonic test */
#define AGREE_TRIALS 1000  /* bracketed readings per clock */

static void sleep_ns(uint64_t ns)
{
	struct timespec ts = { (time_t)(ns / 1000000000u), (long)(ns % 1000000000u) };

	nanosleep(&ts, NULL);
}

/* The library's ticker threads ("cyclock-coarse"), from /proc/self/task:
 * not every thread, since a sanitizer's runtime starts its own. */
static int count_tickers(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)) != NULL) {
		char path[300], name[32] = "";
		FILE *f;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/comm", e->d_name);
		if ((f = fopen(path, "r")) != NULL) {
			n += fgets(name, sizeof(name), f) && !strcmp(name, "cyclock-coarse\n");
			fclose(f);
		}
	}
	closedir(d);
	return n;
}

/* An unknown bit is refused with nothing done: CYCLOCK_INIT_KERNEL beside
 * it must not stick, so the next cyclock_init(0) still finds the counter
 * (checked in init_uses_the_counter). */
static void unknown_flags_are_refused(void **state)
{
	(void)state;
	assert_int_equal(cyclock_init(32u), CYCLOCK_EINVAL);
	assert_int_equal(cyclock_init(0x100u), CYCLOCK_EINVAL); /* the library's own, not ours */
	assert_int_equal(cyclock_init(0x80000000u), CYCLOCK_EINVAL);
	assert_int_equal(cyclock_init(CYCLOCK_INIT_KERNEL | 16u), CYCLOCK_EINVAL);
	assert_int_equal(cyclock_init(~0u), CYCLOCK_EINVAL);
}

/* This test runs where the kernel trusts an invariant TSC, as CI does:
 * there the library must use it, unless the environment says otherwise;
 * an architecture without a counter (arch/generic.h) must use the kernel. */
static void init_uses_the_counter(void **state)
{
	const char *env = getenv("CYCLOCK_SOURCE");
	struct cyclock_state info;
	int r;

	(void)state;
	r = cyclock_init(0);
	info = state_now();
	if (!CYCLOCK_ARCH_HAS_COUNTER && r != CYCLOCK_USING_KERNEL)
		fail_msg("cyclock_init(0) = %d with no counter on this architecture", r);
	if (CYCLOCK_ARCH_HAS_COUNTER && env == NULL && r != CYCLOCK_USING_COUNTER)
		fail_msg("cyclock_init(0) = %d, want the counter; why: %s; describe: %s", r,
			 info.why, cyclock_describe());
	assert_true(r == CYCLOCK_USING_COUNTER || r == CYCLOCK_USING_KERNEL);
	assert_int_equal(info.using_counter, r);
	/* Later calls only return the first result, whatever their flags. */
	assert_int_equal(cyclock_init(0), r);
	assert_int_equal(cyclock_init(CYCLOCK_INIT_KERNEL), r);
	assert_int_equal(state_now().using_counter, r);
}

/* Waits up to 1 s for the ticker's stored value to differ from @old. */
static uint64_t ticker_value_after(uint64_t old)
{
	uint64_t end = kclock_mono() + 1000000000u, v;

	while ((v = atomic_load_explicit(&cyclock__coarse.ns, memory_order_relaxed)) == old &&
	       kclock_mono() < end)
		sleep_ns(100000);
	return v;
}

/* CYCLOCK_INIT_COARSE after the first init still starts the ticker, which
 * then ticks with nobody calling cyclock_coarse(); and there is only ever
 * one ticker, however often it is asked for. */
static void init_coarse_flag_starts_one_ticker(void **state)
{
	int before, after, i, r = state_now().using_counter;
	uint64_t v1, v2;

	(void)state;
	before = count_tickers();
	assert_true(atomic_load(&cyclock__coarse.ns) == 0); /* nothing started it yet */
	assert_int_equal(cyclock_init(CYCLOCK_INIT_COARSE), r);
	v1 = ticker_value_after(0);
	if (v1 == 0)
		fail_msg("CYCLOCK_INIT_COARSE: the ticker stored nothing within 1 s");
	v2 = ticker_value_after(v1);
	if (v2 <= v1)
		fail_msg("the ticker did not advance within 1 s: %llu then %llu",
			 (unsigned long long)v1, (unsigned long long)v2);
	after = count_tickers();
	assert_int_equal(after, before + 1);
	for (i = 0; i < 1000; i++)
		cyclock_coarse();
	for (i = 0; i < 10; i++)
		assert_int_equal(cyclock_init(CYCLOCK_INIT_COARSE), r);
	sleep_ns(20000000);
	assert_int_equal(count_tickers(), after);
}

static void clocks_agree_with_the_kernel(void **state)
{
	int n, i, j;
	const struct kclock_case *c = kclock_cases(&n);

	(void)state;
	for (i = 0; i < n; i++) {
		int64_t worst = 0;

		for (j = 0; j < AGREE_TRIALS; j++) {
			int64_t miss = kclock_miss(&c[i]);

			if (llabs(miss) > llabs(worst))
				worst = miss;
		}
		print_message("%-20s worst %lld ns outside its kernel clock\n", c[i].name,
			      (long long)worst);
		if (!kclock_within(worst, AGREE_NS))
			fail_msg("%s: %lld ns outside its kernel clock", c[i].name, (long long)worst);
	}
}

/* Counts readings of @read below the one before, over MONO_READS. */
static long count_backward(uint64_t (*read)(void), uint64_t *largest)
{
	uint64_t prev = read(), t;
	long back = 0, i;

	*largest = 0;
	for (i = 0; i < MONO_READS; i++) {
		t = read();
		if (t < prev) {
			back++;
			if (prev - t > *largest)
				*largest = prev - t;
		}
		prev = t;
	}
	return back;
}

/* Every clock but realtime is monotonic on one thread, and so is the
 * counter behind cyclock_cycles(). */
static void clocks_never_go_back_on_one_thread(void **state)
{
	int n, i;
	const struct kclock_case *c = kclock_cases(&n);
	uint64_t largest;
	long back;

	(void)state;
	for (i = 0; i < n; i++) {
		if (!(c[i].flags & KCLOCK_MONO))
			continue;
		back = count_backward(c[i].read, &largest);
		if (back)
			fail_msg("%s went back %ld times, by up to %llu ns", c[i].name, back,
				 (unsigned long long)largest);
	}
	back = count_backward(cyclock_cycles, &largest);
	if (back)
		fail_msg("cyclock_cycles went back %ld times, by up to %llu counts", back,
			 (unsigned long long)largest);
}

/* Whether cycles_to_ns(@cyc) lies within AGREE_NS of [@n1, @n2]. */
static void assert_converts_between(uint64_t cyc, uint64_t n1, uint64_t n2)
{
	uint64_t x = cyclock_cycles_to_ns(cyc);

	if (x + AGREE_NS < n1 || x > n2 + AGREE_NS)
		fail_msg("cycles_to_ns(%llu) = %llu, outside [%llu, %llu] by more than 1 ms",
			 (unsigned long long)cyc, (unsigned long long)x, (unsigned long long)n1,
			 (unsigned long long)n2);
}

/* A counter value converts to the cyclock_now() of the moment it was read,
 * also after resyncs have published new segments since. */
static void cycles_convert_to_now(void **state)
{
	uint64_t n1, n2, c, c2;
	int i;

	(void)state;
	if (!state_now().using_counter) {
		assert_true(cyclock_cycles() == 0);
		return;
	}
	for (i = 0; i < 1000; i++) {
		n1 = cyclock_now();
		c = cyclock_cycles();
		n2 = cyclock_now();
		assert_converts_between(c, n1, n2);
	}
	n1 = cyclock_now();
	c = cyclock_cycles();
	n2 = cyclock_now();
	for (i = 0; i < 100; i++)
		cyclock_resync();
	sleep_ns(20000000);
	c2 = cyclock_cycles();
	assert_true(c2 > c);
	assert_converts_between(c, n1, n2);
}

/* Coarse is never ahead of cyclock_now() read after it, trails it by at
 * most COARSE_LAG_NS, and advances: watched for 300 ms. */
static void coarse_trails_now(void **state)
{
	uint64_t first = cyclock_coarse(), prev = first, end = kclock_mono() + 300000000u;
	uint64_t c, n, worst = 0;

	(void)state;
	while (kclock_mono() < end) {
		c = cyclock_coarse();
		n = cyclock_now();
		if (c > n)
			fail_msg("cyclock_coarse() %llu is ahead of cyclock_now() %llu read after it",
				 (unsigned long long)c, (unsigned long long)n);
		if (c < prev)
			fail_msg("cyclock_coarse() went back by %llu ns", (unsigned long long)(prev - c));
		worst = n - c > worst ? n - c : worst;
		prev = c;
	}
	print_message("cyclock_coarse trails cyclock_now by up to %llu ns\n",
		      (unsigned long long)worst);
	if (worst > COARSE_LAG_NS)
		fail_msg("cyclock_coarse() trailed cyclock_now() by %llu ns", (unsigned long long)worst);
	if (prev <= first)
		fail_msg("cyclock_coarse() did not advance in 300 ms");
}

/*
 * Without a ticker, cyclock_coarse() lags no more than the kernel's coarse
 * clock does: it is never below CLOCK_MONOTONIC_COARSE read before it,
 * but for cyclock_now()'s distance from the kernel's clock (AGREE_NS).
 * Watched for 300 ms, over about 75 of the kernel's ticks.
 */
static void coarse_lags_no_more_than_the_kernels(void **state)
{
	uint64_t end = kclock_mono() + 300000000u, k, c, worst = 0;

	(void)state;
	assert_true(atomic_load(&cyclock__coarse.ns) == 0); /* no ticker */
	while (kclock_mono() < end) {
		k = kclock_ns(CLOCK_MONOTONIC_COARSE);
		c = cyclock_coarse();
		if (c + AGREE_NS < k)
			fail_msg("cyclock_coarse() %llu is %llu ns below CLOCK_MONOTONIC_COARSE read "
				 "before it", (unsigned long long)c, (unsigned long long)(k - c));
		worst = k > c && k - c > worst ? k - c : worst;
	}
	print_message("cyclock_coarse at most %llu ns below the kernel's coarse clock\n",
		      (unsigned long long)worst);
}

/* The counter's frequency as cyclock_cycles() and CLOCK_MONOTONIC_RAW see
 * it over @ns: *lo and *hi bracket it whatever the scheduler does. */
static void measure_hz(uint64_t ns, double *lo, double *hi)
{
	uint64_t k1 = kclock_ns(CLOCK_MONOTONIC_RAW), c1 = cyclock_cycles();
	uint64_t k2 = kclock_ns(CLOCK_MONOTONIC_RAW), k3, c2, k4;

	sleep_ns(ns);
	k3 = kclock_ns(CLOCK_MONOTONIC_RAW);
	c2 = cyclock_cycles();
	k4 = kclock_ns(CLOCK_MONOTONIC_RAW);
	*lo = (double)(c2 - c1) * 1e9 / (double)(k4 - k1);
	*hi = (double)(c2 - c1) * 1e9 / (double)(k3 - k2);
}

/* Two threads describing at once: each gets a string of its own, whole
 * (ThreadSanitizer sees any write to a shared one). */
static void *describe_often(void *arg)
{
	const char *s = NULL;

	for (int i = 0; i < 200; i++) {
		s = cyclock_describe();
		if (!s || !s[0] || strchr(s, '\n') || strlen(s) < 20)
			return NULL;
	}
	*(const char **)arg = s;
	return arg;
}

static void describe_is_per_thread(void **state)
{
	const char *s[2] = { NULL, NULL };
	pthread_t t[2];
	void *ok[2];

	(void)state;
	for (int i = 0; i < 2; i++)
		assert_int_equal(pthread_create(&t[i], NULL, describe_often, &s[i]), 0);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(pthread_join(t[i], &ok[i]), 0);
		assert_non_null(ok[i]);
	}
	if (s[0] == s[1])
		fail_msg("two threads got the same buffer from cyclock_describe()");
}

static void describe_and_info_say_what_is_used(void **state)
{
	struct cyclock_state info = state_now();
	const char *s = cyclock_describe();
	double lo, hi;

	(void)state;
	assert_non_null(s);
	print_message("describe: %s\n", s);
	assert_true(strlen(s) > 0);
	assert_null(strchr(s, '\n'));
	assert_non_null(info.counter);
	assert_non_null(info.why);
	if (!info.using_counter) {
		assert_non_null(strcasestr(s, "kernel"));
		assert_true(info.why[0] != '\0');
		return;
	}
	assert_non_null(strstr(s, CYCLOCK_ARCH_COUNTER_NAME));
	assert_string_equal(info.counter, CYCLOCK_ARCH_COUNTER_NAME);
	assert_non_null(info.hz_source);
	assert_true(info.mult != 0 && info.raw_mult != 0);
	measure_hz(200000000u, &lo, &hi);
	if (!(info.hz >= lo * (1 - 1e-3 - info.hz_ppm * 1e-6) &&
	      info.hz <= hi * (1 + 1e-3 + info.hz_ppm * 1e-6)))
		fail_msg("info.hz %.0f (+-%.1f ppm) but the counter ran at %.0f..%.0f Hz", info.hz,
			 info.hz_ppm, lo, hi);
}

/* Each resync publishes a new segment; none may step cyclock_now() back
 * or away from the kernel's clocks. */
static void resync_keeps_now_monotonic_and_agreeing(void **state)
{
	struct cyclock_state before = state_now();
	uint64_t prev = cyclock_now(), t;
	int n, i, j;
	const struct kclock_case *c = kclock_cases(&n);

	(void)state;
	for (i = 0; i < 1000; i++) {
		cyclock_resync();
		t = cyclock_now();
		if (t < prev)
			fail_msg("cyclock_now() went back by %llu ns across cyclock_resync()",
				 (unsigned long long)(prev - t));
		prev = t;
		for (j = 0; i % 50 == 0 && j < n; j++) {
			int64_t miss = kclock_miss(&c[j]);

			if (!kclock_within(miss, AGREE_NS))
				fail_msg("%s: %lld ns outside its kernel clock after a resync",
					 c[j].name, (long long)miss);
		}
	}
	if (before.using_counter && state_now().resyncs <= before.resyncs)
		fail_msg("1000 cyclock_resync() calls left info.resyncs at %llu",
			 (unsigned long long)before.resyncs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(unknown_flags_are_refused),
		cmocka_unit_test(init_uses_the_counter),
		cmocka_unit_test(coarse_lags_no_more_than_the_kernels), /* before the ticker */
		cmocka_unit_test(init_coarse_flag_starts_one_ticker),
		cmocka_unit_test(clocks_agree_with_the_kernel),
		cmocka_unit_test(clocks_never_go_back_on_one_thread),
		cmocka_unit_test(cycles_convert_to_now),
		cmocka_unit_test(coarse_trails_now),
		cmocka_unit_test(describe_and_info_say_what_is_used),
		cmocka_unit_test(describe_is_per_thread),
		cmocka_unit_test(resync_keeps_now_monotonic_and_agreeing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
