/* SPDX-License-Identifier: MIT */
/*
 * The engine's reader, as firmware uses it: a struct cyclock of the
 * tool's own, registered with cyclock_register() over the bare counter
 * read (cyclock_arch_counter()) at the rate cyclock found, and read with
 * cyclock_read(), the compiled call, or cyclock_read_inline(), the same
 * latch reader inlined into the loop.  Against the floors in the same
 * run, the difference is what the latch, the read function's pointer
 * and the conversion cost.  Over it, the engine's local_clock(),
 * cyclock_percpu_read() on CPU slot 0 whichever CPU reads: stable (the
 * raw clock itself) and unstable (the tick's latch, the raw clock, the
 * clamp to the tick and a compare-and-swap on the slot).
 *
 * The clock is registered at its first reading, not when the clocks are
 * listed: the rate comes from the library, whose initialisation must not
 * happen at --help.  Only the engine scenario's writer updates it, and
 * nothing needs to: cyclock_register() makes the update interval
 * (cyclock_wrap_ns()) as long as the counter allows, up to an hour, far
 * longer than a run.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include <cyclock.h>
#include <cyclock/arch.h>

#include "bench.h"
#include "loops.h"

#define PERCPU_TICK_NS 1000000u /* the engine's tick: 1 ms, as HZ=1000 */
#define PERCPU_TICK_READS 4096u /* reads between two ticks of the unstable clock */

static struct cyclock engine;
static bool registered;
static struct cyclock_percpu stable, unstable;
static struct cyclock_percpu_slot stable_slot[1], unstable_slot[1];

/* The source's read: one call through the pointer the latch holds, as an
 * engine clock's read always is. */
static uint64_t counter_read(const struct cyclock_source *src)
{
	(void)src;
	return cyclock_arch_counter();
}

static struct cyclock_source counter = {
	.name = CYCLOCK_ARCH_COUNTER_NAME, .read = counter_read, .bits = 64, .rating = 300,
};

/* Without a rate (no counter) registration fails, and the zero-initialised
 * clock reads 0; bench_clock_available() does not offer it then. */
static void engine_register(void)
{
	counter.rate_hz = (uint64_t)(bench_counter_hz() + 0.5);
	registered = cyclock_register(&engine, &counter) == 0;
	(void)cyclock_percpu_init(&stable, &engine, stable_slot, 1, PERCPU_TICK_NS);
	(void)cyclock_percpu_init(&unstable, &engine, unstable_slot, 1, PERCPU_TICK_NS);
	(void)cyclock_percpu_set_unstable(&unstable, 0, bench_now_ns());
}

static inline void engine_once(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, engine_register);
}

static inline const struct cyclock *engine_get(void)
{
	engine_once();
	return &engine;
}

struct cyclock *bench_engine_clock(void)
{
	engine_once();
	return registered ? &engine : NULL;
}

/* The unstable clock, ticked by its readers every PERCPU_TICK_READS reads
 * (~40 us): often enough that the clamp to a tick never holds the clock
 * still, which would skip the compare-and-swap.  A tick costs a
 * clock_gettime(), a 4096th of it per read.  Two threads naming the same
 * CPU are safe (cyclock/core.h), so scale's threads may share slot 0. */
static inline uint64_t unstable_read(void)
{
	static _Thread_local unsigned int reads;

	if (++reads % PERCPU_TICK_READS == 0)
		cyclock_percpu_tick(&unstable, 0, bench_now_ns());
	return cyclock_percpu_read(&unstable, 0);
}

DEFINE_SHARED_CLOCK(engine_read, const struct cyclock *clk = engine_get();, cyclock_read(clk))
DEFINE_SHARED_CLOCK(engine_read_inline, const struct cyclock *clk = engine_get();,
		    cyclock_read_inline(clk))
DEFINE_SHARED_CLOCK(engine_percpu, engine_once();, cyclock_percpu_read(&stable, 0))
DEFINE_SHARED_CLOCK(engine_percpu_unstable, engine_once();, unstable_read())
