/* SPDX-License-Identifier: MIT */
/*
 * falseshare's latch, laid out three ways (split, packed, lock_adjacent:
 * see falseshare.c), and one timed window over it: the reader, as
 * cyclock_read_inline() is, in a tight loop on each reader thread, and
 * the writer thread moving the epoch at FS_WRITER_HZ while it keeps
 * storing to its lock word.  The reader stays beside the loop that times
 * it, so that it is inlined there as a program's would be and the window
 * times the read, not a call.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cyclock/core.h>

#include "bench.h"
#include "falseshare.h"

#define FS_WRITER_HZ 1000
#define FS_BATCH 256                   /* reads between two looks at the stopwatch */

/* The hot part of one latch copy: 16 bytes. */
struct fs_read_data {
	_Atomic uint64_t epoch_ns;
	_Atomic uint64_t epoch_cyc;
};

/* The read-mostly part of one latch copy: 8 + 8 + 4 + 4 = 24 bytes. */
struct fs_read_mostly {
	_Atomic(fs_read_fn) read;
	_Atomic uint64_t mask;
	_Atomic uint32_t mult;
	_Atomic uint32_t shift;
};

/* Line 0: seq 0..3, read_data[2] 8..39.  Line 1: read_mostly[2] 0..47.
 * Line 2: the writer's lock word, alone. */
struct fs_split {
	_Alignas(FS_LINE) _Atomic uint32_t seq;
	struct fs_read_data read_data[2];
	_Alignas(FS_LINE) struct fs_read_mostly read_mostly[2];
	_Alignas(FS_LINE) _Atomic uint64_t lock;
};

/* One copy of sched_clock's old clock_read_data: 16 + 24 = 40 bytes. */
struct fs_packed_copy {
	struct fs_read_data d;
	struct fs_read_mostly m;
};

/* Line 0: seq 0..3, copy[0] 8..47, copy[1] 48..87 (crossing into line
 * 1, as the kernel's did).  Line 2: the lock word, alone. */
struct fs_packed {
	_Alignas(FS_LINE) _Atomic uint32_t seq;
	struct fs_packed_copy copy[2];
	_Alignas(FS_LINE) _Atomic uint64_t lock;
};

/* Line 0 as split's.  Line 1: read_mostly[2] 0..47, the lock word 48..55. */
struct fs_lock_adjacent {
	_Alignas(FS_LINE) _Atomic uint32_t seq;
	struct fs_read_data read_data[2];
	_Alignas(FS_LINE) struct fs_read_mostly read_mostly[2];
	_Atomic uint64_t lock;
};

_Static_assert(offsetof(struct fs_split, read_data[1]) + sizeof(struct fs_read_data) <= FS_LINE,
	       "split: seq and both epochs share line 0");
_Static_assert(offsetof(struct fs_split, read_mostly) == FS_LINE, "split: read-mostly on line 1");
_Static_assert(offsetof(struct fs_split, lock) == 2 * FS_LINE, "split: the lock on line 2");

/* split stands for struct cyclock (cyclock/core.h), whose fields are
 * wider (an epoch_frac; its read-mostly copy names the source where
 * split's names a read function): these keep each of its fields on
 * the line, and at the offset, where the engine keeps the field's
 * counterpart, so that a change to the engine's layout fails here
 * rather than leaving falseshare measuring a layout no one uses.  The
 * writer's lock word stands where the engine's cold writer state is. */
_Static_assert(FS_LINE == CYCLOCK_CACHELINE, "split: the engine's line size");
_Static_assert(offsetof(struct fs_split, seq) == offsetof(struct cyclock, seq),
	       "split: seq where struct cyclock has it");
_Static_assert(offsetof(struct fs_split, read_data) == offsetof(struct cyclock, read_data),
	       "split: the epochs start where struct cyclock's do");
_Static_assert(offsetof(struct cyclock, read_data[1]) + sizeof(struct cyclock_read_data) <=
		       CYCLOCK_CACHELINE,
	       "struct cyclock: seq and both epochs share line 0, as split's do");
_Static_assert(sizeof(struct fs_read_data) <= sizeof(struct cyclock_read_data),
	       "split: an epoch copy no larger than the engine's");
_Static_assert(offsetof(struct fs_split, read_mostly) == offsetof(struct cyclock, read_mostly),
	       "split: read-mostly where struct cyclock has it");
_Static_assert(sizeof(struct fs_read_mostly) <= sizeof(struct cyclock_read_mostly),
	       "split: a read-mostly copy no larger than the engine's");
_Static_assert(2 * sizeof(struct cyclock_read_mostly) <= CYCLOCK_CACHELINE,
	       "struct cyclock: both read-mostly copies on line 1, as split's are");
_Static_assert(offsetof(struct fs_split, lock) == offsetof(struct cyclock, cold),
	       "split: the writer's word on the line of struct cyclock's writer state");
_Static_assert(sizeof(struct fs_packed_copy) == 40, "packed: a copy is 40 bytes");
_Static_assert(offsetof(struct fs_packed, copy[0].m) / FS_LINE == 0,
	       "packed: copy 0's read-mostly fields share the sequence's line");
_Static_assert(offsetof(struct fs_packed, lock) == 2 * FS_LINE, "packed: the lock on line 2");
_Static_assert(offsetof(struct fs_lock_adjacent, lock) / FS_LINE == 1,
	       "lock_adjacent: the lock shares the read-mostly line");

/* The memory the three layouts take turns in. */
union fs_mem {
	struct fs_split split;
	struct fs_packed packed;
	struct fs_lock_adjacent adjacent;
};

union fs_mem *bench__fs_mem_alloc(void)
{
	return aligned_alloc(FS_LINE, sizeof(union fs_mem));
}

static void view_of(int layout, union fs_mem *m, struct fs_view *v)
{
	for (int i = 0; i < 2; i++) {
		if (layout == FS_PACKED) {
			v->seq = &m->packed.seq, v->lock = &m->packed.lock;
			v->rd[i] = &m->packed.copy[i].d, v->rm[i] = &m->packed.copy[i].m;
		} else if (layout == FS_LOCK_ADJACENT) {
			v->seq = &m->adjacent.seq, v->lock = &m->adjacent.lock;
			v->rd[i] = &m->adjacent.read_data[i], v->rm[i] = &m->adjacent.read_mostly[i];
		} else {
			v->seq = &m->split.seq, v->lock = &m->split.lock;
			v->rd[i] = &m->split.read_data[i], v->rm[i] = &m->split.read_mostly[i];
		}
	}
}

/* One latch copy's time at counter value @cyc.  Relaxed loads: a reader
 * may race with the writer, and the sequence check then discards it. */
static inline uint64_t fs_ns_at(const struct fs_read_data *rd, const struct fs_read_mostly *rm,
				uint64_t cyc)
{
	uint64_t delta = (cyc - atomic_load_explicit(&rd->epoch_cyc, memory_order_relaxed)) &
			 atomic_load_explicit(&rm->mask, memory_order_relaxed);

	return atomic_load_explicit(&rd->epoch_ns, memory_order_relaxed) +
	       (delta * atomic_load_explicit(&rm->mult, memory_order_relaxed) >>
		atomic_load_explicit(&rm->shift, memory_order_relaxed));
}

/*
 * The reader, as cyclock_read_inline() is: take the sequence, read the
 * copy its low bit names, retry if the sequence moved.  @retries counts
 * the retries.
 */
static inline uint64_t fs_read(const struct fs_view *v, uint64_t *retries)
{
	for (;;) {
		/* Acquire pairs with the writer's release store of seq in
		 * fs_bump(): the copy it names is complete. */
		uint32_t seq = atomic_load_explicit(v->seq, memory_order_acquire);
		const struct fs_read_mostly *rm = v->rm[seq & 1];
		uint64_t ns = fs_ns_at(v->rd[seq & 1], rm,
				       atomic_load_explicit(&rm->read, memory_order_relaxed)());

		/* Pairs with the release fence after the writer's bump in
		 * fs_bump(): had any load above seen a store made after a
		 * bump, the load below sees that bump. */
		atomic_thread_fence(memory_order_acquire);
		if (atomic_load_explicit(v->seq, memory_order_relaxed) == seq)
			return ns;
		(*retries)++;
	}
}

static void fs_bump(_Atomic uint32_t *seq)
{
	uint32_t s = atomic_load_explicit(seq, memory_order_relaxed);

	/* Release: the copy written before is complete for a reader that
	 * sees the new value (pairs with fs_read()'s acquire load). */
	atomic_store_explicit(seq, s + 1, memory_order_release);
	/* Pairs with fs_read()'s acquire fence: a reader that sees a store
	 * made after this bump also sees the bump, and retries. */
	atomic_thread_fence(memory_order_release);
}

static void fs_write_copy(const struct fs_view *v, int i, uint64_t ns, uint64_t cyc)
{
	atomic_store_explicit(&v->rd[i]->epoch_ns, ns, memory_order_relaxed);
	atomic_store_explicit(&v->rd[i]->epoch_cyc, cyc, memory_order_relaxed);
}

/* The writer's update: the epoch moves to now; read-mostly fields stay. */
static void fs_update(const struct fs_view *v, fs_read_fn read)
{
	/* Only this thread changes seq: no retry. */
	uint32_t i = atomic_load_explicit(v->seq, memory_order_relaxed) & 1;
	uint64_t cyc = read(), ns = fs_ns_at(v->rd[i], v->rm[i], cyc);

	fs_bump(v->seq); /* odd: readers use copy 1 */
	fs_write_copy(v, 0, ns, cyc);
	fs_bump(v->seq); /* even: readers use copy 0 */
	fs_write_copy(v, 1, ns, cyc);
}

/* Registration, before any thread starts: both copies, all fields. */
static void fs_init(const struct fs_view *v, fs_read_fn read, double hz)
{
	/* ns = cyc * mult >> shift, shift 24 unless mult would not fit 32
	 * bits (a slow counter): a delta of minutes still fits 64 bits. */
	double per = 1e9 / (hz > 0 ? hz : 1e9);
	uint32_t shift = 24, mult;

	while (shift > 0 && per * (double)(1u << shift) > (double)UINT32_MAX)
		shift--;
	mult = (uint32_t)(per * (double)(1u << shift));
	for (int i = 0; i < 2; i++) {
		atomic_store_explicit(&v->rm[i]->read, read, memory_order_relaxed);
		atomic_store_explicit(&v->rm[i]->mask, UINT64_MAX, memory_order_relaxed);
		atomic_store_explicit(&v->rm[i]->mult, mult, memory_order_relaxed);
		atomic_store_explicit(&v->rm[i]->shift, shift, memory_order_relaxed);
		fs_write_copy(v, i, 0, read());
	}
	atomic_store_explicit(v->seq, 0, memory_order_relaxed);
	atomic_store_explicit(v->lock, 0, memory_order_relaxed);
}

/* Waits, yielding, for the go that starts every thread's window at once. */
static void fs_wait_go(struct fs_shared *sh)
{
	/* Relaxed: ready and go only pace the start; no data rides on them. */
	atomic_fetch_add_explicit(&sh->ready, 1, memory_order_relaxed);
	while (!atomic_load_explicit(&sh->go, memory_order_relaxed))
		sched_yield();
}

static void *writer_main(void *arg)
{
	struct fs_shared *sh = arg;
	uint64_t period = 1000000000ull / FS_WRITER_HZ, t0, next, now, updates = 0;

	bench_pin(sh->writer_cpu);
	fs_wait_go(sh);
	t0 = bench_now_ns();
	next = t0 + period;
	/* Relaxed: stop carries no data; the results travel by join. */
	while (!atomic_load_explicit(&sh->stop, memory_order_relaxed)) {
		/* The lock word: written all the time, as a busy lock is. */
		atomic_fetch_add_explicit(sh->v.lock, 1, memory_order_relaxed);
		now = bench_now_ns();
		if (now >= next) {
			fs_update(&sh->v, sh->read);
			updates++;
			next += period;
			if (next < now) /* fell behind (descheduled): no burst */
				next = now + period;
		}
	}
	sh->updates = updates;
	sh->writer_ns = bench_now_ns() - t0;
	return NULL;
}

static void *reader_main(void *arg)
{
	struct fs_reader *r = arg;
	struct fs_shared *sh = r->sh;
	uint64_t reads = 0, retries = 0, sum = 0, t0, t1, deadline;

	bench_pin(r->cpu);
	fs_wait_go(sh);
	t0 = bench_now_ns();
	deadline = t0 + sh->window_ns;
	do {
		for (int i = 0; i < FS_BATCH; i++)
			sum += fs_read(&sh->v, &retries);
		reads += FS_BATCH;
		t1 = bench_now_ns();
	} while (t1 < deadline);
	r->reads = reads, r->retries = retries, r->sum = sum;
	r->elapsed_ns = t1 - t0;
	return NULL;
}

/*
 * One window of @nreaders readers and the writer over @mem laid out as
 * @layout.  @sh comes with read, window_ns and writer_cpu set; the rest
 * is reset.  Returns 0 or pthread_create()'s error.
 */
int bench__fs_once(struct fs_shared *sh, int layout, union fs_mem *mem, double hz,
		   const int *cpus, int ncpu, struct fs_reader *rd, int nreaders)
{
	pthread_t writer;
	int err, started = 0;

	memset(mem, 0, sizeof(*mem));
	memset(rd, 0, sizeof(*rd) * (size_t)nreaders);
	atomic_store_explicit(&sh->ready, 0, memory_order_relaxed);
	atomic_store_explicit(&sh->go, 0, memory_order_relaxed);
	atomic_store_explicit(&sh->stop, 0, memory_order_relaxed);
	view_of(layout, mem, &sh->v);
	fs_init(&sh->v, sh->read, hz);
	err = pthread_create(&writer, NULL, writer_main, sh);
	if (err)
		return err;
	for (; started < nreaders && !err; started++) {
		rd[started].sh = sh;
		rd[started].cpu = cpus[started % ncpu];
		err = pthread_create(&rd[started].tid, NULL, reader_main, &rd[started]);
	}
	started -= err != 0;
	/* Every thread pinned and waiting: their windows start together. */
	while (atomic_load_explicit(&sh->ready, memory_order_relaxed) < (uint32_t)started + 1)
		sched_yield();
	atomic_store_explicit(&sh->go, 1, memory_order_relaxed);
	for (int i = 0; i < started; i++)
		pthread_join(rd[i].tid, NULL);
	atomic_store_explicit(&sh->stop, 1, memory_order_relaxed);
	pthread_join(writer, NULL);
	return err;
}
