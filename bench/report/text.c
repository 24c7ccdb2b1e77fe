/* SPDX-License-Identifier: MIT */
/*
 * The one way text from outside the tool (a JSON file's names, labels and
 * context, sysfs and /proc) is made safe to print: a terminal must never
 * receive an escape sequence from a file it was asked to display, and an
 * SVG, CSV or JSON file must stay valid UTF-8.  The JSON reader and the
 * context stores text through bench_text_clean(), so every consumer (the
 * tables, compare, plot, error lines) gets text that is clean already.
 */
#define _GNU_SOURCE
#include <locale.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <wchar.h>

#include "bench.h"

/* The code point of the UTF-8 sequence at @p and its length in *@n, or
 * -1 (with *@n 1) when it is not a valid, shortest-form one. */
static long utf8_at(const unsigned char *p, size_t *n)
{
	static const long min[] = { 0, 0, 0x80, 0x800, 0x10000 };
	size_t len = *p < 0x80 ? 1 : *p >= 0xf0 && *p < 0xf5 ? 4 : *p >= 0xe0 && *p < 0xf0 ? 3 :
		     *p >= 0xc2 && *p < 0xe0 ? 2 : 0;
	long cp;

	*n = 1;
	if (len == 0)
		return -1;
	cp = len == 1 ? *p : *p & (0x7f >> len);
	for (size_t i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return -1;
		cp = cp << 6 | (p[i] & 0x3f);
	}
	if (cp < min[len] || cp > 0x10ffff || (cp >= 0xd800 && cp < 0xe000))
		return -1;
	*n = len;
	return cp;
}

/* Whether code point @cp could change what a terminal shows beyond
 * itself: C0 controls (tab and newline too: output is one line per
 * item), DEL, C1 controls (0x9b is a CSI), the line and paragraph
 * separators, and the bidirectional overrides and isolates. */
static bool is_control(long cp)
{
	return cp < 0x20 || (cp >= 0x7f && cp < 0xa0) || cp == 0x2028 || cp == 0x2029 ||
	       (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069);
}

size_t bench_text_clean(char *dst, size_t size, const char *src)
{
	const unsigned char *p = (const unsigned char *)src;
	size_t o = 0, changed = 0;

	if (size == 0)
		return 0;
	while (*p) {
		char esc[12];
		size_t n, w;
		long cp = utf8_at(p, &n);

		if (cp < 0)
			w = (size_t)snprintf(esc, sizeof(esc), "\\x%02x", *p);
		else if (is_control(cp))
			w = (size_t)snprintf(esc, sizeof(esc), cp < 0x100 ? "\\x%02lx" : "\\u%04lx",
					     cp);
		else
			w = 0;
		/* Cut where a whole character or escape no longer fits. */
		if (o + (w ? w : n) >= size)
			break;
		if (w) {
			memcpy(dst + o, esc, w);
			o += w;
			changed++;
		} else {
			memcpy(dst + o, p, n);
			o += n;
		}
		p += n;
	}
	dst[o] = '\0';
	return changed;
}

/* ---- display width ---- */

/* glibc's own C.UTF-8 (built in since 2.35), whatever the program's
 * locale: the text is UTF-8 (bench_text_clean() made it so) even where
 * LC_CTYPE is "C", under which wcwidth() knows no character beyond ASCII.
 * NULL where there is none. */
static locale_t utf8_locale;

static void find_utf8_locale(void)
{
	utf8_locale = newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t)0);
}

/* Without C.UTF-8: the East Asian wide and fullwidth blocks and the
 * emoji take two columns, the combining marks and zero-width characters
 * none, everything else one. */
static int fallback_width(long cp)
{
	static const long zero[][2] = {
		{ 0x0300, 0x036f }, { 0x0483, 0x0489 }, { 0x0591, 0x05bd }, { 0x0610, 0x061a },
		{ 0x064b, 0x065f }, { 0x1ab0, 0x1aff }, { 0x1dc0, 0x1dff }, { 0x200b, 0x200f },
		{ 0x20d0, 0x20ff }, { 0xfe00, 0xfe0f }, { 0xfe20, 0xfe2f }, { 0xe0100, 0xe01ef },
	};
	static const long wide[][2] = {
		{ 0x1100, 0x115f }, { 0x2e80, 0x303e }, { 0x3041, 0x33ff }, { 0x3400, 0x4dbf },
		{ 0x4e00, 0x9fff }, { 0xa000, 0xa4cf }, { 0xac00, 0xd7a3 }, { 0xf900, 0xfaff },
		{ 0xfe30, 0xfe4f }, { 0xff00, 0xff60 }, { 0xffe0, 0xffe6 }, { 0x1f300, 0x1f64f },
		{ 0x1f900, 0x1f9ff }, { 0x20000, 0x2fffd }, { 0x30000, 0x3fffd },
	};

	for (size_t i = 0; i < sizeof(zero) / sizeof(zero[0]); i++)
		if (cp >= zero[i][0] && cp <= zero[i][1])
			return 0;
	for (size_t i = 0; i < sizeof(wide) / sizeof(wide[0]); i++)
		if (cp >= wide[i][0] && cp <= wide[i][1])
			return 2;
	return 1;
}

size_t bench_text_char_len(const char *s)
{
	size_t n;

	utf8_at((const unsigned char *)s, &n);
	return n;
}

size_t bench_text_width(const char *s)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	const unsigned char *p = (const unsigned char *)s;
	locale_t old = (locale_t)0;
	size_t width = 0;

	pthread_once(&once, find_utf8_locale);
	if (utf8_locale)
		old = uselocale(utf8_locale);
	while (*p) {
		size_t n;
		long cp = utf8_at(p, &n);
		int w = cp < 0 ? 1 : utf8_locale ? wcwidth((wchar_t)cp) : fallback_width(cp);

		/* A byte that is not UTF-8, or a character wcwidth() does not
		 * know, still takes a column on the way to the terminal. */
		width += w < 0 ? 1 : (size_t)w;
		p += n;
	}
	if (utf8_locale)
		uselocale(old);
	return width;
}
