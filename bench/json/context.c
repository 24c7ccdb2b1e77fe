/* SPDX-License-Identifier: MIT */
/*
 * The JSON reader's "context" object: the machine, kernel and build a run
 * was measured on, as cyclock and Google Benchmark describe them.  It is
 * a description, not a figure, so nothing in it fails a read.
 */
#include <jansson.h>
#include <stddef.h>

#include "bench.h"
#include "json_read.h"

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
		const char *type = bench__json_opt_str(c, "type");

		if (ctx->n_caches == 8)
			break;
		if (!json_is_object(c))
			continue;
		bench__json_copy_str(bc->type, sizeof(bc->type), type ? type : "");
		bc->level = (int)opt_number(c, "level", 16, 0);
		bc->size = (long)opt_number(c, "size", 1e15, 0);
		bc->num_sharing = (int)opt_number(c, "num_sharing", 1 << 20, 0);
		ctx->n_caches++;
	}
}

/* The context is a description, not a figure: what is missing or of the
 * wrong type is left empty rather than refused. */
void bench__json_read_context(struct bench_context *ctx, const json_t *c)
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
		CTX_STR("floor", floor), CTX_STR("ordered_read", ordered),
	};
	const json_t *load = json_object_get(c, "load_avg");

	for (size_t i = 0; i < sizeof(strs) / sizeof(strs[0]); i++) {
		const char *s = bench__json_opt_str(c, strs[i].key);

		if (s)
			bench__json_copy_str((char *)ctx + strs[i].off, strs[i].size, s);
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
