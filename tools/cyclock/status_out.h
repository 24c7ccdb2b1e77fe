/* SPDX-License-Identifier: MIT */
/*
 * cyclock status's writing side: the text and Prometheus's format
 * (cmd_status.c) and JSON (status_json.c, or status_nojson.c in a build
 * without jansson) say the same facts of the blocks status_read.c read,
 * in status_out.c's words.
 */
#ifndef CYCLOCK_TOOL_STATUS_OUT_H
#define CYCLOCK_TOOL_STATUS_OUT_H

#include <stdio.h>

#include "status_read.h"

/* The preload's served clocks as "realtime,monotonic,...". */
void status_served(uint32_t served, char *buf, size_t len);
/* "library", "preload" or "preload-relaxed". */
const char *status_mode(const struct cyclock_status *st);
/* "counter", "kernel" or "not-initialised". */
const char *status_clocks(const struct cyclock_status *st);
/* Seconds since the last resync's sample (CLOCK_MONOTONIC); -1: none. */
double status_age_s(const struct cyclock_status_counts *c);
/* @n processes' blocks as one JSON array to @out; 0, or -1 after one line why. */
int status_write_json(FILE *out, const struct status_of *ps, size_t n);

#endif /* CYCLOCK_TOOL_STATUS_OUT_H */
