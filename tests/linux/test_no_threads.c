/* SPDX-License-Identifier: MIT */
/*
 * Where no thread can be created.  Initialisation's warp check and the
 * coarse ticker are the library's only threads; a process may be unable
 * to create any (a seccomp sandbox, a full thread table), and the library
 * must then say what it could not check rather than claim it checked,
 * start no thread it was not asked for, and try the ticker once, not at
 * every call.
 *
 * Each case runs in a child of fork() that installs a seccomp filter:
 * clone3 fails with ENOSYS (so glibc falls back to clone) and clone with
 * CLONE_THREAD with EAGAIN, so pthread_create() fails while fork() still
 * works.  (RLIMIT_NPROC would not do: it does not apply to root.)  The
 * program defines pthread_create() itself, counting the calls and
 * forwarding them to the real one; the library is linked statically, so
 * its calls come here too.  No speed is asserted.  Exits 77 where no
 * seccomp filter can be installed.
 *
 * Over 400 lines: the seccomp filter and the pthread_create() counter are
 * the harness every case needs, in one program.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "internal.h"
#include "child.h"
#include "agree.h"
#include "state.h"

#if defined(__SANITIZE_THREAD__)
#define NO_THREADS_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define NO_THREADS_TSAN 1
#endif
#endif

#if defined(__x86_64__)
#define NATIVE_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define NATIVE_AUDIT_ARCH AUDIT_ARCH_AARCH64
#elif defined(__riscv) && __riscv_xlen == 64
#define NATIVE_AUDIT_ARCH AUDIT_ARCH_RISCV64
#endif

#define WATCHDOG_S 10
#define CALLS 100000

#ifndef CLONE_THREAD
#define CLONE_THREAD 0x00010000
#endif

/* ---- pthread_create(), counted. ---- */

typedef int create_fn(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);

#ifdef NO_THREADS_TSAN
/* ThreadSanitizer's own pthread_create is a weak alias of this, which
 * ours replaces: forward to it, or TSan would not know the thread. */
extern create_fn __interceptor_pthread_create __attribute__((weak));
#endif

static atomic_uint creates;  /* calls */
static atomic_int last_error; /* the last call's result */

int pthread_create(pthread_t *restrict t, const pthread_attr_t *restrict attr,
		   void *(*fn)(void *), void *restrict arg)
{
	static create_fn *real;
	int err;

	if (!real) {
#ifdef NO_THREADS_TSAN
		real = __interceptor_pthread_create;
#endif
		if (!real)
			real = (create_fn *)dlsym(RTLD_NEXT, "pthread_create");
		if (!real)
			abort();
	}
	atomic_fetch_add(&creates, 1);
	err = real(t, attr, fn, arg);
	atomic_store(&last_error, err);
	return err;
}

/* ---- The filter. ---- */

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define ARG0_LOW offsetof(struct seccomp_data, args[0])
#else
#define ARG0_LOW (offsetof(struct seccomp_data, args[0]) + 4)
#endif

/* clone3: ENOSYS; clone with CLONE_THREAD: EAGAIN; everything else, and
 * every other ABI, allowed.  0, or -1 with errno. */
static int no_threads_filter(void)
{
#ifdef NATIVE_AUDIT_ARCH
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, NATIVE_AUDIT_ARCH, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_clone3, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_clone, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG0_LOW), /* clone's flags */
		BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, CLONE_THREAD, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EAGAIN),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = sizeof(f) / sizeof(f[0]), .filter = f };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -1;
	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog);
#else
	errno = ENOSYS; /* no audit architecture known for this one */
	return -1;
#endif
}

/* ---- Children. ---- */

/* Runs @fn in a child of fork() behind the filter (@before, if not NULL,
 * before the filter); its exit code (0, 1 for a failed check, 77: no
 * filter).  A child killed fails the test. */
static int in_filtered_child(void (*before)(void), void (*fn)(void))
{
	pid_t pid;
	int code;

	fflush(stdout);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		alarm(WATCHDOG_S);
		if (before)
			before();
		if (no_threads_filter()) {
			printf("seccomp filters cannot be installed here (%s)\n", strerror(errno));
			fflush(stdout);
			_exit(77);
		}
		fn();
		fflush(stdout);
		_exit(child_failures ? 1 : 0);
	}
	code = child_wait(pid, "child");
	if (code < 0)
		fail_msg("the child did not exit (above)");
	return code;
}

static void run_filtered(void (*before)(void), void (*fn)(void))
{
	int r = in_filtered_child(before, fn);

	if (r == 77)
		skip();
	assert_int_equal(r, 0);
}

/* The value of "@key:" in /proc/self/status, or -1. */
static long status_number(const char *key)
{
	char line[256];
	size_t klen = strlen(key);
	long v = -1;
	FILE *f = fopen("/proc/self/status", "r");

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, key, klen) && line[klen] == ':')
			v = strtol(line + klen + 1, NULL, 10);
	if (f)
		fclose(f);
	return v;
}

/* The process's threads, or 1 where that cannot be told: ThreadSanitizer
 * starts a thread of its own at the first pthread_create(). */
static long threads(void)
{
#ifdef NO_THREADS_TSAN
	return 1;
#else
	return status_number("Threads");
#endif
}

static void *nothing(void *arg)
{
	return arg;
}

/* The counter counts, and the filter stops threads but not processes. */
static void child_counted_and_filtered(void)
{
	unsigned int n0 = atomic_load(&creates);
	pthread_t t;
	int err, status;
	pid_t pid;

	err = pthread_create(&t, NULL, nothing, NULL);
	if (atomic_load(&creates) != n0 + 1)
		child_fail("the program's pthread_create() did not count its own call");
	if (err == 0) {
		child_fail("pthread_create() succeeded behind the filter");
		pthread_join(t, NULL);
	} else if (err != EAGAIN) {
		child_fail("pthread_create() failed with %s, not EAGAIN", strerror(err));
	}
	if (status_number("Seccomp") != 2)
		child_fail("/proc/self/status says Seccomp: %ld, not 2 (filter)",
			   status_number("Seccomp"));
	pid = fork();
	if (pid == 0)
		_exit(0);
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status) != 0)
		child_fail("fork() does not work behind the filter");
}

/* Before the filter: a call counts, and works. */
static void child_counted(void)
{
	unsigned int n0 = atomic_load(&creates);
	pthread_t t;
	int err = pthread_create(&t, NULL, nothing, NULL);

	if (err)
		child_fail("pthread_create() failed before the filter: %s", strerror(err));
	else
		pthread_join(t, NULL);
	if (atomic_load(&creates) != n0 + 1)
		child_fail("the program's pthread_create() did not count a call before the filter");
}

static void counted_and_filtered(void **unused)
{
	(void)unused;
	run_filtered(child_counted, child_counted_and_filtered);
}

/*
 * cyclock_init(0) returns, and describe does not claim a check that
 * could not run: if the warp check tried a thread (and failed), it says
 * the check could not run; it never says "no warp".
 */
static void child_init_without_threads(void)
{
	unsigned int n0 = atomic_load(&creates), tried;
	struct cyclock_state info;
	const char *d;
	int r;

	r = cyclock_init(0);
	tried = atomic_load(&creates) - n0;
	d = cyclock_describe();
	info = state_now();
	printf("cyclock_init(0) = %d after %u pthread_create() calls: %s\n", r, tried, d);
	if (r != CYCLOCK_USING_COUNTER && r != CYCLOCK_USING_KERNEL)
		child_fail("cyclock_init(0) returned %d", r);
	if (tried && atomic_load(&last_error) == 0)
		child_fail("a pthread_create() succeeded behind the filter");
	if (strstr(d, "no warp"))
		child_fail("describe claims a warp check that could not run: %s", d);
	if (tried && r == CYCLOCK_USING_COUNTER && !strstr(d, "could not run"))
		child_fail("the warp check tried a thread and failed, but describe does not say "
			   "it could not run: %s", d);
	if (tried && r == CYCLOCK_USING_COUNTER && info.warp_cyc >= 0)
		child_fail("the warp check could not run, but warp_cyc is %lld",
			   (long long)info.warp_cyc);
	if (tried > 2)
		child_fail("initialisation tried %u threads", tried);
	if (threads() != 1)
		child_fail("%ld threads after cyclock_init(0)", threads());
}

static void init_without_threads(void **unused)
{
	(void)unused;
	run_filtered(NULL, child_init_without_threads);
}

/* Every clock once; fails on one that went back or a coarse value ahead
 * of cyclock_now(). */
struct reads {
	uint64_t now, raw, boot, coarse, local;
};

static void read_all(struct reads *p, int i)
{
	struct reads r;
	uint64_t k1, real, k2;

	r.coarse = cyclock_coarse();
	r.now = cyclock_now();
	r.raw = cyclock_raw();
	r.boot = cyclock_boottime();
	r.local = cyclock_local();
	k1 = kclock_ns(CLOCK_REALTIME);
	real = cyclock_realtime();
	k2 = kclock_ns(CLOCK_REALTIME);
	if (r.coarse > r.now)
		child_fail("call %d: cyclock_coarse() %llu ahead of cyclock_now() %llu after it", i,
			   (unsigned long long)r.coarse, (unsigned long long)r.now);
	if (r.coarse + COARSE_LAG_NS < r.now)
		child_fail("call %d: cyclock_coarse() %llu ns behind cyclock_now()", i,
			   (unsigned long long)(r.now - r.coarse));
	if (r.now < p->now || r.raw < p->raw || r.boot < p->boot || r.coarse < p->coarse ||
	    r.local < p->local)
		child_fail("call %d: a clock went back: now %lld, raw %lld, boottime %lld, coarse "
			   "%lld, local %lld ns", i, (long long)(r.now - p->now),
			   (long long)(r.raw - p->raw), (long long)(r.boot - p->boot),
			   (long long)(r.coarse - p->coarse), (long long)(r.local - p->local));
	/* Not monotonic (the system clock may be set): near the kernel's. */
	if (real + AGREE_NS < k1 || real > k2 + AGREE_NS)
		child_fail("call %d: cyclock_realtime() %llu outside [%llu, %llu]", i,
			   (unsigned long long)real, (unsigned long long)k1,
			   (unsigned long long)k2);
	*p = r;
}

/*
 * cyclock_init(CYCLOCK_INIT_COARSE) returns although the ticker cannot
 * start; after it, CALLS reads of every clock and a hundred more
 * cyclock_init(CYCLOCK_INIT_COARSE) try pthread_create() at most once
 * in all: the failure is remembered, not retried per call.
 */
static void child_coarse_tried_once(void)
{
	struct reads prev = { 0, 0, 0, 0, 0 };
	unsigned int n0, tried;
	int r;

	cyclock_init(0);
	n0 = atomic_load(&creates);
	r = cyclock_init(CYCLOCK_INIT_COARSE);
	if (r != CYCLOCK_USING_COUNTER && r != CYCLOCK_USING_KERNEL)
		child_fail("cyclock_init(CYCLOCK_INIT_COARSE) returned %d", r);
	for (int i = 0; i < CALLS && child_failures < 5; i++) {
		read_all(&prev, i);
		if (i % 1000 == 999)
			cyclock_init(CYCLOCK_INIT_COARSE);
	}
	tried = atomic_load(&creates) - n0;
	printf("%d reads of each clock, %d cyclock_init(CYCLOCK_INIT_COARSE): %u "
	       "pthread_create() calls\n", CALLS, 1 + CALLS / 1000, tried);
	if (tried > 1)
		child_fail("pthread_create() tried %u times: a ticker that could not start is "
			   "tried again", tried);
	if (tried && atomic_load(&last_error) == 0)
		child_fail("a pthread_create() succeeded behind the filter");
	if (threads() != 1)
		child_fail("%ld threads, not 1", threads());
}

static void coarse_tried_once(void **unused)
{
	(void)unused;
	run_filtered(NULL, child_coarse_tried_once);
}

/* Can this process install a filter at all?  Tried in a child. */
static bool filters_work(void)
{
	int status;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid == 0)
		_exit(no_threads_filter() ? 77 : 0);
	return pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	       WEXITSTATUS(status) == 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(counted_and_filtered),
		cmocka_unit_test(init_without_threads),
		cmocka_unit_test(coarse_tried_once),
	};

	/* qemu-user would filter its own system calls, not the guest's. */
	if (getenv("CYCLOCK_TEST_EMULATED")) {
		printf("test_no_threads: a seccomp filter under qemu-user filters qemu: skipped\n");
		return 77;
	}
	if (!filters_work()) {
		printf("test_no_threads: no seccomp filter can be installed here: skipped\n");
		return 77;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
