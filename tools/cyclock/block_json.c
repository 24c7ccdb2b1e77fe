/* SPDX-License-Identifier: MIT */
/*
 * A status block's keys in a JSON object (block_out.h), the same in
 * cyclock status --json (an object per block, with pid, command, object)
 * and cyclock info --json (its own block's keys at the top): the setup's
 * facts at the object's top, the counts under "counts", as
 * docs/schemas/block.schema.json says.  Built with jansson, as
 * status_json.c and info_json.c are.
 *
 * The block is the target's to write, and the document stays valid
 * whatever it holds: its strings are clean already (status_read.c), a
 * count beyond JSON's integers as jansson and most readers hold them
 * (2^63 - 1) is written as that, a frequency or an uncertainty that is
 * not one (negative, not finite) is left out, as the schema allows.  A
 * fact version 1 lacks is left out; version 1's own (setup_lost, lost)
 * are in its blocks only.
 *
 * Tests: tests/tool/cli/test_status.sh, test_status_hostile.sh,
 * test_info.sh (the schemas), test_one_name.sh (the same keys in both).
 */
#include <jansson.h>
#include <stdint.h>

#include "block_out.h"
#include "report/json_put.h"

/* A count: no more than 2^63 - 1, which no process counts to (a resync a
 * nanosecond would take 292 years). */
static int put_count(json_t *o, const char *key, uint64_t v)
{
	return bench_json_put_int(o, key, v > INT64_MAX ? INT64_MAX : (long long)v);
}

/* A figure left out unless it is one (> 0, or >= 0 where @zero allows). */
static int put_positive(json_t *o, const char *key, double v, bool zero)
{
	return v > 0 || (zero && v == 0) ? bench_json_put_real(o, key, v) : 0;
}

static json_t *counts(const struct status_block *b)
{
	const struct cyclock_status_counts *c = &b->counts;
	json_t *o = json_object();
	int err = !o;
	double age = block_age_s(c);

	err |= bench_json_put(o, "kernel_mode", json_boolean(c->kernel_mode));
	err |= bench_json_put(o, "kernel_why", bench_json_str(c->kernel_why));
	err |= put_count(o, "kernel_spells", c->kernel_spells);
	err |= put_count(o, "resyncs", c->resyncs);
	err |= put_count(o, "anomalies", c->anomalies);
	err |= put_count(o, "rate_changes", c->rate_changes);
	err |= bench_json_put_int(o, "last_error_ns", (long long)c->last_err_ns);
	if (status_has_v2(b))
		err |= bench_json_put_int(o, "raw_last_error_ns", (long long)c->raw_last_err_ns);
	err |= put_count(o, "resync_interval_ns", c->interval_ns);
	if (status_has_v2(b))
		err |= put_count(o, "resync_interval_max_ns", c->max_interval_ns);
	if (c->ns_per_tick > 0)
		err |= put_positive(o, "hz", 1e9 / c->ns_per_tick, false);
	if (status_has_v2(b))
		err |= put_positive(o, "hz_uncertainty_ppm", c->hz_ppm, true);
	if (age >= 0)
		err |= bench_json_put_real(o, "last_resync_age_s", age);
	err |= bench_json_put_int(o, "written_by_pid", c->pid);
	if (!status_has_v2(b))
		err |= bench_json_put(o, "lost", json_boolean(b->counts_lost));
	return err ? (json_decref(o), NULL) : o;
}

/* Version 2's warp check: whether it ran; if so its turns and its largest
 * step back (-1: it could not run). */
static json_t *warp(const struct cyclock_status_setup *s)
{
	json_t *o = json_object();
	bool ran = s->flags & CYCLOCK_STATUS_WARP_RAN;
	int err = !o;

	err |= bench_json_put(o, "ran", json_boolean(ran));
	if (ran) {
		err |= put_count(o, "turns", s->warp_turns);
		err |= bench_json_put_int(o, "max_back_cycles",
					  s->warp_cyc < -1 ? -1 : (long long)s->warp_cyc);
	}
	return err ? (json_decref(o), NULL) : o;
}

/* What only clocks on the counter have: the read, the frequency, the counts. */
static int on_counter(json_t *o, const struct status_block *b)
{
	const struct cyclock_status_setup *s = &b->setup;
	int err = 0;

	err |= bench_json_put(o, "ordered_read", bench_json_str(s->ordered));
	err |= bench_json_put(o, "ordered_why", bench_json_str(s->ordered_why));
	err |= put_positive(o, "hz_first", s->hz_hint, true);
	err |= bench_json_put(o, "hz_source", bench_json_str(s->hz_source));
	if (b->counts.written_ns)
		err |= bench_json_put(o, "counts", counts(b));
	return err;
}

int block_json(json_t *o, const struct status_block *b)
{
	const struct cyclock_status_setup *s = &b->setup;
	int err = !o;
	char served[128];

	block_served(s->served, served, sizeof(served));
	err |= bench_json_put(o, "library_version", bench_json_str(b->library));
	err |= bench_json_put_int(o, "status_version", b->version);
	err |= bench_json_put(o, "mode", bench_json_str(block_mode(b)));
	if (s->flags & CYCLOCK_STATUS_PRELOAD)
		err |= bench_json_put(o, "served", bench_json_str(served));
	err |= bench_json_put(o, "clocks", bench_json_str(block_clocks(b)));
	err |= bench_json_put(o, "why", bench_json_str(s->why));
	err |= bench_json_put(o, "distrust", bench_json_str(s->distrust));
	err |= bench_json_put(o, "counter", bench_json_str(s->counter));
	err |= bench_json_put(o, "forced", json_boolean(s->flags & CYCLOCK_STATUS_FORCED));
	err |= bench_json_put(o, "local_percpu", json_boolean(s->flags & CYCLOCK_STATUS_PERCPU));
	if (!status_has_v2(b))
		err |= bench_json_put(o, "setup_lost", json_boolean(b->setup_lost));
	if (s->state == CYCLOCK_STATUS_READY)
		err |= put_count(o, "init_ns", s->init_ns);
	if (s->state == CYCLOCK_STATUS_READY && status_has_v2(b))
		err |= bench_json_put(o, "warp_check", warp(s));
	if (block_on_counter(b))
		err |= on_counter(o, b);
	return err ? -1 : 0;
}
