/* SPDX-License-Identifier: MIT */
/*
 * Records waiting for their turn, merged by (time, record number). perf
 * writes each CPU's buffer in turn, a round at a time, so the file is
 * made of runs: a CPU's chunk is in time order. Records are appended in
 * file order to the open run until one goes back in time; runs are closed
 * at each FINISHED_ROUND (and at the end) and merged by a binary heap of
 * runs, keyed by each run's next record: a few runs per CPU and round,
 * where a heap of every waiting record was 63 % of `trawl stats`.
 * Ties go to the lower record number: the file's order.
 *
 * The records of all runs live in one array in file order; what the merge
 * took is given back by moving the rest to the front when closing finds
 * more taken than left (each record moves about once).
 */
#include <stdlib.h>

#include "perf-int.h"

static inline int run_before(const tw_perf_order *o, const tw_perf_run *a,
			     const tw_perf_run *b)
{
	return tw_perf_ref_before(&o->refs[a->pos], &o->refs[b->pos]);
}

static void sift_down(tw_perf_order *o, size_t i)
{
	tw_perf_run *h = o->runs;
	size_t n = o->nruns;
	tw_perf_run x = h[i];
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= n)
			break;
		if (c + 1 < n && run_before(o, &h[c + 1], &h[c]))
			c++;
		if (!run_before(o, &h[c], &x))
			break;
		h[i] = h[c];
		i = c;
	}
	h[i] = x;
}

static void sift_up(tw_perf_order *o, size_t i)
{
	tw_perf_run x = o->runs[i];
	while (i > 0) {
		size_t up = (i - 1) / 2;
		if (!run_before(o, &x, &o->runs[up]))
			break;
		o->runs[i] = o->runs[up];
		i = up;
	}
	o->runs[i] = x;
}

static int by_pos(const void *a, const void *b)
{
	const tw_perf_run *x = a, *y = b;
	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

/* Move the records not taken yet to the front; the heap made again. */
static void compact(tw_perf_order *o)
{
	qsort(o->runs, o->nruns, sizeof(*o->runs), by_pos);
	size_t w = 0;
	for (size_t i = 0; i < o->nruns; i++) {
		tw_perf_run *r = &o->runs[i];
		size_t n = r->end - r->pos;
		memmove(o->refs + w, o->refs + r->pos, n * sizeof(*o->refs));
		r->pos = w;
		r->end = w + n;
		w += n;
	}
	o->nrefs = o->open_begin = w;
	for (size_t i = o->nruns / 2; i-- > 0;)
		sift_down(o, i);
}

/* The open run into the merge. Return: 0, or -1 out of memory. */
static int close_open(tw_perf_order *o)
{
	if (o->open_begin == o->nrefs)
		return 0;
	if (o->nruns == o->runs_cap) {
		void *p = o->runs;
		if (tw_grow(o->mem, &p, &o->runs_cap, o->nruns + 1,
			    sizeof(*o->runs)))
			return -1;
		o->runs = p;
	}
	o->runs[o->nruns] = (tw_perf_run){o->open_begin, o->nrefs};
	sift_up(o, o->nruns++);
	o->open_begin = o->nrefs;
	return 0;
}

int tw_perf_order_add(tw_perf_order *o, const tw_perf_ref *r)
{
	int closed = 0;
	if (o->open_begin < o->nrefs &&
	    tw_perf_ref_before(r, &o->refs[o->nrefs - 1])) {
		if (close_open(o))
			return -1;
		closed = 1;
	}
	if (o->nrefs == o->cap) {
		void *p = o->refs;
		if (tw_grow(o->mem, &p, &o->cap, o->nrefs + 1,
			    sizeof(*o->refs)))
			return -1;
		o->refs = p;
	}
	o->refs[o->nrefs++] = *r;
	o->live++;
	return closed;
}

int tw_perf_order_close(tw_perf_order *o)
{
	if (close_open(o))
		return -1;
	if (o->nrefs > 4096 && o->nrefs - o->live > o->live)
		compact(o);
	return 0;
}

void tw_perf_order_resift(tw_perf_order *o)
{
	tw_perf_run *top = &o->runs[0];
	if (top->pos == top->end) {
		o->runs[0] = o->runs[--o->nruns];
		if (!o->nruns)
			return;
	}
	sift_down(o, 0);
}

uint64_t tw_perf_order_low(const tw_perf_order *o, uint64_t none)
{
	uint64_t low = none;
	/* each run is in file order: its next record is its first */
	for (size_t i = 0; i < o->nruns; i++)
		if (o->refs[o->runs[i].pos].off < low)
			low = o->refs[o->runs[i].pos].off;
	if (o->open_begin < o->nrefs && o->refs[o->open_begin].off < low)
		low = o->refs[o->open_begin].off;
	return low;
}

void tw_perf_order_reset(tw_perf_order *o)
{
	o->nrefs = o->open_begin = o->nruns = o->live = 0;
}

void tw_perf_order_fini(tw_perf_order *o)
{
	tw_free(o->mem, o->refs);
	tw_free(o->mem, o->runs);
	o->refs = NULL;
	o->runs = NULL;
	o->cap = o->runs_cap = 0;
	tw_perf_order_reset(o);
}
