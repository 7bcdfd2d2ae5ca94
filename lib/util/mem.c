/* SPDX-License-Identifier: MIT */
/*
 * Allocation through the trace's hook, so tests can fail the Nth allocation
 * and check that every path cleans up (SQLite's test_malloc.c does the same).
 */
#include <stdlib.h>

#include "util.h"

static void *libc_realloc(void *ctx, void *ptr, size_t size)
{
	(void)ctx;
	if (size == 0) {
		free(ptr);
		return NULL;
	}
	return realloc(ptr, size);
}

void tw_mem_init(tw_mem *m, void *(*fn)(void *, void *, size_t), void *ctx)
{
	m->realloc = fn ? fn : libc_realloc;
	m->ctx = ctx;
}

void *tw_malloc(const tw_mem *m, size_t n)
{
	return m->realloc(m->ctx, NULL, n ? n : 1);
}

void *tw_calloc(const tw_mem *m, size_t count, size_t size)
{
	if (size && count > SIZE_MAX / size)
		return NULL;
	size_t total = count * size;
	void *p = tw_malloc(m, total);
	if (p)
		memset(p, 0, total ? total : 1);
	return p;
}

void *tw_realloc(const tw_mem *m, void *p, size_t n)
{
	return m->realloc(m->ctx, p, n ? n : 1);
}

void tw_free(const tw_mem *m, void *p)
{
	if (p)
		m->realloc(m->ctx, p, 0);
}

char *tw_strndup(const tw_mem *m, const char *s, size_t n)
{
	char *d = tw_malloc(m, n + 1);
	if (d) {
		memcpy(d, s, n);
		d[n] = '\0';
	}
	return d;
}

int tw_grow(const tw_mem *m, void **pp, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return 0;
	size_t ncap = *cap ? *cap : 8;
	while (ncap < need) {
		if (ncap > SIZE_MAX / 2 / elem)
			return -1;
		ncap *= 2;
	}
	void *np = tw_realloc(m, *pp, ncap * elem);
	if (!np)
		return -1;
	*pp = np;
	*cap = ncap;
	return 0;
}

int tw_buf_reserve(const tw_mem *m, tw_buf *b, size_t need)
{
	void *p = b->data;
	if (tw_grow(m, &p, &b->cap, need, 1))
		return -1;
	b->data = p;
	return 0;
}

int tw_buf_append(const tw_mem *m, tw_buf *b, const void *p, size_t n)
{
	if (tw_buf_reserve(m, b, b->len + n + 1))
		return -1;
	memcpy(b->data + b->len, p, n);
	b->len += n;
	b->data[b->len] = '\0';
	return 0;
}

void tw_buf_fini(const tw_mem *m, tw_buf *b)
{
	tw_free(m, b->data);
	b->data = NULL;
	b->len = b->cap = 0;
}
