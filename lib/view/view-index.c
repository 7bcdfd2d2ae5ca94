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
#include <errno.h>
#include <malloc.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "view.h"

#define NONE	       UINT32_MAX
#define MAX_CPUS       4096
#define MAX_OPEN_ASYNC 4096
#define MAX_BUFFERS    16
#define TASK_CACHE     256 /* pids remembered by task_of(), a power of 2 */

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
	K_IDLE,
	K_UNKNOWN = 255,
};

/* A CPU's lanes (view_replay_tables.cpus): what it runs, its interrupts,
 * work items, and its frequency and idle state (counters). */
enum cpu_slot {
	SLOT_RUN,
	SLOT_HARD,
	SLOT_SOFT,
	SLOT_WORK,
	SLOT_FREQ,
	SLOT_IDLE,
	CPU_SLOTS
};

struct cpu_lanes {
	uint32_t lane[CPU_SLOTS];
};
_Static_assert(sizeof(struct cpu_lanes) ==
		       sizeof(*((struct view_replay_tables *)0)->cpus),
	       "view.h's cpus[] holds a struct cpu_lanes");

/* A pid's task, remembered: index + 1, 0 none. */
struct task_slot {
	int pid;
	uint32_t index1;
};

struct open_async {
	int64_t pid, cookie;
	uint32_t name;
	int row;
};

struct builder {
	struct view_index *ix;
	const struct view_build_opts *opts; /* the whole pass's */
	trawl_field prev_comm, prev_state, next_pid, next_comm;
	trawl_field woken_pid, woken_comm;
	trawl_field irq, irq_name, vec, action, function, freq, freq_cpu;
	trawl_field idle, idle_cpu;
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
	/* per CPU of that buffer, what its last sched_switch switched in:
	 * 0 none seen, 1 idle, task index + 2 (the builder's own, also in
	 * a replay, where the checkpoint's CPU lanes give it back) */
	uint32_t *cpu_task;
	struct open_async *async;
	size_t nasync;
	uint32_t async_rows[VIEW_ASYNC_ROWS]; /* lane or NONE */
	int async_busy[VIEW_ASYNC_ROWS];
	struct view_counter_key *counters;
	size_t ncounters, ccap;
	uint32_t marker_lane, lost_lane;
	uint64_t lost_seen;
	trawl_trace *t;
	const trawl_stats *stats; /* t's, updated as it is read */
	/* Reading a window back (view_replay_run()): nothing of the index is
	 * written; lanes and strings are looked up, never made; the tasks'
	 * state is this copy; changes go to out or emit. */
	int replay;
	int lost_known; /* replay: lost_seen taken from the first event */
	int failed;
	struct view_task *tasks; /* tasks_of() */
	/* the tasks of the pids seen last, by pid modulo TASK_CACHE (a
	 * pid's task never changes) */
	struct task_slot task_cache[TASK_CACHE];
	struct view_replay *out;
	view_emit emit;
	void *emit_ctx;
	/* The whole pass: checkpoints every check_every events. */
	uint64_t since_check, check_every;
	int64_t last_ts;
	/* and the lanes with the most changes spilled once those in memory
	 * (mem, of the lanes not spilled) pass budget (view-spill.c) */
	struct view_spill *spill; /* NULL: none */
	size_t mem, budget, look_at;
	/* and the whole trace's analyses: each CPU or task lane's busy time
	 * (view_lane.whole) and the wakeup latencies, as the changes come */
	trawl_hist *lat;
	int64_t first_ts;	/* the first event's the builder had */
	uint64_t zero_at_first; /* latencies ending at first_ts: those
				 * count only if the trace began before */
	int seen;
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
	l->first_t = INT64_MIN; /* no change yet */
	l->kind = kind;
	l->cpu = cpu;
	l->pid = pid;
	l->depth = depth;
	l->name = name;
	l->points = kind == VIEW_LANE_MARKER || kind == VIEW_LANE_LOST;
	return (uint32_t)ix->nlanes++;
}

static uint32_t intern(struct builder *b, const char *p, size_t n)
{
	return b->replay ? view_lookup(&b->ix->str, p, n)
			 : view_intern(&b->ix->str, p, n);
}

static uint32_t name_of(struct builder *bd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static uint32_t name_of(struct builder *bd, const char *fmt, ...)
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
	return intern(bd, b, (size_t)n);
}

/* The change (t, v) ends the lane's last value: its time counts to the
 * lane's busy time, and it may end a wakeup latency (view.h's rules). */
static void whole_step(struct builder *b, struct view_lane *l, int64_t t,
		       int64_t v)
{
	const struct view_steps *s = &l->steps;
	if (t < s->last_t)
		t = s->last_t; /* as view_steps_add() takes it */
	if (view_counts_busy(l->kind, s->last_v))
		l->whole += t - s->last_t;
	if (view_is_wakeup(l->kind, s->last_v, s->last_aux, v)) {
		if (t > b->first_ts) {
			if (trawl_hist_add(b->lat, t - s->last_t))
				b->ix->oom = 1;
			/* the longest's switch-in, for the panel's link */
			if (t - s->last_t > b->ix->whole_latency_max ||
			    !b->ix->whole_latency_max_at) {
				b->ix->whole_latency_max = t - s->last_t;
				b->ix->whole_latency_max_at = t;
			}
		} else
			b->zero_at_first++;
	}
}

/* Say it through the options' warn callback, if any. */
static void warn(const struct view_build_opts *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void warn(const struct view_build_opts *o, const char *fmt, ...)
{
	if (!o || !o->warn)
		return;
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	o->warn(o->warn_ctx, msg);
}

static void spill_failed(struct builder *b)
{
	/* no room for it: the changes stay in memory */
	warn(b->opts,
	     "warning: cannot write the index's spill file (%s): indexing "
	     "in memory",
	     strerror(errno));
	b->spill = NULL;
}

/* Spill the lanes with the most changes until those left fit the budget
 * (or none has a segment's worth). */
static void spill_largest(struct builder *b)
{
	struct view_index *ix = b->ix;
	size_t seg = b->spill->seg;
	while (b->mem > b->budget) {
		struct view_steps *big = NULL;
		size_t most = 0;
		for (size_t i = 0; i < ix->nlanes; i++) {
			struct view_steps *s = &ix->lanes[i].steps;
			size_t n = view_steps_bytes(s);
			if (!s->nsegs && n > most) {
				most = n;
				big = s;
			}
		}
		if (!big || big->nbytes < seg)
			break;
		if (view_spill_out(b->spill, big)) {
			spill_failed(b);
			return;
		}
		if (!big->nsegs)
			break; /* one block: nothing to write yet */
		b->mem -= most;
	}
	/* look again when another segment's worth has come */
	b->look_at = (b->mem > b->budget ? b->mem : b->budget) + seg;
}

static void step(struct builder *b, uint32_t lane, int64_t t, int64_t v,
		 uint32_t aux)
{
	if (lane == NONE)
		return;
	if (!b->replay) {
		struct view_lane *l = &b->ix->lanes[lane];
		struct view_steps *s = &l->steps;
		if (l->first_t == INT64_MIN)
			l->first_t = t;
		l->end_t = t;
		l->end_v = v;
		if (s->n &&
		    (l->kind == VIEW_LANE_CPU || l->kind == VIEW_LANE_TASK))
			whole_step(b, l, t, v);
		size_t cap = s->cap, bcap = s->bcap;
		if (view_steps_push(s, t, v, aux)) {
			b->ix->oom = 1;
			return;
		}
		if (!b->spill)
			return;
		if (s->nsegs) {
			if (s->nbytes >= b->spill->seg &&
			    view_spill_out(b->spill, s))
				spill_failed(b);
		} else if (s->cap != cap || s->bcap != bcap) {
			/* a lane not spilled has no segments: its memory
			 * is its bytes and blocks, and only grows */
			b->mem += (s->cap - cap) +
				  (s->bcap - bcap) * sizeof(*s->blocks);
			if (b->mem > b->look_at)
				spill_largest(b);
		}
		return;
	}
	if (lane >= b->ix->nlanes)
		return;
	struct view_step st = {t, v, aux};
	if (b->emit)
		b->emit(b->emit_ctx, lane, &st);
	else if (view_steps_push(&b->out->steps[lane], t, v, aux))
		b->failed = 1;
}

/* The tasks: the index's in the whole pass (b->tasks follows them as
 * they move), a replay's own copy. */
static inline struct view_task *tasks_of(struct builder *b)
{
	return b->tasks;
}

static struct cpu_lanes *cpu_of(struct builder *b, int cpu)
{
	if (cpu < 0 || cpu >= MAX_CPUS)
		return NULL;
	if (b->replay && cpu >= b->ncpus)
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
			for (int k = 0; k < CPU_SLOTS; k++)
				c[i].lane[k] = NONE;
		for (int k = 0; k < MAX_BUFFERS; k++)
			for (int i = 0; i < b->ncpus; i++)
				c[k * n + i] = b->cpus[k * b->ncpus + i];
		free(b->cpus);
		b->cpus = c;
		b->ncpus = n;
	}
	if (cpu >= b->ix->ncpus && !b->replay)
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
	if (b->replay) /* not in the whole pass: cannot be */
		return;
	if (b->nbuffers < MAX_BUFFERS)
		b->buffers[b->nbuffers++] = name;
	b->buffer = b->nbuffers - 1;
}

/* cpu_lane() of a lane not made yet (or a CPU not seen yet). */
static __attribute__((noinline)) uint32_t
cpu_lane_new(struct builder *b, int cpu, enum cpu_slot which)
{
	struct cpu_lanes *c = cpu_of(b, cpu);
	if (!c)
		return NONE;
	uint32_t *slot = &c->lane[which];
	if (*slot == NONE && !b->replay) {
		static const struct {
			int kind;
			const char *what;
		} slots[CPU_SLOTS] = {
			[SLOT_RUN] = {VIEW_LANE_CPU, ""},
			[SLOT_HARD] = {VIEW_LANE_HARDIRQ, " hardirq"},
			[SLOT_SOFT] = {VIEW_LANE_SOFTIRQ, " softirq"},
			[SLOT_WORK] = {VIEW_LANE_WORK, " workqueue"},
			[SLOT_FREQ] = {VIEW_LANE_COUNTER, " frequency"},
			[SLOT_IDLE] = {VIEW_LANE_COUNTER, " idle state"},
		};
		const char *buf = b->buffers[b->buffer];
		*slot = new_lane(b->ix, slots[which].kind, cpu, -1, 0,
				 name_of(b, "%.60s%sCPU %d%s", buf,
					 *buf ? " " : "", cpu,
					 slots[which].what));
		if (*slot != NONE)
			b->ix->lanes[*slot].buffer = b->buffer;
	}
	return *slot;
}

static inline uint32_t cpu_lane(struct builder *b, int cpu, enum cpu_slot which)
{
	/* a lane there was made by cpu_lane_new(), which counted the CPU */
	if (cpu >= 0 && cpu < b->ncpus) {
		uint32_t lane = b->cpus[b->buffer * b->ncpus + cpu].lane[which];
		if (lane != NONE)
			return lane;
	}
	return cpu_lane_new(b, cpu, which);
}

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	return x;
}

/* The index of pid's task, or NONE (read-only). */
static uint32_t find_task(const struct view_index *ix, int pid)
{
	if (!ix->tmcap)
		return NONE;
	size_t h = mix((uint64_t)pid) & (ix->tmcap - 1);
	for (; ix->task_map[h]; h = (h + 1) & (ix->tmcap - 1))
		if (ix->tasks[ix->task_map[h] - 1].pid == pid)
			return ix->task_map[h] - 1;
	return NONE;
}

const struct view_task *view_task_find(const struct view_index *ix, int pid)
{
	uint32_t i = find_task(ix, pid);
	return i == NONE ? NULL : &ix->tasks[i];
}

/* The task of pid (not 0), made with its state lane on first sight
 * (replays: only found). */
static struct view_task *task_new(struct builder *b, int pid);

/* task_of() past its cache. */
static __attribute__((noinline)) struct view_task *
task_lookup(struct builder *b, int pid, struct task_slot *c)
{
	struct view_task *tk;
	if (b->replay) {
		uint32_t i = find_task(b->ix, pid);
		tk = i == NONE ? NULL : &b->tasks[i];
	} else
		tk = task_new(b, pid);
	if (tk) {
		c->pid = pid;
		c->index1 = (uint32_t)(tk - tasks_of(b)) + 1;
	}
	return tk;
}

static inline struct view_task *task_of(struct builder *b, int pid)
{
	struct task_slot *c = &b->task_cache[(unsigned)pid & (TASK_CACHE - 1)];
	if (c->index1 && c->pid == pid)
		return tasks_of(b) + c->index1 - 1;
	return task_lookup(b, pid, c);
}

/* task_lookup() in the whole pass: found or made. */
static struct view_task *task_new(struct builder *b, int pid)
{
	struct view_index *ix = b->ix;
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
	b->tasks = ix->tasks;
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

static inline void set_comm(struct builder *b, struct view_task *tk,
			    const char *s, size_t n)
{
	struct view_index *ix = b->ix;
	if (!s || !n || b->replay)
		return;
	/* the name it has (view_string(), inline: a switch-out asks) */
	if (tk->comm && tk->comm < ix->str.n) {
		uint64_t o = ix->str.offs[tk->comm];
		if ((o & 0xffff) == n &&
		    !memcmp(ix->str.pool + (o >> 16), s, n))
			return;
	}
	tk->comm = view_intern(&ix->str, s, n);
	ix->lanes[tk->lane].name = tk->comm;
}

static void set_state(struct builder *b, struct view_task *tk, int64_t ts,
		      int state, uint32_t aux)
{
	if (tk->state == state && state != VIEW_STATE_RUNNING &&
	    state != VIEW_STATE_RUNNABLE)
		return;
	tk->state = state;
	step(b, tk->lane, ts, state, aux);
}

static uint32_t task_index(struct builder *b, struct view_task *tk)
{
	return tk ? (uint32_t)(tk - tasks_of(b)) : NONE;
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

/* What cpu's last sched_switch switched in (see cpu_task), or NULL. */
static uint32_t *cpu_task_of(struct builder *b, int cpu)
{
	if (cpu < 0 || cpu >= MAX_CPUS)
		return NULL;
	if (!b->cpu_task &&
	    !(b->cpu_task = calloc(MAX_CPUS, sizeof(uint32_t)))) {
		b->ix->oom = !b->replay || b->ix->oom;
		b->failed = 1;
		return NULL;
	}
	return &b->cpu_task[cpu];
}

/*
 * A CPU runs what its last sched_switch switched in until its next one,
 * whatever that one's prev_pid says (a lost event, a capture missing
 * lines): the task found there stops running now, in no known state until
 * it is seen again, and the disagreement is counted (as trawl sched does,
 * lib/analysis/sched.c). So a task lane never runs while its CPU's lane
 * runs another.
 */
static void end_current(struct builder *b, int cpu, int64_t prev, int64_t ts)
{
	uint32_t *ct = cpu_task_of(b, cpu);
	if (!ct || !*ct)
		return;
	struct view_task *cur = *ct >= 2 ? &tasks_of(b)[*ct - 2] : NULL;
	if (cur ? cur->pid == prev : prev == 0)
		return;
	if (!b->replay) {
		struct view_index *ix = b->ix;
		if (!ix->switch_anomalies++)
			ix->switch_anomaly_first = ts;
	}
	if (cur && cur->state == VIEW_STATE_RUNNING && cur->cpu == cpu)
		set_state(b, cur, ts, VIEW_STATE_UNKNOWN, 0);
}

static void on_switch(struct builder *b, const trawl_event *ev, int64_t ts)
{
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
	if (states)
		end_current(b, cpu, prev, ts);
	if (prev > 0 && states) {
		struct view_task *tk = task_of(b, (int)prev);
		if (tk) {
			s = trawl_event_comm(ev);
			if (s[0] == '<' && !strcmp(s, "<...>"))
				s = trawl_event_raw(ev, b->prev_comm, &n);
			else
				n = strlen(s);
			set_comm(b, tk, s, n);
			if (tk->tgid < 0)
				tk->tgid = trawl_event_tgid(ev);
			/* another CPU switched it in and runs it still: this
			 * CPU's switch is the one that is wrong */
			if (tk->state != VIEW_STATE_RUNNING || tk->cpu == cpu)
				set_state(b, tk, ts,
					  state_after(ev, b->prev_state), 0);
		}
	}
	uint32_t v = 0;
	if (next > 0) {
		struct view_task *tk = task_of(b, (int)next);
		if (tk) {
			if (!tk->comm) {
				s = trawl_event_raw(ev, b->next_comm, &n);
				set_comm(b, tk, s, n);
			}
			tk->cpu = cpu;
			if (states)
				set_state(b, tk, ts, VIEW_STATE_RUNNING,
					  (uint32_t)(cpu + 1));
			v = task_index(b, tk) + 1;
		}
	}
	if (states) {
		uint32_t *ct = cpu_task_of(b, cpu);
		if (ct)
			*ct = v + 1;
	}
	step(b, cpu_lane(b, cpu, SLOT_RUN), ts, v, 0);
}

static void on_wake(struct builder *b, const trawl_event *ev, int64_t ts)
{
	int64_t pid;
	if (b->task_buffer >= 0 && b->task_buffer != b->buffer)
		return;
	if (trawl_event_get_int(ev, b->woken_pid, &pid) || pid <= 0)
		return;
	struct view_task *tk = task_of(b, (int)pid);
	if (!tk)
		return;
	if (!tk->comm) {
		size_t n;
		const char *s = trawl_event_raw(ev, b->woken_comm, &n);
		set_comm(b, tk, s, n);
	}
	if (tk->state == VIEW_STATE_RUNNING || tk->state == VIEW_STATE_RUNNABLE)
		return;
	uint32_t waker = 1;
	int cur = trawl_event_pid(ev);
	if (cur > 0) {
		uint32_t woken = task_index(b, tk);
		struct view_task *w = task_of(b, cur);
		if (w) {
			/* the task pointer may have moved */
			tk = &tasks_of(b)[woken];
			waker = task_index(b, w) + 2;
			if (!w->comm)
				set_comm(b, w, trawl_event_comm(ev),
					 strlen(trawl_event_comm(ev)));
		}
	}
	if (tk)
		set_state(b, tk, ts, VIEW_STATE_RUNNABLE, waker);
}

static void on_irq(struct builder *b, const trawl_event *ev, int64_t ts,
		   int soft, int entry)
{
	int cpu = trawl_event_cpu(ev);
	uint32_t lane = cpu_lane(b, cpu, soft ? SLOT_SOFT : SLOT_HARD);
	if (!entry) {
		step(b, lane, ts, 0, 0);
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
		name = s ? name_of(b, "%.*s", (int)n, s)
			 : name_of(b, "vec %lld", (long long)id);
	} else {
		trawl_event_get_int(ev, b->irq, &id);
		s = trawl_event_raw(ev, b->irq_name, &n);
		name = name_of(b, "irq %lld %.*s", (long long)id,
			       s ? (int)(n > 200 ? 200 : n) : 0, s ? s : "");
	}
	step(b, lane, ts, (int64_t)name + 1, 0);
}

static void on_work(struct builder *b, const trawl_event *ev, int64_t ts,
		    int start)
{
	uint32_t lane = cpu_lane(b, trawl_event_cpu(ev), SLOT_WORK);
	if (!start) {
		step(b, lane, ts, 0, 0);
		return;
	}
	size_t n = 0;
	const char *fn = trawl_event_label(ev, b->function, &n);
	if (!fn)
		fn = trawl_event_raw(ev, b->function, &n);
	uint32_t name = fn ? intern(b, fn, n) : intern(b, "work", 4);
	step(b, lane, ts, (int64_t)name + 1, 0);
}

static uint32_t counter_lane(struct builder *b, int64_t pid, uint32_t name,
			     int cpu)
{
	for (size_t i = 0; i < b->ncounters; i++)
		if (b->counters[i].pid == pid && b->counters[i].name == name)
			return b->counters[i].lane;
	if (b->replay)
		return NONE;
	if (grow((void **)&b->counters, &b->ccap, b->ncounters + 1,
		 sizeof(*b->counters))) {
		b->ix->oom = 1;
		return NONE;
	}
	uint32_t lane =
		new_lane(b->ix, VIEW_LANE_COUNTER, cpu, (int)pid, 0, name);
	b->counters[b->ncounters++] = (struct view_counter_key){
		.pid = pid, .name = name, .lane = lane};
	return lane;
}

static void on_slice(struct builder *b, const trawl_event *ev, int64_t ts,
		     const trawl_marker *m, uint32_t name)
{
	struct view_index *ix = b->ix;
	int pid = trawl_event_pid(ev), begin = m->kind == TRAWL_MARKER_BEGIN;
	struct view_task *tk = pid > 0 ? task_of(b, pid) : NULL;
	if (!tk)
		return;
	/* B|tgid|name: the writer's process */
	if (tk->tgid < 0 && begin && m->pid > 0)
		tk->tgid = (int)m->pid;
	if (!tk->comm)
		set_comm(b, tk, trawl_event_comm(ev),
			 strlen(trawl_event_comm(ev)));
	if (!begin) {
		if (tk->depth == 0)
			return;
		int d = --tk->depth;
		if (d < VIEW_MAX_DEPTH)
			step(b, tk->slice_lane[d], ts, 0, 0);
		return;
	}
	int d = tk->depth++;
	if (d >= VIEW_MAX_DEPTH)
		return;
	if (!tk->has_slice[d]) {
		if (b->replay)
			return;
		uint32_t lane =
			new_lane(ix, VIEW_LANE_SLICE, -1, pid, d, tk->comm);
		tk = task_of(b, pid);
		if (lane == NONE || !tk)
			return;
		tk->slice_lane[d] = lane;
		tk->has_slice[d] = 1;
	}
	step(b, tk->slice_lane[d], ts, (int64_t)name + 1, 0);
}

static void on_async(struct builder *b, int64_t ts, const trawl_marker *m,
		     uint32_t name)
{
	if (m->kind == TRAWL_MARKER_ASYNC_END) {
		for (size_t i = 0; i < b->nasync; i++) {
			struct open_async *a = &b->async[i];
			if (a->pid == m->pid && a->cookie == m->value &&
			    a->name == name) {
				step(b, b->async_rows[a->row], ts, 0, 0);
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
	if (b->async_rows[row] == NONE && !b->replay)
		b->async_rows[row] = new_lane(b->ix, VIEW_LANE_ASYNC, -1, -1,
					      row, name_of(b, "async %d", row));
	b->async_busy[row] = 1;
	b->async[b->nasync++] = (struct open_async){
		.pid = m->pid, .cookie = m->value, .name = name, .row = row};
	step(b, b->async_rows[row], ts, (int64_t)name + 1, 0);
}

static void marker_point(struct builder *b, int64_t ts, const char *s, size_t n)
{
	if (b->marker_lane == NONE && !b->replay)
		b->marker_lane = new_lane(b->ix, VIEW_LANE_MARKER, -1, -1, 0,
					  name_of(b, "markers"));
	while (n && (s[n - 1] == '\n' || s[n - 1] == ' '))
		n--;
	step(b, b->marker_lane, ts, (int64_t)intern(b, s, n) + 1, 0);
}

static void on_print(struct builder *b, const trawl_event *ev, int64_t ts)
{
	trawl_marker m;
	if (!trawl_event_marker(ev, &m)) {
		uint32_t name = intern(b, m.name ? m.name : "",
				       m.name ? m.name_len : 0);
		switch (m.kind) {
		case TRAWL_MARKER_BEGIN:
		case TRAWL_MARKER_END:
			on_slice(b, ev, ts, &m, name);
			return;
		case TRAWL_MARKER_COUNTER:
			step(b, counter_lane(b, m.pid, name, -1), ts, m.value,
			     0);
			return;
		case TRAWL_MARKER_INSTANT: /* an application's */
			marker_point(b, ts, m.name, m.name_len);
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

/* kind_of() of a type not seen yet. */
static __attribute__((noinline)) int
kind_new(struct builder *b, const trawl_event *ev, uint32_t type)
{
	if (type >= b->nkind) {
		size_t old = b->nkind;
		if (grow((void **)&b->kind, &b->nkind, (size_t)type + 1, 1)) {
			b->failed = 1;
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
		{"cpu_idle", K_IDLE},
	};
	const char *name = trawl_event_name(ev);
	int kind = K_OTHER;
	for (size_t i = 0; i < sizeof(known) / sizeof(*known); i++)
		if (!strcmp(name, known[i].name))
			kind = known[i].kind;
	trawl_marker m; /* an application channel's slices and counters */
	if (kind == K_OTHER && !trawl_event_marker(ev, &m))
		kind = K_PRINT;
	b->kind[type] = (uint8_t)kind;
	return kind;
}

static inline int kind_of(struct builder *b, const trawl_event *ev)
{
	uint32_t type = trawl_event_type_id(ev);
	if (type < b->nkind && b->kind[type] != K_UNKNOWN)
		return b->kind[type];
	return kind_new(b, ev, type);
}

static __attribute__((noinline)) void lost_step(struct builder *b, int64_t ts);

static inline void check_lost(struct builder *b, int64_t ts)
{
	if (b->stats->lost_events != b->lost_seen ||
	    (b->replay && !b->lost_known))
		lost_step(b, ts);
}

/* check_lost() where the count changed (or a replay's first event). */
static void lost_step(struct builder *b, int64_t ts)
{
	uint64_t lost = b->stats->lost_events;
	if (b->replay && !b->lost_known) {
		/* a ranged run counts losses from where it began reading */
		b->lost_known = 1;
		b->lost_seen = lost;
	}
	if (lost == b->lost_seen)
		return;
	if (b->lost_lane == NONE && !b->replay)
		b->lost_lane = new_lane(b->ix, VIEW_LANE_LOST, -1, -1, 0,
					name_of(b, "lost events"));
	step(b, b->lost_lane, ts, (int64_t)(lost - b->lost_seen), 0);
	b->lost_seen = lost;
}

static void checkpoint(struct builder *b, int64_t ts, uint64_t seq);

static int on_event(const trawl_event *ev, void *ctx)
{
	struct builder *b = ctx;
	int64_t ts = trawl_event_time(ev);
	if (!b->replay) {
		if (!b->seen) {
			b->seen = 1;
			b->first_ts = ts;
		}
		/* at a new time only: the replay starts with all of it */
		if (b->since_check >= b->check_every && ts > b->last_ts) {
			checkpoint(b, ts, trawl_event_seq(ev));
			b->since_check = 0;
		}
		b->since_check++;
		b->last_ts = ts;
	}
	check_lost(b, ts);
	buffer_of(b, ev);
	int kind = kind_of(b, ev);
	switch (kind) {
	case K_SWITCH:
		on_switch(b, ev, ts);
		break;
	case K_WAKE:
		on_wake(b, ev, ts);
		break;
	case K_HARD_ENTRY:
	case K_HARD_EXIT:
		on_irq(b, ev, ts, 0, kind == K_HARD_ENTRY);
		break;
	case K_SOFT_ENTRY:
	case K_SOFT_EXIT:
		on_irq(b, ev, ts, 1, kind == K_SOFT_ENTRY);
		break;
	case K_WORK_START:
	case K_WORK_END:
		on_work(b, ev, ts, kind == K_WORK_START);
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
			step(b, cpu_lane(b, (int)cpu, SLOT_FREQ), ts, v, 0);
		break;
	}
	case K_IDLE: {
		/* the state entered, or (u32)-1 when the CPU leaves idle:
		 * -1 then, as Perfetto's cpuidle counter has it */
		int64_t v, cpu;
		if (!trawl_event_get_int(ev, b->idle, &v) &&
		    !trawl_event_get_int(ev, b->idle_cpu, &cpu) && cpu >= 0 &&
		    cpu < MAX_CPUS)
			step(b, cpu_lane(b, (int)cpu, SLOT_IDLE), ts,
			     (uint32_t)v == UINT32_MAX ? -1 : v, 0);
		break;
	}
	default:
		break;
	}
	if (b->replay)
		return b->failed;
	return b->ix->oom || b->ix->str.oom || b->failed ? 1 : 0;
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

/*
 * A checkpoint's record (varints; z: zig-zagged):
 *
 *   ndepth { task-delta depth }  nasync { z(pid) z(cookie) name row }
 *   nlanes { lane-delta z(t - check) z(v) aux }
 *
 * the open slice depth of each task that has one, the open async slices,
 * and the last change of every lane that has changed yet.
 */
static void put_varint(struct view_index *ix, uint64_t v)
{
	if (ix->nsnap + 10 > ix->snapcap &&
	    grow((void **)&ix->snap, &ix->snapcap, ix->nsnap + 10, 1)) {
		ix->oom = 1;
		return;
	}
	while (v >= 0x80) {
		ix->snap[ix->nsnap++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	ix->snap[ix->nsnap++] = (uint8_t)v;
}

static uint64_t zz(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static int64_t unzz(uint64_t v)
{
	return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

static void checkpoint(struct builder *b, int64_t ts, uint64_t seq)
{
	struct view_index *ix = b->ix;
	if (grow((void **)&ix->checks, &ix->ccap, ix->nchecks + 1,
		 sizeof(*ix->checks))) {
		ix->oom = 1;
		return;
	}
	ix->checks[ix->nchecks++] = (struct view_check){ts, ix->nsnap, seq};
	uint64_t n = 0;
	for (size_t i = 0; i < ix->ntasks; i++)
		n += ix->tasks[i].depth != 0;
	put_varint(ix, n);
	size_t last = 0;
	for (size_t i = 0; i < ix->ntasks; i++)
		if (ix->tasks[i].depth) {
			put_varint(ix, i - last);
			put_varint(ix, (uint64_t)ix->tasks[i].depth);
			last = i;
		}
	put_varint(ix, b->nasync);
	for (size_t i = 0; i < b->nasync; i++) {
		const struct open_async *a = &b->async[i];
		put_varint(ix, zz(a->pid));
		put_varint(ix, zz(a->cookie));
		put_varint(ix, a->name);
		put_varint(ix, (uint64_t)a->row);
	}
	n = 0;
	for (size_t i = 0; i < ix->nlanes; i++)
		n += ix->lanes[i].steps.n != 0;
	put_varint(ix, n);
	last = 0;
	for (size_t i = 0; i < ix->nlanes; i++) {
		const struct view_steps *st = &ix->lanes[i].steps;
		if (!st->n)
			continue;
		put_varint(ix, i - last);
		put_varint(ix, zz(st->last_t - ts));
		put_varint(ix, zz(st->last_v));
		put_varint(ix, st->last_aux);
		last = i;
	}
}

/* Bounded varint reads of a checkpoint's record. */
struct snap_rd {
	const uint8_t *p, *end;
	int bad;
};

static uint64_t get_varint(struct snap_rd *r)
{
	uint64_t v = 0;
	for (int shift = 0; shift < 64; shift += 7) {
		if (r->p >= r->end) {
			r->bad = 1;
			return 0;
		}
		uint8_t c = *r->p++;
		v |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80))
			return v;
	}
	r->bad = 1;
	return v;
}

static const char *const subscriptions[];
static const size_t nsubscriptions;

static int lookup_fields(struct builder *b, trawl_trace *t);

/* The builder in a checkpoint's state (k: its index; -1 the start). */
static int replay_state(struct builder *b, const struct view_index *ix,
			ssize_t k)
{
	const struct view_replay_tables *rt = &ix->rt;
	b->replay = 1;
	b->cpus = (struct cpu_lanes *)rt->cpus;
	b->ncpus = rt->ncpus;
	for (int i = 0; i < rt->nbuffers; i++)
		b->buffers[i] = rt->buffers[i];
	b->nbuffers = rt->nbuffers;
	b->task_buffer = rt->task_buffer;
	b->counters = rt->counters;
	b->ncounters = rt->ncounters;
	memcpy(b->async_rows, rt->async_rows, sizeof(b->async_rows));
	b->marker_lane = rt->marker_lane;
	b->lost_lane = rt->lost_lane;
	b->tasks = malloc((ix->ntasks ? ix->ntasks : 1) * sizeof(*b->tasks));
	b->async = calloc(MAX_OPEN_ASYNC, sizeof(*b->async));
	if (!b->tasks || !b->async)
		return -1;
	if (ix->ntasks)
		memcpy(b->tasks, ix->tasks, ix->ntasks * sizeof(*b->tasks));
	for (size_t i = 0; i < ix->ntasks; i++) {
		b->tasks[i].state = VIEW_STATE_UNKNOWN;
		b->tasks[i].depth = 0;
		b->tasks[i].cpu = -1;
	}
	if (k < 0)
		return 0;
	int64_t t0 = ix->checks[k].t;
	struct snap_rd r = {ix->snap + ix->checks[k].off, ix->snap + ix->nsnap,
			    0};
	uint64_t n = get_varint(&r), at = 0;
	for (uint64_t i = 0; i < n && !r.bad; i++) {
		at += get_varint(&r);
		uint64_t d = get_varint(&r);
		if (at < ix->ntasks)
			b->tasks[at].depth = (int)d;
	}
	n = get_varint(&r);
	for (uint64_t i = 0; i < n && !r.bad && b->nasync < MAX_OPEN_ASYNC;
	     i++) {
		struct open_async a;
		a.pid = unzz(get_varint(&r));
		a.cookie = unzz(get_varint(&r));
		a.name = (uint32_t)get_varint(&r);
		a.row = (int)(get_varint(&r) % VIEW_ASYNC_ROWS);
		b->async[b->nasync++] = a;
		b->async_busy[a.row] = 1;
	}
	n = get_varint(&r);
	at = 0;
	for (uint64_t i = 0; i < n && !r.bad; i++) {
		at += get_varint(&r);
		struct view_step st;
		st.t = t0 + unzz(get_varint(&r));
		st.v = unzz(get_varint(&r));
		st.aux = (uint32_t)get_varint(&r);
		if (r.bad || at >= ix->nlanes)
			break;
		const struct view_lane *l = &ix->lanes[at];
		if (l->kind == VIEW_LANE_TASK) {
			uint32_t ti = find_task(ix, l->pid);
			if (ti != NONE) {
				b->tasks[ti].state = (int)st.v;
				if (st.v == VIEW_STATE_RUNNING && st.aux)
					b->tasks[ti].cpu = (int)st.aux - 1;
			}
		} else if (l->kind == VIEW_LANE_CPU &&
			   l->buffer == b->task_buffer && st.v >= 0 &&
			   (uint64_t)st.v <= ix->ntasks) {
			uint32_t *ct = cpu_task_of(b, l->cpu);
			if (ct)
				*ct = (uint32_t)st.v + 1;
		}
		step(b, (uint32_t)at, st.t, st.v, st.aux);
	}
	return r.bad ? -1 : 0;
}

ssize_t view_checkpoint_before(const struct view_index *ix, uint64_t key,
			       int by_time)
{
	size_t lo = 0, hi = ix->nchecks;
	ssize_t k = -1;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int before = by_time ? ix->checks[mid].t <= (int64_t)key
				     : ix->checks[mid].seq <= key;
		if (before) {
			k = (ssize_t)mid;
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}
	return k;
}

trawl_trace *view_reopen(const struct view_index *ix, ssize_t k, int64_t to,
			 trawl_error *err)
{
	trawl_open_opts o = ix->open;
	o.flags |= TRAWL_OPEN_RANGE;
	o.from = k >= 0 ? ix->checks[k].t : INT64_MIN;
	o.to = to;
	return trawl_open(ix->path, &o, err);
}

int view_replay_run(const struct view_index *ix, int64_t from, int64_t to,
		    struct view_replay *out, view_emit emit, void *ctx,
		    char *why, size_t whylen)
{
	struct builder b = {.ix = (struct view_index *)ix, .out = out};
	b.emit = emit;
	b.emit_ctx = ctx;
	int rc = -1;
	trawl_trace *t = NULL;
	snprintf(why, whylen, "out of memory");
	if (out) {
		memset(out, 0, sizeof(*out));
		out->steps = calloc(ix->nlanes ? ix->nlanes : 1,
				    sizeof(*out->steps));
		out->nlanes = ix->nlanes;
		out->from = from;
		out->to = to;
		if (!out->steps)
			goto out;
	}
	ssize_t k = view_checkpoint_before(ix, from, 1);
	if (replay_state(&b, ix, k)) {
		snprintf(why, whylen, "a damaged checkpoint");
		goto out;
	}
	trawl_error err = {0};
	t = view_reopen(ix, k, to, &err);
	if (!t) {
		snprintf(why, whylen, "%s", err.msg);
		goto out;
	}
	b.t = t;
	b.stats = trawl_trace_stats(t);
	if (lookup_fields(&b, t))
		goto out;
	for (size_t i = 0; i < nsubscriptions; i++)
		if (trawl_on(t, subscriptions[i], on_event, &b))
			goto out;
	rc = trawl_run(t, &err);
	if (rc < 0)
		snprintf(why, whylen, "%s", err.msg);
	else if (b.failed)
		rc = -1;
	else
		rc = 0;
out:
	trawl_close(t);
	free(b.kind);
	free(b.tasks);
	free(b.async);
	free(b.cpu_task);
	if (out && out->steps) {
		for (size_t i = 0; i < out->nlanes; i++) {
			view_steps_shrink(&out->steps[i]);
			out->bytes += view_steps_bytes(&out->steps[i]);
		}
		out->bytes += out->nlanes * sizeof(*out->steps);
	}
	/* the reader's buffers went back to this thread's arena: give them
	 * to the system, so serving stays at the index and the cache */
	malloc_trim(0);
	return rc;
}

static int index_trace(const char *path, const struct view_build_opts *o,
		       struct view_index **out, trawl_error *err);

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
	"cpu_idle",
	/* an application channel's markers (trawl_event_marker()) */
	"slice_begin",
	"slice_end",
	"counter",
	"instant",
};
static const size_t nsubscriptions =
	sizeof(subscriptions) / sizeof(*subscriptions);

int view_indexed_event(const char *name)
{
	for (size_t i = 0; i < nsubscriptions; i++)
		if (!strcmp(name, subscriptions[i]))
			return 1;
	return 0;
}

static int lookup_fields(struct builder *b, trawl_trace *t)
{
	b->prev_comm = trawl_field_lookup(t, "sched_switch", "prev_comm");
	b->prev_state = trawl_field_lookup(t, "sched_switch", "prev_state");
	b->next_pid = trawl_field_lookup(t, "sched_switch", "next_pid");
	b->next_comm = trawl_field_lookup(t, "sched_switch", "next_comm");
	/* one handle for the three wakeups: the field reads' fast path
	 * keeps a few types (core.h's tw_fast_int) */
	b->woken_pid = trawl_field_lookup(t, NULL, "pid");
	b->woken_comm = trawl_field_lookup(t, NULL, "comm");
	int missing = !b->woken_pid || !b->woken_comm;
	b->irq = trawl_field_lookup(t, NULL, "irq");
	b->irq_name = trawl_field_lookup(t, "irq_handler_entry", "name");
	b->vec = trawl_field_lookup(t, NULL, "vec");
	b->action = trawl_field_lookup(t, NULL, "action");
	b->function = trawl_field_lookup(t, NULL, "function");
	b->freq = trawl_field_lookup(t, "cpu_frequency", "state");
	b->freq_cpu = trawl_field_lookup(t, "cpu_frequency", "cpu_id");
	b->idle = trawl_field_lookup(t, "cpu_idle", "state");
	b->idle_cpu = trawl_field_lookup(t, "cpu_idle", "cpu_id");
	b->buf = trawl_field_lookup(t, "print", "buf");
	return missing || !b->prev_comm || !b->prev_state || !b->next_pid ||
			       !b->next_comm || !b->irq || !b->irq_name ||
			       !b->vec || !b->action || !b->function ||
			       !b->freq || !b->freq_cpu || !b->idle ||
			       !b->idle_cpu || !b->buf
		       ? -1
		       : 0;
}

/* The whole trace's analyses, once the pass is over: each lane's last
 * value counts to the end of the trace. Return: 0 or -1. */
static int whole_end(struct builder *b)
{
	struct view_index *ix = b->ix;
	for (size_t i = 0; i < ix->nlanes; i++) {
		struct view_lane *l = &ix->lanes[i];
		const struct view_steps *s = &l->steps;
		if (!s->n ||
		    (l->kind != VIEW_LANE_CPU && l->kind != VIEW_LANE_TASK))
			continue;
		if (view_counts_busy(l->kind, s->last_v) &&
		    ix->last > s->last_t)
			l->whole += ix->last - s->last_t;
	}
	if (ix->first < b->first_ts)
		for (uint64_t i = 0; i < b->zero_at_first; i++)
			if (trawl_hist_add(b->lat, 0))
				return -1;
	trawl_hist_summary(b->lat, &ix->whole_latency);
	return 0;
}

/* Keep what replays need of the builder's tables. */
static int keep_tables(struct builder *b)
{
	struct view_replay_tables *rt = &b->ix->rt;
	size_t nc = (size_t)b->ncpus * MAX_BUFFERS;
	if (nc) {
		rt->cpus = malloc(nc * sizeof(*rt->cpus));
		if (!rt->cpus)
			return -1;
		memcpy(rt->cpus, b->cpus, nc * sizeof(*rt->cpus));
	}
	rt->ncpus = b->ncpus;
	for (int i = 0; i < b->nbuffers; i++)
		if (!(rt->buffers[i] = strdup(b->buffers[i])))
			return -1;
	rt->nbuffers = b->nbuffers;
	rt->task_buffer = b->task_buffer;
	if (b->ncounters) {
		rt->counters = malloc(b->ncounters * sizeof(*rt->counters));
		if (!rt->counters)
			return -1;
		memcpy(rt->counters, b->counters,
		       b->ncounters * sizeof(*rt->counters));
	}
	rt->ncounters = b->ncounters;
	memcpy(rt->async_rows, b->async_rows, sizeof(rt->async_rows));
	rt->marker_lane = b->marker_lane;
	rt->lost_lane = b->lost_lane;
	return 0;
}

/* How the trace was read, kept to read it again: the formats' list
 * owned, no progress (a window's read is not the pass). */
static int keep_open_opts(struct view_index *ix, const trawl_open_opts *o)
{
	ix->open = *o;
	ix->open.progress = NULL;
	ix->open.progress_ctx = NULL;
	ix->open.formats = NULL;
	ix->open.tmpdir = NULL;
	if (o->formats && !(ix->formats = strdup(o->formats)))
		return -1;
	ix->open.formats = ix->formats;
	return 0;
}

int view_index_build(const char *path, const struct view_build_opts *o,
		     struct view_index **out, trawl_error *err)
{
	/* A server lives on after indexing: glibc raises its mmap threshold
	 * as large blocks are freed (the reader's, a lane's buffers), and
	 * then serves large blocks from its heaps, whose free tops it does
	 * not give back in a thread's arena. Pinned, they are mapped and
	 * unmapped (2 MB less after indexing big.dat on two threads). */
	mallopt(M_MMAP_THRESHOLD, 1 << 20);
	char cache[4096];
	int use_cache = !o->no_cache && strcmp(path, "-") &&
			!view_cache_path(path, o, cache, sizeof(cache));
	if (use_cache) {
		struct view_index *ix = view_cache_load(cache, path);
		if (ix && keep_open_opts(ix, &o->open)) {
			view_index_free(ix);
			return tw_error_at(err, TRAWL_ENOMEM, 0, path, 0, 0, 0,
					   "out of memory");
		}
		if (ix) {
			ix->cached = 1;
			*out = ix;
			return 0;
		}
	}
	int rc = index_trace(path, o, out, err);
	/* a cache that cannot be written is no error: next time indexes */
	if (!rc && use_cache && view_cache_save(*out, cache))
		warn(o,
		     "warning: cannot save the index in %s: the next view "
		     "indexes %s again",
		     cache, path);
	return rc;
}

static int index_trace(const char *path, const struct view_build_opts *o,
		       struct view_index **out, trawl_error *err)
{
	int rc = -TRAWL_ENOMEM;
	struct view_index *ix = calloc(1, sizeof(*ix));
	struct builder b = {.ix = ix,
			    .opts = o,
			    .marker_lane = NONE,
			    .lost_lane = NONE,
			    .task_buffer = -1};
	for (int r = 0; r < VIEW_ASYNC_ROWS; r++)
		b.async_rows[r] = NONE;
	/* the tests put checkpoints into small traces */
	const char *every = getenv("TRAWL_VIEW_CHECK_EVENTS");
	b.check_every = every && *every ? strtoull(every, NULL, 10) : 0;
	if (!b.check_every)
		b.check_every = VIEW_CHECK_EVENTS;
	trawl_analysis *irq = NULL;
	trawl_trace *t = NULL;
	struct view_spill spill = {.fd = -1};
	if (!ix || !(ix->path = strdup(path)))
		goto oom;
	pthread_mutex_init(&ix->reread, NULL);
	pthread_mutex_init(&ix->replay_lock, NULL);
	if (keep_open_opts(ix, &o->open))
		goto oom;
	ix->irq_threshold = o->irq_threshold > 0 ? o->irq_threshold : 1000000;
	/* string 0 is "", so a zero comm means none */
	view_intern(&ix->str, "", 0);
	name_of(&b, "(text not kept: the index's strings are full)");
	b.async = calloc(MAX_OPEN_ASYNC, sizeof(*b.async));
	b.lat = trawl_hist_new(NULL);
	if (!b.async || !b.lat)
		goto oom;
	t = trawl_open(path, &o->open, err);
	if (!t) {
		rc = -(err && err->code ? err->code : TRAWL_EIO);
		goto out;
	}
	/* the budget's base: the trace's data uncompressed where the format
	 * tells it (a trace.dat's pages, so that a v7 file's zstd does not
	 * make its index coarser than its v6 copy's), else the file's size */
	struct stat fst;
	ix->file_size =
		strcmp(path, "-") && !stat(path, &fst) ? fst.st_size : 0;
	if (ix->file_size && trawl_data_bytes(t))
		ix->file_size = (int64_t)trawl_data_bytes(t);
	/* the changes beyond the budget wait in the spill file */
	b.budget = view_index_budget(ix);
	if (b.budget != SIZE_MAX && !view_spill_open(&spill)) {
		b.spill = &spill;
		b.look_at = b.budget;
	}
	b.t = t;
	b.stats = trawl_trace_stats(t);
	if (lookup_fields(&b, t))
		goto oom;
	for (size_t i = 0; i < sizeof(subscriptions) / sizeof(*subscriptions);
	     i++)
		if (trawl_on(t, subscriptions[i], on_event, &b))
			goto oom;
	trawl_irq_opts io = {
		.threshold = ix->irq_threshold, .on_long = on_long, .ctx = ix};
	irq = trawl_irq_new(t, &io, err);
	if (!irq) {
		rc = -(err && err->code ? err->code : TRAWL_ENOMEM);
		goto out;
	}
	int ran = trawl_run(t, err);
	if (ix->oom || ix->str.oom)
		goto oom;
	if (ran) {
		rc = ran < 0 ? ran : -TRAWL_EIO;
		goto out;
	}
	const trawl_stats *st = trawl_trace_stats(t);
	check_lost(&b, st->last_time);
	ix->first = st->first_time;
	ix->last = st->last_time;
	ix->events = st->events;
	ix->lost = st->lost_events;
	/* slices begun and not ended by the end of the trace (their lanes
	 * run to the end): B without E per thread, S without F */
	for (size_t i = 0; i < ix->ntasks; i++)
		ix->unended_slices += (uint64_t)ix->tasks[i].depth;
	ix->unended_slices += b.nasync;
	ix->summary = view_summary_json(t);
	if (keep_tables(&b) || whole_end(&b))
		goto oom;
	/* the trace's buffers go back before the levels are made */
	trawl_analysis_free(irq);
	irq = NULL;
	trawl_close(t);
	t = NULL;
	ix->spilled = spill.size;
	if (view_index_finish(ix, &spill)) {
		if (errno == ENOMEM)
			goto oom;
		rc = tw_error_at(err, TRAWL_EIO, errno, path, 0, 0, 0,
				 "cannot read the index's spill file back "
				 "(%s) while indexing",
				 strerror(errno));
		goto out;
	}
	malloc_trim(0);
	*out = ix;
	ix = NULL;
	rc = 0;
	goto out;
oom:
	rc = tw_error_at(err, TRAWL_ENOMEM, 0, path, 0, 0, 0,
			 "out of memory while indexing");
out:
	trawl_analysis_free(irq);
	trawl_close(t);
	view_spill_close(&spill);
	trawl_hist_free(b.lat);
	free(b.kind);
	free(b.cpus);
	free(b.async);
	free(b.counters);
	free(b.cpu_task);
	view_index_free(ix);
	return rc;
}

void view_index_free(struct view_index *ix)
{
	if (!ix)
		return;
	free(ix->summary);
	free(ix->formats);
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
	free(ix->checks);
	free(ix->snap);
	free(ix->rt.cpus);
	for (int i = 0; i < ix->rt.nbuffers; i++)
		free(ix->rt.buffers[i]);
	free(ix->rt.counters);
	for (int i = 0; i < VIEW_REPLAY_CACHE; i++)
		view_replay_free(ix->cache[i]);
	if (ix->path) {
		pthread_mutex_destroy(&ix->reread);
		pthread_mutex_destroy(&ix->replay_lock);
	}
	free(ix->path);
	free(ix);
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
