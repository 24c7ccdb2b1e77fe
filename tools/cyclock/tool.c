/* SPDX-License-Identifier: MIT */
/*
 * What every command of the tool shares: the global options' state, the
 * one way an error is said (bench/'s too, through bench_error()), and
 * the one getopt_long() loop.  A file of its own, so that the
 * commands call into it and main.c calls the commands, and no two files
 * call each other.
 */
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"

bool tool_quiet;
const char *tool_argv0 = "cyclock";

void tool_verror(const char *fmt, va_list ap)
{
	fputs("cyclock: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void tool_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tool_verror(fmt, ap);
	va_end(ap);
}

/* After getopt_long() returned @opt, '?' or ':': one line naming the
 * option as given ("-x" of "-xq", "--json" missing its value, "--quick=1"). */
static void bad_option(const char *cmd, char **argv, int opt)
{
	char shortopt[3] = { '-', (char)optopt, '\0' };
	/* A short option's optopt is its character (named by it: optind may
	 * still be at its cluster, "-xq"), a long one's is its value (>= 256,
	 * see cmd.h) or 0, and optind is past it. */
	const char *name = optopt > 0 && optopt < 256 ? shortopt : argv[optind - 1];

	if (opt == ':')
		tool_error("%s: %s needs a value (see 'cyclock %s --help')", cmd, name, cmd);
	else if (optopt >= 256 && strchr(name, '='))
		tool_error("%s: '%s': %.*s takes no value (see 'cyclock %s --help')", cmd, name,
			   (int)strcspn(name, "="), name, cmd);
	else
		tool_error("%s: bad option '%s' (see 'cyclock %s --help')", cmd, name, cmd);
}

int tool_getopt(const char *cmd, int argc, char **argv, const char *shortopts,
		const struct option *longopts, int (*take)(void *ctx, int opt, char *arg),
		void *ctx)
{
	int opt, at = -1;

	/* optind 0 restarts GNU getopt (main() may run two commands);
	 * opterr 0, since each command words its errors. */
	optind = 0;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, shortopts, longopts, &at)) != -1) {
		if (opt == '?' || opt == ':') {
			bad_option(cmd, argv, opt);
			return -1;
		}
		/* --help by its name: its value is 'h' in some commands, an
		 * OPT_HELP in others. */
		if (opt == 'h' || (at >= 0 && !strcmp(longopts[at].name, "help")))
			return 1;
		if (take(ctx, opt, optarg))
			return -1;
		at = -1;
	}
	return 0;
}

void tool_help_item(FILE *f, int col, const char *name, const char *what)
{
	int at = fprintf(f, "  %s", name);
	const char *p = what;

	/* The description at @col, or, after a name as wide, on a line of
	 * its own there, never run into the name. */
	if (at > col - 2) {
		fputc('\n', f);
		at = 0;
	}
	while (*p) {
		size_t room = (size_t)(TOOL_HELP_WIDTH - col), len = strlen(p), brk = len;

		/* Break at the last space that keeps the line in the width (a
		 * word longer than that stands alone, whole). */
		if (len > room) {
			for (brk = room; brk > 0 && p[brk] != ' '; brk--)
				;
			if (brk == 0)
				brk = strcspn(p, " ");
		}
		fprintf(f, "%*s%.*s\n", col - at, "", (int)brk, p);
		at = 0;
		p += brk;
		while (*p == ' ')
			p++;
	}
}

int tool_help_column(const char *const *names, size_t n, size_t stride)
{
	size_t widest = 0;

	for (size_t i = 0; i < n; i++) {
		const char *name = *(const char *const *)((const char *)names + i * stride);

		widest = strlen(name) > widest ? strlen(name) : widest;
	}
	return (int)widest + 4;
}
