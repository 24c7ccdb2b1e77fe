/* SPDX-License-Identifier: MIT */
/*
 * Initialisation: which counter to trust and why, its frequency, which
 * ordered read, and the first segments of the timelines.  Runs once, at
 * cyclock_init() or from the reads, whichever comes first; a reader that
 * finds it under way reads the kernel's clock meanwhile (the timelines
 * start in kernel mode) instead of waiting.  A read never waits for it
 * either: the first read only notes that it came, the second does the
 * first half (microseconds: the first sample, no CPUID), and both return
 * the kernel's clock; the reads during the frequency's span (500 us) each
 * do one of the second half's checks ahead of it (a CPUID leaf, 5 us in a
 * KVM guest; the kernel's clocksource; adjtimex's word; the ordered reads'
 * timing), and the first read after it the rest: the frequency and the
 * timelines.  It runs shielded from signals and cancellation
 * (cyclock__shield()), so that no caller can leave it half-done (a
 * handler that longjmps out, pthread_cancel()); a child of a raw fork
 * system call, whose initialising thread stayed in the parent, takes it
 * over.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

struct cyclock__host cyclock__host;
struct cyclock__setup cyclock__setup;
struct cyclock__tracks cyclock__tracks;

/* Between initialisation's two halves: what the first found and the
 * second needs, this file's alone.  init() starts it over (a child of
 * fork() may redo an initialisation its parent left half-done), all but
 * want_warp, which cyclock_init() may set before. */
static struct {
	int force;                       /* FORCE_*, from CYCLOCK_SOURCE */
	bool begun;                      /* the first half is done */
	bool deferred;                   /* CYCLOCK__INIT_DEFER */
	bool no_local;                   /* CYCLOCK__INIT_NO_LOCAL */
	bool record_tried;               /* the machine's record was looked for, */
	bool record_loaded;              /* and answered CPUID and the reads' costs */
	bool checked;                    /* and invariant, hz_stated are known: */
	bool invariant;                  /* the counter's rate is constant (CPUID) */
	uint64_t hz_stated;              /* by the hardware; 0: measure */
	int clocksource_read;            /* the kernel's clocksource: 0 not read yet, */
	char clocksource[32];            /* 1 this, -1 could not be read */
	uint64_t finish_ns;              /* the second half from here (MONOTONIC_RAW) */
	struct cyclock__kadj adj;        /* adjtimex's word for MONOTONIC, asked ahead */
	uint64_t adj_ns;                 /* when (MONOTONIC_RAW); 0: not asked */
	CYCLOCK_ATOMIC(bool) ahead_done; /* nothing left to check ahead */
	CYCLOCK_ATOMIC(bool) want_warp;  /* cyclock_init(CYCLOCK_INIT_WARP_CHECK) was called */
} scratch;

/* The kernel's clocks, for every reader, because of @why (a string of
 * static duration: no snprintf() on a first read, whose first call costs
 * page faults). */
static void use_kernel(const char *why)
{
	cyclock__setup.why = why;
}

/* How long the frequency is measured, when the hardware does not state it. */
#define FREQ_SPAN_NS (500 * NSEC_PER_USEC)

/* The frequency: stated by the hardware (init() asked it), else measured
 * against CLOCK_MONOTONIC_RAW since @s0, over at least FREQ_SPAN_NS. */
static double frequency(const struct cyclock__sample *s0, struct cyclock__sample *s1)
{
	uint64_t hint = scratch.hz_stated;
	double hz;

	for (int i = 0; i < 1000000; i++) { /* bounded: a stalled clock must not hang us */
		cyclock__sample(CLOCK_MONOTONIC_RAW, s1);
		if (s1->ns - s0->ns >= FREQ_SPAN_NS || hint)
			break;
	}
	hz = s1->ns > s0->ns ? (double)(s1->cyc - s0->cyc) * 1e9 / (double)(s1->ns - s0->ns) : 0;
	if (!hint)
		cyclock__setup.hz_source = "measured against CLOCK_MONOTONIC_RAW";
	cyclock__setup.hz_hint = hint ? (double)hint : hz;
	return cyclock__setup.hz_hint;
}

/* Why the counter cannot be trusted, or NULL if it can.  @warp: check
 * for warps between two CPUs (with two threads, for 1 ms) besides taking
 * the kernel's word, whose clocksource this counter is (the vDSO takes
 * it: the kernel checks the counters' agreement as it brings each CPU up,
 * and its watchdog checks the clocksource against another). */
static void read_clocksource(void)
{
	scratch.clocksource_read =
		cyclock__kernel_clocksource(scratch.clocksource,
					    sizeof(scratch.clocksource))
			? 1
			: -1;
}

static const char *distrust(bool warp)
{
	static char why[96];
	int cpu[2];

	if (!scratch.invariant)
		return "the " CYCLOCK_ARCH_COUNTER_NAME " is not invariant";
	if (!scratch.clocksource_read)
		read_clocksource();
	if (scratch.clocksource_read < 0)
		return "the kernel's clocksource cannot be read";
	if (strcmp(scratch.clocksource, CYCLOCK_ARCH_KERNEL_CLOCKSOURCE)) {
		snprintf(why, sizeof(why), "the kernel's clocksource is %s",
			 scratch.clocksource);
		return why;
	}
	if (!warp || cyclock__allowed_cpus(cpu) < 2)
		return NULL;
	cyclock__setup.warp_ran = true;
	/* A busy machine may leave the two threads few turns: try once more. */
	for (int i = 0; i < 2; i++) {
		cyclock__setup.warp_cyc = cyclock__warp_check(cpu, 1000 * NSEC_PER_USEC,
							    &cyclock__setup.warp_turns);
		if (cyclock__setup.warp_cyc != 0 || cyclock__setup.warp_turns >= 100)
			break;
	}
	if (cyclock__setup.warp_cyc > 0) {
		snprintf(why, sizeof(why), "the %s goes back by %lld counts between CPUs %d and %d",
			 CYCLOCK_ARCH_COUNTER_NAME, (long long)cyclock__setup.warp_cyc, cpu[0], cpu[1]);
		return why;
	}
	return NULL;
}

/* Constants in counts, for a counter at @hz. */
static uint64_t counts(uint64_t ns, double hz)
{
	return (uint64_t)((double)ns * hz / 1e9) + 1;
}

struct cyclock__counts cyclock__counts_at(double hz)
{
	struct cyclock__counts c;
	uint32_t mult;

	cyclock_calc_mult_shift(&mult, &c.shift, (uint64_t)hz, NSEC_PER_SEC, 4);
	c.max_back_cyc = counts(CYCLOCK_MAX_BACK_NS, hz);
	c.min_int_cyc = counts(CYCLOCK_MIN_INTERVAL_NS, hz);
	c.max_int_cyc = counts(CYCLOCK_MAX_INTERVAL_NS, hz);
	c.fresh_cyc = counts(CYCLOCK_FRESH_NS, hz);
	c.fresh_margin_cyc = counts(CYCLOCK_FRESH_MARGIN_NS, hz);
	c.recheck_cyc = counts(CYCLOCK_RECHECK_NS, hz);
	c.quick_int_cyc = counts(CYCLOCK_QUICK_NS, hz);
	c.tight_cyc = counts(CYCLOCK_TIGHT_NS, hz);
	if (c.max_int_cyc > UINT32_MAX) /* a segment's horizon_cyc is 32 bits */
		c.max_int_cyc = UINT32_MAX;
	return c;
}

static void setup_scale(double hz)
{
	cyclock__setup.counts = cyclock__counts_at(hz);
	for (int i = 0; i < 2; i++) {
		struct cyclock__timeline *tl = i ? &cyclock__raw : &cyclock__mono;

		cyclock_atomic_store(&tl->pay_cyc, counts(CYCLOCK_PAY_NS, hz), CYCLOCK_RELAXED);
		cyclock_atomic_store(&tl->row_cyc, counts(CYCLOCK_ROW_NS, hz), CYCLOCK_RELAXED);
	}
}

/* From init's first sample (host.first_raw) and @s1, taken @hz apart. */
static void start_timelines(double hz, const struct cyclock__sample *s1)
{
	struct cyclock__sample sm;
	struct cyclock__offsets o;
	bool held;

	setup_scale(hz);
	cyclock__ordered_choose(hz);
	for (int i = 0; i < 2; i++) {
		struct cyclock__track *tr = i ? &cyclock__tracks.raw : &cyclock__tracks.mono;

		tr->tl = i ? &cyclock__raw : &cyclock__mono;
		tr->id = i ? CLOCK_MONOTONIC_RAW : CLOCK_MONOTONIC;
		tr->counts = &cyclock__setup.counts;
		tr->raw = &cyclock__tracks.raw;
		tr->first_raw = &cyclock__setup.first_raw;
		tr->rate = 1e9 / hz;
	}
	/* Not first: the first half measured them for the kernel-mode start,
	 * and realtime must not move back by the noise between the two. */
	cyclock__offsets_read(&o, false);
	cyclock__offsets_apply(&o, false);
	cyclock__sample(CLOCK_MONOTONIC, &sm);
	cyclock_atomic_store(&cyclock__tracks.offsets_ns, sm.ns, CYCLOCK_RELAXED);
	/* From the first counter segment on, a reader past its horizon may
	 * resync: the writer flag keeps it out until both timelines and their
	 * tracking are whole (it reads on, capped, meanwhile).  Nobody else
	 * can hold it yet, but a raw fork's child of ours may find it held. */
	held = cyclock__writer_try(cyclock__pid());
	/* MONOTONIC runs at RAW's rate times what adjtimex says (track.c):
	 * the word asked ahead, if no older than the first segment's length
	 * (a change since is one during that segment, which its resync finds). */
	cyclock__track_start(&cyclock__tracks.mono, &sm,
			     scratch.adj_ns && s1->ns - scratch.adj_ns <= CYCLOCK_MIN_INTERVAL_NS
				     ? &scratch.adj
				     : NULL);
	cyclock__track_start(&cyclock__tracks.raw, s1, NULL);
	/* The rate's baseline starts at init's first sample. */
	cyclock__tracks.raw.anchor = cyclock__tracks.raw.mid = cyclock__setup.first_raw;
	if (held)
		cyclock__writer_done();
	cyclock_atomic_store(&cyclock__setup.using_counter, true, CYCLOCK_SEQ_CST);
}

/* The fork handler, for the child; also the tests'. */
void cyclock__fork_child(void)
{
	/* Its thread is gone: start over, or, past the first half, finish again. */
	if (CYCLOCK__INIT_STATE(cyclock_atomic_load(&cyclock__host.state, CYCLOCK_SEQ_CST)) ==
	    INIT_BUSY)
		cyclock_atomic_store(&cyclock__host.state,
				     scratch.begun ? INIT_MEASURING : INIT_NONE, CYCLOCK_SEQ_CST);
	/* Its writer is gone too; it left the copies readers use whole. */
	cyclock_atomic_store(&cyclock__host.writer, 0, CYCLOCK_SEQ_CST);
	cyclock__coarse_fork_child();
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

/* Whether to trust the counter, and its frequency if the hardware states
 * it: in the first half, or in a lazy start's second (init()).  The warp
 * check if @warp, or if a cyclock_init() asked for it meanwhile. */
static void record_load(void)
{
	scratch.record_tried = true;
	scratch.record_loaded = cyclock__record_load();
}

static void checks(bool warp)
{
	if (!scratch.record_tried)
		record_load();
	scratch.invariant = cyclock__counter_invariant();
	cyclock__setup.distrust =
		distrust(warp || cyclock_atomic_load(&scratch.want_warp, CYCLOCK_SEQ_CST));
	scratch.hz_stated = cyclock__counter_hz_hint(&cyclock__setup.hz_source);
	scratch.checked = true;
}

/*
 * The second half: the checks if the first half left them, the frequency
 * (measured from init's first sample to now, unless the hardware stated
 * it), then the timelines, or the kernel's clocks and why.
 */
static void init_finish(void)
{
	struct cyclock__sample s1;
	uint64_t t0 = cyclock__kernel_ns(CLOCK_MONOTONIC_RAW);
	int force = scratch.force;
	const char *why;
	double hz = 0;

	if (!scratch.checked)
		checks(false);
	why = cyclock__setup.distrust;
	if (why && force != FORCE_COUNTER && scratch.no_local)
		use_kernel(why); /* no per-CPU clock, so no frequency needed */
	else if ((hz = frequency(&cyclock__setup.first_raw, &s1)) < 1e3)
		use_kernel("the " CYCLOCK_ARCH_COUNTER_NAME " does not advance");
	else if (why && force != FORCE_COUNTER)
		use_kernel(why);
	else
		start_timelines(hz, &s1);
	cyclock__setup.forced = force == FORCE_COUNTER;
	if (!cyclock_atomic_load(&cyclock__setup.using_counter, CYCLOCK_SEQ_CST) &&
	    !scratch.no_local && scratch.invariant && hz >= 1e3 && counter_cpu_works())
		cyclock_atomic_store(&cyclock__setup.local_percpu, cyclock__local_init(hz) == 0,
				     CYCLOCK_SEQ_CST);
	/* The machine's answers for the next process, once per boot. */
	if (!scratch.record_loaded)
		cyclock__record_save();
	cyclock__setup.init_ns += cyclock__kernel_ns(CLOCK_MONOTONIC_RAW) - t0;
}

/* The first offsets of REALTIME and BOOTTIME, for the timelines' start;
 * still kernel mode with floor 0.  A publish that does not take (served
 * reads kept coming) leaves offsets 0 with floor 0, under which every read
 * is the kernel's own clock: the offsets reach readers with the first
 * counter segment, from the tracks. */
static void publish_offsets(void)
{
	struct cyclock__segv v = { 0 };
	struct cyclock__offsets o;

	cyclock__offsets_read(&o, true);
	cyclock__offsets_apply(&o, true);
	v.off_real = TRACKS_OFF(off_real);
	v.off_boot = TRACKS_OFF(off_boot);
	cyclock__publish(&cyclock__mono, &v);
}

/*
 * The first half: what the flags and the environment say, the ordered
 * read that needs no asking, init's first sample, and, unless a read
 * starts lazily (CYCLOCK__INIT_DEFER alone), whether to trust the
 * counter.  Returns true if the second half is to follow at once;
 * CYCLOCK__INIT_DEFER leaves it to a later read, once the frequency
 * can be taken without waiting (see cyclock__init_once()), unless nothing
 * is left to measure.
 */
static bool init(unsigned int flags)
{
	int force = cyclock__env_source();
	uint64_t t0 = cyclock__kernel_ns(CLOCK_MONOTONIC_RAW);

	/* From scratch: a child of fork() may redo an init its parent left half-done. */
	cyclock__setup.why = NULL;
	cyclock__setup.forced = false;
	cyclock__setup.warp_ran = false;
	cyclock_atomic_store(&cyclock__setup.local_percpu, false, CYCLOCK_SEQ_CST);
	cyclock_atomic_store(&cyclock__setup.using_counter, false, CYCLOCK_SEQ_CST);
	scratch.begun = scratch.checked = false;
	scratch.record_tried = scratch.record_loaded = false;
	scratch.clocksource_read = 0;
	scratch.adj_ns = 0;
	cyclock_atomic_store(&scratch.ahead_done, false, CYCLOCK_RELAXED);
	scratch.deferred = flags & CYCLOCK__INIT_DEFER;
	scratch.no_local = flags & CYCLOCK__INIT_NO_LOCAL;
	scratch.hz_stated = 0;
	cyclock__setup.init_ns = 0;
	if (flags & CYCLOCK_INIT_KERNEL)
		use_kernel("cyclock_init(CYCLOCK_INIT_KERNEL)");
	else if (force == FORCE_KERNEL)
		use_kernel("CYCLOCK_SOURCE=kernel");
	else if (!CYCLOCK_ARCH_HAS_COUNTER)
		use_kernel("no user-space counter on this architecture");
	if (cyclock__setup.why) {
		cyclock__setup.init_ns = cyclock__kernel_ns(CLOCK_MONOTONIC_RAW) - t0;
		return false;
	}
	scratch.force = force;
	cyclock__ordered_choose(0); /* before any counter read */
	publish_offsets();
	cyclock__sample(CLOCK_MONOTONIC_RAW, &cyclock__setup.first_raw);
	if (!scratch.deferred || scratch.no_local)
		checks(flags & CYCLOCK_INIT_WARP_CHECK);
	scratch.begun = true;
	scratch.finish_ns = cyclock__setup.first_raw.ns +
				  (scratch.checked && scratch.hz_stated ? 0 : FREQ_SPAN_NS);
	cyclock__setup.init_ns = cyclock__kernel_ns(CLOCK_MONOTONIC_RAW) - t0;
	return !scratch.deferred ||
	       (cyclock__setup.distrust && force != FORCE_COUNTER && scratch.no_local);
}

/*
 * The fork handler is registered at load time, since a lazy first read
 * may run where pthread_atfork() (which allocates) may not; so are the
 * process id's cache (platform.c), a page of its own, and the identity
 * of the stderr messages may go to.  It cannot
 * block; if it fails for want of memory, a child of fork() still reads
 * correct time, but may resync less (see fork_child()).
 */
__attribute__((constructor)) static void register_fork_child(void)
{
	pthread_atfork(NULL, NULL, cyclock__fork_child);
	cyclock__at_load();
}

/* Initialisation's end: without the counter, the readers' fast path
 * goes straight to the kernel's clock (CYCLOCK__HOW_KERNEL). */
static void done(void)
{
	if (!cyclock_atomic_load(&cyclock__setup.using_counter, CYCLOCK_SEQ_CST)) {
		cyclock_atomic_store(&cyclock__mono.how, CYCLOCK__HOW_KERNEL, CYCLOCK_RELEASE);
		cyclock_atomic_store(&cyclock__raw.how, CYCLOCK__HOW_KERNEL, CYCLOCK_RELEASE);
	}
	cyclock_atomic_store(&cyclock__host.state, INIT_DONE, CYCLOCK_RELEASE);
}

/*
 * Initialisation's owner: the state word that holds INIT_BUSY names it, in
 * the same compare-and-swap that takes it, by its process as cached
 * (cyclock__pid(): the address space, which a raw fork's child does not
 * share) and its task's thread id (what runs it: a task that shares our
 * memory, clone(CLONE_VM), also has our cached pid).  Nobody looks whether
 * the owner lives before OWNER_LOOK_NS after it took the word.
 */
#define OWNER_LOOK_NS (5000 * NSEC_PER_USEC) /* longer than any initialisation takes */
#define BUSY_PID(word) ((uint32_t)((word) >> 4 & 0x3fffffff))
#define BUSY_TID(word) ((uint32_t)((word) >> 34))

static uint64_t busy(void)
{
	return INIT_BUSY | (uint64_t)cyclock__pid() << 4 | (uint64_t)cyclock__tid() << 34;
}

/* @expected to INIT_BUSY, ours; then nobody looks for a while. */
static bool take(uint64_t *expected)
{
	if (!cyclock_atomic_cas(&cyclock__host.state, expected, busy(), CYCLOCK_SEQ_CST,
				CYCLOCK_SEQ_CST))
		return false;
	cyclock_atomic_store(&cyclock__host.look_ns,
			     cyclock__kernel_ns(CLOCK_MONOTONIC_RAW) + OWNER_LOOK_NS,
			     CYCLOCK_RELAXED);
	return true;
}

static void first_half(unsigned int flags)
{
	if (init(flags))
		init_finish();
	else if (scratch.begun) {
		cyclock_atomic_store(&cyclock__host.state, INIT_MEASURING, CYCLOCK_RELEASE);
		return;
	}
	done();
}

static void second_half(void)
{
	init_finish();
	done();
}

/*
 * One piece of the second half's checks, ahead of it: a CPUID leaf, the
 * kernel's clocksource, adjtimex's word, the ordered reads' timing; false
 * when none is left.  Each costs a read 2 to 10 us, where all of them at
 * once cost the read that starts the counter 60 to 100 (docs/hosted.md).
 */
static bool check_ahead(void)
{
	if (!scratch.record_tried) {
		record_load();
		return true;
	}
	if (cyclock__cpuid_ahead())
		return true;
	if (!scratch.clocksource_read) {
		read_clocksource();
		return true;
	}
	/* The rest only for a counter the kernel uses. */
	if (scratch.clocksource_read < 0 ||
	    strcmp(scratch.clocksource, CYCLOCK_ARCH_KERNEL_CLOCKSOURCE))
		return false;
	if (!scratch.adj_ns) {
		cyclock__kernel_adj(&scratch.adj);
		scratch.adj_ns = cyclock__kernel_ns(CLOCK_MONOTONIC_RAW);
		return !cyclock__ordered_timed(); /* the record's timing: nothing left */
	}
	return cyclock__ordered_time();
}

/* Whether a read in MEASURING has work to do: the second half, if init's
 * first sample is old enough for the frequency not to wait (or the first
 * half's checks found it stated: at the next read), else a check ahead. */
static bool measuring_work(uint64_t *now)
{
	*now = cyclock__kernel_ns(CLOCK_MONOTONIC_RAW);
	return *now >= scratch.finish_ns ||
	       !cyclock_atomic_load(&scratch.ahead_done, CYCLOCK_RELAXED);
}

bool cyclock__record_used(void)
{
	return scratch.record_loaded;
}

bool cyclock__checked_ahead(void)
{
	return cyclock_atomic_load(&scratch.ahead_done, CYCLOCK_RELAXED);
}

static void measuring_step(uint64_t now)
{
	uint64_t measuring = INIT_MEASURING;

	if (!take(&measuring))
		return;
	if (now >= scratch.finish_ns) {
		second_half();
		return;
	}
	if (!check_ahead())
		cyclock_atomic_store(&scratch.ahead_done, true, CYCLOCK_RELAXED);
	cyclock_atomic_store(&cyclock__host.state, INIT_MEASURING, CYCLOCK_RELEASE);
}

/*
 * Whether the owner named in BUSY word @word is gone: it ran in another
 * process (we are the child of a raw fork system call, which runs no fork
 * handler: its thread stayed in the parent), or it shared our memory and
 * died (a clone(CLONE_VM) task killed).  Whether it lives costs system
 * calls, so it is asked only from look_ns on, and then once per
 * OWNER_LOOK_NS among all callers.  A word with no owner (a test's) is
 * never gone.
 */
static bool owner_gone(uint64_t word)
{
	uint64_t now, look = cyclock_atomic_load(&cyclock__host.look_ns, CYCLOCK_RELAXED);

	if (!BUSY_TID(word))
		return false;
	if (BUSY_PID(word) != cyclock__pid())
		return true;
	now = cyclock__kernel_ns(CLOCK_MONOTONIC_RAW);
	if (now < look || !cyclock_atomic_cas(&cyclock__host.look_ns, &look, now + OWNER_LOOK_NS,
					      CYCLOCK_RELAXED, CYCLOCK_RELAXED))
		return false;
	return !cyclock__task_alive(BUSY_TID(word));
}

/*
 * An initialisation whose owner is gone (owner_gone()), in BUSY word
 * @word: take it over, one caller of all that find it gone, and carry it
 * on where it was.  Nobody else takes the writer flag before
 * initialisation is done (a resync needs a counter segment,
 * cyclock_resync() waits for it), so the owner left it if it is taken.
 */
static void take_over(unsigned int flags, uint64_t word)
{
	if (!owner_gone(word) || !take(&word))
		return;
	cyclock_atomic_store(&cyclock__host.writer, 0, CYCLOCK_SEQ_CST);
	if (scratch.begun)
		second_half();
	else
		first_half(flags);
}

/*
 * Initialise, or carry a deferred initialisation on; never waits for
 * another thread at it.  The state goes NONE -> BUSY -> DONE, or, with
 * CYCLOCK__INIT_DEFER, NONE -> BUSY -> MEASURING (the first half done)
 * -> BUSY -> DONE at the first call FREQ_SPAN_NS later; a read
 * (CYCLOCK__INIT_READ) first takes NONE to FIRST, a whole state, with
 * one compare-and-swap, and the next call goes on from FIRST as from
 * NONE.  The state is taken and given back inside cyclock__shield(), so
 * that no caller can leave it half-done (a handler that longjmps out,
 * pthread_cancel()).
 */
void cyclock__init_once(unsigned int flags)
{
	uint64_t state = cyclock_atomic_load(&cyclock__host.state, CYCLOCK_ACQUIRE);
	struct cyclock__shield shield;
	uint64_t now = 0;
	bool work = state == INIT_MEASURING && measuring_work(&now);

	if (state == INIT_DONE || (state == INIT_MEASURING && !work))
		return;
	if (state == INIT_NONE && (flags & CYCLOCK__INIT_READ)) {
		cyclock_atomic_cas(&cyclock__host.state, &state, INIT_FIRST, CYCLOCK_SEQ_CST,
				   CYCLOCK_SEQ_CST);
		return;
	}
	cyclock__shield(&shield);
	state = cyclock_atomic_load(&cyclock__host.state, CYCLOCK_SEQ_CST);
	if ((state == INIT_NONE || state == INIT_FIRST) && take(&state))
		first_half(flags);
	else if (state == INIT_MEASURING && (work || measuring_work(&now)))
		measuring_step(now); /* RAW read once, before the shield if MEASURING then */
	else if (CYCLOCK__INIT_STATE(state) == INIT_BUSY)
		take_over(flags, state);
	cyclock__unshield(&shield);
}

int cyclock_init(unsigned int flags)
{
	uint64_t state;

	if (flags & ~(CYCLOCK_INIT_KERNEL | CYCLOCK_INIT_COARSE | CYCLOCK_INIT_NO_WARP_CHECK |
		      CYCLOCK_INIT_WARP_CHECK))
		return CYCLOCK_EINVAL;
	if (flags & CYCLOCK_INIT_WARP_CHECK) /* for a lazy start's second half, if still to come */
		cyclock_atomic_store(&scratch.want_warp, true, CYCLOCK_SEQ_CST);
	cyclock__init_once(flags);
	/* Another thread is initialising, or a deferred one is measuring. */
	while ((state = cyclock_atomic_load(&cyclock__host.state, CYCLOCK_ACQUIRE)) !=
	       INIT_DONE) {
		cyclock__init_once(flags);
		if (state != INIT_MEASURING)
			sched_yield();
	}
	if (flags & CYCLOCK_INIT_COARSE)
		cyclock__coarse_start();
	return cyclock_atomic_load(&cyclock__setup.using_counter, CYCLOCK_SEQ_CST) ?
		       CYCLOCK_USING_COUNTER :
		       CYCLOCK_USING_KERNEL;
}
