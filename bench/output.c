/* SPDX-License-Identifier: MIT */
/*
 * What the reporters and commands share: numbers written for people, and
 * the file writer.  A regular file (or none yet) is written to a
 * temporary beside it, synced and renamed, so that a reader (or a crash)
 * sees the old file or the new one, never half of one; the new file keeps
 * the old one's mode and owner, and a symbolic link to it stays a link.
 * Anything else (a character device such as /dev/null, a FIFO, a
 * terminal) is written in place and never replaced: renaming over a node
 * would destroy it.  Block devices, sockets and links to nothing are
 * refused.  Also here: telling apart what two output names name.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* ---- numbers for people ---- */

/* @v ns as "0.35 ns", "20.2 ns", "512 ns", "1.53 us", "12.0 ms", "3.00 s". */
void bench_fmt_ns(char *buf, size_t len, double v)
{
	static const char *const units[] = { "ns", "us", "ms", "s" };
	size_t u = 0;

	while (fabs(v) >= 999.5 && u + 1 < ARRAY_SIZE(units)) {
		v /= 1000;
		u++;
	}
	if (v == 0)
		snprintf(buf, len, "0 %s", units[u]);
	else if (fabs(v) < 9.995)
		snprintf(buf, len, "%.2f %s", v, units[u]);
	else if (fabs(v) < 99.95)
		snprintf(buf, len, "%.1f %s", v, units[u]);
	else
		snprintf(buf, len, "%.0f %s", v, units[u]);
}

/* A ratio as the tables show it: "0.95x", "12.4x". */
void bench_fmt_ratio(char *buf, size_t len, double v)
{
	snprintf(buf, len, fabs(v) < 9.995 ? "%.2fx" : "%.1fx", v);
}

/* A whole number with thousands grouped: "12,345". */
static void fmt_grouped(char *buf, size_t len, double v)
{
	char digits[32];
	size_t n, o = 0;
	int i;

	n = (size_t)snprintf(digits, sizeof(digits), "%.0f", fabs(v));
	if (v <= -0.5 && o + 1 < len)
		buf[o++] = '-';
	for (i = 0; digits[i] && o + 2 < len; i++) {
		if (i > 0 && (n - (size_t)i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = digits[i];
	}
	buf[o] = '\0';
}

/* A count: grouped below 100,000, else three figures and k, M or G. */
void bench_fmt_count(char *buf, size_t len, double v)
{
	static const char sfx[] = "kMGT";
	size_t u = 0;

	if (fabs(v) < 99999.5) {
		fmt_grouped(buf, len, v);
		return;
	}
	v /= 1000;
	while (fabs(v) >= 999.5 && u + 1 < sizeof(sfx) - 1) {
		v /= 1000;
		u++;
	}
	if (fabs(v) < 9.995)
		snprintf(buf, len, "%.2f%c", v, sfx[u]);
	else if (fabs(v) < 99.95)
		snprintf(buf, len, "%.1f%c", v, sfx[u]);
	else
		snprintf(buf, len, "%.0f%c", v, sfx[u]);
}

/* ---- the file writer ---- */

int bench_stdout_errno;

static int write_all(int fd, const char *data, size_t len)
{
	while (len > 0) {
		ssize_t w = write(fd, data, len);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -1;
		if (w == 0) {
			errno = EIO;
			return -1;
		}
		data += w;
		len -= (size_t)w;
	}
	return 0;
}

/* The mode open(path, O_CREAT, 0666) would give: mkstemp() makes 0600.
 * umask() is read by setting it; the tool writes files from one thread. */
static mode_t new_file_mode(void)
{
	mode_t mask = umask(0);

	umask(mask);
	return 0666 & ~mask;
}

/* @path's directory with its slash ("a/b/" of "a/b/c"), or "" for a bare
 * name; malloc'd. */
static char *dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	return strndup(path, slash ? (size_t)(slash - path) + 1 : 0);
}

/* Makes the rename durable; a failure here loses nothing already written,
 * so it is not reported. */
static void sync_dir(const char *path)
{
	char *dir = dir_of(path);
	int fd = dir ? open(*dir ? dir : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;

	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
	free(dir);
}

/* Where a write to a path goes. */
struct target {
	char *path;      /* the file written: the path, or a symlink's target (malloc'd) */
	struct stat st;  /* what is there, when @exists */
	bool exists;
	bool direct;     /* not a regular file: written in place, never replaced */
};

/* Resolves @path into @t: NULL, or why it cannot be written (@t then
 * holds nothing to free).  A symbolic link to a regular file resolves to
 * that file, so that the file is replaced and the link stays. */
static const char *resolve(const char *path, struct target *t)
{
	struct stat l;

	memset(t, 0, sizeof(*t));
	if (stat(path, &t->st) == 0) {
		t->exists = true;
		if (S_ISDIR(t->st.st_mode))
			return strerror(EISDIR);
		if (S_ISBLK(t->st.st_mode))
			return "a block device";
		if (S_ISSOCK(t->st.st_mode))
			return "a socket";
		t->direct = !S_ISREG(t->st.st_mode);
		if (!t->direct && lstat(path, &l) == 0 && S_ISLNK(l.st_mode))
			t->path = realpath(path, NULL);
		else
			t->path = strdup(path);
	} else if (errno != ENOENT) {
		return strerror(errno);
	} else if (lstat(path, &l) == 0) {
		return "a symbolic link to nothing";
	} else {
		t->path = strdup(path);
	}
	return t->path ? NULL : strerror(errno);
}

/* A device, FIFO or other non-regular file: opened and written as a shell
 * redirection would (a FIFO waits for its reader), never replaced.  A
 * FIFO's reader gone is EPIPE, one line, not SIGPIPE's silent end. */
static int write_direct(const char *path, const char *data, size_t len)
{
	struct sigaction ignore = { .sa_handler = SIG_IGN }, old;
	int fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC), rc = -1, e;

	if (fd < 0)
		return -1;
	sigaction(SIGPIPE, &ignore, &old);
	if (write_all(fd, data, len) == 0)
		rc = 0;
	e = errno;
	sigaction(SIGPIPE, &old, NULL);
	if (close(fd) && rc == 0)
		return -1;
	errno = e;
	return rc;
}

/* The temporary's name: a fixed length in the target's directory (so that
 * rename() stays within one file system, and a target of NAME_MAX bytes
 * still leaves room for it). */
static char *temp_name(const char *path)
{
	static const char name[] = ".cyclock-XXXXXX";
	char *dir = dir_of(path), *tmp = NULL;

	if (dir && asprintf(&tmp, "%s%s", dir, name) < 0)
		tmp = NULL;
	free(dir);
	return tmp;
}

/* The new file gets the old one's owner and mode (chown first: it clears
 * the set-id bits), or a new file's. */
static int set_owner_mode(int fd, const struct target *t, const char **what)
{
	struct stat now;

	if (!t->exists)
		return fchmod(fd, new_file_mode());
	*what = "cannot keep its owner";
	if (fstat(fd, &now) ||
	    ((now.st_uid != t->st.st_uid || now.st_gid != t->st.st_gid) &&
	     fchown(fd, t->st.st_uid, t->st.st_gid)))
		return -1;
	*what = "cannot keep its mode";
	if (fchmod(fd, t->st.st_mode & 07777))
		return -1;
	*what = NULL;
	return 0;
}

/* A regular file, or none yet: a temporary beside it, synced, renamed over
 * it.  0, or -1 with errno and *@what set. */
static int write_replacing(const struct target *t, const char *data, size_t len,
			   const char **what)
{
	char *tmp = temp_name(t->path);
	int fd = tmp ? mkostemp(tmp, O_CLOEXEC) : -1, e;

	if (fd < 0) {
		e = tmp ? errno : ENOMEM;
		free(tmp);
		errno = e;
		return -1;
	}
	if (set_owner_mode(fd, t, what) || write_all(fd, data, len) || fsync(fd)) {
		e = errno ? errno : EIO;
		close(fd);
		goto fail;
	}
	if (close(fd) || rename(tmp, t->path)) {
		e = errno;
		goto fail;
	}
	sync_dir(t->path);
	free(tmp);
	return 0;
fail:
	unlink(tmp);
	free(tmp);
	errno = e;
	return -1;
}

static int write_stdout(const char *data, size_t len)
{
	if (fwrite(data, 1, len, stdout) != len || fflush(stdout) != 0) {
		if (!bench_stdout_errno)
			bench_stdout_errno = errno ? errno : -1;
		return -1;
	}
	return 0;
}

int bench__write_file(const char *path, const char *data, size_t len)
{
	const char *why, *what = NULL;
	struct target t;
	int rc;

	if (strcmp(path, "-") == 0)
		return write_stdout(data, len);
	why = resolve(path, &t);
	if (why) {
		bench_error("%s: not written: %s", path, why);
		return -1;
	}
	errno = 0;
	rc = t.direct ? write_direct(t.path, data, len) : write_replacing(&t, data, len, &what);
	if (rc)
		bench_error("%s: %s%s%s", path, what ? what : "", what ? ": " : "",
			strerror(errno ? errno : EIO));
	free(t.path);
	return rc ? -1 : 0;
}

/* Whether the temporary that write_replacing() makes can be made beside
 * @t: made and removed, since only that tells (root passes access()
 * where no file can be created: /proc, /sys, a read-only mount). */
static int can_replace(const struct target *t)
{
	char *tmp = temp_name(t->path);
	int fd = tmp ? mkostemp(tmp, O_CLOEXEC) : -1, e = tmp ? errno : ENOMEM;

	if (fd >= 0) {
		close(fd);
		unlink(tmp);
	}
	free(tmp);
	errno = e;
	return fd >= 0 ? 0 : -1;
}

int bench__output_check(const char *path, const char **why)
{
	struct target t;
	int rc;

	if (!strcmp(path, "-"))
		return 0;
	if (!path[0]) {
		*why = "empty file name";
		return -1;
	}
	*why = resolve(path, &t);
	if (*why)
		return -1;
	rc = t.direct ? access(t.path, W_OK) : can_replace(&t);
	if (rc)
		*why = strerror(errno);
	free(t.path);
	return rc ? -1 : 0;
}

/* What @path names, for telling outputs apart: the file's device and
 * inode where it exists, else its directory's real path and its name. */
struct output_id {
	dev_t dev;
	ino_t ino;
	bool chr;     /* a character device */
	char *where;  /* for a file not there yet (malloc'd) */
};

static int output_id(const char *path, struct output_id *id)
{
	struct stat st;
	char *dir, *real;
	const char *name = strrchr(path, '/');

	memset(id, 0, sizeof(*id));
	if (!strcmp(path, "-") && fstat(STDOUT_FILENO, &st))
		return -1;
	if (!strcmp(path, "-") || stat(path, &st) == 0) {
		id->dev = st.st_dev;
		id->ino = st.st_ino;
		id->chr = S_ISCHR(st.st_mode);
		return 0;
	}
	name = name ? name + 1 : path;
	dir = dir_of(path);
	real = dir ? realpath(*dir ? dir : ".", NULL) : NULL;
	if (real && asprintf(&id->where, "%s/%s", real, name) < 0)
		id->where = NULL;
	free(real);
	free(dir);
	return id->where ? 0 : -1;
}

bool bench__output_same(const char *a, const char *b)
{
	struct output_id x, y;
	bool same = false;

	if (!strcmp(a, "-") && !strcmp(b, "-"))
		return true;
	if (output_id(a, &x))
		return !strcmp(a, b);
	if (!output_id(b, &y)) {
		if (x.where || y.where)
			same = x.where && y.where && !strcmp(x.where, y.where);
		else
			same = x.dev == y.dev && x.ino == y.ino && !x.chr;
		free(y.where);
	}
	free(x.where);
	return same;
}

bool bench__output_is_stdout(const char *path)
{
	struct output_id out;

	if (!strcmp(path, "-"))
		return true;
	if (output_id("-", &out) || out.chr)
		return false;
	return bench__output_same("-", path);
}
