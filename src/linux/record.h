/* SPDX-License-Identifier: MIT */
/*
 * The machine's record (record.c): its layout, which the tests forge
 * records from (docs/hosted.md, "The machine's record").  Include
 * internal.h first.
 */
#ifndef CYCLOCK_LINUX_RECORD_H
#define CYCLOCK_LINUX_RECORD_H

#define CYCLOCK__RECORD_VERSION 1

/* The layout, version 1. */
struct cyclock__record {
	char magic[8];                 /* "cyclock" */
	uint32_t version, size;
	uint64_t boot_ns;              /* CLOCK_REALTIME - CLOCK_BOOTTIME */
	uint64_t hwcap, hwcap2;        /* getauxval()'s (glibc's word on x86-64) */
	struct cyclock__cpuid_answer cpuid[CYCLOCK__CPUID_MAX]; /* this build's leaves, in order; */
	uint32_t cpuid_n;              /* how many; the rest zero */
	uint32_t timed;                /* 1: the ordered reads' costs were measured, */
	uint64_t ordered_best[CYCLOCK_ARCH_ORDERED_HOWS]; /* in counts; UINT64_MAX: not timed */
	uint64_t check;                /* FNV-1a of everything before it */
};

#endif /* CYCLOCK_LINUX_RECORD_H */
