/* SPDX-License-Identifier: MIT */
/*
 * Building the viewer's index in one pass over the trace (public API only):
 * the lanes' changes from sched_switch and the wakeups (running task per
 * CPU, thread state per task), irq and softirq entry/exit, workqueue
 * execute start/end, systrace markers (B/E nested per thread, S/F on async
 * rows, C counters), cpu_frequency, trace_printk and trace_marker texts,
 * and lost-event counts. The ISR-over-threshold list comes from the irq
 * analysis (trawl_irq_new()'s on_long), so it is the one `trawl irq` gives.
 * Then the summary levels (view-lod.c).
 *
 * Thread states follow the sched analysis: a switch-out makes the task
 * runnable (prev_state R, R+), uninterruptible (D), dead (X, Z) or asleep
 * (anything else); a wakeup of a task not on a CPU makes it runnable and
 * remembers the waker; a switch-in makes it running.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "view.h"

#define NONE	       UINT32_MAX
#define MAX_CPUS       4096
#define MAX_OPEN_ASYNC 4096
#define MAX_BUFFERS    16

static const char *const softirq_names[] = {
	"HI",	    "TIMER",   "NET_TX", "NET_RX",  "BLOCK",
	"IRQ_POLL", "TASKLET", "SCHED",	 "HRTIMER", "RCU",
};

enum kind {
	K_OTHER = 0,
	K_SWITCH,
	K_WAKE,
	K_HARD_ENTRY,
	K_HARD_EXIT,
	K_SOFT_ENTRY,
	K_SOFT_EXIT,
	K_WORK_START,
	K_WORK_END,
	K_PRINT,
	K_PRINTK,
	K_FREQ,
	K_UNKNOWN = 255,
};

struct cpu_lanes {
	uint32_t run, hard, soft, work, freq;
};

struct open_async {
	int64_t pid, cookie;
	uint32_t name;
	int row;
};

struct counter_key {
	int64_t pid;
	uint32_t name;
	uint32_t lane;
};

struct builder {
	struct view_index *ix;
	trawl_field prev_comm, prev_state, next_pid, next_comm;
	trawl_field woken_pid, woken_comm;
	trawl_field irq, irq_name, vec, action, function, freq, freq_cpu;
	trawl_field buf;
	uint8_t *kind;
	size_t nkind;
	struct cpu_lanes *cpus; /* [buffer * ncpus + cpu] */
	int ncpus;
	const char *buffers[MAX_BUFFERS]; /* trace.dat instances seen */
	int nbuffers, buffer;		  /* the current event's */
	int task_buffer; /* whose sched events make the thread states:
			  * the first with a sched_switch (instances
			  * often trace the same switches again) */
	struct open_async *async;
	size_t nasync;
	uint32_t async_rows[VIEW_ASYNC_ROWS]; /* lane or NONE */
	int async_busy[VIEW_ASYNC_ROWS];
	struct counter_key *counters;
	size_t ncounters, ccap;
	uint32_t marker_lane, lost_lane;
	uint64_t lost_seen;
	trawl_trace *t;
};

static int grow(void **p, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return 0;
	size_t n = *cap ? *cap : 16;
	while (n < need)
		n *= 2;
	void *q = realloc(*p, n * elem);
	if (!q)
		return -1;
	memset((char *)q + *cap * elem, 0, (n - *cap) * elem);
	*p = q;
	*cap = n;
	return 0;
}

static uint32_t new_lane(struct view_index *ix, int kind, int cpu, int pid,
			 int depth, uint32_t name)
{
	if (grow((void **)&ix->lanes, &ix->lcap, ix->nlanes + 1,
		 sizeof(*ix->lanes))) {
		ix->oom = 1;
		return NONE;
	}
	struct view_lane *l = &ix->lanes[ix->nlanes];
	memset(l, 0, sizeof(*l));
	l->kind = kind;
	l->cpu = cpu;
	l->pid = pid;
	l->depth = depth;
	l->name = name;
	l->points = kind == VIEW_LANE_MARKER || kind == VIEW_LANE_LOST;
	return (uint32_t)ix->nlanes++;
}

static uint32_t name_of(struct view_index *ix, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static uint32_t name_of(struct view_index *ix, const char *fmt, ...)
{
	char b[256];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(b, sizeof(b), fmt, ap);
	va_end(ap);
	if (n < 0)
		n = 0;
	if ((size_t)n >= sizeof(b))
		n = sizeof(b) - 1;
	return view_intern(&ix->str, b, (size_t)n);
}

static void step(struct view_index *ix, uint32_t lane, int64_t t, int64_t v,
		 uint32_t aux)
{
	if (lane == NONE)
		return;
	if (view_steps_add(&ix->lanes[lane].steps, t, v, aux))
		ix->oom = 1;
}

static struct cpu_lanes *cpu_of(struct builder *b, int cpu)
{
	if (cpu < 0 || cpu >= MAX_CPUS)
		return NULL;
	if (cpu >= b->ncpus) {
		/* room for every buffer's CPUs: [buffer * ncpus + cpu] */
		int n = b->ncpus ? b->ncpus : 8;
		while (n <= cpu)
			n *= 2;
		struct cpu_lanes *c =
			malloc((size_t)n * MAX_BUFFERS * sizeof(*c));
		if (!c) {
			b->ix->oom = 1;
			return NULL;
		}
		for (int i = 0; i < n * MAX_BUFFERS; i++)
			c[i] = (struct cpu_lanes){NONE, NONE, NONE, NONE, NONE};
		for (int k = 0; k < MAX_BUFFERS; k++)
			for (int i = 0; i < b->ncpus; i++)
				c[k * n + i] = b->cpus[k * b->ncpus + i];
		free(b->cpus);
		b->cpus = c;
		b->ncpus = n;
	}
	if (cpu >= b->ix->ncpus)
		b->ix->ncpus = cpu + 1;
	return &b->cpus[b->buffer * b->ncpus + cpu];
}

/* Which trace.dat instance the event is from (its CPUs are lanes of
 * their own); instances past MAX_BUFFERS share the last. */
static void buffer_of(struct builder *b, const trawl_event *ev)
{
	const char *name = trawl_event_buffer(ev);
	if (b->nbuffers && b->buffers[b->buffer] == name)
		return;
	for (int i = 0; i < b->nbuffers; i++)
		if (b->buffers[i] == name || !strcmp(b->buffers[i], name)) {
			b->buffer = i;
			return;
		}
	if (b->nbuffers < MAX_BUFFERS)
		b->buffers[b->nbuffers++] = name;
	b->buffer = b->nbuffers - 1;
}

static uint32_t cpu_lane(struct builder *b, int cpu, int kind)
{
	struct cpu_lanes *c = cpu_of(b, cpu);
	if (!c)
		return NONE;
	uint32_t *slot = kind == VIEW_LANE_CPU	     ? &c->run
			 : kind == VIEW_LANE_HARDIRQ ? &c->hard
			 : kind == VIEW_LANE_SOFTIRQ ? &c->soft
			 : kind == VIEW_LANE_WORK    ? &c->work
						     : &c->freq;
	if (*slot == NONE) {
		static const char *const what[] = {
			[VIEW_LANE_CPU] = "",
			[VIEW_LANE_HARDIRQ] = " hardirq",
			[VIEW_LANE_SOFTIRQ] = " softirq",
			[VIEW_LANE_WORK] = " workqueue",
			[VIEW_LANE_COUNTER] = " frequency",
		};
		const char *buf = b->buffers[b->buffer];
		*slot = new_lane(b->ix, kind, cpu, -1, 0,
				 name_of(b->ix, "%.60s%sCPU %d%s", buf,
					 *buf ? " " : "", cpu, what[kind]));
		if (*slot != NONE)
			b->ix->lanes[*slot].buffer = b->buffer;
	}
	return *slot;
}

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	return x;
}

/* The task of pid (not 0), made with its state lane on first sight. */
static struct view_task *task_of(struct view_index *ix, int pid)
{
	if ((ix->ntasks + 1) * 2 > ix->tmcap) {
		size_t cap = ix->tmcap ? ix->tmcap * 2 : 1024;
		uint32_t *m = calloc(cap, sizeof(*m));
		if (!m) {
			ix->oom = 1;
			return NULL;
		}
		for (size_t i = 0; i < ix->ntasks; i++) {
			size_t h = mix((uint64_t)ix->tasks[i].pid) & (cap - 1);
			while (m[h])
				h = (h + 1) & (cap - 1);
			m[h] = (uint32_t)i + 1;
		}
		free(ix->task_map);
		ix->task_map = m;
		ix->tmcap = cap;
	}
	size_t h = mix((uint64_t)pid) & (ix->tmcap - 1);
	for (; ix->task_map[h]; h = (h + 1) & (ix->tmcap - 1))
		if (ix->tasks[ix->task_map[h] - 1].pid == pid)
			return &ix->tasks[ix->task_map[h] - 1];
	if (grow((void **)&ix->tasks, &ix->tcap, ix->ntasks + 1,
		 sizeof(*ix->tasks))) {
		ix->oom = 1;
		return NULL;
	}
	uint32_t lane = new_lane(ix, VIEW_LANE_TASK, -1, pid, 0, 0);
	if (lane == NONE)
		return NULL;
	struct view_task *tk = &ix->tasks[ix->ntasks];
	memset(tk, 0, sizeof(*tk));
	tk->pid = pid;
	tk->tgid = -1;
	tk->lane = lane;
	tk->cpu = -1;
	ix->task_map[h] = (uint32_t)++ix->ntasks;
	return tk;
}

static void set_comm(struct view_index *ix, struct view_task *tk, const char *s,
		     size_t n)
{
	if (!s || !n)
		return;
	size_t len;
	const char *cur = view_string(&ix->str, tk->comm, &len);
	if (tk->comm && len == n && !memcmp(cur, s, n))
		return;
	tk->comm = view_intern(&ix->str, s, n);
	ix->lanes[tk->lane].name = tk->comm;
}

static void set_state(struct view_index *ix, struct view_task *tk, int64_t ts,
		      int state, uint32_t aux)
{
	if (tk->state == state && state != VIEW_STATE_RUNNING &&
	    state != VIEW_STATE_RUNNABLE)
		return;
	tk->state = state;
	step(ix, tk->lane, ts, state, aux);
}

static uint32_t task_index(struct view_index *ix, struct view_task *tk)
{
	return tk ? (uint32_t)(tk - ix->tasks) : NONE;
}

/* prev_state: letters in text (R, R+, S, D, X, Z ...), the kernel's
 * TASK_REPORT bits in trace.dat's low byte (0 running, 1 S, 2 D,
 * 0x10 X, 0x20 Z). */
static int state_after(const trawl_event *ev, trawl_field f)
{
	int64_t v;
	if (!trawl_event_get_int(ev, f, &v)) {
		if ((v & 0xff) == 0)
			return VIEW_STATE_RUNNABLE;
		if (v & 0x30)
			return VIEW_STATE_DEAD;
		return (v & 0x02) ? VIEW_STATE_UNINTERRUPTIBLE
				  : VIEW_STATE_SLEEPING;
	}
	size_t n;
	const char *c = trawl_event_raw(ev, f, &n);
	if (!c || !n)
		return VIEW_STATE_SLEEPING;
	switch (c[0]) {
	case 'R':
		return VIEW_STATE_RUNNABLE;
	case 'D':
		return VIEW_STATE_UNINTERRUPTIBLE;
	case 'X':
	case 'Z':
		return VIEW_STATE_DEAD;
	default:
		return VIEW_STATE_SLEEPING;
	}
}

static void on_switch(struct builder *b, const trawl_event *ev, int64_t ts)
{
	struct view_index *ix = b->ix;
	int cpu = trawl_event_cpu(ev);
	/* the switch runs in prev's context: its pid and comm are the
	 * header's, which costs no field read (on text each read is a
	 * seek in the line); the next task's comm is read only for a task
	 * not named yet, and follows renames when it is switched out */
	int64_t prev = trawl_event_pid(ev), next;
	if (trawl_event_get_int(ev, b->next_pid, &next))
		return;
	size_t n;
	const char *s;
	if (b->task_buffer < 0)
		b->task_buffer = b->buffer;
	int states = b->task_buffer == b->buffer;
	if (prev > 0 && states) {
		struct view_task *tk = task_of(ix, (int)prev);
		if (tk) {
			s = trawl_event_comm(ev);
			if (s[0] == '<' && !strcmp(s, "<...>"))
				s = trawl_event_raw(ev, b->prev_comm, &n);
			else
				n = strlen(s);
			set_comm(ix, tk, s, n);
			set_state(ix, tk, ts, state_after(ev, b->prev_state),
				  0);
		}
	}
	uint32_t v = 0;
	if (next > 0) {
		struct view_task *tk = task_of(ix, (int)next);
		if (tk) {
			if (!tk->comm) {
				s = trawl_event_raw(ev, b->next_comm, &n);
				set_comm(ix, tk, s, n);
			}
			tk->cpu = cpu;
			if (states)
				set_state(ix, tk, ts, VIEW_STATE_RUNNING,
					  (uint32_t)(cpu + 1));
			v = task_index(ix, tk) + 1;
		}
	}
	step(ix, cpu_lane(b, cpu, VIEW_LANE_CPU), ts, v, 0);
}

static void on_wake(struct builder *b, const trawl_event *ev, int64_t ts)
{
	struct view_index *ix = b->ix;
	int64_t pid;
	if (b->task_buffer >= 0 && b->task_buffer != b->buffer)
		return;
	if (trawl_event_get_int(ev, b->woken_pid, &pid) || pid <= 0)
		return;
	struct view_task *tk = task_of(ix, (int)pid);
	if (!tk)
		return;
	if (!tk->comm) {
		size_t n;
		const char *s = trawl_event_raw(ev, b->woken_comm, &n);
		set_comm(ix, tk, s, n);
	}
	if (tk->state == VIEW_STATE_RUNNING || tk->state == VIEW_STATE_RUNNABLE)
		return;
	uint32_t waker = 1;
	int cur = trawl_event_pid(ev);
	if (cur > 0) {
		struct view_task *w = task_of(ix, cur);
		if (w) {
			/* the task pointer may have moved */
			tk = task_of(ix, (int)pid);
			waker = task_index(ix, w) + 2;
			if (!w->comm)
				set_comm(ix, w, trawl_event_comm(ev),
					 strlen(trawl_event_comm(ev)));
		}
	}
	if (tk)
		set_state(ix, tk, ts, VIEW_STATE_RUNNABLE, waker);
}

static void on_irq(struct builder *b, const trawl_event *ev, int64_t ts,
		   int soft, int entry)
{
	struct view_index *ix = b->ix;
	int cpu = trawl_event_cpu(ev);
	uint32_t lane =
		cpu_lane(b, cpu, soft ? VIEW_LANE_SOFTIRQ : VIEW_LANE_HARDIRQ);
	if (!entry) {
		step(ix, lane, ts, 0, 0);
		return;
	}
	int64_t id = -1;
	size_t n = 0;
	const char *s;
	uint32_t name;
	if (soft) {
		trawl_event_get_int(ev, b->vec, &id);
		s = trawl_event_label(ev, b->vec, &n);
		if (!s)
			s = trawl_event_raw(ev, b->action, &n);
		if (!s && id >= 0 &&
		    (size_t)id < sizeof(softirq_names) / sizeof(*softirq_names))
			s = softirq_names[id], n = strlen(s);
		name = s ? name_of(ix, "%.*s", (int)n, s)
			 : name_of(ix, "vec %lld", (long long)id);
	} else {
		trawl_event_get_int(ev, b->irq, &id);
		s = trawl_event_raw(ev, b->irq_name, &n);
		name = name_of(ix, "irq %lld %.*s", (long long)id,
			       s ? (int)(n > 200 ? 200 : n) : 0, s ? s : "");
	}
	step(ix, lane, ts, (int64_t)name + 1, 0);
}

static void on_work(struct builder *b, const trawl_event *ev, int64_t ts,
		    int start)
{
	struct view_index *ix = b->ix;
	uint32_t lane = cpu_lane(b, trawl_event_cpu(ev), VIEW_LANE_WORK);
	if (!start) {
		step(ix, lane, ts, 0, 0);
		return;
	}
	size_t n = 0;
	const char *fn = trawl_event_label(ev, b->function, &n);
	if (!fn)
		fn = trawl_event_raw(ev, b->function, &n);
	uint32_t name = fn ? view_intern(&ix->str, fn, n)
			   : view_intern(&ix->str, "work", 4);
	step(ix, lane, ts, (int64_t)name + 1, 0);
}

static uint32_t counter_lane(struct builder *b, int64_t pid, uint32_t name,
			     int cpu)
{
	for (size_t i = 0; i < b->ncounters; i++)
		if (b->counters[i].pid == pid && b->counters[i].name == name)
			return b->counters[i].lane;
	if (grow((void **)&b->counters, &b->ccap, b->ncounters + 1,
		 sizeof(*b->counters))) {
		b->ix->oom = 1;
		return NONE;
	}
	uint32_t lane =
		new_lane(b->ix, VIEW_LANE_COUNTER, cpu, (int)pid, 0, name);
	b->counters[b->ncounters++] =
		(struct counter_key){.pid = pid, .name = name, .lane = lane};
	return lane;
}

static void on_slice(struct builder *b, const trawl_event *ev, int64_t ts,
		     int begin, uint32_t name)
{
	struct view_index *ix = b->ix;
	int pid = trawl_event_pid(ev);
	struct view_task *tk = pid > 0 ? task_of(ix, pid) : NULL;
	if (!tk)
		return;
	if (!tk->comm)
		set_comm(ix, tk, trawl_event_comm(ev),
			 strlen(trawl_event_comm(ev)));
	if (!begin) {
		if (tk->depth == 0)
			return;
		int d = --tk->depth;
		if (d < VIEW_MAX_DEPTH)
			step(ix, tk->slice_lane[d], ts, 0, 0);
		return;
	}
	int d = tk->depth++;
	if (d >= VIEW_MAX_DEPTH)
		return;
	if (!tk->has_slice[d]) {
		uint32_t lane =
			new_lane(ix, VIEW_LANE_SLICE, -1, pid, d, tk->comm);
		tk = task_of(ix, pid);
		if (lane == NONE || !tk)
			return;
		tk->slice_lane[d] = lane;
		tk->has_slice[d] = 1;
	}
	step(ix, tk->slice_lane[d], ts, (int64_t)name + 1, 0);
}

static void on_async(struct builder *b, int64_t ts, const trawl_marker *m,
		     uint32_t name)
{
	struct view_index *ix = b->ix;
	if (m->kind == TRAWL_MARKER_ASYNC_END) {
		for (size_t i = 0; i < b->nasync; i++) {
			struct open_async *a = &b->async[i];
			if (a->pid == m->pid && a->cookie == m->value &&
			    a->name == name) {
				step(ix, b->async_rows[a->row], ts, 0, 0);
				b->async_busy[a->row] = 0;
				*a = b->async[--b->nasync];
				return;
			}
		}
		return;
	}
	if (b->nasync >= MAX_OPEN_ASYNC)
		return;
	int row = -1;
	for (int r = 0; r < VIEW_ASYNC_ROWS && row < 0; r++)
		if (!b->async_busy[r])
			row = r;
	if (row < 0)
		return;
	if (b->async_rows[row] == NONE)
		b->async_rows[row] = new_lane(ix, VIEW_LANE_ASYNC, -1, -1, row,
					      name_of(ix, "async %d", row));
	b->async_busy[row] = 1;
	b->async[b->nasync++] = (struct open_async){
		.pid = m->pid, .cookie = m->value, .name = name, .row = row};
	step(ix, b->async_rows[row], ts, (int64_t)name + 1, 0);
}

static void marker_point(struct builder *b, int64_t ts, const char *s, size_t n)
{
	struct view_index *ix = b->ix;
	if (b->marker_lane == NONE)
		b->marker_lane = new_lane(ix, VIEW_LANE_MARKER, -1, -1, 0,
					  name_of(ix, "markers"));
	while (n && (s[n - 1] == '\n' || s[n - 1] == ' '))
		n--;
	step(ix, b->marker_lane, ts, (int64_t)view_intern(&ix->str, s, n) + 1,
	     0);
}

static void on_print(struct builder *b, const trawl_event *ev, int64_t ts)
{
	trawl_marker m;
	if (!trawl_event_marker(ev, &m)) {
		uint32_t name = view_intern(&b->ix->str, m.name ? m.name : "",
					    m.name ? m.name_len : 0);
		switch (m.kind) {
		case TRAWL_MARKER_BEGIN:
		case TRAWL_MARKER_END:
			on_slice(b, ev, ts, m.kind == TRAWL_MARKER_BEGIN, name);
			return;
		case TRAWL_MARKER_COUNTER:
			step(b->ix, counter_lane(b, m.pid, name, -1), ts,
			     m.value, 0);
			return;
		default:
			on_async(b, ts, &m, name);
			return;
		}
	}
	size_t n;
	const char *s = trawl_event_raw(ev, b->buf, &n);
	if (!s)
		s = trawl_event_payload(ev, &n);
	marker_point(b, ts, s, n);
}

static int kind_of(struct builder *b, const trawl_event *ev)
{
	uint32_t type = trawl_event_type_id(ev);
	if (type < b->nkind && b->kind[type] != K_UNKNOWN)
		return b->kind[type];
	if (type >= b->nkind) {
		size_t old = b->nkind;
		if (grow((void **)&b->kind, &b->nkind, (size_t)type + 1, 1)) {
			b->ix->oom = 1;
			return K_OTHER;
		}
		memset(b->kind + old, K_UNKNOWN, b->nkind - old);
	}
	static const struct {
		const char *name;
		int kind;
	} known[] = {
		{"sched_switch", K_SWITCH},
		{"sched_waking", K_WAKE},
		{"sched_wakeup", K_WAKE},
		{"sched_wakeup_new", K_WAKE},
		{"irq_handler_entry", K_HARD_ENTRY},
		{"irq_handler_exit", K_HARD_EXIT},
		{"softirq_entry", K_SOFT_ENTRY},
		{"softirq_exit", K_SOFT_EXIT},
		{"workqueue_execute_start", K_WORK_START},
		{"workqueue_execute_end", K_WORK_END},
		{"print", K_PRINT},
		{"bprint", K_PRINTK},
		{"bputs", K_PRINTK},
		{"cpu_frequency", K_FREQ},
	};
	const char *name = trawl_event_name(ev);
	int kind = K_OTHER;
	for (size_t i = 0; i < sizeof(known) / sizeof(*known); i++)
		if (!strcmp(name, known[i].name))
			kind = known[i].kind;
	b->kind[type] = (uint8_t)kind;
	return kind;
}

static void check_lost(struct builder *b, int64_t ts)
{
	uint64_t lost = trawl_trace_stats(b->t)->lost_events;
	if (lost == b->lost_seen)
		return;
	struct view_index *ix = b->ix;
	if (b->lost_lane == NONE)
		b->lost_lane = new_lane(ix, VIEW_LANE_LOST, -1, -1, 0,
					name_of(ix, "lost events"));
	step(ix, b->lost_lane, ts, (int64_t)(lost - b->lost_seen), 0);
	b->lost_seen = lost;
}

static int on_event(const trawl_event *ev, void *ctx)
{
	struct builder *b = ctx;
	int64_t ts = trawl_event_time(ev);
	check_lost(b, ts);
	buffer_of(b, ev);
	switch (kind_of(b, ev)) {
	case K_SWITCH:
		on_switch(b, ev, ts);
		break;
	case K_WAKE:
		on_wake(b, ev, ts);
		break;
	case K_HARD_ENTRY:
	case K_HARD_EXIT:
		on_irq(b, ev, ts, 0, kind_of(b, ev) == K_HARD_ENTRY);
		break;
	case K_SOFT_ENTRY:
	case K_SOFT_EXIT:
		on_irq(b, ev, ts, 1, kind_of(b, ev) == K_SOFT_ENTRY);
		break;
	case K_WORK_START:
	case K_WORK_END:
		on_work(b, ev, ts, kind_of(b, ev) == K_WORK_START);
		break;
	case K_PRINT:
		on_print(b, ev, ts);
		break;
	case K_PRINTK: {
		size_t n;
		const char *s = trawl_event_payload(ev, &n);
		marker_point(b, ts, s, n);
		break;
	}
	case K_FREQ: {
		int64_t v, cpu;
		if (!trawl_event_get_int(ev, b->freq, &v) &&
		    !trawl_event_get_int(ev, b->freq_cpu, &cpu) && cpu >= 0 &&
		    cpu < MAX_CPUS)
			step(b->ix, cpu_lane(b, (int)cpu, VIEW_LANE_COUNTER),
			     ts, v, 0);
		break;
	}
	default:
		break;
	}
	return b->ix->oom || b->ix->str.oom ? 1 : 0;
}

static void on_long(const trawl_instance *in, const char *kind, void *ctx)
{
	struct view_index *ix = ctx;
	ix->longs_total++;
	if (grow((void **)&ix->longs, &ix->longcap, ix->nlongs + 1,
		 sizeof(*ix->longs))) {
		ix->oom = 1;
		return;
	}
	ix->longs[ix->nlongs++] = (struct view_long_irq){
		.start = in->start,
		.end = in->end,
		.cpu = in->cpu,
		.soft = !strcmp(kind, "softirq"),
		.id = in->id,
		.name = view_intern(&ix->str, in->name ? in->name : "",
				    in->name ? strlen(in->name) : 0),
	};
}

static int index_trace(const char *path, const struct view_build_opts *o,
		       struct view_index **out);

static const char *const subscriptions[] = {
	"sched_switch",
	"sched_waking",
	"sched_wakeup",
	"sched_wakeup_new",
	"irq_handler_entry",
	"irq_handler_exit",
	"softirq_entry",
	"softirq_exit",
	"workqueue_execute_start",
	"workqueue_execute_end",
	"print",
	"bprint",
	"bputs",
	"cpu_frequency",
};

int view_index_build(const char *path, const struct view_build_opts *o,
		     struct view_index **out)
{
	char cache[4096];
	int use_cache = !o->no_cache && strcmp(path, "-") &&
			!view_cache_path(path, o, cache, sizeof(cache));
	if (use_cache) {
		struct view_index *ix = view_cache_load(cache, path);
		if (ix) {
			ix->input = o->input;
			ix->cached = 1;
			*out = ix;
			return EXIT_OK;
		}
	}
	int status = index_trace(path, o, out);
	/* a cache that cannot be written is no error: next time indexes */
	if (!status && use_cache)
		view_cache_save(*out, cache);
	return status;
}

static int index_trace(const char *path, const struct view_build_opts *o,
		       struct view_index **out)
{
	int status = EXIT_ENV;
	struct view_index *ix = calloc(1, sizeof(*ix));
	struct builder b = {.ix = ix,
			    .marker_lane = NONE,
			    .lost_lane = NONE,
			    .task_buffer = -1};
	for (int r = 0; r < VIEW_ASYNC_ROWS; r++)
		b.async_rows[r] = NONE;
	trawl_analysis *irq = NULL;
	trawl_trace *t = NULL;
	if (!ix || !(ix->path = strdup(path)))
		goto oom;
	pthread_mutex_init(&ix->reread, NULL);
	ix->input = o->input;
	ix->irq_threshold = o->irq_threshold > 0 ? o->irq_threshold : 1000000;
	/* string 0 is "", so a zero comm means none */
	view_intern(&ix->str, "", 0);
	name_of(ix, "(text not kept: the index's strings are full)");
	b.async = calloc(MAX_OPEN_ASYNC, sizeof(*b.async));
	if (!b.async)
		goto oom;
	t = cli_open(path, &o->input, &status);
	if (!t)
		goto out;
	b.t = t;
	b.prev_comm = trawl_field_lookup(t, "sched_switch", "prev_comm");
	b.prev_state = trawl_field_lookup(t, "sched_switch", "prev_state");
	b.next_pid = trawl_field_lookup(t, "sched_switch", "next_pid");
	b.next_comm = trawl_field_lookup(t, "sched_switch", "next_comm");
	b.woken_pid = trawl_field_lookup(t, NULL, "pid");
	b.woken_comm = trawl_field_lookup(t, NULL, "comm");
	b.irq = trawl_field_lookup(t, NULL, "irq");
	b.irq_name = trawl_field_lookup(t, "irq_handler_entry", "name");
	b.vec = trawl_field_lookup(t, NULL, "vec");
	b.action = trawl_field_lookup(t, NULL, "action");
	b.function = trawl_field_lookup(t, NULL, "function");
	b.freq = trawl_field_lookup(t, "cpu_frequency", "state");
	b.freq_cpu = trawl_field_lookup(t, "cpu_frequency", "cpu_id");
	b.buf = trawl_field_lookup(t, "print", "buf");
	if (!b.prev_comm || !b.prev_state || !b.next_pid || !b.next_comm ||
	    !b.woken_pid || !b.woken_comm || !b.irq || !b.irq_name || !b.vec ||
	    !b.action || !b.function || !b.freq || !b.freq_cpu || !b.buf)
		goto oom;
	for (size_t i = 0; i < sizeof(subscriptions) / sizeof(*subscriptions);
	     i++)
		if (trawl_on(t, subscriptions[i], on_event, &b))
			goto oom;
	trawl_irq_opts io = {
		.threshold = ix->irq_threshold, .on_long = on_long, .ctx = ix};
	trawl_error err = {0};
	irq = trawl_irq_new(t, &io, &err);
	if (!irq) {
		cli_error("%s", err.msg);
		status = cli_status(err.code ? -err.code : -TRAWL_ENOMEM);
		goto out;
	}
	status = cli_run(t);
	if (ix->oom || ix->str.oom)
		goto oom;
	if (status)
		goto out;
	const trawl_stats *st = trawl_trace_stats(t);
	check_lost(&b, st->last_time);
	ix->first = st->first_time;
	ix->last = st->last_time;
	ix->events = st->events;
	ix->lost = st->lost_events;
	if (view_lod_build(ix))
		goto oom;
	*out = ix;
	ix = NULL;
	goto out;
oom:
	cli_error("out of memory while indexing %s", path);
	status = EXIT_ENV;
out:
	trawl_analysis_free(irq);
	trawl_close(t);
	free(b.kind);
	free(b.cpus);
	free(b.async);
	free(b.counters);
	view_index_free(ix);
	return status;
}

void view_index_free(struct view_index *ix)
{
	if (!ix)
		return;
	for (size_t i = 0; i < ix->nlanes; i++) {
		struct view_lane *l = &ix->lanes[i];
		view_steps_free(&l->steps);
		for (int k = 0; k < l->nlevels; k++) {
			free(l->levels[k].b);
			free(l->levels[k].minmax);
		}
		free(l->levels);
	}
	free(ix->lanes);
	free(ix->tasks);
	free(ix->task_map);
	free(ix->longs);
	view_strings_free(&ix->str);
	if (ix->path)
		pthread_mutex_destroy(&ix->reread);
	free(ix->path);
	free(ix);
}

size_t view_index_bytes(const struct view_index *ix)
{
	size_t n = ix->lcap * sizeof(*ix->lanes) +
		   ix->tcap * sizeof(*ix->tasks) +
		   ix->tmcap * sizeof(*ix->task_map) +
		   ix->longcap * sizeof(*ix->longs) + ix->str.cap +
		   ix->str.ncap * sizeof(uint64_t) +
		   ix->str.tcap * sizeof(uint32_t);
	for (size_t i = 0; i < ix->nlanes; i++) {
		const struct view_lane *l = &ix->lanes[i];
		n += view_steps_bytes(&l->steps);
		for (int k = 0; k < l->nlevels; k++)
			n += l->levels[k].n * (sizeof(struct view_bucket) +
					       (l->levels[k].minmax ? 16 : 0));
	}
	return n;
}

const char *view_lane_kind_name(int kind)
{
	static const char *const names[VIEW_LANE_KINDS] = {
		"cpu",	 "task",  "hardirq", "softirq", "workqueue",
		"slice", "async", "counter", "marker",	"lost",
	};
	return kind >= 0 && kind < VIEW_LANE_KINDS ? names[kind] : "?";
}

int view_lane_kind_of(const char *name, size_t n)
{
	for (int k = 0; k < VIEW_LANE_KINDS; k++) {
		const char *s = view_lane_kind_name(k);
		if (strlen(s) == n && !memcmp(s, name, n))
			return k;
	}
	return -1;
}

const char *view_state_name(int state)
{
	static const char *const names[] = {
		"unknown",  "running",	       "runnable",
		"sleeping", "uninterruptible", "dead",
	};
	return state >= 0 && state <= VIEW_STATE_DEAD ? names[state] : "?";
}
