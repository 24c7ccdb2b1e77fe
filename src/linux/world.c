/* SPDX-License-Identifier: MIT */
/*
 * What the hosted layer asks of the machine: the kernel's clocks (through
 * the vDSO's clock_gettime(), found at load), the counter's properties
 * (CPUID's through cpuid.c's cache), the kernel's clocksource, the CPUs
 * allowed.  The simulation library has sim.c in its place.
 * Async-signal-safe, since a reader's first call initialises, but for the
 * vDSO's lookup, which runs at load.
 *
 * Tests: tests/linux/test_kernel_reads.c (the vDSO called only where libc's
 * definition would only call it); the test_ and validate_ programs run it
 * on the real machine, the sim_ ones sim.c instead.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <sched.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "internal.h"

#ifdef CYCLOCK_SIM
#error "world.c is the real world's: the simulation library has sim.c"
#endif

/* The vDSO's name for clock_gettime(). */
#if defined(__aarch64__)
#define VDSO_GETTIME "__kernel_clock_gettime"
#else
#define VDSO_GETTIME "__vdso_clock_gettime"
#endif

/* The file of the object @fn is in, or NULL: through _dl_find_object()
 * where glibc has it (2.35), lock-free and ~0.1 us, since dladdr() also
 * looks for the nearest symbol, 15-30 us here: every program linked with
 * the library asks this at load. */
static const char *file_of(void *fn)
{
#ifdef DLFO_STRUCT_HAS_EH_DBASE
	struct dl_find_object o;

	return _dl_find_object(fn, &o) == 0 && o.dlfo_link_map ? o.dlfo_link_map->l_name : NULL;
#else
	Dl_info info;

	return dladdr(fn, &info) ? info.dli_fname : NULL;
#endif
}

/*
 * @name's address in the vDSO the kernel mapped into this process, or
 * NULL: looked up in the mapping itself (getauxval(AT_SYSINFO_EHDR)),
 * through its dynamic symbol table and the count of symbols its DT_HASH
 * gives, rather than with dlopen(), which a statically linked program
 * cannot call without a warning at link time and glibc's shared objects at
 * run time.  Every vDSO of x86-64, arm64 and riscv64 has a DT_HASH.
 */
static void *vdso_sym(const char *name)
{
	const ElfW(Ehdr) *eh = (const ElfW(Ehdr) *)getauxval(AT_SYSINFO_EHDR);
	const ElfW(Phdr) *ph;
	const ElfW(Dyn) *dyn = NULL;
	const ElfW(Sym) *sym = NULL;
	const Elf32_Word *hash = NULL;
	const char *str = NULL;
	uintptr_t bias = 0;
	bool loaded = false;

	if (!eh || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != (sizeof(void *) == 8 ? ELFCLASS64 : ELFCLASS32))
		return NULL;
	ph = (const ElfW(Phdr) *)((uintptr_t)eh + eh->e_phoff);
	for (int i = 0; i < eh->e_phnum; i++) {
		if (ph[i].p_type == PT_LOAD && !loaded) {
			bias = (uintptr_t)eh + ph[i].p_offset - ph[i].p_vaddr;
			loaded = true;
		} else if (ph[i].p_type == PT_DYNAMIC) {
			dyn = (const ElfW(Dyn) *)((uintptr_t)eh + ph[i].p_offset);
		}
	}
	if (!loaded || !dyn)
		return NULL;
	for (; dyn->d_tag != DT_NULL; dyn++) {
		if (dyn->d_tag == DT_SYMTAB)
			sym = (const ElfW(Sym) *)(bias + dyn->d_un.d_ptr);
		else if (dyn->d_tag == DT_STRTAB)
			str = (const char *)(bias + dyn->d_un.d_ptr);
		else if (dyn->d_tag == DT_HASH)
			hash = (const Elf32_Word *)(bias + dyn->d_un.d_ptr);
	}
	if (!sym || !str || !hash)
		return NULL;
	/* DT_HASH: nbucket, nchain, ...; nchain is the number of symbols. */
	for (Elf32_Word i = 1; i < hash[1]; i++) {
		unsigned char bind = ELF64_ST_BIND(sym[i].st_info);

		if (ELF64_ST_TYPE(sym[i].st_info) == STT_FUNC && sym[i].st_shndx != SHN_UNDEF &&
		    (bind == STB_GLOBAL || bind == STB_WEAK) && !strcmp(str + sym[i].st_name, name))
			return (void *)(bias + sym[i].st_value);
	}
	return NULL;
}

/*
 * The vDSO's clock_gettime() if @next, the clock_gettime() a caller would
 * reach, is libc's, which only calls it: calling it directly saves libc's
 * frame, about 1 ns.  Another definition in between (a preload, a time
 * faker) is called as it is: NULL.  Not async-signal-safe (it may ask the
 * dynamic linker): call it at load.
 */
cyclock__gettime_fn *cyclock__vdso_gettime_of(cyclock__gettime_fn *next)
{
	const char *file = next ? file_of((void *)next) : NULL;

	if (!file || !strstr(file, "/libc.so"))
		return NULL;
	return (cyclock__gettime_fn *)vdso_sym(VDSO_GETTIME);
}

bool cyclock__counter_invariant(void)
{
	return cyclock_arch_counter_invariant();
}

#ifdef CYCLOCK_ARCH_HZ_DEVICE_TREE
static uint64_t dt_hz; /* written at load, before any read */

/* The counter's frequency from the device tree property the arch header
 * names, a big-endian u32 (riscv64's timebase-frequency), or 0: read at
 * load (checks.c), since it takes system calls. */
void cyclock__counter_hz_at_load(void)
{
	int fd = open(CYCLOCK_ARCH_HZ_DEVICE_TREE, O_RDONLY | O_CLOEXEC);
	unsigned char be[4];
	ssize_t n;

	if (fd < 0)
		return;
	n = read(fd, be, sizeof(be));
	close(fd);
	if (n == (ssize_t)sizeof(be))
		dt_hz = (uint64_t)be[0] << 24 | (uint64_t)be[1] << 16 | (uint64_t)be[2] << 8 | be[3];
}

uint64_t cyclock__counter_hz_hint(const char **how)
{
	if (dt_hz)
		*how = "device tree";
	return dt_hz;
}
#else
void cyclock__counter_hz_at_load(void)
{
}

uint64_t cyclock__counter_hz_hint(const char **how)
{
	return cyclock_arch_counter_hz_hint(how);
}
#endif

/*
 * The files initialisation reads on a read (the machine's record, the
 * kernel's clocksource): through syscall(), which the process id's cache
 * (platform.c) has bound already, rather than each through its own libc
 * function, whose first call in a process costs 1-2 us here (the dynamic
 * linker binds it and its code faults in).  Async-signal-safe; -1 and
 * errno on failure, as the functions they stand for.
 */
int cyclock__sys_open(const char *path, int flags, unsigned int mode)
{
	return (int)syscall(SYS_openat, AT_FDCWD, path, flags, mode);
}

ssize_t cyclock__sys_read(int fd, void *buf, size_t n)
{
	return syscall(SYS_read, fd, buf, n);
}

void cyclock__sys_close(int fd)
{
	syscall(SYS_close, fd);
}

int cyclock__sys_fstat(int fd, struct stat *st)
{
	return (int)syscall(SYS_fstat, fd, st);
}

int cyclock__sys_fstatfs(int fd, struct statfs *fs)
{
	return (int)syscall(SYS_fstatfs, fd, fs);
}

/* The kernel's current clocksource, from sysfs (system calls, which are
 * async-signal-safe; stdio is not). */
bool cyclock__kernel_clocksource(char *name, size_t len)
{
	int fd = cyclock__sys_open("/sys/devices/system/clocksource/clocksource0/current_clocksource",
				   O_RDONLY | O_CLOEXEC, 0);
	ssize_t n;

	if (fd < 0)
		return false;
	n = cyclock__sys_read(fd, name, len - 1);
	cyclock__sys_close(fd);
	if (n <= 0)
		return false;
	name[n] = '\0';
	name[strcspn(name, "\n")] = '\0';
	return true;
}

/* How many CPUs this thread may run on, and the first two of them. */
unsigned int cyclock__allowed_cpus(int cpu[2])
{
	cpu_set_t set;
	unsigned int n = 0;

	cpu[0] = cpu[1] = 0;
	if (sched_getaffinity(0, sizeof(set), &set))
		return 1;
	for (int i = 0; i < CPU_SETSIZE; i++) {
		if (!CPU_ISSET(i, &set))
			continue;
		if (n < 2)
			cpu[n] = i;
		n++;
	}
	return n;
}
