/* SPDX-License-Identifier: MIT */
/*
 * cyclock info --json: the facts of info.h as one JSON object, as the
 * schema docs/schemas/info.schema.json says.  Numbers are numbers, with
 * their unit in the key (hz, _ns, _s, _ppm, _bytes); reasons are strings.
 * What the text prints only for a trusted counter ("counter", "engine",
 * "ordered_read", "kernel_mode", "last_error_ns") is left out when the
 * kernel's clocks are used.  Built with jansson (tools/cyclock/
 * CMakeLists.txt); info_nojson.c stands in without it.
 */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "info.h"

/* Sets @key of @o to @v (which it takes); -1 when @v is NULL or out of
 * memory, so that failures collect with |=. */
static int put(json_t *o, const char *key, json_t *v)
{
	return json_object_set_new(o, key, v) ? -1 : 0;
}

/* A JSON string of @s; bytes beyond ASCII become '?' when @s is not
 * UTF-8 (a CPU model, a kernel version are not promised to be). */
static json_t *str(const char *s)
{
	json_t *v = json_string(s ? s : "");
	char *copy;

	if (v || !s)
		return v;
	copy = strdup(s);
	if (!copy)
		return NULL;
	for (char *p = copy; *p; p++)
		if ((unsigned char)*p >= 0x80)
			*p = '?';
	v = json_string(copy);
	free(copy);
	return v;
}

/* JSON has no NaN: a figure that was not measured is left out. */
static int put_real(json_t *o, const char *key, double v)
{
	return isfinite(v) ? put(o, key, json_real(v)) : 0;
}

static int put_int(json_t *o, const char *key, long long v)
{
	return put(o, key, json_integer(v));
}

static json_t *counter(const struct info_facts *f)
{
	const struct cyclock__info *in = &f->in;
	json_t *o = json_object();
	int err = !o;

	err |= put(o, "name", str(in->counter));
	if (!f->trusted)
		return err ? (json_decref(o), NULL) : o;
	err |= put_real(o, "hz", in->hz);
	err |= put_real(o, "hz_uncertainty_ppm", in->hz_ppm);
	err |= put_real(o, "hz_first", in->hz_hint);
	err |= put(o, "hz_source", str(in->hz_source));
	err |= put_int(o, "mult", in->mult);
	err |= put_int(o, "shift", in->shift);
	err |= put_int(o, "raw_mult", in->raw_mult);
	err |= put_real(o, "mult_overflow_s", f->overflow_s);
	err |= put_real(o, "wrap_s", f->wrap_s);
	err |= put_int(o, "resync_interval_ns", (long long)in->interval_ns);
	err |= put_int(o, "resync_interval_max_ns", (long long)in->max_interval_ns);
	return err ? (json_decref(o), NULL) : o;
}

static json_t *trusted_parts(const struct info_facts *f, json_t *root)
{
	const struct cyclock__info *in = &f->in;
	json_t *engine = json_object(), *ordered = json_object(), *kmode = json_object();
	json_t *err_ns = json_object();
	int err = !engine || !ordered || !kmode || !err_ns;

	err |= put(engine, "summary", str(f->have_engine ? f->engine : ""));
	if (f->have_engine)
		err |= put_int(engine, "update_interval_ns", (long long)f->engine_update_ns);
	err |= put(ordered, "name", str(in->ordered));
	err |= put(ordered, "reason", str(in->ordered_why));
	err |= put(kmode, "now", json_boolean(in->kernel_mode));
	err |= put_int(kmode, "spells", (long long)in->kernel_spells);
	err |= put(kmode, "last_reason", str(in->kernel_why));
	err |= put_int(kmode, "rate_changes", (long long)in->rate_changes);
	err |= put_int(err_ns, "monotonic", in->last_err_ns);
	err |= put_int(err_ns, "monotonic_raw", in->raw_last_err_ns);
	err |= put(root, "engine", engine);
	err |= put(root, "ordered_read", ordered);
	err |= put(root, "kernel_mode", kmode);
	err |= put(root, "last_error_ns", err_ns);
	return err ? NULL : root;
}

static json_t *steps(const struct info_facts *f)
{
	json_t *a = json_array();
	int err = !a;

	for (size_t i = 0; !err && i < f->n_steps; i++) {
		const struct info_step *st = &f->steps[i];
		json_t *o = json_object();

		err |= json_array_append_new(a, o);
		err |= put(o, "clock", str(st->clock));
		err |= put_real(o, "step_ns", st->step_ns);
		err |= put_real(o, "step_min_ns", st->min_ns);
		err |= put_real(o, "claimed_ns", st->claimed_ns);
		if (st->ticks >= 0)
			err |= put_real(o, "step_ticks", st->ticks);
	}
	return err ? (json_decref(a), NULL) : a;
}

static json_t *machine(const struct bench_context *ctx)
{
	json_t *o = json_object(), *caches = json_array(), *avail = json_array();
	char list[sizeof(ctx->clocksources)], *save = NULL;
	int err = !o || !caches || !avail;

	err |= put(o, "kernel", str(ctx->kernel));
	err |= put(o, "clocksource", str(ctx->clocksource));
	snprintf(list, sizeof(list), "%s", ctx->clocksources);
	for (char *t = strtok_r(list, " ", &save); t; t = strtok_r(NULL, " ", &save))
		err |= json_array_append_new(avail, str(t));
	err |= put(o, "clocksources_available", avail);
	err |= put(o, "virtualization", str(ctx->virtualization));
	err |= put(o, "cpu_model", str(ctx->cpu_model));
	err |= put(o, "arch", str(ctx->arch));
	err |= put_int(o, "cpus_online", ctx->num_cpus);
	err |= put_int(o, "cpus_allowed", ctx->allowed_cpus);
	err |= put_real(o, "cpu_mhz", ctx->mhz_per_cpu);
	err |= put(o, "governor", str(ctx->governor));
	for (int i = 0; !err && i < ctx->n_caches; i++) {
		json_t *c = json_object();

		err |= json_array_append_new(caches, c);
		err |= put_int(c, "level", ctx->caches[i].level);
		err |= put(c, "type", str(ctx->caches[i].type));
		err |= put_int(c, "size_bytes", ctx->caches[i].size);
		err |= put_int(c, "shared_by", ctx->caches[i].num_sharing);
	}
	err |= put(o, "caches", caches);
	return err ? (json_decref(o), NULL) : o;
}

static json_t *costs(const struct info_facts *f)
{
	json_t *o = json_object();
	int err = !o;

	for (size_t i = 0; !err && i < f->n_costs; i++)
		err |= put_real(o, f->costs[i].clock, f->costs[i].ns);
	return err ? (json_decref(o), NULL) : o;
}

int info_write_json(FILE *out, const struct info_facts *f)
{
	const struct cyclock__info *in = &f->in;
	json_t *root = json_object();
	int err = !root;

	err |= put(root, "cyclock_version", str(f->ctx.version));
	err |= put(root, "build_type", str(f->ctx.build_type));
	err |= put(root, "trusted", json_boolean(f->trusted));
	err |= put(root, "reason", str(f->trusted ? "" : in->why));
	err |= put(root, "describe", str(f->describe));
	err |= put(root, "counter", counter(f));
	if (f->trusted && !err)
		err |= trusted_parts(f, root) ? 0 : -1;
	err |= put(root, "resolution", steps(f));
	err |= put_int(root, "init_ns", (long long)in->init_ns);
	err |= put_int(root, "resyncs", (long long)in->resyncs);
	err |= put_int(root, "anomalies", (long long)in->anomalies);
	err |= put(root, "machine", machine(&f->ctx));
	if (f->have_costs)
		err |= put(root, "read_cost_ns", costs(f));
	/* 16 digits: 0.385 stays 0.385, a frequency keeps its Hz. */
	if (!err)
		err |= json_dumpf(root, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER |
						     JSON_REAL_PRECISION(16)) ? -1 : 0;
	if (!err)
		fputc('\n', out);
	json_decref(root);
	if (err)
		tool_error("info: out of memory writing JSON");
	return err ? -1 : 0;
}
