/* SPDX-License-Identifier: MIT */
/*
 * CLOCK_MONOTONIC changes rate under the library over the kernel's whole
 * range: NTP's frequency (+-500 ppm), the tick (9000..11000 us, +-10%),
 * both at once, PLL offset slews, at chosen and at random moments, which
 * the library learns of from the kernel's clocks alone (MONOTONIC's rate
 * over RAW's: it asks no adjtimex(2)).  cyclock_now() must never step
 * back; it may step forward, to the kernel's clock, by no more than it was
 * behind.  Within +-500 ppm it stays within 20 us of the kernel, follows
 * the change on the counter (a rate change followed, no spell on the
 * kernel's clock) and is back within 1 us 50 ms after it; faster changes
 * are served from the kernel's clock itself (a "spell", counted), from
 * within a bound of the change's size, and the counter takes over again
 * once the rate is steady.  No change is taken for the counter gone wrong
 * (an anomaly): the kernel's clocks explain it.  cyclock_raw() follows
 * MONOTONIC_RAW, which does not change: it must not notice.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "sim_world.h"
#include "internal.h"

#define SETTLE_NS (10 * MS)
#define GOOD_NS 1000
#define NTP_BOUND_NS (20 * US)      /* within +-500 ppm: the most now may be off */
#define NTP_SETTLE_NS (50 * MS)     /* and back within GOOD_NS by then */
#define TICK_BOUND_NS (1 * MS)      /* a 10% change: off by at most this before it is seen */
#define TICK_SETTLE_NS (150 * MS)   /* back within GOOD_NS (on the kernel's clock or not) */
#define AFTER_NS (3 * SEC)          /* how long to watch after the last change */
#define SLOPE_PPM 110000            /* between steps: now's rate vs virtual time (the tick's range) */

struct change {
	uint64_t at; /* virtual time since start */
	long tick;   /* ADJ_TICK */
	double ppm;  /* ADJ_FREQUENCY */
};

struct watch {
	int64_t bound, max_abs;  /* the largest error allowed, and seen */
	uint64_t settle;         /* within GOOD_NS this long after each change */
	uint64_t changed_at, worst_settle;
	int64_t forward_max;     /* the largest step forward seen */
};

/*
 * Between two reads now went forward, never back, at most at a rate
 * SLOPE_PPM above virtual time (it may follow the kernel's old rate for a
 * while after a change) or as far as the kernel's clock went, or
 * by a step to the kernel's clock: no larger than how far behind it was
 * before (prev->err < 0).  Each value may belong to any moment of its
 * call, hence the brackets.
 */
static void check_step(struct watch *wt, const struct reading *prev, const struct reading *r)
{
	int64_t dv = (int64_t)(r->v - prev->v);
	int64_t most = (int64_t)(r->t_hi - prev->t_lo), kernel = (int64_t)(r->hi - prev->lo);
	int64_t behind = prev->err < 0 ? -prev->err : 0;

	most += most * SLOPE_PPM / 1000000 + 2;
	if (kernel > most)
		most = kernel;
	if (dv < 0)
		fail_msg("now went back by %" PRId64 " ns at t=%" PRIu64, -dv, r->t_hi);
	if (dv > most + behind + 100)
		fail_msg("now jumped %" PRId64 " ns between reads %" PRIu64 " ns of virtual time"
			 " apart, %" PRId64 " ns behind before, at t=%" PRIu64,
			 dv, r->t_hi - prev->t_lo, behind, r->t_hi);
	if (dv - most > wt->forward_max)
		wt->forward_max = dv - most;
}

static void note(struct watch *wt, const struct reading r[NCLOCKS])
{
	int64_t e = r[NOW].err < 0 ? -r[NOW].err : r[NOW].err;

	if (e > wt->max_abs)
		wt->max_abs = e;
	if (e > wt->bound)
		fail_msg("now off by %" PRId64 " ns (bound %" PRId64 ") at t=%" PRIu64, r[NOW].err,
			 wt->bound, r[NOW].t_hi);
	if (e > GOOD_NS && w.t - wt->changed_at > wt->settle)
		fail_msg("now still off by %" PRId64 " ns %.3f s after a change", r[NOW].err,
			 (double)(w.t - wt->changed_at) / 1e9);
	if (e > GOOD_NS && w.t - wt->changed_at > wt->worst_settle)
		wt->worst_settle = w.t - wt->changed_at;
	if (r[RAW].err > GOOD_NS || r[RAW].err < -(int64_t)GOOD_NS)
		fail_msg("raw off by %" PRId64 " ns while MONOTONIC changes", r[RAW].err);
}

/* Read every @stride from the start, applying @ch as their times come. */
static struct watch run_changes(const struct change *ch, int n, uint64_t stride, int64_t bound,
				uint64_t settle)
{
	struct watch wt = { .bound = GOOD_NS, .settle = UINT64_MAX };
	struct track tr = { 0 };
	struct reading r[NCLOCKS], prev = { 0 };
	uint64_t start, end;
	int next = 0;

	sim_start(3000000000ull, 3000000000ull, true, true);
	start = w.t;
	end = start + ch[n - 1].at + AFTER_NS;
	while (w.t < end) {
		if (next < n && w.t - start >= ch[next].at) {
			w_kernel_rate(ch[next].tick, ch[next].ppm);
			next++;
			wt.bound = bound;
			wt.settle = settle;
			wt.changed_at = w.t;
		}
		sim_read_all(&tr, r);
		if (tr.reads > 1)
			check_step(&wt, &prev, &r[NOW]);
		prev = r[NOW];
		if (w.t - start >= SETTLE_NS)
			note(&wt, r);
		w.t += stride;
	}
	assert_int_equal(state_now().anomalies, 0);
	return wt;
}

static void report(const struct watch *wt, const char *what)
{
	struct cyclock_state info = state_now();

	print_message("  %s: largest error %" PRId64 " ns, under 1 us %.3f s after a change,"
		      " largest step forward %" PRId64 " ns; %" PRIu64 " spells on the kernel's"
		      " clock, %" PRIu64 " rate changes followed\n",
		      what, wt->max_abs, (double)wt->worst_settle / 1e9, wt->forward_max,
		      info.kernel_spells, info.rate_changes);
}

/* Changes within +-500 ppm: followed on the counter, never a spell. */
static void ntp(const struct change *ch, int n, uint64_t stride, const char *what)
{
	struct watch wt = run_changes(ch, n, stride, NTP_BOUND_NS, NTP_SETTLE_NS);

	report(&wt, what);
	assert_int_equal(state_now().kernel_spells, 0);
}

static void plus_500ppm(void **state)
{
	const struct change ch[] = { { 20 * SEC, 10000, 500 } };

	(void)state;
	ntp(ch, 1, 100 * US, "+500 ppm at 20 s");
	assert_true(state_now().rate_changes > 0);
}

static void minus_500ppm(void **state)
{
	const struct change ch[] = { { 20 * SEC, 10000, -500 } };

	(void)state;
	ntp(ch, 1, 100 * US, "-500 ppm at 20 s");
	assert_true(state_now().rate_changes > 0);
}

/* While the interval is still short, just after initialisation. */
static void plus_500ppm_early(void **state)
{
	const struct change ch[] = { { 5 * MS, 10000, 500 } };

	(void)state;
	ntp(ch, 1, 100 * US, "+500 ppm at 5 ms");
}

/* A 1000 ppm swing, and back to where it started. */
static void swings(void **state)
{
	const struct change ch[] = { { 2 * SEC, 10000, 500 },
				     { 2500 * MS, 10000, -500 },
				     { 4 * SEC, 10000, 0 } };

	(void)state;
	ntp(ch, 3, 100 * US, "+500, -500, 0 ppm");
	assert_true(state_now().rate_changes >= 3);
}

/* Few reads: one every 7.3 ms, so each resync comes late. */
static void sparse_reads(void **state)
{
	const struct change ch[] = { { 20 * SEC, 10000, -500 } };

	(void)state;
	ntp(ch, 1, 7300 * US, "-500 ppm at 20 s, reads every 7.3 ms");
}

/* The tick over its whole range, alone and with the frequency. */
static void ticks(void **state)
{
	const struct change ch[] = { { 1 * SEC, 9000, 0 },   { 1500 * MS, 11000, 0 },
				     { 2 * SEC, 9900, 500 }, { 2600 * MS, 10100, -500 },
				     { 3 * SEC, 10000, 0 } };

	struct watch wt;

	(void)state;
	wt = run_changes(ch, 5, 100 * US, TICK_BOUND_NS, TICK_SETTLE_NS);
	report(&wt, "ticks 9000..11000 with +-500 ppm");
	assert_true(state_now().kernel_spells > 0);
}

/*
 * A pause across a change: the kernel slows by 1% (the tick to 9900)
 * just as the process stops reading, for a second.
 * The first read after it leaves the counter for the kernel's clock, and
 * the floor that keeps every value at or above what the old segment
 * handed out must not be its low slope carried over the pause, 1% fast
 * against the kernel: nobody read it there, and readers waiting past the
 * horizon never hand out more than the kernel's clock or the horizon's
 * value.  So after the pause cyclock_now() is never further ahead than that (it
 * was 8.7 ms ahead after 1 s, and a relative sleep of 1 s measured 8.7 ms
 * short on it, in the kernel's nanosleep selftest; then, with a tolerance
 * of 50 us, 50 us ahead, which a timer's 50 us slack did not always
 * cover), and cyclock_cycles_to_ns() agrees with it.
 */
static void pause_across_a_slower_tick(void **state)
{
	struct reading prev = { 0 }, r;
	uint64_t x;

	(void)state;
	sim_start(3000000000ull, 3000000000ull, true, true);
	for (uint64_t t0 = w.t; w.t - t0 < 100 * MS; w.t += 100 * US)
		(void)sim_read(NOW);
	w_kernel_rate(9900, 0);
	w.t += SEC;
	for (uint64_t t0 = w.t; w.t - t0 < 100 * MS; w.t += 100 * US) {
		r = sim_read(NOW);
		if (r.v < prev.v)
			fail_msg("cyclock_now() went back by %" PRIu64 " ns", prev.v - r.v);
		/* Far inside a timer's slack (50 us), or a sleep timed across
		 * the pause measures short. */
		if (r.err > (int64_t)(2 * US))
			fail_msg("cyclock_now() %" PRId64 " ns ahead of the kernel %.1f ms after the "
				 "pause",
				 r.err, (double)(w.t - t0) / 1e6);
		/* cyclock_cycles_to_ns() on the kernel's clock too, not on the
		 * old function carried over the pause. */
		x = cyclock_cycles_to_ns(cyclock_cycles());
		if (x + 1000 < r.v || x > r.v + 2000)
			fail_msg("cyclock_cycles_to_ns() %" PRId64 " ns off cyclock_now() %.1f ms "
				 "after the pause",
				 (int64_t)(x - r.v), (double)(w.t - t0) / 1e6);
		prev = r;
	}
	print_message("  1 s pause, tick 9900: %" PRIu64 " spells\n", state_now().kernel_spells);
	assert_true(state_now().kernel_spells > 0);
}

/* Changes at random moments, of random kinds: 30 of them, each held
 * 20..400 ms, reads every 50..550 us. */
static void random_changes(void **state)
{
	static const long tick[] = { 9000, 9500, 9900, 10000, 10000, 10100, 10500, 11000 };
	struct change ch[30];
	uint64_t at = 1 * SEC, seed = 0x5eed;

	(void)state;
	for (int i = 0; i < 30; i++) {
		at += 20 * MS + prng_next(&seed) % (380 * MS);
		ch[i].at = at;
		ch[i].tick = tick[prng_next(&seed) % 8];
		ch[i].ppm = (double)(int64_t)(prng_next(&seed) % 1001) - 500.0;
	}
	for (int i = 0; i < 2; i++) {
		struct watch wt = run_changes(ch, 30, 50 * US + prng_next(&seed) % (500 * US),
					      TICK_BOUND_NS + 2 * MS, TICK_SETTLE_NS + 250 * MS);

		report(&wt, "30 random changes");
	}
}

/*
 * A PLL offset slew (ADJ_OFFSET): each second the kernel takes
 * offset >> (SHIFT_PLL + constant) of what is left, so the rate steps
 * down each second.
 */
static void pll_offset_slew(void **state)
{
	struct watch wt = { .bound = NTP_BOUND_NS, .settle = UINT64_MAX, .changed_at = 0 };
	struct track tr = { 0 };
	struct reading r[NCLOCKS], prev = { 0 };
	double offset_ns = 20.0 * MS; /* 20 ms at constant 2: 1250 ppm at first */

	(void)state;
	sim_start(3000000000ull, 3000000000ull, true, true);
	for (int s = 0; s < 8; s++) {
		double chunk = offset_ns / 16;
		uint64_t end = w.t + SEC;

		w_mono_rate((int64_t)(chunk));            /* ns per s = ppb */
		wt.changed_at = w.t;
		wt.settle = chunk / 1e3 > 1000 ? TICK_SETTLE_NS : NTP_SETTLE_NS;
		wt.bound = chunk / 1e3 > 1000 ? TICK_BOUND_NS : NTP_BOUND_NS;
		while (w.t < end) {
			sim_read_all(&tr, r);
			if (tr.reads > 1)
				check_step(&wt, &prev, &r[NOW]);
			prev = r[NOW];
			if (s || w.t - wt.changed_at > SETTLE_NS)
				note(&wt, r);
			w.t += 100 * US;
		}
		offset_ns -= chunk;
	}
	report(&wt, "PLL offset slew of 20 ms, constant 2");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(plus_500ppm),	cmocka_unit_test(minus_500ppm),
		cmocka_unit_test(plus_500ppm_early), cmocka_unit_test(swings),
		cmocka_unit_test(sparse_reads), cmocka_unit_test(ticks),
		cmocka_unit_test(pause_across_a_slower_tick),
		cmocka_unit_test(random_changes), cmocka_unit_test(pll_offset_slew),
	};

	unsetenv("CYCLOCK_SOURCE");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
