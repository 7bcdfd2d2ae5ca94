/* SPDX-License-Identifier: MIT */
/*
 * A set of event formats: every string in one store (a few allocations for
 * the 2300 formats of a kernel, so the out-of-memory sweep stays short),
 * indexed by event name in an open-addressing table at most half full.
 * Events of the same name in other systems are chained behind the first.
 */
#include <stdio.h>
#include <stdlib.h>

#include "../core/core.h"
#include "formats-int.h"

tw_format_set *tw_format_set_new(const tw_mem *mem)
{
	tw_format_set *s = tw_calloc(mem, 1, sizeof(*s));
	if (s) {
		s->mem = *mem;
		s->origin = SIZE_MAX;
	}
	return s;
}

/* Append p[0..n) and a NUL to the store; *off is where it starts. */
static int put(tw_format_set *s, const char *p, size_t n, size_t *off)
{
	*off = s->store.len;
	if (tw_buf_append(&s->mem, &s->store, p, n))
		return -1;
	s->store.len++; /* keep the NUL tw_buf_append() wrote */
	return 0;
}

int tw_format_set_add(tw_format_set *s, const char *sys, size_t sys_len,
		      const char *name, size_t name_len, uint32_t id,
		      const char *text, size_t len, const char *path,
		      trawl_error *err)
{
	if (s->nents >= TW_FORMAT_MAX_COUNT)
		return tw_error_at(err, TRAWL_ELIMIT, 0, path, 0, 0, 0,
				   "cannot load more than %u event formats",
				   TW_FORMAT_MAX_COUNT);
	if (s->store.len + sys_len + name_len + len + 3 > TW_FORMAT_MAX_BYTES)
		return tw_error_at(err, TRAWL_ELIMIT, 0, path, 0, 0, 0,
				   "cannot load more than %u MiB of event "
				   "formats",
				   TW_FORMAT_MAX_BYTES >> 20);
	if (tw_grow(&s->mem, (void **)&s->ents, &s->ents_cap, s->nents + 1,
		    sizeof(*s->ents)))
		goto nomem;
	tw_fmt_ent *e = &s->ents[s->nents];
	if (put(s, sys, sys_len, &e->sys) || put(s, name, name_len, &e->name) ||
	    put(s, text, len, &e->text))
		goto nomem;
	e->len = len;
	e->id = id;
	e->name_len = (uint32_t)name_len;
	s->nents++;
	return 0;
nomem:
	return tw_error_at(err, TRAWL_ENOMEM, 0, path, 0, 0, 0,
			   "cannot allocate memory for event formats");
}

int tw_format_set_set_origin(tw_format_set *s, const char *p, size_t n)
{
	if (n > TW_FORMAT_MAX_NAME)
		n = TW_FORMAT_MAX_NAME;
	return put(s, p, n, &s->origin);
}

void tw_format_set_skip(tw_format_set *s, const char *msg)
{
	if (!s->skipped++)
		snprintf(s->why, sizeof(s->why), "%s", msg);
}

/* The slot holding name's chain, or the empty slot where it would go. */
static size_t probe(const tw_format_set *s, uint64_t h, const char *name,
		    size_t len)
{
	for (size_t i = h & s->mask;; i = (i + 1) & s->mask) {
		uint32_t v = s->slots[i];
		if (!v)
			return i;
		const tw_fmt *f = &s->fmts[v - 1];
		if (f->hash == h && tw_eq(f->t.name, f->t.name_len, name, len))
			return i;
	}
}

int tw_format_set_seal(tw_format_set *s, const char *path, trawl_error *err)
{
	if (!s->nents && s->skipped)
		return tw_error_at(err, TRAWL_EFORMAT, 0, path, 0, 0, 0,
				   "cannot use any event format (%zu "
				   "skipped; the first: %s)",
				   s->skipped, s->why);
	if (!s->nents)
		return tw_error_at(err, TRAWL_EFORMAT, 0, path, 0, 0, 0,
				   "cannot find an event format in it");
	size_t cap = 16;
	while (cap < 2 * s->nents)
		cap *= 2;
	s->fmts = tw_calloc(&s->mem, s->nents, sizeof(*s->fmts));
	s->slots = tw_calloc(&s->mem, cap, sizeof(*s->slots));
	if (!s->fmts || !s->slots)
		return tw_error_at(err, TRAWL_ENOMEM, 0, path, 0, 0, 0,
				   "cannot allocate memory for event formats");
	s->mask = cap - 1;
	const char *base = s->store.data;
	for (size_t i = 0; i < s->nents; i++) {
		const tw_fmt_ent *e = &s->ents[i];
		tw_fmt *f = &s->fmts[s->n];
		f->t.system = base + e->sys;
		f->t.name = base + e->name;
		f->t.name_len = e->name_len;
		f->t.id = e->id;
		f->t.text = base + e->text;
		f->t.len = e->len;
		f->hash = tw_hash_quick(f->t.name, f->t.name_len);
		f->next = 0;
		size_t slot = probe(s, f->hash, f->t.name, f->t.name_len);
		if (!s->slots[slot]) {
			s->slots[slot] = (uint32_t)++s->n;
			continue;
		}
		/* The same name again: behind the others, unless a repeat. */
		tw_fmt *g = &s->fmts[s->slots[slot] - 1];
		for (;;) {
			if (!strcmp(g->t.system, f->t.system))
				break;
			if (!g->next)
				break;
			g = &s->fmts[g->next - 1];
		}
		if (!strcmp(g->t.system, f->t.system)) {
			char msg[sizeof(s->why)];
			snprintf(msg, sizeof(msg),
				 "%s: format of %s%s%s repeated (the first "
				 "kept)",
				 path, f->t.system, *f->t.system ? ":" : "",
				 f->t.name);
			tw_format_set_skip(s, msg);
			continue;
		}
		g->next = (uint32_t)++s->n;
	}
	if (s->origin != SIZE_MAX)
		s->origin_text = base + s->origin;
	tw_free(&s->mem, s->ents);
	s->ents = NULL;
	s->nents = s->ents_cap = 0;
	return 0;
}

const tw_format_text *tw_format_set_find(const tw_format_set *s,
					 const char *name, size_t len)
{
	if (!s || !s->slots || !name)
		return NULL;
	uint32_t v = s->slots[probe(s, tw_hash_quick(name, len), name, len)];
	if (v)
		return &s->fmts[v - 1].t;
	/* Text traces print ftrace's print event under this name. */
	if (tw_eq(name, len, "tracing_mark_write", 18))
		return tw_format_set_find(s, "print", 5);
	return NULL;
}

const tw_format_text *tw_format_set_find_in(const tw_format_set *s,
					    const char *system,
					    const char *name, size_t len)
{
	const tw_format_text *t = tw_format_set_find(s, name, len);
	if (!t || !system)
		return NULL;
	/* t is the first member of its tw_fmt */
	for (const tw_fmt *f = (const tw_fmt *)t;; f = &s->fmts[f->next - 1]) {
		if (!strcmp(f->t.system, system))
			return &f->t;
		if (!f->next)
			return NULL;
	}
}

size_t tw_format_set_count(const tw_format_set *s)
{
	return s ? s->n : 0;
}

const tw_format_text *tw_format_set_at(const tw_format_set *s, size_t i)
{
	return s && i < s->n ? &s->fmts[i].t : NULL;
}

size_t tw_format_set_skipped(const tw_format_set *s, const char **why)
{
	if (why)
		*why = s && s->skipped ? s->why : NULL;
	return s ? s->skipped : 0;
}

const char *tw_format_set_origin(const tw_format_set *s)
{
	return s ? s->origin_text : NULL;
}

void tw_format_set_free(tw_format_set *s)
{
	if (!s)
		return;
	tw_mem mem = s->mem;
	tw_buf_fini(&mem, &s->store);
	tw_free(&mem, s->ents);
	tw_free(&mem, s->fmts);
	tw_free(&mem, s->slots);
	tw_free(&mem, s);
}
