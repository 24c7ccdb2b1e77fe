/* SPDX-License-Identifier: MIT */
/*
 * The hosted harnesses' world (model_world.cpp): the kernel's clocks as
 * functions of the model's time, the segments the model's decision makes,
 * and initialisation's outcome, set up by hosted_begin().
 */
#ifndef CYCLOCK_MODEL_WORLD_HPP
#define CYCLOCK_MODEL_WORLD_HPP

#include "internal.h" /* src/linux's */
#include "model.hpp"

/* The model's scales: a count of the counter is MODEL_KERNEL_NS of the
 * kernel's CLOCK_MONOTONIC, and MODEL_SEGMENT_NS of a segment's, which
 * so falls behind the kernel's clock: reads past a horizon hand out the
 * kernel's clock above the segment's floor, which is what the served
 * count and the writer's raise are for. */
enum : uint64_t {
	MODEL_K0 = 1000,         /* CLOCK_MONOTONIC at time 0 */
	MODEL_KERNEL_NS = 16,    /* its ns a count */
	MODEL_SEGMENT_NS = 12,   /* a segment's */
	MODEL_SHIFT = 8,         /* the timelines' fixed point */
	MODEL_HORIZON = 3,       /* a segment's length, counts */
	MODEL_PAY = 2,           /* a read this soon past the horizon resyncs */
	MODEL_OFF_REAL = 100000, /* REALTIME - MONOTONIC at time 0, */
	MODEL_REAL_STEP = 2000,  /* set forward this much a count (so that writers
				  * measure new offsets and apply them) */
	MODEL_OFF_BOOT = 500,    /* BOOTTIME - MONOTONIC */
	MODEL_COARSE_NS = 16,    /* the kernel's tick: MONOTONIC_COARSE's step, a count */
};

namespace cyclock_model {

uint64_t kernel_ns_at(clockid_t id, uint64_t time);
/* A segment from @cyc at @ns, @horizon counts long (0: kernel mode),
 * with its checksum in drift_ppb. */
struct cyclock__segv segment(uint64_t cyc, uint64_t ns, uint32_t horizon);
uint32_t checksum(const struct cyclock__segv *v);
/* In before(): initialised on the counter, a segment published on each
 * timeline from now. */
void hosted_begin();

} /* namespace cyclock_model */

#endif /* CYCLOCK_MODEL_WORLD_HPP */
