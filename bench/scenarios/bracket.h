/* SPDX-License-Identifier: MIT */
/*
 * One call of a clock timed on its own, as a program that reads the time
 * now and then pays for it: between two fenced counter reads, through a
 * call the front end cannot fetch ahead of the first (a retpoline, on
 * x86-64), the bracket's own cost around an empty function subtracted.
 * The cold scenario times a call after evicting the caches; sparse, one
 * after a gap.  docs/scenarios/cold.md says why each part is there.
 */
#ifndef CYCLOCK_BENCH_BRACKET_H
#define CYCLOCK_BENCH_BRACKET_H

#include <stdbool.h>
#include <stdint.h>

struct bench_bracket {
	bool thunk;         /* calls go through the retpoline */
	uint64_t empty;     /* the bracket's own cost, ticks: the median around an empty call */
	double ns_per_tick;
};

/* Measures the bracket's own cost, warm; call it pinned. */
void bench_bracket_init(struct bench_bracket *b);
/* One call of @fn, in ns, the bracket's cost subtracted (0 at least). */
double bench_bracket_time(const struct bench_bracket *b, uint64_t (*fn)(void));
/* An untimed call of the empty function through the same path: brings
 * the bracket's own code back after an eviction. */
void bench_bracket_warm(const struct bench_bracket *b);
/* The bracket's own cost in ns. */
double bench_bracket_empty_ns(const struct bench_bracket *b);

#endif /* CYCLOCK_BENCH_BRACKET_H */
