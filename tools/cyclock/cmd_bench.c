/* SPDX-License-Identifier: MIT */
/*
 * cyclock bench [SCENARIO...] [--clocks LIST] [--threads LIST]
 *               [--repetitions N] [--duration S] [--quick] [--json FILE]
 *               [--csv FILE] [--quiet]
 * Runs the scenarios, writes the files, then prints the table (none when a
 * file goes to standard output).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cyclock.h>

#include "bench.h"
#include "cmd.h"

struct bench_args {
	struct bench_opts o;
	const struct bench_scenario *scenarios[16];
	size_t n_scenarios;
	const char *json, *csv;
};

static void usage(FILE *f)
{
	size_t n, ns;
	const struct bench_scenario *s = bench_scenarios(&ns);
	const struct bench_clock *c = bench_clocks(&n);
	int col = tool_help_column(&s[0].name, ns, sizeof(s[0]));
	char what[256];

	fputs("usage: cyclock bench [SCENARIO...] [OPTIONS]\n\n"
	      "Scenarios (default: all", f);
	for (size_t i = 0, k = 0; i < ns; i++)
		if (!s[i].in_default)
			fprintf(f, "%s%s", k++ ? ", " : " but ", s[i].name);
	fputs("):\n", f);
	for (size_t i = 0; i < ns; i++)
		tool_help_item(f, col, s[i].name, s[i].what);
	fputs("\nOptions:\n"
	      "  --clocks LIST       clocks to measure, comma-separated, or the groups\n"
	      "                      cyclock, engine, floors, kernel, all (default: all that\n"
	      "                      exist)\n"
	      "  --threads LIST      thread counts for scale and falseshare (e.g. 1,2,4)\n"
	      "  --repetitions N     repetitions (samples) per figure\n"
	      "  --duration SECONDS  accuracy's sampling time (default 10, --quick 1)\n"
	      "  --quick             everything shorter: the default run in under 20 s\n"
	      "  --json FILE         Google Benchmark JSON ('-': stdout, no table)\n"
	      "  --csv FILE          one row per figure ('-': stdout, no table)\n"
	      "  -q, --quiet         no progress on stderr\n"
	      "  -h, --help          this text\n\nClocks:\n", f);
	/* Each list aligned by its own longest name. */
	col = tool_help_column(&c[0].name, n, sizeof(c[0]));
	for (size_t i = 0; i < n; i++) {
		snprintf(what, sizeof(what), "%s%s", c[i].what,
			 bench_clock_available(&c[i]) ? "" : " (not on this machine)");
		tool_help_item(f, col, c[i].name, what);
	}
}

/* Adds the clocks of group @g (or all when @g < 0) that exist here. */
static void add_group(struct bench_opts *o, int g)
{
	size_t n;
	const struct bench_clock *c = bench_clocks(&n);

	for (size_t i = 0; i < n; i++)
		if ((g < 0 || (int)c[i].group == g) && bench_clock_available(&c[i]) &&
		    !bench_selected(o, c[i].name) && o->n_clocks < 64)
			o->clocks[o->n_clocks++] = &c[i];
}

static int parse_clocks(struct bench_opts *o, char *list)
{
	/* By enum bench_group. */
	static const char *groups[] = { "cyclock", "floors", "kernel", "engine" };

	for (char *save, *t = strtok_r(list, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		const struct bench_clock *c = bench_clock_find(t);
		int g = -2;

		for (int i = 0; i < (int)(sizeof(groups) / sizeof(groups[0])); i++)
			if (!strcmp(t, groups[i]))
				g = i;
		if (!strcmp(t, "all"))
			g = -1;
		if (g != -2) {
			add_group(o, g);
		} else if (!c) {
			tool_error("bench: unknown clock '%s' (see 'cyclock bench --help')", t);
			return -1;
		} else if (!bench_clock_available(c)) {
			tool_error("bench: clock '%s' does not exist on this machine", t);
			return -1;
		} else if (!bench_selected(o, t) && o->n_clocks < 64) {
			o->clocks[o->n_clocks++] = c;
		}
	}
	if (o->n_clocks == 0) {
		tool_error("bench: --clocks names no clock");
		return -1;
	}
	return 0;
}

/* A positive integer no larger than @max, or -1. */
static long parse_count(const char *s, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < 1 || v > max)
		return -1;
	return v;
}

static int parse_threads(struct bench_opts *o, char *list)
{
	for (char *save, *t = strtok_r(list, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		long v = parse_count(t, 1024);

		if (v < 0 || o->n_threads == 32) {
			tool_error("bench: --threads wants up to 32 counts from 1 to 1024, "
				   "not '%s'", t);
			return -1;
		}
		o->threads[o->n_threads++] = (int)v;
	}
	return o->n_threads ? 0 : (tool_error("bench: --threads names no count"), -1);
}

static int parse_repetitions(struct bench_opts *o, const char *arg)
{
	o->repetitions = (int)parse_count(arg, 1000000);
	if (o->repetitions > 0)
		return 0;
	tool_error("bench: --repetitions wants a count from 1 to 1000000, not '%s'", arg);
	return -1;
}

static int parse_duration(struct bench_opts *o, const char *arg)
{
	char *end;
	double d = strtod(arg, &end);

	if (end != arg && !*end && d > 0 && d <= 86400) {
		o->duration_s = d;
		return 0;
	}
	tool_error("bench: --duration wants seconds (0 < S <= 86400), not '%s'", arg);
	return -1;
}

/* Whether @path can be written: checked before measuring, so that a typo
 * does not cost a whole run. */
static int check_output(const char *opt, const char *path)
{
	const char *why;

	if (!bench__output_check(path, &why))
		return 0;
	tool_error("bench: %s: cannot write '%s': %s", opt, path, why);
	return -1;
}

/* The long options' values: 256 and up (see tool_getopt()). */
enum {
	OPT_CLOCKS = 256,
	OPT_THREADS,
	OPT_REPETITIONS,
	OPT_DURATION,
	OPT_QUICK,
	OPT_JSON,
	OPT_CSV,
	OPT_QUIET,
	OPT_HELP,
};

static int parse_option(void *ctx, int opt, char *arg)
{
	struct bench_args *a = ctx;

	switch (opt) {
	case OPT_CLOCKS:
		a->o.clocks_given = true;
		return parse_clocks(&a->o, arg);
	case OPT_THREADS:
		return parse_threads(&a->o, arg);
	case OPT_REPETITIONS:
		return parse_repetitions(&a->o, arg);
	case OPT_DURATION:
		return parse_duration(&a->o, arg);
	case OPT_QUICK:
		a->o.quick = true;
		return 0;
	case 'q':
	case OPT_QUIET:
		a->o.quiet = true;
		return 0;
	case OPT_JSON:
		if (!bench_json_supported) {
			tool_error("bench: --json: this cyclock was built without jansson");
			return -1;
		}
		a->json = arg;
		return check_output("--json", arg);
	case OPT_CSV:
		a->csv = arg;
		return check_output("--csv", arg);
	}
	return -1;
}

/* Whether scenario @s is already chosen: naming one twice runs it once. */
static bool chosen(const struct bench_args *a, const struct bench_scenario *s)
{
	for (size_t i = 0; i < a->n_scenarios; i++)
		if (a->scenarios[i] == s)
			return true;
	return false;
}

/* --json and --csv: a name of what standard output is (/dev/stdout into a
 * pipe) is written as "-", with no table; two names of one file are
 * refused, since the second would replace the first. */
static int check_outputs(struct bench_args *a)
{
	const char *json = a->json, *csv = a->csv;

	if (json && bench__output_is_stdout(json))
		a->json = "-";
	if (csv && bench__output_is_stdout(csv))
		a->csv = "-";
	if (!json || !csv || !bench__output_same(a->json, a->csv))
		return 0;
	if (!strcmp(a->json, "-") && !strcmp(a->csv, "-"))
		tool_error("bench: --json and --csv cannot both write to standard output");
	else
		tool_error("bench: --json '%s' and --csv '%s' are the same file", json, csv);
	return -1;
}

static int parse_args(struct bench_args *a, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "clocks", required_argument, NULL, OPT_CLOCKS },
		{ "threads", required_argument, NULL, OPT_THREADS },
		{ "repetitions", required_argument, NULL, OPT_REPETITIONS },
		{ "duration", required_argument, NULL, OPT_DURATION },
		{ "quick", no_argument, NULL, OPT_QUICK },
		{ "json", required_argument, NULL, OPT_JSON },
		{ "csv", required_argument, NULL, OPT_CSV },
		{ "quiet", no_argument, NULL, OPT_QUIET },
		{ "help", no_argument, NULL, OPT_HELP },
		{ NULL, 0, NULL, 0 },
	};
	int rc = tool_getopt("bench", argc, argv, ":qh", longopts, parse_option, a);

	if (rc > 0)
		usage(stdout);
	if (rc)
		return rc;
	for (; optind < argc; optind++) {
		const struct bench_scenario *s = bench_scenario_find(argv[optind]);

		if (!s) {
			tool_error("bench: unknown scenario '%s' (see 'cyclock bench --help')",
				   argv[optind]);
			return -1;
		}
		if (!chosen(a, s) && a->n_scenarios < 16)
			a->scenarios[a->n_scenarios++] = s;
	}
	return check_outputs(a);
}

/* Runs the chosen scenarios into @run; the number that failed. */
static int run_scenarios(struct bench_args *a, struct bench_run *run)
{
	int failed = 0;

	for (size_t i = 0; i < a->n_scenarios; i++) {
		bench_progress(&a->o, "cyclock: %s ...", a->scenarios[i]->name);
		if (a->scenarios[i]->run(&a->o, run) != 0)
			failed++;
		bench_progress_done(&a->o);
	}
	bench_run_ratios(run);
	return failed;
}

static void defaults(struct bench_args *a)
{
	size_t n;
	const struct bench_scenario *s = bench_scenarios(&n);

	if (a->o.n_clocks == 0)
		add_group(&a->o, -1);
	if (a->n_scenarios > 0)
		return;
	for (size_t i = 0; i < n; i++)
		if (s[i].in_default)
			a->scenarios[a->n_scenarios++] = &s[i];
}

/* cmd_bench(), and with @verdict the verdict after the tables. */
static int bench_command(int argc, char **argv, bool verdict)
{
	struct bench_args a = { .o.quiet = tool_quiet };
	struct bench_run run;
	int rc = parse_args(&a, argc, argv), failed;
	bool to_stdout;

	if (rc != 0)
		return rc > 0 ? EXIT_OK : EXIT_USAGE;
	defaults(&a);
	cyclock_init(0);
	bench_run_init(&run);
	bench_context_fill(&run.ctx, tool_argv0);
	a.o.llc_bytes = bench_llc_bytes(&run.ctx);
	a.o.mid_bytes = bench_mid_cache_bytes(&run.ctx);
	failed = run_scenarios(&a, &run);
	/* The files first: a reader of the table that stops early ("| head",
	 * SIGPIPE) must not cost them.  Standard output is checked in main(). */
	if (a.json && bench_write_json(a.json, &run) != 0)
		failed++;
	if (a.csv && bench_write_csv(a.csv, &run) != 0)
		failed++;
	to_stdout = (a.json && !strcmp(a.json, "-")) || (a.csv && !strcmp(a.csv, "-"));
	if (!to_stdout)
		bench_report_table(stdout, &run);
	if (!to_stdout && verdict) {
		putchar('\n');
		bench_report_verdict(stdout, &run);
	}
	bench_run_free(&run);
	return failed ? EXIT_FAIL : EXIT_OK;
}

int cmd_bench(int argc, char **argv)
{
	return bench_command(argc, argv, false);
}

int cmd_bench_verdict(int argc, char **argv)
{
	return bench_command(argc, argv, true);
}
