/* SPDX-License-Identifier: MIT */
/*
 * cyclock: what every clock on this machine costs and how good it is.
 *   cyclock [--quiet] [COMMAND [ARGS...]]
 * With no command: "info", then "bench --quick".  See cyclock(1).
 * Everything a command prints on standard output is checked here, once,
 * when it returns: output lost to a full disk or a closed stdout is one
 * line and exit status 1, never a silent success.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "cmd.h"

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *what;
} commands[] = {
	{ "info", cmd_info, "the counter, its frequency and trust, the machine" },
	{ "bench", cmd_bench, "run scenarios: warm cold sparse scale ... (bench --help lists all)" },
	{ "compare", cmd_compare, "a table of two or more runs' JSON, with changes in %" },
	{ "plot", cmd_plot, "an SVG of a run's JSON: cost per clock, threads, resolution" },
	{ "run", cmd_run, "run a command with clock_gettime() served by cyclock" },
	{ "status", cmd_status, "how running processes' clocks are doing, read from outside" },
};

static void usage(FILE *f)
{
	size_t n = sizeof(commands) / sizeof(commands[0]);
	int col = tool_help_column(&commands[0].name, n, sizeof(commands[0]));

	fputs("usage: cyclock [--quiet] [COMMAND [ARGS...]]\n"
	      "       cyclock --help | --version\n\n"
	      "With no command: \"info\", then \"bench --quick\" (under 20 s).\n\n"
	      "Commands (\"cyclock COMMAND --help\" for each):\n", f);
	for (size_t i = 0; i < n; i++)
		tool_help_item(f, col, commands[i].name, commands[i].what);
	fputs("\nExit status: 0 success, 1 a measurement or output failed, 2 bad command\n"
	      "line, 3 unreadable or mismatched input (compare, plot).\n", f);
}

/* The default job: what a person runs first. */
static int default_job(void)
{
	char info_name[] = "info", bench_name[] = "bench", quick[] = "--quick";
	char *info[] = { info_name, NULL };
	char *bench[] = { bench_name, quick, NULL };
	int rc = cmd_info(1, info);

	if (rc != EXIT_OK)
		return rc;
	putchar('\n');
	fflush(stdout);
	return cmd_bench_verdict(2, bench);
}

/* A standard stream the caller closed (">&-") is held open on /dev/null,
 * read-only and close-on-exec: no file the tool opens can become it (a
 * table written into a JSON file's temporary), writes to it still fail
 * (EBADF), and "cyclock run"'s command finds it closed as it was. */
static void hold_closed_fds(void)
{
	for (int fd = 0; fd <= 2; fd++) {
		int null;

		if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
			continue;
		null = open("/dev/null", O_RDONLY | O_CLOEXEC);
		if (null >= 0 && null != fd) {
			dup3(null, fd, O_CLOEXEC);
			close(null);
		}
	}
}

/*
 * Standard output's writes, each to descriptor 1, keeping the first
 * error's errno (bench_stdout_errno): stdio keeps only that one happened,
 * and a buffer it dropped inside a long puts() (a help text filling a full
 * disk) leaves no errno to say why by the time stdout_done() looks.
 */
static ssize_t stdout_write(void *cookie, const char *buf, size_t n)
{
	size_t done = 0;

	(void)cookie;
	while (done < n) {
		ssize_t w = write(STDOUT_FILENO, buf + done, n - done);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			if (!bench_stdout_errno)
				bench_stdout_errno = w < 0 ? errno : EIO;
			return done ? (ssize_t)done : -1;
		}
		done += (size_t)w;
	}
	return (ssize_t)n;
}

static int stdout_close(void *cookie)
{
	(void)cookie;
	if (close(STDOUT_FILENO) == 0 || errno == EBADF)
		return 0;
	if (!bench_stdout_errno)
		bench_stdout_errno = errno;
	return -1;
}

/* stdout as a stream over stdout_write(), buffered as stdio would: by
 * line on a terminal, else fully.  Left as it is if that cannot be made. */
static void stdout_keep_errors(void)
{
	cookie_io_functions_t io = { .write = stdout_write, .close = stdout_close };
	FILE *f = fopencookie(NULL, "w", io);

	if (!f)
		return;
	setvbuf(f, NULL, isatty(STDOUT_FILENO) ? _IOLBF : _IOFBF, BUFSIZ);
	stdout = f;
}

/* The one check of standard output: @rc, or EXIT_FAIL after one line when
 * anything written to it was lost.  A reader gone (EPIPE, where SIGPIPE
 * is ignored; by default SIGPIPE ends the tool first) is said by nothing. */
static int stdout_done(int rc)
{
	int e = 0;

	errno = 0;
	if (fflush(stdout) != 0)
		e = errno ? errno : -1;
	/* An error whose buffer stdio dropped: the first one kept, else the
	 * descriptor's own (a closed one), else unknown (-1). */
	if (!e && (ferror(stdout) || bench_stdout_errno))
		e = bench_stdout_errno ? bench_stdout_errno
				       : write(STDOUT_FILENO, "", 0) < 0 ? errno : -1;
	if (!e && fclose(stdout) != 0)
		e = errno ? errno : -1;
	if (!e)
		return rc;
	if (e != EPIPE)
		tool_error("standard output: %s", e > 0 ? strerror(e) : "write error");
	return rc == EXIT_OK ? EXIT_FAIL : rc;
}

/* The global options, then the command: its exit status. */
static int dispatch(int argc, char **argv)
{
	int i = 1;

	for (; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			return EXIT_OK;
		} else if (!strcmp(argv[i], "-V") || !strcmp(argv[i], "--version")) {
			printf("cyclock %s\n", CYCLOCK_TOOL_VERSION);
			return EXIT_OK;
		} else if (!strcmp(argv[i], "-q") || !strcmp(argv[i], "--quiet")) {
			tool_quiet = true;
		} else {
			tool_error("unknown option '%s' (try 'cyclock --help')", argv[i]);
			return EXIT_USAGE;
		}
	}
	if (i == argc)
		return default_job();
	for (size_t c = 0; c < sizeof(commands) / sizeof(commands[0]); c++)
		if (!strcmp(argv[i], commands[c].name))
			return commands[c].fn(argc - i, argv + i);
	tool_error("unknown command '%s' (try 'cyclock --help')", argv[i]);
	return EXIT_USAGE;
}

int main(int argc, char **argv)
{
	tool_argv0 = argv[0];
	bench_set_error(tool_verror);
	hold_closed_fds();
	stdout_keep_errors();
	return stdout_done(dispatch(argc, argv));
}
