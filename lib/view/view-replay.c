/* SPDX-License-Identifier: MIT */
/*
 * Windows read back from the trace (view_replay_run()), kept in a small
 * cache: a request finer than what the index keeps of a lane takes the
 * replay that covers it, or makes one a quarter wider on each side (the
 * lanes of one request, and the next pan or the same click, then find it
 * made). At most VIEW_REPLAY_CACHE replays of REPLAY_CACHE_BYTES in all
 * are kept, the least recently used given back first; one in use by a
 * request is freed only when the request gives it back.
 */
#include <stdlib.h>
#include <string.h>

#include "view.h"

#define REPLAY_CACHE_BYTES (8u << 20)

void view_replay_free(struct view_replay *r)
{
	if (!r)
		return;
	for (size_t i = 0; r->steps && i < r->nlanes; i++)
		view_steps_free(&r->steps[i]);
	free(r->steps);
	free(r);
}

uint64_t view_events_in(const struct view_index *ix, int64_t from, int64_t to)
{
	if (to < from)
		return 0;
	int64_t a = from > ix->first ? from : ix->first;
	int64_t b = to < ix->last ? to : ix->last;
	if (b < a)
		return 0;
	double span = (double)(ix->last - ix->first) + 1;
	return (uint64_t)((double)ix->events * ((double)(b - a) + 1) / span);
}

/* Evict until there is room (lock held); the slot freed, or -1. */
static int make_room(struct view_index *ix, size_t need)
{
	for (;;) {
		size_t bytes = 0;
		int free_slot = -1, oldest = -1;
		for (int i = 0; i < VIEW_REPLAY_CACHE; i++) {
			struct view_replay *r = ix->cache[i];
			if (!r) {
				free_slot = i;
				continue;
			}
			bytes += r->bytes;
			if (!r->refs &&
			    (oldest < 0 || r->used < ix->cache[oldest]->used))
				oldest = i;
		}
		if (free_slot >= 0 && bytes + need <= REPLAY_CACHE_BYTES)
			return free_slot;
		if (oldest < 0)
			return free_slot >= 0 && need <= REPLAY_CACHE_BYTES
				       ? free_slot
				       : -1;
		ix->cache[oldest]->cached = 0;
		view_replay_free(ix->cache[oldest]);
		ix->cache[oldest] = NULL;
	}
}

struct view_replay *view_replay_get(struct view_index *ix, int64_t from,
				    int64_t to, char *why, size_t whylen)
{
	pthread_mutex_lock(&ix->replay_lock);
	for (int i = 0; i < VIEW_REPLAY_CACHE; i++) {
		struct view_replay *r = ix->cache[i];
		if (r && r->from <= from && r->to >= to) {
			r->refs++;
			r->used = ++ix->clock;
			pthread_mutex_unlock(&ix->replay_lock);
			return r;
		}
	}
	pthread_mutex_unlock(&ix->replay_lock);
	int64_t ext = (to - from) / 4;
	if (view_events_in(ix, from - ext, to + ext) > VIEW_REPLAY_MAX_EVENTS) {
		snprintf(why, whylen, "too wide to read back");
		return NULL;
	}
	struct view_replay *r = calloc(1, sizeof(*r));
	if (!r) {
		snprintf(why, whylen, "out of memory");
		return NULL;
	}
	if (view_replay_run(ix, from - ext, to + ext, r, NULL, NULL, why,
			    whylen)) {
		view_replay_free(r);
		return NULL;
	}
	pthread_mutex_lock(&ix->replay_lock);
	ix->replays++;
	r->refs = 1;
	r->used = ++ix->clock;
	int slot = make_room(ix, r->bytes);
	if (slot >= 0) {
		ix->cache[slot] = r;
		r->cached = 1;
	}
	pthread_mutex_unlock(&ix->replay_lock);
	return r;
}

void view_replay_put(struct view_index *ix, struct view_replay *r)
{
	if (!r)
		return;
	pthread_mutex_lock(&ix->replay_lock);
	int gone = --r->refs == 0 && !r->cached;
	pthread_mutex_unlock(&ix->replay_lock);
	if (gone)
		view_replay_free(r);
}

const struct view_steps *view_lane_steps(struct view_index *ix,
					 const struct view_lane *l,
					 int64_t from, int64_t to,
					 struct view_replay **rp)
{
	*rp = NULL;
	if (!l->dropped)
		return &l->steps;
	char why[256];
	struct view_replay *r = view_replay_get(ix, from, to, why, sizeof(why));
	if (!r)
		return NULL;
	*rp = r;
	return &r->steps[l - ix->lanes];
}
