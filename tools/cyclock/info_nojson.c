/* SPDX-License-Identifier: MIT */
/*
 * cyclock info --json in a build without jansson (a cross build for a
 * target Debian has no jansson for, riscv64 on bookworm): compiled
 * instead of info_json.c (tools/cyclock/CMakeLists.txt).  The command
 * line refuses --json first (bench_json_supported); this is the backstop.
 */
#include "cmd.h"
#include "info.h"

int info_write_json(FILE *out, const struct info_facts *f)
{
	(void)out;
	(void)f;
	tool_error("info: --format json: this cyclock was built without jansson");
	return -1;
}
