/* SPDX-License-Identifier: MIT */
/*
 * The public clocks: one-line wrappers over the inline fast path in
 * cyclock/timeline.h, and the slow path every reader falls into when the
 * fast path's single check fails.
 *
 * The slow path, in order: initialise on first use, without waiting
 * (init.c: the first read returns the kernel's clock); with no trusted
 * counter, read the kernel's clock; in kernel mode (not initialised yet,
 * or the kernel's clock changing faster than the counter can follow), the
 * kernel's clock read inside the latch, at least the floor; a counter a
 * little before the segment's start (a relaxed read that ran early)
 * converts with the previous slope; one past the segment's horizon
 * resyncs and reads again from the new segment, or, if another thread is
 * resyncing, returns the kernel's clock (or the horizon's value, where
 * that is more) through the writer, which starts its segment at or above
 * it (waiting_value() says how).
 * Kernel mode returns the kernel's clock read inside the latch, and a
 * waiting reader one the writer sees, so no value of the kernel's is
 * above a segment published after it (docs/hosted.md).
 */
#define _GNU_SOURCE
#include "internal.h"

/* The cache-line budget in cyclock/timeline.h. */
_Static_assert(sizeof(struct cyclock__seg) == 56, "a segment is 56 bytes");
_Static_assert(offsetof(struct cyclock__timeline, seg[0]) == 8, "seq, shift, seg[0]: line 0");
_Static_assert(offsetof(struct cyclock__timeline, seg[1]) == CYCLOCK_CACHELINE,
	       "seg[1] starts line 1");
_Static_assert(sizeof(struct cyclock__seg_ext) == 40, "the slow path's copy is 40 bytes");
_Static_assert(offsetof(struct cyclock__timeline, ext) == 2 * CYCLOCK_CACHELINE,
	       "the slow path's copies start line 2, off the readers' lines");

struct cyclock__timeline cyclock__mono;
struct cyclock__timeline cyclock__raw;

static clockid_t kernel_id(unsigned int kind)
{
	if (kind & CYCLOCK__RAW)
		return CLOCK_MONOTONIC_RAW;
	if (kind & CYCLOCK__REAL)
		return CLOCK_REALTIME;
	if (kind & CYCLOCK__BOOT)
		return CLOCK_BOOTTIME;
	return CLOCK_MONOTONIC;
}

static uint64_t with_offset(uint64_t ns, const struct cyclock__segv *v, unsigned int kind)
{
	if (kind & CYCLOCK__REAL)
		ns += v->off_real;
	if (kind & CYCLOCK__BOOT)
		ns += v->off_boot;
	return ns;
}

/*
 * Kernel mode's value: the kernel's reading @k, at least the floor: the
 * ceiling (KERNEL), or what the last counter segment would have handed
 * out at this counter, up to its ceiling (KERNEL_FN; and an unconfirmed
 * fresh segment past its horizon, with no ceiling), and past its horizon
 * no more than @k or the horizon's value (cyclock__floor_cap()).  Never below
 * a value the counter handed out before, since that segment's readers
 * stopped at its ceiling and followed it below.
 */
static uint64_t kernel_value(const struct cyclock__segv *v, uint64_t k, unsigned int kind)
{
	uint64_t floor;

	if (v->mode == CYCLOCK__MODE_KERNEL && !v->ceil) /* nothing from the counter yet */
		return k;
	floor = v->mode == CYCLOCK__MODE_KERNEL ? with_offset(v->ceil, v, kind) : UINT64_MAX;
	if (k >= floor)
		return k;
	if (v->mode != CYCLOCK__MODE_KERNEL)
		floor = cyclock__floor_cap(
			with_offset(cyclock__seg_floor(v, cyclock__host.shift, cyclock__ordered()),
				    v, kind),
			with_offset(cyclock__seg_horizon(v, cyclock__host.shift), v, kind), k);
	return k > floor ? k : floor;
}

/*
 * Past the horizon, while another thread resyncs: what is safe to hand
 * out without the writer knowing, the low slope's value capped at the
 * kernel's clock @k, or at the horizon's value where that is more (the
 * fast path handed that out, and the cap must not take it back).  A
 * counter that leaped (a suspend, a migration) must not hand out its time
 * meanwhile, and the cap only grows with the kernel's clock, so it never
 * takes back a value given before.  Every read after this one is at least
 * it: a segment that continues this one starts at or above the low slope's
 * value; kernel mode returns at least its own, later, reading of the
 * kernel's clock and a floor at least the horizon's value.
 */
static uint64_t low_value(const struct cyclock__segv *v, uint64_t cyc, uint64_t k)
{
	uint32_t shift = cyclock__host.shift;

	return cyclock__floor_cap(cyclock__seg_handed(v, shift, cyc), cyclock__seg_horizon(v, shift),
				  k);
}

/*
 * The same, and the kernel's clock @k where that is more, so that a
 * writer preempted while it resyncs does not leave the readers trailing
 * the kernel at the low slope for as long as it is away.  @k goes out only
 * through @tl->handed, which the writer takes, sealed, before it publishes,
 * and raises its segment to (cyclock__publish()): added there, then the
 * latch checked again, since an addition after the writer's unseal is one
 * it did not take, and the sequence has moved by then (false: read again).
 * While it is sealed, what the writer took is safe, and at least every
 * value a waiting reader handed out before: the low slope's value or it,
 * whichever is more (*@ns, true).  The kernel's reading is taken after the
 * counter's: a reader preempted in between only raises its value.  No
 * allowance above the kernel's clock: kernel mode's floor is set from the
 * writer's own kernel reading, which may be earlier than this one.
 */
static bool waiting_value(const struct cyclock__track *tr, struct cyclock__timeline *tl,
			  uint32_t seq, const struct cyclock__segv *v, uint64_t cyc, uint64_t *ns)
{
	uint64_t k = cyclock__kernel_ns(tr->id), low = low_value(v, cyc, k);
	uint64_t want = k > low ? k : low;
	uint64_t h = atomic_load_explicit(&tl->handed, memory_order_acquire);

	do {
		if (h & CYCLOCK__HANDED_SEALED) {
			h &= ~CYCLOCK__HANDED_SEALED;
			*ns = low > h ? low : h;
			return true;
		}
		/* A store even where it does not raise the word: this reader's
		 * place in its order is what the argument above needs. */
	} while (!atomic_compare_exchange_weak_explicit(&tl->handed, &h, h > want ? h : want,
							memory_order_acq_rel, memory_order_acquire));
	*ns = want;
	return atomic_load_explicit(&tl->seq, memory_order_relaxed) == seq;
}

/*
 * waiting_value()'s common case, from the horizon's value @vh alone: the
 * kernel's clock or @vh, whichever is more, handed out through the
 * writer's word.  false when the word is sealed (a writer is publishing:
 * waiting_value() knows what then) or the sequence moved (read again).
 */
static bool hand_out(const struct cyclock__track *tr, struct cyclock__timeline *tl, uint32_t seq,
		     uint64_t vh, uint64_t *ns)
{
	uint64_t k = cyclock__kernel_ns(tr->id), want = k > vh ? k : vh;
	uint64_t h = atomic_load_explicit(&tl->handed, memory_order_acquire);

	do {
		if (h & CYCLOCK__HANDED_SEALED)
			return false;
		/* A store even where it does not raise the word (waiting_value()). */
	} while (!atomic_compare_exchange_weak_explicit(&tl->handed, &h, h > want ? h : want,
							memory_order_acq_rel, memory_order_acquire));
	*ns = want;
	return atomic_load_explicit(&tl->seq, memory_order_relaxed) == seq;
}

/* Has a kernel-mode segment's look-again moment come?  Only once the
 * library uses the counter (not while it initialises). */
static bool recheck_due(const struct cyclock__segv *v)
{
	return atomic_load_explicit(&cyclock__host.state, memory_order_acquire) == INIT_DONE &&
	       cyclock__host.using_counter && (int64_t)(cyclock_arch_counter() - v->recheck) >= 0;
}

/* Kernel mode: every read serves the kernel's clock, at least the floor. */
static bool serves_kernel(const struct cyclock__segv *v)
{
	return v->mode != CYCLOCK__MODE_COUNTER;
}

/*
 * Whether a read past the horizon (@past counts past it, at counter @cyc)
 * resyncs, or serves the kernel's clock instead (one vDSO read, no system
 * call).  A resync costs microseconds and pays only if its segment is
 * read again and again before its horizon: so a read resyncs when it
 * comes within CYCLOCK_PAY_NS of the horizon (the timeline is read
 * often), or after CYCLOCK_ROW_READS served reads in a row, each within
 * CYCLOCK_ROW_NS of the one before (it is read often again, after a
 * pause).  A program that reads after longer gaps, even a few clocks at
 * each, is served the kernel's clock.
 */
static bool resync_pays(const struct cyclock__timeline *tl, uint64_t past, uint64_t cyc)
{
	return past < tl->pay_cyc ||
	       (atomic_load_explicit(&tl->served_row, memory_order_relaxed) >= CYCLOCK_ROW_READS &&
		cyc - atomic_load_explicit(&tl->served_cyc, memory_order_relaxed) < tl->row_cyc);
}

/* A read at counter @cyc served the kernel's clock (resync_pays()).  Plain
 * stores: a count lost to a race only delays a resync. */
static void served(struct cyclock__timeline *tl, uint64_t cyc)
{
	uint32_t row = atomic_load_explicit(&tl->served_row, memory_order_relaxed);

	if (cyc - atomic_load_explicit(&tl->served_cyc, memory_order_relaxed) >= tl->row_cyc)
		row = 0;
	atomic_store_explicit(&tl->served_row, row + 1, memory_order_relaxed);
	atomic_store_explicit(&tl->served_cyc, cyc, memory_order_relaxed);
}

/*
 * REALTIME's and BOOTTIME's offsets from MONOTONIC are measured at
 * resyncs; a read of those clocks that served MONOTONIC's kernel clock
 * plus the segment's offset (@ns) checks them: the kernel's own reading of
 * that clock more than the offset's uncertainty away means the system
 * clock was set, or the machine resumed, since (true: resync).
 */
static bool offset_moved(uint64_t ns, unsigned int kind)
{
	uint64_t w, tol;
	int64_t d;

	if (!(kind & (CYCLOCK__REAL | CYCLOCK__BOOT)))
		return false;
	w = kind & CYCLOCK__REAL ? cyclock__host.off_real_w : cyclock__host.off_boot_w;
	tol = 2 * w + NSEC_PER_USEC;
	d = (int64_t)(cyclock__kernel_ns(kernel_id(kind)) - ns);
	return d > (int64_t)tol || d < -(int64_t)tol;
}

/* A resync that measures the offsets again, as cyclock_resync() asks. */
static bool resync_offsets(struct cyclock__track *tr)
{
	atomic_store_explicit(&cyclock__host.pending, 1, memory_order_relaxed);
	return cyclock__resync(tr, false);
}

/*
 * A read past the horizon of a counter segment, the slow path's common
 * case (a read after a gap), from the readers' line alone: the segment's
 * copy on it gives the most its fast path handed out, the value at its
 * horizon.  Resyncs if that pays, else serves the kernel's clock through
 * the writer (waiting_value()).  Continues from the fast path's @seq and
 * @cyc, whose counter read it need not repeat.  false: not that case
 * (kernel mode, a counter before the segment's start, a writer
 * publishing), which timeline_slow() reads in full.
 */
static bool past_horizon(unsigned int kind, struct cyclock__timeline *tl,
			 struct cyclock__track *tr, uint32_t seq, uint64_t cyc, uint64_t *out)
{
	const struct cyclock__seg *s;
	uint64_t P, ns0, k, off, ns;
	uint32_t shift, H, mult;
	bool again = false; /* the first pass continues the fast path's reading */

	for (int pass = 0;; pass++) {
		do {
			if (again) {
				seq = cyclock__latch_begin(&tl->seq);
				cyc = (kind & CYCLOCK__ORDERED) ? cyclock__counter_ordered(tl)
								: cyclock_arch_counter();
			}
			again = true;
			s = &tl->seg[seq & 1];
			P = cyclock__load64(&s->epoch_cyc);
			ns0 = cyclock__load64(&s->epoch_ns);
			k = cyclock__load64(&s->epoch_k);
			H = atomic_load_explicit(&s->horizon_cyc, memory_order_relaxed);
			mult = atomic_load_explicit(&s->mult, memory_order_relaxed);
			off = kind & CYCLOCK__REAL   ? cyclock__load64(&s->off_real)
			      : kind & CYCLOCK__BOOT ? cyclock__load64(&s->off_boot)
						     : 0;
			shift = atomic_load_explicit(&tl->shift, memory_order_relaxed);
		} while (cyclock__latch_retry(&tl->seq, seq));
		if (!H || (int64_t)(cyc - P) < 0)
			return false;
		/* The fast path's formula, exact up to the horizon. */
		if (cyc - P < H) { /* a segment went out meanwhile */
			*out = ns0 + ((cyc * mult + k) >> shift) + off;
			return true;
		}
		if (pass < 3 && resync_pays(tl, cyc - P - H, cyc) && cyclock__resync(tr, false))
			continue;
		if (!hand_out(tr, tl, seq, ns0 + (((P + H) * mult + k) >> shift), &ns))
			return false;
		if (pass < 3 && offset_moved(ns + off, kind) && resync_offsets(tr))
			continue;
		served(tl, cyc);
		*out = ns + off;
		return true;
	}
}

/* The counter path of the slow path: the cases in the header comment. */
static uint64_t timeline_slow(unsigned int kind)
{
	bool raw = kind & CYCLOCK__RAW, kernel;
	struct cyclock__timeline *tl = raw ? &cyclock__raw : &cyclock__mono;
	struct cyclock__track *tr = raw ? &cyclock__host.raw : &cyclock__host.mono;
	struct cyclock__segv v;
	uint64_t cyc, delta, ns, k = 0;
	uint32_t frac, seq;

	for (int pass = 0;; pass++) {
		do {
			seq = cyclock__latch_begin(&tl->seq);
			v = cyclock__seg_load(tl); /* same copy, or we retry */
			cyc = (kind & CYCLOCK__ORDERED) ? cyclock__counter_ordered(tl)
							: cyclock_arch_counter();
			/* The kernel's reading inside the latch: a segment published
			 * meanwhile makes us read again, from it. */
			kernel = serves_kernel(&v);
			if (kernel)
				k = cyclock__kernel_ns(kernel_id(kind));
		} while (cyclock__latch_retry(&tl->seq, seq));
		if (kernel) {
			ns = kernel_value(&v, k, kind);
			if (recheck_due(&v) && resync_pays(tl, cyc - v.recheck, cyc))
				cyclock__resync(tr, false); /* the value stays right: see track.c */
			else
				served(tl, cyc);
			return ns;
		}
		delta = cyc - v.cyc;
		if ((int64_t)delta < 0 && v.cyc - cyc > cyclock__host.max_back_cyc) {
			/* The counter went back: leave it, then read in kernel mode. */
			if (pass < 3 && cyclock__resync(tr, true))
				continue;
			return with_offset(v.ns, &v, kind);
		}
		if ((int64_t)delta < 0 || delta < v.horizon_cyc) {
			cyclock__seg_at(&v, cyclock__host.shift, cyc, &ns, &frac);
			return with_offset(ns, &v, kind);
		}
		/* Past the horizon: resync, if it pays, and read again from the
		 * new segment; or the kernel's clock handed out through the
		 * writer (waiting_value()), read again if a segment went out
		 * meanwhile, as a latch read does. */
		if (pass < 3 && resync_pays(tl, delta - v.horizon_cyc, cyc) && cyclock__resync(tr, false))
			continue;
		if (!waiting_value(tr, tl, seq, &v, cyc, &ns))
			continue;
		if (pass < 3 && offset_moved(with_offset(ns, &v, kind), kind) && resync_offsets(tr))
			continue;
		served(tl, cyc);
		return with_offset(ns, &v, kind);
	}
}

uint64_t cyclock__slow(unsigned int kind, uint32_t seq, uint64_t cyc)
{
	bool raw = kind & CYCLOCK__RAW;
	uint64_t ns;

	/* A counter segment (horizon_cyc > 0) means initialised on the counter. */
	if (past_horizon(kind, raw ? &cyclock__raw : &cyclock__mono,
			 raw ? &cyclock__host.raw : &cyclock__host.mono, seq, cyc, &ns))
		return ns;
	if (atomic_load_explicit(&cyclock__host.state, memory_order_acquire) != INIT_DONE)
		cyclock__init_once(CYCLOCK__INIT_DEFER);
	if (atomic_load_explicit(&cyclock__host.state, memory_order_acquire) == INIT_DONE &&
	    !cyclock__host.using_counter) {
		if ((kind & CYCLOCK__LOCAL) && cyclock__host.local_percpu)
			return cyclock__local_read();
		return cyclock__kernel_ns(kernel_id(kind));
	}
	/* Initialised on the counter, or not yet (the timelines are in kernel mode). */
	return timeline_slow(kind);
}

uint64_t cyclock_now(void)
{
	return cyclock__read(&cyclock__mono, CYCLOCK__ORDERED);
}

uint64_t cyclock_now_relaxed(void)
{
	return cyclock__read(&cyclock__mono, 0);
}

uint64_t cyclock_raw(void)
{
	return cyclock__read(&cyclock__raw, CYCLOCK__ORDERED | CYCLOCK__RAW);
}

uint64_t cyclock_realtime(void)
{
	return cyclock__read(&cyclock__mono, CYCLOCK__ORDERED | CYCLOCK__REAL);
}

uint64_t cyclock_boottime(void)
{
	return cyclock__read(&cyclock__mono, CYCLOCK__ORDERED | CYCLOCK__BOOT);
}

uint64_t cyclock_local(void)
{
	return cyclock__read(&cyclock__mono, CYCLOCK__LOCAL);
}

uint64_t cyclock_coarse(void)
{
	return cyclock__coarse_read();
}

/* Initialised: the counter is in use or known not to be.  Waits for a
 * deferred initialisation's second half, as cyclock_init() does. */
static bool ready(void)
{
	if (atomic_load_explicit(&cyclock__host.state, memory_order_acquire) != INIT_DONE)
		cyclock_init(0);
	return cyclock__host.using_counter;
}

uint64_t cyclock_cycles(void)
{
	return ready() ? cyclock_arch_counter() : 0;
}

/*
 * @cycles on cyclock_now()'s timeline, counted back from now at slope
 * @mult: in kernel mode, where the last counter function may be far from
 * the kernel's clock (that is why it is kernel mode), and past a segment's
 * horizon, where the kernel's rate may have changed since; not
 * extrapolated from that function's start.
 */
static uint64_t from_now(uint64_t cycles, uint32_t mult)
{
	uint64_t c_now = cyclock__ordered(), ns = cyclock_now();
	int64_t d = (int64_t)(c_now - cycles);
	uint64_t span = (uint64_t)(((unsigned __int128)(uint64_t)(d < 0 ? -d : d) * mult) >>
				   cyclock__host.shift);

	return d >= 0 ? ns - span : ns + span;
}

uint64_t cyclock_cycles_to_ns(uint64_t cycles)
{
	struct cyclock__segv v;
	uint64_t ns;
	uint32_t frac;

	if (!ready())
		return cyclock_now();
	v = cyclock__seg_load(&cyclock__mono);
	if (!v.mult) /* no counter segment yet (kernel mode since the start) */
		return cyclock_now();
	/* Kernel mode, or a segment past its horizon (a read after a gap was
	 * served the kernel's clock, not resynced): counted back from now. */
	if (v.mode != CYCLOCK__MODE_COUNTER || cyclock__ordered() - v.cyc >= v.horizon_cyc)
		return from_now(cycles, v.mult_rate);
	cyclock__seg_at(&v, cyclock__host.shift, cycles, &ns, &frac);
	return ns;
}

void cyclock_resync(void)
{
	if (!ready())
		return;
	cyclock__resync_all();
}
