/* SPDX-License-Identifier: MIT */
/*
 * The clock names CYCLOCK_PRELOAD_CLOCKS takes: one table for the preload,
 * which parses them; for "cyclock run --clocks", which refuses an unknown
 * one before running anything; and for "cyclock status", which names the
 * clocks a preload serves from its mask (block_out.c): so that the three
 * cannot drift.
 */
#ifndef CYCLOCK_PRELOAD_NAMES_H
#define CYCLOCK_PRELOAD_NAMES_H

#include <time.h>

static const struct {
	const char *name;
	clockid_t id;
} cyclock_preload_names[] = {
	{ "monotonic", CLOCK_MONOTONIC },
	{ "monotonic_raw", CLOCK_MONOTONIC_RAW },
	{ "realtime", CLOCK_REALTIME },
	{ "boottime", CLOCK_BOOTTIME },
	{ "monotonic_coarse", CLOCK_MONOTONIC_COARSE },
	{ "realtime_coarse", CLOCK_REALTIME_COARSE },
};
#define CYCLOCK_PRELOAD_NAMES_N (sizeof(cyclock_preload_names) / sizeof(cyclock_preload_names[0]))

/* The same names, for messages. */
#define CYCLOCK_PRELOAD_NAMES_TEXT \
	"monotonic, monotonic_raw, realtime, boottime, monotonic_coarse, realtime_coarse"

#endif /* CYCLOCK_PRELOAD_NAMES_H */
