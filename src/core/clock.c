/* SPDX-License-Identifier: MIT */
/*
 * The latch clock: register, read, update, suspend and resume, after the
 * kernel's kernel/time/sched_clock.c.
 *
 * Every change goes through latch_write(): the epoch always, the
 * read-mostly copies only when the source or the mode changes, so the
 * updates that run every wrap interval never touch the read-mostly line.
 * Writers hold the clock's writer flag; the cold fields are theirs alone.
 */
#include "internal.h"

/*
 * Cache-line budget, as documented in core.h.  Line 0: seq at 0, writer at
 * 4, read_data[0] at 8..31, read_data[1] at 32..55.  Line 1: read_mostly[2].
 * Line 2: cold.
 */
_Static_assert(offsetof(struct cyclock, seq) / CYCLOCK_CACHELINE ==
		       offsetof(struct cyclock, read_data[0]) / CYCLOCK_CACHELINE,
	       "seq and read_data[0] share a line");
_Static_assert(sizeof(struct cyclock_read_data) == 24, "read_data is three u64");
_Static_assert(offsetof(struct cyclock, read_data[1]) + sizeof(struct cyclock_read_data) <=
		       CYCLOCK_CACHELINE,
	       "both epochs fit the hot line");
_Static_assert(offsetof(struct cyclock, read_mostly) == CYCLOCK_CACHELINE,
	       "read-mostly fields start the second line");
_Static_assert(sizeof(((struct cyclock *)0)->read_mostly) <= CYCLOCK_CACHELINE,
	       "both read-mostly copies fit one line");
_Static_assert(offsetof(struct cyclock, cold) == 2 * CYCLOCK_CACHELINE,
	       "cold fields come after, on their own line");
_Static_assert(_Alignof(struct cyclock) == CYCLOCK_CACHELINE, "the clock is line-aligned");

/*
 * The new contents of a latch copy.  The read-mostly part is written only
 * when new_source is set; read == NULL makes the clock stand still.
 */
struct latch_state {
	uint64_t epoch_ns, epoch_cyc, epoch_frac;
	bool new_source;
	cyclock_read_fn read;
	const struct cyclock_source *src;
	uint64_t mask;
	uint32_t mult, shift;
};

static void write_copy(struct cyclock *clk, unsigned int i, const struct latch_state *st)
{
	struct cyclock_read_data *rd = &clk->read_data[i];
	struct cyclock_read_mostly *rm = &clk->read_mostly[i];

	cyclock__store64(&rd->epoch_ns, st->epoch_ns);
	cyclock__store64(&rd->epoch_cyc, st->epoch_cyc);
	cyclock__store64(&rd->epoch_frac, st->epoch_frac);
	if (!st->new_source)
		return;
	atomic_store_explicit(&rm->read, st->read, memory_order_relaxed);
	atomic_store_explicit(&rm->src, st->src, memory_order_relaxed);
	cyclock__store64(&rm->mask, st->mask);
	atomic_store_explicit(&rm->mult, st->mult, memory_order_relaxed);
	atomic_store_explicit(&rm->shift, st->shift, memory_order_relaxed);
}

/* Both copies, in the latch's order; the caller holds the writer flag. */
static void latch_write(struct cyclock *clk, const struct latch_state *st)
{
	cyclock__latch_bump(&clk->seq); /* odd: readers use copy 1 */
	write_copy(clk, 0, st);
	cyclock__latch_bump(&clk->seq); /* even: readers use copy 0 */
	write_copy(clk, 1, st);
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
	const struct cyclock_source *src = clk->cold.src;
	struct latch_state st = {
		.new_source = true, .read = src->read, .src = src,
		.mask = clk->cold.mask, .mult = clk->cold.mult, .shift = clk->cold.shift,
	};

	st.epoch_cyc = src->read(src);
	st.epoch_ns = cyclock_read_inline(clk); /* the published, old, copy */
	latch_write(clk, &st);
}

static int check_source(const struct cyclock_source *src)
{
	if (!src || !src->read || src->bits == 0 || src->bits > 64 || src->rate_hz == 0)
		return CYCLOCK_EINVAL;
	if (src->rate_hz > CYCLOCK_MAX_RATE_HZ)
		return CYCLOCK_ERANGE;
	return 0;
}

int cyclock_register(struct cyclock *clk, const struct cyclock_source *src)
{
	struct cyclock__scale sc;
	int err = clk ? check_source(src) : CYCLOCK_EINVAL;

	if (!err)
		err = cyclock__choose_scale(&sc, src->rate_hz, src->bits);
	if (err)
		return err;

	cyclock__writer_lock(&clk->writer);
	clk->cold.src = src;
	clk->cold.mask = sc.mask;
	clk->cold.mult = sc.mult;
	clk->cold.shift = sc.shift;
	clk->cold.wrap_cyc = sc.wrap_cyc;
	cyclock__store64(&clk->cold.wrap_ns, sc.wrap_ns);
	if (!clk->cold.suspended) /* else resume() starts it */
		start_source(clk);
	cyclock__writer_unlock(&clk->writer);
	return 0;
}

uint64_t cyclock_read(const struct cyclock *clk)
{
	return cyclock_read_inline(clk);
}

void cyclock_update(struct cyclock *clk)
{
	const struct cyclock_read_data *rd;
	struct latch_state st = { .new_source = false };
	uint64_t delta, prod;
	uint32_t shift;

	if (!cyclock__writer_trylock(&clk->writer))
		return; /* that writer is refreshing the epoch */
	if (clk->cold.src && !clk->cold.suspended) {
		/* Only writers change seq, and we are the writer: no retry. */
		rd = &clk->read_data[atomic_load_explicit(&clk->seq, memory_order_relaxed) & 1];
		shift = clk->cold.shift;
		delta = cyclock__delta(clk->cold.src->read(clk->cold.src),
				       cyclock__load64(&rd->epoch_cyc), clk->cold.mask);
		prod = delta * clk->cold.mult + cyclock__load64(&rd->epoch_frac);
		st.epoch_ns = cyclock__load64(&rd->epoch_ns) + (prod >> shift);
		st.epoch_frac = prod & ((1ull << shift) - 1);
		/* Advance by the delta, not to the counter read: a clamped
		 * (behind) read leaves the epoch where it was. */
		st.epoch_cyc = (cyclock__load64(&rd->epoch_cyc) + delta) & clk->cold.mask;
		latch_write(clk, &st);
	}
	cyclock__writer_unlock(&clk->writer);
}

uint64_t cyclock_wrap_ns(const struct cyclock *clk)
{
	return cyclock__load64(&clk->cold.wrap_ns);
}

void cyclock_suspend(struct cyclock *clk)
{
	/* No read function: the clock stands still at epoch_ns. */
	struct latch_state st = { .new_source = true, .read = NULL };

	cyclock__writer_lock(&clk->writer);
	if (!clk->cold.suspended) {
		st.epoch_ns = cyclock_read_inline(clk);
		latch_write(clk, &st);
		clk->cold.suspended = true;
	}
	cyclock__writer_unlock(&clk->writer);
}

void cyclock_resume(struct cyclock *clk)
{
	cyclock__writer_lock(&clk->writer);
	if (clk->cold.suspended && clk->cold.src)
		start_source(clk); /* from the frozen value */
	clk->cold.suspended = false;
	cyclock__writer_unlock(&clk->writer);
}
