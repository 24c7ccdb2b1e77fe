/* SPDX-License-Identifier: MIT */
/*
 * The engine's reader, as firmware uses it: a struct cyclock of the
 * tool's own, registered with cyclock_register() over the bare counter
 * read (cyclock_arch_counter()) at the rate cyclock found, and read with
 * cyclock_read(), the compiled call, or cyclock_read_inline(), the same
 * latch reader inlined into the loop.  Against the floors in the same
 * run, the difference is what the latch, the read function's pointer
 * and the conversion cost.
 *
 * The clock is registered at its first reading, not when the clocks are
 * listed: the rate comes from the library, whose initialisation must not
 * happen at --help.  No writer updates it: cyclock_register() makes the
 * update interval (cyclock_wrap_ns()) as long as the counter allows, up
 * to an hour, far longer than a run.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>

#include <cyclock.h>
#include <cyclock/arch.h>

#include "bench.h"
#include "loops.h"

static struct cyclock engine;

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
	counter.rate_hz = (uint64_t)bench_counter_hz();
	(void)cyclock_register(&engine, &counter);
}

static inline const struct cyclock *engine_get(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, engine_register);
	return &engine;
}

DEFINE_SHARED_CLOCK(engine_read, const struct cyclock *clk = engine_get();, cyclock_read(clk))
DEFINE_SHARED_CLOCK(engine_read_inline, const struct cyclock *clk = engine_get();,
		    cyclock_read_inline(clk))
