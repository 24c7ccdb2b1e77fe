/* SPDX-License-Identifier: MIT */
/*
 * Reading a running process's cyclock status block (cyclock/status.h)
 * from outside: the objects it maps, from /proc/PID/maps, searched for
 * the symbol cyclock_status in their ELF symbol tables, and the block read
 * with process_vm_readv(2), each part between two reads of its sequence.
 * Nothing is written into the target, and it need not be stopped.
 */
#ifndef CYCLOCK_TOOL_STATUS_READ_H
#define CYCLOCK_TOOL_STATUS_READ_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <cyclock/status.h>

/* Why a process's status could not be read. */
enum status_err {
	STATUS_OK,
	STATUS_GONE,    /* no such process, or it exited while being read */
	STATUS_DENIED,  /* not allowed to read it (another user, Yama, not dumpable) */
	STATUS_NONE,    /* it maps no object with a cyclock status block */
	STATUS_NEWER,   /* a block of a layout newer than this tool knows */
	STATUS_BUSY,    /* a part kept changing (or a fork cut its write) */
	STATUS_BAD,     /* a cyclock_status symbol that holds no block */
};

#define STATUS_MAX_BLOCKS 4

struct status_block {
	char object[4096];        /* the mapped file that holds it */
	uint64_t addr;            /* where, in the target */
	struct cyclock_status st;
};

struct status_of {
	pid_t pid;
	char comm[64];            /* /proc/PID/comm */
	size_t n;                 /* blocks found: the library, the preload, ... */
	struct status_block blocks[STATUS_MAX_BLOCKS];
	char why[512];            /* the reason, when not STATUS_OK */
};

/* Reads every block of process @pid into @out; STATUS_OK, or the reason,
 * worded in out->why. */
enum status_err status_read(pid_t pid, struct status_of *out);

/* The block at @addr of @pid, read whole, each part consistent (tests). */
enum status_err status_read_block(pid_t pid, uint64_t addr, struct cyclock_status *st,
				  char *why, size_t len);

#endif /* CYCLOCK_TOOL_STATUS_READ_H */
