/* SPDX-License-Identifier: MIT */
/*
 * Typed field reads on a real trace.dat against the same recording as
 * `trace-cmd report -t` printed it (tcreport-t.txt, read by the text
 * reader): the same events in the same order, and the same integers and
 * strings through the same handles, whether they come from binary records
 * (libtraceevent formats) or from text.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <trawl/trawl.h>

#define MAX_EVENTS 4096
#define NINT	   10
#define NSTR	   3

static const char *const int_fields[NINT][2] = {
	{"sched_switch", "prev_pid"},	   {"sched_switch", "next_pid"},
	{"sched_switch", "prev_prio"},	   {"sched_switch", "next_prio"},
	{"sched_wakeup", "pid"},	   {"sched_waking", "target_cpu"},
	{"sched_stat_runtime", "runtime"}, {"irq_handler_entry", "irq"},
	{"softirq_entry", "vec"},	   {"sched_wakeup", "prio"},
};
static const char *const str_fields[NSTR][2] = {
	{"sched_switch", "prev_comm"},
	{"sched_switch", "next_comm"},
	{"sched_wakeup", "comm"},
};

struct row {
	int64_t ts;
	int cpu, pid;
	char name[32];
	int has[NINT];
	int64_t v[NINT];
	char s[NSTR][20];
};

struct run {
	trawl_field ih[NINT], sh[NSTR];
	struct row rows[MAX_EVENTS];
	int n;
};

static int on_event(const trawl_event *ev, void *ctx)
{
	struct run *r = ctx;
	cr_assert_lt(r->n, MAX_EVENTS);
	struct row *w = &r->rows[r->n++];
	w->ts = trawl_event_time(ev);
	w->cpu = trawl_event_cpu(ev);
	w->pid = trawl_event_pid(ev);
	snprintf(w->name, sizeof(w->name), "%s", trawl_event_name(ev));
	for (int i = 0; i < NINT; i++)
		w->has[i] = trawl_event_get_int(ev, r->ih[i], &w->v[i]) == 0;
	for (int i = 0; i < NSTR; i++) {
		const char *s = trawl_event_str(ev, r->sh[i]);
		snprintf(w->s[i], sizeof(w->s[i]), "%s", s ? s : "");
	}
	return 0;
}

static struct run *read_all(const char *file)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", getenv("TRAWL_FIXTURES"), file);
	trawl_error err;
	trawl_trace *t = trawl_open(path, NULL, &err);
	cr_assert(t, "%s", err.msg);
	struct run *r = calloc(1, sizeof(*r));
	for (int i = 0; i < NINT; i++)
		r->ih[i] = trawl_field_lookup(t, int_fields[i][0],
					      int_fields[i][1]);
	for (int i = 0; i < NSTR; i++)
		r->sh[i] = trawl_field_lookup(t, str_fields[i][0],
					      str_fields[i][1]);
	cr_assert_eq(trawl_on(t, "*", on_event, r), 0);
	cr_assert_eq(trawl_run(t, &err), 0, "%s", err.msg);
	trawl_close(t);
	return r;
}

Test(dat_fields, binary_and_report_text_agree)
{
	cr_assert(getenv("TRAWL_FIXTURES"), "TRAWL_FIXTURES is not set");
	struct run *bin = read_all("tc.dat");
	struct run *txt = read_all("tcreport-t.txt");
	cr_assert_eq(bin->n, txt->n, "%d vs %d events", bin->n, txt->n);
	int checked = 0;
	for (int k = 0; k < bin->n; k++) {
		const struct row *a = &bin->rows[k], *b = &txt->rows[k];
		cr_assert_eq(a->ts, b->ts, "event %d time", k);
		cr_assert_eq(a->cpu, b->cpu, "event %d cpu", k);
		cr_assert_eq(a->pid, b->pid, "event %d pid", k);
		cr_assert_str_eq(a->name, b->name, "event %d", k);
		for (int i = 0; i < NINT; i++) {
			cr_assert_eq(a->has[i], b->has[i], "event %d (%s) %s",
				     k, a->name, int_fields[i][1]);
			if (!a->has[i])
				continue;
			cr_assert_eq(a->v[i], b->v[i],
				     "event %d (%s) %s: %lld vs %lld", k,
				     a->name, int_fields[i][1],
				     (long long)a->v[i], (long long)b->v[i]);
			checked++;
		}
		for (int i = 0; i < NSTR; i++)
			cr_assert_str_eq(a->s[i], b->s[i], "event %d %s", k,
					 str_fields[i][1]);
	}
	cr_assert_gt(checked, 500, "only %d values compared", checked);
	free(bin);
	free(txt);
}
