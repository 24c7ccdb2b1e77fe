/* SPDX-License-Identifier: MIT */
/*
 * What the ctxsw scenario's two files share: ctxsw_partner.c forks the
 * partners and plays the ping-pong, ctxsw.c picks the clocks, takes the
 * turns and reports.
 */
#ifndef CYCLOCK_BENCH_CTXSW_H
#define CYCLOCK_BENCH_CTXSW_H

#include <sys/types.h>

#include "bench.h"

/* One child process and the parent's ends of its two pipes. */
struct partner {
	const struct bench_clock *clock; /* read at every switch; NULL: bare */
	pid_t pid;
	int wr;       /* parent -> child */
	int rd;       /* child -> parent */
	int keep;     /* the read end of parent -> child, held open: see partner_start() */
	long rounds;  /* round trips in all repetitions */
	double *slices;  /* ns per round trip in each slice of each repetition */
	double *samples; /* per repetition: the median of its slices */
};

/* Forks @p's child, pinned to @cpu, answering every byte (reading @p's
 * clock after each) until its pipe closes or @timeout_s pass; @others are
 * the @n_others partners started before.  0, or -1 with errno set. */
int bench__ctxsw_start(struct partner *p, const struct partner *others, size_t n_others, int cpu,
		       unsigned int timeout_s);
/* Ends and reaps @p's child; its wait status, or -1. */
int bench__ctxsw_stop(struct partner *p);
/* Round trips with @p's child for @span_ns, added to *@rounds; the ns
 * they took, or -1 when the child is gone. */
double bench__ctxsw_ping_for(const struct partner *p, double span_ns, long *rounds);

#endif /* CYCLOCK_BENCH_CTXSW_H */
