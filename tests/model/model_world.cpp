/* SPDX-License-Identifier: MIT */
/*
 * What the hosted layer's files the model runs (read.c, segment.c,
 * resync.c, sample.c, coarse.c) call and the model does not: the kernel,
 * the process, initialisation (the harness sets its result up instead)
 * and the decision.  model_world.hpp says what a harness may set.
 *
 * The kernel's clocks are functions of the model's time, read as the
 * counter is (a relaxed load, so C11's coherence keeps them monotonic
 * along happens-before, which is the vDSO's promise too).
 *
 * The decision (cyclock__decide(), track.c) is a function of the
 * sample and the track alone; the model's publishes what the protocol
 * needs it to (tests/linux/test_decide.c checks the real one's cases):
 * the next segment starts at the writer's counter read, at the kernel's
 * clock as the sample projects it, never below the most the current one
 * handed out; or, now and then, kernel mode with that floor.  Its
 * segments carry a checksum in drift_ppb, so that a reader of a whole
 * copy can tell a torn one.
 */
#include "model_world.hpp"

namespace cyclock_model {

uint64_t kernel_ns_at(clockid_t id, uint64_t time)
{
	uint64_t ns = MODEL_K0 + MODEL_KERNEL_NS * time;

	switch (id) {
	case CLOCK_REALTIME: /* set forward as time goes: offsets to apply */
		return ns + MODEL_OFF_REAL + MODEL_REAL_STEP * time;
	case CLOCK_BOOTTIME:
		return ns + MODEL_OFF_BOOT;
	case CLOCK_MONOTONIC_COARSE:
		return ns - ns % MODEL_COARSE_NS;
	default:
		return ns;
	}
}

uint32_t checksum(const struct cyclock__segv *v)
{
	uint64_t h = v->cyc * 0x9e3779b97f4a7c15ull ^ (uint64_t)v->mult << 7 ^ v->horizon_cyc ^
		     (uint64_t)v->mult_rate << 21 ^ v->recheck << 3 ^ v->frac;

	return (uint32_t)(h ^ h >> 32) | 1;
}

struct cyclock__segv segment(uint64_t cyc, uint64_t ns, uint32_t horizon)
{
	struct cyclock__segv v = {};

	v.cyc = cyc;
	v.ns = ns;
	v.off_real = MODEL_OFF_REAL;
	v.off_boot = MODEL_OFF_BOOT;
	v.horizon_cyc = horizon;
	v.mult = v.mult_rate = MODEL_SEGMENT_NS << MODEL_SHIFT;
	v.recheck = horizon ? 0 : cyc + 2;
	v.drift_ppb = checksum(&v);
	return v;
}

void hosted_begin()
{
	cyclock__setup.counts = {};
	cyclock__setup.counts.shift = MODEL_SHIFT;
	cyclock__setup.counts.max_back_cyc = 2;
	cyclock__setup.counts.tight_cyc = 1000; /* one bracket is enough */
	cyclock_atomic_store(&cyclock__setup.using_counter, true, CYCLOCK_RELAXED);
	cyclock_atomic_store(&cyclock__host.state, INIT_DONE, CYCLOCK_RELAXED);
	cyclock__tracks.mono.tl = &cyclock__mono;
	cyclock__tracks.mono.id = CLOCK_MONOTONIC;
	cyclock__tracks.mono.counts = &cyclock__setup.counts;
	cyclock__tracks.raw.tl = &cyclock__raw;
	cyclock__tracks.raw.id = CLOCK_MONOTONIC_RAW;
	cyclock__tracks.raw.counts = &cyclock__setup.counts;
	TRACKS_OFF(off_real) = MODEL_OFF_REAL;
	TRACKS_OFF(off_boot) = MODEL_OFF_BOOT;
	for (struct cyclock__timeline *tl : { &cyclock__mono, &cyclock__raw }) {
		struct cyclock__segv first = segment(now(), kernel_ns_at(CLOCK_MONOTONIC, now()),
						     MODEL_HORIZON);

		cyclock_atomic_store(&tl->shift, MODEL_SHIFT, CYCLOCK_RELAXED);
		cyclock_atomic_store(&tl->pay_cyc, MODEL_PAY, CYCLOCK_RELAXED);
		cyclock_atomic_store(&tl->row_cyc, 1, CYCLOCK_RELAXED);
		MODEL_CHECK(cyclock__publish(tl, &first));
	}
}

} /* namespace cyclock_model */

using namespace cyclock_model;

int cyclock__kernel_gettime(clockid_t id, struct timespec *ts)
{
	uint64_t ns = kernel_ns_at(id, now());

	ts->tv_sec = (time_t)(ns / NSEC_PER_SEC);
	ts->tv_nsec = (long)(ns % NSEC_PER_SEC);
	return 0;
}

struct cyclock__decision cyclock__decide(struct cyclock__track *tr,
					 const struct cyclock__segv *cur,
					 const struct cyclock__sample *s, uint64_t cw,
					 const uint64_t *off, bool went_back)
{
	struct cyclock__decision d = { CYCLOCK__KEEP, *cur, NULL, false };
	uint64_t floor = cyclock__seg_horizon(cur, tr->counts->shift);
	uint64_t k = s->ns + (cw - s->cyc) * MODEL_SEGMENT_NS;
	struct cyclock__segv next;

	(void)went_back;
	if (off) {
		d.seg.off_real = off[0];
		d.seg.off_boot = off[1];
	}
	if (cur->horizon_cyc && (int64_t)(cw - cur->cyc - cur->horizon_cyc) < 0)
		return d; /* before the horizon (cyclock_resync()): new offsets only */
	next = segment(cw, k > floor ? k : floor, choose(4) ? (uint32_t)MODEL_HORIZON : 0);
	next.off_real = d.seg.off_real;
	next.off_boot = d.seg.off_boot;
	d.what = CYCLOCK__NEXT;
	d.seg = next;
	return d;
}

/* Not reached: the model's decisions make no fresh segments. */
bool cyclock__start_fresh(struct cyclock__track *tr, const struct cyclock__sample *s,
			  const struct cyclock__segv *cur)
{
	(void)tr, (void)s, (void)cur;
	MODEL_CHECK(!"a fresh segment");
	return false;
}

/* The simulation's stand-in for other threads: the model has real ones. */
void cyclock__sim_before_swap(void)
{
}

/* The library's load: nothing to ask in the model. */
void cyclock__load(void)
{
}

uint32_t cyclock__pid(void)
{
	return 1; /* one process: an abandoned writer's flag stays taken */
}

uint32_t cyclock__pid_fresh(void)
{
	return 1;
}

/* The status block (its records: model_record): no reader in this model
 * (its writes are cyclock/latch.h's bumps, which model_latch checks). */
void cyclock__status_counts(const struct cyclock__track *, uint64_t, bool)
{
}

void cyclock__shield(struct cyclock__shield *s)
{
	(void)s;
}

void cyclock__unshield(const struct cyclock__shield *s)
{
	(void)s;
}

/* Initialisation is over before the threads start (hosted_begin()). */
void cyclock__init_once(unsigned int flags)
{
	(void)flags;
	MODEL_CHECK(!"initialisation");
}

bool cyclock__init_wait(unsigned int flags, bool warp)
{
	(void)flags, (void)warp;
	return true;
}

uint64_t cyclock__local_read(void)
{
	return cyclock__kernel_ns(CLOCK_MONOTONIC);
}

/* The coarse ticker "starts": a harness thread runs its steps
 * (cyclock__coarse_tick()) instead. */
int cyclock__thread_start(pthread_t *t, bool detached, void *(*fn)(void *), void *arg)
{
	(void)detached, (void)fn, (void)arg;
	*t = pthread_self(); /* what coarse_start() names */
	return 0;
}

/* No fork in the model: the ticker's fork handler, which coarse_start()
 * registers in every iteration, is not kept (libc's would pile them up). */
extern "C" int pthread_atfork(void (*)(void), void (*)(void), void (*)(void)) __THROW
{
	return 0;
}

void cyclock__say_once(CYCLOCK_ATOMIC(uint32_t) *said, const char *msg, size_t n)
{
	(void)said, (void)msg, (void)n;
}
