/* SPDX-License-Identifier: MIT */
/*
 * cyclock engine: a hardware counter of any width and rate turned into a
 * wait-free nanosecond clock, after the Linux kernel's generic sched_clock
 * (kernel/time/sched_clock.c) and its per-CPU local_clock
 * (kernel/sched/clock.c).
 *
 * Freestanding C11: no libc, no allocation, no errno, no threads.  The
 * caller owns all memory, supplies the counter, and calls cyclock_update()
 * at least every cyclock_wrap_ns() nanoseconds (from a timer interrupt in
 * firmware, lazily from readers in a hosted program); a 64-bit counter's
 * clock stays exact when it does not (cyclock__scale()).
 *
 * Readers never write shared memory and never wait: a seqcount latch keeps
 * two copies of the epoch, and the low bit of the sequence says which copy
 * is stable, so a reader that interrupts a writer (a signal handler, an
 * interrupt) reads the other copy and completes.
 *
 * Over 400 lines: it is the engine's whole interface, the one header
 * firmware includes, and half of it is comment: each function's
 * contract (context, return values), and the layouts, whose byte
 * arithmetic is ABI and sits beside the fields it counts.  The per-CPU
 * mode could stand in a header of its own, but this one would have to
 * include it for the programs that reach it here today, and nothing would
 * be shorter to read; the inline readers at its end are the compiled
 * functions' own code (clock.c, percpu.c), kept beside their contracts.
 */
#ifndef CYCLOCK_CORE_H
#define CYCLOCK_CORE_H

#include "deps.h"

#ifdef __cplusplus
extern "C" {
#endif

#if defined(CYCLOCK_BUILDING) && defined(__GNUC__)
#define CYCLOCK_API __attribute__((visibility("default")))
#else
#define CYCLOCK_API
#endif

/* The functions throw nothing: in C++ they are noexcept, so that a
 * noexcept caller (cyclock.hpp's now()) needs no exception table around
 * the call, and can end in a tail call to it (clang does; GCC 12 keeps a
 * call where the caller returns a class).  (The model checker's build,
 * which compiles the library itself as C++, says otherwise in its
 * atomics header.) */
#ifdef CYCLOCK_NOEXCEPT
#elif defined(__cplusplus) && __cplusplus >= 201103L
#define CYCLOCK_NOEXCEPT noexcept
#elif defined(__cplusplus)
#define CYCLOCK_NOEXCEPT throw()
#else
#define CYCLOCK_NOEXCEPT
#endif

/* Negative return values of the functions that can refuse their input. */
#define CYCLOCK_EINVAL (-22)  /* a NULL pointer, a width of 0 or > 64, a zero rate, a bad CPU */
#define CYCLOCK_EBUSY (-16)   /* a source of a higher rating is registered */
#define CYCLOCK_ERANGE (-34)  /* a rate the engine cannot convert to nanoseconds */
#define CYCLOCK_ENOTSUP (-95) /* not available on this target (per-CPU mode without 64-bit atomics) */

/* The fastest rate accepted: one count must last at least 2^-32 ns. */
#define CYCLOCK_MAX_RATE_HZ (1000000000ull << 32)

/*
 * A counter.  The engine keeps the pointer, not a copy: the source must
 * stay valid while it is registered (usually it is a static const).
 */
struct cyclock_source {
	const char *name;
	uint64_t (*read)(const struct cyclock_source *src); /* raw counter value */
	void *priv;                                         /* for read()'s own use */
	uint64_t rate_hz;                                   /* counts per second, > 0 */
	unsigned int bits;                                  /* counter width, 1..64 */
	int rating; /* higher is better: a lower one does not replace it (cyclock_register()) */
};

/* A 64-bit latch-protected value; see CYCLOCK_U64_IS_SPLIT in deps.h. */
struct cyclock_u64 {
#if CYCLOCK_U64_IS_SPLIT
	CYCLOCK_ALIGNAS(8) CYCLOCK_ATOMIC(uint32_t) lo;
	CYCLOCK_ATOMIC(uint32_t) hi;
#else
	CYCLOCK_ALIGNAS(8) CYCLOCK_ATOMIC(uint64_t) v;
#endif
};

/* The hot part of one latch copy: changes at every update.  24 bytes. */
struct cyclock_read_data {
	struct cyclock_u64 epoch_ns;   /* nanoseconds at epoch_cyc */
	struct cyclock_u64 epoch_cyc;  /* counter value at the last update */
	struct cyclock_u64 epoch_frac; /* what the last update's ns truncated, in 2^-shift ns */
};

/*
 * The read-mostly part of one latch copy: changes only when the source or
 * the mode changes (register, suspend, resume), so updates never dirty its
 * line.  It is latched as well, so a reader never pairs one source's epoch
 * with another's mult.  The source is one pointer, its read function
 * taken from it: a reader may load a copy the writer is rewriting (the
 * retry then discards what it computed), and a read function and a source
 * kept apart could come from two writes, so that one source's read() was
 * called with another's struct, or with none after a suspend (the model
 * checker's harness 1 found it: docs/model.md).  24 bytes.
 */
struct cyclock_read_mostly {
	CYCLOCK_ATOMIC(const struct cyclock_source *) src; /* read as src->read(src);
							    * NULL: the clock stands still */
	struct cyclock_u64 mask;                           /* 2^bits - 1 */
	CYCLOCK_ATOMIC(uint32_t) mult;                     /* ns = cyc * mult >> shift */
	CYCLOCK_ATOMIC(uint32_t) shift;
};

/*
 * The writers' own state, under the writer flag: plain data, shared from
 * one writer to the next by the flag's release and acquire
 * (CYCLOCK_SHARED, cyclock/atomic.h).  wrap_ns is also read, without the
 * flag, by cyclock_wrap_ns(): an atomic, like the latch's fields.
 */
struct cyclock_cold {
	CYCLOCK_SHARED(const struct cyclock_source *) src; /* registered source, NULL if none */
	struct cyclock_u64 wrap_ns; /* update at least this often; 0 if no source */
	CYCLOCK_SHARED(uint64_t) mask;
	CYCLOCK_SHARED(uint64_t) error_ppt; /* mult / 2^shift against 1e9 / rate, in ppt */
	CYCLOCK_SHARED(uint32_t) mult;
	CYCLOCK_SHARED(uint32_t) shift;
	CYCLOCK_SHARED(bool) suspended;
};

/*
 * The clock.  Cache-line budget (64-byte lines; the static asserts in
 * src/core/clock.c check it):
 *
 *   line 0, hot:   seq (4) + writer (4) + read_data[2] (2 x 24) = 56 bytes.
 *                  Readers load seq and one read_data; writers store all.
 *   line 1, read-mostly: read_mostly[2] (2 x 24 = 48 bytes).  Readers load
 *                  one copy; only a change of source or mode stores here.
 *   line 2, cold:  the registered source, wrap interval, writer's state.
 *
 * A reader therefore touches two lines of the clock, and its source (whose
 * read() it calls, and which that read() usually uses), and an update
 * invalidates only the one the reader must re-fetch anyway (the new
 * epoch).
 * Zero-initialised, a clock reads 0 until a source is registered.  It must
 * be CYCLOCK_CACHELINE-aligned (static and automatic storage are; use
 * aligned_alloc() for the heap).
 */
struct cyclock {
	CYCLOCK_ALIGNAS(CYCLOCK_CACHELINE) CYCLOCK_ATOMIC(uint32_t) seq;
	CYCLOCK_ATOMIC(uint32_t) writer; /* 1 while a writer owns the latch */
	struct cyclock_read_data read_data[2];
	CYCLOCK_ALIGNAS(CYCLOCK_CACHELINE) struct cyclock_read_mostly read_mostly[2];
	CYCLOCK_ALIGNAS(CYCLOCK_CACHELINE) struct cyclock_cold cold;
};

/*
 * Register @src as @clk's counter.  The first source starts at 0 ns; a
 * later one continues from the value the clock has when it is switched:
 * the new source's counter is read first, so the clock moves ahead by the
 * few ns between the two reads and never back, even for concurrent readers.
 * A source of a lower rating than the registered one's is refused
 * (CYCLOCK_EBUSY), as the kernel keeps its best clocksource; an equal or
 * higher one replaces it.  Registering while suspended takes effect at
 * resume.
 *
 * Chooses mult/shift and the update interval, cyclock_wrap_ns(): as long
 * as the counter allows, up to an hour, so that firmware wakes up rarely.
 * The hard limit is the lesser of half the counter's period (a counter a
 * little behind the epoch reads as the epoch, see cyclock_read()) and the
 * delta whose conversion would overflow 64 bits; the interval is that
 * limit less 12.5%, a margin for late updates.  The shift is the largest
 * that still allows the interval, so the rate, mult / 2^shift against
 * 1e9 / rate_hz, is as fine as that interval permits.  Only where the rate
 * would then be off by more than 100 ppb (the fastest 64-bit counters:
 * above about 1 GHz at an hour) is the interval shortened, to the longest
 * whose rate is within 100 ppb, never below a second; so for every rate
 * up to 1 THz the rate is within 100 ppb.  Updates themselves lose
 * nothing (the epoch carries the truncated fraction): the rate's error is
 * the clock's whole error against the nominal rate_hz.
 *
 * Not async-signal-safe: may spin while another writer finishes.
 * Returns 0, CYCLOCK_EINVAL (NULL clk/src/read, bits 0 or > 64, rate 0),
 * CYCLOCK_ERANGE (one count shorter than 2^-32 ns) or CYCLOCK_EBUSY; on
 * error @clk is as it was.
 */
CYCLOCK_API int cyclock_register(struct cyclock *clk,
				 const struct cyclock_source *src) CYCLOCK_NOEXCEPT;

/* What cyclock_register_opts() may be asked; zero-initialised, cyclock_register().
 * No struct shares a function's name: in C++ the two would hide each
 * other (g++ -Wshadow). */
struct cyclock_register_options {
	/*
	 * Update at least this often, 0 for as rarely as the counter allows:
	 * a shorter interval buys a larger shift, so a finer rate, for a
	 * caller that updates often anyway.  At least one count.
	 */
	uint64_t max_interval_ns;
	unsigned int flags; /* CYCLOCK_REGISTER_FORCE */
};

/* Replace the registered source whatever its rating. */
#define CYCLOCK_REGISTER_FORCE 1u

/*
 * cyclock_register() with @opts (NULL: the defaults).  Also CYCLOCK_EINVAL
 * for an unknown flag.
 */
CYCLOCK_API int cyclock_register_opts(struct cyclock *clk, const struct cyclock_source *src,
				      const struct cyclock_register_options *opts) CYCLOCK_NOEXCEPT;

/*
 * Nanoseconds since the first registration.  Wait-free for practical
 * purposes (retries only if an update completed meanwhile), never writes
 * shared memory, async-signal-safe, never blocks.  A counter read that
 * lands a little before the epoch (another CPU's counter slightly behind)
 * reads as the epoch itself, never as a near-wrap.
 */
CYCLOCK_API uint64_t cyclock_read(const struct cyclock *clk) CYCLOCK_NOEXCEPT;

/*
 * Move the epoch to now.  Call at least every cyclock_wrap_ns().  Never
 * blocks: if another writer holds the latch (another thread, or the code
 * this signal handler interrupted) it returns at once, since that writer
 * is updating the epoch.  Does nothing while suspended or unregistered.
 * Async-signal-safe.
 */
CYCLOCK_API void cyclock_update(struct cyclock *clk) CYCLOCK_NOEXCEPT;

/* How often cyclock_update() must run, in ns; 0 if no source is registered. */
CYCLOCK_API uint64_t cyclock_wrap_ns(const struct cyclock *clk) CYCLOCK_NOEXCEPT;

/*
 * Freeze the clock at its current value and stop reading the counter (the
 * hardware may lose power).  cyclock_resume() continues from the frozen
 * value whatever the counter did meanwhile.  Both are idempotent, may spin
 * while another writer finishes, and are not async-signal-safe.
 * Call cyclock_suspend() with no reader running concurrently, as the
 * kernel suspends with interrupts off on one CPU: a reader that runs
 * between the freeze's counter read and its publication (on another CPU,
 * or in an interrupt of the suspending code) can return up to that long
 * past the frozen value, and the next read would then step back.  A
 * frozen value must be published before it is known, so no latch can
 * close that window.  Resume has no such window.
 */
CYCLOCK_API void cyclock_suspend(struct cyclock *clk) CYCLOCK_NOEXCEPT;
CYCLOCK_API void cyclock_resume(struct cyclock *clk) CYCLOCK_NOEXCEPT;

/*
 * The largest shift for which mult = round(to_hz * 2^shift / from_hz) fits
 * 32 bits and converting @maxsec seconds of counts (maxsec * from_hz)
 * cannot overflow 64 bits, as the kernel's clocks_calc_mult_shift() does,
 * but with 64-bit rates and the exact overflow bound.  @maxsec of 0 means
 * only the 32-bit limit applies.  If no mult >= 1 fits (or from_hz is 0),
 * sets *mult = 0 and *shift = 0.
 */
CYCLOCK_API void cyclock_calc_mult_shift(uint32_t *mult, uint32_t *shift, uint64_t from_hz,
					 uint64_t to_hz, uint32_t maxsec) CYCLOCK_NOEXCEPT;

/* (cyc * mult) >> shift: the caller keeps cyc * mult below 2^64. */
CYCLOCK_API uint64_t cyclock_cyc_to_ns(uint64_t cyc, uint32_t mult,
				       uint32_t shift) CYCLOCK_NOEXCEPT;

/* (delta * mult + frac) >> shift in 128 bits, the remainder in *@rem
 * (@rem may be NULL), saturated at UINT64_MAX: the conversion of a delta
 * past the update interval, which 64 bits cannot hold (cyclock__scale()). */
CYCLOCK_API uint64_t cyclock__scale_wide(uint64_t delta, uint32_t mult, uint64_t frac,
					 uint32_t shift, uint64_t *rem) CYCLOCK_NOEXCEPT;

/* (delta * mult + frac) >> shift, exact whatever the delta: one multiply
 * within the update interval, cyclock__scale_wide() past it (a 64-bit
 * counter nobody updated for longer; a narrower one has wrapped by then,
 * and its delta is what is left of the wrap, as in the kernel). */
static inline uint64_t cyclock__scale(uint64_t delta, uint32_t mult, uint64_t frac,
				      uint32_t shift, uint64_t *rem)
{
	uint64_t prod;

	if (cyclock_unlikely(__builtin_mul_overflow(delta, (uint64_t)mult, &prod) ||
			     __builtin_add_overflow(prod, frac, &prod)))
		return cyclock__scale_wide(delta, mult, frac, shift, rem);
	if (rem)
		*rem = prod & ((1ull << shift) - 1);
	return prod >> shift;
}

/*
 * The kernel-style line for @clk's registered source:
 * "32 bits at 19200000 Hz, resolution 52.083 ns, update every 97867093324 ns,
 * rate within 0.096 ppb": the update interval (cyclock_wrap_ns()) and how
 * far mult / 2^shift is from the nominal rate, rounded up to 0.001 ppb (a
 * resolution under 1000 ns that is not whole gets three decimals too).
 * Writes at most @len bytes including the NUL; returns the length of the
 * whole line, as snprintf() does.  Call it from the writer's context.
 */
CYCLOCK_API size_t cyclock_format_summary(const struct cyclock *clk, char *buf,
					  size_t len) CYCLOCK_NOEXCEPT;

/*
 * Per-CPU "unstable" mode, after the kernel's local_clock().
 *
 * When each CPU's counter may run at its own pace (unsynchronised TSCs),
 * the raw clock read on one CPU cannot be compared with another's.  Each
 * CPU then gets a slot that remembers, at its last tick, the raw clock and
 * a trusted reference time ("gtod", such as CLOCK_MONOTONIC), and hands out
 *
 *     clamp(gtod + (raw_now - raw_at_tick),
 *           max(gtod, last value on this CPU), max(last value, gtod + tick_ns))
 *
 * so a CPU's values never go backwards and never run more than tick_ns
 * ahead of the reference at its last tick.  Values of two CPUs may still
 * disagree by up to about tick_ns, so comparing them can go backwards; a
 * remote read couples two CPUs (the lower is pulled up to the higher).
 *
 * A clock starts stable: every CPU reads the raw clock itself, with no
 * per-CPU work.  cyclock_percpu_set_unstable() switches, once, without a
 * jump.  The caller says which CPU it runs on (rdtscp's TSC_AUX, getcpu(),
 * the core id in firmware); two threads naming the same CPU are safe.
 * Needs lock-free 64-bit compare-and-swap; without it init returns
 * CYCLOCK_ENOTSUP.
 */
/* What a tick records (not named as cyclock_percpu_tick(): see struct
 * cyclock_register_options). */
struct cyclock_percpu_stamp {
	struct cyclock_u64 raw;  /* the raw clock on this CPU at its last tick */
	struct cyclock_u64 gtod; /* the reference time at that tick */
};

/* One CPU's slot, one cache line: seq (4) + writer (4) + tick[2] (32) + clock (8) = 48. */
struct cyclock_percpu_slot {
	CYCLOCK_ALIGNAS(CYCLOCK_CACHELINE) CYCLOCK_ATOMIC(uint32_t) seq; /* latch over tick[] */
	CYCLOCK_ATOMIC(uint32_t) writer;
	struct cyclock_percpu_stamp tick[2];
	CYCLOCK_ALIGNAS(8) CYCLOCK_ATOMIC(uint64_t) clock; /* last value handed out here */
};

struct cyclock_percpu;
typedef uint64_t (*cyclock_percpu_fn)(struct cyclock_percpu *pc, unsigned int cpu);

/* Read-mostly: written at init and at the one switch to unstable.  The
 * setup below read is plain data, published by read's release store
 * (CYCLOCK_SHARED, cyclock/atomic.h). */
struct cyclock_percpu {
	CYCLOCK_ALIGNAS(CYCLOCK_CACHELINE) CYCLOCK_ATOMIC(cyclock_percpu_fn) read;
	CYCLOCK_ALIGNAS(8) CYCLOCK_ATOMIC(uint64_t) gtod_offset; /* raw - gtod at the switch */
	CYCLOCK_SHARED(const struct cyclock *) raw;
	CYCLOCK_SHARED(struct cyclock_percpu_slot *) slot;
	CYCLOCK_SHARED(uint64_t) tick_ns;
	CYCLOCK_SHARED(unsigned int) nr_cpus;
	CYCLOCK_ATOMIC(uint32_t) switching; /* serialises set_unstable */
};

/*
 * Set up @pc over the raw clock @raw with @nr_cpus slots of caller memory
 * (CYCLOCK_CACHELINE-aligned) and a tick of @tick_ns.  Starts stable.
 * Returns 0, CYCLOCK_EINVAL (NULL pointer, no CPU, zero tick) or
 * CYCLOCK_ENOTSUP.  Not thread-safe: finish it before any other call.
 */
CYCLOCK_API int cyclock_percpu_init(struct cyclock_percpu *pc, const struct cyclock *raw,
				    struct cyclock_percpu_slot *slots, unsigned int nr_cpus,
				    uint64_t tick_ns) CYCLOCK_NOEXCEPT;

/*
 * The tick, run on @cpu about every tick_ns: records the raw clock and the
 * reference @gtod_ns, then (unstable) advances the CPU's clock.  Never
 * blocks; skips if another tick of the same CPU is under way.  Returns 0
 * or CYCLOCK_EINVAL for a CPU out of range.  Async-signal-safe.
 */
CYCLOCK_API int cyclock_percpu_tick(struct cyclock_percpu *pc, unsigned int cpu,
				    uint64_t gtod_ns) CYCLOCK_NOEXCEPT;

/*
 * local_clock(): the clock of @cpu, read on @cpu.  Never goes backwards on
 * that CPU.  Returns 0 for a CPU out of range.  Lock-free, async-signal-safe.
 */
CYCLOCK_API uint64_t cyclock_percpu_read(struct cyclock_percpu *pc,
					 unsigned int cpu) CYCLOCK_NOEXCEPT;

/*
 * The clock of @cpu read from @this_cpu: the later of the two CPUs' clocks,
 * with the earlier one pulled up to it, so the two CPUs agree from then on.
 * Returns 0 for a CPU out of range.  Lock-free, async-signal-safe.
 */
CYCLOCK_API uint64_t cyclock_percpu_read_remote(struct cyclock_percpu *pc, unsigned int this_cpu,
						unsigned int cpu) CYCLOCK_NOEXCEPT;

/*
 * Switch to unstable mode, run on @cpu with the reference time @gtod_ns:
 * from now on values follow the reference, offset so that they continue
 * from the stable clock's current value on @cpu (no jump there; a CPU
 * whose counter ran ahead of @cpu's steps back by its lead, as in the
 * kernel, which clones the switching CPU's stamp to every CPU).
 * Idempotent.  Returns 0 or CYCLOCK_EINVAL.  Not async-signal-safe: may
 * spin on a concurrent switch.
 * Call it with no reader running on another CPU, as the kernel switches
 * with every CPU stopped (a static key): a reader that reads the stable
 * clock during the switch hands out a value no CPU's slot records until
 * the switch's last look at the raw clock, and C11 orders that look with
 * the reader's look at the mode only if the reader fences too, which
 * every stable read would pay; that CPU's next read may then be lower by
 * up to the switch's length (docs/model.md: the model finds it).
 */
CYCLOCK_API int cyclock_percpu_set_unstable(struct cyclock_percpu *pc, unsigned int cpu,
					    uint64_t gtod_ns) CYCLOCK_NOEXCEPT;

/* Whether @pc is still in stable mode. */
CYCLOCK_API bool cyclock_percpu_is_stable(const struct cyclock_percpu *pc) CYCLOCK_NOEXCEPT;

#ifdef __cplusplus
}
#endif

#include "latch.h"

#if CYCLOCK_HAS_ATOMICS
/*
 * Counts since the epoch.  A counter value a little behind the epoch (read
 * on a CPU whose counter lags the one that updated) gives a delta of more
 * than half the counter's period: count it as 0 rather than as a near-wrap,
 * as the kernel's clocksource_delta() does.  The wrap interval stays within
 * half the period, so a real forward delta never gets there.  (A 1-bit
 * counter's half period is its whole period: nothing is clamped.)
 */
static inline uint64_t cyclock__delta(uint64_t cyc, uint64_t epoch_cyc, uint64_t mask)
{
	uint64_t delta = (cyc - epoch_cyc) & mask;

	return delta > (mask >> 1) + 1 ? 0 : delta;
}

/*
 * cyclock_read(), inline, so that the compiled function and any inlined
 * copy are the same code; core.h's comment above has the contract.  It is
 * the kernel's sched_clock() with two additions: epoch_frac, what the last
 * update truncated, so that updates never lose time; and the NULL source,
 * which stands the clock still at its epoch.  That branch is the price of
 * zero-initialised clocks (a static struct cyclock reads 0 before its
 * first registration, and cyclock_suspend() reuses it); the kernel's
 * suspend swaps in a read function instead, which a zeroed struct cannot
 * have.
 */
static inline uint64_t cyclock_read_inline(const struct cyclock *clk)
{
	const struct cyclock_read_data *rd;
	const struct cyclock_read_mostly *rm;
	const struct cyclock_source *src;
	uint64_t ns, delta;
	uint32_t seq;

	do {
		seq = cyclock__latch_begin(&clk->seq);
		rd = &clk->read_data[seq & 1];
		rm = &clk->read_mostly[seq & 1];
		src = cyclock_atomic_load(&rm->src, CYCLOCK_RELAXED);
		ns = cyclock__load64(&rd->epoch_ns);
		if (cyclock_unlikely(!src))
			continue;
		delta = cyclock__delta(src->read(src), cyclock__load64(&rd->epoch_cyc),
				       cyclock__load64(&rm->mask));
		ns += cyclock__scale(delta, cyclock_atomic_load(&rm->mult, CYCLOCK_RELAXED),
				     cyclock__load64(&rd->epoch_frac),
				     cyclock_atomic_load(&rm->shift, CYCLOCK_RELAXED), NULL);
	} while (cyclock__latch_retry(&clk->seq, seq));
	return ns;
}

/* A CPU slot's tick, {raw, gtod}, through the slot's latch. */
static inline void cyclock__percpu_load_tick(const struct cyclock_percpu_slot *slot,
					     uint64_t *raw, uint64_t *gtod)
{
	uint32_t seq;

	do {
		seq = cyclock__latch_begin(&slot->seq);
		*raw = cyclock__load64(&slot->tick[seq & 1].raw);
		*gtod = cyclock__load64(&slot->tick[seq & 1].gtod);
	} while (cyclock__latch_retry(&slot->seq, seq));
}
#endif /* CYCLOCK_HAS_ATOMICS */

#endif /* CYCLOCK_CORE_H */
