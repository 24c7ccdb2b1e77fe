/* SPDX-License-Identifier: MIT */
/*
 * The JSON fuzzer without libFuzzer, so that every build (release, and
 * ASan+UBSan, where it counts) runs it as a test:
 *   fuzz_json_replay CORPUS_DIR [MUTATIONS [SEED]]
 * runs every file of the corpus, then MUTATIONS (default 20000) inputs made
 * from them by byte flips, truncations, insertions of JSON tokens,
 * deletions and splices, from a fixed seed so that a failure repeats.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prng.h"

#define MAX_INPUTS 256
#define INPUT_MAX (1 << 20)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct input {
	uint8_t *data;
	size_t len;
};

/* Tokens that steer a mutation into the reader's corners. */
static const char *const tokens[] = {
	"{", "}", "[", "]", "\"", ":", ",", "null", "true", "-1", "1e308", "0.5",
	"\"name\":", "\"real_time\":", "\"time_unit\":\"s\"", "\"run_type\":\"aggregate\"",
	"\"aggregate_name\":\"median\"", "\"run_name\":", "\"repetition_index\":",
	"\"benchmarks\":[", "\"context\":{", "\"iterations\":", "\"threads\":",
	"\"error_occurred\":true", "\"\\u00e9\\ud800\"", "99999999999999999999",
	"\"\\u001b[31m\"", "\"\\u009b\\u202e\"", "\"\xc2\x9b\xff\"", "4.9e-324", "1e-310",
	"\"NaN\"", "1e400", "\"x_floor\":", "\"hist_1e-320\":", "\"label\":",
};

static int read_file(const char *path, struct input *in)
{
	FILE *f = fopen(path, "rb");
	size_t n;

	if (!f)
		return -1;
	in->data = malloc(INPUT_MAX);
	n = in->data ? fread(in->data, 1, INPUT_MAX, f) : 0;
	fclose(f);
	in->len = n;
	return in->data ? 0 : -1;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every regular file of @dir, in name order so that a seed means the same
 * mutations on every machine. */
static size_t load_corpus(const char *dir, struct input *in)
{
	char *names[MAX_INPUTS], path[4096];
	size_t n = 0, got = 0;
	DIR *d = opendir(dir);
	struct dirent *e;

	while (d && n < MAX_INPUTS && (e = readdir(d)))
		if (e->d_name[0] != '.' && (names[n] = strdup(e->d_name)))
			n++;
	if (d)
		closedir(d);
	qsort(names, n, sizeof(names[0]), cmp_name);
	for (size_t i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		if (read_file(path, &in[got]) == 0)
			got++;
		free(names[i]);
	}
	return got;
}

/* Runs @data as an allocation of exactly @len bytes, so that AddressSanitizer
 * sees a read beyond the end. */
static void run_one(const uint8_t *data, size_t len)
{
	uint8_t *exact = malloc(len ? len : 1);

	if (!exact)
		return;
	memcpy(exact, data, len);
	LLVMFuzzerTestOneInput(exact, len);
	free(exact);
}

/* One mutation of @buf (holding *@len of INPUT_MAX bytes) in place. */
static void mutate(uint8_t *buf, size_t *len, const struct input *other, uint64_t *rng)
{
	size_t at = *len ? prng_next(rng) % (*len + 1) : 0, n;
	const char *tok;

	switch (prng_next(rng) % 6) {
	case 0: /* flip a bit */
		if (at < *len)
			buf[at] ^= (uint8_t)(1u << (prng_next(rng) % 8));
		break;
	case 1: /* truncate */
		*len = at;
		break;
	case 2: /* insert a token */
		tok = tokens[prng_next(rng) % (sizeof(tokens) / sizeof(tokens[0]))];
		n = strlen(tok);
		if (*len + n <= INPUT_MAX) {
			memmove(buf + at + n, buf + at, *len - at);
			memcpy(buf + at, tok, n);
			*len += n;
		}
		break;
	case 3: /* delete a range */
		n = prng_next(rng) % 16;
		n = at + n > *len ? *len - at : n;
		memmove(buf + at, buf + at + n, *len - at - n);
		*len -= n;
		break;
	case 4: /* splice: our head, another input's tail */
		n = other->len ? prng_next(rng) % other->len : 0;
		if (at + (other->len - n) <= INPUT_MAX) {
			memcpy(buf + at, other->data + n, other->len - n);
			*len = at + (other->len - n);
		}
		break;
	default: /* a random byte */
		if (at < *len)
			buf[at] = (uint8_t)prng_next(rng);
		break;
	}
}

int main(int argc, char **argv)
{
	static struct input in[MAX_INPUTS];
	long rounds = argc > 2 ? atol(argv[2]) : 20000;
	uint64_t rng = argc > 3 ? strtoull(argv[3], NULL, 0) : 0x5eed5eedULL;
	size_t n = argc > 1 ? load_corpus(argv[1], in) : 0;
	uint8_t *buf = malloc(INPUT_MAX);

	if (!n || !buf || !rng) {
		fprintf(stderr, "usage: fuzz_json_replay CORPUS_DIR [MUTATIONS [SEED]] "
				"(a non-empty corpus, a non-zero seed)\n");
		return 2;
	}
	for (size_t i = 0; i < n; i++)
		run_one(in[i].data, in[i].len);
	for (long r = 0; r < rounds; r++) {
		const struct input *a = &in[prng_next(&rng) % n];
		size_t len = a->len, steps = 1 + prng_next(&rng) % 4;

		memcpy(buf, a->data, len);
		for (size_t s = 0; s < steps; s++)
			mutate(buf, &len, &in[prng_next(&rng) % n], &rng);
		run_one(buf, len);
	}
	printf("fuzz_json_replay: %zu corpus files, %ld mutations: no crash\n", n, rounds);
	for (size_t i = 0; i < n; i++)
		free(in[i].data);
	free(buf);
	return 0;
}
