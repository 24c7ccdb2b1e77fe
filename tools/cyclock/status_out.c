/* SPDX-License-Identifier: MIT */
/*
 * The words for a status block's facts, the same in every format of
 * cyclock status (cmd_status.c's text and metrics, status_json.c).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <time.h>

#include "preload/names.h" /* the names CYCLOCK_PRELOAD_CLOCKS takes */
#include "status_out.h"

void status_served(uint32_t served, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = 0;
	for (size_t i = 0; i < CYCLOCK_PRELOAD_NAMES_N; i++)
		if (served & (1u << cyclock_preload_names[i].id) && used < len)
			used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? "," : "",
						 cyclock_preload_names[i].name);
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
