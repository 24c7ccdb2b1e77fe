/* SPDX-License-Identifier: MIT */
/*
 * What the cold scenario does before each sample, so that one call of a
 * clock finds nothing of itself cached, at a cost that does not grow with
 * the last-level cache: flush every line of the memory a call may touch
 * (the loaded objects and the vDSO's data page), then write a buffer the
 * size of the caches below the last level and read one line of each page
 * of a span larger than any TLB.  cold.c's comment says why each part.
 */
#ifndef CYCLOCK_BENCH_EVICT_H
#define CYCLOCK_BENCH_EVICT_H

#include <stddef.h>

struct evict_range {
	const unsigned char *start; /* line-aligned */
	size_t len;                 /* a multiple of the line */
};

struct bench_evict {
	struct evict_range ranges[128]; /* flushed, one instruction a line */
	size_t n_ranges;
	size_t flush_bytes;             /* their sum */
	int flush;                      /* 0: none here, 1: clflush, 2: clflushopt */
	unsigned char *buf;            /* written, one store a line */
	size_t buf_len;
	unsigned char *tlb;            /* read, one line a page: all the zero page */
	size_t tlb_len;
};

/* Sets @e up for a CPU whose cache below the last level has @mid_bytes
 * and whose last level has @llc_bytes (0: unknown).  0, or -1 after
 * saying why (bench_error()). */
int bench_evict_init(struct bench_evict *e, long mid_bytes, long llc_bytes);
/* Evicts; @round varies what is written.  Not signal-safe; call pinned. */
void bench_evict_run(const struct bench_evict *e, unsigned int round);
void bench_evict_free(struct bench_evict *e);

#endif /* CYCLOCK_BENCH_EVICT_H */
