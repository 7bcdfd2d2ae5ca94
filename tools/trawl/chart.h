/* SPDX-License-Identifier: MIT */
/*
 * trawl chart's drawing, apart from its file format: chart-draw.c makes a
 * display list of the chart from the index (rectangles, lines, texts and
 * step lines with their colours, in drawing order) and hands it to a
 * writer a lane at a time, so memory stays that of one lane whatever the
 * chart's size. The writer: SVG (view-svg.c).
 */
#ifndef TRAWL_CHART_H
#define TRAWL_CHART_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>


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

#endif
