/* SPDX-License-Identifier: MIT */
/*
 * A simulated counter, for tests only (CYCLOCK_SIM builds): the reads go
 * to a function the test supplies, so it can stall the counter, step it
 * back or leap it forward under the hosted clocks' feet.
 */
#ifndef CYCLOCK_ARCH_SIM_H
#define CYCLOCK_ARCH_SIM_H

#include <stdint.h>

#define CYCLOCK_ARCH_COUNTER_NAME "sim"
#define CYCLOCK_ARCH_HAS_COUNTER 1

/* Supplied by the test program. */
uint64_t cyclock_sim_counter(void);

static inline uint64_t cyclock_arch_counter(void)
{
	return cyclock_sim_counter();
}
#define cyclock_arch_counter cyclock_arch_counter

#include "generic.h"

#endif /* CYCLOCK_ARCH_SIM_H */
