/* SPDX-License-Identifier: MIT */
/*
 * Prometheus's and OpenMetrics' text formats (metrics.h), for cyclock
 * info and cyclock status.  Tests: tests/tool/cli/test_info.sh (both
 * formats, line by line, promtool and a strict OpenMetrics parser),
 * test_status.sh and test_status_hostile.sh (promtool, escaped labels),
 * test_one_name.sh (the same family names in both commands).
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bench.h" /* bench_text_char_len() */
#include "metrics.h"

void metrics_put_label(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	while (*p) {
		size_t n = bench_text_char_len((const char *)p); /* 1 where none starts */

		if (*p == '\\' || *p == '"')
			fprintf(f, "\\%c", *p);
		else if (*p == '\n')
			fputs("\\n", f);
		else if (n == 1 && *p >= 0x80)
			fputc('?', f);
		else
			fwrite(p, 1, n, f);
		p += n;
	}
}

void metrics_family(const struct metrics_out *o, const char *name, const char *type,
		    const char *unit, const char *help)
{
	bool info = !strcmp(type, "info"), counter = !strcmp(type, "counter");
	const char *suffix = info ? "_info" : counter ? "_total" : "";

	if (o->om) {
		fprintf(o->f, "# TYPE %s %s\n", name, type);
		if (unit)
			fprintf(o->f, "# UNIT %s %s\n", name, unit);
		fprintf(o->f, "# HELP %s %s\n", name, help);
		return;
	}
	fprintf(o->f, "# HELP %s%s %s\n", name, suffix, help);
	fprintf(o->f, "# TYPE %s%s %s\n", name, suffix, counter ? "counter" : "gauge");
}

void metrics_sample(const struct metrics_out *o, const char *name, const char *const *labels,
		    double v)
{
	if (!isfinite(v))
		return;
	fputs(name, o->f);
	for (size_t i = 0; labels && labels[i]; i += 2) {
		fprintf(o->f, "%s%s=\"", i ? "," : "{", labels[i]);
		metrics_put_label(o->f, labels[i + 1]);
		fputc('"', o->f);
	}
	fprintf(o->f, "%s %.15g\n", labels && labels[0] ? "}" : "", v);
}
