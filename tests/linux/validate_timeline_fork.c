/* SPDX-License-Identifier: MIT */
/*
 * Fork safety: the parent forks again and again while one of its threads
 * resyncs in a loop (so some forks catch the latch half written, and any
 * flag a resync holds) and another reads cyclock_coarse().  Each child,
 * single-threaded and with nothing of the parent's threads but their
 * memory, checks every clock against its kernel clock, checks they do not
 * go back, resyncs (which must really happen: nobody is left to finish a
 * resync the fork interrupted), and checks that cyclock_coarse() advances,
 * i.e. that its first call restarted the ticker.  Every fifth child also
 * forks a grandchild that checks the same, from a child that has a ticker
 * thread of its own.  alarm(10) turns a hang into a failed child.
 * Children leave with _exit() after flushing stdout, as children of fork()
 * should: exit() would also run LeakSanitizer, which cannot stop the
 * parent's threads it still lists and warns about each of them.
 *
 * Usage: linux_validate_timeline_fork [seconds]   (default 3)
 *
 * Benchmark: `cyclock bench cold` and linux_cost_first_read measure what a first read
 * costs; `cyclock bench scale`, the timelines under threads.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cyclock.h"
#include "cyclock/timeline.h"
#include "agree.h"
#include "child.h"
#include "state.h"
#include "tsan_fork.h" /* the child restarts the ticker after fork() */

#define MIN_FORKS 50
#define MAX_FORKS 500
#define COARSE_ADVANCE_NS 200000000ull

static atomic_bool stop;
static atomic_ulong parent_resyncs, parent_coarse_reads, parent_coarse_errors;

static void child_check_clocks(void)
{
	int n, i, j;
	const struct kclock_case *c = kclock_cases(&n);

	for (i = 0; i < n; i++) {
		uint64_t prev = c[i].read(), t;
		int64_t miss = kclock_miss(&c[i]);

		if (!kclock_within(miss, AGREE_NS))
			child_fail("%s: %lld ns outside its kernel clock", c[i].name, (long long)miss);
		for (j = 0; (c[i].flags & KCLOCK_MONO) && j < 10000; j++, prev = t)
			if ((t = c[i].read()) < prev) {
				child_fail("%s went back by %llu ns", c[i].name,
					   (unsigned long long)(prev - t));
				break;
			}
	}
}

/* A resync in the child must publish, even if the fork caught one in the
 * parent halfway. */
static void child_check_resync(void)
{
	struct cyclock_state before = state_now(), after;

	cyclock_resync();
	after = state_now();
	if (before.using_counter && after.resyncs <= before.resyncs)
		child_fail("cyclock_resync() published nothing (resyncs %llu, then %llu)",
			   (unsigned long long)before.resyncs, (unsigned long long)after.resyncs);
}

/* The first cyclock_coarse() restarts the ticker: it must advance. */
static void child_check_coarse(void)
{
	uint64_t c0 = cyclock_coarse(), end = kclock_mono() + COARSE_ADVANCE_NS, c, n;
	struct timespec ms = { 0, 1000000 };

	do {
		nanosleep(&ms, NULL);
		c = cyclock_coarse();
	} while (c <= c0 && kclock_mono() < end);
	n = cyclock_now();
	if (c <= c0)
		child_fail("cyclock_coarse() stuck at %llu for %llu ns: no ticker",
			   (unsigned long long)c0, COARSE_ADVANCE_NS);
	if (c > n || n - c > COARSE_LAG_NS)
		child_fail("cyclock_coarse() %llu, cyclock_now() after it %llu",
			   (unsigned long long)c, (unsigned long long)n);
}

static int wait_child(pid_t pid, int i);

static int child_main(int depth, int i)
{
	alarm(10);
	child_check_clocks();
	child_check_resync();
	child_check_coarse();
	if (depth == 0 && i % 5 == 0) {
		pid_t pid;

		fflush(stdout);
		pid = fork();
		if (pid == 0)
			_exit(child_main(1, i));
		child_failures += pid < 0 || wait_child(pid, i) != 0;
	}
	child_check_clocks();
	fflush(stdout);
	return child_failures ? 1 : 0;
}

/* 0 if child @pid exited 0; else says how it ended. */
static int wait_child(pid_t pid, int i)
{
	char who[64];
	int code;

	snprintf(who, sizeof(who), "validate_timeline_fork: fork %d", i);
	code = child_wait(pid, who);
	if (code > 0)
		printf("%s: exited %d\n", who, code);
	return code != 0;
}

static void *resyncer(void *arg)
{
	(void)arg;
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		cyclock_resync();
		atomic_fetch_add_explicit(&parent_resyncs, 1, memory_order_relaxed);
	}
	return NULL;
}

static void *coarse_reader(void *arg)
{
	uint64_t prev = 0, c;

	(void)arg;
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		c = cyclock_coarse();
		if (c < prev || c > cyclock_now())
			atomic_fetch_add(&parent_coarse_errors, 1);
		prev = c;
		atomic_fetch_add_explicit(&parent_coarse_reads, 1, memory_order_relaxed);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 3.0;
	uint64_t end, c0;
	pthread_t t[2];
	int i, failed = 0;

	/* qemu-user (7.2) aborts in a child forked while other threads run
	 * (an assertion in its TCG), before the child's first instruction. */
	if (getenv("CYCLOCK_TEST_EMULATED")) {
		printf("validate_timeline_fork: qemu-user cannot fork a threaded program: skipped\n");
		return 77;
	}
	if (cyclock_init(CYCLOCK_INIT_COARSE) < 0)
		return 1;
	printf("validate_timeline_fork: %s\n", cyclock_describe());
	pthread_create(&t[0], NULL, resyncer, NULL);
	pthread_create(&t[1], NULL, coarse_reader, NULL);
	/* Fork only once these threads and the ticker run their loops: a
	 * thread still starting may hold a lock of the sanitizers' allocator
	 * (clang 14's ASan does not take it around fork()), and the child
	 * would deadlock on it. */
	c0 = cyclock_coarse();
	while (!atomic_load(&parent_resyncs) || !atomic_load(&parent_coarse_reads) ||
	       cyclock_coarse() == c0)
		sched_yield();
	end = kclock_mono() + (uint64_t)(seconds * 1e9);
	for (i = 0; i < MAX_FORKS && (i < MIN_FORKS || kclock_mono() < end); i++) {
		pid_t pid;

		fflush(stdout);
		pid = fork();
		if (pid == 0)
			_exit(child_main(0, i));
		if (pid < 0) {
			perror("validate_timeline_fork: fork");
			failed++;
			break;
		}
		failed += wait_child(pid, i);
	}
	atomic_store(&stop, true);
	pthread_join(t[0], NULL);
	pthread_join(t[1], NULL);
	printf("validate_timeline_fork: %d forks (%d failed), %lu resyncs and %lu coarse errors in the parent\n",
	       i, failed, atomic_load(&parent_resyncs), atomic_load(&parent_coarse_errors));
	return failed || atomic_load(&parent_coarse_errors) ? 1 : 0;
}
