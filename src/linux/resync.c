/* SPDX-License-Identifier: MIT */
/*
 * A resync, the writer's side of the timelines' protocol: sample the
 * kernel's clock against the counter, take the writer flag, let
 * cyclock__decide() (track.c) say what the timeline publishes next, and
 * publish it (cyclock__publish(), segment.c).  Which read resyncs, and why a writer abandoned anywhere
 * leaves nothing to repair, are docs/hosted.md's ("Tracking the kernel's
 * clocks").  The model checker runs this file as it is
 * (tests/model/model_publish.cpp, docs/model.md).
 *
 * Tests, besides the model: tests/linux/sim_preempt.c (a writer stalled at
 * each step), sim_bookkeeping.c (a publish that does not take counts
 * nothing), validate_timeline.c and validate_timeline_signal.c (resyncs
 * under readers and signals), test_abandoned.c and test_first_call.c (a
 * resync abandoned).
 */
#include "internal.h"

/*
 * One timeline's resync at sample @s: the decision, made on a copy of the
 * track, then one publish; the copy's state becomes the track's, and an
 * anomaly is counted, only if the publish took (it may not:
 * cyclock__publish()).  So a resync, a spell, a strike or an anomaly is
 * counted only when readers were handed what it decided.  What the track
 * is (its timeline, its clock: read by threads without the flag) is not
 * written again.  The caller holds the writer flag.
 */
static void track_resync(struct cyclock__track *tr, const struct cyclock__sample *s,
			 const uint64_t *off, bool went_back)
{
	struct cyclock__segv cur = cyclock__seg_load(tr->tl);
	struct cyclock__track next = *tr;
	struct cyclock__decision d;
	bool took;

	if (tr->raw == tr) /* RAW's track is its own rate's */
		next.raw = &next;
	d = cyclock__decide(&next, &cur, s, cyclock__ordered(), off, went_back);
	took = d.what == CYCLOCK__FRESH ? cyclock__start_fresh(&next, s, &d.seg)
					: cyclock__publish(tr->tl, &d.seg);
	if (!took)
		return;
	tr->state = next.state;
	if (d.counter_wrong)
		cyclock_atomic_fetch_add(&cyclock__tracks.anomalies, 1, CYCLOCK_RELAXED);
	cyclock__status_counts(tr, s->ns, d.what == CYCLOCK__KERNEL);
}

/*
 * The writer flag holds the process id of its holder: one left behind by
 * a thread of another process is taken over.  Its holder left the copies
 * readers use whole (segment.c).  A child of a raw fork system call
 * caches its parent's id, which its parent's threads left on the flag:
 * only an explicit call (@asked: cyclock_resync(), initialisation's)
 * asks the kernel whose it is; a read makes no system call, and leaves a
 * flag that names its own cached id to its holder.
 */
bool cyclock__writer_try(bool asked)
{
	uint32_t held = 0, me = cyclock__pid();

	if (!me) /* before load: no resync yet */
		return false;
	if (cyclock_atomic_cas(&cyclock__host.writer, &held, me, CYCLOCK_ACQUIRE, CYCLOCK_RELAXED))
		return true;
	if (held == me && (!asked || (me = cyclock__pid_fresh()) == held))
		return false; /* one of our threads' */
	if (!cyclock_atomic_cas(&cyclock__host.writer, &held, me, CYCLOCK_ACQUIRE,
				CYCLOCK_RELAXED))
		return false;
	return true;
}

/* Whether flag value @held is one of our threads': our cached id, and,
 * for an explicit call (@asked), the kernel's. */
bool cyclock__writer_ours(uint32_t held, bool asked)
{
	return held == cyclock__pid() && (!asked || held == cyclock__pid_fresh());
}

void cyclock__writer_done(void)
{
	cyclock_atomic_store(&cyclock__host.writer, 0, CYCLOCK_RELEASE);
}

/*
 * The resync at sample @s (and offsets @o, read with it, unless NULL)
 * under the writer flag, which it takes and gives back: false if another
 * has it.  @seq0: the timeline's sequence before the sample.
 */
static bool resync_flagged(struct cyclock__track *tr, const struct cyclock__sample *s,
			   const struct cyclock__offsets *o, uint32_t seq0, bool went_back,
			   bool asked)
{
	uint64_t off[2];

	if (!cyclock__writer_try(asked))
		return false;
	/* Another thread published since the sample: it was the resync. */
	if (CYCLOCK__SEQ(cyclock_atomic_load(&tr->tl->seq, CYCLOCK_RELAXED)) != seq0) {
		cyclock__writer_done();
		return true;
	}
	if (o) {
		cyclock_atomic_store(&cyclock__host.pending, 0, CYCLOCK_RELAXED);
		cyclock__offsets_apply(o, false);
		cyclock_atomic_store(&cyclock__tracks.offsets_ns, s->ns, CYCLOCK_RELAXED);
	}
	off[0] = TRACKS_OFF(off_real);
	off[1] = TRACKS_OFF(off_boot);
	track_resync(tr, s, tr->id == CLOCK_MONOTONIC ? off : NULL, went_back);
	cyclock__writer_done();
	return true;
}

/*
 * A resync of @tr, unless another thread is at one (false); @went_back: a
 * reader saw the counter far before the segment, so leave it.  The kernel
 * is read before the flag is taken, so the flag is held for a few hundred
 * ns.  A reader's resync makes no system call: a handler that longjmps
 * out of it, or a cancel, leaves the flag taken and the copies readers
 * use whole, so the process's reads past the horizon serve the kernel's
 * clock from then on (correct, at its cost).  cyclock_resync() and
 * initialisation, which may be cancelled at will, are @shielded
 * (cyclock__shield(): two system calls) and leave nothing taken.
 */
bool cyclock__resync(struct cyclock__track *tr, bool went_back, bool shielded)
{
	struct cyclock__sample s;
	struct cyclock__offsets o;
	bool mono = tr->id == CLOCK_MONOTONIC, offsets, done;
	struct cyclock__shield shield;
	uint32_t seq0 = CYCLOCK__SEQ(cyclock_atomic_load(&tr->tl->seq, CYCLOCK_RELAXED));

	if (cyclock__writer_ours(cyclock_atomic_load(&cyclock__host.writer, CYCLOCK_RELAXED),
				 shielded))
		return false; /* another of our threads is at it */
	offsets = mono && (cyclock_atomic_load(&cyclock__host.pending, CYCLOCK_RELAXED) ||
			   cyclock__kernel_ns(CLOCK_MONOTONIC) -
					   cyclock_atomic_load(&cyclock__tracks.offsets_ns,
							       CYCLOCK_RELAXED) >=
				   CYCLOCK_OFFSETS_NS);
	if (offsets)
		cyclock__offsets_read(&o, false);
	cyclock__sample(tr->id, &s);
	if (!shielded)
		return resync_flagged(tr, &s, offsets ? &o : NULL, seq0, went_back, false);
	cyclock__shield(&shield);
	done = resync_flagged(tr, &s, offsets ? &o : NULL, seq0, went_back, true);
	cyclock__unshield(&shield);
	return done;
}

/* cyclock_resync(): both timelines now. */
void cyclock__resync_all(void)
{
	cyclock_atomic_store(&cyclock__host.pending, 1, CYCLOCK_RELAXED);
	cyclock__resync(&cyclock__tracks.mono, false, true);
	cyclock__resync(&cyclock__tracks.raw, false, true);
}
