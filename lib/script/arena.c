/* SPDX-License-Identifier: MIT */
/*
 * The compiler's memory: an arena of blocks from the trace's allocator,
 * freed at once when compilation ends, so an error may longjmp out of any
 * depth of the parser or checker without leaking (as Lua's parser does),
 * and the errors that longjmp.
 */
#include <stdarg.h>
#include <stdio.h>

#include "script-int.h"

struct tw_arena_block {
	tw_arena_block *next;
	size_t used, cap;
	max_align_t data[];
};

#define BLOCK (16u << 10)

void *tw_arena_alloc(tw_arena *a, size_t n)
{
	n = (n + 15) & ~(size_t)15;
	tw_arena_block *b = a->head;
	if (!b || b->cap - b->used < n) {
		size_t cap = n > BLOCK ? n : BLOCK;
		b = tw_malloc(a->mem, sizeof(*b) + cap);
		if (!b)
			return NULL;
		b->next = a->head;
		b->used = 0;
		b->cap = cap;
		a->head = b;
	}
	void *p = (char *)b->data + b->used;
	b->used += n;
	memset(p, 0, n);
	return p;
}

char *tw_arena_strndup(tw_arena *a, const char *s, size_t n)
{
	char *p = tw_arena_alloc(a, n + 1);
	if (p) {
		memcpy(p, s, n);
		p[n] = '\0';
	}
	return p;
}

void tw_arena_free(tw_arena *a)
{
	while (a->head) {
		tw_arena_block *n = a->head->next;
		tw_free(a->mem, a->head);
		a->head = n;
	}
}

void tw_sc_error(tw_compiler *c, int code, uint32_t line, uint32_t col,
		 const char *fmt, ...)
{
	if (c->err) {
		char msg[400];
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(msg, sizeof(msg), fmt, ap);
		va_end(ap);
		tw_error_at(c->err, code, 0, c->name, line, col, 0, "%s", msg);
	}
	longjmp(c->jmp, code);
}

void tw_sc_oom(tw_compiler *c)
{
	if (c->err)
		tw_error_at(c->err, TRAWL_ENOMEM, 0, c->name, 0, 0, 0,
			    "out of memory");
	longjmp(c->jmp, TRAWL_ENOMEM);
}

void *tw_sc_alloc(tw_compiler *c, size_t n)
{
	void *p = tw_arena_alloc(&c->arena, n);
	if (!p)
		tw_sc_oom(c);
	return p;
}

void tw_sc_grow(tw_compiler *c, void **pp, size_t *cap, size_t need,
		size_t elem)
{
	if (need <= *cap)
		return;
	size_t n = *cap ? *cap * 2 : 8;
	while (n < need)
		n *= 2;
	void *p = tw_sc_alloc(c, n * elem);
	if (*pp)
		memcpy(p, *pp, *cap * elem);
	*pp = p;
	*cap = n;
}
