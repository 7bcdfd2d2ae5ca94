/* SPDX-License-Identifier: MIT */
/*
 * trawl export --to csv: one CSV per event type (seq, time, cpu, pid, comm,
 * then that event's fields: the per-event DataFrame pandas users load) and
 * all.csv with every event in the one order, written as the run goes.
 *
 * A type's columns are the fields of its first event. Formats fix them for
 * trace.dat; in text a later event may lack one (the cell stays empty) or
 * carry one more (it goes to the last column, "other", as k=v), so nothing
 * is lost and every row has the header's columns. A field named like a
 * base column (sched_wakeup's pid and comm: the woken task) is called
 * field_pid, field_comm.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"

/* Files kept open at once; more types close the least recently used. */
#define MAX_OPEN 200

struct csv_type {
	FILE *f;
	char *file; /* path */
	char **cols;
	size_t *col_len;
	size_t ncols;
	uint64_t rows;
	uint64_t used; /* for closing the least recently used */
};

struct csv_export {
	const char *dir;
	FILE *all;
	struct csv_type *types;
	size_t ntypes;
	size_t nopen;
	uint64_t clock;
	int status;
	struct cli_buf row, tmp; /* the row being built; fields as text */
	struct cli_buf val;	 /* one typed value, before CSV quoting */
};

/* Field i's typed value (numbers as numbers, whatever the source
 * printed), quoted for CSV. */
static void csv_value(struct csv_export *x, struct cli_buf *b,
		      const trawl_event *ev, size_t i)
{
	int64_t v;
	if (trawl_event_field_type(ev, i) == TRAWL_VALUE_INT &&
	    trawl_event_field_int(ev, i, &v) == 0) {
		/* digits (or 0x and hex digits) never need quotes */
		unsigned fl = trawl_event_field_flags(ev, i);
		if (fl & TRAWL_VALUE_POINTER)
			buf_hex(b, (uint64_t)v);
		else if (fl & TRAWL_VALUE_UNSIGNED)
			buf_u64(b, (uint64_t)v);
		else
			buf_i64(b, v);
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

static void base_columns(struct cli_buf *b, const trawl_event *ev)
{
	const char *comm = trawl_event_comm(ev);
	buf_u64(b, trawl_event_seq(ev));
	buf_char(b, ',');
	buf_i64(b, trawl_event_time(ev));
	buf_char(b, ',');
	buf_i64(b, trawl_event_cpu(ev));
	buf_char(b, ',');
	buf_i64(b, trawl_event_pid(ev));
	buf_char(b, ',');
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
		if (x->types[i].f && (!lru || x->types[i].used < lru->used))
			lru = &x->types[i];
	if (!lru)
		return 0;
	int rc = fclose(lru->f);
	lru->f = NULL;
	x->nopen--;
	return rc;
}

static FILE *reopen(struct csv_export *x, struct csv_type *ty)
{
	if (x->nopen >= MAX_OPEN && close_lru(x))
		return NULL;
	ty->f = fopen(ty->file, "a");
	if (ty->f)
		x->nopen++;
	return ty->f;
}

/* The first event of a type: its file and header. */
static int start_type(struct csv_export *x, struct csv_type *ty,
		      const trawl_event *ev)
{
	ty->file = file_for(x->dir, trawl_event_name(ev));
	if (!ty->file)
		return -1;
	/* print: the atrace marker fields come and go with the text of
	 * buf, so they get their columns from the start */
	static const char *const marker[] = {"kind", "pid", "name", "value",
					     "cookie"};
	int is_print = !strcmp(trawl_event_name(ev), "print");
	size_t n = trawl_event_field_count(ev);
	size_t max = n + (is_print ? 5 : 0);
	ty->cols = calloc(max ? max : 1, sizeof(*ty->cols));
	ty->col_len = calloc(max ? max : 1, sizeof(*ty->col_len));
	if (!ty->cols || !ty->col_len)
		return -1;
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
			return -1;
		ty->col_len[ty->ncols++] = kl;
	}
	if (x->nopen >= MAX_OPEN && close_lru(x))
		return -1;
	ty->f = fopen(ty->file, "w");
	if (!ty->f)
		return -1;
	x->nopen++;
	fputs("seq,time,cpu,pid,comm", ty->f);
	for (size_t i = 0; i < ty->ncols; i++) {
		fputc(',', ty->f);
		/* sched_wakeup's pid is the woken task, not the base pid:
		 * a field named like a base column is "field_<name>" */
		static const char *const base[] = {"seq", "time", "cpu",
						   "pid", "comm", "other"};
		for (size_t b = 0; b < 6; b++)
			if (ty->col_len[i] == strlen(base[b]) &&
			    !memcmp(ty->cols[i], base[b], ty->col_len[i])) {
				fputs("field_", ty->f);
				break;
			}
		csv_field(ty->f, ty->cols[i], ty->col_len[i]);
	}
	fputs(",other\n", ty->f);
	return 0;
}

static void type_row(struct csv_export *x, struct csv_type *ty,
		     const trawl_event *ev)
{
	struct cli_buf *b = &x->row;
	base_columns(b, ev);
	size_t n = trawl_event_field_count(ev);
	/* The usual case: the same fields in the same order. */
	int same = n == ty->ncols;
	for (size_t i = 0; same && i < n; i++) {
		size_t kl;
		const char *k = trawl_event_field_name(ev, i, &kl);
		same = column_of(ty, i, k, kl) == (long)i;
	}
	if (same) {
		for (size_t i = 0; i < n; i++) {
			buf_char(b, ',');
			csv_value(x, b, ev, i);
		}
		buf_bytes(b, ",\n", 2);
		return;
	}
	for (size_t c = 0; c < ty->ncols; c++) {
		buf_char(b, ',');
		for (size_t i = 0; i < n; i++) {
			size_t kl;
			const char *k = trawl_event_field_name(ev, i, &kl);
			if (column_of(ty, c, k, kl) != (long)c)
				continue;
			csv_value(x, b, ev, i);
			break;
		}
	}
	/* Fields the header does not have: "k=v k=v" in "other". */
	x->tmp.n = 0;
	fields_text(&x->tmp, ev, ty);
	buf_char(b, ',');
	buf_csv(b, x->tmp.p, x->tmp.n);
	buf_char(b, '\n');
}

static void all_row(struct csv_export *x, const trawl_event *ev)
{
	struct cli_buf *b = &x->row;
	base_columns(b, ev);
	buf_char(b, ',');
	buf_str(b, trawl_event_name(ev));
	buf_char(b, ',');
	x->tmp.n = 0;
	fields_text(&x->tmp, ev, NULL);
	buf_csv(b, x->tmp.p, x->tmp.n);
	buf_char(b, '\n');
}

static int on_event(const trawl_event *ev, void *ctx)
{
	struct csv_export *x = ctx;
	uint32_t id = trawl_event_type_id(ev);
	if (id >= x->ntypes) {
		size_t n = (size_t)id + 1;
		struct csv_type *t = realloc(x->types, n * sizeof(*t));
		if (!t)
			goto oom;
		memset(t + x->ntypes, 0, (n - x->ntypes) * sizeof(*t));
		x->types = t;
		x->ntypes = n;
	}
	struct csv_type *ty = &x->types[id];
	if (!ty->file) {
		if (start_type(x, ty, ev)) {
			cli_error("%s: cannot write %s: %s", x->dir,
				  ty->file ? ty->file : trawl_event_name(ev),
				  strerror(errno));
			x->status = EXIT_ENV;
			return EXIT_ENV;
		}
	} else if (!ty->f && !reopen(x, ty)) {
		cli_error("cannot reopen %s: %s", ty->file, strerror(errno));
		x->status = EXIT_ENV;
		return EXIT_ENV;
	}
	ty->used = ++x->clock;
	type_row(x, ty, ev);
	int bad = buf_write(&x->row, ty->f);
	ty->rows++;
	all_row(x, ev);
	bad |= buf_write(&x->row, x->all);
	if (bad) {
		cli_error("%s: cannot write: %s", x->dir, strerror(errno));
		x->status = EXIT_ENV;
		return EXIT_ENV;
	}
	return 0;
oom:
	cli_error("out of memory");
	x->status = EXIT_ENV;
	return EXIT_ENV;
}

int export_csv(trawl_trace *t, const char *dir)
{
	struct csv_export x = {.dir = dir};
	if (mkdir(dir, 0777) && errno != EEXIST) {
		cli_error("cannot make directory %s: %s", dir, strerror(errno));
		return EXIT_ENV;
	}
	char *all_path = NULL;
	if (asprintf(&all_path, "%s/all.csv", dir) < 0)
		return EXIT_ENV;
	x.all = fopen(all_path, "w");
	if (!x.all) {
		cli_error("cannot write %s: %s", all_path, strerror(errno));
		free(all_path);
		return EXIT_ENV;
	}
	static char obuf[1 << 16];
	setvbuf(x.all, obuf, _IOFBF, sizeof(obuf));
	fputs("seq,time,cpu,pid,comm,event,fields\n", x.all);
	int status = EXIT_OK;
	if (trawl_on(t, "*", on_event, &x))
		status = EXIT_ENV;
	if (!status)
		status = cli_run(t);
	if (x.status)
		status = x.status;
	if (fclose(x.all) && !status) {
		cli_error("cannot write %s: %s", all_path, strerror(errno));
		status = EXIT_ENV;
	}
	for (size_t i = 0; i < x.ntypes; i++) {
		struct csv_type *ty = &x.types[i];
		if (ty->f && fclose(ty->f) && !status) {
			cli_error("cannot write %s: %s", ty->file,
				  strerror(errno));
			status = EXIT_ENV;
		}
		for (size_t c = 0; c < ty->ncols; c++)
			free(ty->cols[c]);
		free(ty->cols);
		free(ty->col_len);
		free(ty->file);
	}
	free(x.types);
	free(all_path);
	buf_free(&x.row);
	buf_free(&x.tmp);
	buf_free(&x.val);
	return status;
}
