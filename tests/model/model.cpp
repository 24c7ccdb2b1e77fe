/* SPDX-License-Identifier: MIT */
/* What every model harness shares: model.hpp says what. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.hpp"
#include "model_arch.h"

namespace cyclock_model {

static object *enrolled;
static bool built;
static unsigned step_count[MAX_THREADS], stop_step[MAX_THREADS];
static bool counting;

void enroll(object *o)
{
	o->next_ = enrolled;
	enrolled = o;
	if (built) /* a function's static, first met in an iteration */
		o->build();
}

static unsigned long long iterations; /* of the configuration under way */

void run_begin()
{
	iterations = 0;
}

void check_failed(const char *what, const char *file, int line)
{
	fprintf(stderr, "model: %s:%d: check failed: %s (iteration %llu)\n", file, line, what,
		iterations);
}

void relacy_failed(const char *desc, int result)
{
	fprintf(stderr, "model: Relacy: %s%s%s%s (iteration %llu)\n",
		rl::test_result_str((rl::test_result_e)result), desc && *desc ? " (" : "",
		desc ? desc : "", desc && *desc ? ")" : "", iterations);
}

void model_begin()
{
	iterations++;
	for (object *o = enrolled; o; o = o->next_)
		o->build();
	built = true;
	counting = false;
}

void model_go()
{
	memset(step_count, 0, sizeof(step_count));
	memset(stop_step, 0, sizeof(stop_step));
	counting = true;
}

void model_end()
{
	counting = false;
	for (object *o = enrolled; o; o = o->next_)
		o->destroy();
	built = false;
}

unsigned thread_index()
{
	return (unsigned)rl::ctx().current_thread();
}

void step(rl::debug_info_param info)
{
	unsigned t;

	(void)info;
	if (!counting)
		return;
	t = thread_index();
	if (++step_count[t] == stop_step[t])
		throw stopped();
}

void stop_at(unsigned thread, unsigned n)
{
	stop_step[thread] = n;
}

unsigned steps(unsigned thread)
{
	return step_count[thread];
}

unsigned choose(unsigned n)
{
	return rl::rand(n);
}

void arrive(atomic<unsigned> *gate)
{
	gate->get().fetch_add(1, rl::mo_release, $);
}

void wait_until(atomic<unsigned> *gate, unsigned n)
{
	while (gate->get().load(rl::mo_acquire, $) < n)
		rl::yield(1, $);
}

static atomic<uint64_t> model_time;

void tick(uint64_t n)
{
	fetch_add(&model_time, n, rl::mo_relaxed, $);
}

uint64_t now()
{
	return load(&model_time, rl::mo_relaxed, $);
}

bool parse_options(int argc, char **argv, options *o, const char *name)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		char *end;

		if (!strcmp(a, "--iterations") && v) {
			o->iterations = strtoull(v, &end, 10);
			if (*end || !*v)
				goto bad;
		} else if (!strcmp(a, "--search") && v) {
			if (!strcmp(v, "random"))
				o->search = rl::sched_random;
			else if (!strcmp(v, "bound"))
				o->search = rl::sched_bound;
			else if (!strcmp(v, "full"))
				o->search = rl::sched_full;
			else
				goto bad;
		} else if (!strcmp(a, "--bound") && v) {
			o->bound = (unsigned)strtoul(v, &end, 10);
			if (*end || !*v)
				goto bad;
		} else {
			goto bad;
		}
		i++;
		continue;
bad:
		fprintf(stderr,
			"usage: %s [--search random|bound|full] [--iterations N] [--bound K]\n"
			"  (random: N iterations; bound: at most K preemptions; both\n"
			"  bound and full search every schedule they allow)\n",
			name);
		return false;
	}
	return true;
}

} /* namespace cyclock_model */

/* The library's counter, in the model (model_arch.h). */
uint64_t cyclock_model_counter(void)
{
	return cyclock_model::now();
}
