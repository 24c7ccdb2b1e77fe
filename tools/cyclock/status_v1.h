/* SPDX-License-Identifier: MIT */
/*
 * Version 1 of the status block's layout, frozen: what processes running
 * cyclock 0.1 before the one record (include/cyclock/status.h's version 2)
 * export at cyclock_status.  The tool still reads it (status_read.c), and
 * tests/tool/status/target.c forges one from it.  Never change it: a
 * process of that library lays its block out so.
 *
 * Each part had one copy behind its own sequence, odd while written (a
 * reader retried until two equal, even readings surrounded its copy), and
 * CYCLOCK_STATUS_LOST in its flags when a fork cut a write in the parent
 * and the child cleared the part.  Version 2's facts that it lacks (the
 * warp check's turns and whether it ran, RAW's last error, the resync
 * interval's ceiling, the frequency's uncertainty) are absent from what
 * the reader returns of it (struct status_block's version).
 */
#ifndef CYCLOCK_TOOL_STATUS_V1_H
#define CYCLOCK_TOOL_STATUS_V1_H

#include <stddef.h>
#include <stdint.h>

#define CYCLOCK_STATUS_V1 1u
#define CYCLOCK_STATUS_V1_LOST 0x20u /* either part's flags: a fork cut its write */

struct cyclock_status_v1_setup {
	uint32_t seq;             /* odd while written */
	uint32_t state;           /* CYCLOCK_STATUS_LOADED or _READY */
	uint32_t flags;           /* CYCLOCK_STATUS_* (version 2's, but WARP_RAN) */
	uint32_t served;          /* the preload: the clock ids it serves, as bits */
	double hz_hint;           /* the counter's frequency, as stated or first measured */
	uint64_t init_ns;         /* what initialisation cost */
	int64_t warp_cyc;         /* the warp check's largest step back; -1: not run */
	char counter[16];
	char ordered[16];
	char hz_source[64];
	char why[96];
	char distrust[96];
	char ordered_why[160];
};

struct cyclock_status_v1_counts {
	uint32_t seq;             /* odd while written */
	uint32_t pid;             /* the process whose resync wrote it */
	uint32_t flags;           /* CYCLOCK_STATUS_V1_LOST */
	uint32_t kernel_mode;
	uint64_t written_ns;      /* 0: none yet */
	uint64_t resyncs;
	uint64_t anomalies;
	uint64_t kernel_spells;
	uint64_t rate_changes;
	int64_t last_err_ns;
	uint64_t interval_ns;
	double ns_per_tick;
	char kernel_why[96];
	char reserved[8];
};

struct cyclock_status_v1 {
	char magic[8];            /* CYCLOCK_STATUS_MAGIC */
	uint32_t version;         /* 1 */
	uint32_t size;            /* 704 */
	char library[16];
	struct cyclock_status_v1_setup setup;
	struct cyclock_status_v1_counts counts;
};

/* Version 1's offsets, as its library asserted them. */
_Static_assert(offsetof(struct cyclock_status_v1, setup) == 32, "status v1: setup moved");
_Static_assert(offsetof(struct cyclock_status_v1, counts) == 520, "status v1: counts moved");
_Static_assert(sizeof(struct cyclock_status_v1) == 704, "status v1: size changed");

#endif /* CYCLOCK_TOOL_STATUS_V1_H */
