/* SPDX-License-Identifier: MIT */
/*
 * Reads a run back from Google Benchmark's JSON format: cyclock's own files
 * and those of any Google Benchmark program.  A benchmark is a name; its
 * samples are its "iteration" entries in repetition order, or, in a file
 * written with --benchmark_report_aggregates_only, its median aggregate.
 * Other aggregates (mean, stddev, cv, BigO, RMS) are Google Benchmark's
 * summaries of the same samples and are skipped.
 *
 * The input is untrusted (the fuzzer drives bench_parse_json()): every
 * field is checked before use, every failure is one line in @err, and the
 * run is left empty on failure so that nothing half-read is compared.
 */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench.h"

#define MAX_BENCHMARKS 100000        /* distinct names in one file */
#define MAX_SAMPLES 100000           /* repetitions of one name */
#define MAX_FILE_BYTES (64L << 20)
#define MAX_TIME_NS 1e18             /* 31 years: anything longer is garbage */

/* One benchmark name: its entries are chained through reader.next. */
struct group {
	char *key;
	size_t head, tail, n; /* iteration entries, by index */
	size_t median;        /* the median aggregate's index, or SIZE_MAX */
};

struct reader {
	json_t *entries;   /* the "benchmarks" array */
	json_t *index;     /* name -> group number */
	struct group *g;
	size_t ng, cap;
	size_t *next;      /* per entry: the next entry of its group */
	double *ns;        /* per entry: its real_time in ns */
	long *rep;         /* per entry: its repetition_index */
	char *err;
	size_t errlen;
};

enum kind { SKIP, ITERATION, MEDIAN };

__attribute__((format(printf, 2, 3)))
static int fail(struct reader *rd, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(rd->err, rd->errlen, fmt, ap);
	va_end(ap);
	/* Quoted input (jansson's "near '...'", a run_type) may hold line
	 * breaks; the error is one line. */
	for (char *p = rd->err; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
	return -1;
}

/* Copies @s into @dst, cutting at a character boundary so that what is
 * written back out stays UTF-8. */
static void copy_str(char *dst, size_t size, const char *s)
{
	size_t n = strlen(s);

	if (n >= size) {
		n = size - 1;
		while (n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80)
			n--;
	}
	memcpy(dst, s, n);
	dst[n] = '\0';
}

static const char *opt_str(const json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

/* Google Benchmark's time units, in ns; 0 for an unknown one. */
static double unit_ns(const char *unit)
{
	static const struct { const char *name; double ns; } units[] = {
		{ "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 },
	};

	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (strcmp(unit, units[i].name) == 0)
			return units[i].ns;
	return 0;
}

/* Optional integer @key of entry @i in [0, max], else *@v stays. */
static int opt_int(struct reader *rd, size_t i, const char *key, long max, long *v)
{
	const json_t *j = json_object_get(json_array_get(rd->entries, i), key);
	double d;

	if (!j)
		return 0;
	if (!json_is_number(j))
		return fail(rd, "benchmarks[%zu]: \"%s\" is not a number", i, key);
	d = json_number_value(j);
	if (!(d >= 0 && d <= (double)max) || d != floor(d))
		return fail(rd, "benchmarks[%zu]: \"%s\" is not an integer from 0 to %ld",
			    i, key, max);
	*v = (long)d;
	return 0;
}

/* The real_time of entry @i in ns, checked, into rd->ns[i]. */
static int read_time(struct reader *rd, size_t i, const json_t *e)
{
	const json_t *t = json_object_get(e, "real_time");
	const json_t *u = json_object_get(e, "time_unit");
	double mult = 1, v;

	if (!t)
		return fail(rd, "benchmarks[%zu]: no \"real_time\"", i);
	if (!json_is_number(t))
		return fail(rd, "benchmarks[%zu]: \"real_time\" is not a number", i);
	if (u && !json_is_string(u))
		return fail(rd, "benchmarks[%zu]: \"time_unit\" is not a string", i);
	if (u && !(mult = unit_ns(json_string_value(u))))
		return fail(rd, "benchmarks[%zu]: unknown time_unit \"%.40s\"", i,
			    json_string_value(u));
	v = json_number_value(t);
	if (v < 0)
		return fail(rd, "benchmarks[%zu]: \"real_time\" is negative", i);
	v *= mult;
	if (!(v <= MAX_TIME_NS))
		return fail(rd, "benchmarks[%zu]: \"real_time\" is out of range", i);
	rd->ns[i] = v;
	return 0;
}

/* Which aggregate entry @e is: a median stands for its benchmark, named
 * by its run_name or by its name without "_median"; an aggregate without
 * a name (as old Google Benchmark versions wrote) stands for itself. */
static enum kind aggregate_kind(const json_t *e, char *key, size_t size)
{
	const char *agg = opt_str(e, "aggregate_name"), *run_name = opt_str(e, "run_name");
	size_t n = strlen(key);

	if (!agg)
		return ITERATION;
	if (strcmp(agg, "median") != 0)
		return SKIP;
	if (run_name)
		copy_str(key, size, run_name);
	else if (n > 7 && strcmp(key + n - 7, "_median") == 0)
		key[n - 7] = '\0';
	return MEDIAN;
}

/* What entry @i is, and in @key the name of its benchmark, cut to the
 * length of a result's name. */
static int classify(struct reader *rd, size_t i, enum kind *kind, char *key, size_t size)
{
	const json_t *e = json_array_get(rd->entries, i);
	const char *name = opt_str(e, "name"), *type = opt_str(e, "run_type");

	if (!json_is_object(e))
		return fail(rd, "benchmarks[%zu] is not an object", i);
	if (!name)
		return fail(rd, "benchmarks[%zu]: no \"name\" string", i);
	if (json_object_get(e, "run_type") && !type)
		return fail(rd, "benchmarks[%zu]: \"run_type\" is not a string", i);
	copy_str(key, size, name);
	if (!type || strcmp(type, "iteration") == 0)
		*kind = ITERATION;
	else if (strcmp(type, "aggregate") == 0)
		*kind = aggregate_kind(e, key, size);
	else
		return fail(rd, "benchmarks[%zu]: unknown run_type \"%.40s\"", i, type);
	/* A failed benchmark of Google Benchmark's has no figure to compare. */
	if (json_is_true(json_object_get(e, "error_occurred")))
		*kind = SKIP;
	if (*kind == SKIP)
		return 0;
	rd->rep[i] = 0;
	if (read_time(rd, i, e))
		return -1;
	return opt_int(rd, i, "repetition_index", LONG_MAX / 2, &rd->rep[i]);
}

/* The group called @key, made when new; -1 when there are too many. */
static int group_of(struct reader *rd, const char *key, size_t i, size_t *gi)
{
	json_t *have = json_object_get(rd->index, key);
	struct group *g;

	if (have) {
		*gi = (size_t)json_integer_value(have);
		return 0;
	}
	if (rd->ng == MAX_BENCHMARKS)
		return fail(rd, "benchmarks[%zu]: more than %d benchmarks", i, MAX_BENCHMARKS);
	if (rd->ng == rd->cap) {
		size_t cap = rd->cap ? rd->cap * 2 : 64;
		struct group *v = realloc(rd->g, cap * sizeof(*v));

		if (!v)
			return fail(rd, "out of memory");
		rd->g = v;
		rd->cap = cap;
	}
	g = &rd->g[rd->ng];
	memset(g, 0, sizeof(*g));
	g->median = SIZE_MAX;
	g->key = strdup(key);
	if (!g->key || json_object_set_new(rd->index, key, json_integer((json_int_t)rd->ng))) {
		free(g->key);
		return fail(rd, "out of memory");
	}
	*gi = rd->ng++;
	return 0;
}

/* Files entry @i under its benchmark's name. */
static int file_entry(struct reader *rd, size_t i)
{
	char key[sizeof(((struct bench_result *)0)->name)];
	enum kind kind = SKIP;
	struct group *g;
	size_t gi = 0;

	if (classify(rd, i, &kind, key, sizeof(key)))
		return -1;
	if (kind == SKIP)
		return 0;
	if (group_of(rd, key, i, &gi))
		return -1;
	g = &rd->g[gi];
	if (kind == MEDIAN) {
		if (g->median == SIZE_MAX)
			g->median = i;
		return 0;
	}
	if (g->n == MAX_SAMPLES)
		return fail(rd, "benchmarks[%zu]: more than %d repetitions of one benchmark",
			    i, MAX_SAMPLES);
	if (g->n++)
		rd->next[g->tail] = i;
	else
		g->head = i;
	g->tail = i;
	return 0;
}

/* A sample and where it came from, to put samples in repetition order. */
struct sample {
	long rep;
	size_t at;
	double ns;
};

static int cmp_sample(const void *a, const void *b)
{
	const struct sample *x = a, *y = b;

	if (x->rep != y->rep)
		return x->rep < y->rep ? -1 : 1;
	return (x->at > y->at) - (x->at < y->at);
}

/* @g's samples in repetition order into @v: its iterations, or else its
 * median aggregate as the one sample; returns how many. */
static size_t group_samples(const struct reader *rd, const struct group *g, double *v,
			    struct sample *s)
{
	size_t i = g->head;

	if (!g->n) {
		v[0] = rd->ns[g->median];
		return 1;
	}
	for (size_t k = 0; k < g->n; k++, i = rd->next[i])
		s[k] = (struct sample){ rd->rep[i], i, rd->ns[i] };
	qsort(s, g->n, sizeof(*s), cmp_sample);
	for (size_t k = 0; k < g->n; k++)
		v[k] = s[k].ns;
	return g->n;
}

/* Labels from entry @e; what a Google Benchmark file lacks is made up:
 * the scenario is the name up to its first '/'. */
static void fill_labels(struct bench_result *r, const char *key, const json_t *e)
{
	const char *sc = opt_str(e, "scenario"), *clock = opt_str(e, "clock");
	const char *variant = opt_str(e, "variant"), *note = opt_str(e, "note");
	char *slash;

	copy_str(r->name, sizeof(r->name), key);
	copy_str(r->scenario, sizeof(r->scenario), sc ? sc : key);
	slash = sc ? NULL : strchr(r->scenario, '/');
	if (slash)
		*slash = '\0';
	copy_str(r->clock, sizeof(r->clock), clock ? clock : "");
	copy_str(r->variant, sizeof(r->variant), variant ? variant : "");
	if (!note)
		note = opt_str(e, "label");
	copy_str(r->note, sizeof(r->note), note ? note : "");
	r->noisy = json_is_true(json_object_get(e, "noisy"));
	r->higher_is_better = json_is_true(json_object_get(e, "higher_is_better"));
}

/* A non-negative figure @key of @e times @mult, or @dflt. */
static double opt_figure(const json_t *e, const char *key, double mult, double dflt)
{
	const json_t *j = json_object_get(e, key);
	double v = json_is_number(j) ? json_number_value(j) * mult : -1;

	return v >= 0 && v <= MAX_TIME_NS ? v : dflt;
}

/* One sample says nothing about spread: a file that stored the statistics
 * of more samples than it kept (an aggregates-only file) is believed. */
static void fill_stats(struct bench_result *r, const json_t *e)
{
	const char *unit = opt_str(e, "time_unit");
	double mult = unit ? unit_ns(unit) : 1;

	if (r->n_samples != 1)
		return;
	r->st.min = opt_figure(e, "min", mult, r->st.min);
	r->st.p90 = opt_figure(e, "p90", mult, r->st.p90);
	r->st.p99 = opt_figure(e, "p99", mult, r->st.p99);
	r->st.spread = opt_figure(e, "spread", 1, r->st.spread);
}

/* Keys of an entry that are not extra figures. */
static bool is_entry_key(const char *key)
{
	static const char *const keys[] = {
		"family_index", "per_family_instance_index", "repetitions",
		"repetition_index", "threads", "iterations", "real_time", "cpu_time",
		"min", "p90", "p99", "spread",
	};

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (strcmp(key, keys[i]) == 0)
			return true;
	return false;
}

/* Numeric fields beyond the known ones are extra figures (Google
 * Benchmark's counters, cyclock's ratios), as far as they fit. */
static void fill_extras(struct bench_result *r, json_t *e)
{
	const char *key;
	json_t *v;

	json_object_foreach(e, key, v) {
		if (!json_is_number(v) || is_entry_key(key) ||
		    strlen(key) >= sizeof(r->extra[0].key) || !isfinite(json_number_value(v)))
			continue;
		bench_result_extra(r, key, json_number_value(v));
	}
}

static int add_group(struct reader *rd, struct bench_run *run, const struct group *g)
{
	size_t at = g->median != SIZE_MAX ? g->median : g->head;
	size_t first = g->n ? g->head : g->median;
	struct sample *s = malloc((g->n ? g->n : 1) * sizeof(*s));
	double *v = malloc((g->n ? g->n : 1) * sizeof(*v));
	json_t *e = json_array_get(rd->entries, at);
	struct bench_result *r = NULL;
	long iterations = 0, threads = 0;
	size_t n;

	if (!s || !v) {
		free(s);
		free(v);
		return fail(rd, "out of memory");
	}
	n = group_samples(rd, g, v, s);
	if (!opt_int(rd, first, "iterations", LONG_MAX / 2, &iterations) &&
	    !opt_int(rd, at, "threads", 1 << 20, &threads))
		r = bench_run_add(run, "", NULL, NULL, (int)threads, iterations, v, n, 0);
	free(s);
	free(v);
	if (!r)
		return rd->err[0] ? -1 : fail(rd, "out of memory");
	fill_labels(r, g->key, e);
	fill_stats(r, e);
	fill_extras(r, e);
	return 0;
}

#define CTX_STR(key, field) \
	{ key, offsetof(struct bench_context, field), sizeof(((struct bench_context *)0)->field) }

/* A whole number from 0 to @max, or @dflt. */
static double opt_number(const json_t *o, const char *key, double max, double dflt)
{
	const json_t *j = json_object_get(o, key);
	double v = json_is_number(j) ? json_number_value(j) : -1;

	return v >= 0 && v <= max ? v : dflt;
}

static void read_caches(struct bench_context *ctx, const json_t *a)
{
	size_t i;
	json_t *c;

	json_array_foreach(a, i, c) {
		struct bench_cache *bc = &ctx->caches[ctx->n_caches];
		const char *type = opt_str(c, "type");

		if (ctx->n_caches == 8)
			break;
		if (!json_is_object(c))
			continue;
		copy_str(bc->type, sizeof(bc->type), type ? type : "");
		bc->level = (int)opt_number(c, "level", 16, 0);
		bc->size = (long)opt_number(c, "size", 1e15, 0);
		bc->num_sharing = (int)opt_number(c, "num_sharing", 1 << 20, 0);
		ctx->n_caches++;
	}
}

/* The context is a description, not a figure: what is missing or of the
 * wrong type is left empty rather than refused. */
static void read_context(struct bench_context *ctx, const json_t *c)
{
	static const struct { const char *key; size_t off, size; } strs[] = {
		CTX_STR("date", date), CTX_STR("host_name", host_name),
		CTX_STR("executable", executable), CTX_STR("cpu_model", cpu_model),
		CTX_STR("arch", arch), CTX_STR("kernel", kernel),
		CTX_STR("clocksource", clocksource),
		CTX_STR("available_clocksources", clocksources),
		CTX_STR("virtualization", virtualization), CTX_STR("governor", governor),
		CTX_STR("cyclock_version", version), CTX_STR("library_build_type", build_type),
		CTX_STR("counter", counter), CTX_STR("cyclock_describe", describe),
	};
	const json_t *load = json_object_get(c, "load_avg");

	for (size_t i = 0; i < sizeof(strs) / sizeof(strs[0]); i++) {
		const char *s = opt_str(c, strs[i].key);

		if (s)
			copy_str((char *)ctx + strs[i].off, strs[i].size, s);
	}
	ctx->num_cpus = (int)opt_number(c, "num_cpus", 1 << 20, 0);
	ctx->allowed_cpus = (int)opt_number(c, "allowed_cpus", 1 << 20, 0);
	ctx->mhz_per_cpu = opt_number(c, "mhz_per_cpu", 1e9, 0);
	ctx->counter_hz = opt_number(c, "counter_hz", 1e15, 0);
	ctx->cpu_scaling_enabled = json_is_true(json_object_get(c, "cpu_scaling_enabled"));
	for (size_t i = 0; i < 3; i++) {
		const json_t *v = json_array_get(load, i);

		ctx->load_avg[i] = json_is_number(v) ? json_number_value(v) : 0;
	}
	read_caches(ctx, json_object_get(c, "caches"));
}

static int read_entries(struct reader *rd, struct bench_run *run)
{
	size_t n = json_array_size(rd->entries);

	if (n > (size_t)MAX_BENCHMARKS * 64)
		return fail(rd, "more than %zu entries in \"benchmarks\"",
			    (size_t)MAX_BENCHMARKS * 64);
	rd->next = calloc(n, sizeof(*rd->next));
	rd->ns = calloc(n, sizeof(*rd->ns));
	rd->rep = calloc(n, sizeof(*rd->rep));
	rd->index = json_object();
	if (!rd->next || !rd->ns || !rd->rep || !rd->index)
		return fail(rd, "out of memory");
	for (size_t i = 0; i < n; i++)
		if (file_entry(rd, i))
			return -1;
	if (rd->ng == 0)
		return fail(rd, "no benchmark with a time in \"benchmarks\"");
	for (size_t k = 0; k < rd->ng; k++)
		if (add_group(rd, run, &rd->g[k]))
			return -1;
	return 0;
}

static int read_root(struct reader *rd, json_t *root, struct bench_run *run)
{
	json_t *ctx = json_object_get(root, "context");

	if (!json_is_object(root))
		return fail(rd, "not a benchmark file: the top level is not an object");
	rd->entries = json_object_get(root, "benchmarks");
	if (!json_is_array(rd->entries))
		return fail(rd, "no \"benchmarks\" array");
	if (json_array_size(rd->entries) == 0)
		return fail(rd, "the \"benchmarks\" array is empty");
	if (ctx && !json_is_object(ctx))
		return fail(rd, "\"context\" is not an object");
	if (read_entries(rd, run))
		return -1;
	if (ctx)
		read_context(&run->ctx, ctx);
	return 0;
}

int bench_parse_json(const char *buf, size_t len, struct bench_run *run, char *err,
		     size_t errlen)
{
	char own[8];
	struct reader rd = { .err = errlen ? err : own, .errlen = errlen ? errlen : sizeof(own) };
	json_error_t je;
	json_t *root;
	int ret;

	rd.err[0] = '\0';
	root = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &je);
	if (!root)
		return fail(&rd, "not JSON: line %d column %d: %s", je.line, je.column, je.text);
	ret = read_root(&rd, root, run);
	for (size_t k = 0; k < rd.ng; k++)
		free(rd.g[k].key);
	free(rd.g);
	free(rd.next);
	free(rd.ns);
	free(rd.rep);
	json_decref(rd.index);
	json_decref(root);
	if (ret)
		bench_run_free(run);
	return ret;
}

/* All of @fd, up to MAX_FILE_BYTES; NULL with errno set (EFBIG: more). */
static char *slurp(int fd, size_t *len)
{
	size_t cap = 1 << 16, n = 0;
	char *buf = malloc(cap), *p;
	ssize_t r = -1;

	while (buf) {
		if (n == cap) {
			/* One byte beyond the limit tells a file at it from one above. */
			if (cap > (size_t)MAX_FILE_BYTES) {
				errno = EFBIG;
				break;
			}
			cap *= 2;
			if (cap > (size_t)MAX_FILE_BYTES)
				cap = (size_t)MAX_FILE_BYTES + 1;
			p = realloc(buf, cap);
			if (!p)
				break;
			buf = p;
		}
		r = read(fd, buf + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	if (buf && r == 0) {
		*len = n;
		return buf;
	}
	free(buf);
	return NULL;
}

int bench_read_json(const char *path, struct bench_run *run, char *err, size_t errlen)
{
	bool in = strcmp(path, "-") == 0;
	const char *shown = in ? "stdin" : path;
	int fd = in ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
	char *buf = NULL, msg[256];
	size_t len = 0;
	struct stat st;
	int ret = -1;

	if (fd >= 0 && fstat(fd, &st) == 0 && S_ISDIR(st.st_mode))
		errno = EISDIR;
	else if (fd >= 0)
		buf = slurp(fd, &len);
	if (!buf && errno == EFBIG)
		snprintf(err, errlen, "%s: larger than %ld MiB", shown, MAX_FILE_BYTES >> 20);
	else if (!buf)
		snprintf(err, errlen, "%s: %s", shown, strerror(errno));
	else if ((ret = bench_parse_json(buf, len, run, msg, sizeof(msg))))
		snprintf(err, errlen, "%s: %s", shown, msg);
	if (fd > STDIN_FILENO)
		close(fd);
	free(buf);
	return ret;
}
