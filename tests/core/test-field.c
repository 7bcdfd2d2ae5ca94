/* SPDX-License-Identifier: MIT */
/*
 * Field handles and typed reads on text payloads: key=value with spaces in
 * values, sched_switch's "==>", bracketed fields, hashed pointers, the
 * plugin forms of `trace-cmd report`, workqueue free text, systrace markers.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../helpers/helpers.h"

struct keep {
	trawl_event *ev[16];
	int n;
};

static int keep_copy(const trawl_event *ev, void *ctx)
{
	struct keep *k = ctx;
	if (k->n < 16)
		k->ev[k->n++] = trawl_event_copy(ev);
	return 0;
}

static trawl_trace *t_open;
static char *t_path;
static struct keep kept;

/* Open text, subscribe pattern; run later with run_kept(). These tests
 * are of the generic decoder (fields as the text names them): no event
 * formats. tests/pfmt has the decoding by format. */
static trawl_trace *open_text(const char *text)
{
	t_path = tmp_file(text, strlen(text));
	trawl_open_opts o = {.formats = "none"};
	t_open = trawl_open(t_path, &o, NULL);
	cr_assert_not_null(t_open);
	memset(&kept, 0, sizeof(kept));
	return t_open;
}

static void run_kept(const char *pattern)
{
	cr_assert_eq(trawl_on(t_open, pattern, keep_copy, &kept), 0);
	cr_assert_eq(trawl_run(t_open, NULL), 0);
	cr_assert_gt(kept.n, 0);
}

static void done(void)
{
	for (int i = 0; i < kept.n; i++)
		trawl_event_free(kept.ev[i]);
	trawl_close(t_open);
	unlink(t_path);
	free(t_path);
}

static void assert_raw(const trawl_event *ev, trawl_field f, const char *want)
{
	size_t len;
	const char *v = trawl_event_raw(ev, f, &len);
	cr_assert_not_null(v, "field missing, wanted \"%s\"", want);
	cr_assert_eq(len, strlen(want), "got \"%.*s\", wanted \"%s\"", (int)len,
		     v, want);
	cr_assert(memcmp(v, want, len) == 0, "got \"%.*s\", wanted \"%s\"",
		  (int)len, v, want);
}

Test(field, sched_switch_key_value_with_spaces_and_arrow)
{
	trawl_trace *t = open_text(
		" Web Content-2801 [001] d..2. 10.000001: sched_switch: "
		"prev_comm=Web Content prev_pid=2801 prev_prio=120 "
		"prev_state=R+ ==> next_comm=kworker/u4:2 next_pid=-5 "
		"next_prio=120\n");
	trawl_field pc = trawl_field_lookup(t, "sched_switch", "prev_comm");
	trawl_field ps = trawl_field_lookup(t, "sched_switch", "prev_state");
	trawl_field np = trawl_field_lookup(t, "sched_switch", "next_pid");
	trawl_field nc = trawl_field_lookup(t, NULL, "next_comm");
	trawl_field other = trawl_field_lookup(t, "sched_wakeup", "prev_pid");
	trawl_field none = trawl_field_lookup(t, "sched_switch", "nope");
	cr_assert_eq(trawl_field_lookup(t, "sched_switch", "next_pid"), np,
		     "the same name gives the same handle");
	run_kept("*");
	const trawl_event *ev = kept.ev[0];
	assert_raw(ev, pc, "Web Content");
	assert_raw(ev, ps, "R+");
	assert_raw(ev, nc, "kworker/u4:2");
	cr_assert_eq(trawl_event_int(ev, np), -5);
	cr_assert_str_eq(trawl_event_str(ev, pc), "Web Content");
	cr_assert_not(trawl_event_has(ev, other));
	cr_assert_not(trawl_event_has(ev, none));
	int64_t v;
	cr_assert_eq(trawl_event_get_int(ev, none, &v), -TRAWL_ENOENT);
	cr_assert_eq(trawl_event_get_int(ev, ps, &v), -TRAWL_ETYPE);
	cr_assert_eq(trawl_event_field_count(ev), 7);
	size_t kl;
	const char *k = trawl_event_field_name(ev, 3, &kl);
	cr_assert(kl == 10 && memcmp(k, "prev_state", 10) == 0);
	cr_assert_null(trawl_event_field_name(ev, 7, &kl));
	cr_assert_str_eq(trawl_event_comm(ev), "Web Content");
	done();
}

Test(field, numbers_hex_pointers_and_trailing_units)
{
	trawl_trace *t = open_text(
		"  a-1 [000] ..... 1.000001: x: hrtimer=00000000a96ea016 "
		"plain=0000000012345678 hex=0x1F neg=-42 runtime=1616825 [ns] "
		"big=18446744073709551615 word=dead mode=REL|HARD\n");
	trawl_field hr = trawl_field_lookup(t, "x", "hrtimer");
	trawl_field pl = trawl_field_lookup(t, "x", "plain");
	trawl_field hx = trawl_field_lookup(t, "x", "hex");
	trawl_field ng = trawl_field_lookup(t, "x", "neg");
	trawl_field rt = trawl_field_lookup(t, "x", "runtime");
	trawl_field bg = trawl_field_lookup(t, "x", "big");
	trawl_field wd = trawl_field_lookup(t, "x", "word");
	trawl_field md = trawl_field_lookup(t, "x", "mode");
	run_kept("x");
	const trawl_event *ev = kept.ev[0];
	cr_assert_eq(trawl_event_uint(ev, hr), 0xa96ea016u);
	cr_assert_eq(trawl_event_uint(ev, pl), 0x12345678u);
	cr_assert_eq(trawl_event_int(ev, hx), 31);
	cr_assert_eq(trawl_event_int(ev, ng), -42);
	cr_assert_eq(trawl_event_int(ev, rt), 1616825);
	assert_raw(ev, rt, "1616825 [ns]");
	int64_t v;
	cr_assert_eq(trawl_event_get_int(ev, bg, &v), 0);
	cr_assert_eq((uint64_t)v, UINT64_MAX);
	cr_assert_eq(trawl_event_get_int(ev, wd, &v), -TRAWL_ETYPE);
	cr_assert_eq(trawl_event_get_int(ev, md, &v), -TRAWL_ETYPE);
	done();
}

/* The short-decimal fast path agrees with the full rules at its edges. */
Test(field, number_rules_at_the_edges_of_the_decimal_fast_path)
{
	static const struct {
		const char *text;
		int rc;
		int64_t v;
	} cases[] = {
		{"7", 0, 7},
		{"007", 0, 7},
		{"-0", 0, 0},
		{"+5", 0, 5},
		{"12x", 0, 12},
		{"12,", 0, 12},
		{"12abc", -TRAWL_ETYPE, 0},
		{"00000012", 0, 0x12},	   /* 8 digits, leading 0: hex */
		{"10000012", 0, 10000012}, /* 8 digits: decimal */
		{"12345678901234567", 0, 12345678901234567},
		{"123456789012345678", 0, 123456789012345678},
		{"-", -TRAWL_ETYPE, 0},
	};
	char line[2048] = "  a-1 [000] ..... 1.000001: x:";
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char f[64];
		snprintf(f, sizeof(f), " f%zu=%s", i, cases[i].text);
		strcat(line, f);
	}
	strcat(line, "\n");
	trawl_trace *t = open_text(line);
	trawl_field h[16];
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char name[16];
		snprintf(name, sizeof(name), "f%zu", i);
		h[i] = trawl_field_lookup(t, "x", name);
	}
	run_kept("x");
	const trawl_event *ev = kept.ev[0];
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int64_t v = 0;
		int rc = trawl_event_get_int(ev, h[i], &v);
		cr_assert_eq(rc, cases[i].rc, "%s: rc %d", cases[i].text, rc);
		if (rc == 0)
			cr_assert_eq(v, cases[i].v, "%s: %lld", cases[i].text,
				     (long long)v);
	}
	done();
}

Test(field, bracketed_fields_of_softirq)
{
	trawl_trace *t = open_text(
		"  <idle>-0 [000] d.h1. 1.000001: softirq_raise: vec=9 "
		"[action=RCU]\n");
	trawl_field vec = trawl_field_lookup(t, "softirq_raise", "vec");
	trawl_field act = trawl_field_lookup(t, "softirq_raise", "action");
	run_kept("softirq_raise");
	cr_assert_eq(trawl_event_int(kept.ev[0], vec), 9);
	assert_raw(kept.ev[0], vec, "9");
	assert_raw(kept.ev[0], act, "RCU");
	done();
}

Test(field, trace_cmd_report_plugin_forms)
{
	trawl_trace *t = open_text(
		"cpus=2\n"
		"  trace-cmd-2296  [001]  2519.963971: sched_switch:         "
		"trace-cmd:2296 [120] S ==> swapper/1:0 [120]\n"
		"  sh-2297  [000]  2519.964003: sched_wakeup:         "
		"kworker/u4:2:18 [0] CPU:000\n");
	trawl_field pc = trawl_field_lookup(t, "sched_switch", "prev_comm");
	trawl_field pp = trawl_field_lookup(t, "sched_switch", "prev_pid");
	trawl_field st = trawl_field_lookup(t, "sched_switch", "prev_state");
	trawl_field nc = trawl_field_lookup(t, "sched_switch", "next_comm");
	trawl_field np = trawl_field_lookup(t, "sched_switch", "next_pid");
	trawl_field npr = trawl_field_lookup(t, "sched_switch", "next_prio");
	trawl_field wc = trawl_field_lookup(t, "sched_wakeup", "comm");
	trawl_field wp = trawl_field_lookup(t, "sched_wakeup", "pid");
	trawl_field wt = trawl_field_lookup(t, "sched_wakeup", "target_cpu");
	run_kept("*");
	cr_assert_eq(kept.n, 2);
	assert_raw(kept.ev[0], pc, "trace-cmd");
	cr_assert_eq(trawl_event_int(kept.ev[0], pp), 2296);
	assert_raw(kept.ev[0], st, "S");
	assert_raw(kept.ev[0], nc, "swapper/1");
	cr_assert_eq(trawl_event_int(kept.ev[0], np), 0);
	cr_assert_eq(trawl_event_int(kept.ev[0], npr), 120);
	assert_raw(kept.ev[1], wc, "kworker/u4:2");
	cr_assert_eq(trawl_event_int(kept.ev[1], wp), 18);
	cr_assert_eq(trawl_event_int(kept.ev[1], wt), 0);
	done();
}

Test(field, workqueue_free_text)
{
	trawl_trace *t = open_text(
		" kworker/0:2-290 [000] ..... 2411.120021: "
		"workqueue_execute_start: work struct 00000000e7f45dc5: "
		"function vmstat_shepherd\n"
		" kworker/0:2-290 [000] ..... 2411.120022: "
		"workqueue_queue_work: work struct=00000000e7f45dc5 "
		"function=vmstat_update workqueue=mm_percpu_wq req_cpu=8192 "
		"cpu=0\n"
		" kworker/0:2-290 [000] ..... 2411.120023: "
		"workqueue_activate_work: work struct 00000000e7f45dc5\n"
		" kworker/0:2-290 [000] ..... 2411.120024: "
		"workqueue_activate_work: work struct 00000000bf9e4e0e "
		"function=blk_mq_requeue_work \n");
	trawl_field fn = trawl_field_lookup(t, NULL, "function");
	trawl_field wk = trawl_field_lookup(t, NULL, "work");
	trawl_field wq = trawl_field_lookup(t, NULL, "workqueue");
	run_kept("workqueue:*");
	cr_assert_eq(kept.n, 4);
	assert_raw(kept.ev[0], fn, "vmstat_shepherd");
	cr_assert_eq(trawl_event_uint(kept.ev[0], wk), 0xe7f45dc5u);
	assert_raw(kept.ev[1], fn, "vmstat_update");
	assert_raw(kept.ev[1], wq, "mm_percpu_wq");
	assert_raw(kept.ev[2], wk, "00000000e7f45dc5");
	/* 6.18 adds the function, and a trailing space */
	assert_raw(kept.ev[3], wk, "00000000bf9e4e0e");
	assert_raw(kept.ev[3], fn, "blk_mq_requeue_work");
	done();
}

Test(field, systrace_markers_as_fields_and_struct)
{
	trawl_trace *t = open_text(
		" surfaceflinger-540 (  540) [001] ...1 1.000001: "
		"tracing_mark_write: B|540|onMessage|Received\n"
		" surfaceflinger-540 (  540) [001] ...1 1.000002: "
		"tracing_mark_write: E|540\n"
		" surfaceflinger-540 (  540) [001] ...1 1.000003: "
		"tracing_mark_write: C|540|HW_VSYNC|-7\n"
		" surfaceflinger-540 (  540) [001] ...1 1.000004: print: "
		"tracing_mark_write: S|540|load|1000\n"
		" surfaceflinger-540 (  540) [001] ...1 1.000005: print: "
		"tracing_mark_write: F|540|load|1000\n"
		" surfaceflinger-540 (  540) [001] ...1 1.000006: "
		"tracing_mark_write: E\n"
		" surfaceflinger-540 (  540) [001] ...1 1.000007: "
		"tracing_mark_write: hello: world\n");
	trawl_field kind = trawl_field_lookup(t, "tracing_mark_write", "kind");
	trawl_field pid = trawl_field_lookup(t, "print", "pid");
	trawl_field name = trawl_field_lookup(t, "print", "name");
	trawl_field value = trawl_field_lookup(t, "print", "value");
	trawl_field cookie = trawl_field_lookup(t, "print", "cookie");
	trawl_field buf = trawl_field_lookup(t, "print", "buf");
	trawl_field ip = trawl_field_lookup(t, "print", "ip");
	run_kept("tracing_mark_write");
	cr_assert_eq(kept.n, 7);
	trawl_marker m;
	cr_assert_eq(trawl_event_marker(kept.ev[0], &m), 0);
	cr_assert_eq(m.kind, TRAWL_MARKER_BEGIN);
	cr_assert_eq(m.pid, 540);
	cr_assert_eq(m.name_len, 18);
	cr_assert(memcmp(m.name, "onMessage|Received", 18) == 0);
	assert_raw(kept.ev[0], kind, "B");
	cr_assert_eq(trawl_event_int(kept.ev[0], pid), 540);
	assert_raw(kept.ev[0], name, "onMessage|Received");
	assert_raw(kept.ev[0], ip, "tracing_mark_write");

	cr_assert_eq(trawl_event_marker(kept.ev[1], &m), 0);
	cr_assert_eq(m.kind, TRAWL_MARKER_END);
	cr_assert_eq(m.pid, 540);
	cr_assert_not(trawl_event_has(kept.ev[1], name));

	cr_assert_eq(trawl_event_marker(kept.ev[2], &m), 0);
	cr_assert_eq(m.kind, TRAWL_MARKER_COUNTER);
	cr_assert_eq(m.value, -7);
	cr_assert_eq(trawl_event_int(kept.ev[2], value), -7);
	assert_raw(kept.ev[2], name, "HW_VSYNC");

	cr_assert_eq(trawl_event_marker(kept.ev[3], &m), 0);
	cr_assert_eq(m.kind, TRAWL_MARKER_ASYNC_BEGIN);
	cr_assert_eq(trawl_event_int(kept.ev[3], cookie), 1000);
	assert_raw(kept.ev[3], ip, "tracing_mark_write");
	assert_raw(kept.ev[3], buf, "S|540|load|1000");
	cr_assert_eq(trawl_event_marker(kept.ev[4], &m), 0);
	cr_assert_eq(m.kind, TRAWL_MARKER_ASYNC_END);

	cr_assert_eq(trawl_event_marker(kept.ev[5], &m), 0);
	cr_assert_eq(m.kind, TRAWL_MARKER_END);
	cr_assert_eq(m.pid, -1);

	cr_assert_eq(trawl_event_marker(kept.ev[6], &m), -TRAWL_ENOENT);
	assert_raw(kept.ev[6], buf, "hello: world");
	cr_assert_not(trawl_event_has(kept.ev[6], kind));
	cr_assert_str_eq(trawl_event_name(kept.ev[6]), "print");
	cr_assert_str_eq(trawl_event_system(kept.ev[6]), "ftrace");
	done();
}

Test(field, function_tracer_and_trace_printk)
{
	trawl_trace *t =
		open_text("  bash-1234 [000] ..... 123.456789: do_sys_open "
			  "<-do_sys_openat2\n"
			  "  bash-1234 [000] ..... 123.456790: bprint: "
			  "my_driver_poll: rx 512 bytes\n");
	trawl_field ip = trawl_field_lookup(t, NULL, "ip");
	trawl_field parent = trawl_field_lookup(t, NULL, "parent_ip");
	trawl_field buf = trawl_field_lookup(t, NULL, "buf");
	run_kept("*");
	cr_assert_eq(kept.n, 2);
	cr_assert_str_eq(trawl_event_name(kept.ev[0]), "function");
	assert_raw(kept.ev[0], ip, "do_sys_open");
	assert_raw(kept.ev[0], parent, "do_sys_openat2");
	assert_raw(kept.ev[1], ip, "my_driver_poll");
	assert_raw(kept.ev[1], buf, "rx 512 bytes");
	done();
}

Test(field, hostile_pattern_input_stays_bounded)
{
	/* Many ':' and "[" make the plugin pattern backtrack: bounded. */
	char line[5000];
	int n = snprintf(line, sizeof(line),
			 "  a-1 [000] ..... 1.000001: sched_switch: ");
	for (int i = 0; n < 4000; i++)
		line[n++] = ":1 [2] "[i % 7];
	strcpy(line + n, "\n");
	trawl_trace *t = open_text(line);
	trawl_field pc = trawl_field_lookup(t, "sched_switch", "prev_comm");
	run_kept("*");
	cr_assert_not(trawl_event_has(kept.ev[0], pc));
	done();
}

Test(field, a_repeated_name_reads_the_first_whatever_came_before)
{
	trawl_trace *t = open_text("a-1 [000] 1.000000: e: x=1 pid=5 pid=6\n"
				   "a-1 [000] 2.000000: e: a=1 b=2 pid=7\n"
				   "a-1 [000] 3.000000: e: x=1 pid=5 pid=6\n");
	trawl_field pid = trawl_field_lookup(t, NULL, "pid");
	run_kept("e");
	cr_assert_eq(kept.n, 3);
	cr_assert_eq(trawl_event_int(kept.ev[0], pid), 5);
	cr_assert_eq(trawl_event_int(kept.ev[1], pid), 7);
	cr_assert_eq(trawl_event_int(kept.ev[2], pid), 5);
	cr_assert_eq(trawl_event_int(kept.ev[0], pid), 5, "copies are stable");
	done();
}

static trawl_field pf_a, pf_c, pf_e;
static int pf_checked;

static int read_in_odd_orders(const trawl_event *ev, void *ctx)
{
	(void)ctx;
	/* c first decodes a..c only; then e goes on; then a is already
	 * there; enumeration finishes the rest. */
	cr_assert_eq(trawl_event_int(ev, pf_c), 3);
	cr_assert_eq(trawl_event_int(ev, pf_e), 5);
	cr_assert_eq(trawl_event_int(ev, pf_a), 1);
	cr_assert_eq(trawl_event_field_count(ev), 6);
	size_t len;
	const char *k = trawl_event_field_name(ev, 5, &len);
	cr_assert(len == 1 && *k == 'f');
	trawl_event *copy = trawl_event_copy(ev);
	cr_assert_eq(trawl_event_int(copy, pf_e), 5);
	cr_assert_eq(trawl_event_field_count(copy), 6);
	trawl_event_free(copy);
	pf_checked++;
	return 0;
}

Test(field, decoding_goes_only_as_far_as_asked_and_on_when_asked)
{
	trawl_trace *t =
		open_text("a-1 [000] 1.000000: e: a=1 b=2 c=3 d=4 e=5 f=6\n");
	pf_a = trawl_field_lookup(t, NULL, "a");
	pf_c = trawl_field_lookup(t, NULL, "c");
	pf_e = trawl_field_lookup(t, NULL, "e");
	cr_assert_eq(trawl_on(t, "e", read_in_odd_orders, NULL), 0);
	cr_assert_eq(trawl_run(t, NULL), 0);
	cr_assert_eq(pf_checked, 1);
	done();
}

struct fields_seen {
	int n;
	char got[128][160];
};

/* Each event's fields as "key=value|key=value|". */
static int record_fields(const trawl_event *ev, void *ctx)
{
	struct fields_seen *seen = ctx;
	if (seen->n >= 128)
		return 1;
	char *out = seen->got[seen->n++];
	size_t at = 0;
	size_t nf = trawl_event_field_count(ev);
	for (size_t i = 0; i < nf; i++) {
		size_t kl, vl;
		const char *k = trawl_event_field_name(ev, i, &kl);
		const char *v = trawl_event_field_value(ev, i, &vl);
		at += (size_t)snprintf(out + at, 160 - at, "%.*s=%.*s|",
				       (int)kl, k, (int)vl, v);
		if (at >= 160)
			return 1;
	}
	return 0;
}

/*
 * Field names of every length from 1 to 40 and every character class near
 * the edges of [A-Za-z0-9_.], far from the payload's end and close to it
 * (the decoder tests 16 bytes at a time where 17 remain): a name of
 * identifier characters followed by '=' starts a field; one bad character
 * makes the word part of the value before it.
 */
Test(field, names_of_every_length_and_character_class)
{
	static const char good[] = "azAZ09_.mQ";
	static const char bad[] = "@[`{/:-=\xc3";
	char text[16384];
	size_t at = 0;
	int lines = 0;
	for (int len = 1; len <= 40; len++) {
		for (int tail = 0; tail < 2; tail++) {
			char key[64];
			for (int i = 0; i < len; i++)
				key[i] = good[(i + len) % (sizeof(good) - 1)];
			key[len] = '\0';
			/* tail: the key is the last field, so fewer than 17
			 * bytes may follow it */
			at += (size_t)snprintf(
				text + at, sizeof(text) - at,
				"  a-1 [000] d..2. 1.%06d: ev: first=1 "
				"%s=2%s\n",
				lines++, key,
				tail ? ""
				     : " after=3 padding=0123456789abcdef");
		}
	}
	for (size_t b = 0; b < sizeof(bad) - 1; b++) {
		for (int pos = 0; pos < 20; pos += 19) {
			char key[32];
			memset(key, 'k', 20);
			key[pos] = bad[b];
			key[20] = '\0';
			at += (size_t)snprintf(
				text + at, sizeof(text) - at,
				"  a-1 [000] d..2. 1.%06d: ev: first=1 %s=2 "
				"after=3 padding=0123456789abcdef\n",
				lines++, key);
		}
	}
	char *path = tmp_file(text, at);
	trawl_trace *t = trawl_open(path, NULL, NULL);
	cr_assert_not_null(t);
	struct fields_seen *seen = calloc(1, sizeof(*seen));
	cr_assert_eq(trawl_on(t, "ev", record_fields, seen), 0);
	cr_assert_eq(trawl_run(t, NULL), 0);
	cr_assert_eq(seen->n, lines);
	int i = 0;
	for (int len = 1; len <= 40; len++) {
		for (int tail = 0; tail < 2; tail++, i++) {
			char key[64], want[160];
			for (int j = 0; j < len; j++)
				key[j] = good[(j + len) % (sizeof(good) - 1)];
			key[len] = '\0';
			snprintf(want, sizeof(want), "first=1|%s=2|%s", key,
				 tail ? ""
				      : "after=3|padding=0123456789abcdef|");
			cr_assert_str_eq(seen->got[i], want, "line %d", i + 1);
		}
	}
	for (size_t b = 0; b < sizeof(bad) - 1; b++) {
		for (int pos = 0; pos < 20; pos += 19, i++) {
			char key[32], want[160];
			memset(key, 'k', 20);
			key[pos] = bad[b];
			key[20] = '\0';
			if (bad[b] == '[' && pos == 0) /* " [key=" */
				snprintf(want, sizeof(want),
					 "first=1|%s=2 after=3 padding="
					 "0123456789abcdef|",
					 key + 1);
			else
				snprintf(want, sizeof(want),
					 "first=1 %s=2|after=3|padding="
					 "0123456789abcdef|",
					 key);
			cr_assert_str_eq(seen->got[i], want, "line %d", i + 1);
		}
	}
	free(seen);
	trawl_close(t);
	unlink(path);
	free(path);
}

/*
 * A field read through a handle goes straight to the field where the text
 * reader can (its seek); enumeration decodes every field in order. Over
 * payloads made at random from pieces that change where fields start
 * ("==>" spaced and glued, bracketed fields, "==", repeated names, long
 * runs), both must name the same first field for every name.
 */
static const char *const seek_names[] = {"a",	"pid", "next_pid",
					 "x.y", "A_1", "b"};
#define SEEK_NAMES (sizeof(seek_names) / sizeof(seek_names[0]))

struct seek_check {
	trawl_field h[SEEK_NAMES];
	int events, mismatches;
	char first_bad[512];
};

static int check_seek(const trawl_event *ev, void *ctx)
{
	struct seek_check *c = ctx;
	const char *got[SEEK_NAMES];
	size_t got_len[SEEK_NAMES];
	for (size_t i = 0; i < SEEK_NAMES; i++)
		got[i] = trawl_event_raw(ev, c->h[i], &got_len[i]);
	size_t nf = trawl_event_field_count(ev);
	for (size_t i = 0; i < SEEK_NAMES; i++) {
		const char *want = NULL;
		size_t want_len = 0;
		for (size_t f = 0; f < nf && !want; f++) {
			size_t kl;
			const char *k = trawl_event_field_name(ev, f, &kl);
			if (kl == strlen(seek_names[i]) &&
			    memcmp(k, seek_names[i], kl) == 0)
				want = trawl_event_field_value(ev, f,
							       &want_len);
		}
		/* and once more, now that every field is decoded */
		size_t again_len;
		const char *again = trawl_event_raw(ev, c->h[i], &again_len);
		if (got[i] != want || (want && got_len[i] != want_len) ||
		    again != want || (want && again_len != want_len)) {
			if (!c->mismatches++) {
				size_t pl;
				const char *p = trawl_event_payload(ev, &pl);
				snprintf(c->first_bad, sizeof(c->first_bad),
					 "name %s in \"%.*s\"", seek_names[i],
					 (int)pl, p);
			}
		}
	}
	c->events++;
	return 0;
}

Test(field, reads_through_handles_match_decoding_in_order)
{
	static const char *const piece[] = {
		"a=1",	       "pid=2",	      "==>",	  "[a=3]",
		"[pid=4 x=5]", "==>pid=6",    "a==7",	  "b",
		"pid",	       "x=pid=8",     ">",	  "[",
		"]",	       "next_pid=",   "=",	  "a=b c",
		"x.y=9",       "A_1=10",      "\t",	  "k=[z]",
		"b=>",	       "next_pid=11", "==> a=12", "a=",
		"pid=x y=z",
	};
	static const char *const events[] = {"ev", "sched_switch",
					     "sched_wakeup"};
	size_t cap = 1 << 20, at = 0;
	char *text = malloc(cap);
	cr_assert_not_null(text);
	unsigned seed = 12345;
	int lines = 0;
	for (; lines < 4000; lines++) {
		seed = seed * 1103515245u + 12345u;
		at += (size_t)snprintf(text + at, cap - at,
				       "  a-1 [000] d..2. 1.%06d: %s:", lines,
				       events[(seed >> 16) % 3]);
		int n = 1 + (int)((seed >> 8) % 14);
		for (int i = 0; i < n; i++) {
			seed = seed * 1103515245u + 12345u;
			int spaces = 1 + (int)((seed >> 20) % 3);
			if (i > 0 && (seed >> 24) % 7 == 0)
				spaces = 0; /* glue two pieces */
			for (int k = 0; k < spaces; k++)
				text[at++] = ' ';
			at += (size_t)snprintf(
				text + at, cap - at, "%s",
				piece[(seed >> 12) %
				      (sizeof(piece) / sizeof(piece[0]))]);
		}
		if (lines % 97 == 0) {
			/* past the span the seek looks at, and past the 64
			 * fields decoding stops at */
			for (int k = 0; k < 70; k++)
				at += (size_t)snprintf(text + at, cap - at,
						       " w%d=%d", k, k);
			at += (size_t)snprintf(text + at, cap - at,
					       " a=99 next_pid=98");
		}
		text[at++] = '\n';
	}
	char *path = tmp_file(text, at);
	trawl_trace *t = trawl_open(path, NULL, NULL);
	cr_assert_not_null(t);
	struct seek_check c = {0};
	for (size_t i = 0; i < SEEK_NAMES; i++)
		c.h[i] = trawl_field_lookup(t, NULL, seek_names[i]);
	cr_assert_eq(trawl_on(t, "*", check_seek, &c), 0);
	cr_assert_eq(trawl_run(t, NULL), 0);
	cr_assert_eq(c.events, lines, "%d events of %d lines", c.events, lines);
	cr_assert_eq(c.mismatches, 0, "%d mismatches, first: %s", c.mismatches,
		     c.first_bad);
	trawl_close(t);
	unlink(path);
	free(path);
	free(text);
}
