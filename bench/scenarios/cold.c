/* SPDX-License-Identifier: MIT */
/*
 * cold: what one call of each clock costs when nothing of it is cached,
 * as a program that asks the time now and then sees it.  This is Peter
 * Zijlstra's cache_cold_sched_clock() (Zijlstra 2013) in user space: before
 * each sample, write a buffer twice the size of the last-level cache, twice
 * over (one pass left a re-used line cached in up to 70% of samples here,
 * two in under 25%), which evicts the clock's code, its data, the vDSO's
 * pages and, with 4 KiB pages, the data TLB entries that map them; then
 * time one call between two fenced counter reads and subtract what the
 * bracket costs around an empty function.
 *
 * On x86-64 the call goes through a retpoline, so that the front end
 * cannot fetch the clock's code ahead of the first counter read: an lfence
 * stops execution, not fetch, and while the eviction's stores drain, a
 * predicted call would otherwise bring the whole of a small function in
 * before the bracket opens (the floors then looked warm).
 *
 * The clocks take turns sample by sample, so each sees the same stretch
 * of this shared machine.  A sample costs two passes over the buffer
 * (about 5 ms for 64 MiB here), whatever the clock: the default count is
 * therefore also bounded by a time budget, so that a run over every clock
 * stays within a minute (under two seconds with --quick); --repetitions
 * asks for an exact count and gets it.
 */
#define _GNU_SOURCE
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <cyclock/arch.h>

#include "bench.h"

#define COLD_SAMPLES 1000
#define COLD_SAMPLES_QUICK 100
#define COLD_BUDGET_NS 40e9      /* default samples stop here ... */
#define COLD_BUDGET_NS_QUICK 1.7e9
#define COLD_MIN_SAMPLES 5       /* ... but not before this many */
#define COLD_PASSES 2            /* writes of the buffer per sample */
#define COLD_LLC_FALLBACK (32L << 20)
#define COLD_LINE 64
#define COLD_EMPTY_BRACKETS 1001

/*
 * The bracket: no instruction of the timed call starts before the first
 * read, and the second read waits until the call has finished (the kernel
 * developers' rdtsc_ordered() with a fence after), from arch/'s reads
 * where arch.h chose x86_64.h or arm64.h.
 */
#if defined(CYCLOCK_ARCH_X86_RDTSCP)
static inline uint64_t fenced_ticks(void)
{
	uint64_t t = cyclock_arch_counter_ordered_how(CYCLOCK_ARCH_X86_LFENCE_RDTSC);

	__asm__ __volatile__("lfence" ::: "memory");
	return t;
}

static double ticks_hz(void)
{
	return bench_counter_hz();
}

/*
 * Calls @fn as the kernel's __x86_indirect_thunk does: the return stack
 * predicts the inner ret to the pause loop, so the front end spins there
 * and fetches nothing of @fn until the ret executes, after the bracket's
 * lfence.  @fn returns straight to our caller, with the usual alignment.
 */
__attribute__((naked, noinline)) static uint64_t
thunk_call(uint64_t (*fn)(void) __attribute__((unused)))
{
	__asm__ volatile("call 2f\n"
			 "1: pause\n"
			 "lfence\n"
			 "jmp 1b\n"
			 "2: mov %rdi, (%rsp)\n"
			 "ret\n");
}

/* The thunk rewrites a return address, which a shadow stack (CET) would
 * take for an attack; rdsspq is a no-op, leaving 0, when none is on. */
static bool thunk_usable(void)
{
	uint64_t ssp = 0;

	__asm__ volatile(".byte 0xf3, 0x48, 0x0f, 0x1e, 0xc8" /* rdsspq %rax */
			 : "+a"(ssp));
	return ssp == 0;
}
#else
#if defined(CYCLOCK_ARCH_ARM64_CNTVCT)
static inline uint64_t fenced_ticks(void)
{
	uint64_t v;

	__asm__ __volatile__("isb" ::: "memory");
	v = cyclock_arch_counter();
	__asm__ __volatile__("isb" ::: "memory");
	return v;
}

static double ticks_hz(void)
{
	return bench_counter_hz();
}
#else
static inline uint64_t fenced_ticks(void)
{
	return bench_now_ns();
}

static double ticks_hz(void)
{
	return 1e9;
}
#endif

static uint64_t thunk_call(uint64_t (*fn)(void))
{
	return fn();
}

static bool thunk_usable(void)
{
	return false;
}
#endif

struct cold {
	unsigned char *map;          /* the eviction buffer, mmap()ed */
	volatile unsigned char *buf; /* the same, written through volatile */
	size_t len;
	bool thunk;                  /* calls go through thunk_call() */
	uint64_t empty;              /* the bracket's own cost, ticks */
	double ns_per_tick;
	double *samples;             /* [clock][sample], ns */
	int max_samples;
};

/* The empty body: what the bracket times when the clock costs nothing. */
__attribute__((noinline)) static uint64_t nothing(void)
{
	return 0;
}

static inline uint64_t call_clock(bool thunk, uint64_t (*fn)(void))
{
	return thunk ? thunk_call(fn) : fn();
}

/* Ticks between the bracket's two reads around one call of @fn; every
 * load the call needs (@fn, @thunk) is done before the bracket opens. */
static inline uint64_t bracket(bool thunk, uint64_t (*fn)(void))
{
	uint64_t t0, t1, v;

	t0 = fenced_ticks();
	v = call_clock(thunk, fn);
	t1 = fenced_ticks();
	bench_sink = v; /* after the bracket: its line is as cold as the rest */
	return t1 - t0;
}

/* The bracket's cost around a warm call of nothing, in ticks: the median
 * of many. */
static uint64_t empty_bracket(bool thunk)
{
	double v[COLD_EMPTY_BRACKETS];

	for (int i = 0; i < COLD_EMPTY_BRACKETS; i++)
		v[i] = (double)bracket(thunk, nothing);
	bench_sort(v, COLD_EMPTY_BRACKETS);
	return (uint64_t)v[COLD_EMPTY_BRACKETS / 2];
}

/* A program's stack top is always in its caches: bring ours back after
 * the eviction, so that the clock's locals do not count as its misses. */
__attribute__((noinline)) static void warm_stack(void)
{
	volatile unsigned char pad[4096];

	for (size_t i = 0; i < sizeof(pad); i += COLD_LINE)
		pad[i] = 0;
}

/*
 * Plain stores, one a line: memset() may use non-temporal stores for a
 * buffer this large, which go around the caches instead of filling them.
 * Then the stack and the bracket's own code come back, as they are warm
 * in a program (the empty bracket was timed warm).
 */
static void evict(const struct cold *k, unsigned int round)
{
	for (int pass = 0; pass < COLD_PASSES; pass++)
		for (size_t i = 0; i < k->len; i += COLD_LINE)
			k->buf[i] = (unsigned char)(round + (unsigned int)pass);
	warm_stack();
	bench_sink = call_clock(k->thunk, nothing);
	/* Pairs with nothing: it drains the store buffer, so that the timed
	 * call does not wait behind the eviction's missing stores. */
	atomic_thread_fence(memory_order_seq_cst);
}

/* One cold call of @read, in ns, the empty bracket subtracted. */
static double time_cold(const struct cold *k, uint64_t (*read)(void))
{
	uint64_t ticks = bracket(k->thunk, read);

	return ticks > k->empty ? (double)(ticks - k->empty) * k->ns_per_tick : 0;
}

/*
 * Samples round by round, each round one cold call of every clock (the
 * first clock rotating), until @k->max_samples or, for a default count,
 * the time budget.  Returns the samples each clock got.
 */
static int take_samples(const struct bench_opts *o, struct cold *k)
{
	double budget = o->quick ? COLD_BUDGET_NS_QUICK : COLD_BUDGET_NS;
	uint64_t start = bench_now_ns();
	size_t n = o->n_clocks;
	int r;

	for (r = 0; r < k->max_samples; r++) {
		if (o->repetitions <= 0 && r >= COLD_MIN_SAMPLES &&
		    (double)(bench_now_ns() - start) > budget)
			break;
		if (r % 10 == 0)
			bench_progress(o, "cold: round %d/%d of %zu clock%s", r + 1,
				       k->max_samples, n, n == 1 ? "" : "s");
		for (size_t j = 0; j < n; j++) {
			size_t c = (j + (size_t)r) % n;

			evict(k, (unsigned int)r);
			k->samples[c * (size_t)k->max_samples + (size_t)r] =
				time_cold(k, o->clocks[c]->read);
		}
	}
	bench_progress_done(o);
	return r;
}

/* The buffer, in 4 KiB pages so that writing it evicts the data TLB too
 * (16,384 pages for 64 MiB), and faulted in before any sample.  0, or -1
 * after saying why. */
static int alloc_buffer(const struct bench_opts *o, struct cold *k)
{
	void *p;

	k->len = 2 * (size_t)(o->llc_bytes > 0 ? o->llc_bytes : COLD_LLC_FALLBACK);
	p = mmap(NULL, k->len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		fprintf(stderr, "cyclock: cold: no memory for the %zu MiB eviction buffer\n",
			k->len >> 20);
		return -1;
	}
#ifdef MADV_NOHUGEPAGE
	madvise(p, k->len, MADV_NOHUGEPAGE);
#endif
	memset(p, 1, k->len);
	k->map = p;
	k->buf = p;
	return 0;
}

static int add_results(const struct bench_opts *o, struct bench_run *run,
		       const struct cold *k, int got)
{
	for (size_t c = 0; c < o->n_clocks; c++) {
		struct bench_result *r =
			bench_run_add(run, "cold", o->clocks[c]->name, NULL, 0, 1,
				      k->samples + c * (size_t)k->max_samples, (size_t)got, 0);

		if (!r)
			return -1;
		bench_result_extra(r, "bracket_ns", (double)k->empty * k->ns_per_tick);
	}
	return 0;
}

int bench_cold(const struct bench_opts *o, struct bench_run *run)
{
	struct cold k = { .max_samples = bench_reps(o, COLD_SAMPLES, COLD_SAMPLES_QUICK) };
	double hz = ticks_hz();
	struct bench_affinity saved;
	int rc, got;

	if (o->n_clocks == 0)
		return 0;
	k.samples = calloc(o->n_clocks * (size_t)k.max_samples, sizeof(double));
	if (!k.samples) {
		fprintf(stderr, "cyclock: cold: out of memory\n");
		return -1;
	}
	if (alloc_buffer(o, &k) != 0) {
		free(k.samples);
		return -1;
	}
	k.ns_per_tick = hz > 0 ? 1e9 / hz : 1;
	bench_pin_here(&saved);
	/* One call each first: a first call may bind a symbol, initialise
	 * cyclock or start a thread, none of which a cold call repeats. */
	for (size_t i = 0; i < o->n_clocks; i++)
		bench_sink = o->clocks[i]->read();
	k.thunk = thunk_usable();
	k.empty = empty_bracket(k.thunk);
	got = take_samples(o, &k);
	bench_unpin(&saved);
	rc = add_results(o, run, &k, got);
	munmap(k.map, k.len);
	free(k.samples);
	return rc;
}
