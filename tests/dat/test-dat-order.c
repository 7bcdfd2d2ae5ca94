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
#include <fcntl.h>
#include <unistd.h>

#include <trawl/trawl.h>

#include "../../lib/dat/dat-write.h"

#define PAGE	 4096
#define CHUNK	 64		   /* pages per compressed chunk */
#define PIECE	 (64 * CHUNK)	   /* pages per pre-scan piece */
#define PAGES0	 (2 * PIECE + 300) /* CPU 0: three pieces */
#define PAGES1	 40
#define PER_PAGE 4
#define STEP_NS	 1000
#define EVENT_ID 7
#define TYPE_LEN 3 /* 12 bytes of event data */

static const char header_page[] =
	"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
	"\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
	"\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
	"\tfield: char data;\toffset:16;\tsize:4080;\tsigned:0;\n";
static const char header_event[] = "# compressed entry header\n"
				   "\ttype_len    :    5 bits\n"
				   "\ttime_delta  :   27 bits\n"
				   "\tarray       :   32 bits\n"
				   "\n"
				   "\tpadding     : type == 29\n"
				   "\ttime_extend : type == 30\n"
				   "\ttime_stamp : type == 31\n"
				   "\tdata max type_len  == 28\n";
static const char tick_format[] =
	"name: tick\n"
	"ID: 7\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;"
	"\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\n"
	"\tfield:int n;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\n"
	"print fmt: \"n=%d\", REC->n\n";

static void put32(unsigned char *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

static void put64(unsigned char *p, uint64_t v)
{
	memcpy(p, &v, 8);
}

/* One page of PER_PAGE ticks STEP_NS apart from ts; n numbers them. */
static void make_page(unsigned char *pg, uint64_t ts, int32_t *n)
{
	memset(pg, 0, PAGE);
	put64(pg, ts);
	unsigned char *r = pg + 16;
	for (int i = 0; i < PER_PAGE; i++) {
		uint32_t delta = i ? STEP_NS : 0;
		put32(r, (delta << 5) | TYPE_LEN);
		uint16_t type = EVENT_ID;
		memcpy(r + 4, &type, 2);
		int32_t pid = 100, v = (*n)++;
		memcpy(r + 8, &pid, 4);
		memcpy(r + 12, &v, 4);
		r += 4 + 4 * TYPE_LEN;
	}
	put64(pg + 8, (uint64_t)(r - (pg + 16)));
}

/*
 * A v7 zstd file of two CPUs; each page's first time is its index times
 * the page's span, except page `back` of CPU `back_cpu` (-1: none), which
 * starts where the page before it started: a step back in time.
 */
static void make_file(const char *path, int back_cpu, int back)
{
	tw_blob fmt = {tick_format, sizeof(tick_format) - 1};
	tw_dat_system sys = {"test", &fmt, 1};
	tw_dat_meta m = {
		.page_size = PAGE,
		.header_page = {header_page, sizeof(header_page) - 1},
		.header_event = {header_event, sizeof(header_event) - 1},
		.systems = &sys,
		.nsystems = 1,
		.ncpus = 2};
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	cr_assert(fd >= 0);
	tw_mem mem;
	tw_mem_init(&mem, NULL, NULL);
	trawl_error err = {0};
	tw_dat7 *w = tw_dat7_open(&mem, fd, path, &m, TW_DAT_COMP_ZSTD, &err);
	cr_assert(w, "%s", err.msg);
	unsigned char *pg = malloc(PAGE);
	cr_assert(pg);
	int32_t n = 0;
	const uint64_t span = (uint64_t)PER_PAGE * STEP_NS;
	for (int cpu = 0; cpu < 2; cpu++) {
		int pages = cpu ? PAGES1 : PAGES0;
		for (int p = 0; p < pages; p++) {
			uint64_t ts = 1000000 + (uint64_t)p * span + cpu * 7;
			if (cpu == back_cpu && p == back)
				ts -= span; /* back to the page before's */
			make_page(pg, ts, &n);
			cr_assert_eq(tw_dat7_add(w, cpu, pg, PAGE), 0);
		}
		cr_assert_eq(tw_dat7_sync(w, cpu, 1), 0);
	}
	uint64_t size = 0;
	cr_assert_eq(tw_dat7_finish(w, &m, &size, &err), 0, "%s", err.msg);
	tw_dat7_free(w);
	free(pg);
	close(fd);
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
