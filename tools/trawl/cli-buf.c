/* SPDX-License-Identifier: MIT */
/*
 * A growable output buffer for the exports: a row or an event is built in
 * it and written with one fwrite. Writing character by character through
 * stdio (putc, fputc, fprintf per number) was over a third of an export's
 * time (perf); the escaping rules are the ones of csv_field() and
 * json_string() in cli-util.c.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static int reserve(struct cli_buf *b, size_t more)
{
	if (b->n + more <= b->cap)
		return 0;
	size_t cap = b->cap ? b->cap : 4096;
	while (cap < b->n + more)
		cap *= 2;
	char *p = realloc(b->p, cap);
	if (!p) {
		b->oom = 1;
		return -1;
	}
	b->p = p;
	b->cap = cap;
	return 0;
}

char *buf_room(struct cli_buf *b, size_t n)
{
	return reserve(b, n) ? NULL : b->p + b->n;
}

void buf_bytes(struct cli_buf *b, const char *s, size_t n)
{
	if (!n) /* s may be NULL then (an empty buffer's) */
		return;
	if (reserve(b, n))
		return;
	memcpy(b->p + b->n, s, n);
	b->n += n;
}

void buf_str(struct cli_buf *b, const char *s)
{
	buf_bytes(b, s, strlen(s));
}

void buf_char_grow(struct cli_buf *b, char c)
{
	if (reserve(b, 1))
		return;
	b->p[b->n++] = c;
}

static const char digit_pairs[] = "00010203040506070809"
				  "10111213141516171819"
				  "20212223242526272829"
				  "30313233343536373839"
				  "40414243444546474849"
				  "50515253545556575859"
				  "60616263646566676869"
				  "70717273747576777879"
				  "80818283848586878889"
				  "90919293949596979899";

/* Four digits a division, then two: the exports write several numbers an
 * event, and this was a tenth of the CSV export's instructions. Writes
 * the digits of v ending at end; returns the first. */
char *cli_digits(uint64_t v, char *end)
{
	char *p = end;
	while (v >= 10000) {
		uint64_t q = v / 10000;
		uint32_t r = (uint32_t)(v - q * 10000);
		v = q;
		p -= 4;
		memcpy(p, digit_pairs + 2 * (r / 100), 2);
		memcpy(p + 2, digit_pairs + 2 * (r % 100), 2);
	}
	uint32_t w = (uint32_t)v;
	if (w >= 100) {
		p -= 2;
		memcpy(p, digit_pairs + 2 * (w % 100), 2);
		w /= 100;
	}
	if (w >= 10) {
		p -= 2;
		memcpy(p, digit_pairs + 2 * w, 2);
	} else {
		*--p = (char)('0' + w);
	}
	return p;
}

/* How many decimal digits v has: from its bit length (log10 2 is about
 * 1233 / 4096), corrected by one comparison. */
static inline int ndigits(uint64_t v)
{
	static const uint64_t pow10[20] = {1ull,
					   10ull,
					   100ull,
					   1000ull,
					   10000ull,
					   100000ull,
					   1000000ull,
					   10000000ull,
					   100000000ull,
					   1000000000ull,
					   10000000000ull,
					   100000000000ull,
					   1000000000000ull,
					   10000000000000ull,
					   100000000000000ull,
					   1000000000000000ull,
					   10000000000000000ull,
					   100000000000000000ull,
					   1000000000000000000ull,
					   10000000000000000000ull};
	if (v < 10)
		return 1;
	int t = ((64 - __builtin_clzll(v)) * 1233) >> 12;
	return t + (v >= pow10[t]);
}

char *put_u64(char *o, uint64_t v)
{
	char *end = o + ndigits(v);
	cli_digits(v, end);
	return end;
}

char *put_i64(char *o, int64_t v)
{
	if (v < 0) {
		*o++ = '-';
		return put_u64(o, (uint64_t)0 - (uint64_t)v);
	}
	return put_u64(o, (uint64_t)v);
}

char *put_u64_near(struct cli_near *c, char *o, uint64_t v)
{
	uint64_t hi = v / 1000000;
	if (!hi)
		return put_u64(o, v);
	if (!c->len || c->hi != hi) {
		c->hi = hi;
		c->len = (uint32_t)(put_u64(c->text, hi) - c->text);
	}
	/* a fixed-size copy, no call: the room asked for a number covers it */
	memcpy(o, c->text, 16);
	o += c->len;
	uint32_t lo = (uint32_t)(v - hi * 1000000);
	memcpy(o, digit_pairs + 2 * (lo / 10000), 2);
	lo %= 10000;
	memcpy(o + 2, digit_pairs + 2 * (lo / 100), 2);
	memcpy(o + 4, digit_pairs + 2 * (lo % 100), 2);
	return o + 6;
}

char *put_i64_near(struct cli_near *c, char *o, int64_t v)
{
	if (v < 0)
		return put_i64(o, v);
	return put_u64_near(c, o, (uint64_t)v);
}

char *put_us_near(struct cli_near *c, char *o, int64_t ns)
{
	if (ns < 0)
		return put_us(o, ns);
	uint64_t u = (uint64_t)ns;
	o = put_u64_near(c, o, u / 1000);
	unsigned f = (unsigned)(u % 1000);
	o[0] = '.';
	o[1] = (char)('0' + f / 100);
	memcpy(o + 2, digit_pairs + 2 * (f % 100), 2);
	return o + 4;
}

char *put_int_width(char *o, int64_t v, int width, char pad)
{
	uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
	int digits = ndigits(u) + (v < 0);
	if (width > 40)
		width = 40;
	int fill = width > digits ? width - digits : 0;
	if (pad != '0')
		for (; fill > 0; fill--)
			*o++ = ' ';
	if (v < 0)
		*o++ = '-';
	for (; fill > 0; fill--)
		*o++ = '0';
	return put_u64(o, u);
}

char *put_time(char *o, int64_t ns)
{
	uint64_t u = (uint64_t)ns;
	if (ns < 0) {
		u = (uint64_t)0 - u;
		*o++ = '-';
	}
	/* the seconds, then nine digits of ns after the point */
	o = put_u64(o, u / 1000000000);
	*o++ = '.';
	uint64_t frac = u % 1000000000;
	cli_digits(frac, o + 9);
	for (int i = 0, z = 9 - ndigits(frac); i < z; i++)
		o[i] = '0';
	return o + 9;
}

void buf_u64(struct cli_buf *b, uint64_t v)
{
	char *o = buf_room(b, 20);
	if (o)
		buf_commit(b, put_u64(o, v));
}

void buf_i64(struct cli_buf *b, int64_t v)
{
	char *o = buf_room(b, 21);
	if (o)
		buf_commit(b, put_i64(o, v));
}

void buf_int_width(struct cli_buf *b, int64_t v, int width, char pad)
{
	char *o = buf_room(b, 64);
	if (o)
		buf_commit(b, put_int_width(o, v, width, pad));
}

void buf_time(struct cli_buf *b, int64_t ns)
{
	char *o = buf_room(b, 32);
	if (o)
		buf_commit(b, put_time(o, ns));
}

char *put_hex(char *o, uint64_t v)
{
	int digits = 1;
	for (uint64_t r = v >> 4; r; r >>= 4)
		digits++;
	*o++ = '0';
	*o++ = 'x';
	for (int i = digits - 1; i >= 0; i--, v >>= 4)
		o[i] = "0123456789abcdef"[v & 15];
	return o + digits;
}

void buf_hex(struct cli_buf *b, uint64_t v)
{
	char *o = buf_room(b, 18);
	if (o)
		buf_commit(b, put_hex(o, v));
}

/* printf's "%*d" (pad ' ') and "%0*d" (pad '0') of v. */

/* print_time(): seconds and nine decimals. */

char *put_us(char *o, int64_t ns)
{
	uint64_t u = (uint64_t)ns;
	if (ns < 0) {
		*o++ = '-';
		u = (uint64_t)0 - u;
	}
	o = put_u64(o, u / 1000);
	unsigned f = (unsigned)(u % 1000);
	o[0] = '.';
	o[1] = (char)('0' + f / 100);
	o[2] = (char)('0' + f / 10 % 10);
	o[3] = (char)('0' + f % 10);
	return o + 4;
}

void buf_us(struct cli_buf *b, int64_t ns)
{
	char *o = buf_room(b, 32);
	if (o)
		buf_commit(b, put_us(o, ns));
}

/* What makes a CSV field need quotes (and NUL, written as a space). */
static const unsigned char csv_special[256] = {
	[0] = 1, ['\n'] = 1, ['\r'] = 1, [' '] = 1, ['"'] = 1, [','] = 1,
};

void buf_csv(struct cli_buf *b, const char *s, size_t n)
{
	size_t i = 0;
	while (i < n && !csv_special[(unsigned char)s[i]])
		i++;
	if (i == n) {
		buf_bytes(b, s, n);
		return;
	}
	if (reserve(b, 2 * n + 2))
		return;
	char *o = b->p + b->n;
	*o++ = '"';
	for (i = 0; i < n; i++) {
		if (s[i] == '"')
			*o++ = '"';
		*o++ = s[i] ? s[i] : ' ';
	}
	*o++ = '"';
	b->n = (size_t)(o - b->p);
}

/* A byte JSON takes as it is (printable ASCII but '"' and '\\'). */
static inline int json_plain(unsigned char c)
{
	return c >= 0x20 && c < 0x7f && c != '"' && c != '\\';
}

char *put_json(char *o, const char *s, size_t n)
{
	return trawl_json_quote(o, s, n);
}

void buf_json(struct cli_buf *b, const char *s, size_t n)
{
	/* short and plain (names, comms, most values): as it is */
	if (n <= 32) {
		size_t i = 0;
		while (i < n && json_plain((unsigned char)s[i]))
			i++;
		if (i == n) {
			char *o = buf_room(b, n + 2);
			if (!o)
				return;
			*o++ = '"';
			memcpy(o, s, n);
			o[n] = '"';
			buf_commit(b, o + n + 1);
			return;
		}
	}
	/* worst case: every byte as \u00XX or \ufffd */
	char *o = buf_room(b, 6 * n + 2);
	if (o)
		buf_commit(b, put_json(o, s, n));
}

void buf_value(struct cli_buf *b, const trawl_event *ev, size_t i)
{
	trawl_value v;
	const int64_t *el;
	size_t ne;
	if (trawl_event_field_get(ev, i, &v))
		return;
	switch (v.type) {
	case TRAWL_VALUE_INT:
		if (v.flags & TRAWL_VALUE_POINTER)
			buf_hex(b, (uint64_t)v.i);
		else if (v.flags & TRAWL_VALUE_UNSIGNED)
			buf_u64(b, (uint64_t)v.i);
		else
			buf_i64(b, v.i);
		return;
	case TRAWL_VALUE_ARRAY:
		ne = trawl_event_field_array(ev, i, &el);
		buf_char(b, '{');
		for (size_t j = 0; j < ne; j++) {
			if (j)
				buf_char(b, ',');
			if (v.flags & TRAWL_VALUE_UNSIGNED)
				buf_u64(b, (uint64_t)el[j]);
			else
				buf_i64(b, el[j]);
		}
		buf_char(b, '}');
		return;
	case TRAWL_VALUE_STR:
	case TRAWL_VALUE_TEXT:
		buf_bytes(b, v.s, v.len);
		return;
	}
}

void buf_json_fields(struct cli_buf *b, const trawl_event *ev)
{
	size_t len;
	const char *j = trawl_event_fields_json(ev, &len);
	buf_bytes(b, j, len);
}

int buf_write(struct cli_buf *b, FILE *f)
{
	size_t n = b->n;
	b->n = 0;
	if (b->oom)
		return -1;
	return n && fwrite(b->p, 1, n, f) != n ? -1 : 0;
}

void buf_free(struct cli_buf *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}
