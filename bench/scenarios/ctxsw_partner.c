/* SPDX-License-Identifier: MIT */
/*
 * ctxsw's partners (see ctxsw.c): a child process per clock, forked and
 * reaped here, and the ping-pong over its two pipes.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "ctxsw.h"

#define RING 256               /* timestamps kept per side: a power of two */
#define BATCH 16               /* round trips between looks at the stopwatch */

/* One byte through @fd, in (@out false) or out; whether it went. */
static bool xfer(int fd, char *b, bool out)
{
	ssize_t r;

	do
		r = out ? write(fd, b, 1) : read(fd, b, 1);
	while (r < 0 && errno == EINTR);
	return r == 1;
}

/*
 * The child: answer every byte until the pipe closes.  It only reads,
 * writes, reads clocks and _exit()s (no stdio, no atexit handlers of the
 * parent's), which is what is safe after fork() in a process with other
 * threads.  Its alarm is the backstop against a parent that stopped
 * answering: the child dies, and its end of the pipe closing ends the
 * parent's read.
 */
static _Noreturn void child_loop(int rd, int wr, int cpu, const struct bench_clock *c,
				 unsigned int timeout_s)
{
	uint64_t ring[RING] = { 0 }, sum = 0;
	unsigned long i = 0;
	char b;

	alarm(timeout_s);
	if (bench_pin(cpu) != 0)
		_exit(2);
	while (xfer(rd, &b, false)) {
		if (c)
			ring[i++ & (RING - 1)] = c->read();
		if (!xfer(wr, &b, true))
			break;
	}
	for (int k = 0; k < RING; k++)
		sum += ring[k];
	bench_sink = sum;
	_exit(0);
}

/* In a new child: closes the parent's ends of the pipes to the @n
 * partners started before, or each would keep the others' pipes open and
 * none would see the end of its file. */
static void close_others(const struct partner *others, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		close(others[i].wr);
		close(others[i].rd);
		close(others[i].keep);
	}
}

/*
 * Forks the child of @p, pinned to @cpu; @others are the partners started
 * before.  The parent keeps the read end of its own pipe to the child
 * open: a pipe with a reader never raises SIGPIPE, so a child that died
 * makes the parent's next read() see the end of the file instead of
 * killing the tool.  The child closes that pipe's write end, or it would
 * never see the end of the file itself.
 */
int bench__ctxsw_start(struct partner *p, const struct partner *others, size_t n_others, int cpu,
		       unsigned int timeout_s)
{
	int down[2], up[2];

	if (pipe2(down, O_CLOEXEC) != 0)
		return -1;
	if (pipe2(up, O_CLOEXEC) != 0) {
		close(down[0]);
		close(down[1]);
		return -1;
	}
	p->pid = fork();
	if (p->pid == 0) {
		close(down[1]);
		close(up[0]);
		close_others(others, n_others);
		child_loop(down[0], up[1], cpu, p->clock, timeout_s);
	}
	close(up[1]);
	if (p->pid < 0) {
		close(down[0]);
		close(down[1]);
		close(up[0]);
		return -1;
	}
	p->wr = down[1];
	p->keep = down[0];
	p->rd = up[0];
	return 0;
}

/* Closes the pipes, which ends the child, and reaps it: after a second
 * of waiting, with SIGKILL.  Returns the child's wait status or -1. */
int bench__ctxsw_stop(struct partner *p)
{
	struct timespec ms = { 0, 1000000 };
	int status = -1;

	if (p->pid <= 0)
		return -1;
	close(p->wr);
	close(p->rd);
	close(p->keep);
	for (int i = 0; i < 1000; i++) {
		pid_t r = waitpid(p->pid, &status, WNOHANG);

		if (r == p->pid || (r < 0 && errno != EINTR)) {
			p->pid = 0;
			return r > 0 ? status : -1;
		}
		nanosleep(&ms, NULL);
	}
	kill(p->pid, SIGKILL);
	while (waitpid(p->pid, &status, 0) < 0 && errno == EINTR)
		;
	p->pid = 0;
	return -1;
}

/*
 * Round trips with @p's child, in batches of BATCH, until @span_ns have
 * passed: every partner gets the same time, whatever its speed, with no
 * calibration to go stale when the machine's load changes.  Adds the
 * round trips to *@rounds; returns the ns they took, or -1 when the child
 * is gone.
 */
double bench__ctxsw_ping_for(const struct partner *p, double span_ns, long *rounds)
{
	uint64_t ring[RING] = { 0 }, sum = 0, t0 = bench_now_ns(), t1;
	unsigned long i = 0;
	char b = 0;

	do {
		for (int k = 0; k < BATCH; k++, i++) {
			if (!xfer(p->wr, &b, true) || !xfer(p->rd, &b, false))
				return -1;
			if (p->clock)
				ring[i & (RING - 1)] = p->clock->read();
		}
		t1 = bench_now_ns();
	} while ((double)(t1 - t0) < span_ns);
	for (int k = 0; k < RING; k++)
		sum += ring[k];
	bench_sink = sum;
	*rounds += (long)i;
	return (double)(t1 - t0);
}
