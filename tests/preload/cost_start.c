/* SPDX-License-Identifier: MIT */
/*
 * preload_cost_start: what the library costs a process in its first 50 ms,
 * against the vDSO's clock_gettime() in the same run.  Not a test: it
 * asserts nothing (docs/hosted.md, "A process's start", has its figures).
 *
 *     preload_cost_start [--processes N] [--runs N] [--rates US,...]
 *                        [--before PRELOAD]
 *
 * Reads.  For each read rate (default one read every 1, 20 and 1000 us),
 * N fresh processes (default 60) of each kind, the kinds taking turns:
 *   vdso       this program, plain libc: clock_gettime(CLOCK_MONOTONIC)
 *   preload    the same under LD_PRELOAD=libcyclock-preload.so
 *   relaxed    and CYCLOCK_PRELOAD_RELAXED=1
 *   pkernel    and CYCLOCK_SOURCE=kernel
 *   now        preload_cost_start_now, linked with libcyclock.so: cyclock_now()
 *   nkernel    the same with CYCLOCK_SOURCE=kernel
 *   before     with --before, under LD_PRELOAD=PRELOAD: another build's
 *              preload (an earlier commit's), so that before and after are
 *              measured in one run, taking turns; with a machine's record
 *              of its own (CYCLOCK_MACHINE_RECORD), so that neither finds
 *              the other's layout and writes its own over it each time
 * Each process reads the clock at fixed moments, one every gap for 50 ms
 * from its first read (busy in between), and times each read between two
 * ordered counter reads (the arch header's: no library); a fresh process
 * (fork and exec) has the library's pages and the vDSO's cold, as a
 * program's start has.  Every process of a rate makes the same reads, so
 * read i is the same moment in each.  Printed per kind:
 *   first      the first read: median (p99) over the processes
 *   later      the costliest read after the first, at the median over the
 *              processes (each read's median, the largest of them; the
 *              machine's interrupts land on random reads, which the median
 *              leaves out), with when it comes (us after the first read)
 *   p99        the same at each read's p99 (with 60 processes, the worst
 *              but one: the interrupts' too; compare the vdso's)
 *   worst      each process's costliest read after its first: median (p99)
 *   added      what the kind's reads cost beyond the vdso's: the sum over
 *              the reads of each read's median minus the vdso's median for
 *              the same read (interrupts left out, as above); and, in
 *              parentheses, each process's sum minus the vdso's median sum,
 *              the median over processes
 * and the kind's five costliest reads by median, where the work goes.
 * Short programs.  --runs N (default 200) rounds of a program that reads
 * the clock once and exits (this one, --once), under each of: an empty
 * library preloaded (preload_cost_start_empty.so), the preload, the
 * relaxed preload, the preload with CYCLOCK_SOURCE=kernel (and the
 * --before preload), the kinds
 * taking turns in each round; wall time from spawn to reaping, and CPU
 * time (wait4()'s user and system).  Printed: each kind's median, and the
 * median over rounds of its ratio to the empty library's in the same round.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cyclock/arch.h"

#ifndef COST_START_PRELOAD
#define COST_START_PRELOAD "libcyclock-preload.so"
#endif
#ifndef COST_START_NOW
#define COST_START_NOW "preload_cost_start_now"
#endif
#ifndef COST_START_EMPTY
#define COST_START_EMPTY "preload_cost_start_empty.so"
#endif

#define SPAN_NS 50000000ull /* the first 50 ms */
#define MAX_READS 100000    /* per process: 50 ms at one read every 0.5 us */
#define MAX_PROCESSES 1000
#define MAX_RATES 8

static uint64_t counts(void)
{
	return cyclock_arch_counter_ordered_how(CYCLOCK_ARCH_ORDERED_ANY);
}

#ifdef COST_START_CHILD_NOW
#include "cyclock.h"
static void read_clock(void)
{
	uint64_t ns = cyclock_now();

	__asm__ __volatile__("" : : "r"(ns));
}
#else
static void read_clock(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	__asm__ __volatile__("" : : "r"(ts.tv_nsec));
}
#endif

/* The child: reads at every @gap counts for @span counts; writes each
 * read's cost in counts (uint32_t, saturated) to stdout, after their count. */
static int child(uint64_t gap, uint64_t span)
{
	static uint32_t cost[MAX_READS];
	uint64_t start = counts();
	uint32_t n = 0;

	for (uint64_t next = start; next - start < span && n < MAX_READS; next += gap) {
		uint64_t a, b;

		while (counts() - next > UINT64_MAX / 2) /* before the moment: spin */
			;
		a = counts();
		read_clock();
		b = counts();
		cost[n++] = b - a > UINT32_MAX ? UINT32_MAX : (uint32_t)(b - a);
	}
	return fwrite(&n, sizeof(n), 1, stdout) == 1 &&
			       fwrite(cost, sizeof(cost[0]), n, stdout) == n
		       ? 0
		       : 1;
}

#ifdef COST_START_CHILD_NOW
int main(int argc, char **argv)
{
	if (argc != 3)
		return 2;
	return child(strtoull(argv[1], NULL, 10), strtoull(argv[2], NULL, 10));
}
#else

extern char **environ;

/* The counter's rate, against CLOCK_MONOTONIC_RAW over 100 ms. */
static double measure_hz(void)
{
	struct timespec a, b;
	uint64_t c0, c1;
	double ns;

	clock_gettime(CLOCK_MONOTONIC_RAW, &a);
	c0 = counts();
	do {
		clock_gettime(CLOCK_MONOTONIC_RAW, &b);
		ns = (double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec);
	} while (ns < 1e8);
	c1 = counts();
	return (double)(c1 - c0) * 1e9 / ns;
}

enum kind { VDSO, PRELOAD, RELAXED, PKERNEL, NOW, NKERNEL, EMPTY, BEFORE, KINDS };
static const char *const kind_name[KINDS] = { "vdso", "preload", "relaxed", "pkernel",
					      "now",  "nkernel", "empty",   "before" };
static const char *before; /* --before's preload, or NULL */

/* The environment for @k: ours, less what the kinds set, plus its own. */
static char **kind_env(enum kind k)
{
	static char *env[512], preload[1024], empty[1024], earlier[1024], record[64];
	static char relaxed[] = "CYCLOCK_PRELOAD_RELAXED=1", kernel[] = "CYCLOCK_SOURCE=kernel";
	size_t n = 0;

	for (char **e = environ; *e && n < 500; e++)
		if (strncmp(*e, "LD_PRELOAD=", 11) && strncmp(*e, "CYCLOCK_", 8))
			env[n++] = *e;
	snprintf(preload, sizeof(preload), "LD_PRELOAD=%s", COST_START_PRELOAD);
	snprintf(empty, sizeof(empty), "LD_PRELOAD=%s", COST_START_EMPTY);
	if (k == PRELOAD || k == RELAXED || k == PKERNEL)
		env[n++] = preload;
	if (k == EMPTY)
		env[n++] = empty;
	if (k == BEFORE) {
		snprintf(earlier, sizeof(earlier), "LD_PRELOAD=%s", before);
		env[n++] = earlier;
		snprintf(record, sizeof(record),
			 "CYCLOCK_MACHINE_RECORD=/dev/shm/cyclock-cost-start-before.%u", geteuid());
		env[n++] = record;
	}
	if (k == RELAXED)
		env[n++] = relaxed;
	if (k == PKERNEL || k == NKERNEL)
		env[n++] = kernel;
	env[n] = NULL;
	return env;
}

static char *self, now_path[] = COST_START_NOW, child_flag[] = "--child",
		   once_flag[] = "--once";

/* Spawns @argv for @k with stdout into @fd (or -1); its pid, or -1. */
static pid_t spawn(enum kind k, char **argv, int fd)
{
	posix_spawn_file_actions_t fa;
	pid_t pid;
	int err;

	posix_spawn_file_actions_init(&fa);
	if (fd >= 0)
		posix_spawn_file_actions_adddup2(&fa, fd, STDOUT_FILENO);
	err = posix_spawn(&pid, argv[0], &fa, NULL, argv, kind_env(k));
	posix_spawn_file_actions_destroy(&fa);
	return err ? -1 : pid;
}

/* Reaps @pid: its CPU time in ns (user and system); false if it failed. */
static bool reap(pid_t pid, double *cpu)
{
	struct rusage ru;
	int status;

	if (wait4(pid, &status, 0, &ru) != pid)
		return false;
	*cpu = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e9 +
	       (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e3;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/* One process of kind @k reading every @gap for @span counts: its reads'
 * costs into @cost; their count, or 0 if it failed. */
static uint32_t run_reads(enum kind k, uint64_t gap, uint64_t span, uint32_t *cost)
{
	char a[2][32], *argv[5];
	int fd[2], i = 0;
	uint32_t n = 0;
	double cpu;
	pid_t pid;
	bool ok;
	FILE *f;

	snprintf(a[0], sizeof(a[0]), "%llu", (unsigned long long)gap);
	snprintf(a[1], sizeof(a[1]), "%llu", (unsigned long long)span);
	argv[i++] = k == NOW || k == NKERNEL ? now_path : self;
	if (k != NOW && k != NKERNEL)
		argv[i++] = child_flag;
	argv[i++] = a[0];
	argv[i++] = a[1];
	argv[i] = NULL;
	if (pipe(fd))
		return 0;
	pid = spawn(k, argv, fd[1]);
	close(fd[1]);
	f = fdopen(fd[0], "r");
	ok = pid > 0 && f && fread(&n, sizeof(n), 1, f) == 1 && n <= MAX_READS &&
	     fread(cost, sizeof(cost[0]), n, f) == n;
	if (f)
		fclose(f);
	else
		close(fd[0]);
	ok = pid > 0 && reap(pid, &cpu) && ok;
	return ok ? n : 0;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The @p quantile of @n values (sorted here). */
static double q(double *v, size_t n, double p)
{
	qsort(v, n, sizeof(v[0]), cmp_d);
	return n ? v[(size_t)((double)(n - 1) * p + 0.5)] : 0;
}

static double hz;

static double us(double c)
{
	return c / hz * 1e6;
}

/* A kind's processes at one rate: cost[p * n + i], read i of process p. */
struct runs {
	uint32_t *cost;
	size_t got;
	double *med, *p99; /* [i]: over the processes */
};

static void per_read(struct runs *r, uint32_t n)
{
	double v[MAX_PROCESSES];

	r->med = calloc(n, sizeof(double));
	r->p99 = calloc(n, sizeof(double));
	for (uint32_t i = 0; i < n && r->got; i++) {
		for (size_t p = 0; p < r->got; p++)
			v[p] = r->cost[p * n + i];
		r->med[i] = q(v, r->got, 0.5);
		r->p99[i] = q(v, r->got, 0.99);
	}
}

static void report(enum kind k, const struct runs *r, const struct runs *vdso, uint32_t n,
		   double gap_us)
{
	double v[MAX_PROCESSES], later = 0, later99 = 0, added = 0, vdso_sum;
	uint32_t at = 0, top[5] = { 0 };

	for (uint32_t i = 1; i < n; i++) {
		if (r->med[i] > later) {
			later = r->med[i];
			at = i;
		}
		later99 = r->p99[i] > later99 ? r->p99[i] : later99;
	}
	for (uint32_t i = 0; i < n; i++)
		added += r->med[i] - vdso->med[i];
	for (size_t p = 0; p < vdso->got; p++) {
		v[p] = 0;
		for (uint32_t i = 0; i < n; i++)
			v[p] += vdso->cost[p * n + i];
	}
	vdso_sum = q(v, vdso->got, 0.5);
	printf("%-8s", kind_name[k]);
	for (size_t p = 0; p < r->got; p++)
		v[p] = r->cost[p * n];
	printf(" %6.1f (%6.1f)", us(q(v, r->got, 0.5)), us(q(v, r->got, 0.99)));
	printf(" %6.1f at %7.0f %7.1f", us(later), at * gap_us, us(later99));
	for (size_t p = 0; p < r->got; p++) {
		v[p] = 0;
		for (uint32_t i = 1; i < n; i++)
			v[p] = r->cost[p * n + i] > v[p] ? r->cost[p * n + i] : v[p];
	}
	printf(" %6.1f (%6.1f)", us(q(v, r->got, 0.5)), us(q(v, r->got, 0.99)));
	for (size_t p = 0; p < r->got; p++) {
		v[p] = -vdso_sum;
		for (uint32_t i = 0; i < n; i++)
			v[p] += r->cost[p * n + i];
	}
	printf(" %7.1f (%7.1f)  ", us(added), us(q(v, r->got, 0.5)));
	/* The five costliest reads by median, after the first: where the work goes. */
	for (int t = 0; t < 5; t++) {
		for (uint32_t i = 1; i < n; i++) {
			bool taken = false;

			for (int u = 0; u < t; u++)
				taken = taken || top[u] == i;
			if (!taken && (!top[t] || r->med[i] > r->med[top[t]]))
				top[t] = i;
		}
		if (top[t])
			printf(" %.0f:%.1f", top[t] * gap_us, us(r->med[top[t]]));
	}
	printf("\n");
}

static void reads(const double *rates, int nrates, size_t nproc)
{
	static const enum kind kinds[] = { VDSO, PRELOAD, RELAXED, PKERNEL, NOW, NKERNEL, BEFORE };
	const int nk = (int)(sizeof(kinds) / sizeof(kinds[0])) - !before;
	uint64_t span = (uint64_t)((double)SPAN_NS * hz / 1e9);

	for (int ri = 0; ri < nrates; ri++) {
		uint64_t gap = (uint64_t)(rates[ri] * hz / 1e6);
		uint32_t n = (uint32_t)((span + gap - 1) / gap);
		struct runs r[KINDS];
		uint32_t *buf;

		if (n > MAX_READS)
			n = MAX_READS;
		buf = malloc((size_t)MAX_READS * sizeof(uint32_t));
		for (int j = 0; j < nk; j++)
			r[kinds[j]] = (struct runs){ calloc(nproc * n, sizeof(uint32_t)), 0, NULL, NULL };
		for (size_t p = 0; p < nproc; p++)
			for (int j = 0; j < nk; j++) {
				enum kind k = kinds[(j + p) % (size_t)nk]; /* each kind first in turn */

				if (run_reads(k, gap, span, buf) == n)
					memcpy(r[k].cost + r[k].got++ * n, buf, n * sizeof(uint32_t));
			}
		printf("\none read every %g us for 50 ms (%u reads): %zu processes of each kind\n",
		       rates[ri], n, r[VDSO].got);
		printf("%-8s %15s %27s %15s %17s   %s\n", "kind", "first us (p99)",
		       "later us at us, and p99", "worst us (p99)", "added us (sums)",
		       "costliest reads by median, at us: us");
		for (int j = 0; j < nk; j++)
			per_read(&r[kinds[j]], n);
		for (int j = 0; j < nk; j++)
			if (r[kinds[j]].got && r[VDSO].got)
				report(kinds[j], &r[kinds[j]], &r[VDSO], n, rates[ri]);
			else
				printf("%-8s failed\n", kind_name[kinds[j]]);
		for (int j = 0; j < nk; j++) {
			free(r[kinds[j]].cost);
			free(r[kinds[j]].med);
			free(r[kinds[j]].p99);
		}
		free(buf);
	}
}

static void short_programs(size_t runs)
{
	static double wall[KINDS][MAX_PROCESSES * 10], cpu[KINDS][MAX_PROCESSES * 10];
	static double w[MAX_PROCESSES * 10], c[MAX_PROCESSES * 10];
	static const enum kind kinds[] = { EMPTY, PRELOAD, RELAXED, PKERNEL, BEFORE };
	const int nk = (int)(sizeof(kinds) / sizeof(kinds[0])) - !before;
	char *argv[] = { self, once_flag, NULL };
	size_t got = 0;

	for (size_t p = 0; p < runs && got < MAX_PROCESSES * 10; p++) {
		double rw[KINDS], rc[KINDS];
		bool ok = true;

		for (int j = 0; j < nk; j++) {
			enum kind k = kinds[(j + p) % (size_t)nk];
			struct timespec t0, t1;
			pid_t pid;

			clock_gettime(CLOCK_MONOTONIC, &t0);
			pid = spawn(k, argv, -1);
			ok = pid > 0 && reap(pid, &rc[k]) && ok;
			clock_gettime(CLOCK_MONOTONIC, &t1);
			rw[k] = (double)(t1.tv_sec - t0.tv_sec) * 1e9 + (double)(t1.tv_nsec - t0.tv_nsec);
		}
		if (!ok)
			continue;
		for (int j = 0; j < nk; j++) {
			wall[kinds[j]][got] = rw[kinds[j]];
			cpu[kinds[j]][got] = rc[kinds[j]];
		}
		got++;
	}
	printf("\na program that reads the clock once and exits: %zu rounds\n", got);
	printf("%-8s %10s %10s %12s %12s\n", "kind", "wall us", "CPU us", "wall/empty",
	       "CPU/empty");
	for (int j = 0; j < nk; j++) {
		enum kind k = kinds[j];
		double wr, cr;

		for (size_t i = 0; i < got; i++) {
			w[i] = wall[k][i] / wall[EMPTY][i];
			c[i] = cpu[k][i] / (cpu[EMPTY][i] > 0 ? cpu[EMPTY][i] : 1);
		}
		wr = q(w, got, 0.5);
		cr = q(c, got, 0.5);
		memcpy(w, wall[k], got * sizeof(w[0]));
		memcpy(c, cpu[k], got * sizeof(c[0]));
		printf("%-8s %10.1f %10.1f %12.3f %12.3f\n", kind_name[k], q(w, got, 0.5) / 1e3,
		       q(c, got, 0.5) / 1e3, wr, cr);
	}
}

static int usage(void)
{
	fprintf(stderr,
		"usage: %s [--processes 1-%d] [--runs 0-%d] [--rates US,...] [--before PRELOAD]\n",
		self, MAX_PROCESSES, MAX_PROCESSES * 10);
	return 2;
}

int main(int argc, char **argv)
{
	double rates[MAX_RATES] = { 1, 20, 1000 };
	int nrates = 3;
	long nproc = 60, runs = 200;

	self = argv[0];
	if (argc == 4 && !strcmp(argv[1], "--child"))
		return child(strtoull(argv[2], NULL, 10), strtoull(argv[3], NULL, 10));
	if (argc == 2 && !strcmp(argv[1], "--once")) {
		read_clock();
		return 0;
	}
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--processes") && i + 1 < argc)
			nproc = atol(argv[++i]);
		else if (!strcmp(argv[i], "--runs") && i + 1 < argc)
			runs = atol(argv[++i]);
		else if (!strcmp(argv[i], "--before") && i + 1 < argc)
			before = argv[++i];
		else if (!strcmp(argv[i], "--rates") && i + 1 < argc) {
			char *s = argv[++i], *end;

			for (nrates = 0; *s && nrates < MAX_RATES; s = *end ? end + 1 : end) {
				rates[nrates] = strtod(s, &end);
				if (end == s || rates[nrates] < 0.5)
					return usage();
				nrates++;
			}
		} else
			return usage();
	}
	if (nproc < 1 || nproc > MAX_PROCESSES || runs < 0 || runs > MAX_PROCESSES * 10)
		return usage();
	if (before && access(before, R_OK)) {
		fprintf(stderr, "%s: --before %s: %s\n", argv[0], before, strerror(errno));
		return 2;
	}
	self = realpath("/proc/self/exe", NULL);
	if (!self)
		return 1;
	hz = measure_hz();
	printf("counter at %.3f MHz; preload %s", hz / 1e6, COST_START_PRELOAD);
	if (before)
		printf("; before %s", before);
	printf("\n");
	reads(rates, nrates, (size_t)nproc);
	if (runs)
		short_programs((size_t)runs);
	return 0;
}
#endif
