/* SPDX-License-Identifier: MIT */
/*
 * What the readable table's two files share: a group's columns, chosen
 * in columns.c from what the group's results carry, then measured,
 * fitted and printed in table.c.
 */
#ifndef CYCLOCK_BENCH_REPORT_TABLE_H
#define CYCLOCK_BENCH_REPORT_TABLE_H

#include <stdbool.h>

#include "bench.h"

#define MAX_COLS (8 + BENCH_MAX_EXTRA * 2)

/* FMT_COST: a cost in ns measured as a difference, shown as "~0" when
 * within the noise its result carries as KEY's "_noise_ns" twin. */
enum fmt { FMT_NS, FMT_COUNT, FMT_PCT, FMT_RATIO, FMT_NUM, FMT_TENTHS, FMT_TEXT, FMT_COST };
enum src { SRC_NAME, SRC_MEDIAN, SRC_MIN, SRC_P90, SRC_P99, SRC_SPREAD, SRC_EXTRA, SRC_NOTE };

struct col {
	char head[40];
	enum src src;
	const char *key; /* SRC_EXTRA: the extra's key */
	enum fmt fmt;
	int drop;        /* 0: always kept; else shed when too wide, highest first */
	bool right;      /* right-aligned (numbers) */
	bool mark;       /* SRC_MEDIAN: some row is noisy, so every cell gets a mark */
	int width;
};

struct table {
	const struct bench_run *run;
	const char *scenario;
	struct col cols[MAX_COLS];
	int n_cols;
};

/* What a scenario's primary figure is, for its heading and first column. */
struct scenario_text {
	const char *name, *what, *primary;
	bool p99; /* its tail matters as much as its middle */
};

/* What the group's results have in common, for choosing its columns. */
struct group_facts {
	bool repeated;  /* some result has more than one sample: min and p90 mean something */
	bool noisy;
	bool notes;
	bool all_clocks; /* every result is one clock's */
	bool higher;     /* every result's primary figure is better higher */
};

/* columns.c: the text of scenario @name, or NULL for one this
 * file does not know. */
const struct scenario_text *bench__table_scenario_text(const char *name);
/* Whether @r belongs to @t's group (its scenario). */
bool bench__table_in_group(const struct table *t, const struct bench_result *r);
/* Whether @t has a column for extra @key. */
bool bench__table_has_col(const struct table *t, const char *key);
void bench__table_group_facts(const struct table *t, struct group_facts *g);
/* @t's columns for its scenario's group, before widths are known. */
void bench__table_choose_cols(struct table *t);

#endif /* CYCLOCK_BENCH_REPORT_TABLE_H */
