/* SPDX-License-Identifier: MIT */
/*
 * Ranged runs (TRAWL_OPEN_RANGE): on every fixture format (trace.dat v6,
 * v7 zstd, v7 uncompressed, instances; ftrace, trace-cmd report and
 * systrace text; gzip and HTML, which read from the start and skip), the
 * events a range delivers are exactly the same slice of a whole run, in
 * the same order, with seq counting from 0: ranges before the first event,
 * after the last, one timestamp that several events share, edges where one
 * CPU's data has ended and another's goes on, and ranges over the whole
 * trace; then damaged and cut files, which must not crash and either read
 * or say why.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../helpers/helpers.h"

struct ev {
	int64_t ts;
	uint64_t seq;
	int cpu, pid;
	uint64_t hash; /* of the name, comm, buffer and payload text */
};

struct run {
	struct ev *ev;
	size_t n, cap;
	int rc;
	trawl_error err;
};

static uint64_t fnv(uint64_t h, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 0x100000001b3ull;
	return h;
}

static int on_ev(const trawl_event *e, void *ctx)
{
	struct run *r = ctx;
	if (r->n == r->cap) {
		r->cap = r->cap ? r->cap * 2 : 256;
		r->ev = realloc(r->ev, r->cap * sizeof(*r->ev));
		cr_assert(r->ev);
	}
	size_t n;
	const char *p = trawl_event_payload(e, &n);
	const char *name = trawl_event_name(e), *comm = trawl_event_comm(e);
	const char *buf = trawl_event_buffer(e);
	uint64_t h = fnv(0xcbf29ce484222325ull, name, strlen(name));
	h = fnv(h, comm, strlen(comm));
	h = fnv(h, buf ? buf : "", buf ? strlen(buf) : 0);
	h = fnv(h, p ? p : "", p ? n : 0);
	r->ev[r->n++] = (struct ev){trawl_event_time(e), trawl_event_seq(e),
				    trawl_event_cpu(e), trawl_event_pid(e), h};
	return 0;
}

static void run(const char *path, int ranged, int64_t from, int64_t to,
		int threads, struct run *r)
{
	memset(r, 0, sizeof(*r));
	trawl_open_opts o = {.threads = threads, .formats = "none"};
	if (ranged) {
		o.flags = TRAWL_OPEN_RANGE;
		o.from = from;
		o.to = to;
	}
	trawl_trace *t = trawl_open(path, &o, &r->err);
	if (!t) {
		r->rc = -r->err.code;
		return;
	}
	cr_assert_eq(trawl_on(t, "*", on_ev, r), 0);
	r->rc = trawl_run(t, &r->err);
	trawl_close(t);
}

/* A ranged run of path equals the slice [from, to] of the whole run. */
static void check_slice(const char *name, const struct run *whole, int64_t from,
			int64_t to)
{
	const char *path = fixture(name);
	for (int threads = 1; threads <= 2; threads++) {
		struct run r;
		run(path, 1, from, to, threads, &r);
		cr_assert_eq(r.rc, 0, "%s [%lld, %lld]: %s", name,
			     (long long)from, (long long)to, r.err.msg);
		size_t k = 0;
		for (size_t i = 0; i < whole->n; i++) {
			const struct ev *w = &whole->ev[i];
			if (w->ts < from || w->ts > to)
				continue;
			cr_assert_lt(k, r.n,
				     "%s [%lld, %lld] threads %d: %zu events, "
				     "the whole run has more",
				     name, (long long)from, (long long)to,
				     threads, r.n);
			const struct ev *g = &r.ev[k];
			cr_assert(g->ts == w->ts && g->cpu == w->cpu &&
					  g->pid == w->pid &&
					  g->hash == w->hash,
				  "%s [%lld, %lld] threads %d: event %zu of "
				  "the range is (%lld cpu %d pid %d), the "
				  "whole run's (%lld cpu %d pid %d)",
				  name, (long long)from, (long long)to, threads,
				  k, (long long)g->ts, g->cpu, g->pid,
				  (long long)w->ts, w->cpu, w->pid);
			cr_assert_eq(g->seq, k, "%s: seq %llu at %zu", name,
				     (unsigned long long)g->seq, k);
			k++;
		}
		cr_assert_eq(k, r.n, "%s [%lld, %lld]: %zu events, not %zu",
			     name, (long long)from, (long long)to, r.n, k);
		free(r.ev);
	}
}

/* A timestamp two events share, or INT64_MIN. */
static int64_t shared_time(const struct run *w)
{
	for (size_t i = 1; i < w->n; i++)
		if (w->ev[i].ts == w->ev[i - 1].ts)
			return w->ev[i].ts;
	return INT64_MIN;
}

static void check_fixture(const char *name)
{
	struct run whole;
	run(fixture(name), 0, 0, 0, 2, &whole);
	cr_assert_eq(whole.rc, 0, "%s: %s", name, whole.err.msg);
	cr_assert_gt(whole.n, 10, "%s: %zu events", name, whole.n);
	int64_t first = whole.ev[0].ts, last = whole.ev[whole.n - 1].ts;
	/* the whole, before the first event, after the last */
	check_slice(name, &whole, INT64_MIN, INT64_MAX);
	check_slice(name, &whole, first - 1000000000, first - 1);
	check_slice(name, &whole, first - 1000000000, first);
	check_slice(name, &whole, last, last + 1000000000);
	check_slice(name, &whole, last + 1, INT64_MAX);
	/* one instant: every event of a shared timestamp, and around it */
	int64_t s = shared_time(&whole);
	if (s != INT64_MIN) {
		check_slice(name, &whole, s, s);
		check_slice(name, &whole, s, last);
		check_slice(name, &whole, first, s);
		check_slice(name, &whole, s + 1, last);
	}
	/* where the CPU whose data ends first has ended */
	int64_t end[64];
	int ncpu = 0;
	for (size_t i = 0; i < whole.n; i++) {
		int c = whole.ev[i].cpu;
		if (c >= 0 && c < 64) {
			while (ncpu <= c)
				end[ncpu++] = INT64_MIN;
			end[c] = whole.ev[i].ts;
		}
	}
	int64_t early = INT64_MAX;
	for (int c = 0; c < ncpu; c++)
		if (end[c] != INT64_MIN && end[c] < early)
			early = end[c];
	if (early != INT64_MAX) {
		check_slice(name, &whole, early, last);
		check_slice(name, &whole, early + 1, last);
		check_slice(name, &whole, first, early);
	}
	/* slices at the times of events spread over the trace */
	for (int k = 1; k < 12; k++) {
		int64_t a = whole.ev[whole.n * (size_t)k / 12].ts;
		int64_t b = whole.ev[whole.n * (size_t)(k + 1) / 13].ts;
		check_slice(name, &whole, a, a + (last - first) / 50);
		check_slice(name, &whole, a + 1, a + 1);
		if (b >= a)
			check_slice(name, &whole, a, b);
	}
	free(whole.ev);
}

Test(range, trace_dat_v7_zstd_equals_the_slice_of_a_whole_run)
{
	check_fixture("tc.dat");
	check_fixture("same-recording.dat");
	check_fixture("pair-broad.dat");
}

Test(range, trace_dat_v6_and_uncompressed_v7_equal_the_slice)
{
	check_fixture("tc-v6.dat");
	check_fixture("tc-v7-nocomp.dat");
}

Test(range, trace_dat_instances_equal_the_slice)
{
	check_fixture("tc-instance.dat");
}

Test(range, text_traces_equal_the_slice)
{
	check_fixture("ftrace-irqinfo.txt");
	check_fixture("ftrace-noirqinfo.txt");
	check_fixture("ftrace-tgid.txt");
	check_fixture("trace-pipe.txt");
	check_fixture("same-recording.txt");
	check_fixture("pair-broad.txt");
	check_fixture("tcreport.txt");
	check_fixture("systrace.txt");
}

Test(range, inputs_that_cannot_seek_read_from_the_start_and_skip)
{
	check_fixture("ftrace-irqinfo.txt.gz");
	check_fixture("ftrace-irqinfo.txt.zst");
	check_fixture("systrace.html");
}

Test(range, an_empty_range_delivers_nothing)
{
	struct run r;
	run(fixture("tc.dat"), 1, 10, 9, 2, &r);
	cr_assert_eq(r.rc, 0);
	cr_assert_eq(r.n, 0);
	free(r.ev);
}

Test(range, out_of_order_text_is_sorted_within_the_range)
{
	/* a line 3 us early: inside the margin, so the range still has it */
	const char *text = "  a-1 [000] .... 100.000001: sched_waking: pid=2\n"
			   "  a-1 [000] .... 100.000005: sched_waking: pid=3\n"
			   "  a-1 [001] .... 100.000002: sched_waking: pid=4\n"
			   "  a-1 [000] .... 100.000007: sched_waking: pid=5\n"
			   "  a-1 [001] .... 100.000006: sched_waking: pid=6\n";
	char *path = tmp_file(text, strlen(text));
	struct run whole, r;
	run(path, 0, 0, 0, 2, &whole);
	cr_assert_eq(whole.rc, 0, "%s", whole.err.msg);
	cr_assert_eq(whole.n, 5);
	run(path, 1, 100000002000, 100000006000, 2, &r);
	cr_assert_eq(r.rc, 0, "%s", r.err.msg);
	cr_assert_eq(r.n, 3);
	/* seq: the record number within the range, as a whole run of
	 * unsorted input numbers records in the file */
	int64_t want[] = {100000002000, 100000005000, 100000006000};
	uint64_t seq[] = {1, 0, 2};
	for (int i = 0; i < 3; i++) {
		cr_assert_eq(r.ev[i].ts, want[i]);
		cr_assert_eq(r.ev[i].seq, seq[i]);
	}
	free(whole.ev);
	free(r.ev);
	unlink(path);
	free(path);
}

static char *slurp(const char *path, size_t *len)
{
	char *p = read_whole(path, len);
	cr_assert(p, "cannot read %s", path);
	return p;
}

/* Cut at many points and damaged in many places: a ranged run reads or
 * fails with a message, never crashes, and delivers only its range. */
static void damage_sweep(const char *name)
{
	size_t size;
	char *data = slurp(fixture(name), &size);
	struct run whole;
	run(fixture(name), 0, 0, 0, 2, &whole);
	cr_assert_eq(whole.rc, 0);
	int64_t mid = whole.ev[whole.n / 2].ts, last = whole.ev[whole.n - 1].ts;
	for (int k = 1; k < 48; k++) {
		size_t len = size * (size_t)k / 48;
		char *copy = malloc(size);
		memcpy(copy, data, size);
		/* damage: a run of bytes overwritten in the second half */
		size_t at = size / 2 + (size / 2) * (size_t)k / 48;
		for (size_t i = at; i < at + 64 && i < size; i++)
			copy[i] = (char)(i * 7 + (size_t)k);
		for (int cut = 0; cut < 2; cut++) {
			char *path = cut ? tmp_file(data, len)
					 : tmp_file(copy, size);
			struct run r;
			run(path, 1, mid, last, 2, &r);
			if (r.rc)
				cr_assert(r.err.msg[0],
					  "%s: an error without a "
					  "message",
					  name);
			for (size_t i = 0; i < r.n; i++)
				cr_assert(
					r.ev[i].ts >= mid && r.ev[i].ts <= last,
					"%s: an event outside the range", name);
			free(r.ev);
			unlink(path);
			free(path);
		}
		free(copy);
	}
	free(whole.ev);
	free(data);
}

Test(range, damaged_and_cut_trace_dat_files_read_or_say_why)
{
	damage_sweep("tc.dat");
	damage_sweep("tc-v6.dat");
	damage_sweep("tc-v7-nocomp.dat");
}

Test(range, damaged_and_cut_text_reads_or_says_why)
{
	damage_sweep("ftrace-irqinfo.txt");
}
