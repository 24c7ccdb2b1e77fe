/* SPDX-License-Identifier: MIT */
/*
 * cyclock_status in a program that links libcyclock.a statically: there
 * the symbol is in .symtab only, which is in the file and not in memory.
 * The file is the one the kernel maps, reached through its own links
 * (/proc/PID/map_files/RANGE, else /proc/PID/exe), opened O_PATH first so
 * that nothing but a regular file with the device and inode the maps gave
 * is ever opened for reading, and then only as this process's own
 * descriptor of that inode.  Its program headers must be the ones in
 * memory.  It is read with pread(2) into this process's buffers, a chunk
 * at a time, never mapped (a file shrunk under a mapping is SIGBUS), its
 * tables capped at MAX_TABLE and the whole within the read's CPU budget.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "status_target.h"

#if defined(__x86_64__)
#define OUR_MACHINE EM_X86_64
#elif defined(__aarch64__)
#define OUR_MACHINE EM_AARCH64
#elif defined(__riscv)
#define OUR_MACHINE EM_RISCV
#else
#define OUR_MACHINE EM_NONE
#endif

/* A .symtab or .strtab larger than this is not read. */
#define MAX_TABLE (64ull << 20)
/* The reads' size: 2730 symbols. */
#define CHUNK (64u << 10)
/* Places in .strtab that say "cyclock_status" (linkers share tails of
 * names, so a name can start inside another's). */
#define MAX_NAMES 16

/* The program's file, opened through the kernel's link to it; -1. */
static int open_program(struct status_target *t)
{
	char range[64], self[64];
	const char *links[] = { range, "exe" };

	snprintf(range, sizeof(range), "map_files/%llx-%llx", (unsigned long long)t->exe.start,
		 (unsigned long long)t->exe.end);
	for (size_t i = 0; i < sizeof(links) / sizeof(links[0]); i++) {
		int path = openat(t->procfd, links[i], O_PATH | O_CLOEXEC), fd = -1;
		struct stat st;

		if (path < 0)
			continue; /* map_files takes CAP_SYS_ADMIN: root's */
		if (fstat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_ino == t->exe.ino &&
		    major(st.st_dev) == t->exe.major && minor(st.st_dev) == t->exe.minor) {
			snprintf(self, sizeof(self), "/proc/self/fd/%d", path);
			fd = open(self, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
		}
		close(path);
		if (fd >= 0)
			return fd;
	}
	return -1;
}

/* @len bytes at @off; 0, or -1 when the file has fewer. */
static int read_at(int fd, void *buf, size_t len, uint64_t off)
{
	size_t got = 0;

	if (off > (uint64_t)INT64_MAX - len)
		return -1;
	while (got < len) {
		ssize_t n = pread(fd, (char *)buf + got, len - got, (off_t)(off + got));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		got += (size_t)n;
	}
	return 0;
}

/* The file's ELF header, if it is one of this machine's, aligned and with
 * the program headers in memory; its load bias in *@bias. */
static bool same_program(struct status_target *t, int fd, Elf64_Ehdr *eh, uint64_t *bias)
{
	Elf64_Phdr ph[STATUS_MAX_PHDRS];

	if (read_at(fd, eh, sizeof(*eh), 0) || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_machine != OUR_MACHINE ||
	    eh->e_phentsize != sizeof(Elf64_Phdr) || eh->e_shentsize != sizeof(Elf64_Shdr) ||
	    eh->e_phoff % 8 || eh->e_shoff % 8 || eh->e_phnum != t->n_ph ||
	    eh->e_shnum == 0 || eh->e_shnum >= SHN_LORESERVE ||
	    read_at(fd, ph, t->n_ph * sizeof(ph[0]), eh->e_phoff) ||
	    memcmp(ph, t->ph, t->n_ph * sizeof(ph[0])))
		return false;
	/* The bias: where the headers are in memory, less where the segment
	 * that holds them puts them. */
	for (size_t i = 0; i < t->n_ph; i++)
		if (ph[i].p_type == PT_LOAD && ph[i].p_offset <= eh->e_phoff &&
		    eh->e_phoff - ph[i].p_offset < ph[i].p_filesz) {
			*bias = eh->e_type == ET_EXEC ? 0 :
				t->phdr - (ph[i].p_vaddr + (eh->e_phoff - ph[i].p_offset));
			return true;
		}
	return false;
}

/* The first SHT_SYMTAB (there is one at most) and its string table, if
 * both are shaped as ELF says. */
static bool find_symtab(struct status_target *t, int fd, const Elf64_Ehdr *eh,
			Elf64_Shdr *sym, Elf64_Shdr *str)
{
	Elf64_Shdr sh[64];

	for (unsigned i = 0; i < eh->e_shnum; i += 64) {
		unsigned k = eh->e_shnum - i < 64 ? eh->e_shnum - i : 64;

		if (read_at(fd, sh, k * sizeof(sh[0]), eh->e_shoff + (uint64_t)i * sizeof(sh[0])) ||
		    status_over_budget(t))
			return false;
		for (unsigned j = 0; j < k; j++) {
			if (sh[j].sh_type != SHT_SYMTAB)
				continue;
			*sym = sh[j];
			return sym->sh_entsize == sizeof(Elf64_Sym) && sym->sh_offset % 8 == 0 &&
			       sym->sh_size <= MAX_TABLE && sym->sh_link < eh->e_shnum &&
			       !read_at(fd, str, sizeof(*str),
					eh->e_shoff + (uint64_t)sym->sh_link * sizeof(*str)) &&
			       str->sh_type == SHT_STRTAB && str->sh_size <= MAX_TABLE;
		}
	}
	return false;
}

/* Where "cyclock_status" starts in the string table, up to MAX_NAMES
 * places in @at; how many. */
static size_t find_names(struct status_target *t, int fd, const Elf64_Shdr *str, char *buf,
			 uint64_t *at)
{
	static const char want[] = CYCLOCK_STATUS_SYMBOL;
	size_t n = 0;

	/* Chunks that overlap by a name less one byte, so that a name
	 * across two is found whole, once. */
	for (uint64_t off = 0; off < str->sh_size && n < MAX_NAMES; off += CHUNK) {
		size_t len = str->sh_size - off < CHUNK + sizeof(want) - 1 ? str->sh_size - off
									    : CHUNK + sizeof(want) - 1;
		const char *p = buf;

		if (read_at(fd, buf, len, str->sh_offset + off) || status_over_budget(t))
			break;
		while (n < MAX_NAMES && (p = memmem(p, len - (size_t)(p - buf), want, sizeof(want))) &&
		       p - buf < CHUNK) {
			at[n++] = off + (uint64_t)(p - buf);
			p++;
		}
	}
	return n;
}

/* The value of the defined object whose name is at one of @names. */
static uint64_t find_symbol(struct status_target *t, int fd, const Elf64_Shdr *sym, void *buf,
			    const uint64_t *names, size_t n_names)
{
	const Elf64_Sym *s = buf;
	uint64_t count = sym->sh_size / sizeof(*s);

	for (uint64_t i = 0; i < count; i += CHUNK / sizeof(*s)) {
		size_t k = count - i < CHUNK / sizeof(*s) ? (size_t)(count - i) : CHUNK / sizeof(*s);

		if (read_at(fd, buf, k * sizeof(*s), sym->sh_offset + i * sizeof(*s)) ||
		    status_over_budget(t))
			return 0;
		for (size_t j = 0; j < k; j++)
			for (size_t m = 0; m < n_names; m++)
				if (s[j].st_name == names[m] && s[j].st_shndx != SHN_UNDEF &&
				    ELF64_ST_TYPE(s[j].st_info) == STT_OBJECT && s[j].st_value)
					return s[j].st_value;
	}
	return 0;
}

enum status_err status_symtab(struct status_target *t, uint64_t *addr)
{
	uint64_t bias = 0, names[MAX_NAMES], value = 0;
	Elf64_Shdr sym, str;
	Elf64_Ehdr eh;
	size_t n_names;
	void *buf;
	int fd;

	*addr = 0;
	if (!t->exe_found || !t->exe.ino || !t->n_ph || (fd = open_program(t)) < 0)
		return STATUS_OK;
	buf = malloc(CHUNK + sizeof(CYCLOCK_STATUS_SYMBOL));
	if (buf && same_program(t, fd, &eh, &bias) && find_symtab(t, fd, &eh, &sym, &str) &&
	    (n_names = find_names(t, fd, &str, buf, names)))
		value = find_symbol(t, fd, &sym, buf, names, n_names);
	free(buf);
	close(fd);
	if (value)
		*addr = bias + value;
	return t->over ? STATUS_BAD : STATUS_OK; /* its refusal worded */
}
