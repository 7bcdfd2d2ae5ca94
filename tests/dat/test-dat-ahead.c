/* SPDX-License-Identifier: MIT */
/*
 * The trace.dat merge run ahead on a second thread (lib/dat/dat-ahead.c)
 * against the same reader on one thread: the same events in the same
 * order, the same texts and the same typed fields, labels and arrays,
 * whether a consumer reads everything, only some types, or stops early.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <trawl/trawl.h>

#include "../helpers/helpers.h"

/* What a consumer saw, folded into one number per event and overall. */
struct seen {
	uint64_t events;
	uint64_t hash;
	uint64_t texts, fields;
	uint64_t stop_after; /* 0: read to the end */
	int only_text;	     /* read only the text (the report's pattern) */
	int every_other;     /* read every other event's fields only */
	int json;	     /* read the fields as JSON only (the exports) */
	int batch;	     /* all fields in one call (the CSV export) */
};

static uint64_t mix(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;
	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	return h;
}

static uint64_t mix_int(uint64_t h, int64_t v)
{
	return mix(h, &v, sizeof(v));
}

static int on_event(const trawl_event *ev, void *ctx)
{
	struct seen *s = ctx;
	uint64_t h = s->hash;
	h = mix_int(h, (int64_t)trawl_event_seq(ev));
	h = mix_int(h, trawl_event_time(ev));
	h = mix_int(h, trawl_event_cpu(ev));
	h = mix_int(h, trawl_event_pid(ev));
	const char *name = trawl_event_name(ev);
	h = mix(h, name, strlen(name));
	size_t len;
	const char *text = trawl_event_payload(ev, &len);
	h = mix(h, text, len);
	s->texts++;
	if (s->json) {
		size_t jl;
		const char *j = trawl_event_fields_json(ev, &jl);
		h = mix(h, j, jl);
		s->fields++;
	} else if (s->batch) {
		trawl_field_entry fe[80];
		size_t n = trawl_event_fields(ev, fe, 80);
		for (size_t i = 0; i < n && i < 80; i++) {
			const trawl_value *v = &fe[i].value;
			h = mix(h, fe[i].name, fe[i].name_len);
			h = mix_int(h, v->type);
			h = mix_int(h, v->flags);
			h = mix_int(h, v->i);
			if (v->s)
				h = mix(h, v->s, v->len);
			s->fields++;
		}
	} else if (!s->only_text && (!s->every_other || s->events % 2 == 0)) {
		size_t n = trawl_event_field_count(ev);
		for (size_t i = 0; i < n; i++) {
			size_t kl, vl, ll;
			const char *k = trawl_event_field_name(ev, i, &kl);
			const char *v = trawl_event_field_value(ev, i, &vl);
			h = mix(h, k, kl);
			h = mix(h, v, vl);
			h = mix_int(h, trawl_event_field_type(ev, i));
			h = mix_int(h, trawl_event_field_flags(ev, i));
			int64_t x;
			if (trawl_event_field_int(ev, i, &x) == 0)
				h = mix_int(h, x);
			const char *l = trawl_event_field_label(ev, i, &ll);
			if (l)
				h = mix(h, l, ll);
			const int64_t *el;
			size_t ne = trawl_event_field_array(ev, i, &el);
			if (ne)
				h = mix(h, el, ne * sizeof(*el));
			s->fields++;
		}
	}
	s->hash = h;
	s->events++;
	return s->stop_after && s->events == s->stop_after;
}

/*
 * One run with the merge on one thread (way NULL: --threads 1), or two
 * ways (TRAWL_MERGE_AHEAD, lib/dat/dat-choice.c): "on" the merge ahead from
 * the first event, "flip:N" handed over between the threads every N events
 * (the worker parked, its batches taken, the merge taken back on the
 * consumer's thread, the worker woken again), "auto" as it chooses.
 */
static void run(const char *name, const char *way, struct seen *s)
{
	const char *path = fixture(name);
	trawl_open_opts o = {.threads = way ? 0 : 1};
	if (way)
		setenv("TRAWL_MERGE_AHEAD", way, 1);
	else
		unsetenv("TRAWL_MERGE_AHEAD");
	trawl_error err;
	trawl_trace *t = trawl_open(path, &o, &err);
	cr_assert_not_null(t, "%s: %s", path, err.msg);
	cr_assert_eq(trawl_on(t, "*", on_event, s), 0);
	int rc = trawl_run(t, &err);
	if (s->stop_after)
		cr_assert_gt(rc, 0, "%s: the stop is the callback's", path);
	else
		cr_assert_eq(rc, 0, "%s: %s", path, err.msg);
	trawl_close(t);
}

static const char *const fixtures[] = {
	"pair-broad.dat",   "tc.dat",	       "tc-v6.dat",
	"tc-v7-nocomp.dat", "tc-instance.dat", "same-recording.dat",
};

/* The ways the two-thread runs take: ahead all along, handed over at odd
 * places (the first record, inside the first small batches, at a full
 * batch's edge) and left to choose. */
static const char *const ways[] = {"on",	 "flip:1",    "flip:7",
				   "flip:100",	 "flip:4096", "flip:4097",
				   "flip:40000", "auto"};

/* The fixtures, and a synthetic file long enough for the merge ahead to
 * take over decoding (its compact form) after the first batches, and for
 * the choice to time both ways (128 k events, 4 of its windows). */
static void same_both_ways(struct seen pattern)
{
	char synth[] = "/tmp/trawl-ahead-XXXXXX";
	int fd = mkstemp(synth);
	cr_assert(fd >= 0);
	close(fd);
	cr_assert_eq(synth_dat(synth, 28000, 4000, -1, 0), 0);
	const size_t nf = sizeof(fixtures) / sizeof(*fixtures);
	for (size_t i = 0; i <= nf; i++) {
		const char *name = i < nf ? fixtures[i] : synth;
		struct seen one = pattern;
		run(name, NULL, &one);
		cr_assert_gt(one.events, 0);
		for (size_t w = 0; w < sizeof(ways) / sizeof(*ways); w++) {
			struct seen two = pattern;
			run(name, ways[w], &two);
			cr_expect_eq(one.events, two.events,
				     "%s, %s: %llu vs %llu events", name,
				     ways[w], (unsigned long long)one.events,
				     (unsigned long long)two.events);
			cr_expect_eq(one.fields, two.fields,
				     "%s, %s: fields differ", name, ways[w]);
			cr_expect_eq(one.hash, two.hash,
				     "%s, %s: events, texts or fields differ "
				     "with the merge ahead",
				     name, ways[w]);
		}
	}
	unlink(synth);
}

Test(ahead, texts_and_fields_are_the_same_as_on_one_thread)
{
	same_both_ways((struct seen){0});
}

Test(ahead, texts_only_as_report_reads_them)
{
	same_both_ways((struct seen){.only_text = 1});
}

Test(ahead, fields_of_some_events_only)
{
	same_both_ways((struct seen){.every_other = 1});
}

Test(ahead, fields_as_json_as_the_exports_read_them)
{
	same_both_ways((struct seen){.json = 1});
}

Test(ahead, all_fields_in_one_call_as_the_csv_export_reads_them)
{
	same_both_ways((struct seen){.batch = 1});
}

/* A consumer that stops (report | head) leaves the thread mid-batch:
 * it is stopped and everything freed (ASan and LSan in make test). */
Test(ahead, a_consumer_that_stops_early)
{
	const uint64_t stops[] = {1, 100, 4096, 4097, 6000};
	for (size_t i = 0; i < sizeof(stops) / sizeof(*stops); i++) {
		struct seen one = {.stop_after = stops[i]};
		run("pair-broad.dat", NULL, &one);
		cr_expect_eq(one.events, stops[i]);
		for (size_t w = 0; w < sizeof(ways) / sizeof(*ways); w++) {
			struct seen two = {.stop_after = stops[i]};
			run("pair-broad.dat", ways[w], &two);
			cr_expect_eq(two.events, stops[i]);
			cr_expect_eq(one.hash, two.hash,
				     "%s: stopped after %llu", ways[w],
				     (unsigned long long)stops[i]);
		}
	}
}
