/* SPDX-License-Identifier: MIT */
/*
 * The perf.data reader on a real recording (tests/fixtures/perf-sched.perf)
 * and on copies of it damaged one way each: records cut short by the end
 * of the data, sizes that lie, feature sections over each other, over the
 * data or the table itself, attr counts and ids past the file, rounds
 * missing or broken. Each is a clear error naming the offset, or the
 * readable part with the damage counted at its offset; never a crash.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../helpers/helpers.h"

#define FIXTURE	       "perf-sched.perf"
#define FIXTURE_EVENTS 731
/* perf record -z, in file mode and in pipe mode (-o -) */
#define FIXTURE_Z	      "perf-sched-z.perf"
#define FIXTURE_Z_EVENTS      292
#define FIXTURE_PIPE_Z	      "perf-sched-pipe-z.perf"
#define FIXTURE_PIPE_Z_EVENTS 282

typedef struct file {
	unsigned char *p;
	size_t n;
} file;

static uint64_t u64_at(const file *f, size_t off)
{
	uint64_t v;
	memcpy(&v, f->p + off, 8);
	return v;
}

static void set_u64(file *f, size_t off, uint64_t v)
{
	memcpy(f->p + off, &v, 8);
}

static file load(void)
{
	file f;
	f.p = (unsigned char *)read_whole(fixture(FIXTURE), &f.n);
	cr_assert(f.p, "cannot read %s", fixture(FIXTURE));
	return f;
}

static uint64_t data_off(const file *f)
{
	return u64_at(f, 40);
}

static uint64_t data_end(const file *f)
{
	return u64_at(f, 40) + u64_at(f, 48);
}

/* The record at off: its type and size. */
static void record_at(const file *f, uint64_t off, uint32_t *type,
		      uint16_t *size)
{
	memcpy(type, f->p + off, 4);
	memcpy(size, f->p + off + 6, 2);
}

/* The offset of the k-th record of a type (k from 0), or 0. */
static uint64_t find_record(const file *f, uint32_t want, int k)
{
	for (uint64_t at = data_off(f); at < data_end(f);) {
		uint32_t type;
		uint16_t size;
		record_at(f, at, &type, &size);
		if (size < 8)
			return 0; /* damaged on purpose: the walk ends */
		if (type == want && k-- == 0)
			return at;
		at += size;
	}
	return 0;
}

static uint64_t last_record(const file *f)
{
	uint64_t last = 0;
	for (uint64_t at = data_off(f); at < data_end(f);) {
		uint32_t type;
		uint16_t size;
		record_at(f, at, &type, &size);
		if (size < 8)
			break;
		last = at;
		at += size;
	}
	return last;
}

static size_t samples_before(const file *f, uint64_t end)
{
	size_t n = 0;
	for (uint64_t at = data_off(f); at < end;) {
		uint32_t type;
		uint16_t size;
		record_at(f, at, &type, &size);
		if (size < 8)
			break;
		n += type == 9;
		at += size;
	}
	return n;
}

/* The feature sections' table: right after the data, 16 bytes each. */
static size_t nfeatures(const file *f)
{
	size_t n = 0;
	for (int i = 0; i < 32; i++)
		n += (size_t)__builtin_popcount(f->p[72 + i]);
	return n;
}

/* Index in the table of feature bit `bit`, or -1. */
static int feature_slot(const file *f, int bit)
{
	if (!((f->p[72 + bit / 8] >> (bit % 8)) & 1))
		return -1;
	int slot = 0;
	for (int b = 0; b < bit; b++)
		slot += (f->p[72 + b / 8] >> (b % 8)) & 1;
	return slot;
}

/*
 * Remove the bytes [from, to) of the data section: the data shrinks and
 * everything after it (the feature table and sections) moves down, their
 * offsets with it.
 */
static void cut_data(file *f, uint64_t from, uint64_t to)
{
	uint64_t gap = to - from, end = data_end(f);
	size_t table = (size_t)end;
	size_t nf = nfeatures(f);
	for (size_t i = 0; i < nf; i++) {
		uint64_t off = u64_at(f, table + i * 16);
		if (off >= end)
			set_u64(f, table + i * 16, off - gap);
	}
	memmove(f->p + from, f->p + to, f->n - to);
	f->n -= gap;
	set_u64(f, 48, u64_at(f, 48) - gap);
}

static void run(const file *f, got *g)
{
	char *path = tmp_file(f->p, f->n);
	collect_path(path, NULL, g);
	unlink(path);
	free(path);
}

static void sorted(const got *g)
{
	for (size_t i = 1; i < g->n; i++)
		cr_assert_geq(g->ev[i].ts, g->ev[i - 1].ts,
			      "event %zu out of order", i);
}

Test(perf_data, fixture_reads_every_sample_in_time_order)
{
	got g;
	cr_assert_eq(collect_path(fixture(FIXTURE), NULL, &g), 0, "%s",
		     g.err.msg);
	cr_assert_eq(g.format, TRAWL_FORMAT_PERF_DATA);
	cr_assert_eq(g.n, FIXTURE_EVENTS);
	cr_assert_eq(g.stats.bad_lines, 0);
	cr_assert_eq(g.stats.reordered, 0, "the rounds give the order");
	/* MMAP, MMAP2, EXIT, THREAD_MAP, CPU_MAP, FINISHED_INIT: skipped */
	file f = load();
	uint64_t skipped = 0;
	for (uint64_t at = data_off(&f); at < data_end(&f);) {
		uint32_t type;
		uint16_t size;
		record_at(&f, at, &type, &size);
		skipped += type != 9 && type != 3 && type != 7 && type != 2 &&
			   type != 13 && type != 68 && type != 69;
		at += size;
	}
	free(f.p);
	cr_assert_eq(g.stats.skipped_records, skipped);
	cr_assert_gt(skipped, 0);
	sorted(&g);
	int named = 0, in_process = 0;
	for (size_t i = 0; i < g.n; i++) {
		named += strcmp(g.ev[i].comm, "<...>") != 0;
		/* COMM and FORK say each task's process (pid 0's is 0) */
		in_process +=
			g.ev[i].pid ? g.ev[i].tgid > 0 : g.ev[i].tgid == 0;
	}
	cr_assert_eq(named, (int)g.n, "every task has its COMM's name");
	cr_assert_eq(in_process, (int)g.n, "every task has its process");
	got_free(&g);
}

/* Each record type met first, its data section ending halfway into it:
 * the records before are read, the error names the record. */
Test(perf_data, every_record_type_cut_short_reads_what_comes_before)
{
	static const uint32_t types[] = {1, 3, 4, 7, 9, 10, 68, 69, 73, 74, 82};
	for (size_t k = 0; k < sizeof(types) / sizeof(types[0]); k++) {
		file f = load();
		uint64_t at = find_record(&f, types[k], 0);
		cr_assert(at, "the fixture has a record of type %u", types[k]);
		uint32_t type;
		uint16_t size;
		record_at(&f, at, &type, &size);
		for (uint64_t keep = 4; keep < size; keep += size / 2) {
			file c = {malloc(f.n), f.n};
			memcpy(c.p, f.p, f.n);
			cut_data(&c, at + keep, data_end(&c));
			got g;
			run(&c, &g);
			char want[64];
			snprintf(want, sizeof(want), "at offset %llu",
				 (unsigned long long)at);
			cr_assert(strstr(g.err.msg, want),
				  "type %u cut at %llu: %s", type,
				  (unsigned long long)keep, g.err.msg);
			cr_assert(strstr(g.err.msg,
					 "records before it were read"),
				  "%s", g.err.msg);
			cr_assert_eq(g.n, samples_before(&f, at),
				     "type %u: the samples before are read",
				     type);
			sorted(&g);
			got_free(&g);
			free(c.p);
		}
		free(f.p);
	}
}

/* A record that says it is shorter than it is (8 bytes taken off its end
 * with its size): the reader counts it at its offset and reads the rest. */
Test(perf_data, records_shorter_than_their_content_are_counted_at_their_offset)
{
	static const uint32_t types[] = {3, 4, 7, 9, 10, 69};
	for (size_t k = 0; k < sizeof(types) / sizeof(types[0]); k++) {
		file f = load();
		uint64_t at = find_record(&f, types[k], 3);
		if (!at)
			at = find_record(&f, types[k], 0);
		cr_assert(at, "the fixture has a record of type %u", types[k]);
		uint16_t size;
		uint32_t type;
		record_at(&f, at, &type, &size);
		cut_data(&f, at + size - 8, at + size);
		uint16_t less = (uint16_t)(size - 8);
		memcpy(f.p + at + 6, &less, 2);
		got g;
		run(&f, &g);
		cr_assert_eq(g.rc, 0, "type %u: %s", type, g.err.msg);
		cr_assert_eq(g.stats.bad_lines, 1, "type %u", type);
		cr_assert_eq(g.stats.bad_line[0], at, "type %u", type);
		cr_assert_eq(g.n, FIXTURE_EVENTS - (type == 9), "type %u",
			     type);
		sorted(&g);
		got_free(&g);
		free(f.p);
	}
}

Test(perf_data, record_sizes_that_lie_stop_with_the_offset)
{
	file f = load();
	uint64_t at = find_record(&f, 9, 100);
	uint64_t last = last_record(&f);
	size_t before = samples_before(&f, at);
	cr_assert(at && last);
	uint16_t zero = 0, huge = 0xfff8;
	memcpy(f.p + at + 6, &zero, 2);
	got g;
	run(&f, &g);
	char want[96];
	snprintf(want, sizeof(want),
		 "a record smaller than its header at "
		 "offset %llu",
		 (unsigned long long)at);
	cr_assert(strstr(g.err.msg, want), "%s", g.err.msg);
	cr_assert_eq(g.n, before);
	got_free(&g);

	/* the last record claims more than the data holds */
	memcpy(f.p + at + 6, &(uint16_t){96}, 2);
	memcpy(f.p + last + 6, &huge, 2);
	run(&f, &g);
	snprintf(want, sizeof(want),
		 "runs past the data section at offset "
		 "%llu",
		 (unsigned long long)last);
	cr_assert(strstr(g.err.msg, want), "%s", g.err.msg);
	got_free(&g);

	/* a tracepoint's raw size past its record: that sample is counted */
	memcpy(f.p + last + 6, &(uint16_t){8}, 2);
	uint32_t lie = 4000;
	memcpy(f.p + at + 8 + 48, &lie, 4);
	run(&f, &g);
	cr_assert_eq(g.rc, 0, "%s", g.err.msg);
	cr_assert_eq(g.stats.bad_lines, 1);
	cr_assert_eq(g.stats.bad_line[0], at);
	cr_assert_eq(g.n, FIXTURE_EVENTS - 1);
	got_free(&g);
	free(f.p);
}

Test(perf_data, feature_sections_over_others_are_counted_and_left_out)
{
	file f = load();
	size_t table = (size_t)data_end(&f);
	int host = feature_slot(&f, 3), tracing = feature_slot(&f, 1);
	cr_assert(host >= 0 && tracing >= 0);
	size_t h = table + (size_t)host * 16, t = table + (size_t)tracing * 16;
	uint64_t host_off = u64_at(&f, h);

	struct {
		uint64_t off, size;
		const char *what;
	} cases[] = {
		{u64_at(&f, t), 16, "over the tracing data"},
		{table, 32, "over the table itself (a loop)"},
		{0, 64, "over the header"},
		{data_off(&f) + 8, 8, "over the data"},
		{UINT64_MAX - 8, 16, "wrapping around"},
		{f.n - 4, 64, "past the end"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		set_u64(&f, h, cases[i].off);
		set_u64(&f, h + 8, cases[i].size);
		got g;
		run(&f, &g);
		cr_assert_eq(g.rc, 0, "hostname %s: %s", cases[i].what,
			     g.err.msg);
		cr_assert_eq(g.n, FIXTURE_EVENTS, "%s", cases[i].what);
		cr_assert_eq(g.stats.bad_lines, 1, "%s", cases[i].what);
		cr_assert_eq(g.stats.bad_line[0], h, "%s: the table entry",
			     cases[i].what);
		got_free(&g);
	}
	set_u64(&f, h, host_off);

	/* without its formats nothing can be decoded: an error */
	set_u64(&f, t, data_off(&f));
	got g;
	run(&f, &g);
	cr_assert_neq(g.rc, 0);
	cr_assert(strstr(g.err.msg, "tracing data") &&
			  strstr(g.err.msg, "offset"),
		  "%s", g.err.msg);
	got_free(&g);
	free(f.p);
}

Test(perf_data, attr_counts_and_sizes_that_cannot_be_are_errors)
{
	struct {
		size_t at;
		uint64_t v;
		const char *msg;
	} cases[] = {
		{32, (uint64_t)1 << 40, "offset 24"}, /* attrs.size */
		{16, 0, "offset 16"},		      /* attr_size */
		{16, (uint64_t)1 << 33, "offset 16"},
		{24, (uint64_t)-64, "offset 24"},     /* attrs.offset */
		{40, (uint64_t)1 << 50, "offset 40"}, /* data.offset */
		{8, 15, "offset 8"},		      /* header size */
		{48, (uint64_t)1 << 45, "offset"},    /* data.size */
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		file f = load();
		set_u64(&f, cases[i].at, cases[i].v);
		got g;
		run(&f, &g);
		cr_assert_neq(g.rc, 0, "case %zu", i);
		cr_assert_eq(g.n, 0);
		cr_assert(strstr(g.err.msg, cases[i].msg), "case %zu: %s", i,
			  g.err.msg);
		got_free(&g);
		free(f.p);
	}
	/* an attr's ids past the end of the file */
	file f = load();
	uint64_t attrs = u64_at(&f, 24), attr_size = u64_at(&f, 16);
	set_u64(&f, attrs + attr_size - 8, (uint64_t)1 << 62);
	got g;
	run(&f, &g);
	cr_assert_neq(g.rc, 0);
	cr_assert(strstr(g.err.msg, "ids"), "%s", g.err.msg);
	got_free(&g);
	free(f.p);
}

/* A file-mode file whose header says pipe mode: its attr section is not
 * records; the error names where the records were to start. */
Test(perf_data, a_pipe_mode_header_over_a_file_is_an_error_at_its_offset)
{
	file f = load();
	set_u64(&f, 8, 16);
	got g;
	run(&f, &g);
	cr_assert_eq(g.rc, -TRAWL_EPARSE, "%s", g.err.msg);
	cr_assert(strstr(g.err.msg, "pipe-mode"), "%s", g.err.msg);
	cr_assert(strstr(g.err.msg, "offset 16"), "%s", g.err.msg);
	got_free(&g);
	free(f.p);
}

static int same_events(const got *a, const got *b)
{
	if (a->n != b->n)
		return 0;
	for (size_t i = 0; i < a->n; i++)
		if (a->ev[i].ts != b->ev[i].ts ||
		    a->ev[i].cpu != b->ev[i].cpu ||
		    a->ev[i].pid != b->ev[i].pid ||
		    strcmp(a->ev[i].name, b->ev[i].name) != 0)
			return 0;
	return 1;
}

Test(perf_data, without_rounds_the_order_is_the_same)
{
	got whole;
	collect_path(fixture(FIXTURE), NULL, &whole);
	file f = load();
	for (int k = 0; k < 2; k++) {
		uint64_t at = find_record(&f, 68, 0);
		cr_assert(at);
		uint32_t other = 100; /* a type no one writes: skipped */
		memcpy(f.p + at, &other, 4);
	}
	got g;
	run(&f, &g);
	cr_assert_eq(g.rc, 0, "%s", g.err.msg);
	cr_assert(same_events(&whole, &g));
	got_free(&g);
	got_free(&whole);
	free(f.p);
}

/* A sample later in the file than its round allows (perf's own rule
 * broken): the run sorts, and the order is still exact. */
Test(perf_data, a_sample_past_its_round_is_sorted_into_place)
{
	got whole;
	collect_path(fixture(FIXTURE), NULL, &whole);
	file f = load();
	/* an EXIT made a FINISHED_ROUND: the fixture's own first round and
	 * this one let everything before the first go out at this one */
	uint64_t round2 = find_record(&f, 4, 5);
	cr_assert(round2);
	memcpy(f.p + round2, &(uint32_t){68}, 4);
	uint64_t first = find_record(&f, 9, 0);
	uint32_t type;
	uint16_t size, s2;
	record_at(&f, first, &type, &size);
	uint64_t late = 0;
	for (int k = 1; !late; k++) {
		uint64_t at = find_record(&f, 9, k);
		cr_assert(at, "a sample after the new round of the same size");
		record_at(&f, at, &type, &s2);
		if (at > round2 && s2 == size)
			late = at;
	}
	unsigned char tmp[256];
	memcpy(tmp, f.p + first, size);
	memcpy(f.p + first, f.p + late, size);
	memcpy(f.p + late, tmp, size);
	got g;
	run(&f, &g);
	cr_assert_eq(g.rc, 0, "%s", g.err.msg);
	cr_assert_gt(g.stats.reordered, 0);
	sorted(&g);
	cr_assert_eq(g.n, whole.n);
	/* the same events; ties may now keep another record order; each
	 * keeps its task's name and process through the sort */
	for (size_t i = 0; i < g.n; i++) {
		cr_assert_eq(g.ev[i].ts, whole.ev[i].ts, "event %zu", i);
		/* (the sample moved before its task's COMM has neither) */
		int named = strcmp(g.ev[i].comm, "<...>") != 0;
		cr_assert(g.ev[i].pid == 0 || (g.ev[i].tgid > 0) == named,
			  "event %zu pid %d tgid %d comm %s", i, g.ev[i].pid,
			  g.ev[i].tgid, g.ev[i].comm);
	}
	got_free(&g);
	got_free(&whole);
	free(f.p);
}

/* The merge on a second thread (TRAWL_MERGE_AHEAD on, or handed over
 * every few events) pulls the records from the source there: the same
 * events with the same task names, and the same damage and lost counts
 * as the source noted them on the way. */
Test(perf_data, the_merge_ahead_gives_what_the_reader_gives_itself)
{
	file f = load();
	/* a sample and a COMM shorter than their content: two notes */
	for (int k = 0; k < 2; k++) {
		uint64_t at = find_record(&f, k ? 3 : 9, 3);
		cr_assert(at);
		uint32_t type;
		uint16_t size;
		record_at(&f, at, &type, &size);
		cut_data(&f, at + size - 8, at + size);
		uint16_t less = (uint16_t)(size - 8);
		memcpy(f.p + at + 6, &less, 2);
	}
	static const char *const ways[] = {"off", "on", "flip:7", "flip:1"};
	got g[4];
	for (int w = 0; w < 4; w++) {
		setenv("TRAWL_MERGE_AHEAD", ways[w], 1);
		run(&f, &g[w]);
		cr_assert_eq(g[w].rc, 0, "%s: %s", ways[w], g[w].err.msg);
	}
	unsetenv("TRAWL_MERGE_AHEAD");
	cr_assert_eq(g[0].n, FIXTURE_EVENTS - 1);
	cr_assert_eq(g[0].stats.bad_lines, 2);
	for (int w = 1; w < 4; w++) {
		cr_assert(same_events(&g[0], &g[w]), "%s", ways[w]);
		for (size_t i = 0; i < g[0].n; i++)
			cr_assert_str_eq(g[w].ev[i].comm, g[0].ev[i].comm,
					 "%s: event %zu", ways[w], i);
		cr_assert_eq(g[w].stats.bad_lines, g[0].stats.bad_lines);
		cr_assert_eq(g[w].stats.bad_line[0], g[0].stats.bad_line[0]);
		cr_assert_eq(g[w].stats.bad_line[1], g[0].stats.bad_line[1]);
		cr_assert_eq(g[w].stats.lost_events, g[0].stats.lost_events);
	}
	for (int w = 0; w < 4; w++)
		got_free(&g[w]);
	free(f.p);
}

static file load_named(const char *name)
{
	file f;
	f.p = (unsigned char *)read_whole(fixture(name), &f.n);
	cr_assert(f.p, "cannot read %s", fixture(name));
	return f;
}

/* The records of a pipe-mode file from its header on: type, size. */
static uint64_t pipe_record(const file *f, uint32_t want, int k)
{
	for (uint64_t at = 16; at + 8 <= f->n;) {
		uint32_t type;
		uint16_t size;
		record_at(f, at, &type, &size);
		if (size < 8)
			return 0;
		if (type == want && k-- == 0)
			return at;
		at += size;
		if (type == 66) /* the tracing data follows */
			at += ((u64_at(f, at - size + 8) & 0xffffffffu) + 7) &
			      ~(uint64_t)7;
	}
	return 0;
}

/* perf record -z: every COMPRESSED record's records read, in order, named
 * (file mode, and pipe mode read from a file) */
Test(perf_data, compressed_records_in_file_and_pipe_mode_are_read)
{
	static const struct {
		const char *name;
		size_t events;
	} fx[] = {{FIXTURE_Z, FIXTURE_Z_EVENTS},
		  {FIXTURE_PIPE_Z, FIXTURE_PIPE_Z_EVENTS}};
	for (size_t k = 0; k < 2; k++) {
		got g;
		cr_assert_eq(collect_path(fixture(fx[k].name), NULL, &g), 0,
			     "%s: %s", fx[k].name, g.err.msg);
		cr_assert_eq(g.format, TRAWL_FORMAT_PERF_DATA);
		cr_assert_eq(g.n, fx[k].events, "%s", fx[k].name);
		cr_assert_eq(g.stats.bad_lines, 0, "%s", fx[k].name);
		cr_assert_eq(g.stats.reordered, 0, "%s", fx[k].name);
		sorted(&g);
		for (size_t i = 0; i < g.n; i++)
			cr_assert_str_neq(g.ev[i].comm, "<...>", "%s: %zu",
					  fx[k].name, i);
		got_free(&g);
	}
}

/* perf record -o - | trawl: the stream is read from a copy; the same
 * events as from the file */
Test(perf_data, a_pipe_mode_stream_reads_as_its_file)
{
	file f = load_named(FIXTURE_PIPE_Z);
	got whole, g;
	collect_path(fixture(FIXTURE_PIPE_Z), NULL, &whole);
	collect_pipe(f.p, f.n, NULL, &g);
	cr_assert_eq(g.rc, 0, "%s", g.err.msg);
	cr_assert(same_events(&whole, &g));
	got_free(&g);
	/* a file-mode perf.data through a pipe too */
	file ff = load();
	collect_pipe(ff.p, ff.n, NULL, &g);
	cr_assert_eq(g.rc, 0, "%s", g.err.msg);
	cr_assert_eq(g.n, FIXTURE_EVENTS);
	got_free(&g);
	got_free(&whole);
	free(ff.p);
	free(f.p);
}

/* A pipe-mode file cut anywhere: never a crash; cut inside the records,
 * the records before are read and the error names an offset; cut before
 * the tracing data, an error at the open. */
Test(perf_data, a_pipe_mode_file_cut_anywhere_reads_what_it_can)
{
	file f = load_named(FIXTURE_PIPE_Z);
	for (size_t cut = 8; cut < f.n; cut += cut < 4096 ? 37 : 1601) {
		got g;
		char *path = tmp_file(f.p, cut);
		collect_path(path, NULL, &g);
		unlink(path);
		free(path);
		if (g.rc)
			cr_assert(strstr(g.err.msg, "offset") ||
					  strstr(g.err.msg, "magic"),
				  "cut at %zu: %s", cut, g.err.msg);
		cr_assert_leq(g.n, FIXTURE_PIPE_Z_EVENTS);
		sorted(&g);
		got_free(&g);
	}
	free(f.p);
}

/* A COMPRESSED record whose zstd data is damaged: counted at its offset,
 * the records zstd still gives read; one whose size lies stops there. */
Test(perf_data, damaged_compressed_records_are_counted_at_their_offset)
{
	file f = load_named(FIXTURE_Z);
	uint64_t at = find_record(&f, 81, 1);
	cr_assert(at, "a second COMPRESSED record");
	uint32_t type;
	uint16_t size;
	record_at(&f, at, &type, &size);
	memset(f.p + at + 8, 0xa5, size - 8u); /* not zstd */
	got g;
	run(&f, &g);
	cr_assert_geq(g.stats.bad_lines, 1, "%s", g.err.msg);
	cr_assert_eq(g.stats.bad_line[0], at);
	cr_assert_lt(g.n, FIXTURE_Z_EVENTS);
	sorted(&g);
	got_free(&g);
	/* its size past the data: the records before it, then the error */
	free(f.p);
	f = load_named(FIXTURE_Z);
	uint16_t lie = 0xfff8;
	memcpy(f.p + at + 6, &lie, 2);
	set_u64(&f, 48, at + 4000 - data_off(&f)); /* the data ends sooner */
	run(&f, &g);
	cr_assert_neq(g.rc, 0);
	cr_assert(strstr(g.err.msg, "offset"), "%s", g.err.msg);
	got_free(&g);
	free(f.p);
}

/* COMPRESSED records that give more than perf's mmap_len (the
 * compression feature's fifth u32) are a bomb: each is counted at its
 * offset, nothing more is written out of it. */
Test(perf_data, compressed_records_past_their_mmap_size_are_counted)
{
	file f = load_named(FIXTURE_Z);
	int slot = feature_slot(&f, 27);
	cr_assert_geq(slot, 0, "the fixture has HEADER_COMPRESSED");
	uint64_t sec = u64_at(&f, data_end(&f) + (size_t)slot * 16);
	uint32_t tiny = 64;
	memcpy(f.p + sec + 16, &tiny, 4);
	got g;
	run(&f, &g);
	cr_assert_geq(g.stats.bad_lines, 1, "%s", g.err.msg);
	cr_assert_eq(g.stats.bad_line[0], find_record(&f, 81, 0));
	cr_assert_lt(g.n, FIXTURE_Z_EVENTS);
	got_free(&g);
	free(f.p);
}

/* The tracing data of a pipe-mode file saying it runs past the end: an
 * error naming the record. */
Test(perf_data, pipe_mode_tracing_data_past_the_end_is_an_error)
{
	file f = load_named(FIXTURE_PIPE_Z);
	uint64_t at = pipe_record(&f, 66, 0);
	cr_assert(at);
	uint32_t huge = 0x7ffffff0u;
	memcpy(f.p + at + 8, &huge, 4);
	got g;
	run(&f, &g);
	cr_assert_eq(g.rc, -TRAWL_EFORMAT, "%s", g.err.msg);
	char want[64];
	snprintf(want, sizeof(want), "offset %llu", (unsigned long long)at);
	cr_assert(strstr(g.err.msg, want), "%s", g.err.msg);
	got_free(&g);
	free(f.p);
}

/* HOSTNAME and OSRELEASE (perf report --header-only: "vm",
 * "6.18.44-fc-v1045" where the fixtures were recorded), in file and in
 * pipe mode; a trace.dat's UNAME; a text trace says nothing */
Test(perf_data, the_recording_machine_is_named)
{
	static const char *const names[] = {FIXTURE, FIXTURE_PIPE_Z};
	for (size_t k = 0; k < 2; k++) {
		trawl_error err;
		trawl_trace *t = trawl_open(fixture(names[k]), NULL, &err);
		cr_assert(t, "%s", err.msg);
		const char *h = trawl_trace_host(t, "hostname");
		const char *r = trawl_trace_host(t, "os_release");
		cr_assert(h && r, "%s", names[k]);
		cr_assert_str_eq(h, "vm");
		cr_assert_str_eq(r, "6.18.44-fc-v1045");
		cr_assert_null(trawl_trace_host(t, "arch"));
		trawl_close(t);
	}
	/* a trace.dat's UNAME option ("Linux vm 6.18.44-fc-v669 x86_64", as
	 * trace-cmd wrote it), v6 and v7 */
	static const char *const dats[] = {"tc.dat", "tc-v6.dat",
					   "tc-v7-nocomp.dat"};
	for (size_t k = 0; k < 3; k++) {
		trawl_error err;
		trawl_trace *t = trawl_open(fixture(dats[k]), NULL, &err);
		cr_assert(t, "%s: %s", dats[k], err.msg);
		const char *h = trawl_trace_host(t, "hostname");
		const char *r = trawl_trace_host(t, "os_release");
		cr_assert(h && r, "%s", dats[k]);
		cr_assert_str_eq(h, "vm", "%s", dats[k]);
		cr_assert_str_eq(r, "6.18.44-fc-v669", "%s", dats[k]);
		trawl_close(t);
	}
	char *path = tmp_file("<idle>-0 [000] 1.000000: sched_wakeup: x\n", 41);
	trawl_error err;
	trawl_trace *t = trawl_open(path, NULL, &err);
	cr_assert(t, "%s", err.msg);
	cr_assert_null(trawl_trace_host(t, "hostname"));
	trawl_close(t);
	unlink(path);
	free(path);
}
