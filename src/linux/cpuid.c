/* SPDX-License-Identifier: MIT */
/*
 * CPUID's answers, through a cache: each leaf the arch header's checks ask
 * (CYCLOCK_ARCH_CPUID_LEAVES, x86-64 alone) is asked of the CPU once, or
 * answered by the machine's record (record.c), whose answers are checked
 * here against what the CPU says for itself where that costs nothing
 * (glibc's copy) and, for the leaves record.c names, by asking it.  CPUID
 * traps to the hypervisor in a virtual machine, 6 to 17 us a leaf.  The
 * simulation library has sim.c in its place.
 *
 * Tests: tests/linux/test_machine_record.c (a record's leaves used and
 * confirmed), test_record_forged.c (leaves not the CPU's refused),
 * test_first_read.c (a leaf a read at most); the sim_ tests run sim.c
 * instead.
 */
#define _GNU_SOURCE
#include <string.h>

#include "internal.h"
#include "record.h"

/* glibc's own copy of CPUID's answers (2.33 and later). */
#if defined(__x86_64__) && defined(__GLIBC__) && __has_include(<sys/platform/x86.h>)
#include <sys/platform/x86.h>
#define GLIBC_CPUID 1
#endif

#ifdef CYCLOCK_SIM
#error "cpuid.c is the real machine's: the simulation library has sim.c"
#endif

#ifdef CYCLOCK_ARCH_CPUID_LEAVES
/* The leaves the arch header's checks ask, each asked of the CPU once, or
 * answered by the machine's record (record.c): written by the initialising
 * thread only (checks.c, record.c), which alone reads it. */
static const unsigned int cpuid_leaf[] = { CYCLOCK_ARCH_CPUID_LEAVES };
#define CPUID_LEAVES (sizeof(cpuid_leaf) / sizeof(cpuid_leaf[0]))
static struct {
	unsigned int r[4];
	bool have;
	bool cpu; /* the CPU's answer: asked, or a record's that glibc's copy confirmed */
} cpuid_cache[CPUID_LEAVES];

static unsigned int cpuid_asked; /* CPUID instructions run: for the tests */
/* cyclock__cpuid_confirm()'s: a record's answer is asked of the CPU when
 * read, while the asks last; one the CPU contradicted; one left unasked
 * for want of asks. */
static bool confirming, contradicted, deferred;
static unsigned int confirm_asks;

static bool glibc_whole(unsigned int leaf, unsigned int r[4]);

/* Whether @a and @b say the same of leaf @leaf in the registers that do
 * not depend on which CPU answers: all but leaf 1's EBX (its APIC id). */
static bool same_answer(unsigned int leaf, const unsigned int a[4], const unsigned int b[4])
{
	for (int reg = 0; reg < 4; reg++)
		if (a[reg] != b[reg] && !(leaf == 1 && reg == 1))
			return false;
	return true;
}

/* Leaf @i as the CPU says it: glibc's copy where it keeps all of it,
 * else asked (a trap to the hypervisor in a virtual machine). */
static void cpuid_fetch(size_t i)
{
	unsigned int r[4];

	if (!glibc_whole(cpuid_leaf[i], r)) {
		__cpuid_count(cpuid_leaf[i], 0, r[0], r[1], r[2], r[3]);
		cpuid_asked++;
	}
	if (cpuid_cache[i].have && !same_answer(cpuid_leaf[i], r, cpuid_cache[i].r))
		contradicted = true;
	memcpy(cpuid_cache[i].r, r, sizeof(r));
	cpuid_cache[i].have = cpuid_cache[i].cpu = true;
}

/* Leaf @i, which only a record answered: asked of the CPU if an ask is
 * left, else the record's answer for now, and the confirmation deferred. */
static void confirm_leaf(size_t i)
{
	if (!confirm_asks) {
		deferred = true;
		return;
	}
	confirm_asks--;
	cpuid_fetch(i);
}

unsigned int cyclock__cpuid_asked(void)
{
	return cpuid_asked;
}

void cyclock__cpuid(unsigned int leaf, unsigned int r[4])
{
	for (size_t i = 0; i < CPUID_LEAVES; i++)
		if (cpuid_leaf[i] == leaf) {
			if (!cpuid_cache[i].have)
				cpuid_fetch(i);
			else if (confirming && !cpuid_cache[i].cpu)
				confirm_leaf(i);
			memcpy(r, cpuid_cache[i].r, sizeof(cpuid_cache[i].r));
			return;
		}
	__cpuid_count(leaf, 0, r[0], r[1], r[2], r[3]);
	cpuid_asked++;
}

/* The first leaf not asked yet, or CPUID_LEAVES. */
static size_t cpuid_unasked(void)
{
	size_t i = 0;

	while (i < CPUID_LEAVES && cpuid_cache[i].have)
		i++;
	return i;
}

bool cyclock__cpuid_pending(void)
{
	return cpuid_unasked() < CPUID_LEAVES;
}

/* Ask the next leaf not asked yet; false if none is left. */
bool cyclock__cpuid_ahead(void)
{
	size_t i = cpuid_unasked();

	if (i == CPUID_LEAVES)
		return false;
	cpuid_fetch(i);
	return true;
}

_Static_assert(CPUID_LEAVES <= CYCLOCK__CPUID_MAX, "the machine's record holds every leaf");

bool cyclock__cpuid_export(struct cyclock__cpuid_answer *a, uint32_t *n)
{
	for (size_t i = 0; i < CPUID_LEAVES; i++) {
		if (!cpuid_cache[i].have)
			return false;
		a[i].leaf = cpuid_leaf[i];
		memcpy(a[i].r, cpuid_cache[i].r, sizeof(a[i].r));
	}
	*n = CPUID_LEAVES;
	return true;
}

#ifdef GLIBC_CPUID
/*
 * The leaves glibc asked the CPU itself at this process's start and keeps
 * (2.33 and later), with the registers that do not depend on which CPU
 * asked (leaf 1's EBX names it): a record's answer for one must be glibc's,
 * at the cost of a call.  Leaves 1 and 0x80000001 are on every x86-64 CPU;
 * glibc asks 0x80000007 where 0x80000000 says it is, as the arch header
 * reads it only there.
 */
static const struct {
	unsigned int leaf, index, regs, top;
} glibc_leaf[] = { { 0x1u, CPUID_INDEX_1, 0xd, 0 },
		   { 0x80000001u, CPUID_INDEX_80000001, 0xf, 0 },
		   { 0x80000007u, CPUID_INDEX_80000007, 0xf, 0x80000000u } };

/* Where leaf @leaf is in this build's list, or CPUID_LEAVES. */
static size_t leaf_at(unsigned int leaf)
{
	size_t i = 0;

	while (i < CPUID_LEAVES && cpuid_leaf[i] != leaf)
		i++;
	return i;
}

/* Whether glibc's copy says what @a says; @cpu[i]: leaf i is the CPU's. */
static bool glibc_agrees(const struct cyclock__cpuid_answer *a, bool cpu[CPUID_LEAVES])
{
	for (size_t g = 0; g < sizeof(glibc_leaf) / sizeof(glibc_leaf[0]); g++) {
		unsigned int leaf = glibc_leaf[g].leaf;
		size_t i = leaf_at(leaf), top = leaf_at(glibc_leaf[g].top);
		const unsigned int *glibc =
			__x86_get_cpuid_feature_leaf(glibc_leaf[g].index)->cpuid_array;

		if (i == CPUID_LEAVES ||
		    (glibc_leaf[g].top && (top == CPUID_LEAVES || a[top].r[0] < leaf)))
			continue;
		for (int reg = 0; reg < 4; reg++)
			if ((glibc_leaf[g].regs >> reg & 1) && glibc[reg] != a[i].r[reg])
				return false;
		cpu[i] = true;
	}
	return true;
}

/* Leaf @leaf into @r from glibc's copy, if it keeps all four registers
 * and the leaf is on every CPU (0x80000001): the CPU's answer, no trap. */
static bool glibc_whole(unsigned int leaf, unsigned int r[4])
{
	for (size_t g = 0; g < sizeof(glibc_leaf) / sizeof(glibc_leaf[0]); g++)
		if (glibc_leaf[g].leaf == leaf && glibc_leaf[g].regs == 0xf && !glibc_leaf[g].top) {
			memcpy(r, __x86_get_cpuid_feature_leaf(glibc_leaf[g].index)->cpuid_array,
			       4 * sizeof(r[0]));
			return true;
		}
	return false;
}
#else
static bool glibc_agrees(const struct cyclock__cpuid_answer *a, bool cpu[CPUID_LEAVES])
{
	(void)a;
	(void)cpu;
	return true;
}

static bool glibc_whole(unsigned int leaf, unsigned int r[4])
{
	(void)leaf, (void)r;
	return false;
}
#endif

/* A TSC frequency a record may state: an x86-64 TSC runs at a core's
 * nominal rate, hundreds of MHz to a few GHz. */
#define HZ_STATED_MIN 100000000ull
#define HZ_STATED_MAX 10000000000ull

bool cyclock__cpuid_import(const struct cyclock__cpuid_answer *a, uint32_t n)
{
	bool cpu[CPUID_LEAVES] = { false };
	const char *how;
	uint64_t hz;

	if (n != CPUID_LEAVES)
		return false;
	for (size_t i = 0; i < n; i++)
		if (a[i].leaf != cpuid_leaf[i])
			return false;
	if (!glibc_agrees(a, cpu))
		return false;
	for (size_t i = 0; i < n; i++) /* the CPU answered it already (at load) */
		if (cpuid_cache[i].cpu && !same_answer(a[i].leaf, a[i].r, cpuid_cache[i].r))
			return false;
	for (size_t i = 0; i < n; i++)
		if (!cpuid_cache[i].cpu) { /* an answer the CPU gave stays */
			memcpy(cpuid_cache[i].r, a[i].r, sizeof(cpuid_cache[i].r));
			cpuid_cache[i].have = true;
			cpuid_cache[i].cpu = cpu[i];
		}
	hz = cyclock_arch_counter_hz_hint(&how);
	if (hz && (hz < HZ_STATED_MIN || hz > HZ_STATED_MAX)) {
		cyclock__cpuid_forget();
		return false;
	}
	return true;
}

void cyclock__cpuid_confirm_start(unsigned int asks)
{
	contradicted = deferred = false;
	confirm_asks = asks;
}

void cyclock__cpuid_confirm(bool on)
{
	confirming = on;
}

int cyclock__cpuid_confirmed(void)
{
	return contradicted ? CYCLOCK__TAKE_NO : deferred ? CYCLOCK__TAKE_LATER : CYCLOCK__TAKE_YES;
}

void cyclock__cpuid_forget(void)
{
	for (size_t i = 0; i < CPUID_LEAVES; i++)
		cpuid_cache[i].have = cpuid_cache[i].cpu;
}
#else
bool cyclock__cpuid_pending(void)
{
	return false;
}

/* No CPUID: nothing a record says of it to confirm or forget. */
void cyclock__cpuid_confirm_start(unsigned int asks)
{
	(void)asks;
}

void cyclock__cpuid_confirm(bool on)
{
	(void)on;
}

int cyclock__cpuid_confirmed(void)
{
	return CYCLOCK__TAKE_YES;
}

void cyclock__cpuid_forget(void)
{
}

bool cyclock__cpuid_export(struct cyclock__cpuid_answer *a, uint32_t *n)
{
	(void)a;
	*n = 0;
	return true;
}

bool cyclock__cpuid_import(const struct cyclock__cpuid_answer *a, uint32_t n)
{
	(void)a;
	return n == 0;
}

bool cyclock__cpuid_ahead(void)
{
	return false;
}

unsigned int cyclock__cpuid_asked(void)
{
	return 0;
}
#endif
