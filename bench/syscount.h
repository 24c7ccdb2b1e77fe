/* SPDX-License-Identifier: MIT */
/*
 * System calls counted without privileges, for the scenarios that say how
 * many a read makes.  The body runs on a thread of its own under a seccomp
 * filter that hands each of its system calls to the calling thread
 * (SECCOMP_RET_USER_NOTIF), which counts it under the phase the body set
 * last and lets it run (SECCOMP_USER_NOTIF_FLAG_CONTINUE, Linux 5.5).  The
 * vDSO's clock reads are not system calls and are not seen.  Each call
 * costs a round trip between the two threads, so nothing counted this way
 * is timed.
 */
#ifndef CYCLOCK_BENCH_SYSCOUNT_H
#define CYCLOCK_BENCH_SYSCOUNT_H

#include <stdatomic.h>
#include <stdint.h>

#define BENCH_SYSCOUNT_PHASES 4

struct bench_syscount {
	_Atomic int phase;                       /* the body's, 0..BENCH_SYSCOUNT_PHASES-1 */
	uint64_t counts[BENCH_SYSCOUNT_PHASES];  /* system calls seen in each phase */
};

/* The body says which phase its next system calls belong to. */
static inline void bench_syscount_phase(struct bench_syscount *sc, int phase)
{
	atomic_store_explicit(&sc->phase, phase, memory_order_release);
}

/*
 * Runs @body(@sc, @arg) on a new thread with its system calls counted in
 * @sc->counts (zeroed first; phase 0 at the start).  0, or -1 with *@why
 * saying why nothing could be counted (no seccomp user notification here,
 * or a thread that could not start); the body has not run then.
 */
int bench_syscount(struct bench_syscount *sc, void (*body)(struct bench_syscount *sc, void *arg),
		   void *arg, const char **why);

#endif /* CYCLOCK_BENCH_SYSCOUNT_H */
