/* SPDX-License-Identifier: MIT */
/*
 * Harness 4, cyclock_coarse() (src/linux/coarse.c over read.c and the
 * rest of harness 3's files, run as they are): two readers, each reading
 * cyclock_coarse() and cyclock_now() in turn, one a count of time apart,
 * the other two, while a writer resyncs the timeline.  The kernel's coarse
 * clock steps every 4 counts and runs ahead of cyclock_now()'s segments,
 * which lag the kernel's clock (model_world.hpp), so that the cap (a
 * value cyclock_now() returned, coarse.c's "below") is what keeps the
 * coarse clock behind.  In the second configuration a ticker runs
 * (cyclock_init(CYCLOCK_INIT_COARSE)'s thread, whose steps a harness
 * thread takes), and a read is one load of what it stored.
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
enum { READS = 3 };

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
		case READER_2:
			reader(t == READER_1 ? 1 : 2);
			break;
		case WRITER:
			cyclock__resync(&cyclock__tracks.mono, false, false);
			break;
		case TICKER:
			cyclock__coarse_tick();
			cyclock__coarse_tick();
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
