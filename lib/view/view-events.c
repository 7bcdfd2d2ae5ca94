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
#include <stdlib.h>
#include <string.h>

#include "view.h"

/* The filter of a list: event names, pid=N, cpu=N, comma-separated. */
struct ev_filter {
	const char *names[16];
	size_t lens[16];
	int nnames;
	int64_t pid, cpu; /* -1: any */
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
	size_t limit, n;
	uint64_t last_seq; /* the last event looked at */
	int ended;	   /* reached the window's end */
	struct view_out *b;
};

static int matches(const struct ev_filter *f, const trawl_event *ev)
{
	if (!f)
		return 1;
	if (f->pid >= 0 && trawl_event_pid(ev) != f->pid)
		return 0;
	if (f->cpu >= 0 && trawl_event_cpu(ev) != f->cpu)
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
	if (!matches(p->f, ev))
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

int view_events_page(struct view_index *ix, uint64_t from_seq, int64_t to,
		     const char *filter, size_t limit, struct view_out *b,
		     uint64_t *next, int *ended, char *why, size_t whylen)
{
	struct ev_filter f = {.pid = -1, .cpu = -1};
	int filtered = filter && *filter;
	for (const char *s = filter; filtered && *s;) {
		size_t n = strcspn(s, ",");
		if (n > 4 && !strncmp(s, "pid=", 4))
			f.pid = strtoll(s + 4, NULL, 10);
		else if (n > 4 && !strncmp(s, "cpu=", 4))
			f.cpu = strtoll(s + 4, NULL, 10);
		else if (n && f.nnames < 16) {
			f.names[f.nnames] = s;
			f.lens[f.nnames++] = n;
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
