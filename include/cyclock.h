/* SPDX-License-Identifier: MIT */
/*
 * cyclock: the public header for programs.
 *
 * For now it is the freestanding engine (cyclock/core.h): register a
 * counter, read nanoseconds.  The hosted clocks for Linux programs
 * (cyclock_now() and its family) will be declared here too.
 */
#ifndef CYCLOCK_H
#define CYCLOCK_H

#include "cyclock/core.h"

#endif /* CYCLOCK_H */
