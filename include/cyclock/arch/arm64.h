/* SPDX-License-Identifier: MIT */
/*
 * arm64: the generic timer's virtual counter, CNTVCT_EL0.  Defines only
 * what it specialises, then includes generic.h for the rest (no CPU id
 * with the read: the caller asks the kernel).
 *
 * The architecture makes the system counter one count for every CPU and
 * its rate fixed, so it is invariant by definition (generic.h's default);
 * whether the kernel lets user space read it, and trusts it, is what
 * current_clocksource ("arch_sys_counter") tells.
 */
#ifndef CYCLOCK_ARCH_ARM64_H
#define CYCLOCK_ARCH_ARM64_H

#include <stdint.h>

#define CYCLOCK_ARCH_COUNTER_NAME "cntvct"
#define CYCLOCK_ARCH_HAS_COUNTER 1
#define CYCLOCK_ARCH_ARM64_CNTVCT 1 /* for #if: the counter is CNTVCT_EL0 */

/* Unordered: the Arm ARM lets a counter read "occur speculatively and out
 * of order relative to other instructions". */
static inline uint64_t cyclock_arch_counter(void)
{
	uint64_t cnt;

	__asm__ __volatile__("mrs %0, cntvct_el0" : "=r"(cnt));
	return cnt;
}
#define cyclock_arch_counter cyclock_arch_counter

/*
 * Ordered, as the kernel's arch_counter_get_cntvct() is, on both sides.
 *
 * Before: a counter read is not a memory access, so no acquire and no dmb
 * orders it; isb does.  The Arm ARM (D8.2.1 in DDI 0487C.a) names this
 * case: when a load from memory tells a CPU to read the counter, an isb
 * between them makes the read happen after the load.  So the read waits
 * for every earlier load, the latch's acquire of its sequence among them,
 * which is what timeline.h's cyclock__read() needs.
 *
 * After: a dummy load from the stack whose address depends on the count
 * (cnt ^ cnt is 0, but the CPU cannot know it early) cannot be performed
 * before the counter is read, and every later barrier orders that load:
 * the latch's retry fence, and a lock's release store, so a reading taken
 * before releasing a lock is not read after the release is visible.
 */
static inline uint64_t cyclock_arch_counter_ordered(void)
{
	uint64_t cnt, zero;

	__asm__ __volatile__("isb\n\t"
			     "mrs %0, cntvct_el0\n\t"
			     "eor %1, %0, %0\n\t"
			     "add %1, sp, %1\n\t"
			     "ldr xzr, [%1]"
			     : "=r"(cnt), "=&r"(zero)
			     :
			     : "memory");
	return cnt;
}
#define cyclock_arch_counter_ordered cyclock_arch_counter_ordered
#define CYCLOCK_ARCH_ORDERED_NAME "isb; mrs cntvct_el0"

/* The kernel's name for this counter in current_clocksource. */
#define CYCLOCK_ARCH_KERNEL_CLOCKSOURCE "arch_sys_counter"

/* CNTFRQ_EL0: the frequency firmware programmed for the counter (the
 * kernel uses it too unless the device tree overrides it). */
static inline uint64_t cyclock_arch_counter_hz_hint(const char **how)
{
	uint64_t frq;

	__asm__ __volatile__("mrs %0, cntfrq_el0" : "=r"(frq));
	frq &= 0xffffffff; /* the upper half is reserved */
	if (frq)
		*how = "cntfrq_el0";
	return frq;
}
#define cyclock_arch_counter_hz_hint cyclock_arch_counter_hz_hint

#include "generic.h"

#endif /* CYCLOCK_ARCH_ARM64_H */
