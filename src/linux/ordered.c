/* SPDX-License-Identifier: MIT */
/*
 * Which ordered counter read the readers use (timeline.how): the one
 * CYCLOCK_ORDERED_READ names, else the cheapest here of those that order
 * the read on this CPU (cyclock_arch_ordered_works()).  Initialisation's
 * first half takes the one that works everywhere
 * (CYCLOCK_ARCH_ORDERED_ANY), without asking CPUID; its second half,
 * once the counter is to be used, times those that work against each
 * other.
 * Every choice orders the read, so it is stored plainly, at any moment:
 * a reader that sees the old one is as right as one that sees the new.
 */
#define _GNU_SOURCE
#include <stdio.h>

#include "internal.h"

#define ROUNDS 8 /* interleaved, the best of each kept */
#define READS 16 /* back to back, as a loop of clock calls */

/* What READS back-to-back reads with @how cost in one round, in counts. */
static uint64_t round_cost(uint32_t how)
{
	uint64_t t0 = cyclock_arch_counter(), sum = 0;

	for (int i = 0; i < READS; i++)
		sum += cyclock_arch_counter_ordered_how(how);
	__asm__ __volatile__("" : : "r"(sum));
	return cyclock_arch_counter() - t0;
}

/* The cheapest of the reads that work, timed at @hz.  The one that works
 * everywhere, the slowest by its two fences, is left out: the caller asks
 * only when another works too. */
static uint32_t cheapest(const bool works_here[], double hz, char *why, size_t len)
{
	uint64_t best[CYCLOCK_ARCH_ORDERED_HOWS];
	uint32_t pick = CYCLOCK_ARCH_ORDERED_HOWS;
	bool works[CYCLOCK_ARCH_ORDERED_HOWS];
	int n = 0;

	for (uint32_t h = 0; h < CYCLOCK_ARCH_ORDERED_HOWS; h++) {
		best[h] = UINT64_MAX;
		works[h] = works_here[h] && h != CYCLOCK_ARCH_ORDERED_ANY;
	}
	for (int r = 0; r < ROUNDS; r++)
		for (uint32_t h = 0; h < CYCLOCK_ARCH_ORDERED_HOWS; h++) {
			uint64_t c = works[h] ? round_cost(h) : UINT64_MAX;

			best[h] = c < best[h] ? c : best[h];
		}
	/* Cheaper by more than 1/32 to displace an earlier one: noise keeps the first. */
	for (uint32_t h = 0; h < CYCLOCK_ARCH_ORDERED_HOWS; h++)
		if (works[h] && (pick == CYCLOCK_ARCH_ORDERED_HOWS ||
				 best[h] + best[h] / 32 < best[pick]))
			pick = h;
	for (uint32_t h = 0; h < CYCLOCK_ARCH_ORDERED_HOWS && (size_t)n < len; h++)
		if (works[h])
			n += snprintf(why + n, len - (size_t)n, "%s%s %.1f ns", n ? ", " : "",
				      cyclock_arch_ordered_name(h),
				      (double)best[h] / READS * 1e9 / hz);
	return pick;
}

void cyclock__ordered_choose(double hz)
{
	char *why = cyclock__host.ordered_why, costs[96] = "";
	size_t len = sizeof(cyclock__host.ordered_why);
	int forced = cyclock__env_ordered();
	bool works[CYCLOCK_ARCH_ORDERED_HOWS];
	const char *how_why[CYCLOCK_ARCH_ORDERED_HOWS];
	uint32_t how = CYCLOCK_ARCH_ORDERED_ANY, usable = 0;

	for (uint32_t h = 0; h < CYCLOCK_ARCH_ORDERED_HOWS; h++) {
		how_why[h] = "";
		/* Untimed, ask only about the one named: CPUID is slow in a guest. */
		works[h] = (hz > 0 || (int)h == forced || h == CYCLOCK_ARCH_ORDERED_ANY) &&
			   cyclock_arch_ordered_works(h, &how_why[h]);
		usable += works[h];
	}
	if (forced >= 0 && works[forced]) {
		how = (uint32_t)forced;
		snprintf(why, len, "forced by CYCLOCK_ORDERED_READ; %s", how_why[how]);
	} else {
		if (forced >= 0)
			cyclock__say_ordered_refused((uint32_t)forced, how_why[forced]);
		if (hz > 0 && usable > 1) {
			how = cheapest(works, hz, costs, sizeof(costs));
			snprintf(why, len, "the cheapest here (%s); %s", costs, how_why[how]);
		} else {
			snprintf(why, len, "%s%s", hz > 0 ? "" : "not chosen yet; ", how_why[how]);
		}
	}
	cyclock__host.ordered = how;
	atomic_store_explicit(&cyclock__mono.how, (uint16_t)how, memory_order_relaxed);
	atomic_store_explicit(&cyclock__raw.how, (uint16_t)how, memory_order_relaxed);
}
