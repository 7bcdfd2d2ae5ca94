/* SPDX-License-Identifier: MIT */
/*
 * The JSON answers' text (view-api.c, view-events.c, view-summary.c): one
 * growing buffer. An append that fails sets oom and the answer is then
 * refused whole (trawl_timeline_query()'s 503), never sent cut.
 */
#ifndef TRAWL_VIEW_OUT_H
#define TRAWL_VIEW_OUT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "trawl/trawl.h"

struct view_out {
	char *p;
	size_t n, cap;
	int oom;
};

/* Room for n more bytes at p + n (NULL: oom is set). */
char *vo_room(struct view_out *b, size_t n);
void vo_bytes(struct view_out *b, const char *s, size_t n);
void vo_u64(struct view_out *b, uint64_t v);
void vo_i64(struct view_out *b, int64_t v);
/* s[0..n) as a JSON string, quotes included (trawl_json_quote()). */
void vo_json(struct view_out *b, const char *s, size_t n);
void vo_free(struct view_out *b);

static inline void vo_str(struct view_out *b, const char *s)
{
	vo_bytes(b, s, strlen(s));
}

static inline void vo_char(struct view_out *b, char c)
{
	if (b->n < b->cap)
		b->p[b->n++] = c;
	else
		vo_bytes(b, &c, 1);
}

/* An event's fields and their notes, as `trawl report --json` has them. */
static inline void vo_fields(struct view_out *b, const trawl_event *ev)
{
	size_t n;
	const char *j = trawl_event_fields_json(ev, &n);
	vo_bytes(b, j, n);
}

static inline void vo_field_notes(struct view_out *b, const trawl_event *ev)
{
	size_t n;
	const char *j = trawl_event_field_notes_json(ev, &n);
	vo_bytes(b, j, n);
}

#endif
