/* SPDX-License-Identifier: MIT */
/*
 * A live session names every event the kernel has but reads a format only
 * when it is needed (lib/live/meta.c, lib/dat/dat-file.c): the kernel's
 * events/ directory against what the session lists (ftrace's own too),
 * none read at the open, one read when asked for, and the events enabled
 * (and ftrace's, which come unasked) read at the start so their records
 * are decoded by name, not left as unknown_event_N; and the session's
 * kernel symbols (trawl_trace_symbol()), with or without kallsyms read at
 * the open. Needs root and tracefs: skipped otherwise.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <glob.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../../lib/core/core.h"
#include "trawl/trawl.h"

#include "../helpers/helpers.h"

#define EVENTS "/sys/kernel/tracing/events"

/* The kernel's events outside ftrace, by their directories. */
static size_t kernel_events(void)
{
	glob_t g;
	size_t n = 0;
	if (glob(EVENTS "/*/*/format", 0, NULL, &g) != 0)
		return 0;
	for (size_t i = 0; i < g.gl_pathc; i++)
		n += strncmp(g.gl_pathv[i], EVENTS "/ftrace/",
			     strlen(EVENTS "/ftrace/")) != 0;
	globfree(&g);
	return n;
}

static int named(const tw_format_ref *f, const char *sys, const char *ev)
{
	return f->name && !strcmp(f->system, sys) &&
	       f->name_len == strlen(ev) && !memcmp(f->name, ev, f->name_len);
}

static trawl_live *open_session(void)
{
	trawl_error err = {0};
	trawl_live_opts o = {.flags = TRAWL_LIVE_NO_KALLSYMS};
	trawl_live *lv = trawl_live_open(&o, &err);
	cr_assert(lv, "%s", err.msg);
	return lv;
}

Test(live_formats, every_event_is_named_and_none_is_read_until_needed)
{
	const char *why = tracing_unavailable();
	if (why)
		cr_skip_test("%s", why);
	trawl_live *lv = open_session();
	trawl_trace *t = trawl_live_trace(lv);
	size_t listed = 0, texts = 0, ftrace = 0, switch_at = (size_t)-1;
	tw_format_ref f;
	for (size_t i = 0; tw_trace_format_at(t, i, &f); i++) {
		texts += f.text != NULL;
		if (!strcmp(f.system, "ftrace")) {
			ftrace += named(&f, "ftrace", "print");
			continue;
		}
		listed++;
		if (named(&f, "sched", "sched_switch"))
			switch_at = i;
	}
	cr_expect_eq(listed, kernel_events(),
		     "every event the kernel has is listed");
	cr_expect_eq(ftrace, 1, "and ftrace's own (print)");
	cr_expect_eq(texts, 0, "%zu formats read before they are needed",
		     texts);
	cr_assert_neq(switch_at, (size_t)-1, "sched:sched_switch is listed");

	/* asked for: read, and the same text the kernel gives */
	cr_assert(tw_trace_format_at(t, switch_at, &f));
	cr_assert_eq(tw_trace_format_text(t, switch_at, &f), 0);
	cr_assert(f.text && strstr(f.text, "name: sched_switch\n"),
		  "the text of the format read");
	char *kernel = NULL;
	size_t klen = 0;
	FILE *fp = fopen(EVENTS "/sched/sched_switch/format", "r");
	cr_assert(fp);
	cr_assert_gt(getdelim(&kernel, &klen, '\0', fp), 0);
	fclose(fp);
	cr_expect_str_eq(f.text, kernel);
	free(kernel);
	tw_format_ref again;
	cr_assert(tw_trace_format_at(t, switch_at, &again));
	cr_expect_eq(again.text, f.text, "read once, kept");
	trawl_live_free(lv);
}

struct seen {
	long wakeups, unknown, prints;
};

static int on_any(const trawl_event *ev, void *ctx)
{
	struct seen *s = ctx;
	const char *name = trawl_event_name(ev);
	if (!strncmp(name, "unknown_event", 13))
		s->unknown++;
	else if (!strcmp(name, "sched_wakeup") || !strcmp(name, "sched_waking"))
		s->wakeups++;
	else if (!strcmp(name, "print"))
		s->prints++;
	return 0;
}

Test(live_formats, an_enabled_events_format_is_read_before_its_records)
{
	const char *why = tracing_unavailable();
	if (why)
		cr_skip_test("%s", why);
	trawl_error err = {0};
	trawl_live *lv = open_session();
	trawl_trace *t = trawl_live_trace(lv);
	struct seen s = {0};
	/* nothing asked for these formats before the start */
	cr_assert_eq(trawl_on(t, "*", on_any, &s), 0);
	cr_assert_eq(trawl_live_enable(lv, "sched:sched_waking", NULL, &err), 0,
		     "%s", err.msg);
	cr_assert_eq(trawl_live_enable(lv, "sched:sched_wakeup", NULL, &err), 0,
		     "%s", err.msg);
	cr_assert_eq(trawl_live_start(lv, &err), 0, "%s", err.msg);
	for (int i = 0; i < 20; i++)
		usleep(2000); /* each sleep's end is a wakeup */
	/* ftrace's print, which no one enabled, through the instance's
	 * trace_marker */
	char marker[256];
	snprintf(marker, sizeof(marker),
		 "/sys/kernel/tracing/instances/trawl-%d/trace_marker",
		 (int)getpid());
	FILE *m = fopen(marker, "w");
	cr_assert(m, "%s", marker);
	fputs("hello from the test", m);
	fclose(m);
	usleep(20000);
	trawl_live_stop(lv);
	cr_assert_eq(trawl_run(t, &err), 0, "%s", err.msg);
	cr_assert_eq(trawl_live_finish(lv, &err), 0, "%s", err.msg);
	trawl_live_free(lv);
	cr_expect_gt(s.wakeups, 0, "wakeups decoded by name");
	cr_expect_eq(s.prints, 1, "the marker decoded as print");
	cr_expect_eq(s.unknown, 0, "%ld events of a format not read",
		     s.unknown);
}

Test(live_formats, an_event_the_kernel_lacks_is_refused_at_the_start)
{
	const char *why = tracing_unavailable();
	if (why)
		cr_skip_test("%s", why);
	trawl_error err = {0};
	trawl_live *lv = open_session();
	cr_assert_eq(trawl_live_enable(lv, "sched:no_such_event", NULL, &err),
		     0, "%s", err.msg);
	cr_assert_lt(trawl_live_start(lv, &err), 0);
	cr_expect(strstr(err.msg, "no_such_event"), "the error names it: %s",
		  err.msg);
	trawl_live_free(lv);
	cr_expect(!own_instance_left(), "nothing left in tracefs");
}

/* The address /proc/kallsyms gives a text symbol, 0 when not there (or
 * hidden: not root). */
static uint64_t kallsyms_addr(const char *name)
{
	FILE *fp = fopen("/proc/kallsyms", "r");
	char line[512], sym[256], type;
	unsigned long long addr, found = 0;
	while (fp && !found && fgets(line, sizeof(line), fp))
		if (sscanf(line, "%llx %c %255s", &addr, &type, sym) == 3 &&
		    (type == 'T' || type == 't') && !strcmp(sym, name))
			found = addr;
	if (fp)
		fclose(fp);
	return found;
}

/* trawl_trace_symbol() on a session: from the /proc/kallsyms read at the
 * open, or, opened without them, read at the first call; the same answer
 * both ways. */
Test(live_formats, kernel_symbols_come_from_this_machines_kallsyms)
{
	const char *why = tracing_unavailable();
	if (why)
		cr_skip_test("%s", why);
	uint64_t at = kallsyms_addr("schedule");
	if (!at)
		cr_skip_test("/proc/kallsyms has no address for schedule");
	for (int without = 0; without < 2; without++) {
		trawl_error err = {0};
		trawl_live_opts o = {.flags = without ? TRAWL_LIVE_NO_KALLSYMS
						      : 0};
		trawl_live *lv = trawl_live_open(&o, &err);
		cr_assert(lv, "%s", err.msg);
		trawl_trace *t = trawl_live_trace(lv);
		uint64_t off = 0, size = 0;
		const char *name = trawl_trace_symbol(t, at + 1, &off, &size);
		cr_assert(name, "a symbol for schedule+1 (without: %d)",
			  without);
		cr_expect_eq(kallsyms_addr(name), at, "%s is at schedule's",
			     name);
		cr_expect_eq(off, 1);
		cr_expect_gt(size, 1);
		/* again: from the table, the same string */
		cr_expect_eq(trawl_trace_symbol(t, at + 1, NULL, NULL), name);
		trawl_live_free(lv);
	}
}
