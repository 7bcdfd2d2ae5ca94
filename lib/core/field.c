/* SPDX-License-Identifier: MIT */
/*
 * Field handles and typed field reads. A handle is resolved once by name;
 * reading it decodes the event's fields on first use (through the reader)
 * and then finds the field at the index where it was last seen, so the
 * common case is one length compare and one memcmp.
 */
#include <limits.h>
#include <string.h>

#include "core.h"

TRAWL_API trawl_field trawl_field_lookup(trawl_trace *t, const char *event,
					 const char *field)
{
	if (!t || !field || !*field)
		return NULL;
	if (event && (!*event || strcmp(event, "*") == 0))
		event = NULL;
	if (event && strcmp(event, "tracing_mark_write") == 0)
		event = "print";
	for (struct trawl_field_def *f = t->fields; f; f = f->next) {
		if (strcmp(f->name, field) == 0 &&
		    ((!event && !f->event) ||
		     (event && f->event && strcmp(event, f->event) == 0)))
			return f;
	}
	struct trawl_field_def *f = tw_calloc(&t->mem, 1, sizeof(*f));
	if (!f)
		return NULL;
	f->name_len = strlen(field);
	f->name = tw_strndup(&t->mem, field, f->name_len);
	f->event = event ? tw_strndup(&t->mem, event, strlen(event)) : NULL;
	if (!f->name || (event && !f->event)) {
		tw_free(&t->mem, f->name);
		tw_free(&t->mem, f->event);
		tw_free(&t->mem, f);
		return NULL;
	}
	f->plain = 1;
	for (size_t i = 0; i < f->name_len; i++) {
		unsigned char c = (unsigned char)field[i];
		if (!((c | 0x20) >= 'a' && (c | 0x20) <= 'z') &&
		    !(c >= '0' && c <= '9') && c != '_' && c != '.')
			f->plain = 0;
	}
	f->next = t->fields;
	t->fields = f;
	return f;
}

/* Decode every field (for enumeration). */
static void decode(const trawl_event *ev)
{
	if (ev->nfields < 0 || !ev->decode_done)
		ev->t->ops->decode(ev->t, (trawl_event *)ev, NULL, 0);
}

/* The decoded fields' texts or labels, made now if they were left. */
static void realize(const trawl_event *ev, unsigned what)
{
	if (ev->pending & what)
		ev->t->ops->realize(ev, ev->pending & what);
}

/*
 * Whether the reader may seek field d in the text of type ty: only where
 * the text names it as the generic decoder would (no format known, or a
 * plain "name=%d" in the format); elsewhere the format's scan decides.
 */
static int seekable(struct trawl_field_def *d, tw_type *ty)
{
	d->last_local = 0;
	if (!d->plain || ty->kind == TW_KIND_PRINT)
		return d->plain;
	const tw_pfmt *pf = tw_textfmt_of(ty->t, ty);
	if (!pf)
		return 1;
	int i = tw_pfmt_find(pf, d->name, d->name_len);
	int form = i >= 0 ? tw_pfmt_textform(pf, (size_t)i) : TW_PFT_NONE;
	if (form == TW_PFT_LOCAL)
		d->last_local = (uint32_t)i + 1;
	return form != TW_PFT_NONE;
}

/* Whether handle d may be read from ev's type at all. */
static int type_matches(struct trawl_field_def *d, const trawl_event *ev)
{
	if (d->last_type != ev->type) {
		d->last_type = ev->type;
		d->last_match =
			!d->event || strcmp(d->event, ev->type->name) == 0;
		d->last_seek =
			!(ev->bits & TW_EV_BINARY) && seekable(d, ev->type);
	}
	return d->last_match;
}

static int binary(const trawl_event *ev)
{
	return (ev->bits & TW_EV_BINARY) != 0;
}

static const tw_kv *find(const trawl_event *ev, trawl_field f)
{
	if (!f)
		return NULL;
	struct trawl_field_def *d = (struct trawl_field_def *)f;
	if (!type_matches(d, ev))
		return NULL;
	trawl_event *mut = (trawl_event *)ev;
	int (*seek)(const trawl_trace *, const trawl_event *, const char *,
		    size_t, tw_kv *) = d->last_seek ? ev->t->ops->seek : NULL;
	if (ev->nfields < 0) {
		/* Straight to the field when the reader can: the fields
		 * before it need not be decoded to be passed over. */
		if (seek && seek(ev->t, ev, d->name, d->name_len, &mut->sought))
			return &ev->sought;
		ev->t->ops->decode(ev->t, mut, d->name, d->name_len);
	}
	int n = ev->nfields;
	uint32_t h = d->hint;
	if (h < (uint32_t)n && tw_eq(ev->fields[h].key, ev->fields[h].klen,
				     d->name, d->name_len)) {
		/* A name may appear twice in hostile text; the first one is
		 * the field, whatever index the previous event used. */
		uint32_t i = 0;
		while (i < h && !tw_eq(ev->fields[i].key, ev->fields[i].klen,
				       d->name, d->name_len))
			i++;
		return &ev->fields[i];
	}
	for (int i = 0; i < n; i++) {
		if (tw_eq(ev->fields[i].key, ev->fields[i].klen, d->name,
			  d->name_len)) {
			d->hint = (uint32_t)i;
			return &ev->fields[i];
		}
	}
	if (ev->decode_done)
		return NULL;
	if (seek && seek(ev->t, ev, d->name, d->name_len, &mut->sought))
		return &ev->sought;
	/* Not among those decoded so far: decode on, up to it. */
	ev->t->ops->decode(ev->t, mut, d->name, d->name_len);
	for (int i = n; i < ev->nfields; i++) {
		if (tw_eq(ev->fields[i].key, ev->fields[i].klen, d->name,
			  d->name_len)) {
			d->hint = (uint32_t)i;
			return &ev->fields[i];
		}
	}
	return NULL;
}

/* Binary sources read typed values straight from the record. */
static int bin_int(const trawl_event *ev, trawl_field f, int64_t *out)
{
	struct trawl_field_def *d = (struct trawl_field_def *)f;
	if (!d || !type_matches(d, ev))
		return -TRAWL_ENOENT;
	return ev->t->ops->get_int(ev, d, out);
}

static const char *bin_raw(const trawl_event *ev, trawl_field f, size_t *len)
{
	struct trawl_field_def *d = (struct trawl_field_def *)f;
	if (!d || !type_matches(d, ev))
		return NULL;
	return ev->t->ops->get_raw(ev, d, len);
}

TRAWL_API int trawl_event_has(const trawl_event *ev, trawl_field f)
{
	if (binary(ev)) {
		int64_t v;
		return bin_int(ev, f, &v) != -TRAWL_ENOENT;
	}
	return find(ev, f) != NULL;
}

/*
 * Parse the number at the start of s. Hashed pointers ("00000000a96ea016")
 * have no 0x; a run of exactly 8 or 16 hex digits that starts with 0 is read
 * as hex.
 */
static int parse_number(const char *s, size_t n, int64_t *out)
{
	/*
	 * The common case first: a short decimal that ends the value or is
	 * followed by a character no hex word continues with. Anything else
	 * (0x, hex letters, a sign other than '-', 8 or 16 digits with a
	 * leading 0, long runs) takes the full rules below.
	 */
	size_t f = n > 0 && s[0] == '-';
	uint64_t fv = 0;
	size_t fi = f;
	while (fi < n && fi - f < 18 && (unsigned char)(s[fi] - '0') <= 9)
		fv = fv * 10 + (uint64_t)(s[fi++] - '0');
	size_t flen = fi - f;
	if (flen > 0 && flen < 18 &&
	    (fi == n ||
	     (tw_hexval(s[fi]) < 0 && s[fi] != 'x' && s[fi] != 'X')) &&
	    !((flen == 8 || flen == 16) && s[f] == '0')) {
		*out = f ? (int64_t)(0 - fv) : (int64_t)fv;
		return 0;
	}

	size_t i = 0;
	int neg = 0;
	uint64_t v = 0;
	if (i < n && (s[i] == '-' || s[i] == '+'))
		neg = s[i++] == '-';
	size_t digits_at = i;
	int hex = 0;
	if (i + 1 < n && s[i] == '0' && (s[i + 1] == 'x' || s[i + 1] == 'X')) {
		hex = 1;
		i += 2;
		digits_at = i;
	} else {
		size_t j = i;
		int letters = 0;
		while (j < n && tw_hexval(s[j]) >= 0) {
			letters |= tw_hexval(s[j]) > 9;
			j++;
		}
		size_t len = j - i;
		if ((len == 8 || len == 16) && s[i] == '0' &&
		    (j == n || s[j] == ' ' || s[j] == ','))
			hex = 1;
		else if (letters && (j == n || s[j] == ' '))
			return -1; /* a word like "dead", not a number */
	}
	if (hex) {
		int d;
		while (i < n && (d = tw_hexval(s[i])) >= 0) {
			v = v * 16 + (uint64_t)d;
			i++;
		}
	} else {
		while (i < n && s[i] >= '0' && s[i] <= '9') {
			uint64_t nv = v * 10 + (uint64_t)(s[i] - '0');
			if (nv / 10 != v)
				return -1; /* overflow */
			v = nv;
			i++;
		}
	}
	if (i == digits_at)
		return -1;
	*out = neg ? (int64_t)(0 - v) : (int64_t)v;
	return 0;
}

/* A typed value as an integer: numbers only, never display text. */
static int typed_int(const tw_pf_value *v, int64_t *out)
{
	if (v->type == TW_PFV_INT) {
		*out = v->i;
		return 0;
	}
	return v->type == TW_PFV_NONE ? -TRAWL_ENOENT : -TRAWL_ETYPE;
}

/*
 * A field its format shows as "name=" and conversions of its own
 * (prev_state=%s%s): the sought text alone read back, without scanning the
 * whole event; where that does not match, the whole event is decoded.
 */
static int local_int(const trawl_event *ev, struct trawl_field_def *d,
		     const tw_kv *kv, int64_t *out)
{
	trawl_trace *t = ev->t;
	tw_pf_value v;
	int rc = tw_pfmt_scan_local(ev->type->pf, &t->mem, d->last_local - 1,
				    kv->val, kv->vlen, &t->scan, &v);
	if (rc == 1)
		return typed_int(&v, out);
	decode(ev);
	for (int i = 0; i < ev->nfields; i++)
		if (tw_eq(ev->fields[i].key, ev->fields[i].klen, d->name,
			  d->name_len))
			return ev->typed ? typed_int(&ev->tv[i], out)
			       : parse_number(ev->fields[i].val,
					      ev->fields[i].vlen, out)
				       ? -TRAWL_ETYPE
				       : 0;
	return -TRAWL_ENOENT;
}

/* A little-endian integer of 1, 2, 4 or 8 bytes (what the reader's
 * get_int gave for this field of this type before). */
static inline int64_t plain_int(const unsigned char *p, unsigned size,
				int is_signed)
{
	switch (size) {
	case 1:
		return is_signed ? (int64_t)(int8_t)p[0] : (int64_t)p[0];
	case 2: {
		uint16_t v;
		memcpy(&v, p, 2);
		return is_signed ? (int64_t)(int16_t)v : (int64_t)v;
	}
	case 4: {
		uint32_t v;
		memcpy(&v, p, 4);
		return is_signed ? (int64_t)(int32_t)v : (int64_t)v;
	}
	default: {
		int64_t v;
		memcpy(&v, p, 8);
		return v;
	}
	}
}

void tw_field_fast(struct trawl_field_def *d, const tw_type *ty, uint32_t off,
		   unsigned size, int is_signed)
{
	struct tw_fast_int *w = NULL;
	for (int i = 0; i < TW_FAST_WAYS && !w; i++)
		if (d->fast[i].type == ty || !d->fast[i].type)
			w = &d->fast[i];
	if (!w) /* all taken by other types: the oldest goes */
		w = &d->fast[d->fast_next++ % TW_FAST_WAYS];
	*w = (struct tw_fast_int){ty, off, (uint8_t)size, is_signed != 0};
}

TRAWL_API int trawl_event_get_int(const trawl_event *ev, trawl_field f,
				  int64_t *out)
{
	const struct trawl_field_def *fd = f;
	for (int i = 0; fd && i < TW_FAST_WAYS; i++) {
		const struct tw_fast_int *w = &fd->fast[i];
		if (w->type != ev->type)
			continue;
		if (!binary(ev) || (size_t)w->off + w->size > ev->data_len)
			break;
		*out = plain_int((const unsigned char *)ev->data + w->off,
				 w->size, w->is_signed);
		return 0;
	}
	if (binary(ev))
		return bin_int(ev, f, out);
	const tw_kv *kv = find(ev, f);
	if (!kv)
		return -TRAWL_ENOENT;
	/* found by decoding (not by a seek): it may have a typed value */
	if (ev->typed && kv != &ev->sought && ev->nfields > 0)
		return typed_int(&ev->tv[kv - ev->fields], out);
	const struct trawl_field_def *d = f;
	if (kv == &ev->sought && d->last_local)
		return local_int(ev, (struct trawl_field_def *)d, kv, out);
	if (parse_number(kv->val, kv->vlen, out))
		return -TRAWL_ETYPE;
	return 0;
}

TRAWL_API int64_t trawl_event_int(const trawl_event *ev, trawl_field f)
{
	int64_t v;
	return trawl_event_get_int(ev, f, &v) ? 0 : v;
}

TRAWL_API uint64_t trawl_event_uint(const trawl_event *ev, trawl_field f)
{
	int64_t v;
	return trawl_event_get_int(ev, f, &v) ? 0 : (uint64_t)v;
}

TRAWL_API const char *trawl_event_raw(const trawl_event *ev, trawl_field f,
				      size_t *len)
{
	if (binary(ev))
		return bin_raw(ev, f, len);
	const tw_kv *kv = find(ev, f);
	if (!kv)
		return NULL;
	if (len)
		*len = kv->vlen;
	return kv->val;
}

TRAWL_API const char *trawl_event_label(const trawl_event *ev, trawl_field f,
					size_t *len)
{
	const struct trawl_field_def *d = f;
	if (!d || !type_matches((struct trawl_field_def *)d, ev))
		return NULL;
	if (binary(ev) && ev->t->ops->get_label) {
		/* one field's label, without decoding the others */
		const char *s;
		size_t n;
		int rc = ev->t->ops->get_label(ev, (struct trawl_field_def *)d,
					       &s, &n);
		if (rc >= 0) {
			if (rc && len)
				*len = n;
			return rc ? s : NULL;
		}
	}
	/* labels come with the whole decoding: find the field there */
	decode(ev);
	realize(ev, TW_PEND_LABEL);
	if (!ev->typed)
		return NULL;
	for (int i = 0; i < ev->nfields; i++)
		if (tw_eq(ev->fields[i].key, ev->fields[i].klen, d->name,
			  d->name_len)) {
			if (!ev->tv[i].label)
				return NULL;
			if (len)
				*len = ev->tv[i].label_len;
			return ev->tv[i].label;
		}
	return NULL;
}

TRAWL_API const char *trawl_event_str(const trawl_event *ev, trawl_field f)
{
	size_t n;
	const char *v = trawl_event_raw(ev, f, &n);
	if (!v)
		return NULL;
	trawl_event *e = (trawl_event *)ev;
	e->str_z.len = 0;
	if (tw_buf_append(&e->t->mem, &e->str_z, v, n))
		return NULL;
	return e->str_z.data;
}

TRAWL_API size_t trawl_event_field_count(const trawl_event *ev)
{
	decode(ev);
	return (size_t)ev->nfields;
}

TRAWL_API const char *trawl_event_field_name(const trawl_event *ev, size_t i,
					     size_t *len)
{
	decode(ev);
	if (i >= (size_t)ev->nfields)
		return NULL;
	if (len)
		*len = ev->fields[i].klen;
	return ev->fields[i].key;
}

TRAWL_API const char *trawl_event_field_value(const trawl_event *ev, size_t i,
					      size_t *len)
{
	decode(ev);
	if (i >= (size_t)ev->nfields)
		return NULL;
	/* Only an integer's text is left to make: a string's value is its
	 * text already, and asking for it alone (CSV, the JSON of a string)
	 * need not spell every integer of the event. */
	if (!ev->typed || (ev->tv[i].type == TW_PFV_INT && !ev->tv[i].s))
		realize(ev, TW_PEND_TEXT);
	if (len)
		*len = ev->fields[i].vlen;
	return ev->fields[i].val;
}

_Static_assert((int)TW_PFV_INT == (int)TRAWL_VALUE_INT &&
		       (int)TW_PFV_STR == (int)TRAWL_VALUE_STR &&
		       (int)TW_PFV_ARRAY == (int)TRAWL_VALUE_ARRAY &&
		       (int)TW_PFV_TEXT == (int)TRAWL_VALUE_TEXT,
	       "typed values share the public numbering");

/* Untyped text: a number only when it is written as a decimal, whole
 * ("-12"); hex and hashed pointers stay text. */
static int written_number(const char *s, size_t n, int64_t *v)
{
	size_t i = n && s[0] == '-';
	if (i == n || (n - i > 1 && s[i] == '0'))
		return 0;
	for (; i < n; i++)
		if (!(s[i] >= '0' && s[i] <= '9'))
			return 0;
	return parse_number(s, n, v) == 0;
}

void tw_typed_text(trawl_event *ev, int i)
{
	tw_pf_value v = {0};
	v.s = ev->fields[i].val;
	v.slen = ev->fields[i].vlen;
	v.exact = 1;
	v.type = written_number(v.s, v.slen, &v.i) ? TW_PFV_INT : TW_PFV_STR;
	ev->tv[i] = v;
}

TRAWL_API int trawl_event_field_type(const trawl_event *ev, size_t i)
{
	decode(ev);
	if (i >= (size_t)ev->nfields)
		return TRAWL_VALUE_NONE;
	if (ev->typed)
		return ev->tv[i].type; /* the same numbers as the public enum */
	int64_t v;
	return written_number(ev->fields[i].val, ev->fields[i].vlen, &v)
		       ? TRAWL_VALUE_INT
		       : TRAWL_VALUE_STR;
}

TRAWL_API unsigned trawl_event_field_flags(const trawl_event *ev, size_t i)
{
	decode(ev);
	if (i >= (size_t)ev->nfields || !ev->typed)
		return 0;
	const tw_pf_value *v = &ev->tv[i];
	return (v->uns ? TRAWL_VALUE_UNSIGNED : 0) |
	       (v->type == TW_PFV_INT && !v->exact ? TRAWL_VALUE_INEXACT : 0) |
	       (v->ptr ? TRAWL_VALUE_POINTER : 0);
}

TRAWL_API int trawl_event_field_int(const trawl_event *ev, size_t i,
				    int64_t *out)
{
	decode(ev);
	if (i >= (size_t)ev->nfields)
		return -TRAWL_ENOENT;
	if (ev->typed)
		return typed_int(&ev->tv[i], out);
	return written_number(ev->fields[i].val, ev->fields[i].vlen, out)
		       ? 0
		       : -TRAWL_ETYPE;
}

/* Field i's typed value (i in range, the event decoded). */
static inline void value_of(const trawl_event *ev, size_t i, trawl_value *out)
{
	*out = (trawl_value){0};
	if (!ev->typed) {
		const tw_kv *kv = &ev->fields[i];
		if (written_number(kv->val, kv->vlen, &out->i)) {
			out->type = TRAWL_VALUE_INT;
		} else {
			out->type = TRAWL_VALUE_STR;
			out->s = kv->val;
			out->len = kv->vlen;
		}
		return;
	}
	const tw_pf_value *v = &ev->tv[i];
	out->type = v->type; /* the same numbers as the public enum */
	out->flags =
		(v->uns ? TRAWL_VALUE_UNSIGNED : 0) |
		(v->type == TW_PFV_INT && !v->exact ? TRAWL_VALUE_INEXACT : 0) |
		(v->ptr ? TRAWL_VALUE_POINTER : 0);
	if (v->type == TW_PFV_INT) {
		out->i = v->i;
	} else if (v->type == TW_PFV_STR || v->type == TW_PFV_TEXT) {
		/* a string's text is there already (no integer texts made) */
		out->s = ev->fields[i].val;
		out->len = ev->fields[i].vlen;
	}
}

TRAWL_API int trawl_event_field_get(const trawl_event *ev, size_t i,
				    trawl_value *out)
{
	decode(ev);
	if (i >= (size_t)ev->nfields) {
		*out = (trawl_value){0};
		return -TRAWL_ENOENT;
	}
	value_of(ev, i, out);
	return 0;
}

TRAWL_API size_t trawl_event_fields(const trawl_event *ev,
				    trawl_field_entry *out, size_t cap)
{
	if ((ev->nfields < 0 || !ev->decode_done) && ev->t->ops->fields) {
		long n = ev->t->ops->fields(ev, out, cap);
		if (n >= 0)
			return (size_t)n;
	}
	decode(ev);
	size_t n = (size_t)ev->nfields;
	for (size_t i = 0; i < n && i < cap; i++) {
		out[i].name = ev->fields[i].key;
		out[i].name_len = ev->fields[i].klen;
		value_of(ev, i, &out[i].value);
	}
	return n;
}

TRAWL_API const char *trawl_event_field_label(const trawl_event *ev, size_t i,
					      size_t *len)
{
	decode(ev);
	realize(ev, TW_PEND_LABEL);
	if (i >= (size_t)ev->nfields || !ev->typed || !ev->tv[i].label)
		return NULL;
	if (len)
		*len = ev->tv[i].label_len;
	return ev->tv[i].label;
}

TRAWL_API size_t trawl_event_field_array(const trawl_event *ev, size_t i,
					 const int64_t **elems)
{
	decode(ev);
	if (i >= (size_t)ev->nfields || !ev->typed ||
	    ev->tv[i].type != TW_PFV_ARRAY) {
		*elems = NULL;
		return 0;
	}
	if (!ev->tv[i].nelem || !ev->elems_z.data) {
		*elems =
			NULL; /* empty, or its elements did not fit in memory */
		return 0;
	}
	*elems = (const int64_t *)ev->elems_z.data + ev->tv[i].elem0;
	return ev->tv[i].nelem;
}

TRAWL_API const char *trawl_event_fields_json(const trawl_event *ev,
					      size_t *len)
{
	size_t n = 0;
	const char *s = ev->t->ops->fields_json
				? ev->t->ops->fields_json(ev, &n)
				: NULL;
	if (s) {
		*len = n;
		return s;
	}
	decode(ev);
	trawl_event *e = (trawl_event *)ev;
	e->json_z.len = 0;
	/* integers are written from their values: no texts to make */
	if (tw_json_fields(&ev->t->mem, &e->json_z, ev->fields,
			   ev->typed ? ev->tv : NULL, ev->nfields,
			   (const int64_t *)ev->elems_z.data)) {
		*len = 2;
		return "{}";
	}
	*len = e->json_z.len;
	return e->json_z.data;
}

int tw_parse_number(const char *s, size_t n, int64_t *out)
{
	return parse_number(s, n, out);
}

/* Numbers in markers are plain decimal, possibly negative. */
static int marker_int(const char *s, size_t n, int64_t *out)
{
	if (n == 0 || parse_number(s, n, out))
		return -1;
	return 0;
}

/*
 * B|pid|name  E|pid  E  C|pid|name|value  S|pid|name|cookie  F|pid|name|cookie
 * as written by Android's atrace to trace_marker.
 */
int tw_parse_marker(const char *s, size_t n, trawl_marker *m)
{
	while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == ' '))
		n--;
	if (n == 0)
		return -1;
	char k = s[0];
	if (k != 'B' && k != 'E' && k != 'C' && k != 'S' && k != 'F')
		return -1;
	memset(m, 0, sizeof(*m));
	m->kind = k;
	m->pid = -1;
	if (n == 1)
		return k == 'E' ? 0 : -1;
	if (s[1] != '|')
		return -1;
	const char *p = s + 2, *end = s + n;
	const char *bar = memchr(p, '|', (size_t)(end - p));
	const char *pid_end = bar ? bar : end;
	if (marker_int(p, (size_t)(pid_end - p), &m->pid))
		return -1;
	if (!bar)
		return k == 'E' ? 0 : -1;
	const char *name = bar + 1;
	if (k == 'B' || k == 'E') {
		m->name = name;
		m->name_len = (size_t)(end - name);
		return 0;
	}
	/* C, S, F: the number follows the last '|'; names may hold '|'. */
	const char *last = end;
	while (last > name && last[-1] != '|')
		last--;
	if (last == name)
		return -1;
	if (marker_int(last, (size_t)(end - last), &m->value))
		return -1;
	m->name = name;
	m->name_len = (size_t)(last - 1 - name);
	return 0;
}

static void add_field(trawl_event *ev, const char *key, const char *v,
		      size_t vlen)
{
	if (ev->nfields < TW_MAX_FIELDS)
		ev->fields[ev->nfields++] =
			(tw_kv){key, v, (uint32_t)strlen(key), (uint32_t)vlen};
}

void tw_marker_fields(trawl_event *ev, const char *buf, size_t buf_len)
{
	trawl_marker m;
	if (tw_parse_marker(buf, buf_len, &m))
		return;
	/* The kind letter is the first byte of buf itself. */
	add_field(ev, "kind", buf, 1);
	if (m.pid >= 0) {
		const char *pid = buf + 2;
		const char *bar = memchr(pid, '|', buf_len - 2);
		size_t pl = bar ? (size_t)(bar - pid) : buf_len - 2;
		while (pl && (pid[pl - 1] == '\n' || pid[pl - 1] == ' '))
			pl--;
		add_field(ev, "pid", pid, pl);
	}
	if (m.name)
		add_field(ev, "name", m.name, m.name_len);
	if (m.kind == TRAWL_MARKER_COUNTER ||
	    m.kind == TRAWL_MARKER_ASYNC_BEGIN ||
	    m.kind == TRAWL_MARKER_ASYNC_END) {
		const char *num = m.name + m.name_len + 1;
		size_t nl = (size_t)(buf + buf_len - num);
		while (nl && (num[nl - 1] == '\n' || num[nl - 1] == ' '))
			nl--;
		add_field(ev,
			  m.kind == TRAWL_MARKER_COUNTER ? "value" : "cookie",
			  num, nl);
	}
}

void tw_print_split(const trawl_event *ev, const char **ip, size_t *ip_len,
		    const char **buf, size_t *buf_len)
{
	const char *p = ev->payload;
	size_t n = ev->payload_len;
	*ip = NULL;
	*ip_len = 0;
	if (ev->bits & TW_EV_IP_FROM_NAME) {
		/* "tracing_mark_write: text": the ip stood where names do. */
		*ip = "tracing_mark_write";
		*ip_len = 18;
	} else {
		/* "tracing_mark_write: text" inside a print event */
		const char *c = memchr(p, ':', n);
		if (c && c + 1 < p + n && c[1] == ' ' && c > p &&
		    !memchr(p, ' ', (size_t)(c - p))) {
			*ip = p;
			*ip_len = (size_t)(c - p);
			n -= (size_t)(c + 2 - p);
			p = c + 2;
		}
	}
	*buf = p;
	*buf_len = n;
}

/*
 * An application channel's slice_begin, slice_end, counter or instant
 * (lib/ring): its fields "name" and (counter) "value". The recorder puts
 * a channel's events in a buffer of their own named as their system, so
 * a kernel event that happens to share a name is not taken for one.
 */
static int app_marker(const trawl_event *ev, trawl_marker *out)
{
	static const int kinds[] = {
		[TW_KIND_APP_BEGIN] = TRAWL_MARKER_BEGIN,
		[TW_KIND_APP_END] = TRAWL_MARKER_END,
		[TW_KIND_APP_COUNTER] = TRAWL_MARKER_COUNTER,
		[TW_KIND_APP_INSTANT] = TRAWL_MARKER_INSTANT,
	};
	const tw_type *ty = ev->type;
	if (strcmp(trawl_event_buffer(ev), ty->system))
		return -TRAWL_ENOENT;
	memset(out, 0, sizeof(*out));
	out->kind = kinds[ty->kind];
	int tgid = trawl_event_tgid(ev);
	out->pid = tgid > 0 ? tgid : -1;
	int named = 0, valued = ty->kind != TW_KIND_APP_COUNTER;
	size_t n = trawl_event_field_count(ev);
	for (size_t i = 0; i < n; i++) {
		size_t len;
		const char *f = trawl_event_field_name(ev, i, &len);
		trawl_value v;
		if (!f || trawl_event_field_get(ev, i, &v))
			continue;
		if (tw_eq(f, len, "name", 4) && v.type == TRAWL_VALUE_STR) {
			out->name = v.s;
			out->name_len = v.len;
			named = 1;
		} else if (tw_eq(f, len, "value", 5) &&
			   v.type == TRAWL_VALUE_INT) {
			out->value = v.i;
			valued = 1;
		}
	}
	return named && valued ? 0 : -TRAWL_ENOENT;
}

TRAWL_API int trawl_event_marker(const trawl_event *ev, trawl_marker *out)
{
	if (ev->type->kind >= TW_KIND_APP_BEGIN &&
	    ev->type->kind <= TW_KIND_APP_INSTANT)
		return app_marker(ev, out);
	if (ev->type->kind != TW_KIND_PRINT)
		return -TRAWL_ENOENT;
	const char *ip, *buf;
	size_t ip_len, n;
	if (binary(ev)) {
		if (ev->t->ops->print_buf(ev, &buf, &n))
			return -TRAWL_ENOENT;
	} else {
		tw_print_split(ev, &ip, &ip_len, &buf, &n);
	}
	return tw_parse_marker(buf, n, out) ? -TRAWL_ENOENT : 0;
}
