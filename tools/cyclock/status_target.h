/* SPDX-License-Identifier: MIT */
/*
 * What cyclock status's reading side knows of one process while it reads
 * it, shared by the files that do the reading (status_read.c calls them
 * in this order):
 *   status_hold.c    the process held: a pidfd, its /proc directory, its
 *                    start time, its maps open; the same process at the
 *                    end, or nothing is answered; its memory read
 *   status_maps.c    what the kernel says of it: auxv, comm, the maps
 *   status_loader.c  its objects, from the dynamic loader's own list
 *   status_dynsym.c  the symbol in an object's dynamic symbol table
 *   status_symtab.c  the symbol in a static program's .symtab, from the
 *                    file the kernel maps, not from a path
 *   status_v1.c      a block of version 1's layout (status_read.c reads
 *                    version 2's)
 * The target controls its memory, its names and its files: nothing here
 * opens a path it names, maps a file, or trusts a length or an address of
 * its without a bound (docs/tool.md, "cyclock status").
 */
#ifndef CYCLOCK_TOOL_STATUS_TARGET_H
#define CYCLOCK_TOOL_STATUS_TARGET_H

#include <elf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "status_read.h"

/* The CPU time one process may cost, whatever it maps. */
#define STATUS_BUDGET_NS 50000000ll
/* Program headers read from the target; more are refused. */
#define STATUS_MAX_PHDRS 64
/* Entries of a dynamic section read: a few dozen, and one a library
 * needed (DT_NEEDED). */
#define STATUS_MAX_DYN 1024

/* One line of /proc/PID/maps. */
struct status_map {
	uint64_t start, end, off, ino;
	unsigned major, minor;
};

struct status_target {
	pid_t pid;
	int pidfd;                /* pidfd_open(2); -1 where there is none */
	int procfd;               /* /proc/PID: what is opened in it is this process's */
	int maps_fd;              /* /proc/PID/maps: empty once its memory is gone */
	unsigned long long start; /* /proc/PID/stat's start time */
	struct timespec cpu0;     /* this thread's CPU time when the read began */
	char *why;                /* the refusal, worded */
	size_t wlen;
	bool over;                /* the read took its CPU budget */
	/* auxv(3): where the program's headers are. */
	uint64_t phdr, phnum;
	/* The maps: the mapping holding the program headers, its name (for
	 * the report), the lines, and a mapping named like the preload. */
	bool exe_found;
	struct status_map exe;
	char exe_name[STATUS_OBJECT_LEN];
	size_t n_maps;
	bool preload_mapped;
	/* The program headers, as read from memory at phdr. */
	Elf64_Phdr ph[STATUS_MAX_PHDRS];
	size_t n_ph;
};

/* An object that holds a block: where, and its name. */
struct status_found {
	uint64_t addr;
	char name[STATUS_OBJECT_LEN];
};

/* status_hold.c */
enum status_err status_hold(struct status_target *t, pid_t pid, char *why, size_t wlen);
/* STATUS_OK if the process held is still the one /proc/PID shows, alive
 * and with the memory the read began on; else STATUS_GONE, worded. */
enum status_err status_still(struct status_target *t, const char *comm);
void status_release(struct status_target *t);
/* True, with the refusal worded, once the read has cost its budget. */
bool status_over_budget(struct status_target *t);
/* @len bytes at @addr of the target; 0, or an errno (EFAULT: not all). */
int status_vm_read(pid_t pid, uint64_t addr, void *buf, size_t len);
/* The string at @addr, at most @size - 1 bytes, read a page at a time
 * (it may end where memory does); 0, or an errno if nothing was read. */
int status_vm_string(pid_t pid, uint64_t addr, char *buf, size_t size);
/* @len bytes at @addr of @pid as the block's reader reads them (@pid 0:
 * this process's own memory, in place); 0, or an errno. */
int status_fetch(pid_t pid, uint64_t addr, void *buf, size_t len);
/* A part that moves (version 1: stays odd) this many reads in a row is busy. */
#define STATUS_TRIES 1000
/* The refusal of a part @name that @how at each of STATUS_TRIES reads. */
enum status_err status_busy(pid_t pid, const char *name, const char *how, char *why,
			    size_t wlen);
/* status_v1.c: version 1's parts at @addr as version 2's view in @b. */
enum status_err status_read_v1(pid_t pid, uint64_t addr, struct status_block *b, char *why,
			       size_t len);
/* The refusal for errno @err of reading the target, worded. */
enum status_err status_vm_error(pid_t pid, int err, char *why, size_t len);
enum status_err status_denied(pid_t pid, char *why, size_t len);
enum status_err status_gone(pid_t pid, char *why, size_t len);
void status_say(char *why, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* status_maps.c: auxv, then the maps (through maps_fd), and comm. */
enum status_err status_auxv(struct status_target *t);
enum status_err status_maps(struct status_target *t);
void status_comm(struct status_target *t, char *comm, size_t len);

/* status_loader.c: the blocks of the objects in the loader's list, up to
 * @max in @found; *@n of them.  *@exe_done when the program itself was
 * looked up there (it has dynamic symbols). */
enum status_err status_loader(struct status_target *t, struct status_found *found, size_t max,
			      size_t *n, bool *exe_done);

/* status_dynsym.c: up to @max entries of the dynamic section at @ld,
 * copied; how many came before DT_NULL (or could be read). */
size_t status_dyn_read(pid_t pid, uint64_t ld, Elf64_Dyn *dyn, size_t max);
/* status_dynsym.c: the address of cyclock_status in the dynamic symbols
 * of the object loaded at @bias with its dynamic section at @ld; 0 if it
 * has none (or they could not be read). */
uint64_t status_dynsym(struct status_target *t, uint64_t bias, uint64_t ld);

/* status_symtab.c: the address of cyclock_status in the program's
 * .symtab (a static link of libcyclock.a), read from the file the kernel
 * maps; 0 if none.  STATUS_OK unless the budget ran out. */
enum status_err status_symtab(struct status_target *t, uint64_t *addr);

#endif /* CYCLOCK_TOOL_STATUS_TARGET_H */
