/* SPDX-License-Identifier: MIT */
/*
 * A run as CSV for spreadsheets and scripts: one row per result with its
 * statistics, then one column per extra figure any result has. 
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"

static const char *const columns[] = {
	"name", "scenario", "clock", "variant", "threads", "iterations", "repetitions",
	"median_ns", "min_ns", "p90_ns", "p99_ns", "mean_ns", "stddev_ns", "spread",
	"noisy",
};

/* RFC 4180: a field with a comma, a quote or a line break is quoted, and
 * its quotes doubled. */
static void field(FILE *f, const char *s, bool first)
{
	if (!first)
		fputc(',', f);
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

/* A figure; empty when it is not a number. */
static void number(FILE *f, double v)
{
	if (isfinite(v))
		fprintf(f, ",%.15g", v);
	else
		fputc(',', f);
}

/* The extra figures' keys, each once, in order of first appearance; *@n is
 * set.  NULL (with *@n 0) when there are none or no memory. */
static const char **extra_keys(const struct bench_run *run, size_t *n)
{
	const char **keys = malloc((run->n * BENCH_MAX_EXTRA + 1) * sizeof(*keys));

	*n = 0;
	for (size_t i = 0; keys && i < run->n; i++) {
		const struct bench_result *r = &run->v[i];

		for (size_t k = 0; k < r->n_extra && k < BENCH_MAX_EXTRA; k++) {
			size_t j = 0;

			while (j < *n && strcmp(keys[j], r->extra[k].key) != 0)
				j++;
			if (j == *n)
				keys[(*n)++] = r->extra[k].key;
		}
	}
	return keys;
}

static void row(FILE *f, const struct bench_result *r, const char **keys, size_t n_keys)
{
	field(f, r->name, true);
	field(f, r->scenario, false);
	field(f, r->clock, false);
	field(f, r->variant, false);
	fprintf(f, ",%d,%ld,%zu", r->threads, r->iterations, r->n_samples);
	number(f, r->st.median);
	number(f, r->st.min);
	number(f, r->st.p90);
	number(f, r->st.p99);
	number(f, r->st.mean);
	number(f, r->st.stddev);
	number(f, r->st.spread);
	fprintf(f, ",%d", r->noisy ? 1 : 0);
	for (size_t k = 0; k < n_keys; k++)
		number(f, bench_result_get(r, keys[k]));
	fputc('\n', f);
}

int bench_write_csv(const char *path, const struct bench_run *run)
{
	size_t n_keys, len = 0;
	const char **keys = extra_keys(run, &n_keys);
	char *text = NULL;
	FILE *f = keys ? open_memstream(&text, &len) : NULL;
	bool ok = f != NULL;
	int ret = -1;

	if (f) {
		for (size_t c = 0; c < sizeof(columns) / sizeof(columns[0]); c++)
			field(f, columns[c], c == 0);
		for (size_t k = 0; k < n_keys; k++)
			field(f, keys[k], false);
		fputc('\n', f);
		for (size_t i = 0; i < run->n; i++)
			row(f, &run->v[i], keys, n_keys);
		ok = !ferror(f);
		ok = fclose(f) == 0 && ok;
	}
	/* A memory stream fails only for want of memory. */
	if (!ok)
		bench_error("%s: out of memory", path);
	else
		ret = bench__write_file(path, text, len);
	free(text);
	free(keys);
	return ret;
}
