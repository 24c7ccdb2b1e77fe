/* SPDX-License-Identifier: MIT */
/*
 * The attacks of a target on its reader, "cyclock status" (hostile.h):
 * what it maps, its name, its dynamic loader's list, its status block.
 * All of it is the target's own to change, as any process's is.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hostile.h"

static void die(const char *what, const char *arg)
{
	fprintf(stderr, "target: %s %s: %m\n", what, arg);
	exit(1);
}

/* @path opened read-only a component at a time (it may be longer than
 * PATH_MAX). */
static int open_long(const char *path)
{
	char *copy = strdup(path), *name, *next;
	int dir = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC), fd;

	if (!copy || dir < 0 || path[0] != '/')
		die("open", path);
	name = copy + 1;
	while ((next = strchr(name, '/'))) {
		*next = 0;
		fd = openat(dir, name, O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0)
			die("open a directory of", path);
		close(dir);
		dir = fd;
		name = next + 1;
	}
	fd = openat(dir, name, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		die("open", path);
	close(dir);
	free(copy);
	return fd;
}

void hostile_map(const char *path, int n)
{
	int fd = open_long(path);
	struct stat st;
	size_t len;

	if (fstat(fd, &st))
		die("stat", path);
	len = st.st_size > 0 ? (size_t)st.st_size : 4096;
	for (int i = 0; i < n; i++)
		if (mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0) == MAP_FAILED)
			die("mmap", path);
	close(fd);
}

void hostile_name(const char *name)
{
	if (prctl(PR_SET_NAME, name, 0, 0, 0))
		die("prctl(PR_SET_NAME)", name);
}

/* ---- the loader's list ---- */

/* Forged objects, each with a dynamic section of its own. */
#define FORGED 4096
/* Their shared hash chain: every link has the symbol's hash, none ends. */
#define CHAIN 65536
/* Room for glibc's private fields after a link_map's public head, zeros,
 * should the target's own loader look at a forged one. */
#define NODE 1024

static uint32_t gnu_hash(const char *s)
{
	uint32_t h = 5381;

	for (; *s; s++)
		h = h * 33 + (unsigned char)*s;
	return h;
}

/* A hash table whose one bucket leads to a chain of CHAIN symbols, each
 * with cyclock_status's hash and the name "cyclock_statux". */
static void forged_tables(Elf64_Dyn *dyn)
{
	static const char names[] = "\0cyclock_statux";
	uint32_t *gnu = calloc(7 + CHAIN, sizeof(*gnu)), h = gnu_hash(CYCLOCK_STATUS_SYMBOL);
	Elf64_Sym *syms = calloc(1 + CHAIN, sizeof(*syms));

	if (!gnu || !syms)
		die("forge", "tables");
	gnu[0] = 1;          /* buckets */
	gnu[1] = 1;          /* the first symbol hashed */
	gnu[2] = 1;          /* bloom words (64-bit) */
	gnu[4] = gnu[5] = ~0u; /* a bloom filter that lets everything by */
	gnu[6] = 1;          /* the bucket: symbol 1 */
	for (size_t i = 0; i < CHAIN; i++)
		gnu[7 + i] = h & ~1u;
	for (size_t i = 1; i <= CHAIN; i++)
		syms[i] = (Elf64_Sym){ .st_name = 1, .st_info = ELF64_ST_INFO(STB_GLOBAL, STT_OBJECT),
				       .st_shndx = 1, .st_value = 0x1000 };
	dyn[0] = (Elf64_Dyn){ DT_GNU_HASH, { (uint64_t)(uintptr_t)gnu } };
	dyn[1] = (Elf64_Dyn){ DT_SYMTAB, { (uint64_t)(uintptr_t)syms } };
	dyn[2] = (Elf64_Dyn){ DT_STRTAB, { (uint64_t)(uintptr_t)names } };
	dyn[3] = (Elf64_Dyn){ DT_STRSZ, { sizeof(names) } };
	dyn[4] = (Elf64_Dyn){ DT_SYMENT, { sizeof(Elf64_Sym) } };
	dyn[5] = (Elf64_Dyn){ DT_NULL, { 0 } };
}

/* A name that runs to unmapped memory without a NUL. */
static char *endless_name(void)
{
	char *p = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED || mprotect(p + 4096, 4096, PROT_NONE))
		die("map", "a name");
	memset(p, 'N', 4096);
	return p;
}

/* FORGED objects after the program, before the real ones. */
static void forge_objects(struct link_map *program)
{
	char *nodes = calloc(FORGED, NODE), *name = endless_name();
	Elf64_Dyn(*dyn)[6] = calloc(FORGED, sizeof(*dyn));

	if (!nodes || !dyn)
		die("forge", "objects");
	forged_tables(dyn[0]);
	for (size_t i = 0; i < FORGED; i++) {
		struct link_map *m = (struct link_map *)(void *)(nodes + i * NODE);

		memcpy(dyn[i], dyn[0], sizeof(dyn[0]));
		m->l_addr = 0;
		m->l_name = name;
		m->l_ld = dyn[i];
		m->l_next = i + 1 < FORGED ? (struct link_map *)(void *)(nodes + (i + 1) * NODE)
					   : program->l_next;
	}
	program->l_next = (struct link_map *)(void *)nodes;
}

void hostile_loader(const char *mode)
{
	struct link_map *first = _r_debug.r_map, *last = first;

	if (!first)
		die("find the loader's list", mode);
	if (!strcmp(mode, "cycle")) {
		while (last->l_next)
			last = last->l_next;
		last->l_next = first;
	} else if (!strcmp(mode, "hostile")) {
		forge_objects(first);
	} else {
		die("--loader", mode);
	}
}

/* ---- the block ---- */

/* @s into @dst, every byte of @dst, no NUL unless @s has one within. */
#define FILL(dst, s) memcpy((dst), (s), sizeof(dst) < sizeof(s) ? sizeof(dst) : sizeof(s))

static void hostile_setup(struct cyclock_status_setup *s)
{
	s->state = CYCLOCK_STATUS_READY;
	s->flags = CYCLOCK_STATUS_COUNTER | CYCLOCK_STATUS_PRELOAD | CYCLOCK_STATUS_WARP_RAN;
	s->served = ~0u;
	s->reserved = ~0u;
	s->hz_hint = -1e9;
	s->init_ns = ~0ull;
	s->warp_cyc = INT64_MIN;
	s->warp_turns = ~0ull;
	memset(s->counter, 'C', sizeof(s->counter)); /* no NUL: runs into ordered */
	FILL(s->ordered, "\033[2J\033[H\033]0;owned\007");
	FILL(s->hz_source, "x\r\n  forged        line\n");
	FILL(s->distrust, "\xed\xa0\x80 surrogate, \xf4\x90\x80\x80 past U+10FFFF, \xc0\xaf, \xff");
	FILL(s->ordered_why, "\xc2\x9b" "31m C1 CSI, \"quote\" \\backslash");
	FILL(s->why, "\nwhy");
}

static void hostile_counts(struct cyclock_status_counts *c)
{
	c->pid = ~0u;
	c->kernel_mode = 7;
	c->written_ns = 1;
	c->resyncs = ~0ull;
	c->anomalies = 1ull << 63;
	c->kernel_spells = ~0ull;
	c->rate_changes = ~0ull;
	c->last_err_ns = INT64_MIN;
	c->raw_last_err_ns = INT64_MIN;
	c->interval_ns = ~0ull;
	c->max_interval_ns = ~0ull;
	c->ns_per_tick = 1e-320; /* 1e9 / it is infinite */
	c->hz_ppm = -__builtin_inf();
	memset(c->kernel_why, '\n', sizeof(c->kernel_why)); /* no NUL: runs into the next copy */
}

void hostile_block(struct cyclock_status *st)
{
	st->version = CYCLOCK_STATUS_VERSION;
	st->size = sizeof(*st);
	memset(st->library, 'L', sizeof(st->library)); /* no NUL: the sequences follow */
	st->setup_seq = ~0u; /* the second copy */
	st->counts_seq = 0x7ffffffe; /* the first */
	memset(st->reserved, 'R', sizeof(st->reserved));
	memset(st->tail, 'T', sizeof(st->tail));
	for (int i = 0; i < 2; i++) {
		hostile_setup(&st->setup[i]);
		hostile_counts(&st->counts[i]);
	}
}
