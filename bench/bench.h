/* SPDX-License-Identifier: MIT */
/*
 * The cyclock tool's measuring side, the static library cyclock_benchlib
 * (bench/CMakeLists.txt): the clocks it can time (clocks/), the scenarios
 * (scenarios/, one file each, registered in scenario.c; runtime.c holds
 * what they share), statistics (stats.c), the machine's context (context.c), the
 * result model (results.h), the reporters (report/) and the JSON reader
 * (json/).  tools/cyclock/ parses command lines and calls in here;
 * nothing in here parses a command line.
 */
#ifndef CYCLOCK_BENCH_H
#define CYCLOCK_BENCH_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "results.h"

struct cyclock;

/* ---- error.c: how bench/ says what went wrong ---- */

/* Says one line, @fmt without a newline and without a program name,
 * through the function set by bench_set_error() (the tool's prefixes
 * "cyclock: "), else to stderr as it is.  Every error of bench/ that is
 * not returned to the caller goes through here. */
void bench_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
typedef void bench_error_fn(const char *fmt, va_list ap);
/* The program's way to say bench_error()'s lines; NULL: stderr as it is. */
void bench_set_error(bench_error_fn *fn);

/* ---- clocks/: every clock the tool can time ---- */

enum bench_group {
	BENCH_GROUP_CYCLOCK, /* cyclock_now() and family */
	BENCH_GROUP_FLOOR,   /* the bare counter reads, and the ordered one in ns: what
			      * nothing can beat */
	BENCH_GROUP_KERNEL,  /* clock_gettime() and the other libc/kernel clocks */
	BENCH_GROUP_ENGINE,  /* the engine's cyclock_read() on a struct cyclock of the tool's */
};

#define BENCH_CLOCK_ORDERED 0x01    /* promises monotonic readings across CPUs */
#define BENCH_CLOCK_TICKS 0x02      /* read() returns counter ticks, not ns */
#define BENCH_CLOCK_CPUTIME 0x04    /* CPU time, which stands still while idle */
#define BENCH_CLOCK_PER_THREAD 0x08 /* a reading means nothing on another thread */
#define BENCH_CLOCK_SYSCALL 0x10    /* a real system call every time */
#define BENCH_CLOCK_WALL 0x20       /* may be stepped by settimeofday/NTP */
#define BENCH_CLOCK_COARSE 0x40     /* cyclock's coarse clock: steps once a ticker period,
				     * and its first call starts the ticker */

/* One timed loop of @calls reads; returns ns per call. */
typedef double bench_loop_fn(long calls);

struct bench_clock {
	const char *name;     /* as on the command line: "cyclock_now", "rdtsc", "monotonic" */
	enum bench_group group;
	unsigned int flags;   /* BENCH_CLOCK_* */
	const char *follows;  /* cyclock's: the name of the kernel clock it follows; else NULL */
	const char *what;     /* one line for --help and docs */
	uint64_t (*read)(void);   /* one reading, in ns (or ticks with BENCH_CLOCK_TICKS) */
	bench_loop_fn *throughput; /* back-to-back reads, each independent of the last */
	bench_loop_fn *latency;    /* each read starts after the previous one completed */
	clockid_t kernel_id;       /* a clock_gettime() clock's id (for clock_getres()), else -1 */
};

/* Every clock this build knows, in display order; *@n is set. */
const struct bench_clock *bench_clocks(size_t *n);
/* The clock called @name, or NULL. */
const struct bench_clock *bench_clock_find(const char *name);
/* Whether @c works on this machine now (a floor needs its instruction; a
 * kernel clock must not fail). */
bool bench_clock_available(const struct bench_clock *c);
/* clocks/counter_hz.c: counter ticks per second (cyclock's estimate, or measured when cyclock
 * fell back to the kernel); 0 when there is no counter. */
double bench_counter_hz(void);
/* @delta readings of @c in ns. */
double bench_clock_ns(const struct bench_clock *c, double delta);
/* The floors a result is compared with: the ordered counter read turned
 * into ns, "ordered_ns" (NULL where there is no counter), and the vDSO's
 * CLOCK_MONOTONIC, "monotonic". */
const char *bench_floor_ordered(void);
const char *bench_floor_plain(void);
/* clocks/preload.c: libcyclock-preload.so's path into @buf (PATH_MAX
 * bytes at least), found beside the tool (installed, copied, or in the
 * build tree), else bench_preload_installed where it exists, else NULL;
 * *@how says which.  "cyclock run" preloads it; preload_monotonic times it. */
const char *bench_preload_path(char *buf, size_t len, const char **how);
extern const char bench_preload_installed[];
/* Whether the preload is loaded into this process (preload_monotonic),
 * loading it the first time. */
bool bench_preload_available(void);
/* The ordered read ordered_ns uses, the one cyclock chose ("rdtscp",
 * "lfence;rdtsc", "isb; mrs cntvct_el0"), or NULL where there is no
 * counter.  Initialises the library (cyclock_get_state()). */
const char *bench_floor_read(void);

/* The engine clocks' struct cyclock (clocks/engine.c), registered with
 * cyclock_register() over the bare counter read at bench_counter_hz(),
 * rounded, at the first call; NULL when registering failed (no counter).
 * The engine scenario's writer updates it. */
struct cyclock *bench_engine_clock(void);

/* Where loops store their sums, so that no read is optimised away; one
 * per thread, so that threads timing at once share no line. */
extern _Thread_local volatile uint64_t bench_sink;

/* ---- scenario.c: the scenarios; runtime.c: what they share ---- */

struct bench_opts {
	const struct bench_clock *clocks[64]; /* selected and available, display order */
	size_t n_clocks;
	bool clocks_given;    /* --clocks named them; else every clock here (a scenario
			       * may then time a representative subset) */
	int threads[32];      /* --threads; n_threads 0: the scenario's default */
	size_t n_threads;
	int repetitions;      /* --repetitions; 0: the scenario's default */
	bool quick;           /* --quick: the whole default run in under 20 s */
	double duration_s;    /* --duration (accuracy); 0: its default */
	bool quiet;           /* no progress */
	long llc_bytes;       /* for cold: from the context */
	long mid_bytes;       /* for cold: the cache below it (0: unknown) */
};

struct bench_scenario {
	const char *name;
	const char *what; /* one line: what it measures and which seed it reproduces */
	bool in_default;  /* run by "cyclock bench" with no scenario named */
	/* Appends its results to @run; 0, or -1 after saying one line why (bench_error()). */
	int (*run)(const struct bench_opts *o, struct bench_run *run);
};

const struct bench_scenario *bench_scenarios(size_t *n);
const struct bench_scenario *bench_scenario_find(const char *name);

/* Whether @o selected clock @name. */
bool bench_selected(const struct bench_opts *o, const char *name);
/* Repetitions: @o's, or @dflt (@quick_dflt under --quick). */
int bench_reps(const struct bench_opts *o, int dflt, int quick_dflt);
/* Progress, to stderr, only when stderr is a terminal and not --quiet;
 * a line without newline that the next call overwrites. */
void bench_progress(const struct bench_opts *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Ends a progress line, if one is shown. */
void bench_progress_done(const struct bench_opts *o);
/* The CPUs this process may run on, ascending; returns how many (<= max). */
int bench_allowed_cpus(int *cpus, int max);
/* Pins the calling thread to @cpu; 0 or an errno. */
int bench_pin(int cpu);
/* The calling thread's CPU affinity, to put back after pinning. */
struct bench_affinity {
	unsigned long mask[1024 / (8 * sizeof(unsigned long))]; /* a cpu_set_t */
	bool saved;
};
/* Pins the calling thread to the CPU it runs on (or the first allowed),
 * so that a loop or an eviction and the call after it stay on one CPU;
 * @a keeps the affinity bench_unpin() restores.  Whether it pinned. */
bool bench_pin_here(struct bench_affinity *a);
void bench_unpin(const struct bench_affinity *a);
/* @ts in ns since its clock's zero: the one conversion the tool writes. */
static inline uint64_t bench_ts_ns(const struct timespec *ts)
{
	return (uint64_t)ts->tv_sec * 1000000000u + (uint64_t)ts->tv_nsec;
}
/* Kernel clock @id in ns, converted as a program that does not use
 * cyclock would: inline, so that a timed loop runs just that. */
static inline uint64_t bench_kernel_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return bench_ts_ns(&ts);
}
/* CLOCK_MONOTONIC_RAW in ns: the scenarios' own stopwatch. */
uint64_t bench_now_ns(void);
/* Calls per timed loop of @fn so that one loop lasts about @target_ns. */
long bench_calibrate(bench_loop_fn *fn, double target_ns);

/* The scenarios (scenarios/warm.c ... scenarios/engine.c). */
int bench_warm(const struct bench_opts *o, struct bench_run *run);
int bench_cold(const struct bench_opts *o, struct bench_run *run);
int bench_sparse(const struct bench_opts *o, struct bench_run *run);
int bench_scale(const struct bench_opts *o, struct bench_run *run);
int bench_falseshare(const struct bench_opts *o, struct bench_run *run);
int bench_resolution(const struct bench_opts *o, struct bench_run *run);
int bench_warp(const struct bench_opts *o, struct bench_run *run);
int bench_ctxsw(const struct bench_opts *o, struct bench_run *run);
int bench_accuracy_run(const struct bench_opts *o, struct bench_run *run);
int bench_engine(const struct bench_opts *o, struct bench_run *run);

/* ---- output.c: what the reporters and commands share ---- */

/* @ns as "0.35 ns", "20.2 ns", "512 ns", "1.53 us", "12.0 ms", "3.00 s". */
void bench_fmt_ns(char *buf, size_t len, double ns);
/* A count: grouped below 100,000 ("12,345"), else three figures and k, M, G. */
void bench_fmt_count(char *buf, size_t len, double v);
/* A ratio: "0.95x", "12.4x" (the tables' and the verdict's one format). */
void bench_fmt_ratio(char *buf, size_t len, double v);
/* Writes @data to @path: a regular file (or none yet) atomically (a
 * temporary beside it, synced, renamed over it, with the old file's mode
 * and owner; through a symbolic link, its target), anything else (a
 * character device, a FIFO) in place, never replacing it.  0, or -1 after
 * saying one line why, the old file intact.  "-" is standard output:
 * its error is kept in bench_stdout_errno for the tool's one last check
 * of standard output, which says it, not here. */
int bench__write_file(const char *path, const char *data, size_t len);
/* The first error bench__write_file("-") met writing standard output (-1:
 * of no known errno), or 0. */
extern int bench_stdout_errno;
/* Whether @path can be written (before measuring, so that a typo does not
 * cost a run): for a regular file or none yet, the temporary beside it is
 * made and removed; a device or FIFO must be writable.  0, or -1 with
 * *@why set to a phrase saying why not ("empty file name" for ""). */
int bench__output_check(const char *path, const char **why);
/* Whether output names @a and @b write one file: the same file by any two
 * names (device and inode where it exists, else the same directory and
 * name), or both "-".  Never for a character device (/dev/null twice
 * harms nothing). */
bool bench__output_same(const char *a, const char *b);
/* Whether @path is "-" or names what standard output is, when that is not
 * a character device (a terminal): a pipe, FIFO or file the shell opened,
 * as /dev/stdout does.  Such an output is written as standard output. */
bool bench__output_is_stdout(const char *path);

/* ---- reporters ---- */

/* report/text.c: @src into @dst (@size > 0), cut to fit at a character
 * boundary, with what could drive a terminal or break UTF-8 made visible:
 * control characters (C0, DEL, C1, the bidirectional overrides) as
 * "\x1b" or "\u202e", bytes that are not UTF-8 as "\xff".  Every string
 * from a file or the system goes through it before it is stored.
 * Returns how many characters it escaped. */
size_t bench_text_clean(char *dst, size_t size, const char *src);
/* report/text.c: how many columns @s (UTF-8) takes on a terminal: "zürich"
 * 6, "時計" 4, whatever the program's locale (C included).  Tables pad
 * by it, not by bytes. */
size_t bench_text_width(const char *s);
/* report/text.c: the bytes of the character at @s (1 to 4), or 1 for a
 * byte that starts none: a cut at @s plus it ends between characters. */
size_t bench_text_char_len(const char *s);

/* report/table.c: the readable table, grouped by scenario, with ratios to
 * the floors where the run has them and a mark on noisy figures. */
void bench_report_table(FILE *f, const struct bench_run *run);
/* report/verdict.c: at most ten lines after the default run's tables:
 * cyclock_now() against the vDSO warm, after a gap and cold, the relaxed
 * clock, whether the counter is trusted and why, the ordered read chosen;
 * each ratio as the tables show it.  Lines whose rows @run lacks are left
 * out. */
void bench_report_verdict(FILE *f, const struct bench_run *run);
/* Whether this build reads and writes JSON (false without jansson, when
 * json/nojson.c stands in for the JSON files below). */
extern const bool bench_json_supported;
/* report/json.c: Google Benchmark's JSON format, written by
 * bench__write_file() (a regular @path is whole or untouched).  0, or -1
 * after saying one line why (bench_error()). */
int bench_write_json(const char *path, const struct bench_run *run);
/* report/csv.c: one row per result, same atomicity. */
int bench_write_csv(const char *path, const struct bench_run *run);
/* json/json_read.c: reads what bench_write_json() wrote (or Google Benchmark's
 * own output) into @run (bench_run_init'ed; samples from the iterations,
 * statistics from them or the aggregates).  0, or -1 with one line in
 * @err.  The buffer form is what the fuzzer drives. */
int bench_read_json(const char *path, struct bench_run *run, char *err, size_t errlen);
int bench_parse_json(const char *buf, size_t len, struct bench_run *run, char *err,
		     size_t errlen);

#endif /* CYCLOCK_BENCH_H */
