/* SPDX-License-Identifier: MIT */
/*
 * The writer's side of the hosted layer: the samples it takes, the
 * segments it publishes, each timeline's controller (the track) and the
 * decisions a resync makes.  Part of internal.h, which includes it after
 * the tuning: include internal.h, not this.
 */
#ifndef CYCLOCK_LINUX_WRITER_H
#define CYCLOCK_LINUX_WRITER_H

/* One bracketed reading of a kernel clock against the counter; a
 * CLOCK_MONOTONIC one also carries CLOCK_MONOTONIC_RAW - CLOCK_MONOTONIC,
 * read between two readings of MONOTONIC right after: the kernel's own
 * word on MONOTONIC's rate (rate.c). */
struct cyclock__sample {
	uint64_t cyc;   /* the counter at the kernel reading (mid-bracket) */
	uint64_t lo;    /* the counter before it: the reading is no earlier */
	uint64_t width; /* bracket width, counts: the reading is no later than lo + width */
	uint64_t ns;    /* the kernel clock */
	uint64_t raw_off; /* RAW - MONOTONIC (mod 2^64), */
	uint64_t raw_w;   /* within this many ns (its MONOTONIC bracket); 0: not read */
};

/* The REALTIME and BOOTTIME offsets from MONOTONIC, as read, with the
 * widths of their brackets. */
struct cyclock__offsets {
	uint64_t real, real_w, boot, boot_w;
};

/* A segment as plain values (the writer's and the slow path's copy). */
struct cyclock__segv {
	uint64_t cyc, ns;
	uint64_t off_real, off_boot;
	uint32_t frac, horizon_cyc, mult, mult_rate; /* horizon_cyc 0: kernel mode */
	uint64_t recheck;               /* kernel mode: look at the counter again from here */
	uint32_t drift_ppb;             /* past the horizon, drift this far is no news */
};

/* The slope the writer may take a lead back at: 1/512 (1953 ppm) below the
 * rate. */
static inline uint32_t cyclock__mult_low(uint32_t mult_rate)
{
	return mult_rate - mult_rate / 512;
}

/* The tracking's constants (the tuning above) in counts of the counter,
 * set once its frequency is known (start.c). */
struct cyclock__counts {
	uint32_t shift; /* of the timelines' fixed point */
	uint64_t max_back_cyc, min_int_cyc, max_int_cyc;
	uint64_t fresh_cyc, fresh_margin_cyc, recheck_cyc, quick_int_cyc, tight_cyc;
};

struct cyclock__counts cyclock__counts_at(double hz); /* start.c: for a counter at @hz */

/* What a timeline's controller learns, resync after resync: the
 * writer's alone, and committed whole by a resync that took (resync.c). */
struct cyclock__track_state {
	double rate;                   /* the kernel clock's ns per count, estimated */
	struct cyclock__sample anchor; /* the rate's baseline starts here, */
	struct cyclock__sample mid;    /* and moves here when this is old enough, */
	struct cyclock__sample last;   /* the newest sample */
	uint64_t interval;             /* current resync interval, counts */
	int64_t last_err;              /* ns, ours - kernel at the last sample */
	uint64_t resyncs;
	/* MONOTONIC's rate over RAW's as the kernel's own clocks show it
	 * (rate.c), and kernel mode's windows. */
	double ratio_ppm;              /* MONOTONIC's rate / RAW's - 1, ppm, */
	double ratio_unc;              /* within this (ppm) */
	struct cyclock__sample win;    /* kernel mode: the current window's start */
	double win_rate;               /* the previous window's rate; 0: none yet */
	uint64_t spells;               /* times it went to kernel mode */
	uint64_t rate_changes;         /* rate changes followed on the counter */
	const char *kernel_why;        /* why it last went to kernel mode */
	unsigned int strikes;          /* resyncs in a row with an error beyond the noise */
	unsigned int streak;           /* kernel-mode spells in a row */
	uint64_t hold_ns;              /* keep the kernel's stated rate until then */
	uint64_t spell_end_ns;         /* the kernel's clock when the last one ended */
};

/* A timeline's controller: writer-only.  Its decisions (cyclock__decide())
 * read the track and what it points at, nothing else.  What it is (all
 * but its state) is written once, at the timelines' start, and read by
 * any thread, so a resync's commit writes the state alone. */
struct cyclock__track {
	struct cyclock__timeline *tl;
	clockid_t id;                  /* the kernel clock it follows */
	const struct cyclock__counts *counts;     /* the tuning in counts */
	const struct cyclock__track *raw;         /* RAW's: MONOTONIC runs at its rate times
						   * the kernel's ratio (RAW's is itself) */
	const struct cyclock__sample *first_raw;  /* init's first RAW sample: the longest
						   * baseline a rate has */
	struct cyclock__track_state state;
};

/* rate.c: the kernel's rate, as stated and as measured; the interval. */
uint32_t cyclock__mult_of(double ns_per_cyc, uint32_t shift);
double cyclock__stated_rate(const struct cyclock__track *tr);
double cyclock__best_rate(const struct cyclock__track *tr, double measured);
void cyclock__take_rate(struct cyclock__track *tr, const struct cyclock__sample *s);
bool cyclock__spell_recent(const struct cyclock__track *tr, uint64_t now_ns);
void cyclock__adapt_interval(struct cyclock__track *tr, uint64_t abs_err, uint64_t now_ns);
bool cyclock__follow_kernel(struct cyclock__track *tr, const struct cyclock__sample *s,
			    bool *moved);
uint64_t cyclock__drift_slack(const struct cyclock__track *tr, uint64_t gap);
uint32_t cyclock__drift_ppb(const struct cyclock__track *tr); /* drift_slack()'s, per ns */

/*
 * What a resync publishes, and why: cyclock__decide() (track.c) makes it
 * from the samples and the track's state alone, so that tests can ask it
 * without a kernel or a simulated one; the resync then publishes it.
 */
enum cyclock__what {
	CYCLOCK__KEEP,   /* the same segment, new offsets (a resync before the horizon) */
	CYCLOCK__NEXT,   /* the next counter segment */
	CYCLOCK__KERNEL, /* kernel mode: entered (why set), or stayed in */
	CYCLOCK__FRESH,  /* the counter again, from the sample: cyclock__start_fresh() */
};
struct cyclock__decision {
	enum cyclock__what what;
	struct cyclock__segv seg; /* to publish (FRESH: the segment it ends, with the offsets) */
	const char *why;          /* why kernel mode was entered, or NULL */
	bool counter_wrong;       /* and that was the counter's fault: an anomaly */
};
struct cyclock__decision cyclock__decide(struct cyclock__track *tr,
					 const struct cyclock__segv *cur,
					 const struct cyclock__sample *s, uint64_t cw,
					 const uint64_t *off, bool went_back);

/* kmode.c: kernel-mode spells (decisions), and the fresh segments that
 * end them (the first segment of all too: the timelines start in kernel
 * mode), which sample again if the sample is too old when published. */
bool cyclock__start_fresh(struct cyclock__track *tr, const struct cyclock__sample *s,
			  const struct cyclock__segv *cur);
struct cyclock__decision cyclock__enter_kernel(struct cyclock__track *tr,
					       const struct cyclock__segv *cur,
					       const struct cyclock__sample *s, uint64_t cw,
					       bool counter_wrong, const char *why);
struct cyclock__decision cyclock__kernel_step(struct cyclock__track *tr,
					      const struct cyclock__segv *cur,
					      const struct cyclock__sample *s, uint64_t cw,
					      bool moved);

/* sim.c: what other threads do just before a publish's swap (a test's
 * served reads: tests/linux/sim_bookkeeping.c); nothing outside the
 * simulation. */
#ifdef CYCLOCK_SIM
void cyclock__sim_before_swap(void);
#else
#define cyclock__sim_before_swap() ((void)0)
#endif

/* sample.c, segment.c, resync.c: the writer's side. */
void cyclock__sample(clockid_t id, struct cyclock__sample *s);
double cyclock__rate_unc(const struct cyclock__sample *a, const struct cyclock__sample *b,
			 double rate);
uint64_t cyclock__off_pack(uint64_t ns);
void cyclock__seg_form(uint64_t ns, uint32_t frac, uint64_t cyc, uint32_t mult, uint32_t shift,
		       uint64_t *sec_ns, uint64_t *k);
void cyclock__seg_start(uint64_t sec_ns, uint64_t k, uint64_t cyc, uint32_t mult, uint32_t shift,
			uint64_t *ns, uint32_t *frac);
struct cyclock__segv cyclock__seg_load(const struct cyclock__timeline *tl);
void cyclock__seg_at(const struct cyclock__segv *v, uint32_t shift, uint64_t cyc, uint64_t *ns,
		     uint32_t *frac);
uint64_t cyclock__seg_horizon(const struct cyclock__segv *v, uint32_t shift);
bool cyclock__publish(struct cyclock__timeline *tl, const struct cyclock__segv *v);
void cyclock__offsets_read(struct cyclock__offsets *o, bool first);
void cyclock__offsets_apply(const struct cyclock__offsets *o, bool first);
bool cyclock__writer_try(bool asked);
bool cyclock__writer_ours(uint32_t held, bool asked);
void cyclock__writer_done(void);
void cyclock__track_start(struct cyclock__track *tr, const struct cyclock__sample *s);
bool cyclock__resync(struct cyclock__track *tr, bool went_back, bool shielded);
void cyclock__resync_all(void);

#endif /* CYCLOCK_LINUX_WRITER_H */
