/* SPDX-License-Identifier: MIT */
/*
 * Harness 4, cyclock_coarse() (src/linux/coarse.c over read.c and the
 * rest of harness 3's files, run as they are): two readers, each reading
 * cyclock_coarse() and cyclock_now() in turn, while a writer resyncs the
 * timeline twice.  The kernel's coarse clock here steps every count, so
 * it is the kernel's clock itself, ahead of cyclock_now()'s segments,
 * which lag it (model_world.hpp): the cap (a value cyclock_now()
 * returned, coarse.c's "below") is what keeps every coarse value behind.
 * One reader moves time, two counts before each read; the other does not,
 * so that its view of the timeline may be older than the cap another
 * thread set.  In the second configuration a ticker runs
 * (cyclock_init(CYCLOCK_INIT_COARSE)'s thread, whose steps a harness
 * thread takes), and alone moves time, two counts before each step; a
 * read is then one load of what it stored.
 *
 * Checked, on each reader's own sequence (so that nothing the harness
 * adds orders the threads for the library): a coarse value never goes
 * back, and no cyclock_now() after it is below it, nor below the
 * cyclock_now() before it.
 */
#include "model_world.hpp"
#include "model_run.hpp"

using namespace cyclock_model;

namespace {

enum { READER_1, READER_2, WRITER, TICKER };
enum { READS = 3, RESYNCS = 2 };

template <bool TICKS> struct coarse_test : rl::test_suite<coarse_test<TICKS>, TICKS ? 4 : 3> {
	void before()
	{
		model_begin();
		hosted_begin();
		if (TICKS)
			MODEL_CHECK(cyclock__coarse_start());
		model_go();
	}

	void reader(uint64_t gap)
	{
		uint64_t coarse = 0, now = 0, v;

		for (unsigned i = 0; i < READS; i++) {
			if (gap)
				tick(gap);
			v = cyclock_coarse();
			MODEL_CHECK(v >= coarse); /* the coarse clock never goes back */
			coarse = v;
			v = cyclock_now();
			MODEL_CHECK(v >= coarse); /* and is never ahead of cyclock_now() */
			MODEL_CHECK(v >= now);
			now = v;
		}
	}

	void thread(unsigned t)
	{
		switch (t) {
		case READER_1:
			reader(2);
			break;
		case READER_2:
			reader(0);
			break;
		case WRITER:
			for (unsigned i = 0; i < RESYNCS; i++)
				cyclock__resync(&cyclock__tracks.mono, false, false);
			break;
		case TICKER:
			for (unsigned i = 0; i < 2; i++) {
				tick(2);
				cyclock__coarse_tick();
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

	if (!parse_options(argc, argv, &o, "model_coarse"))
		return 2;
	ok = run<coarse_test<false>>("model_coarse", "the cap, no ticker", o);
	ok = run<coarse_test<true>>("model_coarse", "a ticker", o) && ok;
	return ok ? 0 : 1;
}
