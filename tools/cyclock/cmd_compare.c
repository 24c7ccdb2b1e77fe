/* SPDX-License-Identifier: MIT */
/*
 * cyclock compare BASE.json NEW.json [MORE.json...]: one table of medians
 * in the manner of mmtests' compare-kernels, each further file with its
 * change against the base.  A change is called better or worse only when
 * it is larger than the noise: the threshold, and the spread of the
 * repetitions in either file, because these machines are shared and a
 * figure that moved less than its own repetitions disagree has not moved.
 * When the files come from different machines, kernels or builds, that
 * is said first, since it explains more differences than any patch.
 *
 * This file parses the command line and labels the files; compare_input.c
 * loads each, compare_table.c builds the table from them and prints it.
 */
#include <errno.h>
#include <getopt.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "cmd.h"
#include "compare.h"

static void usage(FILE *f)
{
	fputs("usage: cyclock compare [--threshold PCT] BASE.json NEW.json [MORE.json...]\n\n"
	      "A table of the median of every benchmark in BASE.json, then for each\n"
	      "further file its median and the change against BASE in percent.  A change\n"
	      "is marked better or worse only beyond the noise: PCT (default 5) and the\n"
	      "spread of either file's repetitions.  Lower is better unless the benchmark\n"
	      "is marked [H].  Benchmarks only in the further files come last.  The files\n"
	      "are cyclock's JSON (cyclock bench --json) or any Google Benchmark's.\n\n"
	      "  --threshold PCT  the smallest change in percent that counts (default 5)\n"
	      "  -h, --help       this help\n\n"
	      "Exit status: 0, 2 bad command line, 3 unreadable, malformed or mismatched\n"
	      "input.\n", f);
}

/* The last @depth components of @path. */
static const char *tail_of(const char *path, int depth)
{
	const char *p = path + strlen(path);

	while (p > path) {
		if (p[-1] == '/' && --depth == 0)
			break;
		p--;
	}
	return p;
}

static size_t char_width(const char *s)
{
	char one[5] = { 0 };

	memcpy(one, s, bench_text_char_len(s));
	return bench_text_width(one);
}

/* The bytes of @s's longest start of at most @cols columns and @bytes. */
static size_t head_len(const char *s, size_t cols, size_t bytes)
{
	size_t at = 0, w = 0;

	while (s[at]) {
		size_t n = bench_text_char_len(s + at), cw = char_width(s + at);

		if (w + cw > cols || at + n > bytes)
			break;
		w += cw;
		at += n;
	}
	return at;
}

/* Where @s's longest end of at most @cols columns and @bytes starts, not
 * at a mark that combines with what it would follow ("..."). */
static size_t tail_at(const char *s, size_t cols, size_t bytes)
{
	size_t len = strlen(s), at = len, w = 0;

	while (at > 0) {
		size_t start = at - 1, cw;

		/* Back to the first byte of the character before @at. */
		while (start > 0 && ((unsigned char)s[start] & 0xc0) == 0x80)
			start--;
		cw = char_width(s + start);
		if (w + cw > cols || len - start > bytes)
			break;
		w += cw;
		at = start;
	}
	while (s[at] && char_width(s + at) == 0)
		at += bench_text_char_len(s + at);
	return at;
}

/* @path's last @depth components, with what could drive a terminal made
 * visible (a file name is any bytes), cut in the middle to LABEL_MAX
 * columns at characters' boundaries. */
static void set_label(struct input *in, int depth)
{
	const char *t = tail_of(in->path, depth);
	size_t size = 4 * strlen(t) + 1, half = (sizeof(in->label) - 4) / 2, head;
	char *clean = malloc(size);

	if (!clean) {
		snprintf(in->label, sizeof(in->label), "?");
		return;
	}
	bench_text_clean(clean, size, t);
	if (bench_text_width(clean) <= LABEL_MAX && strlen(clean) < sizeof(in->label)) {
		snprintf(in->label, sizeof(in->label), "%s", clean);
	} else {
		head = head_len(clean, LABEL_MAX / 2 - 2, half);
		snprintf(in->label, sizeof(in->label), "%.*s...%s", (int)head, clean,
			 clean + tail_at(clean, LABEL_MAX / 2 - 1, half));
	}
	free(clean);
}

/* Column headers: file names, with as many directories as it takes to
 * tell them apart; just the names when nothing does (a file twice). */
static void make_labels(struct input *in, size_t n)
{
	for (int depth = 1; depth <= 4; depth++) {
		bool unique = true;

		for (size_t i = 0; i < n; i++)
			set_label(&in[i], depth);
		for (size_t i = 0; i < n; i++)
			for (size_t j = 0; j < i; j++)
				unique &= strcmp(in[i].label, in[j].label) != 0;
		if (unique)
			return;
	}
	for (size_t i = 0; i < n; i++)
		set_label(&in[i], 1);
}

/* 0 when @b shares a benchmark name with @a, else -1 after saying so. */
static int common(const struct input *a, const struct input *b)
{
	for (size_t i = 0; i < a->run.n; i++)
		if (tool_compare_lookup(b, a->run.v[i].name))
			return 0;
	tool_error("mismatched: no benchmark in common between %s and %s", a->path, b->path);
	return -1;
}

static int parse_threshold(const char *s, double *v)
{
	char *end;

	errno = 0;
	*v = strtod(s, &end);
	if (errno || end == s || *end || !(*v >= 0 && *v <= 1e6)) {
		tool_error("compare: --threshold wants a percentage from 0 to 1000000, not '%s'", s);
		return -1;
	}
	return 0;
}

static int take_option(void *ctx, int opt, char *arg)
{
	(void)opt; /* -t, --threshold: the one option */
	return parse_threshold(arg, ctx);
}

/* Options into @threshold; the first file's index, or -1 (after printing
 * why, or the help with *@help set). */
static int parse_args(int argc, char **argv, double *threshold, bool *help)
{
	/* The long options' values: 256 and up (see tool_getopt()). */
	enum { OPT_THRESHOLD = 256, OPT_HELP };
	static const struct option longopts[] = {
		{ "threshold", required_argument, NULL, OPT_THRESHOLD },
		{ "help", no_argument, NULL, OPT_HELP },
		{ NULL, 0, NULL, 0 },
	};
	int rc = tool_getopt("compare", argc, argv, ":ht:", longopts, take_option, threshold);

	if (rc > 0) {
		usage(stdout);
		*help = true;
	}
	if (rc)
		return -1;
	if (argc - optind < 2) {
		tool_error("compare: needs two files or more (see cyclock compare --help)");
		return -1;
	}
	return optind;
}

/* Reads every file and checks that each shares a benchmark with the base. */
static int load_all(struct input *in, size_t n)
{
	for (size_t k = 0; k < n; k++)
		if (tool_compare_load(&in[k]) || (k && common(&in[0], &in[k])))
			return -1;
	make_labels(in, n);
	return 0;
}

int cmd_compare(int argc, char **argv)
{
	double threshold = 5;
	bool help = false;
	int first = parse_args(argc, argv, &threshold, &help);
	size_t n = first < 0 ? 0 : (size_t)(argc - first);
	struct input *in = n ? calloc(n, sizeof(*in)) : NULL;
	int ret;

	if (first < 0)
		return help ? EXIT_OK : EXIT_USAGE;
	if (!in) {
		tool_error("compare: out of memory");
		return EXIT_FAIL;
	}
	for (size_t k = 0; k < n; k++)
		in[k].path = argv[first + (int)k];
	if (load_all(in, n))
		ret = EXIT_INPUT;
	else
		ret = tool_compare_report(in, n, threshold) ? EXIT_FAIL : EXIT_OK;
	for (size_t k = 0; k < n; k++) {
		bench_run_free(&in[k].run);
		free(in[k].sorted);
	}
	free(in);
	return ret;
}
