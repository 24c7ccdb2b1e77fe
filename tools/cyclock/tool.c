/* SPDX-License-Identifier: MIT */
/*
 * What every command of the tool shares: the global options' state, the
 * one way an error is said (bench/'s too, through bench_error()), and
 * getopt_long()'s start and bad options.  A file of its own, so that the
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

void tool_getopt_start(void)
{
	optind = 0;
	opterr = 0;
}

void tool_bad_option(const char *cmd, char **argv, int opt)
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
