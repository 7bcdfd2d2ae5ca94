/* SPDX-License-Identifier: MIT */
/*
 * lib/ring: what a reader gets from a channel, what it counts when the
 * writer drops, overwrites, retries or dies at each test point inside a
 * write, and what a child after fork() does. Built against the tests' copy
 * of lib/ring, with its test points compiled in. Channels here have one
 * CPU buffer, so every thread writes into the same one.
 */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../lib/ring/ring-int.h"

struct got {
	int n;
	uint64_t last_ts;
	uint32_t types[4096];
	uint64_t vals[4096];
	char names[64][32];
	uint32_t tid;
	int stop_at;
};

static int collect(const trawl_ring_event *ev, void *ctx)
{
	struct got *g = ctx;
	cr_assert_geq(ev->ts, g->last_ts, "time goes back");
	g->last_ts = ev->ts;
	if (g->n < 4096) {
		g->types[g->n] = ev->type;
		uint64_t v = 0;
		memcpy(&v, ev->data, ev->len < 8 ? ev->len : 8);
		g->vals[g->n] = v;
	}
	if (g->n < 64 && ev->type != TRAWL_RING_COUNTER &&
	    ev->type < TRAWL_RING_FIRST_USER_TYPE) {
		uint32_t loc;
		memcpy(&loc, ev->data, 4);
		uint32_t at = (loc & 0xffff) - 8, len = loc >> 16;
		cr_assert_leq(at + len, ev->len);
		snprintf(g->names[g->n], 32, "%s", (const char *)ev->data + at);
	}
	g->tid = ev->tid;
	g->n++;
	return g->stop_at && g->n == g->stop_at;
}

static char name[64];

static trawl_ring *make(int mode, uint32_t subbufs)
{
	snprintf(name, sizeof(name), "test_%d_%ld", (int)getpid(),
		 (long)random());
	trawl_ring_opts o = {.subbuf_size = 4096,
			     .subbufs = subbufs,
			     .mode = mode,
			     .ncpus = 1};
	trawl_error err = {0};
	trawl_ring *w = trawl_ring_create(name, &o, &err);
	cr_assert_not_null(w, "%s", err.msg);
	return w;
}

static trawl_ring *reader(void)
{
	trawl_error err = {0};
	trawl_ring *r = trawl_ring_attach(name, &err);
	cr_assert_not_null(r, "%s", err.msg);
	return r;
}

static trawl_ring_stats stats(trawl_ring *r)
{
	trawl_ring_stats st;
	cr_assert_eq(trawl_ring_stats_get(r, 0, &st), 0);
	return st;
}

static const trawl_ring_field u64_field[] = {{"seq", TRAWL_RING_U64}};

Test(ring, a_reader_gets_the_builtin_events_with_their_fields)
{
	trawl_ring *w = make(TRAWL_RING_DISCARD, 4);
	trawl_ring *r = reader();
	cr_assert_eq(trawl_ring_slice_begin(w, "frame"), 0);
	cr_assert_eq(trawl_ring_counter(w, "queue", -42), 0);
	cr_assert_eq(trawl_ring_instant(w, "vsync"), 0);
	cr_assert_eq(trawl_ring_slice_end(w, "frame"), 0);
	struct got g = {0};
	/* unfinished sub-buffer: nothing without READ_PARTIAL */
	cr_assert_eq(trawl_ring_read(r, 0, 0, collect, &g), 0);
	cr_assert_eq(g.n, 0);
	cr_assert_eq(
		trawl_ring_read(r, 0, TRAWL_RING_READ_PARTIAL, collect, &g), 0);
	cr_assert_eq(g.n, 4);
	cr_expect_eq(g.types[0], TRAWL_RING_SLICE_BEGIN);
	cr_expect_str_eq(g.names[0], "frame");
	cr_expect_eq(g.types[1], TRAWL_RING_COUNTER);
	cr_expect_eq((int64_t)g.vals[1], -42);
	cr_expect_str_eq(g.names[2], "vsync");
	cr_expect_eq(g.types[3], TRAWL_RING_SLICE_END);
	cr_expect_eq(g.tid, (uint32_t)gettid());
	/* read again: nothing twice */
	cr_assert_eq(
		trawl_ring_read(r, 0, TRAWL_RING_READ_PARTIAL, collect, &g), 0);
	cr_assert_eq(g.n, 4);
	cr_expect_eq(stats(r).delivered, 4);
	cr_expect_eq(trawl_ring_producer_alive(r), 1);
	trawl_ring_close(w);
	cr_expect_eq(trawl_ring_producer_alive(r), 0);
	trawl_ring_close(r);
}

Test(ring, a_type_reads_back_as_a_kernel_format)
{
	trawl_ring *w = make(TRAWL_RING_DISCARD, 4);
	const trawl_ring_field f[] = {{"id", TRAWL_RING_U32},
				      {"big", TRAWL_RING_S64},
				      {"label", TRAWL_RING_STR}};
	trawl_error err = {0};
	trawl_ring_type *t = trawl_ring_type_new(w, "frame", f, 3, &err);
	cr_assert_not_null(t, "%s", err.msg);
	cr_assert_eq(trawl_ring_type_new(w, "frame", f, 3, NULL), t);
	cr_assert_null(trawl_ring_type_new(w, "frame", f, 2, NULL));
	cr_assert_null(trawl_ring_type_new(w, "bad name", f, 3, NULL));
	trawl_ring *r = reader();
	char buf[2048];
	int id = TRAWL_RING_FIRST_USER_TYPE;
	cr_assert_gt(trawl_ring_type_format(r, id, 1500, buf, sizeof(buf)), 0);
	cr_expect(strstr(buf, "name: frame\nID: 1500\n") != NULL, "%s", buf);
	cr_expect(strstr(buf, "field:u32 id;\toffset:8;\tsize:4;\tsigned:0;"),
		  "%s", buf);
	cr_expect(strstr(buf, "field:s64 big;\toffset:16;\tsize:8;\tsigned:1;"),
		  "%s", buf);
	cr_expect(strstr(buf, "field:__data_loc char[] label;\toffset:24;"),
		  "%s", buf);
	cr_expect(strstr(buf,
			 "print fmt: \"id=%u big=%lld label=%s\", REC->id, "
			 "REC->big, __get_str(label)"),
		  "%s", buf);
	cr_expect_str_eq(trawl_ring_type_name(r, id), "frame");
	/* sizing, as snprintf: no buffer */
	cr_expect_eq(trawl_ring_type_format(r, id, 1500, NULL, 0),
		     (int)strlen(buf));
	char small[16];
	cr_expect_eq(trawl_ring_type_format(r, id, 1500, small, sizeof(small)),
		     (int)strlen(buf));
	cr_expect_eq(strlen(small), sizeof(small) - 1);
	cr_expect_eq(trawl_ring_type_format(r, id + 1, 0, buf, sizeof(buf)),
		     -TRAWL_ENOENT);
	struct {
		uint32_t id;
		uint32_t pad;
		int64_t big;
		uint32_t label;
		uint32_t pad2;
	} p = {7, 0, -9, 0, 0};
	cr_assert_eq(trawl_ring_emit(t, &p, sizeof(p), "hello"), 0);
	cr_assert_eq(trawl_ring_emit(t, &p, sizeof(p) - 1, "x"), -TRAWL_EINVAL);
	struct got g = {0};
	trawl_ring_read(r, 0, TRAWL_RING_READ_PARTIAL, collect, &g);
	cr_assert_eq(g.n, 1);
	cr_expect_eq(g.types[0], (uint32_t)id);
	trawl_ring_close(w);
	trawl_ring_close(r);
}

Test(ring, a_disabled_type_or_channel_writes_nothing_and_counts_nothing)
{
	trawl_ring *w = make(TRAWL_RING_DISCARD, 4);
	trawl_ring_type *t = trawl_ring_type_new(w, "e", u64_field, 1, NULL);
	uint64_t v = 1;
	trawl_ring_type_enable(t, 0);
	cr_expect(!trawl_ring_on(t));
	cr_expect_eq(trawl_ring_emit(t, &v, 8, NULL), 1);
	cr_expect_eq(trawl_ring_slice_begin(w, "on"), 0);
	trawl_ring_enable(w, 0);
	cr_expect_eq(trawl_ring_slice_begin(w, "off"), 1);
	trawl_ring_enable(w, 1);
	cr_expect_eq(trawl_ring_emit(t, &v, 8, NULL), 1);
	trawl_ring_type_enable(t, 1);
	cr_expect_eq(trawl_ring_emit(t, &v, 8, NULL), 0);
	trawl_ring *r = reader();
	struct got g = {0};
	trawl_ring_read(r, 0, TRAWL_RING_READ_PARTIAL, collect, &g);
	cr_expect_eq(g.n, 2);
	trawl_ring_stats st = stats(r);
	cr_expect_eq(st.lost_full + st.lost_busy + st.lost_retry, 0);
	trawl_ring_close(w);
	trawl_ring_close(r);
}

/* 4 sub-buffers of 4096 bytes, 32-byte records: 127 fit in each (the
 * last 32 bytes... of each are padding when a record does not fit) */
Test(ring, discard_mode_counts_every_event_it_drops)
{
	trawl_ring *w = make(TRAWL_RING_DISCARD, 4);
	trawl_ring_type *t = trawl_ring_type_new(w, "e", u64_field, 1, NULL);
	trawl_ring *r = reader();
	int sent = 0, dropped = 0;
	for (uint64_t i = 0; i < 2000; i++) {
		int rc = trawl_ring_emit(t, &i, 8, NULL);
		sent += rc == 0;
		dropped += rc == 1;
	}
	cr_assert_eq(sent, 4 * 128, "4 sub-buffers of 128 records");
	trawl_ring_stats st = stats(r);
	cr_expect_eq(st.lost_full, (uint64_t)dropped);
	struct got g = {0};
	trawl_ring_read(r, 0, TRAWL_RING_READ_PARTIAL, collect, &g);
	cr_assert_eq(g.n, sent);
	for (int i = 0; i < g.n; i++)
		cr_assert_eq(g.vals[i], (uint64_t)i);
	/* room again once read */
	uint64_t v = 5000;
	cr_expect_eq(trawl_ring_emit(t, &v, 8, NULL), 0);
	trawl_ring_close(w);
	trawl_ring_close(r);
}

Test(ring, overwrite_mode_keeps_the_newest_and_counts_the_rest)
{
	trawl_ring *w = make(TRAWL_RING_OVERWRITE, 4);
	trawl_ring_type *t = trawl_ring_type_new(w, "e", u64_field, 1, NULL);
	trawl_ring *r = reader();
	struct got g = {0};
	/* the reader takes one sub-buffer early, then falls behind */
	uint64_t i = 0;
	for (; i < 200; i++)
		cr_assert_eq(trawl_ring_emit(t, &i, 8, NULL), 0);
	trawl_ring_read(r, 0, 0, collect, &g);
	cr_assert_eq(g.n, 128);
	for (; i < 5000; i++)
		cr_assert_eq(trawl_ring_emit(t, &i, 8, NULL), 0);
	trawl_ring_read(r, 0, TRAWL_RING_READ_PARTIAL, collect, &g);
	trawl_ring_stats st = stats(r);
	cr_expect_eq(st.delivered + st.overwritten, 5000, "%lu + %lu",
		     (unsigned long)st.delivered,
		     (unsigned long)st.overwritten);
	cr_expect_eq(g.vals[g.n - 1], 4999);
	for (int k = 129; k < g.n; k++)
		cr_assert_eq(g.vals[k], g.vals[k - 1] + 1);
	cr_expect_geq(g.n - 128, 3 * 128, "the last sub-buffers are kept");
	trawl_ring_close(w);
	trawl_ring_close(r);
}

Test(ring, overwrite_mode_with_a_partial_read_still_counts_exactly)
{
	trawl_ring *w = make(TRAWL_RING_OVERWRITE, 2);
	trawl_ring_type *t = trawl_ring_type_new(w, "e", u64_field, 1, NULL);
	trawl_ring *r = reader();
	struct got g = {0};
	uint64_t i = 0;
	for (; i < 50; i++)
		trawl_ring_emit(t, &i, 8, NULL);
	trawl_ring_read(r, 0, TRAWL_RING_READ_PARTIAL, collect, &g);
	cr_assert_eq(g.n, 50);
	for (; i < 3000; i++)
		trawl_ring_emit(t, &i, 8, NULL);
	trawl_ring_read(r, 0, TRAWL_RING_READ_PARTIAL, collect, &g);
	trawl_ring_stats st = stats(r);
	cr_expect_eq(st.delivered + st.overwritten, 3000, "%lu + %lu",
		     (unsigned long)st.delivered,
		     (unsigned long)st.overwritten);
	trawl_ring_close(w);
	trawl_ring_close(r);
}

/* --- test points */

struct stop {
	int point;
	int skip;   /* times to pass the point first */
	int action; /* 0 kill the process, 1 emit another event */
	trawl_ring_type *t;
	int depth;
	int times;
};

static struct stop stop_at;

static void hook(void *ctx, int point)
{
	struct stop *s = ctx;
	if (point != s->point || s->depth)
		return;
	if (s->skip-- > 0)
		return;
	if (s->action == 0)
		raise(SIGKILL);
	if (s->times-- > 0) {
		/* a signal handler on the same CPU reserves in between */
		uint64_t v = 999;
		s->depth++;
		trawl_ring_emit(s->t, &v, 8, NULL);
		s->depth--;
	}
}

/* A child writes 10 events and dies at @point inside the 11th. */
static void die_at(int point, int skip_events, int *delivered, int *torn)
{
	trawl_ring *w = make(TRAWL_RING_DISCARD, 4);
	trawl_ring_type *t = trawl_ring_type_new(w, "e", u64_field, 1, NULL);
	trawl_ring *r = reader();
	fflush(NULL);
	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		trawl_ring *own = make(TRAWL_RING_DISCARD, 4);
		trawl_ring_type *e =
			trawl_ring_type_new(own, "e", u64_field, 1, NULL);
		(void)e;
		/* the parent's channel is off in the child */
		uint64_t v = 77;
		if (trawl_ring_emit(t, &v, 8, NULL) != 1)
			_exit(3);
		trawl_ring_close(own);
		_exit(0);
	}
	int status;
	waitpid(pid, &status, 0);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	trawl_ring_close(w);
	trawl_ring_close(r);

	/* now the real producer: a child that holds the channel */
	snprintf(name, sizeof(name), "die_%d_%d", (int)getpid(), point);
	int ready[2];
	cr_assert_eq(pipe(ready), 0);
	pid = fork();
	if (pid == 0) {
		trawl_ring_opts o = {
			.subbuf_size = 4096, .subbufs = 4, .ncpus = 1};
		trawl_ring *own = trawl_ring_create(name, &o, NULL);
		if (!own)
			_exit(4);
		trawl_ring_type *e =
			trawl_ring_type_new(own, "e", u64_field, 1, NULL);
		stop_at = (struct stop){.point = point, .skip = skip_events};
		tw_ring_set_hook(own, hook, &stop_at);
		for (uint64_t k = 0; k < 1000; k++) {
			if (k == 1) {
				char c = 1;
				if (write(ready[1], &c, 1) != 1)
					_exit(5);
			}
			trawl_ring_emit(e, &k, 8, NULL);
		}
		_exit(6);
	}
	char c;
	cr_assert_eq(read(ready[0], &c, 1), 1);
	waitpid(pid, &status, 0);
	cr_assert(WIFSIGNALED(status), "status %x", status);
	r = reader();
	struct got g = {0};
	cr_assert_eq(trawl_ring_read(r, 0, 0, collect, &g), 0);
	trawl_ring_stats st = stats(r);
	for (int k = 0; k < g.n; k++)
		cr_assert_eq(g.vals[k], (uint64_t)k);
	*delivered = g.n;
	*torn = (int)st.torn;
	cr_expect_eq(st.damaged, 0);
	char path[128];
	snprintf(path, sizeof(path), "/dev/shm/trawl-ring.%s", name);
	unlink(path);
	trawl_ring_close(r);
}

Test(ring, a_writer_killed_before_its_first_store_leaves_one_torn_event)
{
	int n, torn;
	die_at(TW_RING_AT_RESERVED, 10, &n, &torn);
	cr_expect_eq(n, 10);
	cr_expect_eq(torn, 1);
}

Test(ring, a_writer_killed_after_its_header_leaves_one_torn_event)
{
	int n, torn;
	die_at(TW_RING_AT_HEADER, 10, &n, &torn);
	cr_expect_eq(n, 10);
	cr_expect_eq(torn, 1);
}

Test(ring, a_writer_killed_before_finishing_its_payload_leaves_it_torn)
{
	int n, torn;
	die_at(TW_RING_AT_PAYLOAD, 10, &n, &torn);
	cr_expect_eq(n, 10);
	cr_expect_eq(torn, 1);
}

Test(ring, a_writer_killed_after_finishing_but_before_counting_delivers)
{
	int n, torn;
	die_at(TW_RING_AT_FINISHED, 10, &n, &torn);
	cr_expect_eq(n, 11);
	cr_expect_eq(torn, 0);
}

Test(ring, a_writer_killed_across_sub_buffers_leaves_the_rest_readable)
{
	/* 128 records fill the first sub-buffer: the 129th opens the next
	 * (the second time the writer passes TW_RING_AT_OPENED) */
	int n, torn;
	die_at(TW_RING_AT_PAYLOAD, 200, &n, &torn);
	cr_expect_eq(n, 200);
	cr_expect_eq(torn, 1);
	die_at(TW_RING_AT_OPENED, 1, &n, &torn);
	cr_expect_eq(n, 128);
	cr_expect_eq(torn, 1);
}

Test(ring, the_writer_gives_up_after_max_tries_and_counts_it)
{
	trawl_ring *w = make(TRAWL_RING_DISCARD, 4);
	trawl_ring_type *t = trawl_ring_type_new(w, "e", u64_field, 1, NULL);
	trawl_ring *r = reader();
	stop_at = (struct stop){.point = TW_RING_AT_BEFORE_CAS,
				.action = 1,
				.t = t,
				.times = TRAWL_RING_MAX_TRIES - 1};
	tw_ring_set_hook(w, hook, &stop_at);
	uint64_t v = 1;
	cr_expect_eq(trawl_ring_emit(t, &v, 8, NULL), 0,
		     "MAX_TRIES - 1 interruptions: written");
	cr_expect_eq(stats(r).lost_retry, 0);
	stop_at.times = TRAWL_RING_MAX_TRIES;
	cr_expect_eq(trawl_ring_emit(t, &v, 8, NULL), 1,
		     "MAX_TRIES interruptions: dropped");
	cr_expect_eq(stats(r).lost_retry, 1);
	tw_ring_set_hook(w, NULL, NULL);
	struct got g = {0};
	trawl_ring_read(r, 0, TRAWL_RING_READ_PARTIAL, collect, &g);
	cr_expect_eq(g.n, 1 + 2 * TRAWL_RING_MAX_TRIES - 1);
	trawl_ring_close(w);
	trawl_ring_close(r);
}

/* A writer stopped inside an event: the reader delivers up to it and
 * waits; once it finishes everything arrives, nothing torn. */
Test(ring, a_reader_waits_for_a_writer_stopped_inside_an_event)
{
	trawl_ring *w = make(TRAWL_RING_OVERWRITE, 2);
	trawl_ring_type *t = trawl_ring_type_new(w, "e", u64_field, 1, NULL);
	trawl_ring *r = reader();
	uint64_t v;
	for (v = 0; v < 5; v++)
		trawl_ring_emit(t, &v, 8, NULL);
	/* reserve the 6th by hand as emit would, and stop before stampB */
	struct tw_ring_cpu *c = tw_ring_cpu(w, 0);
	uint64_t pos = c->woff;
	c->woff = pos + 32;
	unsigned char *rec = tw_ring_page(w, 0, 0) + pos;
	*(uint64_t *)rec = tw_ring_word_a(pos, 32, t->id);
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	uint64_t ts = (uint64_t)now.tv_sec * 1000000000u + now.tv_nsec;
	memcpy(rec + 8, &ts, 8);
	for (v = 6; v < 300; v++)
		trawl_ring_emit(t, &v, 8, NULL);
	struct got g = {0};
	trawl_ring_read(r, 0, TRAWL_RING_READ_PARTIAL, collect, &g);
	cr_expect_eq(g.n, 5, "up to the unfinished one");
	trawl_ring_stats st = stats(r);
	cr_expect_gt(st.lost_busy, 0, "the stuck sub-buffer is not reused");
	cr_expect_eq(st.torn, 0);
	/* finish it */
	memset(rec + 16, 0, 12);
	*(uint32_t *)(rec + 20) = tw_ring_stamp(pos);
	__atomic_fetch_add(&c->place[0].commit, TW_COMMIT_ONE(32),
			   __ATOMIC_RELEASE);
	trawl_ring_read(r, 0, TRAWL_RING_READ_PARTIAL, collect, &g);
	st = stats(r);
	cr_expect_eq(st.delivered + st.lost_busy + st.overwritten, 300,
		     "%lu %lu %lu", (unsigned long)st.delivered,
		     (unsigned long)st.lost_busy,
		     (unsigned long)st.overwritten);
	trawl_ring_close(w);
	trawl_ring_close(r);
}

Test(ring, a_damaged_header_is_refused_and_damaged_records_are_counted)
{
	trawl_ring *w = make(TRAWL_RING_DISCARD, 4);
	trawl_ring_type *t = trawl_ring_type_new(w, "e", u64_field, 1, NULL);
	for (uint64_t v = 0; v < 300; v++)
		trawl_ring_emit(t, &v, 8, NULL);
	/* a record in the finished first sub-buffer gets a wrong length */
	unsigned char *page = tw_ring_page(w, 0, 0);
	page[32 * 5 + 4] = 13;
	trawl_ring *r = reader();
	struct got g = {0};
	trawl_ring_read(r, 0, 0, collect, &g);
	trawl_ring_stats st = stats(r);
	cr_expect_eq(g.n, 5 + 128, "the rest of that sub-buffer is skipped");
	cr_expect_eq(st.damaged, 1);
	trawl_ring_close(r);
	w->hdr->subbufs = 3;
	trawl_error err = {0};
	cr_expect_null(trawl_ring_attach(name, &err));
	cr_expect_eq(err.code, TRAWL_EFORMAT);
	trawl_ring_close(w);
}

Test(ring, names_and_options_are_checked)
{
	trawl_ring_opts o = {.subbuf_size = 1000};
	cr_expect_null(trawl_ring_create("x", &o, NULL));
	o = (trawl_ring_opts){.subbufs = 3};
	cr_expect_null(trawl_ring_create("x", &o, NULL));
	cr_expect_null(trawl_ring_create("bad/name", NULL, NULL));
	cr_expect_null(trawl_ring_attach("no_such_channel_here", NULL));
	trawl_ring *w = make(TRAWL_RING_DISCARD, 4);
	cr_expect_null(trawl_ring_create(name, NULL, NULL), "exists");
	trawl_error err = {0};
	o = (trawl_ring_opts){.flags = TRAWL_RING_REPLACE};
	cr_expect_null(trawl_ring_create(name, &o, &err), "producer alive");
	cr_expect_eq(trawl_ring_read(w, 0, 0, collect, NULL), -TRAWL_EMISUSE);
	trawl_ring_close(w);
}

Test(ring, a_memfd_channel_is_read_through_its_descriptor)
{
	trawl_ring_opts o = {.flags = TRAWL_RING_MEMFD, .ncpus = 1};
	trawl_ring *w = trawl_ring_create("mem", &o, NULL);
	cr_assert_not_null(w);
	trawl_ring_instant(w, "x");
	trawl_error err = {0};
	trawl_ring *r = trawl_ring_attach_fd(trawl_ring_fd(w), &err);
	cr_assert_not_null(r, "%s", err.msg);
	cr_expect_eq(trawl_ring_producer_alive(r), 1);
	struct got g = {0};
	trawl_ring_read(r, 0, TRAWL_RING_READ_PARTIAL, collect, &g);
	cr_expect_eq(g.n, 1);
	cr_expect_str_eq(g.names[0], "x");
	trawl_ring_close(w);
	trawl_ring_close(r);
}
