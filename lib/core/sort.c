/* SPDX-License-Identifier: MIT */
/*
 * External merge sort of raw records by (ts, seq). Records collect in memory
 * up to a byte budget; a full buffer is sorted and written as one run to an
 * unlinked temporary file; at the end the runs are merged with a binary heap.
 * Input that fits the budget never touches the disk. Memory stays bounded by
 * the budget whatever the input size, which is what lets a 10 GB unordered
 * trace be read on a small machine.
 *
 * A record, in memory and on disk (native endian, never leaves the run):
 *
 *	+--------+--------+--------+------+---------------+
 *	| ts: 8  | seq: 8 | line: 8| len:4| raw bytes:len |
 *	+--------+--------+--------+------+---------------+
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core.h"

#define REC_HDR	    28
#define MIN_RUN_BUF (64u << 10)
#define MAX_RUN_BUF (1u << 20)

typedef struct idx {
	int64_t ts;
	uint64_t seq;
	size_t off;
} idx;

typedef struct run {
	uint64_t pos, end; /* file range still to read */
	char *buf;
	size_t cap, start, len;
	/* the current head record */
	int64_t ts;
	uint64_t seq;
} run;

struct tw_sorter {
	const tw_mem *mem;
	size_t budget;
	char tmpdir[256];
	int fd;
	uint64_t fsize;

	tw_buf arena;
	idx *index;
	size_t nindex, index_cap;

	run *runs;
	size_t nruns, runs_cap;
	run **heap;
	size_t nheap;
	run *pending; /* run whose head was returned: advance on next call */

	size_t emit; /* in-memory mode: next index to return */
	int merging;
};

static int cmp_idx(const void *a, const void *b)
{
	const idx *x = a, *y = b;
	/* Time first; at equal times the record order of the source. */
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

tw_sorter *tw_sorter_new(const tw_mem *mem, size_t budget, const char *tmpdir)
{
	tw_sorter *s = tw_calloc(mem, 1, sizeof(*s));
	if (!s)
		return NULL;
	s->mem = mem;
	s->budget = budget < (2u << 20) ? (2u << 20) : budget;
	s->fd = -1;
	const char *d = tmpdir ? tmpdir : getenv("TMPDIR");
	snprintf(s->tmpdir, sizeof(s->tmpdir), "%s", d && *d ? d : "/tmp");
	return s;
}

void tw_sorter_free(tw_sorter *s)
{
	if (!s)
		return;
	if (s->fd >= 0)
		close(s->fd);
	tw_buf_fini(s->mem, &s->arena);
	tw_free(s->mem, s->index);
	for (size_t i = 0; i < s->nruns; i++)
		tw_free(s->mem, s->runs[i].buf);
	tw_free(s->mem, s->runs);
	tw_free(s->mem, s->heap);
	tw_free(s->mem, s);
}

uint64_t tw_sorter_runs_spilled(const tw_sorter *s)
{
	return s->nruns;
}

static int open_tmp(tw_sorter *s, trawl_error *err)
{
	s->fd = open(s->tmpdir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (s->fd < 0) {
		char path[300];
		snprintf(path, sizeof(path), "%s/trawl-sort-XXXXXX", s->tmpdir);
		s->fd = mkstemp(path);
		if (s->fd >= 0)
			unlink(path);
	}
	if (s->fd < 0)
		return tw_error_at(err, TRAWL_EIO, errno, s->tmpdir, 0, 0, 0,
				   "cannot create a temporary file to sort "
				   "out-of-order input: %s (set TMPDIR)",
				   strerror(errno));
	return 0;
}

static int write_all(tw_sorter *s, const void *p, size_t n, trawl_error *err)
{
	const char *c = p;
	while (n > 0) {
		ssize_t w = write(s->fd, c, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return tw_error_at(err, TRAWL_EIO, errno, s->tmpdir, 0,
					   0, s->fsize,
					   "failed to write a sorted run: %s",
					   strerror(errno));
		c += w;
		n -= (size_t)w;
		s->fsize += (uint64_t)w;
	}
	return 0;
}

/* Sort what is in memory and append it to the file as one run. */
static int spill(tw_sorter *s, trawl_error *err)
{
	if (s->nindex == 0)
		return 0;
	if (s->fd < 0 && open_tmp(s, err))
		return -TRAWL_EIO;
	void *p = s->runs;
	if (tw_grow(s->mem, &p, &s->runs_cap, s->nruns + 1, sizeof(run)))
		return tw_error_at(err, TRAWL_ENOMEM, 0, NULL, 0, 0, 0,
				   "out of memory");
	s->runs = p;
	qsort(s->index, s->nindex, sizeof(idx), cmp_idx);
	run *r = &s->runs[s->nruns];
	memset(r, 0, sizeof(*r));
	r->pos = s->fsize;
	/* Write through a staging buffer to keep the syscalls large. */
	char stage[1 << 16];
	size_t used = 0;
	for (size_t i = 0; i < s->nindex; i++) {
		const char *rec = s->arena.data + s->index[i].off;
		uint32_t len;
		memcpy(&len, rec + 24, 4);
		size_t n = REC_HDR + len;
		if (used + n > sizeof(stage)) {
			if (write_all(s, stage, used, err))
				return -TRAWL_EIO;
			used = 0;
		}
		if (n > sizeof(stage)) {
			if (write_all(s, rec, n, err))
				return -TRAWL_EIO;
			continue;
		}
		memcpy(stage + used, rec, n);
		used += n;
	}
	if (write_all(s, stage, used, err))
		return -TRAWL_EIO;
	r->end = s->fsize;
	s->nruns++;
	s->nindex = 0;
	s->arena.len = 0;
	return 0;
}

int tw_sorter_add(tw_sorter *s, int64_t ts, uint64_t seq, uint64_t line,
		  const char *raw, size_t len, trawl_error *err)
{
	size_t need = s->arena.len + REC_HDR + len;
	if (need + (s->nindex + 1) * sizeof(idx) > s->budget && s->nindex &&
	    spill(s, err))
		return -TRAWL_EIO;
	if (tw_buf_reserve(s->mem, &s->arena, s->arena.len + REC_HDR + len))
		goto nomem;
	void *p = s->index;
	if (tw_grow(s->mem, &p, &s->index_cap, s->nindex + 1, sizeof(idx)))
		goto nomem;
	s->index = p;
	char *rec = s->arena.data + s->arena.len;
	uint32_t l32 = (uint32_t)len;
	memcpy(rec, &ts, 8);
	memcpy(rec + 8, &seq, 8);
	memcpy(rec + 16, &line, 8);
	memcpy(rec + 24, &l32, 4);
	memcpy(rec + REC_HDR, raw, len);
	s->index[s->nindex++] = (idx){ts, seq, s->arena.len};
	s->arena.len += REC_HDR + len;
	return 0;
nomem:
	return tw_error_at(err, TRAWL_ENOMEM, 0, NULL, 0, 0, 0,
			   "out of memory while sorting");
}

/* Make run r's next record whole in its buffer; 0 at its end. */
static int load_head(tw_sorter *s, run *r, trawl_error *err)
{
	for (;;) {
		if (r->len >= REC_HDR) {
			uint32_t len;
			memcpy(&len, r->buf + r->start + 24, 4);
			if (r->len >= REC_HDR + (size_t)len) {
				memcpy(&r->ts, r->buf + r->start, 8);
				memcpy(&r->seq, r->buf + r->start + 8, 8);
				return 1;
			}
			if (REC_HDR + (size_t)len > r->cap) {
				void *p = r->buf;
				if (tw_grow(s->mem, &p, &r->cap,
					    REC_HDR + (size_t)len, 1))
					return tw_error_at(err, TRAWL_ENOMEM, 0,
							   NULL, 0, 0, 0,
							   "out of memory");
				r->buf = p;
			}
		}
		if (r->pos >= r->end) {
			if (r->len)
				return tw_error_at(err, TRAWL_EIO, 0, s->tmpdir,
						   0, 0, r->pos,
						   "sorted run is truncated");
			return 0;
		}
		memmove(r->buf, r->buf + r->start, r->len);
		r->start = 0;
		size_t want = r->cap - r->len;
		if (want > r->end - r->pos)
			want = (size_t)(r->end - r->pos);
		ssize_t n = pread(s->fd, r->buf + r->len, want, (off_t)r->pos);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return tw_error_at(err, TRAWL_EIO, errno, s->tmpdir, 0,
					   0, r->pos,
					   "failed to read a sorted run back");
		r->pos += (uint64_t)n;
		r->len += (size_t)n;
	}
}

static int run_less(const run *a, const run *b)
{
	if (a->ts != b->ts)
		return a->ts < b->ts;
	return a->seq < b->seq;
}

static void sift_down(tw_sorter *s, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, m = i;
		if (l < s->nheap && run_less(s->heap[l], s->heap[m]))
			m = l;
		if (l + 1 < s->nheap && run_less(s->heap[l + 1], s->heap[m]))
			m = l + 1;
		if (m == i)
			return;
		run *tmp = s->heap[i];
		s->heap[i] = s->heap[m];
		s->heap[m] = tmp;
		i = m;
	}
}

int tw_sorter_finish(tw_sorter *s, trawl_error *err)
{
	if (s->nruns == 0) {
		if (s->nindex > 1) /* (index is NULL when nothing came) */
			qsort(s->index, s->nindex, sizeof(idx), cmp_idx);
		return 0;
	}
	if (spill(s, err))
		return -TRAWL_EIO;
	tw_buf_fini(s->mem, &s->arena);
	tw_free(s->mem, s->index);
	s->index = NULL;
	s->index_cap = 0;
	s->merging = 1;
	size_t each = s->budget / s->nruns;
	if (each < MIN_RUN_BUF)
		each = MIN_RUN_BUF;
	if (each > MAX_RUN_BUF)
		each = MAX_RUN_BUF;
	s->heap = tw_calloc(s->mem, s->nruns, sizeof(*s->heap));
	if (!s->heap)
		return tw_error_at(err, TRAWL_ENOMEM, 0, NULL, 0, 0, 0,
				   "out of memory");
	for (size_t i = 0; i < s->nruns; i++) {
		run *r = &s->runs[i];
		r->buf = tw_malloc(s->mem, each);
		if (!r->buf)
			return tw_error_at(err, TRAWL_ENOMEM, 0, NULL, 0, 0, 0,
					   "out of memory");
		r->cap = each;
		int rc = load_head(s, r, err);
		if (rc < 0)
			return rc;
		if (rc == 1)
			s->heap[s->nheap++] = r;
	}
	for (size_t i = s->nheap / 2; i-- > 0;)
		sift_down(s, i);
	return 0;
}

static void fill_out(tw_sorted *out, const char *rec)
{
	uint32_t len;
	memcpy(&out->ts, rec, 8);
	memcpy(&out->seq, rec + 8, 8);
	memcpy(&out->line, rec + 16, 8);
	memcpy(&len, rec + 24, 4);
	out->raw = rec + REC_HDR;
	out->len = len;
}

int tw_sorter_next(tw_sorter *s, tw_sorted *out, trawl_error *err)
{
	if (!s->merging) {
		if (s->emit >= s->nindex)
			return 0;
		fill_out(out, s->arena.data + s->index[s->emit++].off);
		return 1;
	}
	if (s->pending) {
		run *r = s->pending;
		s->pending = NULL;
		uint32_t len;
		memcpy(&len, r->buf + r->start + 24, 4);
		r->start += REC_HDR + len;
		r->len -= REC_HDR + len;
		int rc = load_head(s, r, err);
		if (rc < 0)
			return rc;
		if (rc == 0)
			s->heap[0] = s->heap[--s->nheap];
		if (s->nheap)
			sift_down(s, 0);
	}
	if (s->nheap == 0)
		return 0;
	run *top = s->heap[0];
	fill_out(out, top->buf + top->start);
	s->pending = top;
	return 1;
}
