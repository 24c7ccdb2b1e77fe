/* SPDX-License-Identifier: MIT */
/*
 * The counter in the model checker's builds (CYCLOCK_ARCH_HEADER): what
 * an architecture's ordered read guarantees, in C11's terms, and nothing
 * more.  Time is one atomic the harness advances (model.hpp); a counter
 * read is a relaxed load of it.  C11's coherence then gives exactly the
 * ordered read's promise: a read that happens after another thread's
 * (through a release and an acquire, the latch's among them) returns at
 * least what that thread read, and a thread's own reads never go back.
 * Without that order it may return an older value.  docs/model.md argues
 * why each architecture's instruction keeps this promise; the unordered
 * read, which may run before earlier loads, C11 cannot express, so it is
 * modelled as the ordered one.
 */
#ifndef CYCLOCK_MODEL_ARCH_H
#define CYCLOCK_MODEL_ARCH_H

#include <stdint.h>

#define CYCLOCK_ARCH_COUNTER_NAME "model"
#define CYCLOCK_ARCH_HAS_COUNTER 1

uint64_t cyclock_model_counter(void); /* model.cpp: a relaxed load of time */

static inline uint64_t cyclock_arch_counter(void)
{
	return cyclock_model_counter();
}
#define cyclock_arch_counter cyclock_arch_counter

static inline uint64_t cyclock_arch_counter_ordered(void)
{
	return cyclock_model_counter();
}
#define cyclock_arch_counter_ordered cyclock_arch_counter_ordered

#define CYCLOCK_ARCH_ORDERED_HOWS 1u
#define CYCLOCK_ARCH_ORDERED_ANY 0u
static inline uint64_t cyclock_arch_counter_ordered_how(uint32_t how)
{
	(void)how;
	return cyclock_model_counter();
}
#define cyclock_arch_counter_ordered_how cyclock_arch_counter_ordered_how

#include "cyclock/arch/generic.h"

#endif /* CYCLOCK_MODEL_ARCH_H */
