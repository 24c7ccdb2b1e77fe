/* SPDX-License-Identifier: MIT */
/*
 * With another clock_gettime() after the preload's (LD_PRELOAD=
 * libcyclock-preload.so:preload_next_lib.so), a clock the preload does not
 * serve goes to it, untouched: the preload calls the vDSO itself only when
 * the next definition is libc's.  Each pass-through id must reach the
 * second library once per call, with the system call's result.
 */
#include <stdatomic.h>

#include "preload_check.h"

static int failures;

int main(int argc, char **argv)
{
	static const clockid_t passed[] = { CLOCK_TAI, CLOCK_MONOTONIC_COARSE,
					    CLOCK_REALTIME_COARSE, CLOCK_PROCESS_CPUTIME_ID,
					    CLOCK_THREAD_CPUTIME_ID };
	unsigned int mask = preload_mask(argv[0]);
	atomic_long *calls = dlsym(RTLD_DEFAULT, "preload_next_calls");

	(void)argc;
	if (!calls) {
		fprintf(stderr, "%s: preload_next_lib.so is not loaded (LD_PRELOAD)\n", argv[0]);
		return 1;
	}
	for (size_t i = 0; i < sizeof(passed) / sizeof(passed[0]); i++) {
		long before = atomic_load(calls);
		struct timespec ts;
		int rc = clock_gettime(passed[i], &ts);

		CHECK(rc == 0, "clock %d: %d", (int)passed[i], rc);
		CHECK(atomic_load(calls) == before + 1,
		      "clock %d reached the next clock_gettime() %ld times, not once",
		      (int)passed[i], atomic_load(calls) - before);
	}
	printf("served mask %#x, %d failures\n", mask, failures);
	return failures ? 1 : preload_result(mask, argv[0]);
}
