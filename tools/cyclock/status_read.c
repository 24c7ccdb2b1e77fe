/* SPDX-License-Identifier: MIT */
/*
 * cyclock status's reading side (status_read.h): find the block in the
 * target's objects, then read it, each part between two reads of its
 * sequence.  Each process_vm_readv(2) is a system call of its own, so the
 * three reads of a part are in order on this side as the latch's loads
 * are (cyclock/latch.h); the target's writer bumps the sequence around
 * its stores with the latch's orders.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "status_read.h"

#if defined(__x86_64__)
#define OUR_MACHINE EM_X86_64
#elif defined(__aarch64__)
#define OUR_MACHINE EM_AARCH64
#elif defined(__riscv)
#define OUR_MACHINE EM_RISCV
#else
#define OUR_MACHINE EM_NONE
#endif

/* A part that stays odd, or moves, this many times in a row is busy. */
#define TRIES 1000

static void say(char *why, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void say(char *why, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, len, fmt, ap);
	va_end(ap);
}

/* ---- why a process cannot be read ---- */

/* Its state letter from /proc/PID/stat ('Z': a zombie), or 0. */
static char proc_state(pid_t pid)
{
	char path[64], buf[512], *p;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	p = strrchr(buf, ')'); /* the command may hold anything */
	return p && p[1] == ' ' ? p[2] : 0;
}

/* The reason behind EPERM or EACCES on process @pid. */
static enum status_err denied(pid_t pid, char *why, size_t len)
{
	char path[64];
	struct stat st;
	int scope = -1;
	FILE *f = fopen("/proc/sys/kernel/yama/ptrace_scope", "re");

	if (f) {
		if (fscanf(f, "%d", &scope) != 1)
			scope = -1;
		fclose(f);
	}
	snprintf(path, sizeof(path), "/proc/%d", (int)pid);
	if (stat(path, &st) == 0 && st.st_uid != geteuid())
		say(why, len,
		    "permission denied: process %d belongs to uid %u, and reading another "
		    "user's process takes root (CAP_SYS_PTRACE)",
		    (int)pid, (unsigned)st.st_uid);
	else if (scope >= 1)
		say(why, len,
		    "permission denied by Yama (kernel.yama.ptrace_scope = %d: %s)", scope,
		    scope == 1 ? "only a process's ancestors may read its memory; run as root "
				 "or with CAP_SYS_PTRACE"
		    : scope == 2 ? "only CAP_SYS_PTRACE may read a process's memory"
				 : "no process may read another's memory");
	else
		say(why, len,
		    "permission denied: process %d cannot be read (not dumpable: set-user-ID, "
		    "or PR_SET_DUMPABLE 0)", (int)pid);
	return STATUS_DENIED;
}

static enum status_err gone(pid_t pid, char *why, size_t len)
{
	if (proc_state(pid) == 'Z')
		say(why, len, "process %d has exited (a zombie: nothing left to read)", (int)pid);
	else
		say(why, len, "no process %d (it exited, or never was)", (int)pid);
	return STATUS_GONE;
}

/* ---- reading the target's memory ---- */

/* 0, or an errno: a short read is EFAULT. */
static int vm_read(pid_t pid, uint64_t addr, void *buf, size_t len)
{
	struct iovec local = { buf, len }, remote = { (void *)(uintptr_t)addr, len };
	ssize_t n = process_vm_readv(pid, &local, 1, &remote, 1, 0);

	if (n < 0)
		return errno;
	return (size_t)n == len ? 0 : EFAULT;
}

static enum status_err vm_error(pid_t pid, int err, char *why, size_t len)
{
	if (err == EPERM || err == EACCES)
		return denied(pid, why, len);
	if (err == ESRCH)
		return gone(pid, why, len);
	if (err == EFAULT) {
		if (kill(pid, 0) != 0 && errno == ESRCH)
			return gone(pid, why, len);
		say(why, len, "process %d unmapped its status block while it was read "
			      "(it exited or ran exec)", (int)pid);
		return STATUS_GONE;
	}
	say(why, len, "process_vm_readv: %s", strerror(err));
	return STATUS_BAD;
}

/* One part at @addr, @len bytes, its sequence first: read whole between
 * two equal, even readings of the sequence. */
static enum status_err read_part(pid_t pid, uint64_t addr, void *buf, size_t len,
				 const char *name, char *why, size_t wlen)
{
	uint32_t s1, s2;
	int err;

	for (int i = 0; i < TRIES; i++) {
		if ((err = vm_read(pid, addr, &s1, sizeof(s1))))
			return vm_error(pid, err, why, wlen);
		if (!(s1 & 1)) {
			if ((err = vm_read(pid, addr, buf, len)) ||
			    (err = vm_read(pid, addr, &s2, sizeof(s2))))
				return vm_error(pid, err, why, wlen);
			if (s1 == s2 && !memcmp(buf, &s2, sizeof(s2)))
				return STATUS_OK;
		}
		nanosleep(&(struct timespec){ 0, 10000 }, NULL);
	}
	say(why, wlen, "process %d's status %s was being written at each of %d reads "
		       "(a fork that cut a write leaves it so until the next)", (int)pid, name, TRIES);
	return STATUS_BUSY;
}

enum status_err status_read_block(pid_t pid, uint64_t addr, struct cyclock_status *st,
				  char *why, size_t len)
{
	enum status_err e;
	int err;

	memset(st, 0, sizeof(*st));
	if ((err = vm_read(pid, addr, st, offsetof(struct cyclock_status, setup))))
		return vm_error(pid, err, why, len);
	if (memcmp(st->magic, CYCLOCK_STATUS_MAGIC, sizeof(st->magic))) {
		say(why, len, "the symbol " CYCLOCK_STATUS_SYMBOL " at 0x%llx holds no cyclock "
			      "status block", (unsigned long long)addr);
		return STATUS_BAD;
	}
	if (st->version > CYCLOCK_STATUS_VERSION) {
		say(why, len, "its status block is version %u, newer than this cyclock knows "
			      "(%u): read it with the cyclock of the library's version (%.15s)",
		    st->version, CYCLOCK_STATUS_VERSION, st->library);
		return STATUS_NEWER;
	}
	if (st->version == 0 || st->size < sizeof(*st)) {
		say(why, len, "its status block is malformed (version %u, %u bytes)", st->version,
		    st->size);
		return STATUS_BAD;
	}
	st->library[sizeof(st->library) - 1] = 0;
	e = read_part(pid, addr + offsetof(struct cyclock_status, setup), &st->setup,
		      sizeof(st->setup), "setup", why, len);
	if (e == STATUS_OK)
		e = read_part(pid, addr + offsetof(struct cyclock_status, counts), &st->counts,
			      sizeof(st->counts), "counts", why, len);
	return e;
}

/* ---- finding the block ---- */

/* The ELF image of one object, mapped read-only. */
struct image {
	const unsigned char *p;
	size_t size;
};

static const void *at(const struct image *im, uint64_t off, uint64_t len)
{
	return off <= im->size && len <= im->size - off ? im->p + off : NULL;
}

/* The symbol's value in section table @sh's symbol table @s (with its
 * string table), or 0. */
static uint64_t find_in(const struct image *im, const Elf64_Ehdr *eh, const Elf64_Shdr *s)
{
	const Elf64_Shdr *strs;
	const char *names;
	uint64_t n;

	if (s->sh_link >= eh->e_shnum || s->sh_entsize != sizeof(Elf64_Sym))
		return 0;
	strs = at(im, eh->e_shoff + (uint64_t)s->sh_link * sizeof(Elf64_Shdr), sizeof(*strs));
	if (!strs || !(names = at(im, strs->sh_offset, strs->sh_size)) || !strs->sh_size)
		return 0;
	n = s->sh_size / sizeof(Elf64_Sym);
	for (uint64_t i = 0; i < n; i++) {
		const Elf64_Sym *sym = at(im, s->sh_offset + i * sizeof(Elf64_Sym), sizeof(*sym));

		if (!sym)
			return 0;
		if (sym->st_name >= strs->sh_size || sym->st_shndx == SHN_UNDEF ||
		    ELF64_ST_TYPE(sym->st_info) != STT_OBJECT)
			continue;
		if (strs->sh_size - sym->st_name > sizeof(CYCLOCK_STATUS_SYMBOL) - 1 &&
		    !memcmp(names + sym->st_name, CYCLOCK_STATUS_SYMBOL, sizeof(CYCLOCK_STATUS_SYMBOL)))
			return sym->st_value;
	}
	return 0;
}

/* The block's address in the target, for an object mapped from file
 * offset 0 at @start; 0 if it has no cyclock_status. */
static uint64_t find_block(const struct image *im, uint64_t start)
{
	const Elf64_Ehdr *eh = at(im, 0, sizeof(*eh));
	uint64_t value = 0, page = (uint64_t)sysconf(_SC_PAGESIZE);

	if (!eh || memcmp(eh->e_ident, ELFMAG, SELFMAG) || eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_machine != OUR_MACHINE || eh->e_shentsize != sizeof(Elf64_Shdr) ||
	    eh->e_phentsize != sizeof(Elf64_Phdr))
		return 0;
	/* The exported symbols first; a program that links libcyclock.a
	 * statically has it in .symtab, unless it was stripped. */
	for (int pass = 0; pass < 2 && !value; pass++)
		for (unsigned i = 0; i < eh->e_shnum && !value; i++) {
			const Elf64_Shdr *s = at(im, eh->e_shoff + (uint64_t)i * sizeof(*s), sizeof(*s));

			if (s && s->sh_type == (pass ? SHT_SYMTAB : SHT_DYNSYM))
				value = find_in(im, eh, s);
		}
	if (!value)
		return 0;
	/* The object's load bias: its first segment, which holds the ELF
	 * header (file offset 0), is mapped at @start. */
	for (unsigned i = 0; i < eh->e_phnum; i++) {
		const Elf64_Phdr *ph = at(im, eh->e_phoff + (uint64_t)i * sizeof(*ph), sizeof(*ph));

		if (ph && ph->p_type == PT_LOAD && ph->p_offset == 0)
			return start - (ph->p_vaddr & ~(page - 1)) + value;
	}
	return 0;
}

/* The block of the file at @path mapped from offset 0 at @start, if any:
 * read through /proc/PID/root (the target's mount namespace). */
static uint64_t object_block(pid_t pid, const char *path, uint64_t start)
{
	char full[PATH_MAX + 64];
	struct stat st;
	struct image im;
	uint64_t addr = 0;
	void *p;
	int fd;

	snprintf(full, sizeof(full), "/proc/%d/root%s", (int)pid, path);
	fd = open(full, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
		p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (p != MAP_FAILED) {
			im.p = p;
			im.size = (size_t)st.st_size;
			addr = find_block(&im, start);
			munmap(p, (size_t)st.st_size);
		}
	}
	close(fd);
	return addr;
}

static void read_comm(pid_t pid, char *comm, size_t len)
{
	char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	comm[0] = 0;
	f = fopen(path, "re");
	if (!f)
		return;
	if (fgets(comm, (int)len, f))
		comm[strcspn(comm, "\n")] = 0;
	fclose(f);
}

enum status_err status_read(pid_t pid, struct status_of *out)
{
	char path[64], line[PATH_MAX + 128], seen[STATUS_MAX_BLOCKS * 4][64];
	size_t n_seen = 0, n_mapped = 0;
	enum status_err e = STATUS_NONE;
	FILE *maps;

	memset(out, 0, sizeof(*out));
	out->pid = pid;
	if (pid <= 0) {
		say(out->why, sizeof(out->why), "no process %d", (int)pid);
		return STATUS_GONE;
	}
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	maps = fopen(path, "re");
	if (!maps)
		return errno == EACCES || errno == EPERM ? denied(pid, out->why, sizeof(out->why))
							 : gone(pid, out->why, sizeof(out->why));
	read_comm(pid, out->comm, sizeof(out->comm));
	while (fgets(line, sizeof(line), maps)) {
		unsigned long long start, end, off, inode;
		char dev[32], file[PATH_MAX];
		char id[64];
		uint64_t addr;
		bool again = false;

		file[0] = 0;
		if (sscanf(line, "%llx-%llx %*s %llx %31s %llu %4095[^\n]", &start, &end, &off, dev,
			   &inode, file) < 5)
			continue;
		n_mapped++;
		/* Once per object: its mapping from file offset 0. */
		if (off != 0 || inode == 0 || file[0] != '/')
			continue;
		snprintf(id, sizeof(id), "%s %llu", dev, inode);
		for (size_t i = 0; i < n_seen && !again; i++)
			again = !strcmp(seen[i], id);
		if (again)
			continue;
		if (n_seen < sizeof(seen) / sizeof(seen[0]))
			snprintf(seen[n_seen++], sizeof(seen[0]), "%s", id);
		addr = object_block(pid, file, start);
		if (!addr || out->n == STATUS_MAX_BLOCKS)
			continue;
		struct status_block *b = &out->blocks[out->n];

		e = status_read_block(pid, addr, &b->st, out->why, sizeof(out->why));
		if (e != STATUS_OK)
			break;
		snprintf(b->object, sizeof(b->object), "%s", file);
		b->addr = addr;
		out->n++;
	}
	if (ferror(maps) && !out->n) {
		int err = errno;

		fclose(maps);
		return err == EACCES || err == EPERM ? denied(pid, out->why, sizeof(out->why))
						     : gone(pid, out->why, sizeof(out->why));
	}
	fclose(maps);
	if (e != STATUS_OK && e != STATUS_NONE)
		return e;
	if (out->n)
		return STATUS_OK;
	if (!n_mapped) {
		char state = proc_state(pid);

		if (!state || state == 'Z') /* exited: gone() says which way */
			return gone(pid, out->why, sizeof(out->why));
		say(out->why, sizeof(out->why),
		    "process %d maps no memory (a kernel thread): no cyclock", (int)pid);
		return STATUS_NONE;
	}
	say(out->why, sizeof(out->why),
	    "process %d (%s) has no cyclock: none of its objects exports " CYCLOCK_STATUS_SYMBOL
	    " (not linked with libcyclock, not under the preload, or a static link stripped "
	    "of its symbols)", (int)pid, out->comm);
	return STATUS_NONE;
}
