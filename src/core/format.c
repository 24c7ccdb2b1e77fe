/* SPDX-License-Identifier: MIT */
/*
 * The kernel-style summary line of a registration, without stdio.
 * Tests: tests/core/test_format.c.
 */
#include "internal.h"

/* An snprintf()-like sink: counts everything, stores what fits. */
struct sink {
	char *buf;
	size_t len, pos;
};

static void put_str(struct sink *s, const char *str)
{
	for (; *str; str++, s->pos++)
		if (s->pos + 1 < s->len)
			s->buf[s->pos] = *str;
}

size_t cyclock__utoa(char *buf, uint64_t v)
{
	char rev[20];
	size_t n = 0, i;

	do {
		rev[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	for (i = 0; i < n; i++)
		buf[i] = rev[n - 1 - i];
	return n;
}

static void put_u64(struct sink *s, uint64_t v)
{
	char digits[21];

	digits[cyclock__utoa(digits, v)] = '\0';
	put_str(s, digits);
}

/* @milli thousandths, with three decimals. */
static void put_milli(struct sink *s, uint64_t milli)
{
	char frac[4] = { 0 };

	put_u64(s, milli / 1000);
	frac[0] = (char)('0' + milli / 100 % 10);
	frac[1] = (char)('0' + milli / 10 % 10);
	frac[2] = (char)('0' + milli % 10);
	put_str(s, ".");
	put_str(s, frac);
}

/* 1e9 / rate ns: whole when exact or >= 1000 ns, else with three decimals. */
static void put_resolution(struct sink *s, uint64_t rate_hz)
{
	uint64_t milli = (1000 * CYCLOCK_NSEC_PER_SEC + rate_hz / 2) / rate_hz;

	if (CYCLOCK_NSEC_PER_SEC % rate_hz == 0 || milli >= 1000 * 1000)
		put_u64(s, (CYCLOCK_NSEC_PER_SEC + rate_hz / 2) / rate_hz);
	else
		put_milli(s, milli);
}

size_t cyclock_format_summary(const struct cyclock *clk, char *buf, size_t len)
{
	struct sink s = { buf, len, 0 };
	const struct cyclock_source *src = COLD(clk, src);

	if (!src) {
		put_str(&s, "no source registered");
	} else {
		put_u64(&s, src->bits);
		put_str(&s, " bits at ");
		put_u64(&s, src->rate_hz);
		put_str(&s, " Hz, resolution ");
		put_resolution(&s, src->rate_hz);
		put_str(&s, " ns, update every ");
		put_u64(&s, cyclock_wrap_ns(clk));
		put_str(&s, " ns, rate within ");
		put_milli(&s, COLD(clk, error_ppt)); /* ppt as ppb */
		put_str(&s, " ppb");
	}
	if (len)
		buf[s.pos < len ? s.pos : len - 1] = '\0';
	return s.pos;
}
