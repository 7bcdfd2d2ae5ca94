/* SPDX-License-Identifier: MIT */
/*
 * The text `perf script` prints, as a source: its default form and the
 * usual -F variants ("comm tid [cpu] secs.frac: [period] event: text",
 * "pid/tid" with -F +pid, no "[cpu]" without cpu, 9 digits with --ns),
 * callchain lines included (a tab, the address, the symbol and the dso
 * in parentheses, a line a frame, the block ended by a blank line).
 *
 * Each sample gives the events the perf.data reader gives for it
 * (lib/perf/perf-synth.c): a tracepoint's sample is the event of its name,
 * its text decoded with the event's format as ftrace text is (textfmt.c);
 * a sample of another event (cpu-clock, cycles) is perf:NAME with ip and
 * period; a callchain is ftrace:kernel_stack (its kernel frames) then,
 * with user frames, ftrace:user_stack, at the sample's time and CPU.
 *
 * A sample and its callchain lines are gathered into one record (a tag
 * byte saying which of its events it stands for, then the lines), which
 * the sorter keeps and reparse() reads again: the stacks are made from
 * it each time. The stacks' and perf events' texts are made here, in the
 * shapes the perf.data reader prints, and their typed fields are read
 * back from those texts alone (decode()), so an event copy decodes too.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "../input/input.h"
#include "text-int.h"

/* What a record stands for: its first byte. */
enum { TAG_SAMPLE = 'S', TAG_KSTACK = 'K', TAG_USTACK = 'U' };

/* Distinct names of events that are not tracepoints (perf:NAME). */
#define PERF_TYPES_MAX 64
/* Frames of a callchain kept (perf's own limit is 127 by default). */
#define FRAMES_MAX 1024

typedef struct ps_reader {
	tw_input *in;
	int strict;
	tw_buf blk;	   /* tag, the sample line, "\n" and frame lines */
	uint64_t blk_line; /* the sample line's number */
	char tags[3];	   /* the block's events still to give */
	int ntags, itag;
	tw_buf pending; /* a line read past a block */
	uint64_t pending_line;
	int has_pending;
	tw_buf pay; /* the text made for the current event */
	tw_type *perf_types[PERF_TYPES_MAX];
	size_t nperf_types;
	/* the last perf:NAME met, by its name as printed: a profile's
	 * samples are all of one event */
	char last_ev[64];
	size_t last_ev_len;
	tw_type *last_type;
} ps_reader;

/* The head of a sample line. */
typedef struct ps_head {
	const char *comm;
	size_t comm_len;
	int32_t pid, tgid, cpu;
	int64_t ts;
	int has_period;
	uint64_t period;
	const char *ev; /* as printed, without its ':' */
	size_t ev_len;
	const char *rest; /* what follows "event:", blanks trimmed */
	size_t rest_len;
} ps_head;

static int blank(char c)
{
	return c == ' ' || c == '\t';
}

static int digits(const char *s, size_t n)
{
	if (!n)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return 0;
	return 1;
}

/* A decimal of at most 10 digits, maybe "-". */
static int small_int(const char *s, size_t n, int32_t *out)
{
	int neg = n && s[0] == '-';
	if (neg)
		s++, n--;
	if (!digits(s, n) || n > 10)
		return 0;
	int64_t v = 0;
	for (size_t i = 0; i < n; i++)
		v = v * 10 + (s[i] - '0');
	if (v > INT32_MAX)
		return 0;
	*out = (int32_t)(neg ? -v : v);
	return 1;
}

/* "tid", "pid/tid" (-F +pid): the pid column. */
static int pid_token(const char *s, size_t n, int32_t *pid, int32_t *tgid)
{
	const char *slash = memchr(s, '/', n);
	*tgid = -1;
	if (!slash)
		return small_int(s, n, pid);
	return small_int(s, (size_t)(slash - s), tgid) &&
	       small_int(slash + 1, n - (size_t)(slash - s) - 1, pid);
}

/* "[cpu]" */
static int cpu_token(const char *s, size_t n, int32_t *cpu)
{
	return n >= 3 && s[0] == '[' && s[n - 1] == ']' &&
	       small_int(s + 1, n - 2, cpu) && *cpu >= 0 && *cpu < TW_MAX_CPUS;
}

/* "secs.frac:" in ns, frac of 1 to 9 digits. */
static int time_token(const char *s, size_t n, int64_t *ts)
{
	if (n < 4 || s[n - 1] != ':')
		return 0;
	const char *dot = memchr(s, '.', n - 1);
	if (!dot)
		return 0;
	size_t ni = (size_t)(dot - s), nf = n - 2 - ni;
	if (!digits(s, ni) || ni > 10 || !digits(dot + 1, nf) || nf > 9)
		return 0;
	int64_t sec = 0, frac = 0;
	for (size_t i = 0; i < ni; i++)
		sec = sec * 10 + (s[i] - '0');
	for (size_t i = 0; i < 9; i++)
		frac = frac * 10 + (i < nf ? dot[1 + i] - '0' : 0);
	*ts = sec * 1000000000 + frac;
	return 1;
}

/*
 * Read a sample line's head. The comm may hold blanks, so the columns are
 * found from the time: the first "secs.frac:" word after a pid word
 * (maybe with a "[cpu]" between), and the comm is what comes before.
 * Return: 1, or 0 with info->why and info->col set.
 */
static int parse_head(const char *s, size_t n, ps_head *h, tw_line_info *info)
{
	/* the last two words before the current one */
	const char *w1 = NULL, *w2 = NULL;
	size_t l1 = 0, l2 = 0;
	size_t i = 0;
	while (i < n && blank(s[i]))
		i++;
	size_t comm_at = i;
	for (;;) {
		while (i < n && blank(s[i]))
			i++;
		if (i == n) {
			info->why = "a \"comm tid [cpu] secs.usecs:\" head";
			info->col = 0;
			return 0;
		}
		size_t b = i;
		while (i < n && !blank(s[i]))
			i++;
		const char *w = s + b;
		size_t l = i - b;
		h->cpu = -1;
		if (time_token(w, l, &h->ts) && w1 &&
		    ((cpu_token(w1, l1, &h->cpu) && w2 &&
		      pid_token(w2, l2, &h->pid, &h->tgid)) ||
		     pid_token(w1, l1, &h->pid, &h->tgid))) {
			const char *pidw = h->cpu >= 0 ? w2 : w1;
			h->comm = s + comm_at;
			h->comm_len = (size_t)(pidw - h->comm);
			while (h->comm_len && blank(h->comm[h->comm_len - 1]))
				h->comm_len--;
			break;
		}
		w2 = w1, l2 = l1;
		w1 = w, l1 = l;
	}
	/* [period] event: rest */
	while (i < n && blank(s[i]))
		i++;
	size_t b = i;
	while (i < n && !blank(s[i]))
		i++;
	h->has_period = 0;
	if (digits(s + b, i - b) && i - b <= 19 && i < n) {
		h->has_period = 1;
		h->period = 0;
		for (size_t k = b; k < i; k++)
			h->period = h->period * 10 + (uint64_t)(s[k] - '0');
		while (i < n && blank(s[i]))
			i++;
		b = i;
		while (i < n && !blank(s[i]))
			i++;
	}
	if (i - b < 2 || s[i - 1] != ':') {
		info->why = "an event name and ':' after the time";
		info->col = (uint32_t)b;
		return 0;
	}
	h->ev = s + b;
	h->ev_len = i - b - 1;
	while (i < n && blank(s[i]))
		i++;
	size_t e = n;
	while (e > i && blank(s[e - 1]))
		e--;
	h->rest = s + i;
	h->rest_len = e - i;
	return 1;
}

/* perf's names of events that are not tracepoints, where a ':' may
 * follow with modifiers (cycles:u). */
static int modifiers(const char *s, size_t n)
{
	if (!n || n > 6)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!strchr("ukhIGHpPSDWeb", s[i]))
			return 0;
	return 1;
}

static int ident(const char *s, size_t n)
{
	if (!n)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '_')
			return 0;
	return 1;
}

/* A tracepoint's "system:name": *name set to its name. */
static int tracepoint(const ps_head *h, const char **name, size_t *len)
{
	const char *c = memchr(h->ev, ':', h->ev_len);
	if (!c)
		return 0;
	size_t ns = (size_t)(c - h->ev), nn = h->ev_len - ns - 1;
	if (!ident(h->ev, ns) || !ident(c + 1, nn) || modifiers(c + 1, nn))
		return 0;
	*name = c + 1;
	*len = nn;
	return 1;
}

/* A frame line: "\t  addr sym+off (dso)". */
typedef struct ps_frame {
	uint64_t addr;
	const char *sym, *dso;
	size_t sym_len, dso_len;
} ps_frame;

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = (char)(c | 0x20);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* A hex number of 1 to 16 digits at s[*i], *i moved past it. */
static int hex_at(const char *s, size_t n, size_t *i, uint64_t *out)
{
	size_t b = *i;
	uint64_t v = 0;
	while (*i < n && hexval(s[*i]) >= 0 && *i - b < 17)
		v = v << 4 | (uint64_t)hexval(s[(*i)++]);
	if (*i == b || *i - b > 16)
		return 0;
	*out = v;
	return 1;
}

static int parse_frame(const char *s, size_t n, ps_frame *f)
{
	size_t i = 0;
	while (i < n && blank(s[i]))
		i++;
	if (!hex_at(s, n, &i, &f->addr) || (i < n && !blank(s[i])))
		return 0;
	while (i < n && blank(s[i]))
		i++;
	size_t e = n;
	while (e > i && blank(s[e - 1]))
		e--;
	f->sym = s + i;
	f->sym_len = e - i;
	f->dso = NULL;
	f->dso_len = 0;
	if (e > i && s[e - 1] == ')') {
		/* the dso is in the last parentheses, which may hold
		 * others ("/memfd:x (deleted)") */
		size_t o = e - 1;
		int depth = 0;
		for (; o > i; o--) {
			depth += (s[o] == ')') - (s[o] == '(');
			if (!depth)
				break;
		}
		if (s[o] == '(' && !depth) {
			f->dso = s + o + 1;
			f->dso_len = e - 1 - (o + 1);
			size_t se = o;
			while (se > i && blank(s[se - 1]))
				se--;
			f->sym_len = se - i;
		}
	}
	if (f->sym_len == 9 && !memcmp(f->sym, "[unknown]", 9))
		f->sym_len = 0;
	if (f->dso_len == 9 && !memcmp(f->dso, "[unknown]", 9))
		f->dso_len = 0;
	return 1;
}

/* Kernel frames are in the top half (x86-64, arm64). */
static int kernel_addr(uint64_t a)
{
	return a >= 0xffff800000000000ull;
}

/* The next line of a block's text after *at (past a '\n'), or 0. */
static int next_text_line(const char *s, size_t n, size_t *at, const char **l,
			  size_t *ll)
{
	if (*at >= n)
		return 0;
	const char *nl = memchr(s + *at, '\n', n - *at);
	size_t e = nl ? (size_t)(nl - s) : n;
	*l = s + *at;
	*ll = e - *at;
	*at = e + 1;
	return 1;
}

static ps_reader *rd(const trawl_trace *t)
{
	return t->reader;
}

/* perf's name of an event as a trawl name, as lib/perf does: up to the
 * first ':', what an identifier cannot hold as '_'. */
static tw_type *perf_type(trawl_trace *t, ps_reader *r, const char *ev,
			  size_t len)
{
	if (r->last_type && len == r->last_ev_len &&
	    !memcmp(ev, r->last_ev, len))
		return r->last_type;
	char name[64];
	size_t n = 0;
	for (size_t i = 0; i < len && ev[i] != ':' && n + 1 < sizeof(name); i++)
		name[n++] = isalnum((unsigned char)ev[i]) ? ev[i] : '_';
	name[n] = 0;
	if (!n || isdigit((unsigned char)name[0]))
		return NULL;
	tw_type *ty = NULL;
	for (size_t i = 0; i < r->nperf_types && !ty; i++)
		if (!strcmp(r->perf_types[i]->name, name))
			ty = r->perf_types[i];
	if (!ty && r->nperf_types < PERF_TYPES_MAX &&
	    (ty = tw_type_new(t, name, "perf")))
		r->perf_types[r->nperf_types++] = ty;
	if (ty && len <= sizeof(r->last_ev)) {
		memcpy(r->last_ev, ev, len);
		r->last_ev_len = len;
		r->last_type = ty;
	}
	return ty;
}

static int put(trawl_trace *t, tw_buf *b, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int put(trawl_trace *t, tw_buf *b, const char *fmt, ...)
{
	char tmp[96];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(tmp))
		return -1;
	return tw_buf_append(&t->mem, b, tmp, (size_t)n);
}

static int put_bytes(trawl_trace *t, tw_buf *b, const char *s, size_t n)
{
	return n ? tw_buf_append(&t->mem, b, s, n) : 0;
}

/*
 * The event a record (tag, then its lines) stands for, into rec; made
 * texts into r->pay. Return: TW_NEXT_EVENT, 0 when it stands for none
 * (a stack of a sample without one), or -TRAWL_EPARSE / -TRAWL_ENOMEM.
 */
static int build(trawl_trace *t, ps_reader *r, const char *raw, size_t len,
		 tw_rec *rec, int scan)
{
	if (len < 2)
		return -TRAWL_EPARSE;
	char tag = raw[0];
	const char *s = raw + 1;
	size_t n = len - 1, at = 0;
	const char *l;
	size_t ll;
	next_text_line(s, n, &at, &l, &ll);
	ps_head h;
	tw_line_info info = {0};
	if (!parse_head(l, ll, &h, &info))
		return -TRAWL_EPARSE;
	memset(rec, 0, sizeof(*rec));
	rec->ts = h.ts;
	rec->raw = raw;
	rec->raw_len = (uint32_t)len;
	if (scan)
		return TW_NEXT_EVENT;
	rec->cpu = h.cpu;
	rec->pid = h.pid;
	rec->tgid = h.tgid;
	rec->flags = 0;
	rec->preempt = -1;
	rec->comm = h.comm;
	rec->comm_len = (uint32_t)h.comm_len;
	const char *tp;
	size_t tpl;
	int is_tp = tracepoint(&h, &tp, &tpl);
	if (tag == TAG_SAMPLE && is_tp) {
		rec->name = tp;
		rec->name_len = (uint32_t)tpl;
		rec->payload = h.rest;
		rec->payload_len = (uint32_t)h.rest_len;
		return TW_NEXT_EVENT;
	}
	tw_buf *p = &r->pay;
	p->len = 0;
	int rc = 0;
	if (tag == TAG_SAMPLE) {
		/* perf:NAME: ip from the line, else the callchain's first */
		tw_type *ty = perf_type(t, r, h.ev, h.ev_len);
		if (!ty)
			return -TRAWL_EPARSE;
		rec->type = ty;
		rec->bits |= TW_EV_TYPED;
		ps_frame f = {0};
		if (!h.rest_len || !parse_frame(h.rest, h.rest_len, &f)) {
			const char *fl;
			size_t fll;
			memset(&f, 0, sizeof(f));
			while (next_text_line(s, n, &at, &fl, &fll))
				if (parse_frame(fl, fll, &f))
					break;
		}
		rc = put(t, p, "ip=0x%llx", (unsigned long long)f.addr);
		if (!rc && h.has_period)
			rc = put(t, p, " period=%llu",
				 (unsigned long long)h.period);
		if (!rc && (f.sym_len || f.dso_len)) {
			rc = put_bytes(t, p, " (", 2) ||
			     put_bytes(t, p, f.sym, f.sym_len) ||
			     put_bytes(t, p, f.sym_len && f.dso_len ? " " : "",
				       f.sym_len && f.dso_len) ||
			     put_bytes(t, p, f.dso, f.dso_len) ||
			     put_bytes(t, p, ")", 1);
		}
	} else {
		int user = tag == TAG_USTACK;
		rec->name = user ? "user_stack" : "kernel_stack";
		rec->name_len = (uint32_t)strlen(rec->name);
		const char *head =
			user ? "<user stack trace>" : "<stack trace>";
		rc = put_bytes(t, p, head, strlen(head));
		size_t nf = 0;
		const char *fl;
		size_t fll;
		while (!rc && nf < FRAMES_MAX &&
		       next_text_line(s, n, &at, &fl, &fll)) {
			ps_frame f;
			/* a user frame of 0 (where a frame-pointer walk
			 * ended) is left out, as lib/perf leaves it */
			if (!parse_frame(fl, fll, &f) ||
			    kernel_addr(f.addr) == user || (user && !f.addr))
				continue;
			nf++;
			if (user) {
				rc = put(t, p, "\n =>  <%016llx>",
					 (unsigned long long)f.addr);
				if (!rc && f.dso_len)
					rc = put_bytes(t, p, " (", 2) ||
					     put_bytes(t, p, f.dso,
						       f.dso_len) ||
					     put(t, p, "+0x%llx)",
						 (unsigned long long)f.addr);
			} else {
				rc = put(t, p, "\n => 0x%llx",
					 (unsigned long long)f.addr);
				if (!rc && f.sym_len)
					rc = put_bytes(t, p, " ", 1) ||
					     put_bytes(t, p, f.sym, f.sym_len);
			}
		}
		if (user && !nf)
			return 0;
	}
	if (rc)
		return -TRAWL_ENOMEM;
	rec->payload = p->data;
	rec->payload_len = (uint32_t)p->len;
	return TW_NEXT_EVENT;
}

static int bad_line(trawl_trace *t, ps_reader *r, uint64_t line, const char *s,
		    size_t n, const tw_line_info *info, trawl_error *err)
{
	if (!r->strict) {
		tw_note_bad_line(t, line);
		return 0;
	}
	char shown[48];
	size_t k = 0;
	for (size_t i = 0; s && i < n && k + 4 < sizeof(shown); i++)
		shown[k++] = isprint((unsigned char)s[i]) ? s[i] : '?';
	shown[k] = '\0';
	return tw_error_at(
		err, TRAWL_EPARSE, 0, t->name, line, (uint32_t)info->col + 1,
		tw_input_offset(r->in),
		"cannot parse perf script line \"%s%s\": expected %s", shown,
		k < n ? "..." : "", info->why ? info->why : "a sample");
}

/* The next line: the one held back, else the input's. */
static int read_line(ps_reader *r, const char **s, size_t *n, uint64_t *line,
		     trawl_error *err)
{
	if (r->has_pending) {
		r->has_pending = 0;
		*s = r->pending.data;
		*n = r->pending.len;
		*line = r->pending_line;
		return TW_LINE_OK;
	}
	int rc = tw_input_line(r->in, s, n, err);
	*line = tw_input_line_no(r->in);
	return rc;
}

/* Lines that are no sample: comments, perf's own records. -1: neither. */
static int other_line(trawl_trace *t, const ps_head *h, int scan)
{
	if (h->ev_len > 12 && !memcmp(h->ev, "PERF_RECORD_", 12)) {
		if (!scan)
			t->stats.skipped_records++;
		return 1;
	}
	return -1;
}

/*
 * Gather a sample line and the callchain lines after it into r->blk;
 * the line after them (not a frame) is held back.
 */
static int gather(trawl_trace *t, ps_reader *r, const char *s, size_t n,
		  uint64_t line, int scan, trawl_error *err)
{
	tw_buf *b = &r->blk;
	b->len = 0;
	if (tw_buf_append(&t->mem, b, "S", 1) ||
	    tw_buf_append(&t->mem, b, s, n))
		goto nomem;
	r->blk_line = line;
	size_t frames = 0, user = 0;
	for (;;) {
		const char *l;
		size_t ll;
		uint64_t no;
		int rc = read_line(r, &l, &ll, &no, err);
		if (rc < 0)
			return rc;
		if (rc == TW_LINE_EOF)
			break;
		if (rc == TW_LINE_TOO_LONG) {
			if (!scan && (rc = bad_line(t, r, no, NULL, 0,
						    &(tw_line_info){0}, err)))
				return rc;
			continue;
		}
		if (ll == 0 || l[0] != '\t') {
			size_t k = 0;
			while (k < ll && blank(l[k]))
				k++;
			if (k == ll) /* the blank line ending a callchain */
				break;
			r->pending.len = 0;
			if (tw_buf_append(&t->mem, &r->pending, l, ll))
				goto nomem;
			r->pending_line = no;
			r->has_pending = 1;
			break;
		}
		ps_frame f;
		if (!parse_frame(l, ll, &f)) {
			tw_line_info info = {.why = "a callchain frame"};
			if (!scan &&
			    (rc = bad_line(t, r, no, l, ll, &info, err)))
				return rc;
			continue;
		}
		if (frames == FRAMES_MAX)
			continue;
		frames++;
		user += !kernel_addr(f.addr) && f.addr;
		if (tw_buf_append(&t->mem, b, "\n", 1) ||
		    tw_buf_append(&t->mem, b, l, ll))
			goto nomem;
	}
	r->ntags = r->itag = 0;
	r->tags[r->ntags++] = TAG_SAMPLE;
	if (frames) {
		r->tags[r->ntags++] = TAG_KSTACK;
		if (user)
			r->tags[r->ntags++] = TAG_USTACK;
	}
	return 0;
nomem:
	return tw_error_at(err, TRAWL_ENOMEM, 0, t->name, line, 0, 0,
			   "out of memory");
}

static int next(trawl_trace *t, tw_rec *rec, int scan, trawl_error *err)
{
	ps_reader *r = rd(t);
	for (;;) {
		while (r->itag < r->ntags) {
			r->blk.data[0] = r->tags[r->itag++];
			int rc =
				build(t, r, r->blk.data, r->blk.len, rec, scan);
			if (rc == -TRAWL_ENOMEM)
				return tw_error_at(err, TRAWL_ENOMEM, 0,
						   t->name, r->blk_line, 0, 0,
						   "out of memory");
			if (rc == TW_NEXT_EVENT) {
				rec->line = r->blk_line;
				return rc;
			}
			if (rc < 0 && r->blk.data[0] == TAG_SAMPLE && !scan) {
				/* an event name trawl cannot take */
				tw_line_info info = {
					.why = "an event name trawl can take"};
				if ((rc = bad_line(t, r, r->blk_line,
						   r->blk.data + 1,
						   r->blk.len - 1, &info, err)))
					return rc;
			}
		}
		const char *s;
		size_t n;
		uint64_t line;
		int rc = read_line(r, &s, &n, &line, err);
		if (rc < 0)
			return rc;
		if (rc == TW_LINE_EOF) {
			if (!scan) {
				t->stats.bytes = tw_input_offset(r->in);
				t->stats.lines = tw_input_line_no(r->in);
			}
			return TW_NEXT_EOF;
		}
		tw_line_info info = {0};
		if (rc == TW_LINE_TOO_LONG) {
			if (!scan &&
			    (rc = bad_line(t, r, line, NULL, 0, &info, err)))
				return rc;
			continue;
		}
		size_t k = 0;
		while (k < n && blank(s[k]))
			k++;
		if (k == n || s[k] == '#')
			continue;
		ps_head h;
		if (s[0] == '\t') {
			info.why = "a sample line before its callchain";
		} else if (parse_head(s, n, &h, &info)) {
			if (other_line(t, &h, scan) >= 0)
				continue;
			if ((rc = gather(t, r, s, n, line, scan, err)))
				return rc;
			continue;
		}
		if (!scan && (rc = bad_line(t, r, line, s, n, &info, err)))
			return rc;
	}
}

static int rewind_input(trawl_trace *t, trawl_error *err)
{
	ps_reader *r = rd(t);
	r->ntags = r->itag = 0;
	r->has_pending = 0;
	return tw_input_rewind(r->in, err);
}

static int reparse(trawl_trace *t, const char *raw, size_t len, tw_rec *rec)
{
	int rc = build(t, rd(t), raw, len, rec, 0);
	return rc == TW_NEXT_EVENT ? rc : -TRAWL_EPARSE;
}

/* The types whose texts are made here: their fields are read back here. */
static int made_here(const tw_type *ty)
{
	return !strcmp(ty->system, "perf") ||
	       (!strcmp(ty->system, "ftrace") &&
		(!strcmp(ty->name, "kernel_stack") ||
		 !strcmp(ty->name, "user_stack")));
}

/* The fields being made: their texts in fields_z, placed at the end. */
typedef struct ps_fields {
	trawl_event *ev;
	size_t at[4];
	int n;
} ps_fields;

static void add_int(ps_fields *fs, const char *name, uint64_t v, int uns)
{
	trawl_event *ev = fs->ev;
	int i = fs->n++;
	char num[24];
	int len =
		uns ? snprintf(num, sizeof(num), "%llu", (unsigned long long)v)
		    : snprintf(num, sizeof(num), "%lld", (long long)v);
	fs->at[i] = ev->fields_z.len;
	if (tw_buf_append(&ev->t->mem, &ev->fields_z, num, (size_t)len))
		len = 0, fs->at[i] = ev->fields_z.len;
	ev->fields[i] =
		(tw_kv){name, NULL, (uint32_t)strlen(name), (uint32_t)len};
	ev->tv[i] = (tw_pf_value){.type = TW_PFV_INT,
				  .exact = 1,
				  .uns = (uint8_t)uns,
				  .i = (int64_t)v,
				  .slen = (uint32_t)len};
}

static void add_text(ps_fields *fs, const char *name, int type, const char *s,
		     size_t len)
{
	trawl_event *ev = fs->ev;
	int i = fs->n++;
	fs->at[i] = ev->fields_z.len;
	if (len && tw_buf_append(&ev->t->mem, &ev->fields_z, s, len))
		len = 0, fs->at[i] = ev->fields_z.len;
	ev->fields[i] =
		(tw_kv){name, NULL, (uint32_t)strlen(name), (uint32_t)len};
	ev->tv[i] = (tw_pf_value){
		.type = (uint8_t)type, .uns = 1, .slen = (uint32_t)len};
}

/* The field texts' places, now that fields_z has stopped moving. */
static void place(ps_fields *fs)
{
	trawl_event *ev = fs->ev;
	for (int i = 0; i < fs->n; i++) {
		const char *v =
			ev->fields_z.data ? ev->fields_z.data + fs->at[i] : "";
		ev->fields[i].val = v;
		ev->tv[i].s = v;
	}
	ev->nfields = fs->n;
	ev->typed = 1;
	ev->decode_done = 1;
}

/* A number after "key=0x" or "key=" in the text; 0 when it is absent. */
static uint64_t text_num(const char *s, size_t n, const char *key, int hex,
			 int *found)
{
	size_t kl = strlen(key);
	*found = 0;
	for (size_t i = 0; i + kl <= n; i++) {
		if ((i && s[i - 1] != ' ') || memcmp(s + i, key, kl))
			continue;
		size_t j = i + kl;
		uint64_t v = 0;
		if (hex) {
			if (!hex_at(s, n, &j, &v))
				return 0;
		} else {
			while (j < n && s[j] >= '0' && s[j] <= '9')
				v = v * 10 + (uint64_t)(s[j++] - '0');
		}
		*found = 1;
		return v;
	}
	return 0;
}

/* A stack's frames from its text (" => 0xADDR sym", " =>  <ADDR> (map)"),
 * their maps (a line each) into maps. */
static void stack_fields(trawl_event *ev, ps_fields *fs, int user)
{
	const tw_mem *mem = &ev->t->mem;
	const char *s = ev->payload;
	size_t n = ev->payload_len, at = 0;
	const char *l;
	size_t ll;
	ev->elems_z.len = 0;
	tw_buf maps = {0};
	int64_t nf = 0;
	next_text_line(s, n, &at, &l, &ll); /* the head */
	while (next_text_line(s, n, &at, &l, &ll)) {
		size_t i = 0;
		while (i < ll && (blank(l[i]) || l[i] == '=' || l[i] == '>' ||
				  l[i] == '<'))
			i++;
		if (!user && i + 1 < ll && l[i] == '0' && l[i + 1] == 'x')
			i += 2;
		uint64_t a;
		if (!hex_at(l, ll, &i, &a))
			continue;
		if (tw_buf_append(mem, &ev->elems_z, &a, sizeof(a)))
			break;
		nf++;
		if (!user)
			continue;
		const char *o = memchr(l + i, '(', ll - i);
		size_t ml = 0;
		if (o && l[ll - 1] == ')')
			ml = (size_t)(l + ll - 1 - (o + 1));
		if (tw_buf_append(mem, &maps, o ? o + 1 : "", ml) ||
		    tw_buf_append(mem, &maps, "\n", 1))
			break;
	}
	if (user) {
		if (ev->tgid >= 0)
			add_int(fs, "tgid", (uint64_t)ev->tgid, 1);
		/* a line a frame, each ended, as lib/perf writes it */
		add_text(fs, "maps", TW_PFV_STR, maps.data ? maps.data : "",
			 maps.len);
	} else {
		add_int(fs, "size", (uint64_t)nf, 0);
	}
	tw_buf_fini(mem, &maps);
	int i = fs->n;
	add_text(fs, "caller", TW_PFV_ARRAY, "", 0);
	ev->tv[i].nelem = (uint16_t)(nf > 65535 ? 65535 : nf);
	ev->tv[i].elem0 = 0;
}

static void decode(const trawl_trace *t, trawl_event *ev, const char *key,
		   size_t klen)
{
	if (!made_here(ev->type)) {
		tw_text_decode(t, ev, key, klen);
		return;
	}
	if (ev->nfields >= 0)
		return;
	ps_fields fs = {.ev = ev};
	ev->fields_z.len = 0;
	if (!strcmp(ev->type->system, "perf")) {
		int found;
		uint64_t ip = text_num(ev->payload, ev->payload_len, "ip=0x", 1,
				       &found);
		add_int(&fs, "ip", ip, 1);
		uint64_t period = text_num(ev->payload, ev->payload_len,
					   "period=", 0, &found);
		if (found)
			add_int(&fs, "period", period, 1);
	} else {
		stack_fields(ev, &fs, !strcmp(ev->type->name, "user_stack"));
	}
	place(&fs);
}

static int seek(const trawl_trace *t, const trawl_event *ev, const char *key,
		size_t klen, tw_kv *out)
{
	if (made_here(ev->type))
		return 0;
	return tw_text_seek(t, ev, key, klen, out);
}

static int fields_source(trawl_trace *t, tw_type *ty)
{
	if (made_here(ty) || tw_textfmt_of(t, ty))
		return TRAWL_FIELDS_FORMAT;
	return ty->pf_state == 2 ? TRAWL_FIELDS_FALLBACK : TRAWL_FIELDS_GENERIC;
}

static void progress(const trawl_trace *t, uint64_t *done, uint64_t *total)
{
	*done = tw_input_progress(rd(t)->in);
	*total = tw_input_size(rd(t)->in);
}

static void close_reader(trawl_trace *t)
{
	ps_reader *r = rd(t);
	if (!r)
		return;
	tw_input_close(r->in);
	tw_buf_fini(&t->mem, &r->blk);
	tw_buf_fini(&t->mem, &r->pending);
	tw_buf_fini(&t->mem, &r->pay);
	tw_free(&t->mem, r);
	t->reader = NULL;
}

static const tw_reader_ops perfscript_ops = {
	.next = next,
	.rewind = rewind_input,
	.reparse = reparse,
	.decode = decode,
	.seek = seek,
	.fields_source = fields_source,
	.progress = progress,
	.close = close_reader,
};

int tw_perfscript_detect(const char *p, size_t n)
{
	size_t samples = 0, events = 0, others = 0;
	for (size_t b = 0; b < n && samples + events < 64;) {
		const char *nl = memchr(p + b, '\n', n - b);
		if (!nl)
			break; /* the cut-off last line proves nothing */
		size_t e = (size_t)(nl - p),
		       len = tw_line_trim_cr(p + b, e - b);
		const char *s = p + b;
		b = e + 1;
		size_t k = 0;
		while (k < len && blank(s[k]))
			k++;
		if (k == len || s[k] == '#' || s[0] == '\t')
			continue;
		ps_head h;
		tw_line_info info = {0};
		tw_rec r;
		if (parse_head(s, len, &h, &info))
			samples++;
		else if (tw_ftrace_parse(s, len, &r, &info) == TW_L_EVENT)
			events++;
		else
			others++;
	}
	return samples > events && samples * 4 >= others;
}

int tw_perfscript_open(trawl_trace *t, struct tw_input *in, trawl_error *err)
{
	ps_reader *r = tw_calloc(&t->mem, 1, sizeof(*r));
	if (!r) {
		tw_input_close(in);
		return tw_error_at(err, TRAWL_ENOMEM, 0, t->name, 0, 0, 0,
				   "out of memory");
	}
	r->in = in;
	r->strict = (t->opts.flags & TRAWL_OPEN_STRICT) != 0;
	t->reader = r;
	t->ops = &perfscript_ops;
	t->format = TRAWL_FORMAT_PERF_SCRIPT;
	return tw_textfmt_init(t, err);
}
