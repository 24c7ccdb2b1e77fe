/* SPDX-License-Identifier: MIT */
/*
 * The words for a status block's facts, the same in every format of
 * cyclock status (cmd_status.c's text and metrics, status_json.c).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <time.h>

#include "status_out.h"

/* The preload's clock ids, as its served bits name them. */
static const struct {
	unsigned int id;
	const char *name;
} clock_names[] = {
	{ CLOCK_REALTIME, "realtime" },
	{ CLOCK_MONOTONIC, "monotonic" },
	{ CLOCK_MONOTONIC_RAW, "monotonic_raw" },
	{ CLOCK_REALTIME_COARSE, "realtime_coarse" },
	{ CLOCK_MONOTONIC_COARSE, "monotonic_coarse" },
	{ CLOCK_BOOTTIME, "boottime" },
};

void status_served(uint32_t served, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = 0;
	for (size_t i = 0; i < sizeof(clock_names) / sizeof(clock_names[0]); i++)
		if (served & (1u << clock_names[i].id) && used < len)
			used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? "," : "",
						 clock_names[i].name);
}

const char *status_mode(const struct cyclock_status *st)
{
	if (!(st->setup.flags & CYCLOCK_STATUS_PRELOAD))
		return "library";
	return st->setup.flags & CYCLOCK_STATUS_RELAXED ? "preload-relaxed" : "preload";
}

/* "counter", "kernel" (the kernel's clocks, for good or now), or
 * "not-initialised". */
const char *status_clocks(const struct cyclock_status *st)
{
	if (st->setup.state != CYCLOCK_STATUS_READY)
		return "not-initialised";
	return st->setup.flags & CYCLOCK_STATUS_COUNTER ? "counter" : "kernel";
}

/* Seconds since the last resync's sample (CLOCK_MONOTONIC); -1: none. */
double status_age_s(const struct cyclock_status_counts *c)
{
	struct timespec ts;

	if (!c->written_ns || clock_gettime(CLOCK_MONOTONIC, &ts))
		return -1;
	return ((double)ts.tv_sec * 1e9 + (double)ts.tv_nsec - (double)c->written_ns) / 1e9;
}
