/* SPDX-License-Identifier: MIT */
/*
 * Defaults for every architecture hook an arch header did not define.
 *
 * Without a user-space counter (CYCLOCK_ARCH_HAS_COUNTER 0) the hosted
 * clocks fall back to clock_gettime(); the counter functions then return
 * 0 and are never used for time.
 */
#ifndef CYCLOCK_ARCH_GENERIC_H
#define CYCLOCK_ARCH_GENERIC_H

#include <stdint.h>

#ifndef CYCLOCK_ARCH_HAS_COUNTER
#define CYCLOCK_ARCH_HAS_COUNTER 0
#endif

#ifndef CYCLOCK_ARCH_COUNTER_NAME
#define CYCLOCK_ARCH_COUNTER_NAME "none"
#endif

#ifndef cyclock_arch_counter
static inline uint64_t cyclock_arch_counter(void)
{
	return 0;
}
#endif

/* A counter read after every earlier load.  An architecture whose counter
 * read can run ahead of loads must override this. */
#ifndef cyclock_arch_counter_ordered
static inline uint64_t cyclock_arch_counter_ordered(void)
{
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	return cyclock_arch_counter();
}
#endif

/* Whether the counter instructions work on this CPU. */
#ifndef cyclock_arch_counter_usable
static inline int cyclock_arch_counter_usable(void)
{
	return CYCLOCK_ARCH_HAS_COUNTER;
}
#endif

/* Without a CPU id from the counter read, the caller asks the kernel. */
#ifndef cyclock_arch_counter_cpu
#define CYCLOCK_ARCH_COUNTER_CPU_NONE 1
static inline uint64_t cyclock_arch_counter_cpu(unsigned int *cpu)
{
	*cpu = ~0u;
	return cyclock_arch_counter_ordered();
}
#endif

#ifndef CYCLOCK_ARCH_KERNEL_CLOCKSOURCE
#define CYCLOCK_ARCH_KERNEL_CLOCKSOURCE ""
#endif

/* Whether the counter's rate is constant whatever the CPU does. */
#ifndef cyclock_arch_counter_invariant
static inline int cyclock_arch_counter_invariant(void)
{
	return CYCLOCK_ARCH_HAS_COUNTER;
}
#endif

/* The counter's frequency where the hardware states it, else 0. */
#ifndef cyclock_arch_counter_hz_hint
static inline uint64_t cyclock_arch_counter_hz_hint(const char **how)
{
	(void)how;
	return 0;
}
#endif

#endif /* CYCLOCK_ARCH_GENERIC_H */
