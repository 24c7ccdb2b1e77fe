/* SPDX-License-Identifier: MIT */
/*
 * The coarse clocks and time() served by cyclock, as asked for with
 * CYCLOCK_PRELOAD_CLOCKS=...,monotonic_coarse,realtime_coarse (the test's
 * environment): no thread (the kernel's coarse clock on cyclock's
 * timeline); readings step at least every tick, never back, never above
 * the fine clock read after them, and at most a tick and two resync
 * intervals behind it; time() is CLOCK_REALTIME_COARSE's seconds; a child
 * of fork() keeps every clock in order with what its parent read.
 */
#include <dirent.h>
#include <string.h>
#include <sys/wait.h>

#include "preload_check.h"

#define MONO_COARSE (1u << CLOCK_MONOTONIC_COARSE)
#define REAL_COARSE (1u << CLOCK_REALTIME_COARSE)

static int failures;

/* Threads named @name among this process's. */
static int threads_named(const char *name)
{
	char path[300], comm[32];
	struct dirent *e;
	DIR *d = opendir("/proc/self/task");
	int n = 0;

	while (d && (e = readdir(d)) != NULL) {
		FILE *f;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/comm", e->d_name);
		f = fopen(path, "r");
		if (f && fgets(comm, sizeof(comm), f))
			n += !strncmp(comm, name, strlen(name));
		if (f)
			fclose(f);
	}
	if (d)
		closedir(d);
	return n;
}

/*
 * @coarse for 200 ms: in order, never above @fine read right after, never
 * below the kernel's own coarse clock read right before (but for the
 * library's agreement with the kernel, 1 ms): it lags no more than the
 * kernel's does; and stepping.  Besides, at most the kernel's coarse
 * resolution @res behind @fine read right before, and 15 ms for the late
 * ticks of a busy machine (10.7 ms was seen under ASan), which are the
 * kernel's, not ours.  Each lag is taken from the reading before, so that
 * a preemption between the reads can only hide a lag, never make one.
 * Returns the last reading.
 */
static int64_t ticks(clockid_t coarse, clockid_t fine, int64_t res, int64_t last)
{
	int64_t end = sys_ns(CLOCK_MONOTONIC) + 200 * 1000 * 1000, lag = 0;
	int steps = 0;

	while (sys_ns(CLOCK_MONOTONIC) < end) {
		int64_t f0 = lib_ns(fine), k = sys_ns(coarse), c = lib_ns(coarse), f = lib_ns(fine);

		CHECK(c >= last, "clock %d went back by %lld ns", (int)coarse, (long long)(last - c));
		CHECK(c + 1000 * 1000 >= k, "clock %d read %lld ns, %lld ns below the kernel's read before",
		      (int)coarse, (long long)c, (long long)(k - c));
		CHECK(c <= f, "clock %d read %lld ns, above its fine clock's %lld", (int)coarse,
		      (long long)c, (long long)f);
		if (f0 - c > lag)
			lag = f0 - c;
		steps += c > last && last;
		last = c;
	}
	CHECK(steps >= 5, "clock %d stepped %d times in 200 ms", (int)coarse, steps);
	CHECK(lag <= res + 15 * 1000 * 1000,
	      "clock %d was %lld ns behind its fine clock (resolution %lld)", (int)coarse,
	      (long long)lag, (long long)res);
	return last;
}

static void time_seconds(void)
{
	int64_t before = lib_ns(CLOCK_REALTIME_COARSE) / NS_PER_SEC, after;
	time_t stored = 0, t = time(&stored);

	after = lib_ns(CLOCK_REALTIME_COARSE) / NS_PER_SEC;
	CHECK(t >= before && t <= after, "time() %lld not within [%lld, %lld]", (long long)t,
	      (long long)before, (long long)after);
	CHECK(stored == t, "time(&t) stored %lld, returned %lld", (long long)stored, (long long)t);
}

/* In a child of fork(): no thread, and no clock below the parent's. */
static void fork_child_in_order(int64_t mono_last, int64_t real_last)
{
	pid_t pid = fork();
	int status = 0;

	if (pid == 0) {
		int64_t end = sys_ns(CLOCK_MONOTONIC) + 20 * 1000 * 1000;
		int bad = threads_named("cyclock-coarse") != 0;

		while (sys_ns(CLOCK_MONOTONIC) < end) {
			int64_t m = lib_ns(CLOCK_MONOTONIC_COARSE), r = lib_ns(CLOCK_REALTIME_COARSE);

			bad |= m < mono_last || r < real_last;
			mono_last = m;
			real_last = r;
		}
		_exit(bad);
	}
	CHECK(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
		      WEXITSTATUS(status) == 0,
	      "the child of fork() had a ticker or read a coarse clock out of order");
}

int main(int argc, char **argv)
{
	unsigned int mask = preload_mask(argv[0]);
	struct timespec res;
	int64_t mono, real;

	(void)argc;
	if (!mask)
		return preload_result(mask, argv[0]);
	CHECK((mask & (MONO_COARSE | REAL_COARSE)) == (MONO_COARSE | REAL_COARSE),
	      "coarse clocks not served (mask %#x; CYCLOCK_PRELOAD_CLOCKS=%s)", mask,
	      getenv("CYCLOCK_PRELOAD_CLOCKS") ? getenv("CYCLOCK_PRELOAD_CLOCKS") : "");
	CHECK(threads_named("cyclock-coarse") == 0, "%d cyclock-coarse threads, none asked for",
	      threads_named("cyclock-coarse"));
	clock_getres(CLOCK_MONOTONIC_COARSE, &res);
	mono = ticks(CLOCK_MONOTONIC_COARSE, CLOCK_MONOTONIC, res.tv_nsec, 0);
	real = ticks(CLOCK_REALTIME_COARSE, CLOCK_REALTIME, res.tv_nsec, 0);
	time_seconds();
	fork_child_in_order(mono, real);
	printf("served mask %#x, coarse resolution %ld ns, %d failures\n", mask, res.tv_nsec,
	       failures);
	return failures ? 1 : 0;
}
