/* SPDX-License-Identifier: MIT */
/*
 * The text line forms: irq-info flags of 4 and 5 characters or none, the
 * record-tgid column, 6 and 9 decimals, hard comms, lost-event lines, header
 * comments; and bad input: counted with line numbers, or an error with
 * --strict; never a crash.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../helpers/helpers.h"

Test(ftrace, header_columns_of_every_form)
{
	const char *text =
		"# tracer: nop\n"
		"#\n"
		"# entries-in-buffer/entries-written: 7/10   #P:2\n"
		"#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION\n"
		"          <idle>-0       [000] d.h1.  2410.935233: a: x=1\n"
		" kworker/u4:2-events_unbound-77 [001] dN.2  2410.935234: b: "
		"x=1\n"
		" memfd:sealed-91-1541    (  1541) [001] ...1. 2410.935235123: "
		"c: x=1\n"
		"   Binder:543_2-612      (-------) [000] Dp.f. 2410.935236: "
		"d: x=1\n"
		"  Chrome_IOThread-3301  [003] 2410.935237: e: x=1\n"
		"      Web Content-2801   [002] .Ns3.  2410.935238: f: x=1\n"
		"   [kthread] 1-12  [002] b.Z.. 2410.935239: g: x=1\n"
		"##### CPU 1 buffer started ####\n"
		"CPU:1 [LOST 33 EVENTS]\n"
		"  a-1 [001] ..... 2410.935240: h: x=1\r\n";
	got g;
	cr_assert_eq(collect_text(text, NULL, &g), 0, "%s", g.err.msg);
	cr_assert_eq(g.format, TRAWL_FORMAT_FTRACE);
	cr_assert_eq(g.n, 8, "events: %zu, bad lines %llu (first %llu)", g.n,
		     (unsigned long long)g.stats.bad_lines,
		     (unsigned long long)g.stats.bad_line[0]);
	cr_assert_eq(g.stats.bad_lines, 0);

	cr_assert_str_eq(g.ev[0].comm, "<idle>");
	cr_assert_eq(g.ev[0].pid, 0);
	cr_assert_eq(g.ev[0].ts, 2410935233000LL);
	cr_assert_eq(g.ev[0].flags, TRAWL_FLAG_KNOWN | TRAWL_FLAG_IRQS_OFF |
					    TRAWL_FLAG_HARDIRQ);
	cr_assert_eq(g.ev[0].preempt, 1);
	cr_assert_eq(g.ev[0].tgid, -1);

	cr_assert_str_eq(g.ev[1].comm, "kworker/u4:2-events_unbound");
	cr_assert_eq(g.ev[1].pid, 77);
	cr_assert_eq(g.ev[1].cpu, 1);
	cr_assert(g.ev[1].flags & TRAWL_FLAG_NEED_RESCHED);
	cr_assert_eq(g.ev[1].preempt, 2);

	cr_assert_str_eq(g.ev[2].comm, "memfd:sealed-91");
	cr_assert_eq(g.ev[2].pid, 1541);
	cr_assert_eq(g.ev[2].tgid, 1541);
	cr_assert_eq(g.ev[2].ts, 2410935235123LL, "9 decimals kept");

	cr_assert_str_eq(g.ev[3].comm, "Binder:543_2");
	cr_assert_eq(g.ev[3].tgid, -1);
	cr_assert_eq(g.ev[3].preempt, 15);
	cr_assert(g.ev[3].flags & TRAWL_FLAG_BH_OFF);
	cr_assert(g.ev[3].flags & TRAWL_FLAG_PREEMPT_RESCHED);

	cr_assert_str_eq(g.ev[4].comm, "Chrome_IOThread");
	cr_assert_eq(g.ev[4].cpu, 3);
	cr_assert_eq(g.ev[4].flags, 0, "no irq-info column");
	cr_assert_eq(g.ev[4].preempt, -1);

	cr_assert_str_eq(g.ev[5].comm, "Web Content");
	cr_assert(g.ev[5].flags & TRAWL_FLAG_SOFTIRQ);
	cr_assert_str_eq(g.ev[6].comm, "[kthread] 1");
	cr_assert(g.ev[6].flags & TRAWL_FLAG_NMI);
	cr_assert_str_eq(g.ev[7].name, "h");
	cr_assert_eq(g.ev[7].line, 14);

	cr_assert_eq(g.stats.lost_events, 33);
	cr_assert_eq(g.stats.overwritten, 3);
	got_free(&g);
}

Test(ftrace, lost_events_are_counted_per_cpu)
{
	const char *text = "  a-1 [000] ..... 1.000001: a: x=1\n"
			   "CPU:0 [LOST 5 EVENTS]\n"
			   "  a-1 [000] ..... 1.000002: a: x=1\n"
			   "CPU:3 [LOST 7 EVENTS]\n"
			   "CPU:0 [LOST 1 EVENTS]\n"
			   "CPU:3 [100 EVENTS DROPPED]\n" /* trace-cmd */
			   "CPU:99999 [LOST 1 EVENTS]\n"; /* bad cpu */
	char *path = tmp_file(text, strlen(text));
	trawl_trace *t = trawl_open(path, NULL, NULL);
	cr_assert_eq(trawl_run(t, NULL), 0);
	cr_assert_eq(trawl_trace_stats(t)->lost_events, 113);
	cr_assert_eq(trawl_trace_stats(t)->bad_lines, 1);
	cr_assert_eq(trawl_cpu_lost(t, 0), 6);
	cr_assert_eq(trawl_cpu_lost(t, 3), 107);
	cr_assert_eq(trawl_cpu_count(t), 4);
	cr_assert_eq(trawl_cpu_events(t, 0), 2);
	trawl_close(t);
	unlink(path);
	free(path);
}

Test(ftrace, bad_lines_are_counted_with_line_numbers)
{
	const char *text = "  a-1 [000] ..... 1.000001: a: x=1\n"
			   "garbage here\n"
			   "  a-1 [000] ..... 1.0000\n" /* cut in the ts */
			   "  a-1 [000] ..... 1.000003: a: x=1\n"
			   "  a-1 [000] .x... 1.000004: a: x=1\n" /* flags */
			   "  a-1 [000] ..... 1.000005 a\n"
			   "  a-1 [000] ..... 1.000006: a: x=1"; /* no \n */
	got g;
	cr_assert_eq(collect_text(text, NULL, &g), 0);
	cr_assert_eq(g.n, 3);
	cr_assert_eq(g.stats.bad_lines, 4);
	cr_assert_eq(g.stats.bad_line[0], 2);
	cr_assert_eq(g.stats.bad_line[1], 3);
	cr_assert_eq(g.stats.bad_line[2], 5);
	cr_assert_eq(g.stats.bad_line[3], 6);
	cr_assert_eq(g.ev[2].line, 7);
	got_free(&g);
}

Test(ftrace, strict_mode_names_file_line_and_column)
{
	const char *text = "  a-1 [000] ..... 1.000001: a: x=1\n"
			   "  a-1 [000] ..... 1.00x001: a: x=1\n";
	trawl_open_opts o = {.flags = TRAWL_OPEN_STRICT};
	got g;
	cr_assert_eq(collect_text(text, &o, &g), -TRAWL_EPARSE);
	cr_assert_eq(g.err.line, 2);
	cr_assert_eq(g.err.column, 19);
	cr_assert(strstr(g.err.msg, ":2:19: cannot parse line"), "%s",
		  g.err.msg);
	cr_assert(strstr(g.err.msg, "timestamp"), "%s", g.err.msg);
	got_free(&g);
}

Test(ftrace, nul_bytes_invalid_utf8_and_huge_lines)
{
	size_t big = 10u << 20;
	const char head[] = "  a-1 [000] ..... 1.000001: a: x=1\n";
	const char comm[] = "  \xff\xfe\x80-2 [001] ..... 1.000002: a: x=1\n";
	const char nul[] = "  a\0b-3 [001] ..... 1.000003: a: x=1\n";
	const char tail[] = "  a-4 [000] ..... 1.000004: a: x=1\n";
	size_t n = sizeof(head) - 1 + sizeof(comm) - 1 + sizeof(nul) - 1 + big +
		   1 + sizeof(tail) - 1;
	char *buf = malloc(n), *p = buf;
	memcpy(p, head, sizeof(head) - 1);
	p += sizeof(head) - 1;
	memcpy(p, comm, sizeof(comm) - 1);
	p += sizeof(comm) - 1;
	memcpy(p, nul, sizeof(nul) - 1);
	p += sizeof(nul) - 1;
	memset(p, 'x', big);
	p += big;
	*p++ = '\n';
	memcpy(p, tail, sizeof(tail) - 1);
	char *path = tmp_file(buf, n);
	got g, q;
	cr_assert_eq(collect_path(path, NULL, &g), 0, "%s", g.err.msg);
	cr_assert_eq(g.n, 4);
	cr_assert_eq(g.stats.bad_lines, 1);
	cr_assert_eq(g.stats.bad_line[0], 4);
	cr_assert_str_eq(g.ev[1].comm, "\xff\xfe\x80");
	cr_assert_eq(g.ev[2].pid, 3);
	cr_assert_eq(g.ev[3].line, 5);
	/* Streamed (pipe) input: the same answer, bounded memory. */
	cr_assert_eq(collect_pipe(buf, n, NULL, &q), 0, "%s", q.err.msg);
	cr_assert_eq(q.n, 4);
	cr_assert_eq(q.stats.bad_lines, 1);
	cr_assert_eq(q.stats.bad_line[0], 4);
	cr_assert_eq(q.ev[3].line, 5);
	got_free(&g);
	got_free(&q);
	unlink(path);
	free(path);
	free(buf);
}

Test(ftrace, empty_and_blank_inputs_have_no_events)
{
	got g;
	cr_assert_eq(collect_text("", NULL, &g), 0);
	cr_assert_eq(g.n, 0);
	got_free(&g);
	cr_assert_eq(collect_text("\n\n   \n", NULL, &g), 0);
	cr_assert_eq(g.n, 0);
	cr_assert_eq(g.stats.bad_lines, 0);
	got_free(&g);
}

Test(ftrace, binary_garbage_is_refused_with_a_clear_error)
{
	unsigned char junk[4096];
	unsigned x = 12345;
	for (size_t i = 0; i < sizeof(junk); i++) {
		x = x * 1103515245 + 12345;
		junk[i] = (unsigned char)(x >> 16);
	}
	char *path = tmp_file(junk, sizeof(junk));
	got g;
	cr_assert_eq(collect_path(path, NULL, &g), -TRAWL_EFORMAT);
	cr_assert(strstr(g.err.msg, "binary"), "%s", g.err.msg);
	cr_assert(strstr(g.err.msg, path), "%s", g.err.msg);
	got_free(&g);
	unlink(path);
	free(path);
}

/* A text that is not a trace is refused, naming a line that is neither an
 * event nor a comment; one that quotes a few event lines too (the fixtures'
 * README does); comments alone are an empty trace, and a trace's damage
 * (tests above: 4 bad lines to 2 events) is counted, not refused. */
Test(ftrace, a_text_that_is_not_a_trace_is_refused)
{
	const char *notes = "Notes on the capture\n"
			    "\n"
			    "We ran the workload twice.\n";
	got g;
	cr_assert_eq(collect_text(notes, NULL, &g), -TRAWL_EFORMAT);
	cr_assert(strstr(g.err.msg, "not a trace"), "%s", g.err.msg);
	cr_assert(strstr(g.err.msg, "line 1: \"Notes on the capture\""), "%s",
		  g.err.msg);
	got_free(&g);

	char quoting[4096] = "# A README\n\n";
	for (int i = 0; i < 12; i++)
		strcat(quoting, "some prose about the trace, not an event\n");
	strcat(quoting, "  a-1 [000] ..... 1.000001: a: x=1\n");
	for (int i = 0; i < 12; i++)
		strcat(quoting, "more prose\n");
	cr_assert_eq(collect_text(quoting, NULL, &g), -TRAWL_EFORMAT);
	cr_assert(strstr(g.err.msg, "1 are events and 24 neither"), "%s",
		  g.err.msg);
	cr_assert(strstr(g.err.msg, "(line 3: "), "%s", g.err.msg);
	got_free(&g);

	cr_assert_eq(collect_text("# tracer: nop\n#\n", NULL, &g), 0);
	cr_assert_eq(g.n, 0);
	got_free(&g);
}

Test(ftrace, truncated_trace_dat_is_named_not_misread_as_text)
{
	const char dat[] = "\x17\x08\x44tracing6\0\0\0\0\0\0\0";
	char *path = tmp_file(dat, sizeof(dat));
	got g;
	cr_assert_eq(collect_path(path, NULL, &g), -TRAWL_EFORMAT);
	cr_assert(strstr(g.err.msg, "trace.dat"), "%s", g.err.msg);
	got_free(&g);
	unlink(path);
	free(path);
}

Test(ftrace, missing_file_is_an_error_naming_it)
{
	got g;
	cr_assert_lt(collect_path("/nonexistent/trace.txt", NULL, &g), 0);
	cr_assert(strstr(g.err.msg, "/nonexistent/trace.txt"), "%s", g.err.msg);
	got_free(&g);
}

Test(ftrace, trace_cmd_report_latency_form)
{
	const char *text =
		"cpus=2\n"
		"      sh-2297    0d..3.  2519.964000: sched_waking:   "
		"comm=migration/0 pid=18 prio=0 target_cpu=000\n"
		"  kworker/u4:2-99    1dNh4.  2519.964003123: sched_wakeup: "
		"migration/0:18 [0] CPU:000\n";
	got g;
	cr_assert_eq(collect_text(text, NULL, &g), 0);
	cr_assert_eq(g.format, TRAWL_FORMAT_TRACE_CMD_REPORT);
	cr_assert_eq(g.n, 2);
	cr_assert_str_eq(g.ev[0].comm, "sh");
	cr_assert_eq(g.ev[0].cpu, 0);
	cr_assert_eq(g.ev[0].preempt, 3);
	cr_assert_str_eq(g.ev[1].comm, "kworker/u4:2");
	cr_assert_eq(g.ev[1].cpu, 1);
	cr_assert_eq(g.ev[1].ts, 2519964003123LL);
	cr_assert(g.ev[1].flags & TRAWL_FLAG_HARDIRQ);
	got_free(&g);
}

Test(ftrace, systrace_html_takes_only_the_ftrace_block)
{
	const char *text =
		"<!DOCTYPE html>\n<html>\n<head></head><body>\n"
		"<script class=\"trace-data\" type=\"application/text\">\n"
		"{\"traceEvents\": [], \"x\": \"  a-1 [000] ..... 1.0: no: "
		"x\"}\n"
		"</script>\n"
		"<!-- BEGIN TRACE -->\n"
		"  <script class=\"trace-data\" type=\"application/text\">\n"
		"TRACE:\n# tracer: nop\n#\n"
		"  surfaceflinger-540 (  540) [001] ...1 1.000001: "
		"tracing_mark_write: B|540|draw\n"
		"  surfaceflinger-540 (  540) [001] ...1 1.000002: "
		"tracing_mark_write: E|540\n"
		"  </script>\n<!-- END TRACE -->\n"
		"<script>var x = \"  a-1 [000] ..... 1.0: no: x\";</script>\n"
		"</body></html>\n";
	got g;
	cr_assert_eq(collect_text(text, NULL, &g), 0, "%s", g.err.msg);
	cr_assert_eq(g.format, TRAWL_FORMAT_SYSTRACE_HTML);
	cr_assert_eq(g.n, 2);
	cr_assert_eq(g.stats.bad_lines, 0);
	cr_assert_str_eq(g.ev[0].name, "print");
	cr_assert_eq(g.ev[0].tgid, 540);
	cr_assert_eq(g.ev[0].line, 12);
	got_free(&g);
}

static void same_run(const got *a, const got *b)
{
	cr_assert_eq(a->n, b->n, "%zu vs %zu events", a->n, b->n);
	for (size_t i = 0; i < a->n; i++) {
		cr_assert_eq(a->ev[i].seq, b->ev[i].seq);
		cr_assert_eq(a->ev[i].line, b->ev[i].line, "event %zu", i);
		cr_assert_eq(a->ev[i].ts, b->ev[i].ts);
	}
	cr_assert_eq(a->stats.bad_lines, b->stats.bad_lines);
	for (int i = 0; i < TRAWL_BAD_LINES_KEPT; i++)
		cr_assert_eq(a->stats.bad_line[i], b->stats.bad_line[i]);
	cr_assert_eq(a->stats.lost_events, b->stats.lost_events);
}

Test(ftrace, parsing_threads_change_nothing)
{
	/* Short lines (more per batch than a batch holds), a line longer
	 * than the limit spanning batches, lost-event lines, no final
	 * newline: one thread and several must agree line for line. */
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	for (int i = 0; i < 300000; i++) {
		if (i % 7 == 3)
			fputs("x\n", f);
		else if (i % 1000 == 999)
			fprintf(f, "CPU:%d [LOST %d EVENTS]\n", i % 4, i);
		else
			fprintf(f, "  a-%d [%03d] ..... %d.%06d: e%d: v=%d\n",
				i % 50, i % 4, 1 + i / 1000000, i % 1000000,
				i % 5, i);
		if (i == 150000) {
			for (int k = 0; k < (3 << 20) / 64; k++)
				fputs("0123456789abcdef0123456789abcdef"
				      "0123456789abcdef0123456789abcdef",
				      f);
			fputc('\n', f);
		}
	}
	fputs("  a-1 [000] ..... 9.000000: last: v=1", f);
	fclose(f);
	char *path = tmp_file(buf, len);
	got one, two, four;
	trawl_open_opts o1 = {.threads = 1}, o2 = {.threads = 2},
			o4 = {.threads = 4};
	cr_assert_eq(collect_path(path, &o1, &one), 0, "%s", one.err.msg);
	cr_assert_eq(collect_path(path, &o2, &two), 0, "%s", two.err.msg);
	cr_assert_eq(collect_path(path, &o4, &four), 0, "%s", four.err.msg);
	cr_assert_gt(one.n, 250000);
	cr_assert_gt(one.stats.bad_lines, 40000);
	cr_assert_eq(one.stats.bad_line[0], 4);
	same_run(&one, &two);
	same_run(&one, &four);
	/* Races between workers show up as hangs or differences only now
	 * and then: a few more rounds. */
	for (int round = 0; round < 3; round++) {
		got again;
		trawl_open_opts o = {.threads = 2 + round};
		cr_assert_eq(collect_path(path, &o, &again), 0);
		same_run(&one, &again);
		got_free(&again);
	}
	cr_assert_str_eq(one.ev[one.n - 1].name, "last");
	cr_assert_eq(one.ev[one.n - 1].line, 300002);
	got_free(&one);
	got_free(&two);
	got_free(&four);
	unlink(path);
	free(path);
	free(buf);
}

Test(ftrace, counter_clock_integers_and_extra_decimals)
{
	const char *text = "  a-1 [000] ..... 123456789012345: x: v=1\n"
			   "  a-1 [000] ..... 123456789012346: x: v=2\n"
			   "  a-1 [000] ..... 1.1234567891: x: v=3\n"
			   "  a-1 [000] ..... 99999999999.000001: x: v=4\n";
	got g;
	cr_assert_eq(collect_text(text, NULL, &g), 0);
	cr_assert_eq(g.n, 3, "events %zu", g.n);
	cr_assert_eq(g.stats.bad_lines, 1, "seconds that overflow ns");
	cr_assert_eq(g.ev[0].ts, 1123456789LL, "digits below 1 ns dropped");
	cr_assert_eq(g.ev[1].ts, 123456789012345LL);
	cr_assert_eq(g.ev[2].ts, 123456789012346LL);
	got_free(&g);
}

Test(ftrace, crlf_lines_read_alike_on_every_path)
{
	/* One '\r' of a CRLF ending goes, a second is payload; the pre-scan
	 * must see "e:" lines as events too, or they would come out of
	 * order. */
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	for (int i = 0; i < 60000; i++)
		fprintf(f, "  a-1 [000] ..... %d.%06d: e: x=%d\r\n",
			5 + i / 1000000, i % 1000000, i);
	fputs("  a-1 [000] ..... 1.000000: e:\r\n", f);
	fputs("  a-1 [000] ..... 9.000000: e: x=1\r\r\n", f);
	fclose(f);
	char *path = tmp_file(buf, len);
	got one, two, pipe;
	trawl_open_opts o1 = {.threads = 1}, o2 = {.threads = 2};
	cr_assert_eq(collect_path(path, &o1, &one), 0);
	cr_assert_eq(collect_path(path, &o2, &two), 0);
	cr_assert_eq(collect_pipe(buf, len, NULL, &pipe), 0);
	cr_assert_eq(one.n, 60002);
	cr_assert_eq(one.ev[0].ts, 1000000000LL, "the late line came first");
	cr_assert_eq(one.stats.reordered, 1);
	same_run(&one, &two);
	same_run(&one, &pipe);
	got_free(&one);
	got_free(&two);
	got_free(&pipe);
	unlink(path);
	free(path);
	free(buf);
}

Test(ftrace, over_long_last_line_without_newline_is_one_bad_line)
{
	size_t big = 1500000;
	const char head[] = "  a-1 [000] ..... 1.000000: e: x=1\n";
	const char tail[] = " a-1 [000] 2.000000: phantom: y=2";
	size_t n = sizeof(head) - 1 + big + sizeof(tail) - 1;
	char *buf = malloc(n);
	memcpy(buf, head, sizeof(head) - 1);
	memset(buf + sizeof(head) - 1, 'x', big);
	memcpy(buf + sizeof(head) - 1 + big, tail, sizeof(tail) - 1);
	got m, p;
	char *path = tmp_file(buf, n);
	cr_assert_eq(collect_path(path, NULL, &m), 0);
	cr_assert_eq(collect_pipe(buf, n, NULL, &p), 0);
	cr_assert_eq(m.n, 1);
	cr_assert_eq(m.stats.bad_lines, 1);
	cr_assert_eq(m.stats.lines, 2);
	same_run(&m, &p);
	cr_assert_eq(p.stats.lines, 2);
	got_free(&m);
	got_free(&p);
	unlink(path);
	free(path);
	free(buf);
}

Test(ftrace, a_new_event_name_on_every_line_is_bounded)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	for (int i = 0; i < 70000; i++)
		fprintf(f, "  a-1 [000] ..... 1.%06d: ev%d: x=1\n", i, i);
	fclose(f);
	char *path = tmp_file(buf, len);
	got g;
	cr_assert_eq(collect_path(path, NULL, &g), 0, "%s", g.err.msg);
	cr_assert_eq(g.n, 65536);
	cr_assert_eq(g.stats.bad_lines, 70000 - 65536);
	cr_assert_eq(g.stats.bad_line[0], 65537);
	got_free(&g);
	unlink(path);
	free(path);
	free(buf);
}

/*
 * Lines of 64 bytes and more go through the fast path for the kernel's
 * layout first; each of these makes it give up at a different step, and
 * the generic parser must then read them as it always did.
 */
Test(ftrace, lines_the_fast_path_declines_read_as_before)
{
	const char *text =
		/* the first '[' is in the comm, not the cpu column */
		"   foo[1] bar-123     [002] d..2.  2410.000001: ev: a=1 "
		"b=2 c=3\n"
		/* a '[' that looks like a cpu column but has no -pid before */
		"  a [1] 5.000000: x-12 [000] d..2.  2410.000002: ev: pad=1 "
		"more=2\n"
		/* tabs for padding */
		"\tbash-2223\t[002] d..2.\t2410.000004: ev: comm=a pid=1 "
		"prio=2 target_cpu=002\n"
		/* nanoseconds */
		"            bash-2223    [002] d..2.  2410.000005123: ev: "
		"x=1 y=2\n"
		/* a 4-digit cpu */
		"            bash-2223    [1000] d..2.  2410.000006: ev: "
		"x=1 y=2 z=3\n"
		/* the tgid column */
		"  Binder:543_2-612     (  543) [001] ...1.  2410.000007: ev: "
		"x=1\n"
		/* no irq-info column */
		"  Chrome_IOThread-3301  [003]   2410.000008: ev: x=1 y=2 z=3 "
		"w=4\n"
		/* 10 digits of seconds */
		"            bash-2223    [002] d..2.  1234567890.000003: ev: "
		"x=1\n"
		/* bad flags */
		"            bash-2223    [002] q..2.  2410.000009: ev: x=1 "
		"y=2 z=3\n"
		/* an 8-digit pid: the fast path reads up to 7 */
		"        bash-12345678    [002] d..2.  1234567891.000010: ev: "
		"x=1 "
		"y=2 z=3\n"
		/* a pid above INT32_MAX */
		"      bash-2147483648    [002] d..2.  1234567891.000011: ev: "
		"x=1 "
		"y=2 z=3\n"
		/* comm-pid ends before byte 16 */
		"a-1 [000] d..2. 1234567891.000012: ev: x=1 y=2 z=3 w=4 v=5 "
		"u=6 "
		"t=7 s=8\n"
		/* a comm of digits */
		"            1234-5678    [000] d..2.  1234567891.000013: ev: "
		"x=1 "
		"y=2 z=3\n"
		/* no dash before the pid */
		"            bash 2223    [002] d..2.  1234567891.000014: ev: "
		"x=1 y=2 z=3\n"
		/* the kernel's columns, with a '[' in the comm */
		"       foo[1]bar-123     [002] d..2.  1234567891.000015: ev: "
		"x=1 y=2 z=3\n"
		/* the kernel's columns, a tab in the padding */
		"            bash-2223 \t  [002] d..2.  1234567891.000016: ev: "
		"x=1 y=2 z=3\n"
		/* the kernel's columns, flags that end in ':' */
		"            bash-2223    [002] d..2:  1234567891.000017: ev: "
		"x=1 y=2 z=3\n"
		/* the kernel's columns, the timestamp past column 48 */
		"            bash-2223    [002] d..2.               "
		"1234567891.000018: ev: x=1 y=2 z=3\n"
		/* the kernel's columns in a comment */
		"#           bash-2223    [002] d..2.  1234567891.000019: ev: "
		"x=1 y=2 z=3\n"
		/* the kernel's columns with record-tgid: no tgid */
		"            bash-2223    (-------) [002] d..2.  "
		"1234567891.000020: ev: x=1 y=2 z=3\n"
		/* ... a tgid */
		"            bash-2223    (  15847) [002] d..2.  "
		"1234567891.000021: ev: x=1 y=2 z=3\n"
		/* ... dashes after blanks, which the kernel does not print */
		"            bash-2223    (  -----) [002] d..2.  "
		"1234567891.000022: ev: x=1 y=2 z=3\n"
		/* ... a tgid that is not a number */
		"            bash-2223    (   12a4) [002] d..2.  "
		"1234567891.000023: ev: x=1 y=2 z=3\n"
		/* ... blanks past the 64 bytes the masks cover */
		"            bash-2223    (-------) [002] d..2.                "
		"      1234567891.000024: ev: x=1\n"
		/* the kernel's columns without irq-info */
		"            bash-2223    [002]   1234567891.000025: ev: x=1 "
		"y=2 z=3 w=4\n"
		/* ... and with a tgid */
		"            bash-2223    (  15847) [002]   1234567891.000026: "
		"ev: x=1 y=2\n";
	got g;
	cr_assert_eq(collect_text(text, NULL, &g), 0, "%s", g.err.msg);
	cr_assert_eq(g.n, 20, "events: %zu", g.n);
	cr_assert_eq(g.stats.bad_lines, 5);
	cr_assert_eq(g.stats.bad_line[0], 9);
	cr_assert_eq(g.stats.bad_line[1], 11);
	cr_assert_eq(g.stats.bad_line[2], 14);
	cr_assert_eq(g.stats.bad_line[3], 17);
	cr_assert_eq(g.stats.bad_line[4], 23);
	cr_assert_eq(g.stats.reordered, 0);
	static const struct {
		const char *comm;
		int pid, tgid, cpu;
		int64_t ts;
	} want[] = {
		{"foo[1] bar", 123, -1, 2, 2410000001000LL},
		{"a [1] 5.000000: x", 12, -1, 0, 2410000002000LL},
		{"bash", 2223, -1, 2, 2410000004000LL},
		{"bash", 2223, -1, 2, 2410000005123LL},
		{"bash", 2223, -1, 1000, 2410000006000LL},
		{"Binder:543_2", 612, 543, 1, 2410000007000LL},
		{"Chrome_IOThread", 3301, -1, 3, 2410000008000LL},
		{"bash", 2223, -1, 2, 1234567890000003000LL},
		{"bash", 12345678, -1, 2, 1234567891000010000LL},
		{"a", 1, -1, 0, 1234567891000012000LL},
		{"1234", 5678, -1, 0, 1234567891000013000LL},
		{"foo[1]bar", 123, -1, 2, 1234567891000015000LL},
		{"bash", 2223, -1, 2, 1234567891000016000LL},
		{"bash", 2223, -1, 2, 1234567891000018000LL},
		{"bash", 2223, -1, 2, 1234567891000020000LL},
		{"bash", 2223, 15847, 2, 1234567891000021000LL},
		{"bash", 2223, -1, 2, 1234567891000022000LL},
		{"bash", 2223, -1, 2, 1234567891000024000LL},
		{"bash", 2223, -1, 2, 1234567891000025000LL},
		{"bash", 2223, 15847, 2, 1234567891000026000LL},
	};
	for (size_t i = 0; i < 20; i++) {
		cr_assert_str_eq(g.ev[i].comm, want[i].comm, "event %zu", i);
		cr_assert_eq(g.ev[i].pid, want[i].pid, "event %zu", i);
		cr_assert_eq(g.ev[i].tgid, want[i].tgid, "event %zu", i);
		cr_assert_eq(g.ev[i].cpu, want[i].cpu, "event %zu", i);
		cr_assert_eq(g.ev[i].ts, want[i].ts, "event %zu", i);
	}
	got_free(&g);
}
