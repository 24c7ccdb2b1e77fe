/* SPDX-License-Identifier: MIT */
/*
 * Out of memory while reading a valid run file is "out of memory", never
 * "not JSON: ... invalid token": jansson says nothing of the cause when a
 * malloc() inside its parser fails (its lexer reports the token it could
 * not store), so the reader must watch its allocations itself.  Every
 * allocation jansson makes while reading a stored run fails in turn, once
 * alone and then with every one after it (as under "ulimit -v"); each read
 * must succeed or say "out of memory".  Deterministic: the Nth allocation,
 * not a memory limit, fails.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

static long calls, fail_at;
static int fail_after; /* also every allocation after the failing one */

static void *failing_malloc(size_t n)
{
	calls++;
	if (calls == fail_at || (fail_after && calls > fail_at))
		return NULL;
	return malloc(n);
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	long n;

	if (f && fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0 &&
	    (buf = malloc((size_t)n)) && fread(buf, 1, (size_t)n, f) == (size_t)n)
		*len = (size_t)n;
	else
		free(buf), buf = NULL;
	if (f)
		fclose(f);
	return buf;
}

/* One sweep over every allocation; the number of reads that failed. */
static long sweep(const char *buf, size_t len, const char *name)
{
	long failed = 0;

	for (fail_at = 1;; fail_at++) {
		struct bench_run run;
		char err[512];
		int rc;

		calls = 0;
		bench_run_init(&run);
		rc = bench_parse_json(buf, len, &run, err, sizeof(err));
		bench_run_free(&run);
		if (rc && strcmp(err, "out of memory")) {
			printf("FAIL: %s: allocation %ld of %ld failed%s: '%s', not 'out of memory'\n",
			       name, fail_at, calls, fail_after ? " (and all after)" : "", err);
			exit(1);
		}
		failed += rc != 0;
		if (calls < fail_at) /* every allocation done: the sweep is over */
			return failed;
	}
}

int main(void)
{
	const char *dir = getenv("CYCLOCK_TEST_DATA");
	char path[4096];
	char *buf;
	size_t len = 0;
	long failed;

	snprintf(path, sizeof(path), "%s/compare_base.json", dir ? dir : ".");
	buf = slurp(path, &len);
	if (!buf) {
		printf("FAIL: cannot read %s\n", path);
		return 1;
	}
	json_set_alloc_funcs(failing_malloc, free);
	for (fail_after = 0; fail_after <= 1; fail_after++) {
		failed = sweep(buf, len, path);
		printf("%s: %ld allocations, each failing%s: %ld reads said out of memory\n", path,
		       calls, fail_after ? " with all after it" : " alone", failed);
		if (failed == 0) {
			printf("FAIL: no read failed: the allocator was not jansson's\n");
			return 1;
		}
	}
	free(buf);
	return 0;
}
