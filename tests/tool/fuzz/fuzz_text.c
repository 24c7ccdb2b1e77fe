/* SPDX-License-Identifier: MIT */
/*
 * bench_text_clean() (bench/report/text.c), which every string from
 * another process or the system goes through before "cyclock status" and
 * "cyclock info" write it as text, JSON or metrics: seeded random byte
 * strings, most of them near UTF-8 (lead and continuation bytes, overlong
 * forms, surrogates, code points past U+10FFFF, controls), into buffers
 * of every small size.  Each output must be NUL-terminated within its
 * buffer, valid UTF-8 by another decoder (libc's mbrtowc() in C.UTF-8,
 * held to UTF-8's four bytes and U+10FFFF),
 * free of what the cleaner promises to escape (C0, DEL, C1, U+2028/9,
 * the bidirectional overrides and isolates), and, for an input that is
 * clean UTF-8 and fits, the input itself.  The decoder once read the
 * bytes 0xf5-0xff as three-byte leads and passed them on raw.
 *   fuzz_text [ROUNDS]
 */
#define _GNU_SOURCE
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "bench.h"
#include "prng.h"

static const unsigned char pieces[] = {
	0x00, 0x1b, 0x7f, 0x80, 0x9b, 0xbf, 0xc0, 0xc1, 0xc2, 0xdf, 0xe0, 0xe2,
	0xed, 0xef, 0xf0, 0xf4, 0xf5, 0xf7, 0xf8, 0xfb, 0xfc, 0xfe, 0xff, 0xa0,
	0x90, 0x8f, 0x81, 'a', ' ', '\n', '\t', '"', '\\',
};

/* A string of up to 24 bytes, no NUL inside. */
static void random_string(uint64_t *s, unsigned char *out)
{
	size_t n = prng_next(s) % 25;

	for (size_t i = 0; i < n; i++) {
		uint64_t r = prng_next(s);

		out[i] = (r & 3) ? pieces[(r >> 8) % sizeof(pieces)] : (unsigned char)(r >> 16);
		if (!out[i])
			out[i] = 'x';
	}
	out[n] = 0;
}

static bool escaped_kind(wchar_t c)
{
	return c < 0x20 || (c >= 0x7f && c < 0xa0) || c == 0x2028 || c == 0x2029 ||
	       (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069);
}

/* Whether @s is valid UTF-8 with nothing the cleaner escapes. */
static bool clean_utf8(const char *s)
{
	mbstate_t st;
	size_t len = strlen(s);

	memset(&st, 0, sizeof(st));
	while (len) {
		wchar_t c;
		size_t n = mbrtowc(&c, s, len, &st);

		/* glibc's decoder takes the old five- and six-byte forms and
		 * code points past U+10FFFF: refused here, as UTF-8 does. */
		if (n == (size_t)-1 || n == (size_t)-2 || n == 0 || n > 4 || c > 0x10ffff ||
		    (c >= 0xd800 && c < 0xe000) || escaped_kind(c))
			return false;
		s += n;
		len -= n;
	}
	return true;
}

static int check(const unsigned char *in, size_t size, unsigned long round)
{
	char out[128];

	memset(out, 'Z', sizeof(out));
	bench_text_clean(out, size, (const char *)in);
	if (!memchr(out, 0, size) || !clean_utf8(out)) {
		fprintf(stderr, "round %lu, size %zu: input", round, size);
		for (const unsigned char *p = in; *p; p++)
			fprintf(stderr, " %02x", *p);
		fprintf(stderr, ": output not clean UTF-8\n");
		return 1;
	}
	if (clean_utf8((const char *)in) && strlen((const char *)in) < size &&
	    strcmp(out, (const char *)in)) {
		fprintf(stderr, "round %lu: clean input changed:", round);
		for (const unsigned char *p = in; *p; p++)
			fprintf(stderr, " %02x", *p);
		fprintf(stderr, " -> %s\n", out);
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	unsigned long rounds = argc > 1 ? strtoul(argv[1], NULL, 10) : 200000;
	uint64_t seed = 0x5eed0f7e47ull;
	unsigned char in[32];
	int failures = 0;

	if (!setlocale(LC_CTYPE, "C.UTF-8")) {
		puts("fuzz_text: no C.UTF-8 locale to check against");
		return 77;
	}
	for (unsigned long r = 0; r < rounds && failures < 10; r++) {
		random_string(&seed, in);
		failures += check(in, 1 + prng_next(&seed) % 96, r);
	}
	printf("fuzz_text: %lu strings, %d failures\n", rounds, failures);
	return failures != 0;
}
