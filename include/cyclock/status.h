/* SPDX-License-Identifier: MIT */
/*
 * What a running process shows of its clocks to "cyclock status", which
 * reads it from outside (process_vm_readv(2)) without the process's help:
 * the library and the preload each keep one block at the exported symbol
 * cyclock_status, written by initialisation's end and by each resync of
 * CLOCK_MONOTONIC's timeline (below), never by a read that does not
 * resync.  docs/tool.md ("status") has how
 * it is found and read.
 *
 * Fixed-width fields at fixed offsets, no pointers, so that a reader of
 * another build reads it in the target's own layout; strings are
 * NUL-terminated within their arrays.  A layout's version only grows,
 * and a reader refuses a version newer than it knows.  Two parts, each
 * behind its own sequence (odd while it is written, so a reader retries:
 * cyclock/latch.h's bump on each side of the write):
 *  - setup: what initialisation decided (and the preload, at load);
 *  - counts: the tracking's counts, written by each resync of
 *    CLOCK_MONOTONIC's timeline under the writer flag (RAW's are counted
 *    at the next), in as few stores as they take.
 */
#ifndef CYCLOCK_STATUS_H
#define CYCLOCK_STATUS_H

#include <stdint.h>

#define CYCLOCK_STATUS_MAGIC "cyclock" /* 8 bytes with its NUL */
#define CYCLOCK_STATUS_VERSION 1u
#define CYCLOCK_STATUS_SYMBOL "cyclock_status"

/* setup.state */
#define CYCLOCK_STATUS_LOADED 0u /* nothing decided yet: no read has initialised it */
#define CYCLOCK_STATUS_READY 1u  /* initialised: setup holds the decision */

/* setup.flags */
#define CYCLOCK_STATUS_COUNTER 0x01u  /* the clocks run on the counter */
#define CYCLOCK_STATUS_FORCED 0x02u   /* CYCLOCK_SOURCE chose the counter */
#define CYCLOCK_STATUS_PERCPU 0x04u   /* cyclock_local() runs per CPU */
#define CYCLOCK_STATUS_PRELOAD 0x08u  /* the block is libcyclock-preload.so's */
#define CYCLOCK_STATUS_RELAXED 0x10u  /* the preload serves the unordered read */
#define CYCLOCK_STATUS_LOST 0x20u     /* a fork cut a write: the part was cleared */

struct cyclock_status_setup {
	uint32_t seq;             /* odd while written */
	uint32_t state;           /* CYCLOCK_STATUS_LOADED or _READY */
	uint32_t flags;           /* CYCLOCK_STATUS_* */
	uint32_t served;          /* the preload: the clock ids it serves, as bits */
	double hz_hint;           /* the counter's frequency, as stated or first measured */
	uint64_t init_ns;         /* what initialisation cost */
	int64_t warp_cyc;         /* the warp check's largest step back; -1: not run */
	char counter[16];         /* "tsc", "cntvct", "rdtime", "none" */
	char ordered[16];         /* the ordered read: "rdtscp", "lfence;rdtsc", ... */
	char hz_source[64];       /* where the frequency came from */
	char why[96];             /* why the kernel's clocks are used; "" on the counter */
	char distrust[96];        /* why the counter is not trusted; "" if it is */
	char ordered_why[160];    /* why that ordered read, with what each cost */
};

struct cyclock_status_counts {
	uint32_t seq;             /* odd while written */
	uint32_t pid;             /* the process whose resync wrote it (a fork child
				   * shows its parent's until its own first resync) */
	uint32_t flags;           /* CYCLOCK_STATUS_LOST */
	uint32_t kernel_mode;     /* cyclock_now() serves the kernel's clock now */
	uint64_t written_ns;      /* CLOCK_MONOTONIC at that resync's sample; 0: none yet */
	uint64_t resyncs;         /* of CLOCK_MONOTONIC's timeline */
	uint64_t anomalies;       /* times the counter disagreed with the kernel */
	uint64_t kernel_spells;   /* spells on the kernel's clock, both timelines */
	uint64_t rate_changes;    /* changes of the kernel's rate followed on the counter */
	int64_t last_err_ns;      /* cyclock_now() - CLOCK_MONOTONIC at the last resync */
	uint64_t interval_ns;     /* the resync interval then */
	double ns_per_tick;       /* the counter's period as now estimated (1e9 / Hz) */
	char kernel_why[96];      /* why the last spell on the kernel's clock; "" */
	char reserved[8];         /* zeros: the block is whole cache lines */
};

struct cyclock_status {
	char magic[8];            /* CYCLOCK_STATUS_MAGIC */
	uint32_t version;         /* CYCLOCK_STATUS_VERSION of the writer */
	uint32_t size;            /* sizeof(struct cyclock_status) of the writer */
	char library[16];         /* the library's version, "0.1.0" */
	struct cyclock_status_setup setup;
	struct cyclock_status_counts counts;
};

#endif /* CYCLOCK_STATUS_H */
