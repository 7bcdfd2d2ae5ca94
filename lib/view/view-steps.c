/* SPDX-License-Identifier: MIT */
/*
 * A lane's changes, delta-encoded in blocks of VIEW_BLOCK: each block
 * keeps its first change's time and value whole (so a window starts with a
 * binary search over the blocks), then every change is three LEB128
 * varints: the time since the previous change, the value's difference
 * zig-zagged, aux. A context switch costs about 4 bytes instead of 20.
 *
 *   block: t0 v0 off ──► bytes[off]: aux0 | dt1 dv1 aux1 | dt2 dv2 aux2 ...
 */
#include <stdlib.h>
#include <string.h>

#include "view.h"

static int grow(void **p, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return 0;
	size_t n = *cap ? *cap : 64;
	while (n < need)
		n *= 2;
	void *q = realloc(*p, n * elem);
	if (!q)
		return -1;
	*p = q;
	*cap = n;
	return 0;
}

static inline const uint8_t *get_varint(const uint8_t *p, uint64_t *out)
{
	uint64_t v = *p++;
	if (!(v & 0x80)) { /* most values and auxes: one byte */
		*out = v;
		return p;
	}
	v &= 0x7f;
	for (int shift = 7; shift < 64; shift += 7) {
		uint8_t b = *p++;
		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			break;
	}
	*out = v;
	return p;
}

static uint64_t zigzag(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static int64_t unzigzag(uint64_t v)
{
	return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

int view_steps_add(struct view_steps *s, int64_t t, int64_t v, uint32_t aux)
{
	if (s->oom)
		return -1;
	if (s->n && t < s->last_t)
		t = s->last_t; /* the run loop delivers in time order */
	if (grow((void **)&s->bytes, &s->cap, s->nbytes + 32, 1))
		goto oom;
	uint8_t *o = s->bytes + s->nbytes;
	if (s->n % VIEW_BLOCK == 0) {
		if (grow((void **)&s->blocks, &s->bcap, s->nblocks + 1,
			 sizeof(*s->blocks)))
			goto oom;
		s->blocks[s->nblocks++] =
			(struct view_block){.t0 = t, .v0 = v, .off = s->nbytes};
	} else {
		o = view_put_varint(o, (uint64_t)(t - s->last_t));
		o = view_put_varint(o, zigzag((int64_t)((uint64_t)v -
							(uint64_t)s->last_v)));
	}
	o = view_put_varint(o, aux);
	s->nbytes = (size_t)(o - s->bytes);
	s->last_t = t;
	s->last_v = v;
	s->last_aux = aux;
	s->n++;
	return 0;
oom:
	s->oom = 1;
	return -1;
}

void view_steps_free(struct view_steps *s)
{
	free(s->bytes);
	free(s->blocks);
	free(s->segs);
	memset(s, 0, sizeof(*s));
}

void view_steps_shrink(struct view_steps *s)
{
	if (s->nbytes && s->nbytes < s->cap) {
		uint8_t *b = realloc(s->bytes, s->nbytes);
		if (b) {
			s->bytes = b;
			s->cap = s->nbytes;
		}
	}
	if (s->nblocks && s->nblocks < s->bcap) {
		struct view_block *k =
			realloc(s->blocks, s->nblocks * sizeof(*k));
		if (k) {
			s->blocks = k;
			s->bcap = s->nblocks;
		}
	}
}

size_t view_steps_bytes(const struct view_steps *s)
{
	return s->cap + s->bcap * sizeof(*s->blocks) +
	       s->segcap * sizeof(*s->segs);
}

size_t view_steps_whole_bytes(const struct view_steps *s)
{
	size_t n = s->nbytes + s->nblocks * sizeof(*s->blocks);
	for (size_t i = 0; i < s->nsegs; i++)
		n += s->segs[i].nbytes +
		     (size_t)s->segs[i].nblocks * sizeof(*s->blocks);
	return n;
}

static unsigned block_len(const struct view_steps *s, size_t b)
{
	if (b + 1 < s->nblocks)
		return VIEW_BLOCK;
	unsigned r = (unsigned)(s->n % VIEW_BLOCK);
	return r ? r : VIEW_BLOCK;
}

static void enter_block(struct view_iter *it, size_t b)
{
	it->block = b;
	it->in = 0;
	it->p = it->s->bytes + it->s->blocks[b].off;
}

void view_iter_start(struct view_iter *it, const struct view_steps *s)
{
	memset(it, 0, sizeof(*it));
	it->s = s;
	if (s->nblocks)
		enter_block(it, 0);
}

int view_iter_next(struct view_iter *it, struct view_step *out)
{
	const struct view_steps *s = it->s;
	if (!s || it->block >= s->nblocks)
		return 0;
	if (it->in >= block_len(s, it->block)) {
		if (it->block + 1 >= s->nblocks) {
			it->block = s->nblocks;
			return 0;
		}
		enter_block(it, it->block + 1);
	}
	uint64_t x;
	if (it->in == 0) {
		it->cur.t = s->blocks[it->block].t0;
		it->cur.v = s->blocks[it->block].v0;
	} else {
		it->p = get_varint(it->p, &x);
		it->cur.t += (int64_t)x;
		it->p = get_varint(it->p, &x);
		it->cur.v =
			(int64_t)((uint64_t)it->cur.v + (uint64_t)unzigzag(x));
	}
	it->p = get_varint(it->p, &x);
	it->cur.aux = (uint32_t)x;
	it->in++;
	*out = it->cur;
	return 1;
}

size_t view_iter_fill(struct view_iter *it, struct view_step *out, size_t max)
{
	const struct view_steps *s = it->s;
	size_t n = 0;
	while (n < max && s && it->block < s->nblocks) {
		if (it->in >= block_len(s, it->block)) {
			if (it->block + 1 >= s->nblocks) {
				it->block = s->nblocks;
				break;
			}
			enter_block(it, it->block + 1);
		}
		unsigned len = block_len(s, it->block);
		/* the rest of the block, as view_iter_next() reads it */
		const uint8_t *p = it->p;
		struct view_step cur = it->cur;
		unsigned in = it->in;
		uint64_t x;
		if (in == 0) {
			cur.t = s->blocks[it->block].t0;
			cur.v = s->blocks[it->block].v0;
			p = get_varint(p, &x);
			cur.aux = (uint32_t)x;
			out[n++] = cur;
			in++;
		}
		for (; in < len && n < max; in++) {
			p = get_varint(p, &x);
			cur.t += (int64_t)x;
			p = get_varint(p, &x);
			cur.v = (int64_t)((uint64_t)cur.v +
					  (uint64_t)unzigzag(x));
			p = get_varint(p, &x);
			cur.aux = (uint32_t)x;
			out[n++] = cur;
		}
		it->p = p;
		it->cur = cur;
		it->in = in;
	}
	return n;
}

int view_iter_seek(struct view_iter *it, const struct view_steps *s, int64_t t)
{
	memset(it, 0, sizeof(*it));
	it->s = s;
	if (!s->n)
		return -1;
	/* the last block starting at or before t */
	size_t lo = 0, hi = s->nblocks;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (s->blocks[mid].t0 <= t)
			lo = mid;
		else
			hi = mid;
	}
	/* the last change <= t is in that block (the next one starts
	 * later): walk to it, keeping the position before it */
	enter_block(it, lo);
	struct view_iter before = *it, probe = *it;
	struct view_step st;
	for (;;) {
		struct view_iter snap = probe;
		if (!view_iter_next(&probe, &st) || st.t > t)
			break;
		before = snap;
	}
	*it = before;
	return 0;
}
