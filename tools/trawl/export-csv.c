/* SPDX-License-Identifier: MIT */
/*
 * trawl export --to csv: one CSV per event type (seq, time, cpu, pid, comm,
 * then that event's fields: the per-event DataFrame pandas users load),
 * written as the run goes. seq is the one order across the files (sorting
 * their rows by seq gives the trace's order, ties included), so each value
 * is written once; all.csv, every event in that order with its fields as
 * k=v text, is written on request (with_all): it more than doubles the
 * bytes, and writing them is most of the export's time.
 *
 * A type's columns are the fields of its first event. Formats fix them for
 * trace.dat; in text a later event may lack one (the cell stays empty) or
 * carry one more (it goes to the last column, "other", as k=v), so nothing
 * is lost and every row has the header's columns. A field named like a
 * base column (sched_wakeup's pid and comm: the woken task) is called
 * field_pid, field_comm.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

/* Files kept open at once; more types close the least recently used. */
#define MAX_OPEN 200
/* A type's rows are gathered to this size before one write(2): with
 * stdio's 4 KiB (and its fwrite per row) writing was a third of the
 * export's time (perf). */
#define FLUSH_AT (64 << 10)

/* One output file: rows are built straight into out, written when it is
 * full and at the end. */
struct csv_sink {
	char *path;
	int fd; /* -1 while closed */
	struct cli_buf out;
};

struct csv_type {
	struct csv_sink sink;
	char **cols;
	size_t *col_len;
	const char **col_seen; /* the name pointers last matched: cheap check */
	size_t ncols;
	uint64_t rows;
	uint64_t used; /* for closing the least recently used */
};

struct csv_export {
	const char *dir;
	struct csv_sink all; /* fd -1 unless all.csv was asked for */
	struct csv_type *types;
	size_t ntypes;
	size_t nopen;
	uint64_t clock;
	int status;
	struct bg_writer *writer; /* NULL: write on this thread */
	const char *bad_path;	  /* the file a write failed on */
	int bad_err;		  /* and its errno */
	struct cli_buf tmp;	  /* fields as text */
	struct cli_buf val;	  /* one typed value, before CSV quoting */
	trawl_field_entry *fe;	  /* the event's fields, all at once */
	size_t fe_cap;
	struct cli_near seq_near, time_near; /* they grow: digits kept */
};

/* Writes what s holds, on the writer thread when there is one. Return:
 * 0, or an errno value with x->bad_path set (from the writer: the first
 * write that failed, maybe of another file). */
static int sink_flush(struct csv_export *x, struct csv_sink *s, int close_after)
{
	int err;
	if (x->writer) {
		const char *path = s->path;
		err = bgw_submit(x->writer, s->fd, close_after, &s->out,
				 s->path);
		if (err && err != ENOMEM)
			bgw_error(x->writer, &path);
		if (err)
			x->bad_path = path;
		return err;
	}
	err = s->out.oom ? ENOMEM : 0;
	const char *p = s->out.p;
	size_t n = err ? 0 : s->out.n;
	while (n) {
		ssize_t w = write(s->fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			err = w < 0 ? errno : EIO;
			break;
		}
		p += w;
		n -= (size_t)w;
	}
	s->out.n = 0;
	if (close_after && close(s->fd) && !err)
		err = errno;
	if (err)
		x->bad_path = s->path;
	return err;
}

static int sink_open(struct csv_sink *s, int flags)
{
	s->fd = open(s->path, O_WRONLY | O_CREAT | O_CLOEXEC | flags, 0666);
	return s->fd < 0 ? -1 : 0;
}

/* Flushes and closes s (its buffer goes too: many types, few open). */
static int sink_close(struct csv_export *x, struct csv_sink *s)
{
	if (s->fd < 0)
		return 0;
	int err = sink_flush(x, s, 1);
	s->fd = -1;
	buf_free(&s->out);
	return err;
}

/* Field i's typed value v (numbers as numbers, whatever the source
 * printed), quoted for CSV. */
static void csv_value(struct csv_export *x, struct cli_buf *b,
		      const trawl_event *ev, size_t i, trawl_value v)
{
	if (v.type == TRAWL_VALUE_INT) {
		/* digits (or 0x and hex digits) never need quotes */
		char *o = buf_room(b, 21);
		if (!o)
			return;
		if (v.flags & TRAWL_VALUE_POINTER)
			o = put_hex(o, (uint64_t)v.i);
		else if (v.flags & TRAWL_VALUE_UNSIGNED)
			o = put_u64(o, (uint64_t)v.i);
		else
			o = put_i64(o, v.i);
		buf_commit(b, o);
		return;
	}
	if (v.type == TRAWL_VALUE_STR || v.type == TRAWL_VALUE_TEXT) {
		buf_csv(b, v.s, v.len);
		return;
	}
	x->val.n = 0;
	buf_value(&x->val, ev, i);
	buf_csv(b, x->val.p, x->val.n);
}

static long column_of(const struct csv_type *ty, size_t hint, const char *k,
		      size_t kl)
{
	if (hint < ty->ncols && ty->col_len[hint] == kl &&
	    !memcmp(ty->cols[hint], k, kl))
		return (long)hint;
	for (size_t i = 0; i < ty->ncols; i++)
		if (ty->col_len[i] == kl && !memcmp(ty->cols[i], k, kl))
			return (long)i;
	return -1;
}

static void base_columns(struct csv_export *x, struct cli_buf *b,
			 const trawl_event *ev)
{
	const char *comm = trawl_event_comm(ev);
	char *o = buf_room(b, 4 * 21);
	if (!o)
		return;
	o = put_u64_near(&x->seq_near, o, trawl_event_seq(ev));
	*o++ = ',';
	o = put_i64_near(&x->time_near, o, trawl_event_time(ev));
	*o++ = ',';
	o = put_i64(o, trawl_event_cpu(ev));
	*o++ = ',';
	o = put_i64(o, trawl_event_pid(ev));
	*o++ = ',';
	buf_commit(b, o);
	buf_csv(b, comm, strlen(comm));
}

/* "k=v k=v" of the fields (those without a column of skip) into b. */
static void fields_text(struct cli_buf *b, const trawl_event *ev,
			const struct csv_type *skip)
{
	size_t n = trawl_event_field_count(ev);
	int any = 0;
	for (size_t i = 0; i < n; i++) {
		size_t kl;
		const char *k = trawl_event_field_name(ev, i, &kl);
		if (skip && column_of(skip, i, k, kl) >= 0)
			continue;
		if (any++)
			buf_char(b, ' ');
		buf_bytes(b, k, kl);
		buf_char(b, '=');
		buf_value(b, ev, i);
	}
}

/* File name for an event: its name with anything unusual made '_'. */
static char *file_for(const char *dir, const char *name)
{
	size_t n = strlen(name);
	char *base = malloc(n + 2);
	if (!base)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		char c = name[i];
		int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			 (c >= '0' && c <= '9') || c == '_' || c == '-' ||
			 (c == '.' && i);
		base[i] = ok ? c : '_';
	}
	base[n] = '\0';
	if (!strcmp(base, "all")) /* all.csv is every event */
		strcpy(base, "all_");
	char *path = NULL;
	if (asprintf(&path, "%s/%s.csv", dir, base) < 0)
		path = NULL;
	free(base);
	return path;
}

static int close_lru(struct csv_export *x)
{
	struct csv_type *lru = NULL;
	for (size_t i = 0; i < x->ntypes; i++)
		if (x->types[i].sink.fd >= 0 &&
		    (!lru || x->types[i].used < lru->used))
			lru = &x->types[i];
	if (!lru)
		return 0;
	x->nopen--;
	return (x->bad_err = sink_close(x, &lru->sink)) ? -1 : 0;
}

/* Opens ty's file (O_TRUNC the first time, append after). */
static int open_type(struct csv_export *x, struct csv_type *ty, int flags)
{
	if (x->nopen >= MAX_OPEN && close_lru(x))
		return -1;
	if (sink_open(&ty->sink, flags)) {
		cli_error("cannot write %s: %s", ty->sink.path,
			  strerror(errno));
		return -1;
	}
	x->nopen++;
	return 0;
}

/* The first event of a type: its file and header. */
static int start_type(struct csv_export *x, struct csv_type *ty,
		      const trawl_event *ev)
{
	ty->sink.path = file_for(x->dir, trawl_event_name(ev));
	if (!ty->sink.path)
		goto oom;
	/* print: the atrace marker fields come and go with the text of
	 * buf, so they get their columns from the start */
	static const char *const marker[] = {"kind", "pid", "name", "value",
					     "cookie"};
	int is_print = !strcmp(trawl_event_name(ev), "print");
	size_t n = trawl_event_field_count(ev);
	size_t max = n + (is_print ? 5 : 0);
	ty->cols = calloc(max ? max : 1, sizeof(*ty->cols));
	ty->col_len = calloc(max ? max : 1, sizeof(*ty->col_len));
	ty->col_seen = calloc(max ? max : 1, sizeof(*ty->col_seen));
	if (!ty->cols || !ty->col_len || !ty->col_seen)
		goto oom;
	for (size_t i = 0; i < max; i++) {
		size_t kl;
		const char *k;
		if (i < n) {
			k = trawl_event_field_name(ev, i, &kl);
		} else {
			k = marker[i - n];
			kl = strlen(k);
			if (column_of(ty, 0, k, kl) >= 0)
				continue;
		}
		ty->cols[ty->ncols] = strndup(k, kl);
		if (!ty->cols[ty->ncols])
			goto oom;
		ty->col_len[ty->ncols++] = kl;
	}
	if (open_type(x, ty, O_TRUNC))
		return -1;
	struct cli_buf *b = &ty->sink.out;
	buf_str(b, "seq,time,cpu,pid,comm");
	for (size_t i = 0; i < ty->ncols; i++) {
		buf_char(b, ',');
		/* sched_wakeup's pid is the woken task, not the base pid:
		 * a field named like a base column is "field_<name>" */
		static const char *const base[] = {"seq", "time", "cpu",
						   "pid", "comm", "other"};
		for (size_t c = 0; c < 6; c++)
			if (ty->col_len[i] == strlen(base[c]) &&
			    !memcmp(ty->cols[i], base[c], ty->col_len[i])) {
				buf_str(b, "field_");
				break;
			}
		buf_csv(b, ty->cols[i], ty->col_len[i]);
	}
	buf_str(b, ",other\n");
	return 0;
oom:
	cli_error("out of memory");
	return -1;
}

/* Whether the event's n fields fe are ty's columns in their order: the
 * usual case, checked by the names' pointers once a type's names have
 * been seen. */
static int same_columns(struct csv_type *ty, const trawl_field_entry *fe,
			size_t n)
{
	if (n != ty->ncols)
		return 0;
	for (size_t i = 0; i < n; i++) {
		if (fe[i].name == ty->col_seen[i])
			continue;
		if (column_of(ty, i, fe[i].name, fe[i].name_len) != (long)i)
			return 0;
		ty->col_seen[i] = fe[i].name;
	}
	return 1;
}

/* All of ev's fields into x->fe. Return: how many, or -1 out of memory. */
static long all_fields(struct csv_export *x, const trawl_event *ev)
{
	size_t n = trawl_event_fields(ev, x->fe, x->fe_cap);
	if (n > x->fe_cap) {
		trawl_field_entry *fe = realloc(x->fe, n * sizeof(*fe));
		if (!fe)
			return -1;
		x->fe = fe;
		x->fe_cap = n;
		trawl_event_fields(ev, x->fe, x->fe_cap);
	}
	return (long)n;
}

static int type_row(struct csv_export *x, struct csv_type *ty,
		    const trawl_event *ev)
{
	struct cli_buf *b = &ty->sink.out;
	long got = all_fields(x, ev);
	if (got < 0)
		return -1;
	size_t n = (size_t)got;
	const trawl_field_entry *fe = x->fe;
	base_columns(x, b, ev);
	if (same_columns(ty, fe, n)) {
		for (size_t i = 0; i < n; i++) {
			buf_char(b, ',');
			csv_value(x, b, ev, i, fe[i].value);
		}
		buf_bytes(b, ",\n", 2);
		return 0;
	}
	for (size_t c = 0; c < ty->ncols; c++) {
		buf_char(b, ',');
		for (size_t i = 0; i < n; i++) {
			if (column_of(ty, c, fe[i].name, fe[i].name_len) !=
			    (long)c)
				continue;
			csv_value(x, b, ev, i, fe[i].value);
			break;
		}
	}
	/* Fields the header does not have: "k=v k=v" in "other". */
	x->tmp.n = 0;
	fields_text(&x->tmp, ev, ty);
	buf_char(b, ',');
	buf_csv(b, x->tmp.p, x->tmp.n);
	buf_char(b, '\n');
	return 0;
}

static void all_row(struct csv_export *x, const trawl_event *ev)
{
	struct cli_buf *b = &x->all.out;
	base_columns(x, b, ev);
	buf_char(b, ',');
	buf_str(b, trawl_event_name(ev));
	buf_char(b, ',');
	x->tmp.n = 0;
	fields_text(&x->tmp, ev, NULL);
	buf_csv(b, x->tmp.p, x->tmp.n);
	buf_char(b, '\n');
}

/* Stops the run; a failed write (x->bad_err) is named with its file. */
static int failed(struct csv_export *x)
{
	if (x->bad_err)
		cli_error("cannot write %s: %s", x->bad_path,
			  strerror(x->bad_err));
	x->status = EXIT_ENV;
	return EXIT_ENV;
}

static int on_event(const trawl_event *ev, void *ctx)
{
	struct csv_export *x = ctx;
	uint32_t id = trawl_event_type_id(ev);
	if (id >= x->ntypes) {
		size_t n = (size_t)id + 1;
		struct csv_type *t = realloc(x->types, n * sizeof(*t));
		if (!t) {
			cli_error("out of memory");
			return failed(x);
		}
		memset(t + x->ntypes, 0, (n - x->ntypes) * sizeof(*t));
		for (size_t i = x->ntypes; i < n; i++)
			t[i].sink.fd = -1;
		x->types = t;
		x->ntypes = n;
	}
	struct csv_type *ty = &x->types[id];
	if (!ty->sink.path) {
		if (start_type(x, ty, ev))
			return failed(x);
	} else if (ty->sink.fd < 0 && open_type(x, ty, O_APPEND)) {
		return failed(x);
	}
	ty->used = ++x->clock;
	if (type_row(x, ty, ev)) {
		cli_error("out of memory");
		return failed(x);
	}
	ty->rows++;
	if (ty->sink.out.n >= FLUSH_AT &&
	    (x->bad_err = sink_flush(x, &ty->sink, 0)))
		return failed(x);
	if (x->all.fd >= 0) {
		all_row(x, ev);
		if (x->all.out.n >= FLUSH_AT &&
		    (x->bad_err = sink_flush(x, &x->all, 0)))
			return failed(x);
	}
	return 0;
}

int export_csv(trawl_trace *t, const char *dir, int with_all, int threads)
{
	struct csv_export x = {.dir = dir, .all = {.fd = -1}};
	if (mkdir(dir, 0777) && errno != EEXIST) {
		cli_error("cannot make directory %s: %s", dir, strerror(errno));
		return EXIT_ENV;
	}
	if (asprintf(&x.all.path, "%s/all.csv", dir) < 0) {
		cli_error("out of memory");
		return EXIT_ENV;
	}
	if (!with_all) {
		/* one left by an earlier export would not match these files */
		if (unlink(x.all.path) && errno != ENOENT) {
			cli_error("cannot remove the earlier %s: %s",
				  x.all.path, strerror(errno));
			free(x.all.path);
			return EXIT_ENV;
		}
	} else if (sink_open(&x.all, O_TRUNC)) {
		cli_error("cannot write %s: %s", x.all.path, strerror(errno));
		free(x.all.path);
		return EXIT_ENV;
	} else {
		buf_str(&x.all.out, "seq,time,cpu,pid,comm,event,fields\n");
	}
	/* without one, the same bytes are written on this thread */
	if (threads != 1)
		x.writer = bgw_start();
	int status = EXIT_OK;
	if (trawl_on(t, "*", on_event, &x))
		status = EXIT_ENV;
	if (!status)
		status = cli_run(t);
	if (x.status)
		status = x.status;
	int err = sink_close(&x, &x.all);
	for (size_t i = 0; i < x.ntypes; i++) {
		int e = sink_close(&x, &x.types[i].sink);
		if (!err)
			err = e;
	}
	if (x.writer) {
		const char *path;
		int e = bgw_finish(x.writer, &path);
		if (e && !err)
			err = e, x.bad_path = path;
	}
	if (err && !status) {
		x.bad_err = err;
		status = failed(&x);
	}
	for (size_t i = 0; i < x.ntypes; i++) {
		struct csv_type *ty = &x.types[i];
		for (size_t c = 0; c < ty->ncols; c++)
			free(ty->cols[c]);
		free(ty->cols);
		free(ty->col_len);
		free(ty->col_seen);
		free(ty->sink.path);
	}
	free(x.types);
	free(x.all.path);
	buf_free(&x.all.out);
	buf_free(&x.tmp);
	buf_free(&x.val);
	free(x.fe);
	return status;
}
