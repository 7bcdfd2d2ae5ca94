/* SPDX-License-Identifier: MIT */
/*
 * A min-heap of record references on (time, record number): perf writes
 * each CPU's buffer in turn, a round at a time, so records are in time
 * order only within a CPU's chunk; the reader pushes them as the file
 * gives them and pops them once no older one can follow (perf-reader.c).
 * Ties go to the lower record number: the file's order.
 */
#include "perf-int.h"

static inline int before(const tw_perf_ref *a, const tw_perf_ref *b)
{
	if (a->ts != b->ts)
		return a->ts < b->ts;
	return a->seq < b->seq; /* same time: the file's order */
}

int tw_perf_heap_push(tw_perf_heap *h, const tw_perf_ref *r)
{
	if (h->n == h->cap) {
		void *p = h->a;
		if (tw_grow(h->mem, &p, &h->cap, h->n + 1, sizeof(*h->a)))
			return -1;
		h->a = p;
	}
	size_t i = h->n++;
	while (i > 0) {
		size_t up = (i - 1) / 2;
		if (!before(r, &h->a[up]))
			break;
		h->a[i] = h->a[up];
		i = up;
	}
	h->a[i] = *r;
	return 0;
}

void tw_perf_heap_pop(tw_perf_heap *h, tw_perf_ref *out)
{
	*out = h->a[0];
	tw_perf_ref last = h->a[--h->n];
	size_t i = 0, n = h->n;
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= n)
			break;
		if (c + 1 < n && before(&h->a[c + 1], &h->a[c]))
			c++;
		if (!before(&h->a[c], &last))
			break;
		h->a[i] = h->a[c];
		i = c;
	}
	if (n)
		h->a[i] = last;
}

void tw_perf_heap_fini(tw_perf_heap *h)
{
	tw_free(h->mem, h->a);
	h->a = NULL;
	h->n = h->cap = 0;
}
