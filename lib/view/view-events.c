/* SPDX-License-Identifier: MIT */
/*
 * The viewer's event list: the events of a window read back from the
 * trace, by their place in the whole run's order (seq), so that a list of
 * a million rows costs one short read per page. A page starts at the
 * checkpoint at or before its first seq (view-index.c writes one every
 * VIEW_CHECK_EVENTS events, at an indexed event with its seq) and a ranged
 * run from there: the run's own numbering is the whole run's from that
 * checkpoint's event on (the first indexed event the range meets; events
 * before it share its time and come before it in the whole run).
 */
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "view.h"

#define MAX_NAMES 16
#define MAX_CONDS 8

/* FIELD OP VALUE of a list's filter: OP one of == != < <= > >= ~ (a glob
 * on the text); VALUE a number, else text compared with the field's
 * label (prev_state==D) or its text; FIELD an event's field, or comm. */
enum { C_EQ, C_NE, C_LT, C_LE, C_GT, C_GE, C_GLOB };

struct ev_cond {
	char field[64];
	int op;
	char text[128]; /* the value as written, unquoted */
	int is_num;
	int64_t num;
	int is_comm; /* the field is the task's name, not an event's */
};

/* The filter of a list: event names, pid=N, cpu=N and FIELD OP VALUE
 * conditions, comma-separated: an event passes when its name is one of
 * the names (if any) and every condition holds. */
struct ev_filter {
	const char *names[MAX_NAMES];
	size_t lens[MAX_NAMES];
	int nnames;
	int64_t pid, cpu; /* -1: any */
	struct ev_cond conds[MAX_CONDS];
	int nconds;
};

struct pager {
	const struct view_index *ix;
	int known;
	uint64_t check_seq;
	int64_t seq_off;
	/* what is wanted */
	uint64_t from_seq; /* the first row's seq */
	int64_t to;	   /* the window's end (exclusive) */
	int64_t time_at;   /* find mode: the first seq at or after it */
	int find;
	uint64_t found; /* find mode: the seq found */
	int found_ok;
	const struct ev_filter *f;
	trawl_field handles[MAX_CONDS]; /* the conditions' fields, in the
					 * trace being read */
	size_t limit, n;
	uint64_t last_seq; /* the last event looked at */
	int ended;	   /* reached the window's end */
	struct view_out *b;
};

static int holds(int op, int cmp)
{
	switch (op) {
	case C_EQ:
		return cmp == 0;
	case C_NE:
		return cmp != 0;
	case C_LT:
		return cmp < 0;
	case C_LE:
		return cmp <= 0;
	case C_GT:
		return cmp > 0;
	default:
		return cmp >= 0;
	}
}

/* c on ev (field handle h): a number against the field's integer, text
 * against its label or text; an event without the field fails it. */
static int cond_holds(const struct ev_cond *c, trawl_field h,
		      const trawl_event *ev)
{
	const char *s;
	size_t n;
	char buf[160];
	if (c->is_comm) {
		s = trawl_event_comm(ev);
		n = strlen(s);
	} else {
		if (!trawl_event_has(ev, h))
			return 0;
		int64_t v;
		if (c->is_num && c->op != C_GLOB &&
		    !trawl_event_get_int(ev, h, &v))
			return holds(c->op, (v > c->num) - (v < c->num));
		s = trawl_event_label(ev, h, &n);
		if (!s)
			s = trawl_event_raw(ev, h, &n);
		if (!s)
			return 0;
	}
	if (n >= sizeof(buf))
		n = sizeof(buf) - 1;
	memcpy(buf, s, n);
	buf[n] = 0;
	if (c->op == C_GLOB)
		return fnmatch(c->text, buf, 0) == 0;
	int cmp = strcmp(buf, c->text);
	return holds(c->op, (cmp > 0) - (cmp < 0));
}

static int matches(const struct pager *p, const trawl_event *ev)
{
	const struct ev_filter *f = p->f;
	if (!f)
		return 1;
	if (f->pid >= 0 && trawl_event_pid(ev) != f->pid)
		return 0;
	if (f->cpu >= 0 && trawl_event_cpu(ev) != f->cpu)
		return 0;
	for (int i = 0; i < f->nconds; i++)
		if (!cond_holds(&f->conds[i], p->handles[i], ev))
			return 0;
	if (!f->nnames)
		return 1;
	const char *name = trawl_event_name(ev);
	size_t n = strlen(name);
	for (int i = 0; i < f->nnames; i++)
		if (f->lens[i] == n && !memcmp(f->names[i], name, n))
			return 1;
	return 0;
}

static int on_event(const trawl_event *ev, void *ctx)
{
	struct pager *p = ctx;
	if (!p->known) {
		if (!view_indexed_event(trawl_event_name(ev)))
			return 0;
		p->known = 1;
		p->seq_off =
			(int64_t)p->check_seq - (int64_t)trawl_event_seq(ev);
	}
	uint64_t seq = (uint64_t)((int64_t)trawl_event_seq(ev) + p->seq_off);
	int64_t ts = trawl_event_time(ev);
	if (p->find) {
		if (ts < p->time_at)
			return 0;
		p->found = seq;
		p->found_ok = 1;
		return 1;
	}
	if (seq < p->from_seq)
		return 0;
	if (ts >= p->to) {
		p->ended = 1;
		return 1;
	}
	p->last_seq = seq;
	if (!matches(p, ev))
		return 0;
	struct view_out *b = p->b;
	if (p->n++)
		vo_char(b, ',');
	vo_str(b, "{\"seq\":");
	vo_u64(b, seq);
	vo_str(b, ",\"time\":");
	vo_i64(b, ts);
	vo_str(b, ",\"cpu\":");
	vo_i64(b, trawl_event_cpu(ev));
	vo_str(b, ",\"pid\":");
	vo_i64(b, trawl_event_pid(ev));
	vo_str(b, ",\"comm\":");
	const char *comm = trawl_event_comm(ev);
	vo_json(b, comm, strlen(comm));
	vo_str(b, ",\"event\":");
	const char *name = trawl_event_name(ev);
	vo_json(b, name, strlen(name));
	size_t tn;
	const char *text = trawl_event_payload(ev, &tn);
	vo_str(b, ",\"text\":");
	vo_json(b, text ? text : "", text ? tn : 0);
	vo_char(b, '}');
	return p->n >= p->limit;
}

/*
 * Where a read that needs the events up to seq `upto` can stop: just past
 * the checkpoint after it (every event before a checkpoint's is at or
 * before its time), and `to` when that is sooner. A ranged read costs
 * what its range holds (a text trace's range is pre-scanned for its
 * order), so a page of a window of millions of events costs a page, not
 * the rest of the window. *bounded: it stops before `to`.
 */
static int64_t read_to(const struct view_index *ix, uint64_t upto, int64_t to,
		       int *bounded)
{
	ssize_t j = view_checkpoint_before(ix, upto, 0) + 1;
	*bounded = (size_t)j < ix->nchecks && ix->checks[j].t < to - 1;
	return *bounded ? ix->checks[j].t + 1 : to;
}

/* A ranged run from checkpoint k to `to` with p's callback. */
static int run_from(struct view_index *ix, ssize_t k, int64_t to,
		    struct pager *p, char *why, size_t whylen)
{
	p->known = k < 0;
	p->check_seq = k >= 0 ? ix->checks[k].seq : 0;
	p->seq_off = 0;
	trawl_error err = {0};
	pthread_mutex_lock(&ix->reread);
	trawl_trace *t = view_reopen(ix, k, to, &err);
	int rc = t ? trawl_on(t, "*", on_event, p) : -1;
	for (int i = 0; !rc && p->f && i < p->f->nconds; i++)
		if (!p->f->conds[i].is_comm &&
		    !(p->handles[i] = trawl_field_lookup(t, NULL,
							 p->f->conds[i].field)))
			rc = -1;
	if (!rc)
		rc = trawl_run(t, &err);
	trawl_close(t);
	pthread_mutex_unlock(&ix->reread);
	if (rc < 0) {
		snprintf(why, whylen, "%s", err.msg);
		return -1;
	}
	return 0;
}

int view_events_seq_at(struct view_index *ix, int64_t t, uint64_t *seq,
		       char *why, size_t whylen)
{
	if (t <= ix->first) {
		*seq = 0;
		return 0;
	}
	if (t > ix->last) {
		*seq = ix->events;
		return 0;
	}
	struct pager p = {.ix = ix, .find = 1, .time_at = t};
	ssize_t k = view_checkpoint_before(ix, (uint64_t)t, 1);
	/* the event is at the latest the next checkpoint's */
	int64_t to = ix->last + 1;
	if ((size_t)(k + 1) < ix->nchecks && ix->checks[k + 1].t < to - 1)
		to = ix->checks[k + 1].t + 1;
	if (run_from(ix, k, to, &p, why, whylen))
		return -1;
	*seq = p.found_ok ? p.found : ix->events;
	return 0;
}

/* FIELD OP VALUE (s, n bytes) into c. Return: 0, or -1 with why. */
static int parse_cond(const char *s, size_t n, struct ev_cond *c, char *why,
		      size_t whylen)
{
	static const struct {
		const char *op;
		int code;
	} ops[] = {{"==", C_EQ}, {"!=", C_NE}, {"<=", C_LE}, {">=", C_GE},
		   {"<", C_LT},	 {">", C_GT},  {"~", C_GLOB}};
	size_t f = 0;
	while (f < n && !strchr("=!<>~", s[f]))
		f++;
	size_t k;
	for (k = 0; k < sizeof(ops) / sizeof(ops[0]); k++)
		if (!strncmp(s + f, ops[k].op, strlen(ops[k].op)))
			break;
	while (f && s[f - 1] == ' ')
		f--;
	if (k == sizeof(ops) / sizeof(ops[0]) || !f || f >= sizeof(c->field)) {
		snprintf(why, whylen,
			 "cannot read the condition '%.*s' (FIELD OP VALUE, OP "
			 "one of == != < <= > >= ~)",
			 (int)n, s);
		return -1;
	}
	memcpy(c->field, s, f);
	c->field[f] = 0;
	c->is_comm = !strcmp(c->field, "comm");
	c->op = ops[k].code;
	const char *v = s + f;
	while (*v == ' ')
		v++;
	v += strlen(ops[k].op);
	size_t vn = (size_t)(s + n - v);
	while (vn && *v == ' ')
		v++, vn--;
	if (vn >= 2 && v[0] == '"' && v[vn - 1] == '"')
		v++, vn -= 2;
	if (vn >= sizeof(c->text)) {
		snprintf(why, whylen,
			 "the condition's value is too long: '%.*s'", (int)n,
			 s);
		return -1;
	}
	memcpy(c->text, v, vn);
	c->text[vn] = 0;
	char *end;
	c->num = strtoll(c->text, &end, 0);
	c->is_num = vn && !*end;
	return 0;
}

int view_events_page(struct view_index *ix, uint64_t from_seq, int64_t to,
		     const char *filter, size_t limit, struct view_out *b,
		     uint64_t *next, int *ended, char *why, size_t whylen)
{
	struct ev_filter f = {.pid = -1, .cpu = -1};
	int filtered = filter && *filter;
	for (const char *s = filter; filtered && *s;) {
		size_t n = strcspn(s, ",");
		if (n > 4 && !strncmp(s, "pid=", 4) && s[4] != '=')
			f.pid = strtoll(s + 4, NULL, 10);
		else if (n > 4 && !strncmp(s, "cpu=", 4) && s[4] != '=')
			f.cpu = strtoll(s + 4, NULL, 10);
		else if (n && memchr(s, '=', n) == NULL && !memchr(s, '<', n) &&
			 !memchr(s, '>', n) && !memchr(s, '~', n)) {
			if (f.nnames == MAX_NAMES) {
				snprintf(why, whylen,
					 "a filter of more than %d event names",
					 MAX_NAMES);
				return -1;
			}
			f.names[f.nnames] = s;
			f.lens[f.nnames++] = n;
		} else if (n) {
			if (f.nconds == MAX_CONDS) {
				snprintf(why, whylen,
					 "a filter of more than %d conditions",
					 MAX_CONDS);
				return -1;
			}
			if (parse_cond(s, n, &f.conds[f.nconds++], why, whylen))
				return -1;
		}
		s += n + (s[n] == ',');
	}
	if (!ix->path || !strcmp(ix->path, "-")) {
		snprintf(why, whylen, "standard input cannot be read again");
		return -1;
	}
	struct pager p = {.ix = ix,
			  .from_seq = from_seq,
			  .to = to,
			  .f = filtered ? &f : NULL,
			  .limit = limit,
			  .b = b,
			  .last_seq = from_seq ? from_seq - 1 : 0};
	ssize_t k = view_checkpoint_before(ix, from_seq, 0);
	/* a page without a filter ends by its last row; a filtered one
	 * looks a few checkpoints on, and says where to go on from */
	int bounded;
	int64_t run_to = read_to(
		ix,
		from_seq + limit + (filtered ? 8ull * VIEW_CHECK_EVENTS : 0),
		to, &bounded);
	if (run_from(ix, k, run_to, &p, why, whylen))
		return -1;
	/* the next page starts after the last event looked at */
	*next = p.last_seq + 1 > from_seq ? p.last_seq + 1 : from_seq;
	*ended = p.ended || (p.n < limit && !bounded);
	return 0;
}
