/* SPDX-License-Identifier: MIT */
/*
 * What the falseshare scenario's two files share: falseshare_latch.c
 * lays the latch out three ways and runs one timed window of readers and
 * the writer over it; falseshare.c repeats windows, accounts for them
 * and reports.
 */
#ifndef CYCLOCK_BENCH_FALSESHARE_H
#define CYCLOCK_BENCH_FALSESHARE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#define FS_LINE 64

typedef uint64_t (*fs_read_fn)(void);

struct fs_read_data;
struct fs_read_mostly;

/* Where one layout keeps each field: what readers and the writer use. */
struct fs_view {
	_Atomic uint32_t *seq;
	struct fs_read_data *rd[2];
	struct fs_read_mostly *rm[2];
	_Atomic uint64_t *lock;
};

/* The memory the three layouts take turns in, defined beside them. */
union fs_mem;

enum { FS_SPLIT, FS_PACKED, FS_LOCK_ADJACENT, FS_LAYOUTS };

/* One repetition's shared state. */
struct fs_shared {
	struct fs_view v;
	fs_read_fn read;
	uint64_t window_ns;
	_Atomic uint32_t ready;  /* threads pinned and waiting */
	_Atomic uint32_t go;     /* readers may start */
	_Atomic uint32_t stop;   /* the writer may stop */
	int writer_cpu;
	uint64_t updates;        /* the writer's, read after join */
	uint64_t writer_ns;
};

/* One reader's figures, on its own line so that the results it writes at
 * the end share no line with another reader's. */
struct fs_reader {
	_Alignas(FS_LINE) struct fs_shared *sh;
	int cpu;
	uint64_t reads, retries, elapsed_ns, sum;
	pthread_t tid;
};

/* falseshare_latch.c: room for any layout, line-aligned, for free();
 * NULL when out of memory. */
union fs_mem *bench__fs_mem_alloc(void);

/* One window of @nreaders readers and the writer over @mem laid out as
 * @layout; 0 or pthread_create()'s error. */
int bench__fs_once(struct fs_shared *sh, int layout, union fs_mem *mem, double hz,
		   const int *cpus, int ncpu, struct fs_reader *rd, int nreaders);

#endif /* CYCLOCK_BENCH_FALSESHARE_H */
