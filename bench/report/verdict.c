/* SPDX-License-Identifier: MIT */
/*
 * The verdict after the default run's tables (bench.h): what a person
 * reads first, in at most ten lines.  It derives nothing: each ratio is
 * the x vDSO (or x floor) cell of a row the tables above show, formatted
 * as they format it, and the counter's trust and ordered read are the
 * library's own record (cyclock_get_state()), as "cyclock info" says them.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <cyclock.h>

#include "bench.h"

/* One line: @label, then row @name's extra @key as the table shows it,
 * then where it comes from (@column: the table's column, if not x vDSO);
 * nothing when the run lacks it. */
static void ratio_line(FILE *f, const struct bench_run *run, const char *label,
		       const char *name, const char *key, const char *column)
{
	const struct bench_result *r = bench_run_find(run, name);
	double v = r ? bench_result_get(r, key) : NAN;
	char ratio[32];

	if (isnan(v) || isinf(v))
		return;
	bench_fmt_ratio(ratio, sizeof(ratio), v);
	fprintf(f, "  %-32s %6s  (%s%s)\n", label, ratio, column ? column : "", name);
}

/* The name of the last sparse row of cyclock_now whose gap is of @kind
 * ("idle", "busy"): the longest such gap, as sparse runs them in order. */
static const char *last_gap(const struct bench_run *run, const char *kind)
{
	const char *name = NULL;
	size_t len = strlen(kind);

	for (size_t i = 0; i < run->n; i++) {
		const struct bench_result *r = &run->v[i];

		if (!strcmp(r->scenario, "sparse") && !strcmp(r->clock, "cyclock_now") &&
		    !strncmp(r->variant, kind, len) && r->variant[len] == ':')
			name = r->name;
	}
	return name;
}

/* cyclock_now()'s x vDSO after the longest gap of @kind in the run. */
static void gap_line(FILE *f, const struct bench_run *run, const char *kind, const char *how)
{
	const char *name = last_gap(run, kind);
	const char *gap = name ? strrchr(name, ':') : NULL;
	char label[64];

	if (!gap)
		return;
	snprintf(label, sizeof(label), "cyclock_now() after %s %s", gap + 1, how);
	ratio_line(f, run, label, name, "x_monotonic", NULL);
}

/* Whether the counter is trusted and why, from the library's record. */
static void counter_line(FILE *f, const struct cyclock_state *in)
{
	if (in->using_counter != CYCLOCK_USING_COUNTER) {
		fprintf(f, "  %-13s %s, not trusted: %s; cyclock serves the kernel's clocks\n",
			"counter", in->counter, in->why);
		return;
	}
	fprintf(f, "  %-13s %s, trusted: %.6f MHz, first %s", "counter", in->counter,
		in->hz / 1e6, in->hz_source);
	if (in->warp_ran && in->warp_cyc == 0)
		fprintf(f, "; no step back between CPUs in %llu turns",
			(unsigned long long)in->warp_turns);
	else if (in->warp_ran && in->warp_cyc > 0)
		fprintf(f, "; %lld ticks back between CPUs in %llu turns",
			(long long)in->warp_cyc, (unsigned long long)in->warp_turns);
	fprintf(f, "; %lld ns from CLOCK_MONOTONIC at the last resync\n",
		(long long)in->last_err_ns);
}

/* The ordered read chosen, and each bare ordered read's warm x floor. */
static void ordered_line(FILE *f, const struct bench_run *run, const struct cyclock_state *in)
{
	fprintf(f, "  %-13s %s: %s\n", "ordered read", in->ordered, in->ordered_why);
	ratio_line(f, run, "rdtscp warm", "warm/rdtscp/throughput", "x_floor", "x floor: ");
	ratio_line(f, run, "lfence;rdtsc warm", "warm/lfence_rdtsc/throughput", "x_floor",
		   "x floor: ");
}

void bench_report_verdict(FILE *f, const struct bench_run *run)
{
	struct cyclock_state in = { .version = CYCLOCK_STATE_VERSION };

	fputs("verdict: x clock_gettime(CLOCK_MONOTONIC), the tables' x vDSO\n", f);
	ratio_line(f, run, "cyclock_now() warm", "warm/cyclock_now/throughput", "x_monotonic",
		   NULL);
	gap_line(f, run, "idle", "asleep");
	gap_line(f, run, "busy", "of work");
	ratio_line(f, run, "cyclock_now() cold", "cold/cyclock_now", "x_monotonic", NULL);
	ratio_line(f, run, "cyclock_now_relaxed() warm", "warm/cyclock_now_relaxed/throughput",
		   "x_monotonic", NULL);
	cyclock_get_state(&in);
	counter_line(f, &in);
	if (in.using_counter == CYCLOCK_USING_COUNTER)
		ordered_line(f, run, &in);
}
