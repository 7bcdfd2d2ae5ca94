/* SPDX-License-Identifier: MIT */
/*
 * Events held for their kernel stack. ftrace's stacktrace trigger writes
 * the stack as a record of its own (ftrace:kernel_stack) right after the
 * event, on the same CPU and with a later timestamp, so records of other
 * CPUs can come between the two in the trace's order. A probe that reads
 * kstack (off the kernel: on a file, or live on the ftrace path) runs when
 * its event's stack has come, or when another record on that CPU shows
 * none will; everything after the held event (other probes' events,
 * interval probes' times) waits in order behind it, so probes still run
 * in the trace's order and a map written by one probe and read by another
 * sees what it would have. The wait is a few records: a stack comes a
 * few microseconds after its event.
 */
#include <string.h>

#include "script-int.h"

/* Beyond this many held items the oldest wait ends without its stack
 * (counted): a bound on memory should the next record on a CPU never
 * come. */
#define HOLD_MAX 65536

enum { WAITS = 0, HAS_STACK = 1, NO_STACK = -1, NEEDS_NONE = 2 };

struct tw_hold_item {
	tw_binding *b; /* NULL: interval probes due by ts */
	trawl_event *ev;
	int64_t ts;
	int cpu;
	const char *buffer;
	int state;
	uint64_t *frames;
	size_t nframes;
};

struct tw_hold {
	struct tw_hold_item *q;
	size_t head, n, cap; /* the items q[head .. n) */
	size_t waiting;	     /* items in WAITS */
};

int tw_hold_init(trawl_script *s)
{
	s->hold = tw_calloc(s->mem, 1, sizeof(*s->hold));
	return s->hold ? 0 : -1;
}

static void drop(trawl_script *s, struct tw_hold_item *it)
{
	if (it->ev)
		trawl_event_free(it->ev);
	tw_free(s->mem, it->frames);
	memset(it, 0, sizeof(*it));
}

void tw_hold_free(trawl_script *s)
{
	struct tw_hold *h = s->hold;
	if (!h)
		return;
	for (size_t i = h->head; i < h->n; i++)
		drop(s, &h->q[i]);
	tw_free(s->mem, h->q);
	tw_free(s->mem, h);
	s->hold = NULL;
}

int tw_hold_busy(const trawl_script *s)
{
	return s->hold && s->hold->n > s->hold->head;
}

static int is_stack_record(const trawl_event *ev)
{
	const char *sys = trawl_event_system(ev);
	return strcmp(trawl_event_name(ev), "kernel_stack") == 0 &&
	       (!sys || !*sys || strcmp(sys, "ftrace") == 0);
}

/* The frames of an ftrace:kernel_stack record, copied into it. */
static void take_frames(trawl_script *s, struct tw_hold_item *it,
			const trawl_event *ev)
{
	size_t nf = trawl_event_field_count(ev);
	for (size_t i = 0; i < nf; i++) {
		size_t len;
		const char *name = trawl_event_field_name(ev, i, &len);
		if (!name || len != 6 || memcmp(name, "caller", 6) != 0)
			continue;
		const int64_t *el;
		size_t n = trawl_event_field_array(ev, i, &el);
		if (!n)
			return;
		it->frames = tw_malloc(s->mem, n * sizeof(*it->frames));
		if (!it->frames) {
			s->oom = 1;
			return;
		}
		for (size_t k = 0; k < n; k++)
			it->frames[k] = (uint64_t)el[k];
		it->nframes = n;
		return;
	}
}

/* Run what no longer waits, from the front. Return: 1 after exit(). */
static int drain(trawl_script *s)
{
	struct tw_hold *h = s->hold;
	while (h->head < h->n && h->q[h->head].state != WAITS) {
		struct tw_hold_item it = h->q[h->head];
		memset(&h->q[h->head], 0, sizeof(it));
		h->head++;
		int rc;
		if (it.b) {
			s->ev_stack = it.state == HAS_STACK  ? 1
				      : it.state == NO_STACK ? -1
							     : 0;
			s->ev_frames = it.frames;
			s->ev_nframes = it.nframes;
			rc = tw_sc_run_event(s, it.b, it.ev);
			s->ev_stack = 0;
			s->ev_frames = NULL;
			s->ev_nframes = 0;
		} else {
			rc = tw_sc_intervals_to(s, it.ts);
		}
		drop(s, &it);
		if (rc) {
			for (size_t i = h->head; i < h->n; i++)
				drop(s, &h->q[i]);
			h->head = h->n = h->waiting = 0;
			return rc;
		}
	}
	if (h->head == h->n)
		h->head = h->n = 0;
	return 0;
}

/* Settle the items waiting on ev's CPU (and instance): with ev's frames
 * when it is their stack, without when it is another record. */
static void settle(trawl_script *s, const trawl_event *ev, int stack)
{
	struct tw_hold *h = s->hold;
	int cpu = trawl_event_cpu(ev);
	const char *buf = trawl_event_buffer(ev);
	struct tw_hold_item *first = NULL;
	for (size_t i = h->head; i < h->n && h->waiting; i++) {
		struct tw_hold_item *it = &h->q[i];
		if (it->state != WAITS || it->cpu != cpu ||
		    strcmp(it->buffer, buf) != 0)
			continue;
		h->waiting--;
		it->state = stack ? HAS_STACK : NO_STACK;
		if (!stack)
			continue;
		/* several probes on one event share its stack */
		if (!first) {
			take_frames(s, it, ev);
			first = it;
		} else if (first->nframes) {
			size_t bytes = first->nframes * sizeof(*it->frames);
			it->frames = tw_malloc(s->mem, bytes);
			if (!it->frames) {
				s->oom = 1;
				continue;
			}
			memcpy(it->frames, first->frames, bytes);
			it->nframes = first->nframes;
		}
	}
}

int tw_hold_watch(const trawl_event *ev, void *ctx)
{
	trawl_script *s = ctx;
	if (!s->hold->waiting)
		return 0;
	settle(s, ev, is_stack_record(ev));
	return drain(s);
}

static struct tw_hold_item *push(trawl_script *s)
{
	struct tw_hold *h = s->hold;
	if (h->n == h->cap && h->head) {
		memmove(h->q, h->q + h->head, (h->n - h->head) * sizeof(*h->q));
		h->n -= h->head;
		h->head = 0;
	}
	if (h->n == h->cap) {
		size_t cap = h->cap ? h->cap * 2 : 64;
		void *q = tw_realloc(s->mem, h->q, cap * sizeof(*h->q));
		if (!q) {
			s->oom = 1;
			return NULL;
		}
		h->q = q;
		h->cap = cap;
	}
	struct tw_hold_item *it = &h->q[h->n++];
	memset(it, 0, sizeof(*it));
	return it;
}

/* Too much held: the oldest wait ends without its stack. */
static void bound(trawl_script *s)
{
	struct tw_hold *h = s->hold;
	if (h->n - h->head <= HOLD_MAX)
		return;
	for (size_t i = h->head; i < h->n; i++)
		if (h->q[i].state == WAITS) {
			h->q[i].state = NO_STACK;
			h->waiting--;
			return;
		}
}

int tw_hold_event(trawl_script *s, tw_binding *b, const trawl_event *ev)
{
	if (!b->kstack && !tw_hold_busy(s))
		return tw_sc_run_event(s, b, ev);
	struct tw_hold_item *it = push(s);
	if (!it)
		return 0;
	it->ev = trawl_event_copy(ev);
	if (!it->ev) {
		s->oom = 1;
		s->hold->n--;
		return 0;
	}
	it->b = b;
	it->ts = trawl_event_time(ev);
	it->cpu = trawl_event_cpu(ev);
	it->buffer = trawl_event_buffer(ev);
	it->state = b->kstack ? WAITS : NEEDS_NONE;
	s->hold->waiting += b->kstack != 0;
	bound(s);
	return drain(s);
}

int tw_hold_time(trawl_script *s, int64_t ts)
{
	if (!tw_hold_busy(s))
		return tw_sc_intervals_to(s, ts);
	struct tw_hold_item *it = push(s);
	if (!it)
		return 0;
	it->ts = ts;
	it->state = NEEDS_NONE;
	return drain(s);
}

int tw_hold_flush(trawl_script *s)
{
	struct tw_hold *h = s->hold;
	if (!h)
		return 0;
	for (size_t i = h->head; i < h->n; i++)
		if (h->q[i].state == WAITS)
			h->q[i].state = NO_STACK;
	h->waiting = 0;
	return drain(s);
}
