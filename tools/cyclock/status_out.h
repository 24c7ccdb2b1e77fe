/* SPDX-License-Identifier: MIT */
/*
 * cyclock status's JSON (status_json.c, or status_nojson.c in a build
 * without jansson): the blocks status_read.c read, each an object of
 * block_json.c's keys with the process's own.  The text and the metrics
 * are cmd_status.c's, over block_out.c.
 */
#ifndef CYCLOCK_TOOL_STATUS_OUT_H
#define CYCLOCK_TOOL_STATUS_OUT_H

#include <stdio.h>

#include "status_read.h"

/* @n processes' blocks as one JSON array to @out; 0, or -1 after one line why. */
int status_write_json(FILE *out, const struct status_of *ps, size_t n);

#endif /* CYCLOCK_TOOL_STATUS_OUT_H */
