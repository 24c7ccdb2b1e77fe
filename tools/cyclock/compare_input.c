/* SPDX-License-Identifier: MIT */
/*
 * One input of "cyclock compare": its run loaded, its names sorted, and a
 * benchmark looked up by name.  cmd_compare.c loads the files and
 * compare_table.c looks results up, each calling in here.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "cmd.h"
#include "compare.h"

static int cmp_result(const void *a, const void *b)
{
	const struct bench_result *x = *(const struct bench_result *const *)a;
	const struct bench_result *y = *(const struct bench_result *const *)b;

	return strcmp(x->name, y->name);
}

const struct bench_result *tool_compare_lookup(const struct input *in, const char *name)
{
	struct bench_result key;
	const struct bench_result *k = &key, **hit;

	snprintf(key.name, sizeof(key.name), "%s", name);
	hit = bsearch(&k, in->sorted, in->run.n, sizeof(*in->sorted), cmp_result);
	return hit ? *hit : NULL;
}

int tool_compare_load(struct input *in)
{
	char err[512];

	bench_run_init(&in->run);
	if (bench_read_json(in->path, &in->run, err, sizeof(err))) {
		tool_error("%s", err);
		return -1;
	}
	in->sorted = malloc(in->run.n * sizeof(*in->sorted));
	if (!in->sorted) {
		tool_error("%s: out of memory", in->path);
		return -1;
	}
	for (size_t i = 0; i < in->run.n; i++)
		in->sorted[i] = &in->run.v[i];
	qsort(in->sorted, in->run.n, sizeof(*in->sorted), cmp_result);
	return 0;
}
