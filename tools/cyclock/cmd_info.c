/* SPDX-License-Identifier: MIT */
/*
 * cyclock info: the counter and its frequency (where it came from, how
 * sure), the conversion and its wrap, what the engine would choose for
 * the counter, the counter's real step, whether it is trusted and why,
 * and the machine.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <cyclock.h>
#include <cyclock/timeline.h>

#include "bench.h"
#include "cmd.h"

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

static void print_counter(const struct cyclock__info *in)
{
	char a[32], b[32];
	/* The fast path multiplies a delta of up to the segment's length by
	 * mult in 64 bits: this is how long a delta may grow before it
	 * overflows, which the resync interval must stay well inside. */
	double conv_s = in->mult ? ldexp(1, 64) / in->mult / in->hz : 0;

	printf("counter         %s, %.6f MHz, +-%.3f ppm (first: %s, %.6f MHz)\n", in->counter,
	       in->hz / 1e6, in->hz_ppm, in->hz_source, in->hz_hint / 1e6);
	printf("conversion      ns = ticks * %u >> %u (raw: * %u >> %u); mult * ticks "
	       "overflows after %s,\n                resynced every %.0f ms (at most %.0f ms)\n",
	       in->mult, in->shift, in->raw_mult, in->shift, span_str(conv_s, a, sizeof(a)),
	       (double)in->interval_ns / 1e6, (double)in->max_interval_ns / 1e6);
	printf("wrap            the 64-bit counter wraps after %s\n",
	       span_str(ldexp(1, 64) / in->hz, b, sizeof(b)));
}

/* What cyclock_register() (the engine, cyclock/core.h) chose for this
 * counter at its frequency, on the engine clocks' own clock: the update
 * interval and the rate's error. */
static void print_engine(const struct cyclock__info *in)
{
	const struct cyclock *clk = bench_engine_clock();
	char line[160];

	if (!clk) {
		printf("engine          cannot convert %.0f Hz\n", in->hz);
		return;
	}
	cyclock_format_summary(clk, line, sizeof(line));
	printf("engine          %s\n", line);
}

/* The measured step of the counter and of the clocks built on it: the
 * resolution scenario, quick, on the floor, cyclock_now and the vDSO. */
static void print_resolution(void)
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
		for (size_t i = 0; i < run.n; i++) {
			const struct bench_result *r = &run.v[i];
			const struct bench_clock *c = bench_clock_find(r->clock);
			double step = bench_result_get(r, "step_p50_ns");
			double getres = bench_result_get(r, "clock_getres_ns");
			char ticks[32] = "";

			if (c && (c->flags & BENCH_CLOCK_TICKS))
				snprintf(ticks, sizeof(ticks), " (%.0f ticks)",
					 step * bench_counter_hz() / 1e9);
			printf("%-15s %-12s steps by %.2f ns%s typically, %.2f ns at least; "
			       "claims %.3g ns\n",
			       i ? "" : "resolution", r->clock, step, ticks, r->st.min, getres);
		}
	}
	bench_run_free(&run);
}

static void print_trust(const struct cyclock__info *in)
{
	if (in->using_counter == CYCLOCK_USING_COUNTER)
		printf("trusted         yes: %s\n", cyclock_describe());
	else
		printf("trusted         no, the kernel's clocks are used: %s\n", in->why);
	printf("                init took %.2f ms; %llu resyncs, %llu anomalies so far\n",
	       (double)in->init_ns / 1e6, (unsigned long long)in->resyncs,
	       (unsigned long long)in->anomalies);
	if (in->using_counter != CYCLOCK_USING_COUNTER)
		return;
	printf("ordered read    %s: %s\n", in->ordered, in->ordered_why);
	/* What the kernel's clock did to the timelines: kernel mode is open. */
	printf("kernel mode     %s; %llu spells on the kernel's clock%s%s%s, %llu rate changes"
	       " followed on the counter\n",
	       in->kernel_mode ? "now: CLOCK_MONOTONIC is served from the kernel's clock"
			       : "no: on the counter",
	       (unsigned long long)in->kernel_spells, in->kernel_why[0] ? " (last: " : "",
	       in->kernel_why, in->kernel_why[0] ? ")" : "", (unsigned long long)in->rate_changes);
}

static void print_machine(const struct bench_context *ctx)
{
	char buf[32];

	printf("kernel          %s\n", ctx->kernel);
	printf("clocksource     %s (available: %s)\n", ctx->clocksource, ctx->clocksources);
	printf("virtualization  %s\n", ctx->virtualization);
	printf("cpu             %s, %s, %d online, %d allowed, %.0f MHz, governor %s\n",
	       ctx->cpu_model, ctx->arch, ctx->num_cpus, ctx->allowed_cpus, ctx->mhz_per_cpu,
	       ctx->governor);
	printf("caches         ");
	for (int i = 0; i < ctx->n_caches; i++) {
		const struct bench_cache *c = &ctx->caches[i];

		printf(" L%d%s %s%s", c->level,
		       !strcmp(c->type, "Data") ? "d" : !strcmp(c->type, "Instruction") ? "i" : "",
		       size_str(c->size, buf, sizeof(buf)), i + 1 < ctx->n_caches ? "," : "");
		if (c->num_sharing > 1)
			printf(" (shared by %d)", c->num_sharing);
	}
	printf("%s\n", ctx->n_caches ? "" : " unknown");
}

int cmd_info(int argc, char **argv)
{
	struct cyclock__info in;
	struct bench_context ctx;

	if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		puts("usage: cyclock info\n\nThe counter, its frequency (where it came from, "
		     "uncertainty), mult/shift\nand wrap, the engine's update interval and rate "
		     "error for the counter,\nthe measured step of the counter and clocks, "
		     "whether the counter is trusted\nand why (with a cross-CPU warp check), which "
		     "ordered read and why,\nthe kernel's clocksource, "
		     "virtualisation, CPU and caches.");
		return EXIT_OK;
	}
	if (argc > 1) {
		tool_error("info: unexpected argument '%s' (see 'cyclock info --help')", argv[1]);
		return EXIT_USAGE;
	}
	/* The library's own warp check too, which a program's lazy start skips. */
	cyclock_init(CYCLOCK_INIT_WARP_CHECK);
	cyclock__get_info(&in);
	bench_context_fill(&ctx, tool_argv0);
	printf("cyclock %s (%s build)\n", ctx.version, ctx.build_type);
	if (in.using_counter == CYCLOCK_USING_COUNTER) {
		print_counter(&in);
		print_engine(&in);
	}
	print_resolution();
	print_trust(&in);
	print_machine(&ctx);
	return EXIT_OK;
}
