/* SPDX-License-Identifier: MIT */
/*
 * status_read() in a child process, so that one target cannot stop the
 * tool from reading the others.  The reading side opens nothing the
 * target names and maps nothing (status_target.h), but a read of the
 * target's memory faults its pages in, and a page of a file on a FUSE
 * file system (which an unprivileged user can mount) waits for that file
 * system's answer, for good if it never comes; only SIGKILL ends the wait.
 * So the read runs in a child, its answer in a shared page, and the child
 * is killed after DEADLINE_MS.  A crash in the child (a bug) is one
 * process's refusal too.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "status_target.h"

/* A read takes a millisecond or two; its CPU budget is 50 ms. */
#define DEADLINE_MS 5000

/* Waits for @child, at most DEADLINE_MS; false if it was killed then. */
static bool wait_child(pid_t child, int *wstatus)
{
	long waited_us = 0, step_us = 20;

	for (;;) {
		pid_t r = waitpid(child, wstatus, WNOHANG);

		if (r == child || (r < 0 && errno != EINTR))
			return r == child;
		if (waited_us >= DEADLINE_MS * 1000l) {
			kill(child, SIGKILL);
			while (waitpid(child, wstatus, 0) < 0 && errno == EINTR)
				;
			return false;
		}
		nanosleep(&(struct timespec){ 0, step_us * 1000 }, NULL);
		waited_us += step_us;
		if (step_us < 10000)
			step_us *= 2;
	}
}

enum status_err status_read_apart(pid_t pid, struct status_of *out)
{
	struct status_of *shared = mmap(NULL, sizeof(*shared), PROT_READ | PROT_WRITE,
					MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	enum status_err e = STATUS_BAD;
	int wstatus = 0;
	pid_t child;

	if (shared == MAP_FAILED)
		return status_read(pid, out);
	child = fork();
	if (child < 0) {
		munmap(shared, sizeof(*shared));
		return status_read(pid, out);
	}
	if (child == 0)
		_exit((int)status_read(pid, shared));
	memset(out, 0, sizeof(*out));
	out->pid = pid;
	if (!wait_child(child, &wstatus))
		status_say(out->why, sizeof(out->why),
			   "reading process %d did not end in %d s and was stopped (its memory "
			   "is on a file system that did not answer)", (int)pid, DEADLINE_MS / 1000);
	else if (WIFEXITED(wstatus) && WEXITSTATUS(wstatus) <= STATUS_BAD) {
		memcpy(out, shared, sizeof(*out));
		e = (enum status_err)WEXITSTATUS(wstatus);
	} else
		status_say(out->why, sizeof(out->why),
			   "reading process %d ended on %s: a bug in cyclock, to report", (int)pid,
			   WIFSIGNALED(wstatus) ? strsignal(WTERMSIG(wstatus)) : "an unknown status");
	munmap(shared, sizeof(*shared));
	return e;
}
