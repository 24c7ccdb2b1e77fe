/* SPDX-License-Identifier: MIT */
/*
 * Writing Prometheus's text format 0.0.4 and OpenMetrics 1.0, for every
 * command that writes metrics (cyclock info, cyclock status, through
 * block_out.c for a status block's facts): a family's metadata, one
 * sample, a label value escaped.  Base units only (_seconds, _hertz,
 * _ratio).
 */
#ifndef CYCLOCK_TOOL_METRICS_H
#define CYCLOCK_TOOL_METRICS_H

#include <stdbool.h>
#include <stdio.h>

struct metrics_out {
	FILE *f;
	bool om; /* OpenMetrics, else Prometheus 0.0.4 */
};

/* @s as a label value: backslash, double quote and newline escaped, bytes
 * that are not UTF-8 as '?'. */
void metrics_put_label(FILE *f, const char *s);
/*
 * A family's metadata.  @type is "gauge", "counter" or "info".  A family
 * @name of "info" or "counter" is written as OpenMetrics wants it (the
 * family "cyclock_build", its sample "cyclock_build_info"; the family
 * "cyclock_resyncs", its sample "cyclock_resyncs_total") and for
 * Prometheus under its sample's name, an info family as a gauge.  @unit:
 * OpenMetrics' "# UNIT" (the name ends in it), or NULL.
 */
void metrics_family(const struct metrics_out *o, const char *name, const char *type,
		    const char *unit, const char *help);
/* One sample: @name{@labels} @v, @labels being NULL-terminated pairs of
 * name and value (or NULL for none).  A value that is not finite (a
 * figure that was not measured) is left out. */
void metrics_sample(const struct metrics_out *o, const char *name, const char *const *labels,
		    double v);

#endif /* CYCLOCK_TOOL_METRICS_H */
