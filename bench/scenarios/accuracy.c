/* SPDX-License-Identifier: MIT */
/*
 * accuracy: how closely each cyclock clock follows the kernel clock it
 * stands for, and how long a fixed busy loop looks through every clock
 * (Brodkin 2018: a 1/HZ sched_clock made a 3 ms task read as 10 ms).
 *
 * Offsets: every ~100 us, each clock is read between two readings of its
 * kernel clock, k1 = kernel(); c = clock(); k2 = kernel(), and
 * offset = c - (k1 + k2) / 2.  An offset is known to within half the
 * bracket; a bracket wider than MAX_BRACKET_NS means the thread was
 * preempted inside it, and the sample is dropped.  The clocks take turns
 * within each round, so all of them see the same machine over the same
 * time.  The primary figure is the p99 of |offset|, one per repetition.
 *
 * Busy loop: a spin calibrated to a few ms, timed by each clock and by
 * CLOCK_MONOTONIC_RAW around it; coarse clocks show their tick, CPU-time
 * clocks what the thread really ran.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"

#define PERIOD_NS 100000.0     /* between sampling rounds */
#define MAX_SAMPLES 250000.0   /* per clock in a run (24 bytes each): the period grows past it */
#define MAX_BRACKET_NS 2000    /* wider: preempted, dropped */
#define QUICK_SPAN_S 0.8       /* offsets under --quick, of accuracy's ~1 s */
#define SPIN_NS 5e6            /* the busy loop's length */
#define QUICK_SPIN_NS 2e6

/* A cyclock clock, the kernel clock it follows, and its kept samples. */
struct follower {
	const struct bench_clock *c, *ref;
	double *off;      /* signed offsets, ns */
	double *at;       /* when, s since the first sample */
	double *width;    /* the brackets, ns */
	size_t n, cap;
	size_t *rep_end;  /* n when each repetition ended */
	long rejected;
	uint64_t origin;  /* the first k1 */
};

/* One bracketed reading of @f. */
static void sample(struct follower *f)
{
	uint64_t k1 = f->ref->read();
	uint64_t v = f->c->read();
	uint64_t k2 = f->ref->read();

	if (k2 < k1 || k2 - k1 > MAX_BRACKET_NS || f->n == f->cap) {
		f->rejected += f->n < f->cap;
		return;
	}
	if (f->n == 0)
		f->origin = k1;
	f->off[f->n] = (double)(int64_t)(v - (k1 + (k2 - k1) / 2));
	f->at[f->n] = (double)(k1 - f->origin) / 1e9;
	f->width[f->n] = (double)(k2 - k1);
	f->n++;
}

/*
 * After a sleep the caches are cold, and a cold call reads its counter
 * late in the call (after its loads missed), which would skew the offset
 * against the bracket's midpoint by half the miss: an artefact of where
 * in the call the counter is read, not a disagreement.  So every round
 * first reads every clock once, untimed.
 */
static void warm(const struct follower *f, size_t n)
{
	uint64_t acc = 0;

	for (size_t i = 0; i < n; i++)
		acc += f[i].c->read() + f[i].ref->read();
	bench_sink = acc;
}

/* CLOCK_MONOTONIC in ns: the sleeps' deadlines (clock_nanosleep() does
 * not take CLOCK_MONOTONIC_RAW). */
static uint64_t mono_ns(void)
{
	return bench_kernel_ns(CLOCK_MONOTONIC);
}

/* Rounds every @period_ns for @span_ns on absolute deadlines, so that a
 * late wake-up does not shift the rounds after it; each round starts at
 * the next clock, so every clock sees every place in the round alike. */
static void sample_for(const struct bench_opts *o, struct follower *f, size_t n,
		       double span_ns, double period_ns, const char *what)
{
	uint64_t start = mono_ns(), now = start, deadline = start, shown = start;
	size_t round = 0;

	while ((double)(now - start) < span_ns) {
		warm(f, n);
		for (size_t i = 0; i < n; i++)
			sample(&f[(round + i) % n]);
		round++;
		deadline += (uint64_t)period_ns;
		if (deadline < now)
			deadline = now;
		struct timespec ts = { (time_t)(deadline / 1000000000u),
				       (long)(deadline % 1000000000u) };
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
		now = mono_ns();
		if (now - shown >= 1000000000u) {
			shown = now;
			bench_progress(o, "accuracy: %s %.0f/%.0f s", what,
				       (double)(now - start) / 1e9, span_ns / 1e9);
		}
	}
}

/* The least-squares slope of @y over @x (ns per s), in ppm. */
static double drift_ppm(const double *x, const double *y, size_t n)
{
	double mx = 0, my = 0, sxx = 0, sxy = 0;

	for (size_t i = 0; i < n; i++) {
		mx += x[i];
		my += y[i];
	}
	mx /= (double)n;
	my /= (double)n;
	for (size_t i = 0; i < n; i++) {
		sxx += (x[i] - mx) * (x[i] - mx);
		sxy += (x[i] - mx) * (y[i] - my);
	}
	return sxx > 0 ? sxy / sxx / 1e3 : NAN;
}

/* |@v[0..n)|, sorted, into @out. */
static void abs_sorted(const double *v, size_t n, double *out)
{
	for (size_t i = 0; i < n; i++)
		out[i] = fabs(v[i]);
	bench_sort(out, n);
}

static void note_for(struct bench_result *r, const struct follower *f)
{
	if (f->c->flags & BENCH_CLOCK_COARSE)
		snprintf(r->note, sizeof(r->note),
			 "vs %s; lags by design, as the kernel's coarse clock lags its own",
			 f->ref->name);
	else
		snprintf(r->note, sizeof(r->note), "vs %s", f->ref->name);
}

/* The result of @f: p99 |offset| per repetition (those that kept any
 * sample), the rest over all of them. */
static int add_follower(struct bench_run *run, const struct follower *f, int reps)
{
	double *abs = malloc(f->n * sizeof(*abs)), *p99 = malloc((size_t)reps * sizeof(*p99));
	double mean = 0;
	struct bench_result *r = NULL;
	size_t from = 0, kept = 0;

	for (int k = 0; abs && p99 && k < reps; k++) {
		size_t to = f->rep_end[k];

		abs_sorted(f->off + from, to - from, abs);
		if (to > from)
			p99[kept++] = bench_quantile(abs, to - from, 0.99);
		from = to;
	}
	for (size_t i = 0; i < f->n; i++)
		mean += f->off[i] / (double)f->n;
	if (abs && p99)
		r = bench_run_add(run, "accuracy", f->c->name, "", 0, (long)(f->n / kept), p99,
				  kept, 0);
	else
		bench_error("accuracy: out of memory");
	if (r) {
		abs_sorted(f->off, f->n, abs);
		bench_result_extra(r, "p50_ns", bench_quantile(abs, f->n, 0.5));
		bench_result_extra(r, "p999_ns", bench_quantile(abs, f->n, 0.999));
		bench_result_extra(r, "max_ns", abs[f->n - 1]);
		bench_result_extra(r, "mean_ns", mean);
		memcpy(abs, f->width, f->n * sizeof(*abs));
		bench_sort(abs, f->n);
		bench_result_extra(r, "bracket_p50_ns", bench_quantile(abs, f->n, 0.5));
		bench_result_extra(r, "drift_ppm", drift_ppm(f->at, f->off, f->n));
		bench_result_extra(r, "samples", (double)f->n);
		bench_result_extra(r, "rejected", (double)f->rejected);
		note_for(r, f);
	}
	free(abs);
	free(p99);
	return r ? 0 : -1;
}

static void followers_free(struct follower *f, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(f[i].off);
		free(f[i].at);
		free(f[i].width);
		free(f[i].rep_end);
	}
}

/* The selected cyclock clocks whose kernel clock exists here, with room
 * for @cap samples each; returns how many, or -1 when out of memory. */
static long followers_init(const struct bench_opts *o, struct follower *f, size_t cap, int reps)
{
	size_t n = 0;

	for (size_t i = 0; i < o->n_clocks; i++) {
		const struct bench_clock *c = o->clocks[i];
		const struct bench_clock *ref = c->follows ? bench_clock_find(c->follows) : NULL;

		if (c->group != BENCH_GROUP_CYCLOCK || !ref || !bench_clock_available(ref))
			continue;
		memset(&f[n], 0, sizeof(f[n]));
		f[n].c = c;
		f[n].ref = ref;
		f[n].cap = cap;
		f[n].off = malloc(cap * sizeof(double));
		f[n].at = malloc(cap * sizeof(double));
		f[n].width = malloc(cap * sizeof(double));
		f[n].rep_end = calloc((size_t)reps, sizeof(size_t));
		n++;
		if (!f[n - 1].off || !f[n - 1].at || !f[n - 1].width || !f[n - 1].rep_end) {
			followers_free(f, n);
			return -1;
		}
	}
	return (long)n;
}

/* The offsets of every follower, sampled together. */
static int offsets(const struct bench_opts *o, struct bench_run *run)
{
	struct follower f[64];
	int reps = bench_reps(o, 1, 1), err = 0;
	double span = 1e9 * (o->duration_s > 0 ? o->duration_s : o->quick ? QUICK_SPAN_S : 10);
	double period = fmax(PERIOD_NS, span * reps / MAX_SAMPLES);
	long n = followers_init(o, f, ((size_t)(span / period) + 16) * (size_t)reps, reps);

	if (n < 0) {
		bench_error("accuracy: out of memory");
		return -1;
	}
	for (int k = 0; k < reps; k++) {
		char what[32];

		snprintf(what, sizeof(what), "offsets %d/%d", k + 1, reps);
		sample_for(o, f, (size_t)n, span, period, what);
		for (long i = 0; i < n; i++)
			f[i].rep_end[k] = f[i].n;
	}
	for (long i = 0; i < n && !err; i++) {
		if (f[i].n == 0)
			bench_error("accuracy: %s: every sample was preempted",
				f[i].c->name);
		else
			err = add_follower(run, &f[i], reps);
	}
	followers_free(f, (size_t)n);
	return err;
}

/* ---- the busy loop ---- */

static void spin(long n)
{
	for (long i = 0; i < n; i++)
		__asm__ __volatile__("" ::: "memory");
}

/* Spin iterations lasting about @target_ns: the shortest of three tries
 * sets the rate, as the least disturbed one. */
static long spin_calibrate(double target_ns)
{
	long n = 1 << 16;
	double best = INFINITY;

	spin(n);
	for (int k = 0; k < 3; k++) {
		uint64_t t0 = bench_now_ns();

		spin(n);
		best = fmin(best, (double)(bench_now_ns() - t0) / (double)n);
	}
	return best > 0 ? (long)(target_ns / best) : n;
}

/* How long @c says @spins took; *@ref is CLOCK_MONOTONIC_RAW's view from
 * just outside the clock's own readings.  Both are read once untimed
 * first, so that a cold first call (the other clocks ran in between) does
 * not count as an error of the clock. */
static double time_spin(const struct bench_clock *c, long spins, double *ref)
{
	bench_sink = c->read() + bench_now_ns();

	uint64_t r0 = bench_now_ns();
	uint64_t c0 = c->read();

	spin(spins);
	uint64_t c1 = c->read();
	uint64_t r1 = bench_now_ns();

	*ref = (double)(r1 - r0);
	return bench_clock_ns(c, (double)(c1 - c0));
}

static void busy_note(struct bench_result *r, const double *measured, int reps, double ref)
{
	int zero = 0;

	for (int k = 0; k < reps; k++)
		zero += measured[k] == 0;
	if (zero)
		snprintf(r->note, sizeof(r->note), "a %.1f ms loop read as 0 in %d of %d",
			 ref / 1e6, zero, reps);
}

static int add_busy(struct bench_run *run, const struct bench_clock *c, double *measured,
		    double *err, double *ref, int reps)
{
	struct bench_result *r = bench_run_add(run, "accuracy", c->name, "busyloop", 0, 1,
					       measured, (size_t)reps, 0);
	double max_err = 0;

	if (!r)
		return -1;
	for (int k = 0; k < reps; k++)
		max_err = fmax(max_err, fabs(err[k]));
	bench_sort(err, (size_t)reps);
	bench_sort(ref, (size_t)reps);
	bench_result_extra(r, "error_ns", bench_quantile(err, (size_t)reps, 0.5));
	bench_result_extra(r, "max_error_ns", max_err);
	bench_result_extra(r, "reference_ns", bench_quantile(ref, (size_t)reps, 0.5));
	busy_note(r, measured, reps, bench_quantile(ref, (size_t)reps, 0.5));
	return 0;
}

/* Every selected clock times the same loop, the clocks taking turns in
 * each repetition.  v holds, per clock, reps measured, errors, references. */
static int busyloop(const struct bench_opts *o, struct bench_run *run)
{
	int reps = bench_reps(o, 10, 3), err = 0;
	size_t n = o->n_clocks, per = (size_t)reps;
	double *v = malloc((n ? n : 1) * per * 3 * sizeof(*v));
	long spins = spin_calibrate(o->quick ? QUICK_SPIN_NS : SPIN_NS);

	if (!v) {
		bench_error("accuracy: out of memory");
		return -1;
	}
	for (int k = 0; k < reps; k++) {
		bench_progress(o, "accuracy: busy loop %d/%d", k + 1, reps);
		for (size_t i = 0; i < n; i++) {
			double *m = v + i * per * 3, ref;

			m[k] = time_spin(o->clocks[i], spins, &ref);
			m[per + (size_t)k] = m[k] - ref;
			m[2 * per + (size_t)k] = ref;
		}
	}
	for (size_t i = 0; i < n && !err; i++) {
		double *m = v + i * per * 3;

		err = add_busy(run, o->clocks[i], m, m + per, m + 2 * per, reps);
	}
	free(v);
	return err;
}

int bench_accuracy_run(const struct bench_opts *o, struct bench_run *run)
{
	int err = offsets(o, run);

	if (!err)
		err = busyloop(o, run);
	bench_progress_done(o);
	return err;
}
