/* SPDX-License-Identifier: MIT */
/*
 * Parsing a mapped file on several cores, delivering in order. The file is
 * cut into batches of about BATCH_BYTES; batch k is [cut(k*B), cut((k+1)*B))
 * where cut(x) is just past the newline that ends the line holding byte x-1,
 * so every worker finds its own boundaries and neighbours agree. Batches
 * are claimed in order, one at a time, by whoever is free: the workers, and
 * the consumer itself whenever the batch it needs next is not ready yet
 * (instead of sleeping). Batch k is classified (tw_classify) into slot
 * k % nslots; the consumer (the thread that called trawl_run()) takes the
 * slots in batch order and applies every counter and error itself, so the
 * result is the sequential reader's. With `threads` = T there are T - 1
 * workers: the consumer is the T-th parser, so T cores stay busy without
 * T + 1 threads taking turns on them (on 2 cores that alone cut the
 * delivery pass of the 1 GB benchmark from 0.82 s to 0.63 s).
 *
 * A batch holds at most CAP lines; a batch of shorter lines than that stops
 * early and the consumer classifies the rest itself (resume offset), which
 * keeps memory fixed whatever the line lengths.
 *
 * Workers also resolve event names to types, so the consumer does not read
 * the name again: only the consumer makes types (in order of first
 * delivery), and tells the pipe what each name resolved to; that table of
 * hints (a fixed open-addressed table, by name hash) is copied to the workers
 * under the lock they take per batch anyway. A name the worker's copy does
 * not hold is resolved by the consumer, as before.
 */
#include <pthread.h>
#include <string.h>

#include "../input/input.h"
#include "text-int.h"

#define BATCH_BYTES (512u << 10)
#define CAP	    8192
#define MAX_WORKERS 8
#define HINTS	    256 /* names remembered, direct-mapped */
#define HINT_NAME   40	/* longer names are always resolved by the consumer */
#define PREFETCH_AHEAD 4096 /* bytes of text read ahead of the parse */
#define HINT_PROBES 8	/* slots a name may take from its own on */

struct hint {
	tw_type *ty; /* NULL: empty */
	uint32_t len;
	char name[HINT_NAME];
};

struct slot {
	uint64_t batch; /* which batch the slot holds */
	int ready;	/* filled by its worker */
	size_t n;	/* items */
	uint64_t lines; /* lines classified by the worker */
	size_t resume;	/* offset where the consumer goes on, or end */
	size_t end;	/* batch end offset */
	int last;	/* no batch after this one */
	tw_item items[CAP];
};

struct worker {
	tw_pipe *p;
	int id;
	pthread_t thread;
	int started;
	uint64_t hints_gen; /* of the hints copied below */
	struct hint hints[HINTS];
};

struct tw_pipe {
	const tw_mem *mem;
	const char *map;
	size_t len;
	int nworkers;
	struct worker workers[MAX_WORKERS];
	pthread_mutex_t lock;
	pthread_cond_t filled, drained;
	uint64_t consumed; /* batches fully taken by the consumer */
	uint64_t claimed;  /* batches taken by a worker or the consumer */
	int claimed_all;   /* no batch left to claim */
	int stop;
	struct hint hints[HINTS]; /* published, under lock */
	uint64_t hints_gen;	  /* bumped on each publication */
	struct slot *slots;	  /* nslots of them: two per worker, plus one */
	uint64_t nslots;
	/* consumer side */
	struct slot *cur;
	size_t pos;
	uint64_t line_base; /* lines before the current batch */
	size_t tail;	    /* consumer's own classification offset */
	uint64_t tail_line;
	tw_item tail_item;
	int done;
	struct hint mine[HINTS]; /* the consumer's, published per batch */
	int mine_dirty;
};

static inline size_t hint_slot(const char *name, size_t len)
{
	return (size_t)tw_hash_quick(name, len) & (HINTS - 1);
}

/*
 * A name's hint: its slot or one of the next HINT_PROBES (a name keeps its
 * type for the whole run, so entries are never replaced and the first
 * empty slot ends a search). NULL: the name is not there and has no room.
 */
static inline const struct hint *hint_find(const struct hint *hints,
					   const char *name, size_t len)
{
	size_t at = hint_slot(name, len);
	for (int i = 0; i < HINT_PROBES; i++) {
		const struct hint *h = &hints[(at + (size_t)i) & (HINTS - 1)];
		if (!h->ty || (h->len == len && tw_memeq(h->name, name, len)))
			return h;
	}
	return NULL;
}

void tw_pipe_type_seen(tw_pipe *p, const char *name, size_t len, tw_type *ty)
{
	if (len > HINT_NAME)
		return;
	struct hint *h = (struct hint *)hint_find(p->mine, name, len);
	if (!h || h->ty)
		return; /* no room, or known already */
	h->ty = ty;
	h->len = (uint32_t)len;
	memcpy(h->name, name, len);
	p->mine_dirty = 1;
}

/* The type of an event line's name, when the consumer made it already. */
static inline void resolve(const struct hint *hints, tw_item *it)
{
	size_t len = it->rec.name_len;
	if (len > HINT_NAME)
		return;
	const struct hint *h = hint_find(hints, it->rec.name, len);
	if (h && h->ty) {
		it->rec.type = h->ty; /* in place of the name */
		it->rec.bits |= TW_EV_TYPED;
	}
}

static size_t cut(const tw_pipe *p, uint64_t x)
{
	if (x == 0)
		return 0;
	if (x >= p->len)
		return p->len;
	const char *nl = memchr(p->map + x - 1, '\n', p->len - (x - 1));
	return nl ? (size_t)(nl - p->map) + 1 : p->len;
}

/* Classify the line at offset *at (< end); advances *at. */
static void classify_at(const tw_pipe *p, size_t *at, size_t end, uint64_t line,
			tw_item *it)
{
	const char *s = p->map + *at;
	/* A batch is read once, front to back: ask for what comes next
	 * (the prefetcher stops at page boundaries). */
	__builtin_prefetch(s + PREFETCH_AHEAD);
	const char *nl = memchr(s, '\n', end - *at);
	size_t n = nl ? (size_t)(nl - s) : end - *at;
	*at += n + (nl != NULL);
	tw_classify(s, n > TW_MAX_LINE ? n : tw_line_trim_cr(s, n), line, it);
	it->end = *at;
}

static void fill(tw_pipe *p, const struct hint *hints, struct slot *sl,
		 uint64_t k)
{
	size_t at = cut(p, k * BATCH_BYTES);
	size_t end = cut(p, (k + 1) * BATCH_BYTES);
	size_t n = 0;
	while (at < end && n < CAP) {
		tw_item *it = &sl->items[n];
		classify_at(p, &at, end, n + 1, it);
		if (it->kind == TW_L_EVENT)
			resolve(hints, it);
		n++;
	}
	sl->batch = k;
	sl->n = n;
	sl->lines = n;
	sl->resume = at;
	sl->end = end;
	sl->last = end >= p->len;
}

/* Whether batch k has any bytes. */
static int batch_exists(const tw_pipe *p, uint64_t k)
{
	return k == 0 || cut(p, k * BATCH_BYTES) < p->len;
}

/*
 * Under the lock: take the next unclaimed batch if its slot is free.
 * Return: 1 with *k, 0 when none is free now, -1 when there are no more.
 */
static int claim(tw_pipe *p, uint64_t *k)
{
	if (p->stop || p->claimed_all)
		return -1;
	if (p->claimed >= p->consumed + p->nslots)
		return 0;
	if (!batch_exists(p, p->claimed)) {
		p->claimed_all = 1;
		return -1;
	}
	*k = p->claimed++;
	return 1;
}

/* Under the lock: hand a filled batch over to the consumer. */
static void publish(tw_pipe *p, struct slot *sl)
{
	sl->ready = 1;
	pthread_cond_broadcast(&p->filled);
}

static void *work(void *arg)
{
	struct worker *w = arg;
	tw_pipe *p = w->p;
	pthread_mutex_lock(&p->lock);
	for (;;) {
		uint64_t k;
		int got;
		while ((got = claim(p, &k)) == 0)
			pthread_cond_wait(&p->drained, &p->lock);
		if (got < 0)
			break;
		if (w->hints_gen != p->hints_gen) {
			memcpy(w->hints, p->hints, sizeof(w->hints));
			w->hints_gen = p->hints_gen;
		}
		pthread_mutex_unlock(&p->lock);
		struct slot *sl = &p->slots[k % p->nslots];
		fill(p, w->hints, sl, k);
		pthread_mutex_lock(&p->lock);
		publish(p, sl);
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

tw_pipe *tw_pipe_start(const tw_mem *mem, const char *map, size_t len,
		       int threads)
{
	tw_pipe *p = tw_calloc(mem, 1, sizeof(*p));
	if (!p)
		return NULL;
	/* The consumer parses too when it would wait: threads - 1 workers
	 * keep `threads` cores busy without taking turns on them. */
	p->nworkers = threads < 2		  ? 1
		      : threads - 1 > MAX_WORKERS ? MAX_WORKERS
						  : threads - 1;
	p->nslots = 2 * (uint64_t)p->nworkers + 1;
	/* Not zeroed: a slot's items are written before they are read, and
	 * zeroing megabytes up front costs more than small inputs take. */
	p->slots = tw_malloc(mem, p->nslots * sizeof(*p->slots));
	if (!p->slots) {
		tw_free(mem, p);
		return NULL;
	}
	for (uint64_t i = 0; i < p->nslots; i++)
		p->slots[i].ready = 0;
	p->mem = mem;
	p->map = map;
	p->len = len;
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->filled, NULL);
	pthread_cond_init(&p->drained, NULL);
	int started = 0;
	for (int i = 0; i < p->nworkers; i++) {
		p->workers[i].p = p; /* the rest is zero (calloc) */
		p->workers[i].id = i;
		p->workers[i].started =
			pthread_create(&p->workers[i].thread, NULL, work,
				       &p->workers[i]) == 0;
		started += p->workers[i].started;
	}
	if (started < p->nworkers) {
		/* A worker that did not start would leave a hole. */
		tw_pipe_stop(p);
		return NULL;
	}
	return p;
}

int tw_pipe_next_run(tw_pipe *p, tw_item **items, size_t *n,
		     uint64_t *line_base)
{
	for (;;) {
		if (p->done)
			return 0;
		struct slot *sl = p->cur;
		if (sl) {
			if (p->pos < sl->n) {
				/* the whole batch at once */
				*items = sl->items;
				*n = sl->n;
				*line_base = p->line_base;
				p->pos = sl->n;
				return 1;
			}
			if (p->tail < sl->end) {
				/* More lines than CAP: classify them here. */
				p->tail_line++;
				classify_at(p, &p->tail, sl->end,
					    p->line_base + sl->lines +
						    p->tail_line,
					    &p->tail_item);
				*items = &p->tail_item;
				*n = 1;
				*line_base = 0;
				return 1;
			}
			p->line_base += sl->lines + p->tail_line;
			int last = sl->last;
			pthread_mutex_lock(&p->lock);
			sl->ready = 0;
			p->consumed++;
			p->cur = NULL;
			if (p->mine_dirty) {
				memcpy(p->hints, p->mine, sizeof(p->hints));
				p->hints_gen++;
				p->mine_dirty = 0;
			}
			pthread_cond_broadcast(&p->drained);
			pthread_mutex_unlock(&p->lock);
			if (last) {
				p->done = 1;
				return 0;
			}
		}
		struct slot *next = &p->slots[p->consumed % p->nslots];
		pthread_mutex_lock(&p->lock);
		while (!(next->ready && next->batch == p->consumed)) {
			/* Rather than wait, parse a batch here: the workers
			 * and this thread then share the cores without
			 * sleeping (and the batch stays in this cache). */
			uint64_t k;
			if (claim(p, &k) == 1) {
				pthread_mutex_unlock(&p->lock);
				struct slot *sl = &p->slots[k % p->nslots];
				fill(p, p->mine, sl, k);
				pthread_mutex_lock(&p->lock);
				publish(p, sl);
				continue;
			}
			pthread_cond_wait(&p->filled, &p->lock);
		}
		pthread_mutex_unlock(&p->lock);
		p->cur = next;
		p->pos = 0;
		p->tail = next->resume;
		p->tail_line = 0;
	}
}

void tw_pipe_stop(tw_pipe *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->lock);
	p->stop = 1;
	pthread_cond_broadcast(&p->drained);
	pthread_mutex_unlock(&p->lock);
	for (int i = 0; i < p->nworkers; i++)
		if (p->workers[i].started)
			pthread_join(p->workers[i].thread, NULL);
	pthread_mutex_destroy(&p->lock);
	pthread_cond_destroy(&p->filled);
	pthread_cond_destroy(&p->drained);
	tw_free(p->mem, p->slots);
	tw_free(p->mem, p);
}
