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
#include <unistd.h>

#include <trawl/trawl.h>

#include "../helpers/helpers.h"

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

/* Labels by handle: on a trace.dat made for the one field asked (the
 * reader's get_label), they must be the labels the field enumeration
 * shows; on the text of the same recording, the same labels again. */
struct labels {
	trawl_field h[3];
	char got[8192][24];
	int n, enumerated;
};

static const char *const labelled[3][2] = {
	{"sched_switch", "prev_state"},
	{"softirq_entry", "vec"},
	{"hrtimer_start", "mode"},
};

static int on_label(const trawl_event *ev, void *ctx)
{
	struct labels *l = ctx;
	for (int i = 0; i < 3 && l->n < 8192; i++) {
		size_t n = 0;
		const char *s = trawl_event_label(ev, l->h[i], &n);
		if (!s)
			continue;
		snprintf(l->got[l->n], sizeof(l->got[0]), "%.*s", (int)n, s);
		/* the enumeration's label of that field, decoded in full */
		size_t nf = trawl_event_field_count(ev);
		for (size_t f = 0; f < nf; f++) {
			size_t kl, ll;
			const char *k = trawl_event_field_name(ev, f, &kl);
			if (kl != strlen(labelled[i][1]) ||
			    memcmp(k, labelled[i][1], kl))
				continue;
			const char *e = trawl_event_field_label(ev, f, &ll);
			cr_assert_not_null(e, "%s has no label enumerated",
					   labelled[i][1]);
			cr_assert(ll == n && !memcmp(e, s, n),
				  "%s: %.*s by handle, %.*s enumerated",
				  labelled[i][1], (int)n, s, (int)ll, e);
			l->enumerated++;
		}
		l->n++;
	}
	return 0;
}

static struct labels *labels_of(const char *name)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/%s", getenv("TRAWL_FIXTURES"), name);
	trawl_error err;
	trawl_trace *t = trawl_open(path, NULL, &err);
	cr_assert_not_null(t, "%s: %s", path, err.msg);
	struct labels *l = calloc(1, sizeof(*l));
	cr_assert_not_null(l);
	for (int i = 0; i < 3; i++)
		l->h[i] = trawl_field_lookup(t, labelled[i][0], labelled[i][1]);
	cr_assert_eq(trawl_on(t, "*", on_label, l), 0);
	cr_assert_eq(trawl_run(t, &err), 0, "%s", err.msg);
	trawl_close(t);
	return l;
}

Test(fields, labels_by_handle_are_the_enumerated_ones_on_both_sources)
{
	struct labels *bin = labels_of("pair-broad.dat");
	struct labels *txt = labels_of("pair-broad.txt");
	cr_assert_gt(bin->n, 50, "only %d labels", bin->n);
	cr_assert_eq(bin->enumerated, bin->n);
	cr_assert_eq(bin->n, txt->n, "%d labels vs %d", bin->n, txt->n);
	for (int k = 0; k < bin->n; k++)
		cr_assert_str_eq(bin->got[k], txt->got[k], "label %d", k);
	free(bin);
	free(txt);
}

/* trawl_event_field_get() and trawl_event_fields() say what the accessors
 * one by one say, for every field of every event: binary, text with
 * formats, text without. */
struct agree {
	long fields, ints, strs;
	unsigned long events;
};

static int check_field_get(const trawl_event *ev, void *ctx)
{
	struct agree *a = ctx;
	/* trawl_event_fields() first (a reader may answer it without
	 * decoding: the trace.dat merge ahead's compact form), with room
	 * for one first, or after the event was decoded */
	trawl_field_entry fe[80], one[2];
	one[1].name = "untouched";
	size_t nf = 0, n1 = 0;
	unsigned long way = a->events++ % 3;
	if (way == 0)
		nf = trawl_event_fields(ev, fe, 80);
	if (way == 1) {
		n1 = trawl_event_fields(ev, one, 1);
		nf = trawl_event_fields(ev, fe, 80);
	}
	size_t n = trawl_event_field_count(ev);
	if (way == 2) {
		nf = trawl_event_fields(ev, fe, 80);
		n1 = trawl_event_fields(ev, one, 1);
	}
	cr_assert_eq(nf, n);
	if (way) /* with room for one: that one only, and still the count */
		cr_assert_eq(n1, n);
	cr_assert_str_eq(one[1].name, "untouched");
	for (size_t i = 0; i <= n; i++) {
		trawl_value v;
		int rc = trawl_event_field_get(ev, i, &v);
		if (i < n) {
			size_t kl;
			const char *k = trawl_event_field_name(ev, i, &kl);
			const trawl_value *w = &fe[i].value;
			cr_assert(fe[i].name == k && fe[i].name_len == kl);
			cr_assert(w->type == v.type && w->flags == v.flags &&
					  w->i == v.i && w->s == v.s &&
					  w->len == v.len,
				  "%s field %zu", trawl_event_name(ev), i);
			if (i == 0 && n1)
				cr_assert(one[0].name == k &&
					  one[0].value.i == v.i);
		}
		if (i == n) {
			cr_assert_eq(rc, -TRAWL_ENOENT);
			cr_assert_eq(v.type, TRAWL_VALUE_NONE);
			break;
		}
		a->fields++;
		cr_assert_eq(rc, 0);
		cr_assert_eq(v.type, trawl_event_field_type(ev, i),
			     "%s field %zu", trawl_event_name(ev), i);
		cr_assert_eq(v.flags, trawl_event_field_flags(ev, i));
		int64_t x;
		if (v.type == TRAWL_VALUE_INT) {
			a->ints++;
			cr_assert_eq(trawl_event_field_int(ev, i, &x), 0);
			cr_assert_eq(v.i, x);
			cr_assert_null(v.s);
		} else if (v.type == TRAWL_VALUE_STR ||
			   v.type == TRAWL_VALUE_TEXT) {
			a->strs++;
			size_t len;
			const char *s = trawl_event_field_value(ev, i, &len);
			cr_assert_eq(v.len, len);
			cr_assert(len == 0 || !memcmp(v.s, s, len), "%s %.*s",
				  trawl_event_name(ev), (int)len, s);
		}
	}
	return 0;
}

static void field_get_agrees(const char *file, const char *formats)
{
	const char *path = fixture(file);
	trawl_open_opts o = {.formats = formats};
	trawl_error err;
	trawl_trace *t = trawl_open(path, &o, &err);
	cr_assert(t, "%s", err.msg);
	struct agree a = {0};
	cr_assert_eq(trawl_on(t, "*", check_field_get, &a), 0);
	cr_assert_eq(trawl_run(t, &err), 0, "%s", err.msg);
	trawl_close(t);
	cr_assert_gt(a.ints, 1000, "%s: %ld integers", file, a.ints);
	cr_assert_gt(a.strs, 100, "%s: %ld strings", file, a.strs);
}

Test(fields, field_get_is_the_accessors_in_one_call)
{
	field_get_agrees("pair-broad.dat", NULL);
	field_get_agrees("pair-broad.txt", NULL);
	field_get_agrees("pair-broad.txt", "none");
}

/* Integers read by handle (trawl_event_get_int(), which reads a plain
 * integer straight from the record once the reader has found it so) are
 * the enumerated ones, on every event, signed and unsigned, every size. */
struct by_handle {
	trawl_trace *t;
	trawl_field (*h)[16]; /* by type id and field */
	size_t nh;
	long ints, marker_ints;
};

static int check_handles(const trawl_event *ev, void *ctx)
{
	struct by_handle *b = ctx;
	/* print's marker fields are parsed from its text, so the same
	 * index names different fields on different events (a counter's
	 * "value", an async slice's "cookie"): looked up by name each time */
	int by_name = !strcmp(trawl_event_name(ev), "print");
	uint32_t id = trawl_event_type_id(ev);
	size_t n = trawl_event_field_count(ev);
	if (id >= b->nh) {
		size_t nh = (size_t)id + 64;
		b->h = realloc(b->h, nh * sizeof(*b->h));
		cr_assert(b->h);
		memset(b->h + b->nh, 0, (nh - b->nh) * sizeof(*b->h));
		b->nh = nh;
	}
	for (size_t i = 0; i < n && i < 16; i++) {
		if (trawl_event_field_type(ev, i) != TRAWL_VALUE_INT)
			continue;
		if (!b->h[id][i] || by_name) {
			size_t kl;
			const char *k = trawl_event_field_name(ev, i, &kl);
			char name[128];
			snprintf(name, sizeof(name), "%.*s", (int)kl, k);
			b->h[id][i] = trawl_field_lookup(
				b->t, trawl_event_name(ev), name);
			cr_assert(b->h[id][i]);
		}
		int64_t want, got;
		cr_assert_eq(trawl_event_field_int(ev, i, &want), 0);
		cr_assert_eq(trawl_event_get_int(ev, b->h[id][i], &got), 0);
		cr_assert_eq(got, want, "%s field %zu: %lld, not %lld",
			     trawl_event_name(ev), i, (long long)got,
			     (long long)want);
		b->ints++;
		b->marker_ints += by_name;
	}
	return 0;
}

static void handles_agree(const char *path, long marker_ints)
{
	trawl_open_opts o = {0};
	trawl_error err;
	struct by_handle *b = calloc(1, sizeof(*b));
	cr_assert(b);
	b->t = trawl_open(path, &o, &err);
	cr_assert(b->t, "%s", err.msg);
	cr_assert_eq(trawl_on(b->t, "*", check_handles, b), 0);
	cr_assert_eq(trawl_run(b->t, &err), 0, "%s", err.msg);
	trawl_close(b->t);
	cr_assert_gt(b->ints, 1000, "%s: %ld integers", path, b->ints);
	cr_assert_geq(b->marker_ints, marker_ints, "%s: %ld marker integers",
		      path, b->marker_ints);
	free(b->h);
	free(b);
}

Test(fields, integers_by_handle_are_the_enumerated_ones)
{
	handles_agree(fixture("pair-broad.dat"), 1);
	char synth[] = "/tmp/trawl-handles-XXXXXX";
	int fd = mkstemp(synth);
	cr_assert(fd >= 0);
	close(fd);
	cr_assert_eq(synth_dat(synth, 300, 50, -1, 0), 0);
	handles_agree(synth, 0);
	unlink(synth);
}

/* Long enough for the merge ahead to decode the fields (its compact form:
 * strings and plain integers), which trawl_event_fields() then reads
 * without decoding them into the event. */
Test(fields, fields_decoded_ahead_are_the_accessors_ones)
{
	char synth[] = "/tmp/trawl-fields-XXXXXX";
	int fd = mkstemp(synth);
	cr_assert(fd >= 0);
	close(fd);
	cr_assert_eq(synth_dat(synth, 3000, 500, -1, 0), 0);
	field_get_agrees(synth, NULL);
	unlink(synth);
}

/* tc-v6.dat with a MACHINE option (trawl's own, id 0x7472) of cpuidle
 * names as the first option; a page of option keeps the CPU data
 * page-aligned, and the flyrecord offsets move with it. */
static char *with_machine_option(const char *text, size_t *len)
{
	size_t n;
	char *d = read_whole(fixture("tc-v6.dat"), &n);
	cr_assert_not_null(d);
	const char tag[] = "options  ";
	char *opts = memmem(d, n, tag, sizeof(tag));
	cr_assert_not_null(opts);
	size_t at = (size_t)(opts - d) + sizeof(tag);
	char *out = calloc(1, n + 4096);
	memcpy(out, d, at);
	uint16_t id = 0x7472;
	uint32_t size = 4096 - 6;
	memcpy(out + at, &id, 2);
	memcpy(out + at + 2, &size, 4);
	memcpy(out + at + 6, text, strlen(text));
	memcpy(out + at + 4096, d + at, n - at);
	char *fly = memmem(out + at + 4096, n - at, "flyrecord", 10);
	cr_assert_not_null(fly);
	for (int cpu = 0; cpu < 2; cpu++) {
		uint64_t off;
		memcpy(&off, fly + 10 + 16 * cpu, 8);
		off += 4096;
		memcpy(fly + 10 + 16 * cpu, &off, 8);
	}
	free(d);
	*len = n + 4096;
	return out;
}

Test(dat, machine_option_names_idle_states)
{
	size_t n;
	char *d = with_machine_option("cpu0/cpuidle/state0/name=POLL\n"
				      "cpu0/cpuidle/state1/name=haltpoll "
				      "idle\ncpu1/cpuidle/state0/name=C1E\n",
				      &n);
	char *path = tmp_file(d, n);
	trawl_error err = {0};
	trawl_trace *t = trawl_open(path, NULL, &err);
	cr_assert_not_null(t, "%s", err.msg);
	cr_expect_str_eq(trawl_trace_host(t, "cpu0/cpuidle/state1/name"),
			 "haltpoll idle");
	cr_expect_str_eq(trawl_trace_host(t, "cpu1/cpuidle/state0/name"),
			 "C1E");
	cr_expect_null(trawl_trace_host(t, "cpu1/cpuidle/state1/name"));
	cr_expect_null(trawl_trace_host(t, "cpu0/cpuidle/state1"),
		       "a key's prefix is not the key");
	cr_expect_str_eq(trawl_trace_host(t, "hostname"), "vm");
	/* the events are all there */
	cr_expect_eq(trawl_run(t, &err), 0, "%s", err.msg);
	cr_expect_eq(trawl_trace_stats(t)->events, 1222);
	trawl_close(t);
	unlink(path);
	free(path);
	free(d);
}
