/* SPDX-License-Identifier: MIT */
/*
 * cyclock: nanosecond clocks for Linux programs, read from the CPU's
 * counter in user space, that follow the kernel's clocks.
 *
 * Every value is in nanoseconds on the same zero as the kernel clock it
 * follows, so it can be compared with clock_gettime() readings of other
 * processes.  When the counter cannot be trusted (see cyclock_describe()),
 * each function returns its kernel clock through clock_gettime() instead.
 *
 * Every reader is thread-safe, fork-safe and async-signal-safe, never
 * blocks and never writes shared memory on its fast path.  The clocks'
 * first calls initialise the library (cyclock_init(0)) without waiting;
 * see there for what that costs.
 *
 * Define CYCLOCK_INLINE before including this header to get the readers
 * inline (no call into the library on the fast path); they are the same
 * code the library is built from.  The engine underneath, for firmware and
 * for counters of your own, is cyclock/core.h.
 */
#ifndef CYCLOCK_H
#define CYCLOCK_H

#include "cyclock/core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* cyclock_init() flags. */
#define CYCLOCK_INIT_KERNEL 1u /* never use the counter: every clock is clock_gettime() */
#define CYCLOCK_INIT_COARSE 2u /* give cyclock_coarse() a ticker thread (none otherwise) */
/* Besides taking the kernel's word that the counter agrees between CPUs
 * (the default, as the vDSO does: the kernel checks it as it brings each
 * CPU up, and its watchdog checks the clocksource), check for warps
 * between two CPUs for 1 ms with two short-lived threads, if the checks
 * of initialisation are still to come (none yet, or a read started it
 * lazily); otherwise cyclock_describe() says it did not run. */
#define CYCLOCK_INIT_WARP_CHECK 8u
/* The default since CYCLOCK_INIT_WARP_CHECK exists; accepted, no effect. */
#define CYCLOCK_INIT_NO_WARP_CHECK 4u

/* cyclock_init()'s non-negative results. */
#define CYCLOCK_USING_KERNEL 0  /* the clocks are the kernel's, through clock_gettime() */
#define CYCLOCK_USING_COUNTER 1 /* the clocks read the CPU's counter */

/*
 * Initialise now rather than at the first read, and wait until the clocks
 * read the counter or are known not to.  Decides whether the counter can
 * be trusted (invariant, the kernel's own clocksource, and with
 * CYCLOCK_INIT_WARP_CHECK no warp between two CPUs in a 1 ms check),
 * takes its frequency from CPUID or measures it (over 500 us), times the
 * ordered reads the CPU offers against each other (x86-64: rdtscp and,
 * where LFENCE is known to serialize, lfence;rdtsc) and keeps the cheaper,
 * and reads the kernel clocks: 0.5 ms here, 1.5-2.5 ms with the warp
 * check.  Without this call the reads initialise without waiting: the
 * first only notes that it came (no system call), the second does the
 * first half (microseconds), both return the kernel's clock, and the
 * first read 500 us or more later starts the counter.
 * Environment: CYCLOCK_SOURCE=tsc forces the counter,
 * CYCLOCK_SOURCE=kernel the kernel's clocks; CYCLOCK_ORDERED_READ=rdtscp
 * or =lfence the ordered read, where it works; any other value gets one
 * message on stderr (only if file descriptor 2 is still the file it was
 * when the library was loaded) and is ignored.
 * The first call (this, or the first read) does the work; later calls only
 * return the result, whatever their flags (except that CYCLOCK_INIT_COARSE
 * still starts the ticker).  Thread-safe; a reader that finds another
 * thread initialising uses the kernel clock meanwhile rather than wait;
 * this function waits for it, so it is not async-signal-safe.
 * Returns CYCLOCK_USING_COUNTER, CYCLOCK_USING_KERNEL, or CYCLOCK_EINVAL
 * for an unknown flag (nothing done).
 */
CYCLOCK_API int cyclock_init(unsigned int flags) CYCLOCK_NOEXCEPT;

/*
 * The hosted clocks.  "Monotonic" below means never less than a value
 * returned before: on the same thread, and across threads for a reading
 * taken after one that happened before it (a lock, a message).
 */

/* CLOCK_MONOTONIC (NTP-slewed), from the counter with an ordered read:
 * monotonic across threads and CPUs.  The one to use by default. */
CYCLOCK_API uint64_t cyclock_now(void) CYCLOCK_NOEXCEPT;

/* The same timeline, from an unordered counter read: the read may move
 * before earlier loads, so it is monotonic on one thread only (on this
 * kind of machine another CPU can see it up to ~0.5 us "early").  For
 * timing a stretch of code on one thread; cheapest. */
CYCLOCK_API uint64_t cyclock_now_relaxed(void) CYCLOCK_NOEXCEPT;

/* CLOCK_MONOTONIC_RAW: the counter times a fixed mult, never slewed by NTP.
 * Ordered; monotonic across threads. */
CYCLOCK_API uint64_t cyclock_raw(void) CYCLOCK_NOEXCEPT;

/* CLOCK_REALTIME: cyclock_now() plus the kernel's REALTIME-MONOTONIC
 * offset, so it steps when the system clock is set (seen within 34 ms,
 * or at once after cyclock_resync()).  Not monotonic. */
CYCLOCK_API uint64_t cyclock_realtime(void) CYCLOCK_NOEXCEPT;

/* CLOCK_BOOTTIME: cyclock_now() plus the time spent suspended.  Ordered;
 * monotonic across threads. */
CYCLOCK_API uint64_t cyclock_boottime(void) CYCLOCK_NOEXCEPT;

/* A coarse CLOCK_MONOTONIC, never ahead of cyclock_now() and monotonic
 * across threads.  By default no thread and no wakeup: the kernel's
 * CLOCK_MONOTONIC_COARSE capped at a value cyclock_now() has reached, so
 * it steps at the kernel's tick and lags cyclock_now() as the kernel's
 * coarse clock lags its own: about a tick, 4-7 ms in these KVM guests
 * (plus cyclock_now()'s distance from the kernel's clock, microseconds).  After
 * cyclock_init(CYCLOCK_INIT_COARSE), one load of what a ticker thread
 * stores every period (1 ms; CYCLOCK_COARSE_PERIOD_US in the environment
 * sets it, but starts no ticker by itself), at most a period plus scheduling delay behind; a child of
 * fork() has no ticker and is back on the default.  Async-signal-safe. */
CYCLOCK_API uint64_t cyclock_coarse(void) CYCLOCK_NOEXCEPT;

/* The kernel's local_clock(): on a counter synchronised across CPUs, the
 * relaxed read.  On one that is not (cyclock_describe() says so), a
 * per-CPU clock that never goes backwards on its CPU and stays within a
 * tick (1 ms) of CLOCK_MONOTONIC, after the kernel's sched_clock_cpu().
 * Values from two CPUs may disagree by up to that much. */
CYCLOCK_API uint64_t cyclock_local(void) CYCLOCK_NOEXCEPT;

/* The raw counter, unordered, for converting later with
 * cyclock_cycles_to_ns().  0 when no counter is in use.  Unlike the
 * clocks, its first call waits for initialisation (cyclock_init()), so
 * that every value it returns is one cyclock_cycles_to_ns() converts. */
CYCLOCK_API uint64_t cyclock_cycles(void) CYCLOCK_NOEXCEPT;

/* A cyclock_cycles() value on cyclock_now()'s timeline: within the
 * current segment, as it converts it; any other (a value from before the
 * last resync, or any while the timeline serves the kernel's clock),
 * counted back from cyclock_now() at the rate, exact to the drift since.
 * With no counter in use, returns cyclock_now(). */
CYCLOCK_API uint64_t cyclock_cycles_to_ns(uint64_t cycles) CYCLOCK_NOEXCEPT;

/* One line: the source, its frequency and where it came from, the
 * frequency's uncertainty, and any fallback and why.  The string is the
 * calling thread's, valid until its next call; thread-safe, not
 * async-signal-safe. */
CYCLOCK_API const char *cyclock_describe(void) CYCLOCK_NOEXCEPT;

/*
 * What the library decided and has done so far, as numbers a program can
 * export (cyclock_get_state(3)): what the process's status block says
 * (cyclock/status.h, which "cyclock status" reads from outside), the
 * counts as of the last resync, with the live segment's mult, shift and
 * raw_mult.  Versioned: the caller sets @version to the
 * CYCLOCK_STATE_VERSION it was built with; a later version only adds
 * fields at the end.  The strings are the library's, of static duration.
 */
#define CYCLOCK_STATE_VERSION 1u
struct cyclock_state {
	uint32_t version;          /* in: the caller's; out: the version filled */
	int32_t using_counter;     /* CYCLOCK_USING_COUNTER or CYCLOCK_USING_KERNEL */
	const char *why;           /* why the kernel's clocks are used, or "" */
	int32_t forced;            /* CYCLOCK_SOURCE=tsc (or the like) chose the counter */
	int32_t local_percpu;      /* cyclock_local() runs per CPU (counters not in step) */
	const char *counter;       /* "tsc", "cntvct", "rdtime", "none", ... */
	double hz;                 /* the counter's frequency, as now estimated */
	double hz_ppm;             /* its uncertainty, parts per million */
	double hz_hint;            /* what the hardware or the first measurement said */
	const char *hz_source;     /* where that came from */
	const char *ordered;       /* the ordered counter read: "rdtscp", "lfence;rdtsc", ... */
	const char *ordered_why;   /* why, with what each cost */
	int32_t warp_ran;          /* the cross-CPU warp check ran (CYCLOCK_INIT_WARP_CHECK) */
	uint64_t warp_turns;       /* its turns: fewer than 100 say nothing */
	int64_t warp_cyc;          /* its largest step back, counts; -1: it could not run */
	uint64_t init_ns;          /* what initialisation cost */
	uint32_t mult, shift;      /* cyclock_now() = ticks * mult >> shift in its segment */
	uint32_t raw_mult;         /* cyclock_raw()'s mult, same shift */
	int32_t kernel_mode;       /* cyclock_now() serves the kernel's clock now */
	const char *kernel_why;    /* why, the last time it did, or "" */
	uint64_t interval_ns;      /* the resync interval now */
	uint64_t max_interval_ns;  /* its ceiling */
	uint64_t resyncs;          /* resyncs of CLOCK_MONOTONIC's timeline */
	uint64_t anomalies;        /* times the counter disagreed with the kernel */
	uint64_t kernel_spells;    /* spells on the kernel's clock */
	uint64_t rate_changes;     /* changes of the kernel's rate followed on the counter */
	int64_t last_err_ns;       /* cyclock_now() - CLOCK_MONOTONIC at the last resync */
	int64_t raw_last_err_ns;   /* cyclock_raw() - CLOCK_MONOTONIC_RAW at the last resync */
};

/*
 * Fill @st with the fields of min(st->version, CYCLOCK_STATE_VERSION) and
 * set st->version to that; the counts are one resync's.  Initialises the
 * library first, as cyclock_init(0).  Returns 0, or CYCLOCK_EINVAL for a
 * NULL @st or a version of 0 (nothing written).  Thread-safe; once
 * initialised, async-signal-safe: it takes no lock and never waits, even
 * in a handler that interrupted a resync.
 */
CYCLOCK_API int cyclock_get_state(struct cyclock_state *st) CYCLOCK_NOEXCEPT;

/* Re-read the kernel clocks now, as when the caller knows the system clock
 * was set.  Once the library is initialised it never waits (if another
 * thread is resyncing, it repeats its resync on behalf of this call) and is
 * async-signal-safe; a first call before that initialises as
 * cyclock_init(0) does, waiting up to 0.5 ms, as cyclock_cycles()'s does. */
CYCLOCK_API void cyclock_resync(void) CYCLOCK_NOEXCEPT;

#ifdef __cplusplus
}
#endif

#if defined(CYCLOCK_INLINE) && !defined(__cplusplus)
#include "cyclock/timeline.h"

#define cyclock_now() cyclock__read(&cyclock__mono, CYCLOCK__ORDERED)
#define cyclock_now_relaxed() cyclock__read(&cyclock__mono, 0)
#define cyclock_raw() cyclock__read(&cyclock__raw, CYCLOCK__ORDERED | CYCLOCK__RAW)
#define cyclock_realtime() cyclock__read(&cyclock__mono, CYCLOCK__ORDERED | CYCLOCK__REAL)
#define cyclock_boottime() cyclock__read(&cyclock__mono, CYCLOCK__ORDERED | CYCLOCK__BOOT)
#define cyclock_local() cyclock__read(&cyclock__mono, CYCLOCK__LOCAL)
#define cyclock_coarse() cyclock__coarse_read()
#endif

#endif /* CYCLOCK_H */
