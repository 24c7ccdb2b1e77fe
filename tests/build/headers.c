/* The public headers from C11, under headers.sh's warnings: every one of
 * them, and a reading of the hosted clocks. */
#include <cyclock.h>
#include <cyclock/arch.h>
#include <cyclock/core.h>
#include <cyclock/latch.h>
#include <cyclock/timeline.h>

#include <stdio.h>

int main(void)
{
	uint64_t a = cyclock_now(), b = cyclock_now();

	if (a == 0 || b < a) {
		fprintf(stderr, "headers.c: cyclock_now() went back (%llu, %llu)\n",
			(unsigned long long)a, (unsigned long long)b);
		return 1;
	}
	return 0;
}
