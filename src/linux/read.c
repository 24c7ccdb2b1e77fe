/* SPDX-License-Identifier: MIT */
/*
 * The public clocks: one-line wrappers over the inline fast path in
 * cyclock/hosted.h, and the slow path every reader falls into when the
 * fast path's single check fails.
 *
 * The slow path, in order: initialise on first use; with no trusted
 * counter, read the kernel's clock; a counter a little before the
 * segment's start (a relaxed read that ran early) converts with the
 * previous slope; one past the segment's horizon is checked against the
 * kernel's clock, then resyncs and reads again from the new segment, or,
 * if another thread is resyncing, extrapolates at the segment's low slope
 * (cyclock/hosted.h says why that is safe).  A counter that disagrees with
 * the kernel beyond cyclock__tol_ns(), or is far behind the segment, is
 * not used: see counter_wrong().
 */
#define _GNU_SOURCE
#include "internal.h"

/* The cache-line budget in cyclock/hosted.h. */
_Static_assert(sizeof(struct cyclock__seg) == 56, "a segment is 56 bytes");
_Static_assert(offsetof(struct cyclock__timeline, seg[0]) == 8, "seq, shift, seg[0]: line 0");
_Static_assert(offsetof(struct cyclock__timeline, seg[1]) == CYCLOCK_CACHELINE,
	       "seg[1] starts line 1");

struct cyclock__timeline cyclock__mono;
struct cyclock__timeline cyclock__raw;

static clockid_t kernel_id(unsigned int kind)
{
	if (kind & CYCLOCK__RAW)
		return CLOCK_MONOTONIC_RAW;
	if (kind & CYCLOCK__REAL)
		return CLOCK_REALTIME;
	if (kind & CYCLOCK__BOOT)
		return CLOCK_BOOTTIME;
	return CLOCK_MONOTONIC;
}

static uint64_t with_offset(uint64_t ns, const struct cyclock__segv *v, unsigned int kind);

/*
 * A read whose counter cannot be right: the kernel's clock plus the guard
 * (cyclock__guard_ns()), so not below a value already handed out; then a
 * resync, which restarts the timeline from the same point.  realtime and
 * boottime add the segment's offsets, as their fast path does.
 */
static uint64_t counter_wrong(unsigned int kind, const struct cyclock__segv *v)
{
	uint64_t k = cyclock__kernel_ns((kind & CYCLOCK__RAW) ? CLOCK_MONOTONIC_RAW
							      : CLOCK_MONOTONIC);

	k += cyclock__guard_ns();
	cyclock__try_refresh();
	return with_offset(k, v, kind);
}

static uint64_t with_offset(uint64_t ns, const struct cyclock__segv *v, unsigned int kind)
{
	if (kind & CYCLOCK__REAL)
		ns += v->off_real;
	if (kind & CYCLOCK__BOOT)
		ns += v->off_boot;
	return ns;
}

/*
 * Is the counter's time, at @cyc under segment @v, the kernel's within the
 * tolerance?  The kernel's reading is bracketed by @cyc and a counter read
 * after it, so a reader preempted in between does not take its own delay
 * for the counter's error.
 */
static bool counter_agrees(const struct cyclock__segv *v, uint64_t cyc, unsigned int kind)
{
	uint64_t before, after, k;
	uint32_t frac;

	cyclock__seg_at(v, cyclock__host.shift, cyc, &before, &frac);
	k = cyclock__kernel_ns((kind & CYCLOCK__RAW) ? CLOCK_MONOTONIC_RAW : CLOCK_MONOTONIC);
	cyclock__seg_at(v, cyclock__host.shift, cyclock_arch_counter_ordered(), &after, &frac);
	return before <= k + cyclock__tol_ns(before - v->ns) &&
	       k <= after + cyclock__tol_ns(after - v->ns);
}

/* The counter path of the slow path: the cases in the header comment. */
static uint64_t counter_slow(unsigned int kind)
{
	struct cyclock__timeline *tl = (kind & CYCLOCK__RAW) ? &cyclock__raw : &cyclock__mono;
	struct cyclock__segv v;
	uint64_t cyc, delta, ns;
	uint32_t frac, seq;

	for (;;) {
		do {
			seq = cyclock__latch_begin(&tl->seq);
			v = cyclock__seg_load(tl); /* same copy, or we retry */
			cyc = (kind & CYCLOCK__ORDERED) ? cyclock_arch_counter_ordered()
							: cyclock_arch_counter();
		} while (cyclock__latch_retry(&tl->seq, seq));
		delta = cyc - v.cyc;
		if ((int64_t)delta < 0 && v.cyc - cyc > cyclock__host.max_back_cyc)
			return counter_wrong(kind, &v);
		if ((int64_t)delta < 0 || delta < v.stale) {
			cyclock__seg_at(&v, cyclock__host.shift, cyc, &ns, &frac);
			return with_offset(ns, &v, kind);
		}
		/* Past the horizon. */
		if (!counter_agrees(&v, cyc, kind))
			return counter_wrong(kind, &v);
		if (!cyclock__try_refresh()) /* another thread is resyncing */
			return with_offset(cyclock__seg_low(&v, cyclock__host.shift, cyc), &v, kind);
		/* Resynced: read again, from the new segment. */
	}
}

uint64_t cyclock__slow(unsigned int kind)
{
	if (atomic_load_explicit(&cyclock__host.state, memory_order_acquire) != INIT_DONE) {
		cyclock__init_once(0);
		/* Another thread, or the code this signal interrupted, is at it. */
		if (atomic_load_explicit(&cyclock__host.state, memory_order_acquire) != INIT_DONE)
			return cyclock__kernel_ns(kernel_id(kind));
	}
	if (cyclock__host.using_counter)
		return counter_slow(kind);
	if ((kind & CYCLOCK__LOCAL) && cyclock__host.local_percpu)
		return cyclock__local_read();
	return cyclock__kernel_ns(kernel_id(kind));
}

uint64_t cyclock_now(void)
{
	return cyclock__read(&cyclock__mono, CYCLOCK__ORDERED);
}

uint64_t cyclock_now_relaxed(void)
{
	return cyclock__read(&cyclock__mono, 0);
}

uint64_t cyclock_raw(void)
{
	return cyclock__read(&cyclock__raw, CYCLOCK__ORDERED | CYCLOCK__RAW);
}

uint64_t cyclock_realtime(void)
{
	return cyclock__read(&cyclock__mono, CYCLOCK__ORDERED | CYCLOCK__REAL);
}

uint64_t cyclock_boottime(void)
{
	return cyclock__read(&cyclock__mono, CYCLOCK__ORDERED | CYCLOCK__BOOT);
}

uint64_t cyclock_local(void)
{
	return cyclock__read(&cyclock__mono, CYCLOCK__LOCAL);
}

uint64_t cyclock_coarse(void)
{
	return cyclock__coarse_read();
}

static bool ready(void)
{
	if (atomic_load_explicit(&cyclock__host.state, memory_order_acquire) == INIT_DONE)
		return true;
	cyclock__init_once(0);
	return atomic_load_explicit(&cyclock__host.state, memory_order_acquire) == INIT_DONE;
}

uint64_t cyclock_cycles(void)
{
	return ready() && cyclock__host.using_counter ? cyclock_arch_counter() : 0;
}

uint64_t cyclock_cycles_to_ns(uint64_t cycles)
{
	struct cyclock__segv v;
	uint64_t ns;
	uint32_t frac;

	if (!ready() || !cyclock__host.using_counter)
		return cyclock_now();
	v = cyclock__seg_load(&cyclock__mono);
	cyclock__seg_at(&v, cyclock__host.shift, cycles, &ns, &frac);
	return ns;
}

void cyclock_resync(void)
{
	if (!ready() || !cyclock__host.using_counter)
		return;
	atomic_store_explicit(&cyclock__host.pending, 1, memory_order_relaxed);
	cyclock__try_refresh();
}
