/* SPDX-License-Identifier: MIT */
/*
 * cyclock-bench-hosted: what the hosted clocks cost and how well they
 * follow the kernel's, as ratios against floors measured in the same run
 * (these machines are shared and noisy, so only ratios travel).
 *
 * Speed: each figure is the best of several timed loops of back-to-back
 * calls (throughput, warm caches).  The rounds interleave every reader, so
 * a noisy moment hurts a reader and its floor alike.  The compiled
 * functions are compared with floors that are also one call each (a
 * noinline lfence;rdtsc), and with clock_gettime(), which is one call too;
 * the CYCLOCK_INLINE readers with floors inlined into the same kind of loop.
 *
 * The scenarios, in the order they run: the library's first call and the
 * accuracy run (first, so that they see the library from its start), the
 * warm speed table, two threads at once, and last the coarse
 * clock, whose first call starts a ticker thread that would otherwise wake
 * up during every other measurement.
 *
 * Usage: cyclock-bench-hosted [--calls N] [--accuracy SECONDS]
 *                             [--quick]
 * The cold cost is the cyclock tool's: "cyclock bench cold".
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cyclock.h>
#include <cyclock/timeline.h>

#include "hosted_bench.h"

/* Defined whatever the architecture: the other files reference it. */
volatile uint64_t bench_sink;

#if CYCLOCK_ARCH_HAS_COUNTER

struct options {
	long calls;        /* reads per timed loop */
	int reps;          /* timed loops per figure; the best counts */
	double accuracy_s; /* 0: skip the accuracy run */
};

/* The out-of-line floors: one call, like a call into the library. */
__attribute__((noinline)) static uint64_t call_rdtsc(void)
{
	return cyclock_arch_counter();
}

__attribute__((noinline)) static uint64_t call_lfence_rdtsc(void)
{
	return bench_lfence_counter();
}

__attribute__((noinline)) static uint64_t call_ordered(void)
{
	return cyclock_arch_counter_ordered();
}

static BENCH_LOOP(loop_rdtsc, call_rdtsc())
static BENCH_LOOP(loop_lfence, call_lfence_rdtsc())
static BENCH_LOOP(loop_ordered, call_ordered())
static BENCH_LOOP(loop_k_mono, bench_kernel_ns(CLOCK_MONOTONIC))
static BENCH_LOOP(loop_k_raw, bench_kernel_ns(CLOCK_MONOTONIC_RAW))
static BENCH_LOOP(loop_k_real, bench_kernel_ns(CLOCK_REALTIME))
static BENCH_LOOP(loop_k_boot, bench_kernel_ns(CLOCK_BOOTTIME))
static BENCH_LOOP(loop_k_coarse, bench_kernel_ns(CLOCK_MONOTONIC_COARSE))
static BENCH_LOOP(loop_now, cyclock_now())
static BENCH_LOOP(loop_relaxed, cyclock_now_relaxed())
static BENCH_LOOP(loop_raw, cyclock_raw())
static BENCH_LOOP(loop_realtime, cyclock_realtime())
static BENCH_LOOP(loop_boottime, cyclock_boottime())
static BENCH_LOOP(loop_local, cyclock_local())
static BENCH_LOOP(loop_cycles, cyclock_cycles())
static BENCH_LOOP(loop_coarse, cyclock_coarse())

/* Every reader timed.  The coarse ones come last: see the top. */
enum reader {
	F_RDTSC, F_LFENCE, F_ORDERED, K_MONO, K_RAW, K_REAL, K_BOOT,
	C_NOW, C_RELAXED, C_RAW, C_REAL, C_BOOT, C_LOCAL, C_CYCLES,
	I_RDTSC, I_LFENCE, I_ORDERED, I_NOW, I_RELAXED, I_RAW, I_REAL, I_BOOT, I_LOCAL,
	N_WARM,
	K_COARSE = N_WARM, C_COARSE, I_COARSE,
	N_READERS
};

static struct reader_entry {
	const char *name;
	bench_loop_fn *loop;
	double ns;
} readers[N_READERS] = {
	[F_RDTSC] = { BENCH_FLOOR " (a call)", loop_rdtsc, 0 },
	[F_LFENCE] = { BENCH_FLOOR_ORDERED " (a call)", loop_lfence, 0 },
	[F_ORDERED] = { BENCH_FLOOR_LIB " (a call)", loop_ordered, 0 },
	[K_MONO] = { "clock_gettime(MONOTONIC)", loop_k_mono, 0 },
	[K_RAW] = { "clock_gettime(MONOTONIC_RAW)", loop_k_raw, 0 },
	[K_REAL] = { "clock_gettime(REALTIME)", loop_k_real, 0 },
	[K_BOOT] = { "clock_gettime(BOOTTIME)", loop_k_boot, 0 },
	[C_NOW] = { "cyclock_now()", loop_now, 0 },
	[C_RELAXED] = { "cyclock_now_relaxed()", loop_relaxed, 0 },
	[C_RAW] = { "cyclock_raw()", loop_raw, 0 },
	[C_REAL] = { "cyclock_realtime()", loop_realtime, 0 },
	[C_BOOT] = { "cyclock_boottime()", loop_boottime, 0 },
	[C_LOCAL] = { "cyclock_local()", loop_local, 0 },
	[C_CYCLES] = { "cyclock_cycles()", loop_cycles, 0 },
	[I_RDTSC] = { BENCH_FLOOR " (inline)", inl_loop_rdtsc, 0 },
	[I_LFENCE] = { BENCH_FLOOR_ORDERED " (inline)", inl_loop_lfence, 0 },
	[I_ORDERED] = { BENCH_FLOOR_LIB " (inline)", inl_loop_ordered, 0 },
	[I_NOW] = { "cyclock_now() inline", inl_loop_now, 0 },
	[I_RELAXED] = { "cyclock_now_relaxed() inline", inl_loop_relaxed, 0 },
	[I_RAW] = { "cyclock_raw() inline", inl_loop_raw, 0 },
	[I_REAL] = { "cyclock_realtime() inline", inl_loop_realtime, 0 },
	[I_BOOT] = { "cyclock_boottime() inline", inl_loop_boottime, 0 },
	[I_LOCAL] = { "cyclock_local() inline", inl_loop_local, 0 },
	[K_COARSE] = { "clock_gettime(MONOTONIC_COARSE)", loop_k_coarse, 0 },
	[C_COARSE] = { "cyclock_coarse()", loop_coarse, 0 },
	[I_COARSE] = { "cyclock_coarse() inline", inl_loop_coarse, 0 },
};

/* One line of the table: @subject against @ref; target 0: informational. */
struct comparison {
	enum reader subject, ref;
	double target;
};

static const struct comparison warm_rows[] = {
	{ C_NOW, F_LFENCE, 1.05 },    { C_NOW, F_ORDERED, 0 },
	{ C_NOW, K_MONO, 0.85 },
	{ C_RELAXED, F_RDTSC, 1.05 }, { C_RELAXED, K_MONO, 0.45 },
	{ C_RAW, K_RAW, 0 },          { C_REAL, K_REAL, 0 },
	{ C_BOOT, K_BOOT, 0 },        { C_LOCAL, F_RDTSC, 0 },
	{ C_CYCLES, F_RDTSC, 0 },     { I_NOW, I_LFENCE, 1.05 },
	{ I_NOW, I_ORDERED, 0 },
	{ I_NOW, K_MONO, 0.85 },      { I_RELAXED, I_RDTSC, 1.05 },
	{ I_RELAXED, K_MONO, 0.45 },  { I_RAW, K_RAW, 0 },
	{ I_REAL, K_REAL, 0 },        { I_BOOT, K_BOOT, 0 },
	{ I_LOCAL, I_RDTSC, 0 },
};

static const struct comparison coarse_rows[] = {
	{ C_COARSE, K_COARSE, 0.40 },
	{ I_COARSE, K_COARSE, 0.40 },
};

/* Times readers [from, to): a warm-up loop each, then @reps rounds of one
 * loop each, keeping each reader's best. */
static void run_readers(int from, int to, const struct options *opt)
{
	for (int r = from; r < to; r++) {
		readers[r].loop(opt->calls / 10 + 1);
		readers[r].ns = 1e30;
	}
	for (int rep = 0; rep < opt->reps; rep++) {
		for (int r = from; r < to; r++) {
			double ns = readers[r].loop(opt->calls);

			if (ns < readers[r].ns)
				readers[r].ns = ns;
		}
	}
}

static void print_rows(const struct comparison *rows, size_t n)
{
	printf("%-30s %8s  %-31s %8s %6s  %s\n", "reader", "ns/call", "against", "ns/call",
	       "ratio", "target");
	for (size_t i = 0; i < n; i++) {
		const struct reader_entry *s = &readers[rows[i].subject];
		const struct reader_entry *f = &readers[rows[i].ref];
		double ratio = s->ns / f->ns;

		printf("%-30s %8.2f  %-31s %8.2f %6.3f", s->name, s->ns, f->name, f->ns, ratio);
		if (rows[i].target > 0)
			printf("  <= %.2f %s", rows[i].target,
			       ratio <= rows[i].target ? "met" : "MISSED");
		putchar('\n');
	}
}

/* Statistics shared by the scenarios. */
static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

void bench_sort_u64(uint64_t *v, long n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_u64);
}

uint64_t bench_quantile(const uint64_t *v, long n, double p)
{
	long rank = (long)(p * (double)n + 0.999999);

	if (n <= 0)
		return 0;
	rank = rank < 1 ? 1 : rank > n ? n : rank;
	return v[rank - 1];
}

/* Over 50 ms; the pairs are read back to back, so the error is about a
 * microsecond in 50 ms: 20 ppm, plenty for converting short intervals. */
double bench_tsc_hz(void)
{
	struct timespec pause = { 0, 50000000 };
	uint64_t t0 = bench_ns(), c0 = cyclock_arch_counter_ordered(), t1, c1;

	nanosleep(&pause, NULL);
	t1 = bench_ns();
	c1 = cyclock_arch_counter_ordered();
	return (double)(c1 - c0) * 1e9 / (double)(t1 - t0);
}

/* The 1-minute load average: a busy machine explains a noisy run. */
static double load_average(void)
{
	FILE *f = fopen("/proc/loadavg", "r");
	double load = -1;

	if (f) {
		if (fscanf(f, "%lf", &load) != 1)
			load = -1;
		fclose(f);
	}
	return load;
}

static void print_info(double tsc_hz, double load_before)
{
	struct cyclock__info in;

	cyclock__get_info(&in);
	if (in.using_counter == CYCLOCK_USING_COUNTER)
		printf("\nlibrary after the run: reading the counter (%s)\n", in.counter);
	else
		printf("\nlibrary after the run: the kernel's clocks (%s)\n", in.why);
	printf("  frequency %.0f Hz +-%.3g ppm (first estimate %.0f Hz, %s);"
	       " this program measured %.0f Hz (%+.1f ppm, +-20 ppm)\n",
	       in.hz, in.hz_ppm, in.hz_hint, in.hz_source, tsc_hz,
	       in.hz > 0 ? (tsc_hz - in.hz) / in.hz * 1e6 : 0.0);
	printf("  mult %" PRIu32 " shift %" PRIu32 " raw_mult %" PRIu32 "; refreshes %" PRIu64
	       ", anomalies %" PRIu64 "\n",
	       in.mult, in.shift, in.raw_mult, in.refreshes, in.anomalies);
	printf("  interval %.3f ms (ceiling %.3f ms); last error now %+" PRId64 " ns, raw %+" PRId64
	       " ns; %" PRIu64 " spells on the kernel's clock\n",
	       (double)in.interval_ns / 1e6, (double)in.max_interval_ns / 1e6, in.last_err_ns,
	       in.raw_last_err_ns, in.kernel_spells);
	printf("  init %.1f us, warp check's largest backward step %" PRId64 " counts%s\n",
	       (double)in.init_ns / 1e3, in.warp_cyc, in.local_percpu ? ", local per CPU" : "");
	printf("load average (1 min): %.2f at the start, %.2f at the end\n", load_before,
	       load_average());
}

static int usage(FILE *to, int status)
{
	fprintf(to, "usage: cyclock-bench-hosted [--calls N] [--accuracy SECONDS]"
		    " [--quick]\n"
		    "  --calls N          reads per timed loop (default 1000000; --quick 100000)\n"
		    "  --accuracy SECONDS compare with the kernel's clocks for that long,\n"
		    "                     from the library's first call (default 0: skip)\n"
		    "  --quick            fewer and shorter loops\n");
	return status;
}

/* Parses argv into @opt; returns -1 to go on, else the exit status. */
static int parse_args(int argc, char **argv, struct options *opt)
{
	long calls = -1;
	int quick = 0;
	char *end = NULL;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "--help") || !strcmp(a, "-h"))
			return usage(stdout, 0);
		if (!strcmp(a, "--quick")) {
			quick = 1;
			continue;
		}
		if (!val)
			return usage(stderr, 2);
		if (!strcmp(a, "--calls"))
			calls = strtol(val, &end, 10);
		else if (!strcmp(a, "--accuracy"))
			opt->accuracy_s = strtod(val, &end);
		else
			return usage(stderr, 2);
		if (*end || end == val || !calls || calls < -1 ||
		    !(opt->accuracy_s >= 0))
			return usage(stderr, 2);
		i++;
	}
	opt->calls = calls > 0 ? calls : quick ? 100000 : 1000000;
	opt->reps = quick ? 3 : 7;
	return -1;
}

int main(int argc, char **argv)
{
	struct options opt = { 0 };
	struct bench_first first;
	int status = parse_args(argc, argv, &opt);
	double tsc_hz, load = load_average();

	if (status >= 0)
		return status;
	/* Before anything else touches the library: its first call. */
	bench_first_call(&first);
	printf("cyclock-bench-hosted: %s\n", cyclock_describe());
	printf("first call: %.1f us (cyclock_now(), bracketed by clock_gettime)\n",
	       (double)(first.k2 - first.k1) / 1e3);
	if (opt.accuracy_s > 0 && bench_accuracy(&first, opt.accuracy_s) != 0)
		return 1;
	tsc_hz = bench_tsc_hz();
	run_readers(0, N_WARM, &opt);
	printf("\nwarm, ns per call: best of %d loops of %ld back-to-back calls\n", opt.reps,
	       opt.calls);
	print_rows(warm_rows, sizeof(warm_rows) / sizeof(warm_rows[0]));
	bench_threads_report(loop_now, loop_lfence, opt.calls, opt.reps);
	run_readers(N_WARM, N_READERS, &opt);
	printf("\ncoarse, measured last (its first call starts the ticker thread)\n");
	print_rows(coarse_rows, sizeof(coarse_rows) / sizeof(coarse_rows[0]));
	print_info(tsc_hz, load);
	return 0;
}

#else

int main(void)
{
	puts("cyclock-bench-hosted: no counter on this architecture");
	return 0;
}

#endif
