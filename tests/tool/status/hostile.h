/* SPDX-License-Identifier: MIT */
/*
 * What a target of "cyclock status" does to attack its reader (target.c's
 * options; tests/tool/cli/test_status_hostile.sh runs the attacks).  Each
 * exits with a line on stderr if it cannot be set up.
 */
#ifndef CYCLOCK_TESTS_STATUS_HOSTILE_H
#define CYCLOCK_TESTS_STATUS_HOSTILE_H

#include <cyclock/status.h>

/* Maps the file at @path (any length: opened a component at a time) @n
 * times, each from offset 0, read-only. */
void hostile_map(const char *path, int n);
/* Sets the command name to @name's bytes (15 at most). */
void hostile_name(const char *name);
/* "cycle" or "hostile": see target.c. */
void hostile_loader(const char *mode);
/* A block of version 2 with every string and number chosen to break its
 * reader's output, in both copies of each part: strings without their
 * NUL, control characters, bytes that are not UTF-8, counts of 2^63 and
 * more, negative and infinite frequencies and uncertainties, a warp check
 * of INT64_MIN cycles. */
void hostile_block(struct cyclock_status *st);

#endif /* CYCLOCK_TESTS_STATUS_HOSTILE_H */
