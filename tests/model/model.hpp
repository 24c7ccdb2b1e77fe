/* SPDX-License-Identifier: MIT */
/*
 * What every model harness shares (model.cpp): the library's Relacy
 * objects built and destroyed around each iteration, the model's time,
 * the stop points that abandon a writer, and the driver that runs a
 * harness under a chosen search.  docs/model.md says what each harness
 * checks and why its search is enough.
 *
 * A harness is a Relacy test suite whose before() calls model_begin()
 * first (every object of the library's built, time at 0), sets the
 * library up, then calls model_go() (the threads' steps counted from 0);
 * its after() checks what the threads left and calls model_end().
 */
#ifndef CYCLOCK_MODEL_HPP
#define CYCLOCK_MODEL_HPP

#include <stdint.h>

#include "model_atomic.hpp"

namespace cyclock_model {

enum { MAX_THREADS = 8 };

void model_begin();
void model_go();
void model_end();
void run_begin(); /* run()'s: the iterations are counted from 1 again */

/* Time: the model's counter, which only the harness moves. */
void tick(uint64_t n);
uint64_t now(); /* a counter read, as the library's (a relaxed load) */

/* Stop thread @thread before its @n-th step (1: its first access), by
 * throwing stopped from step(); 0: never.  Each step is one atomic
 * access or fence of the library's, or a counter read. */
void stop_at(unsigned thread, unsigned n);
unsigned steps(unsigned thread); /* taken so far in this iteration */
unsigned thread_index();

/* A uniformly chosen number below @n, explored by the scheduler. */
unsigned choose(unsigned n);

/* The harness's own synchronisation, outside the library's steps: one
 * more arrival at @gate (a release), and a wait until @n have arrived (an
 * acquire, spinning as the scheduler sees). */
void arrive(atomic<unsigned> *gate);
void wait_until(atomic<unsigned> *gate, unsigned n);

/* How a harness's main() runs it (model_run.hpp's run()). */
struct options {
	unsigned long long iterations;
	int search; /* rl::scheduler_type_e */
	unsigned bound; /* the context bound scheduler's */
};
bool parse_options(int argc, char **argv, options *o, const char *name);

} /* namespace cyclock_model */

/* A harness's check, @cond evaluated once: fails the iteration with
 * Relacy's trace, and says at once what failed, and in which iteration
 * (should Relacy's replay of it not fail again, the trace would say
 * nothing). */
namespace cyclock_model {
void check_failed(const char *what, const char *file, int line);
}
#define MODEL_CHECK(cond)                                                             \
	do {                                                                          \
		bool model_ok_ = (cond);                                              \
		if (!model_ok_)                                                       \
			cyclock_model::check_failed(#cond, __FILE__, __LINE__);       \
		RL_ASSERT_IMPL(model_ok_, rl::test_result_user_assert_failed,         \
			       "assertion: " #cond, RL_INFO);                         \
	} while (0)

#endif /* CYCLOCK_MODEL_HPP */
