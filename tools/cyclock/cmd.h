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

/* Before a command's getopt_long() loop: start at its first argument
 * (optind 0 restarts GNU getopt, and main() may run two commands) with
 * getopt's own messages off, since each command words its errors. */
void tool_getopt_start(void);
/* After getopt_long() returned @opt, '?' or ':' (the optstring starting
 * with ':'), in command @cmd: one line naming the option as given ("-x"
 * of "-xq", "--json" missing its value, "--quick=1").  The long options'
 * values must be 256 or more, so that they are told from short ones. */
void tool_bad_option(const char *cmd, char **argv, int opt);

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
