/* SPDX-License-Identifier: MIT */
/*
 * The SVG writer's measure of its text (svg_font.c): what svg.h's
 * writer spaces and cuts its labels by.
 */
#ifndef CYCLOCK_TOOL_SVG_FONT_H
#define CYCLOCK_TOOL_SVG_FONT_H

#include <stddef.h>

/* How wide @s is drawn in class @cls, estimated on the wide side (DejaVu
 * Sans's widths, 6 % more): px. */
double svg_text_width(const char *s, const char *cls);
/* How many bytes of @s fit in @maxw with "…" after them (all of it when
 * the whole fits without), cut at a character boundary. */
size_t svg_text_fit_len(const char *s, const char *cls, double maxw);

#endif /* CYCLOCK_TOOL_SVG_FONT_H */
