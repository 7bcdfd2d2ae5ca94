/* SPDX-License-Identifier: MIT */
/*
 * ftrace's stack records (kernel_stack, user_stack) and the trace's kernel
 * symbols (trawl_trace_symbol()). The format declares `unsigned long
 * caller[8]`, the kernel writes `size` frames (lib/pfmt/pfmt.h,
 * tw_pfmt_stack()):
 *
 * - stacktrace.dat (trace-cmd record -e syscalls:sys_enter_getppid -R
 *   stacktrace -e sched:sched_process_fork -R stacktrace, kernel 6.18):
 *   every stack has the frames `trace-cmd report` shows, by address and
 *   name, its text is the kernel's, the symbols hold their addresses; one
 *   thread and the merge ahead alike;
 * - a trace.dat made here (lib/dat's v7 writer) of stacks the kernel may
 *   write or damage may make: more than 8 frames, fewer than the size says,
 *   a negative size, old kernels' ULONG_MAX end, an address no symbol
 *   holds, a user stack, a record too short for any frame; with --strict
 *   the short one is the error;
 * - text traces have no symbols; a perf.data's are this machine's only for
 *   a file of this boot.
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <trawl/trawl.h>

#include "../../lib/dat/dat-write.h"
#include "../helpers/helpers.h"

#define MAX_STACKS 64
#define MAX_FRAMES 64

struct stack {
	char name[32];
	int64_t size; /* the size field, -1000 when absent */
	size_t nframes;
	uint64_t frame[MAX_FRAMES];
	char sym[MAX_FRAMES][64]; /* trawl_trace_symbol()'s, "" for none */
	uint64_t off[MAX_FRAMES], symsize[MAX_FRAMES];
	char text[2048];
	char json[4096];
};

struct stacks {
	trawl_trace *t;
	struct stack s[MAX_STACKS];
	size_t n;
};

static int field_index(const trawl_event *ev, const char *name)
{
	for (size_t i = 0; i < trawl_event_field_count(ev); i++) {
		size_t n;
		const char *k = trawl_event_field_name(ev, i, &n);
		if (n == strlen(name) && !memcmp(k, name, n))
			return (int)i;
	}
	return -1;
}

static int on_stack(const trawl_event *ev, void *ctx)
{
	struct stacks *st = ctx;
	cr_assert_lt(st->n, MAX_STACKS);
	struct stack *s = &st->s[st->n++];
	snprintf(s->name, sizeof(s->name), "%s", trawl_event_name(ev));
	s->size = -1000;
	int si = field_index(ev, "size"), ci = field_index(ev, "caller");
	if (si >= 0)
		cr_assert_eq(trawl_event_field_int(ev, (size_t)si, &s->size),
			     0);
	if (ci >= 0) {
		const int64_t *el = NULL;
		s->nframes = trawl_event_field_array(ev, (size_t)ci, &el);
		cr_assert_leq(s->nframes, MAX_FRAMES);
		for (size_t j = 0; j < s->nframes; j++) {
			s->frame[j] = (uint64_t)el[j];
			const char *n = trawl_trace_symbol(
				st->t, s->frame[j], &s->off[j], &s->symsize[j]);
			snprintf(s->sym[j], sizeof(s->sym[j]), "%s",
				 n ? n : "");
		}
	}
	size_t len;
	const char *p = trawl_event_payload(ev, &len);
	snprintf(s->text, sizeof(s->text), "%.*s", (int)len, p);
	const char *j = trawl_event_fields_json(ev, &len);
	snprintf(s->json, sizeof(s->json), "%.*s", (int)len, j);
	return 0;
}

/* Every stack of a file; the run's return in *rc, its stats in *stats. */
static struct stacks *read_stacks(const char *path, const trawl_open_opts *o,
				  int *rc, trawl_stats *stats)
{
	trawl_error err;
	struct stacks *st = calloc(1, sizeof(*st));
	st->t = trawl_open(path, o, &err);
	cr_assert(st->t, "%s", err.msg);
	cr_assert_eq(trawl_on(st->t, "ftrace:*_stack", on_stack, st), 0);
	*rc = trawl_run(st->t, &err);
	if (stats)
		*stats = *trawl_trace_stats(st->t);
	return st;
}

static void done(struct stacks *st)
{
	trawl_close(st->t);
	free(st);
}

/* ---- the recording: as trace-cmd report shows it ---- */

struct frame {
	uint64_t addr;
	const char *name;
};

static const struct frame getppid_frames[] = {
	{0xffffffff814c32c1ull, "ftrace_syscall_enter"},
	{0xffffffff81424350ull, "syscall_trace_enter"},
	{0xffffffff8224d2dfull, "do_syscall_64"},
	{0xffffffff81000130ull, "entry_SYSCALL_64_after_hwframe"},
};
static const struct frame fork_frames[] = {
	{0xffffffff813a817bull, "trace_event_raw_event_sched_process_fork"},
	{0xffffffff813a5571ull, "__traceiter_sched_process_fork"},
	{0xffffffff8135f93aull, "kernel_clone"},
	{0xffffffff8135fb4dull, "__do_sys_clone"},
	{0xffffffff8224d141ull, "do_syscall_64"},
	{0xffffffff81000130ull, "entry_SYSCALL_64_after_hwframe"},
};

static void expect_frames(const struct stack *s, const struct frame *want,
			  size_t n)
{
	cr_assert_eq(s->nframes, n, "%zu frames, trace-cmd shows %zu",
		     s->nframes, n);
	cr_expect_eq(s->size, (int64_t)n);
	char text[2048] = "<stack trace>";
	for (size_t j = 0; j < n; j++) {
		cr_expect_eq(s->frame[j], want[j].addr, "frame %zu: %llx", j,
			     (unsigned long long)s->frame[j]);
		cr_expect_str_eq(s->sym[j], want[j].name, "frame %zu", j);
		cr_expect_lt(s->off[j], s->symsize[j], "frame %zu", j);
		strcat(text, "\n => ");
		strcat(text, want[j].name);
	}
	cr_expect_str_eq(s->text, text);
}

static void check_recording(const char *ahead)
{
	setenv("TRAWL_MERGE_AHEAD", ahead, 1);
	int rc;
	trawl_stats stats;
	struct stacks *st =
		read_stacks(fixture("stacktrace.dat"), NULL, &rc, &stats);
	unsetenv("TRAWL_MERGE_AHEAD");
	cr_assert_eq(rc, 0);
	cr_assert_eq(st->n, 4, "%zu kernel_stack events", st->n);
	for (size_t i = 0; i < 3; i++)
		expect_frames(&st->s[i], getppid_frames,
			      TW_ARRAY_SIZE(getppid_frames));
	expect_frames(&st->s[3], fork_frames, TW_ARRAY_SIZE(fork_frames));
	cr_expect(strstr(st->s[0].json,
			 "\"caller\":[18446744071583838913,"
			 "18446744071583187792,18446744071598035679,"
			 "18446744071578845488]"),
		  "%s", st->s[0].json);
	cr_expect_eq(stats.bad_lines, 0, "nothing is damaged");
	done(st);
}

Test(dat_stack, the_recordings_stacks_are_what_trace_cmd_shows)
{
	check_recording("off");
}

Test(dat_stack, the_merge_ahead_gives_the_same_stacks)
{
	check_recording("on");
}

Test(dat_stack, symbols_of_the_recording_hold_their_addresses)
{
	trawl_error err;
	trawl_trace *t = trawl_open(fixture("stacktrace.dat"), NULL, &err);
	cr_assert(t, "%s", err.msg);
	uint64_t off = 1, size = 1;
	/* before the run, as after */
	const char *n =
		trawl_trace_symbol(t, 0xffffffff814c32c1ull, &off, &size);
	cr_assert_str_eq(n, "ftrace_syscall_enter");
	cr_expect_gt(off, 0);
	cr_expect_lt(off, size);
	/* the symbol's own address: offset 0 */
	n = trawl_trace_symbol(t, 0xffffffff814c32c1ull - off, &off, NULL);
	cr_assert_str_eq(n, "ftrace_syscall_enter");
	cr_expect_eq(off, 0);
	cr_expect_null(trawl_trace_symbol(t, 16, &off, &size),
		       "no symbol holds a user address");
	cr_expect_null(trawl_trace_symbol(NULL, 16, NULL, NULL));
	trawl_close(t);
}

Test(dat_stack, text_traces_have_no_symbols)
{
	trawl_error err;
	trawl_trace *t = trawl_open(fixture("ftrace-irqinfo.txt"), NULL, &err);
	cr_assert(t, "%s", err.msg);
	uint64_t off, size;
	cr_expect_null(
		trawl_trace_symbol(t, 0xffffffff81000130ull, &off, &size));
	trawl_close(t);
}

Test(dat_stack, a_perf_data_of_another_boot_names_nothing_by_its_addresses)
{
	/* perf writes no kallsyms: this machine's are used only for a file
	 * of this boot, which the fixture is not */
	trawl_error err;
	trawl_trace *t = trawl_open(fixture("perf-sched.perf"), NULL, &err);
	cr_assert(t, "%s", err.msg);
	uint64_t off = 0, size = 0;
	const char *n =
		trawl_trace_symbol(t, 0xffffffff81000130ull, &off, &size);
	cr_expect(!n || off < size, "%s+%llu/%llu", n, (unsigned long long)off,
		  (unsigned long long)size);
	trawl_close(t);
}

/* ---- stacks made here ---- */

#define PAGE 4096

/* as this kernel's events/ftrace/ */
#define COMMON                                                                 \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n" \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n" \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;"      \
	"\tsigned:0;\n"                                                        \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
#define STACK_FMT                                                              \
	"print fmt: \"\\t=> %ps\\n\\t=> %ps\\n\\t=> %ps\\n\" "                 \
	"\"\\t=> %ps\\n\\t=> %ps\\n\\t=> %ps\\n\" \"\\t=> %ps\\n\\t=> "        \
	"%ps\\n\", (void *)REC->caller[0], (void *)REC->caller[1], "           \
	"(void *)REC->caller[2], (void *)REC->caller[3], (void "               \
	"*)REC->caller[4], (void *)REC->caller[5], (void *)REC->caller[6], "   \
	"(void *)REC->caller[7]\n"
static const char kernel_stack_format[] =
	"name: kernel_stack\nID: 4\nformat:\n" COMMON
	"\tfield:int size;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:unsigned long caller[8];\toffset:16;\tsize:64;\tsigned:0;\n"
	"\n" STACK_FMT;
static const char user_stack_format[] =
	"name: user_stack\nID: 13\nformat:\n" COMMON
	"\tfield:unsigned int tgid;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned long caller[8];\toffset:16;\tsize:64;\tsigned:0;\n"
	"\n" STACK_FMT;
static const char kallsyms[] = "ffffffff81000000 T _stext\n"
			       "ffffffff81000100 T foo\n"
			       "ffffffff81000200 t bar\n"
			       "ffffffff81000300 T baz\n"
			       "ffffffff81000400 T _etext\n"
			       "ffffffffa0000000 t modfn\t[mod]\n"
			       "ffffffffa0000040 t modfn2\t[mod]\n";

#define FOO   0xffffffff81000110ull /* foo+0x10/0x100 */
#define BAR   0xffffffff81000204ull
#define BAZ   0xffffffff812fffffull /* not in baz: past _etext */
#define MODFN 0xffffffffa0000008ull /* modfn+0x8/0x40 [mod] */
#define NONE  0xffffffff80000000ull /* before the first symbol */

struct page {
	unsigned char b[PAGE];
	size_t at;
	uint64_t ts;
};

/* One record: ftrace's header (type 4 or 13, pid 42), the word after it
 * (size or tgid), then nwords longs; len cuts it (0: whole). */
static void put_record(struct page *pg, uint16_t type, int32_t word,
		       const uint64_t *w, size_t nw, size_t len)
{
	unsigned char d[1024] = {0};
	size_t n = 16 + nw * 8;
	memcpy(d, &type, 2);
	int32_t pid = 42;
	memcpy(d + 4, &pid, 4);
	memcpy(d + 8, &word, 4);
	memcpy(d + 16, w, nw * 8);
	if (len)
		n = len;
	n = (n + 3) & ~(size_t)3;
	uint32_t delta = 1000, head;
	unsigned char *r = pg->b + 16 + pg->at;
	if (n <= 112) {
		head = delta << 5 | (uint32_t)(n / 4);
		memcpy(r, &head, 4);
		memcpy(r + 4, d, n);
		pg->at += 4 + n;
	} else {
		head = delta << 5;
		uint32_t big = (uint32_t)n + 4;
		memcpy(r, &head, 4);
		memcpy(r + 4, &big, 4);
		memcpy(r + 8, d, n);
		pg->at += 8 + n;
	}
	cr_assert_lt(pg->at, PAGE - 16 - 300);
}

/* The stacks below, in this order; back: then a page of one stack of no
 * frames that goes back to before them (the run sorts). */
static char *made_file(int back)
{
	struct page *pg = calloc(2, sizeof(*pg));
	uint64_t ts = 1000000;
	memcpy(pg->b, &ts, 8);
	/* 0: three frames, one in a module, one no symbol holds */
	uint64_t a[] = {FOO, MODFN, BAZ};
	put_record(pg, 4, 3, a, 3, 0);
	/* 1: twenty frames: the format's 8 are no bound */
	uint64_t b[20];
	for (int i = 0; i < 20; i++)
		b[i] = i % 2 ? BAR : FOO + (uint64_t)i;
	put_record(pg, 4, 20, b, 20, 0);
	/* 2: a size of 10, 4 frames in the record: damaged */
	uint64_t c[] = {FOO, BAR, FOO, BAR};
	put_record(pg, 4, 10, c, 4, 0);
	/* 3: an older kernel's 8, ended by ULONG_MAX */
	uint64_t d[8] = {BAR, FOO, UINT64_MAX, FOO, FOO, FOO, FOO, FOO};
	put_record(pg, 4, 8, d, 8, 0);
	/* 4: before the first symbol */
	uint64_t e[] = {NONE};
	put_record(pg, 4, 1, e, 1, 0);
	/* 5: a negative size: damaged, no frames */
	put_record(pg, 4, -1, c, 4, 0);
	/* 6: a user stack, ended by 0 */
	uint64_t g[8] = {0x7f0000001000ull, 0x55550000abcdull};
	put_record(pg, 13, 5, g, 8, 0);
	/* 7: too short for any frame, and for its size of 2: damaged */
	put_record(pg, 4, 2, c, 0, 12);
	/* 8: no frames, none said */
	put_record(pg, 4, 0, c, 0, 0);
	uint64_t commit = pg->at;
	memcpy(pg->b + 8, &commit, 8);
	if (back) {
		ts = 10;
		memcpy(pg[1].b, &ts, 8);
		put_record(&pg[1], 4, 0, c, 0, 0);
		commit = pg[1].at;
		memcpy(pg[1].b + 8, &commit, 8);
	}

	tw_blob ft[2] = {{kernel_stack_format, sizeof(kernel_stack_format) - 1},
			 {user_stack_format, sizeof(user_stack_format) - 1}};
	tw_dat_meta m = {
		.page_size = PAGE,
		.header_page = {synth_header_page, strlen(synth_header_page)},
		.header_event = {synth_header_event,
				 strlen(synth_header_event)},
		.ftrace = ft,
		.nftrace = 2,
		.kallsyms = {kallsyms, sizeof(kallsyms) - 1},
		.ncpus = 1};
	char *path = tmp_file("", 0);
	int fd = open(path, O_RDWR | O_TRUNC);
	cr_assert_geq(fd, 0);
	tw_mem mem;
	tw_mem_init(&mem, NULL, NULL);
	trawl_error err;
	tw_dat7 *w = tw_dat7_open(&mem, fd, path, &m, TW_DAT_COMP_NONE, &err);
	cr_assert(w, "%s", err.msg);
	uint64_t size;
	cr_assert_eq(tw_dat7_add(w, 0, pg[0].b, PAGE), 0);
	if (back)
		cr_assert_eq(tw_dat7_add(w, 0, pg[1].b, PAGE), 0);
	cr_assert_eq(tw_dat7_sync(w, 0, 1), 0);
	cr_assert_eq(tw_dat7_finish(w, &m, &size, &err), 0, "%s", err.msg);
	tw_dat7_free(w);
	close(fd);
	free(pg);
	return path;
}

static void expect_made(const struct stacks *st, const trawl_stats *stats,
			int back)
{
	cr_assert_eq(st->n, 9 + (size_t)back, "%zu stacks", st->n);
	const struct stack *s = st->s + back;
	/* 0 */
	cr_expect_eq(s[0].nframes, 3);
	cr_expect_str_eq(
		s[0].text,
		"<stack trace>\n => foo\n => modfn\n => 0xffffffff812fffff");
	cr_expect_str_eq(s[0].sym[0], "foo");
	cr_expect_eq(s[0].off[0], 0x10);
	cr_expect_eq(s[0].symsize[0], 0x100);
	cr_expect_str_eq(s[0].sym[1], "modfn");
	cr_expect_eq(s[0].off[1], 0x8);
	cr_expect_eq(s[0].symsize[1], 0x40);
	cr_expect_str_eq(s[0].sym[2], "", "past the last kernel symbol");
	/* 1 */
	cr_expect_eq(s[1].nframes, 20, "%zu frames", s[1].nframes);
	cr_expect_eq(s[1].frame[19], BAR);
	cr_expect_eq(s[1].frame[18], FOO + 18);
	cr_expect(strstr(s[1].text, " => bar\n => foo\n => bar") != NULL);
	/* 2: what it holds */
	cr_expect_eq(s[2].nframes, 4);
	cr_expect_eq(s[2].size, 10);
	cr_expect_str_eq(s[2].text, "<stack trace>\n => foo\n => bar\n => "
				    "foo\n => bar");
	/* 3 */
	cr_expect_eq(s[3].nframes, 2);
	cr_expect_str_eq(s[3].text, "<stack trace>\n => bar\n => foo");
	/* 4 */
	cr_expect_eq(s[4].nframes, 1);
	cr_expect_str_eq(s[4].text, "<stack trace>\n => 0xffffffff80000000");
	/* 5 */
	cr_expect_eq(s[5].nframes, 0);
	cr_expect_str_eq(s[5].text, "<stack trace>");
	/* 6 */
	cr_expect_str_eq(s[6].name, "user_stack");
	cr_expect_eq(s[6].nframes, 2);
	cr_expect_str_eq(s[6].text, "<user stack trace>\n =>  "
				    "<00007f0000001000>\n =>  "
				    "<000055550000abcd>");
	cr_expect(strstr(s[6].json, "\"tgid\":5"), "%s", s[6].json);
	/* 7 */
	cr_expect_eq(s[7].nframes, 0);
	cr_expect(strncmp(s[7].text, "[damaged record", 15) == 0, "%s",
		  s[7].text);
	/* 8 */
	cr_expect_eq(s[8].nframes, 0);
	cr_expect_str_eq(s[8].text, "<stack trace>");
	cr_expect_str_eq(s[8].json, "{\"size\":0,\"caller\":[]}");
	cr_expect_eq(stats->bad_lines, 3, "%llu damaged",
		     (unsigned long long)stats->bad_lines);
}

Test(dat_stack, stacks_have_the_frames_their_records_hold)
{
	char *path = made_file(0);
	int rc;
	trawl_stats stats;
	struct stacks *st = read_stacks(path, NULL, &rc, &stats);
	cr_assert_eq(rc, 0);
	expect_made(st, &stats, 0);
	uint64_t off, size;
	cr_expect_null(trawl_trace_symbol(st->t, BAZ, &off, &size));
	cr_expect_null(trawl_trace_symbol(st->t, NONE, &off, &size));
	cr_expect_str_eq(
		trawl_trace_symbol(st->t, 0xffffffff81000300ull, &off, &size),
		"baz");
	done(st);
	/* on one thread too */
	trawl_open_opts o = {.threads = 1};
	st = read_stacks(path, &o, &rc, &stats);
	cr_assert_eq(rc, 0);
	expect_made(st, &stats, 0);
	done(st);
	unlink(path);
	free(path);
}

Test(dat_stack, a_sorted_run_counts_a_short_stack_once)
{
	/* the records go through the sorter and are read again */
	char *path = made_file(1);
	int rc;
	trawl_stats stats;
	struct stacks *st = read_stacks(path, NULL, &rc, &stats);
	cr_assert_eq(rc, 0);
	cr_expect_gt(stats.reordered, 0, "the run sorted");
	expect_made(st, &stats, 1);
	done(st);
	unlink(path);
	free(path);
}

Test(dat_stack, a_short_stack_is_the_error_with_strict)
{
	char *path = made_file(0);
	int rc;
	trawl_open_opts o = {.flags = TRAWL_OPEN_STRICT};
	struct stacks *st = read_stacks(path, &o, &rc, NULL);
	cr_expect_eq(rc, -TRAWL_EPARSE);
	cr_expect_eq(st->n, 2, "the stacks before it were delivered");
	done(st);
	unlink(path);
	free(path);
}
