/* SPDX-License-Identifier: MIT */
/*
 * trawl chart's SVG writer: the display list of chart-draw.c (chart.h) as
 * SVG elements, a part at a time as it comes, so the file is written as
 * the chart is drawn. Each lane is a <g class="lane" data-kind="...">.
 */
#include <string.h>

#include "chart.h"
#include "view.h"

/* Text of the list (valid UTF-8, no control characters) as XML text. */
static void xml_text(FILE *f, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (c == '<')
			fputs("&lt;", f);
		else if (c == '>')
			fputs("&gt;", f);
		else if (c == '&')
			fputs("&amp;", f);
		else if (c == '"')
			fputs("&quot;", f);
		else
			fputc(c, f);
	}
}

/* A coordinate: whole pixels as an integer, else with one decimal. */
static void num(FILE *f, const char *name, double v, int whole)
{
	if (whole)
		fprintf(f, " %s=\"%d\"", name, (int)v);
	else
		fprintf(f, " %s=\"%.1f\"", name, v);
}

static void put_item(FILE *f, const struct chart_list *dl,
		     const struct chart_item *it)
{
	unsigned w = it->flags;
	const char *text = dl->text + it->text;
	switch (it->op) {
	case CHART_RECT:
		fputs("<rect", f);
		if (it->cls)
			fprintf(f, " class=\"%s\"", it->cls);
		num(f, "x", it->x, w & CHART_WHOLE_X);
		num(f, "y", it->y, w & CHART_WHOLE_Y);
		num(f, "width", it->w, w & CHART_WHOLE_W);
		num(f, "height", it->h, w & CHART_WHOLE_H);
		fprintf(f, " fill=\"%s\"", it->colour);
		if (!it->len) {
			fputs("/>", f);
			break;
		}
		fputs("><title>", f);
		xml_text(f, text, it->len);
		fputs("</title></rect>", f);
		break;
	case CHART_LINE:
		fputs("<line", f);
		num(f, "x1", it->x, w & CHART_WHOLE_X);
		num(f, "y1", it->y, w & CHART_WHOLE_Y);
		num(f, "x2", it->x + it->w,
		    (w & CHART_WHOLE_X) && (w & CHART_WHOLE_W));
		num(f, "y2", it->y + it->h,
		    (w & CHART_WHOLE_Y) && (w & CHART_WHOLE_H));
		fprintf(f, " stroke=\"%s\"/>", it->colour);
		break;
	case CHART_TEXT:
		fputs("<text", f);
		num(f, "x", it->x, w & CHART_WHOLE_X);
		num(f, "y", it->y, w & CHART_WHOLE_Y);
		if (it->colour[0])
			fprintf(f, " fill=\"%s\"", it->colour);
		fprintf(f, " font-size=\"%u\">", it->size);
		xml_text(f, text, it->len);
		fputs("</text>", f);
		break;
	case CHART_STEPS:
		fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" points=\"",
			it->colour);
		for (uint32_t i = 0; i < it->npts; i++) {
			const struct chart_point *p = &dl->pts[it->pts + i];
			if (w & CHART_WHOLE_X)
				fprintf(f, "%d,%.1f ", (int)p->x, p->y);
			else
				fprintf(f, "%.1f,%.1f ", p->x, p->y);
		}
		fputs("\"/>", f);
		break;
	case CHART_GROUP:
		fprintf(f, "<g class=\"%s\" data-kind=\"", it->cls);
		xml_text(f, text, it->len);
		fputs("\">", f);
		break;
	case CHART_GROUP_END:
		fputs("</g>", f);
		break;
	}
	if (w & CHART_BREAK)
		fputc('\n', f);
}

struct svg {
	FILE *f;
	int started;
};

static int put_part(void *ctx, const struct chart_list *dl)
{
	struct svg *s = ctx;
	FILE *f = s->f;
	if (!s->started) {
		s->started = 1;
		fprintf(f,
			"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
			"<svg xmlns=\"http://www.w3.org/2000/svg\" "
			"width=\"%d\" height=\"%d\" "
			"font-family=\"sans-serif\">\n<title>",
			dl->width, dl->height);
		xml_text(f, dl->title, strlen(dl->title));
		fprintf(f,
			"</title>\n<rect width=\"100%%\" height=\"100%%\" "
			"fill=\"%s\"/>\n",
			dl->background);
	}
	for (size_t i = 0; i < dl->n; i++)
		put_item(f, dl, &dl->items[i]);
	return ferror(f) ? 1 : 0;
}

int view_svg(struct view_index *ix, const struct view_chart_opts *o, FILE *f)
{
	struct svg s = {.f = f};
	int rc = chart_draw(ix, o, put_part, &s);
	if (rc)
		return EXIT_ENV;
	fputs("</svg>\n", f);
	return ferror(f) ? EXIT_ENV : EXIT_OK;
}
