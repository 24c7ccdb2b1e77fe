/* SPDX-License-Identifier: MIT */
/*
 * cyclock-demo: register the counters a Linux machine offers as cyclock
 * sources, print the kernel-style line for each, and read one clock
 * against CLOCK_MONOTONIC_RAW over a short sleep.
 *
 * The counters: the TSC on x86-64 (its rate measured here against
 * CLOCK_MONOTONIC_RAW over 20 ms: the hosted library will take it from
 * CPUID), CLOCK_MONOTONIC_RAW itself as a 64-bit 1 GHz counter, and two
 * narrow board-style timers made from it, 32 bits at 1 MHz and 32 kHz.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <time.h>
#if defined(__x86_64__)
#include <x86intrin.h>
#endif

#include <cyclock.h>

static uint64_t raw_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* CLOCK_MONOTONIC_RAW at the source's rate (a divisor of 1 GHz), cut to its width. */
static uint64_t read_raw_scaled(const struct cyclock_source *src)
{
	uint64_t ns = raw_ns() / (1000000000u / src->rate_hz);

	return src->bits == 64 ? ns : ns & ((1ull << src->bits) - 1);
}

static uint64_t read_raw_32k(const struct cyclock_source *src)
{
	(void)src;
	return (uint64_t)((unsigned __int128)raw_ns() * 32768 / 1000000000u) & 0xffffffffu;
}

#if defined(__x86_64__)
static uint64_t read_tsc(const struct cyclock_source *src)
{
	(void)src;
	return __rdtsc();
}

static uint64_t measure_tsc_hz(void)
{
	struct timespec pause = { 0, 20000000 };
	uint64_t t0 = raw_ns(), c0 = __rdtsc(), t1, c1;

	nanosleep(&pause, NULL);
	t1 = raw_ns();
	c1 = __rdtsc();
	return (uint64_t)((unsigned __int128)(c1 - c0) * 1000000000u / (t1 - t0));
}
#endif

static void show(struct cyclock *clk, const struct cyclock_source *src)
{
	char line[128];
	int err = cyclock_register(clk, src);

	if (err) {
		printf("cyclock: %s: refused (%d)\n", src->name, err);
		return;
	}
	cyclock_format_summary(clk, line, sizeof(line));
	printf("cyclock: %-12s %s\n", src->name, line);
}

/* Sleep 100 ms in steps, keeping the epoch fresh as a timer interrupt would. */
static void follow(struct cyclock *clk, const char *name)
{
	struct timespec step = { 0, 10000000 };
	uint64_t c0 = cyclock_read(clk), r0 = raw_ns(), c1, r1;

	for (int i = 0; i < 10; i++) {
		nanosleep(&step, NULL);
		cyclock_update(clk);
	}
	c1 = cyclock_read(clk);
	r1 = raw_ns();
	printf("cyclock: %-12s %llu ns elapsed; CLOCK_MONOTONIC_RAW %llu ns (%+lld)\n", name,
	       (unsigned long long)(c1 - c0), (unsigned long long)(r1 - r0),
	       (long long)(c1 - c0) - (long long)(r1 - r0));
}

int main(int argc, char **argv)
{
	static struct cyclock clk;
	static struct cyclock_source raw64 = { "raw-ns", read_raw_scaled, NULL, 1000000000, 64, 200 };
	static struct cyclock_source timer = { "timer-1MHz", read_raw_scaled, NULL, 1000000, 32, 100 };
	static struct cyclock_source rtc = { "rtc-32k", read_raw_32k, NULL, 32768, 32, 50 };

	if (argc > 1 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
		puts("usage: cyclock-demo\n"
		     "Registers this machine's counters as cyclock sources, prints the\n"
		     "kernel-style summary line of each, and follows one for 100 ms.");
		return 0;
	}
	show(&clk, &rtc);
	show(&clk, &timer);
	show(&clk, &raw64);
#if defined(__x86_64__)
	static struct cyclock_source tsc = { "tsc", read_tsc, NULL, 0, 64, 300 };

	tsc.rate_hz = measure_tsc_hz();
	show(&clk, &tsc);
#endif
	follow(&clk, "last source");
	return 0;
}
