/* SPDX-License-Identifier: MIT */
/*
 * The hosted layer's internals: which counter to trust and why, its
 * frequency, the resync controller and the coarse ticker.  Nothing here
 * is installed.
 *
 * The readers' data are the two timelines in cyclock/hosted.h; everything
 * below is the writers' (under host.writer) or written once at init.
 */
#ifndef CYCLOCK_LINUX_INTERNAL_H
#define CYCLOCK_LINUX_INTERNAL_H

#include <pthread.h>
#include <time.h>

#include "cyclock.h"
#include "cyclock/hosted.h"
#include "../core/internal.h"

#define NSEC_PER_SEC 1000000000ull
#define NSEC_PER_USEC 1000ull

/* Tracking constants; docs/hosted.md explains each. */
#define CYCLOCK_MAX_BACK_NS (10 * NSEC_PER_USEC)    /* a relaxed read's reach before P */
#define CYCLOCK_MIN_INTERVAL_NS (1000 * NSEC_PER_USEC) /* first resync interval */
#define CYCLOCK_MAX_INTERVAL_NS (250 * NSEC_PER_USEC * 1000) /* the longest one */
#define CYCLOCK_MAX_SLEW 1e-3                        /* frequency corrections: +-1000 ppm */
#define CYCLOCK_TOL_NS (100 * NSEC_PER_USEC)         /* beyond this (+1000 ppm of the gap), the counter is wrong */
#define CYCLOCK_GUARD_MIN_NS NSEC_PER_USEC           /* see cyclock__guard_ns() */
#define CYCLOCK_GUARD_MAX_NS (CYCLOCK_TOL_NS / 2)
#define CYCLOCK_GOOD_ERR_NS 250                      /* errors this small lengthen the interval */
#define CYCLOCK_RATE_SPAN_NS NSEC_PER_SEC            /* the rate's baseline, at most */

/* One bracketed reading of a kernel clock against the counter. */
struct cyclock__sample {
	uint64_t cyc;   /* the counter at the kernel reading (mid-bracket) */
	uint64_t lo;    /* the counter before it: the reading is no earlier */
	uint64_t width; /* bracket width, counts */
	uint64_t ns;    /* the kernel clock */
};

/* A segment as plain values (the writer's and the slow path's copy). */
struct cyclock__segv {
	uint64_t cyc, ns;
	uint64_t off_real, off_boot;
	uint32_t frac, stale, mult, mult_prev, mult_rate;
};

/* A timeline's controller: writer-only. */
struct cyclock__track {
	struct cyclock__timeline *tl;
	clockid_t id;                  /* the kernel clock it follows */
	double rate;                   /* that clock's ns per count, estimated */
	struct cyclock__sample anchor; /* the rate's baseline starts here, */
	struct cyclock__sample mid;    /* and moves here when this is old enough, */
	struct cyclock__sample last;   /* the newest sample */
	uint64_t interval;             /* current resync interval, counts */
	int64_t last_err;              /* ns, ours - kernel at the last sample */
	uint64_t refreshes;
};

/* Initialisation's states: see cyclock__init_once(). */
enum { INIT_NONE, INIT_BUSY, INIT_DONE, INIT_MEASURING };

/* cyclock__init_once() flag, beside cyclock_init()'s: never wait during
 * initialisation.  With no frequency stated by the hardware, the timelines
 * start at the first read at least 500 us after it (until then readers
 * get the kernel's clocks), and there is no per-CPU cyclock_local(). */
#define CYCLOCK__INIT_DEFER 0x100u
enum { FORCE_NONE, FORCE_COUNTER, FORCE_KERNEL };

struct cyclock__host {
	CYCLOCK_ALIGNAS(CYCLOCK_CACHELINE) CYCLOCK_ATOMIC(uint32_t) state; /* INIT_* */
	CYCLOCK_ATOMIC(uint32_t) writer;   /* one resync at a time */
	CYCLOCK_ATOMIC(uint32_t) pending;  /* cyclock_resync() asked while one ran */
	CYCLOCK_ATOMIC(uint64_t) guard_ns; /* see cyclock__guard_ns() */
	CYCLOCK_ATOMIC(uint64_t) anomalies;
	bool using_counter;
	bool local_percpu;
	char why[160];                     /* why the kernel's clocks are used */
	char notes[160];                   /* what init found, for describe() */
	double hz_hint;
	const char *hz_source;
	uint32_t shift;
	uint64_t max_back_cyc, min_int_cyc, max_int_cyc;
	uint64_t off_real, off_boot;       /* as last published */
	struct cyclock__sample first_raw;  /* for the frequency's uncertainty */
	struct cyclock__track mono, raw;
	int64_t warp_cyc;                  /* -1: the check could not run */
	uint64_t warp_turns;               /* turns the check took */
	bool warp_ran;                     /* false: one CPU allowed, or not asked */
	uint64_t init_ns;                  /* both halves of it */
	/* Between init's two halves (cyclock__init_once()). */
	int force;                         /* FORCE_*, from CYCLOCK_SOURCE */
	const char *distrust;              /* why not the counter, or NULL */
	uint64_t hz_stated;                /* by the hardware; 0: measure */
	bool begun;                        /* the first half is done */
	bool deferred;                     /* CYCLOCK__INIT_DEFER */
};

extern struct cyclock__host cyclock__host;

/* platform.c: the world outside (the kernel, CPUID, the environment). */
int cyclock__kernel_gettime(clockid_t id, struct timespec *ts);
uint64_t cyclock__kernel_ns(clockid_t id);
int cyclock__env_source(void);
bool cyclock__counter_invariant(void);
uint64_t cyclock__counter_hz_hint(const char **how);
bool cyclock__kernel_clocksource(char *name, size_t len);
unsigned int cyclock__allowed_cpus(int cpu[2]);
int cyclock__thread_start(pthread_t *t, bool detached, void *(*fn)(void *), void *arg);

/* warp.c */
int64_t cyclock__warp_check(const int cpu[2], uint64_t budget_ns, uint64_t *comparisons);

/* sample.c, segment.c, track.c: the writer's side. */
void cyclock__sample(clockid_t id, struct cyclock__sample *s);
struct cyclock__segv cyclock__seg_load(const struct cyclock__timeline *tl);
void cyclock__seg_at(const struct cyclock__segv *v, uint32_t shift, uint64_t cyc, uint64_t *ns,
		     uint32_t *frac);
void cyclock__publish(struct cyclock__timeline *tl, const struct cyclock__segv *v);
uint64_t cyclock__seg_low(const struct cyclock__segv *v, uint32_t shift, uint64_t cyc);
uint64_t cyclock__tol_ns(uint64_t gap_ns);
uint64_t cyclock__guard_ns(void);
void cyclock__track_start(struct cyclock__track *tr, const struct cyclock__sample *s);
void cyclock__measure_offsets(bool first);
void cyclock__refresh(void);
bool cyclock__try_refresh(void);
void cyclock__fork_child_latch(struct cyclock__timeline *tl);

/* init.c */
void cyclock__init_once(unsigned int flags);
void cyclock__fork_child(void);

/* local.c: cyclock_local() on an unsynchronised counter. */
int cyclock__local_init(double hz);
void cyclock__local_reset(void);
uint64_t cyclock__local_read(void);

/* coarse.c */
void cyclock__coarse_period(uint64_t ns);
bool cyclock__coarse_start(void);
void cyclock__coarse_fork_child(void);

#endif /* CYCLOCK_LINUX_INTERNAL_H */
