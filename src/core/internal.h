/* SPDX-License-Identifier: MIT */
/* Internals shared by the engine's files; nothing here is installed. */
#ifndef CYCLOCK_CORE_INTERNAL_H
#define CYCLOCK_CORE_INTERNAL_H

#include "cyclock/core.h"

#define CYCLOCK_NSEC_PER_SEC 1000000000ull

/* A writer's own field of @clk (struct cyclock_cold), under its flag. */
#define COLD(clk, field) cyclock_shared((clk)->cold.field)

/*
 * How a source's counts become nanoseconds: ns = (delta * mult) >> shift
 * for any delta up to wrap_cyc, which takes wrap_ns to accumulate.
 * mult / 2^shift is off from 1e9 / rate by error_ppt parts per trillion.
 */
struct cyclock__scale {
	uint64_t mask;
	uint64_t wrap_cyc;
	uint64_t wrap_ns;
	uint64_t error_ppt;
	uint32_t mult;
	uint32_t shift;
};

/*
 * Choose @sc for a counter of @bits at @rate_hz (both already validated),
 * updated at most every @max_interval_ns (0: as rarely as the counter
 * allows, up to an hour).  CYCLOCK_ERANGE if no mult fits.
 */
int cyclock__choose_scale(struct cyclock__scale *sc, uint64_t rate_hz, unsigned int bits,
			  uint64_t max_interval_ns);

/* Write the decimal digits of @v into @buf (at least 20 bytes); returns their count. */
size_t cyclock__utoa(char *buf, uint64_t v);

#endif /* CYCLOCK_CORE_INTERNAL_H */
