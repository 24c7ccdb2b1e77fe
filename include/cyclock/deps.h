/* SPDX-License-Identifier: MIT */
/*
 * The seam between the cyclock engine and the world around it.
 *
 * Everything the engine takes from its surroundings is here: fixed-width
 * integers, the cache-line size, alignment and a pause hint; and, through
 * their own seam (cyclock/atomic.h, included first whatever this file
 * is), atomics: shared fields are C11 atomics so that ThreadSanitizer and
 * the model checker can follow every access.  Firmware with an unusual
 * toolchain may supply its own file instead by defining
 * CYCLOCK_DEPS_HEADER to its name; it must define every macro below.  The
 * engine includes nothing else.
 */
#ifndef CYCLOCK_DEPS_H
#define CYCLOCK_DEPS_H

#include "atomic.h"

#ifdef CYCLOCK_DEPS_HEADER
#include CYCLOCK_DEPS_HEADER
#else

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The engine's layout is planned for 64-byte lines, the line of every
 * x86-64, most arm64 and riscv64 cores.  A target with longer lines may
 * raise it; the static asserts in src/core/clock.c follow.
 */
#ifndef CYCLOCK_CACHELINE
#define CYCLOCK_CACHELINE 64
#endif

#ifdef __cplusplus
#define CYCLOCK_ALIGNAS(n) alignas(n)
#else
#define CYCLOCK_ALIGNAS(n) _Alignas(n)
#endif

/*
 * A 64-bit field written under the latch.  Where the target has no
 * lock-free 64-bit atomic load (Cortex-M3/M4 among others) it is two 32-bit
 * halves: a reader may see a torn value, but the latch's sequence check
 * makes it retry, so tearing is harmless and no libatomic call is needed.
 * Defining CYCLOCK_SPLIT_U64 forces the split form, so tests can cover it.
 */
#if defined(CYCLOCK_SPLIT_U64) || !defined(__GCC_ATOMIC_LLONG_LOCK_FREE) || \
	__GCC_ATOMIC_LLONG_LOCK_FREE != 2
#define CYCLOCK_U64_IS_SPLIT 1
#else
#define CYCLOCK_U64_IS_SPLIT 0
#endif

/* Spin-wait hint for the rare writer that waits for another writer. */
#ifndef cyclock_cpu_relax
#if defined(__x86_64__) || defined(__i386__)
#define cyclock_cpu_relax() __builtin_ia32_pause()
#elif defined(__aarch64__) || (defined(__arm__) && __ARM_ARCH >= 7)
#define cyclock_cpu_relax() __asm__ __volatile__("yield" ::: "memory")
#else
#define cyclock_cpu_relax() __asm__ __volatile__("" ::: "memory")
#endif
#endif

#define cyclock_likely(x) __builtin_expect(!!(x), 1)
#define cyclock_unlikely(x) __builtin_expect(!!(x), 0)

#endif /* CYCLOCK_DEPS_HEADER */
#endif /* CYCLOCK_DEPS_H */
