/* SPDX-License-Identifier: MIT */
/*
 * The hosted clocks' shared state and their inline readers.  cyclock.h
 * includes this for CYCLOCK_INLINE programs, and src/linux builds the
 * compiled functions from the same readers, so the two cannot drift.
 * Nothing here is a stable interface: the layout may change with the
 * library's version.
 *
 * A timeline is a seqcount latch over two copies of a segment, a linear
 * function of the counter up to its horizon, as in the engine
 * (cyclock/latch.h), with two differences.  A writer publishes by writing
 * the copy readers are not using and then bumping the sequence once, so
 * that a writer abandoned anywhere (a signal handler that longjmps out, a
 * cancel) leaves a whole copy behind.  And a reader past the horizon, which
 * returns the kernel's clock, says so by counting itself in the sequence
 * word, so that the writer's bump fails and it raises its segment to the
 * kernel's clock first.  docs/hosted.md has the whole argument.
 */
#ifndef CYCLOCK_TIMELINE_H
#define CYCLOCK_TIMELINE_H

#include "core.h"
#include "arch.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * One latch copy: 48 bytes.  From P for horizon_cyc counts (the middle
 * piece), the clock is epoch_sec_ns + ((cyc - P) * mult + frac) >> shift:
 * epoch_sec_ns is the clock at P down to its whole second (a multiple of
 * 10^9 ns), and frac the rest of it in fixed point (ns << shift), so that
 * a reader that splits the clock into seconds and nanoseconds (the
 * preload's struct timespec) needs no division on the path from the
 * counter, as the kernel's vDSO keeps its seconds and shifted nanoseconds.
 * The rest is under 2^(30 + shift), the middle piece's ns (under
 * CYCLOCK_MAX_INTERVAL_NS, 2 ms) under 2^(21 + shift), and shift <= 32
 * (the library chooses it so): the sum stays below 2^63, so it equals
 * cyc * mult + epoch_k computed mod 2^64, one subtraction fewer on the
 * path from the counter read to the result, which is what an ordered read
 * waits for at the next call (src/linux/segment.c converts).  The fast
 * path covers the middle piece only; a counter before P reads P's value,
 * one past the horizon the kernel's clock (src/linux/read.c).  Kernel mode
 * is a segment of no length: every read takes the slow path, which serves
 * the kernel's clock, never below the value at P (the floor).
 */
struct cyclock__seg {
	struct cyclock_u64 epoch_cyc;          /* P: where the middle piece starts */
	struct cyclock_u64 epoch_sec_ns;       /* the clock at P, whole seconds, in ns */
	struct cyclock_u64 epoch_k;            /* frac - P * mult, mod 2^64: see above */
	struct cyclock_u64 off_real;           /* CLOCK_REALTIME - CLOCK_MONOTONIC, packed: */
	struct cyclock_u64 off_boot;           /* CLOCK_BOOTTIME - CLOCK_MONOTONIC, see below */
	CYCLOCK_ATOMIC(uint32_t) horizon_cyc;  /* length of the middle piece, counts; 0: kernel mode */
	CYCLOCK_ATOMIC(uint32_t) mult;         /* ns per count << shift */
};

/*
 * An offset from MONOTONIC as a copy keeps it: its whole seconds q
 * (rounded down) above bit 30, the rest below, in ns, so that a reader
 * that splits seconds from nanoseconds divides nothing (as with the
 * start's whole second, above).  q is kept as (q + 2^31) ^ 2^31 in 34
 * bits: every offset a kernel can have fits (REALTIME - MONOTONIC is at
 * least minus the uptime and at most KTIME_MAX, the year 2262, 9.3e9 s:
 * within [-2^31, 2^34 - 2^31) s; BOOTTIME - MONOTONIC, the time
 * suspended, is small and never negative), and an offset of 0 is kept as
 * 0, as a timeline is before its first publish.  src/linux/segment.c
 * packs.
 */
#define CYCLOCK__OFF_REST_BITS 30
#define CYCLOCK__OFF_BIAS (1ull << 31)

/* The packed offset @f's whole seconds (mod 2^64: negative too). */
static inline uint64_t cyclock__off_sec(uint64_t f)
{
	return ((f >> CYCLOCK__OFF_REST_BITS) ^ CYCLOCK__OFF_BIAS) - CYCLOCK__OFF_BIAS;
}

/* Its rest, ns below 10^9. */
static inline uint64_t cyclock__off_rest(uint64_t f)
{
	return f & ((1ull << CYCLOCK__OFF_REST_BITS) - 1);
}

/* The offset itself, in ns (mod 2^64). */
static inline uint64_t cyclock__off_ns(uint64_t f)
{
	return cyclock__off_sec(f) * 1000000000ull + cyclock__off_rest(f);
}

/* What only the slow path and the writer read of a copy, under the same
 * sequence: the rate alone (mult less the correction), and in kernel mode
 * when to look at the counter again.  16 bytes. */
struct cyclock__seg_ext {
	struct cyclock_u64 recheck_cyc;
	CYCLOCK_ATOMIC(uint32_t) mult_rate;
	CYCLOCK_ATOMIC(uint32_t) drift_ppb; /* the rate's uncertainty, for a resync's look */
};

/* The sequence word: the sequence, whose low bit names the copy readers
 * use, and above it the reads that served the kernel's clock since the
 * last publish. */
#define CYCLOCK__SEQ(word) ((uint32_t)(word))
#define CYCLOCK__SERVED_ONE (1ull << 32)

/*
 * A timeline.  Cache lines (64 bytes): line 0 holds everything a reader
 * needs while the sequence is even (the word 0..7, shift 8..9, how
 * 10..11, the preload's clocks 12..15, seg[0] 16..63), so a read touches
 * one line; seg[1] (64..111) is
 * line 1, read while the sequence is odd (between a publish and the
 * writer's copy back); the slow path's ext[2] (128..159) is line 2; what
 * reads past the horizon note down, and its thresholds, line 3, with
 * cyclock__mono's the kernel's clock_gettime() they call.  Aligned to its
 * size, so that a read past the horizon finds all it needs on one page
 * (docs/hosted.md, "A read after a pause").
 *
 * A reader whose counter is past the middle piece (or before P: the
 * subtraction wraps) takes the slow path.  A horizon_cyc of 0 (not yet
 * initialised, kernel mode, or the kernel's clocks) sends every read
 * there, so the fast path has one branch whatever the mode.
 */
struct cyclock__timeline {
	CYCLOCK_ALIGNAS(4 * CYCLOCK_CACHELINE) CYCLOCK_ATOMIC(uint64_t) seq;
	CYCLOCK_ATOMIC(uint16_t) shift;
	CYCLOCK_ATOMIC(uint16_t) how; /* the ordered read: cyclock_arch_counter_ordered_how(),
				       * or CYCLOCK__HOW_KERNEL */
	/* cyclock__mono's in the preload: the clock ids it serves, as bits,
	 * and whether relaxed (src/preload/preload.c), on the line its
	 * clock_gettime() reads anyway; 0 elsewhere. */
	CYCLOCK_ATOMIC(uint32_t) preload_clocks;
	struct cyclock__seg seg[2];
	CYCLOCK_ALIGNAS(CYCLOCK_CACHELINE) struct cyclock__seg_ext ext[2];
	/* The counter at the last read that served the kernel's clock and
	 * how many came in a row, each soon after the one before; in counts,
	 * how soon after the horizon a read must come for a resync to pay,
	 * and how soon after the last for a row to go on (read.c). */
	CYCLOCK_ALIGNAS(CYCLOCK_CACHELINE) CYCLOCK_ATOMIC(uint64_t) served_cyc;
	CYCLOCK_ATOMIC(uint32_t) served_row;
	CYCLOCK_ATOMIC(uint64_t) pay_cyc, row_cyc; /* 0 until init sets them */
	/* cyclock__mono's alone: the vDSO's clock_gettime() as an integer,
	 * set at load where the library may call it directly (0: it calls
	 * the next definition instead; src/linux/machine.h). */
	CYCLOCK_ATOMIC(uintptr_t) kernel_gettime;
	/* The timeline itself, as the program sees it: the library's own
	 * code reads it through this, not through its GOT
	 * (src/linux/internal.h, cyclock__tl_of()).  Set by the loader. */
	struct cyclock__timeline *self;
};

/*
 * cyclock_coarse()'s line.  ns: the last cyclock_now() value the coarse
 * ticker stored; 0: no ticker (the default).  below: a value
 * cyclock_now() returned, so every cyclock_now() from now on is at least
 * it, which the default's reading of the kernel's coarse clock is capped
 * at (src/linux/coarse.c).
 */
struct cyclock__coarse {
	CYCLOCK_ALIGNAS(CYCLOCK_CACHELINE) CYCLOCK_ATOMIC(uint64_t) ns;
	CYCLOCK_ATOMIC(uint64_t) below;
};

/* What a read is for: which counter read the fast path takes, and which
 * kernel clock the slow path falls back to and which offset it adds. */
/* timeline.how when the library does not use the counter: every read
 * takes the slow path, which reads the kernel's clock, without reading
 * the counter first. */
#define CYCLOCK__HOW_KERNEL 0xffffu
#define CYCLOCK__ORDERED 1u /* the ordered counter read (timeline.how), not the plain one */
#define CYCLOCK__REAL 2u    /* add off_real */
#define CYCLOCK__BOOT 4u    /* add off_boot */
#define CYCLOCK__RAW 8u     /* the raw timeline */
#define CYCLOCK__LOCAL 16u  /* cyclock_local(): per-CPU when the counter is unstable */

CYCLOCK_API extern struct cyclock__timeline cyclock__mono; /* CLOCK_MONOTONIC's */
CYCLOCK_API extern struct cyclock__timeline cyclock__raw;  /* CLOCK_MONOTONIC_RAW's */
CYCLOCK_API extern struct cyclock__coarse cyclock__coarse;


/* Everything the fast path leaves: see src/linux/read.c.  @word and @cyc:
 * the sequence word and the counter the fast path read, where it stopped. */
CYCLOCK_API uint64_t cyclock__slow(unsigned int kind, uint64_t word, uint64_t cyc) CYCLOCK_NOEXCEPT;
CYCLOCK_API uint64_t cyclock__coarse_slow(void) CYCLOCK_NOEXCEPT;

#if CYCLOCK_HAS_ATOMICS

/* The readers below are the clocks' whole fast path: inlined into each
 * clock, where @kind is a constant and its branches fold away (left to
 * itself GCC keeps one copy that branches on @kind at every call). */
#define CYCLOCK__READER static inline __attribute__((always_inline))

/* The timeline's latch over its word: the word, at the start of a read
 * (the acquire pairs with the writer's release of it); and whether the
 * sequence moved since, so that the copy read may be torn (the acquire
 * fence pairs with the writer's release fence before it writes a copy).
 * The count of served reads above the sequence may move meanwhile: a
 * reader need not read again for that.  model_publish fails without
 * either (docs/hosted.md, "What each order is for": timeline-begin,
 * timeline-retry-fence). */
CYCLOCK__READER uint64_t cyclock__tl_begin(const struct cyclock__timeline *tl)
{
	return cyclock_atomic_load(&tl->seq, CYCLOCK_ACQUIRE);
}

CYCLOCK__READER bool cyclock__tl_retry(const struct cyclock__timeline *tl, uint64_t word)
{
	cyclock_atomic_fence(CYCLOCK_ACQUIRE);
	return CYCLOCK__SEQ(cyclock_atomic_load(&tl->seq, CYCLOCK_RELAXED)) !=
	       CYCLOCK__SEQ(word);
}

/* The ordered counter read @tl's readers use: a branch on its how, on the
 * sequence's line, the same at every call. */
CYCLOCK__READER uint64_t cyclock__counter_ordered(const struct cyclock__timeline *tl)
{
	return cyclock_arch_counter_ordered_how(cyclock_atomic_load(&tl->how, CYCLOCK_RELAXED));
}

/* The offset @kind asks for, as copy @s keeps it (packed); 0 for none. */
CYCLOCK__READER uint64_t cyclock__seg_off(const struct cyclock__seg *s, unsigned int kind)
{
	return kind & CYCLOCK__REAL   ? cyclock__load64(&s->off_real)
	       : kind & CYCLOCK__BOOT ? cyclock__load64(&s->off_boot)
				      : 0;
}

/*
 * The fast path of every counter clock, in parts: *base, the clock at
 * the segment's start's second (epoch_sec_ns), *since, the ns since then,
 * and *off, the offset @kind asks for as the copy keeps it (0 for none;
 * the value is their sum, cyclock__read()).  false: the counter is outside
 * the middle piece (or the library is not using it: then without reading
 * it), and the caller takes the slow path, with *base the sequence and
 * *since the counter it read, for cyclock__slow().  @kind is a constant
 * at each call site, so the branches on it fold away.  The ordered counter
 * read waits for every earlier load, the word's among them, so a reader
 * that sees a newer copy also reads a later counter than the writer that
 * made it.
 *
 * *base and *off are loaded, not computed from the counter: a caller that
 * splits the value into seconds (the preload's struct timespec) takes
 * theirs while the counter read is under way, and only the add of the
 * offset's rest and a compare wait for the counter.
 */
CYCLOCK__READER bool cyclock__read_parts(struct cyclock__timeline *tl, unsigned int kind,
				       uint64_t *base, uint64_t *since, uint64_t *off)
{
	const struct cyclock__seg *s;
	uint64_t word, cyc, delta;
	uint32_t how;

	do {
		word = cyclock__tl_begin(tl);
		how = cyclock_atomic_load(&tl->how, CYCLOCK_RELAXED);
		if (cyclock_unlikely(how == CYCLOCK__HOW_KERNEL)) {
			*base = word;
			*since = 0;
			return false;
		}
		s = &tl->seg[word & 1];
		cyc = (kind & CYCLOCK__ORDERED) ? cyclock_arch_counter_ordered_how(how)
						: cyclock_arch_counter();
		delta = cyc - cyclock__load64(&s->epoch_cyc);
		if (cyclock_unlikely(delta >= cyclock_atomic_load(&s->horizon_cyc,
								  CYCLOCK_RELAXED))) {
			*base = word;
			*since = cyc;
			return false;
		}
		*base = cyclock__load64(&s->epoch_sec_ns);
		*off = cyclock__seg_off(s, kind);
		*since = (cyc * cyclock_atomic_load(&s->mult, CYCLOCK_RELAXED) +
			  cyclock__load64(&s->epoch_k)) >>
			 cyclock_atomic_load(&tl->shift, CYCLOCK_RELAXED);
	} while (cyclock__tl_retry(tl, word));
	return true;
}

/* A counter clock's value: the fast path, or the slow one. */
CYCLOCK__READER uint64_t cyclock__read(struct cyclock__timeline *tl, unsigned int kind)
{
	uint64_t base, since, off;

	if (cyclock_likely(cyclock__read_parts(tl, kind, &base, &since, &off)))
		return base + since + cyclock__off_ns(off);
	return cyclock__slow(kind, base, since);
}

/* The ticker's value, or the kernel's coarse clock under the cap.  The
 * acquire pairs with the ticker's store (src/linux/coarse.c): a reader
 * handed the value sees the segment it came from, so that its own
 * cyclock_now() after is not below it. */
static inline uint64_t cyclock__coarse_read(void)
{
	uint64_t ns = cyclock_atomic_load(&cyclock__coarse.ns, CYCLOCK_ACQUIRE);

	return cyclock_likely(ns) ? ns : cyclock__coarse_slow();
}

#endif /* CYCLOCK_HAS_ATOMICS */

#ifdef __cplusplus
}
#endif

#endif /* CYCLOCK_TIMELINE_H */
