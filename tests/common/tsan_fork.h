/* SPDX-License-Identifier: MIT */
/*
 * For the tests whose threaded processes fork and whose children start
 * threads: under ThreadSanitizer, a thread created in a child of a
 * threaded process must not be fatal, nor each exit sleep the runtime's
 * default second while a thread still runs.  Include once, in the
 * program's one file.
 */
#ifndef CYCLOCK_TEST_TSAN_FORK_H
#define CYCLOCK_TEST_TSAN_FORK_H

#if defined(__SANITIZE_THREAD__)
#define CYCLOCK_TEST_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define CYCLOCK_TEST_TSAN 1
#endif
#endif

#ifdef CYCLOCK_TEST_TSAN
const char *__tsan_default_options(void);
const char *__tsan_default_options(void)
{
	return "die_after_fork=0:atexit_sleep_ms=0";
}
#endif

#endif /* CYCLOCK_TEST_TSAN_FORK_H */
