/* SPDX-License-Identifier: MIT */
/*
 * Entering a trace.dat at a time (TRAWL_OPEN_RANGE), one CPU's data at a
 * time: every ring-buffer page starts with the 64-bit time its records
 * count from, and a CPU's pages are in time order, so a binary search of
 * the page headers finds the last page that begins before the time.
 *
 *   v6, v7 uncompressed   pages back to back in the map:
 *                         | ts8 commit ... | ts8 commit ... | ...
 *   v7 compressed         count4, then chunks of 64 pages:
 *                         | csize4 usize4 zstd/zlib(| ts8 ... | ...) | ...
 *
 * Compressed chunks are walked by their headers (offsets only), and each
 * chunk the search looks at is decompressed only as far as its first
 * page's timestamp (a streaming decompression into an 8-byte buffer: one
 * block of the frame, not the chunk). A file written while recording
 * holds a CPU's data in pieces; the places of all pieces are one sorted
 * sequence. A place whose timestamp cannot be read (damage) counts as not
 * before the time, so the search starts earlier, never later.
 */
#include <string.h>
#include <zlib.h>
#include <zstd.h>

#include "dat-int.h"

/* One piece of a span: its places are pages (mapped) or chunks. */
struct piece {
	uint32_t part; /* index + 1, 0: the span's data itself */
	uint64_t off, size;
	uint64_t first, n; /* its places in the span's sequence */
	uint64_t *chunks;  /* compressed: each chunk header's offset */
};

struct seeker {
	const tw_dat_file *f;
	uint32_t page_size;
	struct piece *pieces;
	size_t npieces, cap;
	uint64_t total;
	ZSTD_DStream *zs;
};

/* The first bytes of a compressed chunk, without decompressing it all.
 * Return: 0, or -1 when they cannot be had. */
static int chunk_head(struct seeker *s, const unsigned char *src, size_t n,
		      unsigned char *dst, size_t want)
{
	if (s->f->comp_zstd) {
		if (!s->zs && !(s->zs = ZSTD_createDStream()))
			return -1;
		ZSTD_initDStream(s->zs);
		ZSTD_inBuffer in = {src, n, 0};
		ZSTD_outBuffer out = {dst, want, 0};
		while (out.pos < want) {
			size_t before = in.pos, got = out.pos;
			size_t rc = ZSTD_decompressStream(s->zs, &out, &in);
			if (ZSTD_isError(rc) || rc == 0 ||
			    (in.pos == before && out.pos == got))
				return out.pos == want ? 0 : -1;
		}
		return 0;
	}
	z_stream z;
	memset(&z, 0, sizeof(z));
	if (inflateInit(&z) != Z_OK)
		return -1;
	z.next_in = (unsigned char *)src;
	z.avail_in = (uInt)n;
	z.next_out = dst;
	z.avail_out = (uInt)want;
	int rc;
	do
		rc = inflate(&z, Z_SYNC_FLUSH);
	while (rc == Z_OK && z.avail_out > 0 && z.avail_in > 0);
	int ok = z.avail_out == 0;
	inflateEnd(&z);
	return ok ? 0 : -1;
}

/*
 * The chunks of a compressed piece at off (count4, then csize4 usize4 data
 * per chunk, as dat-cpu.c walks them), each within the file: 1 with *at
 * at the next chunk's header (its sizes in *csize, *usize), 0 past the
 * last. Start with *at = off and *left = 0xffffffff.
 */
static int next_chunk(const tw_dat_file *f, uint64_t off, uint64_t *at,
		      uint32_t *left, uint32_t *csize, uint32_t *usize)
{
	if (*left == UINT32_MAX) {
		if (off > f->size || f->size - off < 4)
			return 0;
		*left = tw_dat_u32(f, f->map + off);
		*at = off + 4;
	} else {
		*at += 8 + (uint64_t)*csize;
	}
	if (!*left || *at > f->size || f->size - *at < 8)
		return 0;
	*csize = tw_dat_u32(f, f->map + *at);
	*usize = tw_dat_u32(f, f->map + *at + 4);
	if (*csize > f->size - *at - 8)
		return 0;
	(*left)--;
	return 1;
}

static int add_piece(struct seeker *s, uint32_t part, uint64_t off,
		     uint64_t size)
{
	const tw_dat_file *f = s->f;
	if (s->npieces == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 4;
		struct piece *p =
			tw_realloc(f->mem, s->pieces, cap * sizeof(*p));
		if (!p)
			return -1;
		s->pieces = p;
		s->cap = cap;
	}
	struct piece *p = &s->pieces[s->npieces++];
	*p = (struct piece){.part = part, .off = off, .size = size};
	p->first = s->total;
	if (off > f->size)
		return 0; /* damage: no places (the cursor says so) */
	if (!f->compressed) {
		if (size > f->size - off)
			size = f->size - off;
		p->n = size / s->page_size;
		s->total += p->n;
		return 0;
	}
	uint64_t at = off;
	uint32_t left = UINT32_MAX, csize = 0, usize;
	size_t cap = 0;
	while (next_chunk(f, off, &at, &left, &csize, &usize)) {
		if (p->n == cap) {
			cap = cap ? cap * 2 : 64;
			uint64_t *c =
				tw_realloc(f->mem, p->chunks, cap * sizeof(*c));
			if (!c)
				return -1;
			p->chunks = c;
		}
		p->chunks[p->n++] = at;
	}
	s->total += p->n;
	return 0;
}

/* The timestamp place i begins with; INT64_MAX when it cannot be read. */
static int64_t key(struct seeker *s, uint64_t i, const struct piece **pp,
		   uint64_t *k)
{
	const tw_dat_file *f = s->f;
	size_t lo = 0, hi = s->npieces;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (s->pieces[mid].first <= i)
			lo = mid;
		else
			hi = mid;
	}
	const struct piece *p = &s->pieces[lo];
	*pp = p;
	*k = i - p->first;
	unsigned char head[8];
	if (!f->compressed) {
		memcpy(head, f->map + p->off + *k * s->page_size, 8);
	} else {
		uint64_t at = p->chunks[*k];
		uint32_t csize = tw_dat_u32(f, f->map + at);
		uint32_t usize = tw_dat_u32(f, f->map + at + 4);
		if (usize < 8 ||
		    chunk_head(s, f->map + at + 8, csize, head, sizeof(head)))
			return INT64_MAX;
	}
	return tw_dat_ts_ns(f, tw_dat_u64(f, head));
}

int tw_dat_seek_place(const tw_dat_file *f, const tw_dat_span *span,
		      int64_t from, tw_dat_place *out)
{
	*out = (tw_dat_place){0};
	tw_dat_cursor c = {0};
	tw_dat_cursor_init(&c, f, span); /* for its page size */
	struct seeker s = {.f = f, .page_size = c.page_size};
	tw_dat_cursor_fini(&c);
	int rc = -1;
	if (s.page_size < 8)
		return 0;
	if (span->part) {
		for (uint32_t i = span->part; i; i = f->parts[i - 1].next)
			if (add_piece(&s, i, f->parts[i - 1].offset,
				      f->parts[i - 1].size))
				goto out;
	} else if (add_piece(&s, 0, span->offset, span->size)) {
		goto out;
	}
	/* the last place whose key is before `from`, else the first */
	uint64_t lo = 0, hi = s.total, best = 0;
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;
		const struct piece *p;
		uint64_t k;
		if (key(&s, mid, &p, &k) < from) {
			best = mid;
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}
	if (s.total) {
		const struct piece *p;
		uint64_t k;
		key(&s, best, &p, &k);
		out->part = p->part;
		out->skip = f->compressed ? k : k * s.page_size;
		out->at = f->compressed ? p->chunks[k] : 0;
	}
	rc = 0;
out:
	for (size_t i = 0; i < s.npieces; i++)
		tw_free(f->mem, s.pieces[i].chunks);
	tw_free(f->mem, s.pieces);
	ZSTD_freeDStream(s.zs);
	return rc;
}

/* A piece's page data: as mapped, or its chunks at their uncompressed
 * size, within the file. */
static uint64_t piece_bytes(const tw_dat_file *f, uint64_t off, uint64_t size)
{
	if (off > f->size)
		return 0;
	if (!f->compressed)
		return size < f->size - off ? size : f->size - off;
	uint64_t at = off, n = 0;
	uint32_t left = UINT32_MAX, csize = 0, usize;
	while (next_chunk(f, off, &at, &left, &csize, &usize))
		n += usize;
	return n;
}

uint64_t tw_dat_span_bytes(const tw_dat_file *f, const tw_dat_span *span)
{
	if (!span->part)
		return piece_bytes(f, span->offset, span->size);
	uint64_t n = 0;
	for (uint32_t i = span->part; i; i = f->parts[i - 1].next)
		n += piece_bytes(f, f->parts[i - 1].offset,
				 f->parts[i - 1].size);
	return n;
}
