/* SPDX-License-Identifier: MIT */
/*
 * A reader's resync blocks no signal (docs/hosted.md, "Tracking the
 * kernel's clocks", 4): a signal handler that longjmps out of a read
 * abandons the resync it was in, wherever it was.  In each of 20 fresh
 * children of fork(), a second thread sends SIGUSR1 to the main thread
 * again and again while it reads cyclock_now() and cyclock_realtime() as
 * fast as it can for 300 ms (so it resyncs every millisecond or two), and
 * the handler longjmps out of whatever it interrupted.  Then, with no more
 * signals, the clocks must read on: cyclock_now() never below a value read
 * before, both within 1 ms of the kernel's clocks for 100 ms of reads,
 * whether or not an abandoned resync left the writer flag taken (then
 * every read past a horizon serves the kernel's clock).  A watchdog turns
 * a hang into a failure.  Skipped under ThreadSanitizer, which runs a
 * handler at its next interceptor, not where the signal came.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "internal.h"
#include "child.h"
#include "kclock.h"

#define CHILDREN 20
#define STORM_NS (300 * 1000000ull)
#define AFTER_NS (100 * 1000000ull)
#define BOUND_NS (1 * 1000000ull)

#if defined(__SANITIZE_THREAD__)
#define ABANDONED_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define ABANDONED_TSAN 1
#endif
#endif

static sigjmp_buf jump_env;
static volatile sig_atomic_t armed;
static atomic_int stop_sending;
static pthread_t main_thread;

static void on_usr1(int sig)
{
	(void)sig;
	if (armed) {
		armed = 0; /* until sigsetjmp() has saved the context again */
		siglongjmp(jump_env, 1);
	}
}

/* SIGUSR1 to the main thread, then a pause of 0 to 30 us; again. */
static void *sender(void *seed)
{
	unsigned int r = (unsigned int)(uintptr_t)seed;

	while (!atomic_load(&stop_sending)) {
		uint64_t until = kclock_ns(CLOCK_MONOTONIC) + rand_r(&r) % 30000;

		pthread_kill(main_thread, SIGUSR1);
		while (kclock_ns(CLOCK_MONOTONIC) < until)
			;
	}
	return NULL;
}

/* Reads until @end_ns; the jumps out of them.  @last: the greatest value
 * of cyclock_now() a read returned. */
static unsigned long storm(uint64_t end_ns, volatile uint64_t *last)
{
	volatile unsigned long jumps = 0;
	uint64_t v;

	while (sigsetjmp(jump_env, 1))
		jumps++;
	while (kclock_ns(CLOCK_MONOTONIC) < end_ns) {
		armed = 1;
		v = cyclock_now();
		(void)cyclock_realtime();
		armed = 0;
		if (v < *last)
			child_fail("cyclock_now() went back by %llu ns in the storm",
				   (unsigned long long)(*last - v));
		*last = v > *last ? v : *last;
	}
	return jumps;
}

/* After it: in order, and with the kernel's clocks. */
static void after(volatile uint64_t *last)
{
	for (uint64_t end = kclock_ns(CLOCK_MONOTONIC) + AFTER_NS; kclock_ns(CLOCK_MONOTONIC) < end;) {
		uint64_t lo = kclock_ns(CLOCK_MONOTONIC), rlo = kclock_ns(CLOCK_REALTIME);
		uint64_t v = cyclock_now(), r = cyclock_realtime();
		uint64_t hi = kclock_ns(CLOCK_MONOTONIC), rhi = kclock_ns(CLOCK_REALTIME);

		if (v < *last)
			child_fail("cyclock_now() went back by %llu ns after the storm",
				   (unsigned long long)(*last - v));
		if (v + BOUND_NS < lo || v > hi + BOUND_NS || r + BOUND_NS < rlo || r > rhi + BOUND_NS)
			child_fail("off the kernel's clocks after the storm: now %+lld ns, realtime %+lld ns",
				   (long long)(v - lo), (long long)(r - rlo));
		*last = v;
		if (child_failures > 5)
			return;
	}
}

static int child(int i)
{
	struct sigaction sa = { .sa_handler = on_usr1 };
	volatile uint64_t last = 0;
	unsigned long jumps;
	pthread_t t;

	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	main_thread = pthread_self();
	alarm(10);
	if (cyclock_init(0) != CYCLOCK_USING_COUNTER)
		return 77;
	if (pthread_create(&t, NULL, sender, (void *)(uintptr_t)(i + 1)))
		return 2;
	jumps = storm(kclock_ns(CLOCK_MONOTONIC) + STORM_NS, &last);
	atomic_store(&stop_sending, 1);
	pthread_join(t, NULL);
	after(&last);
	printf("child %d: %lu reads left by a longjmp, %llu resyncs; the writer flag %s\n", i,
	       jumps, (unsigned long long)cyclock__tracks.mono.state.resyncs,
	       atomic_load(&cyclock__host.writer) ? "left taken" : "free");
	fflush(stdout);
	return child_failures ? 1 : 0;
}

int main(void)
{
	int failed = 0, skipped = 0;

#ifdef ABANDONED_TSAN
	printf("test_abandoned: ThreadSanitizer runs handlers elsewhere: skipped\n");
	return 77;
#endif
	for (int i = 0; i < CHILDREN; i++) {
		pid_t pid;
		int r;

		fflush(stdout);
		pid = fork();
		if (pid == 0)
			_exit(child(i));
		r = child_wait(pid, "child");
		skipped += r == 77;
		failed += r != 0 && r != 77;
	}
	if (skipped == CHILDREN) {
		printf("test_abandoned: the counter is not used here: skipped\n");
		return 77;
	}
	printf("test_abandoned: %d of %d children failed\n", failed, CHILDREN);
	return failed ? 1 : 0;
}
