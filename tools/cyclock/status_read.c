/* SPDX-License-Identifier: MIT */
/*
 * cyclock status's reading side (status_read.h): hold the process, find
 * its blocks (status_target.h has the files that do), read each, and
 * check that the process held is still the one read.  A version 2 part is
 * the latch's read side (cyclock/latch.h): its sequence, the copy whose
 * index is the sequence's low bit, the sequence again, retried until both
 * agree; a version 1 part (status_v1.h) is read between two equal, even
 * readings of its own sequence.  Each process_vm_readv(2) is a system
 * call of its own, so the three reads of a part are in order on this side
 * as the latch's loads are; the target's writer bumps the sequence with
 * the latch's orders.  What is kept of the target's strings is made safe
 * to print here, once, for every format.
 *
 * Version 1's part is status_v1.c's.
 *
 * Tests: tests/tool/cli/test_status.sh (every format), test_status_forged.sh
 * (a forged block of each version, a block whose sequence never rests),
 * tests/linux/validate_status.c (every part read is one write's).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h" /* bench_text_clean() */
#include "status_target.h"
#include "status_v1.h"

/* ---- the block ---- */

/* The header every version begins with: magic, version, size, library. */
struct head {
	char magic[8];
	uint32_t version;
	uint32_t size;
	char library[16];
};

_Static_assert(offsetof(struct cyclock_status, library) == offsetof(struct head, library) &&
		       offsetof(struct cyclock_status_v1, library) ==
			       offsetof(struct head, library),
	       "status: the versions' headers differ");

/* Version 2's part @name: the sequence at @seq_at, then the copy it names
 * (@len bytes each, the first at @copies), then the sequence again, each a
 * system call of its own; until both readings agree.  The copy read lands
 * at @dst + its index * @len (the other copy's place zeroed), the
 * sequence in *@seq. */
static enum status_err read_latched(pid_t pid, uint64_t seq_at, uint64_t copies, size_t len,
				    void *dst, uint32_t *seq, const char *name, char *why,
				    size_t wlen)
{
	uint32_t s1, s2;
	int err;

	for (int i = 0; i < STATUS_TRIES; i++) {
		char *copy;

		if ((err = status_fetch(pid, seq_at, &s1, sizeof(s1))))
			return status_vm_error(pid, err, why, wlen);
		copy = (char *)dst + (s1 & 1) * len;
		if ((err = status_fetch(pid, copies + (s1 & 1) * len, copy, len)) ||
		    (err = status_fetch(pid, seq_at, &s2, sizeof(s2))))
			return status_vm_error(pid, err, why, wlen);
		if (s1 == s2) {
			/* The other copy as a failed try may have left it: zeros. */
			memset((char *)dst + ((s1 & 1) ^ 1) * len, 0, len);
			*seq = s1;
			return STATUS_OK;
		}
		nanosleep(&(struct timespec){ 0, 10000 }, NULL);
	}
	return status_busy(pid, name, "moved", why, wlen);
}

/* Each string ends within its array, whatever the target wrote there. */
#define END(s) ((s)[sizeof(s) - 1] = 0)

static void end_setup(struct cyclock_status_setup *s)
{
	END(s->counter);
	END(s->ordered);
	END(s->hz_source);
	END(s->why);
	END(s->distrust);
	END(s->ordered_why);
}

/* The header at @addr (magic, version, size, the library's version),
 * checked before any part of the block is read. */
static enum status_err read_header(pid_t pid, uint64_t addr, struct head *h, char *why,
				   size_t len)
{
	char lib[4 * sizeof(h->library)];
	int err;

	if (addr % 8) {
		status_say(why, len, "the symbol " CYCLOCK_STATUS_SYMBOL " at 0x%llx is not "
			   "aligned: it holds no cyclock status block", (unsigned long long)addr);
		return STATUS_BAD;
	}
	if ((err = status_fetch(pid, addr, h, sizeof(*h))))
		return status_vm_error(pid, err, why, len);
	if (memcmp(h->magic, CYCLOCK_STATUS_MAGIC, sizeof(h->magic))) {
		status_say(why, len, "the symbol " CYCLOCK_STATUS_SYMBOL " at 0x%llx holds no "
			   "cyclock status block", (unsigned long long)addr);
		return STATUS_BAD;
	}
	END(h->library);
	if (h->version > CYCLOCK_STATUS_VERSION) {
		bench_text_clean(lib, sizeof(lib), h->library);
		status_say(why, len, "its status block is version %u, newer than this cyclock "
			   "knows (%u): read it with the cyclock of the library's version (%s)",
			   h->version, CYCLOCK_STATUS_VERSION, lib);
		return STATUS_NEWER;
	}
	if (h->version == 0 ||
	    h->size < (h->version == CYCLOCK_STATUS_V1 ? sizeof(struct cyclock_status_v1)
						       : sizeof(struct cyclock_status))) {
		status_say(why, len, "its status block is malformed (version %u, %u bytes)",
			   h->version, h->size);
		return STATUS_BAD;
	}
	return STATUS_OK;
}

/* Version 2's parts, after its header, into @st. */
static enum status_err read_v2(pid_t pid, uint64_t addr, struct cyclock_status *st, char *why,
			       size_t len)
{
	enum status_err e;

	e = read_latched(pid, addr + offsetof(struct cyclock_status, setup_seq),
			 addr + offsetof(struct cyclock_status, setup), sizeof(st->setup[0]),
			 st->setup, &st->setup_seq, "setup", why, len);
	if (e == STATUS_OK)
		e = read_latched(pid, addr + offsetof(struct cyclock_status, counts_seq),
				 addr + offsetof(struct cyclock_status, counts),
				 sizeof(st->counts[0]), st->counts, &st->counts_seq, "counts",
				 why, len);
	for (int i = 0; i < 2; i++) {
		end_setup(&st->setup[i]);
		END(st->counts[i].kernel_why);
	}
	return e;
}

enum status_err status_read_block(pid_t pid, uint64_t addr, struct cyclock_status *st,
				  char *why, size_t len)
{
	struct head h;
	enum status_err e;

	memset(st, 0, sizeof(*st));
	if ((e = read_header(pid, addr, &h, why, len)) != STATUS_OK)
		return e;
	memcpy(st, &h, sizeof(h));
	if (h.version == CYCLOCK_STATUS_V1) {
		status_say(why, len, "its status block is version 1: status_read_view() reads it");
		return STATUS_BAD;
	}
	return read_v2(pid, addr, st, why, len);
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
	CLEAN(b->library);
	CLEAN(b->setup.counter);
	CLEAN(b->setup.ordered);
	CLEAN(b->setup.hz_source);
	CLEAN(b->setup.why);
	CLEAN(b->setup.distrust);
	CLEAN(b->setup.ordered_why);
	CLEAN(b->counts.kernel_why);
}

enum status_err status_read_view(pid_t pid, uint64_t addr, struct status_block *b, char *why,
				 size_t len)
{
	struct cyclock_status *st = malloc(sizeof(*st));
	struct head h;
	enum status_err e;

	b->version = 0;
	memset(b->library, 0, sizeof(b->library));
	memset(&b->setup, 0, sizeof(b->setup));
	memset(&b->counts, 0, sizeof(b->counts));
	b->setup_lost = b->counts_lost = false;
	if (!st) {
		status_say(why, len, "out of memory");
		return STATUS_BAD;
	}
	e = read_header(pid, addr, &h, why, len);
	if (e == STATUS_OK && h.version == CYCLOCK_STATUS_V1) {
		e = status_read_v1(pid, addr, b, why, len);
	} else if (e == STATUS_OK && (e = read_v2(pid, addr, st, why, len)) == STATUS_OK) {
		b->setup = st->setup[st->setup_seq & 1];
		b->counts = st->counts[st->counts_seq & 1];
	}
	free(st);
	b->version = h.version;
	memcpy(b->library, h.library, sizeof(b->library));
	end_setup(&b->setup);
	END(b->counts.kernel_why);
	clean_block(b);
	return e;
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
		enum status_err e = status_read_view(t->pid, found[i].addr, b, out->why,
						     sizeof(out->why));

		if (e != STATUS_OK)
			return e;
		snprintf(b->object, sizeof(b->object), "%s", found[i].name);
		CLEAN(b->object);
		b->addr = found[i].addr;
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
