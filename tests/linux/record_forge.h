/* SPDX-License-Identifier: MIT */
/*
 * Shared by the machine's record's tests (test_record_at_name.c,
 * test_record_forged.c, test_record_frequency.c): a fresh process that
 * uses the library (this program again, exec'd: the library reads the
 * record at load, as every new process does; each test's main() calls
 * forge_child_main() first), watched from outside for as long as it may
 * take; and the record read, forged with a valid checksum, and written
 * back, through the library's own layout (src/linux/record.h).
 * Header-only: each test is one program.
 */
#ifndef CYCLOCK_TEST_RECORD_FORGE_H
#define CYCLOCK_TEST_RECORD_FORGE_H

#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"
#include "record.h"
#include "child.h"
#include "kclock.h"
#include "state.h"

/* How long a child may take: initialisation takes milliseconds. */
#define FORGE_WAIT_NS (10 * 1000000000ull)
/* How long the child watches its clock against the kernel's after
 * initialisation: the first segment (1 ms) and a few resyncs. */
#define FORGE_WATCH_NS (5 * 1000000ull)

/* The record's path, the test's own (through CYCLOCK_MACHINE_RECORD). */
static char forge_path[128];

/* What a child found, through a pipe. */
struct found {
	int rc;         /* 0; 77: the counter is not used; -1: it died, hung or failed */
	bool hung;      /* killed after FORGE_WAIT_NS */
	bool used;      /* the record answered */
	unsigned int cpuid;
	char ordered[32];
	char ordered_why[160];
	double hz;      /* the frequency the clocks started with */
	int64_t worst;  /* cyclock_now()'s largest miss of CLOCK_MONOTONIC over FORGE_WATCH_NS */
};

/* The largest miss of cyclock_now() outside CLOCK_MONOTONIC read around
 * it, over FORGE_WATCH_NS from now: the library's error, since a
 * preemption only widens the bracket. */
static inline int64_t forge_watch(void)
{
	uint64_t end = kclock_ns(CLOCK_MONOTONIC) + FORGE_WATCH_NS, k1, v, k2;
	int64_t worst = 0, miss;

	do {
		k1 = kclock_ns(CLOCK_MONOTONIC);
		v = cyclock_now();
		k2 = kclock_ns(CLOCK_MONOTONIC);
		miss = v < k1 ? (int64_t)(k1 - v) : v > k2 ? (int64_t)(v - k2) : 0;
		worst = miss > worst ? miss : worst;
	} while (k2 < end);
	return worst;
}

static inline void forge_child(int fd)
{
	struct found f = { 0 };
	struct cyclock_state st;

	f.rc = cyclock_init(0) == CYCLOCK_USING_COUNTER ? 0 : 77;
	f.worst = forge_watch();
	st = state_now();
	f.used = cyclock__record_used();
	f.cpuid = cyclock__cpuid_asked();
	f.hz = st.hz_hint;
	snprintf(f.ordered, sizeof(f.ordered), "%s", st.ordered);
	snprintf(f.ordered_why, sizeof(f.ordered_why), "%s", st.ordered_why);
	_exit(write(fd, &f, sizeof(f)) == (ssize_t)sizeof(f) ? 0 : 1);
}

/* The child's run, in this program exec'd with "--forge-child FD": called
 * first by each test's main(). */
static inline void forge_child_main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "--forge-child"))
		forge_child(atoi(argv[2]));
}

/* This program again, as a fresh process whose load reads the record,
 * to write what it found on descriptor @fd. */
static inline void forge_exec(int fd)
{
	char self[] = "/proc/self/exe", flag[] = "--forge-child", arg[16];
	char *argv[] = { self, flag, arg, NULL };

	snprintf(arg, sizeof(arg), "%d", fd);
	execv(self, argv);
	_exit(CHILD_NO_EXEC);
}


/* Waits FORGE_WAIT_NS at most for child @pid, then kills it: its exit
 * status, or -1 having said why. */
static inline int forge_wait(pid_t pid, bool *hung)
{
	uint64_t end = kclock_ns(CLOCK_MONOTONIC) + FORGE_WAIT_NS;
	struct timespec ms = { 0, 1000000 };
	int status;
	pid_t w;

	while ((w = waitpid(pid, &status, WNOHANG)) == 0 && kclock_ns(CLOCK_MONOTONIC) < end)
		nanosleep(&ms, NULL);
	if (w == 0) {
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		*hung = true;
		printf("     the child hung: killed after %llu s\n",
		       (unsigned long long)(FORGE_WAIT_NS / 1000000000ull));
		return -1;
	}
	if (w != pid)
		return -1;
	if (WIFSIGNALED(status)) {
		printf("     the child was killed by signal %d (%s)\n", WTERMSIG(status),
		       strsignal(WTERMSIG(status)));
		return -1;
	}
	if (WEXITSTATUS(status) != 0 && WEXITSTATUS(status) != 77 &&
	    WEXITSTATUS(status) != CHILD_NO_EXEC)
		printf("     the child exited with %d\n", WEXITSTATUS(status));
	return WEXITSTATUS(status);
}

/* A fresh process using the library, which waits for @parent (if not
 * NULL), called in this process with its id, before it starts. */
static inline struct found forge_run(void (*parent)(pid_t child))
{
	struct found f = { 0 };
	int fd[2], go[2], rc;
	pid_t pid;

	fflush(stdout);
	if (pipe(fd) || pipe(go))
		abort();
	pid = fork();
	if (pid == 0) {
		char c;

		close(fd[0]);
		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(1);
		forge_exec(fd[1]);
	}
	close(fd[1]);
	close(go[0]);
	if (parent)
		parent(pid);
	if (write(go[1], "", 1) != 1)
		abort();
	close(go[1]);
	rc = forge_wait(pid, &f.hung);
	if (rc != 0 || read(fd[0], &f, sizeof(f)) != (ssize_t)sizeof(f)) {
		bool hung = f.hung;

		memset(&f, 0, sizeof(f));
		f.rc = rc == CHILD_NO_EXEC ? CHILD_NO_EXEC : -1;
		f.hung = hung;
	}
	close(fd[0]);
	return f;
}

/* Whether @f's child finished its initialisation and reads, on the
 * counter or not (the record is read either way). */
static inline bool forge_finished(const struct found *f)
{
	return f->rc == 0 || f->rc == 77;
}

static inline uint64_t forge_checksum(const struct cyclock__record *r)
{
	const unsigned char *p = (const unsigned char *)r;
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < offsetof(struct cyclock__record, check); i++)
		h = (h ^ p[i]) * 0x100000001b3ull;
	return h;
}

/* The record at forge_path into @r: false if there is none whole. */
static inline bool forge_load(struct cyclock__record *r)
{
	int fd = open(forge_path, O_RDONLY | O_NONBLOCK);
	ssize_t n = fd >= 0 ? read(fd, r, sizeof(*r)) : -1;

	if (fd >= 0)
		close(fd);
	return n == (ssize_t)sizeof(*r);
}

/* @r at forge_path, as its writer would leave it, the checksum made
 * right: only the checks of what it says can refuse it. */
static inline void forge_store(struct cyclock__record *r)
{
	int fd;

	r->check = forge_checksum(r);
	unlink(forge_path);
	fd = open(forge_path, O_WRONLY | O_CREAT | O_EXCL, 0600);
	if (fd < 0 || write(fd, r, sizeof(*r)) != (ssize_t)sizeof(*r))
		abort();
	close(fd);
}

/* CPUID leaf @leaf's answer in @r, or NULL. */
static inline unsigned int *forge_leaf(struct cyclock__record *r, unsigned int leaf)
{
	for (uint32_t i = 0; i < r->cpuid_n && i < CYCLOCK__CPUID_MAX; i++)
		if (r->cpuid[i].leaf == leaf)
			return r->cpuid[i].r;
	return NULL;
}

/* What each test starts with: a record of its own at
 * /dev/shm/cyclock-test-@name.PID (a tmpfs), which a first fresh process
 * writes (its findings in @a), read back into @r.  0 to go on, else the
 * test's exit status, said why: 77 where there is no tmpfs, a child
 * cannot exec this program (qemu-user) or keeps no record. */
static inline int forge_begin(const char *prog, const char *name, struct found *a,
			      struct cyclock__record *r)
{
	struct statfs fs;

	setvbuf(stdout, NULL, _IOLBF, 0);
	snprintf(forge_path, sizeof(forge_path), "/dev/shm/cyclock-test-%s.%d", name,
		 (int)getpid());
	if (statfs("/dev/shm", &fs) || fs.f_type != 0x01021994) {
		printf("%s: no tmpfs at /dev/shm: skipped\n", prog);
		return 77;
	}
	setenv("CYCLOCK_MACHINE_RECORD", forge_path, 1);
	unlink(forge_path);
	*a = forge_run(NULL);
	if (a->rc == CHILD_NO_EXEC) {
		printf("%s: a child cannot exec this program again (qemu-user): skipped\n", prog);
		unlink(forge_path);
		return 77;
	}
	if (!forge_finished(a) || !forge_load(r)) {
		printf("%s: no record kept here: skipped\n", prog);
		unlink(forge_path);
		return forge_finished(a) ? 77 : 1;
	}
	return 0;
}

#endif /* CYCLOCK_TEST_RECORD_FORGE_H */
