/* SPDX-License-Identifier: MIT */
/*
 * The library's own threads are guests in the program: by default
 * cyclock_coarse() starts none; the coarse ticker, asked for with
 * cyclock_init(CYCLOCK_INIT_COARSE) from a pinned thread, runs on the
 * process's CPUs, not the caller's one, and blocks every signal, so that a
 * signal the program sends itself is never handled on it.  Read back from
 * /proc/self/task/<tid>/status of the thread named "cyclock-coarse".
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "cyclock.h"

/* The value of "@key:" in /proc/self/task/@tid/status (or the process's
 * when @tid is NULL), into @buf; false when absent. */
static bool status_field(const char *tid, const char *key, char *buf, size_t len)
{
	char path[64], line[256];
	size_t klen = strlen(key);
	bool found = false;
	FILE *f;

	snprintf(path, sizeof(path), tid ? "/proc/self/task/%s/status" : "/proc/self/status",
		 tid);
	f = fopen(path, "r");
	while (f && !found && fgets(line, sizeof(line), f)) {
		if (strncmp(line, key, klen) || line[klen] != ':')
			continue;
		snprintf(buf, len, "%s", line + klen + 1 + strspn(line + klen + 1, " \t"));
		buf[strcspn(buf, "\n")] = '\0';
		found = true;
	}
	if (f)
		fclose(f);
	return found;
}

/* The tid of the thread called @name, into @tid; false when there is none. */
static bool find_thread(const char *name, char *tid, size_t len)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	bool found = false;

	while (d && !found && (e = readdir(d))) {
		char comm[32];

		if (e->d_name[0] == '.' || !status_field(e->d_name, "Name", comm, sizeof(comm)))
			continue;
		if (!strcmp(comm, name)) {
			snprintf(tid, len, "%.31s", e->d_name);
			found = true;
		}
	}
	if (d)
		closedir(d);
	return found;
}

static void *first_coarse_call(void *arg)
{
	cyclock_init(CYCLOCK_INIT_COARSE);
	*(uint64_t *)arg = cyclock_coarse();
	return NULL;
}

/* Thousands of calls, a few ms apart in all, and no thread of ours. */
static void default_coarse_starts_no_thread(void **state)
{
	char tid[32];
	uint64_t prev = 0, c;

	(void)state;
	for (int i = 0; i < 20000; i++) {
		c = cyclock_coarse();
		if (c < prev)
			fail_msg("cyclock_coarse() went back by %llu ns", (unsigned long long)(prev - c));
		prev = c;
	}
	if (find_thread("cyclock-coarse", tid, sizeof(tid)))
		fail_msg("cyclock_coarse() started thread %s unasked", tid);
}

/* Calls cyclock_coarse() for the first time from a thread pinned to the
 * last CPU the process may use. */
static void first_call_pinned(int *pinned_cpu)
{
	cpu_set_t set, one;
	pthread_attr_t attr;
	pthread_t t;
	uint64_t v = 0;

	assert_int_equal(sched_getaffinity(0, sizeof(set), &set), 0);
	*pinned_cpu = -1;
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &set))
			*pinned_cpu = c;
	CPU_ZERO(&one);
	CPU_SET(*pinned_cpu, &one);
	assert_int_equal(pthread_attr_init(&attr), 0);
	assert_int_equal(pthread_attr_setaffinity_np(&attr, sizeof(one), &one), 0);
	assert_int_equal(pthread_create(&t, &attr, first_coarse_call, &v), 0);
	assert_int_equal(pthread_join(t, NULL), 0);
	pthread_attr_destroy(&attr);
	assert_true(v > 0);
}

static void ticker_runs_on_the_process_cpus(void **state)
{
	char tid[32], mine[128], its[128];
	int pinned;

	(void)state;
	first_call_pinned(&pinned);
	if (!find_thread("cyclock-coarse", tid, sizeof(tid)))
		fail_msg("no thread named cyclock-coarse after cyclock_init(CYCLOCK_INIT_COARSE)");
	assert_true(status_field(NULL, "Cpus_allowed_list", mine, sizeof(mine)));
	assert_true(status_field(tid, "Cpus_allowed_list", its, sizeof(its)));
	if (strcmp(mine, its))
		fail_msg("the ticker may run on CPUs %s, the process on %s (first call pinned "
			 "to CPU %d)", its, mine, pinned);
}

/* SigBlk is a hex mask with bit (n - 1) for signal n. */
static void ticker_blocks_signals(void **state)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGUSR1, SIGUSR2, SIGALRM,
				    SIGCHLD, SIGPIPE };
	char tid[32], blk[64];
	unsigned long long mask;

	(void)state;
	cyclock_init(CYCLOCK_INIT_COARSE);
	if (!find_thread("cyclock-coarse", tid, sizeof(tid)))
		fail_msg("no thread named cyclock-coarse");
	assert_true(status_field(tid, "SigBlk", blk, sizeof(blk)));
	mask = strtoull(blk, NULL, 16);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		if (!(mask & (1ULL << (sigs[i] - 1))))
			fail_msg("the ticker does not block signal %d (SigBlk %s)", sigs[i], blk);
}

int main(void)
{
	/* In this order: no ticker until the second test asks for it. */
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(default_coarse_starts_no_thread),
		cmocka_unit_test(ticker_runs_on_the_process_cpus),
		cmocka_unit_test(ticker_blocks_signals),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
