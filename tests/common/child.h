/* SPDX-License-Identifier: MIT */
/*
 * For the hosted tests whose checks run in a child of fork():
 * child_fail() says on stdout what is wrong and counts it, and the child
 * exits non-zero if child_failures is.  Header-only: each test is one
 * program.
 */
#ifndef CYCLOCK_TEST_CHILD_H
#define CYCLOCK_TEST_CHILD_H

#include <stdarg.h>
#include <stdio.h>

static int child_failures;

__attribute__((format(printf, 1, 2))) static inline void child_fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	printf("child: ");
	vprintf(fmt, ap);
	printf("\n");
	va_end(ap);
	child_failures++;
}

#endif /* CYCLOCK_TEST_CHILD_H */
