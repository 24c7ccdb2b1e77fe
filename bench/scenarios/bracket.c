/* SPDX-License-Identifier: MIT */
/* The timed call of bracket.h: the fenced counter reads, the retpoline,
 * and the bracket's own cost. */
#define _GNU_SOURCE
#include <stdint.h>

#include <cyclock/arch.h>

#include "bench.h"
#include "bracket.h"

#define EMPTY_BRACKETS 1001

/*
 * The bracket: no instruction of the timed call starts before the first
 * read, and the second read waits until the call has finished (the kernel
 * developers' rdtsc_ordered() with a fence after), from arch/'s reads
 * where arch.h chose x86_64.h or arm64.h.
 */
#if defined(CYCLOCK_ARCH_X86_RDTSCP)
static inline uint64_t fenced_ticks(void)
{
	uint64_t t = cyclock_arch_counter_ordered_how(CYCLOCK_ARCH_X86_LFENCE_RDTSC);

	__asm__ __volatile__("lfence" ::: "memory");
	return t;
}

static double ticks_hz(void)
{
	return bench_counter_hz();
}

/*
 * Calls @fn as the kernel's __x86_indirect_thunk does: the return stack
 * predicts the inner ret to the pause loop, so the front end spins there
 * and fetches nothing of @fn until the ret executes, after the bracket's
 * lfence.  @fn returns straight to our caller, with the usual alignment.
 */
__attribute__((naked, noinline)) static uint64_t
thunk_call(uint64_t (*fn)(void) __attribute__((unused)))
{
	__asm__ volatile("call 2f\n"
			 "1: pause\n"
			 "lfence\n"
			 "jmp 1b\n"
			 "2: mov %rdi, (%rsp)\n"
			 "ret\n");
}

/* The thunk rewrites a return address, which a shadow stack (CET) would
 * take for an attack; rdsspq is a no-op, leaving 0, when none is on. */
static bool thunk_usable(void)
{
	uint64_t ssp = 0;

	__asm__ volatile(".byte 0xf3, 0x48, 0x0f, 0x1e, 0xc8" /* rdsspq %rax */
			 : "+a"(ssp));
	return ssp == 0;
}
#else
#if defined(CYCLOCK_ARCH_ARM64_CNTVCT)
static inline uint64_t fenced_ticks(void)
{
	uint64_t v;

	__asm__ __volatile__("isb" ::: "memory");
	v = cyclock_arch_counter();
	__asm__ __volatile__("isb" ::: "memory");
	return v;
}

static double ticks_hz(void)
{
	return bench_counter_hz();
}
#else
static inline uint64_t fenced_ticks(void)
{
	return bench_now_ns();
}

static double ticks_hz(void)
{
	return 1e9;
}
#endif

static uint64_t thunk_call(uint64_t (*fn)(void))
{
	return fn();
}

static bool thunk_usable(void)
{
	return false;
}
#endif

/* The empty body: what the bracket times when the clock costs nothing. */
__attribute__((noinline)) static uint64_t nothing(void)
{
	return 0;
}

static inline uint64_t call_clock(bool thunk, uint64_t (*fn)(void))
{
	return thunk ? thunk_call(fn) : fn();
}

/* Ticks between the bracket's two reads around one call of @fn; every
 * load the call needs (@fn, @thunk) is done before the bracket opens. */
static inline uint64_t bracket(bool thunk, uint64_t (*fn)(void))
{
	uint64_t t0, t1, v;

	t0 = fenced_ticks();
	v = call_clock(thunk, fn);
	t1 = fenced_ticks();
	bench_sink = v; /* after the bracket: its line is as cold as the rest */
	return t1 - t0;
}

void bench_bracket_init(struct bench_bracket *b)
{
	double v[EMPTY_BRACKETS], hz = ticks_hz();

	b->thunk = thunk_usable();
	b->ns_per_tick = hz > 0 ? 1e9 / hz : 1;
	for (int i = 0; i < EMPTY_BRACKETS; i++)
		v[i] = (double)bracket(b->thunk, nothing);
	bench_sort(v, EMPTY_BRACKETS);
	b->empty = (uint64_t)v[EMPTY_BRACKETS / 2];
}

double bench_bracket_time(const struct bench_bracket *b, uint64_t (*fn)(void))
{
	uint64_t ticks = bracket(b->thunk, fn);

	return ticks > b->empty ? (double)(ticks - b->empty) * b->ns_per_tick : 0;
}

void bench_bracket_warm(const struct bench_bracket *b)
{
	bench_sink = call_clock(b->thunk, nothing);
}

double bench_bracket_empty_ns(const struct bench_bracket *b)
{
	return (double)b->empty * b->ns_per_tick;
}
