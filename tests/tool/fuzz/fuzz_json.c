/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer's entry for the JSON reader: any bytes at all must come back
 * as a run or as one line of error, without a crash, a leak or undefined
 * behaviour; what was read must be safe to print (no control character,
 * valid UTF-8 in every string) and its table must hold no "nan" and no
 * control character.  fuzz_json_replay.c drives the same entry without
 * libFuzzer.
 */
#define _GNU_SOURCE
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Whether @s is what bench_text_clean() leaves: nothing left to escape. */
static bool clean(const char *s)
{
	char buf[1024];

	return strlen(s) < sizeof(buf) / 4 && bench_text_clean(buf, sizeof(buf), s) == 0;
}

static void check_strings(const struct bench_run *run)
{
	const struct bench_context *c = &run->ctx;
	const char *ctx[] = {
		c->date, c->host_name, c->executable, c->cpu_model, c->arch, c->kernel,
		c->clocksource, c->clocksources, c->virtualization, c->governor, c->version,
		c->build_type, c->counter, c->describe, c->floor, c->ordered,
	};

	for (size_t i = 0; i < sizeof(ctx) / sizeof(ctx[0]); i++)
		if (!clean(ctx[i]))
			__builtin_trap();
	for (int i = 0; i < c->n_caches; i++)
		if (!clean(c->caches[i].type))
			__builtin_trap();
	for (size_t i = 0; i < run->n; i++) {
		const struct bench_result *r = &run->v[i];

		if (!clean(r->name) || !clean(r->scenario) || !clean(r->clock) ||
		    !clean(r->variant) || !clean(r->note))
			__builtin_trap();
		for (size_t k = 0; k < r->n_extra; k++)
			if (!clean(r->extra[k].key))
				__builtin_trap();
	}
}

/* The run's table: text lines, with words where a figure is not one
 * (printf's "nan" and "inf" are looked for only when the input has
 * neither, since a name may). */
static void check_table(const struct bench_run *run, const uint8_t *data, size_t size)
{
	bool words = memmem(data, size, "nan", 3) || memmem(data, size, "inf", 3);
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		return;
	bench_report_table(f, run);
	if (fclose(f) == 0) {
		for (size_t i = 0; i < len; i++)
			if (((unsigned char)text[i] < 0x20 && text[i] != '\n') || text[i] == 0x7f)
				__builtin_trap();
		if (!words && (strstr(text, "nan") || strstr(text, "inf")))
			__builtin_trap();
	}
	free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct bench_run run;
	char err[256];

	bench_run_init(&run);
	if (bench_parse_json((const char *)data, size, &run, err, sizeof(err)) != 0) {
		if (!err[0] || !clean(err))
			__builtin_trap(); /* a failure says why, on one line, printable */
	}
	/* What was read holds together: samples, each a time. */
	for (size_t i = 0; i < run.n; i++) {
		const struct bench_result *r = &run.v[i];

		if (r->n_samples == 0 || !r->samples)
			__builtin_trap();
		for (size_t k = 0; k < r->n_samples; k++)
			if (!(r->samples[k] >= 0 && r->samples[k] <= 1e18))
				__builtin_trap();
	}
	check_strings(&run);
	check_table(&run, data, size);
	bench_run_free(&run);
	return 0;
}
