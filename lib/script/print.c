/* SPDX-License-Identifier: MIT */
/*
 * Script output: printf, maps printed the way bpftrace prints them
 * (@name[key]: value, sorted by value; histograms as ASCII bars), and the
 * --json object. Output collects in a buffer handed to opts.write at 64 KiB
 * and at the end. In JSON mode the text of printf and print() is the
 * "output" string, escaped as it is written, so the object streams and
 * memory stays bounded.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "script-int.h"

#define FLUSH_AT (64u << 10)

void tw_out_flush(trawl_script *s)
{
	if (s->out.len && s->opts.write)
		s->opts.write(s->opts.write_ctx, s->out.data, s->out.len);
	s->out.len = 0;
}

static void raw(trawl_script *s, const char *p, size_t n)
{
	if (tw_buf_append(s->mem, &s->out, p, n))
		s->oom = 1;
	if (s->out.len >= FLUSH_AT)
		tw_out_flush(s);
}

static void rawz(trawl_script *s, const char *p)
{
	raw(s, p, strlen(p));
}

/* The length of the valid UTF-8 sequence at p, or 0. */
static size_t utf8_len(const unsigned char *p, size_t n)
{
	size_t len = p[0] >= 0xf0 ? 4 : p[0] >= 0xe0 ? 3 : p[0] >= 0xc2 ? 2 : 0;
	if (p[0] > 0xf4 || len == 0 || len > n)
		return 0;
	for (size_t i = 1; i < len; i++)
		if ((p[i] & 0xc0) != 0x80)
			return 0;
	if ((p[0] == 0xe0 && p[1] < 0xa0) || (p[0] == 0xf0 && p[1] < 0x90) ||
	    (p[0] == 0xf4 && p[1] > 0x8f) || (p[0] == 0xed && p[1] > 0x9f))
		return 0;
	return len;
}

/* A JSON string's content: quotes, backslashes, control bytes and invalid
 * UTF-8 escaped. */
static void json_text(trawl_script *s, const char *p, size_t n)
{
	const unsigned char *u = (const unsigned char *)p;
	size_t run = 0;
	for (size_t i = 0; i < n; i++) {
		unsigned char ch = u[i];
		char esc[8];
		const char *e = NULL;
		size_t skip = 1;
		if (ch == '"')
			e = "\\\"";
		else if (ch == '\\')
			e = "\\\\";
		else if (ch == '\n')
			e = "\\n";
		else if (ch == '\t')
			e = "\\t";
		else if (ch < 0x20 || ch == 0x7f) {
			snprintf(esc, sizeof(esc), "\\u%04x", ch);
			e = esc;
		} else if (ch >= 0x80) {
			size_t l = utf8_len(u + i, n - i);
			if (l) {
				i += l - 1;
				continue;
			}
			e = "\\ufffd";
		}
		if (!e)
			continue;
		raw(s, p + run, i - run);
		rawz(s, e);
		run = i + skip;
	}
	raw(s, p + run, n - run);
}

void tw_out(trawl_script *s, const char *p, size_t n)
{
	if (s->capture) {
		if (tw_buf_append(s->mem, s->capture, p, n))
			s->oom = 1;
		return;
	}
	if (s->opts.flags & TRAWL_SCRIPT_JSON) {
		if (!s->json_open) {
			rawz(s, "{\"output\":\"");
			s->json_open = 1;
		}
		json_text(s, p, n);
	} else {
		raw(s, p, n);
	}
}

static void outz(trawl_script *s, const char *p)
{
	tw_out(s, p, strlen(p));
}

static void outf(trawl_script *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void outf(trawl_script *s, const char *fmt, ...)
{
	char buf[256];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n > 0)
		tw_out(s, buf,
		       (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1);
}

/* %r: a string with the bytes that do not print as \xNN */
static void out_escaped(trawl_script *s, const char *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)p[i];
		if (ch >= 0x20 && ch < 0x7f && ch != '\\') {
			tw_out(s, p + i, 1);
		} else {
			char e[8];
			snprintf(e, sizeof(e), "\\x%02x", ch);
			tw_out(s, e, 4);
		}
	}
}

/* A kstack as bpftrace prints one: a newline, then a line a frame,
 * indented (4 spaces in a map's key, 8 elsewhere); perf's mode a tab and
 * the address before each. */
static void print_stack(trawl_script *s, int64_t id, int type, int in_key)
{
	size_t n;
	const uint64_t *f = tw_stack_frames(&s->stacks, id, &n);
	outz(s, "\n");
	for (size_t i = 0; i < n; i++) {
		char name[300];
		tw_stack_frame_name(&s->stacks, f[i], name, sizeof(name));
		if (tw_stack_perf(type))
			outf(s, "\t%llx %s\n", (unsigned long long)f[i], name);
		else
			outf(s, "%s%s\n", in_key ? "    " : "        ", name);
	}
}

void tw_printf(trawl_script *s, const tw_fmt *f, const tw_sval *args)
{
	char *buf = s->fmt_buf;
	size_t a = 0;
	for (size_t k = 0; k < f->nconvs; k++) {
		const tw_fmt_conv *c = &f->convs[k];
		if (c->lit_len)
			tw_out(s, f->text + c->lit_off, c->lit_len);
		if (c->type == TY_VOID)
			continue;
		int w = 0;
		if (c->star) {
			int64_t x = args[a++].i;
			w = x > TW_SC_FMT_WIDTH_MAX    ? TW_SC_FMT_WIDTH_MAX
			    : x < -TW_SC_FMT_WIDTH_MAX ? -TW_SC_FMT_WIDTH_MAX
						       : (int)x;
		}
		const tw_sval *v = &args[a++];
		int n;
		if (c->stack) {
			print_stack(s, v->i, c->stack, 0);
			continue;
		}
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
		if (c->type == TY_STR) {
			size_t len = (size_t)v->i;
			if (c->prec >= 0 && (size_t)c->prec < len)
				len = (size_t)c->prec;
			if (c->conv == 'r') {
				out_escaped(s, v->s, len);
				continue;
			}
			if (len > TW_SC_FMT_WIDTH_MAX) {
				/* long strings go out as they are, unpadded */
				tw_out(s, v->s, len);
				continue;
			}
			n = c->star ? snprintf(buf, sizeof(s->fmt_buf), c->spec,
					       w, (int)len, v->s)
				    : snprintf(buf, sizeof(s->fmt_buf), c->spec,
					       (int)len, v->s);
		} else if (c->conv == 'p' && v->i == 0) {
			int width = c->star ? w : c->width;
			n = snprintf(buf, sizeof(s->fmt_buf), "%*s",
				     c->left ? -abs(width) : width, "(nil)");
		} else if (c->conv == 'c') {
			n = c->star ? snprintf(buf, sizeof(s->fmt_buf), c->spec,
					       w, (int)v->i)
				    : snprintf(buf, sizeof(s->fmt_buf), c->spec,
					       (int)v->i);
		} else {
			long long x = (long long)v->i;
			if (c->u32 && x < 0 && x >= INT32_MIN)
				x = (long long)(uint32_t)x;
			n = c->star ? snprintf(buf, sizeof(s->fmt_buf), c->spec,
					       w, x)
				    : snprintf(buf, sizeof(s->fmt_buf), c->spec,
					       x);
		}
#pragma GCC diagnostic pop
		if (n > 0)
			tw_out(s, buf,
			       (size_t)n < sizeof(s->fmt_buf)
				       ? (size_t)n
				       : sizeof(s->fmt_buf) - 1);
	}
}

static void print_key(trawl_script *s, const tw_smap *m, const tw_mentry *e)
{
	const tw_map_decl *d = m->decl;
	outf(s, "@%s", d->name);
	if (!d->nkeys)
		return;
	tw_sval k[TW_SC_MAX_KEYS];
	tw_smap_unkey(m, e, k);
	outz(s, "[");
	for (int i = 0; i < d->nkeys; i++) {
		if (i)
			outz(s, ", ");
		if (d->key_types[i] == TY_STR)
			tw_out(s, k[i].s, (size_t)k[i].i);
		else if (tw_is_stack(d->key_types[i]))
			print_stack(s, k[i].i, d->key_types[i], 1);
		else
			outf(s, "%" PRId64, k[i].i);
	}
	outz(s, "]");
}

/* bpftrace's power-of-two labels: 1K is 1024. */
static void pow_label(char *buf, size_t n, int power)
{
	const char *suffix = "";
	if (power >= 60)
		suffix = "E", power -= 60;
	else if (power >= 50)
		suffix = "P", power -= 50;
	else if (power >= 40)
		suffix = "T", power -= 40;
	else if (power >= 30)
		suffix = "G", power -= 30;
	else if (power >= 20)
		suffix = "M", power -= 20;
	else if (power >= 10)
		suffix = "K", power -= 10;
	snprintf(buf, n, "%llu%s", 1ull << power, suffix);
}

/* Bucket i of a histogram: its label and inclusive bounds (has_lo/has_hi
 * 0 for an open end). */
static void bucket(const tw_map_decl *d, int i, char *label, size_t n,
		   int64_t *lo, int64_t *hi, int *has_lo, int *has_hi)
{
	*has_lo = *has_hi = 1;
	if (d->kind == MV_HIST) {
		if (i == 0) {
			snprintf(label, n, "(..., 0)");
			*has_lo = 0;
			*hi = -1;
		} else if (i == 1) {
			snprintf(label, n, "[0]");
			*lo = *hi = 0;
		} else if (i == 2) {
			snprintf(label, n, "[1]");
			*lo = *hi = 1;
		} else {
			char a[24], b[24];
			pow_label(a, sizeof(a), i - 2);
			if (i - 1 < 63)
				pow_label(b, sizeof(b), i - 1);
			else
				snprintf(b, sizeof(b), "...");
			snprintf(label, n, "[%s, %s)", a, b);
			*lo = (int64_t)(1ull << (i - 2));
			*hi = i - 1 < 63 ? (int64_t)((1ull << (i - 1)) - 1)
					 : INT64_MAX;
		}
		return;
	}
	int64_t nb = tw_lhist_nb(d);
	if (i == 0) {
		snprintf(label, n, "(..., %" PRId64 ")", d->lh_min);
		*has_lo = 0;
		*hi = d->lh_min - 1;
	} else if (i == nb + 1) {
		snprintf(label, n, "[%" PRId64 ", ...)", d->lh_max);
		*lo = d->lh_max;
		*has_hi = 0;
	} else {
		__int128 a128 =
			(__int128)d->lh_min + (__int128)(i - 1) * d->lh_step;
		__int128 b128 = a128 + d->lh_step;
		int64_t a = (int64_t)a128;
		int64_t b = b128 > d->lh_max ? d->lh_max : (int64_t)b128;
		snprintf(label, n, "[%" PRId64 ", %" PRId64 ")", a, b);
		*lo = a;
		*hi = b - 1;
	}
}

static int nbuckets(const tw_map_decl *d)
{
	if (d->kind == MV_HIST)
		return TW_SC_HIST_BUCKETS;
	return (int)tw_lhist_nb(d) + 2;
}

/* The range of buckets with counts: [*first, *last]; 0 when none. */
static int used_range(const tw_map_decl *d, const tw_mentry *e, int *first,
		      int *last)
{
	int nb = nbuckets(d);
	*first = -1;
	for (int i = 0; i < nb; i++) {
		if (e->v[i]) {
			if (*first < 0)
				*first = i;
			*last = i;
		}
	}
	return *first >= 0;
}

static void print_hist(trawl_script *s, const tw_smap *m, const tw_mentry *e)
{
	const tw_map_decl *d = m->decl;
	int first, last;
	if (!used_range(d, e, &first, &last))
		return;
	int64_t max = 0;
	for (int i = first; i <= last; i++)
		if (e->v[i] > max)
			max = e->v[i];
	for (int i = first; i <= last; i++) {
		char label[64], bar[53];
		int64_t lo, hi;
		int hl, hh;
		bucket(d, i, label, sizeof(label), &lo, &hi, &hl, &hh);
		int w = max ? (int)((e->v[i] * 52) / max) : 0;
		memset(bar, '@', (size_t)w);
		memset(bar + w, ' ', (size_t)(52 - w));
		bar[52] = '\0';
		/* bpftrace: setw(16) left, then setw(8) right: no space */
		outf(s, "%-16s%8" PRId64 " |%s|\n", label, e->v[i], bar);
	}
}

static void print_value(trawl_script *s, const tw_smap *m, const tw_mentry *e)
{
	switch (m->decl->kind) {
	case MV_STR:
		tw_out(s, (const char *)(e->v + 1), (size_t)e->v[0]);
		break;
	case MV_STATS:
		outf(s,
		     "count %" PRId64 ", average %" PRId64 ", total %" PRId64,
		     e->v[0], tw_mentry_int(m, e), e->v[1]);
		break;
	case MV_INT:
		if (tw_is_stack(m->decl->vtype)) {
			print_stack(s, e->v[0], m->decl->vtype, 0);
			break;
		}
		outf(s, "%" PRId64, tw_mentry_int(m, e));
		break;
	default:
		outf(s, "%" PRId64, tw_mentry_int(m, e));
	}
}

void tw_print_map(trawl_script *s, size_t map, int64_t top)
{
	const tw_smap *m = &s->smaps[map];
	size_t n;
	tw_mentry **es = tw_smap_sorted(m, &n);
	if (!es) {
		if (m->n)
			s->oom = 1;
		return;
	}
	size_t from = top >= 0 && (uint64_t)top < n ? n - (size_t)top : 0;
	int kind = m->decl->kind;
	int hist = kind == MV_HIST || kind == MV_LHIST;
	/*
	 * As bpftrace 0.17 (src/output.cpp, TextOutput): entries joined by a
	 * newline and one more at the end, so a histogram (whose lines end
	 * in one) is followed by a blank line, as avg() and stats() maps
	 * are (map_stats ends in two); counts, sums and plain values are
	 * not. A histogram's key is followed by ": " and a newline.
	 */
	for (size_t i = from; i < n; i++) {
		print_key(s, m, es[i]);
		if (hist) {
			outz(s, ": \n");
			print_hist(s, m, es[i]);
			if (i + 1 < n)
				outz(s, "\n");
		} else {
			outz(s, ": ");
			print_value(s, m, es[i]);
			outz(s, "\n");
		}
	}
	if (hist || kind == MV_AVG || kind == MV_STATS)
		outz(s, "\n");
	tw_free(s->mem, es);
}

static void json_str(trawl_script *s, const char *p, size_t n)
{
	rawz(s, "\"");
	json_text(s, p, n);
	rawz(s, "\"");
}

static void rawf(trawl_script *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void rawf(trawl_script *s, const char *fmt, ...)
{
	char buf[256];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n > 0)
		raw(s, buf,
		    (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1);
}

/* A kstack in JSON: its frames, innermost first ("name+off"). */
static void json_stack(trawl_script *s, int64_t id)
{
	size_t n;
	const uint64_t *f = tw_stack_frames(&s->stacks, id, &n);
	rawz(s, "[");
	for (size_t i = 0; i < n; i++) {
		char name[300];
		tw_stack_frame_name(&s->stacks, f[i], name, sizeof(name));
		if (i)
			rawz(s, ",");
		json_str(s, name, strlen(name));
	}
	rawz(s, "]");
}

static void json_key(trawl_script *s, const tw_smap *m, const tw_mentry *e)
{
	const tw_map_decl *d = m->decl;
	tw_sval k[TW_SC_MAX_KEYS];
	if (!d->nkeys) {
		rawz(s, "null");
		return;
	}
	tw_smap_unkey(m, e, k);
	if (d->nkeys > 1)
		rawz(s, "[");
	for (int i = 0; i < d->nkeys; i++) {
		if (i)
			rawz(s, ",");
		if (d->key_types[i] == TY_STR)
			json_str(s, k[i].s, (size_t)k[i].i);
		else if (tw_is_stack(d->key_types[i]))
			json_stack(s, k[i].i);
		else
			rawf(s, "%" PRId64, k[i].i);
	}
	if (d->nkeys > 1)
		rawz(s, "]");
}

static void json_value(trawl_script *s, const tw_smap *m, const tw_mentry *e)
{
	const tw_map_decl *d = m->decl;
	switch (d->kind) {
	case MV_STR:
		json_str(s, (const char *)(e->v + 1), (size_t)e->v[0]);
		return;
	case MV_AVG:
		rawf(s,
		     "{\"count\":%" PRId64 ",\"sum\":%" PRId64
		     ",\"avg\":%" PRId64 "}",
		     e->v[0], e->v[1], tw_mentry_int(m, e));
		return;
	case MV_STATS:
		rawf(s,
		     "{\"count\":%" PRId64 ",\"sum\":%" PRId64
		     ",\"avg\":%" PRId64 ",\"min\":%" PRId64 ",\"max\":%" PRId64
		     "}",
		     e->v[0], e->v[1], tw_mentry_int(m, e), e->v[2], e->v[3]);
		return;
	case MV_HIST:
	case MV_LHIST: {
		int first, last, any = 0;
		rawz(s, "[");
		if (used_range(d, e, &first, &last)) {
			for (int i = first; i <= last; i++) {
				char label[64];
				int64_t lo = 0, hi = 0;
				int hl, hh;
				bucket(d, i, label, sizeof(label), &lo, &hi,
				       &hl, &hh);
				rawz(s, any ? ",{" : "{");
				any = 1;
				if (hl)
					rawf(s, "\"min\":%" PRId64 ",", lo);
				if (hh)
					rawf(s, "\"max\":%" PRId64 ",", hi);
				rawf(s, "\"count\":%" PRId64 "}", e->v[i]);
			}
		}
		rawz(s, "]");
		return;
	}
	case MV_INT:
		if (tw_is_stack(d->vtype)) {
			json_stack(s, e->v[0]);
			return;
		}
		rawf(s, "%" PRId64, tw_mentry_int(m, e));
		return;
	default:
		rawf(s, "%" PRId64, tw_mentry_int(m, e));
	}
}

void tw_print_json_maps(trawl_script *s)
{
	if (!s->json_open) {
		rawz(s, "{\"output\":\"");
		s->json_open = 1;
	}
	rawz(s, "\"");
	for (size_t i = 0; i < s->nmaps; i++) {
		const tw_smap *m = &s->smaps[i];
		rawz(s, ",\n");
		char name[80];
		snprintf(name, sizeof(name), "@%s", m->decl->name);
		json_str(s, name, strlen(name));
		rawz(s, ":[");
		size_t n;
		tw_mentry **es = tw_smap_sorted(m, &n);
		if (!es && m->n)
			s->oom = 1;
		for (size_t j = 0; j < n; j++) {
			rawz(s, j ? ",{\"key\":" : "{\"key\":");
			json_key(s, m, es[j]);
			rawz(s, ",\"value\":");
			json_value(s, m, es[j]);
			rawz(s, "}");
		}
		rawz(s, "]");
		tw_free(s->mem, es);
	}
	if (s->nfaults) {
		rawz(s, ",\n\"faults\":[");
		for (size_t i = 0; i < s->nfaults; i++) {
			rawz(s, i ? ",{\"message\":" : "{\"message\":");
			json_str(s, s->faults[i].msg, strlen(s->faults[i].msg));
			rawf(s, ",\"count\":%" PRIu64 "}", s->faults[i].count);
		}
		rawz(s, "]");
	}
	const trawl_stats *st = trawl_trace_stats(s->t);
	if (trawl_format(s->t) == TRAWL_FORMAT_LIVE && st) {
		/* the kernel's count (as trawl record --json's), or the
		 * pages' when the run stopped before the end */
		uint64_t lost = st->overwritten > st->lost_events
					? st->overwritten
					: st->lost_events;
		rawf(s,
		     ",\n\"events\":%" PRIu64 ",\"lost_events\":%" PRIu64
		     ",\"late_events\":%" PRIu64,
		     st->events, lost, st->late_events);
	}
	rawz(s, "}\n");
}

void tw_print_time(trawl_script *s, const char *fmt)
{
	tw_print_time_at(s, fmt, (int64_t)time(NULL) * 1000000000);
}

void tw_print_time_at(trawl_script *s, const char *fmt, int64_t wall_ns)
{
	char buf[1024];
	time_t at = (time_t)(wall_ns / 1000000000);
	struct tm tm;
	if (!localtime_r(&at, &tm))
		return;
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
	size_t n = strftime(buf, sizeof(buf), fmt, &tm);
#pragma GCC diagnostic pop
	tw_out(s, buf, n);
}
