/* SPDX-License-Identifier: MIT */
/*
 * How wide a text of the SVG writer (see svg.h) is estimated to be, and
 * how much of it fits a room: the measure svg_text.c cuts and wraps
 * texts by, and svg.c spaces an axis's labels by, so that no label of
 * "cyclock plot" runs past the picture or into another.
 *
 * A viewer picks the font ("sans-serif": no file names one it must have),
 * so widths are those of DejaVu Sans, what fontconfig gives sans-serif on
 * Debian and the widest of the common ones (Liberation Sans, Arial and
 * Helvetica are narrower), plus 6 %.  tests/tool/cli/svg_layout.py checks
 * every picture with the same table and a 4 % margin, the lesser one, so
 * that what is laid out here passes there.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "bench.h" /* bench_text_char_len() */
#include "svg_font.h"

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

/* The width of @s's first @len bytes in class @cls. */
static double width_of(const char *s, size_t len, const char *cls)
{
	const unsigned short *w;
	double size, em = 0;
	bool b;

	font_of(cls, &size, &b);
	w = b ? bold : regular;
	for (size_t i = 0; i < len; i += bench_text_char_len(s + i)) {
		unsigned char c = (unsigned char)s[i];

		em += c >= 0x20 && c < 0x7f ? w[c - 0x20] / 1000.0 : 1.0;
	}
	return em * size * MARGIN;
}

double svg_text_width(const char *s, const char *cls)
{
	return width_of(s, strlen(s), cls);
}

size_t svg_text_fit_len(const char *s, const char *cls, double maxw)
{
	size_t len = strlen(s), at = 0;
	double ell = svg_text_width("\u2026", cls);

	if (width_of(s, len, cls) <= maxw)
		return len;
	while (at < len) {
		size_t next = at + bench_text_char_len(s + at);

		if (width_of(s, next, cls) + ell > maxw)
			break;
		at = next;
	}
	return at;
}
