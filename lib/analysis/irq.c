/* SPDX-License-Identifier: MIT */
/*
 * Hardirq and softirq handler durations, per (kind, irq or vector, CPU).
 * Neither nests on one CPU (handlers run with interrupts off, and a softirq
 * is not re-entered on its CPU), so one open entry per CPU and kind pairs
 * each exit; a shared irq line shows as several entry/exit pairs in a row.
 * A hardirq inside a softirq is a different kind, so it does not disturb it.
 */
#include "analysis-int.h"

enum {
	A_HARD_EXIT,
	A_HARD_ENTRY,
	A_SOFT_EXIT,
	A_SOFT_ENTRY,
};

/* The kernel's softirq_to_name[], for trace.dat (text has action=). */
static const char *const softirq_names[] = {
	"HI",	    "TIMER",   "NET_TX", "NET_RX",  "BLOCK",
	"IRQ_POLL", "TASKLET", "SCHED",	 "HRTIMER", "RCU",
};

struct open_irq {
	int active;
	int64_t id;
	int64_t start;
	int pid; /* the interrupted task */
	char name[64];
};

struct cpu_irqs {
	struct open_irq hard, soft;
};

struct irq {
	struct cpu_irqs *cpus;
	size_t ncpus;
	int64_t threshold;
	void (*on_long)(const trawl_instance *in, const char *kind, void *ctx);
	void *ctx;
	trawl_field irq, name, vec, action;
};

static struct cpu_irqs *cpu_of(trawl_analysis *a, int cpu)
{
	struct irq *q = a->state;
	if (cpu < 0 || cpu >= TW_MAX_CPUS)
		return NULL;
	if ((size_t)cpu >= q->ncpus) {
		size_t n = (size_t)cpu + 1;
		struct cpu_irqs *c =
			tw_realloc(a->mem, q->cpus, n * sizeof(*c));
		if (!c)
			return NULL;
		memset(c + q->ncpus, 0, (n - q->ncpus) * sizeof(*c));
		q->cpus = c;
		q->ncpus = n;
	}
	return &q->cpus[cpu];
}

static void set_name(struct open_irq *o, const char *s, size_t n)
{
	if (n >= sizeof(o->name))
		n = sizeof(o->name) - 1;
	memcpy(o->name, s, n);
	o->name[n] = '\0';
}

static int entry(const trawl_event *ev, trawl_analysis *a, int soft)
{
	struct irq *q = a->state;
	if (!tw_in_window(a, ev))
		return 0;
	struct cpu_irqs *c = cpu_of(a, trawl_event_cpu(ev));
	if (!c)
		return trawl_event_cpu(ev) < 0 ? 0 : tw_oom(a);
	struct open_irq *o = soft ? &c->soft : &c->hard;
	int64_t ts = trawl_event_time(ev);
	if (o->active)
		tw_part_anomaly(&a->parts[0],
				soft ? A_SOFT_ENTRY : A_HARD_ENTRY,
				soft ? "softirq entry without exit"
				     : "irq entry without exit",
				ts);
	int64_t id;
	if (trawl_event_get_int(ev, soft ? q->vec : q->irq, &id))
		id = -1;
	size_t n = 0;
	const char *name = NULL;
	if (soft) {
		name = trawl_event_raw(ev, q->action, &n);
		if (!name && id >= 0 &&
		    (size_t)id < TW_ARRAY_SIZE(softirq_names)) {
			name = softirq_names[id];
			n = strlen(name);
		}
	} else {
		name = trawl_event_raw(ev, q->name, &n);
	}
	if (!name) {
		name = "?";
		n = 1;
	}
	o->active = 1;
	o->id = id;
	o->start = ts;
	o->pid = trawl_event_pid(ev);
	set_name(o, name, n);
	/* The filter is on the interrupted task, known at the entry. */
	size_t clen;
	const char *comm = trawl_event_comm(ev);
	clen = strlen(comm);
	if (!tw_task_wanted(a, o->pid, comm, clen))
		o->active = 2; /* paired, but not counted */
	return 0;
}

static int leave(const trawl_event *ev, trawl_analysis *a, int soft)
{
	struct irq *q = a->state;
	if (!tw_in_window(a, ev))
		return 0;
	int cpu = trawl_event_cpu(ev);
	struct cpu_irqs *c = cpu_of(a, cpu);
	if (!c)
		return cpu < 0 ? 0 : tw_oom(a);
	struct open_irq *o = soft ? &c->soft : &c->hard;
	int64_t ts = trawl_event_time(ev);
	int64_t id;
	if (trawl_event_get_int(ev, soft ? q->vec : q->irq, &id))
		id = -1;
	if (!o->active || o->id != id) {
		tw_part_anomaly(&a->parts[0], soft ? A_SOFT_EXIT : A_HARD_EXIT,
				soft ? "softirq exit without entry"
				     : "irq exit without entry",
				ts);
		o->active = 0;
		return 0;
	}
	int counted = o->active == 1;
	o->active = 0;
	if (!counted)
		return 0;
	const char *kind = soft ? "softirq" : "hardirq";
	/* key: kind, id, cpu (the name follows the irq number) */
	struct {
		int64_t id;
		int32_t cpu;
		int32_t soft;
	} key = {id, cpu, soft};
	tw_part *p = &a->parts[0];
	tw_row *r = tw_part_row(a, p, &key, sizeof(key), o->name,
				strlen(o->name), kind, id, cpu);
	if (!r)
		return tw_oom(a);
	trawl_instance in = {
		.start = o->start,
		.end = ts,
		.pid = o->pid,
		.cpu = cpu,
		.id = id,
		.name = o->name,
		.kind = kind,
	};
	if (in.end - in.start > q->threshold) {
		a->long_count++;
		if (q->on_long)
			q->on_long(&in, kind, q->ctx);
	}
	return tw_part_add(a, p, r, &in);
}

static int on_hard_entry(const trawl_event *ev, void *ctx)
{
	return entry(ev, ctx, 0);
}

static int on_hard_exit(const trawl_event *ev, void *ctx)
{
	return leave(ev, ctx, 0);
}

static int on_soft_entry(const trawl_event *ev, void *ctx)
{
	return entry(ev, ctx, 1);
}

static int on_soft_exit(const trawl_event *ev, void *ctx)
{
	return leave(ev, ctx, 1);
}

static void fini(trawl_analysis *a)
{
	struct irq *q = a->state;
	if (!q)
		return;
	tw_free(a->mem, q->cpus);
	tw_free(a->mem, q);
}

TRAWL_API uint64_t trawl_irq_long_count(const trawl_analysis *a)
{
	return a && a->is_irq ? a->long_count : 0;
}

TRAWL_API trawl_analysis *trawl_irq_new(trawl_trace *t, const trawl_irq_opts *o,
					trawl_error *err)
{
	static const char *const names[] = {"irq"};
	trawl_analysis *a =
		tw_analysis_new(t, o ? &o->base : NULL, names, 1, err);
	if (!a)
		return NULL;
	a->is_irq = 1;
	struct irq *q = tw_calloc(a->mem, 1, sizeof(*q));
	if (!q)
		return tw_analysis_fail(a, -TRAWL_ENOMEM, err);
	a->state = q;
	a->fini = fini;
	q->threshold = o && o->threshold > 0 ? o->threshold : 1000000;
	q->on_long = o ? o->on_long : NULL;
	q->ctx = o ? o->ctx : NULL;
	q->irq = trawl_field_lookup(t, NULL, "irq");
	q->name = trawl_field_lookup(t, "irq_handler_entry", "name");
	q->vec = trawl_field_lookup(t, NULL, "vec");
	q->action = trawl_field_lookup(t, NULL, "action");
	if (!q->irq || !q->name || !q->vec || !q->action)
		return tw_analysis_fail(a, -TRAWL_ENOMEM, err);
	int rc = trawl_on(t, "irq_handler_entry", on_hard_entry, a);
	if (!rc)
		rc = trawl_on(t, "irq_handler_exit", on_hard_exit, a);
	if (!rc)
		rc = trawl_on(t, "softirq_entry", on_soft_entry, a);
	if (!rc)
		rc = trawl_on(t, "softirq_exit", on_soft_exit, a);
	if (rc)
		return tw_analysis_fail(a, rc, err);
	return a;
}
