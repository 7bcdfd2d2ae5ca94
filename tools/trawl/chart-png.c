/* SPDX-License-Identifier: MIT */
/*
 * trawl chart's PNG writer, the module trawl-chart-png.so: the display
 * list of chart-draw.c (chart.h) drawn with cairo on an RGB image surface,
 * a part at a time, then written as a PNG. It is a module of its own so
 * that only trawl chart -o X.png maps cairo and what cairo needs (pixman,
 * fontconfig, freetype, libpng): chart-module.c loads it then. It exports
 * one symbol, trawl_chart_png (its operations), and calls nothing of
 * trawl's.
 */
#include <cairo.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chart.h"

#define EXPORT __attribute__((visibility("default")))

struct canvas {
	cairo_surface_t *s;
	cairo_t *cr;
};

static double hue_rgb(double p, double q, double t)
{
	if (t < 0)
		t += 1;
	if (t > 1)
		t -= 1;
	if (t < 1.0 / 6)
		return p + (q - p) * 6 * t;
	if (t < 1.0 / 2)
		return q;
	if (t < 2.0 / 3)
		return p + (q - p) * (2.0 / 3 - t) * 6;
	return p;
}

static int hex(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* A CSS colour of the list ("#rgb", "#rrggbb", "hsl(H,S%,L%)", "" black)
 * as red, green and blue in [0, 1] (CSS Color 3, "HSL color values").
 * Return: 0, or -1 when it is none of these. */
static int colour(const char *css, double rgb[3])
{
	size_t n = strlen(css);
	rgb[0] = rgb[1] = rgb[2] = 0;
	if (!n)
		return 0;
	if (css[0] == '#' && (n == 4 || n == 7)) {
		int k = n == 4 ? 1 : 2;
		for (int i = 0; i < 3; i++) {
			int a = hex(css[1 + i * k]);
			int b = k == 2 ? hex(css[2 + i * k]) : a;
			if (a < 0 || b < 0)
				return -1;
			rgb[i] = (a * 16 + b) / 255.0;
		}
		return 0;
	}
	double h, s, l;
	char end;
	if (sscanf(css, "hsl(%lf,%lf%%,%lf%%%c", &h, &s, &l, &end) != 4 ||
	    end != ')')
		return -1;
	h /= 360;
	s /= 100;
	l /= 100;
	double q = l < 0.5 ? l * (1 + s) : l + s - l * s, p = 2 * l - q;
	rgb[0] = hue_rgb(p, q, h + 1.0 / 3);
	rgb[1] = hue_rgb(p, q, h);
	rgb[2] = hue_rgb(p, q, h - 1.0 / 3);
	return 0;
}

static int source(struct canvas *c, const char *css, char *why, size_t len)
{
	double rgb[3];
	if (colour(css, rgb)) {
		snprintf(why, len, "cannot draw colour '%s'", css);
		return -1;
	}
	cairo_set_source_rgb(c->cr, rgb[0], rgb[1], rgb[2]);
	return 0;
}

static int failed(struct canvas *c, char *why, size_t len)
{
	cairo_status_t st = cairo_status(c->cr);
	if (st == CAIRO_STATUS_SUCCESS)
		return 0;
	snprintf(why, len, "cairo: %s", cairo_status_to_string(st));
	return -1;
}

static void *png_open(const trawl_chart_list *dl, char *why, size_t len)
{
	struct canvas *c = calloc(1, sizeof(*c));
	if (!c) {
		snprintf(why, len, "out of memory");
		return NULL;
	}
	c->s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, dl->width,
					  dl->height);
	c->cr = cairo_create(c->s);
	if (failed(c, why, len) || source(c, dl->background, why, len)) {
		cairo_destroy(c->cr);
		cairo_surface_destroy(c->s);
		free(c);
		return NULL;
	}
	cairo_paint(c->cr);
	cairo_select_font_face(c->cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL,
			       CAIRO_FONT_WEIGHT_NORMAL);
	cairo_set_line_width(c->cr, 1);
	return c;
}

static int png_draw(void *canvas, const trawl_chart_list *dl, char *why,
		    size_t len)
{
	struct canvas *c = canvas;
	cairo_t *cr = c->cr;
	for (size_t i = 0; i < dl->n; i++) {
		const trawl_chart_item *it = &dl->items[i];
		if (it->op == TRAWL_CHART_GROUP || it->op == TRAWL_CHART_GROUP_END)
			continue;
		if (source(c, it->colour, why, len))
			return -1;
		switch (it->op) {
		case TRAWL_CHART_RECT:
			cairo_rectangle(cr, it->x, it->y, it->w, it->h);
			cairo_fill(cr);
			break;
		case TRAWL_CHART_LINE:
			cairo_move_to(cr, it->x, it->y);
			cairo_line_to(cr, it->x + it->w, it->y + it->h);
			cairo_stroke(cr);
			break;
		case TRAWL_CHART_TEXT:
			cairo_set_font_size(cr, it->size);
			cairo_move_to(cr, it->x, it->y);
			cairo_show_text(cr, dl->text + it->text);
			break;
		case TRAWL_CHART_STEPS:
			for (uint32_t k = 0; k < it->npts; k++) {
				const trawl_chart_point *p =
					&dl->pts[it->pts + k];
				if (k)
					cairo_line_to(cr, p->x, p->y);
				else
					cairo_move_to(cr, p->x, p->y);
			}
			cairo_stroke(cr);
			break;
		}
	}
	return failed(c, why, len);
}

static cairo_status_t write_out(void *f, const unsigned char *data,
				unsigned int n)
{
	return fwrite(data, 1, n, f) == n ? CAIRO_STATUS_SUCCESS
					  : CAIRO_STATUS_WRITE_ERROR;
}

static int png_close(void *canvas, FILE *f, char *why, size_t len)
{
	struct canvas *c = canvas;
	int rc = 0;
	if (f) {
		cairo_surface_flush(c->s);
		cairo_status_t st =
			cairo_surface_write_to_png_stream(c->s, write_out, f);
		if (st != CAIRO_STATUS_SUCCESS) {
			snprintf(why, len, "cairo: %s",
				 cairo_status_to_string(st));
			rc = -1;
		}
	}
	cairo_destroy(c->cr);
	cairo_surface_destroy(c->s);
	free(c);
	return rc;
}

EXPORT const struct chart_png_ops trawl_chart_png = {
	.abi = TRAWL_CHART_ABI,
	.open = png_open,
	.draw = png_draw,
	.close = png_close,
};
