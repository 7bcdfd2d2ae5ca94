/* SPDX-License-Identifier: MIT */
/*
 * Trace.tasks(): every (pid, name) a trace shows, with when it was first
 * and last seen. Names come from where the trace says them at the time:
 * each event's own task, and sched_switch's prev/next and the wakeups'
 * woken task (a trace.dat's event header names a pid by its one saved
 * cmdline, while these fields carry the name of the moment, so a rename
 * by exec shows as a second row of the pid).
 */
#include "pytrawl.h"
#include "strdict.h"

#include <stdlib.h>
#include <string.h>

struct task {
	int32_t pid, tgid, comm; /* comm: a code into names */
	int64_t first, last;
	uint64_t events; /* events of its own (the header's task) */
};

struct tasks {
	struct strdict names;
	struct task *v;
	size_t n, cap;
	uint32_t *slots; /* index + 1 by (pid, comm) */
	size_t nslots;
	int failed;
	struct pt_run *run;
	trawl_field prev_pid, prev_comm, next_pid, next_comm;
	trawl_field woken_pid, woken_comm;
};

static uint64_t hash_key(int32_t pid, int32_t comm)
{
	uint64_t k = ((uint64_t)(uint32_t)pid << 32) | (uint32_t)comm;
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdull;
	return k ^ (k >> 33);
}

static int rehash(struct tasks *ts)
{
	size_t n = ts->nslots ? ts->nslots * 2 : 1024;
	uint32_t *slots = calloc(n, sizeof(*slots));
	if (!slots)
		return -1;
	for (size_t i = 0; i < ts->n; i++) {
		size_t j = hash_key(ts->v[i].pid, ts->v[i].comm) & (n - 1);
		while (slots[j])
			j = (j + 1) & (n - 1);
		slots[j] = (uint32_t)i + 1;
	}
	free(ts->slots);
	ts->slots = slots;
	ts->nslots = n;
	return 0;
}

/* Seen: pid named comm at time t (own: the event is the task's own). */
static void seen(struct tasks *ts, int64_t pid, const char *comm, size_t len,
		 int tgid, int64_t t, int own)
{
	if (ts->failed || pid <= 0 || pid > INT32_MAX || !comm || !len)
		return;
	int32_t code = strdict_code(&ts->names, comm, len);
	if (code < 0 || ((ts->n + 1) * 2 > ts->nslots && rehash(ts)) ||
	    ts->n >= UINT32_MAX - 1) {
		ts->failed = 1;
		return;
	}
	size_t j = hash_key((int32_t)pid, code) & (ts->nslots - 1);
	while (ts->slots[j]) {
		struct task *k = &ts->v[ts->slots[j] - 1];
		if (k->pid == pid && k->comm == code) {
			if (t < k->first)
				k->first = t;
			if (t > k->last)
				k->last = t;
			k->events += (uint64_t)own;
			if (tgid >= 0)
				k->tgid = tgid;
			return;
		}
		j = (j + 1) & (ts->nslots - 1);
	}
	if (ts->n == ts->cap) {
		size_t cap = ts->cap ? ts->cap * 2 : 256;
		struct task *v = realloc(ts->v, cap * sizeof(*v));
		if (!v) {
			ts->failed = 1;
			return;
		}
		ts->v = v;
		ts->cap = cap;
	}
	ts->v[ts->n] =
		(struct task){(int32_t)pid, tgid, code, t, t, (uint64_t)own};
	ts->slots[j] = (uint32_t)++ts->n;
}

static void from_fields(struct tasks *ts, const trawl_event *ev,
			trawl_field pid_f, trawl_field comm_f, int64_t t)
{
	int64_t pid;
	size_t n = 0;
	if (trawl_event_get_int(ev, pid_f, &pid))
		return;
	const char *c = trawl_event_raw(ev, comm_f, &n);
	/* a char array field: its text ends at the first NUL */
	const char *nul = c ? memchr(c, '\0', n) : NULL;
	if (nul)
		n = (size_t)(nul - c);
	seen(ts, pid, c, n, -1, t, 0);
}

static int on_event(const trawl_event *ev, void *ctx)
{
	struct tasks *ts = ctx;
	const char *comm = trawl_event_comm(ev);
	seen(ts, trawl_event_pid(ev), comm, strlen(comm), trawl_event_tgid(ev),
	     trawl_event_time(ev), 1);
	return ts->failed ? -TRAWL_ENOMEM : pt_poll(ts->run);
}

/* sched_switch and the wakeups, subscribed to on their own so that other
 * events cost no name comparison */
static int on_switch(const trawl_event *ev, void *ctx)
{
	struct tasks *ts = ctx;
	int64_t t = trawl_event_time(ev);
	from_fields(ts, ev, ts->prev_pid, ts->prev_comm, t);
	from_fields(ts, ev, ts->next_pid, ts->next_comm, t);
	return ts->failed ? -TRAWL_ENOMEM : 0;
}

static int on_wakeup(const trawl_event *ev, void *ctx)
{
	struct tasks *ts = ctx;
	from_fields(ts, ev, ts->woken_pid, ts->woken_comm,
		    trawl_event_time(ev));
	return ts->failed ? -TRAWL_ENOMEM : 0;
}

static PyObject *columns(struct tasks *ts)
{
	size_t n = ts->n;
	int32_t *pid = malloc((n ? n : 1) * sizeof(*pid));
	int32_t *tgid = malloc((n ? n : 1) * sizeof(*tgid));
	int32_t *comm = malloc((n ? n : 1) * sizeof(*comm));
	int64_t *first = malloc((n ? n : 1) * sizeof(*first));
	int64_t *last = malloc((n ? n : 1) * sizeof(*last));
	int64_t *events = malloc((n ? n : 1) * sizeof(*events));
	if (!pid || !tgid || !comm || !first || !last || !events) {
		free(pid);
		free(tgid);
		free(comm);
		free(first);
		free(last);
		free(events);
		return PyErr_NoMemory();
	}
	for (size_t i = 0; i < n; i++) {
		pid[i] = ts->v[i].pid;
		tgid[i] = ts->v[i].tgid;
		comm[i] = ts->v[i].comm;
		first[i] = ts->v[i].first;
		last[i] = ts->v[i].last;
		events[i] = (int64_t)ts->v[i].events;
	}
	return Py_BuildValue(
		"{s:N,s:N,s:N,s:N,s:N,s:N,s:N}", "pid", pt_array_i32(&pid, n),
		"tgid", pt_array_i32(&tgid, n), "comm", pt_array_i32(&comm, n),
		"names", pt_categories(&ts->names), "first",
		pt_array_i64(&first, n), "last", pt_array_i64(&last, n),
		"events", pt_array_i64(&events, n));
}

/* _trawl.tasks(path, opts) -> {pid, tgid, comm (codes), names, first,
 * last, events}: one row per (pid, name) in order of first sight. */
PyObject *pt_tasks(PyObject *self, PyObject *args)
{
	(void)self;
	trawl_trace *t = pt_open_args(args);
	if (!t)
		return NULL;
	struct pt_run run = {0};
	struct tasks ts = {.run = &run};
	PyObject *res = NULL;
	ts.prev_pid = trawl_field_lookup(t, "sched_switch", "prev_pid");
	ts.prev_comm = trawl_field_lookup(t, "sched_switch", "prev_comm");
	ts.next_pid = trawl_field_lookup(t, "sched_switch", "next_pid");
	ts.next_comm = trawl_field_lookup(t, "sched_switch", "next_comm");
	ts.woken_pid = trawl_field_lookup(t, NULL, "pid");
	ts.woken_comm = trawl_field_lookup(t, NULL, "comm");
	if (!ts.prev_pid || !ts.prev_comm || !ts.next_pid || !ts.next_comm ||
	    !ts.woken_pid || !ts.woken_comm ||
	    trawl_on(t, "*", on_event, &ts) ||
	    trawl_on(t, "sched_switch", on_switch, &ts) ||
	    trawl_on(t, "sched_wak*", on_wakeup, &ts)) {
		PyErr_NoMemory();
		goto out;
	}
	int rc = pt_run_nogil(t, &run);
	if (rc == -TRAWL_ENOMEM && ts.failed) {
		PyErr_Clear();
		PyErr_NoMemory();
	} else if (rc >= 0 && rc != PT_STOPPED) {
		res = columns(&ts);
	}
out:
	trawl_close(t);
	strdict_free(&ts.names);
	free(ts.v);
	free(ts.slots);
	return res;
}
