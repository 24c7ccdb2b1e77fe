/* SPDX-License-Identifier: MIT */
/*
 * What "cyclock compare" shares between its files: cmd_compare.c parses
 * the command line and labels the inputs, compare_input.c loads each and
 * looks its results up, compare_table.c builds the comparison from them
 * and prints it.
 */
#ifndef CYCLOCK_TOOL_COMPARE_H
#define CYCLOCK_TOOL_COMPARE_H

#include <stddef.h>

#include "bench.h"

#define LABEL_MAX 24 /* a column header's width at most, in terminal columns */

/* One file: its run, its column header and its names sorted for lookup.
 * A header of LABEL_MAX columns takes up to 4 bytes a column (one
 * character of U+10000 and up in each). */
struct input {
	const char *path;
	char label[4 * LABEL_MAX + 1];
	struct bench_run run;
	const struct bench_result **sorted;
};

/* compare_input.c: loads @in->path into @in (its run, its names sorted);
 * 0, or -1 after saying why. */
int tool_compare_load(struct input *in);
/* compare_input.c: @in's result called @name, or NULL when it has none. */
const struct bench_result *tool_compare_lookup(const struct input *in, const char *name);

/* compare_table.c: prints the context that differs, the table and its
 * legend for the @n files @in, the first being the base; 0, or -1 after
 * saying why. */
int tool_compare_report(const struct input *in, size_t n, double threshold);

#endif /* CYCLOCK_TOOL_COMPARE_H */
