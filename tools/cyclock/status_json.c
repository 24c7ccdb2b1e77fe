/* SPDX-License-Identifier: MIT */
/*
 * cyclock status --json: one array, an object per block found (a process
 * may map the library and the preload), as the schema
 * docs/schemas/status.schema.json says: the process's pid, command and
 * the object that holds the block, then the block's keys, block_json.c's,
 * which cyclock info --json has too.  Built with jansson; status_nojson.c
 * without.  Tests: tests/tool/cli/test_status.sh, test_status_hostile.sh.
 */
#include <jansson.h>

#include "block_out.h"
#include "cmd.h"
#include "report/json_put.h"
#include "status_out.h"

/* One block: the process's keys, then the block's (block_json.c). */
static json_t *block(const struct status_of *p, const struct status_block *b)
{
	json_t *o = json_object();
	int err = !o;

	err |= bench_json_put_int(o, "pid", p->pid);
	err |= bench_json_put(o, "command", bench_json_str(p->comm));
	err |= bench_json_put(o, "object", bench_json_str(b->object));
	err |= block_json(o, b);
	return err ? (json_decref(o), NULL) : o;
}

int status_write_json(FILE *out, const struct status_of *ps, size_t n)
{
	json_t *a = json_array();
	int err = !a;

	for (size_t i = 0; i < n && !err; i++)
		for (size_t j = 0; j < ps[i].n && !err; j++)
			err |= json_array_append_new(a, block(&ps[i], &ps[i].blocks[j]));
	if (!err)
		err |= json_dumpf(a, out, JSON_INDENT(2)) || fputc('\n', out) == EOF;
	json_decref(a);
	if (err) {
		tool_error("status: --format json: out of memory, or a write failed");
		return -1;
	}
	return 0;
}
