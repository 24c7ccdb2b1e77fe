/* SPDX-License-Identifier: MIT */
/*
 * cyclock status --json: one array, an object per block found (a process
 * may map the library and the preload), as the schema
 * docs/schemas/status.schema.json says.  The counts are present only for
 * clocks on the counter.  Built with jansson; status_nojson.c without.
 *
 * The block is the target's to write, and the document stays valid
 * whatever it holds: its strings are clean already (status_read.c), a
 * count beyond JSON's integers as jansson and most readers hold them
 * (2^63 - 1) is written as that, a frequency that is not one (negative,
 * not finite) is left out, as the schema allows.
 */
#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>

#include "cmd.h"
#include "report/json_put.h"
#include "status_out.h"

static int put_int(json_t *o, const char *key, long long v)
{
	return bench_json_put(o, key, json_integer(v));
}

/* A count: no more than 2^63 - 1, which no process counts to (a resync a
 * nanosecond would take 292 years). */
static int put_count(json_t *o, const char *key, uint64_t v)
{
	return put_int(o, key, v > INT64_MAX ? INT64_MAX : (long long)v);
}

/* A frequency, left out unless it is one (or 0, where @zero allows). */
static int put_hz(json_t *o, const char *key, double hz, bool zero)
{
	return hz > 0 || (zero && hz == 0) ? bench_json_put_real(o, key, hz) : 0;
}

static json_t *counts(const struct cyclock_status_counts *c)
{
	json_t *o = json_object();
	int err = !o;
	double age = status_age_s(c);

	err |= bench_json_put(o, "kernel_mode", json_boolean(c->kernel_mode));
	err |= put_count(o, "resyncs", c->resyncs);
	err |= put_count(o, "anomalies", c->anomalies);
	err |= put_count(o, "kernel_spells", c->kernel_spells);
	err |= bench_json_put(o, "kernel_why", bench_json_str(c->kernel_why));
	err |= put_count(o, "rate_changes", c->rate_changes);
	err |= put_int(o, "last_error_ns", (long long)c->last_err_ns);
	err |= put_count(o, "interval_ns", c->interval_ns);
	if (c->ns_per_tick > 0)
		err |= put_hz(o, "hz", 1e9 / c->ns_per_tick, false);
	if (age >= 0)
		err |= bench_json_put_real(o, "last_resync_age_s", age);
	err |= put_int(o, "written_by_pid", c->pid);
	err |= bench_json_put(o, "lost", json_boolean(c->flags & CYCLOCK_STATUS_LOST));
	return err ? (json_decref(o), NULL) : o;
}

static json_t *block(const struct status_of *p, const struct status_block *b)
{
	const struct cyclock_status_setup *s = &b->st.setup;
	json_t *o = json_object();
	int err = !o;
	char served[128];
	bool counter = s->flags & CYCLOCK_STATUS_COUNTER;

	status_served(s->served, served, sizeof(served));
	err |= put_int(o, "pid", p->pid);
	err |= bench_json_put(o, "command", bench_json_str(p->comm));
	err |= bench_json_put(o, "object", bench_json_str(b->object));
	err |= bench_json_put(o, "library_version", bench_json_str(b->st.library));
	err |= put_int(o, "status_version", b->st.version);
	err |= bench_json_put(o, "mode", bench_json_str(status_mode(&b->st)));
	if (s->flags & CYCLOCK_STATUS_PRELOAD)
		err |= bench_json_put(o, "served", bench_json_str(served));
	err |= bench_json_put(o, "clocks", bench_json_str(status_clocks(&b->st)));
	err |= bench_json_put(o, "why", bench_json_str(s->why));
	err |= bench_json_put(o, "distrust", bench_json_str(s->distrust));
	err |= bench_json_put(o, "counter", bench_json_str(s->counter));
	err |= bench_json_put(o, "forced", json_boolean(s->flags & CYCLOCK_STATUS_FORCED));
	err |= bench_json_put(o, "local_percpu", json_boolean(s->flags & CYCLOCK_STATUS_PERCPU));
	err |= bench_json_put(o, "setup_lost", json_boolean(s->flags & CYCLOCK_STATUS_LOST));
	if (s->state == CYCLOCK_STATUS_READY)
		err |= put_count(o, "init_ns", s->init_ns);
	if (counter) {
		err |= bench_json_put(o, "ordered_read", bench_json_str(s->ordered));
		err |= bench_json_put(o, "ordered_why", bench_json_str(s->ordered_why));
		err |= put_hz(o, "hz_first", s->hz_hint, true);
		err |= bench_json_put(o, "hz_source", bench_json_str(s->hz_source));
		if (b->st.counts.written_ns)
			err |= bench_json_put(o, "counts", counts(&b->st.counts));
	}
	return err ? (json_decref(o), NULL) : o;
}

int status_write_json(FILE *out, const struct status_of *ps, size_t n)
{
	json_t *a = json_array();
	int err = !a;

	for (size_t i = 0; i < n && !err; i++)
		for (size_t j = 0; j < ps[i].n && !err; j++)
			err |= json_array_append_new(a, block(&ps[i], &ps[i].blocks[j]));
	if (!err)
		err |= json_dumpf(a, out, JSON_INDENT(2)) || fputc('\n', out) == EOF;
	json_decref(a);
	if (err) {
		tool_error("status: --format json: out of memory, or a write failed");
		return -1;
	}
	return 0;
}
