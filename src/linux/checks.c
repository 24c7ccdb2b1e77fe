/* SPDX-License-Identifier: MIT */
/*
 * What initialisation asks the machine before it decides (trust.c) and
 * starts the timelines (start.c): one list, in the order it is asked (the
 * machine's record, CPUID's leaves it did not answer, the kernel's
 * clocksource, the ordered reads' timing).  A lazy
 * initialisation's reads ask one item each, however far apart they come
 * (cyclock__check_next(): each costs a read a few microseconds, where all
 * at once cost one read tens), and cyclock_init() asks them all
 * (cyclock__check_rest()); either then turns them into the decision's answers
 * (cyclock__check_answers()), and runs the warp check when asked for.
 * Why each is asked, and which by every process or once per boot:
 * docs/hosted.md ("Trust").
 */
#include <string.h>

#include "internal.h"

/* Each item: whether it is still to ask, and the asking. */
struct check {
	bool (*pending)(const struct cyclock__asked *q);
	void (*ask)(struct cyclock__asked *q);
};

/* The machine's record: CPUID's answers and the ordered reads' costs, if
 * this boot's first process kept them. */
static bool record_pending(const struct cyclock__asked *q)
{
	return !q->record_tried;
}

static void record(struct cyclock__asked *q)
{
	q->record_tried = true;
	q->record_loaded = cyclock__record_load();
}

/* One CPUID leaf the record did not answer (x86-64; none elsewhere). */
static bool leaf_pending(const struct cyclock__asked *q)
{
	(void)q;
	return cyclock__cpuid_pending();
}

static void leaf(struct cyclock__asked *q)
{
	(void)q;
	cyclock__cpuid_ahead();
}

static bool clocksource_pending(const struct cyclock__asked *q)
{
	return !q->clocksource_asked;
}

static void clocksource(struct cyclock__asked *q)
{
	q->clocksource_asked = true;
	if (!cyclock__kernel_clocksource(q->clocksource_name, sizeof(q->clocksource_name)))
		q->clocksource = CYCLOCK__CS_UNREAD;
	else if (strcmp(q->clocksource_name, CYCLOCK_ARCH_KERNEL_CLOCKSOURCE))
		q->clocksource = CYCLOCK__CS_OTHER;
	else
		q->clocksource = CYCLOCK__CS_THIS;
}

/* The rest only for a counter the kernel uses: the counter's own. */
static bool counter_used(const struct cyclock__asked *q)
{
	return q->clocksource_asked && q->clocksource == CYCLOCK__CS_THIS;
}

/* The ordered reads timed against each other (ordered.c). */
static bool timing_pending(const struct cyclock__asked *q)
{
	return counter_used(q) && !cyclock__ordered_timed();
}

static void timing(struct cyclock__asked *q)
{
	(void)q;
	cyclock__ordered_time();
}

static const struct check list[] = {
	{ record_pending, record },           { leaf_pending, leaf },
	{ clocksource_pending, clocksource }, { timing_pending, timing },
};
#define N_CHECKS (sizeof(list) / sizeof(list[0]))

static const struct check *next(const struct cyclock__asked *q)
{
	for (size_t i = 0; i < N_CHECKS; i++)
		if (list[i].pending(q))
			return &list[i];
	return NULL;
}

/* One item, if one is left; whether another is left after it. */
bool cyclock__check_next(struct cyclock__asked *q)
{
	const struct check *c = next(q);

	if (c)
		c->ask(q);
	return next(q) != NULL;
}

void cyclock__check_rest(struct cyclock__asked *q)
{
	for (const struct check *c; (c = next(q));)
		c->ask(q);
}

/* Whether the per-CPU clock's read of the counter and its CPU runs here
 * (x86-64: rdtscp, which a CPU may lack). */
static bool counter_cpu_works(void)
{
#ifdef CYCLOCK_ARCH_COUNTER_CPU_HOW
	const char *why;

	return cyclock_arch_ordered_works(CYCLOCK_ARCH_COUNTER_CPU_HOW, &why);
#else
	return true;
#endif
}

uint64_t cyclock__check_answers(struct cyclock__answers *a, const struct cyclock__asked *q)
{
	a->invariant = cyclock__counter_invariant();
	a->clocksource = q->clocksource;
	memcpy(a->clocksource_name, q->clocksource_name, sizeof(a->clocksource_name));
	a->counter_cpu = counter_cpu_works();
	return cyclock__counter_hz_hint(&cyclock__setup.hz_source);
}

/* Two threads for 1 ms, once more if a busy machine left them few turns
 * (docs/hosted.md, "Trust"). */
void cyclock__check_warp(struct cyclock__answers *a)
{
	if (!a->invariant || a->clocksource != CYCLOCK__CS_THIS ||
	    cyclock__allowed_cpus(a->warp_cpu) < 2)
		return;
	cyclock__setup.warp_ran = true;
	for (int i = 0; i < 2; i++) {
		cyclock__setup.warp_cyc = cyclock__warp_check(a->warp_cpu, 1000 * NSEC_PER_USEC,
							    &cyclock__setup.warp_turns);
		if (cyclock__setup.warp_cyc != 0 || cyclock__setup.warp_turns >= CYCLOCK_WARP_TURNS)
			break;
	}
	a->warp_cyc = cyclock__setup.warp_cyc;
}
