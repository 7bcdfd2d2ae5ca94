/* SPDX-License-Identifier: MIT */
/*
 * The layout of a perf.data in file mode, as `perf record` writes it
 * (tools/perf/Documentation/perf.data-file-format.txt):
 *
 *   0   "PERFILE2"  u64 size (104)  u64 attr_size
 *   24  attrs  {u64 offset, u64 size}: attr_size bytes each, a
 *              perf_event_attr then {u64 offset, u64 size} of its ids
 *   40  data   {u64 offset, u64 size}: the records
 *   56  event_types (unused)
 *   72  adds_features: a 256-bit map; a {u64 offset, u64 size} for each
 *       bit set, in bit order, right after the data section
 *
 * Every offset and size is checked against the file and the others before
 * it is used: a feature section that lies outside the file, or over the
 * header, the attrs, the data, the table or another section, is counted
 * as damage and left out.
 */
#include <stdio.h>
#include <stdlib.h>

#include "perf-int.h"

#define HEADER_SIZE 104
#define ATTR_MIN    TW_PERF_ATTR_MIN
#define ATTR_MAX    4096

static int bad(const tw_perf_file *f, trawl_error *err, uint64_t off,
	       const char *what)
{
	return tw_error_at(err, TRAWL_EFORMAT, 0, f->name, 0, 0, off,
			   "not a perf.data trawl can read: %s at offset "
			   "%llu",
			   what, (unsigned long long)off);
}

/* [off, off + len) lies in the file. */
static int inside(const tw_perf_file *f, uint64_t off, uint64_t len)
{
	return off <= f->size && len <= f->size - off;
}

static int overlap(uint64_t a, uint64_t an, uint64_t b, uint64_t bn)
{
	return an && bn && a < b + bn && b < a + an;
}

static int cmp_id(const void *x, const void *y)
{
	const tw_perf_id *a = x, *b = y;
	return a->id < b->id ? -1 : a->id > b->id;
}

tw_perf_id *tw_perf_id_find(const tw_perf_file *f, uint64_t id)
{
	size_t lo = 0, hi = f->nids;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (f->ids[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < f->nids && f->ids[lo].id == id ? &f->ids[lo] : NULL;
}

int tw_perf_attr_of_id(const tw_perf_file *f, uint64_t id)
{
	const tw_perf_id *e = tw_perf_id_find(f, id);
	return e ? (int)e->attr : -1;
}

void tw_perf_attr_read(tw_perf_attr *a, const unsigned char *p)
{
	a->type = tw_perf_u32(p);
	a->config = tw_perf_u64(p + 8);
	a->sample_type = tw_perf_u64(p + 24);
	a->read_format = tw_perf_u64(p + 32);
	a->sample_id_all = (tw_perf_u64(p + 40) >> 18) & 1;
	a->id_trailer = tw_perf_id_trailer_size(a->sample_type);
	a->synth = 0; /* perf-synth.c's */
	tw_perf_attr_layout(a);
}

void tw_perf_attrs_done(tw_perf_file *f)
{
	/* TIME follows IDENTIFIER, IP and TID: one place if they agree */
	const uint64_t before_time = TW_PERF_SAMPLE_IDENTIFIER |
				     TW_PERF_SAMPLE_IP | TW_PERF_SAMPLE_TID |
				     TW_PERF_SAMPLE_TIME;
	uint64_t first = f->attrs[0].sample_type & before_time;
	int same = (first & TW_PERF_SAMPLE_TIME) != 0;
	for (size_t i = 1; i < f->nattrs; i++)
		same &= (f->attrs[i].sample_type & before_time) == first;
	f->time_at = same ? 8u * (uint32_t)__builtin_popcountll(first) : 0;
	qsort(f->ids, f->nids, sizeof(*f->ids), cmp_id);
}

static int read_attrs(tw_perf_file *f, uint64_t attr_size,
		      const tw_perf_section *s, trawl_error *err)
{
	if (attr_size < ATTR_MIN + 16 || attr_size > ATTR_MAX)
		return bad(f, err, 16, "an attr size that cannot be");
	if (!inside(f, s->offset, s->size))
		return bad(f, err, 24, "an attr section past the end");
	if (s->size % attr_size || s->size == 0)
		return bad(f, err, 32,
			   "an attr section that is not whole attrs");
	uint64_t n = s->size / attr_size;
	if (n > TW_PERF_MAX_ATTRS)
		return bad(f, err, 32, "more attrs than a recording has");
	f->attrs = tw_calloc(f->mem, (size_t)n, sizeof(*f->attrs));
	if (!f->attrs)
		goto nomem;
	uint64_t nids = 0;
	for (uint64_t i = 0; i < n; i++) {
		uint64_t off = s->offset + i * attr_size;
		const unsigned char *p = f->map + off;
		const unsigned char *ids = p + attr_size - 16;
		uint64_t ioff = tw_perf_u64(ids), isize = tw_perf_u64(ids + 8);
		if (!inside(f, ioff, isize) || isize % 8)
			return bad(f, err, off + attr_size - 16,
				   "an attr's ids past the end of the file");
		nids += isize / 8;
		if (nids > TW_PERF_MAX_IDS)
			return bad(f, err, off + attr_size - 8,
				   "more stream ids than a recording has");
		tw_perf_attr_read(&f->attrs[i], p);
	}
	f->nattrs = (size_t)n;
	f->ids = tw_calloc(f->mem, nids ? (size_t)nids : 1, sizeof(*f->ids));
	if (!f->ids)
		goto nomem;
	for (uint64_t i = 0; i < n; i++) {
		const unsigned char *p =
			f->map + s->offset + i * attr_size + attr_size - 16;
		uint64_t ioff = tw_perf_u64(p), isize = tw_perf_u64(p + 8);
		for (uint64_t k = 0; k < isize / 8; k++)
			f->ids[f->nids++] =
				(tw_perf_id){tw_perf_u64(f->map + ioff + k * 8),
					     (uint32_t)i, -1};
	}
	tw_perf_attrs_done(f);
	return 0;
nomem:
	return tw_error_at(err, TRAWL_ENOMEM, 0, f->name, 0, 0, 0,
			   "out of memory");
}

/* A feature's string (u32 len, then len bytes, NUL-padded) into out. */
static void feat_string(const tw_perf_file *f, int bit, char *out, size_t cap)
{
	const tw_perf_section *s = &f->feat[bit];
	out[0] = 0;
	if (s->size < 4)
		return;
	uint32_t len = tw_perf_u32(f->map + s->offset);
	if (len > s->size - 4)
		len = (uint32_t)(s->size - 4);
	const char *p = (const char *)f->map + s->offset + 4;
	size_t n = strnlen(p, len);
	if (n >= cap)
		n = cap - 1;
	memcpy(out, p, n);
	out[n] = 0;
}

/*
 * The feature section table, right after the data. A section that is not
 * where a section can be is dropped and counted; so is the whole table
 * when it is not in the file (a file cut short).
 */
static void read_features(tw_perf_file *f, const unsigned char *bits,
			  const tw_perf_section *attrs)
{
	uint64_t table = f->data.offset + f->data.size;
	uint64_t nfeat = 0;
	for (int b = 0; b < TW_PERF_FEAT_BITS; b++)
		nfeat += (bits[b / 8] >> (b % 8)) & 1;
	if (!nfeat)
		return;
	if (f->cut || !inside(f, table, nfeat * 16)) {
		f->feat_damaged++;
		f->feat_damage_off = table;
		return;
	}
	const unsigned char *p = f->map + table;
	for (int b = 0; b < TW_PERF_FEAT_BITS; b++) {
		if (!((bits[b / 8] >> (b % 8)) & 1))
			continue;
		tw_perf_section s = {tw_perf_u64(p), tw_perf_u64(p + 8)};
		uint64_t at = (uint64_t)(p - f->map);
		p += 16;
		int ok = inside(f, s.offset, s.size) &&
			 !overlap(s.offset, s.size, 0, HEADER_SIZE) &&
			 !overlap(s.offset, s.size, attrs->offset,
				  attrs->size) &&
			 !overlap(s.offset, s.size, f->data.offset,
				  f->data.size) &&
			 !overlap(s.offset, s.size, table, nfeat * 16);
		for (int o = 0; ok && o < b; o++)
			if (overlap(s.offset, s.size, f->feat[o].offset,
				    f->feat[o].size))
				ok = 0;
		if (!ok) {
			if (!f->feat_damaged++)
				f->feat_damage_off = at;
			continue;
		}
		f->feat[b] = s;
	}
	tw_perf_feature_values(f);
}

void tw_perf_feature_values(tw_perf_file *f)
{
	feat_string(f, TW_PERF_FEAT_HOSTNAME, f->hostname, sizeof(f->hostname));
	feat_string(f, TW_PERF_FEAT_OSRELEASE, f->osrelease,
		    sizeof(f->osrelease));
	const tw_perf_section *nr = &f->feat[TW_PERF_FEAT_NRCPUS];
	if (nr->size >= 8) {
		uint32_t online = tw_perf_u32(f->map + nr->offset + 4);
		f->nr_cpus = online <= TW_MAX_CPUS ? (int)online : 0;
	}
}

int tw_perf_file_open(tw_perf_file *f, const tw_mem *mem, const char *name,
		      const unsigned char *map, size_t size, trawl_error *err)
{
	memset(f, 0, sizeof(*f));
	f->mem = mem;
	f->name = name;
	f->map = map;
	f->size = size;
	for (size_t i = 0; i < sizeof(f->id_cache) / sizeof(f->id_cache[0]);
	     i++)
		f->id_cache[i].attr = -1;
	if (size < 16 || memcmp(map, "PERFILE2", 8) != 0)
		return bad(f, err, 0, "no perf.data magic");
	uint64_t hsize = tw_perf_u64(map + 8);
	if (hsize == 16)
		return tw_perf_pipe_open(f, err);
	if (hsize != HEADER_SIZE || size < HEADER_SIZE)
		return bad(f, err, 8, "a header size that is not 104");
	tw_perf_section attrs = {tw_perf_u64(map + 24), tw_perf_u64(map + 32)};
	int rc = read_attrs(f, tw_perf_u64(map + 16), &attrs, err);
	if (rc)
		return rc;
	f->data =
		(tw_perf_section){tw_perf_u64(map + 40), tw_perf_u64(map + 48)};
	if (f->data.offset > size)
		return bad(f, err, 40, "a data section past the end");
	if (f->data.offset < HEADER_SIZE ||
	    overlap(f->data.offset, f->data.size, attrs.offset, attrs.size))
		return bad(f, err, 40, "a data section over the header");
	if (f->data.size > size - f->data.offset) {
		/* cut short: what is there is read, then the error */
		f->cut = 1;
		f->data.size = size - f->data.offset;
	}
	read_features(f, map + 72, &attrs);
	const tw_perf_section *td = &f->feat[TW_PERF_FEAT_TRACING_DATA];
	int tracepoints = 0;
	for (size_t i = 0; i < f->nattrs; i++)
		tracepoints |= f->attrs[i].type == TW_PERF_TYPE_TRACEPOINT;
	if (!td->size && f->cut)
		return tw_error_at(
			err, TRAWL_EPARSE, 0, name, 0, 0, size,
			"the file is truncated at offset %llu, inside "
			"its data section (which runs to %llu): the "
			"event formats perf writes after the data "
			"are gone, so nothing can be decoded",
			(unsigned long long)size,
			(unsigned long long)(f->data.offset +
					     tw_perf_u64(map + 48)));
	if (!td->size && tracepoints)
		return tw_error_at(
			err, TRAWL_EUNSUPPORTED, 0, name, 0, 0, 72,
			"the tracing data (HEADER_TRACING_DATA, "
			"the event formats) is missing or "
			"damaged, so tracepoint samples cannot be "
			"decoded (feature table at offset %llu)",
			(unsigned long long)(f->data.offset + f->data.size));
	if (td->size &&
	    (rc = tw_perf_tracing_parse(f, td->offset, td->size, err)))
		return rc;
	return tw_perf_synth_formats(f, err);
}

void tw_perf_file_close(tw_perf_file *f)
{
	tw_free(f->mem, f->attrs);
	tw_free(f->mem, f->ids);
	tw_free(f->mem, f->ftrace_formats);
	tw_free(f->mem, f->systems);
	tw_free(f->mem, f->formats);
	tw_free(f->mem, f->kallsyms);
	tw_perf_synth_free(f);
	memset(f, 0, sizeof(*f));
}
