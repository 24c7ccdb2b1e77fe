/* SPDX-License-Identifier: MIT */
/*
 * The seqcount latch, both sides, inline: the engine's clock (struct
 * cyclock), its per-CPU slots and the hosted timelines
 * (cyclock/timeline.h) all use it, after the kernel's
 * raw_write_seqcount_latch() and raw_read_seqcount_latch() in
 * include/linux/seqlock.h.
 *
 * A latch keeps two copies of its data.  The writer bumps the sequence
 * (now odd: readers use copy 1), rewrites copy 0, bumps it again (even:
 * readers use copy 0) and rewrites copy 1.  A reader takes the sequence,
 * reads the copy its low bit names, and retries only if the sequence moved
 * meanwhile.  Unlike a seqlock, a reader never waits for a writer to
 * finish, so it may run in a signal handler that interrupted the writer.
 * Writers exclude each other with a flag that is tried, never waited for
 * by a reader.
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
 * The writer's step between copies: bumps the sequence so that readers
 * leave the copy the writer rewrites next.  The caller holds the latch's
 * writer flag.
 */
static inline void cyclock__latch_bump(CYCLOCK_ATOMIC(uint32_t) *seq)
{
	uint32_t s = atomic_load_explicit(seq, memory_order_relaxed);

	/* Release: the previous copy's stores are visible before the bump. */
	atomic_store_explicit(seq, s + 1, memory_order_release);
	/* Pairs with cyclock__latch_retry()'s acquire fence: the stores that
	 * follow are not seen by a reader that does not also see the bump. */
	atomic_thread_fence(memory_order_release);
}

/* A writer flag that is tried, never waited for, so a signal handler that
 * interrupts the writer cannot deadlock on it. */
static inline bool cyclock__writer_trylock(CYCLOCK_ATOMIC(uint32_t) *writer)
{
	uint32_t free_ = 0;

	/* Acquire pairs with cyclock__writer_unlock()'s release: the new
	 * writer sees everything the previous one wrote. */
	return atomic_compare_exchange_strong_explicit(writer, &free_, 1, memory_order_acquire,
						       memory_order_relaxed);
}

static inline void cyclock__writer_lock(CYCLOCK_ATOMIC(uint32_t) *writer)
{
	while (!cyclock__writer_trylock(writer))
		cyclock_cpu_relax();
}

static inline void cyclock__writer_unlock(CYCLOCK_ATOMIC(uint32_t) *writer)
{
	atomic_store_explicit(writer, 0, memory_order_release);
}

#endif /* !__cplusplus */
#endif /* CYCLOCK_LATCH_H */
