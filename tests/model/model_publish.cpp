/* SPDX-License-Identifier: MIT */
/*
 * Harness 3, the hosted timelines' publish (src/linux/segment.c, read.c,
 * resync.c and sample.c, run as they are, over model_world.cpp): two
 * writers race to resync CLOCK_MONOTONIC's timeline, one through
 * cyclock_resync() (both timelines, the offsets measured and applied
 * under the writer flag), one as a reader's resync does; meanwhile a
 * reader reads cyclock_now() a count apart, on the fast path while a
 * segment lasts, and once reads a whole copy through the latch
 * (cyclock__seg_load(), the slow path's and the writers' read), and
 * another reads after gaps longer than a segment, where it resyncs or is
 * served the kernel's clock and counts itself in the sequence word.
 * Segments run slower than the kernel's clock, so that served values are
 * above the floor and a writer whose sample is older than one must raise
 * its segment.  In the second configuration a third writer stops at one
 * of its steps, each in turn across the iterations (its every atomic
 * access, fence and counter read, from its first look at the flag to the
 * flag's release), and never comes back.
 *
 * Checked: no reader is handed a value below one that any thread was
 * handed before it (the readers pass the most they were handed on
 * through a release and an acquire, as a program's lock would); a whole
 * copy read through the latch is one the writer wrote (the model's
 * segments carry a checksum of their fields); the offsets that writers
 * leave each other under the flag are CYCLOCK_SHARED (a race if not
 * ordered by it); and, with a writer abandoned anywhere, all of it still
 * holds for every later read, and nobody waits for it.
 */
#include "model_world.hpp"
#include "model_run.hpp"

using namespace cyclock_model;

namespace {

enum { WRITER_A, WRITER_B, FAST, PAST, ABANDONED };
enum { FAST_READS = 3, PAST_READS = 2, STOPS = 100 };

/* The most any reader was handed, passed on with a release. */
atomic<uint64_t> handed;

/* Across the iterations: the steps the abandoned writer was stopped at,
 * and the most a complete resync of its took (for the count main()
 * prints: every step was a stop point). */
bool stopped_at[STOPS + 1];
unsigned longest;

/* A read of cyclock_now() after an acquire of what was handed before. */
uint64_t read_checked()
{
	uint64_t before = handed.get().load(rl::mo_acquire, $), v = cyclock_now(), seen;

	MODEL_CHECK(v >= before);
	seen = handed.get().load(rl::mo_relaxed, $);
	while (seen < v && !handed.get().compare_exchange_weak(seen, v, rl::mo_release, $,
								   rl::mo_relaxed, $))
		;
	return v;
}

template <bool ABANDON>
struct publish_test : rl::test_suite<publish_test<ABANDON>, ABANDON ? 5 : 4> {
	unsigned stop;

	void before()
	{
		model_begin();
		hosted_begin();
		stop = ABANDON ? 1 + choose(STOPS) : 0;
		model_go();
		stop_at(ABANDONED, stop);
	}

	void thread(unsigned t)
	{
		switch (t) {
		case WRITER_A:
			cyclock_resync();
			break;
		case WRITER_B:
			cyclock__resync(&cyclock__tracks.mono, false, false);
			break;
		case FAST:
			for (unsigned i = 0; i < FAST_READS; i++) {
				struct cyclock__segv v;

				tick(1);
				read_checked();
				if (i == 1) {
					v = cyclock__seg_load(&cyclock__mono);
					MODEL_CHECK(v.drift_ppb == checksum(&v));
				}
			}
			break;
		case PAST:
			for (unsigned i = 0; i < PAST_READS; i++) {
				tick(MODEL_HORIZON + 2);
				read_checked();
			}
			break;
		case ABANDONED:
			try {
				cyclock__resync(&cyclock__tracks.mono, false, false);
				longest = steps(ABANDONED) > longest ? steps(ABANDONED) : longest;
			} catch (stopped &) {
				stopped_at[stop] = true;
			}
			break;
		}
	}

	void after()
	{
		model_end();
	}
};

} /* namespace */

int main(int argc, char **argv)
{
	options o = { 1000000, rl::sched_random, 0 };
	bool ok;

	if (!parse_options(argc, argv, &o, "model_publish"))
		return 2;
	ok = run<publish_test<false>>("model_publish", "two writers, two readers", o);
	ok = run<publish_test<true>>("model_publish", "and a writer abandoned at any step", o) &&
	     ok;
	unsigned covered = 0, upto = 0;

	while (upto < STOPS && stopped_at[upto + 1])
		upto++;
	for (unsigned i = 1; i <= STOPS; i++)
		covered += stopped_at[i];
	printf("model_publish: the abandoned writer stopped at %u of its steps, every one of 1..%u;"
	       " a whole resync of its took %u\n",
	       covered, upto, longest);
	/* Every step of a whole resync must have been a stop point. */
	if (upto < longest) {
		printf("model_publish: FAILED: steps %u..%u never stopped at\n", upto + 1, longest);
		ok = false;
	}
	return ok ? 0 : 1;
}
