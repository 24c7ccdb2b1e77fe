/* SPDX-License-Identifier: MIT */
/*
 * cyclock info's facts, gathered once by cmd_info.c and written by one
 * of its formats: the text (cmd_info.c), JSON (info_json.c, or
 * info_nojson.c in a build without jansson) and the Prometheus and
 * OpenMetrics text formats (info_metrics.c).  Every format says the same
 * facts; docs/tool.md names them, docs/schemas/info.schema.json is the
 * JSON's schema.  What the library decided and did is the process's own
 * status block, read as cyclock status reads another's and written by the
 * same code (block_out.h) under the same names; the rest is info's own.
 */
#ifndef CYCLOCK_TOOL_INFO_H
#define CYCLOCK_TOOL_INFO_H

#include <stdbool.h>
#include <stdio.h>

#include <cyclock.h>

#include "bench.h"
#include "status_read.h"

/* The counter's measured step and the clocks on it: the quick resolution
 * scenario on the floor, cyclock_now and the vDSO. */
struct info_step {
	const char *clock;  /* "rdtsc", "cyclock_now", "monotonic" */
	double step_ns;     /* the median step between back-to-back readings */
	double min_ns;      /* the smallest */
	double claimed_ns;  /* what clock_getres() (or the counter's rate) says */
	double ticks;       /* step_ns in counter ticks, or -1 for a clock in ns */
};

/* What one read costs (--bench): the quick warm scenario, back to back. */
struct info_cost {
	const char *clock;  /* "cyclock_now", "ordered_ns", "monotonic" */
	double ns;          /* the median over the repetitions */
};

struct info_facts {
	struct cyclock_state in;     /* the live segment's mult, shift, raw_mult */
	struct status_block own;     /* this process's status block */
	struct bench_context ctx;
	const char *describe;        /* cyclock_describe() */
	bool trusted;                /* in.using_counter == CYCLOCK_USING_COUNTER */
	bool have_engine;            /* the engine could register the counter */
	char engine[160];            /* cyclock_format_summary() */
	double engine_update_ns;     /* cyclock_wrap_ns() */
	double overflow_s;           /* how long mult * ticks fits 64 bits */
	double wrap_s;               /* how long the 64-bit counter takes to wrap */
	struct info_step steps[4];
	size_t n_steps;
	bool have_costs;             /* --bench ran */
	struct info_cost costs[4];
	size_t n_costs;
};

enum info_format {
	INFO_TEXT,
	INFO_JSON,
	INFO_PROMETHEUS,  /* the Prometheus text format 0.0.4: node_exporter's textfile */
	INFO_OPENMETRICS, /* OpenMetrics 1.0 text */
};

/* Writes @f's facts in @fmt (INFO_PROMETHEUS or INFO_OPENMETRICS) to
 * @out; 0, or -1 when writing failed. */
int info_write_metrics(FILE *out, const struct info_facts *f, enum info_format fmt);
/* Writes @f's facts as one JSON object to @out; 0, or -1 after printing
 * one line why (out of memory, or a build without jansson). */
int info_write_json(FILE *out, const struct info_facts *f);

#endif /* CYCLOCK_TOOL_INFO_H */
