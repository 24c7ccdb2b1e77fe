/* SPDX-License-Identifier: MIT */
/*
 * What a running process shows of its clocks, the one record of it: the
 * library and the preload each keep one block at the exported symbol
 * cyclock_status, which src/linux/status.c alone writes, from the
 * writers' state, at initialisation's end and at each resync (never at
 * a read that does not resync).
 * Its readers: "cyclock status", from outside (process_vm_readv(2)),
 * without the process's help, and cyclock_get_state() and
 * cyclock_describe() in the process itself.  docs/tool.md ("status") has
 * how it is found and read.
 *
 * Fixed-width fields at fixed offsets, no pointers, so that a reader of
 * another build reads it in the target's own layout; strings are
 * NUL-terminated within their arrays.  Each version's layout is fixed,
 * and a reader refuses a version newer than it knows; the tool still
 * reads version 1 (cyclock 0.1's, one copy of each part), whose layout
 * it keeps (tools/cyclock/status_v1.h).
 *
 * Two parts, each kept twice: the low bit of the part's sequence names
 * the copy to read.  A writer fills the other copy, then bumps the
 * sequence (cyclock/latch.h's bump, with its orders); a reader takes the
 * sequence, copies the copy it names and retries only if the sequence
 * moved meanwhile.  So a reader never waits for a writer, not even in a
 * signal handler that interrupted it, and a write that a fork cut leaves
 * the copy readers are on whole.
 *  - setup: what initialisation decided (and the preload, at load);
 *    written before initialisation is done, never after;
 *  - counts: the tracking's counts, written by each resync of either
 *    timeline, under the writer flag.
 */
#ifndef CYCLOCK_STATUS_H
#define CYCLOCK_STATUS_H

#include <stdint.h>

#define CYCLOCK_STATUS_MAGIC "cyclock" /* 8 bytes with its NUL */
#define CYCLOCK_STATUS_VERSION 2u
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
#define CYCLOCK_STATUS_LOST 0x20u     /* version 1 only: a fork cut a write */
#define CYCLOCK_STATUS_WARP_RAN 0x40u /* the cross-CPU warp check ran */

struct cyclock_status_setup {
	uint32_t state;           /* CYCLOCK_STATUS_LOADED or _READY */
	uint32_t flags;           /* CYCLOCK_STATUS_* */
	uint32_t served;          /* the preload: the clock ids it serves, as bits */
	uint32_t reserved;        /* zero */
	double hz_hint;           /* the counter's frequency, as stated or first measured */
	uint64_t init_ns;         /* what initialisation cost */
	int64_t warp_cyc;         /* the warp check's largest step back; -1: it could not run */
	uint64_t warp_turns;      /* its turns (fewer than 100 say nothing) */
	char counter[16];         /* "tsc", "cntvct", "rdtime", "none" */
	char ordered[16];         /* the ordered read: "rdtscp", "lfence;rdtsc", ... */
	char hz_source[96];       /* where the frequency came from */
	char why[96];             /* why the kernel's clocks are used; "" on the counter */
	char distrust[96];        /* why the counter is not trusted; "" if it is */
	char ordered_why[160];    /* why that ordered read, with what each cost */
};

struct cyclock_status_counts {
	uint32_t pid;             /* the process whose resync wrote it (a fork child
				   * shows its parent's until its own first resync) */
	uint32_t kernel_mode;     /* cyclock_now() serves the kernel's clock (as its last
				   * resync decided) */
	uint64_t written_ns;      /* CLOCK_MONOTONIC at its last resync's sample; 0: none */
	uint64_t resyncs;         /* of CLOCK_MONOTONIC's timeline (RAW's are not counted) */
	uint64_t anomalies;       /* times the counter disagreed with the kernel */
	uint64_t kernel_spells;   /* spells on the kernel's clock, both timelines */
	uint64_t rate_changes;    /* changes of the kernel's rate followed on the counter */
	int64_t last_err_ns;      /* cyclock_now() - CLOCK_MONOTONIC at the last resync */
	int64_t raw_last_err_ns;  /* cyclock_raw() - CLOCK_MONOTONIC_RAW at RAW's last */
	uint64_t interval_ns;     /* the resync interval then */
	uint64_t max_interval_ns; /* the longest it may grow to, at the rate then */
	double ns_per_tick;       /* the counter's period as now estimated (1e9 / Hz) */
	double hz_ppm;            /* that estimate's uncertainty, parts per million */
	char kernel_why[96];      /* why the last spell on the kernel's clock; "" */
};

struct cyclock_status {
	char magic[8];            /* CYCLOCK_STATUS_MAGIC */
	uint32_t version;         /* CYCLOCK_STATUS_VERSION of the writer */
	uint32_t size;            /* sizeof(struct cyclock_status) of the writer */
	char library[16];         /* the library's version, "0.1.0" */
	uint32_t setup_seq;       /* its low bit: the setup copy to read */
	uint32_t counts_seq;      /* its low bit: the counts copy to read */
	char reserved[24];        /* zeros: the parts start a cache line */
	struct cyclock_status_setup setup[2];
	struct cyclock_status_counts counts[2];
	char tail[32];            /* zeros: the block is whole cache lines */
};

#endif /* CYCLOCK_STATUS_H */
