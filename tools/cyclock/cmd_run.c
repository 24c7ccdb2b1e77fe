/* SPDX-License-Identifier: MIT */
/*
 * cyclock run [-v] [--relaxed] [--clocks LIST] -- COMMAND [ARGS...]: runs
 * COMMAND with libcyclock-preload.so first in LD_PRELOAD, so that its
 * clock_gettime(), gettimeofday(), timespec_get() and (with a coarse
 * clock) time() are served by cyclock; --relaxed sets
 * CYCLOCK_PRELOAD_RELAXED=1 (the unordered read: monotonic per thread).  The library is
 * looked for relative to the tool's own location (installed, copied or
 * in the build tree: see bench_preload_path()), then at the path it was built
 * for.  Exit status: COMMAND's, since it replaces this process; 1 when
 * there is no preload library (or the environment cannot take it), 2 for
 * a bad command line, 126 when COMMAND cannot be run, 127 when it is not
 * found, as env(1)'s.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h" /* bench_preload_path() */
#include "cmd.h"
#include "preload/names.h" /* the names the preload takes */

#define RUN_USAGE "usage: cyclock run [-v] [--relaxed] [--clocks LIST] -- COMMAND [ARGS...]"

static void run_usage(void)
{
	puts(RUN_USAGE "\n\n"
	     "Runs COMMAND with clock_gettime(), gettimeofday() and timespec_get() served\n"
	     "by cyclock (libcyclock-preload.so, prepended to LD_PRELOAD).\n\n"
	     "  --clocks LIST  serve these, comma-separated: monotonic, monotonic_raw,\n"
	     "                 realtime, boottime (the default: those four),\n"
	     "                 monotonic_coarse, realtime_coarse (and time()); the\n"
	     "                 others and the CPU-time clocks stay the kernel's\n"
	     "  --relaxed      serve the fine clocks from the unordered counter read:\n"
	     "                 cheaper, but monotonic within each thread only, not\n"
	     "                 between threads (by up to the cross-CPU warp that\n"
	     "                 'cyclock bench warp' measures): for single-threaded\n"
	     "                 programs and process-per-connection servers\n"
	     "                 (CYCLOCK_PRELOAD_RELAXED=1; see docs/preload.md)\n"
	     "  -v             say on stderr what is preloaded\n\n"
	     "Exit status: COMMAND's; 1 no preload library, 2 bad command line,\n"
	     "126 COMMAND cannot be run, 127 COMMAND not found.");
}

/* Every name in @list is one the preload knows; else says which is not. */
static bool clocks_valid(const char *list)
{
	const char *p = list;

	do {
		size_t len = strcspn(p, ",");
		bool known = false;

		for (size_t i = 0; i < CYCLOCK_PRELOAD_NAMES_N; i++)
			known |= strlen(cyclock_preload_names[i].name) == len &&
				 !strncmp(p, cyclock_preload_names[i].name, len);
		if (!known) {
			tool_error("run: unknown clock '%.*s' in --clocks '%s' (" CYCLOCK_PRELOAD_NAMES_TEXT
				   ")", (int)len, p, list);
			return false;
		}
		p += len;
	} while (*p++ == ',');
	return true;
}

/* LD_PRELOAD with @lib first; 0, or -1 when the environment cannot take it. */
static int set_preload(const char *lib)
{
	const char *old = getenv("LD_PRELOAD");
	size_t len = strlen(lib) + (old ? strlen(old) + 1 : 0) + 1;
	char *val = malloc(len);
	int rc;

	if (!val)
		return -1;
	snprintf(val, len, "%s%s%s", lib, old && *old ? ":" : "", old ? old : "");
	rc = setenv("LD_PRELOAD", val, 1);
	free(val);
	return rc;
}

/* The long options' values: 256 and up (see tool_getopt()). */
enum { OPT_CLOCKS = 256, OPT_RELAXED, OPT_HELP };

struct run_opts {
	const char *clocks;
	bool verbose, relaxed;
};

static int take_option(void *ctx, int opt, char *arg)
{
	struct run_opts *o = ctx;

	if (opt == 'v') {
		o->verbose = true;
	} else if (opt == OPT_RELAXED) {
		o->relaxed = true;
	} else if (arg[0]) {
		o->clocks = arg; /* --clocks, the one option with a value */
	} else {
		tool_error("run: --clocks needs a value (see 'cyclock run --help')");
		return -1;
	}
	return 0;
}

/* Options up to the command, which getopt leaves alone ("+", as env(1)
 * does: "cyclock run prog --help" is prog's --help).  The command's index
 * in @argv; 0 after --help; -1 after saying what is wrong. */
static int parse(int argc, char **argv, struct run_opts *o)
{
	static const struct option longopts[] = {
		{ "clocks", required_argument, NULL, OPT_CLOCKS },
		{ "relaxed", no_argument, NULL, OPT_RELAXED },
		{ "help", no_argument, NULL, OPT_HELP },
		{ NULL, 0, NULL, 0 },
	};
	int rc = tool_getopt("run", argc, argv, "+:hv", longopts, take_option, o);

	if (rc > 0)
		run_usage();
	if (rc)
		return rc > 0 ? 0 : -1;
	if (optind == argc) {
		tool_error("run: no command (%s)", RUN_USAGE);
		return -1;
	}
	return optind;
}

int cmd_run(int argc, char **argv)
{
	struct run_opts o = { NULL, false, false };
	const char *lib, *how;
	char buf[PATH_MAX + 64];
	int i;

	if ((i = parse(argc, argv, &o)) <= 0)
		return i < 0 ? EXIT_USAGE : EXIT_OK;
	if (o.clocks && !clocks_valid(o.clocks))
		return EXIT_USAGE;
	lib = bench_preload_path(buf, sizeof(buf), &how);
	if (!lib) {
		tool_error("run: libcyclock-preload.so not found (beside the tool, nor %s)",
			   bench_preload_installed);
		return EXIT_FAIL;
	}
	if (o.verbose)
		fprintf(stderr, "cyclock: run: preload %s (%s)\n", lib, how);
	/* Unset unless asked: an inherited setting must not make it relaxed. */
	if (set_preload(lib) || (o.clocks && setenv("CYCLOCK_PRELOAD_CLOCKS", o.clocks, 1)) ||
	    (o.relaxed ? setenv("CYCLOCK_PRELOAD_RELAXED", "1", 1)
		       : unsetenv("CYCLOCK_PRELOAD_RELAXED"))) {
		tool_error("run: cannot set the environment: %s", strerror(errno));
		return EXIT_FAIL;
	}
	if (o.verbose)
		fprintf(stderr, "cyclock: run: LD_PRELOAD=%s%s%s%s\n", getenv("LD_PRELOAD"),
			o.clocks ? " CYCLOCK_PRELOAD_CLOCKS=" : "", o.clocks ? o.clocks : "",
			o.relaxed ? " CYCLOCK_PRELOAD_RELAXED=1" : "");
	execvp(argv[i], argv + i);
	tool_error("run: %s: %s", argv[i], strerror(errno));
	return errno == ENOENT ? EXIT_NOT_FOUND : EXIT_CANNOT_RUN;
}
