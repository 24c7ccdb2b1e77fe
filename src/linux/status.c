/* SPDX-License-Identifier: MIT */
/*
 * The one place where the writers' state becomes reported facts: the
 * block cyclock/status.h lays out, written at initialisation's end and by
 * each resync that took, under the writer flag, and read back whole by
 * cyclock__status_own() for cyclock_get_state() and cyclock_describe()
 * (describe.c); "cyclock status" reads it from outside.  No read writes
 * it unless it resyncs.
 *
 * Tests: tests/linux/validate_status.c (every part read is one write's,
 * through the kernel, by the tool's reader), validate_state.c (the
 * same of cyclock_get_state() in a signal handler that interrupted the
 * writer), tests/model/model_record.cpp (the record's orders),
 * tests/linux/sim_state.c (every fact, through cyclock_get_state()),
 * tests/tool/cli/test_status.sh (what "cyclock status" shows of a
 * process), tests/build/one_record.sh (a fact's derivation changed here,
 * and all four readers follow).
 */
#include <stddef.h>
#include <string.h>

#include "cyclock/status.h"
#include "internal.h"

#ifndef CYCLOCK_LIB_VERSION
#define CYCLOCK_LIB_VERSION "unknown"
#endif

/* The layout a reader of another build relies on. */
_Static_assert(offsetof(struct cyclock_status, setup) == 64, "status: setup moved");
_Static_assert(offsetof(struct cyclock_status, counts) == 1120, "status: counts moved");
_Static_assert(sizeof(struct cyclock_status) == 1536, "status: size changed");
/* Whole lines, aligned: no other data shares the lines a resync writes. */
_Static_assert(sizeof(struct cyclock_status) % 64 == 0, "status: not whole cache lines");
/* The copies are records of 32-bit words (cyclock/latch.h). */
_Static_assert(sizeof(struct cyclock_status_setup) % 4 == 0, "status: setup not in words");
_Static_assert(sizeof(struct cyclock_status_counts) % 4 == 0, "status: counts not in words");

/*
 * The block, written and read here under a hidden name, exported as
 * cyclock_status for readers outside (an alias: one object).  Under the
 * exported name alone, a libcyclock.so loaded after the preload in one
 * process would write the preload's block, whose definition comes first
 * in the lookup order, and leave its own unwritten (test_status.sh's
 * "both").
 */
CYCLOCK_ALIGNAS(CYCLOCK_CACHELINE) struct cyclock_status cyclock__status_block = {
	.magic = CYCLOCK_STATUS_MAGIC,
	.version = CYCLOCK_STATUS_VERSION,
	.size = sizeof(struct cyclock_status),
	.library = CYCLOCK_LIB_VERSION,
};
CYCLOCK_API extern struct cyclock_status cyclock_status
	__attribute__((alias("cyclock__status_block")));

/* Each counts copy's kernel_why as the literal it was copied from, for
 * cyclock_get_state()'s strings of static duration: written with the copy,
 * before the bump that shows it, read under the same sequence. */
static CYCLOCK_ATOMIC(const char *) kernel_why_of[2];

/* A part's copy @i, as the record's words (cyclock/latch.h). */
#define SEQ(field) ((CYCLOCK_ATOMIC(uint32_t) *)&cyclock__status_block.field)
#define WORDS(part, i) ((CYCLOCK_ATOMIC(uint32_t) *)&cyclock__status_block.part[i])
#define NWORDS(part) (sizeof(cyclock__status_block.part[0]) / 4)

static void copy(char *dst, size_t n, const char *src)
{
	size_t len = src ? strnlen(src, n - 1) : 0;

	memcpy(dst, src ? src : "", len);
	memset(dst + len, 0, n - len);
}

#define COPY(dst, src) copy((dst), sizeof(dst), (src))

/* What the preload said of itself (cyclock__status_preload()), and
 * whether initialisation's end came, for the setup's writer. */
static struct {
	bool on, relaxed;
	uint32_t served;
	const char *why;
} preload;
static bool decided;

/* The decision, from cyclock__setup, into @s. */
static void decision(struct cyclock_status_setup *s)
{
	const struct cyclock__setup *c = &cyclock__setup;

	if (cyclock_atomic_load(&c->using_counter, CYCLOCK_RELAXED))
		s->flags |= CYCLOCK_STATUS_COUNTER;
	if (c->forced)
		s->flags |= CYCLOCK_STATUS_FORCED;
	if (cyclock_atomic_load(&c->local_percpu, CYCLOCK_RELAXED))
		s->flags |= CYCLOCK_STATUS_PERCPU;
	if (c->warp_ran)
		s->flags |= CYCLOCK_STATUS_WARP_RAN;
	s->state = CYCLOCK_STATUS_READY;
	s->hz_hint = c->hz_hint;
	s->init_ns = c->init_ns;
	s->warp_cyc = c->warp_ran ? c->warp_cyc : 0;
	s->warp_turns = c->warp_ran ? c->warp_turns : 0;
	COPY(s->ordered, cyclock_arch_ordered_name(c->ordered));
	COPY(s->hz_source, c->hz_source);
	COPY(s->why, c->why);
	COPY(s->distrust, c->distrust);
	COPY(s->ordered_why, c->ordered_why);
}

/* The setup part's one writer: what the preload said, and the decision
 * once initialisation made it, whole into the copy readers are not on.
 * Its callers are each the only one at that moment: the preload's
 * constructor runs before any read can initialise, and initialisation's
 * end in its owner (INIT_BUSY), before INIT_DONE, after which nothing
 * writes the setup. */
static void setup_write(void)
{
	struct cyclock_status_setup s = { .served = preload.served };

	COPY(s.counter, CYCLOCK_ARCH_COUNTER_NAME);
	if (preload.on)
		s.flags = CYCLOCK_STATUS_PRELOAD | (preload.relaxed ? CYCLOCK_STATUS_RELAXED : 0);
	if (preload.why) { /* it serves nothing, and initialises nothing */
		s.state = CYCLOCK_STATUS_READY;
		COPY(s.why, preload.why);
	}
	if (decided)
		decision(&s);
	cyclock__record_put(WORDS(setup, cyclock__record_next(SEQ(setup_seq))), &s,
			    NWORDS(setup));
	cyclock__latch_bump(SEQ(setup_seq));
}

/* Initialisation's end: the decision. */
void cyclock__status_setup(void)
{
	decided = true;
	setup_write();
}

/* The preload's, from its constructor and from initialisation's end: the
 * clocks it serves, whether relaxed, and why it serves none when it
 * passes every clock to the kernel without initialising (@why, or NULL). */
void cyclock__status_preload(uint32_t served, bool relaxed, const char *why)
{
	preload.on = true;
	preload.served = served;
	preload.relaxed = relaxed;
	preload.why = why;
	setup_write();
}

/* The frequency's uncertainty, in ppm: from the first and latest RAW
 * samples' brackets over their baseline. */
static double hz_ppm(const struct cyclock__track_state *r)
{
	const struct cyclock__sample *a = &cyclock__setup.first_raw, *b = &r->last;

	return b->ns > a->ns ? cyclock__rate_unc(a, b, r->rate) * 1e6 : 0;
}

/* A resync's, under the writer flag, once its publish took (and the
 * timelines' start's): the counts after it.  @tr: the track it resynced;
 * MONOTONIC's gives its sample's @ns and @kernel_mode as it decided,
 * RAW's leaves them as MONOTONIC's last said. */
void cyclock__status_counts(const struct cyclock__track *tr, uint64_t ns, bool kernel_mode)
{
	const struct cyclock__track_state *m = &cyclock__tracks.mono.state,
					  *r = &cyclock__tracks.raw.state;
	const char *why = m->kernel_why ? m->kernel_why : r->kernel_why ? r->kernel_why : "";
	unsigned int next = cyclock__record_next(SEQ(counts_seq));
	/* The last write's copy, this writer's or one the flag ordered before. */
	const struct cyclock_status_counts *cur = &cyclock__status_block.counts[next ^ 1];
	bool mono = tr == &cyclock__tracks.mono;
	struct cyclock_status_counts c = {
		.pid = cyclock__pid(),
		.kernel_mode = mono ? kernel_mode : cur->kernel_mode,
		.written_ns = mono ? ns : cur->written_ns,
		.resyncs = m->resyncs,
		.anomalies = cyclock_atomic_load(&cyclock__tracks.anomalies, CYCLOCK_RELAXED),
		.kernel_spells = m->spells + r->spells,
		.rate_changes = m->rate_changes,
		.last_err_ns = m->last_err,
		.raw_last_err_ns = r->last_err,
		.interval_ns = (uint64_t)((double)m->interval * r->rate),
		.max_interval_ns = (uint64_t)((double)cyclock__setup.counts.max_int_cyc * r->rate),
		.ns_per_tick = r->rate,
		.hz_ppm = hz_ppm(r),
	};

	COPY(c.kernel_why, why);
	cyclock__record_put(WORDS(counts, next), &c, NWORDS(counts));
	cyclock_atomic_store(&kernel_why_of[next], why, CYCLOCK_RELAXED);
	cyclock__latch_bump(SEQ(counts_seq));
}

/* The latch's read side: the setup this process last wrote (whole: it is
 * written only before initialisation is done) and its counts, one write's,
 * without waiting for a writer, even one this call interrupted. */
void cyclock__status_own(struct cyclock__status_view *v)
{
	const CYCLOCK_ATOMIC(uint32_t) *seq = SEQ(counts_seq);
	uint32_t start;

	v->setup = &cyclock__status_block
			    .setup[cyclock_atomic_load(SEQ(setup_seq), CYCLOCK_ACQUIRE) & 1];
	do {
		start = cyclock__latch_begin(seq);
		cyclock__record_get(&v->counts, WORDS(counts, start & 1), NWORDS(counts));
		v->kernel_why = cyclock_atomic_load(&kernel_why_of[start & 1], CYCLOCK_RELAXED);
	} while (cyclock__latch_retry(seq, start));
	if (!v->kernel_why)
		v->kernel_why = "";
}
