/* SPDX-License-Identifier: MIT */
/*
 * The machine's answers, once per boot: what CPUID said (every leaf the
 * checks ask) and what the ordered reads cost, kept in a file that the
 * next process of the same user reads instead of asking again.  CPUID
 * traps to the hypervisor in a virtual machine, 6 to 17 us a leaf, and a
 * process asks nine; the file costs one open and read.  docs/hosted.md
 * ("Trust", "The machine's record") states what makes an answer kept
 * there fresh, and why a record that is not, or is forged, is only slower.
 *
 * The file is /dev/shm/cyclock-machine.<euid>, or what CYCLOCK_MACHINE_RECORD
 * names ("off": none).  Its open never waits (O_NONBLOCK: not for a FIFO's
 * writer, nor for a lease's break) nor follows a link, and it is used only
 * if it is all of:
 *  - a regular file on a tmpfs (what a reboot empties), owned by this
 *    effective user, writable by it alone, of the record's size: all
 *    checked on the descriptor before it is read;
 *  - of this boot: CLOCK_REALTIME - CLOCK_BOOTTIME, which only a step of
 *    the system clock moves, within 100 ms of the writer's;
 *  - of this machine: the same AT_HWCAP and AT_HWCAP2;
 *  - whole: the layout's version, a checksum, and nothing but what a
 *    writer writes (record.h);
 *  - what this CPU says: this build's CPUID leaves, those glibc keeps a
 *    copy of the same as it, a stated frequency in range (cpuid.c); the
 *    reads' costs in range for the reads that work, none for the others
 *    (ordered.c); and, asked of the CPU, the leaves that say whether the
 *    reads this process would run work (confirmed() below).
 * Anything else is a process that asks, as if there were none, and then
 * writes its own (a new file of a name nobody can make ahead of it,
 * renamed over the old: readers see one or the other).  Async-signal-safe,
 * as a read's initialisation must be.
 *
 * Tests: tests/linux/test_machine_record.c (used, refused, written again),
 * test_record_at_name.c (what another user leaves at its name),
 * test_record_forged.c and test_record_frequency.c (forged by its own
 * user).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "internal.h"
#include "record.h"

#define RECORD_DIR "/dev/shm/cyclock-machine."
#define RECORD_BOOT_SLACK_NS (100 * NSEC_PER_USEC * 1000) /* two clock reads apart */
#define TMPFS_MAGIC_ 0x01021994

/* FNV-1a over the record but its checksum. */
static uint64_t checksum(const struct cyclock__record *r)
{
	const unsigned char *p = (const unsigned char *)r;
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < offsetof(struct cyclock__record, check); i++)
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
	*uid = (uid_t)getauxval(AT_EUID); /* at load: no system call */
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

/* Whether @s of @len is a clocksource's name as a writer writes one:
 * printable, NUL-terminated, then zeros (none: all zeros). */
static bool name_whole(const char *s, size_t len)
{
	size_t n = strnlen(s, len);

	if (n == len)
		return false;
	for (size_t i = 0; i < n; i++)
		if (s[i] < '!' || s[i] > '~')
			return false;
	for (size_t i = n; i < len; i++)
		if (s[i])
			return false;
	return true;
}

/* Whether @r holds only what a writer of this layout writes: every CPUID
 * slot past its leaves zero, costs only if they were timed, and a
 * clocksource's name. */
static bool whole(const struct cyclock__record *r)
{
	static const struct cyclock__cpuid_answer none;

	if (memcmp(r->magic, "cyclock", 8) || r->version != CYCLOCK__RECORD_VERSION ||
	    r->size != sizeof(*r) || r->check != checksum(r) ||
	    r->cpuid_n > CYCLOCK__CPUID_MAX || r->timed > 1)
		return false;
	for (uint32_t i = r->cpuid_n; i < CYCLOCK__CPUID_MAX; i++)
		if (memcmp(&r->cpuid[i], &none, sizeof(none)))
			return false;
	for (uint32_t h = 0; h < CYCLOCK_ARCH_ORDERED_HOWS; h++)
		if (!r->timed && r->ordered_best[h])
			return false;
	return name_whole(r->clocksource, sizeof(r->clocksource));
}

/* A record of @fd that user @uid may trust, in @r: the descriptor's file
 * checked before a byte of it is read. */
static bool trusted(int fd, struct cyclock__record *r, uid_t uid)
{
	struct stat st;
	struct statfs fs;
	uint64_t now_boot;

	if (cyclock__sys_fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_uid != uid ||
	    (st.st_mode & (S_IWGRP | S_IWOTH)) || st.st_size != (off_t)sizeof(*r))
		return false;
	if (cyclock__sys_fstatfs(fd, &fs) || fs.f_type != TMPFS_MAGIC_)
		return false;
	if (cyclock__sys_read(fd, r, sizeof(*r)) != (ssize_t)sizeof(*r) || !whole(r))
		return false;
	now_boot = boot_ns();
	if (now_boot - r->boot_ns + RECORD_BOOT_SLACK_NS > 2 * RECORD_BOOT_SLACK_NS)
		return false;
	return r->hwcap == getauxval(AT_HWCAP) && r->hwcap2 == getauxval(AT_HWCAP2);
}

/* Whether this process would run ordered read @h on the record's word:
 * the one CYCLOCK_ORDERED_READ names, else the one its costs choose
 * (@pick), every one if it has no costs (the timing runs them), and the
 * per-CPU clock's read of the counter and its CPU. */
static bool runs(const struct cyclock__record *r, uint32_t h, uint32_t pick, int forced)
{
#ifdef CYCLOCK_ARCH_COUNTER_CPU_HOW
	if (h == CYCLOCK_ARCH_COUNTER_CPU_HOW)
		return true;
#endif
	return !r->timed || (int)h == (forced >= 0 ? forced : (int)pick);
}

/*
 * Whether the CPU itself says what the record says of each ordered read
 * this process would run on its word, where the record says it works (one
 * it says does not work costs speed, no more; x86-64's rdtscp, which a
 * CPU may lack, would cost a SIGILL): CYCLOCK__TAKE_YES, _NO, or _LATER.
 * The leaves that answer are asked of the CPU, once each, @asks at most
 * (a read's one: each traps to the hypervisor in a virtual machine),
 * unless glibc's copy confirmed them already (rdtscp's, on x86-64); the
 * reads the process will not run are spared.
 */
static int confirmed(const struct cyclock__record *r, uint32_t pick, unsigned int asks)
{
	int forced = cyclock__env_ordered();
	const char *why;

	cyclock__cpuid_confirm_start(asks);
	for (uint32_t h = 0; h < CYCLOCK_ARCH_ORDERED_HOWS; h++) {
		if (!runs(r, h, pick, forced) || !cyclock_arch_ordered_works(h, &why))
			continue;
		cyclock__cpuid_confirm(true);
		cyclock_arch_ordered_works(h, &why);
		cyclock__cpuid_confirm(false);
	}
	return cyclock__cpuid_confirmed();
}

/* @r's answers into CPUID's cache and the ordered reads' costs, if this
 * CPU could have given them (asking it @asks leaves at most); else none
 * of them, and the CPU's answers asked so far kept for the next call. */
static int take(const struct cyclock__record *r, unsigned int asks)
{
	uint32_t pick = CYCLOCK_ARCH_ORDERED_ANY;
	int c = CYCLOCK__TAKE_NO;

	if (!cyclock__cpuid_import(r->cpuid, r->cpuid_n))
		return CYCLOCK__TAKE_NO;
	if (!r->timed || cyclock__ordered_plausible(r->ordered_best, &pick))
		c = confirmed(r, pick, asks);
	if (c != CYCLOCK__TAKE_YES) {
		cyclock__cpuid_forget();
		return c;
	}
	if (r->timed)
		cyclock__ordered_import(r->ordered_best);
	return CYCLOCK__TAKE_YES;
}

/* The record read at load, whole and of this boot and machine, until
 * cyclock__record_take() takes it (or not): written before any read, by
 * the load alone. */
static struct cyclock__record kept;
static bool kept_whole;

/* At load: the file, checked, into kept.  What this CPU says of it is
 * asked later, by the read that takes it (CPUID traps to the hypervisor,
 * which a process that never initialises is spared). */
bool cyclock__record_load(void)
{
	char path[256];
	int saved = errno, fd;
	uid_t uid;

	if (!record_path(path, sizeof(path), &uid))
		return false;
	fd = cyclock__sys_open(path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC, 0);
	if (fd < 0) {
		errno = saved;
		return false;
	}
	kept_whole = trusted(fd, &kept, uid);
	cyclock__sys_close(fd);
	errno = saved;
	return kept_whole;
}

/* The record kept at load into CPUID's cache and the ordered reads'
 * costs, if this CPU could have given them: no system call (a read's). */
int cyclock__record_take(unsigned int asks)
{
	return kept_whole ? take(&kept, asks) : CYCLOCK__TAKE_NO;
}

/* The kernel's clocksource into @name of @len, as the record kept at load
 * read it, if that was less than CYCLOCK__CLOCKSOURCE_FRESH_NS ago: a
 * process that starts then is as exposed to a clocksource changed since
 * as one that started a second earlier, and reads no sysfs file (the
 * costliest part of a process's load: docs/hosted.md, "A process's
 * start, summed"). */
bool cyclock__record_clocksource(char *name, size_t len)
{
	uint64_t now = cyclock__kernel_ns(CLOCK_BOOTTIME);

	if (!kept_whole || !kept.clocksource[0] || strlen(kept.clocksource) >= len ||
	    now - kept.clocksource_ns > CYCLOCK__CLOCKSOURCE_FRESH_NS)
		return false;
	strcpy(name, kept.clocksource);
	return true;
}

/*
 * @path, a dot and 16 hex digits from getrandom() into @tmp: a name nobody
 * can have made ahead of the writer, which creates it with O_EXCL.
 * Without getrandom() (refused by a sandbox, or early in a boot) the
 * digits are the counter's and the process's id, which another user could
 * guess, and so take the name first: that costs this boot's record, no
 * more, since the writer neither follows nor opens what it finds there.
 */
static void temp_path(char *tmp, const char *path)
{
	uint64_t x;
	size_t n = strlen(path);

	if (syscall(SYS_getrandom, &x, sizeof(x), GRND_NONBLOCK) != (long)sizeof(x))
		x = cyclock_arch_counter() * 0x9e3779b97f4a7c15ull ^ cyclock__pid();
	memcpy(tmp, path, n);
	tmp[n++] = '.';
	for (int i = 60; i >= 0; i -= 4)
		tmp[n++] = "0123456789abcdef"[x >> i & 0xf];
	tmp[n] = '\0';
}

/* What this process found, into @r, with the kernel's clocksource
 * @clocksource read just now: the answers of the record kept at load if
 * there was one (what CPUID says does not change while the machine runs;
 * a read checks them before it takes them), else every CPUID leaf (those
 * the checks did not need too) and the ordered reads' timing, asked now;
 * false if CPUID's answers cannot be kept here. */
static bool fill(struct cyclock__record *r, const char *clocksource)
{
	memset(r, 0, sizeof(*r));
	if (kept_whole) {
		*r = kept;
		memset(r->clocksource, 0, sizeof(r->clocksource));
	} else {
		while (cyclock__cpuid_ahead())
			;
		if (!cyclock__cpuid_export(r->cpuid, &r->cpuid_n))
			return false;
		cyclock__ordered_time();
		r->timed = cyclock__ordered_export(r->ordered_best);
	}
	if (strlen(clocksource) >= sizeof(r->clocksource))
		return false;
	strcpy(r->clocksource, clocksource);
	r->clocksource_ns = cyclock__kernel_ns(CLOCK_BOOTTIME);
	memcpy(r->magic, "cyclock", 8);
	r->version = CYCLOCK__RECORD_VERSION;
	r->size = sizeof(*r);
	r->boot_ns = boot_ns();
	r->hwcap = getauxval(AT_HWCAP);
	r->hwcap2 = getauxval(AT_HWCAP2);
	r->check = checksum(r);
	return true;
}

/* Written whole under its own name, then renamed over the record; a
 * failure anywhere leaves the old record and no temporary file.  The
 * temporary file first: where none can be made (a directory not
 * writable, or hidden), nothing is asked of the CPU for a record that
 * cannot be kept (the reads ask what they need, no sooner). */
void cyclock__record_save(const char *clocksource)
{
	struct cyclock__record r;
	char path[256], tmp[256 + 18];
	int saved = errno, fd;
	bool written;
	uid_t uid;

	if (!record_path(path, sizeof(path), &uid))
		return;
	temp_path(tmp, path);
	fd = cyclock__sys_open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC,
			       0600);
	if (fd < 0) {
		errno = saved;
		return;
	}
	written = fill(&r, clocksource) && write(fd, &r, sizeof(r)) == (ssize_t)sizeof(r);
	cyclock__sys_close(fd);
	if (!written || rename(tmp, path))
		unlink(tmp);
	errno = saved;
}
