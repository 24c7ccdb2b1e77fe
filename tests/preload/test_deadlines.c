/* SPDX-License-Identifier: MIT */
/*
 * Deadlines computed from preloaded readings are honoured: threads wait on
 * a condition variable nobody signals (pthread_cond_timedwait, on
 * CLOCK_MONOTONIC and on CLOCK_REALTIME) and sleep in clock_nanosleep
 * (TIMER_ABSTIME, MONOTONIC, REALTIME, BOOTTIME) until a deadline up to
 * 2 ms ahead; the kernel wakes them when its clock passes the deadline, and
 * the preloaded clock read then must not be before it.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>

#include "preload_check.h"

#define THREADS 3
#define ROUNDS 40

static _Atomic long failures;

static struct timespec deadline_after(clockid_t id, unsigned int *seed)
{
	return ns_ts((uint64_t)lib_ns(id) + (uint64_t)(rand_r(seed) % 2000000));
}

static void check(clockid_t id, const struct timespec *dl, const char *how)
{
	int64_t want = (int64_t)ts_ns(dl), now = lib_ns(id);

	if (now < want && atomic_fetch_add(&failures, 1) < 10)
		fprintf(stderr, "FAIL %s on clock %d: woke %lld ns before the deadline\n",
			how, (int)id, (long long)(want - now));
}

static void cond_wait(clockid_t id, unsigned int *seed)
{
	pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
	pthread_condattr_t ca;
	pthread_cond_t cv;
	struct timespec dl;
	int rc;

	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, id);
	pthread_cond_init(&cv, &ca);
	pthread_mutex_lock(&m);
	dl = deadline_after(id, seed);
	do
		rc = pthread_cond_timedwait(&cv, &m, &dl);
	while (rc == 0); /* a spurious wake-up */
	pthread_mutex_unlock(&m);
	if (rc != ETIMEDOUT)
		fprintf(stderr, "pthread_cond_timedwait: %d\n", rc), atomic_fetch_add(&failures, 1);
	check(id, &dl, "pthread_cond_timedwait");
	pthread_cond_destroy(&cv);
	pthread_condattr_destroy(&ca);
}

static void sleep_until(clockid_t id, unsigned int *seed)
{
	struct timespec dl = deadline_after(id, seed);

	while (clock_nanosleep(id, TIMER_ABSTIME, &dl, NULL) == EINTR)
		;
	check(id, &dl, "clock_nanosleep");
}

static void *waiter(void *arg)
{
	unsigned int seed = (unsigned int)(uintptr_t)arg;

	for (int i = 0; i < ROUNDS; i++) {
		cond_wait(CLOCK_MONOTONIC, &seed);
		cond_wait(CLOCK_REALTIME, &seed);
		sleep_until(CLOCK_MONOTONIC, &seed);
		sleep_until(CLOCK_REALTIME, &seed);
		sleep_until(CLOCK_BOOTTIME, &seed);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	unsigned int mask = preload_mask(argv[0]);
	pthread_t t[THREADS];

	(void)argc;
	for (int i = 0; i < THREADS; i++)
		pthread_create(&t[i], NULL, waiter, (void *)(uintptr_t)(i + 1));
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	printf("%d threads x %d rounds of 5 waits, served mask %#x, %ld failures\n", THREADS,
	       ROUNDS, mask, atomic_load(&failures));
	return atomic_load(&failures) ? 1 : preload_result(mask, argv[0]);
}
