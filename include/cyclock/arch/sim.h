/* SPDX-License-Identifier: MIT */
/*
 * A simulated counter, for tests only (CYCLOCK_SIM builds): the reads go
 * to a function the test supplies, so it can stall the counter, step it
 * back or leap it forward under the hosted clocks' feet, and the kernel's
 * clocks, which the hosted layer then asks instead of the kernel.  Not
 * installed: only the tree's own tests build with CYCLOCK_SIM.
 */
#ifndef CYCLOCK_ARCH_SIM_H
#define CYCLOCK_ARCH_SIM_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

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

/* The kernel's clocks, as the test program has them; and a reset between
 * scenarios. */
int cyclock_sim_clock_gettime(clockid_t id, struct timespec *ts); /* supplied by the test */
void cyclock_sim_before_swap(void); /* optional: just before a publish's swap */
struct cyclock_sim_config {
	uint64_t hint_hz;   /* what "CPUID" reports; 0: measure */
	bool invariant;     /* CPUID's invariant-counter bit */
	bool kernel_trusts; /* the kernel's clocksource is this counter */
};
/* Forget everything (not thread-safe: no reader may run); the next read
 * initialises under @cfg.  libcyclock_sim.a's (src/linux/sim.c), a static
 * library: no visibility to ask for. */
void cyclock__sim_reset(const struct cyclock_sim_config *cfg);

#endif /* CYCLOCK_ARCH_SIM_H */
