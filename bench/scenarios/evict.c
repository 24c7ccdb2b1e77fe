/* SPDX-License-Identifier: MIT */
/* The cold scenario's eviction (evict.h); cold.c's comment says why. */
#define _GNU_SOURCE
#include <link.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#if defined(__x86_64__)
#include <cpuid.h>
#endif

#include "bench.h"
#include "evict.h"

#define LINE 64
#define PAGE 4096
#define MID_FALLBACK (1L << 20) /* a cache below the last level, when unknown */
#define BUF_MIN (1L << 20)
#define BUF_MAX (8L << 20)      /* twice the largest L2 made, 4 MiB */
#define SWEEP_MAX (64L << 20)   /* without a flush: twice the last level, capped */
#define TLB_PAGES 16384         /* four times the largest second-level TLB, 4096 */
#define PASSES 2 /* writes a sample: one pass of the old sweep left re-used lines cached */

static void add_range(struct bench_evict *e, uintptr_t lo, uintptr_t hi)
{
	struct evict_range *r = &e->ranges[e->n_ranges];

	if (hi <= lo || e->n_ranges == sizeof(e->ranges) / sizeof(e->ranges[0]))
		return;
	lo &= ~(uintptr_t)(LINE - 1);
	hi = (hi + LINE - 1) & ~(uintptr_t)(LINE - 1);
	r->start = (const unsigned char *)lo;
	r->len = hi - lo;
	e->flush_bytes += r->len;
	e->n_ranges++;
}

/* Every loaded segment of one object (dl_iterate_phdr() lists the vDSO
 * too): its code, read-only data, GOT and writable data, bss included. */
static int add_object(struct dl_phdr_info *info, size_t size, void *data)
{
	struct bench_evict *e = data;

	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type == PT_LOAD)
			add_range(e, lo, lo + ph->p_memsz);
	}
	return 0;
}

/*
 * The vDSO's data: the first page of [vvar], which every kernel since
 * 5.x puts there (x86's and arm64's layouts, and the generic one of 6.13)
 * and which the vDSO reads on every call.  Only that page: the others
 * (pvclock, hvclock, a time namespace's) raise SIGBUS when not in use,
 * and a flush faults as a read would.
 */
static void add_vvar(struct bench_evict *e)
{
	FILE *f = fopen("/proc/self/maps", "re");
	char line[512];
	bool at_start = true;

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		size_t n = strlen(line);
		bool start = at_start;
		unsigned long lo, hi;

		at_start = n > 0 && line[n - 1] == '\n';
		if (start && n > 8 && !strcmp(line + n - 8, " [vvar]\n") &&
		    sscanf(line, "%lx-%lx", &lo, &hi) == 2 && hi - lo >= PAGE) {
			add_range(e, lo, lo + PAGE);
			break;
		}
	}
	fclose(f);
}

#if defined(__x86_64__)
/* clflushopt where the CPU has it (leaf 7, EBX bit 23): unlike clflush,
 * flushes of different lines overlap. */
static int flush_kind(void)
{
	unsigned int a, b, c, d;

	if (__get_cpuid_count(7, 0, &a, &b, &c, &d) && (b & (1u << 23)))
		return 2;
	return 1;
}

static void flush_range(const struct evict_range *r, int kind)
{
	if (kind == 2)
		for (size_t i = 0; i < r->len; i += LINE)
			__asm__ volatile("clflushopt %0" ::"m"(r->start[i]));
	else
		for (size_t i = 0; i < r->len; i += LINE)
			__asm__ volatile("clflush %0" ::"m"(r->start[i]));
}

/* clflushopt is ordered only by a fence: every line is out of every
 * cache before the caller warms its stack and the bracket again. */
static void flush_done(void)
{
	__asm__ volatile("mfence" ::: "memory");
}
#else
/* No flush a user may issue everywhere (arm64's dc civac needs the
 * kernel's SCTLR_EL1.UCI): the bounded sweep alone. */
static int flush_kind(void)
{
	return 0;
}

static void flush_range(const struct evict_range *r, int kind)
{
	(void)r;
	(void)kind;
}

static void flush_done(void)
{
}
#endif

/* @len bytes of 4 KiB pages (no huge page: a page is a TLB entry), or
 * NULL after saying why. */
static void *map_pages(size_t len, int prot, const char *what)
{
	void *p = mmap(NULL, len, prot, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		bench_error("cold: no memory for the %zu MiB %s", len >> 20, what);
		return NULL;
	}
#ifdef MADV_NOHUGEPAGE
	madvise(p, len, MADV_NOHUGEPAGE);
#endif
	return p;
}

/* The written buffer: twice the cache below the last level where the
 * lines a call touches are flushed, else twice the last level, capped. */
static size_t buffer_len(int flush, long mid_bytes, long llc_bytes)
{
	long cap = flush ? BUF_MAX : SWEEP_MAX, len;

	if (flush)
		len = 2 * (mid_bytes > 0 ? mid_bytes : MID_FALLBACK);
	else
		len = 2 * llc_bytes; /* bench_llc_bytes(): 8 MiB where sysfs says nothing */
	return (size_t)(len < BUF_MIN ? BUF_MIN : len > cap ? cap : len);
}

int bench_evict_init(struct bench_evict *e, long mid_bytes, long llc_bytes)
{
	memset(e, 0, sizeof(*e));
	e->flush = flush_kind();
	if (e->flush) {
		dl_iterate_phdr(add_object, e);
		add_vvar(e);
	}
	e->buf_len = buffer_len(e->flush, mid_bytes, llc_bytes);
	e->buf = map_pages(e->buf_len, PROT_READ | PROT_WRITE, "eviction buffer");
	if (!e->buf)
		return -1;
	memset(e->buf, 1, e->buf_len);
	/* Never written: every page maps the one zero page, so the span
	 * costs page tables (128 KiB) and TLB entries, no memory. */
	e->tlb_len = (size_t)TLB_PAGES * PAGE;
	e->tlb = map_pages(e->tlb_len, PROT_READ, "span of pages");
	if (!e->tlb) {
		munmap(e->buf, e->buf_len);
		return -1;
	}
	return 0;
}

void bench_evict_run(const struct bench_evict *e, unsigned int round)
{
	volatile unsigned char *b = e->buf;
	const volatile unsigned char *t = e->tlb;
	unsigned int sum = 0;

	/* Plain stores, one a line: memset() may use non-temporal stores,
	 * which go around the caches instead of filling them. */
	for (int pass = 0; pass < PASSES; pass++)
		for (size_t i = 0; i < e->buf_len; i += LINE)
			b[i] = (unsigned char)(round + (unsigned int)pass);
	for (size_t i = 0; i < e->tlb_len; i += PAGE)
		sum += t[i];
	bench_sink = sum;
	/* Last, so that nothing above brings a flushed line back. */
	for (size_t i = 0; i < e->n_ranges; i++)
		flush_range(&e->ranges[i], e->flush);
	flush_done();
}

void bench_evict_free(struct bench_evict *e)
{
	if (e->buf)
		munmap(e->buf, e->buf_len);
	if (e->tlb)
		munmap(e->tlb, e->tlb_len);
	e->buf = NULL;
	e->tlb = NULL;
}
