/* SPDX-License-Identifier: MIT */
/*
 * ctxsw: what a clock costs inside a scheduler-heavy workload (Zeng 2023
 * and Brodkin 2018, docs/references.md).  Two processes play ping-pong
 * over two pipes, as unixbench's context1, lmbench's lat_ctx and "perf
 * bench sched pipe" do: the parent writes a byte, the child reads it and writes it back.  Pinned to one CPU,
 * every round trip is two context switches; pinned to two CPUs, it is two
 * cross-CPU wake-ups.  The primary figure is ns per round trip.
 *
 * The timestamped runs read a clock on each side after every read()
 * returns, as a tracer stamps every switch, so (timestamped - bare) / 2 is
 * what one reading costs right after a switch, with the caches the switch
 * left behind.  Every partner (the bare one and one per clock) lives for
 * the whole variant, and they take turns in 10 ms slices, so a machine
 * that slows down mid-run slows them all alike.
 *
 * ctxsw_partner.c forks the partners and plays the ping-pong; this file
 * picks the clocks, takes the turns and reports.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "ctxsw.h"

#define TARGET_NS 200e6        /* one repetition of one partner */
#define QUICK_TARGET_NS 50e6
#define CHUNK_NS 10e6          /* the partners take turns in slices this long */
#define NOISE_LIMIT 0.25
#define MAX_PARTNERS 65        /* the bare one and one per selectable clock */

/* The clocks timed when the user named none: one of each kind (cyclock's
 * ordered and relaxed reads, the vDSO, a real system call, a CPU-time
 * clock), so that the default run stays within its budget. */
static const char *const default_subset[] = {
	"cyclock_now", "cyclock_now_relaxed", "monotonic", "syscall_monotonic",
	"thread_cputime",
};

/*
 * Fills @v[1..] with the clocks to time after the bare partner v[0];
 * returns how many partners in all.  Without --clocks, only
 * default_subset is timed.  The coarse clocks (cyclock_coarse() and its
 * inline form) are left out: in a
 * forked child its first call starts a ticker thread of the child's own,
 * which would wake every millisecond on the measured CPU and time another
 * workload.  Every other clock is read once here, before any fork, so
 * that the library's first-call initialisation (and its threads) happens
 * in the parent and never in a child.
 */
static size_t pick_partners(const struct bench_opts *o, struct partner *v)
{
	size_t n = 1;

	memset(&v[0], 0, sizeof(v[0]));
	for (size_t i = 0; i < o->n_clocks; i++) {
		const struct bench_clock *c = o->clocks[i];
		bool want = o->clocks_given;

		for (size_t k = 0; !want && k < sizeof(default_subset) / sizeof(*default_subset);
		     k++)
			want = strcmp(c->name, default_subset[k]) == 0;
		if (want && !(c->flags & BENCH_CLOCK_COARSE)) {
			bench_sink = c->read();
			memset(&v[n], 0, sizeof(v[n]));
			v[n++].clock = c;
		}
	}
	return n;
}

/* The median of @a[i] - @b[i] (of @a[i] when @b is NULL), i < @n; NAN
 * when out of memory. */
static double median(const double *a, const double *b, size_t n)
{
	double *d = malloc((n ? n : 1) * sizeof(*d)), m;

	if (!d || n == 0) {
		free(d);
		return NAN;
	}
	for (size_t i = 0; i < n; i++)
		d[i] = a[i] - (b ? b[i] : 0);
	bench_sort(d, n);
	m = bench_quantile(d, n, 0.5);
	free(d);
	return m;
}

/*
 * How far the cost @cost of a clock read per switch moves within the
 * run: the largest distance from it of the same figure taken over each
 * repetition's slices alone (over each half of them with one
 * repetition).  A cost within it is noise, whatever its sign: reading a
 * clock cannot make a switch cheaper.  NAN when there are too few slices.
 */
static double cost_noise(const double *a, const double *b, size_t n, int reps, double cost)
{
	size_t groups = reps >= 2 ? (size_t)reps : 2, per = n / groups;
	double worst = 0;

	if (per == 0 || !isfinite(cost))
		return NAN;
	for (size_t g = 0; g < groups; g++) {
		double c = median(a + g * per, b + g * per, per) / 2;

		if (isnan(c))
			return NAN;
		worst = fmax(worst, fabs(c - cost));
	}
	return worst;
}

/* The results; a clock's cost per switch is half the median difference
 * between its slices and the bare partner's, slice by slice, with how far
 * it moves between repetitions beside it. */
static int add_results(struct bench_run *run, const char *variant, const struct partner *v,
		       size_t n, int reps, long chunks)
{
	for (size_t i = 0; i < n; i++) {
		const char *clock = v[i].clock ? v[i].clock->name : "";
		struct bench_result *r = bench_run_add(run, "ctxsw", clock, variant, 0,
						       v[i].rounds / reps, v[i].samples,
						       (size_t)reps, NOISE_LIMIT);

		if (!r)
			return -1;
		if (r->st.median > 0) {
			bench_result_extra(r, "switch_ns", r->st.median / 2);
			bench_result_extra(r, "switches_per_s", 2e9 / r->st.median);
		}
		if (i > 0) {
			size_t slices = (size_t)(reps * chunks);
			double cost = median(v[i].slices, v[0].slices, slices) / 2;
			double noise = cost_noise(v[i].slices, v[0].slices, slices, reps, cost);

			bench_result_extra(r, "clock_cost_ns", cost);
			bench_result_extra(r, "clock_cost_noise_ns", noise);
		}
	}
	return 0;
}

/* Starts the @n partners' children on @cpu; -1 after saying why. */
static int start_all(struct partner *v, size_t n, int cpu, int reps, long chunks)
{
	double planned_s = (double)n * ((double)reps + 0.5) * (double)chunks * CHUNK_NS / 1e9;
	unsigned int timeout_s = (unsigned int)(30 + 10 * planned_s);

	for (size_t i = 0; i < n; i++) {
		v[i].samples = calloc((size_t)reps, sizeof(double));
		v[i].slices = calloc((size_t)reps * (size_t)chunks, sizeof(double));
		if (!v[i].samples || !v[i].slices) {
			bench_error("ctxsw: out of memory");
			return -1;
		}
		if (bench__ctxsw_start(&v[i], v, i, cpu, timeout_s) != 0) {
			bench_error("ctxsw: cannot start a child: %s",
				strerror(errno));
			return -1;
		}
	}
	return 0;
}

/* Ends every child that was started; -1 when one did not end well.
 * @quiet: an error was reported already. */
static int stop_all(struct partner *v, size_t n, bool quiet)
{
	int ret = 0;

	for (size_t i = 0; i < n; i++) {
		int status;

		if (v[i].pid <= 0)
			continue;
		status = bench__ctxsw_stop(&v[i]);
		if (status != 0 && !quiet && ret == 0) {
			bench_error("ctxsw: a child process ended badly (status %d)",
				status);
			ret = -1;
		}
	}
	return ret;
}

/*
 * One repetition: the partners take turns in slices of about CHUNK_NS, so
 * that a slow moment of the machine falls on all of them alike, and each
 * round of slices starts with the next partner, so that none always
 * follows the same other.  A repetition's figure is the median of its
 * slices: a slice in which another program held the CPU for its whole
 * time slice does not move it.
 */
static int one_rep(struct partner *v, size_t n, int rep, long chunks)
{
	for (long k = 0; k < chunks; k++)
		for (size_t j = 0; j < n; j++) {
			struct partner *p = &v[(j + (size_t)k + (size_t)rep) % n];
			long rounds = 0;
			double t = bench__ctxsw_ping_for(p, CHUNK_NS, &rounds);

			if (t < 0)
				return -1;
			p->slices[rep * chunks + k] = t / (double)rounds;
			p->rounds += rounds;
		}
	for (size_t i = 0; i < n; i++)
		v[i].samples[rep] = median(v[i].slices + rep * chunks, NULL, (size_t)chunks);
	return 0;
}

/* Warms every partner up (page faults, caches, the scheduler's view of
 * the pair), then runs the repetitions. */
static int measure(const struct bench_opts *o, const char *variant, struct partner *v,
		   size_t n, int reps, long chunks)
{
	long warm = 0;

	for (size_t i = 0; i < n; i++)
		if (bench__ctxsw_ping_for(&v[i], (double)chunks * CHUNK_NS / 10, &warm) < 0)
			return -1;
	for (int rep = 0; rep < reps; rep++) {
		bench_progress(o, "ctxsw: %s, repetition %d/%d", variant, rep + 1, reps);
		if (one_rep(v, n, rep, chunks) != 0)
			return -1;
	}
	return 0;
}

/* One variant: this thread on @cpu_a, every child on @cpu_b. */
static int run_variant(const struct bench_opts *o, struct bench_run *run, const char *variant,
		       int cpu_a, int cpu_b)
{
	struct partner v[MAX_PARTNERS];
	size_t n = pick_partners(o, v);
	int reps = bench_reps(o, 5, 2), err;
	long chunks = (long)((o->quick ? QUICK_TARGET_NS : TARGET_NS) / CHUNK_NS);

	if (bench_pin(cpu_a) != 0) {
		bench_error("ctxsw: cannot pin to CPU %d", cpu_a);
		return -1;
	}
	err = start_all(v, n, cpu_b, reps, chunks);
	if (!err && measure(o, variant, v, n, reps, chunks) != 0) {
		bench_error("ctxsw: a child process stopped answering");
		err = -1;
	}
	/* Every child is ended and reaped before the results are kept. */
	if (stop_all(v, n, err != 0) != 0)
		err = -1;
	if (!err)
		err = add_results(run, variant, v, n, reps, chunks);
	for (size_t i = 0; i < n; i++) {
		free(v[i].samples);
		free(v[i].slices);
	}
	return err;
}

int bench_ctxsw(const struct bench_opts *o, struct bench_run *run)
{
	int cpus[2], n_cpus = bench_allowed_cpus(cpus, 2), err;
	cpu_set_t saved;
	bool restore;

	if (n_cpus < 1) {
		bench_error("ctxsw: no CPU to run on");
		return -1;
	}
	/* Pinning is this thread's, and threads started later inherit it:
	 * put back what the tool had. */
	restore = pthread_getaffinity_np(pthread_self(), sizeof(saved), &saved) == 0;
	err = run_variant(o, run, "same_cpu", cpus[0], cpus[0]);
	if (!err && n_cpus >= 2)
		err = run_variant(o, run, "cross_cpu", cpus[0], cpus[1]);
	else if (!err)
		bench_error("ctxsw: one CPU allowed: no cross_cpu figures");
	if (restore)
		pthread_setaffinity_np(pthread_self(), sizeof(saved), &saved);
	bench_progress_done(o);
	return err;
}
