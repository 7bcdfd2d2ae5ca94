/* SPDX-License-Identifier: MIT */
/*
 * The trace.dat reader from the inside: ring-buffer pages written byte by
 * byte (record headers, time extends, absolute stamps, padding, big
 * records, lost-event counts, both byte orders), and every event format of
 * a real recording through the format check and libtraceevent.
 */
#include <criterion/criterion.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include "../../lib/dat/dat-int.h"

#define PAGE 256

/* A file of one CPU whose pages the test fills in. */
struct page_file {
	tw_mem mem;
	tw_dat_file f;
	tw_dat_buffer buf;
	tw_dat_span span;
	unsigned char data[4 * PAGE];
	size_t at; /* write position in the current page */
	int page;
	int big;
};

static void put32(struct page_file *pf, size_t off, uint32_t v)
{
	if (pf->big)
		v = __builtin_bswap32(v);
	memcpy(pf->data + off, &v, 4);
}

static void put64(struct page_file *pf, size_t off, uint64_t v)
{
	if (pf->big)
		v = __builtin_bswap64(v);
	memcpy(pf->data + off, &v, 8);
}

/* The record header word: type_len and time_delta, in file order. */
static uint32_t word(struct page_file *pf, uint32_t type_len, uint32_t delta)
{
	return pf->big ? (type_len << 27) | delta : (delta << 5) | type_len;
}

static void setup(struct page_file *pf, int big)
{
	memset(pf, 0, sizeof(*pf));
	tw_mem_init(&pf->mem, NULL, NULL);
	pf->big = big;
	pf->f.mem = &pf->mem;
	pf->f.name = "<pages>";
	pf->f.map = pf->data;
	pf->f.size = sizeof(pf->data);
	pf->f.big_endian = big;
	pf->f.long_size = 8;
	pf->f.page_size = PAGE;
	pf->f.page = (tw_dat_page_format){8, 8, 16};
	pf->buf.page_size = PAGE;
	pf->buf.name = "";
	pf->f.buffers = &pf->buf;
	pf->f.nbuffers = 1;
	pf->span = (tw_dat_span){0, 0, 0, 0, 0, 0};
	pf->page = -1;
}

static void new_page(struct page_file *pf, uint64_t ts, uint64_t flags)
{
	pf->page++;
	size_t base = (size_t)pf->page * PAGE;
	put64(pf, base, ts);
	put64(pf, base + 8, flags); /* commit: size added by end_page */
	pf->at = 16;
	pf->span.size = (uint64_t)(pf->page + 1) * PAGE;
}

static void end_page(struct page_file *pf)
{
	size_t base = (size_t)pf->page * PAGE;
	uint64_t commit;
	memcpy(&commit, pf->data + base + 8, 8);
	if (pf->big)
		commit = __builtin_bswap64(commit);
	put64(pf, base + 8, commit | (pf->at - 16));
}

/* A small data record: type_len = words, payload of 4*words bytes. */
static void small(struct page_file *pf, uint32_t delta, uint32_t words,
		  unsigned char fill)
{
	size_t base = (size_t)pf->page * PAGE + pf->at;
	put32(pf, base, word(pf, words, delta));
	memset(pf->data + base + 4, fill, 4 * words);
	pf->at += 4 + 4 * words;
}

static void extend(struct page_file *pf, uint32_t type, uint64_t v)
{
	size_t base = (size_t)pf->page * PAGE + pf->at;
	put32(pf, base, word(pf, type, (uint32_t)(v & ((1u << 27) - 1))));
	put32(pf, base + 4, (uint32_t)(v >> 27));
	pf->at += 8;
}

struct seen {
	int64_t ts[32];
	uint32_t len[32];
	unsigned char first[32];
	int n;
};

static void walk(struct page_file *pf, struct seen *s)
{
	tw_dat_cursor c = {0};
	memset(s, 0, sizeof(*s));
	cr_assert_eq(tw_dat_cursor_init(&c, &pf->f, &pf->span), 0);
	while (s->n < 32 && tw_dat_cursor_next(&c)) {
		s->ts[s->n] = c.cur_ts;
		s->len[s->n] = c.cur_len;
		s->first[s->n] = c.cur[0];
		s->n++;
	}
	/* keep what the walk found for the caller's checks */
	pf->span.offset = c.lost;
	pf->span.buffer = (uint32_t)c.damaged;
	tw_dat_cursor_fini(&c);
}

static void deltas_extends_and_stamps(int big)
{
	struct page_file pf;
	setup(&pf, big);
	new_page(&pf, 1000, 0);
	small(&pf, 0, 2, 0xa1);	     /* 1000 */
	small(&pf, 5, 1, 0xa2);	     /* 1005 */
	extend(&pf, 30, 1ull << 30); /* +2^30, before the next delta */
	small(&pf, 7, 3, 0xa3);	     /* 1005 + 2^30 + 7 */
	extend(&pf, 31, 5000);	     /* absolute 5000 */
	small(&pf, 1, 1, 0xa4);	     /* 5001 */
	end_page(&pf);
	struct seen s;
	walk(&pf, &s);
	cr_assert_eq(s.n, 4);
	cr_assert_eq(s.ts[0], 1000);
	cr_assert_eq(s.ts[1], 1005);
	cr_assert_eq(s.ts[2], 1005 + (1ll << 30) + 7);
	cr_assert_eq(s.ts[3], 5001);
	cr_assert_eq(s.len[0], 8);
	cr_assert_eq(s.len[2], 12);
	cr_assert_eq(s.first[2], 0xa3);
	cr_assert_eq(pf.span.buffer, 0, "no damage");
}

Test(pages, deltas_extends_and_absolute_stamps_little_endian)
{
	deltas_extends_and_stamps(0);
}

Test(pages, deltas_extends_and_absolute_stamps_big_endian)
{
	deltas_extends_and_stamps(1);
}

Test(pages, big_records_padding_and_empty_rest)
{
	struct page_file pf;
	setup(&pf, 0);
	new_page(&pf, 100, 0);
	/* type_len 0: array[0] = 4 + data length (here 40 + 2 = 42) */
	size_t base = pf.at;
	put32(&pf, base, word(&pf, 0, 3));
	put32(&pf, base + 4, 42);
	memset(pf.data + base + 8, 0xb1, 40);
	pf.at += 4 + ((42 + 3) & ~3u);
	/* a discarded event: padding with a delta, 4 + array[0] bytes;
	 * its delta does not move time (the kernel's reader ignores it) */
	base = pf.at;
	put32(&pf, base, word(&pf, 29, 50));
	put32(&pf, base + 4, 12);
	pf.at += 4 + 12;
	small(&pf, 2, 1, 0xb2); /* 100 + 3 + 2 */
	/* null padding: the rest of the page is empty */
	put32(&pf, pf.at, word(&pf, 29, 0));
	pf.at += 4;
	small(&pf, 9, 1, 0xee); /* never read */
	end_page(&pf);
	new_page(&pf, 200, 0);
	small(&pf, 1, 1, 0xb3);
	end_page(&pf);
	struct seen s;
	walk(&pf, &s);
	cr_assert_eq(s.n, 3);
	cr_assert_eq(s.ts[0], 103);
	cr_assert_eq(s.len[0], 38);
	cr_assert_eq(s.first[0], 0xb1);
	cr_assert_eq(s.ts[1], 105);
	cr_assert_eq(s.first[1], 0xb2);
	cr_assert_eq(s.ts[2], 201);
	cr_assert_eq(s.first[2], 0xb3);
}

Test(pages, lost_events_stored_after_the_data)
{
	struct page_file pf;
	setup(&pf, 0);
	new_page(&pf, 10, (1ull << 31) | (1ull << 30));
	small(&pf, 1, 1, 0xc1);
	put64(&pf, (size_t)pf.page * PAGE + pf.at, 77); /* the count */
	end_page(&pf);
	struct seen s;
	walk(&pf, &s);
	cr_assert_eq(s.n, 1);
	cr_assert_eq(pf.span.offset, 77, "lost events: %llu",
		     (unsigned long long)pf.span.offset);
}

Test(pages, lies_are_damage_not_crashes)
{
	struct page_file pf;
	setup(&pf, 0);
	new_page(&pf, 10, 0);
	small(&pf, 1, 1, 0xd1);
	/* a record that claims more than its page holds */
	put32(&pf, pf.at, word(&pf, 0, 1));
	put32(&pf, pf.at + 4, 100000);
	pf.at += 8;
	end_page(&pf);
	new_page(&pf, 20, 0);
	small(&pf, 1, 1, 0xd2);
	end_page(&pf);
	/* a page whose commit says more than a page */
	new_page(&pf, 30, 0);
	put64(&pf, (size_t)pf.page * PAGE + 8, PAGE * 2);
	struct seen s;
	walk(&pf, &s);
	cr_assert_eq(s.n, 2, "the good records around the damage: %d", s.n);
	cr_assert_eq(s.first[0], 0xd1);
	cr_assert_eq(s.first[1], 0xd2);
	cr_assert_eq(pf.span.buffer, 2, "two damaged places");
}

Test(pages, data_past_the_end_of_the_file)
{
	struct page_file pf;
	setup(&pf, 0);
	new_page(&pf, 10, 0);
	small(&pf, 1, 1, 0xe1);
	end_page(&pf);
	pf.span.size = 100 * PAGE; /* the file was cut */
	struct seen s;
	walk(&pf, &s);
	cr_assert_eq(s.n, 1);
	cr_assert_geq(pf.span.buffer, 1, "the cut is damage");
}

/* Every format of a real recording passes the check that guards
 * libtraceevent, and parses. */
Test(formats, every_real_format_is_accepted)
{
	const char *dir = getenv("TRAWL_FIXTURES");
	cr_assert(dir, "TRAWL_FIXTURES is not set");
	char path[4096];
	snprintf(path, sizeof(path), "%s/tc-v7-nocomp.dat", dir);
	FILE *fp = fopen(path, "rb");
	cr_assert(fp, "%s", path);
	fseek(fp, 0, SEEK_END);
	long size = ftell(fp);
	fseek(fp, 0, SEEK_SET);
	unsigned char *map = malloc((size_t)size);
	cr_assert_eq(fread(map, 1, (size_t)size, fp), (size_t)size);
	fclose(fp);
	tw_mem mem;
	tw_mem_init(&mem, NULL, NULL);
	tw_dat_file f;
	trawl_error err;
	cr_assert_eq(
		tw_dat_file_open(&f, &mem, path, map, (size_t)size, 0, &err), 0,
		"%s", err.msg);
	cr_assert_eq(tw_dat_index_formats(&f), 0);
	cr_assert_gt(f.nformats, 50, "only %zu formats", f.nformats);
	size_t parsed = 0;
	for (size_t i = 0; i < f.nformats; i++) {
		struct tep_event *e = tw_dat_parse_format(&f, f.formats[i].id);
		cr_expect(e != NULL, "format %u (%.40s) refused",
			  f.formats[i].id, f.formats[i].text);
		parsed += e != NULL;
	}
	cr_assert_eq(f.meta_damaged, 0);
	cr_assert_gt(parsed, 50);
	tw_dat_file_close(&f);
	free(map);
}

/* A damaged print format never reaches libtraceevent: the event keeps its
 * name and fields, its print format falls back; a damaged field line
 * refuses the whole format. */
Test(formats, damaged_print_format_is_refused)
{
	static const char good[] =
		"name: x\nID: 7\nformat:\n"
		"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\t"
		"signed:0;\n"
		"\tfield:int clockid;\toffset:8;\tsize:4;\tsigned:1;\n\n"
		"print fmt: \"c=%s\", __print_symbolic(REC->clockid, { 0, "
		"\"REALTIME\" })\n";
	static const char bad[] =
		"name: x\nID: 7\nformat:\n"
		"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\t"
		"signed:0;\n"
		"\tfield:int clockid;\toffset:8;\tsize:4;\tsigned:1;\n\n"
		"print fmt: \"c=%s\", __print_symbolic(REC->clockidT_{ 0, "
		"\"REALTIME\" })\n";
	static const char bad_field[] =
		"name: x\nID: 7\nformat:\n"
		"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\t"
		"signed:0;\n"
		"\tfield:int clo[ckid;\toffset:8;\tsize:4;\tsigned:1;\n\n"
		"print fmt: \"c=%d\", REC->clockid\n";
	tw_mem mem;
	tw_mem_init(&mem, NULL, NULL);
	const char *texts[3] = {good, bad, bad_field};
	for (int i = 0; i < 3; i++) {
		tw_dat_file f;
		memset(&f, 0, sizeof(f));
		f.mem = &mem;
		f.tep = tep_alloc();
		tw_dat_format fm = {7, "s", texts[i], strlen(texts[i]), 0, 0};
		f.formats = &fm;
		f.nformats = 1;
		cr_assert_eq(tw_dat_index_formats(&f), 0);
		struct tep_event *e = tw_dat_parse_format(&f, 7);
		if (i == 0)
			cr_assert(e != NULL, "the good format parses");
		else if (i == 1)
			cr_assert(e != NULL &&
					  (e->flags & TEP_EVENT_FL_FAILED) &&
					  strcmp(e->name, "x") == 0 &&
					  f.meta_damaged == 0,
				  "the damaged print format is kept from "
				  "libtraceevent; the event keeps its name");
		else
			cr_assert(e == NULL && f.meta_damaged == 1,
				  "a damaged field line is refused");
		tep_free(f.tep);
		tw_free(&mem, f.by_id);
	}
}

/* Every format of the running kernel, where tracefs can be read. */
Test(formats, every_format_of_this_kernel_is_accepted)
{
	glob_t g;
	if (glob("/sys/kernel/tracing/events/*/*/format", 0, NULL, &g) != 0) {
		cr_skip_test("tracefs events are not readable here");
		return;
	}
	tw_mem mem;
	tw_mem_init(&mem, NULL, NULL);
	size_t refused = 0, tried = 0;
	static char text[1 << 16];
	for (size_t i = 0; i < g.gl_pathc; i++) {
		FILE *fp = fopen(g.gl_pathv[i], "r");
		if (!fp)
			continue;
		size_t n = fread(text, 1, sizeof(text) - 1, fp);
		fclose(fp);
		const char *idl = strstr(text, "\nID: ");
		if (!n || !idl)
			continue;
		tw_dat_file f;
		memset(&f, 0, sizeof(f));
		f.mem = &mem;
		f.tep = tep_alloc();
		uint32_t id = (uint32_t)atoi(idl + 5);
		tw_dat_format fm = {id, "s", text, n, 0, 0};
		f.formats = &fm;
		f.nformats = 1;
		cr_assert_eq(tw_dat_index_formats(&f), 0);
		tried++;
		if (!tw_dat_parse_format(&f, id)) {
			refused++;
			cr_log_warn("refused: %s", g.gl_pathv[i]);
		}
		tep_free(f.tep);
		tw_free(&mem, f.by_id);
	}
	globfree(&g);
	if (tried == 0)
		cr_skip_test("no event formats readable");
	cr_assert_eq(refused, 0, "%zu of %zu formats refused", refused, tried);
}
