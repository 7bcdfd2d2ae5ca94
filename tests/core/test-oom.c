/* SPDX-License-Identifier: MIT */
/*
 * Out-of-memory sweep (SQLite's test_malloc habit): fail allocation N for
 * N = 1, 2, ... until a run needs no more allocations than that. Every
 * failure must come back as a clean error; ASan's leak check runs on top.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../helpers/helpers.h"

struct reads {
	trawl_field f;
	int events;
};

static int noop(const trawl_event *ev, void *ctx)
{
	struct reads *r = ctx;
	(void)trawl_event_comm(ev);
	(void)trawl_event_str(ev, r->f);
	/* every field, typed: the scan by format (text) or the record's
	 * decoding (trace.dat), labels and arrays; and the event's text. The
	 * first events of a run are enough to reach every buffer's first
	 * growth (all of them made the trace.dat sweep a minute long). */
	if (r->events++ >= 48)
		goto copy;
	for (size_t i = 0; i < trawl_event_field_count(ev); i++) {
		int64_t v;
		const int64_t *el;
		size_t n;
		(void)trawl_event_field_type(ev, i);
		(void)trawl_event_field_int(ev, i, &v);
		(void)trawl_event_field_label(ev, i, &n);
		(void)trawl_event_field_array(ev, i, &el);
	}
	size_t pn;
	(void)trawl_event_payload(ev, &pn);
copy:;
	trawl_event *c = trawl_event_copy(ev);
	trawl_event_free(c);
	return 0;
}

static void sweep(const char *path, unsigned flags, const char *formats)
{
	long n;
	for (n = 0; n < 10000; n++) {
		struct fault f = {.countdown = n};
		trawl_open_opts o = {.realloc = fault_realloc,
				     .alloc_ctx = &f,
				     .flags = flags,
				     .threads = 1,
				     .formats = formats};
		trawl_error err;
		trawl_trace *t = trawl_open(path, &o, &err);
		int rc;
		if (!t) {
			cr_assert(f.fired, "open failed without a fault: %s",
				  err.msg);
			cr_assert_eq(err.code, TRAWL_ENOMEM, "%s", err.msg);
			continue;
		}
		trawl_field fld = trawl_field_lookup(t, NULL, "next_comm");
		if (!fld) {
			cr_assert(f.fired);
			trawl_close(t);
			continue;
		}
		struct reads r = {fld, 0};
		if (trawl_on(t, "*", noop, &r) != 0) {
			cr_assert(f.fired);
			trawl_close(t);
			continue;
		}
		rc = trawl_run(t, &err);
		trawl_close(t);
		if (!f.fired) {
			cr_assert_eq(rc, 0, "%s", err.msg);
			break;
		}
		cr_assert(rc == 0 || rc == -TRAWL_ENOMEM,
			  "allocation %ld failed: rc %d %s", n, rc, err.msg);
	}
	cr_assert_lt(n, 10000, "never completed");
	cr_assert_gt(n, 5, "too few allocations to be a sweep");
}

static const char text[] =
	"# tracer: nop\n"
	"  a-1 [000] d..2. 1.000002: sched_switch: prev_comm=a prev_pid=1 "
	"prev_prio=120 prev_state=S ==> next_comm=b next_pid=2 next_prio=120\n"
	"  b-2 [001] ..... 1.000001: tracing_mark_write: B|2|x\n"
	"garbage\n"
	"CPU:1 [LOST 3 EVENTS]\n"
	"  b-2 [003] ..... 1.000003: irq_handler_entry: irq=1 name=x\n"
	"  b-2 [003] ..... 1.000004: sys_enter: NR 72 (b, 1, 0, 1b6, 0, 20)\n";

Test(oom, every_allocation_failure_is_a_clean_error)
{
	char *path = tmp_file(text, sizeof(text) - 1);
	/* the formats a trace.dat carries: the same on every machine (the
	 * live tracefs or the bundled table would differ in what they cost) */
	const char *dir = getenv("TRAWL_FIXTURES");
	cr_assert(dir, "TRAWL_FIXTURES is not set");
	char formats[4096];
	snprintf(formats, sizeof(formats), "%s/pair-broad.dat", dir);
	sweep(path, 0, formats);
	sweep(path, TRAWL_OPEN_SOURCE_ORDER, formats);
	sweep(path, 0, "none");
	unlink(path);
	free(path);
}

/* The same for trace.dat: v7 with zstd chunks, and v6. */
Test(oom, every_allocation_failure_in_trace_dat_is_a_clean_error)
{
	const char *dir = getenv("TRAWL_FIXTURES");
	cr_assert(dir, "TRAWL_FIXTURES is not set");
	const char *files[] = {"tc.dat", "tc-v6.dat"};
	for (size_t i = 0; i < 2; i++) {
		char path[4096];
		snprintf(path, sizeof(path), "%s/%s", dir, files[i]);
		sweep(path, 0, NULL);
	}
}
