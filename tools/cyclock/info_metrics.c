/* SPDX-License-Identifier: MIT */
/*
 * cyclock info --format prometheus|openmetrics: the facts of info.h as
 * metrics, for a fleet's monitoring.  Two flavours of one list:
 *   prometheus   the Prometheus text format 0.0.4, which node_exporter's
 *                textfile collector parses (it has no "info" type, no
 *                "# UNIT" and no "# EOF"), and promtool check metrics lints
 *   openmetrics  OpenMetrics 1.0: "info" families, "# UNIT", "# EOF"
 * The sample names are the same in both.  Base units only (_seconds,
 * _hertz, _ratio).  Every count is what this cyclock info process saw
 * since its own initialisation, a fresh process each run: gauges, since
 * a counter would reset at every run.  Label values are escaped
 * (backslash, double quote, newline) and made valid UTF-8.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "info.h"

struct out {
	FILE *f;
	bool om; /* OpenMetrics, else Prometheus 0.0.4 */
};

/* @s as a label value: backslash, double quote and newline escaped, bytes
 * that are not UTF-8 (a CPU model is not promised to be) as '?'. */
void metrics_put_label(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	while (*p) {
		size_t n = bench_text_char_len((const char *)p); /* 1 where none starts */

		if (*p == '\\' || *p == '"')
			fprintf(f, "\\%c", *p);
		else if (*p == '\n')
			fputs("\\n", f);
		else if (n == 1 && *p >= 0x80)
			fputc('?', f);
		else
			fwrite(p, 1, n, f);
		p += n;
	}
}

/*
 * A family's metadata.  @type is "gauge" or "info"; an info family @name
 * is written as OpenMetrics wants it (the family "cyclock_build", its
 * sample "cyclock_build_info") and as a gauge "cyclock_build_info" for
 * Prometheus.  @unit: OpenMetrics' "# UNIT" (the name ends in it), or NULL.
 */
static void family(struct out *o, const char *name, const char *type, const char *unit,
		   const char *help)
{
	bool info = !strcmp(type, "info");

	if (o->om) {
		fprintf(o->f, "# TYPE %s %s\n", name, type);
		if (unit)
			fprintf(o->f, "# UNIT %s %s\n", name, unit);
		fprintf(o->f, "# HELP %s %s\n", name, help);
		return;
	}
	fprintf(o->f, "# HELP %s%s %s\n", name, info ? "_info" : "", help);
	fprintf(o->f, "# TYPE %s%s gauge\n", name, info ? "_info" : "");
}

/* One sample: @name{@labels} @v, @labels being NULL-terminated pairs of
 * name and value (or NULL for none).  A value that is not finite (a
 * figure that was not measured) is left out. */
static void sample(struct out *o, const char *name, const char *const *labels, double v)
{
	if (!isfinite(v))
		return;
	fputs(name, o->f);
	for (size_t i = 0; labels && labels[i]; i += 2) {
		fprintf(o->f, "%s%s=\"", i ? "," : "{", labels[i]);
		metrics_put_label(o->f, labels[i + 1]);
		fputc('"', o->f);
	}
	fprintf(o->f, "%s %.15g\n", labels && labels[0] ? "}" : "", v);
}

/* A family of one unlabelled gauge. */
static void gauge(struct out *o, const char *name, const char *unit, const char *help, double v)
{
	family(o, name, "gauge", unit, help);
	sample(o, name, NULL, v);
}

/* An info family of one sample, value 1. */
static void info(struct out *o, const char *name, const char *help, const char *const *labels)
{
	char sname[64];

	family(o, name, "info", NULL, help);
	snprintf(sname, sizeof(sname), "%s_info", name);
	sample(o, sname, labels, 1);
}

#define SAW " seen by this cyclock info process since its own initialisation (a gauge: " \
	    "every run is a new process)."

static void write_counts(struct out *o, const struct cyclock_state *in)
{
	gauge(o, "cyclock_resyncs", NULL, "Resyncs of the CLOCK_MONOTONIC timeline" SAW,
	      (double)in->resyncs);
	gauge(o, "cyclock_anomalies", NULL, "Times the counter disagreed with the kernel" SAW,
	      (double)in->anomalies);
	gauge(o, "cyclock_kernel_spells", NULL,
	      "Spells of serving the kernel's clock on a timeline" SAW, (double)in->kernel_spells);
	gauge(o, "cyclock_rate_changes", NULL,
	      "Changes of the kernel clock's rate followed on the counter" SAW,
	      (double)in->rate_changes);
}

/* What only a trusted counter has: its rate, the read, the tracking. */
static void write_counter(struct out *o, const struct info_facts *f)
{
	const struct cyclock_state *in = &f->in;
	const char *read[] = { "read", in->ordered, NULL };
	const char *mode[] = { "last_reason", in->kernel_why, NULL };
	const char *mono[] = { "clock", "monotonic", NULL };
	const char *raw[] = { "clock", "monotonic_raw", NULL };

	gauge(o, "cyclock_frequency_hertz", "hertz",
	      "The counter's frequency as this process estimated it.", in->hz);
	gauge(o, "cyclock_frequency_first_hertz", "hertz",
	      "The counter's frequency as first stated (CPUID, the hypervisor) or measured.",
	      in->hz_hint);
	gauge(o, "cyclock_frequency_uncertainty_ratio", "ratio",
	      "The frequency estimate's uncertainty, relative (36e-6 is 36 ppm).",
	      in->hz_ppm * 1e-6);
	info(o, "cyclock_ordered_read", "The ordered counter read cyclock chose on this CPU.",
	     read);
	family(o, "cyclock_kernel_mode", "gauge", NULL,
	       "1 while CLOCK_MONOTONIC is served from the kernel's clock (a spell), else 0; "
	       "last_reason is why the last spell began.");
	sample(o, "cyclock_kernel_mode", mode, in->kernel_mode ? 1 : 0);
	gauge(o, "cyclock_resync_interval_seconds", "seconds",
	      "How often the timelines resync against the kernel's clocks now.",
	      (double)in->interval_ns / 1e9);
	gauge(o, "cyclock_resync_interval_max_seconds", "seconds",
	      "The longest the resync interval may grow to.", (double)in->max_interval_ns / 1e9);
	family(o, "cyclock_agreement_error_seconds", "gauge", "seconds",
	       "cyclock's clock less the kernel's it follows, at the last resync.");
	sample(o, "cyclock_agreement_error_seconds", mono, (double)in->last_err_ns / 1e9);
	sample(o, "cyclock_agreement_error_seconds", raw, (double)in->raw_last_err_ns / 1e9);
}

static void write_machine(struct out *o, const struct bench_context *ctx)
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

static void write_steps_costs(struct out *o, const struct info_facts *f)
{
	if (f->n_steps)
		family(o, "cyclock_resolution_step_seconds", "gauge", "seconds",
		       "The median step between back-to-back readings of a clock (quick "
		       "resolution scenario).");
	for (size_t i = 0; i < f->n_steps; i++) {
		const char *l[] = { "clock", f->steps[i].clock, NULL };

		sample(o, "cyclock_resolution_step_seconds", l, f->steps[i].step_ns / 1e9);
	}
	if (!f->have_costs)
		return;
	family(o, "cyclock_read_cost_seconds", "gauge", "seconds",
	       "What one read of a clock costs, back to back (the median of the quick warm "
	       "scenario's repetitions; --bench).");
	for (size_t i = 0; i < f->n_costs; i++) {
		const char *l[] = { "clock", f->costs[i].clock, NULL };

		sample(o, "cyclock_read_cost_seconds", l, f->costs[i].ns / 1e9);
	}
}

int info_write_metrics(FILE *out, const struct info_facts *f, enum info_format fmt)
{
	struct out o = { .f = out, .om = fmt == INFO_OPENMETRICS };
	const struct cyclock_state *in = &f->in;
	const char *build[] = { "version", f->ctx.version, "build_type", f->ctx.build_type,
				NULL };
	const char *trust[] = { "reason", f->trusted ? "" : in->why, NULL };
	const char *src[] = { "source", in->counter, "frequency_source", in->hz_source, NULL };

	info(&o, "cyclock_build", "The cyclock tool that wrote these metrics.", build);
	family(&o, "cyclock_trusted", "gauge", NULL,
	       "1 when cyclock reads the counter, 0 when it serves the kernel's clocks; "
	       "reason says why not.");
	sample(&o, "cyclock_trusted", trust, f->trusted ? 1 : 0);
	info(&o, "cyclock_source", "The counter cyclock reads, and where its frequency came from.",
	     src);
	if (f->trusted)
		write_counter(&o, f);
	write_counts(&o, in);
	gauge(&o, "cyclock_init_seconds", "seconds", "What the library's initialisation cost.",
	      (double)in->init_ns / 1e9);
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
