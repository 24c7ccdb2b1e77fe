/* SPDX-License-Identifier: MIT */
/*
 * Attacks on the machine's record (src/linux/record.c; docs/hosted.md,
 * "The machine's record") from where it is kept: what another user can
 * leave at its name (a FIFO, a symbolic link, a file it holds a lease on,
 * a directory) or at the name of its writer's temporary file.  Each may
 * cost a process speed, never more: it finishes its initialisation within
 * 10 s (watched from outside: a hang there blocks every signal), and
 * serves cyclock_now() within a hand-over's bound of CLOCK_MONOTONIC from
 * its first reads; the writer leaves no temporary file behind.  Each case
 * in a fresh process (fork() and exec()), with the record at a path of the test's own;
 * another user's FIFO at the real name needs root (a private mount
 * namespace with its own /dev/shm), and says it is skipped without.
 * Skipped (77) where the library keeps no record (no counter to use).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>

#include "record_forge.h"

/* The hand-over's bound: an error this large, unexplained, is the
 * counter's (CYCLOCK_WRONG_NS); the library aims at 1 us. */
#define HANDOVER_NS 100000

static int failures;

static void expect(bool ok, const char *what)
{
	printf("%s %s\n", ok ? "ok  " : "FAIL", what);
	failures += !ok;
}

/* The record a child that found none wrote, into @r. */
static void fresh(struct cyclock__record *r)
{
	struct found f;

	unlink(forge_path);
	f = forge_run(NULL);
	expect(forge_finished(&f) && !f.used && forge_load(r),
	       "a child without a record writes one");
}

/* A child that must finish, not use what is at the record's name, and
 * read right; @parent as forge_run()'s. */
static struct found ignored(const char *what, void (*parent)(pid_t))
{
	struct found f = forge_run(parent);
	char line[240];

	snprintf(line, sizeof(line), "%s: finishes, not used, cyclock_now() within %d us", what,
		 HANDOVER_NS / 1000);
	expect(forge_finished(&f) && !f.used && f.worst <= HANDOVER_NS, line);
	if (forge_finished(&f))
		printf("     worst miss %lld ns, %.3f MHz, ordered read %s%s\n", (long long)f.worst,
		       f.hz / 1e6, f.ordered, f.used ? ", the record used" : "");
	return f;
}

static void at_name_fifo(void)
{
	char fifo[160];

	unlink(forge_path);
	if (mkfifo(forge_path, 0666) == 0)
		ignored("a FIFO at the name (the old code waited for a writer)", NULL);
	snprintf(fifo, sizeof(fifo), "%s.fifo", forge_path);
	unlink(forge_path);
	if (mkfifo(fifo, 0666) == 0 && symlink(fifo, forge_path) == 0)
		ignored("a symbolic link at the name, to a FIFO", NULL);
	unlink(forge_path);
	unlink(fifo);
}

/* A file its owner holds a write lease on: an open for reading waits for
 * the lease's break (45 s, /proc/sys/fs/lease-break-time), unless it
 * does not wait at all. */
static void at_name_leased(void)
{
	struct cyclock__record r;
	int fd;

	fresh(&r);
	signal(SIGIO, SIG_IGN); /* the lease's break, told to its holder */
	fd = open(forge_path, O_RDONLY);
	if (fd < 0 || fcntl(fd, F_SETLEASE, F_WRLCK)) {
		printf("     no lease on %s: the leased file skipped\n", forge_path);
	} else {
		ignored("a file under a write lease (the old code waited 45 s for its break)",
			NULL);
		fcntl(fd, F_SETLEASE, F_UNLCK);
	}
	if (fd >= 0)
		close(fd);
}

/* A directory at the name: nothing to read, and the writer's rename fails. */
static void at_name_directory(void)
{
	unlink(forge_path);
	if (mkdir(forge_path, 0700) == 0)
		ignored("a directory at the name", NULL);
	rmdir(forge_path);
}

/* The name the old writer's temporary file had (the record's path and its
 * pid), taken ahead of it. */
static char squatted[160];

static void squat(pid_t child)
{
	snprintf(squatted, sizeof(squatted), "%s.%d", forge_path, (int)child);
	if (mkfifo(squatted, 0666))
		abort();
}

static void temp_taken(void)
{
	struct cyclock__record r;
	struct found f;

	unlink(forge_path);
	f = forge_run(squat);
	expect(forge_finished(&f) && forge_load(&r),
	       "the writer's temporary name taken ahead of it (the old one's was predictable): "
	       "the record written all the same");
	unlink(squatted);
}

/* No file but the record's own left of the name's: no temporary file. */
static void no_temp_left(void)
{
	const char *base = strrchr(forge_path, '/') + 1;
	size_t n = strlen(base);
	struct dirent *e;
	DIR *d = opendir("/dev/shm");
	int left = 0;

	while (d && (e = readdir(d)))
		if (!strncmp(e->d_name, base, n) && e->d_name[n] == '.') {
			printf("     left: %s\n", e->d_name);
			left++;
		}
	if (d)
		closedir(d);
	expect(d && !left, "no temporary file left behind");
}

/* Another user's FIFO at the real name, /dev/shm/cyclock-machine.0, in a
 * mount namespace of a child's own with a /dev/shm of its own, met by a
 * process of root's. */
static void root_fifo(void)
{
	struct found f;
	int status;
	pid_t pid;

	if (geteuid() != 0) {
		printf("     not root: another user's FIFO at the real name skipped\n");
		return;
	}
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		if (unshare(CLONE_NEWNS) || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
		    mount("tmpfs", "/dev/shm", "tmpfs", 0, "mode=1777") ||
		    mkfifo("/dev/shm/cyclock-machine.0", 0666) ||
		    chown("/dev/shm/cyclock-machine.0", 65534, 65534))
			_exit(77);
		unsetenv("CYCLOCK_MACHINE_RECORD");
		f = ignored("another user's FIFO at /dev/shm/cyclock-machine.0, root reading",
			    NULL);
		_exit(forge_finished(&f) && !f.used && f.worst <= HANDOVER_NS ? 0 : 1);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) == 1)
		failures++;
	else if (WEXITSTATUS(status) == 77)
		printf("     no private mount namespace: the root case skipped\n");
}

int main(int argc, char **argv)
{
	struct cyclock__record r;
	struct found a;
	int rc;

	forge_child_main(argc, argv);
	if ((rc = forge_begin("test_record_at_name", "name", &a, &r)))
		return rc;
	at_name_fifo();
	at_name_leased();
	at_name_directory();
	temp_taken();
	no_temp_left();
	root_fifo();
	unlink(forge_path);
	printf("test_record_at_name: %d failed\n", failures);
	return failures ? 1 : 0;
}
