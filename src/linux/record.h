/* SPDX-License-Identifier: MIT */
/*
 * The machine's record (record.c): its layout, which the tests forge
 * records from, and what record.c asks of CPUID's cache (cpuid.c) and of
 * the ordered reads (ordered.c) to check one against the CPU before it
 * is used (docs/hosted.md, "The machine's record").  Include internal.h
 * first.
 */
#ifndef CYCLOCK_LINUX_RECORD_H
#define CYCLOCK_LINUX_RECORD_H

#define CYCLOCK__RECORD_VERSION 2
/* How long the kernel's clocksource, as a record read it, stands for it. */
#define CYCLOCK__CLOCKSOURCE_FRESH_NS (1000 * NSEC_PER_USEC * 1000)

/* The layout, version 2 (1 had no clocksource): every field is checked on
 * load, none trusted for being there. */
struct cyclock__record {
	char magic[8];                 /* "cyclock" */
	uint32_t version, size;
	uint64_t boot_ns;              /* CLOCK_REALTIME - CLOCK_BOOTTIME */
	uint64_t hwcap, hwcap2;        /* getauxval()'s (glibc's word on x86-64) */
	struct cyclock__cpuid_answer cpuid[CYCLOCK__CPUID_MAX]; /* this build's leaves, in order; */
	uint32_t cpuid_n;              /* how many; the rest zero */
	uint32_t timed;                /* 1: the ordered reads' costs were measured, */
	uint64_t ordered_best[CYCLOCK_ARCH_ORDERED_HOWS]; /* in counts; UINT64_MAX: not timed */
	char clocksource[32];          /* the kernel's, as its writer read it (NUL-terminated), */
	uint64_t clocksource_ns;       /* then, on CLOCK_BOOTTIME */
	uint64_t check;                /* FNV-1a of everything before it */
};

/* cpuid.c: CPUID's cache holds each leaf as the CPU said it (asked, or a
 * record's answer that glibc's own copy confirms) or as a record said it.
 * After cyclock__cpuid_confirm_start(@asks), from cyclock__cpuid_confirm(true)
 * to cyclock__cpuid_confirm(false), a leaf the arch header's checks read
 * that only a record said is asked of the CPU, once, and the CPU's answer
 * kept, @asks of them at most; cyclock__cpuid_confirmed(): CYCLOCK__TAKE_YES
 * if each agreed with the record's, _NO if one did not, _LATER if none did
 * not but one was left unasked.  cyclock__cpuid_forget() drops every answer
 * only a record gave. */
void cyclock__cpuid_confirm_start(unsigned int asks);
void cyclock__cpuid_confirm(bool on);
int cyclock__cpuid_confirmed(void);
void cyclock__cpuid_forget(void);

/* ordered.c: whether @best is what cyclock__ordered_time() can find where
 * CPUID answers as its cache does (a cost in range for each read that
 * works but CYCLOCK_ARCH_ORDERED_ANY, UINT64_MAX for the others); the
 * read the choice would take from it into *@pick. */
bool cyclock__ordered_plausible(const uint64_t best[CYCLOCK_ARCH_ORDERED_HOWS], uint32_t *pick);

#endif /* CYCLOCK_LINUX_RECORD_H */
