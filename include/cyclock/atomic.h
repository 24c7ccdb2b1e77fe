/* SPDX-License-Identifier: MIT */
/*
 * The seam for atomics: every atomic type, access and fence of the
 * library is spelled through here, the latches' (cyclock/latch.h, the
 * engine, the hosted timelines) above all, so that one file says what
 * they are.
 *
 * By default C11's <stdatomic.h>, one to one: each macro expands to the
 * call it names, so the compiled code is what the calls would give.  C++
 * callers of the public headers see plain types of the same layout
 * (CYCLOCK_HAS_ATOMICS 0, and no inline readers): they only pass pointers
 * to the library, which makes every access in C.
 *
 * A build that defines CYCLOCK_ATOMIC_HEADER gets every name below from
 * that file instead.  The model checker's (tests/model/model_atomic.hpp)
 * maps them onto Relacy, which then runs the library's own files,
 * compiled as C++, under every value C11 lets each load return
 * (docs/model.md).  There the atomics are Relacy's objects, of other
 * sizes, so the cache-line layouts (CYCLOCK_LAYOUT_ASSERT) are the C
 * build's alone.
 *
 * CYCLOCK_SHARED(type) is plain data that threads share without a latch:
 * written before a release (a writer flag's unlock, a published mode) and
 * read after the acquire that pairs with it.  It is the type itself here,
 * a Relacy rl::var in the model, which reports a read that is not ordered
 * after the write as a data race; cyclock_shared(x) reads or assigns it.
 */
#ifndef CYCLOCK_ATOMIC_H
#define CYCLOCK_ATOMIC_H

#ifdef CYCLOCK_ATOMIC_HEADER
#include CYCLOCK_ATOMIC_HEADER
#elif defined(__cplusplus)
#define CYCLOCK_HAS_ATOMICS 0
#define CYCLOCK_ATOMIC(type) type
#define CYCLOCK_SHARED(type) type
#else
#include <stdatomic.h>

#define CYCLOCK_HAS_ATOMICS 1
#define CYCLOCK_ATOMIC(type) _Atomic(type)
#define CYCLOCK_SHARED(type) type
#define cyclock_shared(x) (x)

#define CYCLOCK_RELAXED memory_order_relaxed
#define CYCLOCK_ACQUIRE memory_order_acquire
#define CYCLOCK_RELEASE memory_order_release
#define CYCLOCK_ACQ_REL memory_order_acq_rel
#define CYCLOCK_SEQ_CST memory_order_seq_cst

#define cyclock_atomic_init(p, v) atomic_init((p), (v))
#define cyclock_atomic_load(p, mo) atomic_load_explicit((p), (mo))
#define cyclock_atomic_store(p, v, mo) atomic_store_explicit((p), (v), (mo))
#define cyclock_atomic_exchange(p, v, mo) atomic_exchange_explicit((p), (v), (mo))
#define cyclock_atomic_fetch_add(p, v, mo) atomic_fetch_add_explicit((p), (v), (mo))
/* Compare-and-swap: *@expected is updated on failure, as in C11. */
#define cyclock_atomic_cas(p, expected, desired, ok, fail) \
	atomic_compare_exchange_strong_explicit((p), (expected), (desired), (ok), (fail))
#define cyclock_atomic_cas_weak(p, expected, desired, ok, fail) \
	atomic_compare_exchange_weak_explicit((p), (expected), (desired), (ok), (fail))
#define cyclock_atomic_fence(mo) atomic_thread_fence(mo)

#define CYCLOCK_LAYOUT_ASSERT(cond, msg) _Static_assert(cond, msg)
#endif

#endif /* CYCLOCK_ATOMIC_H */
