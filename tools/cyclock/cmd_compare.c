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
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "cmd.h"

#define LABEL_MAX 24 /* a column header's width at most */

/* One file: its run, its column header and its names sorted for lookup. */
struct input {
	const char *path;
	char label[LABEL_MAX + 1];
	struct bench_run run;
	const struct bench_result **sorted;
};

/* One cell of the table: a median, its change and the verdict. */
struct cell {
	char val[32];     /* the median, or "-" when the file lacks the benchmark */
	char pct[24];     /* "(-10.00%)", or "" */
	const char *mark; /* "better", "worse" or "" */
};

struct table {
	size_t rows, cols;
	const struct bench_result **row; /* the result that names each row */
	struct cell *cell;               /* rows x cols */
};

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

static int cmp_result(const void *a, const void *b)
{
	const struct bench_result *x = *(const struct bench_result *const *)a;
	const struct bench_result *y = *(const struct bench_result *const *)b;

	return strcmp(x->name, y->name);
}

static const struct bench_result *lookup(const struct input *in, const char *name)
{
	struct bench_result key;
	const struct bench_result *k = &key, **hit;

	snprintf(key.name, sizeof(key.name), "%s", name);
	hit = bsearch(&k, in->sorted, in->run.n, sizeof(*in->sorted), cmp_result);
	return hit ? *hit : NULL;
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

/* @path's last @depth components, cut in the middle to LABEL_MAX. */
static void set_label(struct input *in, int depth)
{
	const char *t = tail_of(in->path, depth);
	size_t len = strlen(t);

	if (len > LABEL_MAX)
		snprintf(in->label, sizeof(in->label), "%.*s...%s", LABEL_MAX / 2 - 2, t,
			 t + len - (LABEL_MAX / 2 - 1));
	else
		snprintf(in->label, sizeof(in->label), "%s", t);
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

static int load(struct input *in)
{
	char err[512];

	bench_run_init(&in->run);
	if (bench_read_json(in->path, &in->run, err, sizeof(err))) {
		tool_error("%s", err);
		return -1;
	}
	in->sorted = malloc(in->run.n * sizeof(*in->sorted));
	if (!in->sorted) {
		tool_error("%s: out of memory", in->path);
		return -1;
	}
	for (size_t i = 0; i < in->run.n; i++)
		in->sorted[i] = &in->run.v[i];
	qsort(in->sorted, in->run.n, sizeof(*in->sorted), cmp_result);
	return 0;
}

/* 0 when @b shares a benchmark name with @a, else -1 after saying so. */
static int common(const struct input *a, const struct input *b)
{
	for (size_t i = 0; i < a->run.n; i++)
		if (lookup(b, a->run.v[i].name))
			return 0;
	tool_error("mismatched: no benchmark in common between %s and %s", a->path, b->path);
	return -1;
}

/* Whether a change of @pct percent is beyond the noise of @a and @b. */
static bool beyond_noise(double pct, const struct bench_result *a,
			 const struct bench_result *b, double threshold)
{
	double noise = fmax(threshold, 100 * fmax(a->st.spread, b->st.spread));

	return fabs(pct) > noise;
}

static void fill_cell(struct cell *c, const struct bench_result *base,
		      const struct bench_result *r, double threshold)
{
	double pct;

	c->mark = "";
	c->pct[0] = '\0';
	if (!r) {
		snprintf(c->val, sizeof(c->val), "-");
		return;
	}
	snprintf(c->val, sizeof(c->val), "%.2f", r->st.median);
	if (!base || r == base)
		return;
	if (!(base->st.median > 0)) {
		snprintf(c->pct, sizeof(c->pct), "(n/a)");
		return;
	}
	pct = (r->st.median - base->st.median) / base->st.median * 100;
	snprintf(c->pct, sizeof(c->pct), "(%+.2f%%)", pct);
	if (beyond_noise(pct, base, r, threshold))
		c->mark = (pct < 0) != base->higher_is_better ? "better" : "worse";
}

/* Whether @name is a row already: in the base or a file before @k. */
static bool seen_before(const struct input *in, size_t k, const char *name)
{
	for (size_t j = 0; j < k; j++)
		if (lookup(&in[j], name))
			return true;
	return false;
}

static void add_row(struct table *t, const struct bench_result *r, const struct input *in,
		    size_t n, double threshold)
{
	const struct bench_result *base = lookup(&in[0], r->name);

	t->row[t->rows] = r;
	for (size_t k = 0; k < n; k++)
		fill_cell(&t->cell[t->rows * n + k], base,
			  k ? lookup(&in[k], r->name) : base, threshold);
	t->rows++;
}

/* The base's benchmarks in its order, then those only in the further
 * files in theirs. */
static int make_table(struct table *t, const struct input *in, size_t n, double threshold)
{
	size_t max = 0;

	for (size_t k = 0; k < n; k++)
		max += in[k].run.n;
	t->rows = 0;
	t->cols = n;
	t->row = malloc(max * sizeof(*t->row));
	t->cell = malloc(max * n * sizeof(*t->cell));
	if (!t->row || !t->cell) {
		tool_error("compare: out of memory");
		return -1;
	}
	for (size_t i = 0; i < in[0].run.n; i++)
		add_row(t, &in[0].run.v[i], in, n, threshold);
	for (size_t k = 1; k < n; k++)
		for (size_t i = 0; i < in[k].run.n; i++)
			if (!seen_before(in, k, in[k].run.v[i].name))
				add_row(t, &in[k].run.v[i], in, n, threshold);
	return 0;
}

/* A column's width, and for a further file's the widths of its parts. */
struct colw {
	size_t w, val, pct, mark;
};

static size_t imax(size_t a, size_t b)
{
	return a > b ? a : b;
}

/* Appends @s to *@p, padded to @width on the left (@right) or the right. */
static void pad(char **p, const char *s, size_t width, bool right)
{
	size_t len = strlen(s), gap = width > len ? width - len : 0;

	if (right) {
		memset(*p, ' ', gap);
		*p += gap;
	}
	memcpy(*p, s, len);
	*p += len;
	if (!right) {
		memset(*p, ' ', gap);
		*p += gap;
	}
}

/* Prints @line up to @p without the spaces that padding left at its end. */
static void put_line(char *line, char *p)
{
	while (p > line && p[-1] == ' ')
		p--;
	*p = '\0';
	puts(line);
}

static void put_row(const struct table *t, size_t i, const struct colw *cw, size_t name_w,
		    char *line)
{
	char *p = line, name[sizeof(t->row[i]->name) + 8];

	snprintf(name, sizeof(name), "%s%s", t->row[i]->name,
		 t->row[i]->higher_is_better ? " [H]" : "");
	pad(&p, name, name_w, false);
	for (size_t k = 0; k < t->cols; k++) {
		const struct cell *c = &t->cell[i * t->cols + k];
		char *start;

		pad(&p, "   ", 3, false);
		if (k == 0) {
			pad(&p, c->val, cw[0].w, true);
			continue;
		}
		start = p;
		pad(&p, c->val, cw[k].val, true);
		if (cw[k].pct) {
			*p++ = ' ';
			pad(&p, c->pct, cw[k].pct, true);
		}
		if (cw[k].mark) {
			*p++ = ' ';
			pad(&p, c->mark, cw[k].mark, false);
		}
		pad(&p, "", cw[k].w - (size_t)(p - start), false);
	}
	put_line(line, p);
}

/* The widths of every column; returns the name column's. */
static size_t widths(const struct table *t, const struct input *in, struct colw *cw)
{
	size_t name_w = strlen("benchmark");

	for (size_t i = 0; i < t->rows; i++) {
		const struct bench_result *r = t->row[i];

		name_w = imax(name_w, strlen(r->name) + (r->higher_is_better ? 4 : 0));
	}
	for (size_t k = 0; k < t->cols; k++) {
		struct colw *c = &cw[k];

		*c = (struct colw){ 0, 0, 0, 0 };
		for (size_t i = 0; i < t->rows; i++) {
			const struct cell *x = &t->cell[i * t->cols + k];

			c->val = imax(c->val, strlen(x->val));
			c->pct = imax(c->pct, strlen(x->pct));
			c->mark = imax(c->mark, strlen(x->mark));
		}
		c->w = c->val + (c->pct ? c->pct + 1 : 0) + (c->mark ? c->mark + 1 : 0);
		c->w = imax(c->w, strlen(in[k].label));
	}
	return name_w;
}

static int print_table(const struct table *t, const struct input *in)
{
	struct colw *cw = malloc(t->cols * sizeof(*cw));
	size_t name_w, len;
	char *line, *p;

	if (!cw)
		return -1;
	name_w = widths(t, in, cw);
	len = name_w + 1;
	for (size_t k = 0; k < t->cols; k++)
		len += 3 + cw[k].w;
	line = malloc(len);
	if (line) {
		p = line;
		pad(&p, "benchmark", name_w, false);
		for (size_t k = 0; k < t->cols; k++) {
			pad(&p, "   ", 3, false);
			pad(&p, in[k].label, cw[k].w, false);
		}
		put_line(line, p);
		for (size_t i = 0; i < t->rows; i++)
			put_row(t, i, cw, name_w, line);
	}
	free(line);
	free(cw);
	return line ? 0 : -1;
}

/* What must match for a comparison to be about the change alone. */
static const struct {
	const char *what;
	size_t off;
} context_keys[] = {
	{ "cpu model", offsetof(struct bench_context, cpu_model) },
	{ "kernel", offsetof(struct bench_context, kernel) },
	{ "clocksource", offsetof(struct bench_context, clocksource) },
	{ "cyclock version", offsetof(struct bench_context, version) },
	{ "build type", offsetof(struct bench_context, build_type) },
};

static const char *context_str(const struct input *in, size_t key)
{
	return (const char *)&in->run.ctx + context_keys[key].off;
}

static void print_context(const struct input *in, size_t n)
{
	bool any = false;

	for (size_t key = 0; key < sizeof(context_keys) / sizeof(context_keys[0]); key++) {
		bool differ = false;

		for (size_t k = 1; k < n; k++)
			differ |= strcmp(context_str(&in[0], key), context_str(&in[k], key)) != 0;
		if (!differ)
			continue;
		if (!any)
			puts("context differs:");
		any = true;
		printf("  %s:", context_keys[key].what);
		for (size_t k = 0; k < n; k++)
			printf("%s %s \"%s\"", k ? "," : "", in[k].label, context_str(&in[k], key));
		putchar('\n');
	}
	if (any)
		putchar('\n');
}

static int parse_threshold(const char *s, double *v)
{
	char *end;

	errno = 0;
	*v = strtod(s, &end);
	if (errno || end == s || *end || !(*v >= 0 && *v <= 1e6)) {
		tool_error("compare: --threshold: not a percentage: '%s'", s);
		return -1;
	}
	return 0;
}

/* Options into @threshold; the first file's index, or -1 (after printing
 * why, or the help with *@help set). */
static int parse_args(int argc, char **argv, double *threshold, bool *help)
{
	static const struct option longopts[] = {
		{ "threshold", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int opt;

	optind = 0; /* GNU: start afresh; main() may run two commands */
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":ht:", longopts, NULL)) != -1) {
		if (opt == 'h') {
			usage(stdout);
			*help = true;
			return -1;
		} else if (opt == 't') {
			if (parse_threshold(optarg, threshold))
				return -1;
		} else if (opt == ':') {
			tool_error("compare: %s needs a value", argv[optind - 1]);
			return -1;
		} else {
			tool_error("compare: unknown option '%s' (see cyclock compare --help)",
				   argv[optind - 1]);
			return -1;
		}
	}
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
		if (load(&in[k]) || (k && common(&in[0], &in[k])))
			return -1;
	make_labels(in, n);
	return 0;
}

static int report(const struct input *in, size_t n, double threshold)
{
	struct table t = { 0 };
	int ret = make_table(&t, in, n, threshold);

	if (!ret) {
		print_context(in, n);
		ret = print_table(&t, in);
		printf("\nmedians in ns, lower is better ([H]: higher is better); better/worse: "
		       "changed by more than %.2f%% and the spread of either file; "
		       "-: not in that file\n", threshold);
	}
	free(t.row);
	free(t.cell);
	if (ret)
		tool_error("compare: out of memory");
	if (fflush(stdout) || ferror(stdout)) {
		tool_error("compare: standard output: %s", strerror(errno));
		ret = -1;
	}
	return ret;
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
	ret = load_all(in, n) ? EXIT_INPUT : report(in, n, threshold) ? EXIT_FAIL : EXIT_OK;
	for (size_t k = 0; k < n; k++) {
		bench_run_free(&in[k].run);
		free(in[k].sorted);
	}
	free(in);
	return ret;
}
