/* SPDX-License-Identifier: MIT */
/*
 * A map from byte keys to dense indices, for the analyses' per-task,
 * per-irq and per-name state. Open addressing with linear probing, grown at
 * half full; entries stay in insertion order, so indices are stable and
 * index parallel arrays.
 */
#include <stdlib.h>

#include "analysis-int.h"

void tw_map_init(tw_map *m, const tw_mem *mem)
{
	memset(m, 0, sizeof(*m));
	m->mem = mem;
}

void tw_map_fini(tw_map *m)
{
	for (size_t i = 0; i < m->n; i++)
		if (m->entries[i].klen > sizeof(m->entries[i].key.inl))
			tw_free(m->mem, m->entries[i].key.ptr);
	tw_free(m->mem, m->entries);
	tw_free(m->mem, m->slots);
	memset(m, 0, sizeof(*m));
}

static uint64_t hash_key(const void *key, size_t klen)
{
	/* FNV-1a, then a final mix: keys are short and hashed once each. */
	const unsigned char *p = key;
	uint64_t h = 0xcbf29ce484222325ull;
	for (size_t i = 0; i < klen; i++)
		h = (h ^ p[i]) * 0x100000001b3ull;
	h ^= h >> 31;
	h *= 0x9e3779b97f4a7c15ull;
	return h ^ (h >> 29);
}

static const char *key_of(const tw_map_entry *e)
{
	return e->klen > sizeof(e->key.inl) ? e->key.ptr : e->key.inl;
}

static long find(const tw_map *m, const void *key, size_t klen, uint64_t h,
		 size_t *slot)
{
	size_t mask = m->nslots - 1;
	for (size_t i = h & mask;; i = (i + 1) & mask) {
		uint32_t v = m->slots[i];
		if (!v) {
			*slot = i;
			return -1;
		}
		const tw_map_entry *e = &m->entries[v - 1];
		if (e->hash == h && e->klen == klen &&
		    memcmp(key_of(e), key, klen) == 0)
			return (long)(v - 1);
	}
}

long tw_map_get(const tw_map *m, const void *key, size_t klen)
{
	if (!m->nslots)
		return -1;
	size_t slot;
	return find(m, key, klen, hash_key(key, klen), &slot);
}

static int rehash(tw_map *m)
{
	size_t ns = m->nslots ? m->nslots * 2 : 64;
	uint32_t *slots = tw_calloc(m->mem, ns, sizeof(*slots));
	if (!slots)
		return -TRAWL_ENOMEM;
	for (size_t i = 0; i < m->n; i++) {
		size_t j = m->entries[i].hash & (ns - 1);
		while (slots[j])
			j = (j + 1) & (ns - 1);
		slots[j] = (uint32_t)i + 1;
	}
	tw_free(m->mem, m->slots);
	m->slots = slots;
	m->nslots = ns;
	return 0;
}

long tw_map_put(tw_map *m, const void *key, size_t klen, int *added)
{
	*added = 0;
	if ((m->n + 1) * 2 > m->nslots && rehash(m))
		return -TRAWL_ENOMEM;
	if (m->n >= UINT32_MAX - 1)
		return -TRAWL_ELIMIT;
	uint64_t h = hash_key(key, klen);
	size_t slot;
	long found = find(m, key, klen, h, &slot);
	if (found >= 0)
		return found;
	if (tw_grow(m->mem, (void **)&m->entries, &m->cap, m->n + 1,
		    sizeof(*m->entries)))
		return -TRAWL_ENOMEM;
	tw_map_entry *e = &m->entries[m->n];
	e->hash = h;
	e->klen = (uint32_t)klen;
	if (klen > sizeof(e->key.inl)) {
		e->key.ptr = tw_strndup(m->mem, key, klen);
		if (!e->key.ptr)
			return -TRAWL_ENOMEM;
	} else {
		memcpy(e->key.inl, key, klen);
	}
	m->slots[slot] = (uint32_t)m->n + 1;
	*added = 1;
	return (long)m->n++;
}
