/* SPDX-License-Identifier: MIT */
/*
 * preload_cost_calls: what a call costs with the preload against libc's own
 * (the vDSO), measured in the same run.  Run it under the preload:
 *
 *     LD_PRELOAD=libcyclock-preload.so preload_cost_calls [ROUNDS]
 *
 * For each served clock it times five functions of clock_gettime()'s
 * shape, called through a pointer as a program calls through its PLT, in
 * interleaved rounds of 2 million calls (ROUNDS, default 15), then
 * gettimeofday() and time() (libc's and the program's, without a floor):
 *   libc     libc's clock_gettime(), found with dlopen(RTLD_NOLOAD): the vDSO
 *   preload  the clock_gettime() the program gets: the preload's
 *   rdtscp, lfence;rdtsc  floors: an ordered counter read stored into the
 *            timespec, nothing else (x86-64; elsewhere the one ordered
 *            read): the cheaper is the least any clock_gettime() with
 *            ordered reads can cost here, the floor of the default preload
 *   rdtsc    the unordered read stored: the floor of the relaxed preload
 *            (CYCLOCK_PRELOAD_RELAXED=1)
 * The caller adds up tv_nsec, as a program uses what it reads; an ordered
 * read waits for that too.  Prints the median and best ns per call and
 * the ratios of medians to libc's.  Then how far each clock lies outside libc's
 * readings taken just before and after it.  Not a test: it asserts nothing.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/time.h>
#include <time.h>

#include "cyclock/arch.h"
#include "kclock.h"

#define CALLS 2000000
#define MAX_ROUNDS 101
#define NVARIANTS 5

typedef int gettime_fn(clockid_t id, struct timespec *ts);

static inline int store_counter(uint64_t cyc, struct timespec *ts)
{
	ts->tv_sec = (time_t)(cyc >> 32);
	ts->tv_nsec = (long)(cyc & 0xffffffff);
	return 0;
}

/* The floors: ordered read 0 and (x86-64) 1, and the unordered read. */
static __attribute__((noinline)) int floor0_gettime(clockid_t id, struct timespec *ts)
{
	(void)id;
	return store_counter(cyclock_arch_counter_ordered_how(0), ts);
}

static __attribute__((noinline)) int floor1_gettime(clockid_t id, struct timespec *ts)
{
	(void)id;
	return store_counter(cyclock_arch_counter_ordered_how(1), ts);
}

static __attribute__((noinline)) int plain_gettime(clockid_t id, struct timespec *ts)
{
	(void)id;
	return store_counter(cyclock_arch_counter(), ts);
}

/* gettimeofday() and time(), libc's and the program's, in clock_gettime()'s shape. */
typedef int gettimeofday_fn(struct timeval *tv, void *tz);
typedef time_t time_fn(time_t *t);
static gettimeofday_fn *libc_gettimeofday;
static time_fn *libc_time;

static int libc_time_ts(clockid_t id, struct timespec *ts)
{
	(void)id;
	ts->tv_nsec = libc_time(NULL);
	return 0;
}

static int preload_time_ts(clockid_t id, struct timespec *ts)
{
	(void)id;
	ts->tv_nsec = time(NULL);
	return 0;
}

static int libc_gtod(clockid_t id, struct timespec *ts)
{
	struct timeval tv;
	int rc = libc_gettimeofday(&tv, NULL);

	(void)id;
	ts->tv_nsec = tv.tv_usec;
	return rc;
}

static int preload_gtod(clockid_t id, struct timespec *ts)
{
	struct timeval tv;
	int rc = gettimeofday(&tv, NULL);

	(void)id;
	ts->tv_nsec = tv.tv_usec;
	return rc;
}

static uint64_t mono_raw_ns(void)
{
	return kclock_ns(CLOCK_MONOTONIC_RAW);
}

static uint64_t sink;

static double ns_per_call(gettime_fn *volatile *fnp, clockid_t id)
{
	gettime_fn *fn = *fnp;
	struct timespec ts;
	uint64_t sum = 0, t0 = mono_raw_ns();

	for (int i = 0; i < CALLS; i++) {
		fn(id, &ts);
		sum += (uint64_t)ts.tv_nsec;
	}
	sink += sum;
	return (double)(mono_raw_ns() - t0) / CALLS;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

struct variant {
	const char *name;
	gettime_fn *volatile fn;
	double ns[MAX_ROUNDS];
	double median;
};

/* @nv variants interleaved; a line of medians and bests, then the
 * ratios of medians to the first's (libc's). */
static void measure(const char *clock, clockid_t id, struct variant *v, int nv, int rounds)
{
	for (int r = 0; r < rounds; r++)
		for (int i = 0; i < nv; i++)
			v[(i + r) % nv].ns[r] = ns_per_call(&v[(i + r) % nv].fn, id);
	printf("%-16s", clock);
	for (int i = 0; i < nv; i++) {
		qsort(v[i].ns, (size_t)rounds, sizeof(double), cmp_double);
		v[i].median = v[i].ns[rounds / 2];
		printf(" %7.2f %5.2f", v[i].median, v[i].ns[0]);
	}
	printf("%*s ", (NVARIANTS - nv) * 14, "");
	for (int i = 1; i < nv; i++)
		printf(" %6.3f", v[i].median / v[0].median);
	printf("\n");
}

static int64_t sts_ns(const struct timespec *ts)
{
	return (int64_t)ts_ns(ts);
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/*
 * How far the program's clock @id lies from libc's, each reading taken
 * between two of libc's, over AGREE samples: the reading less the middle
 * of the two (p0.1, p50, p99.9: a preempted sample's middle means little),
 * and how far it lay outside them (0 inside: p99.9, max).
 */
#define AGREE 1000000
static void agreement(const char *clock, clockid_t id, gettime_fn *libc_fn)
{
	static int64_t off[AGREE], out[AGREE];
	struct timespec a, r, b;

	for (int i = 0; i < AGREE; i++) {
		libc_fn(id, &a);
		clock_gettime(id, &r);
		libc_fn(id, &b);
		off[i] = sts_ns(&r) - (sts_ns(&a) + sts_ns(&b)) / 2;
		out[i] = sts_ns(&a) - sts_ns(&r) > sts_ns(&r) - sts_ns(&b) ? sts_ns(&a) - sts_ns(&r)
									: sts_ns(&r) - sts_ns(&b);
		if (out[i] < 0)
			out[i] = 0;
	}
	qsort(off, AGREE, sizeof(off[0]), cmp_i64);
	qsort(out, AGREE, sizeof(out[0]), cmp_i64);
	printf("%-16s %8lld %8lld %8lld %10lld %8lld\n", clock, (long long)off[AGREE / 1000],
	       (long long)off[AGREE / 2], (long long)off[AGREE - AGREE / 1000],
	       (long long)out[AGREE - AGREE / 1000], (long long)out[AGREE - 1]);
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		clockid_t id;
	} clocks[] = {
		{ "MONOTONIC", CLOCK_MONOTONIC },
		{ "REALTIME", CLOCK_REALTIME },
		{ "MONOTONIC_RAW", CLOCK_MONOTONIC_RAW },
		{ "BOOTTIME", CLOCK_BOOTTIME },
		{ "MONOTONIC_COARSE", CLOCK_MONOTONIC_COARSE },
		{ "REALTIME_COARSE", CLOCK_REALTIME_COARSE },
	};
	int rounds = argc > 1 ? atoi(argv[1]) : 15;
	void *libc = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
	gettime_fn *libc_fn = libc ? (gettime_fn *)dlsym(libc, "clock_gettime") : NULL;
	const unsigned int *active = (const unsigned int *)dlsym(RTLD_DEFAULT,
								 "cyclock_preload_active");
	struct variant v[NVARIANTS] = {
		{ .name = "libc", .fn = libc_fn },
		{ .name = "preload", .fn = clock_gettime },
		{ .name = cyclock_arch_ordered_name(0), .fn = floor0_gettime },
		{ .name = cyclock_arch_ordered_name(1), .fn = floor1_gettime },
		{ .name = "rdtsc", .fn = plain_gettime },
	};
	int nfloor = CYCLOCK_ARCH_ORDERED_HOWS > 2 ? NVARIANTS : NVARIANTS - 1;

	if (!libc_fn || rounds < 1 || rounds > MAX_ROUNDS) {
		fprintf(stderr, "usage: preload_cost_calls [ROUNDS 1..%d] (libc.so.6 %s)\n", MAX_ROUNDS,
			libc_fn ? "found" : "not found");
		return 2;
	}
	if (nfloor < NVARIANTS) /* one ordered read: no second floor */
		v[3] = v[4];
	printf("preload: %s%s; ns per call, median and best of %d rounds of %d calls\n",
	       !active ? "not loaded" : *active ? "serving" : "passing through",
	       active && (*active & (1u << 31)) ? ", relaxed" : "", rounds, CALLS);
	printf("%-16s", "clock");
	for (int i = 0; i < nfloor; i++)
		printf(" %13.13s", v[i].name);
	printf("%*s ", (NVARIANTS - nfloor) * 14, "");
	for (int i = 1; i < nfloor; i++)
		printf(" %6.6s", v[i].name);
	printf("  (x libc)\n");
	for (size_t c = 0; c < sizeof(clocks) / sizeof(clocks[0]); c++)
		measure(clocks[c].name, clocks[c].id, v, nfloor, rounds);
	libc_gettimeofday = (gettimeofday_fn *)dlsym(libc, "gettimeofday");
	if (libc_gettimeofday) {
		v[0].fn = libc_gtod;
		v[1].fn = preload_gtod;
		measure("gettimeofday", CLOCK_REALTIME, v, 2, rounds);
	}
	libc_time = (time_fn *)dlsym(libc, "time");
	if (libc_time) {
		v[0].fn = libc_time_ts;
		v[1].fn = preload_time_ts;
		measure("time", CLOCK_REALTIME_COARSE, v, 2, rounds);
	}
	printf("\nagreement with libc's readings on either side, ns, %d samples\n", AGREE);
	printf("%-16s %8s %8s %8s %10s %8s\n", "clock", "off p0.1", "p50", "p99.9",
	       "out p99.9", "max");
	for (size_t c = 0; c < sizeof(clocks) / sizeof(clocks[0]); c++)
		agreement(clocks[c].name, clocks[c].id, libc_fn);
	return sink == 42;
}
