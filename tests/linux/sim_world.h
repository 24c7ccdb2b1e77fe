/* SPDX-License-Identifier: MIT */
/*
 * A simulated machine for the sim_*.c tests (libcyclock_sim.a).
 *
 * One virtual time t, in ns, drives everything the library can see: the
 * counter and each kernel clock are piecewise-linear functions of t that a
 * test bends between reads (stall the counter, step it back, leap it
 * forward; slew CLOCK_MONOTONIC; step CLOCK_REALTIME; suspend).  Both seam
 * functions advance t by a small step, so that the library's loops that
 * wait for time to pass (the frequency measurement) end, and so that a
 * kernel reading taken before a library call and one taken after it
 * bracket every value the library could honestly return.
 *
 * Header-only and single-threaded: each test is one program, and the
 * library calls the seam only from the calling thread (no ticker, no warp
 * check in sim builds), so plain globals do.  Include after <cmocka.h>.
 */
#ifndef CYCLOCK_TESTS_SIM_WORLD_H
#define CYCLOCK_TESTS_SIM_WORLD_H

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>

#include "prng.h"
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cyclock.h"
#include "cyclock/timeline.h"
#include "kclock.h"
#include "state.h"

#define NS 1ull
#define US 1000ull
#define MS 1000000ull
#define SEC 1000000000ull

/* Where virtual time starts: far from 0, so no clock is near it. */
#define SIM_T0 (1000 * SEC)
#define SIM_STEP 7 /* ns of virtual time per seam call */

struct sim_world {
	uint64_t t;    /* virtual time, ns */
	uint64_t step; /* added to t at each seam call */
	/* counter = cyc_base + (t - cyc_t0) * rate_hz / 1e9; cyc_base while stalled */
	uint64_t rate_hz, cyc_base, cyc_t0;
	bool stalled;
	/* MONOTONIC = mono_base + (t - mono_t0) * (1e9 + mono_ppb) / 1e9 */
	uint64_t mono_base, mono_t0;
	int64_t mono_ppb;
	uint64_t raw_off;  /* MONOTONIC_RAW = t + raw_off (mod 2^64) */
	uint64_t off_real; /* REALTIME - MONOTONIC */
	uint64_t off_boot; /* BOOTTIME - MONOTONIC */
	uint64_t last_cyc; /* the last counter value handed to the library */
	uint64_t last_ns[16]; /* the last reading handed out, by clock id */
	unsigned long counter_calls, gettime_calls, bad_ids;
	unsigned long gettime_of[16]; /* the kernel readings, by clock id */
	/* Called once, at the seam call numbered hook_at (counter and kernel
	 * calls counted together): the library's thread is "preempted" there,
	 * and the hook is what other threads do meanwhile (sim_preempt.c). */
	void (*hook)(void);
	unsigned long hook_at;
	/* Called just before each swap of a publish (cyclock_sim_before_swap()),
	 * while set: what other threads' reads do there (sim_bookkeeping.c). */
	void (*before_swap)(void);
	unsigned long swaps_hooked;
};

static struct sim_world w;

static inline uint64_t w_cyc_at(uint64_t t)
{
	if (w.stalled)
		return w.cyc_base;
	return w.cyc_base + (uint64_t)((unsigned __int128)(t - w.cyc_t0) * w.rate_hz / SEC);
}

static inline uint64_t w_mono_at(uint64_t t)
{
	__int128 d = (__int128)(int64_t)(t - w.mono_t0) * ((int64_t)SEC + w.mono_ppb);

	return w.mono_base + (uint64_t)(int64_t)(d / (__int128)SEC);
}

/* A kernel clock at virtual time @t, without advancing t; 0 for an id the
 * simulation does not have. */
static inline uint64_t w_clock_at(clockid_t id, uint64_t t)
{
	switch (id) {
	case CLOCK_MONOTONIC:
	case CLOCK_MONOTONIC_COARSE:
		return w_mono_at(t);
	case CLOCK_MONOTONIC_RAW:
		return t + w.raw_off;
	case CLOCK_REALTIME:
	case CLOCK_REALTIME_COARSE:
		return w_mono_at(t) + w.off_real;
	case CLOCK_BOOTTIME:
		return w_mono_at(t) + w.off_boot;
	default:
		return 0;
	}
}

static inline uint64_t w_clock(clockid_t id)
{
	return w_clock_at(id, w.t);
}

/* The seam's calls so far, counter and kernel together. */
static inline unsigned long w_calls(void)
{
	return w.counter_calls + w.gettime_calls;
}

/* At the hook's call, before the seam answers: the other threads' turn. */
static inline void w_maybe_preempt(void)
{
	void (*hook)(void) = w.hook;

	if (hook && w_calls() == w.hook_at) {
		w.hook = NULL;
		hook();
	}
}

/* The seam (cyclock/arch/sim.h). */
uint64_t cyclock_sim_counter(void)
{
	w_maybe_preempt();
	w.t += w.step;
	w.counter_calls++;
	w.last_cyc = w_cyc_at(w.t);
	return w.last_cyc;
}

int cyclock_sim_clock_gettime(clockid_t id, struct timespec *ts)
{
	uint64_t ns;

	w_maybe_preempt();
	w.t += w.step;
	w.gettime_calls++;
	ns = w_clock_at(id, w.t);
	if (!ns || (unsigned int)id >= 16) {
		w.bad_ids++;
		errno = EINVAL;
		return -1;
	}
	w.last_ns[id] = ns;
	w.gettime_of[id]++;
	*ts = ns_ts(ns);
	return 0;
}

/* A fresh machine: counter at @rate_hz from an arbitrary value, every
 * kernel clock on its own zero, MONOTONIC at exactly RAW's rate. */
static inline void w_reset(uint64_t rate_hz)
{
	memset(&w, 0, sizeof(w));
	w.t = SIM_T0;
	w.step = SIM_STEP;
	w.rate_hz = rate_hz;
	w.cyc_base = 0x1234567890abull;
	w.cyc_t0 = w.t;
	w.mono_base = 777 * SEC + 123456789;
	w.mono_t0 = w.t;
	w.raw_off = (uint64_t)-(int64_t)(222 * SEC + 987);
	w.off_real = 1700000000 * SEC + 424242;
	w.off_boot = 31 * SEC + 5555;
}

/* Restart the counter's line at the current t, so it can be bent here. */
static inline void w_rebase_counter(void)
{
	w.cyc_base = w_cyc_at(w.t);
	w.cyc_t0 = w.t;
}

/* The counter jumps by @ns worth of counts (back when negative). */
static inline void w_counter_jump(int64_t ns)
{
	int64_t counts = (int64_t)((__int128)ns * (__int128)w.rate_hz / (__int128)SEC);

	w_rebase_counter();
	w.cyc_base += (uint64_t)counts;
}

/* The counter stops (true) or goes on from where it stopped (false). */
static inline void w_counter_stall(bool stall)
{
	if (stall) {
		w_rebase_counter();
		w.stalled = true;
	} else {
		w.stalled = false;
		w.cyc_t0 = w.t;
	}
}

/* From now on MONOTONIC runs @ppb parts per billion fast (slow if < 0). */
static inline void w_mono_rate(int64_t ppb)
{
	w.mono_base = w_mono_at(w.t);
	w.mono_t0 = w.t;
	w.mono_ppb = ppb;
}

/*
 * The kernel's rate as adjtimex(2) sets it: ADJ_TICK @tick (10000 is
 * nominal) and ADJ_FREQUENCY @ppm.  The rate changes at once, as if the
 * kernel's tick came just now; the library learns of it only from the
 * kernel's clocks.
 */
static inline void w_kernel_rate(long tick, double ppm)
{
	w_mono_rate((int64_t)((tick - 10000) * 100000 + (int64_t)(ppm * 1000.0)));
}

/* The seam just before a publish's swap (sim.c). */
void cyclock_sim_before_swap(void)
{
	if (w.before_swap) {
		w.swaps_hooked++;
		w.before_swap();
	}
}

/* A suspend of @ns: BOOTTIME gains it, MONOTONIC and RAW do not.  With
 * @counter_runs, the counter keeps counting through it (as an invariant
 * TSC does in some sleep states), so the library sees the counter leap. */
static inline void w_suspend(uint64_t ns, bool counter_runs)
{
	w.off_boot += ns;
	if (!counter_runs)
		return;
	w.mono_base = w_mono_at(w.t);
	w.t += ns;
	w.mono_t0 = w.t;
	w.raw_off -= ns;
}

/* The library, fresh, over a fresh machine. */
static inline void sim_start(uint64_t rate_hz, uint64_t hint_hz, bool invariant, bool trusts)
{
	struct cyclock_sim_config cfg = {
		.hint_hz = hint_hz, .invariant = invariant, .kernel_trusts = trusts};

	w_reset(rate_hz);
	cyclock__sim_reset(&cfg);
}

/* The clocks under test, each with the kernel clock it follows. */
enum which { NOW, RAW, REAL, BOOT, NCLOCKS };
static const clockid_t follows[NCLOCKS] = {CLOCK_MONOTONIC, CLOCK_MONOTONIC_RAW, CLOCK_REALTIME,
					   CLOCK_BOOTTIME};
static const char *const clock_name[NCLOCKS] = {"now", "raw", "realtime", "boottime"};

static inline uint64_t call_clock(enum which c)
{
	switch (c) {
	case NOW:
		return cyclock_now();
	case RAW:
		return cyclock_raw();
	case REAL:
		return cyclock_realtime();
	default:
		return cyclock_boottime();
	}
}

/*
 * One reading and its error: how far the value lies outside [lo, hi], the
 * kernel clock just before and just after the call (0 inside).  The
 * library's value is honest if it equals the kernel clock at some moment
 * of the call, so this is the error it cannot blame on the simulation.
 */
struct reading {
	uint64_t v, lo, hi;
	uint64_t t_lo, t_hi; /* virtual time before and after the call */
	int64_t err;
};

static inline struct reading sim_read(enum which c)
{
	struct reading r;

	r.t_lo = w.t;
	r.lo = w_clock(follows[c]);
	r.v = call_clock(c);
	r.hi = w_clock(follows[c]);
	r.t_hi = w.t;
	if (r.v < r.lo)
		r.err = -(int64_t)(r.lo - r.v);
	else if (r.v > r.hi)
		r.err = (int64_t)(r.v - r.hi);
	else
		r.err = 0;
	return r;
}

static inline int64_t abs64(int64_t x)
{
	return x < 0 ? -x : x;
}

/* What a run has seen so far: the last value of each clock (for the
 * no-step-back check) and the largest error. */
struct track {
	uint64_t last[NCLOCKS];
	int64_t max_err[NCLOCKS];
	unsigned long reads;
	uint64_t allow_back_ns; /* a step back this small is expected (see sim_anomaly.c) */
	uint64_t stepped_back;  /* the largest step back allowed so far */
};

/* Read every clock once; fail on a backward step of now, raw or boottime
 * (realtime may step back when the system clock is set), beyond the
 * track's allowance. */
static inline void sim_read_all(struct track *tr, struct reading r[NCLOCKS])
{
	for (int c = 0; c < NCLOCKS; c++) {
		r[c] = sim_read((enum which)c);
		if (c != REAL && r[c].v < tr->last[c] &&
		    tr->last[c] - r[c].v <= tr->allow_back_ns) {
			if (tr->last[c] - r[c].v > tr->stepped_back)
				tr->stepped_back = tr->last[c] - r[c].v;
		} else if (c != REAL && r[c].v < tr->last[c])
			fail_msg("%s went back by %" PRIu64 " ns at t=%" PRIu64 " (was %" PRIu64
				 ", now %" PRIu64 ")",
				 clock_name[c], tr->last[c] - r[c].v, w.t, tr->last[c], r[c].v);
		tr->last[c] = r[c].v;
		if (abs64(r[c].err) > tr->max_err[c])
			tr->max_err[c] = abs64(r[c].err);
	}
	tr->reads++;
}

/* Fail unless every clock is within @bound ns of its kernel clock. */
static inline void check_bound(const struct reading r[NCLOCKS], int64_t bound, const char *when)
{
	for (int c = 0; c < NCLOCKS; c++)
		if (abs64(r[c].err) > bound)
			fail_msg("%s: %s off by %" PRId64 " ns (bound %" PRId64 ") at t=%" PRIu64
				 " (%.6f s)",
				 when, clock_name[c], r[c].err, bound, w.t,
				 (double)(w.t - SIM_T0) / 1e9);
}


/* When a run's error was last above a threshold: converged from then on. */
struct conv {
	uint64_t from;     /* virtual time of the event */
	uint64_t last_bad; /* the last read above the threshold, or @from */
	int64_t max_abs;   /* the largest error since @from */
};

static inline void conv_start(struct conv *cv)
{
	cv->from = cv->last_bad = w.t;
	cv->max_abs = 0;
}

static inline void conv_note(struct conv *cv, int64_t err, int64_t threshold)
{
	if (abs64(err) > cv->max_abs)
		cv->max_abs = abs64(err);
	if (abs64(err) > threshold)
		cv->last_bad = w.t;
}

/* Seconds from the event to the last read above the threshold. */
static inline double conv_secs(const struct conv *cv)
{
	return (double)(cv->last_bad - cv->from) / 1e9;
}

#endif /* CYCLOCK_TESTS_SIM_WORLD_H */
