/* SPDX-License-Identifier: MIT */
/*
 * What the JSON reader's steps share (json_read.h): the error line, the
 * cleaned copy of a string, optional string fields and Google Benchmark's
 * time units.  A file of its own, so that json_read.c calls the steps and
 * the steps call in here, never back into json_read.c.
 */
#include <jansson.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "bench.h"
#include "json_read.h"

int bench__json_fail(struct reader *rd, const char *fmt, ...)
{
	char raw[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(raw, sizeof(raw), fmt, ap);
	va_end(ap);
	/* Quoted input (jansson's "near '...'", a run_type) may hold line
	 * breaks or escape sequences; the error is one line, safe to print. */
	bench_text_clean(rd->err, rd->errlen, raw);
	return -1;
}

/* Copies @s into @dst, cleaned (bench_text_clean()): what the reader
 * stores is printed to terminals and written to SVG files. */
void bench__json_copy_str(char *dst, size_t size, const char *s)
{
	bench_text_clean(dst, size, s);
}

const char *bench__json_opt_str(const json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

/* Google Benchmark's time units, in ns; 0 for an unknown one. */
double bench__json_unit_ns(const char *unit)
{
	static const struct { const char *name; double ns; } units[] = {
		{ "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 },
	};

	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (strcmp(unit, units[i].name) == 0)
			return units[i].ns;
	return 0;
}
