/* SPDX-License-Identifier: MIT */
/*
 * The result model: what one run of the tool produced, whoever made it.
 * The scenarios fill it as they measure, the JSON reader (json/) fills it
 * from a file, and the reporters (report/) and the commands that compare
 * or plot runs only read it.  Every figure is a struct bench_result: a
 * name in Google Benchmark's style (SCENARIO/CLOCK[/VARIANT][/threads:N]),
 * one primary figure in nanoseconds sampled once per repetition (lower is
 * better unless said otherwise), its statistics, and named extra figures;
 * a struct bench_run holds them with the machine they were measured on.
 */
#ifndef CYCLOCK_BENCH_RESULTS_H
#define CYCLOCK_BENCH_RESULTS_H

#include <stdbool.h>
#include <stddef.h>

/* ---- statistics of a result's samples (stats.c) ---- */

struct bench_stats {
	size_t n;
	double min, median, mean, p90, p99, max, stddev;
	double spread; /* (p90 - min) / median: how much the repetitions disagree */
};

/* Statistics of @v[0..n) (sorts @v in place); n may be 0 (all zero). */
void bench_stats_of(double *v, size_t n, struct bench_stats *st);
/* The nearest-rank @p quantile (0 < p <= 1) of sorted @v. */
double bench_quantile(const double *v, size_t n, double p);
void bench_sort(double *v, size_t n);

/* ---- the machine a run was measured on (context.c) ---- */

struct bench_cache {
	int level;         /* 1, 2, 3 */
	char type[16];     /* "Data", "Instruction", "Unified" (Google Benchmark's words) */
	long size;         /* bytes */
	int num_sharing;   /* logical CPUs sharing it */
};

struct bench_context {
	char date[40];          /* ISO 8601 with offset */
	char host_name[64];
	char executable[256];
	int num_cpus;           /* online */
	int allowed_cpus;       /* this process may run on */
	double mhz_per_cpu;
	bool cpu_scaling_enabled;
	double load_avg[3];
	struct bench_cache caches[8];
	int n_caches;
	char cpu_model[96];
	char arch[16];          /* uname -m */
	char kernel[128];       /* uname -sr and version */
	char clocksource[32];   /* current_clocksource */
	char clocksources[128]; /* available_clocksource */
	char virtualization[64];/* "kvm", "none", ... */
	char governor[32];      /* cpufreq governor or "none" */
	char version[16];       /* cyclock's */
	char build_type[24];    /* CMAKE_BUILD_TYPE */
	char counter[16];       /* cyclock's counter: "tsc", "none" */
	double counter_hz;
	char floor[32];         /* the clock x_floor is vs: "ordered_ns"; "" where none is
				 * (and in files from before it was recorded) */
	char ordered[32];       /* the ordered read it uses: "rdtscp", "lfence;rdtsc" */
	char describe[512];     /* cyclock_describe() */
};

/* Fills @ctx from this machine; @argv0 is the executable. */
void bench_context_fill(struct bench_context *ctx, const char *argv0);
/* The last-level cache's size in bytes (8 MiB when unknown). */
long bench_llc_bytes(const struct bench_context *ctx);
/* The size of the largest data or unified cache below the last level
 * (the L2, mostly), in bytes; 0 when unknown. */
long bench_mid_cache_bytes(const struct bench_context *ctx);

/* ---- the results of one run (results.c) ---- */

#define BENCH_MAX_EXTRA 12

struct bench_extra {
	char key[32];
	double value;
};

struct bench_result {
	char name[112];      /* SCENARIO/CLOCK[/VARIANT][/threads:N] */
	char scenario[16];
	char clock[32];      /* "" when the figure is not one clock's */
	char variant[40];    /* "throughput", "latency", "same_cpu", "idle_threads:64", or "" */
	int threads;         /* threads measuring at once; 0 when not meaningful */
	long iterations;     /* operations per sample */
	double *samples;     /* the primary figure per repetition, ns (owned) */
	size_t n_samples;
	struct bench_stats st;
	bool noisy;          /* st.spread above the scenario's limit */
	bool higher_is_better;
	struct bench_extra extra[BENCH_MAX_EXTRA];
	size_t n_extra;
	char note[96];       /* a short remark for the table ("0 backward") */
};

struct bench_run {
	struct bench_context ctx;
	struct bench_result *v;
	size_t n, cap;
};

void bench_run_init(struct bench_run *run);
void bench_run_free(struct bench_run *run);
/*
 * Adds a result named from its parts (any of @clock, @variant may be NULL
 * or ""; @threads 0 leaves out "/threads:N") with @n samples of its primary
 * figure in ns, copied.  @noise_limit: st.spread above it marks the result
 * noisy (0: never).  Returns the result, for extras, or NULL when out of
 * memory (after printing why).
 */
struct bench_result *bench_run_add(struct bench_run *run, const char *scenario,
				   const char *clock, const char *variant, int threads,
				   long iterations, const double *samples, size_t n,
				   double noise_limit);
/* The same, silent when out of memory: for the JSON reader, whose error
 * is one line of its own. */
struct bench_result *bench__run_add_quiet(struct bench_run *run, const char *scenario,
					  const char *clock, const char *variant, int threads,
					  long iterations, const double *samples, size_t n,
					  double noise_limit);
/* Sets extra figure @key of @r (replacing one of the same key). */
void bench_result_extra(struct bench_result *r, const char *key, double value);
/* Extra figure @key of @r, or NAN. */
double bench_result_get(const struct bench_result *r, const char *key);
/* The result called @name, or NULL. */
const struct bench_result *bench_run_find(const struct bench_run *run, const char *name);
/* Adds the ratios "x_floor" (to ordered_ns, the ordered counter read in
 * ns) and "x_monotonic" (to the vDSO's CLOCK_MONOTONIC) to every result
 * whose scenario, variant and threads have those rows too. */
void bench_run_ratios(struct bench_run *run);

#endif /* CYCLOCK_BENCH_RESULTS_H */
