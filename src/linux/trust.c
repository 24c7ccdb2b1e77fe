/* SPDX-License-Identifier: MIT */
/*
 * Whether to trust the counter: a decision over the answers initialisation
 * gathered (the caller's flags, the environment, the machine: checks.c),
 * and nothing else, so that tests ask it case by case without a machine
 * (tests/linux/test_trust.c).  The reasons are docs/hosted.md's ("Trust").
 */
#include <stdio.h>
#include <string.h>

#include "internal.h"

/* Why there is no counter to use at all, whatever the machine says (no
 * question asked of it), or NULL. */
const char *cyclock__trust_none(const struct cyclock__answers *a)
{
	if (a->kernel_asked)
		return "cyclock_init(CYCLOCK_INIT_KERNEL)";
	if (a->force == FORCE_KERNEL)
		return "CYCLOCK_SOURCE=kernel";
	if (!a->has_counter)
		return "no user-space counter on this architecture";
	return NULL;
}

/* @s into @out of @len, cut if it must be: no snprintf() where nothing is
 * formatted, since its first call in a process costs 6-8 us of page
 * faults, and this runs on a read (docs/hosted.md, "The first read"). */
static void put(char *out, size_t len, const char *s)
{
	size_t n = strlen(s) < len - 1 ? strlen(s) : len - 1;

	memcpy(out, s, n);
	out[n] = '\0';
}

/* What the machine says against the counter, the first of them. */
enum against { TRUSTED, NOT_INVARIANT, UNREAD, OTHER_CLOCKSOURCE, WARP };

static enum against against(const struct cyclock__answers *a)
{
	if (!a->invariant)
		return NOT_INVARIANT;
	if (a->clocksource == CYCLOCK__CS_UNREAD)
		return UNREAD;
	if (a->clocksource == CYCLOCK__CS_OTHER)
		return OTHER_CLOCKSOURCE;
	return a->warp_cyc > 0 ? WARP : TRUSTED;
}

/* Why the machine says not to trust the counter, into @out; "" if it
 * does not. */
static void distrust(const struct cyclock__answers *a, char *out, size_t len)
{
	out[0] = '\0';
	switch (against(a)) {
	case NOT_INVARIANT:
		put(out, len, "the " CYCLOCK_ARCH_COUNTER_NAME " is not invariant");
		break;
	case UNREAD:
		put(out, len, "the kernel's clocksource cannot be read");
		break;
	case OTHER_CLOCKSOURCE:
		snprintf(out, len, "the kernel's clocksource is %s", a->clocksource_name);
		break;
	case WARP:
		snprintf(out, len, "the %s goes back by %lld counts between CPUs %d and %d",
			 CYCLOCK_ARCH_COUNTER_NAME, (long long)a->warp_cyc, a->warp_cpu[0],
			 a->warp_cpu[1]);
		break;
	case TRUSTED:
		break;
	}
}

/* Whether the decision needs the frequency: for the counter, or for the
 * per-CPU clock over it; not when the counter is distrusted and no
 * per-CPU clock is wanted. */
bool cyclock__trust_needs_hz(const struct cyclock__answers *a)
{
	if (cyclock__trust_none(a))
		return false;
	return !(against(a) != TRUSTED && a->force != FORCE_COUNTER && a->no_local);
}

struct cyclock__trust cyclock__trust(const struct cyclock__answers *a)
{
	struct cyclock__trust t = { 0 };
	const char *none = cyclock__trust_none(a);

	if (none) {
		put(t.why, sizeof(t.why), none);
		return t;
	}
	distrust(a, t.distrust, sizeof(t.distrust));
	t.forced = a->force == FORCE_COUNTER;
	if (cyclock__trust_needs_hz(a) && a->hz < 1e3)
		put(t.why, sizeof(t.why), "the " CYCLOCK_ARCH_COUNTER_NAME " does not advance");
	else if (t.distrust[0] && !t.forced)
		memcpy(t.why, t.distrust, sizeof(t.why));
	else
		t.use_counter = true;
	/* A counter the CPUs disagree on still makes cyclock_local() per CPU,
	 * if its rate is constant and its read names the CPU. */
	t.local_percpu = !t.use_counter && !a->no_local && a->invariant && a->hz >= 1e3 &&
			 a->counter_cpu;
	return t;
}
