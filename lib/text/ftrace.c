/* SPDX-License-Identifier: MIT */
/*
 * The line format of tracefs `trace` and `trace_pipe`, which systrace and
 * `trace-cmd report` share with small differences:
 *
 *   <comm>-<pid> [(<tgid>)] [<cpu>] [<flags>] <sec>.<frac>: <event>: <payload>
 *              bash-2223    [000] d..2.  2410.932850: sched_switch: prev_...
 *     Binder:543_2-612     (  543) [001] ...1  123.456789: tracing_mark_...
 *   and `trace-cmd report -l`:  sh-2297    0d..3.  2519.964000: sched_waking:
 *
 * Comms may hold spaces, dashes, colons, slashes and brackets, so the cpu
 * column is found as the first "[digits]" preceded by "-pid" (and maybe a
 * tgid), not by position. Only the header is parsed here; the payload is
 * decoded lazily (fields.c).
 */
#include <string.h>

#include "text-int.h"

/* The kernel's comm is at most 15 bytes and its pid and tgid columns a few
 * more: what comes before "[cpu]" (or the -l form's cpu and flags) is
 * shorter than this. */
#define HEAD_MAX 256

static inline int is_digit(char c)
{
	return (unsigned char)(c - '0') < 10;
}

static inline int is_space(char c)
{
	return c == ' ' || c == '\t';
}

/*
 * Runs of padding spaces and the event name are the longest byte loops of
 * the line; on x86 they go 16 bytes at a time. Neither reads past s[n).
 */
#if defined(__SSE2__)
#include <emmintrin.h>

static inline size_t skip_blanks(const char *s, size_t i, size_t n)
{
	/* Most separators are one space: settle those without a vector. */
	if (i + 1 < n && s[i] == ' ' && s[i + 1] != ' ' && s[i + 1] != '\t')
		return i + 1;
	for (;;) {
		while (i + 16 <= n) {
			__m128i v = _mm_loadu_si128((const __m128i *)(s + i));
			unsigned m = (unsigned)_mm_movemask_epi8(
				_mm_cmpeq_epi8(v, _mm_set1_epi8(' ')));
			if (m != 0xffff) {
				i += (size_t)__builtin_ctz(~m);
				break;
			}
			i += 16;
		}
		while (i < n && s[i] == ' ')
			i++;
		if (i < n && s[i] == '\t')
			i++;
		else
			return i;
	}
}

/* First ':' or ' ' at or after i, or n. */
static inline size_t find_colon_space(const char *s, size_t i, size_t n)
{
	while (i + 16 <= n) {
		__m128i v = _mm_loadu_si128((const __m128i *)(s + i));
		unsigned m = (unsigned)_mm_movemask_epi8(
			_mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8(':')),
				     _mm_cmpeq_epi8(v, _mm_set1_epi8(' '))));
		if (m)
			return i + (size_t)__builtin_ctz(m);
		i += 16;
	}
	while (i < n && s[i] != ':' && s[i] != ' ')
		i++;
	return i;
}
#else
static inline size_t skip_blanks(const char *s, size_t i, size_t n)
{
	while (i < n && is_space(s[i]))
		i++;
	return i;
}

static inline size_t find_colon_space(const char *s, size_t i, size_t n)
{
	while (i < n && s[i] != ':' && s[i] != ' ')
		i++;
	return i;
}
#endif

static int starts(const char *s, size_t n, const char *lit)
{
	size_t l = strlen(lit);
	return n >= l && memcmp(s, lit, l) == 0;
}

/* Unsigned decimal in s[*i..n) up to max_digits; -1 when none. */
static int64_t number(const char *s, size_t n, size_t *i, int max_digits)
{
	size_t j = *i;
	int64_t v = 0;
	while (j < n && is_digit(s[j]) && (int)(j - *i) < max_digits)
		v = v * 10 + (s[j++] - '0');
	if (j == *i || (j < n && is_digit(s[j])))
		return -1;
	*i = j;
	return v;
}

/*
 * "CPU:%d [LOST %lu EVENTS]" as tracefs prints it, and "CPU:%d [%lu EVENTS
 * DROPPED]" as `trace-cmd report` does.
 */
static int lost_line(const char *s, size_t n, tw_line_info *info)
{
	size_t i = 4;
	int64_t cpu = number(s, n, &i, 5);
	if (cpu < 0 || cpu >= TW_MAX_CPUS || !starts(s + i, n - i, " ["))
		return TW_L_BAD;
	i += 2;
	int lost_word = starts(s + i, n - i, "LOST ");
	if (lost_word)
		i += 5;
	int64_t lost = number(s, n, &i, 18);
	if (lost < 0 ||
	    !starts(s + i, n - i, lost_word ? " EVENTS]" : " EVENTS DROPPED]"))
		return TW_L_BAD;
	info->cpu = (int)cpu;
	info->lost = (uint64_t)lost;
	return TW_L_LOST;
}

/* "# entries-in-buffer/entries-written: 48091/159186   #P:2" */
static int comment_line(const char *s, size_t n, tw_line_info *info)
{
	static const char key[] = "# entries-in-buffer/entries-written: ";
	if (!starts(s, n, key))
		return TW_L_SKIP;
	size_t i = sizeof(key) - 1;
	int64_t a = number(s, n, &i, 18);
	if (a < 0 || i >= n || s[i] != '/')
		return TW_L_SKIP;
	i++;
	int64_t b = number(s, n, &i, 18);
	if (b < 0)
		return TW_L_SKIP;
	info->in_buffer = (uint64_t)a;
	info->written = (uint64_t)b;
	return TW_L_ENTRIES;
}

/*
 * The part before the cpu column, s[b..e): "comm-pid", maybe followed by a
 * tgid "(  543)" or "(-------)". Fills comm, pid and tgid.
 */
static inline __attribute__((always_inline)) int
comm_pid_trimmed(const char *s, size_t b, size_t e, tw_rec *r)
{
	r->tgid = -1;
	if (e > b && s[e - 1] == ')') {
		size_t o = e - 1;
		while (o > b && s[o] != '(')
			o--;
		if (s[o] != '(')
			return -1;
		size_t i = o + 1;
		while (i < e - 1 && is_space(s[i]))
			i++;
		if (is_digit(s[i])) {
			int64_t tg = number(s, e - 1, &i, 10);
			if (tg < 0 || tg > INT32_MAX || i != e - 1)
				return -1;
			r->tgid = (int32_t)tg;
		} else {
			while (i < e - 1 && s[i] == '-')
				i++;
			if (i != e - 1)
				return -1;
		}
		e = o;
		while (e > b && is_space(s[e - 1]))
			e--;
	}
	size_t d = e;
	while (d > b && is_digit(s[d - 1]))
		d--;
	if (d == e || e - d > 10 || d == b || s[d - 1] != '-')
		return -1;
	int64_t pid = 0;
	for (size_t i = d; i < e; i++) /* digits, checked above */
		pid = pid * 10 + (s[i] - '0');
	if (pid > INT32_MAX)
		return -1;
	r->pid = (int32_t)pid;
	r->comm = s + b;
	r->comm_len = (uint32_t)(d - 1 - b);
	return 0;
}

static inline __attribute__((always_inline)) int
comm_pid(const char *s, size_t b, size_t e, tw_rec *r)
{
	while (e > b && is_space(s[e - 1]))
		e--;
	return comm_pid_trimmed(s, b, e, r);
}

/*
 * The irq-info column: irqs-off, need-resched, hardirq/softirq, preempt
 * depth and (5 wide, since 5.x) migrate-disable. One table per column maps
 * a character to its flag bits, with FLAG_OK set for every valid one.
 */
#define FLAG_OK 0x8000u

static const uint16_t irqs_col[256] = {
	['d'] = FLAG_OK | TRAWL_FLAG_IRQS_OFF,
	['D'] = FLAG_OK | TRAWL_FLAG_IRQS_OFF | TRAWL_FLAG_BH_OFF,
	['b'] = FLAG_OK | TRAWL_FLAG_BH_OFF,
	['X'] = FLAG_OK,
	['.'] = FLAG_OK,
};
static const uint16_t resched_col[256] = {
	['N'] = FLAG_OK | TRAWL_FLAG_NEED_RESCHED | TRAWL_FLAG_PREEMPT_RESCHED,
	['n'] = FLAG_OK | TRAWL_FLAG_NEED_RESCHED,
	['L'] = FLAG_OK | TRAWL_FLAG_NEED_RESCHED,
	['B'] = FLAG_OK | TRAWL_FLAG_NEED_RESCHED,
	['p'] = FLAG_OK | TRAWL_FLAG_PREEMPT_RESCHED,
	['.'] = FLAG_OK,
};
static const uint16_t irq_col[256] = {
	['Z'] = FLAG_OK | TRAWL_FLAG_NMI,
	['z'] = FLAG_OK | TRAWL_FLAG_NMI | TRAWL_FLAG_HARDIRQ,
	['H'] = FLAG_OK | TRAWL_FLAG_HARDIRQ | TRAWL_FLAG_SOFTIRQ,
	['h'] = FLAG_OK | TRAWL_FLAG_HARDIRQ,
	['s'] = FLAG_OK | TRAWL_FLAG_SOFTIRQ,
	['.'] = FLAG_OK,
};
/* depth + 1 for '.' and hex digits; 0 for anything else */
static const uint8_t depth_col[256] = {
	['.'] = 1,  ['0'] = 1,	['1'] = 2,  ['2'] = 3,	['3'] = 4,  ['4'] = 5,
	['5'] = 6,  ['6'] = 7,	['7'] = 8,  ['8'] = 9,	['9'] = 10, ['a'] = 11,
	['b'] = 12, ['c'] = 13, ['d'] = 14, ['e'] = 15, ['f'] = 16,
};

static int flags_token(const char *s, size_t len, tw_rec *r)
{
	if (len != 4 && len != 5)
		return -1;
	const unsigned char *u = (const unsigned char *)s;
	unsigned f = irqs_col[u[0]] & resched_col[u[1]] & irq_col[u[2]];
	unsigned all = irqs_col[u[0]] | resched_col[u[1]] | irq_col[u[2]];
	if (!(f & FLAG_OK) || !depth_col[u[3]] ||
	    (len == 5 && !depth_col[u[4]]))
		return -1;
	r->preempt = (int8_t)(depth_col[u[3]] - 1);
	r->flags = (uint16_t)((all & ~FLAG_OK) | TRAWL_FLAG_KNOWN);
	return 0;
}

#if defined(__SSE2__)
/* The value of 8 ASCII digits, the first in the lowest byte (SWAR). */
static inline __attribute__((always_inline)) uint64_t eight_digits(uint64_t v)
{
	v = ((v & 0x0f0f0f0f0f0f0f0full) * 2561) >> 8;
	v = ((v & 0x00ff00ff00ff00ffull) * 6553601) >> 16;
	return ((v & 0x0000ffff0000ffffull) * 42949672960001ull) >> 32;
}

/* The value of the len (1..8) digits that end at s[e), with e >= 8. */
static inline __attribute__((always_inline)) uint64_t
digits_before(const char *s, size_t e, unsigned len)
{
	uint64_t v;
	memcpy(&v, s + e - 8, 8);
	/* bytes before the digits count as zeros */
	return eight_digits(len == 8 ? v : v & (~0ull << (8 * (8 - len))));
}

/* Bit k set when s[k] is an ASCII digit, k < 16. */
static inline __attribute__((always_inline)) unsigned
digit_mask16(const char *s)
{
	__m128i v = _mm_sub_epi8(_mm_loadu_si128((const __m128i *)s),
				 _mm_set1_epi8('0'));
	__m128i d = _mm_cmpeq_epi8(_mm_min_epu8(v, _mm_set1_epi8(9)), v);
	return (unsigned)_mm_movemask_epi8(d);
}
#endif

/* "2410.932850:" -> ns, full precision up to nanoseconds. */
static inline __attribute__((always_inline)) int
timestamp(const char *s, size_t n, size_t *pi, int64_t *ts)
{
	size_t i = *pi, b = i;
#if defined(__SSE2__)
	/* The kernel's "%5llu.%06lu:" with up to 8 digits of seconds, from
	 * one 16-byte load: what the loops below read, without them. */
	if (i + 16 <= n && i >= 8) {
		unsigned d = digit_mask16(s + i);
		unsigned len = (unsigned)__builtin_ctz(~d);
		if (len >= 1 && len <= 8 && s[i + len] == '.' &&
		    ((d >> (len + 1)) & 0x3f) == 0x3f &&
		    s[i + len + 7] == ':') {
			uint64_t sec = digits_before(s, i + len, len);
			uint64_t us = digits_before(s, i + len + 7, 6);
			*ts = (int64_t)(sec * 1000000000u + us * 1000u);
			*pi = i + len + 8;
			return 0;
		}
	}
#endif
	size_t lim = n - i > 19 ? i + 19 : n;
	uint64_t sec = 0;
	while (i < lim && is_digit(s[i]))
		sec = sec * 10 + (uint64_t)(s[i++] - '0');
	if (i == b || i - b > 18)
		return -1;
	if (i < n && s[i] == '.') {
		/* seconds: as many as fit in int64 nanoseconds */
		if (sec > 9223372035u)
			return -1;
		/* The kernel prints microseconds: "%06lu:" takes no loop. */
		const unsigned char *u = (const unsigned char *)s + i + 1;
		if (i + 8 <= n && u[6] == ':' &&
		    (is_digit((char)u[0]) & is_digit((char)u[1]) &
		     is_digit((char)u[2]) & is_digit((char)u[3]) &
		     is_digit((char)u[4]) & is_digit((char)u[5]))) {
			uint64_t us =
				(u[0] - '0') * 100000u + (u[1] - '0') * 10000u +
				(u[2] - '0') * 1000u + (u[3] - '0') * 100u +
				(u[4] - '0') * 10u + (u[5] - '0');
			*ts = (int64_t)(sec * 1000000000u + us * 1000u);
			*pi = i + 8;
			return 0;
		}
		size_t f = ++i;
		uint64_t frac = 0;
		size_t flim = n - i > 9 ? i + 9 : n;
		while (i < flim && is_digit(s[i]))
			frac = frac * 10 + (uint64_t)(s[i++] - '0');
		size_t nd = i - f;
		if (nd == 0)
			return -1;
		while (i < n && is_digit(s[i]))
			i++; /* below a nanosecond: no clock has it */
		static const uint64_t scale[10] = {
			1000000000, 100000000, 10000000, 1000000, 100000,
			10000,	    1000,      100,	 10,	  1};
		*ts = (int64_t)(sec * 1000000000u + frac * scale[nd]);
	} else {
		/* counter / x86-tsc clocks print plain integers */
		*ts = (int64_t)sec;
	}
	if (i >= n || s[i] != ':')
		return -1;
	*pi = i + 1;
	return 0;
}

static int bad(tw_line_info *info, const char *why, size_t col)
{
	info->why = why;
	info->col = (uint32_t)col;
	return TW_L_BAD;
}

/* The event name and payload after "ts: ". */
static int name_payload(const char *s, size_t n, size_t i, tw_rec *r,
			tw_line_info *info)
{
	i = skip_blanks(s, i, n);
	size_t b = i;
	i = find_colon_space(s, i, n);
	if (i == b)
		return bad(info, "an event name", b);
	if (i < n && s[i] == ':' && (i + 1 == n || s[i + 1] == ' ')) {
		r->name = s + b;
		r->name_len = (uint32_t)(i - b);
		if (r->name_len == 18 &&
		    memcmp(r->name, "tracing_mark_write", 18) == 0)
			r->bits |= TW_EV_IP_FROM_NAME;
		i = skip_blanks(s, i + 1, n);
		while (n > i && s[n - 1] == ' ')
			n--; /* some print formats end in a space */
		r->payload = s + i;
		r->payload_len = (uint32_t)(n - i);
		return TW_L_EVENT;
	}
	/* The function tracer: "do_sys_open <-do_sys_openat2" */
	if (i + 3 < n && s[i] == ' ' && s[i + 1] == '<' && s[i + 2] == '-') {
		r->name = "function";
		r->name_len = 8;
		r->payload = s + b;
		r->payload_len = (uint32_t)(n - b);
		return TW_L_EVENT;
	}
	return bad(info, "\"name: \" after the timestamp", b);
}

/* trace-cmd report -l: "sh-2297    0d..3.  2519.964000: sched_waking: ..." */
static int latency_form(const char *s, size_t b, size_t n, tw_rec *r,
			tw_line_info *info, int ts_only)
{
	/* comm-pid, cpu, flags and timestamp all lie near the start (see
	 * HEAD_MAX); looking further only costs (the square of) time */
	size_t lim = n - b > 2 * HEAD_MAX ? b + 2 * HEAD_MAX : n;
	for (const char *c = memchr(s + b, ':', lim - b); c;
	     c = memchr(c + 1, ':', (size_t)(s + lim - c - 1))) {
		size_t ce = (size_t)(c - s);
		size_t tb = ce;
		while (tb > b && (is_digit(s[tb - 1]) || s[tb - 1] == '.'))
			tb--;
		if (tb == ce || tb == b || !is_space(s[tb - 1]))
			continue;
		size_t fe = tb;
		while (fe > b && is_space(s[fe - 1]))
			fe--;
		size_t fb = fe;
		while (fb > b && !is_space(s[fb - 1]))
			fb--;
		/* cpu digits then 4 or 5 flag characters */
		size_t d = fb;
		while (d < fe && is_digit(s[d]))
			d++;
		if (d == fb || d - fb > 5 || flags_token(s + d, fe - d, r))
			continue;
		size_t k = fb;
		int64_t cpu = number(s, d, &k, 5);
		if (cpu < 0 || cpu >= TW_MAX_CPUS)
			continue;
		if (comm_pid(s, b, fb, r))
			continue;
		size_t ti = tb;
		if (timestamp(s, n, &ti, &r->ts))
			continue;
		r->cpu = (int32_t)cpu;
		if (ts_only)
			return TW_L_EVENT;
		return name_payload(s, n, ti, r, info);
	}
	return bad(info, "a \"[cpu]\" column", b);
}

/*
 * Lines that are not events, known by their start s[i..): comments, lost
 * events and the headers of the other text forms. -1: none of these.
 */
static inline __attribute__((always_inline)) int
special_line(const char *s, size_t i, size_t n, tw_line_info *info)
{
	switch (s[i]) {
	case '#':
		return comment_line(s + i, n - i, info);
	case 'C':
		if (starts(s + i, n - i, "CPU:"))
			return lost_line(s + i, n - i, info);
		if (starts(s + i, n - i, "CPU "))
			return TW_L_SKIP; /* trace-cmd: "CPU 1 is empty" */
		break;
	case 'c':
		if (starts(s + i, n - i, "cpus="))
			return TW_L_SKIP;
		break;
	case 'T':
		if (n - i == 6 && starts(s + i, n - i, "TRACE:"))
			return TW_L_SKIP;
		break;
	case 'v':
		if (starts(s + i, n - i, "version = "))
			return TW_L_SKIP;
		break;
	}
	return -1;
}

/*
 * Find "[cpu]" after "comm-pid" (the comm is at least one byte): the first
 * '[' that is preceded by a blank, holds a cpu number and has a comm-pid
 * before it. Return: the index after ']', or 0 when there is none.
 */
static size_t find_cpu(const char *s, size_t b, size_t n, tw_rec *r)
{
	/*
	 * A "[cpu]" further than HEAD_MAX from the start of the line is no
	 * cpu column. The bound keeps a hostile line with many '[' from
	 * costing the square of its length.
	 */
	size_t lim = n - b > HEAD_MAX ? b + HEAD_MAX : n;
	const char *q =
		b + 1 < lim ? memchr(s + b + 1, '[', lim - b - 1) : NULL;
	for (; q; q = memchr(q + 1, '[', (size_t)(s + lim - q - 1))) {
		size_t qi = (size_t)(q - s);
		if (!is_space(s[qi - 1]))
			continue;
		size_t k = qi + 1;
		int64_t cpu = number(s, n, &k, 5);
		if (cpu < 0 || k >= n || s[k] != ']' || cpu >= TW_MAX_CPUS)
			continue;
		if (comm_pid(s, b, qi, r))
			continue;
		r->cpu = (int32_t)cpu;
		return k + 1;
	}
	return 0;
}

#define WINDOW 64

/*
 * skip_blanks(), answered from blank, the mask of blanks in s[0..WINDOW)
 * (0 when there is none), when the answer lies inside the window.
 */
static inline __attribute__((always_inline)) size_t
skip_blanks_w(const char *s, size_t i, size_t n, uint64_t blank)
{
	if (blank && i < WINDOW) {
		uint64_t nb = ~blank & (~0ull << i);
		if (nb)
			return (size_t)__builtin_ctzll(nb);
	}
	return skip_blanks(s, i, n);
}

/* From the end of the "[cpu]" column on: flags, timestamp, name. */
static inline __attribute__((always_inline)) int
after_cpu(const char *s, size_t n, size_t i, tw_rec *r, tw_line_info *info,
	  int ts_only, uint64_t blank)
{
	i = skip_blanks_w(s, i, n, blank);
	size_t tb = i;
	if (i + 5 < n && s[i + 5] == ' ' && s[i + 4] != ':' &&
	    s[i + 4] != ' ' && s[i + 3] != ' ' && s[i + 2] != ' ' &&
	    s[i + 1] != ' ')
		i += 5; /* the usual 5-wide irq-info column */
	else
		while (i < n && !is_space(s[i]))
			i++;
	if (i > tb && s[i - 1] != ':') {
		/* (the pre-scan may take a line with bad flags: see parse) */
		if (!ts_only && flags_token(s + tb, i - tb, r))
			return bad(info, "irq-info flags such as \"d..2.\"",
				   tb);
		i = skip_blanks_w(s, i, n, blank);
		tb = i;
	}
	i = tb;
	if (timestamp(s, n, &i, &r->ts))
		return bad(info, "a timestamp such as \"2410.932850:\"", tb);
	if (ts_only)
		return TW_L_EVENT;
	return name_payload(s, n, i, r, info);
}

#if defined(__SSE2__)
/*
 * The usual line decided within its first 64 bytes, with two bit masks
 * instead of byte loops: where the comm starts (b, the first non-blank)
 * and whether the first '[' after it is the cpu column. That is the
 * generic search (find_cpu) when its first candidate succeeds; anything
 * else returns -1 and the caller takes the generic path from the start.
 * Return: the index after ']', or -1; *pb is b when it returns >= 0.
 */
static inline __attribute__((always_inline)) long
fast_front(const char *s, size_t n, size_t *pb, uint64_t *pblank, tw_rec *r)
{
	const __m128i sp = _mm_set1_epi8(' '), tab = _mm_set1_epi8('\t'),
		      br = _mm_set1_epi8('[');
	const __m128i v0 = _mm_loadu_si128((const __m128i *)s),
		      v1 = _mm_loadu_si128((const __m128i *)(s + 16)),
		      v2 = _mm_loadu_si128((const __m128i *)(s + 32)),
		      v3 = _mm_loadu_si128((const __m128i *)(s + 48));
#define BLANKS(v)                                                              \
	((uint64_t)(unsigned)_mm_movemask_epi8(                                \
		_mm_or_si128(_mm_cmpeq_epi8(v, sp), _mm_cmpeq_epi8(v, tab))))
#define OPENS(v) ((uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, br)))
	uint64_t blank = BLANKS(v0) | BLANKS(v1) << 16 | BLANKS(v2) << 32 |
			 BLANKS(v3) << 48;
	uint64_t open =
		OPENS(v0) | OPENS(v1) << 16 | OPENS(v2) << 32 | OPENS(v3) << 48;
#undef BLANKS
#undef OPENS
	if (!~blank)
		return -1;
	/* skip_blanks() skips any run of spaces and tabs */
	size_t b = (size_t)__builtin_ctzll(~blank);
	/* The first '[' after b; it needs a blank before it. */
	uint64_t after = b < WINDOW - 1 ? open & (~0ull << (b + 1)) : 0;
	if (!after)
		return -1;
	size_t q = (size_t)__builtin_ctzll(after);
	if (!((blank >> (q - 1)) & 1))
		return -1;
	size_t k = q + 1;
	int64_t cpu;
	if (q + 4 < n && is_digit(s[q + 1]) && is_digit(s[q + 2]) &&
	    is_digit(s[q + 3]) && s[q + 4] == ']') {
		/* "%03d" as the kernel prints it: what number() reads */
		cpu = (s[q + 1] - '0') * 100 + (s[q + 2] - '0') * 10 +
		      (s[q + 3] - '0');
		k = q + 4;
	} else {
		cpu = number(s, n, &k, 5);
		if (cpu < 0 || k >= n || s[k] != ']' || cpu >= TW_MAX_CPUS)
			return -1;
	}
	/* comm_pid()'s trim of the blanks before '[': the last non-blank
	 * below q, which exists since s[b] is one. */
	uint64_t below = ~blank & ((1ull << q) - 1);
	size_t e = WINDOW - (size_t)__builtin_clzll(below);
	if (e >= 16 && s[e - 1] != ')') {
		/* comm_pid_trimmed() without its loops, for pids of up to
		 * 7 digits (the kernel's pid_max is at most 4194304): the
		 * digits that end at e, from one 16-byte digit mask. */
		unsigned tail = ~digit_mask16(s + e - 16) << 16;
		unsigned run = tail ? (unsigned)__builtin_clz(tail) : 16;
		size_t d = e - run;
		if (run == 0 || run > 7 || d <= b || s[d - 1] != '-')
			return -1;
		r->tgid = -1;
		r->pid = (int32_t)digits_before(s, e, run);
		r->comm = s + b;
		r->comm_len = (uint32_t)(d - 1 - b);
	} else if (comm_pid_trimmed(s, b, e, r)) {
		return -1;
	}
	r->cpu = (int32_t)cpu;
	*pb = b;
	*pblank = blank;
	return (long)k + 1;
}
#endif

#if defined(__SSE2__)
/*
 * The kernel's own line, "%16s-%-7d [%03d] %s %5lu.%06lu: " as tracefs
 * prints it: the comm right-aligned to column 16, '-' there, the pid
 * left-aligned in 7 columns, the cpu column at q = 25, 5 irq-info flags
 * after it (or none: options/irq-info off); with record-tgid, "(%7d) " or
 * "(-------) " at 25 puts the cpu column at q = 35. Nearly every line of a
 * tracefs trace has one of these shapes, so they are checked at fixed columns,
 * from 16-byte masks, before the searches of fast_front(). Each check is one
 * that fast_front(), comm_pid_trimmed() and after_cpu() make at the same place,
 * so a line that passes reads as they read it; any other line returns -1 and
 * the caller goes on with them.
 */
/* kernel_line() once the cpu column is known to be at q (25 or 35). */
static inline __attribute__((always_inline)) int
kernel_cols(const char *s, size_t n, tw_rec *r, tw_line_info *info, int ts_only,
	    const size_t q, __m128i v0, __m128i v1, __m128i v2)
{
	const __m128i sp = _mm_set1_epi8(' '), tab = _mm_set1_epi8('\t');
#define BLANKS(v)                                                              \
	((uint64_t)(unsigned)_mm_movemask_epi8(                                \
		_mm_or_si128(_mm_cmpeq_epi8(v, sp), _mm_cmpeq_epi8(v, tab))))
#define DIGITS(v)                                                              \
	((uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(                 \
		_mm_min_epu8(_mm_sub_epi8(v, _mm_set1_epi8('0')),              \
			     _mm_set1_epi8(9)),                                \
		_mm_sub_epi8(v, _mm_set1_epi8('0')))))
	uint64_t blank = BLANKS(v0) | BLANKS(v1) << 16 | BLANKS(v2) << 32;
	/* the timestamp starts after the flags: in the 4th block with a
	 * tgid column */
	if (q == 35)
		blank |= BLANKS(_mm_loadu_si128((const __m128i *)(s + 48)))
			 << 48;
	const size_t masked = q == 35 ? 64 : 48; /* bits of blank */
	/* bit k: column 16 + k is a digit */
	uint64_t dig = DIGITS(v1);
	if (q == 35)
		dig |= DIGITS(v2) << 16;
#undef BLANKS
#undef DIGITS
	/* "-pid" from column 16, blanks after it through column 24 */
	unsigned run = (unsigned)__builtin_ctzll(~dig >> 1); /* pid digits */
	uint64_t pad = ((1ull << 25) - 1) & ~((1ull << (17 + run)) - 1);
	if (s[16] != '-' || run == 0 || run > 7 || (blank & pad) != pad)
		return -1;
	r->tgid = -1;
	if (q == 35) {
		/* "(%7d) ": blanks, then digits up to column 32; or
		 * "(-------) " */
		size_t tg = (size_t)__builtin_ctzll(~blank & (~0ull << 26));
		uint64_t want = ((1ull << 33) - 1) & ~((1ull << tg) - 1);
		if (!((blank >> 34) & 1) || tg > 32)
			return -1;
		if (((dig << 16) & want) == want)
			r->tgid = (int32_t)digits_before(s, 33,
							 (unsigned)(33 - tg));
		else if (tg != 26 || memcmp(s + 26, "-------", 7) != 0)
			return -1;
	}
	/* "[ddd]", a blank, then five flags and a space (the flags do not
	 * end in ':', else they would be the timestamp), or (irq-info off)
	 * blanks and the timestamp: a word of 6 or more ending in ':' */
	if (((dig >> (q + 1 - 16)) & 7) != 7 || s[q + 4] != ']' ||
	    !((blank >> (q + 5)) & 1))
		return -1;
	int flags = ((blank >> (q + 5)) & 0x7f) == 0x41 && s[q + 11] == ' ' &&
		    s[q + 10] != ':';
	uint64_t after = ~blank & (~0ull << (flags ? q + 11 : q + 5));
	if (!after)
		return -1; /* blanks to the end of the masks */
	size_t tb = (size_t)__builtin_ctzll(after);
	if (tb >= masked)
		return -1; /* beyond the masks */
	if (!flags) {
		uint64_t word_end = blank & (~0ull << tb);
		size_t te = word_end ? (size_t)__builtin_ctzll(word_end) : 64;
		if (te >= masked || te - tb < 6 || s[te - 1] != ':')
			return -1;
	}
	/* the first non-blank: there is one, s[16] */
	size_t b = (size_t)__builtin_ctzll(~blank);
	int k = special_line(s, b, n, info);
	if (k >= 0)
		return k;
	r->pid = (int32_t)digits_before(s, 17 + run, run);
	r->comm = s + b;
	r->comm_len = (uint32_t)(16 - b);
	r->cpu = (s[q + 1] - '0') * 100 + (s[q + 2] - '0') * 10 +
		 (s[q + 3] - '0');
	if (flags && !ts_only && flags_token(s + q + 6, 5, r))
		return bad(info, "irq-info flags such as \"d..2.\"", q + 6);
	if (timestamp(s, n, &tb, &r->ts))
		return bad(info, "a timestamp such as \"2410.932850:\"", tb);
	if (ts_only)
		return TW_L_EVENT;
	return name_payload(s, n, tb, r, info);
}

static inline __attribute__((always_inline)) int
kernel_line(const char *s, size_t n, tw_rec *r, tw_line_info *info, int ts_only)
{
	const __m128i v0 = _mm_loadu_si128((const __m128i *)s),
		      v1 = _mm_loadu_si128((const __m128i *)(s + 16)),
		      v2 = _mm_loadu_si128((const __m128i *)(s + 32));
	const __m128i br = _mm_set1_epi8('[');
	/* the first '[' is the cpu column, at 25 or 35 */
	uint64_t open =
		(uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v0, br)) |
		(uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v1, br))
			<< 16;
	if ((open & ((1ull << 26) - 1)) == 1ull << 25)
		return kernel_cols(s, n, r, info, ts_only, 25, v0, v1, v2);
	open |= (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v2, br))
		<< 32;
	if ((open & ((1ull << 36) - 1)) == 1ull << 35 && s[25] == '(' &&
	    s[33] == ')')
		return kernel_cols(s, n, r, info, ts_only, 35, v0, v1, v2);
	return -1;
}
#endif

/*
 * ts_only: stop after the timestamp (the order pre-scan). A line that would
 * then fail on its name, or that has bad flags, still counts as an event
 * there: an extra timestamp can only make the pre-scan think the file
 * unordered, which is safe.
 *
 * fast: try fast_front() first. It decides lines of WINDOW bytes or more
 * in the kernel's layout; fuzz-line checks it against fast = 0.
 */
static inline __attribute__((always_inline)) int parse(const char *s, size_t n,
						       tw_rec *r,
						       tw_line_info *info,
						       int ts_only, int fast)
{
	r->flags = 0;
	r->preempt = -1;
	r->bits = 0;
#if defined(__SSE2__)
	if (fast && n >= WINDOW) {
		int k = kernel_line(s, n, r, info, ts_only);
		if (k >= 0)
			return k;
		size_t b;
		uint64_t blank;
		long at = fast_front(s, n, &b, &blank, r);
		if (at >= 0) {
			int k = special_line(s, b, n, info);
			if (k >= 0)
				return k;
			return after_cpu(s, n, (size_t)at, r, info, ts_only,
					 blank);
		}
	}
#else
	(void)fast;
#endif
	size_t b = skip_blanks(s, 0, n);
	if (b == n)
		return TW_L_SKIP;
	int k = special_line(s, b, n, info);
	if (k >= 0)
		return k;
	size_t i = find_cpu(s, b, n, r);
	if (!i)
		return latency_form(s, b, n, r, info, ts_only);
	return after_cpu(s, n, i, r, info, ts_only, 0);
}

int tw_ftrace_parse(const char *s, size_t n, tw_rec *r, tw_line_info *info)
{
	return parse(s, n, r, info, 0, 1);
}

int tw_ftrace_ts(const char *s, size_t n, tw_rec *r, tw_line_info *info)
{
	return parse(s, n, r, info, 1, 1);
}

int tw_ftrace_parse_generic(const char *s, size_t n, tw_rec *r,
			    tw_line_info *info)
{
	return parse(s, n, r, info, 0, 0);
}
