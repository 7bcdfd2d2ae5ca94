/* SPDX-License-Identifier: MIT */
/*
 * Duration accumulator: exact samples while there are few, then a
 * log-linear histogram (the HdrHistogram idea: a power of two split into
 * equal sub-buckets) so that memory stays bounded per key however long the
 * trace. Values below 256 ns get a bucket each; a value v >= 256 with top
 * bit e goes to bucket 256 + (e - 8) * 128 + (v >> (e - 7)) - 128, whose
 * width is 2^(e-7) <= v / 128. Only the range of buckets in use is
 * allocated, so a task whose latencies span 1 us .. 10 ms holds ~1700.
 */
#include <limits.h>
#include <stdlib.h>

#include "analysis-int.h"

#define SUB	 128 /* sub-buckets per power of two */
#define LINEAR	 256 /* values below this have a bucket each */
#define NBUCKETS (LINEAR + (63 - 8) * SUB)

struct trawl_hist {
	const tw_mem *mem;
	tw_mem own; /* when made without a trace */
	uint64_t count;
	int64_t min, max, total;
	/* exact phase: samples[0..count) while count <= TRAWL_HIST_EXACT */
	int64_t *samples;
	int sorted;
	/* histogram phase: counts of buckets lo .. lo+n-1 */
	uint64_t *buckets;
	uint32_t lo, n;
};

static uint32_t bucket_of(int64_t v)
{
	if (v < LINEAR)
		return (uint32_t)v;
	int e = 63 - __builtin_clzll((unsigned long long)v);
	uint64_t m = (uint64_t)v >> (e - 7); /* 128 .. 255 */
	return LINEAR + (uint32_t)(e - 8) * SUB + (uint32_t)(m - SUB);
}

/* Smallest value of bucket b, and its width. */
static int64_t bucket_low(uint32_t b, int64_t *width)
{
	if (b < LINEAR) {
		*width = 1;
		return b;
	}
	uint32_t e = (b - LINEAR) / SUB + 8;
	uint64_t m = (b - LINEAR) % SUB + SUB;
	*width = (int64_t)1 << (e - 7);
	return (int64_t)(m << (e - 7));
}

TRAWL_API trawl_hist *trawl_hist_new(trawl_trace *t)
{
	tw_mem libc;
	tw_mem_init(&libc, NULL, NULL);
	const tw_mem *m = t ? tw_trace_mem(t) : &libc;
	trawl_hist *h = tw_calloc(m, 1, sizeof(*h));
	if (!h)
		return NULL;
	h->own = libc;
	h->mem = t ? m : &h->own;
	return h;
}

TRAWL_API void trawl_hist_free(trawl_hist *h)
{
	if (!h)
		return;
	const tw_mem *m = h->mem;
	tw_mem copy = *m; /* h->mem may point into h */
	tw_free(&copy, h->samples);
	tw_free(&copy, h->buckets);
	tw_free(&copy, h);
}

/* Make room for bucket b in the allocated range. */
static int reach(trawl_hist *h, uint32_t b)
{
	if (h->n && b >= h->lo && b < h->lo + h->n)
		return 0;
	uint32_t lo = h->n ? h->lo : b, hi = h->n ? h->lo + h->n : b + 1;
	/* Grow the side that needs it by half a power of two more, so a
	 * spreading distribution reallocates a few times, not per bucket. */
	if (b < lo || !h->n)
		lo = b > SUB / 2 ? b - SUB / 2 : 0;
	if (b >= hi || !h->n)
		hi = b + 1 + SUB / 2 > NBUCKETS ? NBUCKETS : b + 1 + SUB / 2;
	uint64_t *nb = tw_calloc(h->mem, hi - lo, sizeof(*nb));
	if (!nb)
		return -TRAWL_ENOMEM;
	if (h->n)
		memcpy(nb + (h->lo - lo), h->buckets, h->n * sizeof(*nb));
	tw_free(h->mem, h->buckets);
	h->buckets = nb;
	h->lo = lo;
	h->n = hi - lo;
	return 0;
}

static int put(trawl_hist *h, int64_t v)
{
	uint32_t b = bucket_of(v);
	int rc = reach(h, b);
	if (rc)
		return rc;
	h->buckets[b - h->lo]++;
	return 0;
}

TRAWL_API int trawl_hist_add(trawl_hist *h, int64_t v)
{
	if (v < 0)
		v = 0;
	if (h->count < TRAWL_HIST_EXACT) {
		if (!h->samples) {
			h->samples = tw_malloc(h->mem, TRAWL_HIST_EXACT *
							       sizeof(int64_t));
			if (!h->samples)
				return -TRAWL_ENOMEM;
		}
		h->samples[h->count] = v;
		h->sorted = 0;
	} else {
		if (h->samples) {
			/* The histogram takes over: move the samples in. */
			for (uint64_t i = 0; i < h->count; i++)
				if (put(h, h->samples[i])) {
					/* stay exact; the move starts over */
					tw_free(h->mem, h->buckets);
					h->buckets = NULL;
					h->n = 0;
					return -TRAWL_ENOMEM;
				}
			tw_free(h->mem, h->samples);
			h->samples = NULL;
		}
		if (put(h, v))
			return -TRAWL_ENOMEM;
	}
	if (!h->count || v < h->min)
		h->min = v;
	if (!h->count || v > h->max)
		h->max = v;
	h->total = h->total > INT64_MAX - v ? INT64_MAX : h->total + v;
	h->count++;
	return 0;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

TRAWL_API int64_t trawl_hist_percentile(trawl_hist *h, double p)
{
	if (!h->count)
		return 0;
	/* nearest rank: the ceil(p/100 * n)-th smallest, 1-based */
	double r = p / 100.0 * (double)h->count;
	uint64_t rank = (uint64_t)r;
	if ((double)rank < r)
		rank++;
	if (rank < 1)
		rank = 1;
	if (rank > h->count)
		rank = h->count;
	if (h->samples) {
		if (!h->sorted) {
			qsort(h->samples, h->count, sizeof(int64_t), cmp_i64);
			h->sorted = 1;
		}
		return h->samples[rank - 1];
	}
	uint64_t seen = 0;
	for (uint32_t i = 0; i < h->n; i++) {
		seen += h->buckets[i];
		if (seen >= rank) {
			int64_t width;
			int64_t v = bucket_low(h->lo + i, &width) + width / 2;
			if (v < h->min)
				v = h->min;
			if (v > h->max)
				v = h->max;
			return v;
		}
	}
	return h->max;
}

TRAWL_API void trawl_hist_summary(trawl_hist *h, trawl_summary *out)
{
	memset(out, 0, sizeof(*out));
	if (!h || !h->count)
		return;
	out->count = h->count;
	out->min = h->min;
	out->max = h->max;
	out->total = h->total;
	out->p50 = trawl_hist_percentile(h, 50);
	out->p90 = trawl_hist_percentile(h, 90);
	out->p99 = trawl_hist_percentile(h, 99);
}
