/* SPDX-License-Identifier: MIT */
/*
 * The counter of the architecture being compiled for: one small header per
 * architecture, each defining what it specialises and including
 * arch/generic.h for the rest.  A build that defines CYCLOCK_ARCH_HEADER
 * reads that file's counter instead, through the same names: the tests'
 * simulated one (cyclock/arch/sim.h, libcyclock_sim.a's, not installed),
 * the model checker's (tests/model/model_arch.h).  Any other architecture
 * gets generic.h alone: no counter, the kernel's clocks.
 */
#ifndef CYCLOCK_ARCH_H
#define CYCLOCK_ARCH_H

#if defined(CYCLOCK_ARCH_HEADER)
#include CYCLOCK_ARCH_HEADER
#elif defined(CYCLOCK_ARCH_GENERIC)
#include "arch/generic.h" /* any architecture as one without a known counter */
#elif defined(__x86_64__)
#include "arch/x86_64.h"
#elif defined(__aarch64__)
#include "arch/arm64.h"
#elif defined(__riscv) && __riscv_xlen == 64
#include "arch/riscv64.h"
#else
#include "arch/generic.h"
#endif

#endif /* CYCLOCK_ARCH_H */
