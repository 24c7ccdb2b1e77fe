/* SPDX-License-Identifier: MIT */
/*
 * cyclock_describe() and cyclock_get_state(): what the library decided and
 * why, as the process's own status block says it (status.c writes it; the
 * latch's read side reads it here, without the writer flag or a wait).
 * Tests: tests/linux/sim_state.c (every field of cyclock_get_state()),
 * sim_fallback.c (cyclock_describe()'s reasons), test_api.c; the warp
 * check's fields, test_first_read.c.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "internal.h"

/* Every field but the version, in @st, already zeroed: what @v, the
 * block status.c wrote, says, and the live segments' multipliers. */
static void state_of(const struct cyclock__status_view *v, struct cyclock_state *st)
{
	const struct cyclock_status_setup *s = v->setup;
	const struct cyclock_status_counts *c = &v->counts;
	const char *not_yet = cyclock__init_why();
	bool ready = !not_yet && s->state == CYCLOCK_STATUS_READY;

	st->why = ready ? s->why : not_yet ? not_yet : "";
	st->counter = CYCLOCK_ARCH_COUNTER_NAME;
	st->hz_source = st->ordered = st->ordered_why = st->kernel_why = "";
	if (!ready)
		return;
	st->using_counter = !!(s->flags & CYCLOCK_STATUS_COUNTER);
	st->forced = !!(s->flags & CYCLOCK_STATUS_FORCED);
	st->local_percpu = !!(s->flags & CYCLOCK_STATUS_PERCPU);
	st->warp_ran = !!(s->flags & CYCLOCK_STATUS_WARP_RAN);
	st->hz_hint = s->hz_hint;
	st->hz_source = s->hz_source;
	st->ordered = s->ordered;
	st->ordered_why = s->ordered_why;
	st->warp_turns = s->warp_turns;
	st->warp_cyc = s->warp_cyc;
	st->init_ns = s->init_ns;
	if (!st->using_counter)
		return;
	st->hz = c->ns_per_tick > 0 ? 1e9 / c->ns_per_tick : 0;
	st->hz_ppm = c->hz_ppm;
	st->mult = cyclock__seg_load(&cyclock__mono).mult;
	st->shift = cyclock__setup.counts.shift;
	st->raw_mult = cyclock__seg_load(&cyclock__raw).mult;
	st->kernel_mode = (int32_t)c->kernel_mode;
	st->kernel_why = v->kernel_why;
	st->interval_ns = c->interval_ns;
	st->max_interval_ns = c->max_interval_ns;
	st->resyncs = c->resyncs;
	st->anomalies = c->anomalies;
	st->kernel_spells = c->kernel_spells;
	st->rate_changes = c->rate_changes;
	st->last_err_ns = c->last_err_ns;
	st->raw_last_err_ns = c->raw_last_err_ns;
}

/* The state now, in @st (zeroed here), from the block read into @v. */
static void own_state(struct cyclock_state *st, struct cyclock__status_view *v)
{
	memset(st, 0, sizeof(*st));
	cyclock__init_wait(0, false);
	cyclock__status_own(v);
	state_of(v, st);
	/* Version 1 is the only one yet: every caller gets all of it.  A
	 * version 2 would copy only version 1's fields to a version 1 caller. */
	st->version = 1;
}

int cyclock_get_state(struct cyclock_state *st)
{
	struct cyclock__status_view v;
	struct cyclock_state all;

	if (!st || !st->version)
		return CYCLOCK_EINVAL;
	own_state(&all, &v);
	memcpy(st, &all, sizeof(all));
	return 0;
}

static const char *warp_note(const struct cyclock_state *in, const char *distrust)
{
	static _Thread_local char note[64];
	int cpu[2];

	if (!in->warp_ran) {
		if (cyclock__allowed_cpus(cpu) < 2)
			return "one CPU allowed: no cross-CPU check";
		return distrust[0]
			       ? "no cross-CPU check (the counter was distrusted before it)"
			       : "no cross-CPU check of ours: the kernel's word taken, as the vDSO "
				 "does (cyclock_init(CYCLOCK_INIT_WARP_CHECK) runs one)";
	}
	if (in->warp_cyc < 0)
		return "the cross-CPU check could not run";
	snprintf(note, sizeof(note),
		 in->warp_turns < CYCLOCK_WARP_TURNS ? "cross-CPU check inconclusive (%llu turns)"
						     : "no warp between CPUs in %llu turns",
		 (unsigned long long)in->warp_turns);
	return note;
}

const char *cyclock_describe(void)
{
	static _Thread_local char line[896]; /* each thread's: cyclock.h */
	struct cyclock__status_view v;
	struct cyclock_state in;
	const char *distrust;
	int n;

	own_state(&in, &v);
	distrust = v.setup->distrust;
	if (!in.using_counter) {
		snprintf(line, sizeof(line), "kernel clocks (clock_gettime): %s%s", in.why,
			 in.local_percpu ? "; cyclock_local() per CPU over the counter" : "");
		return line;
	}
	n = snprintf(line, sizeof(line),
		     "%s at %.6f MHz (%s %.3f MHz; now refined against CLOCK_MONOTONIC_RAW, "
		     "+-%.3f ppm)%s%s%s; ordered read %s: %s; %s; ",
		     in.counter, in.hz / 1e6, in.hz_source, in.hz_hint / 1e6, in.hz_ppm,
		     in.forced ? ", forced by CYCLOCK_SOURCE" : "",
		     in.forced && distrust[0] ? " although " : "",
		     in.forced && distrust[0] ? distrust : "",
		     in.ordered, in.ordered_why, warp_note(&in, distrust));
	if (in.kernel_mode)
		snprintf(line + n, sizeof(line) - (size_t)n,
			 "serving the kernel's CLOCK_MONOTONIC now (%s); ", in.kernel_why);
	else
		snprintf(line + n, sizeof(line) - (size_t)n,
			 "tracking CLOCK_MONOTONIC within %lld ns at the last resync, every %.1f ms; ",
			 (long long)in.last_err_ns, (double)in.interval_ns / 1e6);
	n = (int)strlen(line);
	snprintf(line + n, sizeof(line) - (size_t)n,
		 "%llu spells on the kernel's clock, %llu rate changes followed",
		 (unsigned long long)in.kernel_spells, (unsigned long long)in.rate_changes);
	return line;
}
