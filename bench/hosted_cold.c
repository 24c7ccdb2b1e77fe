/* SPDX-License-Identifier: MIT */
/*
 * cyclock-bench-hosted: one read with cold caches, as a program that asks
 * the time now and then sees it (Peter Zijlstra's cache_cold_sched_clock()
 * in the sched_clock series, in user space).  Before each sample the
 * benchmark writes a buffer twice the size of the last-level cache, which
 * evicts the library's state, the vDSO's data page and both codes alike,
 * then times one call between two ordered counter reads.
 *
 * cyclock_now() and clock_gettime(CLOCK_MONOTONIC) take turns, so a noisy
 * stretch of the machine hurts both.  The bracket's own cost (the median of
 * empty brackets) is subtracted.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cyclock.h>

#include "hosted_bench.h"

#define DEFAULT_LLC (32u << 20) /* when sysfs does not say */
#define LINE 64

/* One line of a sysfs file, without its newline; 0 on success. */
static int read_line(const char *path, char *out, int len)
{
	FILE *f = fopen(path, "r");
	int ok = f && fgets(out, len, f);

	if (f)
		fclose(f);
	if (!ok)
		return -1;
	out[strcspn(out, "\n")] = '\0';
	return 0;
}

/* "32768K", "32M" or a plain number of bytes. */
static size_t parse_size(const char *s)
{
	char *end;
	unsigned long long n = strtoull(s, &end, 10);

	if (*end == 'K')
		n <<= 10;
	else if (*end == 'M')
		n <<= 20;
	else if (*end == 'G')
		n <<= 30;
	return (size_t)n;
}

/* The size of cpu0's highest-level data or unified cache. */
static size_t llc_bytes(void)
{
	size_t best = 0;
	int best_level = 0;

	for (int i = 0; i < 16; i++) {
		char path[80], level[16], type[32], size[32];
		const char *dir = "/sys/devices/system/cpu/cpu0/cache";

		snprintf(path, sizeof(path), "%s/index%d/level", dir, i);
		if (read_line(path, level, sizeof(level)))
			break;
		snprintf(path, sizeof(path), "%s/index%d/type", dir, i);
		if (read_line(path, type, sizeof(type)) || !strcmp(type, "Instruction"))
			continue;
		snprintf(path, sizeof(path), "%s/index%d/size", dir, i);
		if (atoi(level) > best_level && !read_line(path, size, sizeof(size))) {
			best_level = atoi(level);
			best = parse_size(size);
		}
	}
	return best ? best : DEFAULT_LLC;
}

/*
 * Plain stores, one a line: memset() may use non-temporal stores for a
 * buffer this large, which bypass the caches instead of filling them.  The
 * fence drains the store buffer, so the timed call does not wait behind
 * the flush's missing stores (a call pushes its return address).
 */
static void flush_caches(volatile unsigned char *buf, size_t len, unsigned char v)
{
	for (size_t i = 0; i < len; i += LINE)
		buf[i] = v;
	atomic_thread_fence(memory_order_seq_cst);
}

/* The bracket's cost with nothing inside, in counts: median of 1001. */
static uint64_t empty_bracket(void)
{
	uint64_t v[1001];

	for (int i = 0; i < 1001; i++) {
		uint64_t t0 = bench_fenced_counter();

		v[i] = bench_fenced_counter() - t0;
	}
	bench_sort_u64(v, 1001);
	return v[500];
}

/* The floor: a call that only reads the counter, so what remains is the
 * miss on its code line.  Its page is this file's, likely still mapped. */
__attribute__((noinline)) static uint64_t floor_read(void)
{
	return bench_lfence_counter();
}

/* One call of each reader, bracketed: counts minus the empty bracket. */
static uint64_t time_floor(uint64_t empty)
{
	uint64_t t0 = bench_fenced_counter(), t1;

	bench_sink = floor_read();
	t1 = bench_fenced_counter();
	return t1 - t0 > empty ? t1 - t0 - empty : 0;
}

static uint64_t time_now(uint64_t empty)
{
	uint64_t t0 = bench_fenced_counter(), t1;

	bench_sink = cyclock_now();
	t1 = bench_fenced_counter();
	return t1 - t0 > empty ? t1 - t0 - empty : 0;
}

static uint64_t time_kernel(uint64_t empty)
{
	uint64_t t0 = bench_fenced_counter(), t1;

	bench_sink = bench_kernel_ns(CLOCK_MONOTONIC);
	t1 = bench_fenced_counter();
	return t1 - t0 > empty ? t1 - t0 - empty : 0;
}

static void print_row(const char *name, uint64_t *v, long n, double ns_per_count)
{
	bench_sort_u64(v, n);
	printf("%-26s %10.1f %10.1f %10.1f %10.1f\n", name,
	       (double)bench_quantile(v, n, 0.5) * ns_per_count,
	       (double)bench_quantile(v, n, 0.9) * ns_per_count,
	       (double)bench_quantile(v, n, 0.1) * ns_per_count,
	       (double)v[n - 1] * ns_per_count);
}

/* @samples turns of each reader, a flush before every call.  v[0]:
 * cyclock_now(), v[1]: clock_gettime(), v[2]: the floor, v[3]: the
 * inline cyclock_now() (its code is the caller's: only its data is cold). */
static void take_samples(unsigned char *buf, size_t len, uint64_t *v[4], long samples,
			 uint64_t empty)
{
	memset(buf, 1, len); /* fault the pages in once, outside the samples */
	for (long i = 0; i < samples; i++) {
		flush_caches(buf, len, (unsigned char)i);
		v[0][i] = time_now(empty);
		flush_caches(buf, len, (unsigned char)(i + 1));
		v[1][i] = time_kernel(empty);
		flush_caches(buf, len, (unsigned char)(i + 2));
		v[2][i] = time_floor(empty);
		flush_caches(buf, len, (unsigned char)(i + 3));
		v[3][i] = inl_time_now(empty);
	}
}

static void print_report(uint64_t *v[4], long samples, size_t llc, double empty_ns,
			 double ns_per_count)
{
	double ratio;

	printf("\ncold call: before each, %zu MiB written (2x the %zu KiB last-level cache);"
	       " %ld samples each;\n" BENCH_FLOOR_ORDERED " bracket, its own %.1f ns subtracted\n",
	       2 * llc >> 20, llc >> 10, samples, empty_ns);
	printf("%-26s %10s %10s %10s %10s\n", "reader", "median ns", "p90 ns", "p10 ns",
	       "max ns");
	print_row("cyclock_now()", v[0], samples, ns_per_count);
	print_row("clock_gettime(MONOTONIC)", v[1], samples, ns_per_count);
	print_row(BENCH_FLOOR_ORDERED " (a call)", v[2], samples, ns_per_count);
	print_row("cyclock_now() inline", v[3], samples, ns_per_count);
	ratio = (double)bench_quantile(v[0], samples, 0.5) /
		(double)bench_quantile(v[1], samples, 0.5);
	printf("ratio of medians, cyclock_now() / clock_gettime(): %.3f  <= 0.35 %s\n", ratio,
	       ratio <= 0.35 ? "met" : "MISSED");
	printf("ratio of medians, cyclock_now() / the floor: %.3f;"
	       " the floor / clock_gettime(): %.3f\n",
	       (double)bench_quantile(v[0], samples, 0.5) /
		       (double)bench_quantile(v[2], samples, 0.5),
	       (double)bench_quantile(v[2], samples, 0.5) /
		       (double)bench_quantile(v[1], samples, 0.5));
	printf("ratio of medians, cyclock_now() inline / clock_gettime(): %.3f\n",
	       (double)bench_quantile(v[3], samples, 0.5) /
		       (double)bench_quantile(v[1], samples, 0.5));
}

void bench_cold_report(long samples, double tsc_hz)
{
	size_t llc = llc_bytes(), len = 2 * llc;
	unsigned char *buf = malloc(len);
	uint64_t *v[4];
	uint64_t empty = empty_bracket();
	int ok = buf != NULL;

	for (int i = 0; i < 4; i++) {
		v[i] = calloc((size_t)samples, sizeof(uint64_t));
		ok &= v[i] != NULL;
	}
	if (ok) {
		take_samples(buf, len, v, samples, empty);
		print_report(v, samples, llc, (double)empty * 1e9 / tsc_hz, 1e9 / tsc_hz);
	} else {
		printf("\ncold call: skipped (no memory for the %zu MiB buffer)\n", len >> 20);
	}
	free(buf);
	for (int i = 0; i < 4; i++)
		free(v[i]);
}
