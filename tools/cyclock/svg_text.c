/* SPDX-License-Identifier: MIT */
/*
 * Text that fits, for the SVG writer (see svg.h): how wide a text is
 * estimated to be, and texts cut or wrapped to the room they have, so that
 * no label of "cyclock plot" runs past the picture or into another.
 *
 * A viewer picks the font ("sans-serif": no file names one it must have),
 * so widths are those of DejaVu Sans, what fontconfig gives sans-serif on
 * Debian and the widest of the common ones (Liberation Sans, Arial and
 * Helvetica are narrower), plus 6 %.  tests/tool/cli/svg_layout.py checks
 * every picture with the same table and a 4 % margin, the lesser one, so
 * that what is laid out here passes there.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "svg.h"

/* DejaVu Sans 2.37's advance widths in thousandths of an em for U+0020
 * to U+007E (its hmtx table over 2048 units per em), regular and bold.
 * A character beyond them counts a whole em, the most most fonts give a
 * letter (a CJK ideograph is one). */
static const unsigned short regular[95] = {
	318, 401, 460, 838, 636, 950, 780, 275, 390, 390, 500, 838, 318, 361, 318, 337,
	636, 636, 636, 636, 636, 636, 636, 636, 636, 636, 337, 337, 838, 838, 838, 531,
	1000, 684, 686, 698, 770, 632, 575, 775, 752, 295, 295, 656, 557, 863, 748, 787,
	603, 787, 695, 635, 611, 732, 684, 989, 685, 611, 685, 390, 337, 390, 838, 500,
	500, 613, 635, 550, 635, 615, 352, 635, 634, 278, 278, 579, 278, 974, 634, 612,
	635, 635, 411, 521, 392, 634, 592, 818, 592, 592, 525, 636, 337, 636, 838,
};
static const unsigned short bold[95] = {
	348, 456, 521, 838, 696, 1002, 872, 306, 457, 457, 523, 838, 380, 415, 380, 365,
	696, 696, 696, 696, 696, 696, 696, 696, 696, 696, 400, 400, 838, 838, 838, 580,
	1000, 774, 762, 734, 830, 683, 683, 821, 837, 372, 372, 775, 637, 995, 837, 850,
	733, 850, 770, 720, 682, 812, 774, 1103, 771, 724, 725, 457, 365, 457, 838, 500,
	500, 675, 716, 593, 716, 678, 435, 716, 712, 343, 343, 665, 343, 1042, 712, 687,
	716, 716, 493, 595, 478, 712, 652, 924, 645, 652, 582, 712, 365, 712, 838,
};

#define MARGIN 1.06

/* The font of class list @cls, as svg_finish()'s stylesheet sets it. */
static void font_of(const char *cls, double *size, bool *is_bold)
{
	char words[64];

	*size = 12;
	*is_bold = false;
	snprintf(words, sizeof(words), " %s ", cls ? cls : "");
	if (strstr(words, " title ")) {
		*size = 17;
		*is_bold = true;
	} else if (strstr(words, " head ")) {
		*size = 14;
		*is_bold = true;
	} else if (strstr(words, " small ")) {
		*size = 10.5;
	}
	*is_bold |= strstr(words, " group ") != NULL;
}

/* The bytes of the UTF-8 character that starts with @c (the text is clean:
 * bench_text_clean() made it valid UTF-8). */
static size_t char_len(unsigned char c)
{
	return c < 0x80 ? 1 : c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1;
}

/* The width of @s's first @len bytes in class @cls. */
static double width_of(const char *s, size_t len, const char *cls)
{
	const unsigned short *w;
	double size, em = 0;
	bool b;

	font_of(cls, &size, &b);
	w = b ? bold : regular;
	for (size_t i = 0; i < len; i += char_len((unsigned char)s[i])) {
		unsigned char c = (unsigned char)s[i];

		em += c >= 0x20 && c < 0x7f ? w[c - 0x20] / 1000.0 : 1.0;
	}
	return em * size * MARGIN;
}

double svg_text_width(const char *s, const char *cls)
{
	return width_of(s, strlen(s), cls);
}

/* How many bytes of @s fit in @maxw with "…" after them (all of it when
 * the whole fits without). */
static size_t fit_len(const char *s, const char *cls, double maxw)
{
	size_t len = strlen(s), at = 0;
	double ell = svg_text_width("\u2026", cls);

	if (width_of(s, len, cls) <= maxw)
		return len;
	while (at < len) {
		size_t next = at + char_len((unsigned char)s[at]);

		if (width_of(s, next, cls) + ell > maxw)
			break;
		at = next;
	}
	return at;
}

double svg_text_fit(struct svg *s, double x, double y, const char *cls, double maxw,
		    const char *fmt, ...)
{
	char buf[512], cut[sizeof(buf) + 4];
	size_t len;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	len = fit_len(buf, cls, maxw);
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
		size_t len = strlen(p), fit = fit_len(p, cls, x1 - x0), brk = fit;

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
