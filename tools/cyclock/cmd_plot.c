/* SPDX-License-Identifier: MIT */
/*
 * cyclock plot FILE.json --out FILE.svg [--table]: the pictures of a
 * stored run that a person would rather look at than read.  Three panels,
 * each left out when the run has nothing for it: what one call costs per
 * clock (warm), how that cost grows with threads (scale), and how finely
 * each clock ticks (resolution).  Costs span from a few ns (a counter
 * read) to hundreds (a system call), so every cost axis that must show
 * both is in log scale and says so.
 *
 * This file parses the command line and puts the document together; the
 * panels are drawn in plot_panels.c.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "cmd.h"
#include "plot.h"
#include "svg.h"

struct plot_opts {
	const char *in, *out;
	bool table;
};

static void usage(FILE *f)
{
	fputs("usage: cyclock plot FILE.json --out FILE.svg [--table]\n"
	      "       cyclock plot FILE.json --table\n\n"
	      "Draws a run stored by \"cyclock bench --json FILE.json\" as one standalone SVG:\n"
	      "the cost of a call per clock (warm), the cost against threads (scale) and\n"
	      "the resolution per clock, each panel only when the run has it.\n\n"
	      "  --out FILE.svg  where to write it (\"-\": standard output); replaced whole\n"
	      "  --table         also print the run's table to standard output\n"
	      "  -h, --help      this text\n\n"
	      "Exit status: 0 done, 1 writing the output failed, 2 bad command line (or an\n"
	      "--out that cannot be written, checked first), 3 the input is unreadable,\n"
	      "malformed or has nothing to plot.\n", f);
}

/* --out: one that can be written, checked before the input is read; a
 * name of what standard output is (/dev/stdout into a pipe) is written as
 * "-"; never over the input, nor mixed with --table. */
static int check_out(struct plot_opts *o)
{
	const char *given = o->out, *why;

	if (bench__output_check(o->out, &why)) {
		tool_error("plot: --out: cannot write '%s': %s", o->out, why);
		return -1;
	}
	if (bench__output_is_stdout(o->out))
		o->out = "-";
	if (o->table && !strcmp(o->out, "-")) {
		tool_error("plot: --table and --out %s would mix on standard output", given);
		return -1;
	}
	if (strcmp(o->in, "-") && bench__output_same(o->in, o->out)) {
		tool_error("plot: --out '%s' is the input file", given);
		return -1;
	}
	return 0;
}

/* The long options' values: 256 and up (see tool_getopt()). */
enum { OPT_OUT = 256, OPT_TABLE, OPT_HELP };

static int take_option(void *ctx, int opt, char *arg)
{
	struct plot_opts *o = ctx;

	if (opt == OPT_TABLE)
		o->table = true;
	else
		o->out = arg; /* -o, --out */
	return 0;
}

/* 0: parsed; 1: --help was asked for; -1: a usage error, printed. */
static int parse(int argc, char **argv, struct plot_opts *o)
{
	static const struct option longopts[] = {
		{ "out", required_argument, NULL, OPT_OUT },
		{ "table", no_argument, NULL, OPT_TABLE },
		{ "help", no_argument, NULL, OPT_HELP },
		{ NULL, 0, NULL, 0 },
	};
	int rc = tool_getopt("plot", argc, argv, ":ho:", longopts, take_option, o);

	if (rc)
		return rc;
	for (; optind < argc; optind++) {
		if (o->in) {
			tool_error("plot: one input file only ('%s' and '%s')", o->in, argv[optind]);
			return -1;
		}
		o->in = argv[optind];
	}
	if (!o->in || (!o->out && !o->table)) {
		tool_error("plot: missing %s (try 'cyclock plot --help')",
			   !o->in ? "FILE.json" : "--out FILE.svg");
		return -1;
	}
	return o->out ? check_out(o) : 0;
}

/* ---- the picture ---- */

#define HEADER_H 56.0

/* The title and the machine's line, each cut to the picture's width (a
 * CPU model or a kernel's version is whatever the file says). */
static void header(struct svg *s, const struct bench_run *run, const char *in)
{
	const struct bench_context *ctx = &run->ctx;
	double w = SVG_WIDTH - 2 * SVG_MARGIN;

	svg_text_fit(s, SVG_MARGIN, 24, "title", w, "What time costs%s%s",
		     ctx->cpu_model[0] ? " on " : "", ctx->cpu_model);
	if (ctx->arch[0] || ctx->kernel[0])
		svg_text_fit(s, SVG_MARGIN, 44, "small", w, "%s%s%s%s%s%s%s", ctx->arch,
			     ctx->kernel[0] ? ", " : "", ctx->kernel,
			     ctx->clocksource[0] ? ", kernel clocksource " : "", ctx->clocksource,
			     ctx->date[0] ? ", " : "", ctx->date);
	else
		svg_text_fit(s, SVG_MARGIN, 44, "small", w, "from %s", in);
}

/* Draws every panel the run has below the header; the height in all, 0
 * when no panel had anything to show, -1 when out of memory. */
static double draw(struct svg *s, const struct bench_run *run, const char *in)
{
	static double (*const panels[])(struct svg *, double, const struct bench_run *) = {
		tool_plot_cost, tool_plot_scale, tool_plot_resolution,
	};
	double y = HEADER_H;

	header(s, run, in);
	for (size_t i = 0; i < sizeof(panels) / sizeof(panels[0]); i++) {
		double h = panels[i](s, y, run);

		if (h < 0)
			return -1;
		y += h;
	}
	return y > HEADER_H ? y + 8 : 0;
}

/* The whole document into a buffer the caller frees, with its length;
 * NULL with *@nothing set when the run had nothing to plot. */
static char *render(const struct bench_run *run, const char *in, size_t *len, bool *nothing)
{
	char *body = NULL, *doc = NULL, title[256];
	size_t body_len = 0;
	struct svg s = { .f = open_memstream(&body, &body_len) };
	FILE *f;
	double h;

	*nothing = false;
	if (!s.f)
		return NULL;
	h = draw(&s, run, in);
	if (fclose(s.f) || h <= 0) {
		*nothing = h == 0;
		free(body);
		return NULL;
	}
	snprintf(title, sizeof(title), "cyclock: what time costs (%s)", in);
	f = open_memstream(&doc, len);
	if (f && svg_finish(f, h, title, body, body_len)) {
		fclose(f);
		f = NULL;
	}
	if (!f || fclose(f)) {
		free(doc);
		doc = NULL;
	}
	free(body);
	return doc;
}

static int plot(const struct bench_run *run, const struct plot_opts *o)
{
	bool nothing;
	size_t len = 0;
	char *doc = render(run, o->in, &len, &nothing);
	int ret;

	if (!doc && nothing) {
		tool_error("plot: %s: nothing to plot: no warm, scale or resolution time to draw",
			   o->in);
		return EXIT_INPUT;
	}
	if (!doc) {
		tool_error("plot: out of memory");
		return EXIT_FAIL;
	}
	ret = bench__write_file(o->out, doc, len) ? EXIT_FAIL : EXIT_OK;
	free(doc);
	return ret;
}

int cmd_plot(int argc, char **argv)
{
	struct plot_opts o = { 0 };
	struct bench_run run;
	char err[512];
	int ret = parse(argc, argv, &o);

	if (ret) {
		if (ret > 0)
			usage(stdout);
		return ret > 0 ? EXIT_OK : EXIT_USAGE;
	}
	bench_run_init(&run);
	if (bench_read_json(o.in, &run, err, sizeof(err))) {
		tool_error("plot: %s", err);
		return EXIT_INPUT;
	}
	/* The file first: a reader of the table that stops early ("| head",
	 * SIGPIPE) must not cost it.  Standard output is checked in main(). */
	ret = o.out ? plot(&run, &o) : EXIT_OK;
	if (o.table)
		bench_report_table(stdout, &run);
	bench_run_free(&run);
	return ret;
}
