/* SPDX-License-Identifier: MIT */
/*
 * A process for "cyclock status" to read (tests/tool/cli/test_status*.sh),
 * built three ways (tests/tool/status/CMakeLists.txt):
 *   status_linked  links libcyclock.so: initialises, then reads cyclock_now()
 *   status_plain   no cyclock: reads clock_gettime() (the preload's, under it)
 *   status_fake    no cyclock, but a block of its own at cyclock_status with
 *                  the version and magic its arguments give: "fake VERSION
 *                  [MAGIC]"; "fake hostile" writes a block to attack its
 *                  reader (hostile.c); "fake v1 [lost|odd]" a block of
 *                  version 1's layout (status_v1.h) on the counter, with
 *                  counts, both parts LOST, or its counts odd for good (a
 *                  write a fork cut)
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
#include <unistd.h>

#ifdef STATUS_LINKED
#include <cyclock.h>
#endif
#include "hostile.h"

#ifdef STATUS_FAKE
#include "status_v1.h"

/* The symbol, large enough for either version's layout. */
union fake_block {
	struct cyclock_status v2;
	struct cyclock_status_v1 v1;
};

__attribute__((aligned(64))) union fake_block cyclock_status = {
	.v2 = { .magic = CYCLOCK_STATUS_MAGIC },
};

/* A version 1 block as its library wrote one, on the counter, with counts;
 * the bit version 2 gives WARP_RAN set, which version 1 never meant. */
static void fake_v1(const char *how)
{
	struct cyclock_status_v1 *b = &cyclock_status.v1;
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	b->version = CYCLOCK_STATUS_V1;
	b->size = sizeof(*b);
	strcpy(b->library, "0.1.0");
	b->setup = (struct cyclock_status_v1_setup){
		.state = CYCLOCK_STATUS_READY, .flags = CYCLOCK_STATUS_COUNTER | 0x40u,
		.hz_hint = 1e9, .init_ns = 1000, .warp_cyc = 5, .counter = "tsc",
		.ordered = "rdtscp", .hz_source = "stated", .ordered_why = "forged",
	};
	b->counts = (struct cyclock_status_v1_counts){
		.pid = (uint32_t)getpid(), .written_ns = (uint64_t)ts.tv_sec * 1000000000ull,
		.resyncs = 7, .anomalies = 1, .kernel_spells = 2, .rate_changes = 3,
		.last_err_ns = -12, .interval_ns = 1000000, .ns_per_tick = 1.0,
		.kernel_why = "v1 why",
	};
	if (how && !strcmp(how, "lost")) {
		b->setup.flags |= CYCLOCK_STATUS_V1_LOST;
		b->counts.flags |= CYCLOCK_STATUS_V1_LOST;
	}
	if (how && !strcmp(how, "odd"))
		b->counts.seq = 1;
}

/* "VERSION [MAGIC]", "hostile" or "v1 [lost|odd]". */
static void fake(int argc, char **argv)
{
	struct cyclock_status *st = &cyclock_status.v2;

	if (argc > 0 && !strcmp(argv[0], "hostile")) {
		hostile_block(st);
		return;
	}
	if (argc > 0 && !strcmp(argv[0], "v1")) {
		fake_v1(argc > 1 ? argv[1] : NULL);
		return;
	}
	st->version = argc > 0 ? (uint32_t)strtoul(argv[0], NULL, 10) : CYCLOCK_STATUS_VERSION;
	st->size = sizeof(*st);
	if (argc > 1)
		memcpy(st->magic, argv[1], strnlen(argv[1], sizeof(st->magic)));
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
