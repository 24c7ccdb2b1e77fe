/* SPDX-License-Identifier: MIT */
/*
 * cyclock info: the counter and its frequency (where it came from, how
 * sure), the conversion and its wrap, what the engine would choose for
 * the counter, the counter's real step, whether it is trusted and why,
 * and the machine.  The facts are gathered once (struct info_facts,
 * info.h) and written as text (here), JSON (info_json.c) or metrics for
 * Prometheus and OpenMetrics (info_metrics.c), to standard output or,
 * atomically, to a file (--output).  What the library decided and did is
 * this process's own status block, whose lines, keys and families
 * block_out.c writes as cyclock status writes another process's.
 *
 * Over 400 lines: the command's three parts, gathering the facts, the
 * text and the command line, each under 140 lines and each this
 * command's alone.
 *
 * Tests: tests/tool/cli/test_info.sh, test_usage.sh, test_one_name.sh.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cyclock.h>
#include <cyclock/status.h>
#include <cyclock/timeline.h>

#include "bench.h"
#include "block_out.h"
#include "cmd.h"
#include "info.h"

/* The library's status block (cyclock/status.h; src/linux/status.c writes
 * it), exported: this process's own, read as cyclock status reads
 * another's. */
extern struct cyclock_status cyclock_status;

/* @bytes as "32 KiB", "1 MiB". */
static const char *size_str(long bytes, char *buf, size_t len)
{
	if (bytes >= (1L << 20) && bytes % (1L << 20) == 0)
		snprintf(buf, len, "%ld MiB", bytes >> 20);
	else
		snprintf(buf, len, "%ld KiB", bytes >> 10);
	return buf;
}

/* @s seconds as the largest unit that keeps it readable. */
static const char *span_str(double s, char *buf, size_t len)
{
	if (s >= 365.25 * 86400)
		snprintf(buf, len, "%.0f years", s / (365.25 * 86400));
	else if (s >= 86400)
		snprintf(buf, len, "%.1f days", s / 86400);
	else if (s >= 1)
		snprintf(buf, len, "%.1f s", s);
	else
		snprintf(buf, len, "%.1f ms", s * 1e3);
	return buf;
}

/* ---- gathering ---- */

/* What cyclock_register() (the engine, cyclock/core.h) chose for this
 * counter at its frequency, on the engine clocks' own clock: the update
 * interval and the rate's error. */
static void gather_engine(struct info_facts *f)
{
	const struct cyclock *clk = bench_engine_clock();

	f->have_engine = clk != NULL;
	if (!clk)
		return;
	cyclock_format_summary(clk, f->engine, sizeof(f->engine));
	f->engine_update_ns = (double)cyclock_wrap_ns(clk);
}

/* The measured step of the counter and of the clocks built on it: the
 * resolution scenario, quick, on the floor, cyclock_now and the vDSO. */
static void gather_steps(struct info_facts *f)
{
	static const char *names[] = { "rdtsc", "cntvct", "cyclock_now", "monotonic" };
	struct bench_opts o = { .quick = true, .quiet = true, .repetitions = 1 };
	struct bench_run run;

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		const struct bench_clock *c = bench_clock_find(names[i]);

		if (c && bench_clock_available(c))
			o.clocks[o.n_clocks++] = c;
	}
	bench_run_init(&run);
	if (bench_resolution(&o, &run) == 0) {
		for (size_t i = 0; i < run.n && f->n_steps < 4; i++) {
			const struct bench_result *r = &run.v[i];
			const struct bench_clock *c = bench_clock_find(r->clock);
			struct info_step *st = &f->steps[f->n_steps++];

			/* The clocks' names are static; the results' are not. */
			st->clock = c ? c->name : "unknown";
			st->step_ns = bench_result_get(r, "step_p50_ns");
			st->min_ns = r->st.min;
			st->claimed_ns = bench_result_get(r, "clock_getres_ns");
			st->ticks = c && (c->flags & BENCH_CLOCK_TICKS)
					    ? st->step_ns * bench_counter_hz() / 1e9
					    : -1;
		}
	}
	bench_run_free(&run);
}

/* --bench: what one back-to-back read of cyclock_now(), the ordered floor
 * and the vDSO's CLOCK_MONOTONIC costs, from the quick warm scenario. */
static int gather_costs(struct info_facts *f)
{
	const char *names[] = { "cyclock_now", bench_floor_ordered(), "monotonic" };
	struct bench_opts o = { .quick = true, .quiet = true, .clocks_given = true };
	struct bench_run run;
	char name[112];
	int rc;

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		const struct bench_clock *c = names[i] ? bench_clock_find(names[i]) : NULL;

		if (c && bench_clock_available(c))
			o.clocks[o.n_clocks++] = c;
	}
	bench_run_init(&run);
	rc = bench_warm(&o, &run);
	for (size_t i = 0; rc == 0 && i < o.n_clocks; i++) {
		const struct bench_result *r;

		snprintf(name, sizeof(name), "warm/%s/throughput", o.clocks[i]->name);
		r = bench_run_find(&run, name);
		if (r && r->n_samples) {
			f->costs[f->n_costs].clock = o.clocks[i]->name;
			f->costs[f->n_costs++].ns = r->st.median;
		}
	}
	bench_run_free(&run);
	f->have_costs = rc == 0;
	return rc;
}

/* This process's own status block, as cyclock status reads another's
 * (in place: status_read_view()'s pid 0); 0, or -1 after saying why. */
static int gather_own(struct info_facts *f)
{
	char why[512];

	if (status_read_view(0, (uint64_t)(uintptr_t)&cyclock_status, &f->own, why,
			     sizeof(why)) == STATUS_OK)
		return 0;
	tool_error("info: its own status block: %s", why);
	return -1;
}

/* 0, or -1 after saying why. */
static int gather(struct info_facts *f, bool costs_too)
{
	const struct cyclock_state *in = &f->in;

	memset(f, 0, sizeof(*f));
	/* The library's own warp check too, which a program's lazy start skips. */
	cyclock_init(CYCLOCK_INIT_WARP_CHECK);
	f->in.version = CYCLOCK_STATE_VERSION;
	cyclock_get_state(&f->in);
	bench_context_fill(&f->ctx, tool_argv0);
	f->trusted = in->using_counter == CYCLOCK_USING_COUNTER;
	if (f->trusted)
		gather_engine(f);
	gather_steps(f);
	/* Again, after measuring: the segment, the block and
	 * cyclock_describe() then agree. */
	f->in.version = CYCLOCK_STATE_VERSION;
	cyclock_get_state(&f->in);
	f->describe = cyclock_describe();
	if (gather_own(f))
		return -1;
	f->trusted = block_on_counter(&f->own);
	if (f->trusted) {
		/* The fast path multiplies a delta of up to the segment's length
		 * by mult in 64 bits: this is how long a delta may grow before it
		 * overflows, which the resync interval must stay well inside. */
		f->overflow_s = in->mult ? ldexp(1, 64) / in->mult / in->hz : 0;
		f->wrap_s = ldexp(1, 64) / in->hz;
	}
	if (costs_too)
		gather_costs(f);
	return 0;
}

/* ---- the text ---- */

/* What only info says of the counter: the live segment's conversion, the
 * counter's wrap, the engine's choice. */
static void print_conversion(FILE *o, const struct info_facts *f)
{
	const struct cyclock_state *in = &f->in;
	char a[32], b[32];

	fprintf(o, "conversion      ns = ticks * %u >> %u (raw: * %u >> %u); mult * ticks "
		"overflows after %s\n",
		in->mult, in->shift, in->raw_mult, in->shift, span_str(f->overflow_s, a, sizeof(a)));
	fprintf(o, "wrap            the 64-bit counter wraps after %s\n",
		span_str(f->wrap_s, b, sizeof(b)));
	if (f->have_engine)
		fprintf(o, "engine          %s\n", f->engine);
	else
		fprintf(o, "engine          cannot convert %.0f Hz\n", in->hz);
}

static void print_resolution(FILE *o, const struct info_facts *f)
{
	for (size_t i = 0; i < f->n_steps; i++) {
		const struct info_step *st = &f->steps[i];
		char ticks[32] = "";

		if (st->ticks >= 0)
			snprintf(ticks, sizeof(ticks), " (%.0f ticks)", st->ticks);
		fprintf(o, "%-15s %-12s steps by %.2f ns%s typically, %.2f ns at least; "
			"claims %.3g ns\n",
			i ? "" : "resolution", st->clock, st->step_ns, ticks, st->min_ns,
			st->claimed_ns);
	}
}

/* cyclock_describe()'s line, then the block's lines, as cyclock status
 * writes another process's (block_out.c). */
static void print_trust(FILE *o, const struct info_facts *f)
{
	if (f->trusted)
		fprintf(o, "trusted         yes: %s\n", f->describe);
	else
		fprintf(o, "trusted         no, the kernel's clocks are used: %s\n", f->own.setup.why);
	block_text(o, &f->own, "", (long)getpid());
}

static void print_machine(FILE *o, const struct bench_context *ctx)
{
	char buf[32];

	fprintf(o, "kernel          %s\n", ctx->kernel);
	fprintf(o, "clocksource     %s (available: %s)\n", ctx->clocksource, ctx->clocksources);
	fprintf(o, "virtualization  %s\n", ctx->virtualization);
	fprintf(o, "cpu             %s, %s, %d online, %d allowed, %.0f MHz, governor %s\n",
		ctx->cpu_model, ctx->arch, ctx->num_cpus, ctx->allowed_cpus, ctx->mhz_per_cpu,
		ctx->governor);
	fprintf(o, "caches         ");
	for (int i = 0; i < ctx->n_caches; i++) {
		const struct bench_cache *c = &ctx->caches[i];

		fprintf(o, " L%d%s %s%s", c->level,
			!strcmp(c->type, "Data") ? "d" : !strcmp(c->type, "Instruction") ? "i" : "",
			size_str(c->size, buf, sizeof(buf)), i + 1 < ctx->n_caches ? "," : "");
		if (c->num_sharing > 1)
			fprintf(o, " (shared by %d)", c->num_sharing);
	}
	fprintf(o, "%s\n", ctx->n_caches ? "" : " unknown");
}

/* --bench's line, after the machine: nothing without it. */
static void print_costs(FILE *o, const struct info_facts *f)
{
	char ns[32];

	if (!f->have_costs)
		return;
	fprintf(o, "read cost      ");
	for (size_t i = 0; i < f->n_costs; i++) {
		bench_fmt_ns(ns, sizeof(ns), f->costs[i].ns);
		fprintf(o, " %s %s%s", f->costs[i].clock, ns, i + 1 < f->n_costs ? "," : "");
	}
	fprintf(o, "%s (warm, back to back, quick)\n", f->n_costs ? "" : " none measured");
}

static void write_text(FILE *o, const struct info_facts *f)
{
	fprintf(o, "cyclock %s (%s build)\n", f->ctx.version, f->ctx.build_type);
	if (f->trusted)
		print_conversion(o, f);
	print_resolution(o, f);
	print_trust(o, f);
	print_machine(o, &f->ctx);
	print_costs(o, f);
}

/* ---- the command line ---- */

struct info_args {
	enum info_format fmt;
	const char *output; /* "-": standard output */
	bool bench;
};

static void usage(void)
{
	puts("usage: cyclock info [--format text|json|prometheus|openmetrics] [--json]\n"
	     "                    [--bench] [--output FILE]\n\n"
	     "The counter, its frequency (where it came from, uncertainty), mult/shift\n"
	     "and wrap, the engine's update interval and rate error for the counter,\n"
	     "the measured step of the counter and clocks, whether the counter is trusted\n"
	     "and why (with a cross-CPU warp check), which ordered read and why,\n"
	     "the kernel's clocksource, virtualisation, CPU and caches.\n\n"
	     "  --format F     text (the default), json (docs/schemas/info.schema.json),\n"
	     "                 prometheus (the text format node_exporter's textfile\n"
	     "                 collector reads) or openmetrics (OpenMetrics 1.0)\n"
	     "  --json         --format json\n"
	     "  --bench        also time a read of cyclock_now, ordered_ns and the vDSO's\n"
	     "                 CLOCK_MONOTONIC (the quick warm scenario, well under a second)\n"
	     "  --output FILE  write FILE atomically (a temporary beside it, renamed)");
}

static int parse_format(struct info_args *a, const char *arg)
{
	static const char *const names[] = { "text", "json", "prometheus", "openmetrics" };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(arg, names[i])) {
			a->fmt = (enum info_format)i;
			return 0;
		}
	tool_error("info: --format wants text, json, prometheus or openmetrics, not '%s'", arg);
	return -1;
}

/* Whether @path can be written: checked before measuring. */
static int check_output(const char *path)
{
	const char *why;

	if (!bench__output_check(path, &why))
		return 0;
	tool_error("info: --output: cannot write '%s': %s", path, why);
	return -1;
}

/* The long options' values: 256 and up (see tool_getopt()). */
enum { OPT_FORMAT = 256, OPT_JSON, OPT_BENCH, OPT_OUTPUT };

static int take_option(void *ctx, int opt, char *arg)
{
	struct info_args *a = ctx;

	if ((opt == OPT_FORMAT && parse_format(a, arg)) ||
	    (opt == OPT_OUTPUT && strcmp(arg, "-") && check_output(arg)))
		return -1;
	a->fmt = opt == OPT_JSON ? INFO_JSON : a->fmt;
	a->bench |= opt == OPT_BENCH;
	a->output = opt == OPT_OUTPUT ? arg : a->output;
	return 0;
}

/* 0 to go on, 1 after --help, -1 after a one-line error. */
static int parse_args(struct info_args *a, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "format", required_argument, NULL, OPT_FORMAT },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "bench", no_argument, NULL, OPT_BENCH },
		{ "output", required_argument, NULL, OPT_OUTPUT },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int rc = tool_getopt("info", argc, argv, ":h", longopts, take_option, a);

	if (rc > 0)
		usage();
	if (rc)
		return rc;
	if (optind < argc) {
		tool_error("info: unexpected argument '%s' (see 'cyclock info --help')",
			   argv[optind]);
		return -1;
	}
	if (a->fmt == INFO_JSON && !bench_json_supported) {
		tool_error("info: --format json: this cyclock was built without jansson");
		return -1;
	}
	return 0;
}

/* The whole output in memory, then written at once (atomically to a file). */
static int emit(const struct info_args *a, const struct info_facts *f)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *o = open_memstream(&buf, &len);
	int rc = 0;

	if (!o) {
		tool_error("info: out of memory");
		return -1;
	}
	if (a->fmt == INFO_TEXT)
		write_text(o, f);
	else if (a->fmt == INFO_JSON)
		rc = info_write_json(o, f); /* says why itself */
	else
		rc = info_write_metrics(o, f, a->fmt);
	if ((fclose(o) != 0 || !buf) && rc == 0) {
		tool_error("info: out of memory");
		rc = -1;
	}
	if (rc == 0)
		rc = bench__write_file(a->output, buf, len);
	free(buf);
	return rc;
}

int cmd_info(int argc, char **argv)
{
	struct info_args a = { .fmt = INFO_TEXT, .output = "-" };
	struct info_facts f;
	int rc = parse_args(&a, argc, argv);

	if (rc)
		return rc > 0 ? EXIT_OK : EXIT_USAGE;
	if (gather(&f, a.bench))
		return EXIT_FAIL;
	if (a.bench && !f.have_costs)
		return EXIT_FAIL; /* the scenario said why */
	return emit(&a, &f) ? EXIT_FAIL : EXIT_OK;
}
