/* SPDX-License-Identifier: MIT */
/*
 * falseshare: readers of a latch-protected clock while a writer updates
 * its epoch, with the same data laid out three ways (seeds 001 and 003):
 *
 *   split          cyclock's layout (struct cyclock): the sequence and both
 *                  epochs on one line, the read-mostly {read, mask, mult,
 *                  shift} on a line of their own.
 *   packed         sched_clock before seed 001's patch: each latch copy
 *                  carries its read-mostly fields beside its epoch, so
 *                  every update dirties the line they are read from.
 *   lock_adjacent  split, but the read-mostly line also holds a word that
 *                  another thread writes all the time (a lock, a counter):
 *                  seed 003's frequently written field next to read-mostly
 *                  data.
 *
 * The writer thread is the same in every layout: it moves the epoch at
 * FS_WRITER_HZ (a 1 kHz tick) and, between updates, keeps storing to its
 * lock word.  Only where that word and the read-mostly fields live
 * changes, so a difference between layouts is the layout's alone.
 *
 * The structs are local copies, not the engine's, so a layout can be
 * changed without touching the library; the field names are its own.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

#define FS_LINE 64
#define FS_WRITER_HZ 1000
#define FS_WINDOW_NS 20000000ull       /* one reader's timed window */
#define FS_WINDOW_NS_QUICK 10000000ull
#define FS_BATCH 256                   /* reads between two looks at the stopwatch */
#define FS_NOISE_LIMIT 0.25
#define FS_MAX_READERS 256

typedef uint64_t (*fs_read_fn)(void);

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
_Static_assert(sizeof(struct fs_packed_copy) == 40, "packed: a copy is 40 bytes");
_Static_assert(offsetof(struct fs_packed, copy[0].m) / FS_LINE == 0,
	       "packed: copy 0's read-mostly fields share the sequence's line");
_Static_assert(offsetof(struct fs_packed, lock) == 2 * FS_LINE, "packed: the lock on line 2");
_Static_assert(offsetof(struct fs_lock_adjacent, lock) / FS_LINE == 1,
	       "lock_adjacent: the lock shares the read-mostly line");

/* Where one layout keeps each field: what readers and the writer use. */
struct fs_view {
	_Atomic uint32_t *seq;
	struct fs_read_data *rd[2];
	struct fs_read_mostly *rm[2];
	_Atomic uint64_t *lock;
};

/* The memory the three layouts take turns in. */
union fs_mem {
	struct fs_split split;
	struct fs_packed packed;
	struct fs_lock_adjacent adjacent;
};

enum { FS_SPLIT, FS_PACKED, FS_LOCK_ADJACENT, FS_LAYOUTS };

static const char *const layout_names[FS_LAYOUTS] = { "split", "packed", "lock_adjacent" };

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

/* One repetition's shared state. */
struct fs_shared {
	struct fs_view v;
	fs_read_fn read;
	uint64_t window_ns;
	_Atomic uint32_t ready;  /* threads pinned and waiting */
	_Atomic uint32_t go;     /* readers may start */
	_Atomic uint32_t stop;   /* the writer may stop */
	int writer_cpu;
	uint64_t updates;        /* the writer's, read after join */
	uint64_t writer_ns;
};

/* One reader's figures, on its own line so that the results it writes at
 * the end share no line with another reader's. */
struct fs_reader {
	_Alignas(FS_LINE) struct fs_shared *sh;
	int cpu;
	uint64_t reads, retries, elapsed_ns, sum;
	pthread_t tid;
};

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
static int fs_once(struct fs_shared *sh, int layout, union fs_mem *mem, double hz,
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

/* One layout's figures over the repetitions. */
struct fs_acc {
	double *samples;    /* ns per read, one per repetition */
	double reads_per_s; /* summed over repetitions, averaged at the end */
	double writer_hz;
	uint64_t reads, retries;
};

/* The plain counter read (rdtsc, CNTVCT), else the vDSO's clock; *@hz its rate. */
static fs_read_fn fs_counter(double *hz)
{
	size_t n;
	const struct bench_clock *c = bench_clocks(&n);

	for (size_t i = 0; i < n; i++)
		if (c[i].group == BENCH_GROUP_FLOOR && !(c[i].flags & BENCH_CLOCK_ORDERED)) {
			*hz = bench_counter_hz();
			return c[i].read;
		}
	*hz = 1e9;
	return bench_clock_find(bench_floor_plain())->read;
}

/* Adds one window of @nreaders readers to @a. */
static void fs_account(struct fs_acc *a, int rep, const struct fs_shared *sh,
		       const struct fs_reader *rd, int nreaders)
{
	uint64_t reads = 0, elapsed = 0;

	for (int i = 0; i < nreaders; i++) {
		reads += rd[i].reads;
		a->retries += rd[i].retries;
		elapsed += rd[i].elapsed_ns;
		if (rd[i].elapsed_ns)
			a->reads_per_s += (double)rd[i].reads * 1e9 / (double)rd[i].elapsed_ns;
	}
	a->samples[rep] = reads ? (double)elapsed / (double)reads : 0;
	a->reads += reads;
	if (sh->writer_ns)
		a->writer_hz += (double)sh->updates * 1e9 / (double)sh->writer_ns;
}

static void fs_publish(struct bench_run *run, const struct fs_acc *a, int layout, int nreaders,
		       int reps, int shared_cpu)
{
	struct bench_result *r;

	r = bench_run_add(run, "falseshare", "", layout_names[layout], nreaders,
			  (long)(a->reads / (uint64_t)reps), a->samples, (size_t)reps, FS_NOISE_LIMIT);
	if (!r)
		return;
	bench_result_extra(r, "reads_per_s", a->reads_per_s / reps);
	bench_result_extra(r, "writer_hz", a->writer_hz / reps);
	bench_result_extra(r, "retries_per_read",
			   a->reads ? (double)a->retries / (double)a->reads : 0);
	if (shared_cpu >= 0)
		snprintf(r->note, sizeof(r->note), "the writer shares CPU %d with a reader",
			 shared_cpu);
}

/*
 * @nreaders readers, @reps rounds of every layout once: a noisy stretch
 * of the machine then hurts all three layouts alike, not one's series.
 */
static int fs_measure(const struct bench_opts *o, struct bench_run *run, int nreaders,
		      const int *cpus, int ncpu, int reps)
{
	struct fs_acc acc[FS_LAYOUTS] = { { 0 } };
	double *samples = calloc((size_t)reps * FS_LAYOUTS, sizeof(*samples));
	union fs_mem *mem = aligned_alloc(FS_LINE, sizeof(*mem));
	struct fs_reader *rd = aligned_alloc(FS_LINE, sizeof(*rd) * (size_t)nreaders);
	struct fs_shared sh = { .window_ns = o->quick ? FS_WINDOW_NS_QUICK : FS_WINDOW_NS,
				.writer_cpu = cpus[ncpu - 1] };
	double hz;
	int err = samples && mem && rd ? 0 : ENOMEM;

	sh.read = fs_counter(&hz);
	for (int l = 0; l < FS_LAYOUTS && samples; l++)
		acc[l].samples = samples + (size_t)l * (size_t)reps;
	/* One window unrecorded: the first ran slow by a quarter here. */
	if (!err)
		err = fs_once(&sh, FS_SPLIT, mem, hz, cpus, ncpu, rd, nreaders);
	for (int rep = 0; rep < reps && !err; rep++)
		for (int l = 0; l < FS_LAYOUTS && !err; l++) {
			bench_progress(o, "falseshare: %s, %d reader(s), repetition %d of %d",
				       layout_names[l], nreaders, rep + 1, reps);
			err = fs_once(&sh, l, mem, hz, cpus, ncpu, rd, nreaders);
			if (!err)
				fs_account(&acc[l], rep, &sh, rd, nreaders);
		}
	for (int l = 0; l < FS_LAYOUTS && !err; l++)
		fs_publish(run, &acc[l], l, nreaders, reps, nreaders >= ncpu ? cpus[ncpu - 1] : -1);
	if (err)
		fprintf(stderr, "cyclock: falseshare: %s\n", strerror(err));
	free(samples);
	free(mem);
	free(rd);
	return err ? -1 : 0;
}

/* --threads, else 1 and one per CPU but the writer's (once each). */
static size_t fs_thread_list(const struct bench_opts *o, int ncpu, int *list)
{
	size_t n = 0;

	for (size_t i = 0; i < o->n_threads; i++)
		if (o->threads[i] > 0)
			list[n++] = o->threads[i] < FS_MAX_READERS ? o->threads[i] : FS_MAX_READERS;
	if (n)
		return n;
	list[n++] = 1;
	if (ncpu - 1 > 1)
		list[n++] = ncpu - 1;
	return n;
}

int bench_falseshare(const struct bench_opts *o, struct bench_run *run)
{
	int cpus[FS_MAX_READERS], list[32], err = 0;
	int ncpu = bench_allowed_cpus(cpus, FS_MAX_READERS);
	size_t n = fs_thread_list(o, ncpu, list);

	if (ncpu < 2) {
		fprintf(stderr, "cyclock: falseshare: needs 2 CPUs, this process may use %d: "
				"no results\n", ncpu);
		return 0;
	}
	for (size_t i = 0; i < n && !err; i++)
		err = fs_measure(o, run, list[i], cpus, ncpu, bench_reps(o, 7, 3));
	bench_progress_done(o);
	return err;
}
