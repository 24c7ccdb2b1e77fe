/* SPDX-License-Identifier: MIT */
/*
 * Harness 5, the status block's records (cyclock/latch.h's record, the
 * protocol src/linux/status.c runs on each part of cyclock/status.h): a
 * writer publishes WRITES writes of a record of WORDS words, each write's
 * words all its number (1, 2, 3), into the copy readers are not on, then
 * one bump; two readers read it READS times each, as cyclock_get_state()
 * does.  A reader that reads while the writer is between its stores and
 * its bump (a signal handler that interrupted it) is one of the orders
 * Relacy explores.
 *
 * Checked: every read is one write's (its words agree: 0 before the
 * first write), and a reader's reads never go back.
 */
#include "cyclock/core.h"
#include "model_run.hpp"

using namespace cyclock_model;

namespace {

enum { WRITER = 0 };
enum { WORDS = 3, WRITES = 3, READS = 3 };

struct record_test : rl::test_suite<record_test, 3> {
	static CYCLOCK_ATOMIC(uint32_t) seq;
	static CYCLOCK_ATOMIC(uint32_t) copies[2][WORDS];

	void before()
	{
		model_begin();
		model_go();
	}

	void writer()
	{
		for (uint32_t i = 1; i <= WRITES; i++) {
			uint32_t w[WORDS];

			for (unsigned k = 0; k < WORDS; k++)
				w[k] = i;
			cyclock__record_put(copies[cyclock__record_next(&seq)], w, WORDS);
			cyclock__latch_bump(&seq);
		}
	}

	void reader()
	{
		uint32_t last = 0;

		for (unsigned r = 0; r < READS; r++) {
			uint32_t w[WORDS], start;

			do {
				start = cyclock__latch_begin(&seq);
				cyclock__record_get(w, copies[start & 1], WORDS);
			} while (cyclock__latch_retry(&seq, start));
			for (unsigned k = 1; k < WORDS; k++)
				MODEL_CHECK(w[k] == w[0]); /* one write's */
			MODEL_CHECK(w[0] >= last);         /* never back */
			last = w[0];
		}
	}

	void thread(unsigned t)
	{
		if (t == WRITER)
			writer();
		else
			reader();
	}

	void after()
	{
		model_end();
	}
};

CYCLOCK_ATOMIC(uint32_t) record_test::seq;
CYCLOCK_ATOMIC(uint32_t) record_test::copies[2][WORDS];

} /* namespace */

int main(int argc, char **argv)
{
	options o = { 1000000, rl::sched_random, 0 };

	if (!parse_options(argc, argv, &o, "model_record"))
		return 2;
	return run<record_test>("model_record", "one writer, two readers", o) ? 0 : 1;
}
