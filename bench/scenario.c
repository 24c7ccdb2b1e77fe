/* SPDX-License-Identifier: MIT */
/* The scenarios' registry; what they share is in runtime.c, so that this
 * file calls the scenarios and they never call back into it. */
#include <string.h>

#include "bench.h"

static const struct bench_scenario scenarios[] = {
	{ "warm", "ns per call in a tight loop, throughput and latency (Zijlstra 2013's warm loop)",
	  true, bench_warm },
	{ "cold", "one call after the caches were evicted: median and p90 (Zijlstra 2013's cold loop)",
	  true, bench_cold },
	{ "sparse",
	  "one read after a gap of 10 us to 1 s, idle or busy, with its system calls counted: "
	  "a server's read after epoll_wait()",
	  true, bench_sparse },
	{ "scale", "ns per call with 1..N threads calling at once (Gherdovich 2016's table)",
	  true, bench_scale },
	{ "falseshare",
	  "readers of a latch-protected clock while a writer updates it: split, packed and "
	  "lock-adjacent layouts (Zeng 2023, Kennedy 2010)",
	  true, bench_falseshare },
	{ "resolution", "smallest step, step histogram and stalls per clock (Brodkin 2018)",
	  true, bench_resolution },
	{ "warp", "two pinned threads in strict turns: backward steps between CPUs", true,
	  bench_warp },
	{ "ctxsw",
	  "pipe ping-pong round trip on one CPU and across CPUs, bare and timestamped "
	  "(Zeng 2023, Brodkin 2018)",
	  true, bench_ctxsw },
	{ "accuracy",
	  "each cyclock clock against the kernel clock it follows: offsets and drift; a "
	  "busy loop timed by every clock (Brodkin 2018)",
	  true, bench_accuracy_run },
	{ "engine",
	  "the engine's reader alone and while a writer updates its clock flat out: the "
	  "latch's worst case",
	  false, bench_engine },
};

const struct bench_scenario *bench_scenarios(size_t *n)
{
	*n = sizeof(scenarios) / sizeof(scenarios[0]);
	return scenarios;
}

const struct bench_scenario *bench_scenario_find(const char *name)
{
	for (size_t i = 0; i < sizeof(scenarios) / sizeof(scenarios[0]); i++)
		if (strcmp(scenarios[i].name, name) == 0)
			return &scenarios[i];
	return NULL;
}
