/* SPDX-License-Identifier: MIT */
/*
 * Initialisation: which counter to trust and why, its frequency, and the
 * first segments of the timelines.  Runs once, at cyclock_init() or at the
 * first read, whichever comes first; a reader that finds it under way
 * reads the kernel's clock meanwhile instead of waiting.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

struct cyclock__host cyclock__host;

/* The kernel's clocks, for every reader, because of @fmt. */
#define use_kernel(...) snprintf(cyclock__host.why, sizeof(cyclock__host.why), __VA_ARGS__)

/* The frequency: stated by the hardware, else measured against
 * CLOCK_MONOTONIC_RAW since @s0, over at least 500 us of it. */
static double frequency(const struct cyclock__sample *s0, struct cyclock__sample *s1)
{
	const char *how = "";
	uint64_t hint = cyclock__counter_hz_hint(&how);
	double hz;

	for (int i = 0; i < 1000000; i++) { /* bounded: a stalled clock must not hang us */
		cyclock__sample(CLOCK_MONOTONIC_RAW, s1);
		if (s1->ns - s0->ns >= 500 * NSEC_PER_USEC || hint)
			break;
	}
	hz = s1->ns > s0->ns ? (double)(s1->cyc - s0->cyc) * 1e9 / (double)(s1->ns - s0->ns) : 0;
	cyclock__host.hz_source = hint ? how : "measured against CLOCK_MONOTONIC_RAW";
	cyclock__host.hz_hint = hint ? (double)hint : hz;
	return cyclock__host.hz_hint;
}

/* Why the counter cannot be trusted, or NULL if it can. */
static const char *distrust(void)
{
	static char why[96];
	char cs[64];
	int cpu[2];

	if (!cyclock_arch_counter_usable())
		return "the CPU lacks the ordered counter read (rdtscp on x86-64)";
	if (!cyclock__counter_invariant())
		return "the " CYCLOCK_ARCH_COUNTER_NAME " is not invariant";
	if (!cyclock__kernel_clocksource(cs, sizeof(cs)))
		return "the kernel's clocksource cannot be read";
	if (strcmp(cs, CYCLOCK_ARCH_KERNEL_CLOCKSOURCE)) {
		snprintf(why, sizeof(why), "the kernel's clocksource is %s", cs);
		return why;
	}
	if (cyclock__allowed_cpus(cpu) < 2)
		return NULL;
	cyclock__host.warp_ran = true;
	/* A busy machine may leave the two threads few turns: try once more. */
	for (int i = 0; i < 2; i++) {
		cyclock__host.warp_cyc = cyclock__warp_check(cpu, 1000 * NSEC_PER_USEC,
							    &cyclock__host.warp_turns);
		if (cyclock__host.warp_cyc != 0 || cyclock__host.warp_turns >= 100)
			break;
	}
	if (cyclock__host.warp_cyc > 0) {
		snprintf(why, sizeof(why), "the %s goes back by %lld counts between CPUs %d and %d",
			 CYCLOCK_ARCH_COUNTER_NAME, (long long)cyclock__host.warp_cyc, cpu[0], cpu[1]);
		return why;
	}
	return NULL;
}

/* Constants in counts, for a counter at @hz. */
static void setup_scale(double hz)
{
	uint32_t mult, shift;

	cyclock_calc_mult_shift(&mult, &shift, (uint64_t)hz, NSEC_PER_SEC, 4);
	cyclock__host.shift = shift;
	cyclock__host.max_back_cyc = (uint64_t)(CYCLOCK_MAX_BACK_NS * hz / 1e9) + 1;
	cyclock__host.min_int_cyc = (uint64_t)(CYCLOCK_MIN_INTERVAL_NS * hz / 1e9);
	cyclock__host.max_int_cyc = (uint64_t)(CYCLOCK_MAX_INTERVAL_NS * hz / 1e9);
	if (cyclock__host.max_int_cyc > UINT32_MAX) /* a segment's stale_cyc is 32 bits */
		cyclock__host.max_int_cyc = UINT32_MAX;
}

static void start_timelines(double hz, const struct cyclock__sample *s0,
			    const struct cyclock__sample *s1)
{
	struct cyclock__sample sm;

	setup_scale(hz);
	cyclock__host.first_raw = *s0;
	cyclock__host.mono.tl = &cyclock__mono;
	cyclock__host.mono.id = CLOCK_MONOTONIC;
	cyclock__host.raw.tl = &cyclock__raw;
	cyclock__host.raw.id = CLOCK_MONOTONIC_RAW;
	cyclock__host.mono.rate = cyclock__host.raw.rate = 1e9 / hz;
	cyclock__measure_offsets(true);
	cyclock__sample(CLOCK_MONOTONIC, &sm);
	cyclock__track_start(&cyclock__host.mono, &sm);
	cyclock__track_start(&cyclock__host.raw, s1);
	/* The rate's baseline starts at init's first sample. */
	cyclock__host.raw.anchor = cyclock__host.raw.mid = *s0;
	cyclock__host.using_counter = true;
}

static void fork_child(void)
{
	if (atomic_load(&cyclock__host.state) == INIT_BUSY)
		atomic_store(&cyclock__host.state, INIT_NONE); /* its thread is gone */
	if (atomic_load(&cyclock__host.writer)) {
		cyclock__fork_child_latch(&cyclock__mono);
		cyclock__fork_child_latch(&cyclock__raw);
		atomic_store(&cyclock__host.writer, 0);
	}
	cyclock__coarse_fork_child();
}

static void init(unsigned int flags)
{
	struct cyclock__sample s0, s1;
	int force = cyclock__env_source();
	uint64_t t0 = cyclock__kernel_ns(CLOCK_MONOTONIC_RAW);
	const char *why;
	double hz;

	/* From scratch: a child of fork() may redo an init its parent left half-done. */
	cyclock__host.why[0] = cyclock__host.notes[0] = '\0';
	cyclock__host.using_counter = cyclock__host.local_percpu = cyclock__host.warp_ran = false;
	if (flags & CYCLOCK_INIT_KERNEL)
		use_kernel("cyclock_init(CYCLOCK_INIT_KERNEL)");
	else if (force == FORCE_KERNEL)
		use_kernel("CYCLOCK_SOURCE=kernel");
	else if (!CYCLOCK_ARCH_HAS_COUNTER)
		use_kernel("no user-space counter on this architecture");
	if (!cyclock__host.why[0]) {
		cyclock__sample(CLOCK_MONOTONIC_RAW, &s0);
		why = distrust();
		hz = frequency(&s0, &s1);
		if (hz < 1e3)
			use_kernel("the %s does not advance", CYCLOCK_ARCH_COUNTER_NAME);
		else if (why && force != FORCE_COUNTER)
			use_kernel("%s", why);
		else
			start_timelines(hz, &s0, &s1);
		snprintf(cyclock__host.notes, sizeof(cyclock__host.notes), "%s%s%s",
			 force == FORCE_COUNTER ? "forced by CYCLOCK_SOURCE" : "",
			 force == FORCE_COUNTER && why ? " although " : "",
			 force == FORCE_COUNTER && why ? why : "");
		if (!cyclock__host.using_counter && cyclock__counter_invariant() && hz >= 1e3)
			cyclock__host.local_percpu = cyclock__local_init(hz) == 0;
	}
	cyclock__host.init_ns = cyclock__kernel_ns(CLOCK_MONOTONIC_RAW) - t0;
}

/*
 * The fork handler is registered at load time, since a lazy first read
 * may run where pthread_atfork() (which allocates) may not.  It cannot
 * block; if it fails for want of memory, a child of fork() still reads
 * correct time, but may resync less (see fork_child()).
 */
__attribute__((constructor)) static void register_fork_child(void)
{
	pthread_atfork(NULL, NULL, fork_child);
}

void cyclock__init_once(unsigned int flags)
{
	uint32_t none = INIT_NONE;

	if (!atomic_compare_exchange_strong(&cyclock__host.state, &none, INIT_BUSY))
		return;
	init(flags);
	atomic_store_explicit(&cyclock__host.state, INIT_DONE, memory_order_release);
}

int cyclock_init(unsigned int flags)
{
	if (flags & ~(CYCLOCK_INIT_KERNEL | CYCLOCK_INIT_COARSE))
		return CYCLOCK_EINVAL;
	cyclock__init_once(flags);
	while (atomic_load_explicit(&cyclock__host.state, memory_order_acquire) != INIT_DONE)
		sched_yield(); /* another thread is initialising */
	if (flags & CYCLOCK_INIT_COARSE)
		cyclock__coarse_start();
	return cyclock__host.using_counter ? CYCLOCK_USING_COUNTER : CYCLOCK_USING_KERNEL;
}
