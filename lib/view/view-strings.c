/* SPDX-License-Identifier: MIT */
/*
 * Interned strings of the index: comms, handler, work function, slice and
 * counter names, marker texts. One pool, an id per distinct text, at most
 * VIEW_STRINGS_MAX bytes (marker texts beyond that share one id saying so).
 */
#include <stdlib.h>
#include <string.h>

#include "view.h"

#define MAX_LEN 1024

static uint64_t hash(const char *p, size_t n)
{
	uint64_t h = 1469598103934665603ull;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)p[i]) * 1099511628211ull;
	return h;
}

static int rehash(struct view_strings *s)
{
	size_t cap = s->tcap ? s->tcap * 2 : 1024;
	while (cap < 2 * ((size_t)s->n + 1))
		cap *= 2;
	uint32_t *t = calloc(cap, sizeof(*t));
	if (!t)
		return -1;
	for (uint32_t id = 0; id < s->n; id++) {
		size_t len;
		const char *p = view_string(s, id, &len);
		size_t i = hash(p, len) & (cap - 1);
		while (t[i])
			i = (i + 1) & (cap - 1);
		t[i] = id + 1;
	}
	free(s->table);
	s->table = t;
	s->tcap = cap;
	return 0;
}

const char *view_string(const struct view_strings *s, uint32_t id, size_t *len)
{
	if (id >= s->n) {
		*len = 0;
		return "";
	}
	*len = (size_t)(s->offs[id] & 0xffff);
	return s->pool + (s->offs[id] >> 16);
}

static uint32_t add(struct view_strings *s, const char *p, size_t n)
{
	if (s->used + n + 1 > s->cap) {
		size_t cap = s->cap ? s->cap : 4096;
		while (cap < s->used + n + 1)
			cap *= 2;
		char *q = realloc(s->pool, cap);
		if (!q)
			return UINT32_MAX;
		s->pool = q;
		s->cap = cap;
	}
	if (s->n == s->ncap) {
		uint32_t nc = s->ncap ? s->ncap * 2 : 256;
		uint64_t *o = realloc(s->offs, nc * sizeof(*o));
		if (!o)
			return UINT32_MAX;
		s->offs = o;
		s->ncap = nc;
	}
	memcpy(s->pool + s->used, p, n);
	s->pool[s->used + n] = '\0';
	s->offs[s->n] = (uint64_t)s->used << 16 | n;
	s->used += n + 1;
	return s->n++;
}

/* What stands in for texts that no longer fit. */
static const char full[] = "(text not kept: the index's strings are full)";

/* p[0..n)'s slot in the table: its id + 1 there, or 0 at the empty slot
 * where it would go (*slot either way). The table must exist. */
static uint32_t probe(const struct view_strings *s, const char *p, size_t n,
		      size_t *slot)
{
	size_t i = hash(p, n) & (s->tcap - 1);
	for (; s->table[i]; i = (i + 1) & (s->tcap - 1)) {
		size_t len;
		const char *q = view_string(s, s->table[i] - 1, &len);
		if (len == n && !memcmp(p, q, n))
			break;
	}
	*slot = i;
	return s->table[i];
}

uint32_t view_intern(struct view_strings *s, const char *p, size_t n)
{
	if (n > MAX_LEN)
		n = MAX_LEN;
	if (!p)
		p = "", n = 0;
	if ((s->n + 1) * 2 > s->tcap && rehash(s))
		goto oom;
	size_t i;
	uint32_t at = probe(s, p, n, &i);
	if (at)
		return at - 1;
	if (s->used + n > VIEW_STRINGS_MAX) {
		if (n == sizeof(full) - 1 && !memcmp(p, full, n))
			goto oom;
		return view_intern(s, full, sizeof(full) - 1);
	}
	uint32_t id = add(s, p, n);
	if (id == UINT32_MAX)
		goto oom;
	s->table[i] = id + 1;
	return id;
oom:
	s->oom = 1;
	return 0;
}

int view_strings_index(struct view_strings *s)
{
	return rehash(s);
}

uint32_t view_lookup(const struct view_strings *s, const char *p, size_t n)
{
	if (n > MAX_LEN)
		n = MAX_LEN;
	if (!p)
		p = "", n = 0;
	size_t i;
	uint32_t at = s->tcap ? probe(s, p, n, &i) : 0;
	if (at)
		return at - 1;
	if (n == sizeof(full) - 1 && !memcmp(p, full, n))
		return 0;
	return view_lookup(s, full, sizeof(full) - 1);
}

void view_strings_free(struct view_strings *s)
{
	free(s->pool);
	free(s->offs);
	free(s->table);
	memset(s, 0, sizeof(*s));
}
