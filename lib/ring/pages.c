/* SPDX-License-Identifier: MIT */
/*
 * A channel's events in the kernel's ring-buffer page format (the layout
 * events/header_page and header_event describe, as trace.dat holds it):
 *
 *	page:   timestamp:u64  commit:u64  records...
 *	record: type_len:5 time_delta:27 (one u32), then
 *	        type_len 1..28: type_len * 4 bytes of data
 *	        type_len 0:     array[0] = bytes + 4, then the bytes
 *	        type_len 30:    a time extend, delta = array[0] << 27 | delta
 *	data:   common_type:u16 common_flags:u8 common_preempt_count:u8
 *	        common_pid:s32, then the event's payload
 *
 * commit holds the bytes of records, bit 31 when events were lost before
 * the page and bit 30 when their count follows the records (as a u64): the
 * ring's lost, overwritten and torn events reach the trace as the kernel's
 * lost events do. A CPU's events come in time order (the writer orders
 * timestamps as positions), so every delta is >= 0.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ring-int.h"
#include "ring-pages.h"

#define PAGE_HDR 16u

struct cpu_pages {
	unsigned char *data; /* whole pages, the last one being filled */
	size_t len, cap;     /* len: bytes of whole pages */
	unsigned char *page; /* the page being filled, or NULL */
	uint32_t used;	     /* its record bytes */
	uint64_t last_ts;
	uint64_t lost_seen; /* lost + overwritten + torn put in pages */
	uint64_t page_lost; /* the count the page being filled carries */
};

struct tw_ring_pages {
	char name[TRAWL_RING_NAME_MAX + 1];
	uint32_t page_size;
	uint32_t first_id;
	trawl_ring *r;
	struct cpu_pages *cpu;
	int ncpus;
	int cur; /* the CPU being read */
	uint64_t events;
	char **formats;
	size_t *format_lens;
	size_t nformats;
};

tw_ring_pages *tw_ring_pages_new(const char *channel, uint32_t page_size,
				 uint32_t first_id)
{
	if (!channel || strlen(channel) > TRAWL_RING_NAME_MAX ||
	    page_size < 256)
		return NULL;
	tw_ring_pages *p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	snprintf(p->name, sizeof(p->name), "%s", channel);
	p->page_size = page_size;
	p->first_id = first_id;
	return p;
}

static uint64_t lost_of(const trawl_ring_stats *st)
{
	return st->lost_full + st->lost_busy + st->lost_retry +
	       st->overwritten + st->torn + st->damaged;
}

/* The page being filled becomes a whole page. */
static void close_page(struct cpu_pages *c, uint32_t page_size)
{
	if (!c->page)
		return;
	memset(c->page + PAGE_HDR + c->used, 0, page_size - PAGE_HDR - c->used);
	c->len += page_size;
	c->page = NULL;
}

/* A new page starting at @ts; lost events since the last page noted. */
static int open_page(struct tw_ring_pages *p, struct cpu_pages *c, int cpu,
		     uint64_t ts)
{
	if (c->len + p->page_size > c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 16 * (size_t)p->page_size;
		unsigned char *d = realloc(c->data, cap);
		if (!d)
			return -TRAWL_ENOMEM;
		c->data = d;
		c->cap = cap;
	}
	c->page = c->data + c->len;
	c->used = 0;
	memcpy(c->page, &ts, 8);
	memset(c->page + 8, 0, 8);
	c->last_ts = ts;
	c->page_lost = 0;
	trawl_ring_stats st;
	if (trawl_ring_stats_get(p->r, cpu, &st) == 0 &&
	    lost_of(&st) > c->lost_seen) {
		c->page_lost = lost_of(&st) - c->lost_seen;
		c->lost_seen = lost_of(&st);
	}
	return 0;
}

/* The room records may take in a page: all of it, less the lost count's
 * 8 bytes when the page carries one. */
static uint32_t room(const struct tw_ring_pages *p, const struct cpu_pages *c)
{
	return p->page_size - PAGE_HDR - (c->page_lost ? 8 : 0);
}

static void finish_commit(struct cpu_pages *c)
{
	uint64_t commit = c->used;
	if (c->page_lost) {
		/* RB_MISSED_EVENTS | RB_MISSED_STORED, the count after the
		 * records */
		commit |= 3ull << 30;
		memcpy(c->page + PAGE_HDR + c->used, &c->page_lost, 8);
		c->used += 8;
	}
	memcpy(c->page + 8, &commit, 8);
}

static int on_event(const trawl_ring_event *ev, void *ctx)
{
	struct tw_ring_pages *p = ctx;
	int cpu = p->cur;
	struct cpu_pages *c = &p->cpu[cpu];
	uint32_t data = 8 + (uint32_t)ev->len; /* common fields + payload */
	uint32_t rec = data <= 28 * 4 ? 4 + ((data + 3) & ~3u)
				      : 8 + ((data + 3) & ~3u);
	uint64_t delta =
		c->page && ev->ts > c->last_ts ? ev->ts - c->last_ts : 0;
	uint32_t extend = delta >= (1u << 27) ? 8 : 0;
	if (rec + 8 + PAGE_HDR + 8 > p->page_size)
		return 0; /* never: records are at most half a ring page */
	if (c->page && c->used + extend + rec > room(p, c)) {
		finish_commit(c);
		close_page(c, p->page_size);
	}
	if (!c->page) {
		if (open_page(p, c, cpu, ev->ts) < 0)
			return -1;
		delta = 0;
		extend = 0;
	}
	unsigned char *at = c->page + PAGE_HDR + c->used;
	if (extend) {
		uint32_t w = 30u | (uint32_t)(delta & ((1u << 27) - 1)) << 5;
		uint32_t hi = (uint32_t)(delta >> 27);
		memcpy(at, &w, 4);
		memcpy(at + 4, &hi, 4);
		at += 8;
		c->used += 8;
		delta = 0;
	}
	uint32_t w;
	unsigned char *d;
	if (data <= 28 * 4) {
		w = ((data + 3) / 4) | (uint32_t)delta << 5;
		memcpy(at, &w, 4);
		d = at + 4;
	} else {
		w = (uint32_t)delta << 5;
		uint32_t array0 = data + 4;
		memcpy(at, &w, 4);
		memcpy(at + 4, &array0, 4);
		d = at + 8;
	}
	uint16_t type = (uint16_t)(p->first_id + ev->type);
	int32_t pid = (int32_t)ev->tid;
	memcpy(d, &type, 2);
	d[2] = 0;
	d[3] = 0;
	memcpy(d + 4, &pid, 4);
	memcpy(d + 8, ev->data, ev->len);
	memset(d + data, 0, ((data + 3) & ~3u) - data);
	c->used += rec;
	c->last_ts = ev->ts;
	p->events++;
	return 0;
}

static int attach(tw_ring_pages *p)
{
	p->r = trawl_ring_attach(p->name, NULL);
	if (!p->r)
		return 0;
	p->ncpus = trawl_ring_ncpus(p->r);
	p->cpu = calloc((size_t)p->ncpus, sizeof(*p->cpu));
	if (!p->cpu) {
		trawl_ring_close(p->r);
		p->r = NULL;
		return -TRAWL_ENOMEM;
	}
	return 1;
}

int tw_ring_pages_attach(tw_ring_pages *p)
{
	return p->r ? 1 : attach(p);
}

void tw_ring_pages_reset(tw_ring_pages *p)
{
	for (int c = 0; p->cpu && c < p->ncpus; c++) {
		p->cpu[c].len = 0;
		p->cpu[c].page = NULL;
	}
}

int tw_ring_pages_poll(tw_ring_pages *p, int final)
{
	if (!p->r) {
		int rc = attach(p);
		if (rc <= 0)
			return rc;
	}
	for (int cpu = 0; cpu < p->ncpus; cpu++) {
		p->cur = cpu;
		int rc = trawl_ring_read(p->r, cpu,
					 final ? TRAWL_RING_READ_PARTIAL : 0,
					 on_event, p);
		if (rc < 0)
			return rc;
		if (rc)
			return -TRAWL_ENOMEM;
		struct cpu_pages *c = &p->cpu[cpu];
		if (final) {
			/* lost at the end: one more page to say so */
			trawl_ring_stats st;
			trawl_ring_stats_get(p->r, cpu, &st);
			if (lost_of(&st) > c->lost_seen) {
				if (c->page) {
					finish_commit(c);
					close_page(c, p->page_size);
				}
				if (open_page(p, c, cpu, c->last_ts) < 0)
					return -TRAWL_ENOMEM;
			}
			if (c->page) {
				finish_commit(c);
				close_page(c, p->page_size);
			}
		}
	}
	return 1;
}

const char *tw_ring_pages_name(const tw_ring_pages *p)
{
	return p->name;
}

int tw_ring_pages_ncpus(const tw_ring_pages *p)
{
	return p->r ? p->ncpus : 0;
}

const void *tw_ring_pages_data(const tw_ring_pages *p, int cpu, size_t *len)
{
	if (!p->r || cpu < 0 || cpu >= p->ncpus) {
		*len = 0;
		return NULL;
	}
	*len = p->cpu[cpu].len;
	return p->cpu[cpu].data;
}

size_t tw_ring_pages_formats(tw_ring_pages *p, const char *const **texts,
			     const size_t **lens)
{
	if (!p->formats && p->r) {
		int n = trawl_ring_type_count(p->r);
		p->formats = calloc(n > 0 ? (size_t)n : 1, sizeof(char *));
		p->format_lens = calloc(n > 0 ? (size_t)n : 1, sizeof(size_t));
		for (int id = 1; p->formats && p->format_lens && id < n; id++) {
			int k = trawl_ring_type_format(
				p->r, id, (int)p->first_id + id, NULL, 0);
			if (k <= 0)
				continue;
			char *t = malloc((size_t)k + 1);
			if (!t)
				break;
			trawl_ring_type_format(p->r, id, (int)p->first_id + id,
					       t, (size_t)k + 1);
			p->formats[p->nformats] = t;
			p->format_lens[p->nformats++] = (size_t)k;
		}
	}
	*texts = (const char *const *)p->formats;
	*lens = p->format_lens;
	return p->nformats;
}

int tw_ring_pages_stats(const tw_ring_pages *p, int cpu, trawl_ring_stats *out)
{
	if (!p->r)
		return -TRAWL_ENOENT;
	return trawl_ring_stats_get(p->r, cpu, out);
}

uint64_t tw_ring_pages_events(const tw_ring_pages *p)
{
	return p->events;
}

void tw_ring_pages_free(tw_ring_pages *p)
{
	if (!p)
		return;
	for (int c = 0; p->cpu && c < p->ncpus; c++)
		free(p->cpu[c].data);
	free(p->cpu);
	for (size_t i = 0; i < p->nformats; i++)
		free(p->formats[i]);
	free(p->formats);
	free(p->format_lens);
	trawl_ring_close(p->r);
	free(p);
}
