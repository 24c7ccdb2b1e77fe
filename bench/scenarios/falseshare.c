/* SPDX-License-Identifier: MIT */
/*
 * falseshare: readers of a latch-protected clock while a writer updates
 * its epoch, with the same data laid out three ways (Zeng 2023 and
 * Kennedy 2010, docs/references.md):
 *
 *   split          cyclock's layout (struct cyclock): the sequence and both
 *                  epochs on one line, the read-mostly {read, mask, mult,
 *                  shift} on a line of their own.
 *   packed         sched_clock before Zeng 2023's patch: each latch copy
 *                  carries its read-mostly fields beside its epoch, so
 *                  every update dirties the line they are read from.
 *   lock_adjacent  split, but the read-mostly line also holds a word that
 *                  another thread writes all the time (a lock, a counter):
 *                  Kennedy 2010's frequently written field next to
 *                  read-mostly data.
 *
 * The writer thread is the same in every layout: it moves the epoch at
 * FS_WRITER_HZ (a 1 kHz tick) and, between updates, keeps storing to its
 * lock word.  Only where that word and the read-mostly fields live
 * changes, so a difference between layouts is the layout's alone.
 *
 * The structs are local copies, not the engine's, so that the three
 * layouts differ only where they are meant to; split is tied to struct
 * cyclock (cyclock/core.h) by static asserts in falseshare_latch.c, which
 * fail when the engine's layout moves a field to another line.
 *
 * falseshare_latch.c holds the layouts, the latch's reader and writer and
 * one timed window of them; this file picks the counter, repeats windows
 * for every layout and number of readers, and reports.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "falseshare.h"

#define FS_WINDOW_NS 20000000ull       /* one reader's timed window */
#define FS_WINDOW_NS_QUICK 10000000ull
#define FS_NOISE_LIMIT 0.25
#define FS_MAX_READERS 256

static const char *const layout_names[FS_LAYOUTS] = { "split", "packed", "lock_adjacent" };

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
	union fs_mem *mem = bench__fs_mem_alloc();
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
		err = bench__fs_once(&sh, FS_SPLIT, mem, hz, cpus, ncpu, rd, nreaders);
	for (int rep = 0; rep < reps && !err; rep++)
		for (int l = 0; l < FS_LAYOUTS && !err; l++) {
			bench_progress(o, "falseshare: %s, %d reader(s), repetition %d of %d",
				       layout_names[l], nreaders, rep + 1, reps);
			err = bench__fs_once(&sh, l, mem, hz, cpus, ncpu, rd, nreaders);
			if (!err)
				fs_account(&acc[l], rep, &sh, rd, nreaders);
		}
	for (int l = 0; l < FS_LAYOUTS && !err; l++)
		fs_publish(run, &acc[l], l, nreaders, reps, nreaders >= ncpu ? cpus[ncpu - 1] : -1);
	if (err)
		bench_error("falseshare: %s", strerror(err));
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
		bench_error("falseshare: needs 2 CPUs, this process may use %d: "
				"no results", ncpu);
		return 0;
	}
	for (size_t i = 0; i < n && !err; i++)
		err = fs_measure(o, run, list[i], cpus, ncpu, bench_reps(o, 7, 3));
	bench_progress_done(o);
	return err;
}
