/* SPDX-License-Identifier: MIT */
/*
 * riscv64: the time CSR, read with rdtime (csrr time).  Defines only what
 * it specialises, then includes generic.h for the rest (no CPU id with the
 * read: the caller asks the kernel).
 *
 * The time CSR counts the platform's one real-time counter (mtime) at the
 * device tree's timebase-frequency, the same for every hart and constant:
 * invariant by definition (generic.h's default).  Whether the kernel lets
 * user space read it, and trusts it, is what current_clocksource
 * ("riscv_clocksource") tells.
 */
#ifndef CYCLOCK_ARCH_RISCV64_H
#define CYCLOCK_ARCH_RISCV64_H

#include <stdint.h>

#define CYCLOCK_ARCH_COUNTER_NAME "rdtime"
#define CYCLOCK_ARCH_HAS_COUNTER 1

/* Unordered: the ISA orders CSR reads with nothing by default. */
static inline uint64_t cyclock_arch_counter(void)
{
	uint64_t t;

	__asm__ __volatile__("rdtime %0" : "=r"(t));
	return t;
}
#define cyclock_arch_counter cyclock_arch_counter

/*
 * Ordered.  The unprivileged ISA (Zicsr) says CSR accesses are not ordered
 * with explicit memory accesses except by a syntactic dependency or a
 * FENCE, and that for FENCE a CSR read counts as device input (I).  So
 * "fence rw,rw" orders nothing here; it takes an I in the successor set.
 *
 * Before: "fence r,i" makes the read wait for every earlier load, the
 * latch's acquire of its sequence among them (timeline.h's cyclock__read()).
 * After: a dummy load from the stack whose address depends on the count
 * (t ^ t is 0, but the hart cannot know it early) is a syntactic
 * dependency, so it is performed after the read, and every later fence
 * orders that load: the latch's retry fence, and a lock's release, so a
 * reading taken before releasing a lock is not read after the release.
 * (Linux reads the time CSR with no fence at all; this is the ISA's rule.)
 */
static inline uint64_t cyclock_arch_counter_ordered(void)
{
	uint64_t t, zero;

	__asm__ __volatile__("fence r, i\n\t"
			     "rdtime %0\n\t"
			     "xor %1, %0, %0\n\t"
			     "add %1, %1, sp\n\t"
			     "ld zero, 0(%1)"
			     : "=r"(t), "=&r"(zero)
			     :
			     : "memory");
	return t;
}
#define cyclock_arch_counter_ordered cyclock_arch_counter_ordered
#define CYCLOCK_ARCH_ORDERED_NAME "fence r,i; rdtime"

/* The kernel's name for this counter in current_clocksource. */
#define CYCLOCK_ARCH_KERNEL_CLOCKSOURCE "riscv_clocksource"

/* Where a hosted program finds the counter's frequency: a big-endian u32
 * in the device tree, read by src/linux/platform.c (reading a file is not
 * for this freestanding header). */
#define CYCLOCK_ARCH_HZ_DEVICE_TREE "/proc/device-tree/cpus/timebase-frequency"

#include "generic.h"

#endif /* CYCLOCK_ARCH_RISCV64_H */
