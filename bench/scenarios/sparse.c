/* SPDX-License-Identifier: MIT */
/*
 * sparse: what one read costs after a gap, as a server pays for the read
 * after epoll_wait() returns, or a request handler for its one read per
 * request.  For each gap (10 us to 1 s) and each way of spending it (idle:
 * epoll_pwait2() on an empty set, with a timer slack of 1 ns; busy: a loop
 * writing a buffer larger than the L2 cache, which calls no clock), each clock in
 * turn gets the gap and then one read, timed on its own through the cold
 * scenario's bracket (bracket.h).  The clocks take turns, so each sees the
 * same stretch of the machine.  Then, untimed, the same pattern once more
 * on a thread whose system calls are counted (syscount.h): the reads'
 * system calls per read, which the vDSO's clocks make none of.
 *
 * Samples per gap: up to SPARSE_SAMPLES a clock, fewer where a time budget
 * per gap runs out (the long gaps), never fewer than SPARSE_MIN_SAMPLES;
 * --repetitions asks for an exact count.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "bracket.h"
#include "syscount.h"

#define SPARSE_SAMPLES 200
#define SPARSE_SAMPLES_QUICK 40
#define SPARSE_MIN_SAMPLES 5
#define SPARSE_BUDGET_NS 3e9        /* per way and gap: samples stop here ... */
#define SPARSE_BUDGET_NS_QUICK 0.4e9 /* ... unless fewer than SPARSE_MIN_SAMPLES */
#define SPARSE_COUNTED 10           /* reads per clock and gap whose system calls are counted */
#define SPARSE_COUNT_BUDGET_NS 1e9  /* ... unless that takes longer (at least 2) */
#define SPARSE_BUSY_BYTES (4 << 20) /* the busy loop's buffer: past L2, within L3 here */
#define SPARSE_LINE 64

enum way { IDLE, BUSY };

struct gap {
	enum way way;
	uint64_t ns;
};

static const struct gap gaps_default[] = {
	{ IDLE, 10000 },    { IDLE, 100000 },   { IDLE, 1000000 },   { IDLE, 3000000 },
	{ IDLE, 10000000 }, { IDLE, 50000000 }, { IDLE, 100000000 }, { IDLE, 1000000000 },
	{ BUSY, 10000 },    { BUSY, 100000 },   { BUSY, 1000000 },   { BUSY, 10000000 },
};
static const struct gap gaps_quick[] = { { IDLE, 100000 }, { IDLE, 3000000 }, { BUSY, 3000000 } };

struct sparse {
	struct bench_bracket bracket;
	int epfd;                    /* idle gaps wait in epoll_pwait2() on it; -1: clock_nanosleep() */
	unsigned char *map;          /* the busy loop's buffer */
	volatile unsigned char *busy; /* the same, written through volatile */
	double lines_per_ns; /* the busy loop's speed, calibrated */
	double *samples;     /* [clock][sample] for the gap at hand, ns */
	int max_samples;
};

/* "10us", "3ms", "1s": the gap in a result's name. */
static void gap_name(char *buf, size_t len, const struct gap *g)
{
	const char *way = g->way == IDLE ? "idle" : "busy";

	if (g->ns >= 1000000000 && g->ns % 1000000000 == 0)
		snprintf(buf, len, "%s:%llus", way, (unsigned long long)(g->ns / 1000000000));
	else if (g->ns >= 1000000 && g->ns % 1000000 == 0)
		snprintf(buf, len, "%s:%llums", way, (unsigned long long)(g->ns / 1000000));
	else
		snprintf(buf, len, "%s:%lluus", way, (unsigned long long)(g->ns / 1000));
}

/* Writes one byte a line of the busy buffer, @lines of them, round and round. */
static void busy_lines(const struct sparse *k, uint64_t lines)
{
	static size_t at;

	for (uint64_t i = 0; i < lines; i++) {
		k->busy[at] = (unsigned char)i;
		at = at + SPARSE_LINE < SPARSE_BUSY_BYTES ? at + SPARSE_LINE : 0;
	}
}

/* The busy loop's speed, so that a busy gap reads no clock. */
static void calibrate_busy(struct sparse *k)
{
	uint64_t lines = 1 << 16, t0 = bench_now_ns(), dt;

	busy_lines(k, lines); /* fault the buffer in */
	t0 = bench_now_ns();
	busy_lines(k, 4 * lines);
	dt = bench_now_ns() - t0;
	k->lines_per_ns = dt ? 4.0 * (double)lines / (double)dt : 1;
}

static void spend(const struct sparse *k, const struct gap *g)
{
	struct timespec ts = { (time_t)(g->ns / 1000000000), (long)(g->ns % 1000000000) };
	struct epoll_event ev;

	if (g->way == BUSY)
		busy_lines(k, (uint64_t)((double)g->ns * k->lines_per_ns) + 1);
	else if (k->epfd >= 0) /* an interrupted wait is waited again, whole */
		while (epoll_pwait2(k->epfd, &ev, 1, &ts, NULL) < 0 && errno == EINTR)
			;
	else
		while (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts) != 0)
			;
}

/*
 * Idle gaps wait as a server does, in epoll: libc's clock_gettime() shares
 * a page of code with clock_nanosleep(), not with epoll_wait(), so a gap
 * spent in clock_nanosleep() would hand libc's read a warm page that no
 * server's has (docs/scenarios/sparse.md).  Where epoll_pwait2() (Linux
 * 5.11) is missing or refused, clock_nanosleep(), said once.
 */
static int idle_fd(const struct bench_opts *o)
{
	struct timespec zero = { 0, 0 };
	struct epoll_event ev;
	int fd = epoll_create1(EPOLL_CLOEXEC);

	if (fd >= 0 && epoll_pwait2(fd, &ev, 1, &zero, NULL) == 0)
		return fd;
	if (!o->quiet)
		bench_error("sparse: idle gaps in clock_nanosleep(), not epoll: %s",
			    strerror(errno));
	if (fd >= 0)
		close(fd);
	return -1;
}

/* How many samples each clock gets at gap @g: @k->max_samples, or what
 * the budget allows, at least SPARSE_MIN_SAMPLES. */
static int samples_for(const struct bench_opts *o, const struct sparse *k, const struct gap *g)
{
	double budget = o->quick ? SPARSE_BUDGET_NS_QUICK : SPARSE_BUDGET_NS;
	double fit = budget / ((double)g->ns * (double)o->n_clocks);

	if (o->repetitions > 0 || fit >= k->max_samples)
		return k->max_samples;
	return fit < SPARSE_MIN_SAMPLES ? SPARSE_MIN_SAMPLES : (int)fit;
}

/* Samples at gap @g, round by round, the first clock rotating. */
static void take_samples(const struct bench_opts *o, struct sparse *k, const struct gap *g, int n)
{
	for (int r = 0; r < n; r++)
		for (size_t j = 0; j < o->n_clocks; j++) {
			size_t c = (j + (size_t)r) % o->n_clocks;

			spend(k, g);
			k->samples[c * (size_t)k->max_samples + (size_t)r] =
				bench_bracket_time(&k->bracket, o->clocks[c]->read);
		}
}

/* What the counted thread does: the same gaps and reads of one clock. */
struct counted {
	const struct sparse *k;
	const struct gap *g;
	uint64_t (*read)(void);
	int reads;
};

enum { PHASE_GAP, PHASE_READ };

static void counted_body(struct bench_syscount *sc, void *arg)
{
	const struct counted *c = arg;

	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
	for (int i = 0; i < c->reads; i++) {
		spend(c->k, c->g);
		bench_syscount_phase(sc, PHASE_READ);
		bench_sink = c->read();
		bench_syscount_phase(sc, PHASE_GAP);
	}
}

/* System calls per read of each clock at gap @g into @per_read[clock]; NAN
 * where they cannot be counted (said once). */
static void count_syscalls(const struct bench_opts *o, const struct sparse *k, const struct gap *g,
			   double *per_read)
{
	static bool said;
	double fit = SPARSE_COUNT_BUDGET_NS / ((double)g->ns * (double)o->n_clocks);
	struct counted c = { .k = k, .g = g, .reads = fit >= SPARSE_COUNTED ? SPARSE_COUNTED
						     : fit < 2 ? 2 : (int)fit };
	struct bench_syscount sc;
	const char *why;

	for (size_t i = 0; i < o->n_clocks; i++) {
		c.read = o->clocks[i]->read;
		per_read[i] = NAN;
		if (bench_syscount(&sc, counted_body, &c, &why) != 0) {
			if (!said && !o->quiet)
				bench_error("sparse: system calls not counted: %s", why);
			said = true;
			return;
		}
		per_read[i] = (double)sc.counts[PHASE_READ] / c.reads;
	}
}

static int add_results(const struct bench_opts *o, struct bench_run *run, const struct sparse *k,
		       const struct gap *g, int n, const double *per_read)
{
	char name[32];

	gap_name(name, sizeof(name), g);
	for (size_t c = 0; c < o->n_clocks; c++) {
		struct bench_result *r =
			bench_run_add(run, "sparse", o->clocks[c]->name, name, 0, 1,
				      k->samples + c * (size_t)k->max_samples, (size_t)n, 0);

		if (!r)
			return -1;
		if (!isnan(per_read[c]))
			bench_result_extra(r, "syscalls_per_read", per_read[c]);
	}
	return 0;
}

static int run_gaps(const struct bench_opts *o, struct bench_run *run, struct sparse *k)
{
	const struct gap *gaps = o->quick ? gaps_quick : gaps_default;
	size_t n_gaps = o->quick ? sizeof(gaps_quick) / sizeof(gaps_quick[0])
				 : sizeof(gaps_default) / sizeof(gaps_default[0]);
	double per_read[64];
	char name[32];

	for (size_t i = 0; i < n_gaps; i++) {
		int n = samples_for(o, k, &gaps[i]);

		gap_name(name, sizeof(name), &gaps[i]);
		bench_progress(o, "sparse: %s, %d reads of %zu clock%s", name, n, o->n_clocks,
			       o->n_clocks == 1 ? "" : "s");
		take_samples(o, k, &gaps[i], n);
		count_syscalls(o, k, &gaps[i], per_read);
		if (add_results(o, run, k, &gaps[i], n, per_read) != 0)
			return -1;
	}
	bench_progress_done(o);
	return 0;
}

/* The clocks timed when none were named: cyclock's ordered and relaxed
 * clocks and its coarse one, the preload's call, the floor, and the
 * kernel's fine and coarse clocks (every clock at every gap up to 1 s
 * would take an hour). */
static const char *const default_clocks[] = { "cyclock_now", "cyclock_now_relaxed",
					       "cyclock_coarse", "preload_monotonic",
					       "ordered_ns", "monotonic", "monotonic_coarse" };

static void default_subset(const struct bench_opts *o, struct bench_opts *sub)
{
	*sub = *o;
	if (o->clocks_given)
		return;
	sub->n_clocks = 0;
	for (size_t i = 0; i < o->n_clocks; i++)
		for (size_t j = 0; j < sizeof(default_clocks) / sizeof(default_clocks[0]); j++)
			if (!strcmp(o->clocks[i]->name, default_clocks[j]))
				sub->clocks[sub->n_clocks++] = o->clocks[i];
}

int bench_sparse(const struct bench_opts *all, struct bench_run *run)
{
	struct bench_opts sub;
	const struct bench_opts *o = &sub;
	struct sparse k = { .max_samples = bench_reps(all, SPARSE_SAMPLES, SPARSE_SAMPLES_QUICK) };
	struct bench_affinity saved;
	int rc, slack = prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);

	default_subset(all, &sub);
	if (o->n_clocks == 0)
		return 0;
	k.samples = calloc(o->n_clocks * (size_t)k.max_samples, sizeof(double));
	k.busy = k.map = calloc(1, SPARSE_BUSY_BYTES);
	if (!k.samples || !k.map) {
		free(k.samples);
		free(k.map);
		bench_error("sparse: out of memory");
		return -1;
	}
	k.epfd = idle_fd(o);
	bench_pin_here(&saved);
	/* A first call each: a first read may initialise, which no later one repeats. */
	for (size_t i = 0; i < o->n_clocks; i++)
		bench_sink = o->clocks[i]->read();
	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0); /* a 10 us sleep is 10 us, not 60 */
	calibrate_busy(&k);
	bench_bracket_init(&k.bracket);
	rc = run_gaps(o, run, &k);
	if (slack > 0)
		prctl(PR_SET_TIMERSLACK, (unsigned long)slack, 0, 0, 0);
	bench_unpin(&saved);
	if (k.epfd >= 0)
		close(k.epfd);
	free(k.samples);
	free(k.map);
	return rc;
}
