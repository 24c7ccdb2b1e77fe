/* SPDX-License-Identifier: MIT */
/*
 * Records of the machine forged by the user they are of, with a valid
 * checksum (src/linux/record.c; docs/hosted.md, "The machine's record"):
 * costs no timing finds (every one UINT64_MAX, on which the old code read
 * past the table of reads, or beyond any measurement), costs that make a
 * read the record says the CPU lacks the cheapest, CPUID leaves not the
 * CPU's (the leaf rdtscp's bit is in, leaf 1, the vendor the LFENCE read
 * rests on), a stated frequency out of range, and bytes no writer writes.
 * Each may cost a process speed, never more: the record is not used, the
 * process does not crash, runs no read on the record's word alone, and
 * serves cyclock_now() within a hand-over's bound of CLOCK_MONOTONIC from
 * its first reads.  A plausible but wrong frequency is
 * test_record_frequency.c's.  Each case in a fresh process (fork() and exec()), the
 * record at a path of the test's own.  Skipped (77) where the library
 * keeps no record (no counter to use).
 */
#define _GNU_SOURCE

#include "record_forge.h"

/* The hand-over's bound: an error this large, unexplained, is the
 * counter's (CYCLOCK_WRONG_NS); the library aims at 1 us. */
#define HANDOVER_NS 100000

static int failures;
static struct cyclock__record good; /* what a child that found none wrote */

static void expect(bool ok, const char *what)
{
	printf("%s %s\n", ok ? "ok  " : "FAIL", what);
	failures += !ok;
}

/* @r forged: a child must not use it, nor crash, and must read right. */
static struct found refused(struct cyclock__record *r, const char *what)
{
	struct found f;
	char line[240];

	forge_store(r);
	f = forge_run(NULL);
	snprintf(line, sizeof(line), "%s: not used, cyclock_now() within %d us", what,
		 HANDOVER_NS / 1000);
	expect(forge_finished(&f) && !f.used && f.worst <= HANDOVER_NS, line);
	if (forge_finished(&f))
		printf("     worst miss %lld ns, %.3f MHz, ordered read %s%s\n", (long long)f.worst,
		       f.hz / 1e6, f.ordered, f.used ? ", the record used" : "");
	return f;
}

#if CYCLOCK_ARCH_ORDERED_HOWS > 1
/* Costs no timing finds: the choice must stay in the table. */
static void forged_costs(void)
{
	struct cyclock__record r = good;

	r.timed = 1;
	for (uint32_t h = 0; h < CYCLOCK_ARCH_ORDERED_HOWS; h++)
		r.ordered_best[h] = UINT64_MAX;
	refused(&r, "every cost UINT64_MAX (the old code read past the table)");
	r = good;
	r.timed = 1;
	for (uint32_t h = 0; h < CYCLOCK_ARCH_ORDERED_HOWS; h++)
		r.ordered_best[h] = 1ull << 63;
	refused(&r, "every cost 2^63, beyond any timing");
}
#else
static void forged_costs(void)
{
	printf("     one ordered read here: the forged costs skipped\n");
}
#endif

#ifdef CYCLOCK_ARCH_X86_RDTSCP
/* Costs timed for every read but the one that works everywhere, @cheap
 * the cheapest by far. */
static void costs_favour(struct cyclock__record *r, uint32_t cheap)
{
	r->timed = 1;
	for (uint32_t h = 0; h < CYCLOCK_ARCH_ORDERED_HOWS; h++)
		r->ordered_best[h] = h == cheap ? 160 : 1600;
	r->ordered_best[CYCLOCK_ARCH_ORDERED_ANY] = UINT64_MAX;
}

/* The record's vendor, made the other one's: GenuineIntel, or
 * AuthenticAMD with LFENCE serializing (CPUID 0x80000021 EAX bit 2). */
static void other_vendor(struct cyclock__record *r)
{
	unsigned int *v = forge_leaf(r, 0x0u), *top = forge_leaf(r, 0x80000000u);
	unsigned int *amd = forge_leaf(r, 0x80000021u);
	bool intel = v[1] == 0x756e6547;

	v[1] = intel ? 0x68747541 : 0x756e6547; /* "Auth" : "Genu" */
	v[3] = intel ? 0x69746e65 : 0x49656e69; /* "enti" : "ineI" */
	v[2] = intel ? 0x444d4163 : 0x6c65746e; /* "cAMD" : "ntel" */
	if (intel) {
		top[0] = top[0] < 0x80000021u ? 0x80000021u : top[0];
		amd[0] |= 1u << 2;
	}
}

/* x86-64: leaves the record's reads rest on, not the CPU's. */
static void forged_leaves(void)
{
	struct cyclock__record r = good;
	struct found f;

	forge_leaf(&r, 0x80000001u)[3] &= ~(1u << 27);
	costs_favour(&r, CYCLOCK_ARCH_X86_RDTSCP);
	f = refused(&r, "rdtscp absent by CPUID 0x80000001, its cost the cheapest");
	expect(!(f.used && !strcmp(f.ordered, "rdtscp")),
	       "a read the record says the CPU lacks is not chosen on its word");
	r = good;
	forge_leaf(&r, 0x80000001u)[2] ^= 1u; /* LAHF/SAHF: rdtscp's bit left as it is */
	refused(&r, "CPUID 0x80000001 not the CPU's, rdtscp's bit as it is");
	r = good;
	forge_leaf(&r, 0x1u)[3] ^= 1u; /* the FPU's bit */
#if defined(__GLIBC__) && __has_include(<sys/platform/x86.h>)
	refused(&r, "CPUID leaf 1's EDX not the CPU's (glibc's copy)");
#else
	printf("     no copy of CPUID in glibc: leaf 1's EDX (no check reads it) not compared\n");
#endif
	r = good;
	other_vendor(&r);
	costs_favour(&r, CYCLOCK_ARCH_X86_LFENCE_RDTSC);
	f = refused(&r, "the other vendor's, making lfence;rdtsc ordered and the cheapest");
	printf("     CPUID asked: %u (to confirm, then for itself)\n", f.cpuid);
}

/*
 * A stated frequency far out of range, through the hypervisor's leaf
 * 0x40000010 (kHz), which the arch header reads where leaf 0x15 states
 * none: 4.3 THz, which froze the old code's clocks for their first
 * segment.
 */
static void forged_frequency(void)
{
	struct cyclock__record r = good;

	memset(forge_leaf(&r, 0x15u), 0, 4 * sizeof(unsigned int));
	forge_leaf(&r, 0x1u)[2] |= 1u << 31;
	if (forge_leaf(&r, 0x40000000u)[0] < 0x40000010u)
		forge_leaf(&r, 0x40000000u)[0] = 0x40000010u;
	forge_leaf(&r, 0x40000010u)[0] = 0xffffffffu;
	refused(&r, "a stated frequency of 4.3 THz (CPUID 0x40000010)");
}
#else
static void forged_leaves(void)
{
	printf("     no CPUID here: the forged leaves skipped\n");
}

static void forged_frequency(void)
{
	printf("     no CPUID here: the forged frequency skipped\n");
}
#endif

/* Bytes no writer writes, the checksum right. */
static void forged_layout(void)
{
	struct cyclock__record r = good;

	if (r.cpuid_n > 0) {
		r.cpuid[0].leaf ^= 0x2u;
		refused(&r, "a CPUID leaf not this build's");
	}
	r = good;
	if (r.cpuid_n < CYCLOCK__CPUID_MAX) {
		r.cpuid[CYCLOCK__CPUID_MAX - 1].r[0] = 1;
		refused(&r, "a byte past the CPUID leaves");
	}
	r = good;
	r.timed = 2;
	refused(&r, "timed neither 0 nor 1");
}

int main(int argc, char **argv)
{
	struct found a, b;
	int rc;

	forge_child_main(argc, argv);

	/* The cases are about the read a record makes a process choose and
	 * confirm, which CYCLOCK_ORDERED_READ would choose instead. */
	unsetenv("CYCLOCK_ORDERED_READ");
	if ((rc = forge_begin("test_record_forged", "forged", &a, &good)))
		return rc;
	expect(!a.used, "a child without a record writes one");
	b = forge_run(NULL);
	expect(forge_finished(&b) && b.used,
	       "the next one uses it: the forgeries are refused for what they say");
	forged_costs();
	forged_leaves();
	forged_frequency();
	forged_layout();
	unlink(forge_path);
	printf("test_record_forged: %d failed\n", failures);
	return failures ? 1 : 0;
}
