/* SPDX-License-Identifier: MIT */
/*
 * Reading a running process's cyclock status block (cyclock/status.h)
 * from outside: the objects the dynamic loader lists in its memory,
 * searched for the symbol cyclock_status in their dynamic symbol tables
 * (a static program's .symtab in the file the kernel maps), and the block
 * read with process_vm_readv(2), each part between two reads of its
 * sequence, the process held from start to end.  Version 2's blocks and
 * version 1's (status_v1.h: processes of cyclock 0.1 before the one
 * record) are read, and either returned as one view, struct status_block.  Nothing is written into
 * the target, it need not be stopped, and nothing it names is opened
 * (status_target.h has how, docs/tool.md why).
 */
#ifndef CYCLOCK_TOOL_STATUS_READ_H
#define CYCLOCK_TOOL_STATUS_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <cyclock/status.h>

/* Why a process's status could not be read. */
enum status_err {
	STATUS_OK,
	STATUS_GONE,    /* no such process, or it exited or was replaced while being read */
	STATUS_DENIED,  /* not allowed to read it (another user, Yama, not dumpable) */
	STATUS_NONE,    /* it maps no object with a cyclock status block */
	STATUS_NEWER,   /* a block of a layout newer than this tool knows */
	STATUS_BUSY,    /* a part kept changing (version 1: or a fork cut its write) */
	STATUS_BAD,     /* a cyclock_status symbol that holds no block; or the
			 * read took its budget, or stopped */
};

#define STATUS_MAX_BLOCKS 4
#define STATUS_OBJECT_LEN 4096

/* A block as read, either version, each part one write's.  Every string
 * is the target's, made safe to print (bench_text_clean(): valid UTF-8, no
 * control character), cut to its array.  What version 1 lacks
 * (status_has_v2()) is zero here and absent from every format. */
struct status_block {
	char object[STATUS_OBJECT_LEN]; /* the object that holds it, as its loader names it */
	uint64_t addr;            /* where, in the target */
	uint32_t version;         /* the layout's: 1 or CYCLOCK_STATUS_VERSION */
	char library[16];         /* the library's version */
	struct cyclock_status_setup setup;   /* the copy setup_seq named */
	struct cyclock_status_counts counts; /* the copy counts_seq named; written_ns 0: none */
	bool setup_lost, counts_lost;        /* version 1 only: a fork cut the part's write */
};

/* Whether @b holds version 2's facts: the warp check, RAW's last error,
 * the resync interval's ceiling, the frequency's uncertainty. */
static inline bool status_has_v2(const struct status_block *b)
{
	return b->version >= 2;
}

struct status_of {
	pid_t pid;
	char comm[64];            /* /proc/PID/comm */
	size_t n;                 /* blocks found: the library, the preload, ... */
	struct status_block blocks[STATUS_MAX_BLOCKS];
	char why[512];            /* the reason, when not STATUS_OK */
};

/* Reads every block of process @pid into @out; STATUS_OK, or the reason,
 * worded in out->why.  At most 50 ms of CPU (STATUS_BUDGET_NS). */
enum status_err status_read(pid_t pid, struct status_of *out);
/* status_read() in a child process (status_apart.c), stopped if it takes
 * more than a few seconds (a target's memory on a file system that does
 * not answer) or dies: the caller's other processes are still read. */
enum status_err status_read_apart(pid_t pid, struct status_of *out);

/* The block at @addr of @pid, either version, into @b (but its object):
 * each part one write's, its strings made safe.  STATUS_OK, or the reason
 * worded in @why.  @pid 0: this process's own block, read in place with
 * the same protocol (cyclock info's). */
enum status_err status_read_view(pid_t pid, uint64_t addr, struct status_block *b, char *why,
				 size_t len);
/* The version 2 block at @addr of @pid as it lies, each part's copy that
 * its sequence names read whole between two equal readings of it (the
 * other copy zeros), its strings ended within their arrays, not cleaned;
 * a version 1 block is refused (STATUS_BAD).  For tests that check the
 * layout itself (tests/linux/validate_status.c). */
enum status_err status_read_block(pid_t pid, uint64_t addr, struct cyclock_status *st,
				  char *why, size_t len);

#endif /* CYCLOCK_TOOL_STATUS_READ_H */
