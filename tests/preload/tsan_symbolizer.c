/* SPDX-License-Identifier: MIT */
/*
 * llvm-symbolizer for ThreadSanitizer's reports in the preload's tests.
 * The sanitizer starts its symbolizer with the test's environment, and a
 * dynamic symbolizer then loads the preload (built with the sanitizer,
 * which it cannot resolve) and dies, leaving every frame "<null>" and the
 * suppressions (tsan.supp), which match function names, unable to match.
 * This one is linked statically, so the dynamic loader never runs for it:
 * it drops LD_PRELOAD and becomes the real symbolizer (CYCLOCK_SYMBOLIZER).
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	(void)argc;
	unsetenv("LD_PRELOAD");
	argv[0] = (char *)CYCLOCK_SYMBOLIZER;
	execv(argv[0], argv);
	perror(CYCLOCK_SYMBOLIZER);
	return 127;
}
