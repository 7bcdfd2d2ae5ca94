/* SPDX-License-Identifier: MIT */
/*
 * The recorder's journal of tracefs settings, on a directory that stands
 * in for tracefs (any machine, root or not): what is written back for the
 * forms buffer_size_kb reads, the fresh boot's "N (expanded: M)" among
 * them, which a test machine's own buffer may no longer show.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../lib/live/live-int.h"

static char *restored(const char *saved)
{
	static char out[64];
	return tw_buffer_kb_restore(saved, out, sizeof(out)) == 0 ? out : NULL;
}

Test(buffer_kb, the_forms_buffer_size_kb_reads)
{
	cr_expect_str_eq(restored("1410\n"), "1410");
	cr_expect_str_eq(restored("7 (expanded: 1408)\n"), "1408");
	cr_expect_str_eq(restored("7 (expanded: 1408)"), "1408");
	cr_expect_str_eq(restored("4 (expanded: 16384)\n"), "16384");
	cr_expect_str_eq(restored("X\n") ? "?" : "refused", "refused");
	cr_expect_null(restored(""));
	cr_expect_null(restored("-3\n"));
	cr_expect_null(restored("7 (expanded: )\n"));
	cr_expect_null(restored("7 (expanded: 1408\n"));
	cr_expect_null(restored("7 (extended: 1408)\n"));
	cr_expect_null(restored("99999999999999999999999\n"));
	cr_expect_null(restored("12 13\n"));
}

static char *fake_tracefs(const char *buffer_kb)
{
	char tmpl[] = "/tmp/trawl-fake-tracefs-XXXXXX";
	cr_assert_not_null(mkdtemp(tmpl));
	char path[512];
	snprintf(path, sizeof(path), "%s/buffer_size_kb", tmpl);
	FILE *f = fopen(path, "w");
	cr_assert_not_null(f);
	fputs(buffer_kb, f);
	fclose(f);
	return strdup(tmpl);
}

static char *file_text(const char *dir)
{
	static char text[128];
	char path[512];
	snprintf(path, sizeof(path), "%s/buffer_size_kb", dir);
	FILE *f = fopen(path, "r");
	cr_assert_not_null(f);
	size_t n = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[n] = '\0';
	return text;
}

static void set_and_restore(const char *before, const char *want_after)
{
	char *dir = fake_tracefs(before);
	char keep[512];
	snprintf(keep, sizeof(keep), "%s", dir);
	tw_tracefs tf = {.top = keep, .dir = dir};
	tw_mem_init(&tf.mem, NULL, NULL);
	trawl_error err;
	cr_assert_eq(tw_tracefs_set(&tf, "buffer_size_kb", "2048",
				    TW_SET_BUFFER_KB, &err),
		     0, "%s", err.msg);
	cr_expect_str_eq(file_text(keep), "2048");
	/* set twice: the first value read is the one put back */
	cr_assert_eq(tw_tracefs_set(&tf, "buffer_size_kb", "4096",
				    TW_SET_BUFFER_KB, &err),
		     0);
	cr_expect_eq(tw_tracefs_restore(&tf), 0);
	cr_expect_str_eq(file_text(keep), want_after, "%s put back as %s",
			 before, file_text(keep));
	char path[600];
	snprintf(path, sizeof(path), "%s/buffer_size_kb", keep);
	unlink(path);
	rmdir(keep);
}

Test(journal, a_fresh_boots_buffer_gets_its_first_use_size_back)
{
	set_and_restore("7 (expanded: 1408)\n", "1408");
}

Test(journal, an_expanded_buffer_gets_its_size_back)
{
	set_and_restore("1410\n", "1410");
}

static const char *instance(const char *tag, long pid)
{
	static char name[64];
	return tw_instance_name(tag, pid, name, sizeof(name)) == 0 ? name
								   : NULL;
}

Test(instance, named_by_pid_and_tag)
{
	cr_expect_str_eq(instance(NULL, 42), "trawl-42");
	cr_expect_str_eq(instance("", 42), "trawl-42");
	cr_expect_str_eq(instance("test-record-977", 1234),
			 "trawl-test-record-977-1234");
	cr_expect_str_eq(instance("ci.v7_a", 7), "trawl-ci.v7_a-7");
	cr_expect_null(instance("a/b", 7));
	cr_expect_str_eq(instance("..", 7),
			 "trawl-..-7"); /* no slash: a name */
	cr_expect_null(instance("sp ace", 7));
	cr_expect_null(
		instance("0123456789012345678901234567890123456789x", 7));
	cr_expect_not_null(
		instance("0123456789012345678901234567890123456789", 7));
}
