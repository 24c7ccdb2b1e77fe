/* SPDX-License-Identifier: MIT */
/*
 * The cyclock tool's commands: main.c dispatches "cyclock COMMAND ARGS..."
 * to cmd_COMMAND(argc, argv), argv[0] being the command's name.  Each
 * returns the process's exit status (see below) and prints its errors as
 * one line "cyclock: ..." on stderr.
 */
#ifndef CYCLOCK_TOOL_CMD_H
#define CYCLOCK_TOOL_CMD_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Exit statuses, as documented in cyclock(1). */
#define EXIT_OK 0
#define EXIT_FAIL 1    /* a measurement or an output file failed; run: no preload */
#define EXIT_USAGE 2   /* bad command line */
#define EXIT_INPUT 3   /* compare/plot: unreadable, malformed or mismatched input */
/* run, as env(1): its COMMAND found but not runnable, or not found. */
#define EXIT_CANNOT_RUN 126
#define EXIT_NOT_FOUND 127

/* Set by main() from the global options before dispatching. */
extern bool tool_quiet;
extern const char *tool_argv0;

int cmd_info(int argc, char **argv);
int cmd_bench(int argc, char **argv);
/* cmd_bench() with the verdict after the tables (bench_report_verdict()):
 * the default job's. */
int cmd_bench_verdict(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_plot(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_status(int argc, char **argv);

struct option;
/* A command's options in @argv (argv[0] its name, @cmd), through
 * getopt_long() with getopt's own messages off.  @shortopts starts with
 * ':' (after a '+' where the options end at the first operand), so that a
 * missing value is told from a bad option; the long options' values are
 * 256 or more, so that the errors tell them from short ones.  -h and
 * --help end the loop; every other option goes to @take(@ctx, opt,
 * optarg), which returns 0 to go on or -1 after a one-line error.
 * Returns 0 with optind at the first operand, 1 after -h or --help (the
 * caller prints its help), -1 after a one-line error: a bad option says
 * which, as given ("-x" of "-xq", "--json" missing its value,
 * "--quick=1"). */
int tool_getopt(const char *cmd, int argc, char **argv, const char *shortopts,
		const struct option *longopts, int (*take)(void *ctx, int opt, char *arg),
		void *ctx);

/* Help texts are at most this wide (columns, the newline excluded). */
#define TOOL_HELP_WIDTH 79

/* One entry of a help text's list: "  NAME", then @what from column @col
 * (0-based), wrapped to TOOL_HELP_WIDTH with its further lines starting
 * at @col too; a name that reaches @col - 2 puts @what on the next line. */
void tool_help_item(FILE *f, int col, const char *name, const char *what);
/* The column a list's descriptions start at: two spaces, the longest of
 * the @n names (the first at @names, each @stride bytes after the last:
 * a member of an array of structures), two spaces. */
int tool_help_column(const char *const *names, size_t n, size_t stride);

/* Prints "cyclock: " and the message to stderr, with a newline: the one
 * way the tool says an error, and bench/'s too (main() hands tool_verror
 * to bench_set_error()). */
void tool_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void tool_verror(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));

#endif /* CYCLOCK_TOOL_CMD_H */
