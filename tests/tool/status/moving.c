/* SPDX-License-Identifier: MIT */
/*
 * Preloaded into "cyclock status" (test_status_forged.sh's busy case): the
 * counts' sequence of every status block it reads seen moving at each of
 * its reads, as a writer that never rests would move it, whatever the
 * scheduler does with a real one (a thread that moves it in a loop is
 * held off a loaded machine's CPU for whole reads).  The block is known by
 * the read of its header (the magic); a read of 4 bytes at its
 * counts_seq then comes back moved by two more than the last (the low
 * bit, the copy it names, kept).  Every other read is the kernel's.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/uio.h>

#include <cyclock/status.h>

typedef ssize_t readv_fn(pid_t, const struct iovec *, unsigned long, const struct iovec *,
			 unsigned long, unsigned long);

ssize_t process_vm_readv(pid_t pid, const struct iovec *local, unsigned long liovcnt,
			 const struct iovec *remote, unsigned long riovcnt, unsigned long flags)
{
	static uint64_t block;
	static uint32_t moves;
	readv_fn *real = (readv_fn *)dlsym(RTLD_NEXT, "process_vm_readv");
	uint64_t at = riovcnt ? (uint64_t)(uintptr_t)remote[0].iov_base : 0;
	ssize_t n = real ? real(pid, local, liovcnt, remote, riovcnt, flags) : -1;
	uint32_t seq;

	if (n < 4 || !liovcnt)
		return n;
	if (n >= 8 && !memcmp(local[0].iov_base, CYCLOCK_STATUS_MAGIC, 8)) {
		block = at;
	} else if (n == 4 && block && at == block + offsetof(struct cyclock_status, counts_seq)) {
		memcpy(&seq, local[0].iov_base, 4);
		seq += 2 * ++moves;
		memcpy(local[0].iov_base, &seq, 4);
	}
	return n;
}
