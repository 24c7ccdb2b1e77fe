/* SPDX-License-Identifier: MIT */
/*
 * A program whose inline readers (CYCLOCK_INLINE) read cyclock__mono
 * while linking libcyclock.so: built as a position-independent
 * executable, it copy-relocates the timeline into itself, and the library,
 * which reaches the timeline through its self (src/linux/internal.h,
 * cyclock__tl_of()), must keep that copy, not its own: self is the
 * program's copy, and the inline and the library's reads are one clock.
 */
#define CYCLOCK_INLINE
#include <cyclock.h>
#include <stdio.h>
#include <time.h>

/* The library's cyclock_now(), not the inline one the macro gives. */
static uint64_t library_now(void)
{
	return (cyclock_now)();
}

int main(void)
{
	const struct timespec gap = { 0, 3000000 }; /* past a segment's horizon */
	uint64_t last = 0;

	for (int i = 0; i < 100000; i++) {
		uint64_t a = cyclock_now(), b = library_now();

		if (a < last || b < a) {
			printf("FAIL: read %d went back: %llu, then inline %llu, library %llu\n", i,
			       (unsigned long long)last, (unsigned long long)a, (unsigned long long)b);
			return 1;
		}
		last = b;
		if (i % 10000 == 0)
			nanosleep(&gap, NULL);
	}
	if (cyclock__mono.self != &cyclock__mono) {
		printf("FAIL: the library keeps the timeline at %p, the program reads %p\n",
		       (void *)cyclock__mono.self, (void *)&cyclock__mono);
		return 1;
	}
	return 0;
}
