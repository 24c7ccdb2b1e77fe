/* SPDX-License-Identifier: MIT */
/*
 * A program linked with libcyclock.so, run under the preload: the
 * library's kernel reads must reach the kernel's clock, not the preload's.
 * The clock_gettime() the program reaches is then the preload's, a
 * cyclock clock; a library that followed it tracked a line of segments
 * with a horizon of 250 us instead of 2 ms and spells in kernel mode, and
 * its reads after a 0.1 ms pause cost 6-16x libc's (src/linux/next.c).
 * So the library must call the vDSO directly, as the preload itself does
 * where its next definition is libc's, and the preload's
 * cyclock_preload_next_gettime() must answer libc's definition for its
 * own clock_gettime() and leave any other as it is.
 */
#define _GNU_SOURCE
#include <cyclock.h>
#include <cyclock/timeline.h>
#include <sys/auxv.h>

#include "preload_check.h"

typedef int gettime_fn(clockid_t id, struct timespec *ts);

static int failures;

/* The vDSO's clock_gettime(), or NULL where the process has no vDSO. */
static gettime_fn *vdso_gettime(void)
{
	static const char *const names[] = { "__vdso_clock_gettime", "__kernel_clock_gettime" };
	void *h = dlopen("linux-vdso.so.1", RTLD_LAZY | RTLD_NOLOAD);
	gettime_fn *fn = NULL;

	for (size_t i = 0; h && !fn && i < sizeof(names) / sizeof(names[0]); i++)
		fn = (gettime_fn *)dlsym(h, names[i]);
	return fn;
}

static gettime_fn *libc_gettime(void)
{
	void *h = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);

	return h ? (gettime_fn *)dlsym(h, "clock_gettime") : NULL;
}

int main(int argc, char **argv)
{
	unsigned int mask = preload_mask(argv[0]);
	gettime_fn *(*next)(gettime_fn *) =
		(gettime_fn * (*)(gettime_fn *)) dlsym(RTLD_DEFAULT, "cyclock_preload_next_gettime");
	gettime_fn *program = (gettime_fn *)dlsym(RTLD_DEFAULT, "clock_gettime");
	struct cyclock__timeline *tl = dlsym(RTLD_DEFAULT, "cyclock__mono");
	gettime_fn *libc = libc_gettime(), *vdso = getauxval(AT_SYSINFO_EHDR) ? vdso_gettime() : NULL;

	(void)argc;
	CHECK(next && tl && libc, "the preload's next, libcyclock.so's timeline or libc's clock "
				  "is missing");
	if (!next || !tl || !libc)
		return 1;
	CHECK(program != libc, "the program's clock_gettime() is libc's, not the preload's");
	CHECK(next(program) == libc, "the preload's next definition is not libc's");
	CHECK(next(libc) == libc, "libc's definition was not left as it is");
	CHECK(next(NULL) == NULL, "a null definition was not left as it is");
	(void)cyclock_now();
	CHECK((gettime_fn *)tl->kernel_gettime == vdso,
	      "libcyclock.so calls %p for the kernel's clock, not the vDSO's %p",
	      (void *)tl->kernel_gettime, (void *)vdso);
	printf("vDSO %p, served mask %#x, %d failures\n", (void *)vdso, mask, failures);
	return failures ? 1 : preload_result(mask, argv[0]);
}
