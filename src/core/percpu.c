/* SPDX-License-Identifier: MIT */
/*
 * Per-CPU "unstable" mode, after the kernel's kernel/sched/clock.c.
 *
 * Stable, every CPU reads the raw clock.  Unstable, each CPU extrapolates
 * from the reference time at its last tick with its own raw clock, and
 * clamps the result so that it never goes backwards on that CPU and never
 * runs more than a tick ahead of the reference.  The mode is the reader
 * function in pc->read, swapped once, so no reader chooses its code by a
 * branch on the mode; the stable reader only looks again, after its read,
 * whether a switch happened meanwhile (read_stable()).
 *
 * Tests: tests/core/test_percpu.c (two simulated CPUs), validate_percpu.c
 * (under threads), tests/model/model_percpu.cpp (the model checker);
 * hosted, through cyclock_local(), tests/linux/sim_fallback.c and
 * sim_state.c.
 */
#include "internal.h"

/* @pc's setup (struct cyclock_percpu), written by init and read by every
 * call after it. */
#define PC(pc, field) cyclock_shared((pc)->field)

#if CYCLOCK_U64_IS_SPLIT

/* The per-CPU clock needs a 64-bit compare-and-swap this target lacks. */
int cyclock_percpu_init(struct cyclock_percpu *pc, const struct cyclock *raw,
			struct cyclock_percpu_slot *slots, unsigned int nr_cpus, uint64_t tick_ns)
{
	(void)raw, (void)slots, (void)nr_cpus, (void)tick_ns;
	if (pc)
		PC(pc, nr_cpus) = 0;
	return CYCLOCK_ENOTSUP;
}

int cyclock_percpu_tick(struct cyclock_percpu *pc, unsigned int cpu, uint64_t gtod_ns)
{
	(void)pc, (void)cpu, (void)gtod_ns;
	return CYCLOCK_ENOTSUP;
}

uint64_t cyclock_percpu_read(struct cyclock_percpu *pc, unsigned int cpu)
{
	(void)pc, (void)cpu;
	return 0;
}

uint64_t cyclock_percpu_read_remote(struct cyclock_percpu *pc, unsigned int this_cpu,
				    unsigned int cpu)
{
	(void)pc, (void)this_cpu, (void)cpu;
	return 0;
}

int cyclock_percpu_set_unstable(struct cyclock_percpu *pc, unsigned int cpu, uint64_t gtod_ns)
{
	(void)pc, (void)cpu, (void)gtod_ns;
	return CYCLOCK_ENOTSUP;
}

bool cyclock_percpu_is_stable(const struct cyclock_percpu *pc)
{
	(void)pc;
	return true;
}

#else

CYCLOCK_LAYOUT_ASSERT(sizeof(struct cyclock_percpu_slot) == CYCLOCK_CACHELINE,
	       "a CPU's slot is one line: seq 0..3, writer 4..7, tick[2] 8..39, clock 40..47");

static struct cyclock_percpu_slot *slot_of(struct cyclock_percpu *pc, unsigned int cpu)
{
	return cpu < PC(pc, nr_cpus) ? &PC(pc, slot)[cpu] : NULL;
}

static uint64_t max_u64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

/* The caller holds the slot's writer flag. */
static void store_tick(struct cyclock_percpu_slot *slot, uint64_t raw, uint64_t gtod)
{
	for (unsigned int i = 0; i < 2; i++) {
		cyclock__latch_bump(&slot->seq); /* readers leave copy i */
		cyclock__store64(&slot->tick[i].raw, raw);
		cyclock__store64(&slot->tick[i].gtod, gtod);
	}
}

/*
 * Move a CPU's clock forward to @val unless it is already there.  Relaxed
 * is enough: the value itself is all that is shared, and the compare-and-
 * swap keeps every slot's values in one increasing order.
 */
static uint64_t advance_to(struct cyclock_percpu_slot *slot, uint64_t val)
{
	uint64_t old = cyclock_atomic_load(&slot->clock, CYCLOCK_RELAXED);

	while (old < val && !cyclock_atomic_cas_weak( &slot->clock, &old, val, CYCLOCK_RELAXED,
						     CYCLOCK_RELAXED))
		;
	return max_u64(old, val);
}

static cyclock_percpu_fn mode_of(const struct cyclock_percpu *pc);

/*
 * The raw clock.  A reader that found the stable mode and then ran on
 * (preempted, say) while another CPU switched to unstable reads the raw
 * clock after the switch's last stamp: it looks at the mode again and, if
 * it changed, raises this CPU's clock to its value before returning it,
 * so that no unstable read on the CPU comes out below it.  One more load,
 * of the line read() itself came from.
 */
static uint64_t read_stable(struct cyclock_percpu *pc, unsigned int cpu)
{
	uint64_t v;

	if (cpu >= PC(pc, nr_cpus))
		return 0;
	v = cyclock_read_inline(PC(pc, raw));
	if (cyclock_unlikely(mode_of(pc) != read_stable))
		return advance_to(&PC(pc, slot)[cpu], v);
	return v;
}

/* sched_clock_local(): extrapolate from the last tick, clamp, publish. */
static uint64_t read_unstable(struct cyclock_percpu *pc, unsigned int cpu)
{
	struct cyclock_percpu_slot *slot = slot_of(pc, cpu);
	uint64_t tick_raw, tick_gtod, delta, gtod, old, val;

	if (!slot)
		return 0;
	cyclock__percpu_load_tick(slot, &tick_raw, &tick_gtod);
	delta = cyclock_read_inline(PC(pc, raw)) - tick_raw;
	if ((int64_t)delta < 0) /* a raw clock behind its own tick */
		delta = 0;
	gtod = tick_gtod + cyclock_atomic_load(&pc->gtod_offset, CYCLOCK_RELAXED);
	old = cyclock_atomic_load(&slot->clock, CYCLOCK_RELAXED);
	do {
		uint64_t lo = max_u64(gtod, old), hi = max_u64(old, gtod + PC(pc, tick_ns));

		val = gtod + delta;
		val = val < lo ? lo : val > hi ? hi : val;
		if (val == old)
			return val; /* clamped to the last value: nothing to publish */
	} while (!cyclock_atomic_cas_weak(&slot->clock, &old, val,
					  CYCLOCK_RELAXED, CYCLOCK_RELAXED));
	return val;
}

int cyclock_percpu_init(struct cyclock_percpu *pc, const struct cyclock *raw,
			struct cyclock_percpu_slot *slots, unsigned int nr_cpus, uint64_t tick_ns)
{
	if (!pc || !raw || !slots || !nr_cpus || !tick_ns)
		return CYCLOCK_EINVAL;
	PC(pc, raw) = raw;
	PC(pc, slot) = slots;
	PC(pc, nr_cpus) = nr_cpus;
	PC(pc, tick_ns) = tick_ns;
	cyclock_atomic_init(&pc->gtod_offset, 0);
	cyclock_atomic_init(&pc->switching, 0);
	for (unsigned int i = 0; i < nr_cpus; i++) {
		cyclock_atomic_init(&slots[i].seq, 0);
		cyclock_atomic_init(&slots[i].writer, 0);
		store_tick(&slots[i], 0, 0);
		cyclock_atomic_init(&slots[i].clock, 0);
	}
	/* Release: a reader that finds the function finds the rest set up. */
	cyclock_atomic_store(&pc->read, read_stable, CYCLOCK_RELEASE);
	return 0;
}

/* The reader of the current mode; NULL before init. */
static cyclock_percpu_fn mode_of(const struct cyclock_percpu *pc)
{
	/* Acquire pairs with the release stores of init and set_unstable. */
	return cyclock_atomic_load(&pc->read, CYCLOCK_ACQUIRE);
}

uint64_t cyclock_percpu_read(struct cyclock_percpu *pc, unsigned int cpu)
{
	cyclock_percpu_fn read = mode_of(pc);

	return read ? read(pc, cpu) : 0;
}

int cyclock_percpu_tick(struct cyclock_percpu *pc, unsigned int cpu, uint64_t gtod_ns)
{
	struct cyclock_percpu_slot *slot = slot_of(pc, cpu);

	if (!slot || !mode_of(pc))
		return CYCLOCK_EINVAL;
	if (cyclock__writer_trylock(&slot->writer)) { /* else that tick stamps */
		store_tick(slot, cyclock_read_inline(PC(pc, raw)), gtod_ns);
		cyclock__writer_unlock(&slot->writer);
	}
	mode_of(pc)(pc, cpu); /* unstable: publish the CPU's clock as of this tick */
	return 0;
}

uint64_t cyclock_percpu_read_remote(struct cyclock_percpu *pc, unsigned int this_cpu,
				    unsigned int cpu)
{
	uint64_t local, remote;

	if (!slot_of(pc, this_cpu) || !slot_of(pc, cpu))
		return 0;
	/*
	 * The mode is looked at after the read: a switch between a look
	 * before it and the read would leave an unstable value uncoupled.
	 */
	local = cyclock_percpu_read(pc, this_cpu);
	if (this_cpu == cpu || cyclock_percpu_is_stable(pc))
		return local;
	/*
	 * Couple the two CPUs: the clock behind is pulled up to the other.
	 * Return the value both now have, not this CPU's newest (another
	 * thread on it may have moved it on meanwhile).
	 */
	remote = advance_to(&PC(pc, slot)[cpu], local);
	advance_to(&PC(pc, slot)[this_cpu], remote);
	return remote;
}

int cyclock_percpu_set_unstable(struct cyclock_percpu *pc, unsigned int cpu, uint64_t gtod_ns)
{
	uint64_t now;

	if (!slot_of(pc, cpu) || !mode_of(pc))
		return CYCLOCK_EINVAL;
	cyclock__writer_lock(&pc->switching);
	if (mode_of(pc) == read_stable) {
		/* From here the reference plus gtod_offset is the stable clock. */
		now = cyclock_read_inline(PC(pc, raw));
		cyclock_atomic_store(&pc->gtod_offset, now - gtod_ns, CYCLOCK_RELAXED);
		/* As the kernel does, every CPU starts from this CPU's stamp;
		 * their own next ticks correct it. */
		for (unsigned int i = 0; i < PC(pc, nr_cpus); i++) {
			cyclock__writer_lock(&PC(pc, slot)[i].writer);
			store_tick(&PC(pc, slot)[i], now, gtod_ns);
			cyclock__writer_unlock(&PC(pc, slot)[i].writer);
			advance_to(&PC(pc, slot)[i], now);
		}
		cyclock_atomic_store(&pc->read, read_unstable, CYCLOCK_RELEASE);
		/* A reader that found the stable mode before that store returned
		 * the raw clock as late as now, after the stamp above: no CPU's
		 * clock may start below what it returned (a later tick whose
		 * reference lags its raw read would otherwise pull it back).  A
		 * reader later still sees the store (read_stable()); the fence
		 * keeps this read of the raw clock after it (model_percpu fails
		 * without it: percpu-switch-fence).  Readers inside the switch
		 * are core.h's rule: this narrows their window, no more. */
		cyclock_atomic_fence(CYCLOCK_SEQ_CST);
		now = cyclock_read_inline(PC(pc, raw));
		for (unsigned int i = 0; i < PC(pc, nr_cpus); i++)
			advance_to(&PC(pc, slot)[i], now);
	}
	cyclock__writer_unlock(&pc->switching);
	return 0;
}

bool cyclock_percpu_is_stable(const struct cyclock_percpu *pc)
{
	return mode_of(pc) == read_stable;
}

#endif /* CYCLOCK_U64_IS_SPLIT */
