/* SPDX-License-Identifier: MIT */
/*
 * Workqueue items: execution time (workqueue_execute_start to _end on the
 * same worker, which runs one item at a time) and queueing delay
 * (workqueue_queue_work, or workqueue_activate_work when the queueing was
 * not seen, to execute_start), per work function.
 *
 * Work items are keyed by the work struct's address. A work that is queued
 * while already pending is not queued again by the kernel (and not traced),
 * so the first queueing since its last start is the one that counts. The
 * map of queued works is bounded by the work structs of the kernel, not by
 * events.
 */
#include "analysis-int.h"

enum {
	A_END_NO_START,
	A_START_NO_END,
};

struct worker {
	int pid;
	int active;
	uint64_t work;
	int64_t start;
	char function[96];
};

struct wq {
	tw_map workers; /* pid -> struct worker */
	struct worker *w;
	size_t nw, wcap;
	tw_map works; /* work address -> queued time (or -1) */
	int64_t *queued;
	size_t nq, qcap;
	trawl_field work, function;
};

static void set_function(struct worker *w, const char *s, size_t n)
{
	if (n >= sizeof(w->function))
		n = sizeof(w->function) - 1;
	memcpy(w->function, s, n);
	w->function[n] = '\0';
}

/* The work address (text shows it as "work struct=" or "work struct"). */
static int work_of(const trawl_event *ev, struct wq *q, uint64_t *out)
{
	int64_t v;
	if (trawl_event_get_int(ev, q->work, &v) == 0) {
		*out = (uint64_t)v;
		return 0;
	}
	/* text: a hashed %p pointer is display only, but the same work
	 * prints the same hash: its text is the key */
	size_t n;
	const char *s = trawl_event_raw(ev, q->work, &n);
	if (!s || !n)
		return -1;
	*out = tw_hash_quick(s, n) | 1ull << 63;
	return 0;
}

static int64_t *queued_slot(trawl_analysis *a, struct wq *q, uint64_t work)
{
	int added;
	long i = tw_map_put(&q->works, &work, sizeof(work), &added);
	if (i < 0)
		return NULL;
	if (added) {
		if (tw_grow(a->mem, (void **)&q->queued, &q->qcap, q->nq + 1,
			    sizeof(*q->queued)))
			return NULL;
		q->queued[q->nq++] = -1;
	}
	return &q->queued[i];
}

static int queue(const trawl_event *ev, trawl_analysis *a, int activate)
{
	struct wq *q = a->state;
	if (!tw_in_window(a, ev))
		return 0;
	uint64_t work;
	if (work_of(ev, q, &work))
		return 0;
	int64_t *slot = queued_slot(a, q, work);
	if (!slot)
		return tw_oom(a);
	/* Activation follows its queueing (delayed or max_active works):
	 * the wait began at the queueing. */
	(void)activate;
	if (*slot < 0)
		*slot = trawl_event_time(ev);
	return 0;
}

static int on_queue(const trawl_event *ev, void *ctx)
{
	return queue(ev, ctx, 0);
}

static int on_activate(const trawl_event *ev, void *ctx)
{
	return queue(ev, ctx, 1);
}

static struct worker *worker_of(trawl_analysis *a, struct wq *q, int pid)
{
	int added;
	long i = tw_map_put(&q->workers, &pid, sizeof(pid), &added);
	if (i < 0)
		return NULL;
	if (added) {
		if (tw_grow(a->mem, (void **)&q->w, &q->wcap, q->nw + 1,
			    sizeof(*q->w)))
			return NULL;
		memset(&q->w[q->nw], 0, sizeof(*q->w));
		q->w[q->nw++].pid = pid;
	}
	return &q->w[i];
}

static int add(trawl_analysis *a, unsigned part, const char *function,
	       const trawl_instance *in)
{
	tw_part *p = &a->parts[part];
	size_t n = strlen(function);
	tw_row *r = tw_part_row(a, p, function, n, function, n, "work", -1, -1);
	if (!r)
		return tw_oom(a);
	return tw_part_add(a, p, r, in);
}

static int on_start(const trawl_event *ev, void *ctx)
{
	trawl_analysis *a = ctx;
	struct wq *q = a->state;
	if (!tw_in_window(a, ev))
		return 0;
	int64_t ts = trawl_event_time(ev);
	uint64_t work;
	if (work_of(ev, q, &work))
		return 0;
	struct worker *w = worker_of(a, q, trawl_event_pid(ev));
	if (!w)
		return tw_oom(a);
	if (w->active)
		tw_part_anomaly(&a->parts[0], A_START_NO_END,
				"execute_start without execute_end", ts);
	size_t n = 0;
	/* the function by its symbol where the source has one */
	const char *fn = trawl_event_label(ev, q->function, &n);
	if (!fn)
		fn = trawl_event_raw(ev, q->function, &n);
	if (!fn) {
		fn = "?";
		n = 1;
	}
	set_function(w, fn, n);
	w->work = work;
	w->start = ts;
	const char *comm = trawl_event_comm(ev);
	w->active = tw_task_wanted(a, w->pid, comm, strlen(comm)) ? 1 : 2;

	int64_t *slot = queued_slot(a, q, work);
	if (!slot)
		return tw_oom(a);
	int64_t since = *slot;
	*slot = -1;
	if (since >= 0 && w->active == 1) {
		trawl_instance in = {
			.start = since,
			.end = ts,
			.pid = w->pid,
			.cpu = trawl_event_cpu(ev),
			.id = -1,
			.name = w->function,
		};
		return add(a, 1, w->function, &in);
	}
	return 0;
}

static int on_end(const trawl_event *ev, void *ctx)
{
	trawl_analysis *a = ctx;
	struct wq *q = a->state;
	if (!tw_in_window(a, ev))
		return 0;
	int64_t ts = trawl_event_time(ev);
	uint64_t work;
	if (work_of(ev, q, &work))
		return 0;
	struct worker *w = worker_of(a, q, trawl_event_pid(ev));
	if (!w)
		return tw_oom(a);
	if (!w->active || w->work != work) {
		tw_part_anomaly(&a->parts[0], A_END_NO_START,
				"execute_end without execute_start", ts);
		w->active = 0;
		return 0;
	}
	int counted = w->active == 1;
	w->active = 0;
	if (!counted)
		return 0;
	trawl_instance in = {
		.start = w->start,
		.end = ts,
		.pid = w->pid,
		.cpu = trawl_event_cpu(ev),
		.id = -1,
		.name = w->function,
	};
	return add(a, 0, w->function, &in);
}

static void fini(trawl_analysis *a)
{
	struct wq *q = a->state;
	if (!q)
		return;
	tw_map_fini(&q->workers);
	tw_map_fini(&q->works);
	tw_free(a->mem, q->w);
	tw_free(a->mem, q->queued);
	tw_free(a->mem, q);
}

TRAWL_API trawl_analysis *trawl_workqueue_new(trawl_trace *t,
					      const trawl_analysis_opts *o,
					      trawl_error *err)
{
	static const char *const names[] = {"execution", "queue_delay"};
	trawl_analysis *a = tw_analysis_new(t, o, names, 2, err);
	if (!a)
		return NULL;
	struct wq *q = tw_calloc(a->mem, 1, sizeof(*q));
	if (!q)
		return tw_analysis_fail(a, -TRAWL_ENOMEM, err);
	a->state = q;
	a->fini = fini;
	tw_map_init(&q->workers, a->mem);
	tw_map_init(&q->works, a->mem);
	q->work = trawl_field_lookup(t, NULL, "work");
	q->function = trawl_field_lookup(t, NULL, "function");
	if (!q->work || !q->function)
		return tw_analysis_fail(a, -TRAWL_ENOMEM, err);
	int rc = trawl_on(t, "workqueue_queue_work", on_queue, a);
	if (!rc)
		rc = trawl_on(t, "workqueue_activate_work", on_activate, a);
	if (!rc)
		rc = trawl_on(t, "workqueue_execute_start", on_start, a);
	if (!rc)
		rc = trawl_on(t, "workqueue_execute_end", on_end, a);
	if (rc)
		return tw_analysis_fail(a, rc, err);
	return a;
}
