/* SPDX-License-Identifier: MIT */
/*
 * A perf.data in pipe mode (`perf record -o -`): no section table, only
 * the 16-byte header ("PERFILE2", u64 16) and records, the metadata among
 * them at the front, as perf synthesizes it before the first sample
 * (tools/perf/util/header.c, perf_event__synthesize_*):
 *
 *   HEADER_ATTR (64)         a perf_event_attr (its size in its u32 at 4),
 *                            then the u64 stream ids of it to the end
 *   HEADER_FEATURE (80)      u64 feature bit, then what the feature's
 *                            section of a file holds
 *   HEADER_TRACING_DATA (66) u32 size; that many bytes of tracing data
 *                            follow the record, padded to 8
 *   HEADER_EVENT_TYPE, HEADER_BUILD_ID, FINISHED_INIT (82): not needed
 *
 * The metadata is read up to the first sample or FINISHED_INIT; the data
 * is every record after the header, which the walk reads as in file mode
 * (perf-reader.c steps over the tracing data). A stream is read from the
 * temporary copy the input makes of it (tw_input_spool()).
 */
#include <stdlib.h>

#include "perf-int.h"

static int bad(const tw_perf_file *f, trawl_error *err, uint64_t off,
	       const char *what)
{
	return tw_error_at(err, TRAWL_EFORMAT, 0, f->name, 0, 0, off,
			   "not a pipe-mode perf.data trawl can read: %s at "
			   "offset %llu",
			   what, (unsigned long long)off);
}

/* A HEADER_ATTR's body [p, p + n) at file offset off: an attr and ids. */
static int add_attr(tw_perf_file *f, size_t *attr_cap, size_t *id_cap,
		    const unsigned char *p, size_t n, uint64_t off,
		    trawl_error *err)
{
	uint32_t asize = n >= 8 ? tw_perf_u32(p + 4) : 0;
	if (asize < TW_PERF_ATTR_MIN || asize > n || asize % 8)
		return bad(f, err, off, "an attr size that cannot be");
	if (f->nattrs == TW_PERF_MAX_ATTRS)
		return bad(f, err, off, "more attrs than a recording has");
	size_t nids = (n - asize) / 8;
	if (f->nids + nids > TW_PERF_MAX_IDS)
		return bad(f, err, off, "more stream ids than a recording has");
	void *a = f->attrs, *i = f->ids;
	if (tw_grow(f->mem, &a, attr_cap, f->nattrs + 1, sizeof(*f->attrs)))
		goto nomem;
	f->attrs = a;
	if (tw_grow(f->mem, &i, id_cap, f->nids + nids + 1, sizeof(*f->ids)))
		goto nomem;
	f->ids = i;
	tw_perf_attr_read(&f->attrs[f->nattrs], p);
	for (size_t k = 0; k < nids; k++)
		f->ids[f->nids++] = (tw_perf_id){tw_perf_u64(p + asize + k * 8),
						 (uint32_t)f->nattrs, -1};
	f->nattrs++;
	return 0;
nomem:
	return tw_error_at(err, TRAWL_ENOMEM, 0, f->name, 0, 0, 0,
			   "out of memory");
}

int tw_perf_pipe_open(tw_perf_file *f, trawl_error *err)
{
	f->pipe = 1;
	f->data = (tw_perf_section){16, f->size - 16};
	size_t attr_cap = 0, id_cap = 0;
	tw_perf_section td = {0, 0};
	uint64_t at = 16;
	int broken = 1; /* the walk ended on a record it could not read */
	while (f->size - at >= 8) {
		const unsigned char *rec = f->map + at;
		uint32_t type = tw_perf_u32(rec);
		uint16_t size;
		memcpy(&size, rec + 6, 2);
		/* a size that cannot be ends the metadata here; the walk
		 * of the records names it */
		if (size < 8 || size > f->size - at)
			break;
		const unsigned char *body = rec + 8;
		size_t n = size - 8u;
		if (type == TW_PERF_RECORD_SAMPLE ||
		    type == TW_PERF_RECORD_FINISHED_INIT) {
			broken = 0;
			break;
		}
		int rc;
		switch (type) {
		case TW_PERF_RECORD_HEADER_ATTR:
			if ((rc = add_attr(f, &attr_cap, &id_cap, body, n, at,
					   err)))
				return rc;
			break;
		case TW_PERF_RECORD_HEADER_FEATURE:
			/* one shorter than its bit is counted by the walk */
			if (n >= 8 && tw_perf_u64(body) < TW_PERF_FEAT_BITS &&
			    tw_perf_u64(body) != TW_PERF_FEAT_TRACING_DATA)
				f->feat[tw_perf_u64(body)] =
					(tw_perf_section){at + 16, n - 8};
			break;
		case TW_PERF_RECORD_HEADER_TRACING_DATA: {
			uint64_t len = tw_perf_tracing_after(body, n);
			if (n < 4 || len > f->size - at - size)
				return bad(f, err, at,
					   "tracing data past the end");
			td = (tw_perf_section){at + size, tw_perf_u32(body)};
			at += len;
			break;
		}
		}
		at += size;
	}
	if (f->size - at < 8 && at < f->size)
		broken = 1;
	int tracepoints = 0;
	for (size_t i = 0; i < f->nattrs; i++)
		tracepoints |= f->attrs[i].type == TW_PERF_TYPE_TRACEPOINT;
	if (broken && (!f->nattrs || (!td.size && tracepoints)))
		return tw_error_at(err, TRAWL_EPARSE, 0, f->name, 0, 0, at,
				   "a pipe-mode perf.data cut short or "
				   "damaged at offset %llu, before its %s",
				   (unsigned long long)at,
				   f->nattrs
					   ? "tracing data (the event formats)"
					   : "attrs");
	if (!f->nattrs)
		return bad(f, err, at,
			   "no attr (HEADER_ATTR) before the first sample");
	tw_perf_attrs_done(f);
	tw_perf_feature_values(f);
	if (!td.size && tracepoints)
		return tw_error_at(
			err, TRAWL_EUNSUPPORTED, 0, f->name, 0, 0, at,
			"no tracing data (HEADER_TRACING_DATA, the event "
			"formats) before the first sample at offset %llu, so "
			"its tracepoint samples cannot be decoded",
			(unsigned long long)at);
	int rc;
	if (td.size && (rc = tw_perf_tracing_parse(f, td.offset, td.size, err)))
		return rc;
	return tw_perf_synth_formats(f, err);
}
