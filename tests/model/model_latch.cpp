/* SPDX-License-Identifier: MIT */
/*
 * Harness 1, the engine's latch (cyclock/latch.h, src/core/clock.c, run
 * as they are): a writer updates a clock over a 4-bit counter through
 * several epochs and wraps, suspends it while the counter runs on and
 * wraps, resumes it and switches it to another source, while two readers
 * read (one on a CPU whose counter lags by a count, which the engine
 * clamps).  In the second configuration a second writer updates too, as
 * the hosted library's lazy updates from any thread do.
 *
 * Checked: every value a reader returns is the clock's value at the
 * counter it read, in one of the phases the writer went through
 * (running from a start, frozen, on the other source): an epoch whose
 * fields came from two updates gives a value off by the updates' distance,
 * which no phase has.  Each reader's values never go back.  And the
 * writers' own fields (struct cyclock_cold) are CYCLOCK_SHARED: read by a
 * writer not ordered after the last write, Relacy reports a data race.
 *
 * The counters' rates make the conversion exact (10 and 20 ns a count),
 * so the clock's value is known without the library's arithmetic.
 */
#include <string.h>

#include "cyclock/core.h"
#include "model_run.hpp"

using namespace cyclock_model;

namespace {

enum { WRITER = 0, READER_A = 1, READER_B = 2, WRITER_2 = 3 };
enum { READS = 4, MAX_PHASES = 8 };

uint64_t last_time[MAX_THREADS]; /* the time each thread's last counter read saw */
const struct cyclock_source *source_a, *source_b;

/* A counter of @src->bits, read as a board's would be: its low bits.
 * READER_B's CPU reads it a count late. */
uint64_t read_counter(const struct cyclock_source *src)
{
	unsigned t = thread_index();
	uint64_t time = now();

	if (t == READER_B && time)
		time--;
	last_time[t] = time;
	return time & ((1ull << src->bits) - 1);
}

/* Each source's own read: the engine hands it its own source, which a
 * board's read uses (its timer's address in priv), never another's. */
uint64_t read_a(const struct cyclock_source *src)
{
	MODEL_CHECK(src == source_a);
	return read_counter(source_a);
}

uint64_t read_b(const struct cyclock_source *src)
{
	MODEL_CHECK(src == source_b);
	return read_counter(source_b);
}

/* A stretch of the clock's life: from @start_ns at time @start, @rate ns
 * a count, or standing still at @start_ns. */
struct phase {
	uint64_t start_ns, start;
	uint64_t rate; /* 0: frozen */
};

struct observation {
	uint64_t ns, time;
};

/* Two counters: @bits at 10 ns a count, and one more bit at 20 ns a
 * count and a higher rating, for the switch. */
template <unsigned BITS> struct sources {
	static constexpr struct cyclock_source a = { "a", read_a, nullptr, 100000000, BITS, 1 };
	static constexpr struct cyclock_source b = { "b", read_b, nullptr, 50000000, BITS + 1, 2 };
};

/*
 * With one writer, which alone moves time, the 4-bit counter wraps
 * between epochs.  With two, 16 bits: a second writer whose counter read
 * is stale (C11 lets it be, however far time has moved, where a machine's
 * is nanoseconds late) holds the flag while the first one's updates
 * return at once, and the epoch can then grow older than the wrap
 * interval, the engine's one timing rule (core.h), not its ordering.
 */
template <unsigned WRITERS, unsigned BITS = (WRITERS > 1 ? 16 : 4)>
struct latch_test : rl::test_suite<latch_test<WRITERS, BITS>, 3 + (WRITERS > 1)> {
	static constexpr const struct cyclock_source &a = sources<BITS>::a;
	static constexpr const struct cyclock_source &b = sources<BITS>::b;

	phase phases[MAX_PHASES];
	unsigned nr_phases;
	observation seen[MAX_THREADS][2 * READS];

	static struct cyclock clk;
	/* The suspend's rule (core.h): no reader runs meanwhile. */
	static atomic<unsigned> paused, suspended;

	void before()
	{
		model_begin();
		memset(last_time, 0, sizeof(last_time));
		source_a = &a;
		source_b = &b;
		MODEL_CHECK(cyclock_register(&clk, &a) == 0);
		phases[0] = { 0, 0, 10 };
		nr_phases = 1;
		model_go();
	}

	/* The writer's value of the clock now, from the phase it is in. */
	uint64_t expected(uint64_t time) const
	{
		const phase &p = phases[nr_phases - 1];

		return p.start_ns + p.rate * (time - p.start);
	}

	void add_phase(uint64_t start_ns, uint64_t rate)
	{
		phases[nr_phases++] = { start_ns, now(), rate };
	}

	void update_after(uint64_t counts)
	{
		tick(counts);
		cyclock_update(&clk);
	}

	void writer()
	{
		update_after(3);
		update_after(3);
		update_after(3);
		update_after(2); /* 11 counts: the 4-bit counter has wrapped */
		wait_until(&paused, 2);
		cyclock_suspend(&clk);
		add_phase(expected(now()), 0);
		arrive(&suspended);
		tick(9); /* suspended: the counter runs on, wraps, nobody updates */
		cyclock_resume(&clk);
		add_phase(phases[nr_phases - 1].start_ns, 10);
		update_after(3);
		/* The new source is read first, then the clock: no step. */
		MODEL_CHECK(cyclock_register(&clk, &b) == 0);
		add_phase(expected(now()), 20);
		update_after(3);
	}

	/* READS reads before the suspend, READS during and after it. */
	void reader(unsigned t)
	{
		uint64_t last = 0;

		for (unsigned i = 0; i < 2 * READS; i++) {
			uint64_t v;

			if (i == READS) {
				arrive(&paused);
				wait_until(&suspended, 1);
			}
			v = cyclock_read(&clk);
			MODEL_CHECK(v >= last); /* a reader's values never go back */
			seen[t][i] = { v, last_time[t] };
			last = v;
		}
	}

	void thread(unsigned t)
	{
		if (t == WRITER)
			writer();
		else if (t == WRITER_2)
			for (unsigned i = 0; i < 3; i++)
				cyclock_update(&clk);
		else
			reader(t);
	}

	/* Whether @o is the clock in some phase at the counter it read (or,
	 * on the lagging CPU, clamped to an epoch a count later). */
	bool consistent(const observation &o, unsigned t) const
	{
		for (unsigned i = 0; i < nr_phases; i++) {
			const phase &p = phases[i];

			if (!p.rate) {
				if (o.ns == p.start_ns)
					return true;
				continue;
			}
			for (uint64_t late = 0; late <= (t == READER_B); late++) {
				uint64_t time = o.time + late;

				if (time >= p.start && o.ns == p.start_ns + p.rate * (time - p.start))
					return true;
			}
		}
		return false;
	}

	void after()
	{
		for (unsigned t = READER_A; t <= READER_B; t++)
			for (unsigned i = 0; i < 2 * READS; i++)
				MODEL_CHECK(consistent(seen[t][i], t));
		model_end();
	}
};

template <unsigned W, unsigned B> struct cyclock latch_test<W, B>::clk;
template <unsigned W, unsigned B> atomic<unsigned> latch_test<W, B>::paused;
template <unsigned W, unsigned B> atomic<unsigned> latch_test<W, B>::suspended;

} /* namespace */

int main(int argc, char **argv)
{
	options o = { 1000000, rl::sched_random, 0 };
	bool ok;

	if (!parse_options(argc, argv, &o, "model_latch"))
		return 2;
	ok = run<latch_test<1>>("model_latch", "one writer, two readers", o);
	ok = run<latch_test<2>>("model_latch", "two writers, two readers", o) && ok;
	return ok ? 0 : 1;
}
