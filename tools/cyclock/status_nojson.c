/* SPDX-License-Identifier: MIT */
/*
 * cyclock status --json in a build without jansson: compiled instead of
 * status_json.c, as info_nojson.c is.  The command line refuses --json
 * first (bench_json_supported); this is the backstop.
 */
#include "cmd.h"
#include "status_out.h"

int status_write_json(FILE *out, const struct status_of *ps, size_t n)
{
	(void)out;
	(void)ps;
	(void)n;
	tool_error("status: --format json: this cyclock was built without jansson");
	return -1;
}
