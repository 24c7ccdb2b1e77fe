/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer's entry for the JSON reader: any bytes at all must come back
 * as a run or as one line of error, without a crash, a leak or undefined
 * behaviour.  fuzz_json_replay.c drives the same entry without libFuzzer.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "bench.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct bench_run run;
	char err[256];

	bench_run_init(&run);
	if (bench_parse_json((const char *)data, size, &run, err, sizeof(err)) != 0) {
		if (!err[0] || strchr(err, '\n'))
			__builtin_trap(); /* a failure says why, on one line */
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
	bench_run_free(&run);
	return 0;
}
