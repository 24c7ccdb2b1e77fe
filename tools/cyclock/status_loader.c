/* SPDX-License-Identifier: MIT */
/*
 * The objects of the process cyclock status reads, as its dynamic loader
 * lists them in its memory, the way a debugger finds them: auxv's AT_PHDR
 * gives the program's headers, PT_DYNAMIC its dynamic section, DT_DEBUG
 * the loader's struct r_debug, and r_map the chain of struct link_map,
 * one per object, with its load bias, name and dynamic section (glibc's
 * and musl's <link.h>; the public head of link_map is the ABI every
 * debugger reads).  Each object's dynamic symbols are then searched
 * (status_dynsym.c).
 *
 * It is the target's memory: every word is copied into this process
 * before it is used, the chain is cut at MAX_OBJECTS and at the first
 * node or dynamic section seen twice (a cycle), and a pointer that is
 * not aligned ends it.  An object that ld.so mapped but refused (a
 * preload under a noexec mount) is in no list, so it is not read as if
 * it were loaded.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "status_target.h"

/* Objects in one list: the largest programs load a few hundred. */
#define MAX_OBJECTS 1024
/* A set of 8-aligned addresses, open addressing: nodes and dynamic
 * sections, each at most MAX_OBJECTS. */
#define SEEN_SLOTS 4096
/* Looks at a list that the loader is changing (dlopen() in progress). */
#define CONSISTENT_TRIES 50

/* struct r_debug and the head of struct link_map, as 64-bit words. */
enum { RD_VERSION, RD_MAP, RD_BRK, RD_STATE, RD_WORDS };
enum { LM_ADDR, LM_NAME, LM_LD, LM_NEXT, LM_WORDS };
#define RT_CONSISTENT 0

/* Adds @v (not 0) to @set; true if it was there already. */
static bool seen(uint64_t *set, uint64_t v)
{
	size_t i = (size_t)((v * 0x9e3779b97f4a7c15ull) >> 52) & (SEEN_SLOTS - 1);

	while (set[i]) {
		if (set[i] == v)
			return true;
		i = (i + 1) & (SEEN_SLOTS - 1);
	}
	set[i] = v;
	return false;
}

/* The program's headers, copied from its memory, and its load bias:
 * from PT_PHDR, or 0 without one (as the loader takes it).  0, or an
 * errno: EINVAL where auxv gave no 64-bit headers. */
static int program_headers(struct status_target *t, uint64_t *bias)
{
	int err;

	if (!t->phdr || t->phdr % 8 || !t->phnum || t->phnum > STATUS_MAX_PHDRS)
		return EINVAL;
	if ((err = status_vm_read(t->pid, t->phdr, t->ph, t->phnum * sizeof(Elf64_Phdr))))
		return err;
	t->n_ph = t->phnum;
	*bias = 0;
	for (size_t i = 0; i < t->n_ph; i++)
		if (t->ph[i].p_type == PT_PHDR)
			*bias = t->phdr - t->ph[i].p_vaddr;
	return 0;
}

/* Where the program's DT_DEBUG points (the loader's struct r_debug), or 0:
 * a static program, or one the loader has not set up yet. */
static uint64_t r_debug_addr(struct status_target *t, uint64_t bias)
{
	Elf64_Dyn dyn[STATUS_MAX_DYN];

	for (size_t i = 0; i < t->n_ph; i++) {
		size_t n;

		if (t->ph[i].p_type != PT_DYNAMIC)
			continue;
		n = status_dyn_read(t->pid, bias + t->ph[i].p_vaddr, dyn, STATUS_MAX_DYN);
		for (size_t j = 0; j < n; j++)
			if (dyn[j].d_tag == DT_DEBUG)
				return dyn[j].d_un.d_ptr;
	}
	return 0;
}

/* The loader's r_debug at @addr, once it says its list is consistent (or
 * after CONSISTENT_TRIES looks: then read as it is, which is safe too). */
static bool r_debug_read(pid_t pid, uint64_t addr, uint64_t rd[RD_WORDS])
{
	int version, state;

	if (!addr || addr % 8)
		return false;
	for (int i = 0; i < CONSISTENT_TRIES; i++) {
		if (status_vm_read(pid, addr, rd, RD_WORDS * sizeof(rd[0])))
			return false;
		memcpy(&version, &rd[RD_VERSION], sizeof(version)); /* ints, as C lays them */
		memcpy(&state, &rd[RD_STATE], sizeof(state));
		if (version <= 0 || !rd[RD_MAP])
			return false;
		if (state == RT_CONSISTENT)
			break;
		nanosleep(&(struct timespec){ 0, 100000 }, NULL);
	}
	return true;
}

/* Notes @addr, the block of the object named @name (NULL: the program),
 * unless already noted. */
static void note(struct status_target *t, struct status_found *found, size_t max, size_t *n,
		 uint64_t addr, uint64_t name)
{
	for (size_t i = 0; i < *n; i++)
		if (found[i].addr == addr)
			return;
	if (*n == max)
		return;
	found[*n].addr = addr;
	if (!name || status_vm_string(t->pid, name, found[*n].name, sizeof(found[*n].name)) ||
	    !found[*n].name[0])
		snprintf(found[*n].name, sizeof(found[*n].name), "%s", t->exe_name);
	(*n)++;
}

/* Walks the chain from @node, noting each object's block. */
static enum status_err walk(struct status_target *t, uint64_t node, uint64_t *set,
			    struct status_found *found, size_t max, size_t *n, bool *exe_block)
{
	uint64_t lm[LM_WORDS], addr;

	for (size_t i = 0; node && i < MAX_OBJECTS; i++, node = lm[LM_NEXT]) {
		if (node % 8 || seen(set, node) ||
		    status_vm_read(t->pid, node, lm, sizeof(lm)))
			break;
		/* An object's dynamic section is its own: one seen before is
		 * the same object again.  (Tagged in the low bit, which the
		 * aligned addresses of nodes leave clear.) */
		if (!lm[LM_LD] || lm[LM_LD] % 8 || seen(set, lm[LM_LD] | 1))
			continue;
		addr = status_dynsym(t, lm[LM_ADDR], lm[LM_LD]);
		if (status_over_budget(t))
			return STATUS_BAD;
		if (!addr)
			continue;
		/* The first is the program itself, its name empty. */
		note(t, found, max, n, addr, i ? lm[LM_NAME] : 0);
		*exe_block |= i == 0;
	}
	return STATUS_OK;
}

enum status_err status_loader(struct status_target *t, struct status_found *found, size_t max,
			      size_t *n, bool *exe_block)
{
	uint64_t rd[RD_WORDS], *set, bias;
	enum status_err e;
	int err;

	*n = 0;
	*exe_block = false;
	/* The first read of its memory says whether it may be read at all
	 * (Yama allows the maps and not the memory). */
	err = program_headers(t, &bias);
	if (err == EPERM || err == EACCES || err == ESRCH)
		return status_vm_error(t->pid, err, t->why, t->wlen);
	if (err || !r_debug_read(t->pid, r_debug_addr(t, bias), rd))
		return STATUS_OK; /* no list: a static program */
	set = calloc(SEEN_SLOTS, sizeof(*set));
	if (!set) {
		status_say(t->why, t->wlen, "out of memory");
		return STATUS_BAD;
	}
	e = walk(t, rd[RD_MAP], set, found, max, n, exe_block);
	free(set);
	return e;
}
