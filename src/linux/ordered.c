/* SPDX-License-Identifier: MIT */
/*
 * Which ordered counter read the readers use (timeline.how): the one
 * CYCLOCK_ORDERED_READ names, else the cheapest here of those that order
 * the read on this CPU (cyclock_arch_ordered_works()).  Initialisation's
 * first half takes the one that works everywhere
 * (CYCLOCK_ARCH_ORDERED_ANY), without asking CPUID; its second half,
 * once the counter is to be used, takes the cheapest of those that work,
 * timed against each other ahead of it (at a read while the frequency is
 * measured: checks.c) or then.
 * Every choice orders the read, so it is stored plainly, at any moment:
 * a reader that sees the old one is as right as one that sees the new.
 *
 * Tests: tests/linux/test_machine_record.c (the same read chosen from a
 * record's costs), test_record_forged.c (forged costs), and each read
 * forced in turn (CYCLOCK_ORDERED_READ, tests/common/per_read.sh: the
 * _rdtscp and _lfence variants of test_api.c, test_first_read.c,
 * validate_timeline.c and validate_ordered_read.c).
 */
#define _GNU_SOURCE

#include <string.h>

#include "internal.h"
#include "record.h"

#define ROUNDS 8 /* interleaved, the best of each kept */
#define READS 16 /* back to back, as a loop of clock calls */
/* A round's cost, in counts, that a timing can find: at least one, and
 * below what would overflow the comparison in pick_of().  This is 16
 * reads in 0.4 s at 10 GHz, where one that traps to a hypervisor takes
 * microseconds: a larger cost is no measurement. */
#define ROUND_MAX ((uint64_t)1 << 32)

/* What READS back-to-back reads with @how cost in one round, in counts. */
static uint64_t round_cost(uint32_t how)
{
	uint64_t t0 = cyclock_arch_counter(), sum = 0;

	for (int i = 0; i < READS; i++)
		sum += cyclock_arch_counter_ordered_how(how);
	__asm__ __volatile__("" : : "r"(sum));
	return cyclock_arch_counter() - t0;
}

/* What cyclock__ordered_time() found: READS reads of each read that works
 * here, the best round, in counts; UINT64_MAX for the others.  The one
 * that works everywhere, the slowest by its two fences, is left out: it is
 * chosen only when no other works. */
static uint64_t best[CYCLOCK_ARCH_ORDERED_HOWS];
static bool timed;

/* The reads timed: those that work here (as CPUID's cache says) but the
 * one that works everywhere. */
static void timed_reads(bool works[CYCLOCK_ARCH_ORDERED_HOWS])
{
	const char *why;

	for (uint32_t h = 0; h < CYCLOCK_ARCH_ORDERED_HOWS; h++)
		works[h] = h != CYCLOCK_ARCH_ORDERED_ANY && cyclock_arch_ordered_works(h, &why);
}

bool cyclock__ordered_time(void)
{
	bool works[CYCLOCK_ARCH_ORDERED_HOWS];

	if (timed)
		return false;
	timed_reads(works);
	for (uint32_t h = 0; h < CYCLOCK_ARCH_ORDERED_HOWS; h++)
		best[h] = UINT64_MAX;
	for (int r = 0; r < ROUNDS; r++)
		for (uint32_t h = 0; h < CYCLOCK_ARCH_ORDERED_HOWS; h++) {
			uint64_t c = works[h] ? round_cost(h) : UINT64_MAX;

			best[h] = c < best[h] ? c : best[h];
		}
	timed = true;
	return true;
}

/* Whether read @h may be chosen by its cost in @b: one of @works (not the
 * one that works everywhere), with a cost a timing can find. */
static bool choosable(const uint64_t b[], const bool works[], uint32_t h)
{
	return works[h] && h != CYCLOCK_ARCH_ORDERED_ANY && b[h] >= 1 && b[h] <= ROUND_MAX;
}

/* The cheapest in @b of the reads choosable, or the one that works
 * everywhere if none is: never one outside the table, nor one that does
 * not work, whatever @b holds. */
static uint32_t pick_of(const uint64_t b[], const bool works[])
{
	uint32_t pick = CYCLOCK_ARCH_ORDERED_ANY;

	/* Cheaper by more than 1/32 to displace an earlier one: noise keeps the first. */
	for (uint32_t h = 0; h < CYCLOCK_ARCH_ORDERED_HOWS; h++)
		if (choosable(b, works, h) && (pick == CYCLOCK_ARCH_ORDERED_ANY ||
					       b[h] + b[h] / 32 < b[pick]))
			pick = h;
	return pick;
}

bool cyclock__ordered_plausible(const uint64_t in[CYCLOCK_ARCH_ORDERED_HOWS], uint32_t *pick)
{
	bool works[CYCLOCK_ARCH_ORDERED_HOWS];

	timed_reads(works);
	for (uint32_t h = 0; h < CYCLOCK_ARCH_ORDERED_HOWS; h++)
		if (works[h] ? !choosable(in, works, h) : in[h] != UINT64_MAX)
			return false;
	*pick = pick_of(in, works);
	return true;
}

bool cyclock__ordered_timed(void)
{
	return timed;
}

/* For the machine's record (record.c). */
bool cyclock__ordered_export(uint64_t out[CYCLOCK_ARCH_ORDERED_HOWS])
{
	if (!timed)
		return false;
	memcpy(out, best, sizeof(best));
	return true;
}

void cyclock__ordered_import(const uint64_t in[CYCLOCK_ARCH_ORDERED_HOWS])
{
	memcpy(best, in, sizeof(best));
	timed = true;
}

/* @s at *@n in @dst of @len, NUL-terminated: no snprintf() on a read
 * (its first call in a process costs page faults). */
static void put(char *dst, size_t len, size_t *n, const char *s)
{
	while (*s && *n + 1 < len)
		dst[(*n)++] = *s++;
	dst[*n] = '\0';
}

/* @tenths / 10 with one decimal, at *@n. */
static void put_tenths(char *dst, size_t len, size_t *n, uint64_t tenths)
{
	char digits[24];
	int i = (int)sizeof(digits) - 1;

	digits[i] = '\0';
	digits[--i] = (char)('0' + tenths % 10);
	digits[--i] = '.';
	tenths /= 10;
	do
		digits[--i] = (char)('0' + tenths % 10);
	while ((tenths /= 10) && i > 0);
	put(dst, len, n, digits + i);
}

/* The cheapest of @works (timed once, ahead of the choice or now), and
 * each one's cost at @hz into @costs. */
static uint32_t cheapest(const bool works[], double hz, char *costs, size_t len)
{
	size_t n = 0;

	cyclock__ordered_time();
	costs[0] = '\0';
	for (uint32_t h = 0; h < CYCLOCK_ARCH_ORDERED_HOWS; h++)
		if (choosable(best, works, h)) {
			put(costs, len, &n, n ? ", " : "");
			put(costs, len, &n, cyclock_arch_ordered_name(h));
			put(costs, len, &n, " ");
			put_tenths(costs, len, &n, (uint64_t)((double)best[h] * 1e10 / READS / hz + 0.5));
			put(costs, len, &n, " ns");
		}
	return pick_of(best, works);
}

void cyclock__ordered_choose(double hz)
{
	char *why = cyclock__setup.ordered_why, costs[96];
	size_t len = sizeof(cyclock__setup.ordered_why), n = 0;
	/* The first half asks nothing (CPUID is slow in a guest), not even
	 * about the read CYCLOCK_ORDERED_READ names: the second half does. */
	int forced = hz > 0 ? cyclock__env_ordered() : -1;
	bool works[CYCLOCK_ARCH_ORDERED_HOWS];
	const char *how_why[CYCLOCK_ARCH_ORDERED_HOWS];
	uint32_t how = CYCLOCK_ARCH_ORDERED_ANY, usable = 0;

	for (uint32_t h = 0; h < CYCLOCK_ARCH_ORDERED_HOWS; h++) {
		how_why[h] = "";
		works[h] = (hz > 0 || h == CYCLOCK_ARCH_ORDERED_ANY) &&
			   cyclock_arch_ordered_works(h, &how_why[h]);
		usable += works[h];
	}
	if (forced >= 0 && works[forced]) {
		how = (uint32_t)forced;
		put(why, len, &n, "forced by CYCLOCK_ORDERED_READ; ");
	} else {
		if (forced >= 0)
			cyclock__say_ordered_refused((uint32_t)forced, how_why[forced]);
		if (hz > 0 && usable > 1) {
			how = cheapest(works, hz, costs, sizeof(costs));
			put(why, len, &n, "the cheapest here (");
			put(why, len, &n, costs);
			put(why, len, &n, "); ");
		} else if (hz <= 0) {
			put(why, len, &n, "not chosen yet; ");
		}
	}
	put(why, len, &n, how_why[how]);
	cyclock__setup.ordered = how;
	cyclock_atomic_store(&cyclock__mono.how, (uint16_t)how, CYCLOCK_RELAXED);
	cyclock_atomic_store(&cyclock__raw.how, (uint16_t)how, CYCLOCK_RELAXED);
}
