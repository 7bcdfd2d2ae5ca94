/* SPDX-License-Identifier: MIT */
/*
 * perf.data beyond tracepoints (lib/perf/perf-synth.c), on a real
 * recording (tests/fixtures/perf-g.perf: perf record -a -g -e
 * sched:sched_switch -e sched:sched_wakeup -e cpu-clock -F 499, with the
 * perf script output beside it, which check-perf-callchain.py compares
 * frame by frame) and on copies of it damaged one way each:
 *
 * - a cpu-clock sample is a perf:cpu_clock event with ip and period, its
 *   text the kernel's way of naming an address, its tgid the sample's;
 * - every sample with a callchain is followed, at its time and on its CPU,
 *   by ftrace:kernel_stack (the kernel frames, the first the sample's ip
 *   when it was taken in the kernel) and, when it has user frames, by
 *   ftrace:user_stack (tests/script/test-kstack.c keys maps by them);
 * - a callchain whose length runs past its record is counted as damage at
 *   the record's offset (--strict: the error), the rest read.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <trawl/trawl.h>

#include "../../lib/perf/perf-int.h"
#include "../helpers/helpers.h"

#define FIXTURE "perf-g.perf"

struct seen {
	size_t n, samples, clock, kstacks, ustacks;
	size_t kernel_clock;	       /* cpu-clock samples in the kernel */
	size_t ip_first, out_of_place; /* their ip is the first frame */
	int64_t last_ts;
	int last_cpu;
	uint64_t last_ip;
	int want_stack; /* the last event was a sample: its stack next */
	int64_t period;
	char text[256];
};

static int field(const trawl_event *ev, const char *name, int64_t *v)
{
	for (size_t i = 0; i < trawl_event_field_count(ev); i++) {
		size_t n;
		const char *k = trawl_event_field_name(ev, i, &n);
		if (n == strlen(name) && !memcmp(k, name, n))
			return trawl_event_field_int(ev, i, v);
	}
	return -1;
}

static int frames(const trawl_event *ev, const int64_t **el)
{
	for (size_t i = 0; i < trawl_event_field_count(ev); i++) {
		size_t n;
		const char *k = trawl_event_field_name(ev, i, &n);
		if (n == 6 && !memcmp(k, "caller", 6))
			return (int)trawl_event_field_array(ev, i, el);
	}
	return -1;
}

static int on_event(const trawl_event *ev, void *ctx)
{
	struct seen *s = ctx;
	const char *sys = trawl_event_system(ev), *name = trawl_event_name(ev);
	s->n++;
	if (!strcmp(sys, "ftrace")) {
		int same = trawl_event_time(ev) == s->last_ts &&
			   trawl_event_cpu(ev) == s->last_cpu;
		const int64_t *el = NULL;
		int nf = frames(ev, &el);
		cr_assert_geq(nf, 0, "%s has its frames", name);
		if (!strcmp(name, "kernel_stack")) {
			s->kstacks++;
			s->out_of_place += !same || s->want_stack != 1;
			if (s->last_ip >> 63 && nf > 0) {
				s->kernel_clock++;
				s->ip_first += (uint64_t)el[0] == s->last_ip;
			}
			s->want_stack = 2;
		} else {
			cr_assert_str_eq(name, "user_stack");
			cr_assert_gt(nf, 0, "a user stack has frames");
			s->ustacks++;
			s->out_of_place += !same || s->want_stack != 2;
			s->want_stack = 0;
		}
		return 0;
	}
	cr_assert_neq(s->want_stack, 1, "a sample has its kernel stack");
	s->samples++;
	s->last_ts = trawl_event_time(ev);
	s->last_cpu = trawl_event_cpu(ev);
	s->want_stack = 1;
	s->last_ip = 0;
	if (!strcmp(sys, "perf")) {
		cr_assert_str_eq(name, "cpu_clock");
		s->clock++;
		int64_t ip, period;
		cr_assert_eq(field(ev, "ip", &ip), 0);
		cr_assert_eq(field(ev, "period", &period), 0);
		cr_assert(trawl_event_pid(ev) == 0 || trawl_event_tgid(ev) > 0,
			  "its process, from the sample");
		cr_assert_gt(period, 0);
		s->period = period;
		s->last_ip = (uint64_t)ip;
		size_t len;
		const char *p = trawl_event_payload(ev, &len);
		snprintf(s->text, sizeof(s->text), "%.*s", (int)len, p);
		cr_assert(!strncmp(s->text, "ip=", 3), "%s", s->text);
	}
	return 0;
}

static struct seen read_file(const char *path, int *rc, trawl_stats *st)
{
	trawl_error err;
	struct seen s = {.last_cpu = -2};
	trawl_trace *t = trawl_open(path, NULL, &err);
	cr_assert(t, "%s", err.msg);
	cr_assert_eq(trawl_on(t, "*", on_event, &s), 0);
	*rc = trawl_run(t, &err);
	*st = *trawl_trace_stats(t);
	trawl_close(t);
	return s;
}

/* Lines of the fixture's perf script output that are samples of an
 * event: not a frame, a blank line or another record. */
static void perf_script_counts(size_t *samples, size_t *clock)
{
	size_t n;
	char *raw = read_whole(fixture(FIXTURE ".script"), &n);
	cr_assert(raw);
	char *text = strndup(raw, n); /* read_whole()'s is not a string */
	free(raw);
	*samples = *clock = 0;
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		if (line[0] == '\t' || strstr(line, "PERF_RECORD_"))
			continue;
		(*samples)++;
		*clock += strstr(line, " cpu-clock:") != NULL;
	}
	free(text);
}

Test(perf_callchain, samples_and_their_stacks_as_ftrace_writes_them)
{
	int rc;
	trawl_stats st;
	struct seen s = read_file(fixture(FIXTURE), &rc, &st);
	cr_assert_eq(rc, 0);
	size_t samples, clock;
	perf_script_counts(&samples, &clock);
	cr_assert_eq(s.samples, samples, "%zu samples, perf script %zu",
		     s.samples, samples);
	cr_assert_eq(s.clock, clock);
	cr_assert_gt(clock, 0);
	cr_assert_eq(s.kstacks, samples, "a kernel stack for every sample");
	cr_assert_gt(s.ustacks, 0);
	cr_assert_eq(s.out_of_place, 0, "each right after its sample");
	cr_assert_eq(s.n, samples + s.kstacks + s.ustacks);
	cr_assert_gt(s.kernel_clock, 0);
	cr_assert_eq(s.ip_first, s.kernel_clock,
		     "a kernel sample's ip is its stack's first frame");
	cr_assert_eq(st.bad_lines, 0);
	cr_assert_eq(st.reordered, 0);
}

/* The offset of the n-th sample (from 0) of a callchain, and where its
 * nr is: the fixture's attrs put IDENTIFIER, IP, TID, TIME, (ID,) CPU
 * and PERIOD before it, all words. */
static size_t callchain_sample(const unsigned char *p, size_t len, int n,
			       size_t *nr_at)
{
	uint64_t data, size;
	memcpy(&data, p + 40, 8);
	memcpy(&size, p + 48, 8);
	for (size_t at = data; at + 8 <= data + size && at + 8 <= len;) {
		uint32_t type;
		uint16_t rsize;
		memcpy(&type, p + at, 4);
		memcpy(&rsize, p + at + 6, 2);
		if (rsize < 8)
			break;
		/* a sample of a sched tracepoint (IDENTIFIER first: 7 words
		 * then nr) whose nr is small and fits */
		if (type == 9 && rsize > 8 + 8 * 8) {
			uint64_t nr;
			memcpy(&nr, p + at + 8 + 6 * 8, 8);
			if (nr > 0 && nr < 64 && 8 + 7 * 8 + nr * 8 < rsize &&
			    n-- == 0) {
				*nr_at = at + 8 + 6 * 8;
				return at;
			}
		}
		at += rsize;
	}
	return 0;
}

Test(perf_callchain, a_callchain_past_its_record_is_counted_at_its_offset)
{
	size_t len, nr_at;
	unsigned char *p = (unsigned char *)read_whole(fixture(FIXTURE), &len);
	cr_assert(p);
	size_t at = callchain_sample(p, len, 3, &nr_at);
	cr_assert_gt(at, 0, "the fixture has such a sample");
	uint64_t huge = 4000; /* 32000 bytes: past the record */
	memcpy(p + nr_at, &huge, 8);
	char *path = tmp_file(p, len);
	int rc;
	trawl_stats st;
	struct seen s = read_file(path, &rc, &st);
	cr_assert_eq(rc, 0, "the rest is read");
	cr_assert_eq(st.bad_lines, 1, "the damaged sample counted");
	cr_assert_eq(st.bad_line[0], at, "at its offset (%llu, not %llu)",
		     (unsigned long long)st.bad_line[0],
		     (unsigned long long)at);
	size_t samples, clock;
	perf_script_counts(&samples, &clock);
	cr_assert_eq(s.samples, samples - 1);
	cr_assert_eq(s.out_of_place, 0);
	/* --strict: the error, naming the offset */
	trawl_open_opts o = {.flags = TRAWL_OPEN_STRICT};
	trawl_error err;
	trawl_trace *t = trawl_open(path, &o, &err);
	cr_assert(t);
	cr_assert_neq(trawl_run(t, &err), 0);
	char want[32];
	snprintf(want, sizeof(want), "offset %zu", at);
	cr_assert(strstr(err.msg, want), "%s", err.msg);
	trawl_close(t);
	unlink(path);
	free(path);
	free(p);
}

/* A user stack's frames name their files as perf script does, from the
 * MMAP records: "path+0xoffset" after the address. */
static int on_user_stack(const trawl_event *ev, void *ctx)
{
	size_t *named = ctx, len;
	const char *p = trawl_event_payload(ev, &len);
	for (const char *q = p;
	     (q = memmem(q, len - (size_t)(q - p), "> (/", 4)); q++)
		named[0]++;
	const char *j = trawl_event_fields_json(ev, &len);
	named[1] += memmem(j, len, "\"maps\":\"", 8) != NULL;
	return 0;
}

Test(perf_callchain, user_frames_name_their_files)
{
	trawl_error err;
	trawl_trace *t = trawl_open(fixture(FIXTURE), NULL, &err);
	cr_assert(t, "%s", err.msg);
	size_t named[2] = {0, 0};
	cr_assert_eq(trawl_on(t, "ftrace:user_stack", on_user_stack, named), 0);
	cr_assert_eq(trawl_run(t, &err), 0, "%s", err.msg);
	trawl_close(t);
	/* the fixture's perf script output: frames in a file, not
	 * [unknown] */
	size_t n;
	char *raw = read_whole(fixture(FIXTURE ".script"), &n);
	cr_assert(raw);
	size_t want = 0;
	for (const char *q = raw;
	     (q = memmem(q, n - (size_t)(q - raw), " (/", 3)); q++)
		want++;
	free(raw);
	cr_assert_gt(named[0], 0);
	cr_assert_eq(named[0], want, "%zu frames named, perf script %zu",
		     named[0], want);
	cr_assert_gt(named[1], 0, "the JSON has the maps");
}

/* The mappings of a process: a new one takes the place of what it
 * covers, splitting one it falls inside; a fork copies them. */
static const char *at(const tw_perf_maps *m, int32_t pid, uint64_t addr,
		      uint64_t *rel)
{
	*rel = 0;
	const char *n =
		tw_perf_maps_find(m, tw_perf_maps_proc(m, pid), addr, rel);
	return n ? n : "-";
}

Test(perf_callchain, mappings_replace_what_they_cover)
{
	tw_mem mem;
	tw_mem_init(&mem, NULL, NULL);
	tw_perf_maps m = {.mem = &mem};
	uint64_t rel;
	cr_assert_eq(tw_perf_maps_add(&m, 7, 0x1000, 0x4000, 0, "a", 1), 0);
	cr_assert_eq(tw_perf_maps_add(&m, 7, 0x8000, 0x1000, 0x10, "c", 1), 0);
	/* b falls inside a: a before it and after it (its offset moved) */
	cr_assert_eq(tw_perf_maps_add(&m, 7, 0x2000, 0x1000, 0x500, "b", 1), 0);
	cr_assert_str_eq(at(&m, 7, 0x1800, &rel), "a");
	cr_assert_eq(rel, 0x800);
	cr_assert_str_eq(at(&m, 7, 0x2010, &rel), "b");
	cr_assert_eq(rel, 0x510);
	cr_assert_str_eq(at(&m, 7, 0x3004, &rel), "a");
	cr_assert_eq(rel, 0x2004, "the right part keeps its file offset");
	cr_assert_str_eq(at(&m, 7, 0x5000, &rel), "-");
	cr_assert_str_eq(at(&m, 7, 0x8fff, &rel), "c");
	/* d covers the end of a and all of c */
	cr_assert_eq(tw_perf_maps_add(&m, 7, 0x4000, 0x6000, 0, "d", 1), 0);
	cr_assert_str_eq(at(&m, 7, 0x3fff, &rel), "a");
	cr_assert_str_eq(at(&m, 7, 0x4000, &rel), "d");
	cr_assert_str_eq(at(&m, 7, 0x8800, &rel), "d");
	cr_assert_eq(rel, 0x4800);
	cr_assert_str_eq(at(&m, 7, 0xa000, &rel), "-");
	/* a fork: the child has them, the parent keeps them */
	cr_assert_eq(tw_perf_maps_fork(&m, 9, 7), 0);
	cr_assert_str_eq(at(&m, 9, 0x2010, &rel), "b");
	cr_assert_eq(tw_perf_maps_add(&m, 9, 0x2000, 0x1000, 0, "e", 1), 0);
	cr_assert_str_eq(at(&m, 9, 0x2010, &rel), "e");
	cr_assert_str_eq(at(&m, 7, 0x2010, &rel), "b");
	cr_assert_str_eq(at(&m, 8, 0x2010, &rel), "-", "another process");
	/* many processes: the table grows */
	for (int32_t pid = 100; pid < 1200; pid++)
		cr_assert_eq(tw_perf_maps_add(&m, pid, 0x1000, 0x10, 0, "x", 1),
			     0);
	cr_assert_str_eq(at(&m, 9, 0x2010, &rel), "e");
	cr_assert_str_eq(at(&m, 1199, 0x1008, &rel), "x");
	tw_perf_maps_fini(&m);
}
