/* SPDX-License-Identifier: MIT */
/*
 * Event types, interned by name in an open-addressing table. A type is made
 * when its name first appears; then the subscriptions that match it are
 * collected once, so delivering an event never matches patterns.
 */
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"

struct name_system {
	const char *name;
	const char *system;
};

/* Sorted by name (LC_ALL=C); see gen-event-systems.sh. */
static const struct name_system known[] = {
#include "event-systems.inc"
};

static int cmp_known(const void *key, const void *elem)
{
	return strcmp(key, ((const struct name_system *)elem)->name);
}

const char *tw_event_system_of(const char *name)
{
	const struct name_system *e = bsearch(name, known, TW_ARRAY_SIZE(known),
					      sizeof(known[0]), cmp_known);
	return e ? e->system : "";
}

int tw_sub_matches(const tw_sub *s, const tw_type *type)
{
	if (s->sys_pat && fnmatch(s->sys_pat, type->system, 0) != 0)
		return 0;
	if (fnmatch(s->name_pat, type->name, 0) == 0)
		return 1;
	/* "tracing_mark_write" is what text traces call ftrace's print. */
	return type->kind == TW_KIND_PRINT &&
	       fnmatch(s->name_pat, "tracing_mark_write", 0) == 0;
}

/*
 * The built-in types of an application channel (lib/ring: slice_begin,
 * slice_end, counter, instant) are markers, as systrace's are. Only types
 * with a system can be: a trace.dat names the channel as their system.
 * trawl_event_marker() checks the rest (the event is in the channel's own
 * buffer and has the fields).
 */
static uint32_t app_kind(const char *name, uint32_t kind)
{
	static const struct {
		const char *name;
		uint32_t kind;
	} builtin[] = {
		{"slice_begin", TW_KIND_APP_BEGIN},
		{"slice_end", TW_KIND_APP_END},
		{"counter", TW_KIND_APP_COUNTER},
		{"instant", TW_KIND_APP_INSTANT},
	};
	for (size_t i = 0; i < TW_ARRAY_SIZE(builtin); i++)
		if (!strcmp(name, builtin[i].name))
			return builtin[i].kind;
	return kind;
}

static int rehash(trawl_trace *t)
{
	size_t ncap = t->hash_cap ? t->hash_cap * 2 : 64;
	tw_type **nh = tw_calloc(&t->mem, ncap, sizeof(*nh));
	if (!nh)
		return -1;
	for (size_t i = 0; i < t->ntypes; i++) {
		size_t j = t->types[i]->hash & (ncap - 1);
		while (nh[j])
			j = (j + 1) & (ncap - 1);
		nh[j] = t->types[i];
	}
	tw_free(&t->mem, t->hash);
	t->hash = nh;
	t->hash_cap = ncap;
	return 0;
}

static tw_type *make(trawl_trace *t, const char *name, size_t len, uint64_t h,
		     const char *system)
{
	if (t->ntypes * 2 >= t->hash_cap && rehash(t))
		return NULL;
	void *arr = t->types;
	if (tw_grow(&t->mem, &arr, &t->types_cap, t->ntypes + 1,
		    sizeof(*t->types)))
		return NULL;
	t->types = arr;
	tw_type *ty = tw_calloc(&t->mem, 1, sizeof(*ty));
	if (!ty)
		return NULL;
	ty->name = tw_strndup(&t->mem, name, len);
	if (!ty->name)
		goto fail;
	ty->name_len = len;
	ty->hash = h;
	ty->id = (uint32_t)t->ntypes;
	ty->t = t;
	if (strcmp(ty->name, "print") == 0)
		ty->kind = TW_KIND_PRINT;
	ty->system = system ? system : tw_event_system_of(ty->name);
	if (system && system[0])
		ty->kind = app_kind(ty->name, ty->kind);
	for (size_t i = 0; i < t->nsubs; i++) {
		if (!tw_sub_matches(&t->subs[i], ty))
			continue;
		tw_sub **ns = tw_realloc(&t->mem, ty->subs,
					 (ty->nsubs + 1) * sizeof(*ns));
		if (!ns)
			goto fail;
		ty->subs = ns;
		ty->subs[ty->nsubs++] = &t->subs[i];
	}
	t->types[t->ntypes++] = ty;
	size_t j = h & (t->hash_cap - 1);
	while (t->hash[j])
		j = (j + 1) & (t->hash_cap - 1);
	t->hash[j] = ty;
	return ty;
fail:
	tw_free(&t->mem, ty->subs);
	tw_free(&t->mem, ty->name);
	tw_free(&t->mem, ty);
	return NULL;
}

tw_type *tw_type_get(trawl_trace *t, const char *name, size_t len)
{
	tw_type *last = t->last_type;
	if (last && tw_eq(last->name, last->name_len, name, len))
		return last;
	if (tw_eq(name, len, "tracing_mark_write", 18)) {
		name = "print";
		len = 5;
	}
	uint64_t h = tw_hash_quick(name, len);
	if (t->hash_cap) {
		size_t j = h & (t->hash_cap - 1);
		for (tw_type *ty; (ty = t->hash[j]);
		     j = (j + 1) & (t->hash_cap - 1)) {
			if (ty->hash == h &&
			    tw_eq(ty->name, ty->name_len, name, len))
				return t->last_type = ty;
		}
	}
	if (t->ntypes >= TW_MAX_TYPES)
		return NULL;
	tw_type *ty = make(t, name, len, h, NULL);
	if (ty)
		t->last_type = ty;
	return ty;
}

tw_type *tw_type_new(trawl_trace *t, const char *name, const char *system)
{
	if (t->ntypes >= TW_MAX_TYPES)
		return NULL;
	size_t len = strlen(name);
	return make(t, name, len, tw_hash_quick(name, len), system);
}

void tw_types_free(trawl_trace *t)
{
	for (size_t i = 0; i < t->ntypes; i++) {
		tw_pfmt_free(t->types[i]->pf);
		tw_free(&t->mem, t->types[i]->subs);
		tw_free(&t->mem, t->types[i]->name);
		tw_free(&t->mem, t->types[i]);
	}
	tw_free(&t->mem, t->types);
	tw_free(&t->mem, t->hash);
	t->types = NULL;
	t->hash = NULL;
	t->ntypes = t->types_cap = t->hash_cap = 0;
}
