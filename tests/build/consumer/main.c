/*
 * A user of the installed library: registers a counter that this program
 * bumps by hand, reads the clock and prints the kernel-style summary.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime() under -std=c11 */
#include <cyclock.h>

#include <stdio.h>
#include <time.h>

static uint64_t counter;

static uint64_t read_counter(const struct cyclock_source *src)
{
	(void)src;
	return counter;
}

static const struct cyclock_source source = {
	.name = "consumer",
	.read = read_counter,
	.rate_hz = 1000000000,
	.bits = 32,
	.rating = 1,
};

/* The hosted clocks: cyclock_now() within a second of CLOCK_MONOTONIC. */
static int hosted(void)
{
	struct timespec ts;
	uint64_t now = cyclock_now(), k;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	k = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	if (now > k || k - now > 1000000000u) {
		fprintf(stderr, "consumer: cyclock_now() %llu, CLOCK_MONOTONIC %llu\n",
			(unsigned long long)now, (unsigned long long)k);
		return 1;
	}
	printf("consumer: %s\n", cyclock_describe());
	return 0;
}

int main(void)
{
	static struct cyclock clk;
	char line[128];

	if (cyclock_register(&clk, &source) != 0) {
		fprintf(stderr, "consumer: cyclock_register failed\n");
		return 1;
	}
	counter += 250;
	uint64_t a = cyclock_read(&clk);
	counter += 250;
	cyclock_update(&clk);
	uint64_t b = cyclock_read(&clk);
	if (b < a || b == 0) {
		fprintf(stderr, "consumer: clock went from %llu to %llu ns\n",
			(unsigned long long)a, (unsigned long long)b);
		return 1;
	}
	cyclock_format_summary(&clk, line, sizeof line);
	printf("consumer: %s; read %llu ns\n", line, (unsigned long long)b);
	return hosted();
}
