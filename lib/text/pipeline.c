/* SPDX-License-Identifier: MIT */
/*
 * Parsing ahead on a second core. For a mapped file in time order, a worker
 * thread classifies lines (tw_ftrace_parse) into batches while the thread
 * that called trawl_run() delivers the previous batch to the callbacks. The
 * worker only reads the map and writes batches; every counter and every
 * error is applied by the delivering thread, in line order, so the result
 * is the same as the sequential reader's.
 *
 * Four batches circulate: the worker fills slot (w % 4) while the consumer
 * drains slot (c % 4); a mutex and two condition variables hand them over,
 * once per batch of BATCH lines, not once per line.
 */
#include <pthread.h>
#include <string.h>

#include "input.h"
#include "text-int.h"

#define SLOTS 4
#define BATCH 4096

struct slot {
	tw_item items[BATCH];
	size_t n;
	int last; /* the input ends with this batch */
};

struct tw_pipe {
	const tw_mem *mem;
	const char *map;
	size_t len;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t filled, drained;
	uint64_t produced, consumed; /* batches */
	int stop;
	struct slot slots[SLOTS];
	/* consumer side */
	size_t pos; /* next item in the current slot */
	int have;
	int done;
};

static void *work(void *arg)
{
	tw_pipe *p = arg;
	const char *s = p->map, *end = p->map + p->len;
	uint64_t line = 0;
	for (;;) {
		pthread_mutex_lock(&p->lock);
		while (p->produced - p->consumed >= SLOTS && !p->stop)
			pthread_cond_wait(&p->drained, &p->lock);
		int stop = p->stop;
		pthread_mutex_unlock(&p->lock);
		if (stop)
			return NULL;
		struct slot *sl = &p->slots[p->produced % SLOTS];
		size_t n = 0;
		while (n < BATCH && s < end) {
			const char *nl = memchr(s, '\n', (size_t)(end - s));
			size_t len = nl ? (size_t)(nl - s) : (size_t)(end - s);
			tw_item *it = &sl->items[n++];
			line++;
			tw_classify(s, len, line, it);
			s += len + (nl != NULL);
			it->end = (uint64_t)(s - p->map);
		}
		sl->n = n;
		sl->last = s >= end;
		pthread_mutex_lock(&p->lock);
		p->produced++;
		pthread_cond_signal(&p->filled);
		pthread_mutex_unlock(&p->lock);
		if (sl->last)
			return NULL;
	}
}

tw_pipe *tw_pipe_start(const tw_mem *mem, const char *map, size_t len)
{
	tw_pipe *p = tw_calloc(mem, 1, sizeof(*p));
	if (!p)
		return NULL;
	p->mem = mem;
	p->map = map;
	p->len = len;
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->filled, NULL);
	pthread_cond_init(&p->drained, NULL);
	if (pthread_create(&p->thread, NULL, work, p) != 0) {
		pthread_mutex_destroy(&p->lock);
		pthread_cond_destroy(&p->filled);
		pthread_cond_destroy(&p->drained);
		tw_free(mem, p);
		return NULL;
	}
	return p;
}

int tw_pipe_next(tw_pipe *p, tw_item **out)
{
	if (p->done)
		return 0;
	for (;;) {
		if (p->have) {
			struct slot *sl = &p->slots[p->consumed % SLOTS];
			if (p->pos < sl->n) {
				*out = &sl->items[p->pos++];
				return 1;
			}
			int last = sl->last;
			/* Hand the drained slot back. */
			pthread_mutex_lock(&p->lock);
			p->consumed++;
			p->have = 0;
			pthread_cond_signal(&p->drained);
			pthread_mutex_unlock(&p->lock);
			if (last) {
				p->done = 1;
				return 0;
			}
		}
		pthread_mutex_lock(&p->lock);
		while (p->produced == p->consumed)
			pthread_cond_wait(&p->filled, &p->lock);
		pthread_mutex_unlock(&p->lock);
		p->have = 1;
		p->pos = 0;
	}
}

void tw_pipe_stop(tw_pipe *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->lock);
	p->stop = 1;
	pthread_cond_signal(&p->drained);
	pthread_mutex_unlock(&p->lock);
	pthread_join(p->thread, NULL);
	pthread_mutex_destroy(&p->lock);
	pthread_cond_destroy(&p->filled);
	pthread_cond_destroy(&p->drained);
	tw_free(p->mem, p);
}
