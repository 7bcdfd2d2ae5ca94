/* SPDX-License-Identifier: MIT */
/*
 * Android systrace / atrace markers (trace_marker writes): B|pid|name opens
 * a slice on the writing thread, E closes that thread's innermost one, so
 * slices nest as a stack per thread (as atrace and Perfetto read them).
 * Self time is a slice's duration minus its direct children's. S|pid|name|
 * cookie .. F|pid|name|cookie are async slices, matched by (pid, name,
 * cookie) across threads. C|pid|name|value samples a counter. An
 * application channel's slice_begin, slice_end and counter (lib/ring,
 * `trawl record --app`) are the same markers (trawl_event_marker()).
 *
 * Memory: a stack per thread (at most MAX_DEPTH open slices, so a stream of
 * B without E cannot grow it with the trace) and at most MAX_ASYNC open
 * async slices, both counted as anomalies when exceeded.
 */
#include "analysis-int.h"

#define MAX_DEPTH 256
#define MAX_ASYNC 4096
#define NAME_MAX_ 96

enum part_index { P_SLICES, P_ASYNC, P_COUNTERS };

enum {
	A_E_NO_B,
	A_B_OPEN,
	A_TOO_DEEP,
};

enum {
	A_F_NO_S,
	A_S_OPEN,
	A_TOO_MANY,
};

struct open_slice {
	int64_t start;
	int64_t children; /* total duration of direct children */
	char name[NAME_MAX_];
};

struct thread {
	int tid;
	int depth;
	int wanted;
	struct open_slice *stack; /* MAX_DEPTH, allocated on first B */
};

struct open_async {
	int64_t pid, cookie, start;
	int tid, wanted;
	char name[NAME_MAX_];
};

struct slices {
	tw_map tids;
	struct thread *th;
	size_t nth, thcap;
	struct open_async *async;
	size_t nasync;
};

static void copy_name(char *dst, const char *s, size_t n)
{
	if (n >= NAME_MAX_)
		n = NAME_MAX_ - 1;
	memcpy(dst, s ? s : "", n);
	dst[n] = '\0';
}

static struct thread *thread_of(trawl_analysis *a, struct slices *s, int tid)
{
	int added;
	long i = tw_map_put(&s->tids, &tid, sizeof(tid), &added);
	if (i < 0)
		return NULL;
	if (added) {
		if (tw_grow(a->mem, (void **)&s->th, &s->thcap, s->nth + 1,
			    sizeof(*s->th)))
			return NULL;
		memset(&s->th[s->nth], 0, sizeof(*s->th));
		s->th[s->nth++].tid = tid;
	}
	return &s->th[i];
}

/* Row of (thread or pid, name) in a part. */
static tw_row *row_of(trawl_analysis *a, unsigned part, int64_t id,
		      const char *name, const char *kind)
{
	char key[8 + NAME_MAX_];
	size_t n = strlen(name);
	memcpy(key, &id, 8);
	memcpy(key + 8, name, n);
	return tw_part_row(a, &a->parts[part], key, 8 + n, name, n, kind, id,
			   -1);
}

static int begin(trawl_analysis *a, struct slices *s, const trawl_event *ev,
		 const trawl_marker *m)
{
	struct thread *th = thread_of(a, s, trawl_event_pid(ev));
	if (!th)
		return tw_oom(a);
	if (!th->stack) {
		th->stack = tw_malloc(a->mem, MAX_DEPTH * sizeof(*th->stack));
		if (!th->stack)
			return tw_oom(a);
	}
	if (th->depth == MAX_DEPTH) {
		tw_part_anomaly(&a->parts[P_SLICES], A_TOO_DEEP,
				"B nested too deep (dropped)",
				trawl_event_time(ev));
		return 0;
	}
	struct open_slice *o = &th->stack[th->depth++];
	o->start = trawl_event_time(ev);
	o->children = 0;
	copy_name(o->name, m->name, m->name_len);
	const char *comm = trawl_event_comm(ev);
	th->wanted = tw_task_wanted(a, th->tid, comm, strlen(comm));
	return 0;
}

static int end(trawl_analysis *a, struct slices *s, const trawl_event *ev)
{
	int64_t ts = trawl_event_time(ev);
	struct thread *th = thread_of(a, s, trawl_event_pid(ev));
	if (!th)
		return tw_oom(a);
	if (!th->depth) {
		tw_part_anomaly(&a->parts[P_SLICES], A_E_NO_B, "E without B",
				ts);
		return 0;
	}
	struct open_slice *o = &th->stack[--th->depth];
	int64_t dur = ts - o->start;
	if (th->depth)
		th->stack[th->depth - 1].children += dur;
	if (!th->wanted)
		return 0;
	tw_row *r = row_of(a, P_SLICES, th->tid, o->name, "slice");
	if (!r)
		return tw_oom(a);
	r->row.self += dur - o->children;
	if (th->depth > r->row.depth)
		r->row.depth = th->depth;
	trawl_instance in = {
		.start = o->start,
		.end = ts,
		.pid = th->tid,
		.cpu = trawl_event_cpu(ev),
		.id = th->depth,
		.name = o->name,
	};
	return tw_part_add(a, &a->parts[P_SLICES], r, &in);
}

static int async(trawl_analysis *a, struct slices *s, const trawl_event *ev,
		 const trawl_marker *m)
{
	int64_t ts = trawl_event_time(ev);
	char name[NAME_MAX_];
	copy_name(name, m->name, m->name_len);
	size_t i;
	for (i = 0; i < s->nasync; i++)
		if (s->async[i].pid == m->pid &&
		    s->async[i].cookie == m->value &&
		    !strcmp(s->async[i].name, name))
			break;
	if (m->kind == TRAWL_MARKER_ASYNC_BEGIN) {
		if (i < s->nasync)
			return 0; /* already open: the first S counts */
		if (s->nasync == MAX_ASYNC) {
			tw_part_anomaly(&a->parts[P_ASYNC], A_TOO_MANY,
					"too many open S (dropped)", ts);
			return 0;
		}
		struct open_async *o = &s->async[s->nasync++];
		o->pid = m->pid;
		o->cookie = m->value;
		o->start = ts;
		o->tid = trawl_event_pid(ev);
		const char *comm = trawl_event_comm(ev);
		o->wanted = tw_task_wanted(a, o->tid, comm, strlen(comm));
		memcpy(o->name, name, sizeof(name));
		return 0;
	}
	if (i == s->nasync) {
		tw_part_anomaly(&a->parts[P_ASYNC], A_F_NO_S, "F without S",
				ts);
		return 0;
	}
	struct open_async o = s->async[i];
	s->async[i] = s->async[--s->nasync];
	if (!o.wanted)
		return 0;
	tw_row *r = row_of(a, P_ASYNC, o.pid, o.name, "async");
	if (!r)
		return tw_oom(a);
	trawl_instance in = {
		.start = o.start,
		.end = ts,
		.pid = o.tid,
		.cpu = trawl_event_cpu(ev),
		.id = o.cookie,
		.name = o.name,
	};
	return tw_part_add(a, &a->parts[P_ASYNC], r, &in);
}

static int counter(trawl_analysis *a, const trawl_event *ev,
		   const trawl_marker *m)
{
	const char *comm = trawl_event_comm(ev);
	if (!tw_task_wanted(a, trawl_event_pid(ev), comm, strlen(comm)))
		return 0;
	char name[NAME_MAX_];
	copy_name(name, m->name, m->name_len);
	tw_row *r = row_of(a, P_COUNTERS, m->pid, name, "counter");
	if (!r)
		return tw_oom(a);
	/* A value is not a duration: min, max and total are kept exactly
	 * (they may be negative; a total beyond int64 saturates); the
	 * percentiles count negatives as 0. */
	if (!r->vals || m->value < r->vmin)
		r->vmin = m->value;
	if (!r->vals || m->value > r->vmax)
		r->vmax = m->value;
	/* hostile values may not fit a sum: it saturates */
	if (__builtin_add_overflow(r->vtotal, m->value, &r->vtotal))
		r->vtotal = m->value > 0 ? INT64_MAX : INT64_MIN;
	r->vals = 1;
	if (trawl_hist_add(r->h, m->value) ||
	    trawl_hist_add(a->parts[P_COUNTERS].overall, m->value))
		return tw_oom(a);
	if (!r->any || m->value > r->max) {
		r->any = 1;
		r->max = m->value;
		r->row.max_at = trawl_event_time(ev);
	}
	return 0;
}

static int on_print(const trawl_event *ev, void *ctx)
{
	trawl_analysis *a = ctx;
	struct slices *s = a->state;
	if (!tw_in_window(a, ev))
		return 0;
	trawl_marker m;
	if (trawl_event_marker(ev, &m))
		return 0;
	switch (m.kind) {
	case TRAWL_MARKER_BEGIN:
		return begin(a, s, ev, &m);
	case TRAWL_MARKER_END:
		return end(a, s, ev);
	case TRAWL_MARKER_ASYNC_BEGIN:
	case TRAWL_MARKER_ASYNC_END:
		return async(a, s, ev, &m);
	case TRAWL_MARKER_COUNTER:
		return counter(a, ev, &m);
	}
	return 0;
}

/* What is still open at the end was begun and never ended: say so. */
static void finish(trawl_analysis *a)
{
	struct slices *s = a->state;
	for (size_t i = 0; i < s->nth; i++)
		for (int d = 0; d < s->th[i].depth; d++)
			tw_part_anomaly(&a->parts[P_SLICES], A_B_OPEN,
					"B without E (open at the end)",
					s->th[i].stack[d].start);
	for (size_t i = 0; i < s->nasync; i++)
		tw_part_anomaly(&a->parts[P_ASYNC], A_S_OPEN,
				"S without F (open at the end)",
				s->async[i].start);
}

static void fini(trawl_analysis *a)
{
	struct slices *s = a->state;
	if (!s)
		return;
	for (size_t i = 0; i < s->nth; i++)
		tw_free(a->mem, s->th[i].stack);
	tw_free(a->mem, s->th);
	tw_free(a->mem, s->async);
	tw_map_fini(&s->tids);
	tw_free(a->mem, s);
}

TRAWL_API trawl_analysis *
trawl_slices_new(trawl_trace *t, const trawl_analysis_opts *o, trawl_error *err)
{
	static const char *const names[] = {"slices", "async", "counters"};
	trawl_analysis *a = tw_analysis_new(t, o, names, 3, err);
	if (!a)
		return NULL;
	struct slices *s = tw_calloc(a->mem, 1, sizeof(*s));
	if (!s)
		return tw_analysis_fail(a, -TRAWL_ENOMEM, err);
	a->state = s;
	a->fini = fini;
	a->finish = finish;
	tw_map_init(&s->tids, a->mem);
	s->async = tw_malloc(a->mem, MAX_ASYNC * sizeof(*s->async));
	if (!s->async)
		return tw_analysis_fail(a, -TRAWL_ENOMEM, err);
	/* systrace's markers are print events; an application channel's
	 * (lib/ring) are its slice_begin, slice_end and counter */
	static const char *const marker_events[] = {"print", "slice_begin",
						    "slice_end", "counter"};
	int rc = 0;
	for (size_t i = 0; !rc && i < TW_ARRAY_SIZE(marker_events); i++)
		rc = trawl_on(t, marker_events[i], on_print, a);
	if (rc)
		return tw_analysis_fail(a, rc, err);
	return a;
}
