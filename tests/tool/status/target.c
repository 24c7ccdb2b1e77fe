/* SPDX-License-Identifier: MIT */
/*
 * A process for "cyclock status" to read (tests/tool/cli/test_status*.sh),
 * built three ways (tests/tool/status/CMakeLists.txt):
 *   status_linked  links libcyclock.so: initialises, then reads cyclock_now()
 *   status_plain   no cyclock: reads clock_gettime() (the preload's, under it)
 *   status_fake    no cyclock, but a block of its own at cyclock_status with
 *                  the version and magic its arguments give: "fake VERSION
 *                  [MAGIC]"; "fake hostile" writes a block to attack its
 *                  reader (hostile.c)
 * Options, for the attacks of test_status_hostile.sh (hostile.c):
 *   --map PATH       maps the file at PATH (of any length) from offset 0
 *   --map-n N PATH   N times
 *   --name NAME      its command name (prctl(PR_SET_NAME)), any bytes
 *   --loader MODE    changes its dynamic loader's list of objects: "cycle"
 *                    (its last object leads back to the first), "hostile"
 *                    (thousands of forged objects, each with a hash chain
 *                    that never ends, before the real ones)
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
#include "hostile.h"

#ifdef STATUS_FAKE
struct cyclock_status cyclock_status = { .magic = CYCLOCK_STATUS_MAGIC };

/* "VERSION [MAGIC]" or "hostile". */
static void fake(int argc, char **argv)
{
	if (argc > 0 && !strcmp(argv[0], "hostile")) {
		hostile_block(&cyclock_status);
		return;
	}
	cyclock_status.version = argc > 0 ? (uint32_t)strtoul(argv[0], NULL, 10) : 1;
	cyclock_status.size = sizeof(cyclock_status);
	if (argc > 1)
		memcpy(cyclock_status.magic, argv[1], strnlen(argv[1], sizeof(cyclock_status.magic)));
}
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

/* The options; the index of the first other argument. */
static int options(int argc, char **argv)
{
	int i = 1;

	for (; i < argc && !strncmp(argv[i], "--", 2); i++) {
		if (!strcmp(argv[i], "--map") && i + 1 < argc)
			hostile_map(argv[++i], 1);
		else if (!strcmp(argv[i], "--map-n") && i + 2 < argc) {
			hostile_map(argv[i + 2], atoi(argv[i + 1]));
			i += 2;
		} else if (!strcmp(argv[i], "--name") && i + 1 < argc)
			hostile_name(argv[++i]);
		else if (!strcmp(argv[i], "--loader") && i + 1 < argc)
			hostile_loader(argv[++i]);
		else {
			fprintf(stderr, "target: bad option %s\n", argv[i]);
			exit(2);
		}
	}
	return i;
}

int main(int argc, char **argv)
{
	unsigned long long start, now;
	int rest = options(argc, argv);

#ifdef STATUS_FAKE
	fake(argc - rest, argv + rest);
#else
	(void)rest;
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
