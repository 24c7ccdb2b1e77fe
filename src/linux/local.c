/* SPDX-License-Identifier: MIT */
/*
 * cyclock_local() on a counter the CPUs do not agree on: the engine's
 * per-CPU mode (kernel/sched/clock.c's sched_clock_cpu()), over a raw
 * clock of the counter, ticked lazily: a read on a CPU whose last tick is
 * older than a tick stamps it with CLOCK_MONOTONIC first.  The CPU comes
 * from the counter read itself (rdtscp) or from sched_getcpu().
 *
 * Tests: tests/linux/sim_fallback.c and sim_state.c (per-CPU mode on a
 * counter the kernel distrusts), validate_ordered_read.c (how far it
 * disagrees across CPUs, reported).
 */
#define _GNU_SOURCE
#include <sched.h>
#include <string.h>

#include "internal.h"

#define LOCAL_MAX_CPUS 1024
#define LOCAL_TICK_NS (1000 * NSEC_PER_USEC)

static struct cyclock local_raw;
static struct cyclock_percpu local_pc;
static struct cyclock_percpu_slot local_slot[LOCAL_MAX_CPUS];
static struct cyclock_source local_src;
static CYCLOCK_ATOMIC(uint64_t) local_update_at; /* counter value: update the raw clock */
static uint64_t local_update_cyc;                 /* half its wrap interval, counts */

static uint64_t read_counter(const struct cyclock_source *src)
{
	(void)src;
	return cyclock_arch_counter();
}

int cyclock__local_init(double hz)
{
	int err;

	local_src.name = CYCLOCK_ARCH_COUNTER_NAME;
	local_src.read = read_counter;
	local_src.rate_hz = (uint64_t)hz;
	local_src.bits = 64;
	err = cyclock_register(&local_raw, &local_src);
	local_update_cyc = (uint64_t)((double)cyclock_wrap_ns(&local_raw) / 2e9 * hz);
	cyclock_atomic_store(&local_update_at, cyclock_arch_counter() + local_update_cyc,
			     CYCLOCK_SEQ_CST);
	if (!err)
		err = cyclock_percpu_init(&local_pc, &local_raw, local_slot, LOCAL_MAX_CPUS,
					  LOCAL_TICK_NS);
	/* Unstable from the start, with the reference offset 0 (the raw
	 * clock's own value as the reference at the switch): per-CPU values
	 * are then CLOCK_MONOTONIC's, from each CPU's first tick, done here. */
	if (!err)
		err = cyclock_percpu_set_unstable(&local_pc, 0, cyclock_read(&local_raw));
	for (unsigned int cpu = 0; !err && cpu < LOCAL_MAX_CPUS; cpu++)
		cyclock_percpu_tick(&local_pc, cpu, cyclock__kernel_ns(CLOCK_MONOTONIC));
	return err;
}

/* Tests (CYCLOCK_SIM): forget the per-CPU clock. */
void cyclock__local_reset(void)
{
	memset(&local_raw, 0, sizeof(local_raw));
	memset(&local_pc, 0, sizeof(local_pc));
	memset(local_slot, 0, sizeof(local_slot));
	cyclock_atomic_store(&local_update_at, 0, CYCLOCK_SEQ_CST);
}

/* The raw clock at @slot's last tick. */
static uint64_t tick_raw(const struct cyclock_percpu_slot *slot)
{
	uint64_t raw, gtod;

	cyclock__percpu_load_tick(slot, &raw, &gtod);
	return raw;
}

uint64_t cyclock__local_read(void)
{
	unsigned int cpu;
	int c;

	cyclock_arch_counter_cpu(&cpu);
	if (cpu == ~0u)
		cpu = (c = sched_getcpu()) < 0 ? ~0u : (unsigned int)c;
	if (cpu >= LOCAL_MAX_CPUS)
		return cyclock__kernel_ns(CLOCK_MONOTONIC);
	/* Updated every half interval when read that often; after a longer
	 * idle the engine converts the late delta exactly (docs/design.md). */
	if ((int64_t)(cyclock_arch_counter() -
		      cyclock_atomic_load(&local_update_at, CYCLOCK_RELAXED)) >= 0) {
		cyclock_update(&local_raw);
		cyclock_atomic_store(&local_update_at, cyclock_arch_counter() + local_update_cyc,
				     CYCLOCK_RELAXED);
	}
	if (cyclock_read(&local_raw) - tick_raw(&local_slot[cpu]) >= LOCAL_TICK_NS)
		cyclock_percpu_tick(&local_pc, cpu, cyclock__kernel_ns(CLOCK_MONOTONIC));
	return cyclock_percpu_read(&local_pc, cpu);
}
