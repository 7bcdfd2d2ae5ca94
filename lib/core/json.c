/* SPDX-License-Identifier: MIT */
/*
 * An event's fields as one JSON object, and JSON strings: the form
 * `trawl report --json`, the Perfetto export and a viewer's details show.
 * Typed values as themselves (integers bare, signed or not as the field
 * is; arrays as lists; a field the source does not show as null); text
 * as a JSON string, valid UTF-8 kept, anything else escaped (an invalid
 * byte becomes U+FFFD).
 *
 * A trace.dat reader may make the object ahead, on its merge thread
 * (lib/dat); everything here touches only what it is given.
 */
#include <string.h>

#include "core.h"

TRAWL_API size_t trawl_utf8_len(const unsigned char *s, size_t n)
{
	unsigned c = s[0];
	size_t len;
	unsigned min;
	if (c < 0x80)
		return 1;
	if ((c & 0xe0) == 0xc0) {
		len = 2;
		min = 0x80;
	} else if ((c & 0xf0) == 0xe0) {
		len = 3;
		min = 0x800;
	} else if ((c & 0xf8) == 0xf0) {
		len = 4;
		min = 0x10000;
	} else {
		return 0;
	}
	if (n < len)
		return 0;
	unsigned v = c & (0x7f >> len);
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		v = (v << 6) | (s[i] & 0x3f);
	}
	if (v < min || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))
		return 0;
	return len;
}

/* A byte JSON takes as it is (printable ASCII but '"' and '\\'). */
static inline int plain(unsigned char c)
{
	return c >= 0x20 && c < 0x7f && c != '"' && c != '\\';
}

TRAWL_API char *trawl_json_quote(char *o, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	*o++ = '"';
	for (size_t i = 0; i < n;) {
		/* eight bytes at a time while none needs escaping: no quote,
		 * backslash, control byte, DEL or non-ASCII among them */
		while (n - i >= 8) {
			uint64_t x;
			memcpy(&x, p + i, 8);
			const uint64_t ones = 0x0101010101010101ull,
				       high = 0x8080808080808080ull;
			uint64_t q = x ^ (ones * '"'), bs = x ^ (ones * '\\'),
				 del = x ^ (ones * 0x7f);
			uint64_t bad = (x & high) | ((x - ones * 0x20) & ~x) |
				       ((q - ones) & ~q) | ((bs - ones) & ~bs) |
				       ((del - ones) & ~del);
			if (bad & high)
				break;
			memcpy(o, p + i, 8);
			o += 8;
			i += 8;
		}
		if (i >= n)
			break;
		unsigned c = p[i];
		if (plain((unsigned char)c)) {
			*o++ = (char)c;
			i++;
		} else if (c == '"' || c == '\\') {
			*o++ = '\\';
			*o++ = (char)c;
			i++;
		} else if (c < 0x20 || c == 0x7f) {
			static const char hex[] = "0123456789abcdef";
			memcpy(o, "\\u00", 4);
			o[4] = hex[c >> 4];
			o[5] = hex[c & 15];
			o += 6;
			i++;
		} else {
			size_t l = trawl_utf8_len(p + i, n - i);
			if (l == 0) {
				memcpy(o, "\\ufffd", 6);
				o += 6;
				i++;
			} else {
				memcpy(o, p + i, l);
				o += l;
				i += l;
			}
		}
	}
	*o++ = '"';
	return o;
}

static int put_quoted(const tw_mem *m, tw_buf *b, const char *s, size_t n)
{
	if (tw_buf_reserve(m, b, b->len + 6 * n + 3))
		return -1;
	b->len = (size_t)(trawl_json_quote(b->data + b->len, s, n) - b->data);
	b->data[b->len] = '\0';
	return 0;
}

static int put_number(const tw_mem *m, tw_buf *b, int64_t v, int uns)
{
	if (b->len + 24 >= b->cap && tw_buf_reserve(m, b, b->len + 25))
		return -1;
	char t[24], *e = t + sizeof(t), *p;
	uint64_t u = (uint64_t)v;
	int neg = !uns && v < 0;
	if (neg)
		u = 0 - u;
	p = tw_digits(u, e);
	if (neg)
		*--p = '-';
	char *o = b->data + b->len;
	size_t n = (size_t)(e - p);
	for (size_t i = 0; i < n; i++)
		o[i] = p[i];
	b->len += n;
	b->data[b->len] = '\0';
	return 0;
}

/* Untyped text: a number only when written as a whole decimal. */
static int decimal(const char *s, size_t n, int64_t *v)
{
	size_t i = n && s[0] == '-';
	if (i == n || (n - i > 1 && s[i] == '0'))
		return 0;
	for (; i < n; i++)
		if (!(s[i] >= '0' && s[i] <= '9'))
			return 0;
	return tw_parse_number(s, n, v) == 0;
}

int tw_json_fields(const tw_mem *m, tw_buf *b, const tw_kv *kv,
		   const tw_pf_value *tv, int n, const int64_t *elems)
{
	int fail = tw_buf_put(m, b, "{", 1);
	for (int i = 0; i < n && !fail; i++) {
		if (i)
			fail |= tw_buf_put(m, b, ",", 1);
		fail |= put_quoted(m, b, kv[i].key, kv[i].klen);
		fail |= tw_buf_put(m, b, ":", 1);
		int64_t x;
		if (!tv) { /* text without a format: numbers as numbers */
			if (decimal(kv[i].val, kv[i].vlen, &x))
				fail |= put_number(m, b, x, 0);
			else
				fail |= put_quoted(m, b, kv[i].val, kv[i].vlen);
			continue;
		}
		const tw_pf_value *v = &tv[i];
		switch (v->type) {
		case TW_PFV_INT:
			fail |= put_number(m, b, v->i, v->uns);
			break;
		case TW_PFV_ARRAY:
			fail |= tw_buf_put(m, b, "[", 1);
			for (uint32_t j = 0; elems && j < v->nelem; j++) {
				if (j)
					fail |= tw_buf_put(m, b, ",", 1);
				fail |= put_number(m, b, elems[v->elem0 + j],
						   v->uns);
			}
			fail |= tw_buf_put(m, b, "]", 1);
			break;
		case TW_PFV_NONE:
			fail |= tw_buf_put(m, b, "null", 4);
			break;
		default: /* the field's text, as trawl_event_field_value() */
			fail |= put_quoted(m, b, kv[i].val, kv[i].vlen);
		}
	}
	fail |= tw_buf_put(m, b, "}", 1);
	return fail ? -1 : 0;
}

/* The labels and display-only names of an event's fields, as JSON members
 * to follow its "fields" (what `trawl report --json` and the viewer's
 * details add). */
TRAWL_API const char *trawl_event_field_notes_json(const trawl_event *ev,
						   size_t *len)
{
	trawl_event *e = (trawl_event *)ev;
	const tw_mem *m = &ev->t->mem;
	tw_buf *b = &e->notes_z;
	b->len = 0;
	size_t n = trawl_event_field_count(ev);
	int any = 0, bad = tw_buf_reserve(m, b, 1);
	for (size_t i = 0; i < n && !bad; i++) {
		size_t kl, ll;
		const char *l = trawl_event_field_label(ev, i, &ll);
		if (!l)
			continue;
		const char *k = trawl_event_field_name(ev, i, &kl);
		const char *sep = any ? "," : ",\"labels\":{";
		any = 1;
		bad = tw_buf_append(m, b, sep, strlen(sep)) ||
		      put_quoted(m, b, k, kl) || tw_buf_append(m, b, ":", 1) ||
		      put_quoted(m, b, l, ll);
	}
	if (any && !bad)
		bad = tw_buf_append(m, b, "}", 1);
	any = 0;
	for (size_t i = 0; i < n && !bad; i++) {
		int ty = trawl_event_field_type(ev, i);
		if (ty != TRAWL_VALUE_TEXT && ty != TRAWL_VALUE_NONE)
			continue;
		size_t kl;
		const char *k = trawl_event_field_name(ev, i, &kl);
		const char *sep = any ? "," : ",\"display_only\":[";
		any = 1;
		bad = tw_buf_append(m, b, sep, strlen(sep)) ||
		      put_quoted(m, b, k, kl);
	}
	if (any && !bad)
		bad = tw_buf_append(m, b, "]", 1);
	if (bad) {
		*len = 0;
		return "";
	}
	*len = b->len;
	return b->data;
}
