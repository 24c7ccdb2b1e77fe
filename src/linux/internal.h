/* SPDX-License-Identifier: MIT */
/*
 * The hosted layer's internals: its constants (intervals, bounds, slopes),
 * its shared state by role (host, setup, tracks), the readers' way to
 * their timelines, and what each file offers the others (trust.c's
 * decision, checks.c's questions, start.c, status.c, init.c, load.c,
 * local.c, coarse.c).  Nothing here is installed.  Two parts of it have
 * files of their own, included below: writer.h, the resync's controller,
 * values and steps, and machine.h, what is asked of the machine and the
 * process.
 *
 * The readers' data are the two timelines in cyclock/timeline.h; everything
 * here is the writers' (under host.writer) or written once at init.
 */
#ifndef CYCLOCK_LINUX_INTERNAL_H
#define CYCLOCK_LINUX_INTERNAL_H

#include <pthread.h>
#include <sys/types.h>
#include <signal.h>
#include <time.h>

/* The arch header's CPUID answered from a cache (cpuid.c), each leaf
 * asked once: before cyclock.h, which includes the arch header. */
void cyclock__cpuid(unsigned int leaf, unsigned int r[4]);
#define CYCLOCK_ARCH_CPUID(leaf, r) cyclock__cpuid((leaf), (r))

#include "cyclock.h"
#include "cyclock/timeline.h"

#define NSEC_PER_SEC 1000000000ull
#define NSEC_PER_USEC 1000ull

/*
 * The tracking's tuning, each number once, with its unit and why
 * (docs/hosted.md, "Tracking the kernel's clocks", has the whole).
 */
/* Resync intervals: the kernel may change its rate at any tick, and an
 * interval bounds how long a change goes unseen. */
#define CYCLOCK_MIN_INTERVAL_NS (1000 * NSEC_PER_USEC) /* the first; doubles while good, */
#define CYCLOCK_MAX_INTERVAL_NS (2000 * NSEC_PER_USEC) /* up to this */
#define CYCLOCK_GOOD_ERR_NS 250                     /* an error this small lengthens it */
/* A read this soon after a horizon resyncs (a later one comes from a gap
 * over half a segment, and a segment it made would serve one more read at
 * most), */
#define CYCLOCK_PAY_NS (CYCLOCK_MAX_INTERVAL_NS / 2)
#define CYCLOCK_ROW_READS 16                        /* and one after this many served in a row, */
#define CYCLOCK_ROW_NS (1000 * NSEC_PER_USEC)       /* each this soon after the one before */
/* Samples and errors. */
#define CYCLOCK_TIGHT_NS 150      /* a bracket this narrow needs no second try */
#define CYCLOCK_NOISE_NS 500      /* a sample's own noise: an error this small is no news */
#define CYCLOCK_STEP_NS 200       /* behind the kernel by more (beyond the bracket): step */
#define CYCLOCK_WRONG_NS (100 * NSEC_PER_USEC) /* off by more, unexplained: the counter is */
#define CYCLOCK_MAX_BACK_NS (10 * NSEC_PER_USEC) /* a relaxed read's reach before the start */
/* Slopes, in ppm of the estimated rate. */
#define CYCLOCK_FOLLOW_PPM 1000.0 /* a slope strays this far at most, and a stated change
				   * this large is followed on the counter (larger: kernel mode) */
#define CYCLOCK_CORRECT_PPM 500.0 /* an error beyond the noise is taken back this fast, */
#define CYCLOCK_GENTLE_NS (32 * NSEC_PER_USEC * 1000) /* one within it over this long */
#define CYCLOCK_AGREE_PPM 5.0     /* a measured rate this close to the stated: take the stated */
/* MONOTONIC's rate over RAW's (rate.c): not known before a first
 * measurement; an offset this far beyond the brackets is no change (the
 * kernel's own steering of its multiplier keeps within it); a ratio
 * measured this well over the rate's baseline is taken, even if the one
 * in use was measured better (the baseline moves on). */
#define CYCLOCK_RATIO_UNKNOWN 1e9
#define CYCLOCK_RATIO_SLACK_NS 5.0
#define CYCLOCK_RATIO_GOOD_PPM 0.5
/* The rate's baseline: long enough to average the brackets' noise out,
 * short enough to follow NTP. */
#define CYCLOCK_RATE_MIN_NS (50 * NSEC_PER_USEC * 1000) /* none shorter (the first rate until) */
#define CYCLOCK_RATE_SPAN_NS NSEC_PER_SEC               /* none longer */
/* Kernel mode: how it looks for the rate to settle. */
#define CYCLOCK_RECHECK_NS (2000 * NSEC_PER_USEC)      /* it looks again this often */
#define CYCLOCK_STEADY_NS (16 * NSEC_PER_USEC * 1000)  /* over windows this long */
#define CYCLOCK_STEADY_PPM 10.0                        /* two in a row this close: steady */
#define CYCLOCK_FRESH_NS (500 * NSEC_PER_USEC)         /* the fresh segment's horizon then */
#define CYCLOCK_FRESH_MARGIN_NS (50 * NSEC_PER_USEC)   /* its sample at most this old */
#define CYCLOCK_RECENT_NS (5 * NSEC_PER_SEC)  /* a spell this recent: the rate may move again, */
#define CYCLOCK_QUICK_NS (250 * NSEC_PER_USEC) /* so the interval is at most this */
/* REALTIME and BOOTTIME: their offsets from MONOTONIC, measured this often. */
#define CYCLOCK_OFFSETS_NS (32 * NSEC_PER_USEC * 1000)
/* Kernel-mode spells in a row, each within CYCLOCK_RECENT_NS of the last,
 * double the steadiness asked before the counter takes over again, up to
 * this many times (2^6: 64 windows' worth). */
#define CYCLOCK_STREAK_MAX 6
/* The slow path's tries (a torn copy, a resync) before it serves the
 * kernel's clock as it is. */
#define CYCLOCK_SLOW_PASSES 3
/* The code a read runs, past the horizon too, on one page: after a pause
 * each page it touches is a page walk (docs/hosted.md, "A read after a
 * pause").  The readers, their slow path and the preload's
 * clock_gettime() go in one section, which the linker gathers at the
 * start of .text across objects; the first object linked that has any
 * starts it on a page (CYCLOCK__READ_PATH_PAGE, at its top: read.c's, or
 * preload.c's in the preload (CYCLOCK_PRELOAD), which is linked first).
 * tests/build/read_pages.sh checks the result. */
#define CYCLOCK__READ_PATH __attribute__((section(".text.hot.cyclock_read")))
#define CYCLOCK__READ_PATH_PAGE                                                    \
	__asm__(".pushsection .text.hot.cyclock_read,\"ax\",%progbits\n.balign 4096\n" \
		".popsection")
/* A warp check that took fewer turns than this says nothing. */
#define CYCLOCK_WARP_TURNS 100

static inline double cyclock__absd(double x)
{
	return x < 0 ? -x : x;
}

/* How far a rate @ppb (parts per billion) off drifts over @span_ns. */
static inline uint64_t cyclock__drift_ns(double span_ns, uint32_t ppb)
{
	return (uint64_t)(span_ns * (double)ppb * 1e-9);
}

#include "writer.h"

/* Initialisation's states: see cyclock__init_once(). */
enum { INIT_NONE, INIT_BUSY, INIT_DONE, INIT_MEASURING, INIT_FIRST };

/* cyclock__init_once() flag, beside cyclock_init()'s: never wait during
 * initialisation (every read's).  The timelines start at the first read
 * after the last check that is at least 500 us after the first half (at
 * the next if the hardware states the frequency); until then readers get
 * the kernel's clocks. */
#define CYCLOCK__INIT_DEFER 0x100u
/* The preload's (cyclock__init_lazily()): no per-CPU cyclock_local(),
 * which it serves no clock from. */
#define CYCLOCK__INIT_NO_LOCAL 0x200u
/* A read's, beside CYCLOCK__INIT_DEFER: the process's first read only
 * notes that it came (INIT_FIRST) and serves the kernel's clock; the
 * next read does the first half.  A process that reads once pays for no
 * initialisation. */
#define CYCLOCK__INIT_READ 0x400u
enum { FORCE_NONE, FORCE_COUNTER, FORCE_KERNEL };

/* The hosted layer's shared state, by role. */

/* Initialisation's progress and the writers' flag: the words threads
 * race on (init.c, resync.c). */
struct cyclock__host {
	/* INIT_*; INIT_BUSY names its owner too (init.c's busy()) */
	CYCLOCK_ALIGNAS(CYCLOCK_CACHELINE) CYCLOCK_ATOMIC(uint64_t) state;
	CYCLOCK_ATOMIC(uint32_t) writer;   /* one resync at a time: its process id, or 0 */
	CYCLOCK_ATOMIC(uint32_t) pending;  /* cyclock_resync() asked while one ran */
	CYCLOCK_ATOMIC(uint64_t) look_ns;  /* nobody asks if the owner lives before (RAW) */
	CYCLOCK_ATOMIC(uint64_t) gen;      /* an explicit call's BUSY's generation, the next */
	CYCLOCK_ATOMIC(uint64_t) owner;    /* its owner's identity, under its generation */
};
#define CYCLOCK__INIT_STATE(word) ((uint32_t)((word) & 0xf)) /* its INIT_* */
extern struct cyclock__host cyclock__host;

/* What initialisation decided and measured: written once, by the thread
 * that initialises, and read by others once they have seen INIT_DONE
 * (using_counter and local_percpu are atomic, plain loads on x86, because
 * a compiler may load them before that check, where ThreadSanitizer sees
 * the race).  describe.c reports it. */
struct cyclock__setup {
	CYCLOCK_ATOMIC(bool) using_counter;
	CYCLOCK_ATOMIC(bool) local_percpu;
	const char *why;                  /* why the kernel's clocks are used, or NULL */
	const char *distrust;             /* why not the counter, or NULL */
	bool forced;                      /* CYCLOCK_SOURCE chose the counter */
	double hz_hint;
	const char *hz_source;
	struct cyclock__sample first_raw; /* for the frequency's uncertainty */
	uint32_t ordered;                 /* the ordered read chosen (timeline.how) */
	char ordered_why[160];            /* and why */
	int64_t warp_cyc;                 /* -1: the check could not run */
	uint64_t warp_turns;              /* turns the check took */
	bool warp_ran;                    /* false: one CPU allowed, or not asked */
	uint64_t init_ns;                 /* both halves of it */
	struct cyclock__counts counts;
};
extern struct cyclock__setup cyclock__setup;

/* The writers' own: the two timelines' controllers and the offsets they
 * publish, under the writer flag (the anomalies' count is read freely).
 * The offsets are plain data one writer leaves the next through the
 * flag's release and acquire (CYCLOCK_SHARED, cyclock/atomic.h). */
struct cyclock__tracks {
	struct cyclock__track mono, raw;
	CYCLOCK_SHARED(uint64_t) off_real, off_boot;     /* as last published */
	CYCLOCK_SHARED(uint64_t) off_real_w, off_boot_w; /* the widths of their brackets */
	CYCLOCK_ATOMIC(uint64_t) offsets_ns; /* CLOCK_MONOTONIC at their last measurement */
	CYCLOCK_ATOMIC(uint64_t) anomalies;
};
extern struct cyclock__tracks cyclock__tracks;
#define TRACKS_OFF(field) cyclock_shared(cyclock__tracks.field) /* under the writer flag */

/*
 * The timeline a read of @kind uses, as the library's own read path
 * reaches it: through the timeline's self, loaded from under a hidden
 * name the linker binds (shared.c), not through the library's GOT, which
 * is a page of its own that a read after a pause would walk too
 * (docs/hosted.md, "A read after a pause").  A program whose inline
 * readers copy-relocated a timeline reads its copy, and self, relocated
 * at load, is that copy.  The simulation has no GOT to spare, and the
 * preload, whose symbols are all hidden, none to avoid.
 */
#if defined(CYCLOCK_SIM) || defined(CYCLOCK_PRELOAD)
#define CYCLOCK__TL_HERE(name) (&name)
#else
extern struct cyclock__timeline cyclock__mono_here __attribute__((visibility("hidden")));
extern struct cyclock__timeline cyclock__raw_here __attribute__((visibility("hidden")));
#define CYCLOCK__TL_HERE(name) (name##_here.self)
#endif
static inline struct cyclock__timeline *cyclock__tl_of(unsigned int kind)
{
	return kind & CYCLOCK__RAW ? CYCLOCK__TL_HERE(cyclock__raw) : CYCLOCK__TL_HERE(cyclock__mono);
}

/*
 * cyclock__tl_of() for a read's fast path.  self is on the timeline's last
 * line and the read's data on its first, which the read can only load once
 * self is in: after a pause, two misses one after the other.  So the
 * library's own copy's first line, where self points unless a program
 * copy-relocated the timeline, is fetched while self is loaded, and the
 * two misses overlap (docs/hosted.md, "A read after a pause").
 */
static inline __attribute__((always_inline)) struct cyclock__timeline *
cyclock__tl_read(unsigned int kind)
{
#if !(defined(CYCLOCK_SIM) || defined(CYCLOCK_PRELOAD))
	__builtin_prefetch(kind & CYCLOCK__RAW ? &cyclock__raw_here : &cyclock__mono_here);
#endif
	return cyclock__tl_of(kind);
}

#include "machine.h"

/*
 * trust.c: whether to trust the counter, a decision over what the caller,
 * the environment and the machine answered (tests/linux/test_trust.c asks
 * it case by case, with no machine).
 */
enum { CYCLOCK__CS_THIS, CYCLOCK__CS_OTHER, CYCLOCK__CS_UNREAD }; /* the kernel's clocksource */
struct cyclock__answers {
	bool kernel_asked;          /* cyclock_init(CYCLOCK_INIT_KERNEL) */
	int force;                  /* FORCE_*: CYCLOCK_SOURCE */
	bool has_counter;           /* the architecture has a user-space counter */
	bool no_local;              /* no per-CPU cyclock_local() wanted (the preload) */
	bool invariant;             /* the counter's rate is constant (CPUID) */
	int clocksource;            /* CYCLOCK__CS_*: the kernel uses this counter, */
	char clocksource_name[32];  /* another (named here), or it could not be read */
	int64_t warp_cyc;           /* a warp check's largest step back; <= 0: none seen */
	int warp_cpu[2];            /* between these CPUs */
	double hz;                  /* stated or measured; below 1e3: it does not advance */
	bool counter_cpu;           /* the per-CPU clock's read of the counter and CPU works */
};
struct cyclock__trust {
	bool use_counter;           /* the timelines run on the counter */
	bool local_percpu;          /* cyclock_local() runs per CPU over it */
	bool forced;                /* CYCLOCK_SOURCE chose the counter */
	char why[96];               /* why the kernel's clocks; "" on the counter */
	char distrust[96];          /* why the counter is not trusted; "" if it is */
};
const char *cyclock__trust_none(const struct cyclock__answers *a); /* no counter at all: why */
bool cyclock__trust_needs_hz(const struct cyclock__answers *a);
struct cyclock__trust cyclock__trust(const struct cyclock__answers *a);

/*
 * checks.c: what initialisation asks the machine: what takes a system
 * call at load (cyclock__check_at_load()), then one list, walked one item
 * a read ahead of the second half (cyclock__check_next()) and what is
 * left at once (cyclock__check_rest()); init.c keeps what was asked.
 */
struct cyclock__asked {
	bool have_load;            /* the load's answers are in: */
	bool record_loaded;        /* the machine's record is there, whole, */
	bool record_tried;         /* a read asked what the CPU says of it, */
	bool record_taken;         /* and it answered CPUID and the reads' costs */
	int clocksource;           /* CYCLOCK__CS_* */
	char clocksource_name[32];
	bool clocksource_kept;     /* as the record read it, not sysfs */
};
void cyclock__check_at_load(void);
void cyclock__check_loaded(struct cyclock__asked *q); /* the load's answers, if in */
void cyclock__check_reload(void);                     /* the simulation's, at a reset */
bool cyclock__check_pending(const struct cyclock__asked *q); /* an item is left */
bool cyclock__check_next(struct cyclock__asked *q); /* false: nothing left */
void cyclock__check_rest(struct cyclock__asked *q);
/* The machine's answers into @a, from what was asked and the caches; the
 * frequency the hardware states (0: none), its source in setup.hz_source. */
uint64_t cyclock__check_answers(struct cyclock__answers *a, const struct cyclock__asked *q);
/* The warp check, asked for, on a counter nothing else distrusts. */
void cyclock__check_warp(struct cyclock__answers *a);

/* start.c: how the timelines start, in kernel mode with the offsets
 * (first half), then on the counter at @hz from init's first sample and
 * @s1 (second half). */
void cyclock__start_kernel_mode(void);
void cyclock__start_counter(double hz, const struct cyclock__sample *s1);

/* status.c: the one record of what the library decided and did
 * (cyclock/status.h), exported for "cyclock status", read back here. */
#include "cyclock/status.h"
CYCLOCK_API extern struct cyclock_status cyclock_status;
extern struct cyclock_status cyclock__status_block __attribute__((visibility("hidden")));
void cyclock__status_setup(void);
void cyclock__status_preload(uint32_t served, bool relaxed, const char *why);
void cyclock__status_counts(const struct cyclock__track *tr, uint64_t ns, bool kernel_mode);
/* What this process last wrote: the setup in the block (no write changes
 * it once initialisation is done), its counts one write's, and their
 * kernel_why as the literal it was copied from (static duration). */
struct cyclock__status_view {
	const struct cyclock_status_setup *setup;
	struct cyclock_status_counts counts;
	const char *kernel_why;
};
void cyclock__status_own(struct cyclock__status_view *v);

/* init.c */
void cyclock__init_once(unsigned int flags);
/* Every initialisation's @flags beside its own, and @done(whether the
 * counter is used) at its end, from the BUSY that ends it: the preload's,
 * from its constructor, which itself initialises nothing. */
void cyclock__init_lazily(unsigned int flags, void (*done)(bool counter));
bool cyclock__init_wait(unsigned int flags, bool warp); /* bounded: */
#define CYCLOCK__INIT_WAIT_NS (250 * NSEC_PER_USEC * 1000)
const char *cyclock__init_why(void); /* why not done yet; NULL once done */
void cyclock__init_fork_child(void);
bool cyclock__checked_ahead(void); /* the reads in the span did every check (tests) */
bool cyclock__record_used(void);   /* the machine's record answered (tests) */
bool cyclock__clocksource_kept(void); /* and the clocksource, no sysfs read (tests) */

/* owner.c: initialisation's owner: @expected to INIT_BUSY, ours
 * (@asked, by an explicit call: our task named, a system call); whether the owner named in
 * BUSY word @word is gone (an explicit call's question: system calls). */
bool cyclock__init_take(uint64_t *expected, bool asked);
bool cyclock__init_owner_gone(uint64_t word);

/* load.c: the library's load (read.c's constructor calls it), and the
 * fork handler, for the child (and the tests). */
void cyclock__load(void);
void cyclock__fork_child(void);

/* local.c: cyclock_local() on an unsynchronised counter. */
int cyclock__local_init(double hz);
void cyclock__local_reset(void);
uint64_t cyclock__local_read(void);

/* coarse.c */
uint64_t cyclock__coarse_below(uint64_t ns);
void cyclock__coarse_period(uint64_t ns);
bool cyclock__coarse_start(void);
void cyclock__coarse_tick(void); /* the ticker's step, on its thread (the model runs it) */

#endif /* CYCLOCK_LINUX_INTERNAL_H */
