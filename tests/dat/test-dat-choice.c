/* SPDX-License-Identifier: MIT */
/*
 * The choice between the merge ahead on its thread and on the consumer's
 * (lib/dat/dat-choice.c), on a clock of the test's own: a run is played
 * event by event as the reader plays it (windows counted down), each event
 * costing what the test says for the way it runs. A light consumer runs on
 * one thread (ahead only to time it), a heavy one runs ahead, a tie stays
 * on one thread, one slow window does not change the way, and a run whose
 * work changes half way follows it.
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>

#include "../../lib/dat/dat-int.h"

static int64_t clock_ns;

static int64_t fake_now(void)
{
	return clock_ns;
}

/* What an event costs: inside the merge (p) and in the consumer (c) on
 * one thread, and in all (ahead) with the merge on its thread. */
struct cost {
	double p, c, ahead;
};

struct played {
	uint64_t here, ahead; /* events run each way */
	uint64_t ahead_late;  /* of them, from event 1.5 M on */
	uint64_t first_ahead; /* the first event run ahead (0: none) */
};

/* cost_at(i) gives event i's costs; events slow_from..slow_to cost 2x. */
static struct played play(uint64_t events, struct cost (*cost_at)(uint64_t),
			  uint64_t slow_from, uint64_t slow_to)
{
	tw_dat_choice c;
	clock_ns = 1000000;
	tw_dat_choice_init(&c, 1, fake_now);
	cr_assert_eq(c.policy, TW_CHOICE_AUTO);
	struct played out = {0};
	for (uint64_t i = 1; i <= events; i++) {
		if (--c.left == 0)
			tw_dat_choice_end(&c);
		struct cost e = cost_at(i);
		double slow = i >= slow_from && i < slow_to ? 2 : 1;
		if (c.way == TW_WAY_AHEAD) {
			clock_ns += (int64_t)(e.ahead * slow);
			out.ahead++;
			out.ahead_late += i >= 1500000;
			if (!out.first_ahead)
				out.first_ahead = i;
		} else {
			clock_ns += (int64_t)((e.p + e.c) * slow);
			out.here++;
		}
	}
	return out;
}

/* trawl stats on an uncompressed file: 24 ns merge, 7 consumer, 45 ahead */
static struct cost stats(uint64_t i)
{
	(void)i;
	return (struct cost){24, 7, 45};
}

/* trawl report: 28 ns merge, 130 consumer, 120 ahead in all */
static struct cost report(uint64_t i)
{
	(void)i;
	return (struct cost){28, 130, 120};
}

/* a script whose consumer is as heavy as the merge: ahead 7 % faster,
 * less than the 10 % a second core has to buy */
static struct cost tie(uint64_t i)
{
	(void)i;
	return (struct cost){25, 35, 56};
}

/* light, then from event 1.5 M on heavy */
static struct cost light_then_heavy(uint64_t i)
{
	return i < 1500000 ? stats(i) : report(i);
}

static struct cost heavy_then_light(uint64_t i)
{
	return i < 1500000 ? report(i) : stats(i);
}

Test(choice, a_light_consumer_runs_on_one_thread)
{
	/* ahead only to time it: two windows at the start, then one after
	 * 16 windows, 32, 64, ... */
	struct played p = play(3000000, stats, 0, 0);
	cr_expect_lt(p.ahead, 3000000 * 5 / 100, "%llu of 3 M ahead",
		     (unsigned long long)p.ahead);
	cr_expect_gt(p.ahead, 0, "the thread was never timed");
}

Test(choice, a_heavy_consumer_runs_ahead)
{
	struct played p = play(3000000, report, 0, 0);
	/* one thread only while it warms up and times each way, and one
	 * window now and then to time that way again */
	cr_expect_gt(p.ahead, 3000000 * 90 / 100, "%llu of 3 M ahead",
		     (unsigned long long)p.ahead);
	cr_expect_lt(p.first_ahead, 3 * 32768, "first ahead at %llu",
		     (unsigned long long)p.first_ahead);
}

Test(choice, a_tie_stays_on_one_thread)
{
	struct played p = play(3000000, tie, 0, 0);
	cr_expect_lt(p.ahead, 3000000 * 5 / 100, "%llu of 3 M ahead",
		     (unsigned long long)p.ahead);
}

Test(choice, one_slow_window_does_not_change_the_way)
{
	/* the 20th window, while ahead, twice as slow; and the 30th */
	struct played p = play(3000000, report, 19 * 32768, 20 * 32768);
	struct played q = play(3000000, report, 0, 0);
	cr_expect_eq(p.ahead, q.ahead, "%llu against %llu ahead",
		     (unsigned long long)p.ahead, (unsigned long long)q.ahead);
	p = play(3000000, stats, 29 * 32768, 30 * 32768);
	q = play(3000000, stats, 0, 0);
	cr_expect_eq(p.ahead, q.ahead, "%llu against %llu ahead",
		     (unsigned long long)p.ahead, (unsigned long long)q.ahead);
}

Test(choice, the_way_follows_the_work)
{
	/* the heavy half is found at the next look (the looks are 32 and
	 * 64 windows apart by then) and runs ahead from there */
	struct played p = play(3000000, light_then_heavy, 0, 0);
	cr_expect_lt(p.ahead - p.ahead_late, 1500000 * 10 / 100,
		     "%llu ahead while light",
		     (unsigned long long)(p.ahead - p.ahead_late));
	cr_expect_gt(p.ahead_late, 1500000 * 60 / 100,
		     "%llu of the heavy 1.5 M ahead",
		     (unsigned long long)p.ahead_late);
	struct played q = play(3000000, heavy_then_light, 0, 0);
	cr_expect_gt(q.ahead - q.ahead_late, 1500000 * 85 / 100,
		     "%llu of the heavy 1.5 M ahead",
		     (unsigned long long)(q.ahead - q.ahead_late));
	cr_expect_lt(q.ahead_late, 20 * 32768, "%llu ahead while light",
		     (unsigned long long)q.ahead_late);
}

Test(choice, fixed_ways)
{
	tw_dat_choice c;
	tw_dat_choice_init(&c, 0, fake_now);
	cr_expect_eq(c.policy, TW_CHOICE_HERE);
	cr_expect_eq(c.way, TW_WAY_HERE);
	setenv("TRAWL_MERGE_AHEAD", "on", 1);
	tw_dat_choice_init(&c, 1, fake_now);
	cr_expect_eq(c.way, TW_WAY_AHEAD);
	tw_dat_choice_init(&c, 0, fake_now);
	cr_expect_eq(c.way, TW_WAY_HERE, "on, but no thread may be used");
	setenv("TRAWL_MERGE_AHEAD", "flip:3", 1);
	tw_dat_choice_init(&c, 1, fake_now);
	int ways = 0;
	for (int i = 1; i <= 12; i++)
		if (--c.left == 0)
			ways = ways * 2 + tw_dat_choice_end(&c);
	cr_expect_eq(ways, 0xa, "flip:3 went %x", ways); /* 1 0 1 0 */
	setenv("TRAWL_MERGE_AHEAD", "off", 1);
	tw_dat_choice_init(&c, 1, fake_now);
	cr_expect_eq(c.way, TW_WAY_HERE);
	unsetenv("TRAWL_MERGE_AHEAD");
}
