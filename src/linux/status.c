/* SPDX-License-Identifier: MIT */
/*
 * The block "cyclock status" reads from outside (cyclock/status.h): what
 * initialisation decided, written at its end, and the tracking's counts,
 * written by each resync that took, under the writer flag.  No read
 * writes it unless it resyncs, and nothing here reads it back: its only
 * reader is another process, through the kernel.
 *
 * Tests: tests/linux/validate_status.c (every part read is one write's,
 * through the kernel, by the tool's reader), tests/tool/cli/test_status.sh
 * (what "cyclock status" shows of a process).
 */
#include <stddef.h>
#include <string.h>

#include "cyclock/status.h"
#include "internal.h"

#ifndef CYCLOCK_LIB_VERSION
#define CYCLOCK_LIB_VERSION "unknown"
#endif

/* The layout a reader of another build relies on. */
_Static_assert(offsetof(struct cyclock_status, setup) == 32, "status: setup moved");
_Static_assert(offsetof(struct cyclock_status, counts) == 520, "status: counts moved");
_Static_assert(sizeof(struct cyclock_status) == 704, "status: size changed");
/* Whole lines, aligned: no other data shares the lines a resync writes. */
_Static_assert(sizeof(struct cyclock_status) % 64 == 0, "status: not whole cache lines");

CYCLOCK_API CYCLOCK_ALIGNAS(CYCLOCK_CACHELINE) struct cyclock_status cyclock_status = {
	.magic = CYCLOCK_STATUS_MAGIC,
	.version = CYCLOCK_STATUS_VERSION,
	.size = sizeof(struct cyclock_status),
	.library = CYCLOCK_LIB_VERSION,
};

/*
 * A part's write, as a seqcount: odd while it is written.  The bumps are
 * the latch's (cyclock/latch.h, whose orders model_latch shows needed):
 * the release fence after the first keeps the part's stores from being
 * seen before it, the release of the second keeps them from being seen
 * after it.  A part found odd was cut by a raw fork in the parent (a
 * fork() child clears it first: cyclock__status_fork_child()): it stays
 * odd, readers keep away, and the write ends it.  Every writer of a part
 * is the only one at that moment (the comments at each caller say why).
 * The sequences are plain in the header, whose readers are remote.
 */
static void begin(uint32_t *seq)
{
	CYCLOCK_ATOMIC(uint32_t) *s = (CYCLOCK_ATOMIC(uint32_t) *)seq;

	if (cyclock_atomic_load(s, CYCLOCK_RELAXED) & 1)
		cyclock_atomic_fence(CYCLOCK_RELEASE);
	else
		cyclock__latch_bump(s);
}

static void end(uint32_t *seq)
{
	cyclock__latch_bump((CYCLOCK_ATOMIC(uint32_t) *)seq);
}

static void copy(char *dst, size_t n, const char *src)
{
	size_t len = src ? strnlen(src, n - 1) : 0;

	memcpy(dst, src ? src : "", len);
	memset(dst + len, 0, n - len);
}

#define COPY(dst, src) copy((dst), sizeof(dst), (src))

/* Initialisation's end, from its owner (one at a time: INIT_BUSY), before
 * INIT_DONE: the decision. */
void cyclock__status_setup(void)
{
	struct cyclock_status_setup *p = &cyclock_status.setup;
	const struct cyclock__setup *s = &cyclock__setup;
	uint32_t flags = p->flags & (CYCLOCK_STATUS_PRELOAD | CYCLOCK_STATUS_RELAXED);

	if (cyclock_atomic_load(&s->using_counter, CYCLOCK_RELAXED))
		flags |= CYCLOCK_STATUS_COUNTER;
	if (s->forced)
		flags |= CYCLOCK_STATUS_FORCED;
	if (cyclock_atomic_load(&s->local_percpu, CYCLOCK_RELAXED))
		flags |= CYCLOCK_STATUS_PERCPU;
	begin(&p->seq);
	p->state = CYCLOCK_STATUS_READY;
	p->flags = flags;
	p->hz_hint = s->hz_hint;
	p->init_ns = s->init_ns;
	p->warp_cyc = s->warp_ran ? s->warp_cyc : -1;
	COPY(p->counter, CYCLOCK_ARCH_COUNTER_NAME);
	COPY(p->ordered, cyclock_arch_ordered_name(s->ordered));
	COPY(p->hz_source, s->hz_source);
	COPY(p->why, s->why);
	COPY(p->distrust, s->distrust);
	COPY(p->ordered_why, s->ordered_why);
	end(&p->seq);
}

/* The preload's, from its constructor (before any of its reads can
 * initialise) and from initialisation's end (its owner): the clocks it
 * serves, whether relaxed, and why it serves none when it passes every
 * clock to the kernel without initialising (@why, or NULL). */
void cyclock__status_preload(uint32_t served, bool relaxed, const char *why)
{
	struct cyclock_status_setup *p = &cyclock_status.setup;

	begin(&p->seq);
	p->flags = (p->flags & ~CYCLOCK_STATUS_RELAXED) | CYCLOCK_STATUS_PRELOAD |
		   (relaxed ? CYCLOCK_STATUS_RELAXED : 0);
	p->served = served;
	if (why) {
		p->state = CYCLOCK_STATUS_READY;
		COPY(p->counter, CYCLOCK_ARCH_COUNTER_NAME);
		COPY(p->why, why);
	}
	end(&p->seq);
}

/* The kernel_why last copied into the counts. */
static const char *why_copied;

/* A resync's of CLOCK_MONOTONIC's timeline, under the writer flag, once
 * its publish took (and the timelines' start's): the counts at its sample
 * @ns, with @kernel_mode as it decided.  A few stores, no division:
 * kernel_why is a literal's address, copied only when it changes. */
void cyclock__status_counts(uint64_t ns, bool kernel_mode)
{
	struct cyclock_status_counts *p = &cyclock_status.counts;
	const struct cyclock__track *m = &cyclock__tracks.mono, *r = &cyclock__tracks.raw;
	const char *why = m->state.kernel_why ? m->state.kernel_why : r->state.kernel_why;

	begin(&p->seq);
	p->pid = cyclock__pid();
	p->flags = 0;
	p->kernel_mode = kernel_mode;
	p->written_ns = ns;
	p->resyncs = m->state.resyncs;
	p->anomalies = cyclock_atomic_load(&cyclock__tracks.anomalies, CYCLOCK_RELAXED);
	p->kernel_spells = m->state.spells + r->state.spells;
	p->rate_changes = m->state.rate_changes;
	p->last_err_ns = m->state.last_err;
	p->interval_ns = (uint64_t)((double)m->state.interval * r->state.rate);
	p->ns_per_tick = r->state.rate;
	if (why != why_copied) {
		COPY(p->kernel_why, why);
		why_copied = why;
	}
	end(&p->seq);
}

/* A child of fork(), alone: a part its parent was writing is cleared and
 * closed, marked lost, since its halves may be two writes'. */
void cyclock__status_fork_child(void)
{
	struct cyclock_status_setup *s = &cyclock_status.setup;
	struct cyclock_status_counts *c = &cyclock_status.counts;

	if (s->seq & 1) {
		memset((char *)s + sizeof(s->seq), 0, sizeof(*s) - sizeof(s->seq));
		s->flags = CYCLOCK_STATUS_LOST;
		end(&s->seq);
	}
	if (c->seq & 1) {
		memset((char *)c + sizeof(c->seq), 0, sizeof(*c) - sizeof(c->seq));
		c->flags = CYCLOCK_STATUS_LOST;
		why_copied = NULL;
		end(&c->seq);
	}
}
