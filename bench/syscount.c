/* SPDX-License-Identifier: MIT */
/* Counting a thread's system calls through seccomp's user notification:
 * see syscount.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "syscount.h"

#define FD_PENDING (-1)
#define FD_FAILED (-2)

struct worker {
	struct bench_syscount *sc;
	void (*body)(struct bench_syscount *sc, void *arg);
	void *arg;
	_Atomic int fd; /* the listener, FD_PENDING, or FD_FAILED */
};

/* Every system call of this thread, from here on, goes to the listener. */
static int filter_self(void)
{
	struct sock_filter f[] = { BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF) };
	struct sock_fprog prog = { .len = 1, .filter = f };

	/* Per thread: the other threads keep their privileges. */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -1;
	return (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER,
			    &prog);
}

static void *worker_main(void *p)
{
	struct worker *w = p;
	int fd = filter_self();

	atomic_store(&w->fd, fd < 0 ? FD_FAILED : fd);
	if (fd >= 0)
		w->body(w->sc, w->arg);
	return NULL;
}

/* Answers the worker's system calls until it has exited (the listener
 * hangs up), counting each under the phase the worker is in. */
static void serve(struct bench_syscount *sc, int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	for (;;) {
		struct seccomp_notif req;
		struct seccomp_notif_resp resp;

		if (poll(&p, 1, -1) < 0) {
			if (errno == EINTR)
				continue;
			return;
		}
		if (p.revents & POLLIN) {
			memset(&req, 0, sizeof(req));
			if (ioctl(fd, SECCOMP_IOCTL_NOTIF_RECV, &req) == 0) {
				int phase = atomic_load_explicit(&sc->phase, memory_order_acquire);

				if (phase >= 0 && phase < BENCH_SYSCOUNT_PHASES)
					sc->counts[phase]++;
				memset(&resp, 0, sizeof(resp));
				resp.id = req.id;
				resp.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
				/* ENOENT: the call was interrupted meanwhile; nothing to answer. */
				(void)ioctl(fd, SECCOMP_IOCTL_NOTIF_SEND, &resp);
			}
			continue;
		}
		if (p.revents & (POLLHUP | POLLERR | POLLNVAL))
			return;
	}
}

int bench_syscount(struct bench_syscount *sc, void (*body)(struct bench_syscount *sc, void *arg),
		   void *arg, const char **why)
{
	struct worker w = { .sc = sc, .body = body, .arg = arg, .fd = FD_PENDING };
	pthread_t t;
	int fd;

	memset(sc->counts, 0, sizeof(sc->counts));
	atomic_store(&sc->phase, 0);
	if (pthread_create(&t, NULL, worker_main, &w)) {
		*why = "no thread to count on";
		return -1;
	}
	while ((fd = atomic_load(&w.fd)) == FD_PENDING)
		sched_yield();
	if (fd == FD_FAILED) {
		pthread_join(t, NULL);
		*why = "no seccomp user notification here (Linux 5.5 and no seccomp filter "
		       "forbidding it)";
		return -1;
	}
	serve(sc, fd);
	close(fd);
	pthread_join(t, NULL);
	return 0;
}
