/* SPDX-License-Identifier: MIT */
/*
 * The seqcount latch, both sides, inline: the engine's clock (struct
 * cyclock) and its per-CPU slots use it, after the kernel's
 * raw_write_seqcount_latch() and raw_read_seqcount_latch() in
 * include/linux/seqlock.h.  The hosted timelines (cyclock/timeline.h)
 * follow the same scheme with a word of their own: a count of served
 * reads in its upper half, and a publish by compare-and-swap.
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
 * Each order below names the model harness that fails without it and the
 * mutation that shows it (docs/model.md: tests/model/mutate.py weakens
 * each in turn).  The latch's data are relaxed atomics, as Boehm's
 * "Can seqlocks get along with programming language memory models?"
 * (MSPC 2012) has a seqlock's: a reader may load a copy being rewritten,
 * which the re-check then discards, and only an atomic may be read so.
 *
 * Included by core.h where the atomics seam gives atomics (C, and the
 * model checker's C++): plain C++ callers use the compiled functions.
 */
#ifndef CYCLOCK_LATCH_H
#define CYCLOCK_LATCH_H

#if CYCLOCK_HAS_ATOMICS

#include "core.h"

/* Latch-protected 64-bit fields: relaxed, since the sequence orders them. */
static inline uint64_t cyclock__load64(const struct cyclock_u64 *p)
{
#if CYCLOCK_U64_IS_SPLIT
	uint64_t lo = cyclock_atomic_load(&p->lo, CYCLOCK_RELAXED);
	uint64_t hi = cyclock_atomic_load(&p->hi, CYCLOCK_RELAXED);

	return hi << 32 | lo;
#else
	return cyclock_atomic_load(&p->v, CYCLOCK_RELAXED);
#endif
}

static inline void cyclock__store64(struct cyclock_u64 *p, uint64_t v)
{
#if CYCLOCK_U64_IS_SPLIT
	cyclock_atomic_store(&p->lo, (uint32_t)v, CYCLOCK_RELAXED);
	cyclock_atomic_store(&p->hi, (uint32_t)(v >> 32), CYCLOCK_RELAXED);
#else
	cyclock_atomic_store(&p->v, v, CYCLOCK_RELAXED);
#endif
}

/* Start a latch read: the acquire pairs with the writer's release stores
 * of seq (model_latch fails without it: latch-begin). */
static inline uint32_t cyclock__latch_begin(const CYCLOCK_ATOMIC(uint32_t) *seq)
{
	return cyclock_atomic_load(seq, CYCLOCK_ACQUIRE);
}

/*
 * End a latch read: true if a writer moved the sequence, so the copy read
 * may be torn.  The acquire fence pairs with the release fence the writer
 * puts after each sequence bump: a reader that saw any store made after a
 * bump also sees the bump here (model_latch: latch-retry-fence).
 */
static inline bool cyclock__latch_retry(const CYCLOCK_ATOMIC(uint32_t) *seq, uint32_t start)
{
	cyclock_atomic_fence(CYCLOCK_ACQUIRE);
	return cyclock_atomic_load(seq, CYCLOCK_RELAXED) != start;
}

/*
 * The writer's step between copies: bumps the sequence so that readers
 * leave the copy the writer rewrites next.  The caller holds the latch's
 * writer flag.
 */
static inline void cyclock__latch_bump(CYCLOCK_ATOMIC(uint32_t) *seq)
{
	uint32_t s = cyclock_atomic_load(seq, CYCLOCK_RELAXED);

	/* Release: the previous copy's stores are visible before the bump
	 * (model_latch: latch-bump). */
	cyclock_atomic_store(seq, s + 1, CYCLOCK_RELEASE);
	/* Pairs with cyclock__latch_retry()'s acquire fence: the stores that
	 * follow are not seen by a reader that does not also see the bump
	 * (model_latch: latch-bump-fence). */
	cyclock_atomic_fence(CYCLOCK_RELEASE);
}

/* A writer flag that is tried, never waited for, so a signal handler that
 * interrupts the writer cannot deadlock on it. */
static inline bool cyclock__writer_trylock(CYCLOCK_ATOMIC(uint32_t) *writer)
{
	uint32_t free_ = 0;

	/* Acquire pairs with cyclock__writer_unlock()'s release: the new
	 * writer sees everything the previous one wrote (model_latch's second
	 * configuration: writer-trylock, writer-unlock). */
	return cyclock_atomic_cas(writer, &free_, 1, CYCLOCK_ACQUIRE, CYCLOCK_RELAXED);
}

static inline void cyclock__writer_lock(CYCLOCK_ATOMIC(uint32_t) *writer)
{
	while (!cyclock__writer_trylock(writer))
		cyclock_cpu_relax();
}

static inline void cyclock__writer_unlock(CYCLOCK_ATOMIC(uint32_t) *writer)
{
	cyclock_atomic_store(writer, 0, CYCLOCK_RELEASE);
}

/*
 * A record kept twice under its own sequence, whose low bit names the
 * copy to read: the status block's parts (src/linux/status.c,
 * cyclock/status.h).  A writer fills the copy readers are not on
 * (cyclock__record_next()), whole, with cyclock__record_put(), then bumps
 * once (cyclock__latch_bump()); the other copy keeps the write before, so
 * unlike the clock's latch a write need not rewrite both.  A reader takes
 * the sequence (cyclock__latch_begin()), copies the copy it names with
 * cyclock__record_get() and retries while cyclock__latch_retry() says the
 * sequence moved: the fences are the latch's (model_record checks them
 * on this protocol).  Copies are 32-bit words, relaxed atomics.
 */
static inline unsigned int cyclock__record_next(const CYCLOCK_ATOMIC(uint32_t) *seq)
{
	return (unsigned int)(cyclock_atomic_load(seq, CYCLOCK_RELAXED) & 1) ^ 1;
}

/* @words words of @src (any object: its bytes, copied a word at a time,
 * so no type is read through another) into the copy. */
static inline void cyclock__record_put(CYCLOCK_ATOMIC(uint32_t) *copy, const void *src,
				       size_t words)
{
	for (size_t i = 0; i < words; i++) {
		uint32_t w;

		__builtin_memcpy(&w, (const char *)src + 4 * i, 4);
		cyclock_atomic_store(&copy[i], w, CYCLOCK_RELAXED);
	}
}

static inline void cyclock__record_get(void *dst, const CYCLOCK_ATOMIC(uint32_t) *copy,
				       size_t words)
{
	for (size_t i = 0; i < words; i++) {
		uint32_t w = cyclock_atomic_load(&copy[i], CYCLOCK_RELAXED);

		__builtin_memcpy((char *)dst + 4 * i, &w, 4);
	}
}

#endif /* CYCLOCK_HAS_ATOMICS */
#endif /* CYCLOCK_LATCH_H */
