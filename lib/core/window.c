/* SPDX-License-Identifier: MIT */
/*
 * The streaming reorder window, for input that cannot be read twice and must
 * not wait for its end (a live trace_pipe): up to `capacity` records wait in
 * a binary heap keyed by (ts, seq); when it is full the oldest leaves. Input
 * that is out of order by less than the window comes out exactly ordered;
 * a record later than that is still delivered (never dropped) and counted
 * as late. Each slot keeps its byte buffer for reuse, so a steady stream
 * allocates nothing.
 */
#include <string.h>

#include "core.h"

typedef struct wslot {
	int64_t ts;
	uint64_t seq;
	uint64_t line;
	tw_buf bytes;
} wslot;

struct tw_window {
	const tw_mem *mem;
	size_t cap;
	wslot *slots;
	uint32_t *heap; /* slot indices */
	size_t nheap;
	uint32_t *free; /* free slot indices */
	size_t nfree;
	long pending; /* slot handed out by the last pop, -1 if none */
};

tw_window *tw_window_new(const tw_mem *mem, size_t capacity)
{
	if (capacity == 0 || capacity > UINT32_MAX)
		return NULL;
	tw_window *w = tw_calloc(mem, 1, sizeof(*w));
	if (!w)
		return NULL;
	w->mem = mem;
	w->cap = capacity;
	w->pending = -1;
	w->slots = tw_calloc(mem, capacity, sizeof(*w->slots));
	w->heap = tw_calloc(mem, capacity, sizeof(*w->heap));
	w->free = tw_calloc(mem, capacity, sizeof(*w->free));
	if (!w->slots || !w->heap || !w->free) {
		tw_window_free(w);
		return NULL;
	}
	for (size_t i = 0; i < capacity; i++)
		w->free[w->nfree++] = (uint32_t)(capacity - 1 - i);
	return w;
}

void tw_window_free(tw_window *w)
{
	if (!w)
		return;
	if (w->slots)
		for (size_t i = 0; i < w->cap; i++)
			tw_buf_fini(w->mem, &w->slots[i].bytes);
	tw_free(w->mem, w->slots);
	tw_free(w->mem, w->heap);
	tw_free(w->mem, w->free);
	tw_free(w->mem, w);
}

static int less(const tw_window *w, uint32_t a, uint32_t b)
{
	const wslot *x = &w->slots[a], *y = &w->slots[b];
	/* Time first; at equal times the record order of the source. */
	if (x->ts != y->ts)
		return x->ts < y->ts;
	return x->seq < y->seq;
}

static void release_pending(tw_window *w)
{
	if (w->pending >= 0) {
		w->free[w->nfree++] = (uint32_t)w->pending;
		w->pending = -1;
	}
}

int tw_window_full(const tw_window *w)
{
	return w->nheap == w->cap;
}

int tw_window_push(tw_window *w, int64_t ts, uint64_t seq, uint64_t line,
		   const char *raw, size_t len)
{
	release_pending(w);
	if (w->nfree == 0)
		return -TRAWL_EMISUSE;
	uint32_t s = w->free[w->nfree - 1];
	wslot *sl = &w->slots[s];
	sl->bytes.len = 0;
	if (tw_buf_append(w->mem, &sl->bytes, raw, len))
		return -TRAWL_ENOMEM;
	w->nfree--;
	sl->ts = ts;
	sl->seq = seq;
	sl->line = line;
	size_t i = w->nheap++;
	while (i > 0) {
		size_t parent = (i - 1) / 2;
		if (!less(w, s, w->heap[parent]))
			break;
		w->heap[i] = w->heap[parent];
		i = parent;
	}
	w->heap[i] = s;
	return 0;
}

int tw_window_pop(tw_window *w, tw_sorted *out)
{
	release_pending(w);
	if (w->nheap == 0)
		return 0;
	uint32_t top = w->heap[0];
	uint32_t last = w->heap[--w->nheap];
	size_t i = 0;
	for (;;) {
		size_t l = 2 * i + 1, m = l;
		if (l >= w->nheap)
			break;
		if (l + 1 < w->nheap && less(w, w->heap[l + 1], w->heap[l]))
			m = l + 1;
		if (!less(w, w->heap[m], last))
			break;
		w->heap[i] = w->heap[m];
		i = m;
	}
	if (w->nheap)
		w->heap[i] = last;
	const wslot *sl = &w->slots[top];
	out->ts = sl->ts;
	out->seq = sl->seq;
	out->line = sl->line;
	out->raw = sl->bytes.data;
	out->len = sl->bytes.len;
	w->pending = top;
	return 1;
}
