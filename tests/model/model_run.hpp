/* SPDX-License-Identifier: MIT */
/*
 * A harness's main(): run(), once per configuration, with Relacy's whole
 * runtime (only the file that calls it includes this: Relacy's mutexes
 * and threads are not the library's).
 */
#ifndef CYCLOCK_MODEL_RUN_HPP
#define CYCLOCK_MODEL_RUN_HPP

#include <stdio.h>
#include <time.h>

#include <iostream>

#include <relacy/stdlib/condition_variable.hpp>
#include <relacy/stdlib/event.hpp>
#include <relacy/stdlib/mutex.hpp>
#include <relacy/stdlib/semaphore.hpp>
#include <relacy/test_suite.hpp>

#include "model.hpp"

namespace cyclock_model {

/*
 * Where Relacy's report goes: its first HEAD bytes (what failed, at which
 * iteration) and its last TAIL bytes, kept in a ring, written out at the
 * end.  On a failure Relacy replays from its last checkpoint with every
 * event recorded, up to thousands of iterations before the failing one,
 * which comes last: head and tail are the parts to read, and the log
 * stays small.  Relacy's operator new, which every file that includes it
 * gets, is not the C++ library's, so these are fixed arrays, not a string
 * stream (one would free what the other allocated).
 */
class report_buf : public std::streambuf {
	enum { HEAD = 4096, TAIL = 256 * 1024 };
	char head_[HEAD], ring_[TAIL];
	unsigned long long written_ = 0;

protected:
	int_type overflow(int_type c) override
	{
		if (c == traits_type::eof())
			return c;
		if (written_ < HEAD)
			head_[written_] = (char)c;
		ring_[written_++ % TAIL] = (char)c;
		return c;
	}

public:
	void flush_to(FILE *f)
	{
		unsigned long long from = written_ > TAIL ? written_ - TAIL : 0;

		if (from) {
			fwrite(head_, 1, HEAD, f);
			fprintf(f, "\n[... %llu bytes of Relacy's report left out ...]\n", from - HEAD);
			from = from > (unsigned long long)HEAD ? from : (unsigned long long)HEAD;
		}
		for (unsigned long long i = from; i < written_; i++)
			fputc(ring_[i % TAIL], f);
		written_ = 0;
	}
	void reset() { written_ = 0; }
};

static inline const char *search_name(int s)
{
	return s == rl::sched_full ? "full" : s == rl::sched_bound ? "context bound" : "random";
}

/* Run test suite @T (@what names the configuration) under @o; after
 * Relacy's own report (on a failure, its trace: the tail of it), prints
 * one line, "<name>: <what>: <search> search, N iterations, T s: ok" (or
 * FAILED).  A suite that expects a failure (a limit the docs state)
 * passes when Relacy finds it, and then prints no trace: its line says at
 * which iteration.  true if it passed. */
template <typename T> bool run(const char *name, const char *what, const options &o)
{
	static report_buf tail;
	std::ostream report(&tail), discard(nullptr);
	struct timespec t0, t1;
	bool expected_fail = T::params::expected_result != rl::test_result_success, ok;
	rl::test_params p;

	p.search_type = (rl::scheduler_type_e)o.search;
	p.iteration_count = o.iterations;
	p.context_bound = o.bound;
	p.execution_depth_limit = 20000;
	p.output_stream = expected_fail ? &discard : &report;
	p.progress_stream = &discard;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	run_begin();
	ok = rl::simulate<T>(p);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	report.flush();
	if (!ok)
		tail.flush_to(stdout);
	tail.reset();
	printf("%s: %s: %s search, %llu iterations, %.1f s: %s%s%s\n", name, what,
	       search_name(o.search), (unsigned long long)p.stop_iteration,
	       (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9,
	       !ok ? "FAILED (" : expected_fail ? "ok (found, as expected: " : "ok",
	       ok && !expected_fail ? "" : rl::test_result_str(p.test_result),
	       ok && !expected_fail ? "" : ")");
	fflush(stdout);
	return ok;
}

} /* namespace cyclock_model */

#endif /* CYCLOCK_MODEL_RUN_HPP */
