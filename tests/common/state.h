/* SPDX-License-Identifier: MIT */
/* The library's state now (cyclock_get_state()), as a value, for the tests. */
#ifndef CYCLOCK_TEST_STATE_H
#define CYCLOCK_TEST_STATE_H

#include <cyclock.h>

static inline struct cyclock_state state_now(void)
{
	struct cyclock_state st = {.version = CYCLOCK_STATE_VERSION};

	cyclock_get_state(&st);
	return st;
}

#endif
