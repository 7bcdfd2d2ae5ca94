/* SPDX-License-Identifier: MIT */
/*
 * A live session: the kernel's events as they happen, read as a trace. The
 * recorder (record.h) sets up a private tracefs instance and reads its
 * per-CPU ring buffers; here the pages go to a trace (trawl_live_trace())
 * that delivers their events to callbacks, scripts and analyses while the
 * session runs, in one time order across CPUs, and optionally also to a
 * trace.dat. The events are decoded by the trace.dat reader, so a session
 * and the file it recorded give the same events, fields and values.
 *
 *	trawl_live *lv = trawl_live_open(NULL, &err);
 *	trawl_trace *t = trawl_live_trace(lv);
 *	trawl_on(t, "sched:sched_switch", on_switch, &state);
 *	trawl_live_enable(lv, "sched:sched_switch", "prev_pid != 0", &err);
 *	trawl_live_stack(lv, "sched:sched_switch", NULL, &err);  optional
 *	trawl_live_start(lv, &err);
 *	... another thread or a signal handler: trawl_live_stop(lv) ...
 *	trawl_run(t, &err);            returns once the session stopped
 *	trawl_live_finish(lv, &err);
 *	trawl_live_free(lv);
 *
 * Time order: each CPU's events are in order; an event is delivered once
 * every other CPU's buffer has been seen empty up to its time (less
 * @window), so the order is exact except for an event the kernel finished
 * writing more than @window after it took its timestamp (counted in
 * trawl_stats.late_events, delivered at once). The trace clock is the
 * monotonic clock ("mono", CLOCK_MONOTONIC). While nothing happens, the
 * trace's time still moves on (interval probes of scripts fire).
 *
 * Memory: at most @queue_kb per CPU of pages wait between the readers and
 * the run; when the run falls behind, the kernel's buffer fills and its
 * events are lost (counted, never unbounded memory). The caller needs
 * root. Every tracefs setting is put back by trawl_live_finish() or
 * trawl_live_free(), also after errors.
 */
#ifndef TRAWL_LIVE_H
#define TRAWL_LIVE_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "trace.h"

typedef struct trawl_live trawl_live;

/* Bits of trawl_live_opts.flags */
enum trawl_live_flag {
	/* Leave /proc/kallsyms out (of the trace and of @record): function
	 * addresses then print as numbers; saves 5 MB and 40 ms or so.
	 * trawl_trace_symbol() reads them at its first call. */
	TRAWL_LIVE_NO_KALLSYMS = 1u << 0,
};

/**
 * struct trawl_live_opts - a live session; zero means the default
 * @flags:     enum trawl_live_flag bits
 * @buffer_kb: kernel buffer per CPU in KiB (default: what a new tracefs
 *             instance gets)
 * @record:    also write the pages read into this trace.dat (version 7,
 *             zstd), as trawl_record_start() does: what a script then
 *             reads from the file is what it saw live. NULL: no file
 * @window_ns: how long after an event's timestamp the kernel may still be
 *             writing it (default 10 ms): events wait that long for the
 *             other CPUs
 * @queue_kb:  pages held per CPU between the readers and the run (default
 *             4096)
 * @realloc:   allocator hook, as trawl_open_opts'; called from the reader
 *             threads too, so it must be thread-safe. NULL means libc
 * @alloc_ctx: passed to @realloc
 */
typedef struct trawl_live_opts {
	unsigned flags;
	unsigned buffer_kb;
	const char *record;
	int64_t window_ns;
	size_t queue_kb;
	void *(*realloc)(void *ctx, void *ptr, size_t size);
	void *alloc_ctx;
} trawl_live_opts;

/**
 * struct trawl_live_totals - what a finished session saw
 * @bytes:           bytes of ring-buffer pages read, all CPUs
 * @overrun:         events the kernel overwrote before they were read
 * @dropped:         events the kernel dropped (its buffer was full)
 * @record_size:     bytes of the @record file, 0 without one
 * @record_events:   events in it
 * @filters:         events enabled with a filter in the kernel
 * @filters_refused: filters the kernel refused; those events came unfiltered
 *                   (or, trawl_live_stack()'s, their stacks after every
 *                   event kept)
 * @duration:        ns from trawl_live_start() to the stop
 * @unprocessed:     events read but not handed to the run, after
 *                   trawl_live_cut()
 * @stale_removed:   tracefs instances of killed recorders (their PID gone)
 *                   that trawl_live_start() removed
 */
typedef struct trawl_live_totals {
	uint64_t bytes;
	uint64_t overrun;
	uint64_t dropped;
	uint64_t record_size;
	uint64_t record_events;
	unsigned filters;
	unsigned filters_refused;
	int64_t duration;
	uint64_t unprocessed;
	int stale_removed;
} trawl_live_totals;

/**
 * trawl_live_open() - prepare a live session
 * @opts: options, or NULL for the defaults
 * @err:  OUT: why it failed, or NULL
 *
 * Finds (or mounts) tracefs and reads the formats of every kernel event,
 * for the trace; changes nothing in tracefs yet. Errors: -TRAWL_EENV (no
 * tracefs, not root).
 *
 * Return: the session, or NULL. Lifetime: caller frees with
 * trawl_live_free().
 */
TRAWL_API trawl_live *trawl_live_open(const trawl_live_opts *opts,
				      trawl_error *err);

/**
 * trawl_live_trace() - the trace whose events are the session's
 * @lv: the session
 *
 * Subscribe, look up fields and compile scripts on it before
 * trawl_live_start(); trawl_run() on it delivers the events as they come
 * and returns when the session has stopped and everything read was
 * delivered (or a callback stopped it). trawl_format() says
 * TRAWL_FORMAT_LIVE.
 *
 * Return: the trace, or NULL for NULL. Lifetime: borrowed, valid until
 * trawl_live_free(); do not trawl_close() it.
 */
TRAWL_API trawl_trace *trawl_live_trace(trawl_live *lv);

/**
 * trawl_live_enable() - trace an event, with a kernel filter
 * @lv:     the session, before trawl_live_start()
 * @event:  "system:event" (one event; the names of the trace's formats)
 * @filter: the kernel's event filter (events/.../filter syntax), or NULL
 *          for every event. Enabling an event again widens its filter:
 *          the two are joined with ||, and NULL takes all
 * @err:    OUT: why it failed, or NULL
 *
 * Events of the "ftrace" system (print, function, ...) cannot be enabled
 * in an instance: they are refused with 1, nothing done.
 *
 * Return: 0, 1 for an ftrace event, -TRAWL_EINVAL for a bad name,
 * -TRAWL_EMISUSE after the start, -TRAWL_ENOMEM.
 */
TRAWL_API int trawl_live_enable(trawl_live *lv, const char *event,
				const char *filter, trawl_error *err);

/**
 * trawl_live_stack() - the kernel's stack after each record of an event
 * @lv:     the session, before trawl_live_start()
 * @event:  "system:event", also enabled with trawl_live_enable() (checked
 *          at the start)
 * @filter: stacks only after the events that also match this kernel
 *          filter, or NULL for after every event recorded. Asking again
 *          widens it as trawl_live_enable() does
 * @err:    OUT: why it failed, or NULL
 *
 * Each record of @event that the kernel keeps is followed, on its CPU, by
 * an ftrace:kernel_stack record (trawl_event_name() "kernel_stack") with
 * the kernel's stack at the event: ftrace's stacktrace trigger, in the
 * session's instance. The trigger's filter is the event's own (its
 * filters from trawl_live_enable(), joined with ||) and @filter, joined
 * with &&, since the kernel runs a trigger on the events its filter drops
 * too. A filter the kernel refuses is left out: the event's (counted in
 * trawl_live_totals.filters_refused already) or @filter (counted there
 * too; its stacks then follow every event kept). The trigger is removed
 * with the other settings. ftrace's own events are refused with 1,
 * nothing done.
 *
 * Return: 0, 1 for an ftrace event, -TRAWL_EINVAL for a bad name,
 * -TRAWL_EMISUSE after the start, -TRAWL_ENOMEM; trawl_live_start() fails
 * with -TRAWL_EMISUSE when @event is not enabled.
 */
TRAWL_API int trawl_live_stack(trawl_live *lv, const char *event,
			       const char *filter, trawl_error *err);

/**
 * trawl_live_start() - set up tracefs and start reading
 * @lv:  the session
 * @err: OUT: why it failed, or NULL
 *
 * A private tracefs instance with the enabled events and their filters
 * (a filter the kernel refuses is left out and counted in
 * trawl_live_totals.filters_refused), the mono clock, @buffer_kb, one
 * reader thread per CPU, then tracing on. On failure every setting changed
 * is put back. Errors as trawl_record_start().
 *
 * Return: 0 or a negative TRAWL_E* code.
 */
TRAWL_API int trawl_live_start(trawl_live *lv, trawl_error *err);

/**
 * trawl_live_stop() - end the session soon
 * @lv: the session
 *
 * Safe from a signal handler and from any thread. The run turns tracing
 * off, delivers what the buffers still hold, and trawl_run() returns.
 *
 * Return: nothing.
 */
TRAWL_API void trawl_live_stop(trawl_live *lv);

/**
 * trawl_live_cut() - stop now, handing out no more of what is queued
 * @lv: the session (NULL: nothing)
 *
 * trawl_live_stop(), and the run then ends at its next event: the events
 * still queued and those the readers bring after the stop are passed
 * without being handed out, counted in trawl_live_totals.unprocessed. For
 * a deadline or a signal, when the run is slower than the events (after
 * trawl_live_stop() it would deliver all that waits first). Signal-safe.
 */
TRAWL_API void trawl_live_cut(trawl_live *lv);

/**
 * trawl_live_finish() - stop reading, write @record, restore tracefs
 * @lv:  the session, after trawl_run() returned (or without a run)
 * @err: OUT: why it failed, or NULL
 *
 * Pages still coming are no longer delivered (but go into @record).
 * Settings are restored whatever happens.
 *
 * Return: 0 or a negative TRAWL_E* code (a reader that failed, a record
 * file that could not be written); -TRAWL_EMISUSE when not started or
 * finished already.
 */
TRAWL_API int trawl_live_finish(trawl_live *lv, trawl_error *err);

/**
 * trawl_live_stats() - what the session saw
 * @lv: the session, after trawl_live_finish() (@stale_removed is known
 *      from trawl_live_start() on)
 *
 * Return: the totals, or NULL for NULL. Lifetime: borrowed, valid until
 * trawl_live_free().
 */
TRAWL_API const trawl_live_totals *trawl_live_stats(const trawl_live *lv);

/**
 * trawl_live_free() - release a session; NULL is a no-op
 * @lv: the session
 *
 * A session not finished is finished first (its errors are dropped). The
 * trace goes too: free scripts compiled on it before.
 *
 * Return: nothing.
 */
TRAWL_API void trawl_live_free(trawl_live *lv);

#endif
