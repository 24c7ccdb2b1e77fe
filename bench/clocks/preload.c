/* SPDX-License-Identifier: MIT */
/*
 * The preload's clock_gettime(), preload_monotonic: libcyclock-preload.so
 * loaded into the tool with dlopen() and its CLOCK_MONOTONIC called
 * through a pointer in memory, reloaded at every call, as a program built
 * with -fno-plt calls an interposed function (a PLT's jump through the GOT
 * is the same load and indirect branch).  Beside the kernel's "monotonic",
 * which is libc's clock_gettime(), it shows whether a program pays more
 * for its clock under the preload than without (docs/preload.md, "What
 * it costs").
 *
 * The library is looked for where "cyclock run" looks (bench_preload_path())
 * and loaded with RTLD_LOCAL: its symbols do not replace the tool's, and
 * it keeps its own copy of cyclock's state, as a preloaded process has.
 * Its constructor reads CYCLOCK_PRELOAD_RELAXED and CYCLOCK_PRELOAD_CLOCKS
 * as it would in a program, so CYCLOCK_PRELOAD_RELAXED=1 times the relaxed
 * preload; a clock it does not serve is timed as its passing through.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "loops.h"

typedef int gettime_fn(clockid_t id, struct timespec *ts);

#ifndef CYCLOCK_PRELOAD_INSTALLED
#define CYCLOCK_PRELOAD_INSTALLED "/usr/local/lib/libcyclock-preload.so"
#endif
const char bench_preload_installed[] = CYCLOCK_PRELOAD_INSTALLED;

/* Where the library is looked for, relative to the tool's own directory,
 * first found wins: where this build installs it (its libdir from its
 * bindir, e.g. "../lib"), the other usual libdirs, and the build tree's
 * layout (build/<dir>/tools/cyclock/ and build/<dir>/src/preload/).  So
 * an installed, copied or relocated tree uses its own library. */
static const char *const preload_dirs[] = {
#ifdef CYCLOCK_PRELOAD_FROM_BINDIR
	CYCLOCK_PRELOAD_FROM_BINDIR,
#endif
#ifdef CYCLOCK_MULTIARCH
	("../lib/" CYCLOCK_MULTIARCH), /* one name: clang's -Wstring-concatenation */
#endif
	"../lib64", "../lib", "../../src/preload",
};

const char *bench_preload_path(char *buf, size_t len, const char **how)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	char *slash = n > 0 ? (exe[n] = '\0', strrchr(exe, '/')) : NULL;

	if (slash) {
		*slash = '\0';
		for (size_t i = 0; i < sizeof(preload_dirs) / sizeof(preload_dirs[0]); i++) {
			snprintf(buf, len, "%s/%s/libcyclock-preload.so", exe, preload_dirs[i]);
			if (access(buf, R_OK) == 0) {
				*how = "found beside the tool";
				return realpath(buf, exe) ? strcpy(buf, exe) : buf;
			}
		}
	}
	*how = "the path it was built for, none beside the tool";
	return access(bench_preload_installed, R_OK) == 0 ? bench_preload_installed : NULL;
}

/* The preload's clock_gettime(): not static, so that each call loads it. */
gettime_fn *bench__preload_gettime;

static void load_preload(void)
{
	char buf[PATH_MAX];
	const char *how, *lib = bench_preload_path(buf, sizeof(buf), &how);
	void *h = lib ? dlopen(lib, RTLD_NOW | RTLD_LOCAL) : NULL;

	if (h)
		bench__preload_gettime = (gettime_fn *)dlsym(h, "clock_gettime");
}

bool bench_preload_available(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, load_preload);
	return bench__preload_gettime != NULL;
}

static inline uint64_t preload_ns(clockid_t id)
{
	struct timespec ts;

	bench__preload_gettime(id, &ts);
	return bench_ts_ns(&ts);
}

DEFINE_SHARED_CLOCK(preload_monotonic, , preload_ns(CLOCK_MONOTONIC))
