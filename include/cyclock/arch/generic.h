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

/*
 * The ordered reads an architecture offers, chosen at run time by the
 * hosted library (x86_64.h has three); by default one.
 */
#ifndef cyclock_arch_counter_ordered_how
#define CYCLOCK_ARCH_ORDERED_HOWS 1u
#define CYCLOCK_ARCH_ORDERED_ANY 0u /* the one that needs no asking */
static inline uint64_t cyclock_arch_counter_ordered_how(uint32_t how)
{
	(void)how;
	return cyclock_arch_counter_ordered();
}
#endif

#ifndef cyclock_arch_ordered_name
#ifdef CYCLOCK_ARCH_ORDERED_NAME
#define cyclock_arch_ordered_name(how) ((void)(how), CYCLOCK_ARCH_ORDERED_NAME)
#else
#define cyclock_arch_ordered_name(how) ((void)(how), "fence; counter read")
#endif
#endif

/* Whether ordered read @how works here; *why: what says so. */
#ifndef cyclock_arch_ordered_works
static inline int cyclock_arch_ordered_works(uint32_t how, const char **why)
{
	*why = "the architecture's ordered read";
	return how == 0 && CYCLOCK_ARCH_HAS_COUNTER;
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
