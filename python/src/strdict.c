/* SPDX-License-Identifier: MIT */
#include "strdict.h"

#include <stdlib.h>
#include <string.h>

static uint32_t hash(const char *s, size_t n)
{
	uint32_t h = 2166136261u; /* FNV-1a */
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 16777619u;
	return h;
}

static int grow_slots(struct strdict *d)
{
	uint32_t n = d->nslots ? d->nslots * 2 : 64;
	uint32_t *slots = calloc(n, sizeof(*slots));
	uint32_t *hashes = calloc(n, sizeof(*hashes));
	if (!slots || !hashes) {
		free(slots);
		free(hashes);
		return -1;
	}
	for (uint32_t i = 0; i < d->nslots; i++) {
		if (!d->slots[i])
			continue;
		uint32_t j = d->hashes[i] & (n - 1);
		while (slots[j])
			j = (j + 1) & (n - 1);
		slots[j] = d->slots[i];
		hashes[j] = d->hashes[i];
	}
	free(d->slots);
	free(d->hashes);
	d->slots = slots;
	d->hashes = hashes;
	d->nslots = n;
	return 0;
}

static int append(struct strdict *d, const char *s, size_t len)
{
	if (d->n + 2 > d->off_cap) {
		uint32_t cap = d->off_cap ? d->off_cap * 2 : 64;
		size_t *off = realloc(d->off, cap * sizeof(*off));
		if (!off)
			return -1;
		if (!d->off)
			off[0] = 0;
		d->off = off;
		d->off_cap = cap;
	}
	/* a pool even for "": memcmp and memcpy never see NULL */
	if (!d->pool || d->pool_len + len > d->pool_cap) {
		size_t cap = d->pool_cap ? d->pool_cap * 2 : 1024;
		while (cap < d->pool_len + len)
			cap *= 2;
		char *pool = realloc(d->pool, cap);
		if (!pool)
			return -1;
		d->pool = pool;
		d->pool_cap = cap;
	}
	memcpy(d->pool + d->pool_len, s, len);
	d->pool_len += len;
	d->off[++d->n] = d->pool_len;
	return 0;
}

int32_t strdict_code(struct strdict *d, const char *s, size_t len)
{
	if ((d->n + 1) * 2 > d->nslots && grow_slots(d))
		return -1;
	uint32_t h = hash(s, len);
	uint32_t j = h & (d->nslots - 1);
	while (d->slots[j]) {
		uint32_t c = d->slots[j] - 1;
		if (d->hashes[j] == h && d->off[c + 1] - d->off[c] == len &&
		    !memcmp(d->pool + d->off[c], s, len))
			return (int32_t)c;
		j = (j + 1) & (d->nslots - 1);
	}
	if (d->n >= INT32_MAX - 1 || append(d, s, len))
		return -1;
	d->slots[j] = d->n; /* the new code + 1 */
	d->hashes[j] = h;
	return (int32_t)(d->n - 1);
}

void strdict_free(struct strdict *d)
{
	free(d->pool);
	free(d->off);
	free(d->slots);
	free(d->hashes);
	memset(d, 0, sizeof(*d));
}
