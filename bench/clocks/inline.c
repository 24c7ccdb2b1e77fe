/* SPDX-License-Identifier: MIT */
/*
 * The CYCLOCK_INLINE forms of cyclock.h's readers: with CYCLOCK_INLINE
 * defined, cyclock_now() and family are cyclock/timeline.h's reader
 * itself, inlined into each loop as into a program built that way, not a
 * call into the library.  A file of its own, since the define changes
 * what cyclock.h declares for the whole file.
 */
#define _GNU_SOURCE
#define CYCLOCK_INLINE 1
#include <cyclock.h>

#include "bench.h"
#include "loops.h"

DEFINE_SHARED_CLOCK(cyclock_now_inline, , cyclock_now())
DEFINE_SHARED_CLOCK(cyclock_now_relaxed_inline, , cyclock_now_relaxed())
DEFINE_SHARED_CLOCK(cyclock_raw_inline, , cyclock_raw())
DEFINE_SHARED_CLOCK(cyclock_realtime_inline, , cyclock_realtime())
DEFINE_SHARED_CLOCK(cyclock_boottime_inline, , cyclock_boottime())
DEFINE_SHARED_CLOCK(cyclock_coarse_inline, , cyclock_coarse())
DEFINE_SHARED_CLOCK(cyclock_local_inline, , cyclock_local())
