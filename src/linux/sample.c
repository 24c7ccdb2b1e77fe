/* SPDX-License-Identifier: MIT */
/*
 * Reading the kernel's clocks against the counter: a bracketed sample of
 * one clock, and the REALTIME and BOOTTIME offsets from MONOTONIC.
 *
 * Tests: tests/model/model_publish.cpp (run as it is),
 * tests/linux/sim_realtime.c (the offsets: REALTIME stepped, BOOTTIME
 * grown), sim_track.c.
 */
#define _GNU_SOURCE
#include "internal.h"

static uint64_t offset_to_mono(clockid_t id, uint64_t *width, int min);

/* The tightest of up to three brackets (counter, kernel clock, counter):
 * the first one tight enough (setup.counts.tight_cyc, CYCLOCK_TIGHT_NS)
 * ends the search.
 * CLOCK_MONOTONIC's carries RAW - MONOTONIC, from one (MONOTONIC, RAW,
 * MONOTONIC) bracket within 1 us, three vDSO reads: MONOTONIC's rate over
 * RAW's is the kernel's word on its rate (rate.c). */
void cyclock__sample(clockid_t id, struct cyclock__sample *s)
{
	s->raw_w = 0;
	s->width = UINT64_MAX;
	for (int i = 0; i < 3 && s->width > cyclock__setup.counts.tight_cyc; i++) {
		uint64_t c1 = cyclock__ordered();
		uint64_t ns = cyclock__kernel_ns(id);
		uint64_t c2 = cyclock__ordered();

		if (c2 - c1 < s->width) {
			s->lo = c1;
			s->width = c2 - c1;
			s->cyc = c1 + s->width / 2;
			s->ns = ns;
		}
	}
	if (id == CLOCK_MONOTONIC) {
		s->raw_off = offset_to_mono(CLOCK_MONOTONIC_RAW, &s->raw_w, 1);
		s->raw_w++; /* a ns of rounding; and never 0, which says "not read" */
	}
}

/* The relative uncertainty of a rate measured from sample @a to sample
 * @b (later), @rate ns per count: their brackets' mean width over the
 * baseline. */
double cyclock__rate_unc(const struct cyclock__sample *a, const struct cyclock__sample *b,
			 double rate)
{
	return (double)(a->width + b->width) / 2 * rate / (double)(b->ns - a->ns);
}

/* @id - CLOCK_MONOTONIC, from the tightest of (mono, id, mono): at least
 * @min of them, and up to 16 while none is within 1 us (a preempted
 * bracket is off by up to half its width, as on a loaded machine under a
 * sanitizer). */
static uint64_t offset_to_mono(clockid_t id, uint64_t *width, int min)
{
	uint64_t best = 0;

	*width = UINT64_MAX;
	for (int i = 0; i < 16 && (i < min || *width > NSEC_PER_USEC); i++) {
		uint64_t m1 = cyclock__kernel_ns(CLOCK_MONOTONIC);
		uint64_t x = cyclock__kernel_ns(id);
		uint64_t m2 = cyclock__kernel_ns(CLOCK_MONOTONIC);

		if (m2 - m1 < *width) {
			*width = m2 - m1;
			best = x - (m1 + (m2 - m1) / 2);
		}
	}
	return best;
}

/*
 * The kernel's REALTIME and BOOTTIME offsets from MONOTONIC change only
 * when the system clock is set or the machine resumes; a new reading
 * differing by less than its own uncertainty is noise, not a change,
 * unless the one in use was far less certain (a preempted first reading:
 * it would otherwise stay until the clock is set).  BOOTTIME's only
 * grows, so that cyclock_boottime() never goes back.  The @first reading,
 * which stays until the clock is set, is the best of three brackets; a
 * later one only has to tell a change (over 1 us, cyclock__offsets_apply())
 * from noise, so the first bracket within 1 us does: six kernel reads, not
 * eighteen, on the resync that measures them.  Measured before the writer
 * flag is taken (the readings are the slow part), applied under it.
 */
void cyclock__offsets_read(struct cyclock__offsets *o, bool first)
{
	int min = first ? 3 : 1;

	o->real = offset_to_mono(CLOCK_REALTIME, &o->real_w, min);
	o->boot = offset_to_mono(CLOCK_BOOTTIME, &o->boot_w, min);
	if ((int64_t)o->boot < 0) /* noise: BOOTTIME is never behind MONOTONIC */
		o->boot = 0;
}

void cyclock__offsets_apply(const struct cyclock__offsets *o, bool first)
{
	uint64_t slack = 2 * o->real_w > NSEC_PER_USEC ? 2 * o->real_w : NSEC_PER_USEC;
	int64_t d = (int64_t)(o->real - TRACKS_OFF(off_real));

	if (first || d > (int64_t)slack || d < -(int64_t)slack ||
	    o->real_w < TRACKS_OFF(off_real_w) / 4) {
		TRACKS_OFF(off_real) = o->real;
		TRACKS_OFF(off_real_w) = o->real_w;
	}
	slack = 2 * o->boot_w > NSEC_PER_USEC ? 2 * o->boot_w : NSEC_PER_USEC;
	if (first || (int64_t)(o->boot - TRACKS_OFF(off_boot)) > (int64_t)slack ||
	    (o->boot_w < TRACKS_OFF(off_boot_w) / 4 && o->boot > TRACKS_OFF(off_boot))) {
		TRACKS_OFF(off_boot) = o->boot;
		TRACKS_OFF(off_boot_w) = o->boot_w;
	}
}
