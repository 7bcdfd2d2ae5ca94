/* SPDX-License-Identifier: MIT */
/*
 * Built-in analyses. Each one is a consumer of the run loop: it is created on
 * an open trace (subscribing its callbacks), trawl_run() feeds it every event
 * in the one time order, and its result is read afterwards. Memory grows with
 * the number of tasks, irqs, functions or slice names, never with events.
 *
 * Durations go into a trawl_hist: exact while it holds at most
 * TRAWL_HIST_EXACT samples, then a log-linear histogram whose percentiles are
 * within 1/256 (0.4 %) of the true value (see trawl_hist_new()).
 */
#ifndef TRAWL_ANALYSIS_H
#define TRAWL_ANALYSIS_H

#include <stddef.h>
#include <stdint.h>

#include "trace.h"

/* Samples a trawl_hist keeps exactly before it becomes a histogram. */
#define TRAWL_HIST_EXACT 256

/**
 * struct trawl_summary - count and nearest-rank percentiles of durations
 * @count: samples
 * @min:   smallest (exact)
 * @p50:   median: the smallest sample with at least half of them <= it
 * @p90:   90th percentile
 * @p99:   99th percentile
 * @max:   largest (exact)
 * @total: sum of the samples (exact)
 *
 * All values are nanoseconds; everything is 0 when @count is 0.
 */
typedef struct trawl_summary {
	uint64_t count;
	int64_t min, p50, p90, p99, max;
	int64_t total;
} trawl_summary;

typedef struct trawl_hist trawl_hist;

/**
 * trawl_hist_new() - a duration accumulator with percentiles
 * @t: the trace whose allocator to use, or NULL for libc
 *
 * The first TRAWL_HIST_EXACT samples are kept as they are, so percentiles
 * of small sets are exact. Beyond that the samples go into log-linear
 * buckets: values below 256 ns exactly, above that 128 buckets per power of
 * two, so a bucket is at most 1/128 of its values wide and a percentile
 * (the bucket's middle, kept within min and max) is within 1/256 of the
 * nearest-rank answer. Memory: at most 58 KiB, typically a few KiB (only
 * the range of buckets in use is allocated).
 *
 * Return: the accumulator, or NULL when out of memory. Caller frees with
 * trawl_hist_free().
 */
TRAWL_API trawl_hist *trawl_hist_new(trawl_trace *t);

/**
 * trawl_hist_add() - add one sample
 * @h: the accumulator
 * @v: the value in ns; negative values count as 0
 *
 * Return: 0, or -TRAWL_ENOMEM (the sample is then not counted).
 */
TRAWL_API int trawl_hist_add(trawl_hist *h, int64_t v);

/**
 * trawl_hist_percentile() - the nearest-rank percentile
 * @h: the accumulator
 * @p: 0 < p <= 100
 *
 * Return: the smallest sample with at least p % of the samples <= it
 * (exact, or within 1/256 once the histogram took over); 0 when empty.
 */
TRAWL_API int64_t trawl_hist_percentile(trawl_hist *h, double p);

/**
 * trawl_hist_summary() - count, min, p50, p90, p99, max and total
 * @h:   the accumulator
 * @out: OUT: the summary
 */
TRAWL_API void trawl_hist_summary(trawl_hist *h, trawl_summary *out);

/**
 * trawl_hist_free() - free an accumulator
 * @h: the accumulator, or NULL (a no-op)
 */
TRAWL_API void trawl_hist_free(trawl_hist *h);

/* Bits of trawl_filter.set: which of its members apply. */
enum trawl_filter_bit {
	TRAWL_FILTER_PID = 1u << 0,
	TRAWL_FILTER_COMM = 1u << 1,
	TRAWL_FILTER_FROM = 1u << 2,
	TRAWL_FILTER_TO = 1u << 3,
	TRAWL_FILTER_PIDS = 1u << 4,
};

/**
 * struct trawl_filter - what an analysis looks at; zero means everything
 * @set:  enum trawl_filter_bit mask
 * @pid:  only this task (thread id): the woken task for latencies, the
 *        interrupted task for irqs, the worker for workqueues, the writing
 *        thread for slices
 * @comm: only tasks of this name (exact; copied by the analysis)
 * @from: events before this time (ns) are not seen, as if the trace began
 *        there
 * @to:   events after this time (ns) are not seen
 * @pids: only these tasks (thread ids, in any order; copied by the
 *        analysis): a task's every thread, or every pid a name had at any
 *        time, which @comm (the name at each event) does not give
 * @npids: how many @pids there are
 *
 * The pid, pids and comm filters, when several are set, must all pass.
 */
typedef struct trawl_filter {
	unsigned set;
	int pid;
	const char *comm;
	int64_t from, to;
	const int *pids;
	size_t npids;
} trawl_filter;

/**
 * struct trawl_row - one row of a result: a task, an irq, a function, a slice
 * @name:  the task's comm, irq handler name, softirq vector name, work
 *         function or slice name
 * @kind:  what the row is ("task", "hardirq", "softirq", "work", "slice",
 *         "async", "counter")
 * @id:    the pid, irq number or softirq vector; -1 when it has none
 * @cpu:   the CPU for per-CPU rows, otherwise -1
 * @s:     the durations (for counters: the values)
 * @max_at: time (ns) where the longest instance began
 * @self:  slices: total self time (duration minus direct children)
 * @depth: slices: deepest nesting seen (0: top level)
 */
typedef struct trawl_row {
	const char *name;
	const char *kind;
	int64_t id;
	int cpu;
	trawl_summary s;
	int64_t max_at;
	int64_t self;
	int depth;
} trawl_row;

/**
 * struct trawl_instance - one measured interval (a latency, a handler run)
 * @start: when it began (the wakeup, the handler entry), ns
 * @end:   when it ended (the switch-in, the exit), ns
 * @pid:   the task it belongs to (woken task, interrupted task, worker)
 * @cpu:   the CPU where it ended
 * @id:    irq number or vector; for latencies, the CPU of the start event
 * @name:  comm, handler or function name (borrowed, valid until the
 *         analysis is freed, or for trawl_irq_opts.on_long until the
 *         callback returns)
 * @kind:  what it was where an analysis measures several kinds in one
 *         part (irq: "hardirq" or "softirq", whose numbers overlap: irq 9
 *         and softirq 9 are different handlers), else NULL (static)
 */
typedef struct trawl_instance {
	int64_t start, end;
	int pid;
	int cpu;
	int64_t id;
	const char *name;
	const char *kind;
} trawl_instance;

/**
 * struct trawl_anomaly - sequences that do not add up, counted not dropped
 * @what:  e.g. "exit without entry", "E without B" (static storage)
 * @count: how many
 * @first: time (ns) of the first one
 */
typedef struct trawl_anomaly {
	const char *what;
	uint64_t count;
	int64_t first;
} trawl_anomaly;

/**
 * struct trawl_result - one part of an analysis's result
 * @name:       the part: "wakeup", "preempt", "irq", "execution",
 *              "queue_delay", "slices", "async", "counters"
 * @overall:    every sample of the part together
 * @rows:       per task / irq / function rows, longest max first
 * @nrows:      number of rows
 * @worst:      the longest instances, longest first
 * @nworst:     number of them (at most the analysis's worst option)
 * @anomalies:  malformed sequences; only those seen at least once
 * @nanomalies: number of them
 */
typedef struct trawl_result {
	const char *name;
	trawl_summary overall;
	const trawl_row *rows;
	size_t nrows;
	const trawl_instance *worst;
	size_t nworst;
	const trawl_anomaly *anomalies;
	size_t nanomalies;
} trawl_result;

typedef struct trawl_analysis trawl_analysis;

/* What trawl_latency_new() measures. */
enum trawl_latency_kind {
	/* sched_waking (else sched_wakeup / sched_wakeup_new) to switch-in */
	TRAWL_LATENCY_WAKEUP = 0,
	/* switched out while runnable (prev_state R / R+) to switch-in */
	TRAWL_LATENCY_PREEMPT = 1,
};

/**
 * struct trawl_analysis_opts - options shared by the analyses; zero: default
 * @filter: which events and tasks to look at
 * @worst:  how many of the longest instances to keep (default 10, at most
 *          10000)
 */
typedef struct trawl_analysis_opts {
	trawl_filter filter;
	unsigned worst;
} trawl_analysis_opts;

/**
 * trawl_latency_new() - scheduling latency per task
 * @t:    the trace, before trawl_run()
 * @kind: enum trawl_latency_kind
 * @o:    options, or NULL
 * @err:  OUT: why it failed, or NULL
 *
 * Wakeup latency runs from the first wakeup of a task that is not running
 * (sched_waking when traced, otherwise sched_wakeup or sched_wakeup_new) to
 * its next switch-in, on whatever CPU (migrations in between do not
 * matter). A wakeup of a task that is on a CPU, and a later wakeup before
 * the switch-in, start nothing; a task switched out before the switch-in
 * that a wakeup waited for was running all along, and that wakeup is
 * dropped. Until a task is first seen switching, nothing is assumed of it,
 * so a trace that starts mid-way gives no false latencies. The result has
 * one part, "wakeup" or "preempt", with rows per task (id = pid) and the
 * worst instances.
 *
 * Return: the analysis, or NULL on error. Caller frees with
 * trawl_analysis_free().
 */
TRAWL_API trawl_analysis *trawl_latency_new(trawl_trace *t, int kind,
					    const trawl_analysis_opts *o,
					    trawl_error *err);

/**
 * struct trawl_irq_opts - options of trawl_irq_new()
 * @base:      the shared options
 * @threshold: handlers running longer than this (ns) are reported to
 *             @on_long and counted (default 1 ms)
 * @on_long:   called for every handler over @threshold, in time order, from
 *             the thread running trawl_run(); may be NULL
 * @ctx:       passed to @on_long
 */
typedef struct trawl_irq_opts {
	trawl_analysis_opts base;
	int64_t threshold;
	void (*on_long)(const trawl_instance *in, const char *kind, void *ctx);
	void *ctx;
} trawl_irq_opts;

/**
 * trawl_irq_new() - hardirq and softirq handler durations
 * @t:   the trace, before trawl_run()
 * @o:   options, or NULL
 * @err: OUT: why it failed, or NULL
 *
 * irq_handler_entry/exit and softirq_entry/exit are paired per CPU (they do
 * not nest on one CPU). One part, "irq": rows per (kind, irq or vector,
 * CPU), overall over both kinds; an exit without its entry, an entry
 * without its exit (another entry came first) are anomalies.
 *
 * Return: the analysis, or NULL on error. Caller frees with
 * trawl_analysis_free().
 */
TRAWL_API trawl_analysis *trawl_irq_new(trawl_trace *t, const trawl_irq_opts *o,
					trawl_error *err);

/**
 * trawl_irq_long_count() - handlers over the threshold
 * @a: an analysis made by trawl_irq_new()
 *
 * Return: how many handlers ran longer than the threshold (0 for another
 * kind of analysis).
 */
TRAWL_API uint64_t trawl_irq_long_count(const trawl_analysis *a);

/**
 * trawl_workqueue_new() - work item execution time and queueing delay
 * @t:   the trace, before trawl_run()
 * @o:   options, or NULL
 * @err: OUT: why it failed, or NULL
 *
 * Part "execution": workqueue_execute_start to _end of the same work on the
 * same worker, per work function. Part "queue_delay": workqueue_queue_work
 * (or workqueue_activate_work when the queueing was not seen) to
 * execute_start, per function; empty when neither event was traced.
 *
 * Return: the analysis, or NULL on error. Caller frees with
 * trawl_analysis_free().
 */
TRAWL_API trawl_analysis *trawl_workqueue_new(trawl_trace *t,
					      const trawl_analysis_opts *o,
					      trawl_error *err);

/**
 * trawl_slices_new() - Android systrace / atrace slices, async slices and
 * counters
 * @t:   the trace, before trawl_run()
 * @o:   options, or NULL
 * @err: OUT: why it failed, or NULL
 *
 * B/E markers nest per thread (the writing thread's id, as atrace means);
 * part "slices" has rows per (thread, name) with self time and depth.
 * Part "async": S/F pairs matched by (pid, name, cookie). Part "counters":
 * C values per (pid, name) as a summary of the values (the series itself is
 * in `trawl export`). An E without a B, an F without an S, and slices still
 * open at the end are anomalies. An application channel's slice_begin,
 * slice_end and counter events are the same markers (trawl_event_marker()).
 *
 * Return: the analysis, or NULL on error. Caller frees with
 * trawl_analysis_free().
 */
TRAWL_API trawl_analysis *trawl_slices_new(trawl_trace *t,
					   const trawl_analysis_opts *o,
					   trawl_error *err);

/**
 * trawl_power_new() - CPU frequency and idle state residency
 * @t:   the trace, before trawl_run()
 * @o:   options, or NULL (the task filters do not apply: these
 *       are CPUs' states)
 * @err: OUT: why it failed, or NULL
 *
 * cpu_frequency and cpu_idle say what the CPU named by their cpu_id is in
 * from then on, until the CPU's next such event or the end of the trace
 * (or of @o's window); before a CPU's first event nothing is counted.
 *
 * Part "frequency": rows per (CPU, frequency), kind "frequency", id the
 * frequency in kHz as the event gives it, name it in MHz ("1800 MHz").
 * Part "idle": rows per (CPU, state), kind "idle", id the idle state
 * entered, or -1 for "active" (from a leave-idle event, state
 * (u32)-1, to the next entry); name the kernel's name of the state where
 * the source says it (trawl record saves cpuidle's names, see
 * trawl_trace_host()), else "state N". Each row's summary is of the
 * intervals spent so: count the times entered, total the residency; the
 * totals of a CPU's rows in a part add up to the time its state was
 * known. Rows come by CPU, then by id. An idle exit while not idle, an
 * idle entry while idle, and a cpu_id that is no CPU are anomalies.
 *
 * Return: the analysis, or NULL on error. Caller frees with
 * trawl_analysis_free().
 */
TRAWL_API trawl_analysis *
trawl_power_new(trawl_trace *t, const trawl_analysis_opts *o, trawl_error *err);

/**
 * struct trawl_sched_task - where one task's time went
 * @pid:        thread id
 * @comm:       its last name seen (borrowed, valid until the analysis is
 *              freed)
 * @count:      times it was switched in (run intervals begun)
 * @run:        time on a CPU (ns)
 * @runnable:   time waiting for a CPU: woken or preempted, not yet switched
 *              in (ns)
 * @sleep:      time off a CPU and not runnable (S, D, ... until the wakeup;
 *              without wakeup events in the trace, until the switch-in)
 * @switches:   times switched out
 * @preempted:  of those, switched out while runnable (prev_state R / R+)
 * @migrations: moves to another CPU (see trawl_sched_report.migrations_from)
 *
 * Times count only from a task's first known state: a trace that starts
 * mid-way does not tell how long the first state lasted, so it is left out.
 * A task's last state runs to the end of the trace (or of --to).
 */
typedef struct trawl_sched_task {
	int pid;
	const char *comm;
	uint64_t count;
	int64_t run, runnable, sleep;
	uint64_t switches, preempted, migrations;
} trawl_sched_task;

/**
 * struct trawl_sched_cpu - how busy one CPU was
 * @cpu:      the CPU
 * @busy:     time a task other than idle (pid 0) ran on it (ns)
 * @idle:     time idle ran (ns)
 * @switches: sched_switch events on it
 *
 * Counted from the CPU's first sched_switch (before it, which task ran is
 * not known) to the end; busy + idle is that known span.
 */
typedef struct trawl_sched_cpu {
	int cpu;
	int64_t busy, idle;
	uint64_t switches;
} trawl_sched_cpu;

/**
 * struct trawl_sched_report - result of trawl_sched_new()
 * @tasks:           per task, most run time first (idle, pid 0, is not a
 *                   task; the pid and comm filters apply here)
 * @ntasks:          number of them
 * @overall:         the sums over @tasks (@pid -1, @comm "")
 * @cpus:            per CPU that switched, by CPU number
 * @ncpus:           number of them
 * @start:           the first sched event seen in the window (ns)
 * @end:             where open states were closed: the last event of the
 *                   trace, or --to when earlier
 * @migrations_from: "sched_migrate_task" when the trace has that event
 *                   (each one with orig_cpu != dest_cpu counts), else
 *                   "switch_in" (a switch-in on another CPU than the task's
 *                   last one counts)
 * @anomalies:       sequences that do not add up
 * @nanomalies:      number of them
 */
typedef struct trawl_sched_report {
	const trawl_sched_task *tasks;
	size_t ntasks;
	trawl_sched_task overall;
	const trawl_sched_cpu *cpus;
	size_t ncpus;
	int64_t start, end;
	const char *migrations_from;
	const trawl_anomaly *anomalies;
	size_t nanomalies;
} trawl_sched_report;

/**
 * trawl_sched_new() - run, runnable and sleep time per task, busy per CPU
 * @t:   the trace, before trawl_run()
 * @o:   options, or NULL (@o->worst is not used)
 * @err: OUT: why it failed, or NULL
 *
 * Each task is a state machine over sched_switch, the wakeup events
 * (sched_waking, sched_wakeup, sched_wakeup_new) and sched_migrate_task, in
 * the delivered order (equal timestamps go by record order): running from
 * a switch-in to a switch-out; then runnable (prev_state R, R+) or asleep
 * (anything else; dead, X or Z, ends the task until a new task with its
 * pid is woken); asleep until a wakeup,
 * runnable until the switch-in. Nothing is assumed before a task's first
 * event: a task only woken so far may have been running when the trace
 * began, so if it is switched out before being switched in, that time is
 * dropped. Read the result with trawl_sched_result().
 *
 * Return: the analysis, or NULL on error. Caller frees with
 * trawl_analysis_free().
 */
TRAWL_API trawl_analysis *
trawl_sched_new(trawl_trace *t, const trawl_analysis_opts *o, trawl_error *err);

/**
 * trawl_sched_result() - the result of a sched analysis, after trawl_run()
 * @a: an analysis made by trawl_sched_new()
 *
 * Return: the result, or NULL for another kind of analysis or when out of
 * memory.
 * Lifetime: borrowed, valid until trawl_analysis_free().
 */
TRAWL_API const trawl_sched_report *trawl_sched_result(trawl_analysis *a);

/**
 * enum trawl_task_state_kind - a task's state in trawl_task_state.state:
 * the viewer's names and numbers (docs/view-api.md)
 */
enum trawl_task_state_kind {
	TRAWL_TASK_RUNNING = 1,
	TRAWL_TASK_RUNNABLE = 2, /* woken or preempted, waiting for a CPU */
	TRAWL_TASK_SLEEPING = 3, /* switched out as S, I, T ... */
	TRAWL_TASK_UNINTERRUPTIBLE = 4, /* switched out as D */
};

/**
 * struct trawl_task_state - one interval a task spent in one state
 * @pid:   the task (thread id)
 * @cpu:   running: the CPU it ran on; runnable and asleep: the CPU it last
 *         ran on (-1 when not seen running yet)
 * @state: enum trawl_task_state_kind
 * @start: when the state began (ns)
 * @end:   when it ended (ns; the end of the trace or of the window for the
 *         last state of a task)
 * @comm:  the task's name at @end (borrowed, valid during the callback)
 */
typedef struct trawl_task_state {
	int pid;
	int cpu;
	int state;
	int64_t start, end;
	const char *comm;
} trawl_task_state;

/**
 * trawl_sched_on_state() - be told every state interval the sched analysis
 * counts
 * @a:   an analysis made by trawl_sched_new(), before trawl_run()
 * @fn:  called for each interval as it ends (so in order of end, not of
 *       start), from the thread running trawl_run(); the intervals still
 *       open at the end come when the result is first read
 * @ctx: passed to @fn
 *
 * The intervals are the ones the report's run, runnable and sleep times add
 * up, by the same rule: per task and state, their durations sum to those
 * times. The pid and pids filters apply; the comm filter does not (a task may
 * be renamed: @comm says the name each interval had).
 *
 * Return: 0, or -TRAWL_EMISUSE for another kind of analysis.
 */
TRAWL_API int trawl_sched_on_state(trawl_analysis *a,
				   void (*fn)(const trawl_task_state *st,
					      void *ctx),
				   void *ctx);

/**
 * trawl_analysis_on_instance() - be told every instance an analysis measures
 * @a:   the analysis (latency, irq, workqueue, slices), before trawl_run()
 * @fn:  called for each instance as it is measured (in order of end), with
 *       the name of the result part it belongs to ("wakeup", "irq",
 *       "execution", "slices" ...), from the thread running trawl_run(); a
 *       slice still open at the end is not an instance
 * @ctx: passed to @fn
 *
 * Every instance the rows' summaries count, not only the worst ones kept:
 * the whole distribution.
 *
 * Return: 0, or -TRAWL_EMISUSE for a sched analysis (it measures states:
 * see trawl_sched_on_state()).
 */
TRAWL_API int trawl_analysis_on_instance(trawl_analysis *a,
					 void (*fn)(const trawl_instance *in,
						    const char *part,
						    void *ctx),
					 void *ctx);

/**
 * trawl_analysis_result() - one part of the result, after trawl_run()
 * @a:    the analysis
 * @part: 0, 1, ... (see each analysis for its parts)
 *
 * The first call finishes the analysis (percentiles, sorting); it must come
 * after trawl_run().
 *
 * Return: the part, or NULL past the last part or when out of memory.
 * Lifetime: borrowed, valid until trawl_analysis_free().
 */
TRAWL_API const trawl_result *trawl_analysis_result(trawl_analysis *a,
						    unsigned part);

/**
 * trawl_analysis_free() - free an analysis
 * @a: the analysis, or NULL (a no-op)
 *
 * It must be freed before its trace is closed.
 */
TRAWL_API void trawl_analysis_free(trawl_analysis *a);

#endif
