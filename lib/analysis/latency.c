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
 *
 * As in sched.c, a CPU runs what its last sched_switch switched in until
 * its next one, whatever that one's prev_pid says (a lost event): the task
 * found there is then in no known state (so its next wakeup counts), and a
 * switch-out of a task another CPU runs changes nothing of it. Only the
 * buffer (trace.dat instance) of the first sched_switch is read.
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
	int cpu; /* where it runs, while T_RUNNING */
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
	/* per CPU, the pid its last sched_switch switched in + 1 (0: none
	 * seen yet); and the buffer of the first sched_switch */
	int *on_cpu;
	size_t ncpus;
	const char *buffer;
};

/* The slot of what cpu switched in last, or NULL (out of memory, or not a
 * CPU number). */
static int *on_cpu(trawl_analysis *a, struct latency *l, int cpu)
{
	if (cpu < 0 || cpu >= TW_MAX_CPUS)
		return NULL;
	if ((size_t)cpu >= l->ncpus) {
		size_t n = (size_t)cpu + 1;
		int *c = tw_realloc(a->mem, l->on_cpu, n * sizeof(*c));
		if (!c)
			return NULL;
		memset(c + l->ncpus, 0, (n - l->ncpus) * sizeof(*c));
		l->on_cpu = c;
		l->ncpus = n;
	}
	return &l->on_cpu[cpu];
}

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
	if (!tw_in_window(a, ev) || tw_other_buffer(&l->buffer, ev, 0))
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
	if (!tw_in_window(a, ev) || tw_other_buffer(&l->buffer, ev, 1))
		return 0;
	int64_t ts = trawl_event_time(ev);
	int64_t prev, next;
	tw_part *p = &a->parts[0];
	int cpu = trawl_event_cpu(ev);
	int *cur = on_cpu(a, l, cpu);
	if (!cur && cpu >= 0 && cpu < TW_MAX_CPUS)
		return tw_oom(a);
	int have_prev = !trawl_event_get_int(ev, l->prev_pid, &prev) &&
			prev >= 0 && prev <= INT32_MAX;
	if (cur && *cur > 1 && have_prev && *cur - 1 != prev) {
		/* the task this CPU switched in is not what it switches out:
		 * that task stopped running here, to do what is not known */
		struct task *tk = task_of(a, l, *cur - 1);
		if (!tk)
			return tw_oom(a);
		if (tk->state == T_RUNNING && tk->cpu == cpu)
			tk->state = T_UNKNOWN;
	}
	if (have_prev && prev > 0) {
		struct task *tk = task_of(a, l, (int)prev);
		if (!tk)
			return tw_oom(a);
		if (tk->state == T_RUNNING && tk->cpu != cpu)
			goto next; /* another CPU runs it */
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
next:
	if (trawl_event_get_int(ev, l->next_pid, &next) || next < 0 ||
	    next > INT32_MAX)
		return 0;
	if (cur)
		*cur = (int)next + 1;
	if (next > 0) {
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
		tk->cpu = cpu;
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
	tw_free(a->mem, l->on_cpu);
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
