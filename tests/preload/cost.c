/* SPDX-License-Identifier: MIT */
/*
 * The cost of one clock_gettime(CLOCK_MONOTONIC) call, for comparing runs
 * with and without LD_PRELOAD=libcyclock-preload.so.  Prints the best of 5
 * rounds of 10 million calls, in ns per call.  Usage: preload_cost [CLOCK_ID]
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int main(int argc, char **argv)
{
	clockid_t id = argc > 1 ? atoi(argv[1]) : CLOCK_MONOTONIC;
	double best = 1e9;
	struct timespec ts, a, b;
	uint64_t sum = 0;

	for (int round = 0; round < 5; round++) {
		clock_gettime(CLOCK_MONOTONIC_RAW, &a);
		for (int i = 0; i < 10000000; i++) {
			clock_gettime(id, &ts);
			sum += (uint64_t)ts.tv_nsec;
		}
		clock_gettime(CLOCK_MONOTONIC_RAW, &b);
		double ns = ((double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec)) / 1e7;
		if (ns < best)
			best = ns;
	}
	printf("clock %d: %.2f ns per clock_gettime() (checksum %llu)\n", (int)id, best,
	       (unsigned long long)(sum & 1));
	return 0;
}
