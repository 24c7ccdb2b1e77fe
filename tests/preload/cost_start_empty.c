/* SPDX-License-Identifier: MIT */
/* An empty library, preloaded as cost_start.c's baseline for a short
 * program under the preload: what loading any library costs. */
int preload_cost_start_empty;
