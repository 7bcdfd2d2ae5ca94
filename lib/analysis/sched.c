/* SPDX-License-Identifier: MIT */
/*
 * Where each task's time went (running, runnable, asleep; switches and
 * migrations) and how busy each CPU was, from sched_switch, the wakeup
 * events and sched_migrate_task in the one delivered order.
 *
 *   unknown --switch in--> running --switch out, R/R+--> runnable
 *      |                    ^   |                           |
 *      |                    |   +--switch out, S/D/...--> asleep --wakeup--+
 *      +--wakeup---------> runnable <---------------------------------------+
 *                           (switch in: running)
 *
 * Time is added when a state is left, so a state is counted only when its
 * start was seen; the last one is closed at the end of the trace.
 *
 * A CPU runs what the last sched_switch on it switched in, until the next
 * sched_switch on it, whatever that one's prev_pid says (a lost event, or
 * a capture missing lines, leaves the two apart): that switch ends the run
 * of the task it found there, which is then in no known state until it is
 * seen again, and the disagreement is an anomaly. So a task runs only
 * while a CPU runs it, and the tasks' run times never add up to more than
 * the CPUs' busy time. A task switched in on a CPU while running on
 * another ends its run there too, and a switch-out of a task that another
 * CPU runs is taken for that CPU's anomaly, not the task's. Only the buffer
 * (trace.dat instance) of the first sched_switch is read. A first seen being
 * woken may have been running all along (the trace began mid-way, or the wakeup
 * came on its way to sleep): if it is switched out before it is switched in,
 * that "runnable" time is dropped, as latency.c drops such a wakeup.
 */
#include <stdlib.h>

#include "analysis-int.h"

enum task_state {
	S_UNKNOWN = 0,
	S_RUNNING,
	S_RUNNABLE,
	S_ASLEEP,
	S_DEAD, /* switched out as X or Z: no more time is counted */
};

enum {
	A_SWITCH_IN_RUNNING, /* switched in while on a CPU already */
	A_SWITCH_OUT_OFF,    /* switched out while known to be off a CPU */
	A_STATE_UNREADABLE,  /* prev_state missing or not a state */
	A_PREV_NOT_CURRENT,  /* prev_pid is not what the CPU switched in */
};

#define COMM_MAX 32

struct task {
	trawl_sched_task out;
	uint8_t state;
	uint8_t guessed; /* runnable since a wakeup of an unknown task */
	uint8_t blocked; /* asleep as D (uninterruptible) */
	int cpu;	 /* where it last ran; -1 not seen running */
	int64_t since;
	char comm[COMM_MAX];
};

struct cpu {
	int seen;    /* a sched_switch on it was seen */
	int idle;    /* idle (pid 0) is running on it */
	int running; /* the pid the last switch on it switched in */
	int64_t since;
	trawl_sched_cpu out;
};

struct sched {
	tw_map pids;
	struct task *tasks;
	size_t ntasks, cap;
	struct cpu *cpus;
	size_t ncpus;
	int64_t first, last; /* events seen in the window */
	int any;
	uint64_t migrate_events; /* sched_migrate_task seen at all */
	/* the buffer (trace.dat instance) of the first sched_switch: the
	 * only one read, since instances often trace the same CPUs' events
	 * again, which would be two lanes for one CPU */
	const char *buffer;
	trawl_field prev_pid, prev_comm, prev_state, next_pid, next_comm;
	trawl_field woken_pid, woken_comm;
	trawl_field mig_pid, orig_cpu, dest_cpu;
	trawl_sched_report res;
	trawl_sched_task *out_tasks;
	trawl_sched_cpu *out_cpus;
};

static struct task *task_of(trawl_analysis *a, struct sched *s, int pid)
{
	int added;
	long i = tw_map_put(&s->pids, &pid, sizeof(pid), &added);
	if (i < 0)
		return NULL;
	if (added) {
		if (tw_grow(a->mem, (void **)&s->tasks, &s->cap, s->ntasks + 1,
			    sizeof(*s->tasks)))
			return NULL;
		struct task *tk = &s->tasks[s->ntasks++];
		memset(tk, 0, sizeof(*tk));
		tk->out.pid = pid;
		tk->cpu = -1;
	}
	return &s->tasks[i];
}

static struct cpu *cpu_of(trawl_analysis *a, struct sched *s, int cpu)
{
	if (cpu < 0 || cpu >= TW_MAX_CPUS)
		return NULL;
	if ((size_t)cpu >= s->ncpus) {
		size_t n = (size_t)cpu + 1;
		struct cpu *c = tw_realloc(a->mem, s->cpus, n * sizeof(*c));
		if (!c)
			return NULL;
		memset(c + s->ncpus, 0, (n - s->ncpus) * sizeof(*c));
		for (size_t i = s->ncpus; i < n; i++)
			c[i].out.cpu = (int)i;
		s->cpus = c;
		s->ncpus = n;
	}
	return &s->cpus[cpu];
}

static void set_comm(struct task *tk, const char *c, size_t n)
{
	if (!c)
		return;
	if (n >= COMM_MAX)
		n = COMM_MAX - 1;
	memcpy(tk->comm, c, n);
	tk->comm[n] = '\0';
}

/* An interval of a counted state, to trawl_sched_on_state()'s callback. */
static void tell(const trawl_analysis *a, const struct task *tk, int64_t end)
{
	static const int kinds[] = {
		[S_RUNNING] = TRAWL_TASK_RUNNING,
		[S_RUNNABLE] = TRAWL_TASK_RUNNABLE,
		[S_ASLEEP] = TRAWL_TASK_SLEEPING,
	};
	if (!tw_pid_wanted(a, tk->out.pid))
		return;
	trawl_task_state st = {
		.pid = tk->out.pid,
		.cpu = tk->cpu,
		.state = tk->blocked && tk->state == S_ASLEEP
				 ? TRAWL_TASK_UNINTERRUPTIBLE
				 : kinds[tk->state],
		.start = tk->since,
		.end = end > tk->since ? end : tk->since,
		.comm = tk->comm,
	};
	a->on_state(&st, a->state_ctx);
}

/* Leave the current state at ts: its time goes to its total. */
static void leave(const trawl_analysis *a, struct task *tk, int64_t ts)
{
	int64_t d = ts - tk->since;
	if (d < 0)
		d = 0;
	switch (tk->state) {
	case S_RUNNING:
		tk->out.run += d;
		break;
	case S_RUNNABLE:
		tk->out.runnable += d;
		break;
	case S_ASLEEP:
		tk->out.sleep += d;
		break;
	default:
		return;
	}
	if (a->on_state)
		tell(a, tk, ts);
}

static void enter(struct task *tk, int state, int64_t ts)
{
	tk->state = (uint8_t)state;
	tk->since = ts;
	tk->guessed = 0;
	tk->blocked = 0;
}

static void seen(struct sched *s, int64_t ts)
{
	if (!s->any) {
		s->any = 1;
		s->first = ts;
	}
	s->last = ts;
}

/*
 * prev_state as a state: text prints letters (R, R+, S, D, X, Z, ...);
 * trace.dat gives the kernel's TASK_REPORT bits in the low byte (0 running,
 * 0x10 EXIT_DEAD, 0x20 EXIT_ZOMBIE).
 */
static int state_after(const trawl_event *ev, trawl_field f, int *blocked)
{
	int64_t v;
	*blocked = 0;
	if (!trawl_event_get_int(ev, f, &v)) {
		if ((v & 0xff) == 0)
			return S_RUNNABLE;
		*blocked = (v & 0x02) != 0; /* TASK_UNINTERRUPTIBLE */
		return (v & 0x30) ? S_DEAD : S_ASLEEP;
	}
	size_t n;
	const char *c = trawl_event_raw(ev, f, &n);
	if (!c || !n)
		return -1;
	if (c[0] == 'R')
		return S_RUNNABLE;
	*blocked = c[0] == 'D';
	return c[0] == 'X' || c[0] == 'Z' ? S_DEAD : S_ASLEEP;
}

static int switch_out(trawl_analysis *a, struct sched *s, const trawl_event *ev,
		      int pid, int64_t ts)
{
	tw_part *p = &a->parts[0];
	struct task *tk = task_of(a, s, pid);
	if (!tk)
		return tw_oom(a);
	size_t n = 0;
	const char *comm = trawl_event_raw(ev, s->prev_comm, &n);
	set_comm(tk, comm, n);
	if (tk->state == S_RUNNING && tk->cpu != trawl_event_cpu(ev))
		/* another CPU switched it in and has not switched since: it
		 * runs there (this CPU's anomaly is counted) */
		return 0;
	int blocked;
	int next = state_after(ev, s->prev_state, &blocked);
	if (next < 0) {
		tw_part_anomaly(p, A_STATE_UNREADABLE, "prev_state unreadable",
				ts);
		next = S_UNKNOWN;
	}
	if (tk->state == S_RUNNING) {
		leave(a, tk, ts);
	} else if ((tk->state == S_ASLEEP || tk->state == S_RUNNABLE) &&
		   !tk->guessed) {
		/* A switch-in was lost; what it was doing is not known. */
		tw_part_anomaly(p, A_SWITCH_OUT_OFF,
				"switch-out of a task not running", ts);
	}
	tk->out.switches++;
	if (next == S_RUNNABLE)
		tk->out.preempted++;
	tk->cpu = trawl_event_cpu(ev);
	enter(tk, next, ts);
	tk->blocked = (uint8_t)blocked;
	return 0;
}

static int switch_in(trawl_analysis *a, struct sched *s, const trawl_event *ev,
		     int pid, int64_t ts)
{
	struct task *tk = task_of(a, s, pid);
	if (!tk)
		return tw_oom(a);
	size_t n = 0;
	const char *comm = trawl_event_raw(ev, s->next_comm, &n);
	set_comm(tk, comm, n);
	int cpu = trawl_event_cpu(ev);
	if (tk->state == S_RUNNING)
		tw_part_anomaly(&a->parts[0], A_SWITCH_IN_RUNNING,
				"switch-in of a task already running", ts);
	/* running elsewhere: that run ends here (its CPU's switch-out was
	 * lost), and the one on this CPU begins */
	leave(a, tk, ts);
	tk->out.count++;
	if (!s->migrate_events && tk->cpu >= 0 && tk->cpu != cpu)
		tk->out.migrations++;
	tk->cpu = cpu;
	enter(tk, S_RUNNING, ts);
	return 0;
}

/* The CPU's running task changes to next_pid at ts. */
static int cpu_switch(trawl_analysis *a, struct sched *s, const trawl_event *ev,
		      int64_t next, int64_t ts)
{
	int id = trawl_event_cpu(ev);
	struct cpu *c = cpu_of(a, s, id);
	if (!c)
		return id < 0 || id >= TW_MAX_CPUS ? 0 : tw_oom(a);
	if (c->seen) {
		int64_t d = ts - c->since;
		if (d > 0) {
			if (c->idle)
				c->out.idle += d;
			else
				c->out.busy += d;
		}
	}
	c->seen = 1;
	c->idle = next == 0;
	c->running = (int)next;
	c->since = ts;
	c->out.switches++;
	return 0;
}

/*
 * A switch on a CPU whose last switch-in was another task than prev_pid:
 * that task's run ends now (it ran here until this switch), and what it
 * does next is not known.
 */
static int end_current(trawl_analysis *a, struct sched *s, int id, int64_t prev,
		       int64_t ts)
{
	if (id < 0 || (size_t)id >= s->ncpus || !s->cpus[id].seen)
		return 0;
	int cur = s->cpus[id].running;
	if (cur == prev)
		return 0;
	tw_part_anomaly(&a->parts[0], A_PREV_NOT_CURRENT,
			"sched_switch's prev_pid is not the task switched in "
			"on its CPU",
			ts);
	if (cur <= 0)
		return 0;
	struct task *tk = task_of(a, s, cur);
	if (!tk)
		return tw_oom(a);
	if (tk->state == S_RUNNING && tk->cpu == id) {
		leave(a, tk, ts);
		enter(tk, S_UNKNOWN, ts);
	}
	return 0;
}

static int on_switch(const trawl_event *ev, void *ctx)
{
	trawl_analysis *a = ctx;
	struct sched *s = a->state;
	if (!tw_in_window(a, ev) || tw_other_buffer(&s->buffer, ev, 1))
		return 0;
	int64_t ts = trawl_event_time(ev);
	seen(s, ts);
	int64_t prev, next;
	int rc = 0;
	int have_prev = !trawl_event_get_int(ev, s->prev_pid, &prev) &&
			prev >= 0 && prev <= INT32_MAX;
	if (have_prev)
		rc = end_current(a, s, trawl_event_cpu(ev), prev, ts);
	if (!rc && have_prev && prev > 0)
		rc = switch_out(a, s, ev, (int)prev, ts);
	if (trawl_event_get_int(ev, s->next_pid, &next) || next < 0 ||
	    next > INT32_MAX)
		return rc;
	if (!rc && next > 0)
		rc = switch_in(a, s, ev, (int)next, ts);
	if (!rc)
		rc = cpu_switch(a, s, ev, next, ts);
	return rc;
}

static int on_wakeup(const trawl_event *ev, void *ctx)
{
	trawl_analysis *a = ctx;
	struct sched *s = a->state;
	if (!tw_in_window(a, ev) || tw_other_buffer(&s->buffer, ev, 0))
		return 0;
	int64_t ts = trawl_event_time(ev);
	seen(s, ts);
	int64_t pid;
	if (trawl_event_get_int(ev, s->woken_pid, &pid) || pid <= 0 ||
	    pid > INT32_MAX)
		return 0;
	struct task *tk = task_of(a, s, (int)pid);
	if (!tk)
		return tw_oom(a);
	if (!tk->comm[0]) {
		size_t n = 0;
		const char *comm = trawl_event_raw(ev, s->woken_comm, &n);
		set_comm(tk, comm, n);
	}
	/* A running or runnable task stays as it is. A dead one can only be
	 * woken as a new task that was given its pid (sched_wakeup_new). */
	if (tk->state == S_ASLEEP || tk->state == S_DEAD) {
		leave(a, tk, ts);
		enter(tk, S_RUNNABLE, ts);
	} else if (tk->state == S_UNKNOWN && trawl_event_pid(ev) != pid) {
		/* A task waking itself is on a CPU: that tells nothing. */
		enter(tk, S_RUNNABLE, ts);
		tk->guessed = 1;
	}
	return 0;
}

static int on_migrate(const trawl_event *ev, void *ctx)
{
	trawl_analysis *a = ctx;
	struct sched *s = a->state;
	if (!tw_in_window(a, ev) || tw_other_buffer(&s->buffer, ev, 0))
		return 0;
	seen(s, trawl_event_time(ev));
	int64_t pid, from, to;
	if (trawl_event_get_int(ev, s->mig_pid, &pid) || pid <= 0 ||
	    pid > INT32_MAX || trawl_event_get_int(ev, s->orig_cpu, &from) ||
	    trawl_event_get_int(ev, s->dest_cpu, &to))
		return 0;
	if (!s->migrate_events++) {
		/* From now on the events count migrations: forget the ones
		 * counted from switch-ins so far (the event was traced from
		 * the start, so those would be counted twice). */
		for (size_t i = 0; i < s->ntasks; i++)
			s->tasks[i].out.migrations = 0;
	}
	if (from == to)
		return 0;
	struct task *tk = task_of(a, s, (int)pid);
	if (!tk)
		return tw_oom(a);
	tk->out.migrations++;
	return 0;
}

static int cmp_tasks(const void *x, const void *y)
{
	const trawl_sched_task *a = x, *b = y;
	if (a->run != b->run)
		return a->run > b->run ? -1 : 1;
	return a->pid < b->pid ? -1 : a->pid > b->pid;
}

/* a + b for durations (>= 0), INT64_MAX when it would not fit */
static int64_t sum_ns(int64_t a, int64_t b)
{
	return a > INT64_MAX - b ? INT64_MAX : a + b;
}

static void finish(trawl_analysis *a)
{
	struct sched *s = a->state;
	int64_t end = tw_analysis_end(a, s->last);
	s->res.start = s->any ? s->first : 0;
	s->res.end = s->any ? end : 0;
	s->out_tasks = tw_calloc(a->mem, s->ntasks ? s->ntasks : 1,
				 sizeof(*s->out_tasks));
	s->out_cpus = tw_calloc(a->mem, s->ncpus ? s->ncpus : 1,
				sizeof(*s->out_cpus));
	if (!s->out_tasks || !s->out_cpus) {
		a->failed = 1;
		return;
	}
	trawl_sched_task *all = &s->res.overall;
	all->pid = -1;
	all->comm = "";
	size_t n = 0;
	for (size_t i = 0; i < s->ntasks; i++) {
		struct task *tk = &s->tasks[i];
		int wanted = tw_task_wanted(a, tk->out.pid, tk->comm,
					    strlen(tk->comm));
		if (tk->state != S_UNKNOWN && !tk->guessed &&
		    (wanted || a->on_state))
			leave(a, tk, s->res.end);
		if (!wanted)
			continue;
		trawl_sched_task *o = &s->out_tasks[n++];
		*o = tk->out;
		o->comm = tk->comm;
		all->count += o->count;
		/* each task's times fit the trace's span; their sum over
		 * tasks may not (hostile timestamps): it saturates */
		all->run = sum_ns(all->run, o->run);
		all->runnable = sum_ns(all->runnable, o->runnable);
		all->sleep = sum_ns(all->sleep, o->sleep);
		all->switches += o->switches;
		all->preempted += o->preempted;
		all->migrations += o->migrations;
	}
	qsort(s->out_tasks, n, sizeof(*s->out_tasks), cmp_tasks);
	size_t nc = 0;
	for (size_t i = 0; i < s->ncpus; i++) {
		struct cpu *c = &s->cpus[i];
		if (!c->seen)
			continue;
		int64_t d = s->res.end - c->since;
		if (d > 0) {
			if (c->idle)
				c->out.idle += d;
			else
				c->out.busy += d;
		}
		s->out_cpus[nc++] = c->out;
	}
	s->res.tasks = s->out_tasks;
	s->res.ntasks = n;
	s->res.cpus = s->out_cpus;
	s->res.ncpus = nc;
	s->res.migrations_from =
		s->migrate_events ? "sched_migrate_task" : "switch_in";
}

TRAWL_API const trawl_sched_report *trawl_sched_result(trawl_analysis *a)
{
	if (!a || !a->is_sched)
		return NULL;
	const trawl_result *r = trawl_analysis_result(a, 0);
	if (!r)
		return NULL;
	struct sched *s = a->state;
	s->res.anomalies = r->anomalies;
	s->res.nanomalies = r->nanomalies;
	return &s->res;
}

TRAWL_API int trawl_sched_on_state(trawl_analysis *a,
				   void (*fn)(const trawl_task_state *st,
					      void *ctx),
				   void *ctx)
{
	if (!a || !a->is_sched || a->t->ran)
		return -TRAWL_EMISUSE;
	a->on_state = fn;
	a->state_ctx = ctx;
	return 0;
}

static void fini(trawl_analysis *a)
{
	struct sched *s = a->state;
	if (!s)
		return;
	tw_map_fini(&s->pids);
	tw_free(a->mem, s->tasks);
	tw_free(a->mem, s->cpus);
	tw_free(a->mem, s->out_tasks);
	tw_free(a->mem, s->out_cpus);
	tw_free(a->mem, s);
}

TRAWL_API trawl_analysis *
trawl_sched_new(trawl_trace *t, const trawl_analysis_opts *o, trawl_error *err)
{
	static const char *const names[] = {"sched"};
	trawl_analysis *a = tw_analysis_new(t, o, names, 1, err);
	if (!a)
		return NULL;
	struct sched *s = tw_calloc(a->mem, 1, sizeof(*s));
	if (!s)
		return tw_analysis_fail(a, -TRAWL_ENOMEM, err);
	a->state = s;
	a->fini = fini;
	a->finish = finish;
	a->is_sched = 1;
	tw_map_init(&s->pids, a->mem);
	s->prev_pid = trawl_field_lookup(t, "sched_switch", "prev_pid");
	s->prev_comm = trawl_field_lookup(t, "sched_switch", "prev_comm");
	s->prev_state = trawl_field_lookup(t, "sched_switch", "prev_state");
	s->next_pid = trawl_field_lookup(t, "sched_switch", "next_pid");
	s->next_comm = trawl_field_lookup(t, "sched_switch", "next_comm");
	s->woken_pid = trawl_field_lookup(t, NULL, "pid");
	s->woken_comm = trawl_field_lookup(t, NULL, "comm");
	s->mig_pid = trawl_field_lookup(t, "sched_migrate_task", "pid");
	s->orig_cpu = trawl_field_lookup(t, "sched_migrate_task", "orig_cpu");
	s->dest_cpu = trawl_field_lookup(t, "sched_migrate_task", "dest_cpu");
	if (!s->prev_pid || !s->prev_comm || !s->prev_state || !s->next_pid ||
	    !s->next_comm || !s->woken_pid || !s->woken_comm || !s->mig_pid ||
	    !s->orig_cpu || !s->dest_cpu)
		return tw_analysis_fail(a, -TRAWL_ENOMEM, err);
	int rc = trawl_on(t, "sched_switch", on_switch, a);
	if (!rc)
		rc = trawl_on(t, "sched_waking", on_wakeup, a);
	if (!rc)
		rc = trawl_on(t, "sched_wakeup", on_wakeup, a);
	if (!rc)
		rc = trawl_on(t, "sched_wakeup_new", on_wakeup, a);
	if (!rc)
		rc = trawl_on(t, "sched_migrate_task", on_migrate, a);
	if (rc)
		return tw_analysis_fail(a, rc, err);
	return a;
}
