/* SPDX-License-Identifier: MIT */
/*
 * What the viewer's index keeps once the pass is over, within its memory
 * budget: an eighth of the trace's size (at least 2 MiB), a quarter being
 * the target for the server's memory, index included.
 *
 * The plan is made from sizes alone (each lane's changes, and its levels'
 * sizes from their shape, view_lod_shape()), before any level is made:
 * the lanes with the most changes give theirs back (every lane spilled
 * while indexing first: its changes are not in memory), until the index
 * fits or the changes left are a sixteenth of the budget (a wide window
 * needs the sparse lanes raw, and reading those back would read most of
 * the trace); then those lanes' finest levels, one level at a time, the
 * coarsest of each staying. What was given back is read back from the
 * trace when a window needs it (view-replay.c). Then each lane in turn is
 * read for its levels, and what the plan drops goes at once, so no more
 * than one lane's levels a thread are ever there beyond the budget. The
 * reader's thread is done by then, so two threads take the lanes in turn.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "view.h"

#define BUDGET_SHARE 8
#define BUDGET_MIN   (2u << 20)

size_t view_index_budget(const struct view_index *ix)
{
	/* standard input cannot be read again: everything stays */
	if (!ix->path || !strcmp(ix->path, "-") || !ix->file_size)
		return SIZE_MAX;
	size_t budget = (size_t)ix->file_size / BUDGET_SHARE;
	if (budget < BUDGET_MIN)
		budget = BUDGET_MIN;
	/* the tests make small traces read back as big ones do */
	const char *force = getenv("TRAWL_VIEW_BUDGET");
	if (force && *force)
		budget = (size_t)strtoull(force, NULL, 10);
	return budget;
}

static size_t base_bytes(const struct view_index *ix)
{
	return ix->lcap * sizeof(*ix->lanes) + ix->tcap * sizeof(*ix->tasks) +
	       ix->tmcap * sizeof(*ix->task_map) +
	       ix->longcap * sizeof(*ix->longs) + ix->str.cap +
	       ix->str.ncap * sizeof(uint64_t) +
	       ix->str.tcap * sizeof(uint32_t) +
	       ix->ccap * sizeof(*ix->checks) + ix->snapcap +
	       (size_t)ix->rt.ncpus * 16 * sizeof(*ix->rt.cpus) +
	       ix->rt.ncounters * sizeof(*ix->rt.counters);
}

static size_t levels_bytes(const struct view_lane *l, int from)
{
	size_t n = 0;
	for (int k = from; k < l->nlevels; k++)
		if (l->levels[k].b)
			n += l->levels[k].n * (sizeof(struct view_bucket) +
					       (l->levels[k].minmax ? 16 : 0));
	return n;
}

size_t view_index_bytes(const struct view_index *ix)
{
	size_t n = base_bytes(ix);
	for (size_t i = 0; i < ix->nlanes; i++) {
		const struct view_lane *l = &ix->lanes[i];
		n += view_steps_bytes(&l->steps) + levels_bytes(l, 0) +
		     (size_t)l->nlevels * sizeof(*l->levels);
	}
	return n;
}

/* A lane's sizes before its levels are made. */
struct lane_plan {
	size_t steps; /* its changes, shrunk, spilled ones counted */
	size_t nb0;   /* level 0's buckets */
	int nlev;
	int counter;
};

/* What the levels from k up will take (alloc_level() in view-lod.c). */
static size_t plan_levels(const struct lane_plan *p, int from)
{
	size_t n = 0, nb = p->nb0;
	size_t per = sizeof(struct view_bucket) + (p->counter ? 16 : 0);
	for (int k = 0; k < p->nlev; k++, nb = (nb + 3) / 4)
		if (k >= from)
			n += nb * per;
	return n;
}

static int by_bytes(const void *a, const void *b)
{
	const size_t *x = a, *y = b;
	return x[0] < y[0]   ? 1
	       : x[0] > y[0] ? -1
			     : (x[1] > y[1]) - (x[1] < y[1]);
}

/* Sets every lane's dropped and kept. Return: 0 or -1. */
static int plan(struct view_index *ix, struct lane_plan *pl)
{
	size_t budget = view_index_budget(ix);
	size_t total = base_bytes(ix);
	for (size_t i = 0; i < ix->nlanes; i++) {
		const struct view_lane *l = &ix->lanes[i];
		struct lane_plan *p = &pl[i];
		int64_t w;
		p->steps = view_steps_whole_bytes(&l->steps);
		p->counter = l->kind == VIEW_LANE_COUNTER;
		if (l->steps.n)
			view_lod_shape(ix, l->steps.n, &w, &p->nb0, &p->nlev);
		total += p->steps + plan_levels(p, 0) +
			 (size_t)p->nlev * sizeof(struct view_level);
	}
	size_t(*order)[2] =
		malloc((ix->nlanes ? ix->nlanes : 1) * sizeof(*order));
	if (!order)
		return -1;
	size_t steps = 0;
	for (size_t i = 0; i < ix->nlanes; i++) {
		order[i][0] = pl[i].steps;
		order[i][1] = i;
		steps += pl[i].steps;
	}
	qsort(order, ix->nlanes, sizeof(*order), by_bytes);
	/* the spilled lanes' changes are not here to keep */
	for (size_t i = 0; i < ix->nlanes; i++) {
		struct view_lane *l = &ix->lanes[i];
		if (l->steps.nsegs) {
			l->dropped = 1;
			total -= pl[i].steps;
			steps -= pl[i].steps;
		}
	}
	for (size_t j = 0; budget != SIZE_MAX && j < ix->nlanes &&
			   total > budget && steps > budget / 16;
	     j++) {
		struct view_lane *l = &ix->lanes[order[j][1]];
		if (!l->steps.n)
			break;
		if (l->dropped)
			continue;
		total -= order[j][0];
		steps -= order[j][0];
		l->dropped = 1;
	}
	for (int k = 0; budget != SIZE_MAX && total > budget && k < 40; k++) {
		int any = 0;
		for (size_t j = 0; j < ix->nlanes && total > budget; j++) {
			struct view_lane *l = &ix->lanes[order[j][1]];
			const struct lane_plan *p = &pl[order[j][1]];
			if (!l->dropped || k + 1 >= p->nlev || l->kept != k)
				continue;
			any = 1;
			total -= plan_levels(p, k) - plan_levels(p, k + 1);
			l->kept = k + 1;
		}
		if (!any)
			break;
	}
	free(order);
	return 0;
}

/* The lanes' levels, lanes taken in turn by both threads, the most
 * changes first (taken in lane order, a thread that drew the two busiest
 * lanes last worked alone at the end). */
struct finish {
	struct view_index *ix;
	const struct view_spill *d;
	size_t (*order)[2]; /* (changes, lane), the most changes first */
	size_t next;	    /* the next of order to take (atomic) */
	int failed;	    /* atomic */
	int err;
};

static void *levels_worker(void *arg)
{
	struct finish *f = arg;
	struct view_index *ix = f->ix;
	for (;;) {
		size_t i = __atomic_fetch_add(&f->next, 1, __ATOMIC_RELAXED);
		if (i >= ix->nlanes ||
		    __atomic_load_n(&f->failed, __ATOMIC_RELAXED))
			break;
		struct view_lane *l = &ix->lanes[f->order[i][1]];
		l->changes = l->steps.n;
		struct view_scan sc;
		view_scan_start(&sc, &l->steps, f->d);
		int bad = view_lod_lane(ix, l, &sc);
		view_scan_end(&sc);
		if (bad) {
			__atomic_store_n(&f->err, errno ? errno : ENOMEM,
					 __ATOMIC_RELAXED);
			__atomic_store_n(&f->failed, 1, __ATOMIC_RELAXED);
			break;
		}
		if (l->dropped) {
			for (int k = 0; k < l->kept; k++)
				view_level_free(&l->levels[k]);
			view_steps_free(&l->steps);
		} else {
			view_steps_shrink(&l->steps);
		}
	}
	return NULL;
}

int view_index_finish(struct view_index *ix, const struct view_spill *d)
{
	struct lane_plan *pl = calloc(ix->nlanes ? ix->nlanes : 1, sizeof(*pl));
	if (!pl || plan(ix, pl)) {
		free(pl);
		errno = ENOMEM;
		return -1;
	}
	free(pl);
	size_t(*order)[2] =
		malloc((ix->nlanes ? ix->nlanes : 1) * sizeof(*order));
	if (!order) {
		errno = ENOMEM;
		return -1;
	}
	for (size_t i = 0; i < ix->nlanes; i++) {
		order[i][0] = (size_t)ix->lanes[i].steps.n;
		order[i][1] = i;
	}
	qsort(order, ix->nlanes, sizeof(*order), by_bytes);
	/* the reader's thread is done: the levels take both cores */
	struct finish f = {.ix = ix, .d = d, .order = order};
	pthread_t tid;
	int two = ix->nlanes > 1 &&
		  !pthread_create(&tid, NULL, levels_worker, &f);
	levels_worker(&f);
	if (two)
		pthread_join(tid, NULL);
	free(order);
	if (f.failed) {
		errno = f.err;
		return -1;
	}
	return 0;
}
