/* SPDX-License-Identifier: MIT */
/*
 * Summary levels of each lane, and windows read at a pixel width, from the
 * raw changes or from a level (the scheme is drawn in view.h).
 *
 * Both go through one accumulator: segments (a value from a time to the
 * next change) and points come in time order and are cut at column edges;
 * a column keeps the time of its non-zero values (busy), the four values
 * that held longest (dom is the longest; a fifth replaces the shortest, so
 * dom is approximate only when a column holds more than four values of
 * similar length), the changes that began in it, and min/max for counters.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "view.h"

#define NCAND 4

struct cand {
	int64_t v, dur;
};

struct acc {
	int kind;
	int64_t from, span; /* column c: [edge(c), edge(c + 1)) */
	int n;
	struct view_col *cols;
	int cur;   /* the column being filled, -1: none yet */
	int shift; /* columns of 2^shift ns (the levels' buckets), else -1 */
	struct cand cand[NCAND];
	int ncand;
	int64_t busy;
};

static int64_t edge(const struct acc *a, int c)
{
	if (a->shift >= 0)
		return a->from + ((int64_t)c << a->shift);
	return a->from + (int64_t)((__int128)a->span * c / a->n);
}

/* col_of() of columns not a power of two wide. */
static int col_of_div(const struct acc *a, int64_t t)
{
	int c = (int)((__int128)(t - a->from) * a->n / a->span);
	if (c >= a->n)
		c = a->n - 1;
	while (c > 0 && edge(a, c) > t)
		c--;
	while (c + 1 < a->n && edge(a, c + 1) <= t)
		c++;
	return c;
}

static inline int col_of(const struct acc *a, int64_t t)
{
	if (t <= a->from)
		return 0;
	if (a->shift >= 0) {
		int64_t c = (t - a->from) >> a->shift;
		return c >= a->n ? a->n - 1 : (int)c;
	}
	return col_of_div(a, t);
}

static uint16_t frac(int64_t part, int64_t whole)
{
	if (whole <= 0 || part <= 0)
		return 0;
	if (part >= whole)
		return 65535;
	/* the same quotient in 64 bits while it fits (a part under 39 h) */
	if (part < ((int64_t)1 << 47))
		return (uint16_t)((uint64_t)part * 65535 / (uint64_t)whole);
	return (uint16_t)((__int128)part * 65535 / whole);
}

static void flush(struct acc *a)
{
	if (a->cur < 0)
		return;
	struct view_col *c = &a->cols[a->cur];
	int64_t w = edge(a, a->cur + 1) - edge(a, a->cur);
	if (w < 1)
		w = 1; /* a column without width holds one time's value */
	int best = -1;
	for (int i = 0; i < a->ncand; i++)
		if (best < 0 || a->cand[i].dur > a->cand[best].dur)
			best = i;
	if (a->kind != VIEW_LANE_COUNTER && best >= 0) {
		c->dom = a->cand[best].v;
		c->share = frac(a->cand[best].dur, w);
	}
	c->busy = frac(a->busy, w);
	a->ncand = 0;
	a->busy = 0;
	a->cur = -1;
}

static void enter(struct acc *a, int c)
{
	if (a->cur == c)
		return;
	flush(a);
	a->cur = c;
}

static void add_cand(struct acc *a, int64_t v, int64_t dur)
{
	int low = 0;
	for (int i = 0; i < a->ncand; i++) {
		if (a->cand[i].v == v) {
			a->cand[i].dur += dur;
			return;
		}
		if (a->cand[i].dur < a->cand[low].dur)
			low = i;
	}
	if (a->ncand < NCAND)
		a->cand[a->ncand++] = (struct cand){v, dur};
	else if (dur > a->cand[low].dur)
		a->cand[low] = (struct cand){v, dur};
}

static int is_busy(int kind, int64_t v)
{
	if (kind == VIEW_LANE_TASK)
		return v == VIEW_STATE_RUNNING;
	return kind == VIEW_LANE_COUNTER || v != 0;
}

/* A counter's value v in column col: the one shown, and its range. */
static inline void counter_col(struct view_col *col, int64_t v)
{
	col->dom = v;
	if (v < col->min)
		col->min = v;
	if (v > col->max)
		col->max = v;
}

/* Value v from t0 to t1, counted in the columns it covers. */
/* (c: col_of(a, t0) when the caller knows it, t0 in the window; else -1) */
static inline void acc_segment_in(struct acc *a, int64_t t0, int64_t t1,
				  int64_t v, int c)
{
	int64_t lo = a->from, hi = a->from + a->span;
	if (t0 < lo)
		t0 = lo;
	if (t1 > hi)
		t1 = hi;
	if (t1 <= t0)
		return;
	if (a->kind != VIEW_LANE_COUNTER && v == 0)
		return;
	int busy = is_busy(a->kind, v);
	if (c < 0)
		c = col_of(a, t0);
	if (a->shift >= 0 && t1 <= edge(a, c + 1)) {
		/* the common case (a level's buckets hold about 8 changes):
		 * inside one column, what the loop below does in its first
		 * round before it stops */
		enter(a, c);
		add_cand(a, v, t1 - t0);
		if (busy)
			a->busy += t1 - t0;
		if (a->kind == VIEW_LANE_COUNTER)
			counter_col(&a->cols[c], v);
		return;
	}
	for (; c < a->n; c++) {
		int64_t e0 = edge(a, c), e1 = edge(a, c + 1);
		if (e0 >= t1)
			break;
		int64_t s = t0 > e0 ? t0 : e0, e = t1 < e1 ? t1 : e1;
		if (e0 == e1 && t0 <= e0) {
			/* under a nanosecond a column: several begin at one
			 * time and have no width; each shows what holds at
			 * its time, as if it were a nanosecond wide */
			s = e0;
			e = e0 + 1;
		} else if (e <= s) {
			continue;
		}
		enter(a, c);
		add_cand(a, v, e - s);
		if (busy)
			a->busy += e - s;
		if (a->kind == VIEW_LANE_COUNTER)
			counter_col(&a->cols[c], v);
	}
}

static void acc_segment(struct acc *a, int64_t t0, int64_t t1, int64_t v)
{
	acc_segment_in(a, t0, t1, v, -1);
}

/* A change at t: counted where it begins (points: the first is dom). */
static void acc_change(struct acc *a, int64_t t, int64_t v, int point)
{
	if (t < a->from || t >= a->from + a->span)
		return;
	int c = col_of(a, t);
	struct view_col *col = &a->cols[c];
	if (point && !col->count)
		col->dom = v;
	if (col->count < UINT32_MAX)
		col->count++;
}

static void acc_init(struct acc *a, int kind, int64_t from, int64_t span, int n,
		     struct view_col *cols)
{
	memset(a, 0, sizeof(*a));
	a->kind = kind;
	a->from = from;
	a->span = span > 0 ? span : 1;
	a->n = n;
	a->cols = cols;
	a->cur = -1;
	/* a 128-bit division per segment was a tenth of building the levels
	 * (perf): bucket widths are powers of two, so shift instead */
	a->shift = -1;
	int64_t w = a->span / n;
	if (w > 0 && w * n == a->span && !(w & (w - 1)))
		a->shift = __builtin_ctzll((unsigned long long)w);
	for (int i = 0; i < n; i++)
		cols[i] = (struct view_col){.min = INT64_MAX, .max = INT64_MIN};
}

/* Every change of the lane from the one holding at from up to to. */
/* Every change from the scan's position (the one holding there first)
 * up to to. Return: 0, or -1 when the spill file could not be read. */
static int feed(struct acc *a, const struct view_index *ix,
		const struct view_lane *l, struct view_scan *sc, int64_t to)
{
	/* the changes a batch at a time (a call for each was a third of
	 * making the levels) */
	struct view_step buf[256];
	ssize_t n = view_scan_fill(sc, buf, sizeof(buf) / sizeof(*buf));
	if (n <= 0)
		return n < 0 ? -1 : 0;
	struct view_step s = buf[0];
	ssize_t i = 1;
	for (;;) {
		if (i == n) {
			n = view_scan_fill(sc, buf, sizeof(buf) / sizeof(*buf));
			if (n < 0)
				return -1;
			i = 0;
		}
		int more = n > 0;
		int64_t next_t = more ? buf[i].t : ix->last + 1;
		if (l->points) {
			acc_change(a, s.t, s.v, 1);
		} else if (a->shift >= 0 && s.t >= a->from &&
			   s.t < a->from + a->span) {
			/* acc_change() and acc_segment() of a change inside
			 * the window: its column found once */
			int c = (int)((s.t - a->from) >> a->shift);
			if (a->cols[c].count < UINT32_MAX)
				a->cols[c].count++;
			acc_segment_in(a, s.t, next_t, s.v, c);
		} else {
			acc_change(a, s.t, s.v, 0);
			acc_segment(a, s.t, next_t, s.v);
		}
		if (!more || next_t >= to)
			break;
		s = buf[i++];
	}
	flush(a);
	return 0;
}

/* The changes in memory (a lane kept, a replay's) from the one holding at
 * from up to to. */
static void feed_raw(struct acc *a, const struct view_index *ix,
		     const struct view_lane *l, const struct view_steps *st,
		     int64_t from, int64_t to)
{
	struct view_scan sc;
	if (!view_scan_seek(&sc, st, from))
		feed(a, ix, l, &sc, to);
}

/* Whether the raw changes in [from, to) are at most limit. */
static int raw_fits(const struct view_steps *st, int64_t from, int64_t to,
		    uint64_t limit)
{
	struct view_iter it;
	struct view_step s;
	if (view_iter_seek(&it, st, from))
		return 1;
	uint64_t n = 0;
	while (view_iter_next(&it, &s) && s.t < to)
		if (++n > limit)
			return 0;
	return 1;
}

static void feed_level(struct acc *a, const struct view_index *ix,
		       const struct view_lane *l, const struct view_level *lv,
		       int64_t from, int64_t to)
{
	int64_t w = lv->width;
	if (to <= from)
		return;
	int64_t b0 = (from - ix->first) / w, b1 = (to - 1 - ix->first) / w;
	if (b0 < (int64_t)lv->off)
		b0 = (int64_t)lv->off;
	if (b1 >= (int64_t)(lv->off + lv->n))
		b1 = (int64_t)(lv->off + lv->n) - 1;
	for (int64_t i = b0; i <= b1; i++) {
		const struct view_bucket *bk = &lv->b[i - (int64_t)lv->off];
		size_t mi = (size_t)(i - (int64_t)lv->off);
		/* the last bucket's time ends with the trace: its busy time
		 * is spread over what it covers of the trace */
		int64_t t0 = ix->first + i * w, t1 = t0 + w;
		if (t1 > ix->last + 1)
			t1 = ix->last + 1 > t0 ? ix->last + 1 : t0 + 1;
		int64_t ext = t1 - t0;
		if (bk->count && t0 >= from)
			acc_change(a, t0, bk->dom, l->points);
		if (t0 >= from && t0 < to && bk->count > 1) {
			struct view_col *c = &a->cols[col_of(a, t0)];
			uint64_t sum = (uint64_t)c->count + bk->count - 1;
			c->count =
				sum > UINT32_MAX ? UINT32_MAX : (uint32_t)sum;
		}
		if (l->points || (!bk->busy && !bk->share && !lv->minmax))
			continue;
		/* spread the bucket's busy time and dom over its columns */
		int64_t s = t0 > from ? t0 : from, e = t1 < to ? t1 : to;
		for (int c = col_of(a, s); c < a->n && edge(a, c) < e; c++) {
			int64_t e0 = edge(a, c), e1 = edge(a, c + 1);
			int64_t os = s > e0 ? s : e0, oe = e < e1 ? e : e1;
			if (oe <= os)
				continue;
			enter(a, c);
			int64_t part = oe - os;
			/* (in double: w / ext may be huge on a short trace) */
			double scale = (double)part / 65535.0 * (double)w /
				       (double)ext;
			a->busy += (int64_t)(scale * bk->busy);
			add_cand(a, bk->dom, (int64_t)(scale * bk->share));
			if (lv->minmax &&
			    lv->minmax[mi][0] <= lv->minmax[mi][1]) {
				struct view_col *col = &a->cols[c];
				col->dom = lv->minmax[mi][1];
				if (lv->minmax[mi][0] < col->min)
					col->min = lv->minmax[mi][0];
				if (lv->minmax[mi][1] > col->max)
					col->max = lv->minmax[mi][1];
			}
		}
	}
	flush(a);
}

int view_window(struct view_index *ix, const struct view_lane *l, int64_t from,
		int64_t to, int width, int level, struct view_col *cols)
{
	struct acc a;
	struct view_replay *rp = NULL;
	if (to <= from)
		to = from + 1;
	acc_init(&a, l->kind, from, to - from, width, cols);
	int64_t px = (to - from) / width;
	int k = level;
	if (k >= l->nlevels)
		k = l->nlevels - 1;
	if (k < 0) {
		uint64_t limit = (uint64_t)VIEW_DETAIL_PER_PX * (uint64_t)width;
		if (!l->nlevels || px < l->levels[0].width || level == -2) {
			/* the lane's changes, or the window read back */
			const struct view_steps *st =
				view_lane_steps(ix, l, from, to, &rp);
			if (st &&
			    (!l->nlevels || raw_fits(st, from, to, limit))) {
				feed_raw(&a, ix, l, st, from, to);
				view_replay_put(ix, rp);
				return -1;
			}
			view_replay_put(ix, rp);
			rp = NULL;
			if (!l->nlevels)
				return -1;
		}
		k = 0;
		while (k + 1 < l->nlevels && l->levels[k + 1].width <= px)
			k++;
	}
	if (k < l->kept) {
		/* a level not kept: made for the window's buckets from the
		 * changes read back, as the whole pass made it */
		const struct view_level *lv = &l->levels[k];
		int64_t w = lv->width;
		int64_t b0 = (from - ix->first) / w,
			b1 = (to - 1 - ix->first) / w;
		if (b0 < 0)
			b0 = 0;
		if (b1 >= (int64_t)lv->n)
			b1 = (int64_t)lv->n - 1;
		struct view_level part = {0};
		const struct view_steps *st =
			b1 >= b0 ? view_lane_steps(ix, l, ix->first + b0 * w,
						   ix->first + (b1 + 1) * w - 1,
						   &rp)
				 : NULL;
		if (st && !view_lod_part(ix, l, st, k, (size_t)b0, (size_t)b1,
					 &part)) {
			feed_level(&a, ix, l, &part, from, to);
			view_level_free(&part);
			view_replay_put(ix, rp);
			return k;
		}
		view_level_free(&part);
		view_replay_put(ix, rp);
		/* too wide to read back: the finest level kept */
		acc_init(&a, l->kind, from, to - from, width, cols);
		k = l->kept;
	}
	feed_level(&a, ix, l, &l->levels[k], from, to);
	return k;
}

static void to_buckets(const struct view_col *cols, size_t n,
		       struct view_level *lv)
{
	for (size_t i = 0; i < n; i++) {
		lv->b[i] = (struct view_bucket){
			.dom = (uint32_t)cols[i].dom,
			.count = cols[i].count,
			.busy = cols[i].busy,
			.share = cols[i].share,
		};
		if (lv->minmax) {
			lv->minmax[i][0] = cols[i].min;
			lv->minmax[i][1] = cols[i].max;
		}
	}
}

/* Level k from level k - 1: four buckets into one. */
static void merge_level(const struct view_level *lo, struct view_level *hi,
			int points)
{
	for (size_t i = 0; i < hi->n; i++) {
		struct view_bucket out = {0};
		uint64_t busy = 0, count = 0;
		uint32_t best_share = 0;
		int have = 0;
		int64_t mn = INT64_MAX, mx = INT64_MIN;
		for (size_t j = 4 * i; j < 4 * i + 4 && j < lo->n; j++) {
			const struct view_bucket *b = &lo->b[j];
			busy += b->busy;
			count += b->count;
			if (points ? (b->count && !have)
				   : b->share > best_share) {
				best_share = b->share;
				out.dom = b->dom;
				have = 1;
			}
			if (lo->minmax) {
				if (lo->minmax[j][0] < mn)
					mn = lo->minmax[j][0];
				if (lo->minmax[j][1] > mx)
					mx = lo->minmax[j][1];
			}
		}
		/* the share of dom: every child where it was dom */
		uint64_t share = 0;
		for (size_t j = 4 * i; j < 4 * i + 4 && j < lo->n; j++)
			if (lo->b[j].dom == out.dom)
				share += lo->b[j].share;
		out.busy = (uint16_t)(busy / 4);
		out.share = (uint16_t)(share / 4);
		out.count = count > UINT32_MAX ? UINT32_MAX : (uint32_t)count;
		hi->b[i] = out;
		if (hi->minmax) {
			hi->minmax[i][0] = mn;
			hi->minmax[i][1] = mx;
		}
	}
}

void view_level_free(struct view_level *lv)
{
	free(lv->b);
	free(lv->minmax);
	lv->b = NULL;
	lv->minmax = NULL;
}

static int alloc_level(struct view_level *lv, int64_t width, size_t n,
		       int counter)
{
	lv->width = width;
	lv->off = 0;
	lv->n = n;
	lv->b = calloc(n, sizeof(*lv->b));
	lv->minmax = counter ? calloc(n, sizeof(*lv->minmax)) : NULL;
	return !lv->b || (counter && !lv->minmax) ? -1 : 0;
}

void view_lod_shape(const struct view_index *ix, uint64_t n, int64_t *w0,
		    size_t *nb0, int *nlev)
{
	int64_t span = ix->last - ix->first + 1;
	if (span < 1)
		span = 1;
	/* about 8 changes a bucket at level 0, at least 256 ns */
	int64_t want = n ? (int64_t)((__int128)span * 8 / (int64_t)n) : span;
	int64_t w = 256;
	while (w < want && w < (INT64_MAX >> 3))
		w <<= 1;
	int k = 1;
	for (int64_t x = w; (span + x - 1) / x > 64 && k < 40; x <<= 2)
		k++;
	*w0 = w;
	*nb0 = (size_t)((span + w - 1) / w);
	*nlev = k;
}

int view_lod_lane(const struct view_index *ix, struct view_lane *l,
		  struct view_scan *sc)
{
	if (!l->steps.n)
		return 0;
	int64_t w;
	size_t nb;
	int nlev;
	view_lod_shape(ix, l->steps.n, &w, &nb, &nlev);
	l->levels = calloc((size_t)nlev, sizeof(*l->levels));
	if (!l->levels)
		return -1;
	l->nlevels = nlev;
	int counter = l->kind == VIEW_LANE_COUNTER;
	struct view_col *cols = malloc(nb * sizeof(*cols));
	if (!cols || alloc_level(&l->levels[0], w, nb, counter)) {
		free(cols);
		return -1;
	}
	struct acc a;
	acc_init(&a, l->kind, ix->first, w * (int64_t)nb, (int)nb, cols);
	/* the accumulator's columns are the buckets: edges first + i * w */
	if (feed(&a, ix, l, sc, INT64_MAX)) {
		free(cols);
		return -1;
	}
	to_buckets(cols, nb, &l->levels[0]);
	free(cols);
	for (int k = 1; k < nlev; k++) {
		int64_t wk = l->levels[k - 1].width * 4;
		size_t nk = (l->levels[k - 1].n + 3) / 4;
		if (alloc_level(&l->levels[k], wk, nk, counter))
			return -1;
		merge_level(&l->levels[k - 1], &l->levels[k], l->points);
	}
	return 0;
}

int view_lod_part(const struct view_index *ix, const struct view_lane *l,
		  const struct view_steps *s, int k, size_t b0, size_t b1,
		  struct view_level *out)
{
	memset(out, 0, sizeof(*out));
	if (k < 0 || k >= l->nlevels || b1 < b0)
		return -1;
	/* level 0's buckets under level k's b0..b1 (4^k each, aligned) */
	size_t scale = (size_t)1 << (2 * k);
	size_t n0 = l->levels[0].n;
	size_t c0 = b0 * scale, c1 = (b1 + 1) * scale;
	if (c1 > n0)
		c1 = n0;
	if (c0 >= c1)
		return -1;
	int counter = l->kind == VIEW_LANE_COUNTER;
	int64_t w = l->levels[0].width;
	struct view_level lo = {0}, hi;
	struct view_col *cols = malloc((c1 - c0) * sizeof(*cols));
	if (!cols || alloc_level(&lo, w, c1 - c0, counter)) {
		free(cols);
		view_level_free(&lo);
		return -1;
	}
	struct acc a;
	int64_t t0 = ix->first + (int64_t)c0 * w;
	acc_init(&a, l->kind, t0, w * (int64_t)(c1 - c0), (int)(c1 - c0), cols);
	feed_raw(&a, ix, l, s, t0, t0 + w * (int64_t)(c1 - c0));
	to_buckets(cols, c1 - c0, &lo);
	free(cols);
	lo.off = c0;
	for (int j = 1; j <= k; j++) {
		if (alloc_level(&hi, lo.width * 4, (lo.n + 3) / 4, counter)) {
			view_level_free(&lo);
			view_level_free(&hi);
			return -1;
		}
		merge_level(&lo, &hi, l->points);
		hi.off = lo.off / 4;
		view_level_free(&lo);
		lo = hi;
	}
	*out = lo;
	return 0;
}
