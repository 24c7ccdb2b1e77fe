/* SPDX-License-Identifier: MIT */
/*
 * The preload's constructor can neither fail, block nor kill its program
 * when it has something to say.  A bad CYCLOCK_SOURCE makes it write one
 * line on stderr (cyclock__say()) before main(), in a program that has not
 * chosen to run cyclock and whose stderr may be anything; a plain write(2)
 * there would kill the program with SIGPIPE (a pipe nobody reads) or stop
 * it for good (a full pipe nobody drains).  This program (plain libc)
 * re-execs itself as a target, with the variable bad and LD_PRELOAD kept,
 * its stderr:
 *   closed     fd 2 closed before exec();
 *   dead pipe  a pipe whose read end is closed, SIGPIPE at its default
 *              disposition and unblocked;
 *   full pipe  a pipe filled until EAGAIN, its write end blocking again,
 *              nobody reading: the target has 5 s, then it is killed;
 *   read pipe  an ordinary pipe, read: the message arrives once, as one
 *              line.
 * Each target must exit 0, not by a signal; it checks that the preload is
 * loaded and that SIGPIPE is as it was given (not left blocked).  Never
 * exits 77: the message comes whether or not the preload serves a clock.
 *
 * CYCLOCK_COARSE_PERIOD_US=bogus has a message too, but read_period() runs
 * only when the coarse ticker starts (cyclock_init(CYCLOCK_INIT_COARSE)),
 * which the preload never asks for, not even with the coarse clocks
 * served.  So that variant is only probed with a read pipe; it is said to
 * be skipped while the constructor stays silent, and run like the other
 * once it is not.
 * Usage: stderr [--target]
 */
#include "preload_check.h" /* first: it defines _GNU_SOURCE (pipe2()) */

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include <sys/wait.h>

#define DEADLINE_NS (5 * NS_PER_SEC)

enum setup { CLOSED, DEAD, FULL, READ };
static const char *const setup_names[] = { "closed", "dead pipe", "full pipe", "read pipe" };

/* A variable the constructor may complain of, set to "bogus", with
 * CYCLOCK_PRELOAD_CLOCKS @clocks (NULL: unset), and its message. */
struct variant {
	const char *var;
	const char *clocks; /* CYCLOCK_PRELOAD_CLOCKS */
	const char *head;   /* how the message starts */
	bool optional;      /* silence means "not in the constructor's path" */
};

static const struct variant variants[] = {
	{ "CYCLOCK_SOURCE", NULL, "cyclock: ignoring CYCLOCK_SOURCE=\"bogus\"", false },
	{ "CYCLOCK_COARSE_PERIOD_US", "monotonic,realtime,monotonic_coarse,realtime_coarse",
	  "cyclock: ignoring CYCLOCK_COARSE_PERIOD_US", true },
};

static int failures;

/* The target: 0 if the preload is loaded and SIGPIPE is unblocked and
 * at its default (else 3, 4, 5: see check_status()). */
static int target(void)
{
	struct sigaction sa;
	sigset_t mask;

	if (!dlsym(RTLD_DEFAULT, "cyclock_preload_active"))
		return 3;
	if (sigprocmask(SIG_BLOCK, NULL, &mask) || sigismember(&mask, SIGPIPE))
		return 4;
	if (sigaction(SIGPIPE, NULL, &sa) || sa.sa_handler != SIG_DFL)
		return 5;
	return 0;
}

/* Only @v's variable bad; the others the preload reads unset. */
static void set_env(const struct variant *v)
{
	unsetenv("CYCLOCK_SOURCE");
	unsetenv("CYCLOCK_COARSE_PERIOD_US");
	unsetenv("CYCLOCK_PRELOAD_CLOCKS");
	setenv(v->var, "bogus", 1);
	if (v->clocks)
		setenv("CYCLOCK_PRELOAD_CLOCKS", v->clocks, 1);
}

/* Fill the pipe's write end @fd to the last byte, then make it blocking
 * again; 0 or -1. */
static int fill(int fd)
{
	static const char page[4096];
	int flags = fcntl(fd, F_GETFL);

	if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK))
		return -1;
	while (write(fd, page, sizeof(page)) > 0)
		;
	while (write(fd, page, 1) > 0)
		;
	if (errno != EAGAIN)
		return -1;
	return fcntl(fd, F_SETFL, flags);
}

/* The child: stderr set up as @s (@fd the pipe's write end), SIGPIPE
 * at its default and unblocked; never returns. */
static void start_target(enum setup s, int fd)
{
	sigset_t pipe_set;

	signal(SIGPIPE, SIG_DFL);
	sigemptyset(&pipe_set);
	sigaddset(&pipe_set, SIGPIPE);
	sigprocmask(SIG_UNBLOCK, &pipe_set, NULL);
	if (s == CLOSED)
		close(STDERR_FILENO);
	else if (dup2(fd, STDERR_FILENO) < 0)
		_exit(126);
	execl("/proc/self/exe", "stderr", "--target", (char *)NULL);
	_exit(127);
}

/* Until EOF on @fd or @end (CLOCK_MONOTONIC): up to @size bytes into
 * @buf, the rest dropped; the number of bytes kept. */
static size_t drain(int fd, char *buf, size_t size, int64_t end)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	size_t got = 0;
	char junk[256];

	for (int64_t now; (now = sys_ns(CLOCK_MONOTONIC)) < end;) {
		int ready = poll(&p, 1, (int)((end - now) / 1000000) + 1);
		ssize_t r;

		if (ready < 0 && errno != EINTR)
			break;
		if (ready <= 0)
			continue;
		r = got < size ? read(fd, buf + got, size - got) : read(fd, junk, sizeof(junk));
		if (r == 0 || (r < 0 && errno != EAGAIN && errno != EINTR))
			break;
		if (r > 0 && got < size)
			got += (size_t)r;
	}
	return got;
}

/* @pid's wait status, by @end; killed and -1 if it has not exited by then. */
static int wait_until(pid_t pid, int64_t end)
{
	struct timespec step = { 0, 10 * 1000 * 1000 };
	int st;

	while (sys_ns(CLOCK_MONOTONIC) < end) {
		pid_t r = waitpid(pid, &st, WNOHANG);

		if (r == pid)
			return st;
		if (r < 0 && errno != EINTR)
			return -2;
		nanosleep(&step, NULL);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	return -1;
}

/* A target whose stderr is @s; its wait status (as wait_until()), and
 * for READ what it wrote in @out (@size bytes at most), its length in *@n. */
static int run(enum setup s, char *out, size_t size, size_t *n)
{
	int64_t end = sys_ns(CLOCK_MONOTONIC) + DEADLINE_NS;
	int p[2] = { -1, -1 }, st;
	pid_t pid;

	*n = 0;
	if (s != CLOSED && pipe2(p, O_CLOEXEC))
		return -3;
	if (s == DEAD) {
		close(p[0]);
		p[0] = -1;
	}
	if (s == FULL && fill(p[1])) {
		close(p[0]);
		close(p[1]);
		return -4;
	}
	pid = fork();
	if (pid == 0)
		start_target(s, p[1]);
	if (p[1] >= 0)
		close(p[1]);
	if (pid < 0)
		st = -5;
	else {
		if (s == READ)
			*n = drain(p[0], out, size, end);
		st = wait_until(pid, end);
	}
	if (p[0] >= 0)
		close(p[0]); /* only now: a full pipe must keep a reader */
	return st;
}

/* Checks @st, a target's under setup @s, to be a plain exit 0. */
static void check_status(const struct variant *v, enum setup s, int st)
{
	if (st == -1)
		CHECK(0, "%s=bogus, stderr %s: still running after %lld s (blocked on stderr?)",
		      v->var, setup_names[s], DEADLINE_NS / NS_PER_SEC);
	else if (st < 0)
		CHECK(0, "%s=bogus, stderr %s: could not set up the target (%d)", v->var,
		      setup_names[s], st);
	else if (WIFSIGNALED(st))
		CHECK(0, "%s=bogus, stderr %s: killed by signal %d (%s)", v->var, setup_names[s],
		      WTERMSIG(st), strsignal(WTERMSIG(st)));
	else
		CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0,
		      "%s=bogus, stderr %s: exit %d (3: no preload, 4: SIGPIPE left blocked, "
		      "5: SIGPIPE not at its default, 126/127: dup2()/exec() failed)",
		      v->var, setup_names[s], WEXITSTATUS(st));
}

/* @n bytes of @out: @v's message, once, as one line. */
static void check_message(const struct variant *v, const char *out, size_t n)
{
	const char *nl = memchr(out, '\n', n);

	CHECK(n > strlen(v->head) && !strncmp(out, v->head, strlen(v->head)),
	      "%s=bogus: the message is \"%.*s\", expected it to start \"%s\"", v->var, (int)n,
	      out, v->head);
	CHECK(nl == out + n - 1, "%s=bogus: %zu bytes on stderr, not one line: \"%.*s\"", v->var,
	      n, (int)n, out);
}

/* Every setup for @v; false if it was skipped (an optional variant whose
 * message the constructor does not write). */
static bool run_variant(const struct variant *v)
{
	char out[1024];
	size_t n;
	int st;

	set_env(v);
	st = run(READ, out, sizeof(out), &n);
	check_status(v, READ, st);
	if (v->optional && n == 0 && st == 0)
		return false;
	check_message(v, out, n);
	for (enum setup s = CLOSED; s < READ; s++)
		check_status(v, s, run(s, out, sizeof(out), &n));
	return true;
}

int main(int argc, char **argv)
{
	unsigned int mask;

	if (argc == 2 && !strcmp(argv[1], "--target"))
		return target();
	mask = preload_mask(argv[0]);
	for (size_t i = 0; i < sizeof(variants) / sizeof(variants[0]); i++) {
		int before = failures;
		const struct variant *v = &variants[i];

		if (!run_variant(v))
			printf("preload_stderr: %s=bogus: no message from the constructor (read only "
			       "when a coarse ticker is asked for): skipped\n",
			       v->var);
		else if (failures == before)
			printf("preload_stderr: %s=bogus: one line; exit 0 with stderr closed, a dead "
			       "pipe and a full pipe\n",
			       v->var);
	}
	if (failures)
		return 1;
	printf("preload_stderr: the constructor's message neither fails, blocks nor kills "
	       "(served 0x%x)\n",
	       mask);
	return 0;
}
