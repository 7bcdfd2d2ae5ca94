/* SPDX-License-Identifier: MIT */
/*
 * trawl chart's drawing, apart from its file formats: chart-draw.c makes a
 * display list of the chart from the index (rectangles, lines, texts and
 * step lines with their colours, in drawing order) and hands it to a
 * writer a lane at a time, so memory stays that of one lane whatever the
 * chart's size. The writers: SVG (view-svg.c) and PNG (chart-png.c, a
 * module of its own that links cairo, loaded by chart-module.c only when a
 * PNG is asked for, so that trawl view never maps cairo).
 *
 * The module is handed these structs as they are: CHART_ABI names their
 * layout (and struct chart_png_ops'), and is one more at every change.
 */
#ifndef TRAWL_CHART_H
#define TRAWL_CHART_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define CHART_ABI 1

enum chart_op {
	CHART_RECT,	 /* filled: x, y, w, h */
	CHART_LINE,	 /* stroked, 1 px: (x, y) to (x + w, y + h) */
	CHART_TEXT,	 /* its baseline starts at (x, y); size px */
	CHART_STEPS,	 /* stroked, 1 px, through the points pts.. */
	CHART_GROUP,	 /* the items up to CHART_GROUP_END are one lane;
			  * text: its kind */
	CHART_GROUP_END, /* nothing drawn */
};

/* Which of x, y, w, h (and the points' x) are whole pixels: the SVG
 * writes these as integers, the others with one decimal. */
#define CHART_WHOLE_X 1u
#define CHART_WHOLE_Y 2u
#define CHART_WHOLE_W 4u
#define CHART_WHOLE_H 8u
/* The SVG's text breaks its line after this item (nothing drawn). */
#define CHART_BREAK 16u

struct chart_point {
	double x, y;
};

struct chart_item {
	uint8_t op;    /* enum chart_op */
	uint8_t flags; /* CHART_WHOLE_*, CHART_BREAK */
	uint16_t size; /* CHART_TEXT: the font's size, px */
	double x, y, w, h;
	/* the fill (rectangles, texts) or stroke: a CSS colour, "#rgb",
	 * "#rrggbb" or "hsl(H,S%,L%)"; "" (texts only): black, unsaid */
	char colour[24];
	const char *cls; /* the SVG class of a rectangle or group, or NULL */
	/* a text, a group's kind, a rectangle's tooltip (len 0: none):
	 * bytes of chart_list.text, valid UTF-8 without control characters */
	uint32_t text, len;
	uint32_t pts, npts; /* CHART_STEPS: its points in chart_list.pts */
};

/* A part of the chart: the image's size, title and background, and the
 * items of one part (the axis, then a lane at a time, then the marks). */
struct chart_list {
	int width, height; /* of the whole image, px */
	char *title;	   /* of the whole image, valid UTF-8 */
	char background[24];
	struct chart_item *items;
	size_t n, cap;
	char *text;
	size_t ntext, textcap;
	struct chart_point *pts;
	size_t npts, ptscap;
};

/* Gets the chart a part at a time; the items are gone when it returns.
 * Return: 0 to go on, else chart_draw() stops and returns it. */
typedef int (*chart_put)(void *ctx, const struct chart_list *dl);

/*
 * Draw the chart of ix over o's window, lanes and width (chart-draw.c):
 * the display list of each part goes to put. Return: 0, -1 out of memory
 * (said), or what put returned.
 */
struct view_index;
struct view_chart_opts;
int chart_draw(struct view_index *ix, const struct view_chart_opts *o,
	       chart_put put, void *ctx);

/*
 * The PNG module (chart-png.c, trawl-chart-png.so) exports one of these
 * as CHART_PNG_SYMBOL.
 */
struct chart_png_ops {
	int abi; /* CHART_ABI */
	/* A canvas of dl's size and background. Return: it, or NULL with
	 * why set. */
	void *(*open)(const struct chart_list *dl, char *why, size_t whylen);
	/* Draw dl's items on it. Return: 0, or -1 with why set. */
	int (*draw)(void *canvas, const struct chart_list *dl, char *why,
		    size_t whylen);
	/* Write it to f as a PNG (f NULL: do not) and free it. Return: 0, or
	 * -1 with why set. */
	int (*close)(void *canvas, FILE *f, char *why, size_t whylen);
};
#define CHART_PNG_SYMBOL "trawl_chart_png"
#define CHART_PNG_MODULE "trawl-chart-png.so"

/*
 * Load the PNG module (chart-module.c) from $TRAWL_MODULE_DIR, else the
 * directory of the running program (a build tree), else the installed
 * module directory. Return: its operations, or NULL after saying what is
 * missing and what to install.
 */
const struct chart_png_ops *chart_png_load(void);
/* Draw the chart (chart_draw()) with the module's operations into f.
 * Return: the exit status (what failed said). */
int chart_png(const struct chart_png_ops *ops, struct view_index *ix,
	      const struct view_chart_opts *o, FILE *f);

#endif
