/* SPDX-License-Identifier: MIT */
/*
 * Script maps, from a key to a fixed-size value whose layout depends on
 * what the map holds; at most opts.map_size entries, so memory is bounded
 * by the map limit and never by the trace. Two representations:
 *
 *  - flat: a map of one integer key (a pid, a cpu) and a small value is an
 *    open-addressing table (linear probing, at most 3/4 full) whose slots
 *    are the entries themselves, the key in the entry's hash word, so a
 *    lookup (tw_flat_find(), inline in the VM) is a multiply, a shift and
 *    one slot's compare, with no key serialised and no pointer followed;
 *    delete shifts the probe run back (no tombstones);
 *  - chained: any other key (strings, several parts) is serialised (each
 *    part an 8-byte integer or a length byte and at most TW_SC_STRMAX
 *    bytes) and hashed into a chained table, one allocation per entry.
 *
 * Both hand out tw_mentry pointers with the same layout (value, then the
 * key), so printing and sorting do not know which one a map uses; a flat
 * entry's pointer is valid until the next insert or delete of its map.
 */
#include <stdlib.h>

#include "script-int.h"

static size_t value_size(const tw_map_decl *d)
{
	switch (d->kind) {
	case MV_STR:
		return 8 + TW_SC_STRMAX; /* length, bytes */
	case MV_AVG:
	case MV_STATS:
		return 4 * 8; /* count, sum, min, max */
	case MV_HIST:
		return TW_SC_HIST_BUCKETS * 8;
	case MV_LHIST:
		return (size_t)(tw_lhist_nb(d) + 2) * 8;
	default:
		return 8;
	}
}

/* The largest value a flat map keeps in its slots: count, sum, min, max,
 * avg, stats and integers; strings and histograms are chained (a slot is
 * allocated whether used or not, and those values are large). */
#define FLAT_VMAX 32

void tw_smap_init(tw_smap *m, const tw_map_decl *d, const tw_mem *mem,
		  size_t limit)
{
	memset(m, 0, sizeof(*m));
	m->decl = d;
	m->mem = mem;
	m->limit = limit;
	m->vsize = value_size(d);
	m->kind = d->kind;
	m->nkeys = d->nkeys;
	m->flat = d->nkeys == 1 && d->key_types[0] == TY_INT &&
		  m->vsize <= FLAT_VMAX;
	m->stride = sizeof(tw_mentry) + m->vsize + 8;
}

/* min and max start from the first value */
static void init_value(const tw_smap *m, tw_mentry *e)
{
	memset(e->v, 0, m->vsize);
	switch (m->decl->kind) {
	case MV_MIN:
		e->v[0] = INT64_MAX;
		break;
	case MV_MAX:
		e->v[0] = INT64_MIN;
		break;
	case MV_AVG:
	case MV_STATS:
		e->v[2] = INT64_MAX;
		e->v[3] = INT64_MIN;
		break;
	default:
		break;
	}
}

/* ---- flat: one integer key, open addressing ---- */

static inline tw_mentry *slot(const tw_smap *m, size_t i)
{
	return tw_flat_slot(m, i);
}

/* The copy of the key after the value, where printing reads keys. */
static inline int64_t *slot_key(const tw_smap *m, const tw_mentry *e)
{
	return (int64_t *)((char *)e->v + m->vsize);
}

/* Double the table (16 slots the first time) and put every entry back.
 * Return: 0, or -1 out of memory (the table is left as it was). */
static int flat_grow(tw_smap *m)
{
	size_t cap = m->cap ? m->cap * 2 : 16;
	unsigned shift = m->cap ? m->shift - 1 : 60;
	char *ns = tw_calloc(m->mem, cap, m->stride);
	if (!ns)
		return -1;
	char *old = m->slots;
	size_t ocap = m->cap;
	m->slots = ns;
	m->cap = cap;
	m->shift = shift;
	for (size_t i = 0; i < ocap; i++) {
		const tw_mentry *e = (const tw_mentry *)(old + i * m->stride);
		if (!e->klen)
			continue;
		size_t j = tw_flat_home(m, (int64_t)e->hash);
		while (slot(m, j)->klen)
			j = (j + 1) & (cap - 1);
		memcpy(slot(m, j), e, m->stride);
	}
	tw_free(m->mem, old);
	m->last = NULL;
	return 0;
}

tw_mentry *tw_smap_geti(tw_smap *m, int64_t key, int create, int *full)
{
	tw_mentry *e = tw_flat_find(m, key);
	if (e || !create)
		return e;
	if (m->n >= m->limit) {
		m->dropped++;
		*full = -1;
		return NULL;
	}
	if ((m->n + 1) * 4 > m->cap * 3 && flat_grow(m)) {
		*full = -2;
		return NULL;
	}
	size_t i = tw_flat_home(m, key);
	while (slot(m, i)->klen)
		i = (i + 1) & (m->cap - 1);
	e = slot(m, i);
	e->next = NULL;
	e->hash = (uint64_t)key;
	e->klen = 8;
	init_value(m, e);
	*slot_key(m, e) = key;
	m->n++;
	return e;
}

void tw_smap_deletei(tw_smap *m, int64_t key)
{
	if (!m->cap)
		return;
	size_t mask = m->cap - 1;
	size_t i = tw_flat_home(m, key);
	for (;; i = (i + 1) & mask) {
		tw_mentry *e = slot(m, i);
		if (!e->klen)
			return;
		if (e->hash == (uint64_t)key)
			break;
	}
	/* Backward shift: an entry after the hole moves into it unless its
	 * home slot lies cyclically in (hole, its slot]. */
	for (size_t j = i;;) {
		j = (j + 1) & mask;
		tw_mentry *e = slot(m, j);
		if (!e->klen)
			break;
		size_t home = tw_flat_home(m, (int64_t)e->hash);
		int stays = i <= j ? (i < home && home <= j)
				   : (i < home || home <= j);
		if (stays)
			continue;
		memcpy(slot(m, i), e, m->stride);
		i = j;
	}
	slot(m, i)->klen = 0;
	m->n--;
	m->last = NULL;
}

void tw_smap_clear(tw_smap *m)
{
	if (m->flat) {
		if (m->n)
			memset(m->slots, 0, m->cap * m->stride);
		m->n = 0;
		m->last = NULL;
		return;
	}
	for (size_t i = 0; i < m->nbuckets; i++) {
		tw_mentry *e = m->buckets[i];
		while (e) {
			tw_mentry *n = e->next;
			tw_free(m->mem, e);
			e = n;
		}
		m->buckets[i] = NULL;
	}
	m->n = 0;
	m->last = NULL;
}

/* zero() of one entry: a count, sum, min, max or value of 0 (bpftrace's
 * zero sets the value, so a min() after it compares with 0), an avg or
 * stats of nothing seen yet, empty buckets, "" */
static void zero_value(const tw_smap *m, tw_mentry *e)
{
	int kind = m->decl->kind;
	if (kind == MV_AVG || kind == MV_STATS)
		init_value(m, e);
	else
		memset(e->v, 0, m->vsize);
}

void tw_smap_zero(tw_smap *m)
{
	if (m->flat) {
		for (size_t i = 0; m->n && i < m->cap; i++) {
			tw_mentry *e = tw_flat_slot(m, i);
			if (e->klen)
				zero_value(m, e);
		}
		return;
	}
	for (size_t i = 0; i < m->nbuckets; i++)
		for (tw_mentry *e = m->buckets[i]; e; e = e->next)
			zero_value(m, e);
}

void tw_smap_fini(tw_smap *m)
{
	if (!m->mem)
		return; /* never initialised (compilation failed first) */
	tw_smap_clear(m);
	tw_free(m->mem, m->buckets);
	tw_free(m->mem, m->slots);
	m->buckets = NULL;
	m->nbuckets = 0;
	m->slots = NULL;
	m->cap = 0;
}

size_t tw_smap_key(const tw_map_decl *d, const tw_sval *keys, char *buf)
{
	if (d->nkeys == 1 && d->key_types[0] == TY_INT) {
		memcpy(buf, &keys[0].i, 8); /* the common case: a pid */
		return 8;
	}
	size_t o = 0;
	for (int i = 0; i < d->nkeys; i++) {
		if (d->key_types[i] == TY_STR) {
			size_t n = keys[i].i > TW_SC_STRMAX ? TW_SC_STRMAX
							    : (size_t)keys[i].i;
			buf[o++] = (char)n;
			memcpy(buf + o, keys[i].s, n);
			o += n;
		} else {
			memcpy(buf + o, &keys[i].i, 8);
			o += 8;
		}
	}
	return o;
}

void tw_smap_unkey(const tw_smap *m, const tw_mentry *e, tw_sval *vals)
{
	const char *k = tw_mentry_key(m, e);
	for (int i = 0; i < m->decl->nkeys; i++) {
		if (m->decl->key_types[i] == TY_STR) {
			vals[i].i = (unsigned char)*k++;
			vals[i].s = k;
			k += vals[i].i;
		} else {
			memcpy(&vals[i].i, k, 8);
			vals[i].s = NULL;
			k += 8;
		}
	}
}

/* Eight bytes at a time, multiplied and folded (every byte counts, so
 * keys that differ only in the middle do not collide by construction). */
static uint64_t hash(const char *k, size_t n)
{
	uint64_t h = 0x9e3779b97f4a7c15ull ^ n, w;
	size_t i = 0;
	for (; i + 8 <= n; i += 8) {
		memcpy(&w, k + i, 8);
		h = (h ^ w) * 0xbf58476d1ce4e5b9ull;
		h ^= h >> 31;
	}
	if (i < n) {
		w = 0;
		memcpy(&w, k + i, n - i);
		h = (h ^ w) * 0x94d049bb133111ebull;
	}
	h ^= h >> 29;
	h *= 0xbf58476d1ce4e5b9ull;
	return h ^ (h >> 32);
}

static int rehash(tw_smap *m)
{
	size_t nb = m->nbuckets ? m->nbuckets * 2 : 16;
	tw_mentry **b = tw_calloc(m->mem, nb, sizeof(*b));
	if (!b)
		return -1;
	for (size_t i = 0; i < m->nbuckets; i++) {
		tw_mentry *e = m->buckets[i];
		while (e) {
			tw_mentry *n = e->next;
			e->next = b[e->hash & (nb - 1)];
			b[e->hash & (nb - 1)] = e;
			e = n;
		}
	}
	tw_free(m->mem, m->buckets);
	m->buckets = b;
	m->nbuckets = nb;
	return 0;
}

tw_mentry *tw_smap_get(tw_smap *m, const char *key, size_t klen, int create,
		       int *full)
{
	if (m->flat) {
		int64_t k;
		memcpy(&k, key, 8);
		return tw_smap_geti(m, k, create, full);
	}
	uint64_t h = hash(key, klen);
	tw_mentry *e = m->last;
	if (e && e->hash == h && tw_eq(tw_mentry_key(m, e), e->klen, key, klen))
		return e;
	if (m->nbuckets) {
		for (e = m->buckets[h & (m->nbuckets - 1)]; e; e = e->next)
			if (e->hash == h &&
			    tw_eq(tw_mentry_key(m, e), e->klen, key, klen))
				return m->last = e;
	}
	if (!create)
		return NULL;
	if (m->n >= m->limit) {
		m->dropped++;
		*full = -1;
		return NULL;
	}
	if ((m->n >= m->nbuckets && rehash(m)) || !m->nbuckets) {
		*full = -2;
		return NULL;
	}
	e = tw_malloc(m->mem, sizeof(*e) + m->vsize + klen);
	if (!e) {
		*full = -2;
		return NULL;
	}
	e->hash = h;
	e->klen = (uint32_t)klen;
	init_value(m, e);
	memcpy((char *)e->v + m->vsize, key, klen);
	size_t b = h & (m->nbuckets - 1);
	e->next = m->buckets[b];
	m->buckets[b] = e;
	m->n++;
	return m->last = e;
}

void tw_smap_delete(tw_smap *m, const char *key, size_t klen)
{
	if (m->flat) {
		int64_t k;
		memcpy(&k, key, 8);
		tw_smap_deletei(m, k);
		return;
	}
	if (!m->nbuckets)
		return;
	uint64_t h = hash(key, klen);
	tw_mentry **pp = &m->buckets[h & (m->nbuckets - 1)];
	for (; *pp; pp = &(*pp)->next) {
		tw_mentry *e = *pp;
		if (e->hash == h && e->klen == klen &&
		    memcmp(tw_mentry_key(m, e), key, klen) == 0) {
			*pp = e->next;
			if (m->last == e)
				m->last = NULL;
			tw_free(m->mem, e);
			m->n--;
			return;
		}
	}
}

int64_t tw_mentry_int(const tw_smap *m, const tw_mentry *e)
{
	switch (m->decl->kind) {
	case MV_AVG:
	case MV_STATS:
		return e->v[0] ? e->v[1] / e->v[0] : 0;
	default:
		return e->v[0];
	}
}

int tw_hist_bucket(int64_t v)
{
	if (v < 0)
		return 0;
	if (v == 0)
		return 1;
	return 2 + (63 - __builtin_clzll((unsigned long long)v));
}

/* qsort has no context argument: the map being sorted is passed in a
 * thread-local, which only this function sets. */
static _Thread_local const tw_smap *sorting;

static int cmp_keys(const tw_smap *m, const tw_mentry *a, const tw_mentry *b)
{
	tw_sval ka[TW_SC_MAX_KEYS], kb[TW_SC_MAX_KEYS];
	tw_smap_unkey(m, a, ka);
	tw_smap_unkey(m, b, kb);
	for (int i = 0; i < m->decl->nkeys; i++) {
		if (m->decl->key_types[i] == TY_STR) {
			size_t an = (size_t)ka[i].i, bn = (size_t)kb[i].i;
			size_t n = an < bn ? an : bn;
			int c = memcmp(ka[i].s, kb[i].s, n);
			if (c)
				return c;
			if (an != bn)
				return an < bn ? -1 : 1;
		} else if (tw_is_stack(m->decl->key_types[i]) && m->stacks) {
			int c = tw_stack_cmp(m->stacks, ka[i].i, kb[i].i);
			if (c)
				return c;
		} else if (ka[i].i != kb[i].i) {
			return ka[i].i < kb[i].i ? -1 : 1;
		}
	}
	return 0;
}

static int64_t sort_value(const tw_smap *m, const tw_mentry *e)
{
	switch (m->decl->kind) {
	case MV_STATS:
		return e->v[1]; /* total */
	default:
		return tw_mentry_int(m, e);
	}
}

static int cmp_entries(const void *pa, const void *pb)
{
	const tw_smap *m = sorting;
	const tw_mentry *a = *(tw_mentry *const *)pa;
	const tw_mentry *b = *(tw_mentry *const *)pb;
	int k = m->decl->kind;
	if (k == MV_STR) {
		const char *sa = (const char *)(a->v + 1);
		const char *sb = (const char *)(b->v + 1);
		size_t na = (size_t)a->v[0], nb = (size_t)b->v[0];
		int c = memcmp(sa, sb, na < nb ? na : nb);
		if (c || na != nb)
			return c ? c : na < nb ? -1 : 1;
	} else if (k == MV_INT && tw_is_stack(m->decl->vtype) && m->stacks) {
		int c = tw_stack_cmp(m->stacks, a->v[0], b->v[0]);
		if (c)
			return c;
	} else if (k != MV_HIST && k != MV_LHIST) {
		int64_t va = sort_value(m, a), vb = sort_value(m, b);
		if (va != vb)
			return va < vb ? -1 : 1;
	}
	return cmp_keys(m, a, b);
}

tw_mentry **tw_smap_sorted(const tw_smap *m, size_t *n)
{
	*n = 0;
	if (!m->n)
		return NULL;
	tw_mentry **a = tw_calloc(m->mem, m->n, sizeof(*a));
	if (!a)
		return NULL;
	size_t k = 0;
	for (size_t i = 0; i < m->cap; i++)
		if (slot(m, i)->klen)
			a[k++] = slot(m, i);
	for (size_t i = 0; i < m->nbuckets; i++)
		for (tw_mentry *e = m->buckets[i]; e; e = e->next)
			a[k++] = e;
	sorting = m;
	qsort(a, k, sizeof(*a), cmp_entries);
	sorting = NULL;
	*n = k;
	return a;
}
