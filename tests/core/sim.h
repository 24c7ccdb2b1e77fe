/* SPDX-License-Identifier: MIT */
/*
 * Simulated counters for the unit tests: a 64-bit "true" count that the
 * test advances by hand, seen through a counter of any width and rate,
 * and a reproducible PRNG.  Header-only: each test is one program.
 */
#ifndef CYCLOCK_TESTS_SIM_H
#define CYCLOCK_TESTS_SIM_H

#include <stdint.h>

#include "prng.h"
#include "cyclock/core.h"

struct sim_counter {
	uint64_t count;      /* counts since the simulation began, never wraps */
	unsigned long reads; /* how often the engine read the counter */
	struct cyclock_source src;
};

static inline uint64_t sim_read(const struct cyclock_source *src)
{
	struct sim_counter *sim = (struct sim_counter *)src->priv;
	uint64_t mask = src->bits == 64 ? UINT64_MAX : (1ull << src->bits) - 1;

	sim->reads++;
	return sim->count & mask;
}

static inline void sim_init(struct sim_counter *sim, const char *name, uint64_t rate_hz,
			    unsigned int bits)
{
	sim->count = 0;
	sim->reads = 0;
	sim->src.name = name;
	sim->src.read = sim_read;
	sim->src.priv = sim;
	sim->src.rate_hz = rate_hz;
	sim->src.bits = bits;
	sim->src.rating = 100;
}


/* Uniform-ish in [0, bound]. */
static inline uint64_t prng_upto(uint64_t *state, uint64_t bound)
{
	return bound == UINT64_MAX ? prng_next(state) : prng_next(state) % (bound + 1);
}

#endif /* CYCLOCK_TESTS_SIM_H */
