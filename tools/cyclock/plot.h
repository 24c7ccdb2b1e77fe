/* SPDX-License-Identifier: MIT */
/*
 * The panels of "cyclock plot", drawn by plot_panels.c and stacked under
 * the header by cmd_plot.c.  Each draws what @run has for it at height @y
 * of @s and returns the height it took: 0 when the run has nothing for
 * it (and nothing was drawn), -1 when out of memory.
 */
#ifndef CYCLOCK_TOOL_PLOT_H
#define CYCLOCK_TOOL_PLOT_H

#include "bench.h"
#include "svg.h"

/* The times a panel draws, in ns; what lies outside (or is not finite) is
 * left out and counted in the panel's caption.  A run with no drawable
 * figure in any panel has nothing to plot (cmd_plot.c exits 3). */
#define PLOT_MIN_NS 1e-3
#define PLOT_MAX_NS 1e18

/* What one call costs per clock (warm), throughput and latency. */
double tool_plot_cost(struct svg *s, double y, const struct bench_run *run);
/* What one call costs against the number of threads reading (scale). */
double tool_plot_scale(struct svg *s, double y, const struct bench_run *run);
/* How finely each clock ticks (resolution): histograms, else bars. */
double tool_plot_resolution(struct svg *s, double y, const struct bench_run *run);

#endif /* CYCLOCK_TOOL_PLOT_H */
