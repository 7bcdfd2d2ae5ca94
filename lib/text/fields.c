/* SPDX-License-Identifier: MIT */
/*
 * Decoding a text payload into named fields, on first request.
 *
 * Most events print "key=value key=value"; values run to the next " key="
 * (so comms with spaces survive), "[key=value]" is a field too (softirq's
 * "[action=RCU]") and the "==>" of sched_switch is a separator. A few
 * events print free text; for them, and for the plugin forms `trace-cmd
 * report` uses, a small pattern table names the fields. The print event
 * gets "ip" and "buf", plus the systrace marker fields when buf is one.
 */
#include <string.h>

#include "text-int.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* Patterns: literal text and {name} or {name:d} (a decimal integer). */
struct pattern {
	const char *event;
	const char *pat;
};

static const struct pattern patterns[] = {
	/* trace-cmd's sched plugin */
	{"sched_switch", "{prev_comm}:{prev_pid:d} [{prev_prio:d}] "
			 "{prev_state} ==> {next_comm}:{next_pid:d} "
			 "[{next_prio:d}]"},
	{"sched_wakeup", "{comm}:{pid:d} [{prio:d}] CPU:{target_cpu:d}"},
	{"sched_wakeup", "{comm}:{pid:d} [{prio:d}] success={success:d} "
			 "CPU:{target_cpu:d}"},
	{"sched_wakeup_new", "{comm}:{pid:d} [{prio:d}] CPU:{target_cpu:d}"},
	{"sched_wakeup_new", "{comm}:{pid:d} [{prio:d}] success={success:d} "
			     "CPU:{target_cpu:d}"},
	/* workqueue events print free text */
	{"workqueue_queue_work", "work struct={work} function={function} "
				 "workqueue={workqueue} req_cpu={req_cpu:d} "
				 "cpu={cpu:d}"},
	{"workqueue_activate_work", "work struct {work} function={function}"},
	{"workqueue_activate_work", "work struct {work}"},
	{"workqueue_execute_start", "work struct {work}: function {function}"},
	{"workqueue_execute_end", "work struct {work}: function {function}"},
	{"workqueue_execute_end", "work struct {work}"},
	/* trace_printk and the function tracer */
	{"bprint", "{ip}: {buf}"},
	{"bputs", "{ip}: {str}"},
	{"function", "{ip} <-{parent_ip}"},
};

#define MATCH_BUDGET	4096 /* steps of backtracking per payload */
#define PATTERN_MAX_LEN 4096 /* longer payloads skip the patterns */

struct matcher {
	trawl_event *ev;
	int steps;
};

/* A decimal integer, possibly negative (workqueue's "cpu=-1"). */
static int digits_only(const char *s, size_t n)
{
	if (n > 0 && s[0] == '-') {
		s++;
		n--;
	}
	if (n == 0)
		return 0;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)(s[i] - '0') > 9)
			return 0;
	return 1;
}

/* Match pattern p against s[0..n); on success fields are appended. */
static int match(struct matcher *m, const char *p, const char *s, size_t n)
{
	if (++m->steps > MATCH_BUDGET)
		return 0;
	if (*p != '{') {
		size_t lit = strcspn(p, "{");
		if (n < lit || memcmp(p, s, lit) != 0)
			return 0;
		if (p[lit] == '\0')
			return n == lit;
		return match(m, p + lit, s + lit, n - lit);
	}
	const char *close = strchr(p, '}');
	const char *colon = memchr(p, ':', (size_t)(close - p));
	const char *key = p + 1;
	size_t klen = (size_t)((colon ? colon : close) - key);
	int numeric = colon != NULL;
	const char *rest = close + 1;
	size_t lit = strcspn(rest, "{");
	int nf = m->ev->nfields;
	if (nf >= TW_MAX_FIELDS)
		return 0;
	if (lit == 0) {
		/* a field at the end takes the rest */
		if (n == 0 || (numeric && !digits_only(s, n)))
			return 0;
		m->ev->fields[nf] =
			(tw_kv){key, s, (uint32_t)klen, (uint32_t)n};
		m->ev->nfields++;
		return 1;
	}
	/* Try each place the following literal occurs, leftmost first. */
	for (size_t at = 1; at + lit <= n; at++) {
		const char *hit = memchr(s + at, rest[0], n - at);
		if (!hit)
			break;
		at = (size_t)(hit - s);
		if (at + lit > n)
			break;
		if (memcmp(hit, rest, lit) != 0)
			continue;
		if (numeric && !digits_only(s, at))
			break; /* digits stop before any later hit too */
		m->ev->fields[nf] =
			(tw_kv){key, s, (uint32_t)klen, (uint32_t)at};
		m->ev->nfields = nf + 1;
		if (match(m, rest, s + at, n - at))
			return 1;
		m->ev->nfields = nf;
		if (m->steps > MATCH_BUDGET)
			return 0;
	}
	return 0;
}

/* Whether s[0..n) has a '=' before its first ' ' (or end). */
static int starts_with_key(const char *s, size_t n)
{
#if defined(__SSE2__)
	if (n >= 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)s);
		unsigned eq = (unsigned)_mm_movemask_epi8(
			_mm_cmpeq_epi8(v, _mm_set1_epi8('=')));
		unsigned sp = (unsigned)_mm_movemask_epi8(
			_mm_cmpeq_epi8(v, _mm_set1_epi8(' ')));
		unsigned any = eq | sp;
		if (any)
			return (eq & any & (0u - any)) != 0; /* first is '=' */
	}
#endif
	const char *sp = memchr(s, ' ', n);
	return memchr(s, '=', sp ? (size_t)(sp - s) : n) != NULL;
}

static const struct pattern no_patterns;

/* The first pattern of the type's event, found once per type. */
static const struct pattern *first_pattern(tw_type *ty)
{
	if (!ty->patterns) {
		ty->patterns = &no_patterns;
		for (size_t i = 0; i < TW_ARRAY_SIZE(patterns); i++) {
			if (strcmp(patterns[i].event, ty->name) == 0) {
				ty->patterns = &patterns[i];
				break;
			}
		}
	}
	return ty->patterns == &no_patterns ? NULL : ty->patterns;
}

static int try_patterns(trawl_event *ev, const char *s, size_t n)
{
	const struct pattern *p = first_pattern(ev->type);
	if (!p || n > PATTERN_MAX_LEN)
		return 0;
	/* A payload that starts "key=" is the kernel's own form: none of
	 * the patterns (plugin forms, free text) begins that way. */
	if (starts_with_key(s, n))
		return 0;
	const char *name = ev->type->name;
	struct matcher m = {ev, 0};
	const struct pattern *end = patterns + TW_ARRAY_SIZE(patterns);
	for (; p < end && strcmp(p->event, name) == 0; p++) {
		size_t i = (size_t)(p - patterns);
		ev->nfields = 0;
		m.steps = 0;
		if (match(&m, patterns[i].pat, s, n))
			return 1;
	}
	ev->nfields = 0;
	return 0;
}

/* Characters of field names: [A-Za-z0-9_.] */
static const uint8_t ident[256] = {
	['a' ... 'z'] = 1, ['A' ... 'Z'] = 1, ['0' ... '9'] = 1,
	['_'] = 1,	   ['.'] = 1,
};

#if defined(__SSE2__)
/* Bit k set when s[k] is a character of field names, k < 16. */
static inline unsigned ident_mask16(const char *s)
{
	__m128i v = _mm_loadu_si128((const __m128i *)s);
	__m128i a = _mm_sub_epi8(_mm_or_si128(v, _mm_set1_epi8(0x20)),
				 _mm_set1_epi8('a'));
	__m128i d = _mm_sub_epi8(v, _mm_set1_epi8('0'));
	__m128i alpha = _mm_cmpeq_epi8(_mm_min_epu8(a, _mm_set1_epi8(25)), a);
	__m128i digit = _mm_cmpeq_epi8(_mm_min_epu8(d, _mm_set1_epi8(9)), d);
	__m128i punct = _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('_')),
				     _mm_cmpeq_epi8(v, _mm_set1_epi8('.')));
	return (unsigned)_mm_movemask_epi8(
		_mm_or_si128(_mm_or_si128(alpha, digit), punct));
}
#endif

/* Length of "ident=" at s (not "=="), or 0. */
static inline __attribute__((always_inline)) size_t key_at(const char *s,
							   const char *end)
{
#if defined(__SSE2__)
	/* Names are short: one 16-byte test settles most. */
	if (end - s >= 17) {
		size_t len = (size_t)__builtin_ctz(~ident_mask16(s));
		if (len < 16)
			return len && s[len] == '=' && s[len + 1] != '=' ? len
									 : 0;
	}
#endif
	const char *p = s;
	while (p < end && ident[(unsigned char)*p])
		p++;
	if (p == s || p >= end || *p != '=' || (p + 1 < end && p[1] == '='))
		return 0;
	return (size_t)(p - s);
}

/*
 * Where the value that starts at v ends: before " key=", " ==> " or
 * " [key=". The key found there is handed back (*next, *next_len) so
 * the caller does not scan it twice.
 */
static const char *value_end(const char *v, const char *end, const char **next,
			     size_t *next_len)
{
	*next = NULL;
	for (const char *p = v; p < end;) {
		/* Values are short: a plain loop beats a memchr call. */
		const char *sp = p;
#if defined(__SSE2__)
		while (end - sp >= 16) {
			unsigned m = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(
				_mm_loadu_si128((const __m128i *)sp),
				_mm_set1_epi8(' ')));
			if (m) {
				sp += __builtin_ctz(m);
				goto space;
			}
			sp += 16;
		}
#endif
		while (sp < end && *sp != ' ')
			sp++;
#if defined(__SSE2__)
	space:
#endif
		if (sp == end)
			return end;
		const char *nx = sp + 1;
		if (nx < end) {
			/* cheap first-character test before the scan */
			unsigned char c = (unsigned char)*nx;
			if (ident[c]) {
				size_t k = key_at(nx, end);
				if (k) {
					*next = nx;
					*next_len = k;
					return sp;
				}
			} else if (c == '=' && end - nx >= 3 &&
				   memcmp(nx, "==>", 3) == 0) {
				return sp;
			} else if (c == '[' && key_at(nx + 1, end)) {
				return sp;
			}
		}
		p = nx;
	}
	return end;
}

/*
 * Decode key=value fields from ev->decode_at on, until the field named
 * want[0..wlen) is added (want NULL: to the end). Resumable: the position
 * and a key already measured by the last value_end() stay in the event.
 */
static void decode_kv(trawl_event *ev, const char *want, size_t wlen)
{
	const char *p = ev->decode_at, *end = ev->payload + ev->payload_len;
	const char *known = ev->decode_key;
	size_t known_len = ev->decode_key_len;
	int nf = ev->nfields;
	int found = 0;
	while (p < end && nf < TW_MAX_FIELDS && !found) {
		while (p < end && *p == ' ')
			p++;
		if (end - p >= 3 && memcmp(p, "==>", 3) == 0) {
			p += 3;
			continue;
		}
		int bracket = p < end && *p == '[';
		const char *k = p + bracket;
		size_t klen = k == known ? known_len : key_at(k, end);
		if (!klen) {
			/* not a field: skip this word */
			const char *sp = memchr(p, ' ', (size_t)(end - p));
			p = sp ? sp : end;
			continue;
		}
		const char *v = k + klen + 1;
		const char *ve;
		if (bracket) {
			const char *rb = memchr(v, ']', (size_t)(end - v));
			ve = rb ? rb : end;
			p = rb ? rb + 1 : end;
			known = NULL;
		} else {
			ve = value_end(v, end, &known, &known_len);
			p = ve;
		}
		ev->fields[nf++] =
			(tw_kv){k, v, (uint32_t)klen, (uint32_t)(ve - v)};
		found = want && tw_eq(k, klen, want, wlen);
	}
	ev->nfields = nf;
	ev->decode_at = p;
	ev->decode_key = known;
	ev->decode_key_len = known_len;
	if (p >= end || nf >= TW_MAX_FIELDS)
		ev->decode_done = 1;
}

static void add(trawl_event *ev, const char *key, const char *v, size_t vlen)
{
	if (ev->nfields < TW_MAX_FIELDS)
		ev->fields[ev->nfields++] =
			(tw_kv){key, v, (uint32_t)strlen(key), (uint32_t)vlen};
}

/*
 * ftrace's print: "%ps: %s" of ip and buf, typed as the format says (ip a
 * function the text names by its symbol: display only, labelled), then
 * the systrace marker fields of buf.
 */
static void decode_print(trawl_event *ev)
{
	const char *ip, *buf;
	size_t ip_len, buf_len;
	tw_print_split(ev, &ip, &ip_len, &buf, &buf_len);
	if (ip)
		add(ev, "ip", ip, ip_len);
	add(ev, "buf", buf, buf_len);
	tw_marker_fields(ev, buf, buf_len);
	for (int i = 0; i < ev->nfields; i++)
		tw_typed_text(ev, i);
	if (ip) {
		ev->tv[0].type = TW_PFV_TEXT;
		ev->tv[0].label = ip;
		ev->tv[0].label_len = (uint32_t)ip_len;
		ev->tv[0].uns = 1;
	}
	ev->tv[ip ? 1 : 0].type = TW_PFV_STR;
	ev->typed = 1;
}

/*
 * The fields by the event's format: the kernel's names and typed values.
 * Return: 1 when the text matched its format; 0 to decode it generically.
 */
static int decode_format(trawl_trace *t, trawl_event *ev)
{
	const tw_pfmt *pf = tw_textfmt_of(t, ev->type);
	if (!pf)
		return 0;
	int rc = tw_pfmt_scan(pf, &t->mem, ev->payload, ev->payload_len,
			      &t->scan);
	if (rc <= 0) {
		t->stats.format_misses += rc == 0;
		return 0;
	}
	size_t n = tw_pfmt_nfields(pf);
	if (n > TW_MAX_FIELDS)
		n = TW_MAX_FIELDS;
	ev->elems_z.len = 0;
	for (size_t i = 0; i < n; i++) {
		const tw_pf_field *f = tw_pfmt_field(pf, i);
		tw_pf_value v = t->scan.vals[i];
		if (v.type == TW_PFV_ARRAY) {
			/* the elements move with the event */
			size_t at = ev->elems_z.len / sizeof(int64_t);
			if (tw_buf_append(&t->mem, &ev->elems_z,
					  t->scan.elems + v.elem0,
					  v.nelem * sizeof(int64_t)))
				v.nelem = 0;
			v.elem0 = (uint32_t)at;
		}
		if (!v.s) /* not in the text: an empty value at its end */
			v.s = ev->payload + ev->payload_len, v.slen = 0;
		ev->fields[i] = (tw_kv){f->name, v.s, f->name_len, v.slen};
		ev->tv[i] = v;
	}
	ev->nfields = (int)n;
	ev->typed = 1;
	return 1;
}

void tw_text_decode(const trawl_trace *t, trawl_event *ev, const char *key,
		    size_t klen)
{
	if (ev->nfields < 0) {
		ev->nfields = 0;
		ev->typed = 0;
		ev->decode_done = 0;
		ev->decode_at = ev->payload;
		ev->decode_key = NULL;
		ev->decode_key_len = 0;
		/* The print event and the pattern forms decode at once. */
		if (ev->type->kind == TW_KIND_PRINT) {
			decode_print(ev);
			ev->decode_done = 1;
			return;
		}
		if (decode_format((trawl_trace *)t, ev)) {
			ev->decode_done = 1;
			return;
		}
		if (try_patterns(ev, ev->payload, ev->payload_len)) {
			ev->decode_done = 1;
			return;
		}
	}
	if (!ev->decode_done)
		decode_kv(ev, key, klen);
}

/*
 * The seek op: where decode_kv() would add the first field named key,
 * found without decoding the fields before it. In the key=value form a
 * value ends at the first " name=" (a name of [A-Za-z0-9_.], '=' and not
 * "=="), a skipped word holds no space, and " ==> " only separates: so
 * every " key=" starts a field, and the first one is the field. Fields
 * can also start with no space before them: the first word, after a
 * bracketed field (whose value hides what it holds) and after a "==>"
 * glued to the next word. The first word is looked at; a '[' or a glued
 * "==>" before the hit leaves the payload to decode_kv(), as does a hit
 * past SEEK_SPAN, where 64 fields could come before it (decode_kv()
 * stops at 64).
 */
#define SEEK_SPAN 180 /* < 64 fields of 3 bytes ("k= ") */

static int sought(const char *k, size_t klen, const char *end, tw_kv *out)
{
	const char *next;
	size_t next_len;
	const char *v = k + klen + 1;
	const char *ve = value_end(v, end, &next, &next_len);
	*out = (tw_kv){k, v, (uint32_t)klen, (uint32_t)(ve - v)};
	return 1;
}

int tw_text_seek(const trawl_trace *t, const trawl_event *ev, const char *key,
		 size_t klen, tw_kv *out)
{
	(void)t;
	if (ev->type->kind == TW_KIND_PRINT || klen == 0)
		return 0;
	const char *s = ev->payload, *end = s + ev->payload_len;
	const char *from;
	if (ev->nfields < 0) {
		/* the pattern forms decode otherwise: the kernel's own
		 * form ("key=" first) only */
		if (first_pattern(ev->type) &&
		    ev->payload_len <= PATTERN_MAX_LEN &&
		    !starts_with_key(s, ev->payload_len))
			return 0;
		from = s;
		while (from < end && *from == ' ')
			from++;
		if (key_at(from, end) == klen && tw_memeq(from, key, klen))
			return sought(from, klen, end, out);
	} else {
		if (ev->decode_done)
			return 0;
		from = ev->decode_at; /* a value's end: a space, or the end */
	}
	const char *lim = end - s > SEEK_SPAN ? s + SEEK_SPAN : end;
	const char *c = s;
#if defined(__SSE2__)
	/* Whole 16-byte blocks first, testing only whether a block has a
	 * hit or a stop; the loop below does the rest as before. */
	if (lim - c >= 16) {
		const __m128i sp = _mm_set1_epi8(' '),
			      k0 = _mm_set1_epi8(key[0]);
		const __m128i lb = _mm_set1_epi8('['), gt = _mm_set1_epi8('>');
		/* the second load reads c[16]: before end */
		for (; lim - c >= 16 && end - c >= 17; c += 16) {
			__m128i v = _mm_loadu_si128((const __m128i *)c);
			__m128i w = _mm_loadu_si128((const __m128i *)(c + 1));
			__m128i wsp = _mm_cmpeq_epi8(w, sp);
			unsigned stop =
				(unsigned)_mm_movemask_epi8(_mm_or_si128(
					_mm_cmpeq_epi8(v, lb),
					_mm_andnot_si128(
						wsp, _mm_cmpeq_epi8(v, gt))));
			unsigned hit = (unsigned)_mm_movemask_epi8(
				_mm_and_si128(_mm_cmpeq_epi8(v, sp),
					      _mm_cmpeq_epi8(w, k0)));
			if (!(stop | hit))
				continue;
			if (c < from)
				hit &= from - c >= 16 ? 0 : ~0u << (from - c);
			if (stop)
				hit &= (1u << __builtin_ctz(stop)) - 1;
			for (; hit; hit &= hit - 1) {
				const char *k = c + __builtin_ctz(hit) + 1;
				if ((size_t)(end - k) > klen &&
				    k[klen] == '=' &&
				    !(k + klen + 1 < end &&
				      k[klen + 1] == '=') &&
				    tw_memeq(k, key, klen))
					return sought(k, klen, end, out);
			}
			if (stop)
				return 0;
		}
	}
#endif
	while (c < lim) {
		/* stop: '[' or a '>' glued to what follows; hit: a space
		 * before the key's first character */
		unsigned stop = 0, hit = 0, width;
#if defined(__SSE2__)
		if (end - c >= 17) {
			__m128i v = _mm_loadu_si128((const __m128i *)c);
			__m128i w = _mm_loadu_si128((const __m128i *)(c + 1));
			__m128i sp = _mm_set1_epi8(' ');
			__m128i gt = _mm_cmpeq_epi8(v, _mm_set1_epi8('>'));
			__m128i wsp = _mm_cmpeq_epi8(w, sp);
			stop = (unsigned)_mm_movemask_epi8(_mm_or_si128(
				_mm_cmpeq_epi8(v, _mm_set1_epi8('[')),
				_mm_andnot_si128(wsp, gt)));
			hit = (unsigned)_mm_movemask_epi8(_mm_and_si128(
				_mm_cmpeq_epi8(v, sp),
				_mm_cmpeq_epi8(w, _mm_set1_epi8(key[0]))));
			width = 16;
		} else
#endif
		{
			width = (unsigned)(end - c) < 16 ? (unsigned)(end - c)
							 : 16;
			for (unsigned b = 0; b < width; b++) {
				int last = c + b + 1 >= end;
				if (c[b] == '[' ||
				    (c[b] == '>' && !last && c[b + 1] != ' '))
					stop |= 1u << b;
				if (c[b] == ' ' && !last && c[b + 1] == key[0])
					hit |= 1u << b;
			}
		}
		if ((size_t)(lim - c) < width) {
			width = (unsigned)(lim - c);
			stop &= (1u << width) - 1;
			hit &= (1u << width) - 1;
		}
		if (c < from) /* hits start at from; stops count before it */
			hit &= from - c >= 16 ? 0 : ~0u << (from - c);
		if (stop)
			hit &= (1u << __builtin_ctz(stop)) - 1;
		for (; hit; hit &= hit - 1) {
			const char *k = c + __builtin_ctz(hit) + 1;
			if ((size_t)(end - k) > klen && k[klen] == '=' &&
			    !(k + klen + 1 < end && k[klen + 1] == '=') &&
			    tw_memeq(k, key, klen))
				return sought(k, klen, end, out);
		}
		if (stop)
			return 0;
		c += width;
	}
	return 0;
}
