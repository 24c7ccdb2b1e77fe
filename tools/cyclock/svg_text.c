/* SPDX-License-Identifier: MIT */
/*
 * Text that fits, for the SVG writer (see svg.h): texts cut or wrapped to
 * the room they have, by svg_font.c's measure, and the legends' keys.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "svg.h"

double svg_text_fit(struct svg *s, double x, double y, const char *cls, double maxw,
		    const char *fmt, ...)
{
	char buf[512], cut[sizeof(buf) + 4];
	size_t len;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	len = svg_text_fit_len(buf, cls, maxw);
	/* Cut at a character boundary, the cut said by an ellipsis. */
	snprintf(cut, sizeof(cut), "%.*s%s", (int)len, buf, len < strlen(buf) ? "\u2026" : "");
	svg_text(s, x, y, cls, "%s", cut);
	return svg_text_width(cut, cls);
}

/* The x of a line in [@x0, @x1] for the anchor of @cls. */
static double anchor_x(const char *cls, double x0, double x1)
{
	char words[64];

	snprintf(words, sizeof(words), " %s ", cls ? cls : "");
	return strstr(words, " mid ") ? (x0 + x1) / 2 : strstr(words, " end ") ? x1 : x0;
}

int svg_text_wrap(struct svg *s, double x0, double x1, double y, const char *cls,
		  double leading, const char *text)
{
	const char *p = text;
	int lines = 0;

	while (*p) {
		size_t len = strlen(p), fit = svg_text_fit_len(p, cls, x1 - x0), brk = fit;

		/* Break at the last space that fits; a word wider than the room
		 * is cut, with an ellipsis, by svg_text_fit(). */
		if (fit < len) {
			while (brk > 0 && p[brk] != ' ')
				brk--;
			if (brk == 0)
				brk = len;
		}
		svg_text_fit(s, anchor_x(cls, x0, x1), y + leading * lines++, cls, x1 - x0, "%.*s",
			     (int)brk, p);
		p += brk;
		while (*p == ' ')
			p++;
	}
	return lines;
}

double svg_legend_item(struct svg *s, double x, double y, const char *colour, double opacity,
		       const char *name)
{
	svg_rect(s, x, y - 9, 12, 10, colour, opacity, NULL);
	return x + 16 + svg_text_fit(s, x + 16, y, NULL, SVG_WIDTH - SVG_MARGIN - x - 16, "%s",
				     name) + 12;
}

double svg_keys(struct svg *s, double x, double y, const struct svg_key *keys, size_t n)
{
	double start = x;

	for (size_t i = 0; i < n; i++) {
		double w = 28 + svg_text_width(keys[i].name, NULL);

		/* A key that would run past the picture starts a row of its own. */
		if (x > start && x + w > SVG_WIDTH - SVG_MARGIN) {
			x = start;
			y += 18;
		}
		x = svg_legend_item(s, x, y, keys[i].colour, 1, keys[i].name);
	}
	return y;
}
