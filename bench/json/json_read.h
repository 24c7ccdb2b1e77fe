/* SPDX-License-Identifier: MIT */
/*
 * What the JSON reader's files share, and no one else: the limits on
 * untrusted input, the reader's state and the steps it is made of.
 * json_read.c loads the file and walks the top level, common.c holds
 * what the steps share, entries.c
 * files each entry of the "benchmarks" array under its benchmark's name,
 * result.c turns each name's entries into a result and
 * context.c reads the "context" object.
 */
#ifndef CYCLOCK_BENCH_JSON_READ_H
#define CYCLOCK_BENCH_JSON_READ_H

#include <jansson.h>
#include <stddef.h>

#include "bench.h"

#define MAX_BENCHMARKS 100000        /* distinct names in one file */
#define MAX_SAMPLES 100000           /* repetitions of one name */
#define MAX_TIME_NS 1e18             /* 31 years: anything longer is garbage */
/* The largest file read (docs/tool.md).  jansson holds the whole tree:
 * ~11 bytes of memory per byte of a run file, and up to ~80 per byte of
 * one made of empty objects ("{},"), so this is at most ~1.3 GB; the
 * default "bench --quick" writes 1.2 MiB. */
#define MAX_FILE_BYTES (16L << 20)
/* The error of every allocation that failed, which bench_read_json()
 * turns into "out of memory reading FILE". */
#define BENCH__JSON_OOM "out of memory"

/* One benchmark name: its entries are chained through reader.next. */
struct group {
	char *key;
	size_t head, tail, n; /* iteration entries, by index */
	size_t median;        /* the median aggregate's index, or SIZE_MAX */
};

struct reader {
	json_t *entries;   /* the "benchmarks" array */
	json_t *index;     /* name -> group number */
	struct group *g;
	size_t ng, cap;
	size_t *next;      /* per entry: the next entry of its group */
	double *ns;        /* per entry: its real_time in ns */
	long *rep;         /* per entry: its repetition_index */
	char *err;
	size_t errlen;
};

/* common.c: the error of @rd as one line; returns -1. */
int bench__json_fail(struct reader *rd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Copies @s into @dst, cleaned by bench_text_clean() (control characters
 * made visible) and cut at a character boundary to fit @size. */
void bench__json_copy_str(char *dst, size_t size, const char *s);
/* The string @key of @o, or NULL when it is missing or not a string. */
const char *bench__json_opt_str(const json_t *o, const char *key);
/* Google Benchmark's time unit @unit in ns; 0 for an unknown one. */
double bench__json_unit_ns(const char *unit);

/* entries.c: optional integer @key of entry @i in [0, max], else *@v
 * stays; -1 after bench__json_fail() when it is there but not one. */
int bench__json_opt_int(struct reader *rd, size_t i, const char *key, long max, long *v);
/* Files entry @i under its benchmark's name; 0 or -1. */
int bench__json_file_entry(struct reader *rd, size_t i);

/* result.c: adds @g's result to @run; 0 or -1. */
int bench__json_add_group(struct reader *rd, struct bench_run *run, const struct group *g);

/* context.c: the "context" object @c into @ctx; never fails. */
void bench__json_read_context(struct bench_context *ctx, const json_t *c);

#endif /* CYCLOCK_BENCH_JSON_READ_H */
