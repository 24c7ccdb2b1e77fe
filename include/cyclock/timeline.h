/* SPDX-License-Identifier: MIT */
/*
 * The hosted clocks' shared state and their inline readers.  cyclock.h
 * includes this for CYCLOCK_INLINE programs, and src/linux builds the
 * compiled functions from the same readers, so the two cannot drift.
 * Nothing here is a stable interface: the layout may change with the
 * library's version.
 *
 * A timeline is a seqcount latch over two copies of a segment, a
 * piecewise-linear function of the counter, as in the engine
 * (cyclock/latch.h), with one difference: a resync may change the slope
 * (mult).  It does so only where no reader of the old segment can have
 * been: the old segment is valid up to its horizon (the end of its middle
 * piece), and a reader past it that cannot resync itself extrapolates at a
 * slope below any the next segment may take, and stops at the segment's
 * ceiling.  So a new segment, whenever it is published, is never below a
 * value the old one handed out.
 *
 * A timeline may also be in kernel mode (the kernel's clock changes faster
 * than the counter can follow, the counter disagreed with it, or the
 * library is not initialised yet): every read takes the slow path, which
 * returns the kernel's clock, never below the floor that the last
 * counter segment's ceiling set.  docs/hosted.md has the whole argument.
 */
#ifndef CYCLOCK_TIMELINE_H
#define CYCLOCK_TIMELINE_H

#include "core.h"
#include "arch.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * One latch copy: 56 bytes.  A segment is three pieces of one function of
 * the counter: before P, the previous segment's slope (mult_prev), which
 * reproduces it exactly there; from P for horizon_cyc counts (the middle
 * piece, up to the horizon), mult: the rate plus a correction toward the
 * kernel's clock; after that, mult_rate, the rate alone.  The fast path
 * covers the middle piece only.  Past the horizon the slow path resyncs,
 * or, if another thread is resyncing, extrapolates at
 * cyclock__mult_low(mult_rate).
 *
 * The clock at P has a fraction, frac < 2^shift, so the middle piece is
 * epoch_ns + ((cyc - P) * mult + frac) >> shift.  shift <= 32 (the library
 * chooses it so) and horizon_cyc < 2^32 keep the sum below 2^64, so it
 * equals cyc * mult + epoch_k computed mod 2^64: one subtraction fewer on
 * the path from the counter read to the result, which is what an ordered
 * read waits for at the next call.
 */
struct cyclock__seg {
	struct cyclock_u64 epoch_cyc;          /* P: where the middle piece starts */
	struct cyclock_u64 epoch_ns;           /* the clock at P, whole ns */
	struct cyclock_u64 epoch_k;            /* frac - P * mult, mod 2^64: see below */
	struct cyclock_u64 off_real;           /* CLOCK_REALTIME - CLOCK_MONOTONIC */
	struct cyclock_u64 off_boot;           /* CLOCK_BOOTTIME - CLOCK_MONOTONIC */
	CYCLOCK_ATOMIC(uint32_t) horizon_cyc;  /* length of the middle piece, counts */
	CYCLOCK_ATOMIC(uint32_t) mult;         /* ns per count << shift, middle piece */
	CYCLOCK_ATOMIC(uint32_t) mult_prev;    /* before P */
	CYCLOCK_ATOMIC(uint32_t) mult_rate;    /* after the middle piece */
};

/*
 * What only the slow path reads of a latch copy, beside its segment and
 * under the same sequence: 40 bytes (36 and padding).
 *
 * Counter mode: until_cyc is far away (a reader waiting for another
 * thread's resync, where it cannot hand out the kernel's clock, follows
 * the low slope as long as it waits).  A fresh segment
 * (the first after kernel mode) is trusted past its horizon only once its
 * writer has confirmed it was published in time (timeline.confirmed).
 * Kernel mode: reads return the kernel's clock, at least the floor: the
 * last counter function (kept here) up to until_cyc, where it stops at
 * ceil, or ceil alone; until_cyc is past every counter a reader of that
 * function used (track.c's enter_kernel()).  A read past recheck_cyc
 * checks whether the counter can be used again.
 */
struct cyclock__seg_ext {
	struct cyclock_u64 ceil;
	struct cyclock_u64 until_cyc;
	struct cyclock_u64 recheck_cyc; /* kernel mode: look again from here */
	CYCLOCK_ATOMIC(uint32_t) mode;  /* CYCLOCK__MODE_* */
	CYCLOCK_ATOMIC(uint32_t) fresh;
	CYCLOCK_ATOMIC(uint32_t) fn_horizon_cyc; /* the counter function's horizon_cyc (0: kernel mode) */
};

/* Zero (a timeline nobody has started) is kernel mode with floor 0.
 * KERNEL: at least ceil (the counter went wrong: no value of it counts);
 * KERNEL_FN: at least what the last counter segment would have handed
 * out at the reader's counter, up to ceil (the kernel's rate changed). */
#define CYCLOCK__MODE_KERNEL 0u
#define CYCLOCK__MODE_COUNTER 1u
#define CYCLOCK__MODE_KERNEL_FN 2u

/*
 * A timeline.  Cache lines (64 bytes): line 0 holds everything a reader
 * needs while the sequence is even (seq 0..3, shift 4..5, how 6..7,
 * seg[0] 8..63),
 * so a read touches one line; seg[1] (64..119), read only while a writer
 * is between its two bumps, is line 1; the slow path's ext[2] and
 * confirmed (128..211) are lines 2 and 3; what reads past the horizon
 * write, line 4 (256..279).
 *
 * A reader whose counter is past the middle piece (or before P: the
 * subtraction wraps) takes the slow path, which checks the counter
 * against the kernel and resyncs.  A horizon_cyc of 0 (not yet initialised,
 * or using the kernel's clocks) sends every read there, so the fast path
 * has one branch whatever the mode.
 */
struct cyclock__timeline {
	CYCLOCK_ALIGNAS(CYCLOCK_CACHELINE) CYCLOCK_ATOMIC(uint32_t) seq;
	CYCLOCK_ATOMIC(uint16_t) shift;
	CYCLOCK_ATOMIC(uint16_t) how; /* the ordered read: cyclock_arch_counter_ordered_how() */
	struct cyclock__seg seg[2];
	CYCLOCK_ALIGNAS(CYCLOCK_CACHELINE) struct cyclock__seg_ext ext[2];
	CYCLOCK_ATOMIC(uint32_t) confirmed; /* seq (even) of the fresh segment confirmed */
	/* Line 4, the one a read past the horizon writes (src/linux/read.c):
	 * the most that such reads handed out of the kernel's clock (the
	 * writer raises its next segment to it); the counter at the last of
	 * them and how many came in a row, each soon after the one before;
	 * in counts, how soon after the horizon a read must come for a
	 * resync to pay, and how soon after the last for a row to go on. */
	CYCLOCK_ALIGNAS(CYCLOCK_CACHELINE) CYCLOCK_ATOMIC(uint64_t) handed;
	CYCLOCK_ATOMIC(uint64_t) served_cyc;
	CYCLOCK_ATOMIC(uint32_t) served_row;
	uint64_t pay_cyc, row_cyc;
};

/*
 * cyclock_coarse()'s line.  ns: the last cyclock_now() value the coarse
 * ticker stored; 0: no ticker (the default).  below: a value every
 * cyclock_now() from now on is at least (CLOCK_MONOTONIC's timeline
 * raises it at each publish), which the default's reading of the
 * kernel's coarse clock is capped at.
 */
struct cyclock__coarse {
	CYCLOCK_ALIGNAS(CYCLOCK_CACHELINE) CYCLOCK_ATOMIC(uint64_t) ns;
	CYCLOCK_ATOMIC(uint64_t) below;
};

/* What a read is for: which counter read the fast path takes, and which
 * kernel clock the slow path falls back to and which offset it adds. */
#define CYCLOCK__ORDERED 1u /* the ordered counter read (timeline.how), not the plain one */
#define CYCLOCK__REAL 2u    /* add off_real */
#define CYCLOCK__BOOT 4u    /* add off_boot */
#define CYCLOCK__RAW 8u     /* the raw timeline */
#define CYCLOCK__LOCAL 16u  /* cyclock_local(): per-CPU when the counter is unstable */

CYCLOCK_API extern struct cyclock__timeline cyclock__mono; /* CLOCK_MONOTONIC's */
CYCLOCK_API extern struct cyclock__timeline cyclock__raw;  /* CLOCK_MONOTONIC_RAW's */
CYCLOCK_API extern struct cyclock__coarse cyclock__coarse;

/* The slope a reader past a segment's horizon uses while another thread
 * resyncs: 1/512 (1953 ppm) below the rate, below any slope the next
 * segment takes (the writer clamps them), so a lead over the kernel is
 * taken back at up to that. */
static inline uint32_t cyclock__mult_low(uint32_t mult_rate)
{
	return mult_rate - mult_rate / 512;
}

/* Everything the fast path leaves: see src/linux/read.c.  @seq and @cyc:
 * the sequence and the counter the fast path read, where it stopped. */
CYCLOCK_API uint64_t cyclock__slow(unsigned int kind, uint32_t seq, uint64_t cyc);
CYCLOCK_API uint64_t cyclock__coarse_slow(void);

/*
 * What the library knows about its counter and its tracking, for the
 * cyclock tool and the tests.  Filled by cyclock__get_info(); a snapshot.
 */
struct cyclock__info {
	int using_counter;        /* CYCLOCK_USING_COUNTER or CYCLOCK_USING_KERNEL */
	int local_percpu;         /* cyclock_local() runs per CPU (unsynchronised counter) */
	const char *counter;      /* "tsc", "sim", "none" */
	const char *why;          /* why the kernel's clocks are used, or "" */
	double hz;                /* the counter's frequency, as now estimated */
	double hz_hint;           /* what CPUID or the first measurement said */
	const char *hz_source;    /* "cpuid 0x15", "hypervisor 0x40000010", "measured" */
	double hz_ppm;            /* uncertainty of hz, parts per million */
	uint32_t mult, shift;     /* cyclock_now()'s current mult and shift */
	uint32_t raw_mult;        /* cyclock_raw()'s */
	uint64_t interval_ns;     /* current resync interval */
	uint64_t max_interval_ns; /* its ceiling */
	uint64_t resyncs;       /* resyncs of the MONOTONIC timeline so far */
	uint64_t anomalies;       /* times the counter disagreed with the kernel */
	uint64_t kernel_spells;   /* times the timeline served the kernel's clock since init */
	uint64_t rate_changes;    /* changes of the kernel's rate followed on the counter */
	int kernel_mode;          /* CLOCK_MONOTONIC's timeline serves the kernel's clock now */
	const char *kernel_why;   /* why, the last time it did */
	int64_t last_err_ns;      /* cyclock_now() - CLOCK_MONOTONIC at the last resync */
	int64_t raw_last_err_ns;  /* cyclock_raw() - CLOCK_MONOTONIC_RAW at the last resync */
	int64_t warp_cyc;         /* largest backward step in the init warp check, counts */
	const char *ordered;      /* the ordered read chosen: "rdtscp", "lfence;rdtsc", ... */
	const char *ordered_why;  /* why, with what each cost */
	uint64_t init_ns;         /* what initialisation cost */
};
CYCLOCK_API void cyclock__get_info(struct cyclock__info *info);

#ifndef __cplusplus

/* The ordered counter read @tl's readers use: a branch on its how, on the
 * sequence's line, the same at every call. */
static inline uint64_t cyclock__counter_ordered(const struct cyclock__timeline *tl)
{
	return cyclock_arch_counter_ordered_how(atomic_load_explicit(&tl->how, memory_order_relaxed));
}

/*
 * The fast path of every counter clock, in two parts: *base, the clock at
 * the segment's start (epoch_ns plus the offsets @kind asks for), and
 * *since, the ns since then.  false: the counter is outside the middle
 * piece (or the library is not using it), and the caller takes the slow
 * path, with *base the sequence and *since the counter it read, for
 * cyclock__slow().  @kind is a constant at each call site, so the
 * branches on it fold away.  The ordered counter read waits for every earlier load, the
 * sequence's among them, so a reader that sees a newer copy also reads a
 * later counter than the writer that made it (cyclock__counter_ordered()).
 *
 * *base is loaded, not computed from the counter: a caller that splits it
 * into seconds (the preload's struct timespec) does so while the counter
 * read is under way, and only the add of *since waits for the counter.
 */
static inline bool cyclock__read_parts(struct cyclock__timeline *tl, unsigned int kind,
				       uint64_t *base, uint64_t *since)
{
	const struct cyclock__seg *s;
	uint64_t cyc, delta;
	uint32_t seq;

	do {
		seq = cyclock__latch_begin(&tl->seq);
		s = &tl->seg[seq & 1];
		cyc = (kind & CYCLOCK__ORDERED) ? cyclock__counter_ordered(tl) : cyclock_arch_counter();
		delta = cyc - cyclock__load64(&s->epoch_cyc);
		if (cyclock_unlikely(delta >= atomic_load_explicit(&s->horizon_cyc,
								   memory_order_relaxed))) {
			*base = seq;
			*since = cyc;
			return false;
		}
		*base = cyclock__load64(&s->epoch_ns);
		if (kind & CYCLOCK__REAL)
			*base += cyclock__load64(&s->off_real);
		if (kind & CYCLOCK__BOOT)
			*base += cyclock__load64(&s->off_boot);
		*since = (cyc * atomic_load_explicit(&s->mult, memory_order_relaxed) +
			  cyclock__load64(&s->epoch_k)) >>
			 atomic_load_explicit(&tl->shift, memory_order_relaxed);
	} while (cyclock__latch_retry(&tl->seq, seq));
	return true;
}

/* A counter clock's value: the fast path, or the slow one. */
static inline uint64_t cyclock__read(struct cyclock__timeline *tl, unsigned int kind)
{
	uint64_t base, since;

	if (cyclock_likely(cyclock__read_parts(tl, kind, &base, &since)))
		return base + since;
	return cyclock__slow(kind, (uint32_t)base, since);
}

static inline uint64_t cyclock__coarse_read(void)
{
	uint64_t ns = atomic_load_explicit(&cyclock__coarse.ns, memory_order_relaxed);

	return cyclock_likely(ns) ? ns : cyclock__coarse_slow();
}

#endif /* !__cplusplus */

#ifdef __cplusplus
}
#endif

#endif /* CYCLOCK_TIMELINE_H */
