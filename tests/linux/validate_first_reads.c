/* SPDX-License-Identifier: MIT */
/*
 * Threads that race their first reads: fresh processes (children of a
 * parent that never reads a clock) start four threads that read at once
 * from their first call, through the lazy initialisation's two halves and
 * the hand-over to the counter, for 3 ms each.  Every read of
 * cyclock_now() must be at least every value any thread had returned
 * before it began; under ThreadSanitizer (halt_on_error) any unordered
 * access between the initialising thread and the others ends the child.
 * Every fourth child also forks from a reading thread in the middle of it,
 * and the grandchild reads on through the initialisation it inherited.
 *
 * Usage: linux_validate_first_reads [seconds]   (default 3)
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "cyclock.h"
#include "child.h"
#include "tsan_fork.h"

#define THREADS 4
#define READ_NS 3000000ull /* past the first half, the 500 us span and the hand-over */
#define MAX_CHILDREN 400


static _Atomic uint64_t newest; /* the largest value returned so far */
static atomic_uint ready;
static atomic_uint forked; /* 32 bits: no libatomic for a byte's exchange (riscv64) */
static bool fork_here;

static uint64_t kernel_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Reads until @end: each no less than what was returned before it began. */
static void read_until(uint64_t end)
{
	do {
		uint64_t before = atomic_load(&newest), t = cyclock_now(), seen = before;

		if (t < before) {
			child_fail("cyclock_now() %llu, %llu ns below one returned before it",
				   (unsigned long long)t, (unsigned long long)(before - t));
			return;
		}
		while (seen < t && !atomic_compare_exchange_weak(&newest, &seen, t))
			;
		(void)cyclock_realtime();
	} while (kernel_ns() < end);
}

static void grandchild(void)
{
	alarm(10);
	read_until(kernel_ns() + READ_NS);
	fflush(stdout);
	_exit(child_failures ? 1 : 0);
}

static void *reader(void *arg)
{
	uint64_t end = *(const uint64_t *)arg;

	atomic_fetch_add(&ready, 1);
	while (atomic_load(&ready) < THREADS)
		;
	/* One thread forks in the middle of the initialisation. */
	if (fork_here && !atomic_exchange(&forked, 1)) {
		read_until(kernel_ns() + 300000);
		pid_t pid = fork();

		if (pid == 0)
			grandchild();
		if (pid < 0 || child_wait(pid, "grandchild") != 0)
			child_fail("the grandchild failed");
	}
	read_until(end);
	return NULL;
}

static int child_main(int i)
{
	pthread_t t[THREADS];
	uint64_t end = kernel_ns() + READ_NS;

	alarm(10);
	fork_here = i % 4 == 0;
	for (int k = 0; k < THREADS; k++)
		if (pthread_create(&t[k], NULL, reader, &end)) {
			child_fail("pthread_create failed");
			return 1;
		}
	for (int k = 0; k < THREADS; k++)
		pthread_join(t[k], NULL);
	fflush(stdout);
	return child_failures ? 1 : 0;
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 3.0;
	uint64_t end = kernel_ns() + (uint64_t)(seconds * 1e9);
	int i, failed = 0;

	if (getenv("CYCLOCK_TEST_EMULATED")) { /* qemu-user cannot fork a threaded program */
		printf("validate_first_reads: qemu-user: skipped\n");
		return 77;
	}
	/* The parent never reads: each child's first read is its process's. */
	for (i = 0; i < MAX_CHILDREN && (i < 20 || kernel_ns() < end); i++) {
		char who[64];
		int code;
		pid_t pid;

		fflush(stdout);
		pid = fork();
		if (pid == 0)
			_exit(child_main(i));
		snprintf(who, sizeof(who), "validate_first_reads: child %d", i);
		code = pid < 0 ? -1 : child_wait(pid, who);
		if (code > 0)
			printf("%s: exited %d\n", who, code);
		failed += code != 0;
	}
	printf("validate_first_reads: %d children of %d threads, %d failed\n", i, THREADS, failed);
	return failed ? 1 : 0;
}
