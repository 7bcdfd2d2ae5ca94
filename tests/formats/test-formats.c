/* SPDX-License-Identifier: MIT */
/*
 * Event formats for text traces (lib/formats): the bundled table, events/
 * trees written here (and the live tracefs when there is one), files of
 * formats plain, gzip and zstd; then damage: malformed and cut-short files
 * are errors naming the file and line, bad files of a tree are counted,
 * garbage never crashes, bombs and floods stop at the bounds, and every
 * failed allocation is a clean error that leaks nothing.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "../../lib/formats/formats.h"
#include "../helpers/helpers.h"

static const char sched_switch[] =
	"name: sched_switch\n"
	"ID: 372\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\n"
	"\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:char next_comm[16];\toffset:40;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t next_pid;\toffset:56;\tsize:4;\tsigned:1;\n"
	"\n"
	"print fmt: \"prev_comm=%s prev_pid=%d ==> next_comm=%s "
	"next_pid=%d\", REC->prev_comm, REC->prev_pid, REC->next_comm, "
	"REC->next_pid\n";

static const char sched_wakeup[] =
	"name: sched_wakeup\n"
	"ID: 374\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\n"
	"\tfield:char comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\n"
	"print fmt: \"comm=%s pid=%d\", REC->comm, REC->pid\n";

static const char print_fmt[] =
	"name: print\n"
	"ID: 5\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\n"
	"\tfield:unsigned long ip;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:char buf[];\toffset:16;\tsize:0;\tsigned:0;\n"
	"\n"
	"print fmt: \"%ps: %s\", (void *)REC->ip, REC->buf\n";

/* The three as gen-kernel-formats.sh writes them. */
static char *container(size_t *len)
{
	char *s;
	int n = asprintf(&s,
			 "#trawl-formats linux 6.18.0-test date 2026-01-01 "
			 "formats 3\n"
			 "#system ftrace\n%s#system sched\n%s#system sched\n%s",
			 print_fmt, sched_switch, sched_wakeup);
	cr_assert(n > 0);
	*len = (size_t)n;
	return s;
}

static tw_mem libc_mem(void)
{
	tw_mem m;
	tw_mem_init(&m, NULL, NULL);
	return m;
}

static tw_format_set *load_ok(const char *path)
{
	tw_mem m = libc_mem();
	tw_format_set *s = NULL;
	trawl_error err;
	int rc = tw_format_set_load(&m, path, &s, &err);
	cr_assert_eq(rc, 0, "%s: %s", path, err.msg);
	cr_assert(s);
	return s;
}

/* Load that must fail with code; returns the error. */
static trawl_error load_fails(const char *path, int code)
{
	tw_mem m = libc_mem();
	tw_format_set *s = (tw_format_set *)1;
	trawl_error err;
	memset(&err, 0, sizeof(err));
	int rc = tw_format_set_load(&m, path, &s, &err);
	cr_assert_eq(rc, -code, "%s: rc %d, expected %d (%s)", path, rc, -code,
		     err.msg);
	cr_assert_null(s);
	cr_assert_eq(err.code, code);
	cr_assert(strstr(err.msg, path), "message without the path: %s",
		  err.msg);
	return err;
}

static const tw_format_text *find(const tw_format_set *s, const char *name)
{
	return tw_format_set_find(s, name, strlen(name));
}

Test(formats, bundled_table_has_every_format_of_a_recent_kernel)
{
	tw_mem m = libc_mem();
	tw_format_set *s;
	trawl_error err;
	cr_assert_eq(tw_format_set_bundled(&m, &s, &err), 0, "%s", err.msg);
	size_t n = tw_format_set_count(s);
	cr_assert_gt(n, 2000);
	cr_assert_eq(tw_format_set_skipped(s, NULL), 0);
	cr_assert(!strncmp(tw_format_set_origin(s), "trawl-formats linux ", 20),
		  "%s", tw_format_set_origin(s));

	const tw_format_text *t = find(s, "sched_switch");
	cr_assert(t);
	cr_assert_str_eq(t->system, "sched");
	cr_assert_str_eq(t->name, "sched_switch");
	cr_assert_eq(t->name_len, 12);
	cr_assert_gt(t->id, 0);
	cr_assert(!strncmp(t->text, "name: sched_switch\nID: ", 23));
	cr_assert(strstr(t->text, "\nprint fmt: \"prev_comm=%s prev_pid=%d "),
		  "%s", t->text);
	cr_assert_eq(strlen(t->text), t->len);
	cr_assert_eq(t->text[t->len - 1], '\n');

	t = find(s, "print");
	cr_assert(t);
	cr_assert_str_eq(t->system, "ftrace");
	cr_assert(strstr(t->text, "\nprint fmt: \"%ps: %s\""), "%s", t->text);
	cr_assert(find(s, "bprint") && find(s, "function"));
	/* print's name in text traces */
	cr_assert_eq(find(s, "tracing_mark_write"), t);

	/* Names are (pointer, length): no NUL needed, no prefix match. */
	cr_assert_eq(tw_format_set_find(s, "sched_switchXYZ", 12),
		     find(s, "sched_switch"));
	cr_assert_null(tw_format_set_find(s, "sched_switch", 11));
	cr_assert_null(find(s, "no_such_event"));
	cr_assert_null(find(s, ""));
	cr_assert_null(tw_format_set_find_in(s, "irq", "sched_switch", 12));
	cr_assert_eq(tw_format_set_find_in(s, "sched", "sched_switch", 12),
		     find(s, "sched_switch"));

	/* Every format is found again by system and name; sorted. */
	for (size_t i = 0; i < n; i++) {
		const tw_format_text *f = tw_format_set_at(s, i);
		cr_assert_eq(tw_format_set_find_in(s, f->system, f->name,
						   f->name_len),
			     f, "%s:%s", f->system, f->name);
		cr_assert(*f->system);
		if (i)
			cr_assert_leq(strcmp(tw_format_set_at(s, i - 1)->system,
					     f->system),
				      0);
	}
	cr_assert_null(tw_format_set_at(s, n));

	/* Another set is a copy of its own. */
	tw_format_set *s2;
	cr_assert_eq(tw_format_set_bundled(&m, &s2, &err), 0, "%s", err.msg);
	cr_assert_eq(tw_format_set_count(s2), n);
	tw_format_set_free(s);
	cr_assert(strstr(find(s2, "sched_switch")->text, "prev_comm"));
	tw_format_set_free(s2);
}

/* Directories and files under a fresh temporary directory. */
static char *tmpdir(void)
{
	char *d = strdup("/tmp/trawl-formats.XXXXXX");
	cr_assert(mkdtemp(d));
	return d;
}

static void put_file(const char *dir, const char *rel, const void *data,
		     size_t len)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	/* mkdir -p of the directories on the way */
	for (char *p = path + strlen(dir) + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		cr_assert(!mkdir(path, 0755) || errno == EEXIST, "%s", path);
		*p = '/';
	}
	FILE *f = fopen(path, "wb");
	cr_assert(f, "%s", path);
	cr_assert_eq(fwrite(data, 1, len, f), len);
	fclose(f);
}

static void put_str(const char *dir, const char *rel, const char *s)
{
	put_file(dir, rel, s, strlen(s));
}

static void rm_rf(const char *dir)
{
	char cmd[4200];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	cr_assert_eq(system(cmd), 0);
}

/* A tracing directory: events/ of two systems and the files around them. */
static char *write_tree(void)
{
	char *d = tmpdir();
	put_str(d, "trace", "# tracer: nop\n");
	put_str(d, "events/enable", "0\n");
	put_str(d, "events/header_page", "\tfield: u64 timestamp;\n");
	put_str(d, "events/sched/enable", "0\n");
	put_str(d, "events/sched/filter", "none\n");
	put_str(d, "events/sched/sched_switch/format", sched_switch);
	put_str(d, "events/sched/sched_switch/id", "372\n");
	put_str(d, "events/sched/sched_wakeup/format", sched_wakeup);
	put_str(d, "events/sched/sched_wakeup/enable", "0\n");
	put_str(d, "events/ftrace/print/format", print_fmt);
	return d;
}

static void check_tree_set(const tw_format_set *s)
{
	cr_assert_eq(tw_format_set_count(s), 3);
	cr_assert_eq(tw_format_set_skipped(s, NULL), 0);
	cr_assert_null(tw_format_set_origin(s));
	const char *order[][2] = {{"ftrace", "print"},
				  {"sched", "sched_switch"},
				  {"sched", "sched_wakeup"}};
	for (size_t i = 0; i < 3; i++) {
		const tw_format_text *t = tw_format_set_at(s, i);
		cr_assert_str_eq(t->system, order[i][0]);
		cr_assert_str_eq(t->name, order[i][1]);
	}
	const tw_format_text *t = find(s, "sched_switch");
	cr_assert_eq(t->id, 372);
	cr_assert_eq(t->len, strlen(sched_switch));
	cr_assert_str_eq(t->text, sched_switch);
	cr_assert_eq(find(s, "print")->id, 5);
	cr_assert_str_eq(find(s, "sched_wakeup")->text, sched_wakeup);
}

Test(formats, tree_of_two_systems_takes_the_system_from_the_directory)
{
	char *d = write_tree();
	char events[4096];
	snprintf(events, sizeof(events), "%s/events", d);

	tw_format_set *s = load_ok(events);
	check_tree_set(s);
	tw_format_set_free(s);

	/* The tracing directory holding events/, as /sys/kernel/tracing. */
	s = load_ok(d);
	check_tree_set(s);
	tw_format_set_free(s);
	rm_rf(d);
	free(d);
}

Test(formats, tree_skips_and_counts_formats_it_cannot_use)
{
	char *d = write_tree();
	char p[4096];
	put_str(d, "events/sched/garbage/format", "this is not a format\n");
	put_str(d, "events/sched/cut/format", "name: cut\nID: 9\nformat:\n");
	put_str(d, "events/sched/noformat/enable", "0\n");
	put_str(d, "events/sched/isdir/format/x", ""); /* a directory */
	snprintf(p, sizeof(p), "%s/events/sched/fifo", d);
	cr_assert(!mkdir(p, 0755));
	snprintf(p, sizeof(p), "%s/events/sched/fifo/format", d);
	cr_assert(!mkfifo(p, 0644)); /* would block a plain open() */
	snprintf(p, sizeof(p), "%s/events/sched/link", d);
	cr_assert(!mkdir(p, 0755));
	snprintf(p, sizeof(p), "%s/events/sched/link/format", d);
	cr_assert(!symlink("/nonexistent/format", p));
	/* The same system and name twice: the first is kept. */
	put_str(d, "events/sched/zz_again/format", sched_switch);

	tw_format_set *s = load_ok(d);
	const char *why;
	cr_assert_eq(tw_format_set_skipped(s, &why), 7);
	cr_assert(why && strstr(why, d), "%s", why);
	cr_assert_eq(tw_format_set_count(s), 3);
	cr_assert_str_eq(find(s, "sched_switch")->system, "sched");
	cr_assert_null(find(s, "cut"));
	tw_format_set_free(s);

	/* Nothing usable at all: an error that says why. */
	char *e = tmpdir();
	put_str(e, "events/sched/garbage/format", "garbage\n");
	trawl_error err = load_fails(e, TRAWL_EFORMAT);
	cr_assert(strstr(err.msg, "1 skipped"), "%s", err.msg);
	cr_assert(strstr(err.msg, "garbage/format"), "%s", err.msg);
	rm_rf(e);
	free(e);

	/* An empty directory has no formats. */
	e = tmpdir();
	load_fails(e, TRAWL_EFORMAT);
	rm_rf(e);
	free(e);
	rm_rf(d);
	free(d);
}

Test(formats, live_tracefs_loads_and_matches_the_bundled_table)
{
	const char *live = "/sys/kernel/tracing";
	char ev[64];
	snprintf(ev, sizeof(ev), "%s/events/sched/sched_switch/format", live);
	if (access(ev, R_OK))
		cr_skip_test("no readable tracefs at %s", live);
	tw_format_set *s = load_ok(live);
	cr_assert_gt(tw_format_set_count(s), 100);
	cr_assert_str_eq(find(s, "sched_switch")->system, "sched");
	cr_assert_str_eq(find(s, "print")->system, "ftrace");

	/* On the kernel the table was made from, they are the same. */
	tw_mem m = libc_mem();
	tw_format_set *b;
	trawl_error err;
	cr_assert_eq(tw_format_set_bundled(&m, &b, &err), 0, "%s", err.msg);
	struct utsname u;
	cr_assert(!uname(&u));
	char want[400];
	snprintf(want, sizeof(want), "trawl-formats linux %s date ", u.release);
	if (!strncmp(tw_format_set_origin(b), want, strlen(want))) {
		cr_assert_eq(tw_format_set_count(s), tw_format_set_count(b));
		for (size_t i = 0; i < tw_format_set_count(s); i++) {
			const tw_format_text *x = tw_format_set_at(s, i);
			const tw_format_text *y = tw_format_set_at(b, i);
			cr_assert_str_eq(x->system, y->system);
			cr_assert_str_eq(x->name, y->name);
			cr_assert_eq(x->id, y->id);
			cr_assert_str_eq(x->text, y->text);
		}
	}
	tw_format_set_free(b);
	tw_format_set_free(s);
}

Test(formats, concatenated_file_with_and_without_system_lines)
{
	/* cat of format files: no systems. */
	char *text;
	cr_assert(asprintf(&text, "%s%s", sched_switch, print_fmt) > 0);
	char *path = tmp_file(text, strlen(text));
	tw_format_set *s = load_ok(path);
	cr_assert_eq(tw_format_set_count(s), 2);
	cr_assert_str_eq(tw_format_set_at(s, 0)->name, "sched_switch");
	cr_assert_str_eq(tw_format_set_at(s, 0)->system, "");
	cr_assert_str_eq(tw_format_set_at(s, 0)->text, sched_switch);
	cr_assert_str_eq(tw_format_set_at(s, 1)->text, print_fmt);
	cr_assert_eq(tw_format_set_find_in(s, "", "print", 5),
		     tw_format_set_at(s, 1));
	cr_assert_null(tw_format_set_origin(s));
	tw_format_set_free(s);
	unlink(path);
	free(path);
	free(text);

	/* The container; blank lines and comments between formats. */
	size_t len;
	char *c = container(&len);
	cr_assert(asprintf(&text, "%s\n\n# a comment\n\n#system  irq \n%s\n\n",
			   c, sched_wakeup) > 0);
	path = tmp_file(text, strlen(text));
	s = load_ok(path);
	cr_assert_eq(tw_format_set_count(s), 4);
	cr_assert_str_eq(tw_format_set_origin(s),
			 "trawl-formats linux 6.18.0-test date 2026-01-01 "
			 "formats 3");
	cr_assert_str_eq(find(s, "print")->system, "ftrace");
	/* Blank lines after a format are not part of it. */
	cr_assert_str_eq(find(s, "sched_wakeup")->text, sched_wakeup);
	/* Two systems with an event of the same name: first, or by system. */
	cr_assert_str_eq(find(s, "sched_wakeup")->system, "sched");
	const tw_format_text *t =
		tw_format_set_find_in(s, "irq", "sched_wakeup", 12);
	cr_assert(t);
	cr_assert_str_eq(t->system, "irq");
	cr_assert_str_eq(t->text, sched_wakeup);
	cr_assert_null(tw_format_set_find_in(s, "", "sched_wakeup", 12));
	tw_format_set_free(s);
	unlink(path);
	free(path);
	free(text);

	/* The same system and name twice: counted, the first kept. */
	cr_assert(asprintf(&text, "%s#system sched\n%s", c, sched_switch) > 0);
	path = tmp_file(text, strlen(text));
	s = load_ok(path);
	cr_assert_eq(tw_format_set_count(s), 3);
	const char *why;
	cr_assert_eq(tw_format_set_skipped(s, &why), 1);
	cr_assert(strstr(why, "sched:sched_switch repeated"), "%s", why);
	tw_format_set_free(s);
	unlink(path);
	free(path);
	free(text);
	free(c);
}

static void *zstd_level(const void *p, size_t n, int level, size_t *out)
{
	size_t cap = ZSTD_compressBound(n);
	void *z = malloc(cap);
	cr_assert(z);
	*out = ZSTD_compress(z, cap, p, n, level);
	cr_assert(!ZSTD_isError(*out));
	return z;
}

static void *zstd_of(const void *p, size_t n, size_t *out)
{
	return zstd_level(p, n, 19, out);
}

static void *gzip_of(const void *p, size_t n, size_t *out)
{
	size_t cap = compressBound((uLong)n) + 32;
	unsigned char *z = malloc(cap);
	cr_assert(z);
	z_stream s;
	memset(&s, 0, sizeof(s));
	cr_assert_eq(
		deflateInit2(&s, 9, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY),
		Z_OK);
	s.next_in = (Bytef *)(uintptr_t)p;
	s.avail_in = (uInt)n;
	s.next_out = z;
	s.avail_out = (uInt)cap;
	cr_assert_eq(deflate(&s, Z_FINISH), Z_STREAM_END);
	*out = s.total_out;
	deflateEnd(&s);
	return z;
}

static void same_as_container(const tw_format_set *s)
{
	cr_assert_eq(tw_format_set_count(s), 3);
	cr_assert_str_eq(find(s, "sched_switch")->text, sched_switch);
	cr_assert_str_eq(find(s, "print")->system, "ftrace");
	cr_assert(!strncmp(tw_format_set_origin(s), "trawl-formats", 13));
}

Test(formats, compressed_files_load_like_plain_ones)
{
	size_t len, zn, gn;
	char *c = container(&len);
	void *z = zstd_of(c, len, &zn);
	void *g = gzip_of(c, len, &gn);
	cr_assert_lt(zn, len);

	char *path = tmp_file(z, zn);
	tw_format_set *s = load_ok(path);
	same_as_container(s);
	tw_format_set_free(s);
	unlink(path);
	free(path);

	path = tmp_file(g, gn);
	s = load_ok(path);
	same_as_container(s);
	tw_format_set_free(s);
	unlink(path);
	free(path);

	/* Two members or frames one after the other, as cat makes them: the
	 * second holds one more format. */
	size_t z2n, g2n;
	char *more;
	cr_assert(asprintf(&more, "#system irq\n%s", sched_wakeup) > 0);
	void *z2 = zstd_of(more, strlen(more), &z2n);
	void *g2 = gzip_of(more, strlen(more), &g2n);
	free(more);
	char *both = malloc(zn + z2n + gn + g2n);
	memcpy(both, z, zn);
	memcpy(both + zn, z2, z2n);
	path = tmp_file(both, zn + z2n);
	s = load_ok(path);
	cr_assert_eq(tw_format_set_count(s), 4);
	tw_format_set_free(s);
	unlink(path);
	free(path);
	memcpy(both, g, gn);
	memcpy(both + gn, g2, g2n);
	path = tmp_file(both, gn + g2n);
	s = load_ok(path);
	cr_assert_eq(tw_format_set_count(s), 4);
	tw_format_set_free(s);
	unlink(path);
	free(path);

	free(both);
	free(z2);
	free(g2);
	free(z);
	free(g);
	free(c);
}

/* A file of text that must fail with code at line (0: any). */
static void bad_text(const char *text, size_t len, int code, uint64_t line,
		     const char *words)
{
	char *path = tmp_file(text, len);
	trawl_error err = load_fails(path, code);
	if (line)
		cr_assert_eq(err.line, line, "line %llu, expected %llu: %s",
			     (unsigned long long)err.line,
			     (unsigned long long)line, err.msg);
	if (words)
		cr_assert(strstr(err.msg, words), "\"%s\" not in: %s", words,
			  err.msg);
	unlink(path);
	free(path);
}

static void bad(const char *text, int code, uint64_t line, const char *words)
{
	bad_text(text, strlen(text), code, line, words);
}

Test(formats, malformed_files_are_errors_naming_file_and_line)
{
	bad("garbage\n", TRAWL_EPARSE, 1, "expected \"name:\"");
	bad("#system sched\n\n\tfield:int x;\n", TRAWL_EPARSE, 3,
	    "expected \"name:\"");
	bad("name: a\nformat:\n", TRAWL_EPARSE, 2, "\"ID:\" line of event a");
	bad("\n\nname: a\nID: x1\n", TRAWL_EPARSE, 4, "\"ID:\"");
	bad("name: a\nID: 4294967296\nprint fmt: \"\"\n", TRAWL_EPARSE, 2,
	    "\"ID:\"");
	bad("name: a\nID:\nprint fmt: \"\"\n", TRAWL_EPARSE, 2, "\"ID:\"");
	bad("name:\nID: 1\nprint fmt: \"\"\n", TRAWL_EPARSE, 1, "event name");
	bad("name: a b\nID: 1\nprint fmt: \"\"\n", TRAWL_EPARSE, 1,
	    "byte 0x20");
	bad("name: a\nID: 1\nformat:\n\tfield:int x;\n", TRAWL_EPARSE, 4,
	    "no \"print fmt:\" line");
	bad("name: a\nID: 1\nformat:\n\nprint fmt: \"x\"", TRAWL_EPARSE, 5,
	    "no newline at its end");
	bad("#system \nname: a\nID: 1\nprint fmt: \"\"\n", TRAWL_EPARSE, 1,
	    "system name");
	bad("#system a/b c\n", TRAWL_EPARSE, 1, "system name");
	bad("", TRAWL_EFORMAT, 0, "cannot find an event format");
	bad("# just\n#system sched\n\n", TRAWL_EFORMAT, 0, NULL);

	/* The second format is the bad one: its own line. */
	char *t;
	cr_assert(asprintf(&t, "%s#system x\nname: b\nID: 2\n", print_fmt) > 0);
	bad(t, TRAWL_EPARSE, 12, "\"print fmt:\" line");
	free(t);

	static const char nul[] = "name: a\nID: 1\nprint\0 fmt: \"\"\n";
	char *path = tmp_file(nul, sizeof(nul) - 1);
	trawl_error err = load_fails(path, TRAWL_EPARSE);
	cr_assert_eq(err.line, 3);
	cr_assert_eq(err.offset, 19);
	unlink(path);
	free(path);

	/* Over the bound on one format. */
	size_t big = TW_FORMAT_MAX_LEN + 100;
	char *b = malloc(big + 1);
	memset(b, 'x', big);
	memcpy(b, "name: big\nID: 1\nprint fmt: \"", 28);
	b[big - 1] = '\n';
	bad_text(b, big, TRAWL_ELIMIT, 1, "longer than 256 KiB");
	free(b);

	err = load_fails("/nonexistent/formats", TRAWL_EIO);
	cr_assert_eq(err.sys_errno, ENOENT);
}

/* Load bytes that may fail; a failure must be a filled error. */
static int load_any(const void *data, size_t len, tw_format_set **out)
{
	char *path = tmp_file(data, len);
	tw_mem m = libc_mem();
	trawl_error err;
	memset(&err, 0, sizeof(err));
	int rc = tw_format_set_load(&m, path, out, &err);
	if (rc) {
		cr_assert_lt(rc, 0);
		cr_assert_eq(err.code, -rc);
		cr_assert(*err.msg && strstr(err.msg, path), "%s", err.msg);
		cr_assert_null(*out);
	}
	unlink(path);
	free(path);
	return rc;
}

Test(formats, every_cut_of_a_file_is_an_error_or_whole_formats)
{
	size_t len, zn, gn;
	char *c = container(&len);
	const char *whole[] = {print_fmt, sched_switch, sched_wakeup};
	for (size_t k = 0; k < len; k++) {
		tw_format_set *s;
		if (load_any(c, k, &s))
			continue;
		/* A format is taken whole or not at all. */
		size_t n = tw_format_set_count(s);
		cr_assert_lt(n, 3, "cut at %zu", k);
		for (size_t i = 0; i < n; i++)
			cr_assert_str_eq(tw_format_set_at(s, i)->text, whole[i],
					 "cut at %zu", k);
		tw_format_set_free(s);
	}
	/* A compressed file cut anywhere is an error. */
	void *z = zstd_of(c, len, &zn);
	void *g = gzip_of(c, len, &gn);
	for (size_t k = 0; k < zn; k++) {
		tw_format_set *s;
		cr_assert_neq(load_any(z, k, &s), 0, "zstd cut at %zu", k);
	}
	for (size_t k = 0; k < gn; k++) {
		tw_format_set *s;
		cr_assert_neq(load_any(g, k, &s), 0, "gzip cut at %zu", k);
	}
	free(z);
	free(g);
	free(c);
}

Test(formats, garbage_and_damage_never_crash)
{
	size_t len, zn, gn;
	char *c = container(&len);
	void *z = zstd_of(c, len, &zn);
	void *g = gzip_of(c, len, &gn);
	srand(7);
	unsigned char buf[4096];
	for (int i = 0; i < 300; i++) {
		tw_format_set *s;
		const void *src = i % 3 == 0   ? (const void *)c
				  : i % 3 == 1 ? z
					       : g;
		size_t n = i % 3 == 0 ? len : i % 3 == 1 ? zn : gn;
		if (i % 10 == 9) {
			/* pure noise */
			n = (size_t)rand() % sizeof(buf);
			for (size_t j = 0; j < n; j++)
				buf[j] = (unsigned char)rand();
		} else {
			memcpy(buf, src, n);
			for (int f = 0; f < 1 + rand() % 4; f++)
				buf[(size_t)rand() % n] ^=
					(unsigned char)(1 + rand() % 255);
		}
		if (!load_any(buf, n, &s)) {
			for (size_t j = 0; j < tw_format_set_count(s); j++) {
				const tw_format_text *t =
					tw_format_set_at(s, j);
				cr_assert_eq(strlen(t->text), t->len);
				cr_assert(!strncmp(t->text, "name:", 5));
				cr_assert_eq(tw_format_set_find_in(s, t->system,
								   t->name,
								   t->name_len),
					     t);
			}
			tw_format_set_free(s);
		}
	}
	free(z);
	free(g);
	free(c);
}

Test(formats, bombs_and_floods_stop_at_the_bounds)
{
	/* 65 MiB of newlines is a 2 KB zstd file. */
	size_t big = TW_FORMAT_MAX_BYTES + (1u << 20), zn;
	char *nl = malloc(big);
	memset(nl, '\n', big);
	void *z = zstd_level(nl, big, 1, &zn);
	free(nl);
	bad_text(z, zn, TRAWL_ELIMIT, 0, "more than 64 MiB");
	free(z);

	/* More formats than a set may hold. */
	size_t n = TW_FORMAT_MAX_COUNT + 1, at = 0;
	char *text = malloc(n * 48);
	for (size_t i = 0; i < n; i++)
		at += (size_t)sprintf(text + at,
				      "name: e%zu\nID: %zu\nprint fmt: \"\"\n",
				      i, i);
	bad_text(text, at, TRAWL_ELIMIT, 0, "more than 65536 event formats");
	/* ...but exactly that many is fine, and each is found. */
	at = 0;
	for (size_t i = 0; i < n - 1; i++)
		at += (size_t)sprintf(text + at,
				      "name: e%zu\nID: %zu\nprint fmt: \"\"\n",
				      i, i);
	tw_format_set *s;
	cr_assert_eq(load_any(text, at, &s), 0);
	cr_assert_eq(tw_format_set_count(s), TW_FORMAT_MAX_COUNT);
	for (size_t i = 0; i < n - 1; i += 997) {
		char name[32];
		snprintf(name, sizeof(name), "e%zu", i);
		cr_assert_eq(find(s, name)->id, i);
	}
	tw_format_set_free(s);
	free(text);
}

Test(formats, misuse_is_refused)
{
	tw_mem m = libc_mem();
	tw_format_set *s;
	trawl_error err;
	cr_assert_eq(tw_format_set_load(&m, NULL, &s, &err), -TRAWL_EMISUSE);
	cr_assert_null(s);
	cr_assert_eq(tw_format_set_load(NULL, "x", &s, NULL), -TRAWL_EMISUSE);
	cr_assert_eq(tw_format_set_bundled(&m, NULL, &err), -TRAWL_EMISUSE);
	cr_assert_null(tw_format_set_find(NULL, "a", 1));
	cr_assert_null(tw_format_set_find_in(NULL, "a", "a", 1));
	cr_assert_null(tw_format_set_at(NULL, 0));
	cr_assert_eq(tw_format_set_count(NULL), 0);
	cr_assert_eq(tw_format_set_skipped(NULL, NULL), 0);
	cr_assert_null(tw_format_set_origin(NULL));
	tw_format_set_free(NULL);
}

/*
 * Out-of-memory sweep: fail allocation N for N = 0, 1, ... until a load
 * needs no more than that; each failure is TRAWL_ENOMEM with nothing left
 * allocated (counted here, and ASan's leak check on top).
 */
static void sweep(const char *path)
{
	long n;
	for (n = 0; n < 1000; n++) {
		struct fault f = {n, 0, 0};
		tw_mem m;
		tw_mem_init(&m, fault_realloc, &f);
		tw_format_set *s;
		trawl_error err;
		int rc = path ? tw_format_set_load(&m, path, &s, &err)
			      : tw_format_set_bundled(&m, &s, &err);
		if (!f.fired) {
			cr_assert_eq(rc, 0, "%s", err.msg);
			cr_assert_gt(tw_format_set_count(s), 2);
			tw_format_set_free(s);
			cr_assert_eq(f.live, 0);
			break;
		}
		cr_assert_eq(rc, -TRAWL_ENOMEM, "allocation %ld: %d %s", n, rc,
			     err.msg);
		cr_assert_null(s);
		cr_assert_eq(f.live, 0, "allocation %ld failed: %ld leaked", n,
			     f.live);
	}
	cr_assert_lt(n, 1000, "never completed");
	cr_assert_gt(n, 3, "too few allocations to be a sweep");
}

Test(formats, every_allocation_failure_is_a_clean_error)
{
	sweep(NULL);

	size_t len, zn, gn;
	char *c = container(&len);
	void *z = zstd_of(c, len, &zn);
	void *g = gzip_of(c, len, &gn);
	char *paths[] = {tmp_file(c, len), tmp_file(z, zn), tmp_file(g, gn)};
	for (size_t i = 0; i < 3; i++) {
		sweep(paths[i]);
		unlink(paths[i]);
		free(paths[i]);
	}
	char *d = write_tree();
	sweep(d);
	rm_rf(d);
	free(d);
	free(z);
	free(g);
	free(c);
}
