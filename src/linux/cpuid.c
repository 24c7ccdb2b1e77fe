/* SPDX-License-Identifier: MIT */
/*
 * CPUID's answers, through a cache: each leaf the arch header's checks ask
 * (CYCLOCK_ARCH_CPUID_LEAVES, x86-64 alone) is asked of the CPU once, or
 * answered by the machine's record (record.c).  CPUID traps to the
 * hypervisor in a virtual machine, 6 to 17 us a leaf.  The simulation
 * library has sim.c in its place.
 */
#define _GNU_SOURCE
#include <string.h>

#include "internal.h"

#ifdef CYCLOCK_SIM
#error "cpuid.c is the real machine's: the simulation library has sim.c"
#endif

#ifdef CYCLOCK_ARCH_CPUID_LEAVES
/* The leaves the arch header's checks ask, each asked of the CPU once:
 * written by the initialising thread only (checks.c, record.c), which
 * alone reads it. */
static const unsigned int cpuid_leaf[] = { CYCLOCK_ARCH_CPUID_LEAVES };
static struct {
	unsigned int r[4];
	bool have;
} cpuid_cache[sizeof(cpuid_leaf) / sizeof(cpuid_leaf[0])];

static unsigned int cpuid_asked; /* CPUID instructions run: for the tests */

static void cpuid_fetch(size_t i)
{
	__cpuid_count(cpuid_leaf[i], 0, cpuid_cache[i].r[0], cpuid_cache[i].r[1],
		      cpuid_cache[i].r[2], cpuid_cache[i].r[3]);
	cpuid_cache[i].have = true;
	cpuid_asked++;
}

unsigned int cyclock__cpuid_asked(void)
{
	return cpuid_asked;
}

void cyclock__cpuid(unsigned int leaf, unsigned int r[4])
{
	for (size_t i = 0; i < sizeof(cpuid_leaf) / sizeof(cpuid_leaf[0]); i++)
		if (cpuid_leaf[i] == leaf) {
			if (!cpuid_cache[i].have)
				cpuid_fetch(i);
			memcpy(r, cpuid_cache[i].r, sizeof(cpuid_cache[i].r));
			return;
		}
	__cpuid_count(leaf, 0, r[0], r[1], r[2], r[3]);
	cpuid_asked++;
}

#define CPUID_LEAVES (sizeof(cpuid_leaf) / sizeof(cpuid_leaf[0]))

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

_Static_assert(sizeof(cpuid_leaf) / sizeof(cpuid_leaf[0]) <= CYCLOCK__CPUID_MAX,
	       "the machine's record holds every leaf");

bool cyclock__cpuid_export(struct cyclock__cpuid_answer *a, uint32_t *n)
{
	for (size_t i = 0; i < sizeof(cpuid_leaf) / sizeof(cpuid_leaf[0]); i++) {
		if (!cpuid_cache[i].have)
			return false;
		a[i].leaf = cpuid_leaf[i];
		memcpy(a[i].r, cpuid_cache[i].r, sizeof(a[i].r));
	}
	*n = sizeof(cpuid_leaf) / sizeof(cpuid_leaf[0]);
	return true;
}

bool cyclock__cpuid_import(const struct cyclock__cpuid_answer *a, uint32_t n)
{
	if (n != sizeof(cpuid_leaf) / sizeof(cpuid_leaf[0]))
		return false;
	for (size_t i = 0; i < n; i++)
		if (a[i].leaf != cpuid_leaf[i])
			return false;
	for (size_t i = 0; i < n; i++) {
		memcpy(cpuid_cache[i].r, a[i].r, sizeof(cpuid_cache[i].r));
		cpuid_cache[i].have = true;
	}
	return true;
}
#else
bool cyclock__cpuid_pending(void)
{
	return false;
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
