/* SPDX-License-Identifier: MIT */
/*
 * How bench/ says what went wrong: one line, handed to the function the
 * program linking it set (the tool prefixes its name), since a library
 * knows no program name.  Without one, the line goes to stderr as it is.
 */
#include <stdarg.h>
#include <stdio.h>

#include "bench.h"

static bench_error_fn *error_fn;

void bench_set_error(bench_error_fn *fn)
{
	error_fn = fn;
}

void bench_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (error_fn) {
		error_fn(fmt, ap);
	} else {
		vfprintf(stderr, fmt, ap);
		fputc('\n', stderr);
	}
	va_end(ap);
}
