/* SPDX-License-Identifier: MIT */
/*
 * What the scheduler can do, made deterministic through the simulation
 * seam: the library's thread is "preempted" at a chosen seam call (the
 * world's hook), and the hook is what other threads do meanwhile, reading
 * every clock while virtual time goes on, the kernel's rate changing or
 * not.  Each case is run with the preemption at every seam call of the
 * code under test in turn.  Whatever the point, no clock returns less
 * than a value returned before it, and every clock is back with the
 * kernel's afterwards.
 * - A reader preempted in the slow path before the timelines start: the
 *   timeline that starts meanwhile must not be below what it returns.
 * - A writer stalled at each step of a resync, for 5 ms, with the
 *   kernel's tick or frequency changed meanwhile or not, or with the
 *   timeline ahead of the kernel at the horizon (the kernel slowed there);
 *   the others stay with the kernel meanwhile, except inside the publish.
 * - An idle parent and its fork child: the kernel's rate changed while
 *   nobody read for 10 s; the child's first read agrees with the kernel.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "sim_world.h"
#include "internal.h" /* cyclock__init_once(), cyclock__fork_child() */

#define RATE 3000000000ull
#define GOOD_NS 1000
#define POINTS 64 /* seam calls tried, from the start of the call under test */

/* The greatest value of each clock returned so far, by any "thread". */
static uint64_t seen[NCLOCKS];
static int64_t hook_bound; /* how far from the kernel the other threads may read */

static void read_checked(const char *who)
{
	for (int c = 0; c < NCLOCKS; c++) {
		struct reading r = sim_read((enum which)c);

		if (r.v < seen[c])
			fail_msg("%s: %s went back by %" PRIu64 " ns at t=%" PRIu64 " (preempted at"
				 " call %lu)",
				 who, clock_name[c], seen[c] - r.v, w.t, w.hook_at);
		if (abs64(r.err) > hook_bound)
			fail_msg("%s: %s off by %" PRId64 " ns (bound %" PRId64 ")", who,
				 clock_name[c], r.err, hook_bound);
		seen[c] = r.v;
	}
}

/* Reads every @gap for @n times, from "another thread". */
static void others_read(int n, uint64_t gap)
{
	for (int i = 0; i < n; i++) {
		w.t += gap;
		read_checked("another thread");
	}
}

static void converge(uint64_t ns)
{
	for (uint64_t end = w.t + ns; w.t < end; w.t += 100 * US)
		read_checked("converging");
}

/* ---- a reader preempted before the timelines start ---- */

static void finish_init_meanwhile(void)
{
	w.t += MS; /* past the deferred measurement's 500 us */
	others_read(20, 50 * US);
}

static void preempted_before_start(void **state)
{
	(void)state;
	for (unsigned long k = 0; k < 12; k++) {
		sim_start(RATE, 0, true, true); /* measured: the deferred start */
		w_mono_rate(500000);              /* MONOTONIC 500 ppm off RAW, unsaid */
		memset(seen, 0, sizeof(seen));
		hook_bound = 100 * US;
		cyclock__init_once(CYCLOCK_INIT_NO_WARP_CHECK | CYCLOCK__INIT_DEFER);
		w.hook = finish_init_meanwhile;
		w.hook_at = w_calls() + k;
		read_checked("the preempted reader");
		w.hook = NULL;
		others_read(50, 100 * US);
	}
}

/* ---- a writer stalled at each step of a resync ---- */

static int stall_kind;

/* Reads on until the next read, 50 us later, is just past the horizon of
 * CLOCK_MONOTONIC's segment: a read that resyncs (read.c's resync_pays()). */
static void just_past_horizon(void)
{
	struct cyclock__segv v = cyclock__seg_load(&cyclock__mono);

	while (w_cyc_at(w.t) - v.cyc < v.horizon_cyc) {
		w.t += 50 * US;
		if (w_cyc_at(w.t) - v.cyc < v.horizon_cyc)
			read_checked("a reader before the horizon");
	}
}

/*
 * The other threads, while the writer is away: they serve the kernel's
 * clock, so they stay with the kernel (within a tick change unseen for
 * an interval: 10% of 2 ms), wherever the writer stopped.
 */
static void stall(void)
{
	if (stall_kind == 1)
		w_kernel_rate(11000, 0);
	else if (stall_kind == 2)
		w_kernel_rate(10000, -500);
	hook_bound = stall_kind == 1 ? 250 * US : 2 * GOOD_NS;
	others_read(20, 250 * US); /* 5 ms */
	hook_bound = stall_kind == 1 ? 2 * MS : 100 * US;
}

static void stalled_writer(void **state)
{
	static const char *const kinds[] = { "kernel steady", "tick to 11000", "-500 ppm" };

	(void)state;
	for (stall_kind = 0; stall_kind < 3; stall_kind++) {
		for (unsigned long k = 0; k < POINTS; k++) {
			sim_start(RATE, RATE, true, true);
			memset(seen, 0, sizeof(seen));
			hook_bound = stall_kind == 1 ? 2 * MS : 100 * US;
			converge(200 * MS);
			just_past_horizon(); /* the next read resyncs */
			w.hook = stall;
			w.hook_at = w_calls() + k;
			read_checked("the writer");
			w.hook = NULL;
			converge(300 * MS);
			hook_bound = GOOD_NS;
			converge(10 * MS);
		}
		print_message("  a writer stalled 5 ms at each of its first %d seam calls, %s: in order,"
			      " others with the kernel meanwhile, back within 1 us\n", POINTS,
			      kinds[stall_kind]);
	}
}

static void quick_readers(void)
{
	others_read(20, 10 * US); /* well inside the lead */
}

/* The writer's reads: each at least what was handed out before its call
 * began (@before); the others' reads, in its stall, overlap it. */
static void writer_read_checked(const uint64_t before[NCLOCKS])
{
	for (int c = 0; c < NCLOCKS; c++) {
		struct reading r = sim_read((enum which)c);

		if (r.v < before[c])
			fail_msg("the writer: %s went back by %" PRIu64 " ns (preempted at call %lu)",
				 clock_name[c], before[c] - r.v, w.hook_at);
		seen[c] = r.v > seen[c] ? r.v : seen[c];
	}
}

/*
 * One case of the two below, at each of the writer's first POINTS seam
 * calls: converge, @setup (which ends just past a horizon), then the
 * writer, stalled while others read every 10 us, then a read right after
 * it (no time between), then converge again.
 */
static void stalled_writer_case(void (*setup)(void), int64_t bound)
{
	uint64_t before[NCLOCKS];

	for (unsigned long k = 0; k < POINTS; k++) {
		sim_start(RATE, RATE, true, true);
		memset(seen, 0, sizeof(seen));
		hook_bound = bound;
		converge(200 * MS);
		setup();
		memcpy(before, seen, sizeof(before));
		w.hook = quick_readers;
		w.hook_at = w_calls() + k;
		writer_read_checked(before);
		w.hook = NULL;
		read_checked("a reader right after the writer");
		converge(300 * MS);
		hook_bound = GOOD_NS;
		converge(10 * MS);
	}
}

/*
 * The kernel slows by 10% (tick 9000) inside a segment, and a read just
 * before the horizon hands out the segment's value there, by then up to
 * 200 us ahead of the kernel.  The first read past the horizon is the
 * writer; the readers that wait for it must return at least that value:
 * their cap at the kernel's clock is never below the horizon's value.
 */
static void slower_before_the_horizon(void)
{
	struct cyclock__segv v = cyclock__seg_load(&cyclock__mono);

	w_kernel_rate(9000, 0);
	w.t += (v.cyc + v.horizon_cyc - w_cyc_at(w.t)) * SEC / RATE - 2 * US;
	read_checked("a reader before the horizon");
	w.t += 4 * US;
}

static void stalled_writer_ahead(void **state)
{
	(void)state;
	stalled_writer_case(slower_before_the_horizon, 2 * MS);
	print_message("  a writer stalled 200 us at each of its first %d seam calls, the timeline"
		      " ahead at the horizon: in order, back within 1 us\n", POINTS);
}

/*
 * The counter leaps 10 ms ahead; the next read is the writer, which
 * leaves the counter for the kernel's clock (the counter disagreed), and
 * is stalled at each step in turn while others read every 10 us.  Those
 * readers wait past the horizon, where the leaped counter must not be
 * handed out: they get the kernel's clock they read, or the horizon's
 * value.  Kernel mode's floor, set from the writer's own reading of the
 * kernel, earlier, must not undercut them: a read right after the
 * writer's returns at least what they returned.
 */
static void leap_past_the_horizon(void)
{
	just_past_horizon();
	w_counter_jump(10 * (int64_t)MS);
	/* Read often enough after the leap for the next read to resync. */
	others_read(CYCLOCK_ROW_READS, 10 * US);
}

static void stalled_writer_leap(void **state)
{
	(void)state;
	stalled_writer_case(leap_past_the_horizon, 100 * US);
	print_message("  a writer stalled 200 us at each of its first %d seam calls after the"
		      " counter leaped 10 ms: in order, back within 1 us\n", POINTS);
}

/* ---- an idle parent's fork child ---- */

static void idle_parent_child(void **state)
{
	static const double ppm[] = { 500, -500 };

	(void)state;
	for (int i = 0; i < 2; i++) {
		sim_start(RATE, RATE, true, true);
		memset(seen, 0, sizeof(seen));
		hook_bound = GOOD_NS;
		converge(1 * SEC);
		w_kernel_rate(10000, ppm[i]);
		w.t += 10 * SEC; /* nobody reads */
		cyclock__fork_child();
		read_checked("the child's first read");
		converge(100 * MS);
	}
	print_message("  fork child of a parent idle 10 s across +-500 ppm: first read within"
		      " 1 us\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(preempted_before_start),
		cmocka_unit_test(stalled_writer),
		cmocka_unit_test(stalled_writer_ahead),
		cmocka_unit_test(stalled_writer_leap),
		cmocka_unit_test(idle_parent_child),
	};

	unsetenv("CYCLOCK_SOURCE");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
