/* SPDX-License-Identifier: MIT */
/*
 * one_record.sh's program: the resync interval as cyclock_get_state() and
 * cyclock_describe() say it, then alive until standard input closes, for
 * "cyclock status" to read.
 */
#include <stdio.h>

#include <cyclock.h>

int main(void)
{
	struct cyclock_state st = { .version = CYCLOCK_STATE_VERSION };

	if (cyclock_init(0) != CYCLOCK_USING_COUNTER || cyclock_get_state(&st))
		return 77;
	printf("get_state %llu\ndescribe %s\n", (unsigned long long)st.interval_ns,
	       cyclock_describe());
	fflush(stdout);
	while (getchar() != EOF)
		;
	return 0;
}
