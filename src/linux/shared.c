/* SPDX-License-Identifier: MIT */
/*
 * The hosted layer's shared state, defined here and nowhere else, with no
 * code beside it: the two timelines and the coarse clock the readers read
 * (cyclock/timeline.h), and the writers' and initialisation's state
 * (internal.h), so that every file that uses it depends on this one, and
 * this one on none.
 *
 * No test of its own, as it has no code: every test that reads a clock
 * reads what it defines, and tests/build/link_cycles.sh keeps it the file
 * others depend on.
 */
#include "internal.h"

/* Until initialisation has chosen, the ordered read that needs no asking
 * (a CPU may lack another: x86-64's rdtscp, how 0). */
struct cyclock__timeline cyclock__mono = { .how = CYCLOCK_ARCH_ORDERED_ANY, .self = &cyclock__mono };
struct cyclock__timeline cyclock__raw = { .how = CYCLOCK_ARCH_ORDERED_ANY, .self = &cyclock__raw };
#ifndef CYCLOCK_SIM
/* The same two under hidden names (internal.h, cyclock__tl_of()). */
extern struct cyclock__timeline cyclock__mono_here
	__attribute__((alias("cyclock__mono"), visibility("hidden")));
extern struct cyclock__timeline cyclock__raw_here
	__attribute__((alias("cyclock__raw"), visibility("hidden")));
#endif
struct cyclock__coarse cyclock__coarse;

struct cyclock__host cyclock__host;
struct cyclock__setup cyclock__setup;
struct cyclock__tracks cyclock__tracks;
