/* SPDX-License-Identifier: MIT */
/*
 * cyclock_status in one object's dynamic symbol table, read from the
 * target's memory as the dynamic loader itself looks a symbol up: its
 * dynamic section gives the hash table (DT_GNU_HASH, else DT_HASH), the
 * symbols and their names; the symbol's hash picks one bucket, and its
 * chain is followed to the name.  A handful of reads per object, however
 * many symbols it has.
 *
 * Every table is the target's to forge: each read is a copy into this
 * process, aligned; a count is bounded before it is used, a chain is cut
 * at MAX_CHAIN steps, a name is compared within DT_STRSZ.
 */
#define _GNU_SOURCE
#include <string.h>

#include "status_target.h"

/* Steps along a hash chain; real ones take a few. */
#define MAX_CHAIN 256
/* The largest bloom filter and bucket count believed (words). */
#define MAX_TABLE_WORDS (1u << 24)

struct tables {
	uint64_t gnu, hash, symtab, strtab, strsz;
};

size_t status_dyn_read(pid_t pid, uint64_t ld, Elf64_Dyn *dyn, size_t max)
{
	size_t n = 0;

	if (!ld || ld % 8)
		return 0;
	/* Up to each page's end: the section may end just before unmapped
	 * memory, and a read that crosses into it fails whole. */
	while (n < max) {
		uint64_t at = ld + n * sizeof(*dyn);
		size_t room = (size_t)(4096 - (at & 4095)) / sizeof(*dyn), k;

		k = room ? room : 1;
		if (k > max - n)
			k = max - n;
		if (status_vm_read(pid, at, dyn + n, k * sizeof(*dyn)))
			return n;
		for (size_t i = n; i < n + k; i++)
			if (dyn[i].d_tag == DT_NULL)
				return i;
		n += k;
	}
	return n;
}

static uint32_t gnu_hash(const char *s)
{
	uint32_t h = 5381;

	for (; *s; s++)
		h = h * 33 + (unsigned char)*s;
	return h;
}

static uint32_t sysv_hash(const char *s)
{
	uint32_t h = 0;

	for (; *s; s++) {
		h = (h << 4) + (unsigned char)*s;
		h ^= (h >> 24) & 0xf0;
	}
	return h & 0x0fffffff;
}

/* Whether symbol @idx is a defined object named cyclock_status; its value
 * in *@value. */
static bool is_ours(pid_t pid, const struct tables *tb, uint64_t idx, uint64_t *value)
{
	char name[sizeof(CYCLOCK_STATUS_SYMBOL)];
	Elf64_Sym sym;

	if (status_vm_read(pid, tb->symtab + idx * sizeof(sym), &sym, sizeof(sym)) ||
	    sym.st_shndx == SHN_UNDEF || ELF64_ST_TYPE(sym.st_info) != STT_OBJECT ||
	    sym.st_name >= tb->strsz || tb->strsz - sym.st_name < sizeof(name) ||
	    status_vm_read(pid, tb->strtab + sym.st_name, name, sizeof(name)))
		return false;
	*value = sym.st_value;
	return !memcmp(name, CYCLOCK_STATUS_SYMBOL, sizeof(name));
}

/* DT_GNU_HASH: buckets of the first symbol of each chain, and chains of
 * hashes whose low bit ends them. */
static uint64_t gnu_lookup(pid_t pid, const struct tables *tb)
{
	uint32_t h = gnu_hash(CYCLOCK_STATUS_SYMBOL), hdr[4], idx, chain[64];
	uint64_t buckets, chains, value;
	size_t step = 0;

	if (tb->gnu % 8 || status_vm_read(pid, tb->gnu, hdr, sizeof(hdr)) || !hdr[0] ||
	    hdr[0] > MAX_TABLE_WORDS || hdr[2] > MAX_TABLE_WORDS)
		return 0;
	buckets = tb->gnu + sizeof(hdr) + (uint64_t)hdr[2] * sizeof(uint64_t);
	if (status_vm_read(pid, buckets + (uint64_t)(h % hdr[0]) * 4, &idx, 4) || idx < hdr[1])
		return 0;
	chains = buckets + (uint64_t)hdr[0] * 4 + (uint64_t)(idx - hdr[1]) * 4;
	while (step < MAX_CHAIN) {
		uint64_t at = chains + step * 4;
		size_t k = (size_t)(4096 - (at & 4095)) / 4;

		if (k > 64)
			k = 64;
		if (k > MAX_CHAIN - step)
			k = MAX_CHAIN - step;
		if (status_vm_read(pid, at, chain, k * 4))
			return 0;
		for (size_t i = 0; i < k; i++, step++) {
			if ((chain[i] | 1) == (h | 1) && is_ours(pid, tb, (uint64_t)idx + step, &value))
				return value;
			if (chain[i] & 1)
				return 0;
		}
	}
	return 0;
}

/* DT_HASH: buckets and one chain array, indexed by symbol. */
static uint64_t sysv_lookup(pid_t pid, const struct tables *tb)
{
	uint32_t h = sysv_hash(CYCLOCK_STATUS_SYMBOL), hdr[2], idx;
	uint64_t value;

	if (tb->hash % 4 || status_vm_read(pid, tb->hash, hdr, sizeof(hdr)) || !hdr[0] ||
	    status_vm_read(pid, tb->hash + 8 + (uint64_t)(h % hdr[0]) * 4, &idx, 4))
		return 0;
	for (size_t step = 0; idx != STN_UNDEF && idx < hdr[1] && step < MAX_CHAIN; step++) {
		if (is_ours(pid, tb, idx, &value))
			return value;
		if (status_vm_read(pid, tb->hash + 8 + ((uint64_t)hdr[0] + idx) * 4, &idx, 4))
			return 0;
	}
	return 0;
}

/* A pointer of the dynamic section as an address: glibc relocates those
 * of a writable section in place, while musl, RISC-V's glibc and a
 * read-only section leave the link-time address, which lies below the
 * load bias of any object loaded above address 0. */
static uint64_t pointer(uint64_t v, uint64_t bias)
{
	return bias && v < bias ? v + bias : v;
}

uint64_t status_dynsym(struct status_target *t, uint64_t bias, uint64_t ld)
{
	Elf64_Dyn dyn[STATUS_MAX_DYN];
	struct tables tb = { 0 };
	size_t n = status_dyn_read(t->pid, ld, dyn, STATUS_MAX_DYN);
	uint64_t value;

	for (size_t i = 0; i < n; i++) {
		uint64_t v = dyn[i].d_un.d_val;

		switch (dyn[i].d_tag) {
		case DT_GNU_HASH: tb.gnu = pointer(v, bias); break;
		case DT_HASH: tb.hash = pointer(v, bias); break;
		case DT_SYMTAB: tb.symtab = pointer(v, bias); break;
		case DT_STRTAB: tb.strtab = pointer(v, bias); break;
		case DT_STRSZ: tb.strsz = v; break;
		case DT_SYMENT:
			if (v != sizeof(Elf64_Sym))
				return 0;
			break;
		default: break;
		}
	}
	if (!tb.symtab || tb.symtab % 8 || !tb.strtab || !tb.strsz)
		return 0;
	value = tb.gnu ? gnu_lookup(t->pid, &tb) : tb.hash ? sysv_lookup(t->pid, &tb) : 0;
	return value ? bias + value : 0;
}
