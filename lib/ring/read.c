/* SPDX-License-Identifier: MIT */
/*
 * The reader: one CPU buffer's sub-buffers in position order. A finished
 * sub-buffer (its commit word says every byte is counted) is read whole:
 * in overwrite mode after exchanging the reader's spare page for it in its
 * slot, so that no writer can write into it while it is read (the kernel's
 * reader-page swap); in discard mode in place, then handed back through
 * `consumed`. An unfinished one is read in place only at the end of a
 * recording (TRAWL_RING_READ_PARTIAL) or once its producer is gone: record
 * by record, each one checked by its two stamps, copied out before it is
 * delivered and checked again afterwards.
 *
 * Everything read from the shared memory is checked before it is used: a
 * damaged or hostile producer gives counted damage, never a read outside
 * the map nor a loop without end.
 */
#include <stdio.h>
#include <string.h>

#include "ring-int.h"

static int type_desc_ok(const struct tw_ring_type_desc *d, uint32_t max)
{
	if (memchr(d->name, 0, sizeof(d->name)) == NULL || !d->name[0] ||
	    d->nfields > TRAWL_RING_MAX_FIELDS || d->fixed_size > max)
		return 0;
	int strs = 0;
	for (uint32_t f = 0; f < d->nfields; f++) {
		const struct tw_ring_field_desc *fd = &d->fields[f];
		if (memchr(fd->name, 0, sizeof(fd->name)) == NULL ||
		    !fd->name[0] || fd->kind < TRAWL_RING_U8 ||
		    fd->kind > TRAWL_RING_STR ||
		    (uint32_t)fd->offset + fd->size > d->fixed_size)
			return 0;
		strs += fd->kind == TRAWL_RING_STR;
	}
	return strs <= 1;
}

/* Copy the types declared since the last look, each checked; a bad one
 * keeps an empty name and its events count as damaged. */
int tw_ring_types_refresh(trawl_ring *r)
{
	uint32_t n = __atomic_load_n(&r->hdr->ntypes, __ATOMIC_ACQUIRE);
	if (n > TRAWL_RING_MAX_TYPES + 1)
		n = TRAWL_RING_MAX_TYPES + 1;
	for (uint32_t id = r->ntypes_seen; id < n; id++) {
		struct tw_ring_type_desc *d = &r->tcopy[id];
		memcpy(d, &r->hdr->types[id], sizeof(*d));
		if (id == 0 || !type_desc_ok(d, r->max_record))
			memset(d, 0, sizeof(*d));
	}
	if (n > r->ntypes_seen)
		r->ntypes_seen = n;
	return 0;
}

static inline int finished(uint64_t commit, uint32_t cycle, uint32_t size)
{
	return tw_commit_cycle(commit) == (cycle & TW_RING_CYCLE_MASK) &&
	       tw_commit_bytes(commit) == size;
}

/* slot cycle @have is later than @want (mod 2^24) */
static int later(uint32_t have, uint32_t want)
{
	uint32_t d = (have - want) & TW_RING_CYCLE_MASK;
	return d != 0 && d < (TW_RING_CYCLE_MASK >> 1);
}

struct walk {
	trawl_ring *r;
	uint32_t cpu;
	struct tw_ring_cpu *c;
	struct tw_ring_reader_cpu *rd;
	uint64_t base;
	uint32_t i, cycle;
	const unsigned char *page;
	uint32_t end; /* bytes of the page to read */
	int whole;    /* finished and ours: no stamp may be missing */
	int in_place; /* a writer may still reuse the page */
	int dead;     /* the producer is gone */
	uint64_t commit;
	trawl_ring_event_fn cb;
	void *ctx;
};

enum { WALK_DONE, WALK_WAIT, WALK_LAPPED, WALK_STOPPED };

/* The writer lapped the reader (overwrite mode; in discard mode only a
 * damaged producer): go on from the oldest sub-buffer that can still be
 * whole. What was delivered from the lost one is not lost. */
static void resync(trawl_ring *r, struct tw_ring_reader_cpu *rd, uint64_t woff)
{
	uint64_t last = woff ? (woff - 1) >> r->subbuf_shift : 0;
	uint64_t first = last >= r->subbufs - 1 ? last - (r->subbufs - 1) : 0;
	uint64_t pos = first << r->subbuf_shift;
	if (r->overwrite)
		rd->unlost += rd->seen;
	else
		rd->st.damaged++;
	rd->held = 0;
	if (pos <= rd->pos)
		pos = ((rd->pos >> r->subbuf_shift) + 1) << r->subbuf_shift;
	rd->pos = pos;
}

static int walk(struct walk *w, int *rc)
{
	trawl_ring *r = w->r;
	struct tw_ring_reader_cpu *rd = w->rd;
	uint32_t size = r->subbuf_size;
	uint32_t off = (uint32_t)(rd->pos - w->base);
	while (off + 8 <= w->end) {
		const unsigned char *rec = w->page + off;
		uint64_t pos = w->base + off;
		uint64_t a = __atomic_load_n((const uint64_t *)rec,
					     __ATOMIC_ACQUIRE);
		uint32_t len = (uint32_t)(a >> 32) & 0xffff;
		uint32_t type = (uint32_t)(a >> 48);
		int a_ok = (uint32_t)a == tw_ring_stamp(pos) && len >= 8 &&
			   len % 8 == 0 && off + len <= size &&
			   (type == TW_RING_PAD_TYPE || len >= TW_RING_REC_HDR);
		if (!a_ok) {
			if (w->whole) {
				rd->st.damaged++;
			} else if (w->dead) {
				/* a writer died between reserving and its
				 * first store: that event, and the finished
				 * ones after it that cannot be found */
				uint32_t rec_n = tw_commit_records(w->commit);
				rd->st.torn++;
				if (tw_commit_cycle(w->commit) == w->cycle &&
				    rec_n > rd->seen)
					rd->st.torn += rec_n - rd->seen;
			} else {
				rd->pos = pos;
				return WALK_WAIT;
			}
			off = size;
			break;
		}
		if (type == TW_RING_PAD_TYPE) {
			off += len;
			continue;
		}
		uint32_t b = __atomic_load_n((const uint32_t *)(rec + 20),
					     __ATOMIC_ACQUIRE);
		if (b != tw_ring_stamp(pos)) {
			if (w->whole) {
				rd->st.damaged++;
			} else if (w->dead) {
				rd->st.torn++;
			} else {
				rd->pos = pos;
				return WALK_WAIT;
			}
			off += len;
			continue;
		}
		if (type >= r->ntypes_seen)
			tw_ring_types_refresh(r);
		if (type >= r->ntypes_seen || !r->tcopy[type].name[0] ||
		    len - TW_RING_REC_HDR < r->tcopy[type].fixed_size) {
			rd->st.damaged++;
			rd->seen++;
			off += len;
			continue;
		}
		const unsigned char *src = rec;
		if (w->in_place) {
			memcpy(r->copy, rec, len);
			/* Acquire: the copy is done before slot[i] is looked
			 * at again; if a writer marked a new cycle meanwhile,
			 * the copy may mix two records. */
			__atomic_thread_fence(__ATOMIC_ACQUIRE);
			uint64_t s = __atomic_load_n(&w->c->place[w->i].slot,
						     __ATOMIC_RELAXED);
			if (tw_slot_cycle(s) != w->cycle)
				return WALK_LAPPED;
			src = r->copy;
		}
		trawl_ring_event ev;
		memcpy(&ev.ts, src + 8, 8);
		memcpy(&ev.tid, src + 16, 4);
		ev.cpu = w->cpu;
		ev.type = type;
		ev.data = src + TW_RING_REC_HDR;
		ev.len = len - TW_RING_REC_HDR;
		off += len;
		rd->seen++;
		rd->pos = w->base + off;
		rd->st.delivered++;
		*rc = w->cb(&ev, w->ctx);
		if (*rc)
			return WALK_STOPPED;
	}
	rd->pos = w->base + (off < w->end ? off : w->end);
	return WALK_DONE;
}

TRAWL_API int trawl_ring_read(trawl_ring *r, int cpu, unsigned flags,
			      trawl_ring_event_fn cb, void *ctx)
{
	if (!r || r->producer || !cb || cpu < 0 || (uint32_t)cpu >= r->ncpus)
		return -TRAWL_EMISUSE;
	const uint32_t size = r->subbuf_size;
	const uint64_t ring = (uint64_t)r->subbufs * size;
	struct tw_ring_cpu *c = tw_ring_cpu(r, (uint32_t)cpu);
	struct tw_ring_reader_cpu *rd = &r->rd[cpu];
	int dead = -1;
	/* each pass takes one sub-buffer, resyncs, or returns: bounded even
	 * when the producer moves woff without end */
	for (uint32_t pass = 0; pass < 4 * r->subbufs + 8; pass++) {
		/* records are 8-byte aligned; a damaged woff is not */
		uint64_t woff = __atomic_load_n(&c->woff, __ATOMIC_ACQUIRE) &
				~(uint64_t)7;
		if (rd->pos >= woff)
			return 0;
		struct walk w = {.r = r,
				 .cpu = (uint32_t)cpu,
				 .c = c,
				 .rd = rd,
				 .cb = cb,
				 .ctx = ctx};
		w.base = rd->pos & ~(uint64_t)(size - 1);
		uint64_t sub = w.base >> r->subbuf_shift;
		w.i = (uint32_t)(sub & (r->subbufs - 1));
		w.cycle = (uint32_t)(sub >> r->subbufs_shift) &
			  TW_RING_CYCLE_MASK;
		if (rd->seen_base != w.base || rd->seen_cycle != w.cycle) {
			rd->seen_base = w.base;
			rd->seen_cycle = w.cycle;
			rd->seen = 0;
		}
		if (rd->held && rd->held_base == w.base) {
			w.page = tw_ring_page(r, (uint32_t)cpu, rd->held_id);
			w.end = size;
			w.whole = 1;
			goto read;
		}
		if (woff - w.base > ring) {
			resync(r, rd, woff);
			continue;
		}
		uint64_t s =
			__atomic_load_n(&c->place[w.i].slot, __ATOMIC_ACQUIRE);
		w.commit = __atomic_load_n(&c->place[w.i].commit,
					   __ATOMIC_ACQUIRE);
		if (tw_slot_cycle(s) != w.cycle) {
			if (later(tw_slot_cycle(s), w.cycle)) {
				resync(r, rd, woff);
				continue;
			}
			if (dead < 0)
				dead = trawl_ring_producer_alive(r) == 0;
			if (!dead)
				return 0;
			/* reserved, but its writer died before marking */
			rd->st.torn++;
			rd->pos = w.base + size < woff ? w.base + size : woff;
			continue;
		}
		if (tw_slot_id(s) > r->subbufs) {
			rd->st.damaged++;
			rd->pos = w.base + size;
			continue;
		}
		if (finished(w.commit, w.cycle, size)) {
			uint32_t id = tw_slot_id(s);
			if (r->overwrite) {
				uint64_t spare = __atomic_load_n(
					&c->spare, __ATOMIC_RELAXED);
				if (spare > r->subbufs || spare == id) {
					rd->st.damaged++;
					rd->pos = w.base + size;
					continue;
				}
				uint64_t mine = tw_slot_make((uint32_t)spare,
							     w.cycle, 1);
				/* Acquire: the page's records (released by
				 * their commits, seen finished above) before
				 * they are read; release: nothing. Fails when
				 * a writer marked the next cycle first. */
				if (!__atomic_compare_exchange_n(
					    &c->place[w.i].slot, &s, mine, 0,
					    __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
					continue;
				__atomic_store_n(&c->spare, id,
						 __ATOMIC_RELAXED);
				rd->held = 1;
				rd->held_id = id;
				rd->held_base = w.base;
			}
			w.page = tw_ring_page(r, (uint32_t)cpu, id);
			w.end = size;
			w.whole = 1;
			w.in_place = 0;
		} else {
			if (dead < 0)
				dead = trawl_ring_producer_alive(r) == 0;
			if (!dead && !(flags & TRAWL_RING_READ_PARTIAL))
				return 0;
			w.page = tw_ring_page(r, (uint32_t)cpu, tw_slot_id(s));
			w.end = woff - w.base < size ? (uint32_t)(woff - w.base)
						     : size;
			w.dead = dead;
			w.in_place = !dead;
		}
	read:;
		int rc = 0;
		int how = walk(&w, &rc);
		if (how == WALK_STOPPED)
			return rc;
		if (how == WALK_WAIT)
			return 0;
		if (how == WALK_LAPPED) {
			resync(r, rd,
			       __atomic_load_n(&c->woff, __ATOMIC_ACQUIRE));
			continue;
		}
		if (!w.whole && !(w.dead && w.base + size <= woff))
			return 0; /* read up to what is written */
		if (!r->overwrite)
			/* Release: done reading the page before a writer
			 * may reuse it (its acquire load of consumed). */
			__atomic_store_n(&c->consumed, w.base + size,
					 __ATOMIC_RELEASE);
		rd->held = 0;
		rd->pos = w.base + size;
	}
	return 0;
}

TRAWL_API int trawl_ring_stats_get(const trawl_ring *r, int cpu,
				   trawl_ring_stats *out)
{
	if (!r || !r->rd || !out || cpu < 0 || (uint32_t)cpu >= r->ncpus)
		return -TRAWL_EMISUSE;
	const struct tw_ring_cpu *c = tw_ring_cpu(r, (uint32_t)cpu);
	const struct tw_ring_reader_cpu *rd = &r->rd[cpu];
	*out = rd->st;
	out->lost_full = __atomic_load_n(&c->lost_full, __ATOMIC_RELAXED);
	out->lost_busy = __atomic_load_n(&c->lost_busy, __ATOMIC_RELAXED);
	out->lost_retry = __atomic_load_n(&c->lost_retry, __ATOMIC_RELAXED);
	uint64_t over = __atomic_load_n(&c->overwritten, __ATOMIC_RELAXED);
	out->overwritten = over > rd->unlost ? over - rd->unlost : 0;
	return 0;
}

TRAWL_API int trawl_ring_type_count(const trawl_ring *r)
{
	if (!r)
		return -TRAWL_EMISUSE;
	if (r->producer)
		return (int)r->hdr->ntypes;
	return (int)r->ntypes_seen;
}

static const struct tw_ring_type_desc *desc_of(const trawl_ring *r, int id)
{
	if (!r || id <= 0)
		return NULL;
	if (r->producer)
		return (uint32_t)id < r->hdr->ntypes ? &r->hdr->types[id]
						     : NULL;
	if ((uint32_t)id >= r->ntypes_seen || !r->tcopy[id].name[0])
		return NULL;
	return &r->tcopy[id];
}

TRAWL_API const char *trawl_ring_type_name(const trawl_ring *r, int id)
{
	const struct tw_ring_type_desc *d = desc_of(r, id);
	return d ? d->name : NULL;
}

static const char *c_type(int kind)
{
	static const char *const names[] = {
		"",   "u8",  "u16", "u32", "u64",
		"s8", "s16", "s32", "s64", "__data_loc char[]"};
	return kind >= TRAWL_RING_U8 && kind <= TRAWL_RING_STR ? names[kind]
							       : "";
}

static const char *conversion(int kind)
{
	switch (kind) {
	case TRAWL_RING_U64:
		return "%llu";
	case TRAWL_RING_S64:
		return "%lld";
	case TRAWL_RING_S8:
	case TRAWL_RING_S16:
	case TRAWL_RING_S32:
		return "%d";
	case TRAWL_RING_STR:
		return "%s";
	}
	return "%u";
}

#define PUT(...)                                                               \
	do {                                                                   \
		int k = snprintf(n < size ? buf + n : NULL,                    \
				 n < size ? size - n : 0, __VA_ARGS__);        \
		if (k > 0)                                                     \
			n += (size_t)k;                                        \
	} while (0)

TRAWL_API int trawl_ring_type_format(const trawl_ring *r, int id, int kid,
				     char *buf, size_t size)
{
	if (!r || (!buf && size))
		return -TRAWL_EMISUSE;
	const struct tw_ring_type_desc *d = desc_of(r, id);
	if (!d)
		return -TRAWL_ENOENT;
	size_t n = 0;
	if (size)
		buf[0] = '\0';
	PUT("name: %s\nID: %d\nformat:\n", d->name, kid);
	PUT("\tfield:unsigned short common_type;\toffset:0;\tsize:2;"
	    "\tsigned:0;\n");
	PUT("\tfield:unsigned char common_flags;\toffset:2;\tsize:1;"
	    "\tsigned:0;\n");
	PUT("\tfield:unsigned char common_preempt_count;\toffset:3;"
	    "\tsize:1;\tsigned:0;\n");
	PUT("\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n");
	for (uint32_t f = 0; f < d->nfields; f++) {
		const struct tw_ring_field_desc *fd = &d->fields[f];
		int sgn =
			fd->kind >= TRAWL_RING_S8 && fd->kind <= TRAWL_RING_S64;
		PUT("\tfield:%s %s;\toffset:%u;\tsize:%u;\tsigned:%d;\n",
		    c_type(fd->kind), fd->name, 8u + fd->offset, fd->size, sgn);
	}
	PUT("\nprint fmt: \"");
	for (uint32_t f = 0; f < d->nfields; f++)
		PUT("%s%s=%s", f ? " " : "", d->fields[f].name,
		    conversion(d->fields[f].kind));
	PUT("\"");
	for (uint32_t f = 0; f < d->nfields; f++) {
		const struct tw_ring_field_desc *fd = &d->fields[f];
		if (fd->kind == TRAWL_RING_STR)
			PUT(", __get_str(%s)", fd->name);
		else
			PUT(", REC->%s", fd->name);
	}
	PUT("\n");
	return n > 0x7fffffff ? -TRAWL_ELIMIT : (int)n;
}
