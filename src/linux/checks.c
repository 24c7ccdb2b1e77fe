/* SPDX-License-Identifier: MIT */
/*
 * What initialisation asks the machine before it decides (trust.c) and
 * starts the timelines (start.c), in two parts by whether it takes a
 * system call (docs/hosted.md, "System calls"):
 *  - at load (cyclock__check_at_load(), from the library's constructor,
 *    before main() and so before any filter the program installs itself):
 *    the machine's record, and, where there is none, every CPUID leaf
 *    and the ordered reads' timing, kept in a new one; the kernel's
 *    clocksource, from the record if it read it less than a second ago,
 *    else from sysfs, and then kept in the record; the frequency a file
 *    states (riscv64's device tree);
 *  - then what takes none, one item a read (cyclock__check_next()) or all
 *    at once (cyclock__check_rest()): the load's answers, taken in; the
 *    record, if what this CPU says of it agrees (CPUID, a leaf a read,
 *    which a process that never initialises is spared); CPUID's leaves
 *    the record did not answer; the ordered reads' timing.
 * Either turns them into the decision's answers (cyclock__check_answers()),
 * and runs the warp check when asked for.  Why each is asked, and which
 * by every process or once per boot: docs/hosted.md ("Trust").
 *
 * Tests: tests/linux/sim_defer.c (one check a read, however late),
 * test_first_read.c (what the load asked, on the real machine),
 * test_machine_record.c (the record's answers taken in).
 */
#include <limits.h>
#include <sched.h>
#include <string.h>

#include "internal.h"

/* The load's answers, written once, by whoever runs
 * cyclock__check_at_load() first (the constructor), and read once
 * LOAD_DONE is seen. */
enum { LOAD_NONE, LOAD_BUSY, LOAD_DONE };
static struct cyclock__asked loaded;
static CYCLOCK_ATOMIC(uint32_t) load_state;

/* The kernel's clocksource: as the machine's record read it less than a
 * second ago, else from sysfs (@*read: it was). */
static void clocksource(struct cyclock__asked *q, bool *read)
{
	char *name = q->clocksource_name;

	*read = false;
	if (!cyclock__record_clocksource(name, sizeof(q->clocksource_name)) &&
	    !(*read = cyclock__kernel_clocksource(name, sizeof(q->clocksource_name))))
		q->clocksource = CYCLOCK__CS_UNREAD;
	else if (strcmp(name, CYCLOCK_ARCH_KERNEL_CLOCKSOURCE))
		q->clocksource = CYCLOCK__CS_OTHER;
	else
		q->clocksource = CYCLOCK__CS_THIS;
	q->clocksource_kept = !*read && q->clocksource != CYCLOCK__CS_UNREAD;
}

/* The rest only for a counter the kernel uses: the counter's own. */
static bool counter_used(const struct cyclock__asked *q)
{
	return q->have_load && q->clocksource == CYCLOCK__CS_THIS;
}

static void ask_at_load(void)
{
	loaded.have_load = true;
	if (cyclock__env_source() == FORCE_KERNEL) {
		loaded.clocksource = CYCLOCK__CS_UNREAD; /* not asked: nothing will be used */
		return;
	}
	bool read;

	loaded.record_loaded = cyclock__record_load();
	clocksource(&loaded, &read);
	cyclock__counter_hz_at_load();
	cyclock__env_ordered_at_load();
	/* This boot's first process keeps what later ones would ask, and the
	 * first after a second the clocksource again. */
	if (read && counter_used(&loaded))
		cyclock__record_save(loaded.clocksource_name);
}

/* What takes a system call, once per process image: from the library's
 * constructor, or from an initialisation that came first (a static
 * program's constructor that reads a clock).  Returns once it is done. */
void cyclock__check_at_load(void)
{
	uint32_t none = LOAD_NONE;

	if (cyclock_atomic_cas(&load_state, &none, LOAD_BUSY, CYCLOCK_SEQ_CST, CYCLOCK_SEQ_CST)) {
		ask_at_load();
		cyclock_atomic_store(&load_state, LOAD_DONE, CYCLOCK_RELEASE);
		return;
	}
	/* Another thread at it (a constructor's thread): a bounded wait. */
	for (int i = 0; i < 10000 && none == LOAD_BUSY; i++) {
		sched_yield();
		none = cyclock_atomic_load(&load_state, CYCLOCK_ACQUIRE);
	}
}

/* Each item: whether it is still to ask, and the asking (@all: at once,
 * an explicit call's; else a read's, which asks CPUID once at most). */
struct check {
	bool (*pending)(const struct cyclock__asked *q);
	void (*ask)(struct cyclock__asked *q, bool all);
};

/* The load's answers: taken in once there (a read before the constructor
 * has run waits for them, on the kernel's clocks meanwhile). */
static bool load_pending(const struct cyclock__asked *q)
{
	return !q->have_load;
}

static void load(struct cyclock__asked *q, bool all)
{
	(void)all;
	if (cyclock_atomic_load(&load_state, CYCLOCK_ACQUIRE) == LOAD_DONE)
		*q = loaded;
}

void cyclock__check_loaded(struct cyclock__asked *q)
{
	load(q, true);
}

#ifdef CYCLOCK_SIM
/* A test's new machine: asked again, as at a load. */
void cyclock__check_reload(void)
{
	memset(&loaded, 0, sizeof(loaded));
	cyclock_atomic_store(&load_state, LOAD_NONE, CYCLOCK_SEQ_CST);
	cyclock__check_at_load();
}
#endif

/* The record read at load, taken if what this CPU says agrees (asked of
 * it: CPUID, no system call; a leaf a read). */
static bool take_pending(const struct cyclock__asked *q)
{
	return q->record_loaded && !q->record_tried;
}

static void take(struct cyclock__asked *q, bool all)
{
	int took = cyclock__record_take(all ? UINT_MAX : 1);

	if (took == CYCLOCK__TAKE_LATER)
		return; /* a leaf asked: the next on the next read */
	q->record_tried = true;
	q->record_taken = took == CYCLOCK__TAKE_YES;
}

/* One CPUID leaf the record did not answer (x86-64; none elsewhere). */
static bool leaf_pending(const struct cyclock__asked *q)
{
	return q->have_load && cyclock__cpuid_pending();
}

static void leaf(struct cyclock__asked *q, bool all)
{
	(void)q, (void)all;
	cyclock__cpuid_ahead();
}

/* The ordered reads timed against each other (ordered.c). */
static bool timing_pending(const struct cyclock__asked *q)
{
	return counter_used(q) && !cyclock__ordered_timed();
}

static void timing(struct cyclock__asked *q, bool all)
{
	(void)q, (void)all;
	cyclock__ordered_time();
}

static const struct check list[] = {
	{ load_pending, load },
	{ take_pending, take },
	{ leaf_pending, leaf },
	{ timing_pending, timing },
};
#define N_CHECKS (sizeof(list) / sizeof(list[0]))

static const struct check *next(const struct cyclock__asked *q)
{
	for (size_t i = 0; i < N_CHECKS; i++)
		if (list[i].pending(q))
			return &list[i];
	return NULL;
}

bool cyclock__check_pending(const struct cyclock__asked *q)
{
	return next(q) != NULL;
}

/* One item, if one is left; whether another is left after it.  No system
 * call: a read's. */
bool cyclock__check_next(struct cyclock__asked *q)
{
	const struct check *c = next(q);

	if (c)
		c->ask(q, false);
	return next(q) != NULL;
}

/* Everything left, the load's part too if it has not run (an explicit
 * call's: it may make system calls). */
void cyclock__check_rest(struct cyclock__asked *q)
{
	cyclock__check_at_load();
	load(q, true);
	q->have_load = true; /* the load's answers, or none: the clocksource unread */
	for (const struct check *c; (c = next(q));)
		c->ask(q, true);
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
