/* SPDX-License-Identifier: MIT */
/*
 * Initialisation's owner (init.c's BUSY): who takes it, and whether one
 * is gone, so that an explicit call takes over from a dead owner and
 * never waits on one (docs/hosted.md, "fork(), signals, threads").
 *
 * Tests: tests/linux/test_owner_reuse.c (an owner gone whose id lives on;
 * one that names no task), test_clone_vm.c (an owner killed),
 * test_first_call.c (one cancelled or longjmp'd out).
 */
#define _GNU_SOURCE
#include "internal.h"

/*
 * Initialisation's owner: the state word that holds INIT_BUSY names it, in
 * the same compare-and-swap that takes it, by its process as cached
 * (cyclock__pid(): the address space, which a raw fork's child does not
 * share) and, for an explicit call, its task's thread id (what runs it: a
 * task that shares our memory, clone(CLONE_VM), also has our cached pid)
 * and a generation, under which it notes its identity to the kernel (a
 * pidfd's inode, or its start time) in host.owner; a read's names no
 * task, which would take a system call.  Ids are below 2^22
 * (PID_MAX_LIMIT).  Nobody looks whether the owner lives before
 * OWNER_LOOK_NS after it took the word, and only explicit calls look.
 */
#define OWNER_LOOK_NS (5000 * NSEC_PER_USEC) /* longer than any initialisation takes */
#define ID_MASK 0x3fffffull
#define BUSY_PID(word) ((uint32_t)((word) >> 4 & ID_MASK))
#define BUSY_TID(word) ((uint32_t)((word) >> 26 & ID_MASK))
#define BUSY_GEN(word) ((word) >> 48)
#define OWNER_IDENT ((1ull << 48) - 1)

static uint64_t busy(bool asked)
{
	uint64_t word = INIT_BUSY | ((uint64_t)cyclock__pid() & ID_MASK) << 4, gen;

	if (asked) {
		gen = cyclock_atomic_fetch_add(&cyclock__host.gen, 1, CYCLOCK_RELAXED) & 0xffff;
		word |= ((uint64_t)cyclock__tid() & ID_MASK) << 26 | gen << 48;
	}
	return word;
}

/* @expected to INIT_BUSY, ours (@asked, by an explicit call: named, and
 * our identity noted under the word's generation); then nobody looks for
 * a while. */
bool cyclock__init_take(uint64_t *expected, bool asked)
{
	uint64_t word = busy(asked);
	/* Asked before the word is ours: a task killed once it is has its
	 * identity noted one store later. */
	uint64_t owner = BUSY_GEN(word) << 48 |
			 (asked ? cyclock__task_ident(BUSY_TID(word)) & OWNER_IDENT : 0);

	cyclock_atomic_store(&cyclock__host.look_ns,
			     cyclock__kernel_ns(CLOCK_MONOTONIC_RAW) + OWNER_LOOK_NS,
			     CYCLOCK_RELAXED);
	if (!cyclock_atomic_cas(&cyclock__host.state, expected, word, CYCLOCK_SEQ_CST,
				CYCLOCK_SEQ_CST))
		return false;
	if (asked)
		cyclock_atomic_store(&cyclock__host.owner, owner, CYCLOCK_SEQ_CST);
	return true;
}

/*
 * Whether the owner named in BUSY word @word is gone, as an explicit call
 * can tell with system calls: it ran in another process (we are the child
 * of a raw fork system call, which runs no fork handler: its thread stayed
 * in the parent, and our cached id may still be the parent's, so the
 * kernel is asked), or it is a task that shared our memory and is gone by
 * its identity (cyclock__task_gone(): not merely its id, which another
 * task may hold by now).  A read's owner, or one whose identity is not
 * noted yet, cannot be told gone: the caller's wait is bounded instead.
 * Both cost system calls, so they are asked only from look_ns on, and
 * then once per OWNER_LOOK_NS among all callers.
 */
bool cyclock__init_owner_gone(uint64_t word)
{
	uint64_t now, owner, look = cyclock_atomic_load(&cyclock__host.look_ns, CYCLOCK_RELAXED);

	now = cyclock__kernel_ns(CLOCK_MONOTONIC_RAW);
	if (now < look || !cyclock_atomic_cas(&cyclock__host.look_ns, &look, now + OWNER_LOOK_NS,
					      CYCLOCK_RELAXED, CYCLOCK_RELAXED))
		return false;
	if (BUSY_PID(word) != (cyclock__pid_fresh() & ID_MASK))
		return true;
	owner = cyclock_atomic_load(&cyclock__host.owner, CYCLOCK_SEQ_CST);
	if (!BUSY_TID(word) || owner >> 48 != BUSY_GEN(word) || !(owner & OWNER_IDENT))
		return false;
	return cyclock__task_gone(BUSY_TID(word), owner & OWNER_IDENT);
}
