/* SPDX-License-Identifier: MIT */
/*
 * cyclock info --json: the facts of info.h as one JSON object, as the
 * schema docs/schemas/info.schema.json says: this process's status block's
 * keys at the top (block_json.c's, those of cyclock status --json's
 * objects), then info's own: the tool, describe, the live segment, the
 * engine, the resolution, the machine and the costs.  Numbers are numbers,
 * with their unit in the key (hz, _ns, _s, _ppm, _bytes); reasons are
 * strings.  The segment and the engine are there only when the counter is
 * used.  Built with jansson (tools/cyclock/CMakeLists.txt); info_nojson.c
 * stands in without it.  Tests: tests/tool/cli/test_info.sh,
 * test_one_name.sh.
 */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "block_out.h"
#include "cmd.h"
#include "info.h"
#include "report/json_put.h"

/* The live segment of cyclock_now() (cyclock_get_state()): its conversion,
 * how long a delta may grow before it overflows, the counter's wrap. */
static json_t *segment(const struct info_facts *f)
{
	const struct cyclock_state *in = &f->in;
	json_t *o = json_object();
	int err = !o;

	err |= bench_json_put_int(o, "mult", in->mult);
	err |= bench_json_put_int(o, "shift", in->shift);
	err |= bench_json_put_int(o, "raw_mult", in->raw_mult);
	err |= bench_json_put_real(o, "mult_overflow_s", f->overflow_s);
	err |= bench_json_put_real(o, "wrap_s", f->wrap_s);
	return err ? (json_decref(o), NULL) : o;
}

static json_t *engine(const struct info_facts *f)
{
	json_t *o = json_object();
	int err = !o;

	err |= bench_json_put(o, "summary", bench_json_str(f->have_engine ? f->engine : ""));
	if (f->have_engine)
		err |= bench_json_put_int(o, "update_interval_ns", (long long)f->engine_update_ns);
	return err ? (json_decref(o), NULL) : o;
}

static json_t *steps(const struct info_facts *f)
{
	json_t *a = json_array();
	int err = !a;

	for (size_t i = 0; !err && i < f->n_steps; i++) {
		const struct info_step *st = &f->steps[i];
		json_t *o = json_object();

		err |= json_array_append_new(a, o);
		err |= bench_json_put(o, "clock", bench_json_str(st->clock));
		err |= bench_json_put_real(o, "step_ns", st->step_ns);
		err |= bench_json_put_real(o, "step_min_ns", st->min_ns);
		err |= bench_json_put_real(o, "claimed_ns", st->claimed_ns);
		if (st->ticks >= 0)
			err |= bench_json_put_real(o, "step_ticks", st->ticks);
	}
	return err ? (json_decref(a), NULL) : a;
}

static json_t *machine(const struct bench_context *ctx)
{
	json_t *o = json_object(), *caches = json_array(), *avail = json_array();
	char list[sizeof(ctx->clocksources)], *save = NULL;
	int err = !o || !caches || !avail;

	err |= bench_json_put(o, "kernel", bench_json_str(ctx->kernel));
	err |= bench_json_put(o, "clocksource", bench_json_str(ctx->clocksource));
	snprintf(list, sizeof(list), "%s", ctx->clocksources);
	for (char *t = strtok_r(list, " ", &save); t; t = strtok_r(NULL, " ", &save))
		err |= json_array_append_new(avail, bench_json_str(t));
	err |= bench_json_put(o, "clocksources_available", avail);
	err |= bench_json_put(o, "virtualization", bench_json_str(ctx->virtualization));
	err |= bench_json_put(o, "cpu_model", bench_json_str(ctx->cpu_model));
	err |= bench_json_put(o, "arch", bench_json_str(ctx->arch));
	err |= bench_json_put_int(o, "cpus_online", ctx->num_cpus);
	err |= bench_json_put_int(o, "cpus_allowed", ctx->allowed_cpus);
	err |= bench_json_put_real(o, "cpu_mhz", ctx->mhz_per_cpu);
	err |= bench_json_put(o, "governor", bench_json_str(ctx->governor));
	for (int i = 0; !err && i < ctx->n_caches; i++) {
		json_t *c = json_object();

		err |= json_array_append_new(caches, c);
		err |= bench_json_put_int(c, "level", ctx->caches[i].level);
		err |= bench_json_put(c, "type", bench_json_str(ctx->caches[i].type));
		err |= bench_json_put_int(c, "size_bytes", ctx->caches[i].size);
		err |= bench_json_put_int(c, "shared_by", ctx->caches[i].num_sharing);
	}
	err |= bench_json_put(o, "caches", caches);
	return err ? (json_decref(o), NULL) : o;
}

static json_t *costs(const struct info_facts *f)
{
	json_t *o = json_object();
	int err = !o;

	for (size_t i = 0; !err && i < f->n_costs; i++)
		err |= bench_json_put_real(o, f->costs[i].clock, f->costs[i].ns);
	return err ? (json_decref(o), NULL) : o;
}

int info_write_json(FILE *out, const struct info_facts *f)
{
	json_t *root = json_object();
	int err = !root;

	err |= bench_json_put(root, "cyclock_version", bench_json_str(f->ctx.version));
	err |= bench_json_put(root, "build_type", bench_json_str(f->ctx.build_type));
	err |= block_json(root, &f->own);
	err |= bench_json_put(root, "describe", bench_json_str(f->describe));
	if (f->trusted) {
		err |= bench_json_put(root, "segment", segment(f));
		err |= bench_json_put(root, "engine", engine(f));
	}
	err |= bench_json_put(root, "resolution", steps(f));
	err |= bench_json_put(root, "machine", machine(&f->ctx));
	if (f->have_costs)
		err |= bench_json_put(root, "read_cost_ns", costs(f));
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
