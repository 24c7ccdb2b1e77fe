/* SPDX-License-Identifier: MIT */
/*
 * The library's reads of the kernel's clocks (world.c): the vDSO's
 * clock_gettime() called directly only where the clock_gettime() the
 * library would call is libc's, which only calls it; any other definition
 * is called as it is.  This program is such another definition: it
 * defines clock_gettime() itself (counting its calls, answering by system
 * call), so the library, linked into it, must call it and not the vDSO.
 * The decision itself is asked of libc's definition and of one of ours.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdlib.h>
#include <sys/auxv.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "internal.h"

static atomic_ulong calls;

/* The program's own clock_gettime(): every caller in it, the library
 * among them, reaches this one. */
int clock_gettime(clockid_t id, struct timespec *ts)
{
	atomic_fetch_add(&calls, 1);
	return (int)syscall(SYS_clock_gettime, id, ts);
}

static uint64_t ns_of(const struct timespec *ts)
{
	return (uint64_t)ts->tv_sec * 1000000000u + (uint64_t)ts->tv_nsec;
}

static void another_definition_is_called(void **unused)
{
	unsigned long before;

	(void)unused;
	assert_null(cyclock__vdso_gettime());
	before = atomic_load(&calls);
	(void)cyclock_now(); /* the first read serves the kernel's clock */
	(void)cyclock_realtime();
	assert_true(atomic_load(&calls) >= before + 2);
}

/* libc's own, not the next definition after ours: under a sanitizer that
 * is its interceptor. */
static cyclock__gettime_fn *libc_gettime(void)
{
	void *h = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
	cyclock__gettime_fn *fn;

	assert_non_null(h);
	fn = (cyclock__gettime_fn *)dlsym(h, "clock_gettime");
	dlclose(h);
	return fn;
}

static void libc_s_definition_is_skipped(void **unused)
{
	cyclock__gettime_fn *libc = libc_gettime();
	cyclock__gettime_fn *vdso;
	struct timespec a, b, v;

	(void)unused;
	assert_non_null(libc);
	assert_null(cyclock__vdso_gettime_of(NULL));
	assert_null(cyclock__vdso_gettime_of(clock_gettime));
	vdso = cyclock__vdso_gettime_of(libc);
	if (!getauxval(AT_SYSINFO_EHDR)) { /* no vDSO here (some emulators) */
		assert_null(vdso);
		return;
	}
	assert_non_null(vdso);
	assert_int_equal(libc(CLOCK_MONOTONIC, &a), 0);
	assert_int_equal(vdso(CLOCK_MONOTONIC, &v), 0);
	assert_int_equal(libc(CLOCK_MONOTONIC, &b), 0);
	assert_true(ns_of(&a) <= ns_of(&v) && ns_of(&v) <= ns_of(&b));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(another_definition_is_called),
		cmocka_unit_test(libc_s_definition_is_skipped),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
