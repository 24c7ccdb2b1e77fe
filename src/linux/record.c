/* SPDX-License-Identifier: MIT */
/*
 * The machine's answers, once per boot: what CPUID said (every leaf the
 * checks ask) and what the ordered reads cost, kept in a file that the
 * next process of the same user reads instead of asking again.  CPUID
 * traps to the hypervisor in a virtual machine, 6 to 17 us a leaf, and a
 * process asks nine; the file costs one open and read.  docs/hosted.md
 * ("Trust", "The machine's record") states what makes an answer kept
 * there fresh, and why a record that is not is only slower.
 *
 * The file is /dev/shm/cyclock-machine.<euid>, or what CYCLOCK_MACHINE_RECORD
 * names ("off": none), and it is used only if it is all of:
 *  - a regular file on a tmpfs (what a reboot empties), owned by this
 *    effective user, writable by it alone, of the record's size;
 *  - of this boot: CLOCK_REALTIME - CLOCK_BOOTTIME, which only a step of
 *    the system clock moves, within 100 ms of the writer's;
 *  - of this machine: the same AT_HWCAP and AT_HWCAP2;
 *  - whole: the layout's version, and a checksum.
 * Anything else is a process that asks, as if there were none, and then
 * writes its own (a new file renamed over the old: readers see one or the
 * other).  Async-signal-safe, as a read's initialisation must be.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "internal.h"

#define RECORD_DIR "/dev/shm/cyclock-machine."
#define RECORD_VERSION 1
#define RECORD_BOOT_SLACK_NS (100 * NSEC_PER_USEC * 1000) /* two clock reads apart */
#define TMPFS_MAGIC_ 0x01021994

/* The layout, version 1: tests/linux/test_machine_record.c knows where
 * boot_ns and hwcap are, and that the checksum is the last 8 bytes. */
struct record {
	char magic[8];                 /* "cyclock" */
	uint32_t version, size;
	uint64_t boot_ns;              /* CLOCK_REALTIME - CLOCK_BOOTTIME */
	uint64_t hwcap, hwcap2;
	struct cyclock__cpuid_answer cpuid[CYCLOCK__CPUID_MAX];
	uint32_t cpuid_n;
	uint32_t timed;                /* the ordered reads' costs were measured: */
	uint64_t ordered_best[CYCLOCK_ARCH_ORDERED_HOWS]; /* counts; UINT64_MAX: does not work */
	uint64_t check;                /* of everything before it */
};

/* FNV-1a over the record but its checksum. */
static uint64_t checksum(const struct record *r)
{
	const unsigned char *p = (const unsigned char *)r;
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < offsetof(struct record, check); i++)
		h = (h ^ p[i]) * 0x100000001b3ull;
	return h;
}

static uint64_t boot_ns(void)
{
	return cyclock__kernel_ns(CLOCK_REALTIME) - cyclock__kernel_ns(CLOCK_BOOTTIME);
}

/* The record's path into @path of @len, and the user it is of in @uid:
 * false for none ("off", asking nothing). */
static bool record_path(char *path, size_t len, uid_t *uid)
{
	const char *v = secure_getenv("CYCLOCK_MACHINE_RECORD");
	char digits[16];
	size_t n = 0, d = 0;
	unsigned int u;

	if (v && !strcmp(v, "off"))
		return false;
	*uid = cyclock__sys_geteuid();
	u = (unsigned int)*uid;
	if (v && *v) {
		if (strlen(v) >= len)
			return false;
		strcpy(path, v);
		return true;
	}
	do
		digits[d++] = (char)('0' + u % 10);
	while ((u /= 10) && d < sizeof(digits));
	if (sizeof(RECORD_DIR) + d > len)
		return false;
	memcpy(path, RECORD_DIR, sizeof(RECORD_DIR) - 1);
	n = sizeof(RECORD_DIR) - 1;
	while (d)
		path[n++] = digits[--d];
	path[n] = '\0';
	return true;
}

/* A record of @fd that user @uid may trust, in @r. */
static bool trusted(int fd, struct record *r, uid_t uid)
{
	struct stat st;
	struct statfs fs;
	uint64_t now_boot;

	if (cyclock__sys_fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_uid != uid ||
	    (st.st_mode & (S_IWGRP | S_IWOTH)) || st.st_size != (off_t)sizeof(*r))
		return false;
	if (cyclock__sys_fstatfs(fd, &fs) || fs.f_type != TMPFS_MAGIC_)
		return false;
	if (cyclock__sys_read(fd, r, sizeof(*r)) != (ssize_t)sizeof(*r))
		return false;
	if (memcmp(r->magic, "cyclock", 8) || r->version != RECORD_VERSION ||
	    r->size != sizeof(*r) || r->check != checksum(r) ||
	    r->cpuid_n > CYCLOCK__CPUID_MAX)
		return false;
	now_boot = boot_ns();
	if (now_boot - r->boot_ns + RECORD_BOOT_SLACK_NS > 2 * RECORD_BOOT_SLACK_NS)
		return false;
	return r->hwcap == getauxval(AT_HWCAP) && r->hwcap2 == getauxval(AT_HWCAP2);
}

bool cyclock__record_load(void)
{
	struct record r;
	char path[256];
	int saved = errno, fd;
	uid_t uid;
	bool ok;

	if (!record_path(path, sizeof(path), &uid))
		return false;
	fd = cyclock__sys_open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW, 0);
	if (fd < 0) {
		errno = saved;
		return false;
	}
	ok = trusted(fd, &r, uid) && cyclock__cpuid_import(r.cpuid, r.cpuid_n);
	cyclock__sys_close(fd);
	if (ok && r.timed)
		cyclock__ordered_import(r.ordered_best);
	errno = saved;
	return ok;
}

void cyclock__record_save(void)
{
	struct record r;
	char path[256], tmp[280];
	size_t n;
	int saved = errno, fd;
	uint32_t pid = cyclock__pid();
	uid_t uid;

	memset(&r, 0, sizeof(r));
	if (!record_path(path, sizeof(path), &uid))
		return;
	while (cyclock__cpuid_ahead()) /* every leaf, those the checks did not need too */
		;
	if (!cyclock__cpuid_export(r.cpuid, &r.cpuid_n))
		return;
	r.timed = cyclock__ordered_export(r.ordered_best);
	memcpy(r.magic, "cyclock", 8);
	r.version = RECORD_VERSION;
	r.size = sizeof(r);
	r.boot_ns = boot_ns();
	r.hwcap = getauxval(AT_HWCAP);
	r.hwcap2 = getauxval(AT_HWCAP2);
	r.check = checksum(&r);
	/* path.<pid>, written whole, then renamed over the record. */
	n = strlen(path);
	memcpy(tmp, path, n);
	tmp[n++] = '.';
	for (uint32_t p = pid, d = 1000000000; d; d /= 10)
		if (p / d || d == 1)
			tmp[n++] = (char)('0' + p / d % 10);
	tmp[n] = '\0';
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd >= 0) {
		bool whole = write(fd, &r, sizeof(r)) == (ssize_t)sizeof(r);

		close(fd);
		if (!whole || rename(tmp, path))
			unlink(tmp);
	}
	errno = saved;
}
