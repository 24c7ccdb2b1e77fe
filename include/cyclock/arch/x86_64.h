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

/*
 * CPUID leaf @leaf (sub-leaf 0) into unsigned int @r[4] (EAX, EBX, ECX,
 * EDX), for the checks below.  Each costs about 5 us in a KVM guest (it
 * traps to the hypervisor), so a program may define CYCLOCK_ARCH_CPUID
 * before including this header to answer from a cache: the hosted library
 * asks each leaf of CYCLOCK_ARCH_CPUID_LEAVES once, one per read, ahead of
 * the checks (docs/hosted.md, "The first read"), and keeps their answers
 * for the boot (docs/hosted.md, "Trust").
 */
#ifndef CYCLOCK_ARCH_CPUID
#define CYCLOCK_ARCH_CPUID(leaf, r) __cpuid_count((leaf), 0, (r)[0], (r)[1], (r)[2], (r)[3])
#endif
#define CYCLOCK_ARCH_CPUID_LEAVES                                                            \
	0x0u, 0x80000000u, 0x80000007u, 0x80000001u, 0x80000021u, 0x1u, 0x15u, 0x40000000u, \
		0x40000010u

/* Unordered: may execute before earlier or after later instructions. */
static inline uint64_t cyclock_arch_counter(void)
{
	uint32_t lo, hi;

	__asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
	return (uint64_t)hi << 32 | lo;
}
#define cyclock_arch_counter cyclock_arch_counter

/*
 * Ordered: not before every earlier load is globally visible.  Which
 * instruction is cheapest depends on the CPU (on these KVM guests: rdtscp
 * 18.5 against 18.8 ns one week, lfence;rdtsc 14.7 against 16.8 ns the
 * next), so the hosted library times them at initialisation and keeps the
 * choice, a "how", on the readers' cache line (cyclock/timeline.h):
 *   0  rdtscp: waits for earlier loads, lets later instructions start;
 *   1  lfence;rdtsc: LFENCE dispatch-serializes, where it is known to
 *      (cyclock_arch_ordered_works());
 *   2  mfence;lfence;rdtsc: ordered on every x86-64 CPU without asking
 *      CPUID (which costs 5 us in a KVM guest), since Linux's
 *      rdtsc_ordered() relies on one fence or the other on each (MFENCE on
 *      AMD's older families, LFENCE elsewhere): what the library reads
 *      before it has chosen.
 */
#define CYCLOCK_ARCH_ORDERED_HOWS 3u
#define CYCLOCK_ARCH_ORDERED_ANY 2u
/* The two hows by name, for a caller that wants one read in particular
 * (the cyclock tool's floors, named after them). */
#define CYCLOCK_ARCH_X86_RDTSCP 0u
#define CYCLOCK_ARCH_X86_LFENCE_RDTSC 1u

static inline uint64_t cyclock_arch_counter_ordered_how(uint32_t how)
{
	uint32_t lo, hi;

	/* Before the choice only: out of the readers' way. */
	if (__builtin_expect(how > 1, 0))
		__asm__ __volatile__("mfence; lfence; rdtsc" : "=a"(lo), "=d"(hi) : : "memory");
	else if (how)
		__asm__ __volatile__("lfence; rdtsc" : "=a"(lo), "=d"(hi) : : "memory");
	else
		__asm__ __volatile__("rdtscp" : "=a"(lo), "=d"(hi) : : "ecx", "memory");
	return (uint64_t)hi << 32 | lo;
}
#define cyclock_arch_counter_ordered_how cyclock_arch_counter_ordered_how

/* Without a choice at hand (tools, tests): rdtscp. */
static inline uint64_t cyclock_arch_counter_ordered(void)
{
	return cyclock_arch_counter_ordered_how(0);
}
#define cyclock_arch_counter_ordered cyclock_arch_counter_ordered

static inline const char *cyclock_arch_ordered_name(uint32_t how)
{
	return how == 1 ? "lfence;rdtsc" : !how ? "rdtscp" : "mfence;lfence;rdtsc";
}
#define cyclock_arch_ordered_name cyclock_arch_ordered_name

/*
 * Whether @how runs here and orders the read after earlier loads; *why
 * says what tells.  rdtscp: CPUID 0x80000001 EDX bit 27.  LFENCE: Intel
 * documents it as dispatch-serializing on every CPU; AMD only where CPUID
 * 0x80000021 EAX bit 2 says so (elsewhere the kernel may have made it so
 * through an MSR, which user space cannot see).  Both fences: always.
 */
static inline int cyclock_arch_ordered_works(uint32_t how, const char **why)
{
	unsigned int r[4];

	if (how == CYCLOCK_ARCH_ORDERED_ANY) {
		*why = "mfence;lfence: one of them orders rdtsc on every x86-64 CPU";
		return 1;
	}
	if (!how) { /* every x86-64 CPU has leaf 0x80000001 (long mode is in it) */
		*why = "rdtscp: CPUID 0x80000001 EDX bit 27";
		CYCLOCK_ARCH_CPUID(0x80000001u, r);
		return r[3] >> 27 & 1;
	}
	CYCLOCK_ARCH_CPUID(0x0u, r);
	if (r[1] == 0x756e6547 && r[3] == 0x49656e69 && r[2] == 0x6c65746e) { /* GenuineIntel */
		*why = "LFENCE serializes: Intel documents it";
		return 1;
	}
	*why = "LFENCE serializes: CPUID 0x80000021 EAX bit 2";
	CYCLOCK_ARCH_CPUID(0x80000000u, r);
	if (r[0] < 0x80000021u)
		return 0;
	CYCLOCK_ARCH_CPUID(0x80000021u, r);
	return r[0] >> 2 & 1;
}
#define cyclock_arch_ordered_works cyclock_arch_ordered_works

/* rdtscp: the counter and the CPU it was read on.  Linux puts the CPU
 * number in TSC_AUX's low 12 bits and the node above them.  Only where
 * ordered read CYCLOCK_ARCH_COUNTER_CPU_HOW (rdtscp) works. */
#define CYCLOCK_ARCH_COUNTER_CPU_HOW 0u
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
	unsigned int r[4];

	CYCLOCK_ARCH_CPUID(0x80000000u, r);
	if (r[0] < 0x80000007u)
		return 0;
	CYCLOCK_ARCH_CPUID(0x80000007u, r);
	return (r[3] >> 8) & 1;
}
#define cyclock_arch_counter_invariant cyclock_arch_counter_invariant

/*
 * The TSC's frequency where the CPU or the hypervisor states it: CPUID
 * 0x15 (crystal ratio, Intel) or the hypervisor's leaf 0x40000010 (kHz,
 * VMware and KVM with the right setting).  0 if neither does.
 */
static inline uint64_t cyclock_arch_counter_hz_hint(const char **how)
{
	unsigned int r[4];

	CYCLOCK_ARCH_CPUID(0x0u, r);
	if (r[0] >= 0x15) {
		CYCLOCK_ARCH_CPUID(0x15u, r);
		if (r[0] && r[1] && r[2]) {
			*how = "CPUID leaf 0x15";
			return (uint64_t)r[2] * r[1] / r[0];
		}
	}
	CYCLOCK_ARCH_CPUID(0x1u, r);
	if (!(r[2] >> 31)) /* no hypervisor */
		return 0;
	CYCLOCK_ARCH_CPUID(0x40000000u, r);
	if (r[0] < 0x40000010u)
		return 0;
	CYCLOCK_ARCH_CPUID(0x40000010u, r);
	if (!r[0])
		return 0;
	*how = "hypervisor CPUID leaf 0x40000010";
	return (uint64_t)r[0] * 1000;
}
#define cyclock_arch_counter_hz_hint cyclock_arch_counter_hz_hint

#include "generic.h"

#endif /* CYCLOCK_ARCH_X86_64_H */
