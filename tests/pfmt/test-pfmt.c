/* SPDX-License-Identifier: MIT */
/*
 * Print formats compiled and run both ways (lib/pfmt): every format of the
 * bundled kernel table compiles, and what falls back is counted per reason
 * and kept small; records made here render to the kernel's text; that
 * text, and the kernel's own lines, scan back to the record's values; the
 * shapes that need backtracking, inversion through masks and shifts,
 * ternaries and flags come back whole.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <traceevent/event-parse.h>

#include "../../lib/formats/formats.h"
#include "../../lib/pfmt/pfmt.h"

static tw_mem mem;
static struct tep_handle *tep;

static void setup(void)
{
	tw_mem_init(&mem, NULL, NULL);
	tep = tep_alloc();
	tep_set_loglevel(TEP_LOG_NONE);
	tep_set_long_size(tep, 8);
}

static void teardown(void)
{
	tep_free(tep);
}

static tw_pfmt *compile_text(const char *text, const char *sys)
{
	struct tep_event *e = NULL;
	cr_assert_eq(tep_parse_format(tep, &e, text, strlen(text), sys),
		     TEP_ERRNO__SUCCESS, "libtraceevent parses the format");
	tw_pf_layout lay = {0, 8};
	tw_pfmt *p = tw_pfmt_compile(&mem, e, text, strlen(text), &lay);
	cr_assert_not_null(p);
	return p;
}

TestSuite(pfmt, .init = setup, .fini = teardown);

/* All of this kernel's ~2300 formats: how many compile, why the rest not. */
Test(pfmt, every_bundled_format_compiles_and_the_rest_is_explained)
{
	tw_format_set *set;
	trawl_error err;
	cr_assert_eq(tw_format_set_bundled(&mem, &set, &err), 0, "%s", err.msg);
	size_t n = tw_format_set_count(set), why[TW_PF_NFALLBACK] = {0};
	size_t parsed = 0, unresolved = 0, tree = 0;
	char tree_names[400] = "";
	char detail[TW_PF_NFALLBACK][256] = {{0}};
	for (size_t i = 0; i < n; i++) {
		const tw_format_text *f = tw_format_set_at(set, i);
		struct tep_event *e = NULL;
		if (tep_parse_format(tep, &e, f->text, f->len, f->system) !=
			    TEP_ERRNO__SUCCESS ||
		    !e)
			continue;
		parsed++;
		tw_pf_layout lay = {0, 8};
		tw_pfmt *p = tw_pfmt_compile(&mem, e, f->text, f->len, &lay);
		cr_assert_not_null(p, "%s out of memory?", f->name);
		int w = tw_pfmt_fallback(p);
		why[w]++;
		if (w && strlen(detail[w]) < 200) {
			char one[64];
			snprintf(one, sizeof(one), "%s%s:%s",
				 *detail[w] ? ", " : "", f->name,
				 tw_pfmt_fallback_detail(p));
			strncat(detail[w], one,
				sizeof(detail[w]) - strlen(detail[w]) - 1);
		}
		unresolved += tw_pfmt_unresolved(p) > 0;
		if (w) {
			tree++;
			if (strlen(tree_names) < 300) {
				strncat(tree_names, " ",
					sizeof(tree_names) -
						strlen(tree_names) - 1);
				strncat(tree_names, f->name,
					sizeof(tree_names) -
						strlen(tree_names) - 1);
			}
		}
		tw_pfmt_free(p);
	}
	printf("formats: %zu, parsed by libtraceevent %zu\n", n, parsed);
	for (int w = 0; w < TW_PF_NFALLBACK; w++)
		printf("  %-20s %5zu  %5.2f %%  %s\n", tw_pfmt_fallback_name(w),
		       why[w], 100.0 * (double)why[w] / (double)n, detail[w]);
	printf("  with undefined symbol names (shown as the text has them): "
	       "%zu\n",
	       unresolved);
	printf("  falling back: %zu:%s\n", tree, tree_names);
	cr_assert_gt(n, 2000);
	cr_assert_eq(parsed, n, "libtraceevent parses every format");
	/* the share that falls back must stay small: today 1.2 % */
	cr_assert_geq(why[TW_PF_OK] * 100, n * 97, "%zu of %zu compile",
		      why[TW_PF_OK], n);
	tw_format_set_free(set);
}

/* sched_switch as this kernel defines it. */
static const char switch_format[] =
	"name: sched_switch\nID: 372\nformat:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\t"
	"signed:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
	"\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:int prev_prio;\toffset:28;\tsize:4;\tsigned:1;\n"
	"\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;\n"
	"\tfield:char next_comm[16];\toffset:40;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t next_pid;\toffset:56;\tsize:4;\tsigned:1;\n"
	"\tfield:int next_prio;\toffset:60;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%s%s "
	"==> next_comm=%s next_pid=%d next_prio=%d\", REC->prev_comm, "
	"REC->prev_pid, REC->prev_prio, (REC->prev_state & ((((0x00000000 | "
	"0x00000001 | 0x00000002 | 0x00000004 | 0x00000008 | 0x00000010 | "
	"0x00000020 | 0x00000040) + 1) << 1) - 1)) ? "
	"__print_flags(REC->prev_state & ((((0x00000000 | 0x00000001 | "
	"0x00000002 | 0x00000004 | 0x00000008 | 0x00000010 | 0x00000020 | "
	"0x00000040) + 1) << 1) - 1), \"|\", { 0x00000001, \"S\" }, { "
	"0x00000002, \"D\" }, { 0x00000004, \"T\" }, { 0x00000008, \"t\" }, "
	"{ 0x00000010, \"X\" }, { 0x00000020, \"Z\" }, { 0x00000040, \"P\" "
	"}, { 0x00000080, \"I\" }) : \"R\", REC->prev_state & (((0x00000000 "
	"| 0x00000001 | 0x00000002 | 0x00000004 | 0x00000008 | 0x00000010 | "
	"0x00000020 | 0x00000040) + 1) << 1) ? \"+\" : \"\", REC->next_comm, "
	"REC->next_pid, REC->next_prio\n";

static void put32(unsigned char *d, size_t at, int32_t v)
{
	memcpy(d + at, &v, 4);
}

static void switch_record(unsigned char *d, const char *prev, int32_t ppid,
			  int64_t state, const char *next, int32_t npid)
{
	memset(d, 0, 64);
	strncpy((char *)d + 8, prev, 16);
	put32(d, 24, ppid);
	put32(d, 28, 120);
	memcpy(d + 32, &state, 8);
	strncpy((char *)d + 40, next, 16);
	put32(d, 56, npid);
	put32(d, 60, 120);
}

static void expect_text(tw_pfmt *p, const unsigned char *d, const char *want)
{
	tw_buf out = {0};
	cr_assert_eq(tw_pfmt_render(p, d, 64, NULL, &out), 0);
	cr_assert_eq(out.len, strlen(want), "got \"%.*s\"", (int)out.len,
		     out.data);
	cr_assert(memcmp(out.data, want, out.len) == 0, "got \"%.*s\"",
		  (int)out.len, out.data);
	tw_buf_fini(&mem, &out);
}

Test(pfmt, sched_switch_renders_as_the_kernel_prints_it)
{
	tw_pfmt *p = compile_text(switch_format, "sched");
	cr_assert_eq(tw_pfmt_fallback(p), TW_PF_OK);
	unsigned char d[64];
	switch_record(d, "Web Content", 2801, 0x101, "kworker/u4:2", 7);
	expect_text(p, d,
		    "prev_comm=Web Content prev_pid=2801 prev_prio=120 "
		    "prev_state=S+ ==> next_comm=kworker/u4:2 next_pid=7 "
		    "next_prio=120");
	switch_record(d, "a", 1, 0, "b", 2);
	expect_text(p, d,
		    "prev_comm=a prev_pid=1 prev_prio=120 prev_state=R ==> "
		    "next_comm=b next_pid=2 next_prio=120");
	switch_record(d, "a", 1, 0x3, "b", 2);
	expect_text(p, d,
		    "prev_comm=a prev_pid=1 prev_prio=120 prev_state=S|D ==> "
		    "next_comm=b next_pid=2 next_prio=120");
	tw_pfmt_free(p);
}

static const tw_pf_value *scan_ok(tw_pfmt *p, tw_pf_scan *s, const char *txt)
{
	cr_assert_eq(tw_pfmt_scan(p, &mem, txt, strlen(txt), s), 1,
		     "\"%s\" scans", txt);
	return s->vals;
}

static void expect_str(const tw_pf_value *v, const char *want)
{
	cr_assert_eq(v->type, TW_PFV_STR);
	cr_assert_eq(v->slen, strlen(want), "got \"%.*s\"", (int)v->slen, v->s);
	cr_assert(memcmp(v->s, want, v->slen) == 0);
}

Test(pfmt, sched_switch_text_scans_back_to_the_record)
{
	tw_pfmt *p = compile_text(switch_format, "sched");
	tw_pf_scan s = {0};
	/* a comm holding " prev_pid=" and "==>": the first split that makes
	 * the rest match wins */
	const tw_pf_value *v = scan_ok(
		p, &s,
		"prev_comm=x prev_pid=9 ==> y prev_pid=2801 prev_prio=120 "
		"prev_state=S+ ==> next_comm=kworker/u4:2 next_pid=-5 "
		"next_prio=120");
	expect_str(&v[0], "x prev_pid=9 ==> y");
	cr_assert_eq(v[1].type, TW_PFV_INT);
	cr_assert_eq(v[1].i, 2801);
	cr_assert_eq(v[3].type, TW_PFV_INT);
	cr_assert_eq(v[3].i, 0x101, "S and + give 0x101, got %#llx",
		     (unsigned long long)v[3].i);
	/* the label is what the text shows of the field: the flags
	 * conversion's "S" and the "+" chosen by the same field after it */
	cr_assert_eq(v[3].label_len, 2);
	cr_assert(memcmp(v[3].label, "S+", 2) == 0);
	cr_assert_eq(v[3].exact, 0, "bits above 0x1ff were not in the text");
	cr_assert_eq(v[5].i, -5);
	v = scan_ok(p, &s,
		    "prev_comm=a prev_pid=1 prev_prio=120 prev_state=R ==> "
		    "next_comm=b next_pid=2 next_prio=120");
	cr_assert_eq(v[3].i, 0);
	cr_assert_eq(v[3].label_len, 1);
	/* not this format's shape: no match, the caller decodes generically */
	cr_assert_eq(tw_pfmt_scan(p, &mem, "comm=a pid=1", 12, &s), 0);
	tw_pf_scan_fini(&mem, &s);
	tw_pfmt_free(p);
}

Test(pfmt, fields_split_over_conversions_come_back_whole)
{
	/* block's "dev=8,16": MAJOR and MINOR of one field */
	tw_pfmt *p = compile_text(
		"name: block_x\nID: 9\nformat:\n"
		"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\t"
		"signed:0;\n\n"
		"\tfield:dev_t dev;\toffset:8;\tsize:4;\tsigned:0;\n"
		"\tfield:unsigned long args[3];\toffset:16;\tsize:24;\t"
		"signed:0;\n\n"
		"print fmt: \"%d,%d (%lx, %lx)\", ((unsigned int) ((REC->dev) "
		">> 20)), ((unsigned int) ((REC->dev) & ((1U << 20) - 1))), "
		"REC->args[0], REC->args[2]\n",
		"block");
	tw_pf_scan s = {0};
	const tw_pf_value *v = scan_ok(p, &s, "254,16 (1b6, ffff)");
	cr_assert_eq(v[0].type, TW_PFV_INT);
	cr_assert_eq(v[0].i, (254 << 20) | 16);
	cr_assert_eq(v[0].exact, 1, "all 32 bits of dev were in the text");
	cr_assert_eq(v[1].type, TW_PFV_ARRAY);
	cr_assert_eq(v[1].nelem, 3);
	cr_assert_eq(s.elems[v[1].elem0], 0x1b6);
	cr_assert_eq(s.elems[v[1].elem0 + 1], 0, "not printed: 0");
	cr_assert_eq(s.elems[v[1].elem0 + 2], 0xffff);
	/* and forwards */
	unsigned char d[64] = {0};
	put32(d, 8, (254 << 20) | 16);
	uint64_t a0 = 0x1b6, a2 = 0xffff;
	memcpy(d + 16, &a0, 8);
	memcpy(d + 32, &a2, 8);
	expect_text(p, d, "254,16 (1b6, ffff)");
	tw_pf_scan_fini(&mem, &s);
	tw_pfmt_free(p);
}

Test(pfmt, symbols_flags_and_hashed_pointers)
{
	tw_pfmt *p = compile_text(
		"name: hr\nID: 10\nformat:\n"
		"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\t"
		"signed:0;\n\n"
		"\tfield:void * timer;\toffset:8;\tsize:8;\tsigned:0;\n"
		"\tfield:int clockid;\toffset:16;\tsize:4;\tsigned:1;\n"
		"\tfield:unsigned long gfp;\toffset:24;\tsize:8;\tsigned:0;\n"
		"\n"
		"print fmt: \"timer=%p clockid=%s gfp=%s\", REC->timer, "
		"__print_symbolic(REC->clockid, { 0, \"CLOCK_REALTIME\" }, { "
		"1, \"CLOCK_MONOTONIC\" }), (REC->gfp) ? "
		"__print_flags(REC->gfp, "
		"\"|\", {0xcc0, \"GFP_KERNEL\"}, {0x100, \"__GFP_ZERO\"}) : "
		"\"none\"\n",
		"timer");
	tw_pf_scan s = {0};
	const tw_pf_value *v =
		scan_ok(p, &s,
			"timer=00000000e1df38d2 clockid=CLOCK_MONOTONIC "
			"gfp=GFP_KERNEL|__GFP_ZERO|0x2");
	cr_assert_eq(v[0].type, TW_PFV_TEXT, "a hashed pointer: display only");
	cr_assert_eq(v[1].i, 1);
	cr_assert_eq(v[1].label_len, strlen("CLOCK_MONOTONIC"));
	cr_assert_eq(v[2].i, 0xcc0 | 0x100 | 0x2);
	v = scan_ok(p, &s, "timer=00000000e1df38d2 clockid=0x7 gfp=none");
	cr_assert_eq(v[1].i, 7, "an unnamed value prints in hex");
	cr_assert_null(v[1].label);
	cr_assert_eq(v[2].i, 0);
	unsigned char d[64] = {0};
	int32_t ck = 1;
	uint64_t gfp = 0xdc2;
	memcpy(d + 16, &ck, 4);
	memcpy(d + 24, &gfp, 8);
	expect_text(p, d,
		    "timer=(nil) clockid=CLOCK_MONOTONIC "
		    "gfp=GFP_KERNEL|__GFP_ZERO|0x2");
	tw_pf_scan_fini(&mem, &s);
	tw_pfmt_free(p);
}

Test(pfmt, hostile_text_is_bounded_and_never_matches_wrongly)
{
	tw_pfmt *p = compile_text(switch_format, "sched");
	tw_pf_scan s = {0};
	/* many candidate splits: the step budget ends it */
	char big[8192];
	size_t n = 0;
	n += (size_t)snprintf(big, sizeof(big), "prev_comm=");
	while (n + 16 < sizeof(big))
		n += (size_t)snprintf(big + n, sizeof(big) - n, " prev_pid=1");
	cr_assert_eq(tw_pfmt_scan(p, &mem, big, n, &s), 0);
	cr_assert_eq(tw_pfmt_scan(p, &mem, "", 0, &s), 0);
	tw_pf_scan_fini(&mem, &s);
	tw_pfmt_free(p);
}

Test(pfmt, byte_pointer_extensions_print_as_the_kernel_does)
{
	tw_pfmt *p = compile_text(
		"name: net_x\nID: 11\nformat:\n"
		"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\t"
		"signed:0;\n\n"
		"\tfield:__u8 uuid[16];\toffset:8;\tsize:16;\tsigned:0;\n"
		"\tfield:__u8 v4[4];\toffset:24;\tsize:4;\tsigned:0;\n"
		"\tfield:__u8 v6[16];\toffset:28;\tsize:16;\tsigned:0;\n"
		"\tfield:__u8 sa[28];\toffset:44;\tsize:28;\tsigned:0;\n"
		"\tfield:__u8 mac[6];\toffset:72;\tsize:6;\tsigned:0;\n\n"
		"print fmt: \"%pU %pI4 %pI6c %pISpc %pM\", REC->uuid, REC->v4, "
		"REC->v6, REC->sa, REC->mac\n",
		"net");
	cr_assert_eq(tw_pfmt_fallback(p), TW_PF_OK, "%s",
		     tw_pfmt_fallback_detail(p));
	unsigned char d[80] = {0};
	for (int i = 0; i < 16; i++)
		d[8 + i] = (unsigned char)(i * 17);
	memcpy(d + 24, "\x0a\x00\x00\x01", 4);
	/* 2001:db8::1 */
	memcpy(d + 28, "\x20\x01\x0d\xb8\0\0\0\0\0\0\0\0\0\0\0\x01", 16);
	/* AF_INET6 sockaddr: family 10 (host order), port 443, ::1 */
	d[44] = 10;
	d[46] = 0x01, d[47] = 0xbb;
	d[44 + 8 + 15] = 1;
	memcpy(d + 72, "\x02\x42\xac\x11\x00\x02", 6);
	tw_buf out = {0};
	cr_assert_eq(tw_pfmt_render(p, d, sizeof(d), NULL, &out), 0);
	const char *want = "00112233-4455-6677-8899-aabbccddeeff 10.0.0.1 "
			   "2001:db8::1 [::1]:443 02:42:ac:11:00:02";
	cr_assert(out.len == strlen(want) && !memcmp(out.data, want, out.len),
		  "got \"%.*s\"", (int)out.len, out.data);
	tw_buf_fini(&mem, &out);
	tw_pfmt_free(p);
}

Test(pfmt, a_field_printed_by_its_own_conversions_reads_from_its_text_alone)
{
	tw_pfmt *p = compile_text(switch_format, "sched");
	int ps = tw_pfmt_find(p, "prev_state", 10);
	cr_assert_eq(
		tw_pfmt_textform(p, (size_t)tw_pfmt_find(p, "next_pid", 8)),
		TW_PFT_PLAIN);
	cr_assert_eq(tw_pfmt_textform(p, (size_t)ps), TW_PFT_LOCAL);
	tw_pf_scan s = {0};
	tw_pf_value v;
	cr_assert_eq(tw_pfmt_scan_local(p, &mem, (size_t)ps, "S+", 2, &s, &v),
		     1);
	cr_assert_eq(v.i, 0x101);
	cr_assert_eq(tw_pfmt_scan_local(p, &mem, (size_t)ps, "R", 1, &s, &v),
		     1);
	cr_assert_eq(v.i, 0);
	cr_assert_eq(tw_pfmt_scan_local(p, &mem, (size_t)ps, "D|W", 3, &s, &v),
		     0, "W is no state: the caller scans the event instead");
	tw_pf_scan_fini(&mem, &s);
	tw_pfmt_free(p);
}

Test(pfmt, a_local_fields_text_seen_again_gives_the_same_value_from_the_memo)
{
	tw_pfmt *p = compile_text(switch_format, "sched");
	int ps = tw_pfmt_find(p, "prev_state", 10);
	tw_pf_scan s = {0};
	tw_pf_value a, b;
	/* two copies of each text: the second answer points into its own */
	const char *texts[] = {"S+", "R", "D", "S+", "R", "D"};
	const int64_t want[] = {0x101, 0, 2, 0x101, 0, 2};
	char copy[8];
	for (size_t i = 0; i < 6; i++) {
		size_t n = strlen(texts[i]);
		memcpy(copy, texts[i], n);
		cr_assert_eq(tw_pfmt_scan_local(p, &mem, (size_t)ps, copy, n,
						&s, &a),
			     1);
		cr_assert_eq(a.i, want[i], "%s", texts[i]);
		cr_assert_eq(a.type, TW_PFV_INT);
		cr_assert(!a.s || (a.s >= copy && a.s <= copy + n));
		cr_assert(!a.label || (a.label >= copy &&
				       a.label + a.label_len <= copy + n));
		if (i >= 3) {
			/* the first reading, made again without the memo */
			tw_pf_scan fresh = {0};
			cr_assert_eq(tw_pfmt_scan_local(p, &mem, (size_t)ps,
							copy, n, &fresh, &b),
				     1);
			cr_assert_eq(a.i, b.i);
			cr_assert_eq(a.exact, b.exact);
			cr_assert_eq(a.s, b.s);
			cr_assert_eq(a.label, b.label);
			cr_assert_eq(a.label_len, b.label_len);
			tw_pf_scan_fini(&mem, &fresh);
		}
	}
	/* a text that does not match is not remembered as one that does */
	cr_assert_eq(tw_pfmt_scan_local(p, &mem, (size_t)ps, "D|W", 3, &s, &a),
		     0);
	cr_assert_eq(tw_pfmt_scan_local(p, &mem, (size_t)ps, "D|W", 3, &s, &a),
		     0);
	tw_pf_scan_fini(&mem, &s);
	tw_pfmt_free(p);
}
