/* SPDX-License-Identifier: MIT */
/*
 * A trace.dat whose CPU stream goes back in time must still be delivered
 * in time order, and counted. The reader's order pre-scan cuts a long
 * compressed stream into pieces of 64 chunks that threads check apart, so
 * these files are made (with the recorder's v7 writer) long enough to have
 * several pieces, with the step back inside a piece, exactly where one
 * piece meets the next, and in the short stream of the other CPU.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <trawl/trawl.h>

#include "../helpers/helpers.h"

#define CHUNK	 64		   /* pages per compressed chunk */
#define PIECE	 (64 * CHUNK)	   /* pages per pre-scan piece */
#define PAGES0	 (2 * PIECE + 300) /* CPU 0: three pieces */
#define PAGES1	 40
#define PER_PAGE SYNTH_PER_PAGE

static void make_file(const char *path, int back_cpu, int back)
{
	cr_assert_eq(synth_dat(path, PAGES0, PAGES1, back_cpu, back), 0);
}

struct seen {
	uint64_t n;
	int64_t last;
	uint64_t backwards;
};

static int on_event(const trawl_event *ev, void *ctx)
{
	struct seen *s = ctx;
	int64_t ts = trawl_event_time(ev);
	if (s->n++ && ts < s->last)
		s->backwards++;
	s->last = ts;
	return 0;
}

/* Read path with threads; its events in order, how many moved. */
static uint64_t read_file(const char *path, int threads)
{
	trawl_open_opts o = {.threads = threads};
	trawl_error err = {0};
	trawl_trace *t = trawl_open(path, &o, &err);
	cr_assert(t, "%s", err.msg);
	struct seen s = {0};
	cr_assert_eq(trawl_on(t, "*", on_event, &s), 0);
	cr_assert_eq(trawl_run(t, &err), 0, "%s", err.msg);
	cr_assert_eq(s.n, (uint64_t)(PAGES0 + PAGES1) * PER_PAGE);
	cr_assert_eq(s.backwards, 0, "%s (threads %d): %llu steps back", path,
		     threads, (unsigned long long)s.backwards);
	uint64_t moved = trawl_trace_stats(t)->reordered;
	trawl_close(t);
	return moved;
}

static void check(int back_cpu, int back, int want_moved)
{
	char path[] = "/tmp/trawl-order-XXXXXX";
	int fd = mkstemp(path);
	cr_assert(fd >= 0);
	close(fd);
	make_file(path, back_cpu, back);
	for (int threads = 1; threads <= 2; threads++) {
		uint64_t moved = read_file(path, threads);
		if (want_moved)
			cr_assert_gt(moved, 0, "page %d of CPU %d", back,
				     back_cpu);
		else
			cr_assert_eq(moved, 0);
	}
	unlink(path);
}

Test(dat_order, in_order_over_several_pieces_is_not_sorted)
{
	check(-1, 0, 0);
}

Test(dat_order, a_step_back_inside_a_piece)
{
	check(0, PIECE + 1000, 1);
}

Test(dat_order, a_step_back_where_two_pieces_meet)
{
	check(0, PIECE, 1);
}

Test(dat_order, a_step_back_where_the_last_pieces_meet)
{
	check(0, 2 * PIECE, 1);
}

Test(dat_order, a_step_back_in_a_short_stream)
{
	check(1, PAGES1 / 2, 1);
}
