/* SPDX-License-Identifier: MIT */
/*
 * The seqcount latch's reader side, inline, so that the compiled
 * cyclock_read() and any inlined copy of it are the same code.
 *
 * A latch keeps two copies of its data.  The writer bumps the sequence
 * (now odd: readers use copy 1), rewrites copy 0, bumps it again (even:
 * readers use copy 0) and rewrites copy 1.  A reader takes the sequence,
 * reads the copy its low bit names, and retries only if the sequence moved
 * meanwhile.  Unlike a seqlock, a reader never waits for a writer to
 * finish, so it may run in a signal handler that interrupted the writer.
 *
 * Included by core.h in C only: C++ callers use the compiled functions.
 */
#ifndef CYCLOCK_LATCH_H
#define CYCLOCK_LATCH_H

#ifndef __cplusplus

#include "core.h"

/* Latch-protected 64-bit fields: relaxed, since the sequence orders them. */
static inline uint64_t cyclock__load64(const struct cyclock_u64 *p)
{
#if CYCLOCK_U64_IS_SPLIT
	uint64_t lo = atomic_load_explicit(&p->lo, memory_order_relaxed);
	uint64_t hi = atomic_load_explicit(&p->hi, memory_order_relaxed);

	return hi << 32 | lo;
#else
	return atomic_load_explicit(&p->v, memory_order_relaxed);
#endif
}

static inline void cyclock__store64(struct cyclock_u64 *p, uint64_t v)
{
#if CYCLOCK_U64_IS_SPLIT
	atomic_store_explicit(&p->lo, (uint32_t)v, memory_order_relaxed);
	atomic_store_explicit(&p->hi, (uint32_t)(v >> 32), memory_order_relaxed);
#else
	atomic_store_explicit(&p->v, v, memory_order_relaxed);
#endif
}

/* Start a latch read: the acquire pairs with the writer's release stores of seq. */
static inline uint32_t cyclock__latch_begin(const CYCLOCK_ATOMIC(uint32_t) *seq)
{
	return atomic_load_explicit(seq, memory_order_acquire);
}

/*
 * End a latch read: true if a writer moved the sequence, so the copy read
 * may be torn.  The acquire fence pairs with the release fence the writer
 * puts after each sequence bump: a reader that saw any store made after a
 * bump also sees the bump here.
 */
static inline bool cyclock__latch_retry(const CYCLOCK_ATOMIC(uint32_t) *seq, uint32_t start)
{
	atomic_thread_fence(memory_order_acquire);
	return atomic_load_explicit(seq, memory_order_relaxed) != start;
}

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
 * The clock value at counter @cyc from one latch copy: the epoch plus the
 * counts since, scaled; epoch_frac carries what the last update truncated,
 * so updates never lose time.
 */
static inline uint64_t cyclock__ns_at(uint64_t cyc, uint64_t epoch_ns, uint64_t epoch_cyc,
				      uint64_t epoch_frac, uint64_t mask, uint32_t mult,
				      uint32_t shift)
{
	uint64_t delta = cyclock__delta(cyc, epoch_cyc, mask);

	return epoch_ns + ((delta * mult + epoch_frac) >> shift);
}

/* One latch copy's view of the clock now.  No read function: it stands still. */
static inline uint64_t cyclock__read_copy(const struct cyclock_read_data *rd,
					  const struct cyclock_read_mostly *rm)
{
	cyclock_read_fn read = atomic_load_explicit(&rm->read, memory_order_relaxed);
	uint64_t epoch_ns = cyclock__load64(&rd->epoch_ns);
	uint64_t epoch_cyc = cyclock__load64(&rd->epoch_cyc);
	uint64_t cyc;

	if (cyclock_unlikely(!read))
		return epoch_ns;
	cyc = read(atomic_load_explicit(&rm->src, memory_order_relaxed));
	return cyclock__ns_at(cyc, epoch_ns, epoch_cyc, cyclock__load64(&rd->epoch_frac),
			      cyclock__load64(&rm->mask),
			      atomic_load_explicit(&rm->mult, memory_order_relaxed),
			      atomic_load_explicit(&rm->shift, memory_order_relaxed));
}

/* cyclock_read(), inline: see core.h for its contract. */
static inline uint64_t cyclock_read_inline(const struct cyclock *clk)
{
	uint32_t seq;
	uint64_t ns;

	do {
		seq = cyclock__latch_begin(&clk->seq);
		ns = cyclock__read_copy(&clk->read_data[seq & 1], &clk->read_mostly[seq & 1]);
	} while (cyclock__latch_retry(&clk->seq, seq));
	return ns;
}

#endif /* !__cplusplus */
#endif /* CYCLOCK_LATCH_H */
