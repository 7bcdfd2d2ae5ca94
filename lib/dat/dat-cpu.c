/* SPDX-License-Identifier: MIT */
/*
 * One CPU's records, decoded from the kernel ring buffer's pages as the file
 * keeps them: zero-copy from the map, or from decompressed chunks of a v7
 * compressed file (count4, then csize4 usize4 bytes per chunk).
 *
 * A page is a header (timestamp, commit word) and records. A record starts
 * with a 32-bit word: type_len (5 bits) and time_delta (27 bits), the low
 * bits holding type_len in a little-endian file:
 *
 *   type_len 1..28  data of type_len * 4 bytes follows
 *   type_len 0      array[0] = 4 + data length, data follows
 *   29  PADDING     time_delta 0: the rest of the page is empty;
 *                   else a discarded event of 4 + array[0] bytes
 *   30  TIME_EXTEND time += array[0] << 27 | time_delta
 *   31  TIME_STAMP  time  = array[0] << 27 | time_delta (absolute)
 *
 * The commit word holds the data size, bit 31 set when events were lost
 * before this page and bit 30 when their count is stored after the data.
 * The timestamp rules follow the kernel's reader (rb_update_read_stamp):
 * padding does not move time; an absolute stamp keeps the top five bits
 * of the time it replaces.
 */
#include <string.h>
#include <sys/mman.h>

#include "dat-int.h"

#define TYPE_PADDING	 29
#define TYPE_TIME_EXTEND 30
#define TYPE_TIME_STAMP	 31
#define TS_SHIFT	 27
#define TS_MSB		 (0xf8ull << 56)
#define COMMIT_MASK	 ((1u << 27) - 1)
#define MISSING_EVENTS	 (1u << 31)
#define MISSING_STORED	 (1u << 30)
#define MAX_CHUNK	 (256u << 20)
#define DROP_EVERY	 (4u << 20)
#define POPULATE_AHEAD	 (2048u << 10)
#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22 /* Linux 5.14 */
#endif

static void damage(tw_dat_cursor *c, uint64_t off, const char *why)
{
	if (!c->damaged++) {
		c->damage_off = off;
		c->damage_why = why;
	}
}

/* File offset of a byte of data, for messages (chunks: the chunk). */
static uint64_t file_off(const tw_dat_cursor *c, const unsigned char *p)
{
	if (c->compressed)
		return c->data_file_off;
	return c->data_file_off + (uint64_t)(p - c->data);
}

static void walk_damage(tw_dat_chunker *w, uint64_t off, const char *why)
{
	if (!w->damaged++) {
		w->damage_off = off;
		w->damage_why = why;
	}
}

/* The next chunk into w->buf; 0 at the end or when the walk cannot go on. */
static int chunk_next(const tw_dat_file *f, tw_dat_chunker *w)
{
	while (w->chunks_left) {
		w->chunks_left--;
		uint64_t at = w->next;
		if (at > w->end || w->end - at < 8) {
			walk_damage(w, at,
				    "a compressed chunk header past "
				    "the end");
			return 0;
		}
		uint32_t csize = tw_dat_u32(f, f->map + at);
		uint32_t usize = tw_dat_u32(f, f->map + at + 4);
		if (csize > w->end - at - 8 || usize > MAX_CHUNK) {
			walk_damage(w, at,
				    "a compressed chunk that does not "
				    "fit");
			return 0;
		}
		w->next = at + 8 + csize;
		if (usize > w->cap) {
			unsigned char *p = tw_realloc(f->mem, w->buf, usize);
			if (!p) {
				walk_damage(w, at,
					    "a chunk too big for memory");
				return 0;
			}
			w->buf = p;
			w->cap = usize;
		}
		if (tw_dat_decompress(f, &w->dctx, f->map + at + 8, csize,
				      w->buf, usize)) {
			walk_damage(w, at,
				    "a compressed chunk that does not "
				    "decompress");
			continue; /* the next chunk may still be good */
		}
		w->len = usize;
		w->at = at;
		return 1;
	}
	return 0;
}

/* What the walk found wrong becomes the cursor's (same thread, or idle). */
static void take_walk_damage(tw_dat_cursor *c)
{
	tw_dat_chunker *w = &c->walk;
	if (!w->damaged)
		return;
	if (!c->damaged) {
		c->damage_off = w->damage_off;
		c->damage_why = w->damage_why;
	}
	c->damaged += w->damaged;
	w->damaged = 0;
}

/* The walk's decoded chunk becomes the current one; buffers change hands. */
static void use_walk_chunk(tw_dat_cursor *c)
{
	tw_dat_chunker *w = &c->walk;
	unsigned char *b = c->chunk;
	size_t cap = c->chunk_cap;
	c->chunk = w->buf;
	c->chunk_cap = w->cap;
	w->buf = b;
	w->cap = cap;
	c->data = c->chunk;
	c->data_len = w->len;
	c->data_file_off = w->at;
	c->page_at = 0;
}

/* The next compressed chunk becomes current; 0 at the end. */
static int load_chunk(tw_dat_cursor *c)
{
	int got = chunk_next(c->f, &c->walk);
	take_walk_damage(c);
	if (got)
		use_walk_chunk(c);
	return got;
}

/*
 * Mapped pages read count in our RSS: give back what is well behind us, so
 * memory does not grow with the file. A pointer into a dropped page stays
 * valid (the page comes back from the page cache when touched).
 */
static void drop_behind(tw_dat_cursor *c)
{
	if (c->compressed || c->memory)
		return;
	/*
	 * Map the next stretch in one call rather than a fault every few
	 * pages (kernels before 5.14 say EINVAL: faults it is, then).
	 */
	if (c->page_at >= c->populated && c->populated < c->data_len) {
		uintptr_t from = ((uintptr_t)(c->data + c->page_at)) & ~4095ul;
		size_t upto = c->page_at + POPULATE_AHEAD;
		if (upto > c->data_len)
			upto = c->data_len;
		uintptr_t to = (uintptr_t)(c->data + upto);
		if (to > from)
			madvise((void *)from, to - from, MADV_POPULATE_READ);
		c->populated = upto;
	}
	if (c->page_at < c->dropped + 2 * DROP_EVERY)
		return;
	uintptr_t from = ((uintptr_t)(c->data + c->dropped) + 4095) & ~4095ul;
	uintptr_t to =
		((uintptr_t)(c->data + c->page_at) - DROP_EVERY) & ~4095ul;
	if (to > from)
		madvise((void *)from, to - from, MADV_DONTNEED);
	c->dropped = c->page_at - DROP_EVERY;
}

/* Set up the page at c->page_at; 0 when there is none left in data. */
static int load_page(tw_dat_cursor *c)
{
	const tw_dat_file *f = c->f;
	const tw_dat_page_format *pf = &f->page;
	while (c->page_at < c->data_len) {
		const unsigned char *pg = c->data + c->page_at;
		size_t avail = c->data_len - c->page_at;
		if (avail > c->page_size)
			avail = c->page_size;
		c->page_at += c->page_size;
		if (avail < pf->data_offset) {
			damage(c, file_off(c, pg), "a truncated page");
			return 0;
		}
		uint64_t commit =
			pf->commit_size == 8
				? tw_dat_u64(f, pg + pf->commit_offset)
				: tw_dat_u32(f, pg + pf->commit_offset);
		size_t size = (size_t)(commit & COMMIT_MASK);
		if (size > avail - pf->data_offset) {
			damage(c, file_off(c, pg),
			       "a page whose size does not fit");
			continue;
		}
		if (commit & MISSING_EVENTS) {
			size_t at = pf->data_offset + size;
			if ((commit & MISSING_STORED) &&
			    avail - at >= pf->commit_size)
				c->lost += pf->commit_size == 8
						   ? tw_dat_u64(f, pg + at)
						   : tw_dat_u32(f, pg + at);
		}
		drop_behind(c);
		c->ts = tw_dat_u64(f, pg);
		c->rec = pg + pf->data_offset;
		c->rec_end = c->rec + size;
		return 1;
	}
	return 0;
}

static int next_piece(tw_dat_cursor *c);
static int64_t to_ns(const tw_dat_file *f, uint64_t ts);

static int next_page(tw_dat_cursor *c)
{
	for (;;) {
		if (load_page(c))
			return 1;
		if (c->compressed && load_chunk(c))
			continue;
		if (!next_piece(c))
			return 0;
	}
}

int64_t tw_dat_ts_ns(const tw_dat_file *f, uint64_t ts)
{
	return to_ns(f, ts);
}

static int64_t to_ns(const tw_dat_file *f, uint64_t ts)
{
	if (f->has_tsc2nsec)
		ts = (uint64_t)(((unsigned __int128)ts * f->tsc_mult) >>
				f->tsc_shift) +
		     (uint64_t)f->tsc_offset;
	return (int64_t)(ts + (uint64_t)f->ts_offset);
}

int tw_dat_cursor_next_slow(tw_dat_cursor *c)
{
	const tw_dat_file *f = c->f;
	if (c->done)
		return 0;
	for (;;) {
		const unsigned char *p = c->rec;
		size_t left = (size_t)(c->rec_end - p);
		if (left == 0) {
			if (!next_page(c))
				break;
			continue;
		}
		if (left < 4) {
			damage(c, file_off(c, p), "a record cut by its page");
			c->rec = c->rec_end;
			continue;
		}
		uint32_t word = tw_dat_u32(f, p);
		uint32_t type_len, delta;
		if (f->big_endian) {
			type_len = word >> 27;
			delta = word & ((1u << 27) - 1);
		} else {
			type_len = word & 31;
			delta = word >> 5;
		}
		if (type_len >= TYPE_PADDING || type_len == 0) {
			if (type_len == TYPE_PADDING && delta == 0) {
				c->rec = c->rec_end; /* rest of page empty */
				continue;
			}
			if (left < 8) {
				damage(c, file_off(c, p),
				       "a record cut by its page");
				c->rec = c->rec_end;
				continue;
			}
		}
		uint64_t array0 = left >= 8 ? tw_dat_u32(f, p + 4) : 0;
		switch (type_len) {
		case TYPE_PADDING:
			if (array0 > left - 4) {
				damage(c, file_off(c, p),
				       "padding longer than its page");
				c->rec = c->rec_end;
			} else {
				c->rec = p + 4 + array0;
			}
			continue;
		case TYPE_TIME_EXTEND:
			c->ts += (array0 << TS_SHIFT) + delta;
			c->rec = p + 8;
			continue;
		case TYPE_TIME_STAMP: {
			uint64_t abs = (array0 << TS_SHIFT) | delta;
			if (c->ts & TS_MSB) {
				uint64_t before = c->ts;
				abs |= before & TS_MSB;
				if (abs < before)
					abs += 1ull << 59;
			}
			c->ts = abs;
			c->rec = p + 8;
			continue;
		}
		case 0: {
			if (array0 < 4 || ((array0 + 3) & ~3ull) > left - 4) {
				damage(c, file_off(c, p),
				       "a record longer than its page");
				c->rec = c->rec_end;
				continue;
			}
			c->ts += delta;
			c->cur = p + 8;
			c->cur_len = (uint32_t)(array0 - 4);
			c->rec = p + 4 + ((array0 + 3) & ~3ull);
			break;
		}
		default: {
			size_t len = (size_t)type_len * 4;
			if (len > left - 4) {
				damage(c, file_off(c, p),
				       "a record longer than its page");
				c->rec = c->rec_end;
				continue;
			}
			c->ts += delta;
			c->cur = p + 4;
			c->cur_len = (uint32_t)len;
			c->rec = p + 4 + len;
			break;
		}
		}
		c->cur_ts = to_ns(f, c->ts);
		return 1;
	}
	c->done = 1;
	return 0;
}

/* The data of one piece: mapped, or its chunk walk set up. */
static void start_piece(tw_dat_cursor *c, uint64_t off, uint64_t size)
{
	const tw_dat_file *f = c->f;
	c->page_at = c->dropped = c->populated = 0;
	c->data = NULL;
	c->data_len = 0;
	c->walk.chunks_left = 0;
	if (off > f->size) {
		damage(c, off, "CPU data past the end of the file");
		return;
	}
	if (f->compressed) {
		/* trace-cmd's size leaves out the 4-byte chunk count */
		uint64_t end = off + 4 + size;
		if (end > f->size) {
			damage(c, f->size,
			       "CPU data cut short: the file is truncated");
			end = f->size;
		}
		c->compressed = 1;
		if (end - off < 4) {
			damage(c, off, "no chunk count");
			return;
		}
		c->walk.chunks_left = tw_dat_u32(f, f->map + off);
		c->walk.next = off + 4;
		/*
		 * The count says how many chunks there are, as trace-cmd
		 * reads them; each is checked against the file. A region of
		 * a file written while recording may hold more chunks than
		 * the last option the reader got to says (cut files).
		 */
		c->walk.end = f->size;
	} else {
		if (size > f->size - off) {
			damage(c, f->size,
			       "CPU data cut short: the file is truncated");
			size = f->size - off;
		}
		c->data = f->map + off;
		c->data_len = (size_t)size;
		c->data_file_off = off;
	}
}

/* The next piece of a span in pieces; 0 when there is none. */
static int next_piece(tw_dat_cursor *c)
{
	if (!c->part || !c->f->parts[c->part - 1].next)
		return 0;
	c->part = c->f->parts[c->part - 1].next;
	const tw_dat_part *p = &c->f->parts[c->part - 1];
	start_piece(c, p->offset, p->size);
	return 1;
}

int tw_dat_cursor_init(tw_dat_cursor *c, const tw_dat_file *f,
		       const tw_dat_span *span)
{
	/* chunk buffers are reused across rewinds */
	unsigned char *chunk = c->chunk, *walk = c->walk.buf;
	size_t chunk_cap = c->chunk_cap, walk_cap = c->walk.cap;
	void *dctx = c->walk.dctx;
	memset(c, 0, sizeof(*c));
	c->walk.dctx = dctx;
	c->chunk = chunk;
	c->chunk_cap = chunk_cap;
	c->walk.buf = walk;
	c->walk.cap = walk_cap;
	c->f = f;
	c->span = span;
	c->fast = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ && !f->big_endian &&
		  !f->has_tsc2nsec && f->ts_offset == 0;
	c->page_size = f->buffers[span->buffer].page_size;
	if (c->page_size < f->page.data_offset + 4)
		c->page_size = f->page_size;
	uint64_t off = span->offset, size = span->size;
	if (span->part) {
		const tw_dat_part *p = &f->parts[span->part - 1];
		c->part = span->part;
		off = p->offset;
		size = p->size;
	}
	start_piece(c, off, size);
	c->rec = c->rec_end = NULL;
	return 0;
}

void tw_dat_cursor_place(tw_dat_cursor *c, const tw_dat_place *at)
{
	if (at->part && at->part != c->part) {
		const tw_dat_part *p = &c->f->parts[at->part - 1];
		c->part = at->part;
		start_piece(c, p->offset, p->size);
	}
	if (c->compressed) {
		if (at->skip <= c->walk.chunks_left) {
			c->walk.chunks_left -= (uint32_t)at->skip;
			c->walk.next = at->at;
		}
	} else if (at->skip <= c->data_len) {
		c->page_at = c->dropped = c->populated = (size_t)at->skip;
	}
}

void tw_dat_cursor_fini(tw_dat_cursor *c)
{
	if (c->f) {
		tw_free(c->f->mem, c->chunk);
		tw_free(c->f->mem, c->walk.buf);
	}
	tw_dat_decompress_fini(c->walk.dctx);
	c->walk.dctx = NULL;
	c->chunk = c->walk.buf = NULL;
	c->chunk_cap = c->walk.cap = 0;
}

void tw_dat_cursor_pages(tw_dat_cursor *c, const tw_dat_file *f,
			 const unsigned char *pages, size_t len)
{
	memset(c, 0, sizeof(*c));
	c->f = f;
	c->fast = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ && !f->big_endian &&
		  !f->has_tsc2nsec && f->ts_offset == 0;
	c->page_size = f->page_size;
	c->memory = 1;
	c->data = pages;
	c->data_len = len;
}
