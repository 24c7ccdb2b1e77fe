/* SPDX-License-Identifier: MIT */
/*
 * A process for "cyclock status" to read (tests/tool/cli/test_status.sh),
 * built three ways (tests/tool/status/CMakeLists.txt):
 *   status_linked  links libcyclock.so: initialises, then reads cyclock_now()
 *   status_plain   no cyclock: reads clock_gettime() (the preload's, under it)
 *   status_fake    no cyclock, but a block of its own at cyclock_status with
 *                  the version and magic its arguments give: "fake VERSION [MAGIC]"
 * Each prints "ready" once it has read the clock for 50 ms, then reads it
 * every millisecond until killed (or for 60 s).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef STATUS_LINKED
#include <cyclock.h>
#endif
#ifdef STATUS_FAKE
#include <cyclock/status.h>

struct cyclock_status cyclock_status = { .magic = CYCLOCK_STATUS_MAGIC };
#endif

static unsigned long long read_clock(void)
{
#ifdef STATUS_LINKED
	return cyclock_now();
#else
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
#endif
}

int main(int argc, char **argv)
{
	unsigned long long start, now;

#ifdef STATUS_FAKE
	cyclock_status.version = argc > 1 ? (uint32_t)strtoul(argv[1], NULL, 10) : 1;
	cyclock_status.size = sizeof(cyclock_status);
	if (argc > 2)
		memcpy(cyclock_status.magic, argv[2],
		       strnlen(argv[2], sizeof(cyclock_status.magic)));
#else
	(void)argc;
	(void)argv;
#endif
#ifdef STATUS_LINKED
	cyclock_init(0);
#endif
	start = read_clock();
	do {
		nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
		now = read_clock();
	} while (now - start < 50000000ull);
	puts("ready");
	fflush(stdout);
	while (read_clock() - start < 60000000000ull)
		nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
	return 0;
}
