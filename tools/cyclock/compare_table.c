/* SPDX-License-Identifier: MIT */
/*
 * The table of "cyclock compare": a row per benchmark, the base's first
 * in its order, then those only in the further files; a column per file,
 * each further file's cell with its change against the base and, when
 * the change is beyond the noise, the verdict.  Widths come from the
 * content; the context that differs between the files is printed first.
 */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "cmd.h"
#include "compare.h"

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
	/* A figure that is not a number is said in words, never "nan". */
	snprintf(c->val, sizeof(c->val), isfinite(r->st.median) ? "%.2f" : "n/a", r->st.median);
	if (!base || r == base)
		return;
	pct = (r->st.median - base->st.median) / base->st.median * 100;
	if (!(base->st.median > 0) || !isfinite(pct)) {
		snprintf(c->pct, sizeof(c->pct), "(n/a)");
		return;
	}
	snprintf(c->pct, sizeof(c->pct), "(%+.2f%%)", pct);
	if (beyond_noise(pct, base, r, threshold))
		c->mark = (pct < 0) != base->higher_is_better ? "better" : "worse";
}

/* Whether @name is a row already: in the base or a file before @k. */
static bool seen_before(const struct input *in, size_t k, const char *name)
{
	for (size_t j = 0; j < k; j++)
		if (tool_compare_lookup(&in[j], name))
			return true;
	return false;
}

static void add_row(struct table *t, const struct bench_result *r, const struct input *in,
		    size_t n, double threshold)
{
	const struct bench_result *base = tool_compare_lookup(&in[0], r->name);

	t->row[t->rows] = r;
	for (size_t k = 0; k < n; k++)
		fill_cell(&t->cell[t->rows * n + k], base,
			  k ? tool_compare_lookup(&in[k], r->name) : base, threshold);
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

/* A column's width in terminal columns, and for a further file's the
 * widths of its parts; @bytes: the most bytes its text takes (a column of
 * "zürich" is 6 wide, 7 bytes), for the line's buffer. */
struct colw {
	size_t w, val, pct, mark, bytes;
};

static size_t imax(size_t a, size_t b)
{
	return a > b ? a : b;
}

/* Appends @s to *@p, padded to @width columns on the left (@right) or the
 * right. */
static void pad(char **p, const char *s, size_t width, bool right)
{
	size_t len = strlen(s), cols = bench_text_width(s), gap = width > cols ? width - cols : 0;

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

		pad(&p, "   ", 3, false);
		if (k == 0) {
			pad(&p, c->val, cw[0].w, true);
			continue;
		}
		pad(&p, c->val, cw[k].val, true);
		if (cw[k].pct) {
			*p++ = ' ';
			pad(&p, c->pct, cw[k].pct, true);
		}
		if (cw[k].mark) {
			*p++ = ' ';
			pad(&p, c->mark, cw[k].mark, false);
		}
		/* Each part was padded to its width: the columns used so far. */
		pad(&p, "", cw[k].w - (cw[k].val + (cw[k].pct ? cw[k].pct + 1 : 0) +
				       (cw[k].mark ? cw[k].mark + 1 : 0)), false);
	}
	put_line(line, p);
}

/* The widths of every column, and the name column's in @name (w and
 * bytes). */
static void widths(const struct table *t, const struct input *in, struct colw *cw,
		   struct colw *name)
{
	*name = (struct colw){ .w = strlen("benchmark"), .bytes = strlen("benchmark") };
	for (size_t i = 0; i < t->rows; i++) {
		const struct bench_result *r = t->row[i];
		size_t h = r->higher_is_better ? 4 : 0;

		name->w = imax(name->w, bench_text_width(r->name) + h);
		name->bytes = imax(name->bytes, strlen(r->name) + h);
	}
	for (size_t k = 0; k < t->cols; k++) {
		struct colw *c = &cw[k];

		*c = (struct colw){ 0, 0, 0, 0, strlen(in[k].label) };
		for (size_t i = 0; i < t->rows; i++) {
			const struct cell *x = &t->cell[i * t->cols + k];

			c->val = imax(c->val, bench_text_width(x->val));
			c->pct = imax(c->pct, bench_text_width(x->pct));
			c->mark = imax(c->mark, bench_text_width(x->mark));
			c->bytes = imax(c->bytes, strlen(x->val) + strlen(x->pct) + strlen(x->mark) + 2);
		}
		c->w = c->val + (c->pct ? c->pct + 1 : 0) + (c->mark ? c->mark + 1 : 0);
		c->w = imax(c->w, bench_text_width(in[k].label));
	}
}

static int print_table(const struct table *t, const struct input *in)
{
	struct colw *cw = malloc(t->cols * sizeof(*cw)), name;
	size_t name_w, len;
	char *line, *p;

	if (!cw)
		return -1;
	widths(t, in, cw, &name);
	name_w = name.w;
	/* Each column's padding is at most its width, its text at most its
	 * bytes. */
	len = name.w + name.bytes + 1;
	for (size_t k = 0; k < t->cols; k++)
		len += 3 + cw[k].w + cw[k].bytes;
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

int tool_compare_report(const struct input *in, size_t n, double threshold)
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
	return ret; /* standard output is checked in main() */
}
