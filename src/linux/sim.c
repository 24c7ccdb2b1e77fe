/* SPDX-License-Identifier: MIT */
/*
 * The simulated world (libcyclock_sim.a only): what world.c asks of the
 * machine, answered from the test (cyclock/arch/sim.h, tests/linux/
 * sim_world.h): the kernel's clocks, the counter's
 * properties, the kernel's clocksource, the CPUs allowed; and
 * cyclock__sim_reset(), which forgets everything between tests.
 *
 * No test of its own: it is the world the sim_ tests and
 * validate_sim_slew.c run in (tests/linux/sim_world.h); world.c, which it
 * stands in for, is tested on the real machine.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

#ifndef CYCLOCK_SIM
#error "sim.c is the simulation library's alone"
#endif

static struct cyclock_sim_config sim_cfg;

int cyclock__kernel_gettime(clockid_t id, struct timespec *ts)
{
	return cyclock_sim_clock_gettime(id, ts);
}

/* A test that has other threads' reads come between a publish's raise and
 * its swap defines this (tests/linux/sim_world.h); the others have none. */
__attribute__((weak)) void cyclock_sim_before_swap(void);

void cyclock__sim_before_swap(void)
{
	if (cyclock_sim_before_swap)
		cyclock_sim_before_swap();
}

bool cyclock__cpuid_ahead(void)
{
	return false; /* no CPUID in simulation */
}

bool cyclock__cpuid_pending(void)
{
	return false;
}

/* No machine's record in simulation: every test asks its own world. */
bool cyclock__record_load(void)
{
	return false;
}

int cyclock__record_take(unsigned int asks)
{
	(void)asks;
	return CYCLOCK__TAKE_NO;
}

bool cyclock__record_clocksource(char *name, size_t len)
{
	(void)name;
	(void)len;
	return false;
}

void cyclock__record_save(const char *clocksource)
{
	(void)clocksource;
}

unsigned int cyclock__cpuid_asked(void)
{
	return 0;
}

bool cyclock__counter_invariant(void)
{
	return sim_cfg.invariant;
}

void cyclock__counter_hz_at_load(void)
{
}

uint64_t cyclock__counter_hz_hint(const char **how)
{
	*how = "simulated CPUID";
	return sim_cfg.hint_hz;
}

bool cyclock__kernel_clocksource(char *name, size_t len)
{
	snprintf(name, len, "%s", sim_cfg.kernel_trusts ? CYCLOCK_ARCH_KERNEL_CLOCKSOURCE : "hpet");
	return true;
}

unsigned int cyclock__allowed_cpus(int cpu[2])
{
	cpu[0] = cpu[1] = 0;
	return 1; /* no warp check in simulation */
}

/* Tests: forget everything; the next read initialises under @cfg. */
void cyclock__sim_reset(const struct cyclock_sim_config *cfg)
{
	sim_cfg = *cfg;
	memset(&cyclock__host, 0, sizeof(cyclock__host));
	memset(&cyclock__setup, 0, sizeof(cyclock__setup));
	memset(&cyclock__tracks, 0, sizeof(cyclock__tracks));
	memset(&cyclock__mono, 0, sizeof(cyclock__mono));
	memset(&cyclock__raw, 0, sizeof(cyclock__raw));
	cyclock_atomic_store(&cyclock__mono.how, CYCLOCK_ARCH_ORDERED_ANY, CYCLOCK_SEQ_CST);
	cyclock_atomic_store(&cyclock__raw.how, CYCLOCK_ARCH_ORDERED_ANY, CYCLOCK_SEQ_CST);
	cyclock_atomic_store(&cyclock__coarse.below, 0, CYCLOCK_SEQ_CST);
	cyclock__local_reset();
	cyclock__check_reload(); /* what a new process asks at load */
}
