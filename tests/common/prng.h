/* SPDX-License-Identifier: MIT */
/* A reproducible PRNG for every test: a fixed seed makes a failure repeat. */
#ifndef CYCLOCK_TESTS_PRNG_H
#define CYCLOCK_TESTS_PRNG_H

#include <stdint.h>

/* xorshift64*; @state must not be 0. */
static inline uint64_t prng_next(uint64_t *state)
{
	uint64_t x = *state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return x * 0x2545F4914F6CDD1Dull;
}

#endif /* CYCLOCK_TESTS_PRNG_H */
