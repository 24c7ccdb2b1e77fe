/* SPDX-License-Identifier: MIT */
/* Semihosting calls and a line printer that needs no libc. */
#include "semihost.h"

/* Operation numbers from the semihosting specification. */
#define SYS_WRITE0 0x04u
#define SYS_EXIT 0x18u
#define SYS_ELAPSED 0x30u
#define SYS_TICKFREQ 0x31u

/* Reasons for SYS_EXIT: QEMU exits 0 for the first, 1 for any other. */
#define ADP_STOPPED_APPLICATION_EXIT 0x20026u
#define ADP_STOPPED_RUNTIME_ERROR_UNKNOWN 0x20023u

/*
 * The call: operation in r0, argument in r1, result in r0.  The host may
 * read and write memory through @arg, hence the memory clobber.
 */
static uint32_t semihost_call(uint32_t op, uintptr_t arg)
{
	register uint32_t r0 __asm__("r0") = op;
	register uintptr_t r1 __asm__("r1") = arg;

	__asm__ __volatile__("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
	return r0;
}

void semihost_write(const char *s)
{
	semihost_call(SYS_WRITE0, (uintptr_t)s);
}

bool semihost_host_ns(uint64_t *ns)
{
	uint32_t ticks[2]; /* low word first */
	uint32_t freq = semihost_call(SYS_TICKFREQ, 0);
	uint64_t t;

	if (freq == 0 || freq == UINT32_MAX || semihost_call(SYS_ELAPSED, (uintptr_t)ticks) != 0)
		return false;
	t = (uint64_t)ticks[1] << 32 | ticks[0];
	/* QEMU counts in ns; scale any other host's ticks without overflow. */
	*ns = freq == 1000000000u ? t : t / freq * 1000000000u + t % freq * 1000000000u / freq;
	return true;
}

_Noreturn void semihost_exit(bool ok)
{
	semihost_call(SYS_EXIT,
		      ok ? ADP_STOPPED_APPLICATION_EXIT : ADP_STOPPED_RUNTIME_ERROR_UNKNOWN);
	for (;;) /* a host that ignores SYS_EXIT */
		__asm__ __volatile__("wfi");
}

void line_str(struct line *l, const char *s)
{
	while (*s && l->len + 2 < sizeof(l->buf)) /* room for "\n" and NUL */
		l->buf[l->len++] = *s++;
}

void line_u64(struct line *l, uint64_t v)
{
	char rev[20];
	unsigned int n = 0;

	do {
		rev[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n && l->len + 2 < sizeof(l->buf))
		l->buf[l->len++] = rev[--n];
}

void line_print(struct line *l)
{
	l->buf[l->len++] = '\n';
	l->buf[l->len] = '\0';
	semihost_write(l->buf);
	l->len = 0;
}
