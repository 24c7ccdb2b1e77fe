/* SPDX-License-Identifier: MIT */
/*
 * libcyclock-preload.so: clock_gettime(), gettimeofday(), timespec_get()
 * and time() served by cyclock for unmodified programs (LD_PRELOAD, or
 * "cyclock run").
 *
 * Served: CLOCK_REALTIME, CLOCK_MONOTONIC, CLOCK_MONOTONIC_RAW and
 * CLOCK_BOOTTIME, from the fast path of the ordered readers
 * (cyclock_realtime(), _now(), _raw(), _boottime()) inlined here, on the
 * kernel's zero.  CYCLOCK_PRELOAD_RELAXED=1 serves them from the
 * unordered counter read instead (cyclock_now_relaxed()'s): monotonic
 * within each thread only, which docs/preload.md says when is safe; "0"
 * or unset is the default, any other value gets one line on stderr and
 * is ignored.  CYCLOCK_PRELOAD_CLOCKS, a comma-separated list of
 * monotonic, monotonic_raw, realtime, boottime, monotonic_coarse and
 * realtime_coarse, says which instead; unknown names are ignored.  The
 * coarse clocks (and time(), CLOCK_REALTIME_COARSE's seconds) are served
 * only when named, from cyclock_coarse() (the kernel's coarse clock on
 * cyclock's timeline, never ahead of its fine clocks), which on these
 * machines is no faster than the kernel's coarse clocks.  Everything else goes to the
 * next definition unchanged, or, when that is libc's, to the vDSO as
 * libc's would (pass_gettime()):
 *  - the coarse clocks and time() unless named;
 *  - CPU-time clocks, per-process and per-thread ids (negative), CLOCK_TAI,
 *    the alarm clocks and unknown ids (EINVAL comes from the kernel);
 *  - a NULL pointer: the syscall answers, so -1 with EFAULT (EINVAL for an
 *    unknown id), exactly the kernel's, where the vDSO would crash;
 *  - every id, when cyclock uses the kernel's clocks (no trusted counter).
 *
 * The constructor (preload_init()) asks the machine nothing (the
 * library's own constructor asks, at load, what takes a system call:
 * docs/hosted.md, "System calls"), neither waits nor starts a thread:
 * the reads initialise cyclock lazily, with no system call.  Until
 * the constructor has run, every call passes through to the kernel through
 * syscall(): calls from constructors of libraries initialised before this
 * one, from threads they started, and from signal handlers that interrupt
 * it.  No clock call creates a thread, takes a lock, allocates or calls
 * dlsym, so a call from a signal handler cannot deadlock.  A child of
 * fork() inherits the state (the library's fork handler repairs its own);
 * exec()
 * starts over with LD_PRELOAD inherited.
 *
 * 64-bit Linux only: the syscall fallback passes a 64-bit struct timespec.
 *
 * Tests: tests/preload/ (test_consistency.c, test_coarse.c,
 * test_deadlines.c, test_early.c, test_errors.c, test_next.c,
 * test_constructor.c, test_stderr.c, test_sandbox.c, test_linked.c,
 * syscalls.sh), and tests/tool/cli/test_run.sh (through "cyclock run").
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "linux/internal.h" /* the hosted layer's cyclock__init_once(), cyclock__host */
#include "names.h"

#define PRELOAD_API __attribute__((visibility("default")))
/* Linked first: the read path's page starts here (linux/internal.h). */
CYCLOCK__READ_PATH_PAGE;
#define NS_PER_SEC 1000000000ull

#define BIT(id) (1u << (id))
/* Served unless CYCLOCK_PRELOAD_CLOCKS says otherwise. */
#define FINE (BIT(CLOCK_REALTIME) | BIT(CLOCK_MONOTONIC) | \
	      BIT(CLOCK_MONOTONIC_RAW) | BIT(CLOCK_BOOTTIME))
/* Served only when named: cyclock_coarse() is no cheaper than the
 * kernel's coarse clocks here (the header comment). */
#define COARSE (BIT(CLOCK_MONOTONIC_COARSE) | BIT(CLOCK_REALTIME_COARSE))
/* Beside the ids' bits (all below 16): the fine clocks from the
 * unordered read (CYCLOCK_PRELOAD_RELAXED=1). */
#define RELAXED (1u << 31)

typedef int gettime_fn(clockid_t id, struct timespec *ts);
typedef int gettimeofday_fn(struct timeval *tv, void *tz);
typedef int timespec_get_fn(struct timespec *ts, int base);
typedef time_t time_fn(time_t *t);

/*
 * The next definitions, found by the constructor.  Relaxed: they are only
 * an optimisation over the syscall, so seeing them early or late is
 * correct.
 */
static CYCLOCK_ATOMIC(gettime_fn *) real_gettime;
static CYCLOCK_ATOMIC(gettimeofday_fn *) real_gettimeofday;
static CYCLOCK_ATOMIC(timespec_get_fn *) real_timespec_get;
static CYCLOCK_ATOMIC(time_fn *) real_time;

/* The served ids' bits and RELAXED, for tests and "cyclock run" to check
 * that the preload is loaded (and serving: non-zero).  Written once, by
 * the constructor. */
PRELOAD_API CYCLOCK_ATOMIC(unsigned int) cyclock_preload_active;

/* libc declares the pointers nonnull, so a plain test could be folded
 * away; the empty asm hides what the compiler assumed. */
static inline bool is_null(const void *p)
{
	__asm__("" : "+r"(p));
	return !p;
}

/*
 * A clock the preload does not serve: the next clock_gettime(), or, when
 * that is libc's, what libc's does: call the vDSO, whose answer for a
 * clock it cannot read is the system call's (-errno), and set errno.  The
 * coarse clocks it reads itself and never fails: a jump to it, which
 * costs no more than libc's call of it.
 */
static CYCLOCK__READ_PATH int pass_gettime(clockid_t id, struct timespec *ts)
{
	gettime_fn *vdso = cyclock__vdso_gettime();
	gettime_fn *fn = cyclock_atomic_load(&real_gettime, CYCLOCK_RELAXED);
	int r;

	if (is_null(ts))
		return (int)syscall(SYS_clock_gettime, id, ts);
	if (vdso) {
		if (id == CLOCK_MONOTONIC_COARSE || id == CLOCK_REALTIME_COARSE)
			return vdso(id, ts);
		r = vdso(id, ts);
		if (cyclock_likely(r == 0))
			return 0;
		errno = -r;
		return -1;
	}
	if (fn)
		return fn(id, ts);
	return (int)syscall(SYS_clock_gettime, id, ts);
}

/* The library's seam to the kernel's clock (src/linux/next.c, which the
 * preload builds without): its own kernel reads reach the kernel, not
 * us: the vDSO's directly when the next clock_gettime() is libc's (set
 * by the constructor), else through pass_gettime(). */
CYCLOCK__READ_PATH int cyclock__next_gettime(clockid_t id, struct timespec *ts)
{
	return pass_gettime(id, ts);
}

/* 10^9 = 2^9 * 1953125, and 1953125's inverse mod 2^64: a multiple of
 * 10^9 divides exactly by a shift and a multiply. */
#define NS_PER_SEC_ODD_INV 0x8e47ce423a2e9c6dull

/*
 * A served clock's value, its parts from cyclock__read_parts() (the
 * start's second @base, @since, the packed offset @off), as seconds and
 * nanoseconds, with no division on the path from the counter to the
 * result, which the next call's ordered read waits for.  @base and @off
 * are loaded before the counter is read, so their seconds are taken while
 * the counter read is under way: @base is whole seconds
 * (cyclock/timeline.h) and divides exactly, by a shift and a multiply, and
 * @off keeps its seconds apart, as the kernel's vDSO keeps its seconds
 * (docs/preload.md, "Cost").  What waits for the counter is then
 * cyclock_now()'s multiply, add and shift, the add of the offset's rest
 * and a compare.  The nanoseconds are under 3 s (a second's rest, an
 * offset's rest, the middle piece's few ms), so the loop, kept a loop by
 * the empty asm (the compiler would make it a division), runs twice at
 * most.
 */
static inline __attribute__((always_inline)) void split(uint64_t base, uint64_t since,
							uint64_t off, uint64_t *sec,
							uint64_t *nsec)
{
	*sec = (base >> 9) * NS_PER_SEC_ODD_INV + cyclock__off_sec(off);
	*nsec = since + cyclock__off_rest(off);
	while (*nsec >= NS_PER_SEC) {
		__asm__("" : "+r"(*nsec));
		*nsec -= NS_PER_SEC;
		++*sec;
	}
}

/*
 * The slow path's value (cyclock__slow()) into @ts or @tv.  Calls of their
 * own, which the fast paths below jump to as their last act: a fast path
 * then calls nothing, so it keeps everything in registers and saves none
 * on the stack, as cyclock_now() does.
 */
static CYCLOCK__READ_PATH __attribute__((noinline)) int slow_ts(unsigned int kind, uint64_t word,
						   uint64_t cyc, struct timespec *ts)
{
	uint64_t ns = cyclock__slow(kind, word, cyc);

	ts->tv_sec = (time_t)(ns / NS_PER_SEC);
	ts->tv_nsec = (long)(ns % NS_PER_SEC);
	return 0;
}

static __attribute__((noinline, cold)) int slow_tv(unsigned int kind, uint64_t word,
						   uint64_t cyc, struct timeval *tv)
{
	uint64_t ns = cyclock__slow(kind, word, cyc);

	tv->tv_sec = (time_t)(ns / NS_PER_SEC);
	tv->tv_usec = (suseconds_t)(ns % NS_PER_SEC / 1000);
	return 0;
}

/* Timeline @tl's clock @kind into @ts: the fast path, inlined into each
 * caller, where @kind is a constant. */
static inline __attribute__((always_inline)) int serve_ts(struct cyclock__timeline *tl,
							  unsigned int kind, struct timespec *ts)
{
	uint64_t base, since, off, sec, nsec;

	if (cyclock_unlikely(!cyclock__read_parts(tl, kind, &base, &since, &off)))
		return slow_ts(kind, base, since, ts);
	split(base, since, off, &sec, &nsec);
	ts->tv_sec = (time_t)sec;
	ts->tv_nsec = (long)nsec;
	return 0;
}

/*
 * Fine clock @id (timeline @tl, offset @kind) into @ts, if @mask serves
 * it: true, with the call's result in *@r.  One compare of its bit and
 * RELAXED together, then the read @mask says, inlined: each id's path
 * runs through with no call.
 */
static inline __attribute__((always_inline)) bool serve_fine(unsigned int mask, clockid_t id,
							     struct cyclock__timeline *tl,
							     unsigned int kind,
							     struct timespec *ts, int *r)
{
	unsigned int m = mask & (BIT(id) | RELAXED);

	if (cyclock_likely(m == BIT(id)))
		*r = serve_ts(tl, CYCLOCK__ORDERED | kind, ts);
	else if (m == (BIT(id) | RELAXED))
		*r = serve_ts(tl, kind, ts);
	else
		return false;
	return true;
}

/* CLOCK_REALTIME into @tv, with the read @ordered says. */
static inline __attribute__((always_inline)) int serve_tv(unsigned int ordered,
							  struct timeval *tv)
{
	unsigned int kind = ordered | CYCLOCK__REAL;
	uint64_t base, since, off, sec, nsec;

	if (cyclock_unlikely(!cyclock__read_parts(&cyclock__mono, kind, &base, &since, &off)))
		return slow_tv(kind, base, since, tv);
	split(base, since, off, &sec, &nsec);
	tv->tv_sec = (time_t)sec;
	tv->tv_usec = (suseconds_t)(nsec / 1000);
	return 0;
}

/* CLOCK_REALTIME - CLOCK_MONOTONIC, from the current segment: the one
 * field this read path needs, not cyclock__seg_load()'s nine. */
static uint64_t off_real(void)
{
	const struct cyclock__seg *seg;
	uint64_t off, word;

	do {
		word = cyclock__tl_begin(&cyclock__mono);
		seg = &cyclock__mono.seg[word & 1];
		off = cyclock__off_ns(cyclock__load64(&seg->off_real));
	} while (cyclock__tl_retry(&cyclock__mono, word));
	return off;
}

/*
 * CLOCK_MONOTONIC_COARSE (@real: CLOCK_REALTIME_COARSE): cyclock_coarse(),
 * the kernel's coarse clock on cyclock's timeline (no thread), plus the
 * timeline's REALTIME offset.
 */
static void read_coarse(bool real, uint64_t *sec, uint64_t *nsec)
{
	uint64_t ns = cyclock__coarse_read();

	if (real)
		ns += off_real();
	*sec = ns / NS_PER_SEC;
	*nsec = ns % NS_PER_SEC;
}

/* Whether @id is served by @mask (served_now()'s value, or a part of it). */
static bool is_served(unsigned int mask, clockid_t id)
{
	/* Negative ids (CPU-time clocks of a pid or thread) wrap to large. */
	return (unsigned int)id < 16 && (mask & BIT(id));
}

/*
 * The clock ids served, as bits, and RELAXED: cyclock__mono's
 * preload_clocks, on the line a read of the timeline loads anyway
 * (cyclock/timeline.h); 0 until the constructor has finished.  Relaxed:
 * cyclock's readers synchronise with its initialisation on their own.
 */
static unsigned int served_now(void)
{
	return cyclock_atomic_load(&cyclock__mono.preload_clocks, CYCLOCK_RELAXED);
}

/* A coarse clock served (@id one of COARSE) into @ts. */
static __attribute__((noinline)) int serve_coarse(clockid_t id, struct timespec *ts)
{
	uint64_t sec, nsec;

	read_coarse(id == CLOCK_REALTIME_COARSE, &sec, &nsec);
	ts->tv_sec = (time_t)sec;
	ts->tv_nsec = (long)nsec;
	return 0;
}

/* Every call but a served CLOCK_MONOTONIC's or CLOCK_REALTIME's and a
 * coarse clock's passed to the vDSO: a call of its own, which
 * clock_gettime() jumps to, so that their paths run through without a jump
 * over these (a read after a pause fetches fewer lines).  The other fine
 * clocks, the coarse ones served (serve_coarse()), and what is not served
 * goes on from here. */
static __attribute__((noinline)) int gettime_rest(unsigned int mask, clockid_t id,
						  struct timespec *ts)
{
	int r;

	if (!is_null(ts)) {
		if (id == CLOCK_MONOTONIC_RAW &&
		    serve_fine(mask, id, &cyclock__raw, CYCLOCK__RAW, ts, &r))
			return r;
		if (id == CLOCK_BOOTTIME && serve_fine(mask, id, &cyclock__mono, CYCLOCK__BOOT, ts, &r))
			return r;
		if (is_served(mask & COARSE, id))
			return serve_coarse(id, ts);
	}
	return pass_gettime(id, ts);
}

/* CLOCK_MONOTONIC's path is a compare of @id, a test of @ts, a compare of
 * its bit and RELAXED together, then the read, in a few lines of code;
 * CLOCK_REALTIME's the same after it; then a coarse clock not served goes
 * to the vDSO as libc's call does, with a jump (its coarse clocks never
 * fail: no errno to set); everything else is gettime_rest()'s. */
PRELOAD_API CYCLOCK__READ_PATH int clock_gettime(clockid_t id, struct timespec *ts)
{
	unsigned int mask = served_now();
	gettime_fn *vdso;
	int r;

	if (cyclock_likely(id == CLOCK_MONOTONIC && !is_null(ts)) &&
	    serve_fine(mask, CLOCK_MONOTONIC, &cyclock__mono, 0, ts, &r))
		return r;
	if (id == CLOCK_REALTIME && !is_null(ts) &&
	    serve_fine(mask, CLOCK_REALTIME, &cyclock__mono, CYCLOCK__REAL, ts, &r))
		return r;
	if ((id == CLOCK_MONOTONIC_COARSE || id == CLOCK_REALTIME_COARSE) &&
	    !is_served(mask & COARSE, id) && !is_null(ts) && (vdso = cyclock__vdso_gettime()))
		return vdso(id, ts);
	return gettime_rest(mask, id, ts);
}

/*
 * For libcyclock.so in the same process (src/linux/next.c): what to call
 * for the kernel's clock in place of @fn, the clock_gettime() it would
 * reach.  When @fn is this library's, the next definition after it, which
 * this library calls for the kernel's clock itself: a library that called
 * ours would follow cyclock's clock, not the kernel's.  @fn otherwise.
 * At load, perhaps before this library's constructor: it asks the dynamic
 * linker itself.
 */
PRELOAD_API gettime_fn *cyclock_preload_next_gettime(gettime_fn *fn)
{
	gettime_fn *next = cyclock_atomic_load(&real_gettime, CYCLOCK_SEQ_CST);
	Dl_info of_fn, here;

	/* By object, not by address: this library's name for clock_gettime
	 * is the program's, which may be a definition before it. */
	if (!fn || !dladdr((void *)fn, &of_fn) || !dladdr((void *)pass_gettime, &here) ||
	    of_fn.dli_fbase != here.dli_fbase)
		return fn;
	return next ? next : (gettime_fn *)dlsym(RTLD_NEXT, "clock_gettime");
}

/* With a timezone asked for, the kernel fills it: pass through. */
PRELOAD_API int gettimeofday(struct timeval *restrict tv, void *restrict tz)
{
	unsigned int mask = served_now();
	gettimeofday_fn *fn;

	if (is_served(mask, CLOCK_REALTIME) && !is_null(tv) && !tz)
		return mask & RELAXED ? serve_tv(0, tv) : serve_tv(CYCLOCK__ORDERED, tv);
	fn = cyclock_atomic_load(&real_gettimeofday, CYCLOCK_RELAXED);
	if (fn)
		return fn(tv, tz);
	return (int)syscall(SYS_gettimeofday, tv, tz);
}

/* time()'s value into *@t too, where @t is not NULL: served (@ours,
 * CLOCK_REALTIME_COARSE's seconds), or the kernel's by the syscall. */
static __attribute__((noinline)) time_t time_of(bool ours, time_t *t)
{
	struct timespec ts;
	uint64_t sec, nsec;

	if (ours) {
		read_coarse(true, &sec, &nsec);
		ts.tv_sec = (time_t)sec;
	} else if (pass_gettime(CLOCK_REALTIME_COARSE, &ts)) {
		return (time_t)-1;
	}
	if (t)
		*t = ts.tv_sec;
	return ts.tv_sec;
}

/* time() is CLOCK_REALTIME_COARSE's seconds, in the kernel as here.
 * Passed through, a jump to the next (libc's resolves to the vDSO's),
 * with no frame of its own. */
PRELOAD_API time_t time(time_t *t)
{
	time_fn *fn;

	if (is_served(served_now(), CLOCK_REALTIME_COARSE))
		return time_of(true, t);
	fn = cyclock_atomic_load(&real_time, CYCLOCK_RELAXED);
	if (cyclock_likely(fn != NULL))
		return fn(t);
	return time_of(false, t);
}

/* C11's TIME_UTC is CLOCK_REALTIME; other bases are libc's. */
PRELOAD_API int timespec_get(struct timespec *ts, int base)
{
	timespec_get_fn *fn;

	if (base == TIME_UTC)
		return clock_gettime(CLOCK_REALTIME, ts) == 0 ? base : 0;
	fn = cyclock_atomic_load(&real_timespec_get, CYCLOCK_RELAXED);
	return fn ? fn(ts, base) : 0;
}

/* CYCLOCK_PRELOAD_CLOCKS as bits; the fine clocks when unset. */
static unsigned int wanted_clocks(const char *list)
{
	unsigned int mask = 0;

	if (!list)
		return FINE;
	while (*list) {
		size_t len = strcspn(list, ",");

		for (size_t i = 0; i < CYCLOCK_PRELOAD_NAMES_N; i++)
			if (strlen(cyclock_preload_names[i].name) == len &&
			    !strncmp(list, cyclock_preload_names[i].name, len))
				mask |= BIT(cyclock_preload_names[i].id);
		list += len + (list[len] == ',');
	}
	return mask;
}

/* CYCLOCK_PRELOAD_RELAXED as RELAXED or 0. */
static unsigned int wanted_relaxed(const char *v)
{
	static const char said[] = "cyclock: ignoring CYCLOCK_PRELOAD_RELAXED (expected 1 or 0)\n";

	if (!v || !strcmp(v, "0"))
		return 0;
	if (!strcmp(v, "1"))
		return RELAXED;
	cyclock__say(said, sizeof(said) - 1);
	return 0;
}

/* Initialisation's end (from cyclock__init_lazily()): without the
 * counter, every clock passes through from here on. */
static void initialised(bool counter)
{
	if (counter)
		return;
	cyclock__status_preload(0, served_now() & RELAXED, NULL);
	cyclock_atomic_store(&cyclock__mono.preload_clocks, 0, CYCLOCK_SEQ_CST);
	cyclock_atomic_store(&cyclock_preload_active, 0, CYCLOCK_SEQ_CST);
}

/*
 * Runs once per process image, before main() and after the constructors
 * of the libraries initialised before this one.  dlsym() returning NULL
 * (no next definition) leaves the syscall in place.  It asks the machine
 * nothing (the library's constructor does, at load: docs/hosted.md,
 * "System calls"): the reads initialise lazily, as cyclock_now()'s do
 * (CYCLOCK__INIT_READ), and get the kernel's clocks through cyclock's
 * slow path until the timelines start.  No per-CPU cyclock_local() (CYCLOCK__INIT_NO_LOCAL).  With
 * CYCLOCK_SOURCE=kernel, and once initialisation has distrusted the
 * counter (initialised()), every clock passes through.
 */
__attribute__((constructor)) static void preload_init(void)
{
	unsigned int mask = wanted_clocks(getenv("CYCLOCK_PRELOAD_CLOCKS"));
	unsigned int relaxed = wanted_relaxed(getenv("CYCLOCK_PRELOAD_RELAXED"));
	bool kernel = cyclock__env_source() == FORCE_KERNEL;

	cyclock_atomic_store(&real_gettime, (gettime_fn *)dlsym(RTLD_NEXT, "clock_gettime"),
			     CYCLOCK_SEQ_CST);
	cyclock_atomic_store(&real_gettimeofday,
			     (gettimeofday_fn *)dlsym(RTLD_NEXT, "gettimeofday"), CYCLOCK_SEQ_CST);
	cyclock_atomic_store(&real_timespec_get,
			     (timespec_get_fn *)dlsym(RTLD_NEXT, "timespec_get"), CYCLOCK_SEQ_CST);
	cyclock_atomic_store(&real_time, (time_fn *)dlsym(RTLD_NEXT, "time"), CYCLOCK_SEQ_CST);
	cyclock__vdso_gettime_set(
		cyclock__vdso_gettime_of(cyclock_atomic_load(&real_gettime, CYCLOCK_SEQ_CST)));
	if (kernel)
		mask = 0;
	/* Before any read can initialise: the decision's comes after it. */
	cyclock__status_preload(mask, mask && relaxed,
				mask ? NULL
				: kernel ? "CYCLOCK_SOURCE=kernel: every clock passed to the kernel"
					 : "CYCLOCK_PRELOAD_CLOCKS names no clock it serves");
	if (mask)
		cyclock__init_lazily(CYCLOCK__INIT_NO_LOCAL, initialised);
	cyclock_atomic_store(&cyclock__mono.preload_clocks, mask ? mask | relaxed : 0,
			     CYCLOCK_SEQ_CST);
	cyclock_atomic_store(&cyclock_preload_active, mask ? mask | relaxed : 0, CYCLOCK_SEQ_CST);
}
