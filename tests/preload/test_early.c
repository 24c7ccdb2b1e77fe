/* SPDX-License-Identifier: MIT */
/*
 * The preload where programs read the clock first or oddly: in another
 * library's constructor (early_lib.c) and in the program's own, in signal
 * handlers interrupting readings (SIGALRM every 200 us for 300 ms), in a
 * child of fork() while another thread reads, and after exec().
 * Usage: early [exec-child MASK]
 */
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>

#include "preload_check.h"

extern int64_t early_lib_ns;
extern int early_lib_served;

static int failures;
static int64_t ctor_before = -1, ctor_ns = -1, ctor_after = -1;

__attribute__((constructor)) static void program_init(void)
{
	ctor_before = sys_ns(CLOCK_MONOTONIC);
	ctor_ns = lib_ns(CLOCK_MONOTONIC);
	ctor_after = sys_ns(CLOCK_MONOTONIC);
}

static bool within(int64_t r, int64_t before, int64_t after)
{
	return r >= before - SLACK_NS && r <= after + SLACK_NS;
}

static void constructors(void)
{
	int64_t now = sys_ns(CLOCK_MONOTONIC);

	CHECK(early_lib_ns > 0 && early_lib_ns <= now + SLACK_NS && early_lib_ns >= now - 60 * NS_PER_SEC,
	      "a library constructor's reading %lld, now %lld", (long long)early_lib_ns,
	      (long long)now);
	CHECK(within(ctor_ns, ctor_before, ctor_after), "the program constructor's reading %lld "
	      "not within [%lld, %lld]", (long long)ctor_ns, (long long)ctor_before,
	      (long long)ctor_after);
}

/* The latest CLOCK_MONOTONIC reading of the main thread and of the handler:
 * each reading must be no less than the other's completed before it. */
static volatile int64_t last, handler_last;
static volatile sig_atomic_t handler_bad, handler_runs;

static void on_alarm(int sig)
{
	int64_t before = sys_ns(CLOCK_MONOTONIC), r = lib_ns(CLOCK_MONOTONIC);
	int64_t rt_before = sys_ns(CLOCK_REALTIME), rt = lib_ns(CLOCK_REALTIME);

	(void)sig;
	if (r < last || !within(r, before, sys_ns(CLOCK_MONOTONIC)) ||
	    !within(rt, rt_before, sys_ns(CLOCK_REALTIME)))
		handler_bad = 1;
	handler_last = r;
	handler_runs++;
}

static void signals(void)
{
	struct itimerval it = { { 0, 200 }, { 0, 200 } }, off = { { 0, 0 }, { 0, 0 } };
	struct sigaction sa;
	int64_t end = sys_ns(CLOCK_MONOTONIC) + 300 * 1000 * 1000;
	long bad = 0;
	int64_t prev = 0;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sigaction(SIGALRM, &sa, NULL);
	raise(SIGALRM); /* one before any timer */
	setitimer(ITIMER_REAL, &it, NULL);
	while (sys_ns(CLOCK_MONOTONIC) < end)
		for (int i = 0; i < 1000; i++) {
			int64_t h = handler_last, r = lib_ns(CLOCK_MONOTONIC);

			bad += r < prev || r < h;
			last = prev = r;
		}
	setitimer(ITIMER_REAL, &off, NULL);
	signal(SIGALRM, SIG_IGN);
	CHECK(!bad && !handler_bad, "signals: %ld readings went back, handler %s", bad,
	      handler_bad ? "saw a bad reading" : "fine");
	CHECK(handler_runs > 10, "signals: only %d handler runs", (int)handler_runs);
}

static _Atomic bool stop;

static void *spinner(void *arg)
{
	(void)arg;
	while (!atomic_load(&stop))
		lib_ns(CLOCK_MONOTONIC);
	return NULL;
}

/* In a child: readings go forward and agree with the kernel. */
static int child_reads(void)
{
	int64_t prev = 0;

	for (int i = 0; i < 20000; i++) {
		int64_t before = sys_ns(CLOCK_MONOTONIC), r = lib_ns(CLOCK_MONOTONIC);

		if (r < prev || !within(r, before, sys_ns(CLOCK_MONOTONIC)))
			return 1;
		prev = r;
	}
	return 0;
}

static int wait_child(pid_t pid)
{
	int st;

	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static void forks(const char *self, unsigned int mask)
{
	pthread_t t;
	char arg[16];
	pid_t pid;
	int rc;

	pthread_create(&t, NULL, spinner, NULL);
	for (int i = 0; i < 3; i++) {
		int64_t parent = lib_ns(CLOCK_MONOTONIC);

		pid = fork();
		if (pid == 0)
			_exit(lib_ns(CLOCK_MONOTONIC) < parent ? 2 : child_reads());
		rc = wait_child(pid);
		CHECK(rc == 0, "fork child %d: status %d", i, rc);
	}
	snprintf(arg, sizeof(arg), "%u", mask);
	pid = fork();
	if (pid == 0) {
		execl(self, self, "exec-child", arg, (char *)NULL);
		_exit(127);
	}
	rc = wait_child(pid);
	CHECK(rc == 0, "exec child: status %d", rc);
	atomic_store(&stop, true);
	pthread_join(t, NULL);
}

int main(int argc, char **argv)
{
	unsigned int mask = preload_mask(argv[0]);

	if (argc == 3 && !strcmp(argv[1], "exec-child"))
		return mask == (unsigned int)atoi(argv[2]) ? child_reads() : 3;
	constructors();
	signals();
	forks(argv[0], mask);
	printf("served mask %#x; a library constructor saw the marker %d; %d failures\n",
	       mask, early_lib_served, failures);
	return failures ? 1 : preload_result(mask, argv[0]);
}
