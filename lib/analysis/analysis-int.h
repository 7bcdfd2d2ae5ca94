/* SPDX-License-Identifier: MIT */
/*
 * The inside of lib/analysis: what every analysis shares. A map from keys
 * (pids, irq numbers, names) to dense indices; a result part under
 * construction (rows with their histograms, the overall histogram, a heap of
 * the worst instances, anomaly counters); the filter. Nothing here is public.
 */
#ifndef TW_ANALYSIS_INT_H
#define TW_ANALYSIS_INT_H

#include <stddef.h>
#include <stdint.h>

#include "../core/core.h"
#include "trawl/analysis.h"

static inline const tw_mem *tw_trace_mem(trawl_trace *t)
{
	return &t->mem;
}

/*
 * Open-addressing map from byte keys to dense values 0, 1, 2... in order of
 * insertion. Keys up to 16 bytes are stored inline (pids, (irq, cpu)
 * pairs), longer ones are copied.
 */
typedef struct tw_map_entry {
	uint64_t hash;
	uint32_t klen;
	union {
		char inl[16];
		char *ptr;
	} key;
} tw_map_entry;

typedef struct tw_map {
	const tw_mem *mem;
	uint32_t *slots; /* value + 1; 0 is empty */
	size_t nslots;
	tw_map_entry *entries;
	size_t n, cap;
} tw_map;

void tw_map_init(tw_map *m, const tw_mem *mem);
void tw_map_fini(tw_map *m);
/* Find key; insert it when absent (*added = 1). Return: index or -ENOMEM. */
long tw_map_put(tw_map *m, const void *key, size_t klen, int *added);
/* Find key. Return: index, or -1 when absent. */
long tw_map_get(const tw_map *m, const void *key, size_t klen);

/* A row being built: the public row plus its histogram. */
typedef struct tw_row {
	trawl_row row;
	trawl_hist *h;
	char *name;
	int64_t max; /* for max_at */
	int any;
	/* values that are not durations (counters): exact min, max, total */
	int vals;
	int64_t vmin, vmax, vtotal;
} tw_row;

/* A kept worst instance, with its own copy of the name. */
typedef struct tw_worst {
	trawl_instance in;
	uint64_t order; /* ties: the earlier one ranks higher */
	char name[64];
} tw_worst;

#define TW_MAX_ANOMALIES 6

typedef struct tw_part {
	trawl_result res;
	tw_map keys;
	tw_row *rows;
	size_t nrows, cap;
	trawl_hist *overall;
	tw_worst *worst; /* min-heap by duration, worst_max slots */
	size_t nworst;
	uint64_t added;
	trawl_anomaly anomaly[TW_MAX_ANOMALIES];
	trawl_row *out_rows;
	trawl_instance *out_worst;
	trawl_anomaly out_anomalies[TW_MAX_ANOMALIES];
} tw_part;

#define TW_MAX_PARTS 3

struct trawl_analysis {
	trawl_trace *t;
	const tw_mem *mem;
	trawl_filter filter;
	char *comm;
	int *pids; /* the pids filter's, sorted */
	unsigned worst_max;
	tw_part parts[TW_MAX_PARTS];
	unsigned nparts;
	int finished;
	int failed; /* an allocation failed during the run */
	void *state;
	/* Called once before the result is made (close what is still open). */
	void (*finish)(trawl_analysis *a);
	void (*fini)(trawl_analysis *a);
	/* the rows' order in the result; NULL: the longest max first */
	int (*cmp_rows)(const void *x, const void *y);
	/* per-analysis values read by accessors */
	uint64_t long_count;
	int is_irq;
	int is_sched;
	/* trawl_analysis_on_instance(): every instance tw_part_add() takes */
	void (*on_instance)(const trawl_instance *in, const char *part,
			    void *ctx);
	void *instance_ctx;
	/* trawl_sched_on_state() */
	void (*on_state)(const trawl_task_state *st, void *ctx);
	void *state_ctx;
};

/* Make the analysis with parts named names[0..nparts). */
trawl_analysis *tw_analysis_new(trawl_trace *t, const trawl_analysis_opts *o,
				const char *const *names, unsigned nparts,
				trawl_error *err);
/* Fill err for a failed constructor and free a. Return: NULL. */
trawl_analysis *tw_analysis_fail(trawl_analysis *a, int rc, trawl_error *err);

/* The row for key, created with (name, kind, id, cpu) when new; NULL: ENOMEM */
tw_row *tw_part_row(trawl_analysis *a, tw_part *p, const void *key, size_t klen,
		    const char *name, size_t nlen, const char *kind, int64_t id,
		    int cpu);
/* Replace a row's name (a task's comm changes on exec). */
int tw_row_rename(trawl_analysis *a, tw_row *r, const char *name, size_t nlen);
/* One sample: into the row, the overall histogram and the worst heap. */
int tw_part_add(trawl_analysis *a, tw_part *p, tw_row *r,
		const trawl_instance *in);
/* Count anomaly slot i (named what) at time ts. */
void tw_part_anomaly(tw_part *p, unsigned i, const char *what, int64_t ts);

/*
 * The sched analyses read the buffer (trace.dat instance) of the first
 * sched_switch only: instances often trace the same CPUs' switches again,
 * which would be a second lane for one CPU. *first holds that buffer
 * (NULL until a switch is seen). Return: 1 when ev is of another buffer.
 */
static inline int tw_other_buffer(const char **first, const trawl_event *ev,
				  int is_switch)
{
	const char *b = trawl_event_buffer(ev);
	if (!*first) {
		if (is_switch)
			*first = b;
		return 0;
	}
	return b != *first && strcmp(b, *first);
}

/* Whether the event lies in the time window. */
static inline int tw_in_window(const trawl_analysis *a, const trawl_event *ev)
{
	unsigned set = a->filter.set;
	if (TW_LIKELY(!(set & (TRAWL_FILTER_FROM | TRAWL_FILTER_TO))))
		return 1;
	int64_t ts = trawl_event_time(ev);
	if ((set & TRAWL_FILTER_FROM) && ts < a->filter.from)
		return 0;
	if ((set & TRAWL_FILTER_TO) && ts > a->filter.to)
		return 0;
	return 1;
}

/* Where states still open at the end are closed: the trace's last event
 * (or last, the last the analysis saw, when later), or --to when before
 * it. */
int64_t tw_analysis_end(const trawl_analysis *a, int64_t last);

/* Whether a task passes the pid and pids filters. */
int tw_pid_wanted(const trawl_analysis *a, int pid);
/* Whether a task passes the pid, pids and comm filters. */
int tw_task_wanted(const trawl_analysis *a, int pid, const char *comm,
		   size_t clen);

/* A callback's answer when an allocation failed: stop the run. */
static inline int tw_oom(trawl_analysis *a)
{
	a->failed = 1;
	return -TRAWL_ENOMEM;
}

/*
 * sched_switch prev_state: runnable (R, R+: preempted) or not. Text traces
 * print letters; trace.dat gives the number, where the low byte holds the
 * state bits (0 is running) and 0x100 (TASK_REPORT_MAX) marks preemption.
 * Return: 1 runnable, 0 sleeping or dead, -1 unknown.
 */
int tw_prev_state_runnable(const trawl_event *ev, trawl_field f);

#endif
