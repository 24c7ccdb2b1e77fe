/* SPDX-License-Identifier: MIT */
/*
 * cyclock status's reading side (status_read.h): hold the process, find
 * its blocks (status_target.h has the files that do), read each, each part
 * between two reads of its sequence, and check that the process held is
 * still the one read.  Each process_vm_readv(2) is a system call of its
 * own, so the three reads of a part are in order on this side as the
 * latch's loads are (cyclock/latch.h); the target's writer bumps the
 * sequence around its stores with the latch's orders.  What is kept of
 * the target's strings is made safe to print here, once, for every format.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h" /* bench_text_clean() */
#include "status_target.h"

/* A part that stays odd, or moves, this many times in a row is busy. */
#define TRIES 1000

/* ---- the block ---- */

/* One part at @addr, @len bytes, its sequence first: read whole between
 * two equal, even readings of the sequence. */
static enum status_err read_part(pid_t pid, uint64_t addr, void *buf, size_t len,
				 const char *name, char *why, size_t wlen)
{
	uint32_t s1, s2;
	int err;

	for (int i = 0; i < TRIES; i++) {
		if ((err = status_vm_read(pid, addr, &s1, sizeof(s1))))
			return status_vm_error(pid, err, why, wlen);
		if (!(s1 & 1)) {
			if ((err = status_vm_read(pid, addr, buf, len)) ||
			    (err = status_vm_read(pid, addr, &s2, sizeof(s2))))
				return status_vm_error(pid, err, why, wlen);
			if (s1 == s2 && !memcmp(buf, &s2, sizeof(s2)))
				return STATUS_OK;
		}
		nanosleep(&(struct timespec){ 0, 10000 }, NULL);
	}
	status_say(why, wlen, "process %d's status %s was being written at each of %d reads "
		   "(a fork that cut a write leaves it so until the next)", (int)pid, name, TRIES);
	return STATUS_BUSY;
}

/* Each string of the block ends within its array, whatever the target
 * wrote there. */
#define END(s) ((s)[sizeof(s) - 1] = 0)

static void end_strings(struct cyclock_status *st)
{
	END(st->library);
	END(st->setup.counter);
	END(st->setup.ordered);
	END(st->setup.hz_source);
	END(st->setup.why);
	END(st->setup.distrust);
	END(st->setup.ordered_why);
	END(st->counts.kernel_why);
}

/* The block's header at @addr (magic, version, size, the library's
 * version), checked before any part of it is read. */
static enum status_err read_header(pid_t pid, uint64_t addr, struct cyclock_status *st,
				   char *why, size_t len)
{
	int err;

	if (addr % 8) {
		status_say(why, len, "the symbol " CYCLOCK_STATUS_SYMBOL " at 0x%llx is not "
			   "aligned: it holds no cyclock status block", (unsigned long long)addr);
		return STATUS_BAD;
	}
	if ((err = status_vm_read(pid, addr, st, offsetof(struct cyclock_status, setup))))
		return status_vm_error(pid, err, why, len);
	if (memcmp(st->magic, CYCLOCK_STATUS_MAGIC, sizeof(st->magic))) {
		status_say(why, len, "the symbol " CYCLOCK_STATUS_SYMBOL " at 0x%llx holds no "
			   "cyclock status block", (unsigned long long)addr);
		return STATUS_BAD;
	}
	END(st->library);
	if (st->version > CYCLOCK_STATUS_VERSION) {
		char lib[4 * sizeof(st->library)];

		bench_text_clean(lib, sizeof(lib), st->library);
		status_say(why, len, "its status block is version %u, newer than this cyclock "
			   "knows (%u): read it with the cyclock of the library's version (%s)",
			   st->version, CYCLOCK_STATUS_VERSION, lib);
		return STATUS_NEWER;
	}
	if (st->version == 0 || st->size < sizeof(*st)) {
		status_say(why, len, "its status block is malformed (version %u, %u bytes)",
			   st->version, st->size);
		return STATUS_BAD;
	}
	return STATUS_OK;
}

enum status_err status_read_block(pid_t pid, uint64_t addr, struct cyclock_status *st,
				  char *why, size_t len)
{
	enum status_err e;

	memset(st, 0, sizeof(*st));
	if ((e = read_header(pid, addr, st, why, len)) != STATUS_OK)
		return e;
	e = read_part(pid, addr + offsetof(struct cyclock_status, setup), &st->setup,
		      sizeof(st->setup), "setup", why, len);
	if (e == STATUS_OK)
		e = read_part(pid, addr + offsetof(struct cyclock_status, counts), &st->counts,
			      sizeof(st->counts), "counts", why, len);
	end_strings(st);
	return e;
}

/* ---- what is kept of the target's strings ---- */

/* @s, a string the target wrote, made safe to print in place (cut to
 * its array where escapes make it longer). */
static void clean(char *s, size_t size)
{
	char raw[STATUS_OBJECT_LEN];

	snprintf(raw, sizeof(raw), "%.*s", (int)(size - 1), s);
	bench_text_clean(s, size, raw);
}

#define CLEAN(s) clean((s), sizeof(s))

static void clean_block(struct status_block *b)
{
	CLEAN(b->object);
	CLEAN(b->st.library);
	CLEAN(b->st.setup.counter);
	CLEAN(b->st.setup.ordered);
	CLEAN(b->st.setup.hz_source);
	CLEAN(b->st.setup.why);
	CLEAN(b->st.setup.distrust);
	CLEAN(b->st.setup.ordered_why);
	CLEAN(b->st.counts.kernel_why);
}

/* ---- the process ---- */

/* The blocks of the process @t holds: the loader's objects, then, if the
 * program itself has none in its dynamic symbols, its .symtab (first, as
 * it is the first object). */
static enum status_err find(struct status_target *t, struct status_found *found, size_t *n)
{
	enum status_err e = status_auxv(t);
	bool exe_block = false;
	uint64_t addr = 0;

	if (e == STATUS_OK)
		e = status_maps(t);
	if (e == STATUS_OK)
		e = status_loader(t, found, STATUS_MAX_BLOCKS, n, &exe_block);
	if (e == STATUS_OK && !exe_block)
		e = status_symtab(t, &addr);
	for (size_t i = 0; i < *n && addr; i++)
		if (found[i].addr == addr)
			addr = 0;
	if (e == STATUS_OK && addr) {
		memmove(found + 1, found, (*n < STATUS_MAX_BLOCKS ? *n : *n - 1) * sizeof(*found));
		found[0].addr = addr;
		snprintf(found[0].name, sizeof(found[0].name), "%s", t->exe_name);
		*n += *n < STATUS_MAX_BLOCKS;
	}
	return e;
}

static enum status_err none(struct status_target *t, const char *comm)
{
	if (!t->n_maps)
		status_say(t->why, t->wlen, "process %d maps no memory (a kernel thread): no cyclock",
			   (int)t->pid);
	else if (t->preload_mapped)
		status_say(t->why, t->wlen,
			   "process %d (%s) has no cyclock: libcyclock-preload.so is mapped but not "
			   "loaded (the dynamic loader refused it, as under a noexec mount or "
			   "systemd's NoExecPaths=; the process's standard error has its message)",
			   (int)t->pid, comm);
	else
		status_say(t->why, t->wlen,
			   "process %d (%s) has no cyclock: none of its objects exports "
			   CYCLOCK_STATUS_SYMBOL " (not linked with libcyclock, not under the "
			   "preload, or a static link stripped of its symbols)", (int)t->pid, comm);
	return STATUS_NONE;
}

/* Reads the blocks @found into @out. */
static enum status_err read_blocks(struct status_target *t, struct status_of *out,
				   const struct status_found *found, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct status_block *b = &out->blocks[out->n];
		enum status_err e = status_read_block(t->pid, found[i].addr, &b->st, out->why,
						      sizeof(out->why));

		if (e != STATUS_OK)
			return e;
		snprintf(b->object, sizeof(b->object), "%s", found[i].name);
		b->addr = found[i].addr;
		clean_block(b);
		out->n++;
	}
	return n ? STATUS_OK : none(t, out->comm);
}

enum status_err status_read(pid_t pid, struct status_of *out)
{
	struct status_found *found = calloc(STATUS_MAX_BLOCKS, sizeof(*found));
	struct status_target *t = malloc(sizeof(*t));
	enum status_err e;
	size_t n = 0;

	memset(out, 0, sizeof(*out));
	out->pid = pid;
	if (t)
		t->pidfd = t->procfd = t->maps_fd = -1;
	if (!found || !t) {
		status_say(out->why, sizeof(out->why), "out of memory");
		e = STATUS_BAD;
	} else if (pid <= 0) {
		status_say(out->why, sizeof(out->why), "no process %d", (int)pid);
		e = STATUS_GONE;
	} else if ((e = status_hold(t, pid, out->why, sizeof(out->why))) == STATUS_OK) {
		status_comm(t, out->comm, sizeof(out->comm));
		CLEAN(out->comm);
		e = find(t, found, &n);
		if (e == STATUS_OK)
			e = read_blocks(t, out, found, n);
		/* Whatever was found, nothing is said of a process that is no
		 * longer the one held. */
		if (!t->over && status_still(t, out->comm) != STATUS_OK)
			e = STATUS_GONE;
	}
	if (t)
		status_release(t);
	free(t);
	free(found);
	if (e != STATUS_OK)
		out->n = 0;
	return e;
}
