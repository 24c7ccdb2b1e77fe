/* SPDX-License-Identifier: MIT */
/*
 * A run in Google Benchmark's JSON format, so that Google Benchmark's own
 * compare.py can set two cyclock runs side by side, as "cyclock compare"
 * does.  Every repetition is an "iteration" entry; results with more than
 * one repetition get Google Benchmark's mean, median, stddev and cv
 * aggregates after them, the median carrying cyclock's statistics and
 * extra figures.
 */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "report/json_put.h"

const bool bench_json_supported = true;

/* Keys of an entry that are Google Benchmark's or cyclock's own: an extra
 * figure of the same name would hide one, so it is left out. */
static const char *const entry_keys[] = {
	"name", "family_index", "per_family_instance_index", "run_name", "run_type",
	"repetitions", "repetition_index", "threads", "aggregate_name",
	"aggregate_unit", "iterations", "real_time", "cpu_time", "time_unit",
	"scenario", "clock", "variant", "note", "label", "min", "p90", "p99",
	"spread", "noisy", "higher_is_better", "error_occurred", "error_message",
};

static bool is_entry_key(const char *key)
{
	for (size_t i = 0; i < sizeof(entry_keys) / sizeof(entry_keys[0]); i++)
		if (strcmp(key, entry_keys[i]) == 0)
			return true;
	return false;
}

static json_t *context_caches(const struct bench_context *ctx)
{
	json_t *a = json_array();
	int err = !a;

	for (int i = 0; !err && i < ctx->n_caches && i < 8; i++) {
		const struct bench_cache *c = &ctx->caches[i];
		json_t *o = json_object();

		err |= json_array_append_new(a, o);
		err |= bench_json_put(o, "type", bench_json_str(c->type));
		err |= bench_json_put(o, "level", json_integer(c->level));
		err |= bench_json_put(o, "size", json_integer(c->size));
		err |= bench_json_put(o, "num_sharing", json_integer(c->num_sharing));
	}
	if (err)
		json_decref(a);
	return err ? NULL : a;
}

static json_t *context_json(const struct bench_context *ctx)
{
	json_t *o = json_object(), *load = json_array();
	int err = !o;

	for (int i = 0; i < 3; i++)
		err |= json_array_append_new(load, json_real(isfinite(ctx->load_avg[i]) ?
							       ctx->load_avg[i] : 0));
	err |= bench_json_put(o, "date", bench_json_str(ctx->date));
	err |= bench_json_put(o, "host_name", bench_json_str(ctx->host_name));
	err |= bench_json_put(o, "executable", bench_json_str(ctx->executable));
	err |= bench_json_put(o, "num_cpus", json_integer(ctx->num_cpus));
	err |= bench_json_put(o, "mhz_per_cpu", json_integer(isfinite(ctx->mhz_per_cpu) ?
						  llround(ctx->mhz_per_cpu) : 0));
	err |= bench_json_put(o, "cpu_scaling_enabled", json_boolean(ctx->cpu_scaling_enabled));
	err |= bench_json_put(o, "caches", context_caches(ctx));
	err |= bench_json_put(o, "load_avg", load);
	err |= bench_json_put(o, "library_build_type", bench_json_str(ctx->build_type));
	err |= bench_json_put(o, "cyclock_version", bench_json_str(ctx->version));
	err |= bench_json_put(o, "cpu_model", bench_json_str(ctx->cpu_model));
	err |= bench_json_put(o, "arch", bench_json_str(ctx->arch));
	err |= bench_json_put(o, "kernel", bench_json_str(ctx->kernel));
	err |= bench_json_put(o, "clocksource", bench_json_str(ctx->clocksource));
	err |= bench_json_put(o, "available_clocksources", bench_json_str(ctx->clocksources));
	err |= bench_json_put(o, "virtualization", bench_json_str(ctx->virtualization));
	err |= bench_json_put(o, "governor", bench_json_str(ctx->governor));
	err |= bench_json_put(o, "allowed_cpus", json_integer(ctx->allowed_cpus));
	err |= bench_json_put(o, "counter", bench_json_str(ctx->counter));
	err |= bench_json_put_real(o, "counter_hz", ctx->counter_hz);
	err |= bench_json_put(o, "floor", bench_json_str(ctx->floor));
	err |= bench_json_put(o, "ordered_read", bench_json_str(ctx->ordered));
	err |= bench_json_put(o, "cyclock_describe", bench_json_str(ctx->describe));
	if (err)
		json_decref(o);
	return err ? NULL : o;
}

/* Where an entry sits in Google Benchmark's numbering: a family is one
 * scenario, an instance one result of it. */
struct entry_pos {
	int family, instance;
};

/* The keys every entry of @r starts with, in Google Benchmark's order. */
static json_t *entry_new(const struct bench_result *r, const char *name,
			 const char *run_type, struct entry_pos pos)
{
	json_t *e = json_object();
	int err = !e;

	err |= bench_json_put(e, "name", bench_json_str(name));
	err |= bench_json_put(e, "family_index", json_integer(pos.family));
	err |= bench_json_put(e, "per_family_instance_index", json_integer(pos.instance));
	err |= bench_json_put(e, "run_name", bench_json_str(r->name));
	err |= bench_json_put(e, "run_type", json_string(run_type));
	err |= bench_json_put(e, "repetitions", json_integer((json_int_t)r->n_samples));
	if (err)
		json_decref(e);
	return err ? NULL : e;
}

/* cyclock's own keys: the labels, its statistics, its extra figures. */
static int entry_cyclock(json_t *e, const struct bench_result *r, bool stats)
{
	int err = 0;

	err |= bench_json_put(e, "scenario", bench_json_str(r->scenario));
	err |= bench_json_put(e, "clock", bench_json_str(r->clock));
	err |= bench_json_put(e, "variant", bench_json_str(r->variant));
	err |= bench_json_put(e, "note", bench_json_str(r->note));
	if (stats) {
		err |= bench_json_put_real(e, "min", r->st.min);
		err |= bench_json_put_real(e, "p90", r->st.p90);
		err |= bench_json_put_real(e, "p99", r->st.p99);
		err |= bench_json_put_real(e, "spread", r->st.spread);
		err |= bench_json_put(e, "noisy", json_boolean(r->noisy));
		err |= bench_json_put(e, "higher_is_better", json_boolean(r->higher_is_better));
	}
	for (size_t i = 0; i < r->n_extra && i < BENCH_MAX_EXTRA; i++)
		if (!is_entry_key(r->extra[i].key))
			err |= bench_json_put_real(e, r->extra[i].key, r->extra[i].value);
	return err;
}

static int threads_of(const struct bench_result *r)
{
	return r->threads > 0 ? r->threads : 1;
}

static int add_iteration(json_t *a, const struct bench_result *r, size_t i,
			 struct entry_pos pos)
{
	json_t *e;
	int err;

	/* A sample that is not a number cannot be written as one. */
	if (!isfinite(r->samples[i]))
		return 0;
	e = entry_new(r, r->name, "iteration", pos);
	if (!e)
		return -1;
	err = bench_json_put(e, "repetition_index", json_integer((json_int_t)i));
	err |= bench_json_put(e, "threads", json_integer(threads_of(r)));
	err |= bench_json_put(e, "iterations", json_integer(r->iterations));
	err |= bench_json_put(e, "real_time", json_real(r->samples[i]));
	err |= bench_json_put(e, "cpu_time", json_real(r->samples[i]));
	err |= bench_json_put(e, "time_unit", json_string("ns"));
	err |= entry_cyclock(e, r, r->n_samples == 1);
	err |= json_array_append_new(a, e);
	return err;
}

/* One of Google Benchmark's aggregates: "mean", "median", "stddev", "cv". */
static int add_aggregate(json_t *a, const struct bench_result *r, const char *what,
			 double v, struct entry_pos pos)
{
	char name[sizeof(r->name) + 16];
	bool cv = strcmp(what, "cv") == 0, median = strcmp(what, "median") == 0;
	json_t *e;
	int err;

	snprintf(name, sizeof(name), "%s_%s", r->name, what);
	e = entry_new(r, name, "aggregate", pos);
	if (!e)
		return -1;
	err = bench_json_put(e, "threads", json_integer(threads_of(r)));
	err |= bench_json_put(e, "aggregate_name", json_string(what));
	err |= bench_json_put(e, "aggregate_unit", json_string(cv ? "percentage" : "time"));
	err |= bench_json_put(e, "iterations", json_integer((json_int_t)r->n_samples));
	err |= bench_json_put(e, "real_time", json_real(isfinite(v) ? v : 0));
	err |= bench_json_put(e, "cpu_time", json_real(isfinite(v) ? v : 0));
	/* Google Benchmark (1.7.1, Debian's) writes a time_unit on every
	 * entry, the cv's percentage included, and tools that read its files
	 * expect one everywhere. */
	err |= bench_json_put(e, "time_unit", json_string("ns"));
	if (median)
		err |= entry_cyclock(e, r, true);
	err |= json_array_append_new(a, e);
	return err;
}

static int add_result(json_t *a, const struct bench_result *r, struct entry_pos pos)
{
	const struct bench_stats *st = &r->st;
	int err = 0;

	for (size_t i = 0; i < r->n_samples; i++)
		err |= add_iteration(a, r, i, pos);
	if (r->n_samples < 2)
		return err;
	err |= add_aggregate(a, r, "mean", st->mean, pos);
	err |= add_aggregate(a, r, "median", st->median, pos);
	err |= add_aggregate(a, r, "stddev", st->stddev, pos);
	err |= add_aggregate(a, r, "cv", st->mean > 0 ? st->stddev / st->mean : 0, pos);
	return err;
}

/* Google Benchmark's numbering: a family is a scenario's run of
 * consecutive results, an instance one result in it.  compare.py sorts by
 * these, so they must grow in the order of the file. */
static void advance(struct entry_pos *pos, const struct bench_run *run, size_t i)
{
	if (i == 0)
		return;
	if (strcmp(run->v[i].scenario, run->v[i - 1].scenario) == 0) {
		pos->instance++;
	} else {
		pos->family++;
		pos->instance = 0;
	}
}

static json_t *run_json(const struct bench_run *run)
{
	json_t *root = json_object(), *a = json_array();
	struct entry_pos pos = { 0, 0 };
	int err = !root;

	for (size_t i = 0; !err && a && i < run->n; i++) {
		advance(&pos, run, i);
		err |= add_result(a, &run->v[i], pos);
	}
	err |= bench_json_put(root, "context", context_json(&run->ctx));
	err |= bench_json_put(root, "benchmarks", a);
	if (err)
		json_decref(root);
	return err ? NULL : root;
}

int bench_write_json(const char *path, const struct bench_run *run)
{
	json_t *root = run_json(run);
	char *text = root ? json_dumps(root, JSON_INDENT(2) | JSON_REAL_PRECISION(15)) : NULL;
	int ret;

	json_decref(root);
	if (!text) {
		bench_error("%s: out of memory", path);
		return -1;
	}
	/* json_dumps() ends without a newline; a text file should not. */
	size_t len = strlen(text);
	char *nl = realloc(text, len + 2);

	if (!nl) {
		free(text);
		bench_error("%s: out of memory", path);
		return -1;
	}
	nl[len] = '\n';
	nl[len + 1] = '\0';
	ret = bench__write_file(path, nl, len + 1);
	free(nl);
	return ret;
}
