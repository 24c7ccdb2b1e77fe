/* SPDX-License-Identifier: MIT */
/*
 * The machine's record (src/linux/record.c): the first process of a boot
 * asks CPUID and times the ordered reads, and writes what it found; the
 * next one reads that instead (no CPUID on x86-64, but to confirm the
 * leaves the ordered read it chooses rests on, where glibc keeps no copy
 * of them) and chooses the same read for the same measured costs.  A
 * record that is not of this user, writable by others, not whole, of
 * another boot or machine, not on a tmpfs, or reached through a symbolic
 * link is not used: that process asks for itself, reads right, and writes
 * a good record again.  CYCLOCK_MACHINE_RECORD=off keeps none.  Attacks on
 * the record are test_record_at_name.c's, test_record_forged.c's and
 * test_record_frequency.c's.  Each case in a fresh process (fork() and
 * exec(): the library reads the record at load), with the record at a
 * path of the test's own.  Skipped where the library does
 * not use the counter.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "internal.h"
#include "record.h"
#include "child.h"
#include "kclock.h"
#include "state.h"

#define BOOT_AT offsetof(struct cyclock__record, boot_ns)
#define HWCAP_AT offsetof(struct cyclock__record, hwcap)
/* glibc keeps a copy of CPUID's leaf 0x80000001 (2.33 and later). */
#if defined(__x86_64__) && defined(__GLIBC__) && __has_include(<sys/platform/x86.h>)
#define GLIBC_CPUID 1
#else
#define GLIBC_CPUID 0
#endif

static char path[128];

/* What a child found, through a pipe. */
struct found {
	int rc;         /* 0, or 77: the counter is not used */
	bool used;      /* the record answered */
	unsigned int cpuid;
	char ordered[32];
	char ordered_why[160];
	bool near;      /* cyclock_now() within 1 ms of CLOCK_MONOTONIC */
	bool cs_kept;   /* the kernel's clocksource from the record, no sysfs read */
};

/* The child's run: this program exec'd with "--child FD", a fresh
 * process whose load read the record. */
static void child_run(int fd)
{
	struct found f = { 0 };
	struct cyclock_state st;
	uint64_t k0, v, k1;

	alarm(10);
	f.rc = cyclock_init(0) == CYCLOCK_USING_COUNTER ? 0 : 77;
	st = state_now();
	f.used = cyclock__record_used();
	f.cs_kept = cyclock__clocksource_kept();
	f.cpuid = cyclock__cpuid_asked();
	snprintf(f.ordered, sizeof(f.ordered), "%s", st.ordered);
	snprintf(f.ordered_why, sizeof(f.ordered_why), "%s", st.ordered_why);
	k0 = kclock_ns(CLOCK_MONOTONIC);
	v = cyclock_now();
	k1 = kclock_ns(CLOCK_MONOTONIC);
	f.near = v + 1000000 >= k0 && v <= k1 + 1000000;
	_exit(write(fd, &f, sizeof(f)) == (ssize_t)sizeof(f) ? 0 : 1);
}

static struct found run_child(void)
{
	struct found f = { 0 };
	int fd[2], rc;
	pid_t pid;

	fflush(stdout);
	if (pipe(fd))
		abort();
	pid = fork();
	if (pid == 0) {
		char self[] = "/proc/self/exe", flag[] = "--child", arg[16];
		char *argv[] = { self, flag, arg, NULL };

		close(fd[0]);
		snprintf(arg, sizeof(arg), "%d", fd[1]);
		execv(self, argv);
		_exit(CHILD_NO_EXEC);
	}
	close(fd[1]);
	if (read(fd[0], &f, sizeof(f)) != (ssize_t)sizeof(f))
		f.rc = -1;
	close(fd[0]);
	rc = child_wait(pid, "child");
	if (rc != 0)
		f.rc = rc == CHILD_NO_EXEC ? CHILD_NO_EXEC : -1;
	return f;
}

static uint64_t fnv(const unsigned char *p, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 0x100000001b3ull;
	return h;
}

/* The record's bytes, @n of them, or 0. */
static size_t load(unsigned char *buf, size_t len)
{
	int fd = open(path, O_RDONLY);
	ssize_t n = fd >= 0 ? read(fd, buf, len) : -1;

	if (fd >= 0)
		close(fd);
	return n > 0 ? (size_t)n : 0;
}

static void store(const unsigned char *buf, size_t n)
{
	int fd = open(path, O_WRONLY | O_TRUNC);

	if (fd < 0 || write(fd, buf, n) != (ssize_t)n)
		abort();
	close(fd);
}

/* @v at @at, the checksum made right again. */
static void poke(unsigned char *buf, size_t n, size_t at, uint64_t v)
{
	uint64_t check;

	memcpy(buf + at, &v, sizeof(v));
	check = fnv(buf, n - 8);
	memcpy(buf + n - 8, &check, sizeof(check));
}

static int failures;

static void expect(bool ok, const char *what)
{
	printf("%s %s\n", ok ? "ok  " : "FAIL", what);
	failures += !ok;
}

/* A fresh record, written by a child that found none; its bytes in @buf. */
static size_t good_record(unsigned char *buf, size_t len)
{
	struct found f;
	size_t n;

	unlink(path);
	f = run_child();
	n = load(buf, len);

	expect(f.rc == 0 && !f.used && n > 0, "a child without a record asks, and writes one");
	return n;
}

/* One bad record: a child must not use it, must read right, and must
 * leave a good one behind. */
static void rejected(const char *what)
{
	unsigned char buf[4096];
	struct found f = run_child();
	char line[160];

	snprintf(line, sizeof(line), "%s: not used, the clock right", what);
	expect(f.rc == 0 && !f.used && f.near, line);
	if (f.rc == 0 && strcmp(getenv("CYCLOCK_MACHINE_RECORD"), path) == 0) {
		struct found g = run_child();

		snprintf(line, sizeof(line), "%s: a good record written again", what);
		expect(load(buf, sizeof(buf)) > 0 && g.used, line);
	}
}

#define CS_AT offsetof(struct cyclock__record, clocksource)
#define CS_NS_AT offsetof(struct cyclock__record, clocksource_ns)

/* The clocksource a record read: taken for a second, then read again and
 * kept anew; one that says another clocksource is believed (the counter
 * not used), as it stands for the kernel's while it is fresh. */
static void clocksource_age(void)
{
	unsigned char buf[4096];
	size_t n = load(buf, sizeof(buf));
	uint64_t was, now = kclock_ns(CLOCK_BOOTTIME);
	struct found f;

	memcpy(&was, buf + CS_NS_AT, sizeof(was));
	poke(buf, n, CS_NS_AT, was - 2 * NSEC_PER_SEC);
	store(buf, n);
	f = run_child();
	n = load(buf, sizeof(buf));
	memcpy(&was, buf + CS_NS_AT, sizeof(was));
	expect(f.rc == 0 && f.used && !f.cs_kept && was >= now,
	       "a clocksource read 2 s ago: read again from sysfs, and kept anew");
	memset(buf + CS_AT, 0, CS_NS_AT - CS_AT);
	memcpy(buf + CS_AT, "hpet", 4);
	poke(buf, n, CS_NS_AT, kclock_ns(CLOCK_BOOTTIME));
	store(buf, n);
	f = run_child();
	expect(f.rc == 77 && f.cs_kept,
	       "a fresh one that says hpet: believed, the kernel's clocks (a forgery costs speed)");
	poke(buf, n, CS_NS_AT, was - 2 * NSEC_PER_SEC);
	store(buf, n);
	f = run_child();
	expect(f.rc == 0 && !f.cs_kept, "and read again once it is old: the counter");
}

int main(int argc, char **argv)
{
	unsigned char buf[4096], bad[4096];
	struct found a, b;
	struct statfs fs;
	size_t n;

	if (argc == 3 && !strcmp(argv[1], "--child"))
		child_run(atoi(argv[2]));
	snprintf(path, sizeof(path), "/dev/shm/cyclock-test-record.%d", (int)getpid());
	if (statfs("/dev/shm", &fs) || fs.f_type != 0x01021994) {
		printf("test_machine_record: no tmpfs at /dev/shm: skipped\n");
		return 77;
	}
	setenv("CYCLOCK_MACHINE_RECORD", path, 1);
	unlink(path);
	a = run_child();
	if (a.rc == CHILD_NO_EXEC) {
		printf("test_machine_record: a child cannot exec this program again (qemu-user): "
		       "skipped\n");
		return 77;
	}
	if (a.rc == 77) {
		printf("test_machine_record: the counter is not used here: skipped\n");
		return 77;
	}
	n = load(buf, sizeof(buf));
	expect(a.rc == 0 && !a.used && n > 0, "the first process asks, and writes the record");
	b = run_child();
	expect(b.rc == 0 && b.used, "the next process uses it");
	/* Nothing but what the read it chooses rests on, where glibc keeps no
	 * copy (lfence;rdtsc's vendor, and AMD's 0x80000021; not rdtscp's). */
	expect(b.cpuid == 0 || (b.cpuid < a.cpuid && (strcmp(b.ordered, "rdtscp") || !GLIBC_CPUID)),
	       "and asks no CPUID but to confirm the read it chooses");
	printf("     CPUID asked: %u, then %u; the ordered read: %s\n", a.cpuid, b.cpuid,
	       b.ordered_why);
	expect(!strcmp(a.ordered_why, b.ordered_why),
	       "and chooses the ordered read from the same measured costs");
	expect(!a.cs_kept && b.cs_kept, "and the kernel's clocksource it read, no sysfs read");
	clocksource_age();

	chmod(path, 0664);
	rejected("writable by the group");
	if (chown(path, 1, 1) == 0)
		rejected("owned by another user");
	n = good_record(buf, sizeof(buf));
	store(buf, n - 1);
	rejected("cut short");
	n = good_record(buf, sizeof(buf));
	memcpy(bad, buf, n);
	bad[HWCAP_AT + 40] ^= 1;
	store(bad, n);
	rejected("a byte changed (the checksum)");
	memcpy(bad, buf, n);
	poke(bad, n, BOOT_AT, *(uint64_t *)(buf + BOOT_AT) + 1000000000ull);
	store(bad, n);
	rejected("of another boot (CLOCK_REALTIME - CLOCK_BOOTTIME 1 s off)");
	memcpy(bad, buf, n);
	poke(bad, n, HWCAP_AT, getauxval(AT_HWCAP) ^ 1);
	store(bad, n);
	rejected("of another machine (AT_HWCAP)");
	memcpy(bad, buf, n);
	poke(bad, n, 8, (uint64_t)n << 32 | (CYCLOCK__RECORD_VERSION + 1)); /* the next version */
	store(bad, n);
	rejected("of another layout");
	n = good_record(buf, sizeof(buf));
	{
		char link[160];

		snprintf(link, sizeof(link), "%s.link", path);
		unlink(link);
		if (symlink(path, link) == 0) {
			setenv("CYCLOCK_MACHINE_RECORD", link, 1);
			rejected("reached through a symbolic link");
			unlink(link);
		}
	}
	{
		char disk[160];

		snprintf(disk, sizeof(disk), "/var/tmp/cyclock-test-record.%d", (int)getpid());
		if (statfs("/var/tmp", &fs) == 0 && fs.f_type != 0x01021994) {
			int fd = open(disk, O_WRONLY | O_CREAT | O_TRUNC, 0644);

			if (fd >= 0 && write(fd, buf, n) == (ssize_t)n) {
				close(fd);
				setenv("CYCLOCK_MACHINE_RECORD", disk, 1);
				rejected("not on a tmpfs (a reboot would not empty it)");
			}
			unlink(disk);
		}
	}
	setenv("CYCLOCK_MACHINE_RECORD", "off", 1);
	unlink(path);
	a = run_child();
	expect(a.rc == 0 && !a.used && access(path, F_OK) != 0 &&
		       (a.cpuid > 0 || b.cpuid == 0),
	       "CYCLOCK_MACHINE_RECORD=off: none written, none used");
	setenv("CYCLOCK_MACHINE_RECORD", path, 1);
	unlink(path);
	printf("test_machine_record: %d failed\n", failures);
	return failures ? 1 : 0;
}
