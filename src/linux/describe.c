/* SPDX-License-Identifier: MIT */
/*
 * cyclock_describe() and cyclock_get_state(): what the library decided and why.
 * Tests: tests/linux/sim_state.c (every field of cyclock_get_state()),
 * sim_fallback.c (cyclock_describe()'s reasons), test_api.c; the warp
 * check's fields, test_first_read.c.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

/* The frequency as the raw timeline now estimates it, and its uncertainty
 * from the first and latest samples' brackets over their baseline. */
static double current_hz(double *ppm)
{
	const struct cyclock__track *tr = &cyclock__tracks.raw;
	const struct cyclock__sample *a = &cyclock__setup.first_raw, *b = &tr->state.last;

	*ppm = b->ns > a->ns ? cyclock__rate_unc(a, b, tr->state.rate) * 1e6 : 0;
	return 1e9 / tr->state.rate;
}

/* Every field but the version, in @st, already zeroed. */
static void get_state(struct cyclock_state *st)
{
	cyclock__init_wait(0, false);
	/* The writer's fields, read under its flag so they are consistent;
	 * a bounded wait, then a snapshot that may be a resync apart. */
	bool locked = false;

	for (int i = 0; i < 1000 && !(locked = cyclock__writer_try(true)); i++)
		sched_yield();
	st->using_counter = cyclock_atomic_load(&cyclock__setup.using_counter, CYCLOCK_SEQ_CST);
	st->why = cyclock__init_why() ? cyclock__init_why()
		  : cyclock__setup.why ? cyclock__setup.why : "";
	st->forced = cyclock__setup.forced;
	st->local_percpu = cyclock_atomic_load(&cyclock__setup.local_percpu, CYCLOCK_SEQ_CST);
	st->counter = CYCLOCK_ARCH_COUNTER_NAME;
	st->hz_hint = cyclock__setup.hz_hint;
	st->hz_source = cyclock__setup.hz_source ? cyclock__setup.hz_source : "";
	st->ordered = cyclock_arch_ordered_name(cyclock__setup.ordered);
	st->ordered_why = cyclock__setup.ordered_why;
	st->warp_ran = cyclock__setup.warp_ran;
	st->warp_turns = cyclock__setup.warp_turns;
	st->warp_cyc = cyclock__setup.warp_cyc;
	st->init_ns = cyclock__setup.init_ns;
	st->kernel_why = "";
	if (cyclock_atomic_load(&cyclock__setup.using_counter, CYCLOCK_SEQ_CST)) {
		struct cyclock__segv v = cyclock__seg_load(&cyclock__mono);
		const struct cyclock__track_state *m = &cyclock__tracks.mono.state,
						  *r = &cyclock__tracks.raw.state;

		st->hz = current_hz(&st->hz_ppm);
		st->mult = v.mult;
		st->shift = cyclock__setup.counts.shift;
		st->raw_mult = cyclock__seg_load(&cyclock__raw).mult;
		st->kernel_mode = !v.horizon_cyc;
		st->kernel_why = m->kernel_why ? m->kernel_why : r->kernel_why ? r->kernel_why : "";
		st->interval_ns = (uint64_t)((double)m->interval * r->rate);
		st->max_interval_ns =
			(uint64_t)((double)cyclock__setup.counts.max_int_cyc * r->rate);
		st->resyncs = m->resyncs;
		st->kernel_spells = m->spells + r->spells;
		st->rate_changes = m->rate_changes;
		st->last_err_ns = m->last_err;
		st->raw_last_err_ns = r->last_err;
	}
	st->anomalies = cyclock_atomic_load(&cyclock__tracks.anomalies, CYCLOCK_SEQ_CST);
	if (locked)
		cyclock__writer_done();
}

int cyclock_get_state(struct cyclock_state *st)
{
	struct cyclock_state all;

	if (!st || !st->version)
		return CYCLOCK_EINVAL;
	memset(&all, 0, sizeof(all));
	get_state(&all);
	/* Version 1 is the only one yet: every caller gets all of it.  A
	 * version 2 would copy only version 1's fields to a version 1 caller. */
	all.version = 1;
	memcpy(st, &all, sizeof(all));
	return 0;
}

static const char *warp_note(void)
{
	static _Thread_local char note[64];
	int cpu[2];

	if (!cyclock__setup.warp_ran) {
		if (cyclock__allowed_cpus(cpu) < 2)
			return "one CPU allowed: no cross-CPU check";
		return cyclock__setup.distrust
			       ? "no cross-CPU check (the counter was distrusted before it)"
			       : "no cross-CPU check of ours: the kernel's word taken, as the vDSO "
				 "does (cyclock_init(CYCLOCK_INIT_WARP_CHECK) runs one)";
	}
	if (cyclock__setup.warp_cyc < 0)
		return "the cross-CPU check could not run";
	if (cyclock__setup.warp_turns < CYCLOCK_WARP_TURNS) {
		snprintf(note, sizeof(note), "cross-CPU check inconclusive (%llu turns)",
			 (unsigned long long)cyclock__setup.warp_turns);
		return note;
	}
	snprintf(note, sizeof(note), "no warp between CPUs in %llu turns",
		 (unsigned long long)cyclock__setup.warp_turns);
	return note;
}

const char *cyclock_describe(void)
{
	static _Thread_local char line[896]; /* each thread's: cyclock.h */
	struct cyclock_state in = {.version = CYCLOCK_STATE_VERSION};
	int n;

	cyclock_get_state(&in);
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
		     in.forced && cyclock__setup.distrust ? " although " : "",
		     in.forced && cyclock__setup.distrust ? cyclock__setup.distrust : "",
		     in.ordered, in.ordered_why, warp_note());
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
