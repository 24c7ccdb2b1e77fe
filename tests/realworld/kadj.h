/* SPDX-License-Identifier: MIT */
/*
 * For tests that change the kernel's clock with adjtimex(2): save its
 * frequency, tick, status and time constant first, and put them back on
 * every way out.  kadj_begin() registers an atexit() handler, handlers
 * for the fatal and terminating signals, and a watchdog process that
 * restores them if this process dies without doing so (SIGKILL) or runs
 * past its time.  Offset slews started here are cancelled on the way
 * out.  CLOCK_REALTIME is never stepped: only ADJ_FREQUENCY, ADJ_TICK,
 * ADJ_OFFSET (a slew) and ADJ_STATUS are used.
 *
 * Header-only: each test program includes it once.
 */
#ifndef CYCLOCK_TESTS_KADJ_H
#define CYCLOCK_TESTS_KADJ_H

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/timex.h>
#include <sys/wait.h>
#include <unistd.h>

static struct timex kadj_saved;
static volatile sig_atomic_t kadj_active;
static int kadj_pipe = -1;
static pid_t kadj_owner; /* a fork child's exit() must not restore */

/* Put the saved state back: cancel any offset slew, then the rest.
 * Async-signal-safe (adjtimex is a system call). */
static void kadj_put_back(const struct timex *s)
{
	struct timex tx;

	memset(&tx, 0, sizeof(tx));
	tx.modes = ADJ_STATUS;
	tx.status = s->status | STA_PLL;
	adjtimex(&tx);
	memset(&tx, 0, sizeof(tx));
	tx.modes = ADJ_OFFSET; /* 0: no phase left to slew */
	adjtimex(&tx);
	memset(&tx, 0, sizeof(tx));
	tx.modes = ADJ_OFFSET_SINGLESHOT; /* 0: cancel adjtime()'s remainder */
	adjtimex(&tx);
	memset(&tx, 0, sizeof(tx));
	tx.modes = ADJ_FREQUENCY | ADJ_TICK | ADJ_STATUS; /* not the time constant: never changed */
	tx.freq = s->freq;
	tx.tick = s->tick;
	tx.status = s->status;
	adjtimex(&tx);
}

static void kadj_restore(void)
{
	if (!kadj_active || getpid() != kadj_owner)
		return;
	kadj_put_back(&kadj_saved);
	kadj_active = 0;
	if (kadj_pipe >= 0) {
		/* Tell the watchdog that all is back: it exits without touching anything. */
		ssize_t ignored = write(kadj_pipe, "d", 1);

		(void)ignored;
		close(kadj_pipe);
		kadj_pipe = -1;
	}
}

static void kadj_on_signal(int sig)
{
	kadj_restore();
	signal(sig, SIG_DFL);
	raise(sig);
}

/* The watchdog: waits for "done" or for the pipe to close; restores unless
 * told all is back, and after @max_s seconds restores and ends the test. */
static void kadj_watchdog(int rd, int lock, pid_t parent, int max_s)
{
	struct pollfd p = { .fd = rd, .events = POLLIN };
	char c = 0;
	int null = open("/dev/null", O_RDWR);

	/* Hold none of the test's pipes (its runner waits for them to close),
	 * but the lock: the next test saves the clock only once it is back. */
	for (int fd = 0; fd < 1024; fd++)
		if (fd != rd && fd != null && fd != lock)
			close(fd);
	if (null >= 0) {
		dup2(null, 0);
		dup2(null, 1);
		dup2(null, 2);
	}
	if (poll(&p, 1, max_s * 1000) == 1 && read(rd, &c, 1) == 1 && c == 'd')
		_exit(0);
	kadj_put_back(&kadj_saved);
	if (c != 'd')
		kill(parent, SIGTERM);
	_exit(0);
}

/*
 * Save the kernel's clock state and arm every restore path; the test may
 * run at most @max_s seconds.  Returns 0, or 77 (the test's skip code)
 * with a one-line reason on stderr when adjtimex may not change the clock.
 */
static int kadj_begin(int max_s)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGSEGV, SIGBUS,
				    SIGABRT, SIGFPE, SIGILL, SIGALRM, SIGPIPE, SIGXCPU };
	struct timex probe;
	int fds[2], lock;
	pid_t parent = getpid(), pid;

	/* One test at a time changes the clock, in this process tree or another:
	 * a second one would save the first one's changes as the state to restore. */
	lock = open("/run/cyclock-kadj.lock", O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (lock < 0 || flock(lock, LOCK_EX) < 0) {
		fprintf(stderr, "skip: cannot take /run/cyclock-kadj.lock (%s)\n", strerror(errno));
		return 77;
	}
	memset(&kadj_saved, 0, sizeof(kadj_saved));
	if (adjtimex(&kadj_saved) < 0) {
		fprintf(stderr, "skip: adjtimex: %s\n", strerror(errno));
		return 77;
	}
	probe = kadj_saved;
	probe.modes = ADJ_FREQUENCY; /* the same value: a check of the right to change it */
	if (adjtimex(&probe) < 0) {
		fprintf(stderr, "skip: adjtimex may not change the clock here (%s)\n",
			strerror(errno));
		return 77;
	}
	if (pipe2(fds, O_CLOEXEC) < 0)
		return 77;
	pid = fork();
	if (pid == 0) {
		close(fds[1]);
		kadj_watchdog(fds[0], lock, parent, max_s + 30);
	}
	close(fds[0]);
	if (pid < 0) {
		close(fds[1]);
		fprintf(stderr, "skip: no watchdog process (%s)\n", strerror(errno));
		return 77;
	}
	kadj_pipe = fds[1];
	kadj_owner = parent;
	kadj_active = 1;
	atexit(kadj_restore);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		signal(sigs[i], kadj_on_signal);
	return 0;
}

/* The saved state's values, for tests that move relative to them. */
static long kadj_saved_tick(void)
{
	return kadj_saved.tick;
}

static long kadj_saved_freq(void)
{
	return kadj_saved.freq;
}

/* ADJ_FREQUENCY in ppm (the kernel's unit is ppm << 16); 0 or -1. */
static int kadj_freq_ppm(double ppm)
{
	struct timex tx = { .modes = ADJ_FREQUENCY, .freq = (long)(ppm * 65536.0) };

	return adjtimex(&tx) < 0 ? -1 : 0;
}

/* ADJ_TICK: us per tick of USER_HZ (10000 is nominal; 9000..11000). */
static int kadj_tick(long tick)
{
	struct timex tx = { .modes = ADJ_TICK, .tick = tick };

	return adjtimex(&tx) < 0 ? -1 : 0;
}

/* A PLL offset slew of @us microseconds (never a step). */
static int kadj_offset_us(long us)
{
	struct timex tx = { .modes = ADJ_STATUS, .status = kadj_saved.status | STA_PLL };

	if (adjtimex(&tx) < 0)
		return -1;
	memset(&tx, 0, sizeof(tx));
	tx.modes = ADJ_OFFSET;
	tx.offset = us;
	return adjtimex(&tx) < 0 ? -1 : 0;
}

/* adjtime()'s singleshot slew of @us microseconds (500 ppm until done). */
static int kadj_singleshot_us(long us)
{
	struct timex tx = { .modes = ADJ_OFFSET_SINGLESHOT, .offset = us };

	return adjtimex(&tx) < 0 ? -1 : 0;
}

#endif /* CYCLOCK_TESTS_KADJ_H */
