/* SPDX-License-Identifier: MIT */
/* The JSON answers' buffer (view-out.h). */
#include <stdlib.h>

#include "../util/util.h"
#include "view-out.h"

char *vo_room(struct view_out *b, size_t n)
{
	if (b->oom)
		return NULL;
	if (b->cap - b->n < n) {
		/* the library's growth (doubling, overflow checked) */
		tw_mem mem;
		tw_mem_init(&mem, NULL, NULL);
		void *p = b->p;
		if (n > SIZE_MAX - b->n ||
		    tw_grow(&mem, &p, &b->cap, b->n + n, 1)) {
			b->oom = 1;
			return NULL;
		}
		b->p = p;
	}
	return b->p + b->n;
}

void vo_bytes(struct view_out *b, const char *s, size_t n)
{
	char *o = vo_room(b, n);
	if (!o)
		return;
	if (n)
		memcpy(o, s, n);
	b->n += n;
}

void vo_u64(struct view_out *b, uint64_t v)
{
	char t[24], *e = t + sizeof(t);
	char *p = tw_digits(v, e);
	vo_bytes(b, p, (size_t)(e - p));
}

void vo_i64(struct view_out *b, int64_t v)
{
	if (v < 0) {
		vo_char(b, '-');
		vo_u64(b, 0 - (uint64_t)v);
	} else {
		vo_u64(b, (uint64_t)v);
	}
}

void vo_json(struct view_out *b, const char *s, size_t n)
{
	char *o = vo_room(b, 6 * n + 2);
	if (o)
		b->n = (size_t)(trawl_json_quote(o, s, n) - b->p);
}

void vo_free(struct view_out *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}
