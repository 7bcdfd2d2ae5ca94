/* SPDX-License-Identifier: MIT */
/*
 * trawl chart's SVG writer: the display list of chart-draw.c
 * (include/trawl/timeline.h) as SVG elements, a part at a time as it comes, so
 * the file is written as the chart is drawn. Each lane is a <g class="lane"
 * data-kind="...">.
 */
#include <string.h>

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

static void put_item(FILE *f, const trawl_chart_list *dl,
		     const trawl_chart_item *it)
{
	unsigned w = it->flags;
	const char *text = dl->text + it->text;
	switch (it->op) {
	case TRAWL_CHART_RECT:
		fputs("<rect", f);
		if (it->cls)
			fprintf(f, " class=\"%s\"", it->cls);
		num(f, "x", it->x, w & TRAWL_CHART_WHOLE_X);
		num(f, "y", it->y, w & TRAWL_CHART_WHOLE_Y);
		num(f, "width", it->w, w & TRAWL_CHART_WHOLE_W);
		num(f, "height", it->h, w & TRAWL_CHART_WHOLE_H);
		fprintf(f, " fill=\"%s\"", it->colour);
		if (!it->len) {
			fputs("/>", f);
			break;
		}
		fputs("><title>", f);
		xml_text(f, text, it->len);
		fputs("</title></rect>", f);
		break;
	case TRAWL_CHART_LINE:
		fputs("<line", f);
		num(f, "x1", it->x, w & TRAWL_CHART_WHOLE_X);
		num(f, "y1", it->y, w & TRAWL_CHART_WHOLE_Y);
		num(f, "x2", it->x + it->w,
		    (w & TRAWL_CHART_WHOLE_X) && (w & TRAWL_CHART_WHOLE_W));
		num(f, "y2", it->y + it->h,
		    (w & TRAWL_CHART_WHOLE_Y) && (w & TRAWL_CHART_WHOLE_H));
		fprintf(f, " stroke=\"%s\"/>", it->colour);
		break;
	case TRAWL_CHART_TEXT:
		fputs("<text", f);
		num(f, "x", it->x, w & TRAWL_CHART_WHOLE_X);
		num(f, "y", it->y, w & TRAWL_CHART_WHOLE_Y);
		if (it->colour[0])
			fprintf(f, " fill=\"%s\"", it->colour);
		fprintf(f, " font-size=\"%u\">", it->size);
		xml_text(f, text, it->len);
		fputs("</text>", f);
		break;
	case TRAWL_CHART_STEPS:
		fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" points=\"",
			it->colour);
		for (uint32_t i = 0; i < it->npts; i++) {
			const trawl_chart_point *p = &dl->pts[it->pts + i];
			if (w & TRAWL_CHART_WHOLE_X)
				fprintf(f, "%d,%.1f ", (int)p->x, p->y);
			else
				fprintf(f, "%.1f,%.1f ", p->x, p->y);
		}
		fputs("\"/>", f);
		break;
	case TRAWL_CHART_GROUP:
		fprintf(f, "<g class=\"%s\" data-kind=\"", it->cls);
		xml_text(f, text, it->len);
		fputs("\">", f);
		break;
	case TRAWL_CHART_GROUP_END:
		fputs("</g>", f);
		break;
	}
	if (w & TRAWL_CHART_BREAK)
		fputc('\n', f);
}

struct svg {
	FILE *f;
	int started;
};

static int put_part(void *ctx, const trawl_chart_list *dl)
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

int view_svg(struct view_index *ix, const trawl_chart_opts *o, FILE *f,
	     trawl_error *err)
{
	struct svg s = {.f = f};
	int rc = chart_draw(ix, o, put_part, &s, err);
	if (rc)
		return rc < 0 ? rc : -TRAWL_EIO;
	fputs("</svg>\n", f);
	if (ferror(f))
		return tw_error_at(err, TRAWL_EIO, 0, NULL, 0, 0, 0,
				   "cannot write the SVG");
	return 0;
}
