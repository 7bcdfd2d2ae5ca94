/* SPDX-License-Identifier: MIT */
/*
 * The merge of a feed's CPUs (dat-feed.h): a trace.dat whose pages are
 * still coming. Each CPU is in one of four states:
 *
 *            take(): pages                 cursor has a record
 *   NEED ----------------------> (cursor) -------------------> HAVE
 *    ^ ^   take(): none, horizon h            |  record handed out
 *    | '---------------------------- WAIT     |  and the cursor moved
 *    |                               ^  |     |  past its last one:
 *    |      retried when the top     |  |     |  release(), NEED
 *    '------ cannot go out ----------'  |     |
 *    '----------------------------------+-----'
 *   take(): end                         v
 *                                      END
 *
 * The record on top of the heap of HAVE CPUs (by time, then CPU: the
 * order trace.dat files are merged in) goes out when no WAIT CPU's horizon
 * is before it. When it cannot, every WAIT CPU is asked again, then the
 * time the merge is sure of (the smallest horizon) is handed out once
 * (TW_NEXT_TIME, for interval probes while nothing happens), then the
 * merge sleeps in the feed's wait(). Memory: one cursor per CPU and the
 * pages the feed lent.
 */
#include "dat-feed.h"
#include "dat-int.h"

#define WAIT_NS (100 * 1000 * 1000)

enum { C_NEED, C_HAVE, C_WAIT, C_END };

typedef struct feed_cpu {
	tw_dat_cursor c;
	tw_feed_batch b;
	int state;
	int lent; /* b is the feed's until released */
	int64_t horizon;
} feed_cpu;

struct tw_dat_merge {
	const tw_mem *mem;
	const tw_dat_file *f;
	const tw_feed *feed;
	feed_cpu *cpu;
	int ncpu;
	uint32_t *heap; /* HAVE CPUs, smallest (ts, cpu) first */
	size_t nheap;
	int started;
	int pending;   /* the top's record was handed out */
	int64_t limit; /* no WAIT CPU's horizon is before this */
	int64_t told;  /* the latest time handed out, event or not */
	uint64_t damaged;
	uint64_t damage_off;
	uint64_t skipped; /* events passed after the feed's cut */
};

static int before(const tw_dat_merge *m, uint32_t a, uint32_t b)
{
	int64_t x = m->cpu[a].c.cur_ts, y = m->cpu[b].c.cur_ts;
	return x < y || (x == y && a < b);
}

static void sift_down(tw_dat_merge *m, size_t i)
{
	uint32_t *h = m->heap;
	for (;;) {
		size_t l = 2 * i + 1, k = i;
		if (l < m->nheap && before(m, h[l], h[k]))
			k = l;
		if (l + 1 < m->nheap && before(m, h[l + 1], h[k]))
			k = l + 1;
		if (k == i)
			return;
		uint32_t x = h[i];
		h[i] = h[k];
		h[k] = x;
		i = k;
	}
}

static void push(tw_dat_merge *m, uint32_t cpu)
{
	size_t i = m->nheap++;
	m->heap[i] = cpu;
	while (i && before(m, m->heap[i], m->heap[(i - 1) / 2])) {
		uint32_t x = m->heap[i];
		m->heap[i] = m->heap[(i - 1) / 2];
		m->heap[(i - 1) / 2] = x;
		i = (i - 1) / 2;
	}
}

tw_dat_merge *tw_dat_merge_new(const tw_mem *mem, const tw_dat_file *f,
			       const tw_feed *feed, int ncpu)
{
	tw_dat_merge *m = tw_calloc(mem, 1, sizeof(*m));
	if (!m)
		return NULL;
	m->mem = mem;
	m->f = f;
	m->feed = feed;
	m->ncpu = ncpu;
	m->cpu = tw_calloc(mem, (size_t)(ncpu ? ncpu : 1), sizeof(*m->cpu));
	m->heap = tw_calloc(mem, (size_t)(ncpu ? ncpu : 1), sizeof(*m->heap));
	if (!m->cpu || !m->heap) {
		tw_dat_merge_free(m);
		return NULL;
	}
	for (int i = 0; i < ncpu; i++)
		m->cpu[i].horizon = INT64_MIN;
	m->limit = INT64_MIN;
	m->told = INT64_MIN;
	return m;
}

static void give_back(tw_dat_merge *m, int cpu)
{
	feed_cpu *fc = &m->cpu[cpu];
	if (fc->c.damaged) {
		if (!m->damaged)
			m->damage_off = fc->c.damage_off;
		m->damaged += fc->c.damaged;
		fc->c.damaged = 0;
	}
	if (fc->lent)
		m->feed->release(m->feed->ctx, cpu, &fc->b);
	fc->lent = 0;
}

/*
 * Ask the feed for cpu's next pages until its cursor has a record (HAVE),
 * or there are none (WAIT, END). Return: 0, or a negative TRAWL_E* from
 * the feed.
 */
static int fill(tw_dat_merge *m, int cpu)
{
	feed_cpu *fc = &m->cpu[cpu];
	for (;;) {
		int64_t h = fc->horizon;
		int rc = m->feed->take(m->feed->ctx, cpu, &fc->b, &h);
		if (rc < 0)
			return rc;
		if (rc == TW_FEED_END) {
			fc->state = C_END;
			return 0;
		}
		if (rc == TW_FEED_NONE) {
			fc->state = C_WAIT;
			fc->horizon = h;
			if (h < m->limit)
				m->limit = h;
			return 0;
		}
		fc->lent = 1;
		tw_dat_cursor_pages(&fc->c, m->f, fc->b.pages, fc->b.len);
		if (tw_dat_cursor_next(&fc->c)) {
			fc->state = C_HAVE;
			push(m, (uint32_t)cpu);
			return 0;
		}
		give_back(m, cpu); /* pages without records */
	}
}

/* The smallest horizon of the WAIT CPUs (INT64_MAX: none waits). */
static int64_t limit_of(const tw_dat_merge *m)
{
	int64_t lim = INT64_MAX;
	for (int i = 0; i < m->ncpu; i++)
		if (m->cpu[i].state == C_WAIT && m->cpu[i].horizon < lim)
			lim = m->cpu[i].horizon;
	return lim;
}

/* Move the top CPU past the record handed out last; a CPU whose pages
 * are done asks for more at once. */
static int advance(tw_dat_merge *m)
{
	uint32_t cpu = m->heap[0];
	feed_cpu *fc = &m->cpu[cpu];
	if (tw_dat_cursor_next(&fc->c)) {
		sift_down(m, 0);
		return 0;
	}
	m->heap[0] = m->heap[--m->nheap];
	if (m->nheap)
		sift_down(m, 0);
	give_back(m, (int)cpu);
	fc->state = C_NEED;
	int rc = fill(m, (int)cpu);
	return rc < 0 ? rc : 0;
}

/* The run is to end now (tw_feed.cut). Pairs with the release store of
 * the feed's owner (trawl_live_cut()). */
static int cut(const tw_dat_merge *m)
{
	return m->feed->cut && __atomic_load_n(m->feed->cut, __ATOMIC_ACQUIRE);
}

int tw_dat_merge_next(tw_dat_merge *m, tw_dat_pulled *out)
{
	int rc;
	if (!m->started) {
		m->started = 1;
		for (int i = 0; i < m->ncpu; i++)
			if ((rc = fill(m, i)) < 0)
				return rc;
	}
	if (m->pending) {
		m->pending = 0;
		if ((rc = advance(m)) < 0)
			return rc;
	}
	for (;;) {
		if (m->nheap) {
			uint32_t cpu = m->heap[0];
			tw_dat_cursor *c = &m->cpu[cpu].c;
			if (c->cur_ts > m->limit)
				m->limit = limit_of(m);
			if (c->cur_ts <= m->limit && TW_UNLIKELY(cut(m))) {
				/* passed, not handed out: counted */
				m->skipped++;
				c->lost = 0;
				if ((rc = advance(m)) < 0)
					return rc;
				continue;
			}
			if (c->cur_ts <= m->limit) {
				*out = (tw_dat_pulled){c->cur_ts, c->lost,
						       0,	  (int32_t)cpu,
						       c->cur,	  c->cur_len};
				c->lost = 0;
				m->pending = 1;
				if (c->cur_ts > m->told)
					m->told = c->cur_ts;
				return TW_NEXT_EVENT;
			}
		}
		/* The top cannot go out yet, or there is none: ask the
		 * waiting CPUs again. */
		int waiting = 0;
		for (int i = 0; i < m->ncpu; i++)
			if (m->cpu[i].state == C_WAIT) {
				if ((rc = fill(m, i)) < 0)
					return rc;
				waiting |= m->cpu[i].state == C_WAIT;
			}
		m->limit = limit_of(m);
		if (!m->nheap && !waiting) {
			if (m->skipped && m->feed->skipped)
				m->feed->skipped(m->feed->ctx, m->skipped);
			m->skipped = 0;
			return TW_NEXT_EOF;
		}
		if (m->nheap && m->cpu[m->heap[0]].c.cur_ts <= m->limit)
			continue;
		/* Nothing before the smallest horizon is still to come. */
		if (waiting && m->limit > m->told && !cut(m)) {
			m->told = m->limit;
			out->ts = m->limit;
			return TW_NEXT_TIME;
		}
		m->feed->wait(m->feed->ctx, WAIT_NS, m->nheap > 0);
	}
}

uint64_t tw_dat_merge_damaged(const tw_dat_merge *m, uint64_t *first_off)
{
	*first_off = m->damage_off;
	return m->damaged;
}

void tw_dat_merge_free(tw_dat_merge *m)
{
	if (!m)
		return;
	for (int i = 0; m->cpu && i < m->ncpu; i++)
		give_back(m, i);
	tw_free(m->mem, m->cpu);
	tw_free(m->mem, m->heap);
	tw_free(m->mem, m);
}
