/* SPDX-License-Identifier: MIT */
/*
 * cyclock info --format prometheus|openmetrics: the facts of info.h as
 * metrics, for a fleet's monitoring.  Two flavours of one list:
 *   prometheus   the Prometheus text format 0.0.4, which node_exporter's
 *                textfile collector parses (it has no "info" type, no
 *                "# UNIT" and no "# EOF"), and promtool check metrics lints
 *   openmetrics  OpenMetrics 1.0: "info" families, "# UNIT", "# EOF"
 * The sample names are the same in both.  Base units only (_seconds,
 * _hertz, _ratio).  The library's facts are this process's status block's,
 * written by block_out.c under the names cyclock status gives another
 * process's; every count is what this cyclock info process saw since its
 * own initialisation, a fresh process each run: gauges, since a counter
 * would reset at every run (cyclock status writes them as counters).
 * Label values are escaped (metrics.c).
 *
 * Tests: tests/tool/cli/test_info.sh, test_one_name.sh.
 */
#define _GNU_SOURCE
#include <stdio.h>

#include "block_out.h"
#include "cmd.h"
#include "info.h"
#include "metrics.h"

/* An info family of one sample, value 1. */
static void info(const struct metrics_out *o, const char *name, const char *help,
		 const char *const *labels)
{
	char sname[64];

	metrics_family(o, name, "info", NULL, help);
	snprintf(sname, sizeof(sname), "%s_info", name);
	metrics_sample(o, sname, labels, 1);
}

static void write_machine(const struct metrics_out *o, const struct bench_context *ctx)
{
	char avail[sizeof(ctx->clocksources)];
	size_t n = (size_t)snprintf(avail, sizeof(avail), "%s", ctx->clocksources);
	const char *cs[] = { "clocksource", ctx->clocksource, "available", avail, NULL };
	const char *m[] = { "cpu_model", ctx->cpu_model, "arch", ctx->arch, "virtualization",
			    ctx->virtualization, "kernel", ctx->kernel, NULL };

	while (n > 0 && avail[n - 1] == ' ') /* sysfs ends the list with a space */
		avail[--n] = '\0';
	info(o, "cyclock_clocksource", "The kernel's clocksource now, and those available.", cs);
	info(o, "cyclock_machine", "The CPU model, architecture, hypervisor and kernel.", m);
}

static void write_steps_costs(const struct metrics_out *o, const struct info_facts *f)
{
	if (f->n_steps)
		metrics_family(o, "cyclock_resolution_step_seconds", "gauge", "seconds",
			       "The median step between back-to-back readings of a clock (quick "
			       "resolution scenario).");
	for (size_t i = 0; i < f->n_steps; i++) {
		const char *l[] = { "clock", f->steps[i].clock, NULL };

		metrics_sample(o, "cyclock_resolution_step_seconds", l, f->steps[i].step_ns / 1e9);
	}
	if (!f->have_costs)
		return;
	metrics_family(o, "cyclock_read_cost_seconds", "gauge", "seconds",
		       "What one read of a clock costs, back to back (the median of the quick "
		       "warm scenario's repetitions; --bench).");
	for (size_t i = 0; i < f->n_costs; i++) {
		const char *l[] = { "clock", f->costs[i].clock, NULL };

		metrics_sample(o, "cyclock_read_cost_seconds", l, f->costs[i].ns / 1e9);
	}
}

int info_write_metrics(FILE *out, const struct info_facts *f, enum info_format fmt)
{
	struct metrics_out o = { .f = out, .om = fmt == INFO_OPENMETRICS };
	const struct block_series own = { .b = &f->own };
	const char *build[] = { "version", f->ctx.version, "build_type", f->ctx.build_type,
				NULL };

	info(&o, "cyclock_build", "The cyclock tool that wrote these metrics.", build);
	block_metrics(&o, &own, 1, false);
	write_machine(&o, &f->ctx);
	write_steps_costs(&o, f);
	if (o.om)
		fputs("# EOF\n", out);
	if (ferror(out)) {
		tool_error("info: out of memory");
		return -1;
	}
	return 0;
}
