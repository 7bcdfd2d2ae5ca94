/* SPDX-License-Identifier: MIT */
/*
 * The one time order: equal timestamps keep record order, ties across CPUs
 * too, and out-of-order input (reversed chunks, concatenated captures,
 * pipes, input larger than the sort memory) comes out sorted.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../helpers/helpers.h"

/* One ftrace line; ts in microseconds. */
static void put_line(FILE *f, int cpu, long long us, const char *name, int id)
{
	fprintf(f,
		"            task-%-7d [%03d] d..2. %5lld.%06lld: %s: id=%d\n",
		100 + cpu, cpu, us / 1000000, us % 1000000, name, id);
}

static char *text_of(void (*gen)(FILE *), size_t *len)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);
	gen(f);
	fclose(f);
	if (len)
		*len = n;
	return buf;
}

static void assert_time_order(const got *g)
{
	for (size_t i = 1; i < g->n; i++) {
		cr_assert(g->ev[i - 1].ts <= g->ev[i].ts,
			  "event %zu (ts %lld) before event %zu (ts %lld)",
			  i - 1, (long long)g->ev[i - 1].ts, i,
			  (long long)g->ev[i].ts);
		if (g->ev[i - 1].ts == g->ev[i].ts)
			cr_assert(g->ev[i - 1].seq < g->ev[i].seq,
				  "tie at ts %lld not in record order: seq "
				  "%llu then %llu",
				  (long long)g->ev[i].ts,
				  (unsigned long long)g->ev[i - 1].seq,
				  (unsigned long long)g->ev[i].seq);
	}
}

static void gen_ties(FILE *f)
{
	/* Five events at one timestamp on alternating CPUs. */
	for (int i = 0; i < 5; i++)
		put_line(f, i % 2, 1000000, "tie", i);
	put_line(f, 1, 1000001, "after", 5);
}

Test(order, equal_timestamps_keep_record_order)
{
	got g;
	char *text = text_of(gen_ties, NULL);
	cr_assert_eq(collect_text(text, NULL, &g), 0, "%s", g.err.msg);
	cr_assert_eq(g.n, 6);
	for (size_t i = 0; i < 6; i++) {
		cr_assert_eq(g.ev[i].seq, i);
		cr_assert_eq(g.ev[i].line, i + 1);
	}
	cr_assert_eq(g.ev[0].cpu, 0);
	cr_assert_eq(g.ev[1].cpu, 1);
	cr_assert_eq(g.stats.reordered, 0);
	got_free(&g);
	free(text);
}

static void gen_reversed_chunks(FILE *f)
{
	/* A second capture, earlier in time, appended after the first; each
	 * has ties across CPUs. */
	for (int i = 0; i < 4; i++)
		put_line(f, i % 2, 2000000 + i / 2, "late", i);
	for (int i = 0; i < 4; i++)
		put_line(f, i % 2, 1000000 + i / 2, "early", 4 + i);
}

Test(order, reversed_chunks_are_sorted_and_counted)
{
	got g;
	char *text = text_of(gen_reversed_chunks, NULL);
	cr_assert_eq(collect_text(text, NULL, &g), 0, "%s", g.err.msg);
	cr_assert_eq(g.n, 8);
	assert_time_order(&g);
	static const unsigned long long want_seq[] = {4, 5, 6, 7, 0, 1, 2, 3};
	for (size_t i = 0; i < 8; i++)
		cr_assert_eq(g.ev[i].seq, want_seq[i], "position %zu: seq %llu",
			     i, (unsigned long long)g.ev[i].seq);
	cr_assert_str_eq(g.ev[0].name, "early");
	cr_assert_eq(g.ev[0].line, 5);
	cr_assert_eq(g.stats.reordered, 4);
	cr_assert_eq(g.stats.spilled_runs, 0);
	got_free(&g);
	free(text);
}

static void gen_per_cpu_chunks(FILE *f)
{
	/* trace-cmd style extraction: all of CPU 0, then all of CPU 1, with
	 * equal timestamps between the CPUs. */
	for (int cpu = 0; cpu < 2; cpu++)
		for (int i = 0; i < 50; i++)
			put_line(f, cpu, 1000000 + i * 10, "ev", cpu * 50 + i);
}

Test(order, per_cpu_chunks_interleave_with_ties_by_record_order)
{
	got g;
	char *text = text_of(gen_per_cpu_chunks, NULL);
	cr_assert_eq(collect_text(text, NULL, &g), 0, "%s", g.err.msg);
	cr_assert_eq(g.n, 100);
	assert_time_order(&g);
	for (size_t i = 0; i < 100; i += 2) {
		/* At each time, CPU 0's event came first in the file. */
		cr_assert_eq(g.ev[i].cpu, 0);
		cr_assert_eq(g.ev[i + 1].cpu, 1);
		cr_assert_eq(g.ev[i].ts, g.ev[i + 1].ts);
	}
	cr_assert_eq(g.stats.reordered, 49);
	got_free(&g);
	free(text);
}

Test(order, pipe_input_is_sorted_too)
{
	got g;
	size_t len;
	char *text = text_of(gen_reversed_chunks, &len);
	cr_assert_eq(collect_pipe(text, len, NULL, &g), 0, "%s", g.err.msg);
	cr_assert_eq(g.n, 8);
	assert_time_order(&g);
	cr_assert_eq(g.ev[0].seq, 4);
	cr_assert_eq(g.stats.reordered, 4);
	got_free(&g);
	free(text);
}

Test(order, sorted_pipe_input_keeps_source_order)
{
	got g;
	size_t len;
	char *text = text_of(gen_ties, &len);
	cr_assert_eq(collect_pipe(text, len, NULL, &g), 0, "%s", g.err.msg);
	cr_assert_eq(g.n, 6);
	for (size_t i = 0; i < 6; i++)
		cr_assert_eq(g.ev[i].seq, i);
	got_free(&g);
	free(text);
}

#define BIG 100000

static void gen_shuffled(FILE *f)
{
	/* Timestamps in coarse buckets (many ties), in a scrambled order. */
	unsigned long long x = 88172645463325252ull;
	for (int i = 0; i < BIG; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		put_line(f, (int)(x % 4), 1000000 + (long long)(x % 5000),
			 "shuffled", i);
	}
}

static void check_shuffled(const got *g)
{
	cr_assert_eq(g->n, BIG);
	assert_time_order(g);
	char *seen = calloc(BIG, 1);
	for (size_t i = 0; i < g->n; i++) {
		cr_assert_lt(g->ev[i].seq, BIG);
		cr_assert_eq(seen[g->ev[i].seq], 0, "seq %llu twice",
			     (unsigned long long)g->ev[i].seq);
		seen[g->ev[i].seq] = 1;
		cr_assert_eq(g->ev[i].line, g->ev[i].seq + 1);
	}
	free(seen);
}

Test(order, input_larger_than_sort_memory_spills_and_stays_exact)
{
	size_t len;
	char *text = text_of(gen_shuffled, &len);
	cr_assert_gt(len, 4u << 20);
	trawl_open_opts o = {.sort_memory = 2u << 20};
	got g;
	char *path = tmp_file(text, len);
	cr_assert_eq(collect_path(path, &o, &g), 0, "%s", g.err.msg);
	cr_assert_gt(g.stats.spilled_runs, 1, "runs: %llu",
		     (unsigned long long)g.stats.spilled_runs);
	check_shuffled(&g);
	got_free(&g);

	/* The same through a pipe, and all in memory: the same order. */
	got p;
	cr_assert_eq(collect_pipe(text, len, &o, &p), 0, "%s", p.err.msg);
	check_shuffled(&p);
	got m;
	cr_assert_eq(collect_path(path, NULL, &m), 0, "%s", m.err.msg);
	cr_assert_eq(m.stats.spilled_runs, 0);
	check_shuffled(&m);
	for (size_t i = 0; i < BIG; i++) {
		cr_assert_eq(p.ev[i].seq, m.ev[i].seq);
	}
	got_free(&p);
	got_free(&m);
	unlink(path);
	free(path);
	free(text);
}

Test(order, source_order_flag_delivers_as_read)
{
	trawl_open_opts o = {.flags = TRAWL_OPEN_SOURCE_ORDER};
	got g;
	char *text = text_of(gen_reversed_chunks, NULL);
	cr_assert_eq(collect_text(text, &o, &g), 0);
	for (size_t i = 0; i < 8; i++)
		cr_assert_eq(g.ev[i].seq, i);
	cr_assert_eq(g.stats.reordered, 4);
	got_free(&g);
	free(text);
}

static int stop_at_third(const trawl_event *ev, void *ctx)
{
	(void)ev;
	int *n = ctx;
	return ++*n == 3 ? 42 : 0;
}

Test(order, callback_return_value_stops_the_run)
{
	char *text = text_of(gen_ties, NULL);
	char *path = tmp_file(text, strlen(text));
	trawl_trace *t = trawl_open(path, NULL, NULL);
	cr_assert_not_null(t);
	int n = 0;
	cr_assert_eq(trawl_on(t, "*", stop_at_third, &n), 0);
	cr_assert_eq(trawl_run(t, NULL), 42);
	cr_assert_eq(n, 3);
	cr_assert_eq(trawl_on(t, "*", stop_at_third, &n), -TRAWL_EMISUSE);
	trawl_error err;
	cr_assert_eq(trawl_run(t, &err), -TRAWL_EMISUSE);
	cr_assert(strstr(err.msg, "only once"), "%s", err.msg);
	trawl_close(t);
	unlink(path);
	free(path);
	free(text);
}

static int count_into(const trawl_event *ev, void *slot)
{
	(void)ev;
	++*(int *)slot;
	return 0;
}

Test(order, subscriptions_by_name_system_glob_and_alias)
{
	const char *text =
		"  a-1 [000] ..... 1.000001: sched_switch: prev_pid=1\n"
		"  a-1 [000] ..... 1.000002: irq_handler_entry: irq=3\n"
		"  a-1 [000] ..... 1.000003: irq_handler_exit: irq=3\n"
		"  a-1 [000] ..... 1.000004: tracing_mark_write: B|1|x\n"
		"  a-1 [000] ..... 1.000005: sched_wakeup: pid=2\n"
		"  a-1 [000] ..... 1.000006: made_up_event: x=1\n";
	char *path = tmp_file(text, strlen(text));
	trawl_trace *t = trawl_open(path, NULL, NULL);
	int n[5] = {0};
	cr_assert_eq(trawl_on(t, "irq:*", count_into, &n[0]), 0);
	cr_assert_eq(trawl_on(t, "sched_*", count_into, &n[1]), 0);
	cr_assert_eq(trawl_on(t, "sched:sched_switch", count_into, &n[2]), 0);
	cr_assert_eq(trawl_on(t, "tracing_mark_write", count_into, &n[3]), 0);
	cr_assert_eq(trawl_on(t, "*", count_into, &n[4]), 0);
	cr_assert_eq(trawl_on(t, "", count_into, &n[4]), -TRAWL_EINVAL);
	cr_assert_eq(trawl_on(t, "irq:", count_into, &n[4]), -TRAWL_EINVAL);
	cr_assert_eq(trawl_run(t, NULL), 0);
	cr_assert_eq(n[0], 2);
	cr_assert_eq(n[1], 2);
	cr_assert_eq(n[2], 1);
	cr_assert_eq(n[3], 1);
	cr_assert_eq(n[4], 6);
	trawl_close(t);
	unlink(path);
	free(path);
}

static void gen_local_disorder(FILE *f)
{
	/* Pairs swapped: each event is at most one place out of order. */
	for (int i = 0; i < 1000; i += 2) {
		put_line(f, 1, 1000000 + i + 1, "odd", i + 1);
		put_line(f, 0, 1000000 + i, "even", i);
	}
}

Test(order, a_streaming_window_orders_what_fits_and_counts_the_rest)
{
	size_t len;
	char *text = text_of(gen_local_disorder, &len);
	trawl_open_opts o = {.window = 4};
	got g;
	cr_assert_eq(collect_pipe(text, len, &o, &g), 0, "%s", g.err.msg);
	cr_assert_eq(g.n, 1000);
	assert_time_order(&g);
	cr_assert_eq(g.stats.reordered, 500);
	cr_assert_eq(g.stats.late_events, 0);
	got_free(&g);
	free(text);

	/* Reversed chunks need more than a window of 2: nothing is lost,
	 * the late ones are counted. */
	text = text_of(gen_reversed_chunks, &len);
	trawl_open_opts small = {.window = 2};
	cr_assert_eq(collect_pipe(text, len, &small, &g), 0, "%s", g.err.msg);
	cr_assert_eq(g.n, 8);
	cr_assert_gt(g.stats.late_events, 0);
	char seen[8] = {0};
	for (size_t i = 0; i < g.n; i++)
		seen[g.ev[i].seq] = 1;
	cr_assert(memchr(seen, 0, sizeof(seen)) == NULL, "an event was lost");
	got_free(&g);
	/* ...and a window as large as the disorder needs none. */
	trawl_open_opts big = {.window = 8};
	cr_assert_eq(collect_pipe(text, len, &big, &g), 0, "%s", g.err.msg);
	assert_time_order(&g);
	cr_assert_eq(g.stats.late_events, 0);
	got_free(&g);
	free(text);
}
