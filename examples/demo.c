/* SPDX-License-Identifier: MIT */
/*
 * cyclock-demo: the hosted clocks beside the kernel's, then the engine:
 * register the counters a Linux machine offers as cyclock sources, print
 * the kernel-style line for each, and read one clock against
 * CLOCK_MONOTONIC_RAW over a short sleep.
 *
 * The counters: the hosted library's own (the TSC on x86-64, at the rate
 * the library found), CLOCK_MONOTONIC_RAW itself as a 64-bit 1 GHz
 * counter, and two narrow board-style timers made from it, 32 bits at
 * 1 MHz and 32 kHz.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <cyclock.h>
#include <cyclock/timeline.h>

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

static uint64_t read_counter(const struct cyclock_source *src)
{
	(void)src;
	return cyclock_cycles();
}

static uint64_t kernel_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Each hosted clock against its kernel clock, read just before and after. */
static void hosted(void)
{
	static const struct {
		const char *name;
		uint64_t (*read)(void);
		clockid_t id;
	} clocks[] = {
		{ "cyclock_now", cyclock_now, CLOCK_MONOTONIC },
		{ "cyclock_raw", cyclock_raw, CLOCK_MONOTONIC_RAW },
		{ "cyclock_realtime", cyclock_realtime, CLOCK_REALTIME },
		{ "cyclock_boottime", cyclock_boottime, CLOCK_BOOTTIME },
	};

	printf("cyclock: %s\n", cyclock_describe());
	for (size_t i = 0; i < sizeof(clocks) / sizeof(clocks[0]); i++) {
		uint64_t k1 = kernel_ns(clocks[i].id), v = clocks[i].read();
		uint64_t k2 = kernel_ns(clocks[i].id);

		printf("cyclock: %-17s %llu ns, %+lld ns from its kernel clock (read within %llu ns)\n",
		       clocks[i].name, (unsigned long long)v,
		       (long long)(v - (k1 + (k2 - k1) / 2)), (unsigned long long)(k2 - k1));
	}
}

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
	static struct cyclock_source counter = { "counter", read_counter, NULL, 0, 64, 300 };
	struct cyclock_state info;

	if (argc > 1 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
		puts("usage: cyclock-demo\n"
		     "Shows the hosted clocks beside the kernel's, registers this machine's\n"
		     "counters as cyclock sources, prints the kernel-style summary line of\n"
		     "each, and follows one for 100 ms.");
		return 0;
	}
	hosted();
	show(&clk, &rtc);
	show(&clk, &timer);
	show(&clk, &raw64);
	info.version = CYCLOCK_STATE_VERSION;
	cyclock_get_state(&info);
	if (info.using_counter) {
		counter.name = info.counter;
		counter.rate_hz = (uint64_t)(info.hz + 0.5);
		show(&clk, &counter);
	}
	follow(&clk, "last source");
	return 0;
}
