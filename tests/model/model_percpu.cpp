/* SPDX-License-Identifier: MIT */
/*
 * Harness 2, the per-CPU unstable mode (src/core/percpu.c over the
 * engine's clock.c, run as they are): two CPUs' readers, each reading its
 * own CPU's clock, ticking it once (as the hosted library's
 * cyclock_local() ticks lazily) and once reading the other's (which
 * couples the two); and a third thread that switches the clock to
 * unstable mode and ticks both CPUs, with the reference (the kernel's
 * CLOCK_MONOTONIC) at twice the raw clock's rate.  Once switched, CPU
 * 1's counter runs at twice CPU 0's: the CPUs disagree, which is what the
 * mode is for.  (Before, they agree: a switch steps a CPU whose counter
 * ran ahead of the switching CPU's back by its lead, as the kernel's
 * does, which clones the switching CPU's stamp to every CPU.)
 *
 * Checked: no reader sees its CPU's clock go back (its own reads, the
 * remote one among them), nor a value off the scale the switch's offset
 * keeps it on (a reader that found the new mode but not the offset it
 * publishes would be a thousand ahead).  And the per-CPU clock's setup (struct
 * cyclock_percpu's raw, slot, nr_cpus, tick_ns) is CYCLOCK_SHARED: read
 * unordered with the init that wrote it, it is a race.
 *
 * Two configurations.  In the first, the switching thread alone moves
 * time, so that no reader's counter read falls inside the switch: its
 * stamps, offset and release of the mode are checked against readers at
 * every step of it.  In the second the readers move time too, and one
 * may read the raw clock inside the switch yet find the stable mode
 * still, so that it hands out a stable value no slot records: C11 lets
 * that reader's look at the mode come before the switch's store is
 * visible to it however the switch is fenced, unless the reader fences
 * too, on every stable read.  There the reference runs at half the raw
 * rate, so that the next tick pulls the CPU's clock down to what its slot
 * records, and the tick is long, so that only this shows.  The harness
 * expects Relacy to find that step back (core.h: switch with no reader
 * running, as the kernel's switch does with every CPU stopped);
 * docs/model.md.
 */
#include <string.h>

#include "cyclock/core.h"
#include "model_run.hpp"

using namespace cyclock_model;

namespace {

enum { CPU0 = 0, CPU1 = 1, SWITCHER = 2, READS = 4 };

unsigned cpu_of[MAX_THREADS]; /* the CPU each thread runs on */
uint64_t drift_from;           /* the time the switch returned; 0: before */

/* The raw counter, 1 ns a count; CPU 1's at twice that once switched. */
uint64_t read_raw(const struct cyclock_source *src)
{
	uint64_t t = now();

	(void)src;
	if (cpu_of[thread_index()] == CPU1 && drift_from && t > drift_from)
		t += t - drift_from;
	return t;
}

const struct cyclock_source raw_src = { "raw", read_raw, nullptr, 1000000000, 64, 1 };

/* The reference (CLOCK_MONOTONIC to the kernel): twice the raw rate and
 * far from it (the switch's offset joins the two, so that values stay
 * below FAR); or half the raw rate, so that a tick's stamp pulls the
 * CPU's clock back to the last value it handed out. */
enum { FAR = 1000 };
template <bool SLOW> uint64_t reference()
{
	return SLOW ? now() / 2 : 2 * now() + FAR;
}

template <bool READERS_TICK>
struct percpu_test
	: rl::test_suite<percpu_test<READERS_TICK>, 3,
			 READERS_TICK ? rl::test_result_user_assert_failed : rl::test_result_success> {
	static struct cyclock raw;
	static struct cyclock_percpu pc;
	static struct cyclock_percpu_slot slots[2];
	/* A tick the switch's window never outlasts, in the second. */
	static constexpr uint64_t tick_ns = READERS_TICK ? 100 : 4;

	void before()
	{
		model_begin();
		memset(cpu_of, 0, sizeof(cpu_of));
		cpu_of[CPU1] = CPU1;
		drift_from = 0;
		MODEL_CHECK(cyclock_register(&raw, &raw_src) == 0);
		MODEL_CHECK(cyclock_percpu_init(&pc, &raw, slots, 2, tick_ns) == 0);
		tick(5);
		model_go();
	}

	void tick_cpu(unsigned cpu)
	{
		cpu_of[SWITCHER] = cpu;
		MODEL_CHECK(cyclock_percpu_tick(&pc, cpu, reference<READERS_TICK>()) == 0);
	}

	void switcher()
	{
		tick(2);
		MODEL_CHECK(cyclock_percpu_set_unstable(&pc, CPU0, reference<READERS_TICK>()) == 0);
		drift_from = now();
		tick(1);
		tick_cpu(CPU0);
		tick_cpu(CPU1);
		tick(3);
		tick_cpu(CPU1);
		tick_cpu(CPU0);
	}

	void reader(unsigned cpu)
	{
		uint64_t last = 0, v;

		for (unsigned i = 0; i < READS; i++) {
			if (READERS_TICK)
				tick(1);
			if (i == 2)
				MODEL_CHECK(cyclock_percpu_tick(&pc, cpu, reference<READERS_TICK>()) ==
					    0);
			v = i == 3 ? cyclock_percpu_read_remote(&pc, cpu, !cpu)
				   : cyclock_percpu_read(&pc, cpu);
			MODEL_CHECK(v >= last); /* this CPU's clock never goes back */
			MODEL_CHECK(v < FAR);   /* nor leaves the raw clock's scale */
			last = v;
		}
	}

	void thread(unsigned t)
	{
		if (t == SWITCHER)
			switcher();
		else
			reader(t);
	}

	void after()
	{
		model_end();
	}
};

template <bool R> struct cyclock percpu_test<R>::raw;
template <bool R> struct cyclock_percpu percpu_test<R>::pc;
template <bool R> struct cyclock_percpu_slot percpu_test<R>::slots[2];

} /* namespace */

int main(int argc, char **argv)
{
	options o = { 1000000, rl::sched_random, 0 };
	bool ok;

	if (!parse_options(argc, argv, &o, "model_percpu"))
		return 2;
	ok = run<percpu_test<false>>("model_percpu", "two CPUs, a switch and ticks", o);
	ok = run<percpu_test<true>>("model_percpu",
				    "readers inside the switch (a step back expected)", o) && ok;
	return ok ? 0 : 1;
}
