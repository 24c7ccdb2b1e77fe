/* SPDX-License-Identifier: MIT */
/*
 * Error semantics and pass-through under the preload: what the kernel
 * answers for an unknown id and a NULL pointer, CPU-time clocks that
 * advance with work, CLOCK_TAI and the coarse clocks as the kernel has
 * them, gettimeofday() and timespec_get() on CLOCK_REALTIME.
 */
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <sys/time.h>

#include "preload_check.h"

static int failures;

/* Hidden from the compiler (and UBSan), which know that clock_gettime()'s
 * pointer is nonnull: the test passes NULL on purpose. */
static struct timespec *volatile null_ts;
static int (*volatile gettime)(clockid_t, struct timespec *) = clock_gettime;

/* The preload and the kernel give the same result and errno for @id, @ts. */
static void same_error(clockid_t id, struct timespec *ts, int want)
{
	int rc, err, sys_rc, sys_err;

	errno = 0;
	rc = gettime(id, ts);
	err = errno;
	errno = 0;
	sys_rc = (int)syscall(SYS_clock_gettime, id, ts);
	sys_err = errno;
	CHECK(rc == -1 && err == want, "clock %d: %d/%s, want -1/%s", (int)id, rc,
	      strerror(err), strerror(want));
	CHECK(rc == sys_rc && err == sys_err, "clock %d: %d/%d, kernel %d/%d", (int)id,
	      rc, err, sys_rc, sys_err);
}

static void errors(void)
{
	struct timespec ts;
	static const clockid_t served[] = { CLOCK_REALTIME, CLOCK_MONOTONIC,
					    CLOCK_MONOTONIC_RAW, CLOCK_BOOTTIME };

	same_error(1234, &ts, EINVAL);
	same_error(16, &ts, EINVAL);
	same_error(-1 - (1 << 20), &ts, EINVAL); /* a dead pid's CPU clock */
	same_error(1234, null_ts, EINVAL);
	for (size_t i = 0; i < sizeof(served) / sizeof(served[0]); i++)
		same_error(served[i], null_ts, EFAULT);
}

static volatile uint64_t sink;

/* Work until this thread has run for @ns by the kernel's own count (not
 * the wall clock: on a loaded machine 20 ms of wall time may be 4 ms of
 * CPU), or 10 s have passed. */
static void burn(int64_t ns)
{
	int64_t end = sys_ns(CLOCK_THREAD_CPUTIME_ID) + ns;
	int64_t give_up = sys_ns(CLOCK_MONOTONIC) + 10 * 1000 * 1000 * 1000ll;

	while (sys_ns(CLOCK_THREAD_CPUTIME_ID) < end && sys_ns(CLOCK_MONOTONIC) < give_up)
		for (int i = 0; i < 1000; i++)
			sink += (uint64_t)i * i;
}

static void cputime(void)
{
	clockid_t self;
	int64_t t0 = lib_ns(CLOCK_THREAD_CPUTIME_ID), p0 = lib_ns(CLOCK_PROCESS_CPUTIME_ID);
	int64_t s0, s1;

	CHECK(pthread_getcpuclockid(pthread_self(), &self) == 0, "pthread_getcpuclockid");
	s0 = lib_ns(self);
	burn(20 * 1000 * 1000);
	s1 = lib_ns(self);
	CHECK(t0 >= 0 && lib_ns(CLOCK_THREAD_CPUTIME_ID) - t0 >= 5 * 1000 * 1000,
	      "CLOCK_THREAD_CPUTIME_ID did not advance with 20 ms of work");
	CHECK(p0 >= 0 && lib_ns(CLOCK_PROCESS_CPUTIME_ID) - p0 >= 5 * 1000 * 1000,
	      "CLOCK_PROCESS_CPUTIME_ID did not advance with 20 ms of work");
	CHECK(s0 >= 0 && s1 - s0 >= 5 * 1000 * 1000, "the thread's own clock id (%d) did not "
	      "advance: %lld -> %lld", (int)self, (long long)s0, (long long)s1);
}

/* Between the kernel's readings before and after, within SLACK_NS. */
static void bracketed(clockid_t id, const char *name)
{
	int64_t before = sys_ns(id), r = lib_ns(id), after = sys_ns(id);

	CHECK(r >= before - SLACK_NS && r <= after + SLACK_NS,
	      "%s: %lld not within [%lld, %lld]", name, (long long)r, (long long)before,
	      (long long)after);
}

static void realtime_apis(void)
{
	struct timeval tv;
	struct timespec ts;
	int64_t before = sys_ns(CLOCK_REALTIME), after;

	CHECK(gettimeofday(&tv, NULL) == 0, "gettimeofday");
	CHECK(timespec_get(&ts, TIME_UTC) == TIME_UTC, "timespec_get");
	after = sys_ns(CLOCK_REALTIME);
	CHECK(tv.tv_sec * NS_PER_SEC + tv.tv_usec * 1000 >= before / 1000 * 1000 - SLACK_NS &&
	      tv.tv_sec * NS_PER_SEC + tv.tv_usec * 1000 <= after + SLACK_NS,
	      "gettimeofday out of the kernel's bracket");
	CHECK((int64_t)ts_ns(&ts) >= before - SLACK_NS && (int64_t)ts_ns(&ts) <= after + SLACK_NS,
	      "timespec_get out of the kernel's bracket");
	CHECK(timespec_get(&ts, 12345) == 0, "timespec_get with an unknown base");
}

/* time() is CLOCK_REALTIME_COARSE's seconds, and stores what it returns. */
static void time_seconds(void)
{
	int64_t before = sys_ns(CLOCK_REALTIME_COARSE) / NS_PER_SEC, after;
	time_t t = time(NULL), stored = 0;

	after = sys_ns(CLOCK_REALTIME_COARSE) / NS_PER_SEC;
	CHECK(t >= before && t <= after, "time() %lld not within [%lld, %lld]", (long long)t,
	      (long long)before, (long long)after);
	t = time(&stored);
	CHECK(stored == t, "time(&t) stored %lld, returned %lld", (long long)stored, (long long)t);
}

int main(int argc, char **argv)
{
	unsigned int mask = preload_mask(argv[0]);

	(void)argc;
	errors();
	cputime();
	bracketed(CLOCK_TAI, "CLOCK_TAI");
	bracketed(CLOCK_REALTIME_COARSE, "CLOCK_REALTIME_COARSE");
	bracketed(CLOCK_MONOTONIC_COARSE, "CLOCK_MONOTONIC_COARSE");
	bracketed(CLOCK_MONOTONIC, "CLOCK_MONOTONIC");
	bracketed(CLOCK_BOOTTIME, "CLOCK_BOOTTIME");
	realtime_apis();
	time_seconds();
	printf("served mask %#x, %d failures\n", mask, failures);
	return failures ? 1 : preload_result(mask, argv[0]);
}
