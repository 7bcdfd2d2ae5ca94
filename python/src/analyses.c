/* SPDX-License-Identifier: MIT */
/*
 * The built-in analyses (latency, irq, workqueue, slices, sched) run on a
 * trace with the GIL released; their results come back as plain tuples
 * and lists (a row per task, irq or function, not per event), which the
 * trawl package turns into DataFrames with the columns of the commands'
 * --csv output.
 */
#include "intervals.h"
#include "pytrawl.h"

#include <string.h>

static PyObject *summary(const trawl_summary *s)
{
	return Py_BuildValue("(KLLLLLL)", (unsigned long long)s->count,
			     (long long)s->min, (long long)s->p50,
			     (long long)s->p90, (long long)s->p99,
			     (long long)s->max, (long long)s->total);
}

static PyObject *text(const char *s)
{
	if (!s)
		Py_RETURN_NONE;
	return pt_str(s, strlen(s));
}

static PyObject *anomalies(const trawl_anomaly *a, size_t n)
{
	PyObject *l = PyList_New((Py_ssize_t)n);
	for (size_t i = 0; l && i < n; i++) {
		PyObject *o = Py_BuildValue("(NKL)", text(a[i].what),
					    (unsigned long long)a[i].count,
					    (long long)a[i].first);
		if (!o) {
			Py_CLEAR(l);
			break;
		}
		PyList_SET_ITEM(l, (Py_ssize_t)i, o);
	}
	return l;
}

static PyObject *part(const trawl_result *r)
{
	PyObject *rows = PyList_New((Py_ssize_t)r->nrows);
	PyObject *worst = PyList_New((Py_ssize_t)r->nworst);
	if (!rows || !worst)
		goto fail;
	for (size_t i = 0; i < r->nrows; i++) {
		const trawl_row *w = &r->rows[i];
		PyObject *o = Py_BuildValue(
			"(NNLiNLLi)", text(w->kind), text(w->name),
			(long long)w->id, w->cpu, summary(&w->s),
			(long long)w->max_at, (long long)w->self, w->depth);
		if (!o)
			goto fail;
		PyList_SET_ITEM(rows, (Py_ssize_t)i, o);
	}
	for (size_t i = 0; i < r->nworst; i++) {
		const trawl_instance *in = &r->worst[i];
		PyObject *o = Py_BuildValue("(LLiiLNz)", (long long)in->start,
					    (long long)in->end, in->pid,
					    in->cpu, (long long)in->id,
					    text(in->name), in->kind);
		if (!o)
			goto fail;
		PyList_SET_ITEM(worst, (Py_ssize_t)i, o);
	}
	return Py_BuildValue("{s:N,s:N,s:N,s:N,s:N}", "name", text(r->name),
			     "overall", summary(&r->overall), "rows", rows,
			     "worst", worst, "anomalies",
			     anomalies(r->anomalies, r->nanomalies));
fail:
	Py_XDECREF(rows);
	Py_XDECREF(worst);
	return NULL;
}

static PyObject *task(const trawl_sched_task *k)
{
	return Py_BuildValue("(iNKLLLKKK)", k->pid, text(k->comm),
			     (unsigned long long)k->count, (long long)k->run,
			     (long long)k->runnable, (long long)k->sleep,
			     (unsigned long long)k->switches,
			     (unsigned long long)k->preempted,
			     (unsigned long long)k->migrations);
}

static PyObject *sched_result(trawl_analysis *a)
{
	const trawl_sched_report *r = trawl_sched_result(a);
	if (!r)
		return PyErr_NoMemory();
	PyObject *tasks = PyList_New((Py_ssize_t)r->ntasks);
	PyObject *cpus = PyList_New((Py_ssize_t)r->ncpus);
	if (!tasks || !cpus)
		goto fail;
	for (size_t i = 0; i < r->ntasks; i++) {
		PyObject *o = task(&r->tasks[i]);
		if (!o)
			goto fail;
		PyList_SET_ITEM(tasks, (Py_ssize_t)i, o);
	}
	for (size_t i = 0; i < r->ncpus; i++) {
		const trawl_sched_cpu *c = &r->cpus[i];
		PyObject *o = Py_BuildValue(
			"(iLLK)", c->cpu, (long long)c->busy,
			(long long)c->idle, (unsigned long long)c->switches);
		if (!o)
			goto fail;
		PyList_SET_ITEM(cpus, (Py_ssize_t)i, o);
	}
	return Py_BuildValue("{s:N,s:N,s:N,s:L,s:L,s:N,s:N}", "tasks", tasks,
			     "overall", task(&r->overall), "cpus", cpus,
			     "start", (long long)r->start, "end",
			     (long long)r->end, "migrations_from",
			     text(r->migrations_from), "anomalies",
			     anomalies(r->anomalies, r->nanomalies));
fail:
	Py_XDECREF(tasks);
	Py_XDECREF(cpus);
	return NULL;
}

static const char *const *polled(const char *name)
{
	static const char *const sched[] = {"sched_switch", "sched_wak*", NULL};
	static const char *const irq[] = {"irq_handler_*", "softirq_*", NULL};
	static const char *const wq[] = {"workqueue_*", NULL};
	static const char *const slices[] = {"print", NULL};
	static const char *const power[] = {"cpu_frequency", "cpu_idle", NULL};
	if (!strcmp(name, "power"))
		return power;
	if (!strcmp(name, "irq"))
		return irq;
	if (!strcmp(name, "workqueue"))
		return wq;
	if (!strcmp(name, "slices"))
		return slices;
	return sched;
}

static int on_long(const trawl_event *ev, void *ctx)
{
	(void)ev;
	return pt_poll(ctx);
}

static void on_instance(const trawl_instance *in, const char *part, void *ctx)
{
	pt_intervals_add(ctx, in->start, in->end, in->pid, in->cpu, in->id,
			 in->name, in->kind, part);
}

static void on_state(const trawl_task_state *st, void *ctx)
{
	pt_intervals_add(ctx, st->start, st->end, st->pid, st->cpu, st->state,
			 st->comm, NULL, NULL);
}

/*
 * _trawl.analysis(path, opts, name, kind=0, threshold=0, worst=0, pid=None
 * (an int, or a sequence of them: any of those tasks),
 * comm=None, start=None, end=None, instances=False): name is "latency",
 * "irq", "workqueue", "slices", "power", "sched" or "task_states" (the sched
 * analysis's state intervals: pt_intervals_dict() with id the state and
 * name the comm). instances: (result, every instance as
 * pt_intervals_dict()).
 */
PyObject *pt_analysis(PyObject *self, PyObject *args, PyObject *kw)
{
	(void)self;
	static char *kwlist[] = {"path",      "opts",  "name",	    "kind",
				 "threshold", "worst", "pid",	    "comm",
				 "start",     "end",   "instances", NULL};
	PyObject *path, *opts, *pid = Py_None, *start = Py_None, *end = Py_None;
	const char *name, *comm = NULL;
	int kind = 0;
	long long threshold = 0;
	unsigned worst = 0;
	int instances = 0;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "OOs|iLIOzOOp", kwlist,
					 &path, &opts, &name, &kind, &threshold,
					 &worst, &pid, &comm, &start, &end,
					 &instances))
		return NULL;
	trawl_analysis_opts o = {.worst = worst};
	int *pids = NULL;
	if (pid != Py_None && PyLong_Check(pid)) {
		o.filter.set |= TRAWL_FILTER_PID;
		o.filter.pid = (int)PyLong_AsLong(pid);
	} else if (pid != Py_None) {
		/* a sequence: every task in it (the package resolves names) */
		PyObject *seq = PySequence_Fast(pid, "pid: an int or ints");
		if (!seq)
			return NULL;
		Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
		pids = PyMem_Malloc((size_t)(n ? n : 1) * sizeof(*pids));
		for (Py_ssize_t i = 0; pids && i < n; i++)
			pids[i] = (int)PyLong_AsLong(
				PySequence_Fast_GET_ITEM(seq, i));
		Py_DECREF(seq);
		if (!pids)
			return PyErr_NoMemory();
		o.filter.set |= TRAWL_FILTER_PIDS;
		o.filter.pids = pids;
		o.filter.npids = (size_t)n;
	}
	if (comm) {
		o.filter.set |= TRAWL_FILTER_COMM;
		o.filter.comm = comm;
	}
	if (start != Py_None) {
		o.filter.set |= TRAWL_FILTER_FROM;
		o.filter.from = PyLong_AsLongLong(start);
	}
	if (end != Py_None) {
		o.filter.set |= TRAWL_FILTER_TO;
		o.filter.to = PyLong_AsLongLong(end);
	}
	if (PyErr_Occurred()) {
		PyMem_Free(pids);
		return NULL;
	}
	trawl_trace *t = pt_open(path, opts);
	if (!t) {
		PyMem_Free(pids);
		return NULL;
	}
	struct pt_run run = {0};
	trawl_error err = {0};
	trawl_analysis *a = NULL;
	PyObject *res = NULL;
	struct pt_intervals iv = {0};
	int states = !strcmp(name, "task_states");
	if (!strcmp(name, "latency")) {
		a = trawl_latency_new(t, kind, &o, &err);
	} else if (!strcmp(name, "irq")) {
		trawl_irq_opts io = {.base = o, .threshold = threshold};
		a = trawl_irq_new(t, &io, &err);
	} else if (!strcmp(name, "workqueue")) {
		a = trawl_workqueue_new(t, &o, &err);
	} else if (!strcmp(name, "slices")) {
		a = trawl_slices_new(t, &o, &err);
	} else if (!strcmp(name, "power")) {
		a = trawl_power_new(t, &o, &err);
	} else if (!strcmp(name, "sched") || states) {
		a = trawl_sched_new(t, &o, &err);
	} else {
		PyErr_Format(PyExc_ValueError, "no analysis '%s'", name);
		goto out;
	}
	if (!a) {
		pt_raise(&err, err.code ? err.code : TRAWL_ENOMEM);
		goto out;
	}
	if (states)
		trawl_sched_on_state(a, on_state, &iv);
	else if (instances &&
		 trawl_analysis_on_instance(a, on_instance, &iv) < 0) {
		PyErr_Format(PyExc_ValueError, "%s has no instances", name);
		goto out;
	}
	/* Ctrl-C: a no-op subscriber polls for signals, on the events the
	 * analysis reads anyway (on every event, the readers could no longer
	 * pass over the others cheaply) */
	for (const char *const *p = polled(name); *p; p++)
		if (trawl_on(t, *p, on_long, &run)) {
			PyErr_NoMemory();
			goto out;
		}
	int rc = pt_run_nogil(t, &run);
	if (rc < 0 || rc == PT_STOPPED)
		goto out;
	if (states) {
		/* the open states are closed when the result is made */
		if (!trawl_sched_result(a)) {
			PyErr_NoMemory();
			goto out;
		}
		res = pt_intervals_dict(&iv);
		goto out;
	}
	if (!strcmp(name, "sched")) {
		res = sched_result(a);
		goto out;
	}
	res = PyList_New(0);
	const trawl_result *r;
	for (unsigned i = 0; res && (r = trawl_analysis_result(a, i)); i++) {
		PyObject *p = part(r);
		if (!p || PyList_Append(res, p))
			Py_CLEAR(res);
		Py_XDECREF(p);
	}
	if (res && !PyList_GET_SIZE(res)) {
		Py_CLEAR(res);
		PyErr_NoMemory();
	}
	if (res && !strcmp(name, "irq")) {
		PyObject *n =
			PyLong_FromUnsignedLongLong(trawl_irq_long_count(a));
		res = Py_BuildValue("(NN)", res, n); /* both stolen */
	}
	if (res && instances)
		res = Py_BuildValue("(NN)", res, pt_intervals_dict(&iv));
out:
	pt_intervals_free(&iv);
	trawl_analysis_free(a);
	trawl_close(t);
	PyMem_Free(pids);
	return res;
}
