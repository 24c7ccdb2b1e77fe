/* SPDX-License-Identifier: MIT */
/*
 * linux_cost_first_read: what the first cyclock_now() of a fresh process costs,
 * and how long until the counter takes over.  Not a test: it asserts
 * nothing.
 *
 *     linux_cost_first_read [PROCESSES] [--busy]
 *
 * Starts PROCESSES (default 200) fresh copies of itself one after the
 * other (fork and exec: a new image, so the library's pages are cold as
 * in a program's first call).  Each times its first cyclock_now() with the
 * vDSO's CLOCK_MONOTONIC_RAW (called twice beforehand, so that its own
 * first call is not counted), then reads cyclock_now() in a loop until the
 * library's initialisation is done (the hand-over to the counter, at the
 * first read 500 us or more after the first), and reports the first
 * read's cost, the time to the hand-over and the cost of the read that
 * made it (initialisation's second half).  --busy
 * keeps every CPU busy meanwhile with one spinning process each, as on a
 * loaded machine.  Prints the median, p90, p99 and largest first-read
 * cost, and the median and p99 of the other two.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"
#include "kclock.h"

#define MAX_PROCESSES 10000
#define HANDOVER_LIMIT_NS 100000000ull /* a child gives up waiting after 100 ms */

static uint64_t raw_ns(void)
{
	return kclock_ns(CLOCK_MONOTONIC_RAW);
}

/* The child: "first_ns handover_ns handover_call_ns done" on stdout. */
static int child(void)
{
	uint64_t t0, t1, a, b;

	(void)raw_ns();
	t0 = raw_ns();
	(void)cyclock_now();
	t1 = raw_ns();
	do {
		a = raw_ns();
		(void)cyclock_now();
		b = raw_ns();
	} while (atomic_load(&cyclock__host.state) != INIT_DONE && b - t0 < HANDOVER_LIMIT_NS);
	printf("%llu %llu %llu %d\n", (unsigned long long)(t1 - t0), (unsigned long long)(b - t0),
	       (unsigned long long)(b - a), atomic_load(&cyclock__host.state) == INIT_DONE);
	return 0;
}

/* One fresh process: its three figures, or false if it failed. */
static bool run_one(const char *self, uint64_t *first, uint64_t *handover, uint64_t *call)
{
	int fd[2], status, done = 0;
	unsigned long long a = 0, b = 0, c = 0;
	pid_t pid;
	FILE *f;
	bool ok;

	if (pipe(fd))
		return false;
	pid = fork();
	if (pid == 0) {
		dup2(fd[1], STDOUT_FILENO);
		close(fd[0]);
		close(fd[1]);
		execl(self, self, "--child", (char *)NULL);
		_exit(127);
	}
	close(fd[1]);
	f = fdopen(fd[0], "r");
	ok = pid > 0 && f && fscanf(f, "%llu %llu %llu %d", &a, &b, &c, &done) == 4 && done;
	if (f)
		fclose(f);
	if (pid > 0)
		waitpid(pid, &status, 0);
	*first = a;
	*handover = b;
	*call = c;
	return ok;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static double pct(const uint64_t *v, size_t n, double p)
{
	return (double)v[(size_t)((double)(n - 1) * p + 0.5)] / 1e3;
}

/* One spinning process per CPU; their ids in @pids. */
static int start_busy(pid_t *pids, int max)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	int k = 0;

	for (; k < n && k < max; k++) {
		pids[k] = fork();
		if (pids[k] == 0)
			for (volatile uint64_t x = 0;; x++)
				;
	}
	return k;
}

int main(int argc, char **argv)
{
	static uint64_t first[MAX_PROCESSES], handover[MAX_PROCESSES], call[MAX_PROCESSES];
	size_t n = 200, got = 0;
	pid_t busy[64];
	int nbusy = 0;
	bool want_busy = false;

	if (argc > 1 && !strcmp(argv[1], "--child"))
		return child();
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--busy"))
			want_busy = true;
		else if (atol(argv[i]) > 0 && atol(argv[i]) <= MAX_PROCESSES)
			n = (size_t)atol(argv[i]);
		else {
			fprintf(stderr, "usage: %s [PROCESSES (1-%d)] [--busy]\n", argv[0],
				MAX_PROCESSES);
			return 2;
		}
	}
	if (want_busy)
		nbusy = start_busy(busy, 64);
	for (size_t i = 0; i < n; i++)
		got += run_one("/proc/self/exe", &first[got], &handover[got], &call[got]);
	for (int k = 0; k < nbusy; k++) {
		kill(busy[k], SIGKILL);
		waitpid(busy[k], NULL, 0);
	}
	if (!got) {
		fprintf(stderr, "%s: no process reported\n", argv[0]);
		return 1;
	}
	qsort(first, got, sizeof(first[0]), cmp_u64);
	qsort(handover, got, sizeof(handover[0]), cmp_u64);
	qsort(call, got, sizeof(call[0]), cmp_u64);
	printf("first cyclock_now() of %zu fresh processes%s: median %.1f us, p90 %.1f us, "
	       "p99 %.1f us, max %.1f us\n",
	       got, nbusy ? ", every CPU busy" : "", pct(first, got, 0.5), pct(first, got, 0.9),
	       pct(first, got, 0.99), pct(first, got, 1.0));
	printf("counter in use from the first call on after: median %.1f us, p99 %.1f us; "
	       "the read that starts it: median %.1f us, p99 %.1f us\n",
	       pct(handover, got, 0.5), pct(handover, got, 0.99), pct(call, got, 0.5),
	       pct(call, got, 0.99));
	return 0;
}
