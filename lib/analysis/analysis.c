/* SPDX-License-Identifier: MIT */
/*
 * What the analyses share: making and freeing one, rows keyed by whatever
 * the analysis groups by, the worst instances (a min-heap of fixed size, so
 * the longest N survive in bounded memory), anomaly counters, the filter,
 * and turning it all into trawl_result parts once the run is over.
 */
#include <stdlib.h>

#include "analysis-int.h"

#define DEFAULT_WORST 10
#define MAX_WORST     10000

static int cmp_int(const void *x, const void *y)
{
	int a = *(const int *)x, b = *(const int *)y;
	return a < b ? -1 : a > b;
}

trawl_analysis *tw_analysis_new(trawl_trace *t, const trawl_analysis_opts *o,
				const char *const *names, unsigned nparts,
				trawl_error *err)
{
	if (!t || nparts > TW_MAX_PARTS) {
		tw_error_at(err, TRAWL_EMISUSE, 0, "", 0, 0, 0,
			    "cannot make an analysis without a trace");
		return NULL;
	}
	if (t->ran) {
		tw_error_at(err, TRAWL_EMISUSE, 0, t->name, 0, 0, 0,
			    "cannot add an analysis after trawl_run()");
		return NULL;
	}
	const tw_mem *mem = tw_trace_mem(t);
	trawl_analysis *a = tw_calloc(mem, 1, sizeof(*a));
	if (!a)
		goto oom;
	a->t = t;
	a->mem = mem;
	if (o)
		a->filter = o->filter;
	a->worst_max = o && o->worst ? o->worst : DEFAULT_WORST;
	if (a->worst_max > MAX_WORST)
		a->worst_max = MAX_WORST;
	a->filter.comm = NULL;
	if (o && (o->filter.set & TRAWL_FILTER_COMM)) {
		const char *c = o->filter.comm ? o->filter.comm : "";
		a->comm = tw_strndup(mem, c, strlen(c));
		if (!a->comm)
			goto oom;
		a->filter.comm = a->comm;
	}
	a->filter.pids = NULL;
	if (o && (o->filter.set & TRAWL_FILTER_PIDS)) {
		size_t n = o->filter.pids ? o->filter.npids : 0;
		a->pids = tw_malloc(mem, (n ? n : 1) * sizeof(*a->pids));
		if (!a->pids)
			goto oom;
		if (n)
			memcpy(a->pids, o->filter.pids, n * sizeof(*a->pids));
		qsort(a->pids, n, sizeof(*a->pids), cmp_int);
		a->filter.pids = a->pids;
		a->filter.npids = n;
	}
	a->nparts = nparts;
	for (unsigned i = 0; i < nparts; i++) {
		tw_part *p = &a->parts[i];
		p->res.name = names[i];
		tw_map_init(&p->keys, mem);
		p->overall = trawl_hist_new(t);
		p->worst = tw_calloc(mem, a->worst_max, sizeof(*p->worst));
		if (!p->overall || !p->worst)
			goto oom;
	}
	return a;
oom:
	return tw_analysis_fail(a, -TRAWL_ENOMEM, err);
}

trawl_analysis *tw_analysis_fail(trawl_analysis *a, int rc, trawl_error *err)
{
	tw_error_at(err, -rc, 0, a ? a->t->name : "", 0, 0, 0,
		    "cannot set up the analysis: %s", trawl_strerror(rc));
	trawl_analysis_free(a);
	return NULL;
}

TRAWL_API void trawl_analysis_free(trawl_analysis *a)
{
	if (!a)
		return;
	const tw_mem *mem = a->mem;
	if (a->fini)
		a->fini(a);
	for (unsigned i = 0; i < a->nparts; i++) {
		tw_part *p = &a->parts[i];
		for (size_t r = 0; r < p->nrows; r++) {
			trawl_hist_free(p->rows[r].h);
			tw_free(mem, p->rows[r].name);
		}
		tw_free(mem, p->rows);
		tw_map_fini(&p->keys);
		trawl_hist_free(p->overall);
		tw_free(mem, p->worst);
		tw_free(mem, p->out_rows);
		tw_free(mem, p->out_worst);
	}
	tw_free(mem, a->comm);
	tw_free(mem, a->pids);
	tw_free(mem, a);
}

int tw_row_rename(trawl_analysis *a, tw_row *r, const char *name, size_t nlen)
{
	if (r->name && strlen(r->name) == nlen && !memcmp(r->name, name, nlen))
		return 0;
	char *n = tw_strndup(a->mem, name, nlen);
	if (!n)
		return -TRAWL_ENOMEM;
	tw_free(a->mem, r->name);
	r->name = n;
	return 0;
}

tw_row *tw_part_row(trawl_analysis *a, tw_part *p, const void *key, size_t klen,
		    const char *name, size_t nlen, const char *kind, int64_t id,
		    int cpu)
{
	int added;
	long i = tw_map_put(&p->keys, key, klen, &added);
	if (i < 0)
		return NULL;
	if (!added)
		return &p->rows[i];
	if (tw_grow(a->mem, (void **)&p->rows, &p->cap, p->nrows + 1,
		    sizeof(*p->rows)))
		goto undo;
	tw_row *r = &p->rows[p->nrows];
	memset(r, 0, sizeof(*r));
	r->h = trawl_hist_new(a->t);
	if (!r->h || tw_row_rename(a, r, name, nlen)) {
		trawl_hist_free(r->h);
		goto undo;
	}
	r->row.kind = kind;
	r->row.id = id;
	r->row.cpu = cpu;
	p->nrows++;
	return r;
undo:
	/* The key stays without a row; the failed analysis stops the run
	 * and gives no result, so it is never looked up again. */
	return NULL;
}

/* Heap order: the smaller duration is on top; on equal ones, the later. */
static int below(const tw_worst *x, const tw_worst *y)
{
	int64_t dx = x->in.end - x->in.start, dy = y->in.end - y->in.start;
	if (dx != dy)
		return dx < dy;
	return x->order > y->order;
}

static void sift_down(tw_worst *h, size_t n, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;
		if (l < n && below(&h[l], &h[m]))
			m = l;
		if (r < n && below(&h[r], &h[m]))
			m = r;
		if (m == i)
			return;
		tw_worst tmp = h[i];
		h[i] = h[m];
		h[m] = tmp;
		i = m;
	}
}

static void set_worst(tw_worst *w, const trawl_instance *in, uint64_t order)
{
	w->in = *in;
	w->order = order;
	size_t n = in->name ? strlen(in->name) : 0;
	if (n >= sizeof(w->name))
		n = sizeof(w->name) - 1;
	memcpy(w->name, in->name ? in->name : "", n);
	w->name[n] = '\0';
}

int tw_part_add(trawl_analysis *a, tw_part *p, tw_row *r,
		const trawl_instance *in)
{
	int64_t d = in->end - in->start;
	if (trawl_hist_add(r->h, d) || trawl_hist_add(p->overall, d))
		return tw_oom(a);
	if (a->on_instance)
		a->on_instance(in, p->res.name, a->instance_ctx);
	if (!r->any || d > r->max) {
		r->any = 1;
		r->max = d;
		r->row.max_at = in->start;
	}
	uint64_t order = p->added++;
	if (p->nworst < a->worst_max) {
		size_t i = p->nworst++;
		set_worst(&p->worst[i], in, order);
		/* sift up */
		while (i && below(&p->worst[i], &p->worst[(i - 1) / 2])) {
			tw_worst tmp = p->worst[i];
			p->worst[i] = p->worst[(i - 1) / 2];
			p->worst[(i - 1) / 2] = tmp;
			i = (i - 1) / 2;
		}
	} else if (d > p->worst[0].in.end - p->worst[0].in.start) {
		set_worst(&p->worst[0], in, order);
		sift_down(p->worst, p->nworst, 0);
	}
	return 0;
}

TRAWL_API int trawl_analysis_on_instance(trawl_analysis *a,
					 void (*fn)(const trawl_instance *in,
						    const char *part,
						    void *ctx),
					 void *ctx)
{
	if (!a || a->is_sched || a->t->ran)
		return -TRAWL_EMISUSE;
	a->on_instance = fn;
	a->instance_ctx = ctx;
	return 0;
}

void tw_part_anomaly(tw_part *p, unsigned i, const char *what, int64_t ts)
{
	trawl_anomaly *an = &p->anomaly[i];
	if (!an->count) {
		an->what = what;
		an->first = ts;
	}
	an->count++;
}

int64_t tw_analysis_end(const trawl_analysis *a, int64_t last)
{
	const trawl_stats *st = trawl_trace_stats(a->t);
	int64_t end = last;
	if (st && st->events && st->last_time > end)
		end = st->last_time;
	if ((a->filter.set & TRAWL_FILTER_TO) && end > a->filter.to)
		end = a->filter.to;
	return end;
}

int tw_pid_wanted(const trawl_analysis *a, int pid)
{
	if ((a->filter.set & TRAWL_FILTER_PID) && pid != a->filter.pid)
		return 0;
	return !(a->filter.set & TRAWL_FILTER_PIDS) ||
	       bsearch(&pid, a->pids, a->filter.npids, sizeof(pid), cmp_int);
}

int tw_task_wanted(const trawl_analysis *a, int pid, const char *comm,
		   size_t clen)
{
	if (!tw_pid_wanted(a, pid))
		return 0;
	if (a->filter.set & TRAWL_FILTER_COMM) {
		if (!comm || strlen(a->comm) != clen ||
		    memcmp(a->comm, comm, clen))
			return 0;
	}
	return 1;
}

int tw_prev_state_runnable(const trawl_event *ev, trawl_field f)
{
	/* The number first: trace.dat reads it straight from the record,
	 * where its text would mean formatting the whole event. */
	int64_t v;
	if (!trawl_event_get_int(ev, f, &v))
		return (v & 0xff) == 0;
	size_t n;
	const char *s = trawl_event_raw(ev, f, &n);
	if (!s || !n)
		return -1;
	return s[0] == 'R';
}

static int cmp_rows(const void *x, const void *y)
{
	const trawl_row *a = x, *b = y;
	if (a->s.max != b->s.max)
		return a->s.max > b->s.max ? -1 : 1;
	if (a->id != b->id)
		return a->id < b->id ? -1 : 1;
	if (a->cpu != b->cpu)
		return a->cpu < b->cpu ? -1 : 1;
	return strcmp(a->name, b->name);
}

static int cmp_worst(const void *x, const void *y)
{
	const tw_worst *a = x, *b = y;
	if (below(a, b))
		return 1;
	if (below(b, a))
		return -1;
	return 0;
}

static int finish_part(trawl_analysis *a, tw_part *p)
{
	p->out_rows = tw_calloc(a->mem, p->nrows ? p->nrows : 1,
				sizeof(*p->out_rows));
	p->out_worst = tw_calloc(a->mem, p->nworst ? p->nworst : 1,
				 sizeof(*p->out_worst));
	if (!p->out_rows || !p->out_worst)
		return -TRAWL_ENOMEM;
	for (size_t i = 0; i < p->nrows; i++) {
		tw_row *r = &p->rows[i];
		trawl_row *o = &p->out_rows[i];
		*o = r->row;
		o->name = r->name;
		trawl_hist_summary(r->h, &o->s);
		if (r->vals) {
			o->s.min = r->vmin;
			o->s.max = r->vmax;
			o->s.total = r->vtotal;
		}
	}
	qsort(p->out_rows, p->nrows, sizeof(*p->out_rows),
	      a->cmp_rows ? a->cmp_rows : cmp_rows);
	qsort(p->worst, p->nworst, sizeof(*p->worst), cmp_worst);
	for (size_t i = 0; i < p->nworst; i++) {
		p->out_worst[i] = p->worst[i].in;
		p->out_worst[i].name = p->worst[i].name;
	}
	size_t na = 0;
	for (unsigned i = 0; i < TW_MAX_ANOMALIES; i++)
		if (p->anomaly[i].count)
			p->out_anomalies[na++] = p->anomaly[i];
	trawl_hist_summary(p->overall, &p->res.overall);
	p->res.rows = p->out_rows;
	p->res.nrows = p->nrows;
	p->res.worst = p->out_worst;
	p->res.nworst = p->nworst;
	p->res.anomalies = p->out_anomalies;
	p->res.nanomalies = na;
	return 0;
}

TRAWL_API const trawl_result *trawl_analysis_result(trawl_analysis *a,
						    unsigned part)
{
	if (!a || a->failed)
		return NULL;
	if (!a->finished) {
		if (a->finish)
			a->finish(a);
		for (unsigned i = 0; i < a->nparts; i++)
			if (finish_part(a, &a->parts[i]))
				return NULL;
		a->finished = 1;
	}
	return part < a->nparts ? &a->parts[part].res : NULL;
}
