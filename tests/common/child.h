/* SPDX-License-Identifier: MIT */
/*
 * For the tests whose checks run in a child of fork(): child_fail() says on
 * stdout what is wrong and counts it, and the child exits non-zero if
 * child_failures is; child_wait() is the parent's side.  Header-only: each
 * test is one program.
 */
#ifndef CYCLOCK_TEST_CHILD_H
#define CYCLOCK_TEST_CHILD_H

#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

__attribute__((unused)) static int child_failures;

__attribute__((format(printf, 1, 2))) static inline void child_fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	printf("child %d: ", (int)getpid());
	vprintf(fmt, ap);
	printf("\n");
	va_end(ap);
	child_failures++;
}

/*
 * Waits for child @pid of fork(): its exit status, or -1 having said why on
 * stdout, after @who: waitpid() failed, or a signal killed it (SIGALRM: the
 * child's watchdog, a hang).
 */
static inline int child_wait(pid_t pid, const char *who)
{
	int status;

	if (waitpid(pid, &status, 0) != pid) {
		printf("%s: waitpid failed\n", who);
		return -1;
	}
	if (WIFSIGNALED(status)) {
		printf("%s: killed by signal %d%s\n", who, WTERMSIG(status),
		       WTERMSIG(status) == SIGALRM ? " (the watchdog: it hung)" : "");
		return -1;
	}
	return WEXITSTATUS(status);
}

/* A child's exit status when it could not exec this program again as a
 * fresh process: qemu-user, which runs a cross build's tests, cannot exec
 * a program of its guest's where binfmt_misc does not name it.  A test
 * that needs one skips. */
#define CHILD_NO_EXEC 76

#endif /* CYCLOCK_TEST_CHILD_H */
