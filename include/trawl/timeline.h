/* SPDX-License-Identifier: MIT */
/*
 * Timelines: the engine of `trawl view` and `trawl chart`, for any program.
 * A trace becomes lanes (what each CPU runs, its interrupts, work items,
 * frequency and idle state; each task's state; slices, counters, markers,
 * lost events), indexed in one pass at every level of detail, or loaded
 * from the user's cache; windows of it are asked at a pixel width, as
 * JSON (the API the viewer's page speaks, docs/view-api.md), and drawn as
 * charts (SVG, or a display list any drawing library can paint).
 *
 *	trawl_timeline *tl = trawl_timeline_open("trace.dat", NULL, &err);
 *	char *json; size_t len;
 *	const char *k[] = {"lanes", "width"}, *v[] = {"0,1", "800"};
 *	trawl_timeline_query(tl, "/api/window", k, v, 2, &json, &len);
 *	trawl_chart_opts co = {.width = 1200, .kinds = TRAWL_CHART_DEFAULT};
 *	trawl_timeline_svg(tl, &co, stdout, &err);
 *	trawl_timeline_close(tl);
 */
#ifndef TRAWL_TIMELINE_H
#define TRAWL_TIMELINE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "error.h"
#include "trace.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct trawl_timeline trawl_timeline;

/* trawl_timeline_opts.flags */
#define TRAWL_TIMELINE_NO_CACHE 1u /* neither read nor write the cache */

/**
 * struct trawl_timeline_opts - how a timeline is made
 * @open:          how the trace is read (trawl_open()'s options; its
 *                 progress callback reports the indexing pass)
 * @irq_threshold: handlers running longer are warned of, in ns (0: 1 ms)
 * @flags:         TRAWL_TIMELINE_*
 * @warn:          called with a message when something goes wrong that
 *                 does not stop the index (a spill file that cannot be
 *                 written, a cache that cannot be saved); NULL: quiet
 * @warn_ctx:      passed to @warn
 */
typedef struct trawl_timeline_opts {
	trawl_open_opts open;
	int64_t irq_threshold;
	unsigned flags;
	void (*warn)(void *ctx, const char *msg);
	void *warn_ctx;
} trawl_timeline_opts;

/**
 * trawl_timeline_open() - index a trace, or load its index from the cache
 * @path: the trace ("-": standard input, read once: its index keeps all)
 * @opts: NULL for the defaults
 * @err:  OUT: why it failed
 *
 * A regular file's index is kept in the user's cache directory
 * ($XDG_CACHE_HOME/trawl, else ~/.cache/trawl) under a name made from the
 * file's path, size, time and the options, and loaded from there the next
 * time. The index keeps what fits in an eighth of the trace's data and
 * reads the rest back from the trace when a window needs it.
 *
 * Return: the timeline, or NULL with @err set (the trace cannot be read,
 * out of memory: %TRAWL_ENOMEM, a spill file that cannot be read back:
 * %TRAWL_EIO).
 */
TRAWL_API trawl_timeline *trawl_timeline_open(const char *path,
					      const trawl_timeline_opts *opts,
					      trawl_error *err);

/**
 * trawl_timeline_close() - free a timeline
 * @tl: the timeline, or NULL
 */
TRAWL_API void trawl_timeline_close(trawl_timeline *tl);

/**
 * struct trawl_timeline_info - what a timeline holds
 * @first:  the trace's first event's time, in ns
 * @last:   its last event's time
 * @events: events read
 * @lost:   events the trace says were lost
 * @lanes:  lanes
 * @bytes:  memory the index holds
 * @cached: 1 when it was loaded from the cache
 */
typedef struct trawl_timeline_info {
	int64_t first, last;
	uint64_t events, lost;
	size_t lanes, bytes;
	int cached;
} trawl_timeline_info;

/**
 * trawl_timeline_get_info() - what a timeline holds
 * @tl:  the timeline
 * @out: OUT: its figures
 */
TRAWL_API void trawl_timeline_get_info(const trawl_timeline *tl,
				       trawl_timeline_info *out);

/**
 * trawl_timeline_follow() - say that a timeline follows a growing file
 * @tl:         the timeline
 * @following:  1 while a newer index of the same file may replace it
 * @generation: how many indexes of the file came before it
 *
 * What /api/info reports as "follow" and "generation", so that a page
 * knows when to ask again (`trawl view --follow`). Safe to call while
 * queries run.
 */
TRAWL_API void trawl_timeline_follow(trawl_timeline *tl, int following,
				     uint64_t generation);

/**
 * trawl_timeline_generation() - the generation set by trawl_timeline_follow()
 * @tl: the timeline
 *
 * Return: the generation (0 unless set).
 */
TRAWL_API uint64_t trawl_timeline_generation(const trawl_timeline *tl);

/**
 * trawl_timeline_query() - answer one request of the viewer's JSON API
 * @tl:     the timeline
 * @path:   "/api/info", "/api/window", "/api/detail", "/api/search",
 *          "/api/analysis", "/api/events" or "/api/summary"
 *          (docs/view-api.md)
 * @keys:   the parameters' names
 * @values: their values, decoded
 * @n:      how many (at most 16; more is a 400)
 * @body:   OUT: the answer, JSON ending in a newline ({"error": "..."} for
 *          a refusal), to free()
 * @len:    OUT: its length
 *
 * Several threads may query one timeline at once.
 *
 * Return: an HTTP status: 200, 400 (a bad parameter, named in the error),
 * 404 (no such request), 503 (out of memory, or the trace could not be
 * read again).
 */
TRAWL_API int trawl_timeline_query(trawl_timeline *tl, const char *path,
				   const char *const *keys,
				   const char *const *values, size_t n,
				   char **body, size_t *len);

/* The widest chart and window, in pixels. */
#define TRAWL_CHART_MAX_WIDTH 8192

/* Lane kinds, as bits of trawl_chart_opts.kinds (trawl_chart_kinds()). */
#define TRAWL_CHART_DEFAULT (~0u & ~(1u << 1)) /* all but thread states */

/**
 * struct trawl_chart_opts - a chart's window and lanes
 * @from:  the window's start, in ns (@from and @to 0: the whole trace)
 * @to:    its end
 * @width: pixels of timeline (the lane labels come beside)
 * @kinds: the lane kinds drawn, bits from trawl_chart_kinds()
 */
typedef struct trawl_chart_opts {
	int64_t from, to;
	int width;
	unsigned kinds;
} trawl_chart_opts;

/**
 * trawl_chart_kinds() - lane kinds by name, as trawl_chart_opts.kinds
 * @list: comma-separated kinds (cpu, task, hardirq, softirq, workqueue,
 *        slice, async, counter, marker, lost), or "all"
 * @out:  OUT: their bits
 * @err:  OUT: the name not known
 *
 * Return: 0, or %-TRAWL_EINVAL with @err naming the kind not known.
 */
TRAWL_API int trawl_chart_kinds(const char *list, unsigned *out,
				trawl_error *err);

/**
 * trawl_timeline_svg() - a chart of a timeline's window as SVG
 * @tl:   the timeline
 * @opts: window, width and lanes
 * @f:    where the SVG goes
 * @err:  OUT: why it failed
 *
 * At most one rectangle per run of equal pixels: the file's size grows
 * with the width and the lanes, never with the events.
 *
 * Return: 0, or a negative TRAWL_E* code with @err set (%TRAWL_EIO: @f
 * could not be written).
 */
TRAWL_API int trawl_timeline_svg(trawl_timeline *tl,
				 const trawl_chart_opts *opts, FILE *f,
				 trawl_error *err);

/* A chart as drawing operations (trawl_timeline_draw()). */
enum trawl_chart_op {
	TRAWL_CHART_RECT,      /* filled: x, y, w, h */
	TRAWL_CHART_LINE,      /* stroked, 1 px: (x, y) to (x + w, y + h) */
	TRAWL_CHART_TEXT,      /* its baseline starts at (x, y); size px */
	TRAWL_CHART_STEPS,     /* stroked, 1 px, through the points pts.. */
	TRAWL_CHART_GROUP,     /* the items up to TRAWL_CHART_GROUP_END are
				* one lane; text: its kind */
	TRAWL_CHART_GROUP_END, /* nothing drawn */
};

/* Which of x, y, w, h (and the points' x) are whole pixels. */
#define TRAWL_CHART_WHOLE_X 1u
#define TRAWL_CHART_WHOLE_Y 2u
#define TRAWL_CHART_WHOLE_W 4u
#define TRAWL_CHART_WHOLE_H 8u
/* A text format may break its line after this item (nothing drawn). */
#define TRAWL_CHART_BREAK 16u

/* The layout of the structs below: one more at every change. */
#define TRAWL_CHART_ABI 1

typedef struct trawl_chart_point {
	double x, y;
} trawl_chart_point;

/**
 * struct trawl_chart_item - one drawing operation
 * @op:     enum trawl_chart_op
 * @flags:  TRAWL_CHART_WHOLE_*, TRAWL_CHART_BREAK
 * @size:   a text's font size, px
 * @x:      where it is (see enum trawl_chart_op)
 * @y:      where it is
 * @w:      how wide
 * @h:      how high
 * @colour: the fill (rectangles, texts) or stroke: "#rgb", "#rrggbb" or
 *          "hsl(H,S%,L%)"; "" (texts only): black
 * @cls:    a class for the rectangle or group (an SVG's), or NULL
 * @text:   a text, a group's kind, a rectangle's tooltip: bytes of
 *          trawl_chart_list.text, valid UTF-8 without control characters
 * @len:    its length (0: none)
 * @pts:    TRAWL_CHART_STEPS: its first point in trawl_chart_list.pts
 * @npts:   how many
 */
typedef struct trawl_chart_item {
	uint8_t op;
	uint8_t flags;
	uint16_t size;
	double x, y, w, h;
	char colour[24];
	const char *cls;
	uint32_t text, len;
	uint32_t pts, npts;
} trawl_chart_item;

/**
 * struct trawl_chart_list - a part of a chart
 * @width:      the whole image's size, px
 * @height:     the whole image's height
 * @title:      the whole image's title, valid UTF-8
 * @background: its background colour
 * @items:      the part's items, in drawing order
 * @n:          how many
 * @cap:        room (the drawer's)
 * @text:       the texts' bytes
 * @ntext:      how many
 * @textcap:    room
 * @pts:        the step lines' points
 * @npts:       how many
 * @ptscap:     room
 */
typedef struct trawl_chart_list {
	int width, height;
	char *title;
	char background[24];
	trawl_chart_item *items;
	size_t n, cap;
	char *text;
	size_t ntext, textcap;
	trawl_chart_point *pts;
	size_t npts, ptscap;
} trawl_chart_list;

/* Gets the chart a part at a time (the axis, each lane, the legend, the
 * marks over everything); the items are gone when it returns. Return: 0
 * to go on, else trawl_timeline_draw() stops and returns it. */
typedef int (*trawl_chart_put)(void *ctx, const trawl_chart_list *part);

/**
 * trawl_timeline_draw() - a chart of a timeline's window as drawing operations
 * @tl:   the timeline
 * @opts: window, width and lanes
 * @put:  gets the chart a part at a time
 * @ctx:  passed to @put
 * @err:  OUT: why it failed
 *
 * The same chart as trawl_timeline_svg() writes, for any drawing library
 * (trawl chart's PNG writer paints it with cairo). Memory stays that of
 * one lane, whatever the chart's size.
 *
 * Return: 0, %-TRAWL_ENOMEM with @err set, or what @put returned.
 */
TRAWL_API int trawl_timeline_draw(trawl_timeline *tl,
				  const trawl_chart_opts *opts,
				  trawl_chart_put put, void *ctx,
				  trawl_error *err);

#ifdef __cplusplus
}
#endif

#endif
