/* SPDX-License-Identifier: MIT */
/*
 * The latch clock: register, read, update, suspend and resume, after the
 * kernel's kernel/time/sched_clock.c.
 *
 * Every change goes through latch_write(): the epoch always, the
 * read-mostly copies only when the source or the mode changes, so the
 * updates that run every wrap interval never touch the read-mostly line.
 * Writers hold the clock's writer flag; the cold fields are theirs alone.
 *
 * Tests: tests/core/test_clock.c (one thread), validate_latch.c and
 * validate_latch_signal.c (a writer under readers and signals), and
 * tests/model/model_latch.cpp (the model checker).
 */
#include "internal.h"

/*
 * Cache-line budget, as documented in core.h.  Line 0: seq at 0, writer at
 * 4, read_data[0] at 8..31, read_data[1] at 32..55.  Line 1: read_mostly[2].
 * Line 2: cold.
 */
CYCLOCK_LAYOUT_ASSERT(offsetof(struct cyclock, seq) / CYCLOCK_CACHELINE ==
		       offsetof(struct cyclock, read_data[0]) / CYCLOCK_CACHELINE,
	       "seq and read_data[0] share a line");
CYCLOCK_LAYOUT_ASSERT(sizeof(struct cyclock_read_data) == 24, "read_data is three u64");
CYCLOCK_LAYOUT_ASSERT(offsetof(struct cyclock, read_data[1]) + sizeof(struct cyclock_read_data) <=
		       CYCLOCK_CACHELINE,
	       "both epochs fit the hot line");
CYCLOCK_LAYOUT_ASSERT(offsetof(struct cyclock, read_mostly) == CYCLOCK_CACHELINE,
	       "read-mostly fields start the second line");
CYCLOCK_LAYOUT_ASSERT(sizeof(((struct cyclock *)0)->read_mostly) <= CYCLOCK_CACHELINE,
	       "both read-mostly copies fit one line");
CYCLOCK_LAYOUT_ASSERT(offsetof(struct cyclock, cold) == 2 * CYCLOCK_CACHELINE,
	       "cold fields come after, on their own line");
CYCLOCK_LAYOUT_ASSERT(_Alignof(struct cyclock) == CYCLOCK_CACHELINE, "the clock is line-aligned");

/*
 * How a latch copy reads and converts: its read-mostly part.  src == NULL
 * makes the clock stand still at its epoch.  Filled field by field, never
 * zero-initialised or copied whole: compilers may turn that into memset()
 * or memcpy() calls, which firmware without libc does not have.
 */
struct reader {
	const struct cyclock_source *src;
	uint64_t mask;
	uint32_t mult, shift;
};

/* One copy: the epoch always, the reader only when @r is not NULL. */
static void write_copy(struct cyclock *clk, unsigned int i, uint64_t epoch_ns, uint64_t epoch_cyc,
		       uint64_t epoch_frac, const struct reader *r)
{
	struct cyclock_read_data *rd = &clk->read_data[i];
	struct cyclock_read_mostly *rm = &clk->read_mostly[i];

	cyclock__store64(&rd->epoch_ns, epoch_ns);
	cyclock__store64(&rd->epoch_cyc, epoch_cyc);
	cyclock__store64(&rd->epoch_frac, epoch_frac);
	if (!r)
		return;
	cyclock_atomic_store(&rm->src, r->src, CYCLOCK_RELAXED);
	cyclock__store64(&rm->mask, r->mask);
	cyclock_atomic_store(&rm->mult, r->mult, CYCLOCK_RELAXED);
	cyclock_atomic_store(&rm->shift, r->shift, CYCLOCK_RELAXED);
}

/*
 * Both copies, in the latch's order; the caller holds the writer flag.
 * @r is NULL when only the epoch changes, as at every update: the
 * read-mostly line is then left alone.
 */
static void latch_write(struct cyclock *clk, uint64_t epoch_ns, uint64_t epoch_cyc,
			uint64_t epoch_frac, const struct reader *r)
{
	cyclock__latch_bump(&clk->seq); /* odd: readers use copy 1 */
	write_copy(clk, 0, epoch_ns, epoch_cyc, epoch_frac, r);
	cyclock__latch_bump(&clk->seq); /* even: readers use copy 0 */
	write_copy(clk, 1, epoch_ns, epoch_cyc, epoch_frac, r);
}

/*
 * Start reading the registered source, continuing from the value the
 * clock has now.  The new counter is read first: the new timeline then
 * starts a few ns ahead of the old one (the gap between the two reads),
 * never behind, so a reader still on the old copy never sees more than a
 * reader on the new one.
 */
static void start_source(struct cyclock *clk)
{
	const struct cyclock_source *src = COLD(clk, src);
	struct reader r;
	uint64_t cyc, now;

	r.src = src;
	r.mask = COLD(clk, mask);
	r.mult = COLD(clk, mult);
	r.shift = COLD(clk, shift);
	cyc = src->read(src);
	now = cyclock_read_inline(clk); /* the published, old, copy */
	latch_write(clk, now, cyc, 0, &r);
}

static int check_source(const struct cyclock_source *src)
{
	if (!src || !src->read || src->bits == 0 || src->bits > 64 || src->rate_hz == 0)
		return CYCLOCK_EINVAL;
	if (src->rate_hz > CYCLOCK_MAX_RATE_HZ)
		return CYCLOCK_ERANGE;
	return 0;
}

/* Whether @src may replace the registered source (the writer's flag is held). */
static bool may_replace(const struct cyclock *clk, const struct cyclock_source *src,
			unsigned int flags)
{
	const struct cyclock_source *cur = COLD(clk, src);

	return !cur || src->rating >= cur->rating || (flags & CYCLOCK_REGISTER_FORCE);
}

int cyclock_register_opts(struct cyclock *clk, const struct cyclock_source *src,
			  const struct cyclock_register_options *opts)
{
	uint64_t max_ns = opts ? opts->max_interval_ns : 0;
	unsigned int flags = opts ? opts->flags : 0;
	struct cyclock__scale sc;
	int err = clk ? check_source(src) : CYCLOCK_EINVAL;

	if (!err && (flags & ~CYCLOCK_REGISTER_FORCE))
		err = CYCLOCK_EINVAL;
	if (!err)
		err = cyclock__choose_scale(&sc, src->rate_hz, src->bits, max_ns);
	if (err)
		return err;

	cyclock__writer_lock(&clk->writer);
	if (!may_replace(clk, src, flags)) {
		cyclock__writer_unlock(&clk->writer);
		return CYCLOCK_EBUSY;
	}
	COLD(clk, src) = src;
	COLD(clk, mask) = sc.mask;
	COLD(clk, mult) = sc.mult;
	COLD(clk, shift) = sc.shift;
	COLD(clk, error_ppt) = sc.error_ppt;
	cyclock__store64(&clk->cold.wrap_ns, sc.wrap_ns);
	if (!COLD(clk, suspended)) /* else resume() starts it */
		start_source(clk);
	cyclock__writer_unlock(&clk->writer);
	return 0;
}

int cyclock_register(struct cyclock *clk, const struct cyclock_source *src)
{
	return cyclock_register_opts(clk, src, NULL);
}

uint64_t cyclock_read(const struct cyclock *clk)
{
	return cyclock_read_inline(clk);
}

void cyclock_update(struct cyclock *clk)
{
	const struct cyclock_read_data *rd;
	uint64_t epoch_cyc, delta, ns, frac;

	if (!cyclock__writer_trylock(&clk->writer))
		return; /* that writer is updating the epoch */
	if (COLD(clk, src) && !COLD(clk, suspended)) {
		/* Only writers change seq, and we are the writer: no retry. */
		rd = &clk->read_data[cyclock_atomic_load(&clk->seq, CYCLOCK_RELAXED) & 1];
		epoch_cyc = cyclock__load64(&rd->epoch_cyc);
		delta = cyclock__delta(COLD(clk, src)->read(COLD(clk, src)), epoch_cyc,
				       COLD(clk, mask));
		ns = cyclock__scale(delta, COLD(clk, mult), cyclock__load64(&rd->epoch_frac),
				    COLD(clk, shift), &frac);
		/* Advance by the delta, not to the counter read: a clamped
		 * (behind) read leaves the epoch where it was. */
		latch_write(clk, cyclock__load64(&rd->epoch_ns) + ns,
			    (epoch_cyc + delta) & COLD(clk, mask), frac, NULL);
	}
	cyclock__writer_unlock(&clk->writer);
}

uint64_t cyclock_wrap_ns(const struct cyclock *clk)
{
	return cyclock__load64(&clk->cold.wrap_ns);
}

void cyclock_suspend(struct cyclock *clk)
{
	static const struct reader frozen = { NULL, 0, 0, 0 };

	cyclock__writer_lock(&clk->writer);
	if (!COLD(clk, suspended)) {
		latch_write(clk, cyclock_read_inline(clk), 0, 0, &frozen);
		COLD(clk, suspended) = true;
	}
	cyclock__writer_unlock(&clk->writer);
}

void cyclock_resume(struct cyclock *clk)
{
	cyclock__writer_lock(&clk->writer);
	if (COLD(clk, suspended) && COLD(clk, src))
		start_source(clk); /* from the frozen value */
	COLD(clk, suspended) = false;
	cyclock__writer_unlock(&clk->writer);
}
