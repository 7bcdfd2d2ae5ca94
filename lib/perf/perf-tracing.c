/* SPDX-License-Identifier: MIT */
/*
 * perf's HEADER_TRACING_DATA feature (tools/perf/util/trace-event-info.c)
 * is the front of a trace.dat version 6: the same magic, then
 *
 *   version "0.6\0" | u8 big_endian | u8 long_size | u32 page_size
 *   "header_page\0" u64 size, text | "header_event\0" u64 size, text
 *   u32 n, n x (u64 size, ftrace format)
 *   u32 nsys, nsys x (name "\0", u32 n, n x (u64 size, format))
 *   u32 size, kallsyms | u32 size, printk formats
 *   u64 size, saved_cmdlines (version 0.6 and later)
 *
 * Cut here into a tw_dat_meta whose blobs point into the map, for the
 * trace.dat reader to parse as it parses a trace.dat's (tw_dat_file_from_meta).
 */
#include <stdio.h>
#include <stdlib.h>

#include "perf-int.h"

typedef struct cut {
	tw_perf_file *f;
	const unsigned char *p;
	uint64_t base, at, end; /* file offsets */
	trawl_error *err;
} cut;

static int damaged(cut *c, const char *what)
{
	return tw_error_at(c->err, TRAWL_EFORMAT, 0, c->f->name, 0, 0, c->at,
			   "the tracing data (HEADER_TRACING_DATA) is "
			   "damaged: %s at offset %llu",
			   what, (unsigned long long)c->at);
}

static int take(cut *c, uint64_t n, const unsigned char **out)
{
	if (n > c->end - c->at)
		return -1;
	*out = c->p + c->at;
	c->at += n;
	return 0;
}

static int take_str(cut *c, const char **out)
{
	const unsigned char *s = c->p + c->at;
	const void *nul = memchr(s, 0, (size_t)(c->end - c->at));
	if (!nul)
		return -1;
	*out = (const char *)s;
	c->at += (uint64_t)((const unsigned char *)nul - s) + 1;
	return 0;
}

static int take_num(cut *c, int size, uint64_t *v)
{
	const unsigned char *q;
	if (take(c, (uint64_t)size, &q))
		return -1;
	*v = size == 4 ? tw_perf_u32(q) : tw_perf_u64(q);
	return 0;
}

/* A blob: its size in `size` bytes, then its bytes. */
static int take_blob(cut *c, int size, tw_blob *b)
{
	uint64_t n;
	const unsigned char *q;
	if (take_num(c, size, &n) || take(c, n, &q))
		return -1;
	b->data = (const char *)q;
	b->len = (size_t)n;
	return 0;
}

static int named_blob(cut *c, const char *name, tw_blob *b)
{
	const char *s;
	if (take_str(c, &s) || strcmp(s, name) != 0)
		return -1;
	return take_blob(c, 8, b);
}

/* n formats (u64 size each) appended to f->formats. */
static int take_formats(cut *c, uint64_t n, size_t *count, size_t *cap)
{
	tw_perf_file *f = c->f;
	if (n > (c->end - c->at) / 8)
		return damaged(c, "more event formats than the section holds");
	for (uint64_t i = 0; i < n; i++) {
		void *p = f->formats;
		if (tw_grow(f->mem, &p, cap, *count + 1, sizeof(tw_blob)))
			return tw_error_at(c->err, TRAWL_ENOMEM, 0, f->name, 0,
					   0, 0, "out of memory");
		f->formats = p;
		if (take_blob(c, 8, &f->formats[*count]))
			return damaged(c, "an event format past its end");
		(*count)++;
	}
	return 0;
}

int tw_perf_tracing_parse(tw_perf_file *f, uint64_t off, uint64_t len,
			  trawl_error *err)
{
	cut c = {f, f->map, off, off, off + len, err};
	tw_dat_meta *m = &f->meta;
	const unsigned char *q;
	const char *version;
	if (take(&c, 10, &q) || memcmp(q, "\x17\x08\x44tracing", 10) != 0)
		return damaged(&c, "no tracing magic");
	if (take_str(&c, &version) || take(&c, 6, &q))
		return damaged(&c, "no version, byte order or page size");
	if (q[0] != 0 || q[1] != 8)
		return tw_error_at(err, TRAWL_EUNSUPPORTED, 0, f->name, 0, 0,
				   c.at - 6,
				   "the tracing data is of a %s-endian "
				   "host with %d-byte longs; trawl reads "
				   "perf.data of little-endian 64-bit hosts "
				   "only (offset %llu)",
				   q[0] ? "big" : "little", q[1],
				   (unsigned long long)(c.at - 6));
	m->page_size = tw_perf_u32(q + 2);
	if (named_blob(&c, "header_page", &m->header_page) ||
	    named_blob(&c, "header_event", &m->header_event))
		return damaged(&c, "no header_page or header_event");
	uint64_t n;
	size_t count = 0, cap = 0;
	if (take_num(&c, 4, &n))
		return damaged(&c, "no count of ftrace formats");
	int rc = take_formats(&c, n, &count, &cap);
	if (rc)
		return rc;
	size_t nftrace = count;
	uint64_t nsys;
	if (take_num(&c, 4, &nsys) || nsys > (c.end - c.at) / 5)
		return damaged(&c, "no count of event systems");
	f->systems =
		tw_calloc(f->mem, nsys ? (size_t)nsys : 1, sizeof(*f->systems));
	size_t *first =
		tw_calloc(f->mem, nsys ? (size_t)nsys : 1, sizeof(*first));
	if (!f->systems || !first) {
		tw_free(f->mem, first);
		return tw_error_at(err, TRAWL_ENOMEM, 0, f->name, 0, 0, 0,
				   "out of memory");
	}
	for (uint64_t s = 0; s < nsys && !rc; s++) {
		tw_dat_system *sys = &f->systems[s];
		if (take_str(&c, &sys->name) || take_num(&c, 4, &n)) {
			rc = damaged(&c, "an event system cut short");
			break;
		}
		first[s] = count;
		rc = take_formats(&c, n, &count, &cap);
		sys->nformats = (size_t)n;
	}
	/* the formats may have moved while growing: point at them now */
	for (uint64_t s = 0; s < nsys && !rc; s++)
		f->systems[s].formats = f->formats + first[s];
	tw_free(f->mem, first);
	if (rc)
		return rc;
	m->ftrace = f->formats;
	m->nftrace = nftrace;
	m->systems = f->systems;
	m->nsystems = (size_t)nsys;
	if (take_blob(&c, 4, &m->kallsyms) || take_blob(&c, 4, &m->printk))
		return damaged(&c, "the kallsyms or printk formats cut short");
	/* 0.5 has no saved cmdlines; 0.6 may end here too */
	if (strcmp(version, "0.5") != 0 && c.at < c.end &&
	    take_blob(&c, 8, &m->cmdlines))
		return damaged(&c, "the saved cmdlines cut short");
	m->ncpus = f->nr_cpus;
	return 0;
}
