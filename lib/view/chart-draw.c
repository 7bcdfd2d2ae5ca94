/* SPDX-License-Identifier: MIT */
/*
 * trawl chart's display list (include/trawl/timeline.h): the viewer's lanes
 * from the same index and the same windows (view_window()) as the browser
 * draws, at most one rectangle per run of equal columns, so what is drawn grows
 * with the width and the lanes, never with the events. It goes to the writer a
 * part at a time (the axis, each lane, the marks over everything).
 */
#include <stdlib.h>
#include <string.h>

#include "view.h"

#define LABEL_W		170
#define LANE_H		18
#define AXIS_H		28
#define MAX_CHART_LANES 1000
#define LEGEND_H	20
/* A name is written inside a run at least this wide, in 10 px text of
 * about CHAR_W px a character (cut to what fits). */
#define NAMED_RUN_W 36
#define CHAR_W	    6

static const int kind_order[VIEW_LANE_KINDS] = {
	[VIEW_LANE_CPU] = 0,   [VIEW_LANE_HARDIRQ] = 1, [VIEW_LANE_SOFTIRQ] = 2,
	[VIEW_LANE_WORK] = 3,  [VIEW_LANE_COUNTER] = 4, [VIEW_LANE_MARKER] = 5,
	[VIEW_LANE_LOST] = 6,  [VIEW_LANE_ASYNC] = 7,	[VIEW_LANE_TASK] = 8,
	[VIEW_LANE_SLICE] = 9,
};

static const struct view_index *sort_ix;

/* A thread's process, for grouping (itself when the trace does not say). */
static int process_of(const struct view_lane *l)
{
	const struct view_task *tk = view_task_find(sort_ix, l->pid);
	return tk && tk->tgid >= 0 ? tk->tgid : l->pid;
}

/* The browser's order (app.js): thread states and slices by process, then
 * thread, its state lane above its slices; the rest by kind and CPU. */
static int by_place(const void *a, const void *b)
{
	const struct view_lane *x = &sort_ix->lanes[*(const uint32_t *)a];
	const struct view_lane *y = &sort_ix->lanes[*(const uint32_t *)b];
	int tx = x->kind == VIEW_LANE_TASK || x->kind == VIEW_LANE_SLICE;
	int ty = y->kind == VIEW_LANE_TASK || y->kind == VIEW_LANE_SLICE;
	if (tx && ty) {
		int px = process_of(x), py = process_of(y);
		if (px != py)
			return px < py ? -1 : 1;
		if (x->pid != y->pid)
			return x->pid == px   ? -1
			       : y->pid == py ? 1
					      : (x->pid < y->pid ? -1 : 1);
		if (x->kind != y->kind)
			return x->kind == VIEW_LANE_TASK ? -1 : 1;
		return x->depth - y->depth;
	}
	if (kind_order[x->kind] != kind_order[y->kind])
		return kind_order[x->kind] - kind_order[y->kind];
	if (x->cpu != y->cpu)
		return x->cpu - y->cpu;
	if (x->pid != y->pid)
		return x->pid - y->pid;
	return x->depth - y->depth;
}

/* The part being made, and whether an addition to it failed. */
struct draw {
	trawl_chart_list dl;
	int oom;
};

/* p with room for need elements of size (at *cap), or p as it was with
 * *oom set. */
static void *grow(void *p, size_t *cap, size_t need, size_t size, int *oom)
{
	if (need <= *cap)
		return p;
	size_t nc = *cap ? *cap : 64;
	while (nc < need)
		nc *= 2;
	void *q = realloc(p, nc * size);
	if (!q) {
		*oom = 1;
		return p;
	}
	*cap = nc;
	return q;
}

static trawl_chart_item *item(struct draw *d, int op, unsigned flags, double x,
			      double y, double w, double h, const char *colour)
{
	trawl_chart_list *dl = &d->dl;
	dl->items = grow(dl->items, &dl->cap, dl->n + 1, sizeof(*dl->items),
			 &d->oom);
	if (d->oom)
		return NULL;
	trawl_chart_item *it = &dl->items[dl->n++];
	memset(it, 0, sizeof(*it));
	it->op = (uint8_t)op;
	it->flags = (uint8_t)flags;
	it->x = x;
	it->y = y;
	it->w = w;
	it->h = h;
	snprintf(it->colour, sizeof(it->colour), "%s", colour);
	return it;
}

/* Bytes added to the text pool as valid UTF-8 without control characters
 * (each byte that is neither: '?'). */
static void text_add(struct draw *d, const char *s, size_t n)
{
	trawl_chart_list *dl = &d->dl;
	dl->text = grow(dl->text, &dl->textcap, dl->ntext + n, 1, &d->oom);
	if (d->oom)
		return;
	char *o = dl->text + dl->ntext;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		size_t k =
			c >= 0x80 ? trawl_utf8_len((const unsigned char *)s + i,
						   n - i)
				  : 1;
		if (c < 0x20 || c == 0x7f || !k) {
			*o++ = '?';
			continue;
		}
		memcpy(o, s + i, k);
		o += k;
		i += k - 1;
	}
	dl->ntext = (size_t)(o - dl->text);
}

/* The text added since off ends (a NUL after it) and is the item's. */
static void text_end(struct draw *d, trawl_chart_item *it, size_t off)
{
	trawl_chart_list *dl = &d->dl;
	dl->text = grow(dl->text, &dl->textcap, dl->ntext + 1, 1, &d->oom);
	if (d->oom)
		return;
	dl->text[dl->ntext++] = '\0';
	if (!it)
		return;
	it->text = (uint32_t)off;
	it->len = (uint32_t)(dl->ntext - 1 - off);
}

static void text_item(struct draw *d, unsigned flags, double x, double y,
		      int size, const char *s, size_t n)
{
	size_t off = d->dl.ntext;
	trawl_chart_item *it = item(d, TRAWL_CHART_TEXT, flags, x, y, 0, 0, "");
	if (it)
		it->size = (uint16_t)size;
	text_add(d, s, n);
	text_end(d, it, off);
}

static void point(struct draw *d, trawl_chart_item *it, double x, double y)
{
	trawl_chart_list *dl = &d->dl;
	if (!it)
		return;
	dl->pts = grow(dl->pts, &dl->ptscap, dl->npts + 1, sizeof(*dl->pts),
		       &d->oom);
	if (d->oom)
		return;
	dl->pts[dl->npts++] = (trawl_chart_point){x, y};
	it->npts++;
}

/* The part made so far to put, then a new one. Return: -1 when it could
 * not be made whole, else what put did. */
static int flush(struct draw *d, trawl_chart_put put, void *ctx)
{
	if (d->oom)
		return -1;
	int rc = put(ctx, &d->dl);
	d->dl.n = 0;
	d->dl.ntext = 0;
	d->dl.npts = 0;
	return rc;
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

static void axis(struct draw *d, int64_t from, int64_t to, int width)
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
		item(d, TRAWL_CHART_LINE,
		     TRAWL_CHART_WHOLE_Y | TRAWL_CHART_WHOLE_H, x, AXIS_H - 8,
		     0, 8, "#999");
		char s[48];
		int n = snprintf(s, sizeof(s), "%.6f s", t / 1e9);
		text_item(d, TRAWL_CHART_WHOLE_Y | TRAWL_CHART_BREAK, x + 2,
			  AXIS_H - 12, 10, s, (size_t)n);
	}
}

static void counter(struct draw *d, int y, int width,
		    const struct view_col *cols)
{
	int64_t lo = INT64_MAX, hi = INT64_MIN;
	for (int c = 0; c < width; c++)
		if (cols[c].min <= cols[c].max) {
			if (cols[c].min < lo)
				lo = cols[c].min;
			if (cols[c].max > hi)
				hi = cols[c].max;
		}
	if (lo > hi)
		return;
	double range = hi > lo ? (double)(hi - lo) : 1;
	trawl_chart_item *it = item(d, TRAWL_CHART_STEPS, TRAWL_CHART_WHOLE_X,
				    0, 0, 0, 0, "#3366cc");
	if (it)
		it->pts = (uint32_t)d->dl.npts;
	for (int c = 0; c < width; c++) {
		if (cols[c].min > cols[c].max)
			continue;
		double yv = y + LANE_H - 2 -
			    (double)(cols[c].max - lo) / range * (LANE_H - 4);
		point(d, it, LABEL_W + c, yv);
		point(d, it, LABEL_W + c + 1, yv);
	}
}

/* What a column's value names in lane l ("comm pid" of a CPU's task, a
 * handler's, work function's or slice's name); n 0 when none. */
static const char *value_name(const struct view_index *ix,
			      const struct view_lane *l, int64_t dom, char *buf,
			      size_t cap, size_t *n)
{
	*n = 0;
	if (dom <= 0)
		return NULL;
	switch (l->kind) {
	case VIEW_LANE_CPU: {
		if ((uint64_t)dom > ix->ntasks)
			return NULL;
		const struct view_task *tk = &ix->tasks[dom - 1];
		size_t k;
		const char *comm = view_string(&ix->str, tk->comm, &k);
		int w = snprintf(buf, cap, "%.*s %d", (int)(k > 40 ? 40 : k),
				 comm, tk->pid);
		*n = w < 0 ? 0 : (size_t)w >= cap ? cap - 1 : (size_t)w;
		return buf;
	}
	case VIEW_LANE_HARDIRQ:
	case VIEW_LANE_SOFTIRQ:
	case VIEW_LANE_WORK:
	case VIEW_LANE_SLICE:
	case VIEW_LANE_ASYNC:
		if ((uint64_t)dom > ix->str.n)
			return NULL;
		return view_string(&ix->str, (uint32_t)dom - 1, n);
	default:
		return NULL;
	}
}

/* Names inside the runs wide enough for some of them, over the rects. */
static void run_names(struct draw *d, const struct view_index *ix,
		      const struct view_lane *l, int y, int width,
		      const struct view_col *cols)
{
	char buf[64];
	for (int c = 0; c < width;) {
		int e = c + 1;
		while (e < width && cols[e].dom == cols[c].dom)
			e++;
		size_t n;
		const char *s = e - c >= NAMED_RUN_W && cols[c].busy
					? value_name(ix, l, cols[c].dom, buf,
						     sizeof(buf), &n)
					: NULL;
		size_t fits = (size_t)(e - c - 4) / CHAR_W;
		if (s && n > fits) {
			n = fits;
			/* not inside a character */
			while (n && ((unsigned char)s[n] & 0xc0) == 0x80)
				n--;
		}
		if (s && n >= 2)
			text_item(d, TRAWL_CHART_WHOLE_X | TRAWL_CHART_WHOLE_Y,
				  LABEL_W + c + 2, y + LANE_H - 6, 10, s, n);
		c = e;
	}
}

/* What the colours say, under the lanes: the thread states when task
 * lanes are drawn, markers, lost events and the ISR warnings. */
static void legend(struct draw *d, int y, int tasks)
{
	static const struct {
		const char *colour, *name;
		int task;
	} keys[] = {
		{"#2e9a44", "running", 1},
		{"#8fd19e", "runnable", 1},
		{"#d8d8d8", "sleeping", 1},
		{"#e8a33d", "uninterruptible", 1},
		{"#555555", "dead", 1},
		{"#7744aa", "marker", 0},
		{"#d00000", "lost events", 0},
		{"#e00", "handler over the threshold", 0},
	};
	trawl_chart_item *g = item(d, TRAWL_CHART_GROUP, 0, 0, 0, 0, 0, "");
	size_t off = d->dl.ntext;
	if (g)
		g->cls = "legend";
	text_add(d, "legend", 6);
	text_end(d, g, off);
	double x = 4;
	for (size_t i = 0; i < sizeof(keys) / sizeof(*keys); i++) {
		if (keys[i].task && !tasks)
			continue;
		item(d, TRAWL_CHART_RECT,
		     TRAWL_CHART_WHOLE_X | TRAWL_CHART_WHOLE_Y |
			     TRAWL_CHART_WHOLE_W | TRAWL_CHART_WHOLE_H,
		     x, y + 5, 10, 10, keys[i].colour);
		size_t n = strlen(keys[i].name);
		text_item(d, TRAWL_CHART_WHOLE_X | TRAWL_CHART_WHOLE_Y, x + 14,
			  y + 14, 11, keys[i].name, n);
		x += 14 + (double)n * 6.5 + 14;
	}
	item(d, TRAWL_CHART_GROUP_END, TRAWL_CHART_BREAK, 0, 0, 0, 0, "");
}

static void lane(struct draw *d, struct view_index *ix,
		 const struct view_lane *l, int y, int64_t from, int64_t to,
		 int width, struct view_col *cols)
{
	const char *kind = view_lane_kind_name(l->kind);
	size_t off = d->dl.ntext;
	trawl_chart_item *g = item(d, TRAWL_CHART_GROUP, 0, 0, 0, 0, 0, "");
	if (g)
		g->cls = "lane";
	text_add(d, kind, strlen(kind));
	text_end(d, g, off);
	/* the label: "pid name [depth]", the name's first 40 bytes */
	size_t n;
	const char *name = view_string(&ix->str, l->name, &n);
	char pid[16] = "", depth[16] = "";
	if (l->kind == VIEW_LANE_TASK || l->kind == VIEW_LANE_SLICE)
		snprintf(pid, sizeof(pid), "%d ", l->pid);
	if (l->kind == VIEW_LANE_SLICE)
		snprintf(depth, sizeof(depth), " [%d]", l->depth);
	off = d->dl.ntext;
	trawl_chart_item *t = item(d, TRAWL_CHART_TEXT,
				   TRAWL_CHART_WHOLE_X | TRAWL_CHART_WHOLE_Y, 4,
				   y + LANE_H - 5, 0, 0, "");
	if (t)
		t->size = 11;
	text_add(d, pid, strlen(pid));
	text_add(d, name, n > 40 ? 40 : n);
	text_add(d, depth, strlen(depth));
	text_end(d, t, off);
	view_window(ix, l, from, to, width, -1, cols);
	if (l->kind == VIEW_LANE_COUNTER) {
		counter(d, y, width, cols);
		item(d, TRAWL_CHART_GROUP_END, TRAWL_CHART_BREAK, 0, 0, 0, 0,
		     "");
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
			item(d, TRAWL_CHART_RECT,
			     TRAWL_CHART_WHOLE_X | TRAWL_CHART_WHOLE_Y |
				     TRAWL_CHART_WHOLE_W | TRAWL_CHART_WHOLE_H,
			     LABEL_W + c, y + 2, e - c, LANE_H - 4,
			     l->kind == VIEW_LANE_LOST ? "#d00000" : "#7744aa");
			c = e;
			continue;
		}
		while (e < width && cols[e].dom == cols[c].dom &&
		       cols[e].busy / 8192 == cols[c].busy / 8192)
			e++;
		if (cols[c].busy ||
		    (l->kind == VIEW_LANE_TASK && cols[c].dom)) {
			char col[24];
			fill(col, sizeof(col), ix, l, cols[c].dom);
			double h = l->kind == VIEW_LANE_TASK
					   ? LANE_H - 4
					   : 2 + (LANE_H - 6) * cols[c].busy /
							     65535.0;
			item(d, TRAWL_CHART_RECT,
			     TRAWL_CHART_WHOLE_X | TRAWL_CHART_WHOLE_W,
			     LABEL_W + c, y + LANE_H - 2 - h, e - c, h, col);
		}
		c = e;
	}
	if (!l->points)
		run_names(d, ix, l, y, width, cols);
	item(d, TRAWL_CHART_GROUP_END, TRAWL_CHART_BREAK, 0, 0, 0, 0, "");
}

/* The handlers over the threshold, marked over everything. */
static void long_irqs(struct draw *d, const struct view_index *ix, int64_t from,
		      int64_t to, int width)
{
	for (size_t i = 0; i < ix->nlongs; i++) {
		const struct view_long_irq *q = &ix->longs[i];
		if (q->end <= from || q->start >= to)
			continue;
		double x = LABEL_W + (double)(q->start - from) /
					     (double)(to - from) * width;
		trawl_chart_item *it =
			item(d, TRAWL_CHART_RECT,
			     TRAWL_CHART_WHOLE_Y | TRAWL_CHART_WHOLE_W |
				     TRAWL_CHART_WHOLE_H | TRAWL_CHART_BREAK,
			     x, AXIS_H - 8, 2, 8, "#e00");
		if (it)
			it->cls = "isr-warning";
		char s[80];
		int n = snprintf(s, sizeof(s), "%s over threshold: %lld ns",
				 q->soft ? "softirq" : "hardirq",
				 (long long)(q->end - q->start));
		size_t off = d->dl.ntext;
		text_add(d, s, (size_t)n);
		text_end(d, it, off);
	}
}

int chart_draw(struct view_index *ix, const trawl_chart_opts *o,
	       trawl_chart_put put, void *ctx, trawl_error *err)
{
	int64_t from = o->from, to = o->to;
	if (!from && !to) {
		from = ix->first;
		to = ix->last + 1;
	}
	struct draw d = {0};
	int rc = -1;
	uint32_t *ids = malloc((ix->nlanes + 1) * sizeof(*ids));
	struct view_col *cols = malloc((size_t)o->width * sizeof(*cols));
	if (!ids || !cols) {
		d.oom = 1;
		goto out;
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
	d.dl.width = LABEL_W + o->width;
	int tasks = 0;
	for (size_t i = 0; i < shown; i++)
		tasks |= ix->lanes[ids[i]].kind == VIEW_LANE_TASK;
	int legend_y = AXIS_H + (int)shown * LANE_H + (n > shown ? LANE_H : 0);
	d.dl.height = legend_y + LEGEND_H;
	snprintf(d.dl.background, sizeof(d.dl.background), "#fff");
	/* the title, made valid UTF-8 as the texts are */
	char span[64];
	int ns = snprintf(span, sizeof(span), " %.6f s .. %.6f s",
			  (double)from / 1e9, (double)to / 1e9);
	text_add(&d, "trawl chart: ", 13);
	text_add(&d, ix->path, strlen(ix->path));
	text_add(&d, span, (size_t)ns);
	text_end(&d, NULL, 0);
	if (d.oom || !(d.dl.title = strdup(d.dl.text))) {
		d.oom = 1;
		goto out;
	}
	d.dl.ntext = 0;
	axis(&d, from, to, o->width);
	if ((rc = flush(&d, put, ctx)))
		goto out;
	for (size_t i = 0; i < shown; i++) {
		lane(&d, ix, &ix->lanes[ids[i]], AXIS_H + (int)i * LANE_H, from,
		     to, o->width, cols);
		if ((rc = flush(&d, put, ctx)))
			goto out;
	}
	if (n > shown) {
		char s[80];
		int k = snprintf(s, sizeof(s),
				 "(%zu more lanes not drawn; choose with "
				 "--lanes)",
				 n - shown);
		text_item(&d,
			  TRAWL_CHART_WHOLE_X | TRAWL_CHART_WHOLE_Y |
				  TRAWL_CHART_BREAK,
			  4, d.dl.height - 5, 11, s, (size_t)k);
	}
	if ((rc = flush(&d, put, ctx)))
		goto out;
	legend(&d, legend_y, tasks);
	if ((rc = flush(&d, put, ctx)))
		goto out;
	long_irqs(&d, ix, from, to, o->width);
	rc = flush(&d, put, ctx);
out:
	if (d.oom) {
		tw_error_at(err, TRAWL_ENOMEM, 0, NULL, 0, 0, 0,
			    "out of memory while drawing the chart");
		rc = -TRAWL_ENOMEM;
	}
	free(ids);
	free(cols);
	free(d.dl.items);
	free(d.dl.text);
	free(d.dl.pts);
	free(d.dl.title);
	return rc;
}
