/* SPDX-License-Identifier: MIT */
/*
 * The one way text from outside the tool (a JSON file's names, labels and
 * context, sysfs and /proc) is made safe to print: a terminal must never
 * receive an escape sequence from a file it was asked to display, and an
 * SVG, CSV or JSON file must stay valid UTF-8.  The JSON reader and the
 * context stores text through bench_text_clean(), so every consumer (the
 * tables, compare, plot, error lines) gets text that is clean already.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "bench.h"

/* The code point of the UTF-8 sequence at @p and its length in *@n, or
 * -1 (with *@n 1) when it is not a valid, shortest-form one. */
static long utf8_at(const unsigned char *p, size_t *n)
{
	static const long min[] = { 0, 0, 0x80, 0x800, 0x10000 };
	size_t len = *p < 0x80 ? 1 : *p >= 0xf0 && *p < 0xf5 ? 4 : *p >= 0xe0 ? 3 :
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
