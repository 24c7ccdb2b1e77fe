/* SPDX-License-Identifier: MIT */
/*
 * A status block's facts (status_read.h's view, either version) written
 * in one place for every command and format, each fact under one name:
 * the text's lines, a JSON object's keys (block_json.c, a build with
 * jansson) and Prometheus families (block_out.c).  cyclock status writes
 * the blocks of other processes with theirs (pid, command, object);
 * cyclock info its own process's with what only it has (docs/tool.md
 * names both).  A fact version 1 lacks (status_has_v2()) is absent from
 * every format, never a zero that looks real.
 */
#ifndef CYCLOCK_TOOL_BLOCK_OUT_H
#define CYCLOCK_TOOL_BLOCK_OUT_H

#include <stdbool.h>
#include <stdio.h>

#include "metrics.h"
#include "status_read.h"

/* ---- the words ---- */

/* The preload's served clocks as "realtime,monotonic,...". */
void block_served(uint32_t served, char *buf, size_t len);
/* "library", "preload" or "preload-relaxed". */
const char *block_mode(const struct status_block *b);
/* "counter", "kernel" or "not-initialised". */
const char *block_clocks(const struct status_block *b);
/* Initialised, on the counter; and with counts a resync wrote. */
bool block_on_counter(const struct status_block *b);
bool block_has_counts(const struct status_block *b);
/* Seconds since the last resync's sample (CLOCK_MONOTONIC); -1: none. */
double block_age_s(const struct cyclock_status_counts *c);

/* ---- the formats ---- */

/* The block's lines, each @indent then a label padded to column 16; @pid
 * the process read (the counts' writer is named when another). */
void block_text(FILE *o, const struct status_block *b, const char *indent, long pid);

/* One block's samples and their labels: @labels (NULL-terminated pairs,
 * or NULL) on every sample, @info_labels too on cyclock_library_info. */
struct block_series {
	const struct status_block *b;
	const char *const *labels;
	const char *const *info_labels;
};

/* The families of @n blocks' facts, each once with the samples of every
 * block that has it; the counts as counters (_total) when @counters,
 * else as gauges (cyclock info: a fresh process each run). */
void block_metrics(const struct metrics_out *o, const struct block_series *v, size_t n,
		   bool counters);

/* Sets the block's keys in the JSON object @o (a json_t); 0, or -1 when
 * out of memory.  In a build with jansson only. */
struct json_t;
int block_json(struct json_t *o, const struct status_block *b);

#endif /* CYCLOCK_TOOL_BLOCK_OUT_H */
