/* SPDX-License-Identifier: MIT */
/*
 * Event formats for the types of a text trace, which carries none: looked
 * up by event name when a type's fields are first read, parsed by
 * libtraceevent and compiled (lib/pfmt) once per type. Where they come from,
 * in order: the user's --formats (an events/ tree, or a file of formats),
 * the live tracefs of this machine, and the table bundled in libtrawl. The
 * scan of each event's text against its format checks the choice: a line
 * that does not match is decoded the generic way and counted.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <traceevent/event-parse.h>
#include <unistd.h>

#include "../dat/dat-int.h"
#include "../formats/formats.h"
#include "../input/input.h"
#include "../pfmt/pfmt.h"
#include "core.h"

#define TRACEFS "/sys/kernel/tracing"

struct tw_textfmt {
	struct tep_handle *tep;
	tw_format_set *sets[3]; /* user, (tracefs: see one), bundled */
	int loaded[3];
	/* tracefs formats read one by one (events/SYSTEM/NAME/format) */
	tw_format_set **one;
	size_t none, one_cap;
	int no_tracefs;
};

/*
 * The live tracefs' format of one event, where trawl knows its system:
 * reading the whole tree (2300 files) costs more than most text traces
 * need. Return: the set holding it, or NULL.
 */
static tw_format_set *tracefs_one(trawl_trace *t, const tw_type *ty)
{
	tw_textfmt *tf = t->textfmt;
	if (tf->no_tracefs || !ty->system || !*ty->system || ty->name_len > 200)
		return NULL;
	char path[512];
	snprintf(path, sizeof(path), TRACEFS "/events/%s/%.*s/format",
		 ty->system, (int)ty->name_len, ty->name);
	if (access(path, R_OK) != 0) {
		if (access(TRACEFS "/events/header_page", R_OK) != 0)
			tf->no_tracefs = 1;
		return NULL;
	}
	trawl_error err;
	tw_format_set *s = NULL;
	if (tw_grow(&t->mem, (void **)&tf->one, &tf->one_cap, tf->none + 1,
		    sizeof(*tf->one)) ||
	    tw_format_set_load(&t->mem, path, &s, &err))
		return NULL;
	tf->one[tf->none++] = s;
	return s;
}

/* The user's set (loaded when the trace was opened), or the bundled one,
 * decompressed the first time a type needs it. */
static tw_format_set *set_at(trawl_trace *t, int which)
{
	tw_textfmt *tf = t->textfmt;
	if (tf->loaded[which] || which != 2)
		return tf->sets[which];
	tf->loaded[which] = 1;
	trawl_error err;
	if (tw_format_set_bundled(&t->mem, &tf->sets[which], &err))
		tf->sets[which] = NULL;
	return tf->sets[which];
}

/*
 * --formats naming a trace.dat: the formats it carries (a recording of the
 * same kernel names the text's fields). Return: 1 with *out set, 0 when
 * path is not a trace.dat, or a negative TRAWL_E* with err filled.
 */
static int formats_of_dat(trawl_trace *t, const char *path, tw_format_set **out,
			  trawl_error *err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0; /* tw_format_set_load() says why */
	struct stat st;
	char magic[10];
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) ||
	    pread(fd, magic, sizeof(magic), 0) != (ssize_t)sizeof(magic) ||
	    !tw_is_trace_dat(magic, sizeof(magic))) {
		close(fd);
		return 0;
	}
	void *map =
		mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return tw_error_at(err, TRAWL_EIO, errno, path, 0, 0, 0,
				   "cannot map the trace.dat: %s",
				   strerror(errno));
	tw_dat_file f;
	int rc = tw_dat_file_open(&f, &t->mem, path, map, (size_t)st.st_size, 0,
				  err);
	tw_buf all = {0};
	for (size_t i = 0; rc == 0 && i < f.nformats; i++) {
		const tw_dat_format *fm = &f.formats[i];
		const char *sys = fm->system ? fm->system : "";
		if (tw_buf_append(&t->mem, &all, "#system ", 8) ||
		    tw_buf_append(&t->mem, &all, sys, strlen(sys)) ||
		    tw_buf_append(&t->mem, &all, "\n", 1) ||
		    tw_buf_append(&t->mem, &all, fm->text, fm->len) ||
		    (fm->len && fm->text[fm->len - 1] != '\n' &&
		     tw_buf_append(&t->mem, &all, "\n", 1)))
			rc = tw_error_at(err, TRAWL_ENOMEM, 0, path, 0, 0, 0,
					 "out of memory");
	}
	if (rc == 0)
		rc = tw_format_set_parse(&t->mem, all.data ? all.data : "",
					 all.len, path, out, err);
	if (f.mem)
		tw_dat_file_close(&f);
	tw_buf_fini(&t->mem, &all);
	munmap(map, (size_t)st.st_size);
	return rc ? rc : 1;
}

int tw_textfmt_init(trawl_trace *t, trawl_error *err)
{
	const char *f = t->opts.formats;
	if (f && strcmp(f, "none") == 0)
		return 0; /* generic decoding only */
	t->textfmt = tw_calloc(&t->mem, 1, sizeof(*t->textfmt));
	if (!t->textfmt)
		return tw_error_at(err, TRAWL_ENOMEM, 0, t->name, 0, 0, 0,
				   "out of memory");
	if (f) {
		/* the user's formats must be there: say so now, not never */
		int rc = formats_of_dat(t, f, &t->textfmt->sets[0], err);
		if (rc == 0)
			rc = tw_format_set_load(&t->mem, f,
						&t->textfmt->sets[0], err);
		if (rc < 0)
			return rc;
		t->textfmt->loaded[0] = 1;
	}
	return 0;
}

const tw_pfmt *tw_textfmt_of(trawl_trace *t, tw_type *ty)
{
	if (ty->pf_state)
		return ty->pf;
	ty->pf_state = 1;
	tw_textfmt *tf = t->textfmt;
	if (!tf)
		return NULL;
	const tw_format_text *ft = NULL;
	/* a name the event->system table does not know is no event of the
	 * kernel the bundled table comes from (both are made from it): only
	 * the user's formats can have it, and nothing is decompressed */
	int kernel_event = ty->system && *ty->system;
	for (int i = 0; i < (kernel_event ? 3 : 1) && !ft; i++) {
		/* tracefs one file at a time, for the events whose system
		 * trawl knows; the whole tree only for the user's own path */
		tw_format_set *s = i == 1 ? tracefs_one(t, ty) : set_at(t, i);
		if (s)
			ft = tw_format_set_find(s, ty->name, ty->name_len);
	}
	if (!ft) {
		t->stats.types_generic++;
		return NULL;
	}
	if (!tf->tep) {
		tf->tep = tep_alloc();
		if (!tf->tep)
			return NULL;
		tep_set_long_size(tf->tep, (int)sizeof(long));
		tep_set_file_bigendian(tf->tep, TEP_LITTLE_ENDIAN);
		tep_set_local_bigendian(tf->tep, TEP_LITTLE_ENDIAN);
	}
	struct tep_event *e =
		tw_pfmt_parse(tf->tep, &t->mem, ft->text, ft->len, ft->system);
	if (!e) {
		t->stats.types_generic++;
		return NULL;
	}
	tw_pf_layout lay = {0, (int)sizeof(long)};
	ty->pf = tw_pfmt_compile(&t->mem, e, ft->text, ft->len, &lay);
	/* a stack's text is lines of its own, which a text trace has as
	 * lines, not as the event's payload: its fields cannot be read */
	if (ty->pf && (tw_pfmt_fallback(ty->pf) || tw_pfmt_stack(ty->pf))) {
		tw_pfmt_free(ty->pf);
		ty->pf = NULL;
		ty->pf_state = 2; /* a format, but not one trawl runs */
	}
	if (ty->pf)
		t->stats.types_formatted++;
	else
		t->stats.types_generic++;
	return ty->pf;
}

int tw_trace_format_at(trawl_trace *t, size_t i, tw_format_ref *out)
{
	if (t->ops && t->ops->format_at)
		return t->ops->format_at(t, i, out);
	if (!t->textfmt)
		return 0;
	for (int which = 0; which < 3; which += 2) {
		tw_format_set *s = set_at(t, which);
		size_t n = s ? tw_format_set_count(s) : 0;
		if (i < n) {
			const tw_format_text *ft = tw_format_set_at(s, i);
			*out = (tw_format_ref){ft->system, ft->name,
					       ft->name_len, ft->text, ft->len};
			return 1;
		}
		i -= n;
	}
	return 0;
}

int tw_trace_format_text(trawl_trace *t, size_t i, tw_format_ref *out)
{
	if (out->text)
		return 0;
	if (t->ops && t->ops->format_text)
		return t->ops->format_text(t, i, out);
	return -TRAWL_ENOENT;
}

const char *tw_format_name(const char *text, size_t len, size_t *n)
{
	static const char key[] = "name:";
	for (size_t at = 0; at + sizeof(key) - 1 <= len;) {
		const char *nl = memchr(text + at, '\n', len - at);
		size_t end = nl ? (size_t)(nl - text) : len;
		if (!strncmp(text + at, key, sizeof(key) - 1)) {
			size_t b = at + sizeof(key) - 1;
			while (b < end && (text[b] == ' ' || text[b] == '\t'))
				b++;
			size_t e = end;
			while (e > b &&
			       (text[e - 1] == ' ' || text[e - 1] == '\r'))
				e--;
			*n = e - b;
			return e > b ? text + b : NULL;
		}
		at = end + 1;
	}
	return NULL;
}

void tw_textfmt_free(trawl_trace *t)
{
	tw_textfmt *tf = t->textfmt;
	if (!tf)
		return;
	for (int i = 0; i < 3; i++)
		tw_format_set_free(tf->sets[i]);
	for (size_t i = 0; i < tf->none; i++)
		tw_format_set_free(tf->one[i]);
	tw_free(&t->mem, tf->one);
	if (tf->tep)
		tep_free(tf->tep);
	tw_pf_scan_fini(&t->mem, &t->scan);
	tw_free(&t->mem, tf);
	t->textfmt = NULL;
}
