/* SPDX-License-Identifier: MIT */
/* Internals shared by the engine's files; nothing here is installed. */
#ifndef CYCLOCK_CORE_INTERNAL_H
#define CYCLOCK_CORE_INTERNAL_H

#include "cyclock/core.h"

#define CYCLOCK_NSEC_PER_SEC 1000000000ull

/*
 * How a source's counts become nanoseconds: ns = (delta * mult) >> shift
 * for any delta up to wrap_cyc, which takes wrap_ns to accumulate.
 * mult / 2^shift is off from 1e9 / rate by error_ppt parts per trillion.
 */
struct cyclock__scale {
	uint64_t mask;
	uint64_t wrap_cyc;
	uint64_t wrap_ns;
	uint64_t error_ppt;
	uint32_t mult;
	uint32_t shift;
};

/*
 * Choose @sc for a counter of @bits at @rate_hz (both already validated),
 * updated at most every @max_interval_ns (0: as rarely as the counter
 * allows, up to an hour).  CYCLOCK_ERANGE if no mult fits.
 */
int cyclock__choose_scale(struct cyclock__scale *sc, uint64_t rate_hz, unsigned int bits,
			  uint64_t max_interval_ns);

/* Write the decimal digits of @v into @buf (at least 20 bytes); returns their count. */
size_t cyclock__utoa(char *buf, uint64_t v);

/*
 * The writer's side of a latch over two copies, for the engine's two
 * latches (the clock's epoch and a CPU slot's tick).  begin() bumps the
 * sequence so readers leave copy 0 and returns; the caller writes copy 0,
 * calls flip() (readers move to copy 0) and writes copy 1.
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

#endif /* CYCLOCK_CORE_INTERNAL_H */
