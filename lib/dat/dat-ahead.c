/* SPDX-License-Identifier: MIT */
/*
 * The merge a few batches ahead, on a second thread: the worker pulls
 * records from the merge, copies each into a batch (the chunk it was
 * decompressed into is reused behind it) and renders its text when the
 * reader says that is wanted (and decodes its fields); the caller's thread
 * takes the batches in order. Decompression, the merge and the print formats
 * then run beside the consumer instead of before it.
 *
 * Batches go round a ring of AHEAD_BATCHES: the worker fills the free ones,
 * the consumer gives one back when it moves past it (its records and texts
 * are valid until then, as an event's are until the next one).
 *
 * The worker can be parked (tw_dat_ahead_park): it stops at its next batch
 * boundary, the consumer takes what was filled before, and then the merge
 * is the consumer's to pull from itself until tw_dat_ahead_resume(). The
 * reader runs the merge on its own thread where the thread does not pay.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "dat-int.h"

/* 8 rather than 4: the exports, whose consumer stalls now and then on
 * writing, went 3-5 % faster on big.dat (report the same), for ~3 MB. */
#define AHEAD_BATCHES 8
#define AHEAD_RECORDS 4096
#define AHEAD_BYTES   (1u << 20) /* a batch is cut when its arena is full */

struct ahead_batch {
	tw_dat_ahead_rec *recs;
	size_t n;
	tw_buf arena;  /* records' data and texts */
	uint64_t done; /* progress when it was filled */
	int full;      /* filled, not yet given back */
	int eof;       /* the merge ended after these records */
	int oom;
	/* the worker fills one batch while the consumer reads the one
	 * before: not on a shared cache line */
	char pad[64];
};

struct tw_dat_ahead {
	const tw_mem *mem;
	tw_dat_ahead_src src;
	pthread_t thread;
	int running;
	pthread_mutex_t lock;
	pthread_cond_t filled, freed;
	int stop;
	int park;   /* asked to stop pulling at the next batch boundary */
	int parked; /* and it has: the merge is the consumer's */
	uint64_t filled_n; /* batches filled so far */
	struct ahead_batch b[AHEAD_BATCHES];
	/* the consumer's side, written for every record: away from what
	 * the worker reads for every record (src, mem) */
	char pad[64];
	size_t at;   /* batch being read */
	size_t pos;  /* next record in it */
	int holding; /* it has batch `at` */
	int ended;
	uint64_t done;
};

static int fill(tw_dat_ahead *a, struct ahead_batch *b)
{
	b->n = 0;
	b->arena.len = 0;
	b->eof = b->oom = 0;
	size_t n = 0; /* b->n is written once, at the end */
	/* The first batches are small, doubling: the consumer starts at once
	 * and says early what it reads of each type (see prepare). */
	size_t cap =
		a->filled_n < 6 ? (size_t)64 << a->filled_n : AHEAD_RECORDS;
	a->filled_n++;
	while (n < cap && b->arena.len < AHEAD_BYTES) {
		tw_dat_pulled p;
		if (!a->src.pull(a->src.ctx, &p)) {
			b->eof = 1;
			break;
		}
		tw_dat_ahead_rec *r = &b->recs[n];
		*r = (tw_dat_ahead_rec){.ts = p.ts,
					.lost = p.lost,
					.buffer = p.buffer,
					.cpu = p.cpu,
					.data_off = (uint32_t)b->arena.len,
					.data_len = p.len,
					.text_len = TW_DAT_NO_TEXT,
					.pre_off = TW_DAT_NO_TEXT,
					.comm_len = TW_DAT_NO_TEXT,
					.tgid = -1};
		if (tw_buf_put(a->mem, &b->arena, p.data, p.len) ||
		    a->src.prepare(a->src.ctx, p.data, p.len, &b->arena, r)) {
			b->oom = 1;
			break;
		}
		n++;
	}
	b->n = n;
	b->done = a->src.done(a->src.ctx);
	return b->eof || b->oom;
}

static void *work(void *arg)
{
	tw_dat_ahead *a = arg;
	for (size_t i = 0;; i = (i + 1) % AHEAD_BATCHES) {
		struct ahead_batch *b = &a->b[i];
		pthread_mutex_lock(&a->lock);
		while ((b->full || a->park) && !a->stop) {
			if (a->park && !a->parked) {
				a->parked = 1;
				pthread_cond_signal(&a->filled);
			}
			pthread_cond_wait(&a->freed, &a->lock);
		}
		int stop = a->stop;
		pthread_mutex_unlock(&a->lock);
		if (stop)
			break;
		int last = fill(a, b);
		pthread_mutex_lock(&a->lock);
		b->full = 1;
		pthread_cond_signal(&a->filled);
		pthread_mutex_unlock(&a->lock);
		if (last)
			break;
	}
	return NULL;
}

tw_dat_ahead *tw_dat_ahead_start(const tw_mem *mem, const tw_dat_ahead_src *src)
{
	tw_dat_ahead *a = tw_calloc(mem, 1, sizeof(*a));
	if (!a)
		return NULL;
	a->mem = mem;
	a->src = *src;
	for (size_t i = 0; i < AHEAD_BATCHES; i++) {
		a->b[i].recs =
			tw_malloc(mem, AHEAD_RECORDS * sizeof(*a->b[i].recs));
		if (!a->b[i].recs ||
		    tw_buf_reserve(mem, &a->b[i].arena, AHEAD_BYTES + 4096))
			goto fail;
	}
	if (pthread_mutex_init(&a->lock, NULL))
		goto fail;
	pthread_cond_init(&a->filled, NULL);
	pthread_cond_init(&a->freed, NULL);
	if (pthread_create(&a->thread, NULL, work, a)) {
		pthread_cond_destroy(&a->filled);
		pthread_cond_destroy(&a->freed);
		pthread_mutex_destroy(&a->lock);
		goto fail;
	}
	a->running = 1;
	return a;
fail:
	for (size_t i = 0; i < AHEAD_BATCHES; i++) {
		tw_free(mem, a->b[i].recs);
		tw_buf_fini(mem, &a->b[i].arena);
	}
	tw_free(mem, a);
	return NULL;
}

int tw_dat_ahead_next(tw_dat_ahead *a, tw_dat_ahead_rec *rec,
		      const unsigned char **data, const char **text,
		      const unsigned char **pre, const char **json)
{
	for (;;) {
		if (a->ended)
			return 0;
		struct ahead_batch *b = &a->b[a->at];
		if (!a->holding) {
			pthread_mutex_lock(&a->lock);
			while (!b->full && !a->parked)
				pthread_cond_wait(&a->filled, &a->lock);
			/* full batches come in ring order: none is left */
			int parked = !b->full;
			pthread_mutex_unlock(&a->lock);
			if (parked)
				return 2;
			a->holding = 1;
			a->pos = 0;
			a->done = b->done;
		}
		if (a->pos < b->n) {
			*rec = b->recs[a->pos++];
			*data = (const unsigned char *)b->arena.data +
				rec->data_off;
			*text = rec->text_len == TW_DAT_NO_TEXT
					? NULL
					: b->arena.data + rec->text_off;
			*pre = rec->pre_off == TW_DAT_NO_TEXT
				       ? NULL
				       : (const unsigned char *)b->arena.data +
						 rec->pre_off;
			*json = rec->json_len ? b->arena.data + rec->json_off
					      : NULL;
			return 1;
		}
		if (b->oom || b->eof) {
			a->ended = 1; /* keep the batch: the last event's */
			return b->oom ? -1 : 0;
		}
		/* moving past it: the worker may fill it again */
		pthread_mutex_lock(&a->lock);
		b->full = 0;
		a->holding = 0;
		pthread_cond_signal(&a->freed);
		pthread_mutex_unlock(&a->lock);
		a->at = (a->at + 1) % AHEAD_BATCHES;
	}
}

void tw_dat_ahead_park(tw_dat_ahead *a)
{
	pthread_mutex_lock(&a->lock);
	a->park = 1;
	pthread_cond_signal(&a->freed);
	pthread_mutex_unlock(&a->lock);
}

void tw_dat_ahead_resume(tw_dat_ahead *a)
{
	pthread_mutex_lock(&a->lock);
	a->park = a->parked = 0;
	/* small batches first again, so the consumer waits little */
	a->filled_n = 0;
	pthread_cond_signal(&a->freed);
	pthread_mutex_unlock(&a->lock);
}

uint64_t tw_dat_ahead_done(const tw_dat_ahead *a)
{
	return a->done;
}

void tw_dat_ahead_stop(tw_dat_ahead *a)
{
	if (!a)
		return;
	if (a->running) {
		pthread_mutex_lock(&a->lock);
		a->stop = 1;
		pthread_cond_broadcast(&a->freed);
		pthread_mutex_unlock(&a->lock);
		pthread_join(a->thread, NULL);
		pthread_cond_destroy(&a->filled);
		pthread_cond_destroy(&a->freed);
		pthread_mutex_destroy(&a->lock);
	}
	for (size_t i = 0; i < AHEAD_BATCHES; i++) {
		tw_free(a->mem, a->b[i].recs);
		tw_buf_fini(a->mem, &a->b[i].arena);
	}
	tw_free(a->mem, a);
}
