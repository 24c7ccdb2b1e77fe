/* SPDX-License-Identifier: MIT */
/*
 * The preload's constructor starts no thread and leaves no process
 * multi-threaded: a program that calls unshare(CLONE_NEWUSER) or counts
 * its threads first thing in main() must not notice the preload.  This
 * program defines pthread_create() itself (exported), so the preload's
 * calls reach it first; it counts them and passes them on.  Then: the
 * clocks read right away (the kernel's, while the frequency is measured)
 * and a few milliseconds later (cyclock's) are in order and agree with
 * the system call, and those reads, the switch and the resyncs among them,
 * allocate nothing (malloc(), calloc() and realloc() are counted the same
 * way).  Not built with sanitizers, whose runtimes intercept these
 * functions themselves.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "preload_check.h"

typedef int create_fn(pthread_t *t, const pthread_attr_t *attr, void *(*fn)(void *), void *arg);

static atomic_int created;
static atomic_int allocations;
static int failures;

/* glibc's allocator under its own names, so that counting needs no dlsym(),
 * which may allocate. */
void *__libc_malloc(size_t size);
void *__libc_calloc(size_t n, size_t size);
void *__libc_realloc(void *p, size_t size);

void *malloc(size_t size)
{
	atomic_fetch_add(&allocations, 1);
	return __libc_malloc(size);
}

void *calloc(size_t n, size_t size)
{
	atomic_fetch_add(&allocations, 1);
	return __libc_calloc(n, size);
}

void *realloc(void *p, size_t size)
{
	atomic_fetch_add(&allocations, 1);
	return __libc_realloc(p, size);
}

int pthread_create(pthread_t *t, const pthread_attr_t *attr, void *(*fn)(void *), void *arg)
{
	create_fn *real = (create_fn *)dlsym(RTLD_NEXT, "pthread_create");

	atomic_fetch_add(&created, 1);
	return real ? real(t, attr, fn, arg) : 11; /* EAGAIN */
}

/* Threads: in /proc/self/status. */
static int threads_now(void)
{
	char line[256];
	int n = -1;
	FILE *f = fopen("/proc/self/status", "r");

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "Threads:", 8))
			n = atoi(line + 8);
	if (f)
		fclose(f);
	return n;
}

/* Readings of @id for @ns: in order, inside system-call brackets, and
 * without an allocation. */
static void read_for(clockid_t id, int64_t ns)
{
	int64_t end = sys_ns(CLOCK_MONOTONIC) + ns, last = 0;
	int allocated = atomic_load(&allocations);

	while (sys_ns(CLOCK_MONOTONIC) < end) {
		int64_t lo = sys_ns(id), v = lib_ns(id), hi = sys_ns(id);

		CHECK(v >= last, "clock %d went back by %lld ns", (int)id, (long long)(last - v));
		CHECK(v + SLACK_NS >= lo && v <= hi + SLACK_NS,
		      "clock %d read %lld ns, the kernel [%lld, %lld]", (int)id, (long long)v,
		      (long long)lo, (long long)hi);
		last = v;
	}
	allocated = atomic_load(&allocations) - allocated;
	CHECK(allocated == 0, "clock %d: %d allocations while reading", (int)id, allocated);
}

int main(void)
{
	int before_main = atomic_load(&created), threads = threads_now();
	unsigned int mask = preload_mask("preload_constructor");

	CHECK(before_main == 0, "the preload's constructor started %d thread(s)", before_main);
	CHECK(threads == 1, "%d threads at main()", threads);
	/* Across the switch from the kernel's clocks to cyclock's (500 us). */
	read_for(CLOCK_MONOTONIC, 5 * 1000 * 1000);
	read_for(CLOCK_REALTIME, 1000 * 1000);
	CHECK(atomic_load(&created) == 0, "reading the clocks started %d thread(s)",
	      atomic_load(&created));
	if (failures)
		return 1;
	printf("preload_constructor: no thread started, clocks in order (served 0x%x)\n", mask);
	return preload_result(mask, "preload_constructor");
}
