/* SPDX-License-Identifier: MIT */
/*
 * Reads after gaps: a timeline read less often than a resync interval
 * serves the kernel's clock past each horizon instead of resyncing
 * (docs/hosted.md, "When a resync happens"): one kernel reading per read (two
 * for REALTIME and BOOTTIME, whose offsets it checks), no resync, never a
 * step back, and the kernel's value.  A step of the
 * system clock shows at the next read of REALTIME; a kernel whose rate
 * changed during the gap is followed; a reader that reads often again
 * resyncs again; one whose gap is half a segment longer than the segment
 * is served at every read, not resynced.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "sim_world.h"
#include "internal.h"

#define RATE 3000000000ull
#define GOOD_NS 1000 /* a served read is the kernel's clock: off by no more than this */

/* Reads every 100 us for @ns: the library resyncs, as for any busy reader. */
static void read_often(struct track *tr, uint64_t ns)
{
	struct reading r[NCLOCKS];

	for (uint64_t t0 = w.t; w.t - t0 < ns; w.t += 100 * US)
		sim_read_all(tr, r);
}

static const uint64_t gaps[] = { 3 * MS, 10 * MS, 50 * MS, 1 * SEC, 7 * MS, 250 * MS };

/* After gaps of 3 ms to 1 s: the kernel's clock at each read, with no
 * resync, one kernel reading per clock (REALTIME and BOOTTIME: two). */
static void sparse_reads_serve_the_kernel(void **state)
{
	struct track tr = { 0 };
	struct reading r[NCLOCKS];
	unsigned long gettime;
	uint64_t resyncs;

	(void)state;
	sim_start(RATE, RATE, true, true);
	read_often(&tr, 100 * MS);
	resyncs = state_now().resyncs;
	assert_true(resyncs > 0);
	for (int i = 0; i < 60; i++) {
		w.t += gaps[i % 6];
		gettime = w.gettime_calls;
		sim_read_all(&tr, r);
		check_bound(r, GOOD_NS, "a read after a gap");
		/* now, raw: one each; realtime, boottime: two each; and the
		 * four brackets' eight. */
		if (w.gettime_calls - gettime > 6 + 2 * NCLOCKS)
			fail_msg("read %d: %lu kernel readings for four clocks", i,
				 w.gettime_calls - gettime);
	}
	print_message("  60 reads after gaps of 3 ms to 1 s: %" PRIu64 " resyncs\n",
		      state_now().resyncs - resyncs);
	assert_int_equal(state_now().resyncs, resyncs);
	/* Reading often again, the library resyncs again. */
	read_often(&tr, 50 * MS);
	assert_true(state_now().resyncs > resyncs);
	check_bound(r, GOOD_NS, "reading often again");
}

/* A reader whose gap is a segment's length and a half: the first read
 * past each horizon comes that late, so a segment made there would serve
 * no other read.  It is served the kernel's clock, not resynced at every
 * read (CYCLOCK_PAY_NS). */
static void steady_reads_past_half_a_segment_are_served(void **state)
{
	struct track tr = { 0 };
	struct reading r[NCLOCKS];
	uint64_t resyncs, gap;

	(void)state;
	sim_start(RATE, RATE, true, true);
	read_often(&tr, 100 * MS);
	resyncs = state_now().resyncs;
	gap = state_now().interval_ns + CYCLOCK_MAX_INTERVAL_NS / 4;
	for (int i = 0; i < 30; i++) {
		w.t += gap;
		sim_read_all(&tr, r);
		check_bound(r, GOOD_NS, "a steady read after a gap");
	}
	print_message("  30 reads every %.2f ms: %" PRIu64 " resyncs\n", (double)gap / MS,
		      state_now().resyncs - resyncs);
	assert_true(state_now().resyncs - resyncs <= 1);
}

/* The system clock set forward and back between sparse reads: the next
 * read of cyclock_realtime() shows it; cyclock_now() does not move. */
static void a_step_shows_at_the_next_read(void **state)
{
	struct track tr = { 0 };
	struct reading r[NCLOCKS];

	(void)state;
	sim_start(RATE, RATE, true, true);
	read_often(&tr, 100 * MS);
	for (int i = 0; i < 8; i++) {
		w.t += 20 * MS;
		w.off_real += i % 2 ? -(uint64_t)(3 * SEC) : 5 * SEC;
		tr.last[REAL] = 0; /* realtime may step back when the clock is set */
		sim_read_all(&tr, r);
		check_bound(r, GOOD_NS, "the read after a step of the system clock");
	}
}

/* The kernel's rate changes during the gaps: served
 * reads are the kernel's clock whatever the counter's rate. */
static void rate_changes_in_the_gaps(void **state)
{
	static const long ticks[] = { 9000, 11000, 10000, 10100, 9900, 10000 };
	struct track tr = { 0 };
	struct reading r[NCLOCKS];

	(void)state;
	sim_start(RATE, RATE, true, true);
	read_often(&tr, 100 * MS);
	for (int i = 0; i < 24; i++) {
		w_kernel_rate(ticks[i % 6], (i % 3 - 1) * 500.0);
		w.t += gaps[i % 6];
		sim_read_all(&tr, r);
		check_bound(r, GOOD_NS, "a read after a gap with the rate changed");
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(sparse_reads_serve_the_kernel),
		cmocka_unit_test(steady_reads_past_half_a_segment_are_served),
		cmocka_unit_test(a_step_shows_at_the_next_read),
		cmocka_unit_test(rate_changes_in_the_gaps),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
