/* SPDX-License-Identifier: MIT */
/*
 * linux_cost_first_read: what the first clock read of a fresh process
 * costs, cyclock_now()'s against the vDSO's clock_gettime(), and what the
 * reads after it cost until 5 ms past the hand-over to the counter.  Not
 * a test: it asserts nothing.
 *
 *     linux_cost_first_read [PROCESSES] [--busy]
 *
 * Starts PROCESSES (default 200) pairs of fresh processes (fork and exec:
 * a new image, so the library's pages and the vDSO's data are cold as in
 * a program's first call), alternately: one times its first
 * clock_gettime(CLOCK_MONOTONIC), the other its first cyclock_now(), then
 * reads cyclock_now() in a loop until 5 ms after the library's
 * initialisation is done (the hand-over to the counter, at the first read
 * 500 us or more after the first), timing each read; the first kind
 * reads clock_gettime() in a loop as long, for comparison (the machine's
 * interrupts make the costliest reads of both).  Timed with the
 * counter (rdtsc after lfence or rdtscp, whichever the CPU orders), so
 * that no clock call is warmed before the one timed, and converted at the
 * frequency the parent's own initialisation found.  --busy keeps every
 * CPU busy meanwhile with one spinning process each, as on a loaded
 * machine.  Prints the median, p99 and largest of each figure.
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
#include "state.h"

#define MAX_PROCESSES 10000
#define HANDOVER_LIMIT_NS 100000000ull /* a child gives up waiting after 100 ms */

#define AFTER_NS 5000000ull /* reads timed after the hand-over */

static uint64_t counts(void)
{
	return cyclock_arch_counter_ordered_how(CYCLOCK_ARCH_ORDERED_ANY);
}

/* The child: "first second handover handover_call worst done" on
 * stdout, in counts; the vDSO's child only its first two reads. */
static int child(bool vdso)
{
	uint64_t t0, t1, a, b, done_at = 0, worst = 0, call = 0, second = 0;
	struct timespec ts;

	t0 = counts();
	if (vdso)
		clock_gettime(CLOCK_MONOTONIC, &ts);
	else
		(void)cyclock_now();
	t1 = counts();
	if (vdso) { /* its costliest read over about as long as the other's loop */
		for (uint64_t end = kclock_ns(CLOCK_MONOTONIC) + 500000 + AFTER_NS;;) {
			a = counts();
			clock_gettime(CLOCK_MONOTONIC, &ts);
			b = counts();
			worst = b - a > worst ? b - a : worst;
			second = second ? second : b - a;
			if ((uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec >= end)
				break;
		}
		printf("%llu %llu 0 0 %llu 1\n", (unsigned long long)(t1 - t0),
		       (unsigned long long)second, (unsigned long long)worst);
		return 0;
	}
	for (uint64_t k0 = kclock_ns(CLOCK_MONOTONIC), after = 0;;) {
		bool was = atomic_load(&cyclock__host.state) == INIT_DONE;

		a = counts();
		(void)cyclock_now();
		b = counts();
		worst = b - a > worst ? b - a : worst;
		second = second ? second : b - a;
		if (!was && atomic_load(&cyclock__host.state) == INIT_DONE) {
			done_at = b;
			call = b - a;
			after = (uint64_t)((double)AFTER_NS * cyclock__setup.hz_hint / 1e9);
		}
		if ((done_at && b - done_at >= after) ||
		    kclock_ns(CLOCK_MONOTONIC) - k0 > HANDOVER_LIMIT_NS)
			break;
	}
	printf("%llu %llu %llu %llu %llu %d\n", (unsigned long long)(t1 - t0),
	       (unsigned long long)second, (unsigned long long)(done_at - t0), (unsigned long long)call,
	       (unsigned long long)worst, done_at != 0);
	return 0;
}

/* What one fresh process reported, in counts. */
struct report {
	uint64_t first, second, handover, call, worst;
};

/* One fresh process (@vdso: the vDSO's child); false if it failed. */
static bool run_one(const char *self, bool vdso, struct report *r)
{
	unsigned long long v[5] = { 0, 0, 0, 0, 0 };
	int fd[2], status, done = 0;
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
		execl(self, self, vdso ? "--child-vdso" : "--child", (char *)NULL);
		_exit(127);
	}
	close(fd[1]);
	f = fdopen(fd[0], "r");
	ok = pid > 0 && f &&
	     fscanf(f, "%llu %llu %llu %llu %llu %d", &v[0], &v[1], &v[2], &v[3], &v[4], &done) ==
		     6 &&
	     done;
	if (f)
		fclose(f);
	if (pid > 0)
		waitpid(pid, &status, 0);
	r->first = v[0];
	r->second = v[1];
	r->handover = v[2];
	r->call = v[3];
	r->worst = v[4];
	return ok;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static double hz; /* the counter's, as the parent's initialisation found it */

/* The @p quantile of @n values in counts, in us, after sorting them. */
static double pct(uint64_t *v, size_t n, double p)
{
	qsort(v, n, sizeof(v[0]), cmp_u64);
	return (double)v[(size_t)((double)(n - 1) * p + 0.5)] / hz * 1e6;
}

/* "median M us, p99 P us, max X us" of @n values in counts. */
static void print_spread(const char *what, uint64_t *v, size_t n)
{
	printf("%s: median %.1f us, p99 %.1f us, max %.1f us\n", what, pct(v, n, 0.5),
	       pct(v, n, 0.99), pct(v, n, 1.0));
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
	static uint64_t vdso[MAX_PROCESSES], vdso_second[MAX_PROCESSES], vdso_worst[MAX_PROCESSES],
		first[MAX_PROCESSES], second[MAX_PROCESSES], handover[MAX_PROCESSES],
		call[MAX_PROCESSES], worst[MAX_PROCESSES];
	size_t n = 200, got = 0, got_vdso = 0;
	struct cyclock_state info;
	struct report r;
	pid_t busy[64];
	int nbusy = 0;
	bool want_busy = false;

	if (argc > 1 && !strcmp(argv[1], "--child"))
		return child(false);
	if (argc > 1 && !strcmp(argv[1], "--child-vdso"))
		return child(true);
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
	if (cyclock_init(0) != CYCLOCK_USING_COUNTER) {
		fprintf(stderr, "%s: the library does not use the counter here: %s\n", argv[0],
			cyclock_describe());
		return 1;
	}
	info = state_now();
	hz = info.hz;
	if (want_busy)
		nbusy = start_busy(busy, 64);
	for (size_t i = 0; i < n; i++) {
		if (run_one("/proc/self/exe", true, &r)) {
			vdso_worst[got_vdso] = r.worst;
			vdso_second[got_vdso] = r.second;
			vdso[got_vdso++] = r.first;
		}
		if (run_one("/proc/self/exe", false, &r)) {
			first[got] = r.first;
			second[got] = r.second;
			handover[got] = r.handover;
			call[got] = r.call;
			worst[got++] = r.worst;
		}
	}
	for (int k = 0; k < nbusy; k++) {
		kill(busy[k], SIGKILL);
		waitpid(busy[k], NULL, 0);
	}
	if (!got || !got_vdso) {
		fprintf(stderr, "%s: no process reported\n", argv[0]);
		return 1;
	}
	printf("%zu fresh processes of each kind%s, counter at %.3f MHz\n", got,
	       nbusy ? ", every CPU busy" : "", hz / 1e6);
	print_spread("first clock_gettime(CLOCK_MONOTONIC)", vdso, got_vdso);
	print_spread("first cyclock_now()", first, got);
	printf("first-read ratio (medians): %.2fx\n", pct(first, got, 0.5) / pct(vdso, got_vdso, 0.5));
	print_spread("second clock_gettime(CLOCK_MONOTONIC)", vdso_second, got_vdso);
	print_spread("second cyclock_now() (initialisation's first half)", second, got);
	print_spread("the counter in use from the first read on after", handover, got);
	print_spread("the read that starts it", call, got);
	print_spread("each process's costliest cyclock_now() after its first, to 5 ms past the "
		     "hand-over",
		     worst, got);
	print_spread("each process's costliest clock_gettime() after its first, over as long",
		     vdso_worst, got_vdso);
	return 0;
}
