/* SPDX-License-Identifier: MIT */
/*
 * trawl chart: the viewer's lanes as one SVG, from the same index and the
 * same windows (view_window()) as the browser draws: at most one rectangle
 * per run of equal columns, so the file grows with the width and the lanes,
 * never with the events.
 */
#include <stdlib.h>
#include <string.h>

#include "view.h"

#define LABEL_W		170
#define LANE_H		18
#define AXIS_H		28
#define MAX_CHART_LANES 1000

static const int kind_order[VIEW_LANE_KINDS] = {
	[VIEW_LANE_CPU] = 0,   [VIEW_LANE_HARDIRQ] = 1, [VIEW_LANE_SOFTIRQ] = 2,
	[VIEW_LANE_WORK] = 3,  [VIEW_LANE_COUNTER] = 4, [VIEW_LANE_MARKER] = 5,
	[VIEW_LANE_LOST] = 6,  [VIEW_LANE_ASYNC] = 7,	[VIEW_LANE_TASK] = 8,
	[VIEW_LANE_SLICE] = 9,
};

static const struct view_index *sort_ix;

static int by_place(const void *a, const void *b)
{
	const struct view_lane *x = &sort_ix->lanes[*(const uint32_t *)a];
	const struct view_lane *y = &sort_ix->lanes[*(const uint32_t *)b];
	if (kind_order[x->kind] != kind_order[y->kind])
		return kind_order[x->kind] - kind_order[y->kind];
	if (x->cpu != y->cpu)
		return x->cpu - y->cpu;
	if (x->pid != y->pid)
		return x->pid - y->pid;
	return x->depth - y->depth;
}

static void xml_text(FILE *f, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '<')
			fputs("&lt;", f);
		else if (c == '>')
			fputs("&gt;", f);
		else if (c == '&')
			fputs("&amp;", f);
		else if (c == '"')
			fputs("&quot;", f);
		else if (c < 0x20 || c == 0x7f)
			fputc('?', f);
		else if (c >= 0x80) {
			size_t k = trawl_utf8_len((const unsigned char *)s + i,
						  n - i);
			if (!k) {
				fputc('?', f);
			} else {
				fwrite(s + i, 1, k, f);
				i += k - 1;
			}
		} else {
			fputc(c, f);
		}
	}
}

static unsigned hue_of(uint64_t x)
{
	x ^= x >> 31;
	x *= 0x9e3779b97f4a7c15ull;
	x ^= x >> 29;
	return (unsigned)(x % 360);
}

/* The fill of a column's value in a lane (the browser uses the same). */
static void fill(char *out, size_t n, const struct view_index *ix,
		 const struct view_lane *l, int64_t dom)
{
	static const char *const states[] = {
		"#ffffff", "#2e9a44", "#8fd19e",
		"#d8d8d8", "#e8a33d", "#555555",
	};
	switch (l->kind) {
	case VIEW_LANE_CPU: {
		int pid = dom > 0 && (uint64_t)dom <= ix->ntasks
				  ? ix->tasks[dom - 1].pid
				  : 0;
		snprintf(out, n, "hsl(%u,60%%,55%%)", hue_of((uint64_t)pid));
		return;
	}
	case VIEW_LANE_TASK:
		snprintf(out, n, "%s",
			 states[dom >= 0 && dom <= VIEW_STATE_DEAD ? dom : 0]);
		return;
	case VIEW_LANE_HARDIRQ:
		snprintf(out, n, "hsl(%u,70%%,45%%)",
			 hue_of((uint64_t)dom) % 60);
		return;
	case VIEW_LANE_LOST:
		snprintf(out, n, "#d00000");
		return;
	default:
		snprintf(out, n, "hsl(%u,55%%,60%%)", hue_of((uint64_t)dom));
		return;
	}
}

static void axis(FILE *f, int64_t from, int64_t to, int width)
{
	double span = (double)(to - from);
	double step = 1;
	while (span / step > 10)
		step *= 10;
	if (span / step < 4)
		step /= 2;
	if (step < 1)
		step = 1;
	double first =
		(double)((from + (int64_t)step - 1) / (int64_t)step) * step;
	for (double t = first; t < (double)to; t += step) {
		double x = LABEL_W + (t - (double)from) / span * width;
		fprintf(f,
			"<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" "
			"stroke=\"#999\"/>",
			x, AXIS_H - 8, x, AXIS_H);
		fprintf(f,
			"<text x=\"%.1f\" y=\"%d\" font-size=\"10\">%.6f "
			"s</text>\n",
			x + 2, AXIS_H - 12, t / 1e9);
	}
}

static void lane_svg(FILE *f, struct view_index *ix, const struct view_lane *l,
		     int y, int64_t from, int64_t to, int width,
		     struct view_col *cols)
{
	size_t n;
	const char *name = view_string(&ix->str, l->name, &n);
	fprintf(f,
		"<g class=\"lane\" data-kind=\"%s\"><text x=\"4\" y=\"%d\" "
		"font-size=\"11\">",
		view_lane_kind_name(l->kind), y + LANE_H - 5);
	if (l->kind == VIEW_LANE_TASK || l->kind == VIEW_LANE_SLICE)
		fprintf(f, "%d ", l->pid);
	xml_text(f, name, n > 40 ? 40 : n);
	if (l->kind == VIEW_LANE_SLICE)
		fprintf(f, " [%d]", l->depth);
	fputs("</text>", f);
	view_window(ix, l, from, to, width, -1, cols);
	if (l->kind == VIEW_LANE_COUNTER) {
		int64_t lo = INT64_MAX, hi = INT64_MIN;
		for (int c = 0; c < width; c++)
			if (cols[c].min <= cols[c].max) {
				if (cols[c].min < lo)
					lo = cols[c].min;
				if (cols[c].max > hi)
					hi = cols[c].max;
			}
		if (lo > hi) {
			fputs("</g>\n", f);
			return;
		}
		double range = hi > lo ? (double)(hi - lo) : 1;
		fputs("<polyline fill=\"none\" stroke=\"#3366cc\" points=\"",
		      f);
		for (int c = 0; c < width; c++) {
			if (cols[c].min > cols[c].max)
				continue;
			double yv = y + LANE_H - 2 -
				    (double)(cols[c].max - lo) / range *
					    (LANE_H - 4);
			fprintf(f, "%d,%.1f %d,%.1f ", LABEL_W + c, yv,
				LABEL_W + c + 1, yv);
		}
		fputs("\"/></g>\n", f);
		return;
	}
	for (int c = 0; c < width;) {
		int e = c + 1;
		if (l->points) {
			if (!cols[c].count) {
				c++;
				continue;
			}
			while (e < width && cols[e].count)
				e++;
			fprintf(f,
				"<rect x=\"%d\" y=\"%d\" width=\"%d\" "
				"height=\"%d\" fill=\"%s\"/>",
				LABEL_W + c, y + 2, e - c, LANE_H - 4,
				l->kind == VIEW_LANE_LOST ? "#d00000"
							  : "#7744aa");
			c = e;
			continue;
		}
		while (e < width && cols[e].dom == cols[c].dom &&
		       cols[e].busy / 8192 == cols[c].busy / 8192)
			e++;
		if (cols[c].busy ||
		    (l->kind == VIEW_LANE_TASK && cols[c].dom)) {
			char col[48];
			fill(col, sizeof(col), ix, l, cols[c].dom);
			double h = l->kind == VIEW_LANE_TASK
					   ? LANE_H - 4
					   : 2 + (LANE_H - 6) * cols[c].busy /
							     65535.0;
			fprintf(f,
				"<rect x=\"%d\" y=\"%.1f\" width=\"%d\" "
				"height=\"%.1f\" fill=\"%s\"/>",
				LABEL_W + c, y + LANE_H - 2 - h, e - c, h, col);
		}
		c = e;
	}
	fputs("</g>\n", f);
}

int view_svg(struct view_index *ix, const struct view_chart_opts *o, FILE *f)
{
	int64_t from = o->from, to = o->to;
	if (!from && !to) {
		from = ix->first;
		to = ix->last + 1;
	}
	uint32_t *ids = malloc((ix->nlanes + 1) * sizeof(*ids));
	struct view_col *cols = malloc((size_t)o->width * sizeof(*cols));
	if (!ids || !cols) {
		free(ids);
		free(cols);
		cli_error("out of memory");
		return EXIT_ENV;
	}
	size_t n = 0;
	for (size_t i = 0; i < ix->nlanes; i++)
		if (o->kinds & (1u << ix->lanes[i].kind) &&
		    ix->lanes[i].changes)
			ids[n++] = (uint32_t)i;
	sort_ix = ix;
	if (n)
		qsort(ids, n, sizeof(*ids), by_place);
	size_t shown = n > MAX_CHART_LANES ? MAX_CHART_LANES : n;
	int height = AXIS_H + (int)shown * LANE_H + (n > shown ? LANE_H : 0);
	fprintf(f,
		"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
		"height=\"%d\" font-family=\"sans-serif\">\n"
		"<title>trawl chart: ",
		LABEL_W + o->width, height);
	xml_text(f, ix->path, strlen(ix->path));
	fprintf(f, " %.6f s .. %.6f s</title>\n", (double)from / 1e9,
		(double)to / 1e9);
	fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"#fff\"/>\n");
	axis(f, from, to, o->width);
	for (size_t i = 0; i < shown; i++)
		lane_svg(f, ix, &ix->lanes[ids[i]], AXIS_H + (int)i * LANE_H,
			 from, to, o->width, cols);
	if (n > shown)
		fprintf(f,
			"<text x=\"4\" y=\"%d\" font-size=\"11\">(%zu more "
			"lanes not drawn; choose with --lanes)</text>\n",
			height - 5, n - shown);
	/* the long handlers, marked over everything */
	for (size_t i = 0; i < ix->nlongs; i++) {
		const struct view_long_irq *q = &ix->longs[i];
		if (q->end <= from || q->start >= to)
			continue;
		double x = LABEL_W + (double)(q->start - from) /
					     (double)(to - from) * o->width;
		fprintf(f,
			"<rect class=\"isr-warning\" x=\"%.1f\" y=\"%d\" "
			"width=\"2\" height=\"8\" fill=\"#e00\"><title>%s "
			"over threshold: %lld ns</title></rect>\n",
			x, AXIS_H - 8, q->soft ? "softirq" : "hardirq",
			(long long)(q->end - q->start));
	}
	fputs("</svg>\n", f);
	free(ids);
	free(cols);
	return ferror(f) ? EXIT_ENV : EXIT_OK;
}
