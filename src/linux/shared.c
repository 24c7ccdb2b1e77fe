/* SPDX-License-Identifier: MIT */
/*
 * The hosted layer's shared state, defined here and nowhere else, with no
 * code beside it: the two timelines and the coarse clock the readers read
 * (cyclock/timeline.h), and the writers' and initialisation's state
 * (internal.h), so that every file that uses it depends on this one, and
 * this one on none.
 */
#include "internal.h"

/* Until initialisation has chosen, the ordered read that needs no asking
 * (a CPU may lack another: x86-64's rdtscp, how 0). */
struct cyclock__timeline cyclock__mono = { .how = CYCLOCK_ARCH_ORDERED_ANY };
struct cyclock__timeline cyclock__raw = { .how = CYCLOCK_ARCH_ORDERED_ANY };
struct cyclock__coarse cyclock__coarse;

struct cyclock__host cyclock__host;
struct cyclock__setup cyclock__setup;
struct cyclock__tracks cyclock__tracks;
