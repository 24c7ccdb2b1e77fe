/* SPDX-License-Identifier: MIT */
/*
 * What the reporters and commands share: numbers written for people, and
 * the atomic file writer: a file is written to a temporary beside it,
 * synced and renamed, so that a reader (or a crash) sees the old file or
 * the new one, never half of one.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
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

/* ---- files ---- */

/* ---- the atomic writer ---- */

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

/* Makes the rename durable; a failure here loses nothing already written,
 * so it is not reported. */
static void sync_dir(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir = slash ? strndup(path, (size_t)(slash - path) + 1) : strdup(".");
	int fd = dir ? open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;

	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
	free(dir);
}

static int write_stdout(const char *data, size_t len)
{
	if (fwrite(data, 1, len, stdout) != len || fflush(stdout) != 0) {
		fprintf(stderr, "cyclock: -: %s\n", strerror(errno));
		return -1;
	}
	return 0;
}

/* The temporary's name: beside @path, so that rename() stays within one
 * file system. */
static char *temp_name(const char *path)
{
	static const char suffix[] = ".tmpXXXXXX";
	size_t n = strlen(path);
	char *tmp = malloc(n + sizeof(suffix));

	if (tmp) {
		memcpy(tmp, path, n);
		memcpy(tmp + n, suffix, sizeof(suffix));
	}
	return tmp;
}

int bench__write_file(const char *path, const char *data, size_t len)
{
	char *tmp;
	int fd, e = ENOMEM;

	if (strcmp(path, "-") == 0)
		return write_stdout(data, len);
	tmp = temp_name(path);
	fd = tmp ? mkstemp(tmp) : -1;
	if (fd < 0) {
		e = tmp ? errno : ENOMEM;
		goto fail;
	}
	if (fchmod(fd, new_file_mode()) || write_all(fd, data, len) || fsync(fd)) {
		e = errno ? errno : EIO;
		close(fd);
		goto fail_unlink;
	}
	if (close(fd) || rename(tmp, path)) {
		e = errno;
		goto fail_unlink;
	}
	sync_dir(path);
	free(tmp);
	return 0;
fail_unlink:
	unlink(tmp);
fail:
	fprintf(stderr, "cyclock: %s: %s\n", path, strerror(e));
	free(tmp);
	return -1;
}
