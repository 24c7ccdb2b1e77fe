/* SPDX-License-Identifier: MIT */
/*
 * What the kernel says of the process cyclock status reads, from its held
 * /proc directory (status_hold.c): where its program headers are (auxv),
 * its command, and its maps, each line read whole whatever its length (a
 * file's name can be longer than PATH_MAX, and a line cut in two would
 * give the tail of a name as a mapping of its own).  The names in the maps
 * are the target's to choose: they are only compared and reported, never
 * opened.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

#include "status_target.h"

/* Lines of the maps between two looks at the budget. */
#define LINES_PER_LOOK 256

/* Up to @len bytes of the file @path in the process's /proc directory;
 * the bytes read, or -1 with errno. */
static ssize_t read_proc(struct status_target *t, const char *path, void *buf, size_t len)
{
	size_t got = 0;
	int fd = openat(t->procfd, path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	while (got < len) {
		ssize_t n = read(fd, (char *)buf + got, len - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			int err = errno;

			close(fd);
			errno = err;
			return n < 0 && !got ? -1 : (ssize_t)got;
		}
		got += (size_t)n;
	}
	close(fd);
	return (ssize_t)got;
}

enum status_err status_auxv(struct status_target *t)
{
	uint64_t auxv[512], phent = 0; /* pairs of words: the kernel keeps fewer than 64 */
	ssize_t n = read_proc(t, "auxv", auxv, sizeof(auxv));

	if (n < 0)
		return errno == EACCES || errno == EPERM ? status_denied(t->pid, t->why, t->wlen)
							 : status_gone(t->pid, t->why, t->wlen);
	for (size_t i = 0; i + 1 < (size_t)n / sizeof(auxv[0]) && auxv[i] != AT_NULL; i += 2) {
		if (auxv[i] == AT_PHDR)
			t->phdr = auxv[i + 1];
		else if (auxv[i] == AT_PHNUM)
			t->phnum = auxv[i + 1];
		else if (auxv[i] == AT_PHENT)
			phent = auxv[i + 1];
	}
	if (phent != sizeof(Elf64_Phdr))
		t->phnum = 0; /* not a 64-bit process's headers */
	return STATUS_OK;
}

void status_comm(struct status_target *t, char *comm, size_t len)
{
	ssize_t n = read_proc(t, "comm", comm, len - 1);

	if (n < 0)
		n = 0;
	comm[n] = 0;
	/* One newline ends it; any other byte is the command's own. */
	if (n > 0 && comm[n - 1] == '\n')
		comm[n - 1] = 0;
}

/* Whether @name's last component starts "libcyclock-preload". */
static bool preload_name(const char *name)
{
	const char *base = strrchr(name, '/');

	return base && !strncmp(base + 1, "libcyclock-preload", 18);
}

/* One line: the mapping, and where its name starts; false if it is not
 * one (a line of another layout). */
static bool parse_line(const char *line, struct status_map *m, const char **name)
{
	unsigned long long start, end, off, ino;
	char perms[8];
	int at = -1;

	if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %n", &start, &end, perms, &off,
		   &m->major, &m->minor, &ino, &at) < 7 || at < 0)
		return false;
	m->start = start;
	m->end = end;
	m->off = off;
	m->ino = ino;
	*name = line + at;
	return true;
}

/* Notes what line @line says of the program's mapping and the preload. */
static void note_line(struct status_target *t, char *line, ssize_t len)
{
	struct status_map m;
	const char *name;

	if (len > 0 && line[len - 1] == '\n')
		line[len - 1] = 0;
	if (!parse_line(line, &m, &name))
		return;
	t->n_maps++;
	if (!t->exe_found && t->phdr >= m.start && t->phdr < m.end) {
		t->exe_found = true;
		t->exe = m;
		snprintf(t->exe_name, sizeof(t->exe_name), "%s", name);
	}
	if (m.ino && preload_name(name))
		t->preload_mapped = true;
}

enum status_err status_maps(struct status_target *t)
{
	int fd = dup(t->maps_fd);
	FILE *f = fd >= 0 ? fdopen(fd, "re") : NULL;
	char *line = NULL;
	size_t cap = 0, lines = 0;
	ssize_t len;
	enum status_err e = STATUS_OK;

	if (!f) {
		if (fd >= 0)
			close(fd);
		status_say(t->why, t->wlen, "process %d's maps: %s", (int)t->pid, strerror(errno));
		return STATUS_BAD;
	}
	while ((len = getline(&line, &cap, f)) > 0) {
		note_line(t, line, len);
		if (++lines % LINES_PER_LOOK == 0 && status_over_budget(t)) {
			e = STATUS_BAD;
			break;
		}
	}
	if (e == STATUS_OK && ferror(f) && !t->n_maps)
		e = errno == EACCES || errno == EPERM ? status_denied(t->pid, t->why, t->wlen)
						      : status_gone(t->pid, t->why, t->wlen);
	free(line);
	fclose(f);
	return e;
}
