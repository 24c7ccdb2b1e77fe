/* SPDX-License-Identifier: MIT */
/*
 * Initialisation's lazy state machine: whether to trust the counter
 * (trust.c, over what checks.c asks the machine), its frequency, and the
 * timelines' start (start.c), run once, at cyclock_init() or from the
 * reads, whichever comes first.  No read waits for it, and a reader that
 * finds it under way reads the kernel's clock meanwhile: the timelines
 * start in kernel mode (docs/hosted.md, "The first read").
 *
 *   state        moved by, doing                              to
 *   NONE         the process's first read: nothing else       FIRST
 *   NONE, FIRST  cyclock_init(), or the next read: the first  BUSY, then DONE, or (a
 *                half (kernel mode, init's first sample)      read's) MEASURING
 *   MEASURING    a read, while a check is left: one check     BUSY, then MEASURING
 *                (checks.c: what the load left), however late
 *   MEASURING    the first read with none left and the        BUSY, then DONE (or
 *                frequency's span (500 us, 100 us to check a  MEASURING, a stated
 *                stated one) over or not needed, or           frequency refused)
 *                cyclock_init(): the second half (what is
 *                left to ask, the decision, the frequency,
 *                the timelines on the counter)
 *   BUSY         its owner, whom the word names; an explicit  the above
 *                call that finds the owner gone takes the word
 *                over
 *   DONE         nobody
 *
 * A read's steps make no system call (what needs one was asked at load:
 * checks.c), so that a program's own seccomp filter, installed after
 * load, never sees one (docs/hosted.md, "System calls").  An explicit
 * call's (cyclock_init(), and what waits as it does) runs shielded from
 * signals and cancellation (cyclock__shield()), so that no caller leaves
 * it half-done; a read's cannot block signals without a system call, so
 * a handler that longjmps out of one leaves its BUSY to the bound below.
 * The fork handler takes the BUSY of a parent's thread back to NONE or
 * MEASURING in the child.
 *
 * Tests: tests/linux/sim_defer.c (the states, a read at a time),
 * test_first_read.c (the first reads on the real machine),
 * test_first_call.c, test_owner_reuse.c and test_clone_vm.c (an owner that
 * never returns), validate_first_reads.c (threads racing their first
 * reads), test_record_frequency.c (a stated frequency checked).
 */
#define _GNU_SOURCE
#include <sched.h>
#include <string.h>

#include "internal.h"

/* How long the frequency is measured, when the hardware does not state
 * it; and how long a stated one is checked against the counter first. */
#define FREQ_SPAN_NS (500 * NSEC_PER_USEC)
#define HINT_CHECK_NS (100 * NSEC_PER_USEC)

/*
 * Between the halves: what the first found and the second needs, read and
 * written under BUSY alone.  A value: the first half starts it over whole
 * (a child of fork() may redo an initialisation its parent left half-done).
 */
struct scratch {
	struct cyclock__answers a; /* the caller's, the environment's, the machine's */
	struct cyclock__asked q;   /* what was asked of the machine */
	bool known;                /* a's machine answers are in, from q and the caches */
	uint64_t hz_stated;        /* the frequency the hardware states; 0: measure it */
	bool hint_refused;         /* it disagreed with the counter: measured instead */
	bool begun;                /* the first half is done */
	bool deferred;             /* CYCLOCK__INIT_DEFER: a read's, which never waits */
};
static struct scratch scratch;
/* Read outside BUSY: nothing is left to check ahead, and the second half
 * may come from this time (MONOTONIC_RAW) on (the readers' test for
 * work); cyclock_init(CYCLOCK_INIT_WARP_CHECK) was called. */
static CYCLOCK_ATOMIC(bool) ahead_done, want_warp;
static CYCLOCK_ATOMIC(uint64_t) finish_ns;
/* cyclock__init_lazily()'s, set before any read. */
static CYCLOCK_ATOMIC(unsigned int) lazy_flags;
typedef void lazy_done_fn(bool counter);
static CYCLOCK_ATOMIC(lazy_done_fn *) lazy_done;

/* The decision's texts, for cyclock__setup (static: describe.c keeps the
 * pointers). */
static char why_text[96], distrust_text[96];

/* How long the frequency is measured from init's first sample: briefly
 * to check a stated one, longer with none. */
static uint64_t freq_span(void)
{
	return scratch.hz_stated ? HINT_CHECK_NS : FREQ_SPAN_NS;
}

/* The machine's answers, once: from what was asked and the caches. */
static void machine_answers(void)
{
	if (!scratch.known)
		scratch.hz_stated = cyclock__check_answers(&scratch.a, &scratch.q);
	scratch.known = true;
}

/* A read came for the second half before the frequency's wait was over
 * (a stated frequency it refused): MEASURING again, until it is. */
static void measure_on(void)
{
	cyclock_atomic_store(&finish_ns, cyclock__setup.first_raw.ns + freq_span(),
			     CYCLOCK_RELAXED);
	cyclock_atomic_store(&cyclock__host.state, INIT_MEASURING, CYCLOCK_RELEASE);
}

/* Nothing is left to ask ahead of the second half, which the next read
 * does: at once if no frequency is needed, else once its span (shorter
 * for a stated one: frequency()) is over. */
static void ahead_over(void)
{
	machine_answers();
	cyclock_atomic_store(&finish_ns,
			     cyclock__trust_needs_hz(&scratch.a)
				     ? cyclock__setup.first_raw.ns + freq_span() : 0,
			     CYCLOCK_RELAXED);
	cyclock_atomic_store(&ahead_done, true, CYCLOCK_RELAXED);
}

/* Whether the stated frequency @hint is within CYCLOCK_FOLLOW_PPM, plus
 * the brackets' noise, of the counter's rate from @s0 to @s1. */
static bool hint_agrees(double hint, const struct cyclock__sample *s0,
			const struct cyclock__sample *s1)
{
	double cyc = (double)(s1->cyc - s0->cyc), hz = cyc * 1e9 / (double)(s1->ns - s0->ns);
	double noise = (double)(s0->width + s1->width) / cyc;

	return cyclock__absd(hint / hz - 1) <= noise + CYCLOCK_FOLLOW_PPM * 1e-6;
}

/*
 * The frequency, against CLOCK_MONOTONIC_RAW since init's first sample:
 * the hardware's statement, once HINT_CHECK_NS show it right within
 * CYCLOCK_FOLLOW_PPM (a wrong one, from a forged machine's record say,
 * costs the wait for a measurement, never a clock that far off); else
 * measured over FREQ_SPAN_NS.  A caller that may not wait (@may_wait
 * false: a read) gets 0 where that wait is still ahead.  @s1: the sample
 * it ends at.
 */
static double frequency(struct cyclock__sample *s1, bool may_wait)
{
	const struct cyclock__sample *s0 = &cyclock__setup.first_raw;
	uint64_t hint = scratch.hz_stated;

	for (int i = 0; i < 1000000; i++) { /* bounded: a stalled clock must not hang us */
		cyclock__sample(CLOCK_MONOTONIC_RAW, s1);
		if (s1->ns - s0->ns >= freq_span() || !may_wait)
			break;
	}
	if (s1->ns - s0->ns < freq_span() || s1->ns <= s0->ns)
		return 0;
	if (hint && !hint_agrees((double)hint, s0, s1)) {
		scratch.hz_stated = 0;
		scratch.hint_refused = true;
		return frequency(s1, may_wait);
	}
	if (!hint)
		cyclock__setup.hz_source = scratch.hint_refused
			? "measured against CLOCK_MONOTONIC_RAW (the stated frequency disagreed)"
			: "measured against CLOCK_MONOTONIC_RAW";
	cyclock__setup.hz_hint = hint ? (double)hint
				      : (double)(s1->cyc - s0->cyc) * 1e9 / (double)(s1->ns - s0->ns);
	return cyclock__setup.hz_hint;
}

/* The decision into the setup readers and describe.c see. */
static void decided(const struct cyclock__trust *t)
{
	memcpy(why_text, t->why, sizeof(why_text));
	memcpy(distrust_text, t->distrust, sizeof(distrust_text));
	cyclock__setup.why = why_text[0] ? why_text : NULL;
	cyclock__setup.distrust = distrust_text[0] ? distrust_text : NULL;
	cyclock__setup.forced = t->forced;
}

/* Initialisation's end: without the counter, the readers' fast path
 * goes straight to the kernel's clock (CYCLOCK__HOW_KERNEL). */
static void done(void)
{
	bool counter = cyclock_atomic_load(&cyclock__setup.using_counter, CYCLOCK_SEQ_CST);
	lazy_done_fn *tell = cyclock_atomic_load(&lazy_done, CYCLOCK_RELAXED);

	if (tell)
		tell(counter);
	cyclock__status_setup();
	if (!counter) {
		cyclock_atomic_store(&cyclock__mono.how, CYCLOCK__HOW_KERNEL, CYCLOCK_RELEASE);
		cyclock_atomic_store(&cyclock__raw.how, CYCLOCK__HOW_KERNEL, CYCLOCK_RELEASE);
	}
	cyclock_atomic_store(&cyclock__host.state, INIT_DONE, CYCLOCK_RELEASE);
}

/* The second half: what is left to ask, the decision, the frequency if it
 * needs one, and the timelines on the counter or the kernel's clocks.
 * @may_wait: an explicit call's, which may wait for the frequency. */
static void second_half(bool may_wait)
{
	uint64_t t0 = cyclock__kernel_ns(CLOCK_MONOTONIC_RAW);
	struct cyclock__answers *a = &scratch.a;
	struct cyclock__sample s1;
	struct cyclock__trust t;

	cyclock__check_rest(&scratch.q);
	machine_answers();
	if (cyclock_atomic_load(&want_warp, CYCLOCK_SEQ_CST))
		cyclock__check_warp(a);
	if (cyclock__trust_needs_hz(a) && !(a->hz = frequency(&s1, may_wait))) {
		measure_on();
		return;
	}
	t = cyclock__trust(a);
	decided(&t);
	if (t.use_counter)
		cyclock__start_counter(a->hz, &s1);
	if (t.local_percpu)
		cyclock_atomic_store(&cyclock__setup.local_percpu, cyclock__local_init(a->hz) == 0,
				     CYCLOCK_SEQ_CST);
	cyclock__setup.init_ns += cyclock__kernel_ns(CLOCK_MONOTONIC_RAW) - t0;
	done();
}

/*
 * The first half: the caller's and the environment's answers; with a
 * counter, kernel mode's start, the ordered read that needs no asking and
 * init's first sample, and, unless a read starts lazily
 * (CYCLOCK__INIT_DEFER alone), the machine's answers.  Then the second
 * half at once, or (a read's) the frequency's span, unless the decision
 * needs no frequency (a distrusted counter with no per-CPU clock wanted:
 * the preload's constructor is done with it at once).
 */
static void first_half(unsigned int flags)
{
	uint64_t t0 = cyclock__kernel_ns(CLOCK_MONOTONIC_RAW);
	struct cyclock__answers *a = &scratch.a;

	scratch = (struct scratch){
		.a = { .kernel_asked = flags & CYCLOCK_INIT_KERNEL,
		       .force = cyclock__env_source(),
		       .has_counter = CYCLOCK_ARCH_HAS_COUNTER,
		       .no_local = flags & CYCLOCK__INIT_NO_LOCAL },
		.deferred = flags & CYCLOCK__INIT_DEFER,
	};
	cyclock__check_loaded(&scratch.q);
	cyclock_atomic_store(&ahead_done, false, CYCLOCK_RELAXED);
	cyclock__setup.why = cyclock__setup.distrust = NULL;
	cyclock__setup.forced = cyclock__setup.warp_ran = false;
	cyclock_atomic_store(&cyclock__setup.local_percpu, false, CYCLOCK_SEQ_CST);
	cyclock_atomic_store(&cyclock__setup.using_counter, false, CYCLOCK_SEQ_CST);
	if (cyclock__trust_none(a)) {
		struct cyclock__trust t = cyclock__trust(a);

		decided(&t);
		cyclock__setup.init_ns = cyclock__kernel_ns(CLOCK_MONOTONIC_RAW) - t0;
		done();
		return;
	}
	cyclock__ordered_choose(0); /* before any counter read */
	cyclock__start_kernel_mode();
	cyclock__sample(CLOCK_MONOTONIC_RAW, &cyclock__setup.first_raw);
	scratch.begun = true;
	cyclock_atomic_store(&finish_ns, cyclock__setup.first_raw.ns + FREQ_SPAN_NS,
			     CYCLOCK_RELAXED);
	cyclock__setup.init_ns = cyclock__kernel_ns(CLOCK_MONOTONIC_RAW) - t0;
	if (!scratch.deferred) {
		second_half(true);
		return;
	}
	if (!cyclock__check_pending(&scratch.q))
		ahead_over();
	cyclock_atomic_store(&cyclock__host.state, INIT_MEASURING, CYCLOCK_RELEASE);
}

/* In a child of fork(), a BUSY of the parent's thread, which is gone:
 * start over, or, past the first half, finish again. */
void cyclock__init_fork_child(void)
{
	if (CYCLOCK__INIT_STATE(cyclock_atomic_load(&cyclock__host.state, CYCLOCK_SEQ_CST)) ==
	    INIT_BUSY)
		cyclock_atomic_store(&cyclock__host.state,
				     scratch.begun ? INIT_MEASURING : INIT_NONE, CYCLOCK_SEQ_CST);
}

/* Whether a read in MEASURING has work to do: a check ahead, while one
 * is left; then the second half, once init's first sample is old enough
 * for the frequency not to wait (or the frequency needs no wait). */
static bool measuring_work(uint64_t *now)
{
	*now = cyclock__kernel_ns(CLOCK_MONOTONIC_RAW);
	return *now >= cyclock_atomic_load(&finish_ns, CYCLOCK_RELAXED) ||
	       !cyclock_atomic_load(&ahead_done, CYCLOCK_RELAXED);
}

bool cyclock__record_used(void)
{
	return scratch.q.record_taken;
}

bool cyclock__clocksource_kept(void)
{
	return scratch.q.clocksource_kept;
}

bool cyclock__checked_ahead(void)
{
	return cyclock_atomic_load(&ahead_done, CYCLOCK_RELAXED);
}

/* A read in MEASURING: one check ahead of the second half, or, none
 * left, the second half: never both, however late the read (one read
 * every millisecond finds the frequency's span over at its first). */
static void measuring_step(uint64_t now, bool asked)
{
	uint64_t measuring = INIT_MEASURING;

	if (!cyclock__init_take(&measuring, asked))
		return;
	if (cyclock_atomic_load(&ahead_done, CYCLOCK_RELAXED) &&
	    now >= cyclock_atomic_load(&finish_ns, CYCLOCK_RELAXED)) {
		second_half(asked);
		return;
	}
	if (!cyclock__check_next(&scratch.q))
		ahead_over();
	cyclock_atomic_store(&cyclock__host.state, INIT_MEASURING, CYCLOCK_RELEASE);
}

/*
 * An initialisation whose owner is gone (owner.c), in BUSY word
 * @word: take it over, one caller of all that find it gone, and carry it
 * on where it was.  Nobody else takes the writer flag before
 * initialisation is done (a resync needs a counter segment,
 * cyclock_resync() waits for it), so the owner left it if it is taken.
 */
static void take_over(unsigned int flags, uint64_t word)
{
	if (!cyclock__init_owner_gone(word) || !cyclock__init_take(&word, true))
		return;
	cyclock_atomic_store(&cyclock__host.writer, 0, CYCLOCK_SEQ_CST);
	if (scratch.begun)
		second_half(true);
	else
		first_half(flags);
}

void cyclock__init_lazily(unsigned int flags, void (*done_fn)(bool counter))
{
	cyclock_atomic_store(&lazy_done, done_fn, CYCLOCK_SEQ_CST);
	cyclock_atomic_store(&lazy_flags, flags, CYCLOCK_SEQ_CST);
}

/*
 * Initialise, or carry a deferred initialisation on (the table at the
 * top); never waits for another thread at it.  A read
 * (CYCLOCK__INIT_READ) first takes NONE to FIRST with one
 * compare-and-swap, a whole state, and the next call goes on from FIRST
 * as from NONE; it makes no system call, and leaves a BUSY alone.  An
 * explicit call runs shielded, and takes over an owner that is gone.
 */
void cyclock__init_once(unsigned int flags)
{
	uint64_t state = cyclock_atomic_load(&cyclock__host.state, CYCLOCK_ACQUIRE);
	bool read = flags & CYCLOCK__INIT_READ;
	struct cyclock__shield shield;
	uint64_t now = 0;
	bool work = state == INIT_MEASURING && measuring_work(&now);

	if (state == INIT_DONE || (state == INIT_MEASURING && !work) ||
	    (read && CYCLOCK__INIT_STATE(state) == INIT_BUSY))
		return;
	if (state == INIT_NONE && read) {
		cyclock_atomic_cas(&cyclock__host.state, &state, INIT_FIRST, CYCLOCK_SEQ_CST,
				   CYCLOCK_SEQ_CST);
		return;
	}
	if (!read)
		cyclock__shield(&shield);
	flags |= cyclock_atomic_load(&lazy_flags, CYCLOCK_RELAXED);
	state = cyclock_atomic_load(&cyclock__host.state, CYCLOCK_SEQ_CST);
	if ((state == INIT_NONE || state == INIT_FIRST) && cyclock__init_take(&state, !read))
		first_half(flags);
	else if (state == INIT_MEASURING && (work || measuring_work(&now)))
		measuring_step(now, !read); /* RAW read once, before the shield if MEASURING then */
	else if (!read && CYCLOCK__INIT_STATE(state) == INIT_BUSY)
		take_over(flags, state);
	if (!read)
		cyclock__unshield(&shield);
}

/* Why initialisation is not done, for cyclock_get_state() (describe.c):
 * set when an explicit call's wait ran out. */
static CYCLOCK_ATOMIC(bool) waited_out;

const char *cyclock__init_why(void)
{
	if (cyclock_atomic_load(&cyclock__host.state, CYCLOCK_ACQUIRE) == INIT_DONE)
		return NULL;
	return cyclock_atomic_load(&waited_out, CYCLOCK_RELAXED)
		       ? "initialisation did not finish within 250 ms (its owner stopped in it, "
			 "or is gone): the kernel's clocks"
		       : "initialisation is under way: the kernel's clocks meanwhile";
}

/* Initialise, and wait until done: another thread may be at it, or a
 * deferred one measuring (a dead owner is taken over: take_over()).
 * Whether the counter is used; false, with the kernel's clocks served on
 * and cyclock__init_why() saying so, if it is not done within
 * WAIT_BOUND_NS.  @warp: the warp check, for a second half still to come. */
bool cyclock__init_wait(unsigned int flags, bool warp)
{
	uint64_t state, t0 = 0, now;

	if (warp)
		cyclock_atomic_store(&want_warp, true, CYCLOCK_SEQ_CST);
	cyclock__init_once(flags);
	while ((state = cyclock_atomic_load(&cyclock__host.state, CYCLOCK_ACQUIRE)) !=
	       INIT_DONE) {
		now = cyclock__kernel_ns(CLOCK_MONOTONIC_RAW);
		if (!t0)
			t0 = now;
		else if (now - t0 > CYCLOCK__INIT_WAIT_NS) {
			cyclock_atomic_store(&waited_out, true, CYCLOCK_RELAXED);
			return false;
		}
		cyclock__init_once(flags);
		if (state != INIT_MEASURING)
			sched_yield();
	}
	return cyclock_atomic_load(&cyclock__setup.using_counter, CYCLOCK_SEQ_CST);
}
