/* SPDX-License-Identifier: MIT */
/*
 * Whether the ordered read that CYCLOCK_ORDERED_READ names is the one the
 * library takes here; tests/common/per_read.sh runs it before a test's
 * per-read variant (cmake/CyclockTests.cmake, PER_READ).  Exits 0 when
 * the library reads the counter with that read; 77 with one line on
 * standard output when it cannot here (the CPU does not say it orders the
 * read, or the library serves the kernel's clocks); 1 when the CPU says
 * the read works but the library took another, which is a bug.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cyclock.h"
#include "cyclock/arch.h"
#include "cyclock/timeline.h"
#include "state.h"

/* Whether @want names ordered read @name: all of it, or the part before
 * its ';' ("lfence" for "lfence;rdtsc"), as the library reads the variable. */
static int names(const char *want, const char *name)
{
	size_t n = strlen(want);

	return !strcmp(want, name) || (n && !strncmp(want, name, n) && name[n] == ';');
}

int main(void)
{
	const char *want = getenv("CYCLOCK_ORDERED_READ"), *why = "";
	struct cyclock_state info;
	uint32_t how = CYCLOCK_ARCH_ORDERED_HOWS;

	if (!want) {
		printf("read_forced: CYCLOCK_ORDERED_READ is not set\n");
		return 1;
	}
	for (uint32_t h = 0; h < CYCLOCK_ARCH_ORDERED_HOWS; h++)
		if (names(want, cyclock_arch_ordered_name(h)))
			how = h;
	if (how == CYCLOCK_ARCH_ORDERED_HOWS) {
		printf("this build has no ordered read named %s\n", want);
		return 77;
	}
	if (!cyclock_arch_ordered_works(how, &why)) {
		printf("this CPU does not say it orders %s (%s)\n", cyclock_arch_ordered_name(how), why);
		return 77;
	}
	if (cyclock_init(0) != CYCLOCK_USING_COUNTER) {
		info = state_now();
		printf("the library serves the kernel's clocks here, no ordered read (%s)\n", info.why);
		return 77;
	}
	info = state_now();
	if (strcmp(info.ordered, cyclock_arch_ordered_name(how)) != 0) {
		printf("CYCLOCK_ORDERED_READ=%s: the CPU orders it (%s), but the library took %s (%s)\n",
		       want, why, info.ordered, info.ordered_why);
		return 1;
	}
	return 0;
}
