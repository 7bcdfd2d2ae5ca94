/* SPDX-License-Identifier: MIT */
/*
 * CPU frequency and idle state residency: how long each CPU spent at each
 * frequency (power:cpu_frequency) and in each idle state (power:cpu_idle).
 *
 * Both events say what a CPU (their cpu_id, not the CPU that wrote the
 * event: a frequency change may be made from another CPU) is in from now
 * on, so a state lasts from its event to the CPU's next one, and the last
 * to the end of the trace. cpu_idle gives the state entered, or
 * PWR_EVENT_EXIT ((u32)-1) when the CPU leaves idle: the time between an
 * exit and the next entry is the "active" row. Before a CPU's first event
 * its state is not known and nothing is counted, as the other analyses
 * count nothing before a task's first event.
 *
 * Idle state names are the kernel's (cpuidle's "POLL", "C1E", ...) where
 * the source says them (trawl record saves them: trawl_trace_host()),
 * else "state N".
 */
#include <stdio.h>
#include <stdlib.h>

#include "analysis-int.h"

enum { PART_FREQ, PART_IDLE };

enum {
	A_EXIT_ACTIVE, /* a leave-idle event while already active */
	A_ENTRY_IDLE,  /* an idle entry while already idle */
	A_BAD_CPU,     /* a cpu_id that cannot be a CPU */
};

#define ACTIVE	  -1	       /* the idle part's "not idle" state */
#define IDLE_EXIT 4294967295ll /* PWR_EVENT_EXIT */
#define UNKNOWN	  INT64_MIN

struct cpu_state {
	int64_t value; /* kHz or idle state; UNKNOWN before the first event */
	int64_t since;
};

struct power {
	struct cpu_state *freq, *idle; /* by CPU */
	size_t ncpus;
	int64_t last; /* the last event seen */
	trawl_field freq_state, freq_cpu, idle_state, idle_cpu;
};

static int grow(trawl_analysis *a, struct power *p, int64_t cpu)
{
	if ((size_t)cpu < p->ncpus)
		return 0;
	size_t n = (size_t)cpu + 1;
	struct cpu_state *f = tw_realloc(a->mem, p->freq, n * sizeof(*f));
	if (!f)
		return -1;
	p->freq = f;
	struct cpu_state *i = tw_realloc(a->mem, p->idle, n * sizeof(*i));
	if (!i)
		return -1;
	p->idle = i;
	for (size_t c = p->ncpus; c < n; c++)
		p->freq[c].value = p->idle[c].value = UNKNOWN;
	p->ncpus = n;
	return 0;
}

static void row_name(trawl_analysis *a, int part, int64_t value, int cpu,
		     char *buf, size_t len)
{
	if (part == PART_FREQ) {
		/* the event's kHz as MHz, exactly */
		if (value % 1000)
			snprintf(buf, len, "%lld.%03lld MHz",
				 (long long)(value / 1000),
				 (long long)(value % 1000));
		else
			snprintf(buf, len, "%lld MHz",
				 (long long)(value / 1000));
		return;
	}
	if (value == ACTIVE) {
		snprintf(buf, len, "active");
		return;
	}
	char key[64];
	snprintf(key, sizeof(key), "cpu%d/cpuidle/state%lld/name", cpu,
		 (long long)value);
	const char *name = trawl_trace_host(a->t, key);
	if (name)
		snprintf(buf, len, "%s", name);
	else
		snprintf(buf, len, "state %lld", (long long)value);
}

/* The interval cpu spent in *st up to ts, into its row. */
static int close_state(trawl_analysis *a, int part, int cpu,
		       struct cpu_state *st, int64_t ts)
{
	if (st->value == UNKNOWN)
		return 0;
	const int64_t key[2] = {st->value, cpu}; /* no padding to hash */
	tw_part *p = &a->parts[part];
	long i = tw_map_get(&p->keys, &key, sizeof(key));
	tw_row *r = i >= 0 ? &p->rows[i] : NULL;
	if (!r) {
		char name[80];
		row_name(a, part, st->value, cpu, name, sizeof(name));
		r = tw_part_row(a, p, &key, sizeof(key), name, strlen(name),
				part == PART_FREQ ? "frequency" : "idle",
				st->value, cpu);
		if (!r)
			return tw_oom(a);
	}
	trawl_instance in = {
		.start = st->since,
		.end = ts > st->since ? ts : st->since,
		.pid = -1,
		.cpu = cpu,
		.id = st->value,
		.name = r->name,
		.kind = r->row.kind,
	};
	return tw_part_add(a, p, r, &in);
}

/* The event's cpu_id as a CPU index, or -1 (counted) when it is none. */
static int target_cpu(trawl_analysis *a, const trawl_event *ev, trawl_field f,
		      int part)
{
	int64_t cpu;
	if (trawl_event_get_int(ev, f, &cpu) || cpu < 0 || cpu >= TW_MAX_CPUS) {
		tw_part_anomaly(&a->parts[part], A_BAD_CPU,
				"cpu_id that is no CPU", trawl_event_time(ev));
		return -1;
	}
	if (grow(a, a->state, cpu))
		return -2;
	return (int)cpu;
}

/*
 * What an event in the window says: the CPU (*cpu) and its new state
 * (*value) from the event's fields. Return: 1 to go on, 0 to pass it by
 * (outside the window, or fields it lacks), -1 out of memory.
 */
static int cpu_state_of(trawl_analysis *a, const trawl_event *ev,
			trawl_field cpu_f, trawl_field value_f, int part,
			int *cpu, int64_t *value)
{
	struct power *p = a->state;
	if (!tw_in_window(a, ev))
		return 0;
	p->last = trawl_event_time(ev);
	*cpu = target_cpu(a, ev, cpu_f, part);
	if (*cpu == -2)
		return -1;
	return *cpu >= 0 && !trawl_event_get_int(ev, value_f, value);
}

static int on_frequency(const trawl_event *ev, void *ctx)
{
	trawl_analysis *a = ctx;
	struct power *p = a->state;
	int cpu;
	int64_t khz, ts = trawl_event_time(ev);
	int go = cpu_state_of(a, ev, p->freq_cpu, p->freq_state, PART_FREQ,
			      &cpu, &khz);
	if (go <= 0)
		return go < 0 ? tw_oom(a) : 0;
	struct cpu_state *st = &p->freq[cpu];
	if (st->value == khz)
		return 0; /* the same frequency again: one interval */
	int rc = close_state(a, PART_FREQ, cpu, st, ts);
	st->value = khz;
	st->since = ts;
	return rc;
}

static int on_idle(const trawl_event *ev, void *ctx)
{
	trawl_analysis *a = ctx;
	struct power *p = a->state;
	int cpu;
	int64_t state, ts = trawl_event_time(ev);
	int go = cpu_state_of(a, ev, p->idle_cpu, p->idle_state, PART_IDLE,
			      &cpu, &state);
	if (go <= 0)
		return go < 0 ? tw_oom(a) : 0;
	/* (u32)-1 reads as 4294967295, or -1 where the field is signed */
	if (state == IDLE_EXIT || state == -1)
		state = ACTIVE;
	struct cpu_state *st = &p->idle[cpu];
	if (st->value == state && state == ACTIVE) {
		tw_part_anomaly(&a->parts[PART_IDLE], A_EXIT_ACTIVE,
				"idle exit while not idle", ts);
		return 0;
	}
	if (st->value != UNKNOWN && st->value != ACTIVE && state != ACTIVE)
		tw_part_anomaly(&a->parts[PART_IDLE], A_ENTRY_IDLE,
				"idle entry while idle", ts);
	int rc = close_state(a, PART_IDLE, cpu, st, ts);
	st->value = state;
	st->since = ts;
	return rc;
}

static void finish(trawl_analysis *a)
{
	struct power *p = a->state;
	int64_t end = tw_analysis_end(a, p->last);
	for (size_t c = 0; c < p->ncpus && !a->failed; c++) {
		close_state(a, PART_FREQ, (int)c, &p->freq[c], end);
		close_state(a, PART_IDLE, (int)c, &p->idle[c], end);
		p->freq[c].value = p->idle[c].value = UNKNOWN;
	}
}

/* Per CPU, then by frequency or state (active first): a table to read
 * down, not the longest first. */
static int cmp_rows(const void *x, const void *y)
{
	const trawl_row *a = x, *b = y;
	if (a->cpu != b->cpu)
		return a->cpu < b->cpu ? -1 : 1;
	return a->id < b->id ? -1 : a->id > b->id;
}

static void fini(trawl_analysis *a)
{
	struct power *p = a->state;
	if (!p)
		return;
	tw_free(a->mem, p->freq);
	tw_free(a->mem, p->idle);
	tw_free(a->mem, p);
}

TRAWL_API trawl_analysis *
trawl_power_new(trawl_trace *t, const trawl_analysis_opts *o, trawl_error *err)
{
	static const char *const names[] = {"frequency", "idle"};
	trawl_analysis *a = tw_analysis_new(t, o, names, 2, err);
	if (!a)
		return NULL;
	struct power *p = tw_calloc(a->mem, 1, sizeof(*p));
	if (!p)
		return tw_analysis_fail(a, -TRAWL_ENOMEM, err);
	a->state = p;
	a->fini = fini;
	a->finish = finish;
	a->cmp_rows = cmp_rows;
	p->freq_state = trawl_field_lookup(t, "cpu_frequency", "state");
	p->freq_cpu = trawl_field_lookup(t, "cpu_frequency", "cpu_id");
	p->idle_state = trawl_field_lookup(t, "cpu_idle", "state");
	p->idle_cpu = trawl_field_lookup(t, "cpu_idle", "cpu_id");
	if (!p->freq_state || !p->freq_cpu || !p->idle_state || !p->idle_cpu)
		return tw_analysis_fail(a, -TRAWL_ENOMEM, err);
	int rc = trawl_on(t, "cpu_frequency", on_frequency, a);
	if (!rc)
		rc = trawl_on(t, "cpu_idle", on_idle, a);
	if (rc)
		return tw_analysis_fail(a, rc, err);
	return a;
}
