/* SPDX-License-Identifier: MIT */
/*
 * Scheduling latency: wakeup (woken to switched in) and preemption
 * (switched out while runnable to switched in back), per task.
 *
 * Each task is a small state machine driven by sched_switch and the wakeup
 * events, in the one delivered order (so events sharing a timestamp are
 * taken in record order):
 *
 *   unknown --switch in--> running --switch out, R/R+--> runnable
 *      |                    ^   |                          |
 *      |                    |   +--switch out, S/D/...--> off --wakeup--> woken
 *      +--wakeup----------> woken (starts a latency) -------+---switch in---^
 *
 * A wakeup counts only from "off" or "unknown" and only the first one: a
 * task on a CPU, already woken, or preempted is runnable and the kernel's
 * event changes nothing. A task switched out while "woken" was running when
 * the wakeup came (the trace started mid-way, or it was woken on its way to
 * sleep), so that wakeup measured nothing and is dropped.
 */
#include "analysis-int.h"

enum task_state {
	T_UNKNOWN = 0, /* not seen switching yet */
	T_RUNNING,     /* switched in */
	T_OFF,	       /* switched out asleep (S, D, ...) */
	T_WOKEN,       /* woken, waiting to run: a wakeup latency runs */
	T_RUNNABLE,    /* switched out while runnable: preemption runs */
};

enum {
	A_SWITCH_IN_RUNNING, /* switched in while on a CPU already */
	A_SWITCH_OUT_OFF,    /* switched out while known to be off */
	A_STATE_UNREADABLE,  /* prev_state missing or not a state */
};

struct task {
	int pid;
	uint8_t state;
	int start_cpu;
	int64_t start;
	long row; /* -1 until its first instance */
};

struct latency {
	int kind;
	tw_map pids;
	struct task *tasks;
	size_t ntasks, cap;
	trawl_field prev_pid, prev_state, next_pid, next_comm;
	trawl_field woken_pid;
};

static struct task *task_of(trawl_analysis *a, struct latency *l, int pid)
{
	int added;
	long i = tw_map_put(&l->pids, &pid, sizeof(pid), &added);
	if (i < 0)
		return NULL;
	if (added) {
		if (tw_grow(a->mem, (void **)&l->tasks, &l->cap, l->ntasks + 1,
			    sizeof(*l->tasks)))
			return NULL;
		l->tasks[l->ntasks++] = (struct task){.pid = pid, .row = -1};
	}
	return &l->tasks[i];
}

/* One latency ends at ev (the switch-in): into the task's row. */
static int record(trawl_analysis *a, struct task *tk, const trawl_event *ev)
{
	size_t clen = 0;
	const char *comm = trawl_event_raw(
		ev, ((struct latency *)a->state)->next_comm, &clen);
	if (!comm)
		comm = "";
	if (!tw_task_wanted(a, tk->pid, comm, clen))
		return 0;
	tw_part *p = &a->parts[0];
	tw_row *r;
	if (tk->row < 0) {
		r = tw_part_row(a, p, &tk->pid, sizeof(tk->pid), comm, clen,
				"task", tk->pid, -1);
		if (!r)
			return tw_oom(a);
		tk->row = r - p->rows;
	} else {
		r = &p->rows[tk->row];
		if (tw_row_rename(a, r, comm, clen))
			return tw_oom(a);
	}
	trawl_instance in = {
		.start = tk->start,
		.end = trawl_event_time(ev),
		.pid = tk->pid,
		.cpu = trawl_event_cpu(ev),
		.id = tk->start_cpu,
		.name = r->name,
	};
	return tw_part_add(a, p, r, &in);
}

static int on_wakeup(const trawl_event *ev, void *ctx)
{
	trawl_analysis *a = ctx;
	struct latency *l = a->state;
	if (!tw_in_window(a, ev))
		return 0;
	int64_t pid;
	if (trawl_event_get_int(ev, l->woken_pid, &pid) || pid <= 0 ||
	    pid > INT32_MAX)
		return 0;
	struct task *tk = task_of(a, l, (int)pid);
	if (!tk)
		return tw_oom(a);
	/* The task doing the waking is on this CPU: waking itself changes
	 * nothing (it happens on the way to sleep). */
	if (trawl_event_pid(ev) == pid)
		return 0;
	if (tk->state == T_OFF || tk->state == T_UNKNOWN) {
		tk->state = T_WOKEN;
		tk->start = trawl_event_time(ev);
		tk->start_cpu = trawl_event_cpu(ev);
	}
	return 0;
}

static int on_switch(const trawl_event *ev, void *ctx)
{
	trawl_analysis *a = ctx;
	struct latency *l = a->state;
	if (!tw_in_window(a, ev))
		return 0;
	int64_t ts = trawl_event_time(ev);
	int64_t prev, next;
	tw_part *p = &a->parts[0];
	if (!trawl_event_get_int(ev, l->prev_pid, &prev) && prev > 0 &&
	    prev <= INT32_MAX) {
		struct task *tk = task_of(a, l, (int)prev);
		if (!tk)
			return tw_oom(a);
		int runnable = tw_prev_state_runnable(ev, l->prev_state);
		if (runnable < 0)
			tw_part_anomaly(p, A_STATE_UNREADABLE,
					"prev_state unreadable", ts);
		if (tk->state == T_OFF)
			tw_part_anomaly(p, A_SWITCH_OUT_OFF,
					"switch-out of a task not running", ts);
		if (runnable == 1) {
			tk->state = T_RUNNABLE;
			tk->start = ts;
			tk->start_cpu = trawl_event_cpu(ev);
		} else {
			tk->state = T_OFF;
		}
	}
	if (!trawl_event_get_int(ev, l->next_pid, &next) && next > 0 &&
	    next <= INT32_MAX) {
		struct task *tk = task_of(a, l, (int)next);
		if (!tk)
			return tw_oom(a);
		int want =
			l->kind == TRAWL_LATENCY_WAKEUP ? T_WOKEN : T_RUNNABLE;
		if (tk->state == want) {
			int rc = record(a, tk, ev);
			if (rc)
				return rc;
		} else if (tk->state == T_RUNNING) {
			tw_part_anomaly(p, A_SWITCH_IN_RUNNING,
					"switch-in of a task already running",
					ts);
		}
		tk->state = T_RUNNING;
	}
	return 0;
}

static void fini(trawl_analysis *a)
{
	struct latency *l = a->state;
	if (!l)
		return;
	tw_map_fini(&l->pids);
	tw_free(a->mem, l->tasks);
	tw_free(a->mem, l);
}

TRAWL_API trawl_analysis *trawl_latency_new(trawl_trace *t, int kind,
					    const trawl_analysis_opts *o,
					    trawl_error *err)
{
	static const char *const wakeup[] = {"wakeup"};
	static const char *const preempt[] = {"preempt"};
	if (kind != TRAWL_LATENCY_WAKEUP && kind != TRAWL_LATENCY_PREEMPT) {
		tw_error_at(err, TRAWL_EINVAL, 0, "", 0, 0, 0,
			    "cannot measure latency kind %d", kind);
		return NULL;
	}
	trawl_analysis *a = tw_analysis_new(
		t, o, kind == TRAWL_LATENCY_WAKEUP ? wakeup : preempt, 1, err);
	if (!a)
		return NULL;
	struct latency *l = tw_calloc(a->mem, 1, sizeof(*l));
	if (!l)
		return tw_analysis_fail(a, -TRAWL_ENOMEM, err);
	a->state = l;
	a->fini = fini;
	l->kind = kind;
	tw_map_init(&l->pids, a->mem);
	l->prev_pid = trawl_field_lookup(t, "sched_switch", "prev_pid");
	l->prev_state = trawl_field_lookup(t, "sched_switch", "prev_state");
	l->next_pid = trawl_field_lookup(t, "sched_switch", "next_pid");
	l->next_comm = trawl_field_lookup(t, "sched_switch", "next_comm");
	l->woken_pid = trawl_field_lookup(t, NULL, "pid");
	if (!l->prev_pid || !l->prev_state || !l->next_pid || !l->next_comm ||
	    !l->woken_pid)
		return tw_analysis_fail(a, -TRAWL_ENOMEM, err);
	int rc = trawl_on(t, "sched_switch", on_switch, a);
	/* Preemption needs only the switches. */
	if (kind == TRAWL_LATENCY_PREEMPT)
		goto out;
	if (!rc)
		rc = trawl_on(t, "sched_waking", on_wakeup, a);
	if (!rc)
		rc = trawl_on(t, "sched_wakeup", on_wakeup, a);
	if (!rc)
		rc = trawl_on(t, "sched_wakeup_new", on_wakeup, a);
out:
	if (rc)
		return tw_analysis_fail(a, rc, err);
	return a;
}
