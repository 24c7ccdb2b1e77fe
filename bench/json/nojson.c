/* SPDX-License-Identifier: MIT */
/*
 * JSON in a build without jansson: a cross build for a target Debian has
 * no jansson for (riscv64 on bookworm).  The tool still measures and
 * prints its tables; asked to write or read JSON, it says why it cannot.
 * Compiled instead of report/json.c and the reader in json/ (bench/CMakeLists.txt).
 */
#include <stdio.h>

#include "bench.h"

static const char why[] = "this cyclock was built without jansson: no JSON";

const bool bench_json_supported = false;

int bench_write_json(const char *path, const struct bench_run *run)
{
	(void)run;
	bench_error("%s: %s", path, why);
	return -1;
}

int bench_read_json(const char *path, struct bench_run *run, char *err, size_t errlen)
{
	(void)run;
	snprintf(err, errlen, "%s: %s", path, why);
	return -1;
}

int bench_parse_json(const char *buf, size_t len, struct bench_run *run, char *err,
		     size_t errlen)
{
	(void)buf;
	(void)len;
	(void)run;
	snprintf(err, errlen, "%s", why);
	return -1;
}
