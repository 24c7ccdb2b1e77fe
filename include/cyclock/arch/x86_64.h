/* SPDX-License-Identifier: MIT */
/*
 * x86-64: the TSC.  Defines only what it specialises, then includes
 * generic.h for the rest.
 *
 * The ordered read keeps rdtsc from executing before earlier loads (the
 * latch's sequence load among them), which is what makes readings
 * monotonic across CPUs; see cyclock_arch_counter_ordered().
 */
#ifndef CYCLOCK_ARCH_X86_64_H
#define CYCLOCK_ARCH_X86_64_H

#include <cpuid.h>
#include <stdint.h>

#define CYCLOCK_ARCH_COUNTER_NAME "tsc"
#define CYCLOCK_ARCH_HAS_COUNTER 1

/* Unordered: may execute before earlier or after later instructions. */
static inline uint64_t cyclock_arch_counter(void)
{
	uint32_t lo, hi;

	__asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
	return (uint64_t)hi << 32 | lo;
}
#define cyclock_arch_counter cyclock_arch_counter

/*
 * Ordered: not before every earlier load is globally visible.  rdtscp
 * waits for that and, unlike lfence;rdtsc, lets later instructions start
 * meanwhile; on the KVM guests this was measured on it is the cheaper of
 * the two (18.5 against 18.8 ns alone, 20.2 against 20.5 ns in
 * cyclock_now()).
 * Build with CYCLOCK_X86_LFENCE for a CPU without rdtscp (CPUID
 * 0x80000001 EDX bit 27; the library checks it at init).
 */
static inline uint64_t cyclock_arch_counter_ordered(void)
{
	uint32_t lo, hi;
#ifdef CYCLOCK_X86_LFENCE
	__asm__ __volatile__("lfence; rdtsc" : "=a"(lo), "=d"(hi) : : "memory");
#else
	__asm__ __volatile__("rdtscp" : "=a"(lo), "=d"(hi) : : "ecx", "memory");
#endif
	return (uint64_t)hi << 32 | lo;
}
#define cyclock_arch_counter_ordered cyclock_arch_counter_ordered

/* Whether the ordered read can run here. */
static inline int cyclock_arch_counter_usable(void)
{
#ifdef CYCLOCK_X86_LFENCE
	return 1;
#else
	unsigned int a, b, c, d;

	return __get_cpuid(0x80000001, &a, &b, &c, &d) && (d >> 27 & 1);
#endif
}
#define cyclock_arch_counter_usable cyclock_arch_counter_usable

/* rdtscp: the counter and the CPU it was read on.  Linux puts the CPU
 * number in TSC_AUX's low 12 bits and the node above them. */
static inline uint64_t cyclock_arch_counter_cpu(unsigned int *cpu)
{
	uint32_t lo, hi, aux;

	__asm__ __volatile__("rdtscp" : "=a"(lo), "=d"(hi), "=c"(aux));
	*cpu = aux & 0xfff;
	return (uint64_t)hi << 32 | lo;
}
#define cyclock_arch_counter_cpu cyclock_arch_counter_cpu

/* The kernel's name for this counter in current_clocksource. */
#define CYCLOCK_ARCH_KERNEL_CLOCKSOURCE "tsc"

/* CPUID 0x80000007 EDX bit 8: the TSC runs at a constant rate in every
 * P-, C- and T-state. */
static inline int cyclock_arch_counter_invariant(void)
{
	unsigned int a, b, c, d;

	if (!__get_cpuid(0x80000007, &a, &b, &c, &d))
		return 0;
	return (d >> 8) & 1;
}
#define cyclock_arch_counter_invariant cyclock_arch_counter_invariant

/*
 * The TSC's frequency where the CPU or the hypervisor states it: CPUID
 * 0x15 (crystal ratio, Intel) or the hypervisor's leaf 0x40000010 (kHz,
 * VMware and KVM with the right setting).  0 if neither does.
 */
static inline uint64_t cyclock_arch_counter_hz_hint(const char **how)
{
	unsigned int a, b, c, d;

	if (__get_cpuid_max(0, NULL) >= 0x15) {
		__cpuid_count(0x15, 0, a, b, c, d);
		if (a && b && c) {
			*how = "CPUID leaf 0x15";
			return (uint64_t)c * b / a;
		}
	}
	__cpuid(0x1, a, b, c, d);
	if (!(c >> 31)) /* no hypervisor */
		return 0;
	__cpuid(0x40000000, a, b, c, d);
	if (a < 0x40000010)
		return 0;
	__cpuid(0x40000010, a, b, c, d);
	if (!a)
		return 0;
	*how = "hypervisor CPUID leaf 0x40000010";
	return (uint64_t)a * 1000;
}
#define cyclock_arch_counter_hz_hint cyclock_arch_counter_hz_hint

#include "generic.h"

#endif /* CYCLOCK_ARCH_X86_64_H */
