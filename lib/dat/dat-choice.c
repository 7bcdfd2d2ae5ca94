/* SPDX-License-Identifier: MIT */
/*
 * Whether the merge runs ahead on a second thread or on the consumer's, by
 * timing both on the run itself. The thread pays when there is enough work
 * on both sides to overlap: a consumer that does much per event (report,
 * the exports, the viewer's index) or a merge that does (decompression)
 * beside a consumer that is not idle. It costs when the consumer does
 * little on uncompressed data (stats, a script reading a few integers):
 * then every record is copied into a batch and read back on another core,
 * which takes longer than the overlap saves. Which is which depends on the
 * consumer, the file and the machine, so it is found out, not assumed:
 *
 * - The events come in windows of TW_CHOICE_WINDOW. Each window starts
 *   with TW_CHOICE_SETTLE events that are not timed (a way just taken
 *   runs as it will only after its first batches); the rest is timed.
 * - The first window is a warm-up (formats compiled, pages first touched)
 *   on the consumer's thread, timed only at its end; then the thread runs
 *   a window untimed (it and its batches are made) and one timed.
 * - From then on each window runs the way whose recent time per event is
 *   lower, ahead only when it is TW_CHOICE_MARGIN better (it costs a
 *   core). The other way is timed again after TW_CHOICE_EXPLORE windows,
 *   then after twice as many while it keeps losing (up to
 *   TW_CHOICE_EXPLORE_MAX), so a run whose work changes (a phase of heavy
 *   events) follows it, and a long run pays little for looking.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dat-int.h"

#define TW_CHOICE_WINDOW      32768
#define TW_CHOICE_SETTLE      8192
#define TW_CHOICE_EXPLORE     16
#define TW_CHOICE_EXPLORE_MAX 128
#define TW_CHOICE_MARGIN      0.90

int64_t tw_dat_choice_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void tw_dat_choice_init(tw_dat_choice *c, int possible, int64_t (*now)(void))
{
	memset(c, 0, sizeof(*c));
	c->now = now ? now : tw_dat_choice_now;
	c->policy = possible ? TW_CHOICE_AUTO : TW_CHOICE_HERE;
	c->window = TW_CHOICE_WINDOW;
	/* TRAWL_MERGE_AHEAD: auto (the default), on, off, or flip:N (the
	 * way changes every N events, for the tests of the hand-over) */
	const char *env = possible ? getenv("TRAWL_MERGE_AHEAD") : NULL;
	if (env && !strcmp(env, "on"))
		c->policy = TW_CHOICE_AHEAD;
	else if (env && !strcmp(env, "off"))
		c->policy = TW_CHOICE_HERE;
	else if (env && !strncmp(env, "flip:", 5)) {
		long n = strtol(env + 5, NULL, 10);
		if (n > 0) {
			c->policy = TW_CHOICE_FLIP;
			c->window = (uint64_t)n;
		}
	}
	c->way = c->policy == TW_CHOICE_AHEAD ? TW_WAY_AHEAD : TW_WAY_HERE;
	if (c->policy != TW_CHOICE_AUTO) {
		/* one fixed way needs no windows */
		c->left = c->policy == TW_CHOICE_FLIP ? c->window : UINT64_MAX;
		return;
	}
	c->explore_every = TW_CHOICE_EXPLORE;
	c->settling = 1;
	c->left = TW_CHOICE_SETTLE;
}

/*
 * A way's time per event: the least of its last TW_CHOICE_KEEP windows.
 * What disturbs a window here (interrupts, the other tenants of a VM, page
 * faults) only ever adds time, and one window in ten or so is 1.5-2x
 * slower for it: an average of the last two would change ways on one.
 */
static void keep(tw_dat_choice *c, int way, double ns)
{
	double *kept = c->kept[way];
	memmove(kept + 1, kept, (TW_CHOICE_KEEP - 1) * sizeof(*kept));
	kept[0] = ns;
	double least = 0;
	for (int i = 0; i < TW_CHOICE_KEEP; i++)
		if (kept[i] > 0 && (least == 0 || kept[i] < least))
			least = kept[i];
	c->ns[way] = least;
}

/* The way of the next window: the one measured faster lately, the other
 * now and then. */
static int choose(tw_dat_choice *c)
{
	double here = c->ns[TW_WAY_HERE], ahead = c->ns[TW_WAY_AHEAD];
	if (ahead == 0)
		return TW_WAY_AHEAD; /* not timed yet */
	int best = ahead < here * TW_CHOICE_MARGIN ? TW_WAY_AHEAD : TW_WAY_HERE;
	if (c->way != best) {
		/* the other way was timed and lost: look less often; or
		 * the best way changed: look soon again */
		if (c->exploring)
			c->explore_every =
				c->explore_every * 2 > TW_CHOICE_EXPLORE_MAX
					? TW_CHOICE_EXPLORE_MAX
					: c->explore_every * 2;
		else
			c->explore_every = TW_CHOICE_EXPLORE;
		c->exploring = 0;
		c->since_other = 0;
		return best;
	}
	if (c->exploring) /* and it won */
		c->explore_every = TW_CHOICE_EXPLORE;
	c->exploring = 0;
	if (++c->since_other >= c->explore_every) {
		c->since_other = 0;
		c->exploring = 1;
		return !best;
	}
	return best;
}

int tw_dat_choice_end(tw_dat_choice *c)
{
	if (c->policy == TW_CHOICE_FLIP) {
		c->left = c->window;
		c->switches++;
		return c->way = !c->way;
	}
	if (c->settling) {
		/* the way runs as it will now: time the rest of the window */
		c->settling = 0;
		c->left = c->window - TW_CHOICE_SETTLE;
		c->t0 = c->now();
		return c->way;
	}
	double ns = (double)(c->now() - c->t0) /
		    (double)(c->window - TW_CHOICE_SETTLE);
	if (c->way == TW_WAY_AHEAD && !c->ahead_warm)
		c->ahead_warm = 1; /* the thread's first window: not counted */
	else
		keep(c, c->way, ns);
	c->windows++;
	int way = choose(c);
	c->switches += way != c->way;
	c->way = way;
	c->settling = 1;
	c->left = TW_CHOICE_SETTLE;
	return way;
}

void tw_dat_choice_give_up_ahead(tw_dat_choice *c)
{
	c->policy = TW_CHOICE_HERE;
	c->way = TW_WAY_HERE;
	c->settling = 0;
	c->left = UINT64_MAX;
}
