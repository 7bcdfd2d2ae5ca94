/* SPDX-License-Identifier: MIT */
/*
 * trawl_event_known(): whether a subscribed name can match in this trace,
 * and the nearest one that can, for the messages that say "did you mean".
 * The names: the types seen and the trace's formats (tw_trace_format_at()),
 * then, only for a name not among them, the kernel's bundled table (its
 * load is most of the cost); kept NUL-separated in t->known_names, made
 * again only when the trace has met new types.
 */
#include <string.h>

#include "../formats/formats.h"
#include "core.h"

static int add_name(trawl_trace *t, const char *s, size_t n)
{
	return tw_buf_append(&t->mem, &t->known_names, s, n) ||
			       tw_buf_append(&t->mem, &t->known_names, "", 1)
		       ? -TRAWL_ENOMEM
		       : 0;
}

/* The trace's own names, once for the types it has met. */
static int own_names(trawl_trace *t)
{
	uint32_t types = trawl_type_count(t);
	if (t->known_names.data && t->known_types == types)
		return 0;
	t->known_names.len = 0;
	t->known_types = types;
	t->known_with_bundled = 0;
	for (uint32_t i = 0; i < types; i++) {
		const char *n = trawl_type_name(t, i);
		if (n && *n && add_name(t, n, strlen(n)))
			return -TRAWL_ENOMEM;
	}
	tw_format_ref f;
	for (size_t i = 0; tw_trace_format_at(t, i, &f); i++)
		if (f.name && add_name(t, f.name, f.name_len))
			return -TRAWL_ENOMEM;
	return tw_buf_reserve(&t->mem, &t->known_names, 1) ? -TRAWL_ENOMEM : 0;
}

/* The kernel's names after the trace's (a trace without the table is
 * left with its own). */
static int bundled_names(trawl_trace *t)
{
	if (t->known_with_bundled)
		return 0;
	t->known_with_bundled = 1;
	trawl_error err;
	if (!t->known_bundled &&
	    tw_format_set_bundled(&t->mem, &t->known_bundled, &err))
		return 0;
	for (size_t i = 0; i < tw_format_set_count(t->known_bundled); i++) {
		const tw_format_text *f = tw_format_set_at(t->known_bundled, i);
		if (add_name(t, f->name, f->name_len))
			return -TRAWL_ENOMEM;
	}
	return 0;
}

/* Whether ev is among the names from byte `from` on. */
static int among(const tw_buf *b, size_t from, const char *ev)
{
	for (size_t at = from; at < b->len; at += strlen(b->data + at) + 1)
		if (!strcmp(b->data + at, ev))
			return 1;
	return 0;
}

TRAWL_API int trawl_event_known(trawl_trace *t, const char *name,
				const char **nearest)
{
	if (nearest)
		*nearest = NULL;
	if (!t || !name || strpbrk(name, "*?["))
		return 1;
	const char *colon = strchr(name, ':');
	const char *ev = colon ? colon + 1 : name;
	if (own_names(t))
		return -TRAWL_ENOMEM;
	if (among(&t->known_names, 0, ev))
		return 1;
	size_t own = t->known_names.len;
	if (!t->known_with_bundled) {
		if (bundled_names(t))
			return -TRAWL_ENOMEM;
	} else {
		own = 0; /* the table is in already: look at everything */
	}
	if (among(&t->known_names, own, ev))
		return 1;
	if (!nearest)
		return 0;
	/* the names as a list for tw_nearest() */
	size_t count = 0;
	const tw_buf *b = &t->known_names;
	for (size_t at = 0; at < b->len; at += strlen(b->data + at) + 1)
		count++;
	const char **cands =
		tw_calloc(&t->mem, count ? count : 1, sizeof(*cands));
	if (!cands)
		return -TRAWL_ENOMEM;
	size_t k = 0;
	for (size_t at = 0; at < b->len; at += strlen(b->data + at) + 1)
		cands[k++] = b->data + at;
	*nearest = tw_nearest(ev, cands, count);
	tw_free(&t->mem, cands);
	return 0;
}
