/* SPDX-License-Identifier: MIT */
/*
 * No wait on an initialisation whose owner is gone, whoever holds its id
 * now, and none without a bound (docs/hosted.md, "fork(), signals,
 * threads").  Two cases, each in a fresh child of fork() with a watchdog:
 *  - reused: in a PID namespace of its own (root only; else skipped), a
 *    task that shares the process's memory (clone(CLONE_VM)) is stopped
 *    and killed where cyclock_init() in it holds initialisation, reaped,
 *    and its
 *    thread id handed to a new process (ns_last_pid), which lives on.
 *    cyclock_init() must take initialisation over and return on the
 *    counter well before its bound: the owner is gone by its identity,
 *    though a task with its id lives.  Tried until a kill lands while the
 *    task holds initialisation.
 *  - a read's: initialisation held under the process's id by no task (as
 *    a read's step a handler longjmped out of leaves it, which names none):
 *    cyclock_init() returns within its bound (250 ms, and less than 1 s
 *    here), on the kernel's clocks, and cyclock_get_state() says why.
 * Skipped under ThreadSanitizer, which does not know clone()'s tasks.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "internal.h"
#include "child.h"
#include "kclock.h"
#include "state.h"

#if defined(__SANITIZE_THREAD__)
#define OWNER_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define OWNER_TSAN 1
#endif
#endif

#define STACK (256 * 1024)

#if defined(__x86_64__)
#define NATIVE_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define NATIVE_AUDIT_ARCH AUDIT_ARCH_AARCH64
#elif defined(__riscv) && __riscv_xlen == 64
#define NATIVE_AUDIT_ARCH AUDIT_ARCH_RISCV64
#endif

/*
 * The owner: a filter that kills it (SECCOMP_RET_KILL_THREAD) at
 * sched_getaffinity(2), which cyclock_init(CYCLOCK_INIT_WARP_CHECK) makes
 * in its second half, holding initialisation: killed right there, as a
 * program's own filter kills a thread on a call it did not list.
 */
static int owner(void *arg)
{
#ifdef NATIVE_AUDIT_ARCH
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, NATIVE_AUDIT_ARCH, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_sched_getaffinity, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_THREAD),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = sizeof(f) / sizeof(f[0]), .filter = f };

	(void)arg;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog))
		return 77;
	cyclock_init(CYCLOCK_INIT_WARP_CHECK);
#else
	(void)arg;
#endif
	return 77; /* not killed: the warp check was not asked of the machine */
}

/* A new process with id @want, which lives until killed; its pid, or -1. */
static pid_t take_id(pid_t want)
{
	char last[16];
	int fd = open("/proc/sys/kernel/ns_last_pid", O_WRONLY | O_CLOEXEC);
	pid_t pid;

	if (fd < 0)
		return -1;
	snprintf(last, sizeof(last), "%d", (int)want - 1);
	if (write(fd, last, strlen(last)) < 0) {
		close(fd);
		return -1;
	}
	close(fd);
	pid = fork();
	if (pid == 0) {
		for (;;)
			pause();
	}
	return pid;
}

/* Whether initialisation is held (by the task). */
static bool held(void)
{
	return CYCLOCK__INIT_STATE(cyclock_atomic_load(&cyclock__host.state, CYCLOCK_SEQ_CST)) ==
	       INIT_BUSY;
}

/*
 * In a new PID namespace: the owner killed where it holds initialisation.
 * 0: passed; 1: failed; 77: cannot be tried here.
 */
static int reused_try(void)
{
	char *stack = mmap(NULL, STACK, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint64_t t0, took;
	pid_t task, other;
	int r, status;

	if (stack == MAP_FAILED)
		return 77;
	(void)cyclock__pid(); /* cached, as in any process that has read a while */
	task = clone(owner, stack + STACK, CLONE_VM | SIGCHLD, NULL);
	if (task < 0 || waitpid(task, &status, 0) != task)
		return 77;
	if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGSYS || !held()) {
		printf("reused: the owner was not killed holding initialisation (the counter, or "
		       "its warp check, not asked for here): skipped\n");
		return 77;
	}
	if ((other = take_id(task)) != task) {
		printf("reused: the id %d went to %d, not to a new task\n", (int)task, (int)other);
		if (other > 0)
			kill(other, SIGKILL);
		return 77;
	}
	t0 = kclock_ns(CLOCK_MONOTONIC);
	r = cyclock_init(0);
	took = kclock_ns(CLOCK_MONOTONIC) - t0;
	kill(other, SIGKILL);
	printf("reused: the dead owner's id %d held by a new task: cyclock_init() returned %s "
	       "after %.1f ms\n", (int)task, r == CYCLOCK_USING_COUNTER ? "on the counter" : "on the kernel's clocks",
	       (double)took / 1e6);
	if (r != CYCLOCK_USING_COUNTER || took > 200 * 1000000ull) {
		printf("reused: not taken over (the bound, 250 ms, ended the wait, or nothing did)\n");
		return 1;
	}
	return 0;
}

static int case_reused(void)
{
	pid_t pid;

	if (geteuid() != 0) {
		printf("reused: a PID namespace takes root: skipped\n");
		return 77;
	}
	fflush(stdout);
	if ((pid = fork()) == 0) {
		if (unshare(CLONE_NEWPID)) {
			printf("reused: unshare(CLONE_NEWPID): %s: skipped\n", strerror(errno));
			_exit(77);
		}
		if ((pid = fork()) == 0) { /* pid 1 of the namespace, which takes no SIGALRM */
			if ((pid = fork()) == 0) {
				alarm(5);
				_exit(reused_try());
			}
			int s = child_wait(pid, "the try");

			_exit(s < 0 ? 1 : s);
		}
		int s = child_wait(pid, "pid 1 of the namespace");

		_exit(s < 0 ? 1 : s);
	}
	return child_wait(pid, "the namespace's parent");
}

/* Initialisation held, as a read's step left it: bounded, and said. */
static int case_a_reads(void)
{
	pid_t pid;

	fflush(stdout);
	if ((pid = fork()) == 0) {
		uint64_t t0, took;
		struct cyclock_state st;
		int r;

		alarm(10);
		cyclock_atomic_store(&cyclock__host.state,
				     INIT_BUSY | ((uint64_t)getpid() & 0x3fffff) << 4, CYCLOCK_SEQ_CST);
		t0 = kclock_ns(CLOCK_MONOTONIC);
		r = cyclock_init(0);
		took = kclock_ns(CLOCK_MONOTONIC) - t0;
		st = state_now();
		printf("a read's: cyclock_init() returned after %.1f ms: %s\n", (double)took / 1e6,
		       st.why);
		if (r != CYCLOCK_USING_KERNEL || took < 200 * 1000000ull || took > 1000000000ull ||
		    !strstr(st.why, "did not finish"))
			child_fail("not bounded, or not said");
		_exit(child_failures ? 1 : 0);
	}
	return child_wait(pid, "a read's");
}

int main(void)
{
	int a, b;

#ifdef OWNER_TSAN
	printf("test_owner_reuse: ThreadSanitizer does not know clone()'s tasks: skipped\n");
	return 77;
#endif
	setvbuf(stdout, NULL, _IONBF, 0); /* the children _exit() */
	a = case_a_reads();
	b = case_reused();
	if (a < 0 || b < 0 || (a && a != 77) || (b && b != 77))
		return 1;
	return a == 77 && b == 77 ? 77 : 0;
}
