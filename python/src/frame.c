/* SPDX-License-Identifier: MIT */
/*
 * Trace.df() and Trace.dfs(): events into columns, filled in C as the run
 * goes, handed to numpy without a copy and without a Python object per row.
 *
 * Base columns come first (seq, time, cpu, pid, comm, and the event's name
 * when a frame holds several events), then one column per field name, in
 * order of first appearance. Each event type remembers which column its
 * i-th field went to, so the usual event costs a name comparison per field
 * and no lookup. A field named like a base column (sched_wakeup's pid and
 * comm: the woken task) is "field_<name>", as in `trawl export --to csv`.
 * Integers are int64 (uint64 for the format's unsigned fields and
 * pointers), text is a code into a dictionary (a Categorical), arrays are
 * tuples; a field an event lacks is missing (a mask, or code -1). A column
 * of integers that meets text becomes text (its numbers in decimal). On
 * request, the names the print format shows integers by (prev_state 1 is
 * "S") go into a "<name>_label" column beside.
 */
#include "pytrawl.h"
#include "strdict.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/arrayobject.h>

enum col_kind { COL_I64, COL_U64, COL_I32, COL_STR, COL_ARRAY };

struct column {
	char *src; /* the field's name in the event */
	size_t src_len;
	char *name; /* the column's name */
	int kind;
	int display_only;     /* some value was shown in a form that lost it */
	int has_neg, has_big; /* signed values < 0, unsigned > INT64_MAX */
	long label_col;	      /* its "<name>_label" column, or -1 */
	size_t n, cap;	      /* rows filled, room */
	void *data; /* int64_t, uint64_t, int32_t values or int32_t codes */
	uint8_t *present; /* NULL while every row so far has a value */
	struct strdict dict;
	int64_t *aoff; /* arrays: row r is avals[aoff[r] .. aoff[r + 1]) */
	int64_t *avals;
	size_t alen, acap;
};

struct type_map {
	int seen;
	int32_t event_code;
	uint32_t nfields;
	int32_t *col; /* field index -> column */
	/* trace.dat: the fields by handle, read straight from the record
	 * (no decoding of the whole event); nfast of them, or 0 */
	uint32_t nfast;
	trawl_field *handle;
	int32_t *fast_col;
	uint8_t *fast_uns;
};

struct frame {
	struct column *cols;
	size_t ncols, cols_cap;
	size_t nbase;
	size_t nrows;
	int with_event;
	int labels; /* "<name>_label" columns of symbolic values */
	struct type_map *types;
	uint32_t ntypes;
	int failed; /* out of memory */
	uint64_t last_seq;
	int64_t last_time;
	uint32_t last_type;
	struct pt_run *run;
	trawl_trace *t;
	int binary; /* a trace.dat or perf.data: formats fix the fields */
};

/* tgid: where the source has it (a record-tgid column, trace.dat's saved
 * tgids, perf.data); a frame where no event had one leaves it out */
enum {
	BASE_SEQ,
	BASE_TIME,
	BASE_CPU,
	BASE_PID,
	BASE_TGID,
	BASE_COMM,
	BASE_EVENT
};

static size_t elem_size(int kind)
{
	return kind == COL_I64 || kind == COL_U64 ? 8 : 4;
}

static int col_reserve(struct column *c, size_t rows)
{
	if (rows <= c->cap)
		return 0;
	/* 1.5x: the slack past the last row (given back at the end) is at
	 * most half the column */
	size_t cap = c->cap ? c->cap : 1024;
	while (cap < rows)
		cap += cap / 2;
	if (c->kind == COL_ARRAY) {
		int64_t *aoff = realloc(c->aoff, (cap + 1) * sizeof(*aoff));
		if (!aoff)
			return -1;
		if (!c->aoff)
			aoff[0] = 0;
		c->aoff = aoff;
	} else {
		void *d = realloc(c->data, cap * elem_size(c->kind));
		if (!d)
			return -1;
		c->data = d;
	}
	if (c->present) {
		uint8_t *p = realloc(c->present, cap);
		if (!p)
			return -1;
		c->present = p;
	}
	c->cap = cap;
	return 0;
}

/* Rows c->n .. row - 1 get no value. */
static int col_pad(struct column *c, size_t row)
{
	if (c->n >= row)
		return 0;
	if (col_reserve(c, row + 1))
		return -1;
	if (c->kind == COL_STR) {
		int32_t *codes = c->data;
		for (size_t r = c->n; r < row; r++)
			codes[r] = -1;
		c->n = row;
		return 0;
	}
	if (!c->present) {
		c->present = malloc(c->cap);
		if (!c->present)
			return -1;
		memset(c->present, 1, c->n);
	}
	memset(c->present + c->n, 0, row - c->n);
	if (c->kind == COL_ARRAY)
		for (size_t r = c->n; r < row; r++)
			c->aoff[r + 1] = c->aoff[r];
	else
		memset((char *)c->data + c->n * elem_size(c->kind), 0,
		       (row - c->n) * elem_size(c->kind));
	c->n = row;
	return 0;
}

/* Make row the one being written (padding before it); -1 out of memory. */
static int col_at(struct column *c, size_t row)
{
	if (c->n == row + 1) /* the same field twice in one event */
		return 0;
	if (col_pad(c, row) || col_reserve(c, row + 1))
		return -1;
	if (c->present)
		c->present[row] = 1;
	c->n = row + 1;
	return 0;
}

static int col_int(struct column *c, size_t row, int64_t v)
{
	if (col_at(c, row))
		return -1;
	if (c->kind == COL_I32)
		((int32_t *)c->data)[row] = (int32_t)v;
	else
		((int64_t *)c->data)[row] = v;
	return 0;
}

static int col_text(struct column *c, size_t row, const char *s, size_t n)
{
	int32_t code = strdict_code(&c->dict, s, n);
	if (code < 0 || col_at(c, row))
		return -1;
	((int32_t *)c->data)[row] = code;
	return 0;
}

static size_t int_text(char *buf, size_t size, int kind, int64_t v)
{
	int n = kind == COL_U64 ? snprintf(buf, size, "%" PRIu64, (uint64_t)v)
				: snprintf(buf, size, "%" PRId64, v);
	return n > 0 ? (size_t)n : 0;
}

/* A column of integers met text: its numbers become text too. */
static int col_to_text(struct column *c)
{
	int32_t *codes = malloc((c->cap ? c->cap : 1) * sizeof(*codes));
	if (!codes)
		return -1;
	for (size_t r = 0; r < c->n; r++) {
		if (c->present && !c->present[r]) {
			codes[r] = -1;
			continue;
		}
		char buf[32];
		int64_t v = ((int64_t *)c->data)[r];
		size_t n = int_text(buf, sizeof(buf), c->kind, v);
		codes[r] = strdict_code(&c->dict, buf, n);
		if (codes[r] < 0) {
			free(codes);
			return -1;
		}
	}
	free(c->data);
	free(c->present);
	c->data = codes;
	c->present = NULL;
	c->kind = COL_STR;
	return 0;
}

static int col_array(struct column *c, size_t row, const int64_t *v, size_t n)
{
	if (col_at(c, row))
		return -1;
	size_t start = (size_t)c->aoff[row];
	if (start + n > c->acap) {
		size_t cap = c->acap ? c->acap * 2 : 1024;
		while (cap < start + n)
			cap *= 2;
		int64_t *a = realloc(c->avals, cap * sizeof(*a));
		if (!a)
			return -1;
		c->avals = a;
		c->acap = cap;
	}
	memcpy(c->avals + start, v, n * sizeof(*v));
	c->aoff[row + 1] = (int64_t)(start + n);
	c->alen = start + n;
	return 0;
}

static int add_column(struct frame *f, const char *src, size_t len, int kind)
{
	if (f->ncols == f->cols_cap) {
		size_t cap = f->cols_cap ? f->cols_cap * 2 : 16;
		struct column *cols = realloc(f->cols, cap * sizeof(*cols));
		if (!cols)
			return -1;
		f->cols = cols;
		f->cols_cap = cap;
	}
	struct column *c = &f->cols[f->ncols];
	memset(c, 0, sizeof(*c));
	c->kind = kind;
	c->label_col = -1;
	c->src = strndup(src, len);
	c->src_len = len;
	static const char *const base[] = {"seq",  "time", "cpu",  "pid",
					   "tgid", "comm", "event"};
	int clash = 0;
	for (size_t i = 0; f->nbase && i < 7; i++)
		clash |= strlen(base[i]) == len && !memcmp(base[i], src, len);
	if (clash) {
		c->name = malloc(len + 7);
		if (c->name)
			snprintf(c->name, len + 7, "field_%s", c->src);
	} else {
		c->name = c->src ? strdup(c->src) : NULL;
	}
	if (!c->src || !c->name) {
		free(c->src);
		free(c->name);
		return -1;
	}
	f->ncols++;
	return 0;
}

/*
 * The label of column ci's value in row r (prev_state 1: "S"), into its
 * "<name>_label" column, made at the first label. Its source name ends in
 * a byte no field name has, so no field is ever matched to it.
 */
static int put_label(struct frame *f, long ci, size_t r, const char *l,
		     size_t len)
{
	if (!l)
		return 0;
	if (f->cols[ci].label_col < 0) {
		struct column *c = &f->cols[ci];
		size_t n = c->src_len + 1;
		char *src = malloc(n + 1);
		if (!src)
			return -1;
		memcpy(src, c->src, c->src_len);
		src[c->src_len] = '\x01';
		src[n] = '\0';
		int rc = add_column(f, src, n, COL_STR);
		free(src);
		if (rc)
			return -1;
		struct column *lc = &f->cols[f->ncols - 1];
		size_t nl = strlen(f->cols[ci].name) + 7;
		free(lc->name);
		lc->name = malloc(nl);
		if (!lc->name)
			return -1;
		snprintf(lc->name, nl, "%s_label", f->cols[ci].name);
		f->cols[ci].label_col = (long)f->ncols - 1;
	}
	return col_text(&f->cols[f->cols[ci].label_col], r, l, len);
}

static int kind_of(const trawl_value *v)
{
	switch (v->type) {
	case TRAWL_VALUE_INT:
		return v->flags & (TRAWL_VALUE_UNSIGNED | TRAWL_VALUE_POINTER)
			       ? COL_U64
			       : COL_I64;
	case TRAWL_VALUE_STR:
	case TRAWL_VALUE_TEXT:
		return COL_STR;
	case TRAWL_VALUE_ARRAY:
		return COL_ARRAY;
	default:
		return COL_I64;
	}
}

/* The column of a field named k (its first value v), found or made. */
static long column_for(struct frame *f, const trawl_value *v, const char *k,
		       size_t kl)
{
	for (size_t c = f->nbase; c < f->ncols; c++)
		if (f->cols[c].src_len == kl && !memcmp(f->cols[c].src, k, kl))
			return (long)c;
	if (add_column(f, k, kl, kind_of(v)))
		return -1;
	return (long)f->ncols - 1;
}

/* Field i of ev, whose value is v, into row r of column c. */
static int put_field(struct column *c, size_t row, const trawl_event *ev,
		     size_t i, const trawl_value *v)
{
	if (v->type == TRAWL_VALUE_TEXT || v->type == TRAWL_VALUE_NONE)
		c->display_only = 1; /* as `trawl report --json` says */
	if (v->type == TRAWL_VALUE_INT) {
		if (c->kind != COL_STR && c->kind != COL_ARRAY) {
			/* one name, several events: signedness decided at the
			 * end by the values (see frame_columns) */
			if (v->flags &
			    (TRAWL_VALUE_UNSIGNED | TRAWL_VALUE_POINTER))
				c->has_big |= v->i < 0;
			else
				c->has_neg |= v->i < 0;
			return col_int(c, row, v->i);
		}
		if (c->kind == COL_ARRAY)
			return 0;
		char buf[32];
		size_t n = int_text(buf, sizeof(buf),
				    v->flags & TRAWL_VALUE_UNSIGNED ? COL_U64
								    : COL_I64,
				    v->i);
		return col_text(c, row, buf, n);
	}
	if (v->type == TRAWL_VALUE_STR || v->type == TRAWL_VALUE_TEXT) {
		if (c->kind == COL_ARRAY)
			return 0;
		if (c->kind != COL_STR && col_to_text(c))
			return -1;
		return v->s ? col_text(c, row, v->s, v->len) : 0;
	}
	if (v->type == TRAWL_VALUE_ARRAY && c->kind == COL_ARRAY) {
		const int64_t *elems = NULL;
		size_t n = trawl_event_field_array(ev, i, &elems);
		return col_array(c, row, elems, n);
	}
	return 0; /* not in this event's text: missing */
}

static struct type_map *type_map(struct frame *f, const trawl_event *ev)
{
	uint32_t id = trawl_event_type_id(ev);
	if (id >= f->ntypes) {
		uint32_t n = id + 16;
		struct type_map *t = realloc(f->types, n * sizeof(*t));
		if (!t)
			return NULL;
		memset(t + f->ntypes, 0, (n - f->ntypes) * sizeof(*t));
		f->types = t;
		f->ntypes = n;
	}
	struct type_map *tm = &f->types[id];
	if (!tm->seen) {
		tm->seen = 1;
		tm->event_code = -1;
		if (f->with_event) {
			const char *name = trawl_event_name(ev);
			tm->event_code = strdict_code(&f->cols[BASE_EVENT].dict,
						      name, strlen(name));
			if (tm->event_code < 0)
				return NULL;
		}
	}
	return tm;
}

static int map_field(struct type_map *tm, size_t i, int32_t col)
{
	if (i >= tm->nfields) {
		uint32_t n = (uint32_t)i + 8;
		int32_t *m = realloc(tm->col, n * sizeof(*m));
		if (!m)
			return -1;
		for (uint32_t j = tm->nfields; j < n; j++)
			m[j] = -1;
		tm->col = m;
		tm->nfields = n;
	}
	tm->col[i] = col;
	return 0;
}

/*
 * After a type's first event (read by index): handles for its fields when
 * they are integers and strings of a format (not print, whose marker
 * fields come and go with its text). 0, or -1 out of memory.
 */
static int make_fast(struct frame *f, struct type_map *tm,
		     const trawl_event *ev)
{
	tm->nfast = 0;
	const char *name = trawl_event_name(ev);
	size_t n = trawl_event_field_count(ev);
	if (!f->binary || !n || !strcmp(name, "print"))
		return 0;
	for (size_t i = 0; i < n; i++) {
		int ty = trawl_event_field_type(ev, i);
		if ((ty != TRAWL_VALUE_INT && ty != TRAWL_VALUE_STR) ||
		    i >= tm->nfields || tm->col[i] < 0)
			return 0;
		int kind = f->cols[tm->col[i]].kind;
		if ((ty == TRAWL_VALUE_INT) !=
		    (kind == COL_I64 || kind == COL_U64))
			return 0;
	}
	tm->handle = calloc(n, sizeof(*tm->handle));
	tm->fast_col = calloc(n, sizeof(*tm->fast_col));
	tm->fast_uns = calloc(n, 1);
	if (!tm->handle || !tm->fast_col || !tm->fast_uns)
		return -1;
	for (size_t i = 0; i < n; i++) {
		struct column *c = &f->cols[tm->col[i]];
		tm->handle[i] = trawl_field_lookup(f->t, name, c->src);
		if (!tm->handle[i])
			return -1;
		tm->fast_col[i] = tm->col[i];
		tm->fast_uns[i] =
			(trawl_event_field_flags(ev, i) &
			 (TRAWL_VALUE_UNSIGNED | TRAWL_VALUE_POINTER)) != 0;
	}
	tm->nfast = (uint32_t)n;
	return 0;
}

/* The fields by handle: 0, 1 when the event needs the general way (a
 * value of another type than the format's first event had). */
static int fast_fields(struct frame *f, struct type_map *tm,
		       const trawl_event *ev, size_t r)
{
	for (uint32_t i = 0; i < tm->nfast; i++) {
		struct column *c = &f->cols[tm->fast_col[i]];
		if (c->kind == COL_STR) {
			size_t n;
			const char *s = trawl_event_raw(ev, tm->handle[i], &n);
			if (!s)
				return 1;
			if (col_text(c, r, s, n))
				return -1;
			continue;
		}
		if (c->kind != COL_I64 && c->kind != COL_U64)
			return 1;
		int64_t v;
		if (trawl_event_get_int(ev, tm->handle[i], &v))
			return 1;
		if (tm->fast_uns[i])
			c->has_big |= v < 0;
		else
			c->has_neg |= v < 0;
		if (col_int(c, r, v))
			return -1;
		if (f->labels) {
			size_t n;
			const char *l =
				trawl_event_label(ev, tm->handle[i], &n);
			if (put_label(f, tm->fast_col[i], r, l, n))
				return -1;
		}
	}
	return 0;
}

static int fill_row(struct frame *f, const trawl_event *ev)
{
	struct type_map *tm = type_map(f, ev);
	if (!tm)
		return -1;
	size_t r = f->nrows;
	const char *comm = trawl_event_comm(ev);
	if (col_int(&f->cols[BASE_SEQ], r, (int64_t)trawl_event_seq(ev)) ||
	    col_int(&f->cols[BASE_TIME], r, trawl_event_time(ev)) ||
	    col_int(&f->cols[BASE_CPU], r, trawl_event_cpu(ev)) ||
	    col_int(&f->cols[BASE_PID], r, trawl_event_pid(ev)) ||
	    col_text(&f->cols[BASE_COMM], r, comm, strlen(comm)))
		return -1;
	int tgid = trawl_event_tgid(ev);
	if (tgid >= 0 && col_int(&f->cols[BASE_TGID], r, tgid))
		return -1;
	if (f->with_event) {
		struct column *c = &f->cols[BASE_EVENT];
		if (col_at(c, r))
			return -1;
		((int32_t *)c->data)[r] = tm->event_code;
	}
	if (tm->nfast) {
		int rc = fast_fields(f, tm, ev, r);
		if (rc < 0)
			return -1;
		if (rc == 0) {
			f->nrows++;
			return 0;
		}
	}
	int first = tm->seen == 1;
	size_t n = trawl_event_field_count(ev);
	for (size_t i = 0; i < n; i++) {
		size_t kl;
		const char *k = trawl_event_field_name(ev, i, &kl);
		if (!k)
			continue;
		trawl_value v;
		trawl_event_field_get(ev, i, &v); /* one call, not four */
		long ci = i < tm->nfields ? tm->col[i] : -1;
		if (ci < 0 || f->cols[ci].src_len != kl ||
		    memcmp(f->cols[ci].src, k, kl)) {
			ci = column_for(f, &v, k, kl);
			if (ci < 0 || map_field(tm, i, (int32_t)ci))
				return -1;
		}
		if (put_field(&f->cols[ci], r, ev, i, &v))
			return -1;
		if (f->labels) {
			size_t n;
			const char *l = trawl_event_field_label(ev, i, &n);
			if (put_label(f, ci, r, l, n))
				return -1;
		}
	}
	if (first) {
		tm->seen = 2;
		if (make_fast(f, tm, ev))
			return -1;
	}
	f->nrows++;
	return 0;
}

static int on_event(const trawl_event *ev, void *ctx)
{
	struct frame *f = ctx;
	uint64_t seq = trawl_event_seq(ev);
	int64_t time = trawl_event_time(ev);
	uint32_t type = trawl_event_type_id(ev);
	/* an event two of the frame's patterns match comes twice */
	if (f->nrows && seq == f->last_seq && time == f->last_time &&
	    type == f->last_type)
		return pt_poll(f->run);
	f->last_seq = seq;
	f->last_time = time;
	f->last_type = type;
	if (fill_row(f, ev)) {
		f->failed = 1;
		return 1;
	}
	return pt_poll(f->run);
}

static int frame_init(struct frame *f, int with_event, int labels,
		      struct pt_run *run, trawl_trace *t)
{
	memset(f, 0, sizeof(*f));
	f->with_event = with_event;
	f->labels = labels;
	f->run = run;
	f->t = t;
	f->binary = trawl_format(t) == TRAWL_FORMAT_TRACE_DAT ||
		    trawl_format(t) == TRAWL_FORMAT_PERF_DATA;
	static const struct {
		const char *name;
		int kind;
	} base[] = {{"seq", COL_I64},  {"time", COL_I64}, {"cpu", COL_I32},
		    {"pid", COL_I32},  {"tgid", COL_I32}, {"comm", COL_STR},
		    {"event", COL_STR}};
	size_t n = with_event ? 7 : 6;
	for (size_t i = 0; i < n; i++)
		if (add_column(f, base[i].name, strlen(base[i].name),
			       base[i].kind))
			return -1;
	f->nbase = n;
	return 0;
}

static void frame_free(struct frame *f)
{
	for (size_t i = 0; i < f->ncols; i++) {
		struct column *c = &f->cols[i];
		free(c->src);
		free(c->name);
		free(c->data);
		free(c->present);
		free(c->aoff);
		free(c->avals);
		strdict_free(&c->dict);
	}
	for (uint32_t i = 0; i < f->ntypes; i++) {
		free(f->types[i].col);
		free(f->types[i].handle);
		free(f->types[i].fast_col);
		free(f->types[i].fast_uns);
	}
	free(f->cols);
	free(f->types);
	memset(f, 0, sizeof(*f));
}

static void free_capsule(PyObject *cap)
{
	free(PyCapsule_GetPointer(cap, "trawl.column"));
}

/* An ndarray over a malloc'd buffer it now owns (*data is taken). */
static PyObject *owned_array(void **data, size_t n, size_t esize, int typenum)
{
	void *p = *data;
	if (!p || !n) {
		free(p);
		*data = NULL;
		npy_intp dim = 0;
		return PyArray_SimpleNew(1, &dim, typenum);
	}
	void *shrunk = realloc(p, n * esize);
	if (shrunk)
		p = shrunk;
	*data = NULL;
	npy_intp dim = (npy_intp)n;
	PyObject *arr = PyArray_SimpleNewFromData(1, &dim, typenum, p);
	if (!arr) {
		free(p);
		return NULL;
	}
	PyObject *cap = PyCapsule_New(p, "trawl.column", free_capsule);
	if (!cap) {
		free(p);
		Py_DECREF(arr);
		return NULL;
	}
	if (PyArray_SetBaseObject((PyArrayObject *)arr, cap) < 0) {
		Py_DECREF(arr);
		return NULL;
	}
	return arr;
}

static PyObject *categories(const struct strdict *d)
{
	PyObject *list = PyList_New(d->n);
	for (uint32_t i = 0; list && i < d->n; i++) {
		size_t len;
		const char *s = strdict_text(d, i, &len);
		PyObject *o = pt_str(s, len);
		if (!o) {
			Py_CLEAR(list);
			break;
		}
		PyList_SET_ITEM(list, i, o);
	}
	return list;
}

PyObject *pt_array_i64(int64_t **data, size_t n)
{
	return owned_array((void **)data, n, sizeof(int64_t), NPY_INT64);
}

PyObject *pt_array_i32(int32_t **data, size_t n)
{
	return owned_array((void **)data, n, sizeof(int32_t), NPY_INT32);
}

PyObject *pt_categories(const struct strdict *d)
{
	return categories(d);
}

static PyObject *tuples(const struct column *c, size_t nrows)
{
	npy_intp dim = (npy_intp)nrows;
	PyObject *arr = PyArray_SimpleNew(1, &dim, NPY_OBJECT);
	if (!arr)
		return NULL;
	PyObject **cells = PyArray_DATA((PyArrayObject *)arr);
	for (size_t r = 0; r < nrows; r++) {
		PyObject *v;
		if (c->present && !c->present[r]) {
			v = Py_NewRef(Py_None);
		} else {
			int64_t a = c->aoff[r], b = c->aoff[r + 1];
			v = PyTuple_New(b - a);
			for (int64_t j = a; v && j < b; j++) {
				PyObject *x = PyLong_FromLongLong(c->avals[j]);
				if (!x) {
					Py_CLEAR(v);
					break;
				}
				PyTuple_SET_ITEM(v, j - a, x);
			}
		}
		if (!v) {
			Py_DECREF(arr);
			return NULL;
		}
		Py_XSETREF(cells[r], v);
	}
	return arr;
}

/* (name, kind, values, missing mask or None, categories or None,
 * display_only) per column;
 * the frame's buffers move into the arrays. */
static PyObject *frame_columns(struct frame *f)
{
	PyObject *list = PyList_New(0);
	if (!list)
		return NULL;
	for (size_t i = 0; i < f->ncols; i++) {
		struct column *c = &f->cols[i];
		if (i == BASE_TGID && !c->n)
			continue; /* no event had one */
		if (col_pad(c, f->nrows)) {
			Py_DECREF(list);
			return PyErr_NoMemory();
		}
		PyObject *values = NULL, *mask = Py_NewRef(Py_None),
			 *cats = Py_NewRef(Py_None);
		const char *kind = "i64";
		/* a negative signed value makes a column signed, an unsigned
		 * one past INT64_MAX unsigned (both: signed, bits kept) */
		if (c->kind == COL_U64 && c->has_neg)
			c->kind = COL_I64;
		else if (c->kind == COL_I64 && c->has_big && !c->has_neg)
			c->kind = COL_U64;
		switch (c->kind) {
		case COL_I64:
			values = owned_array(&c->data, f->nrows, 8, NPY_INT64);
			break;
		case COL_U64:
			kind = "u64";
			values = owned_array(&c->data, f->nrows, 8, NPY_UINT64);
			break;
		case COL_I32:
			kind = "i32";
			values = owned_array(&c->data, f->nrows, 4, NPY_INT32);
			break;
		case COL_STR:
			kind = "cat";
			values = owned_array(&c->data, f->nrows, 4, NPY_INT32);
			Py_SETREF(cats, categories(&c->dict));
			break;
		case COL_ARRAY:
			kind = "obj";
			values = tuples(c, f->nrows);
			break;
		}
		if (c->present && c->kind != COL_ARRAY && c->kind != COL_STR) {
			/* pandas wants where values are missing */
			for (size_t r = 0; r < f->nrows; r++)
				c->present[r] = !c->present[r];
			void *p = c->present;
			c->present = NULL;
			Py_SETREF(mask, owned_array(&p, f->nrows, 1, NPY_BOOL));
		}
		PyObject *item = NULL;
		if (values && mask && cats)
			item = Py_BuildValue(
				"(ssOOOO)", c->name, kind, values, mask, cats,
				c->display_only ? Py_True : Py_False);
		Py_XDECREF(values);
		Py_XDECREF(mask);
		Py_XDECREF(cats);
		if (!item || PyList_Append(list, item)) {
			Py_XDECREF(item);
			Py_DECREF(list);
			return NULL;
		}
		Py_DECREF(item);
	}
	return list;
}

/*
 * _trawl.frames(path, opts, specs): specs is a list of (patterns,
 * with_event[, labels]); one pass fills one frame per spec. Returns (list of
 * column lists, stats).
 */
PyObject *pt_frames(PyObject *self, PyObject *args)
{
	(void)self;
	PyObject *path, *opts, *specs;
	if (!PyArg_ParseTuple(args, "OOO!", &path, &opts, &PyList_Type, &specs))
		return NULL;
	Py_ssize_t nspec = PyList_GET_SIZE(specs);
	struct frame *frames =
		calloc(nspec ? (size_t)nspec : 1, sizeof(*frames));
	if (!frames)
		return PyErr_NoMemory();
	struct pt_run run = {0};
	PyObject *res = NULL, *cols = NULL;
	trawl_trace *t = pt_open(path, opts);
	if (!t)
		goto out;
	for (Py_ssize_t s = 0; s < nspec; s++) {
		PyObject *patterns;
		int with_event, labels = 0;
		if (!PyArg_ParseTuple(PyList_GET_ITEM(specs, s), "O!p|p",
				      &PyList_Type, &patterns, &with_event,
				      &labels))
			goto out;
		if (frame_init(&frames[s], with_event, labels, &run, t)) {
			PyErr_NoMemory();
			goto out;
		}
		for (Py_ssize_t i = 0; i < PyList_GET_SIZE(patterns); i++) {
			const char *p =
				PyUnicode_AsUTF8(PyList_GET_ITEM(patterns, i));
			if (!p)
				goto out;
			int rc = trawl_on(t, p, on_event, &frames[s]);
			if (rc) {
				trawl_error e = {0};
				snprintf(e.msg, sizeof(e.msg),
					 "bad event pattern '%s'", p);
				pt_raise(&e, rc);
				goto out;
			}
		}
	}
	int rc = pt_run_nogil(t, &run);
	if (rc < 0 || rc == PT_STOPPED)
		goto out;
	for (Py_ssize_t s = 0; s < nspec; s++)
		if (frames[s].failed) {
			PyErr_NoMemory();
			goto out;
		}
	cols = PyList_New(nspec);
	for (Py_ssize_t s = 0; cols && s < nspec; s++) {
		PyObject *c = frame_columns(&frames[s]);
		if (!c)
			goto out;
		PyList_SET_ITEM(cols, s, c);
	}
	PyObject *stats = cols ? pt_stats_dict(t) : NULL;
	if (stats) {
		res = PyTuple_Pack(2, cols, stats);
		Py_DECREF(stats);
	}
out:
	Py_XDECREF(cols);
	for (Py_ssize_t s = 0; s < nspec; s++)
		frame_free(&frames[s]);
	free(frames);
	trawl_close(t);
	return res;
}

int pt_numpy_init(void);
int pt_numpy_init(void)
{
	import_array1(-1);
	return 0;
}
