/* SPDX-License-Identifier: MIT */
/*
 * Opening a trace and running over it: every event of every source is
 * delivered to the callbacks in one order, by time, with equal times kept in
 * record order (seq). Input that is out of order is sorted first, in bounded
 * memory (sorted runs spill to a temporary file), and the number of events
 * that had to move is reported.
 */
#ifndef TRAWL_TRACE_H
#define TRAWL_TRACE_H

#include <stddef.h>
#include <stdint.h>

#include "event.h"

/**
 * typedef trawl_callback - receives one event
 * @ev:  the event, borrowed until the callback returns
 * @ctx: the pointer given to trawl_on()
 *
 * Return: 0 to go on; anything else stops the run, and trawl_run() returns it.
 */
typedef int (*trawl_callback)(const trawl_event *ev, void *ctx);

/* Bits of trawl_open_opts.flags */
enum trawl_open_flag {
	/* The first malformed line is an error instead of being counted. */
	TRAWL_OPEN_STRICT = 1u << 0,
	/* Deliver in source order without checking or sorting by time. */
	TRAWL_OPEN_SOURCE_ORDER = 1u << 1,
	/* Deliver only the events of a time range: trawl_open_opts.from
	 * and .to (see there). */
	TRAWL_OPEN_RANGE = 1u << 2,
};

/*
 * Text traces are entered this far (ns) before a range's start and read
 * this far past its end, for lines a little out of time order.
 */
#define TRAWL_RANGE_TEXT_MARGIN 10000000

/**
 * struct trawl_open_opts - options of trawl_open(); zero means the default
 * @flags:        enum trawl_open_flag bits
 * @sort_memory:  bytes of events held in memory while sorting out-of-order
 *                input before a sorted run is spilled to disk (default 32 MiB)
 * @tmpdir:       where spilled runs go (default $TMPDIR or /tmp); the file is
 *                unlinked at once, so nothing is left behind
 * @threads:      worker threads for parsing (default 2; 1 disables them).
 *                A trace.dat's merge runs ahead on the second thread only
 *                while that is measured to be faster (TRAWL_MERGE_AHEAD=on
 *                or off in the environment fixes it)
 * @window:       0 (default): the order is exact, which for a pipe means
 *                reading it to the end before the first event; N: stream
 *                instead (live trace_pipe), holding at most N events to put
 *                in order; an event later than that is delivered anyway and
 *                counted in trawl_stats.late_events
 * @progress:     called now and then with bytes read so far and the total
 *                (0 when unknown), from the thread that called trawl_run()
 * @progress_ctx: passed to @progress
 * @realloc:      allocator hook (for fault injection); NULL means libc
 * @alloc_ctx:    passed to @realloc
 * @formats:      text traces: where the event formats are (they name the
 *                fields and type their values): an events/ tree (a copy of
 *                a device's tracefs events/, or a tracing directory), or a
 *                file of formats (optionally compressed). NULL: this
 *                machine's tracefs when readable, then the table bundled in
 *                libtrawl; "none": no formats (fields as the text names
 *                them). trace.dat files carry their own.
 * @from:         with TRAWL_OPEN_RANGE: the first time (ns) delivered
 * @to:           with TRAWL_OPEN_RANGE: the last time (ns) delivered
 *                (INT64_MAX: to the end)
 *
 * A range (TRAWL_OPEN_RANGE) makes trawl_run() deliver the events with
 * @from <= time <= @to, in the order a whole run delivers them (equal
 * times in record order), without reading the trace from its start where
 * the format allows it: a trace.dat (v6, v7) is entered by a binary search
 * of each CPU's pages or compressed chunks (only the chunks the search
 * looks at are decompressed, and only their first page); a plain text
 * file by a binary search of its lines' timestamps, reading from
 * TRAWL_RANGE_TEXT_MARGIN before @from to as far after @to (exact unless
 * a line is further out of order than that). Other inputs (compressed
 * text, systrace HTML, pipes) are read from the start, the events outside
 * the range skipped. In a ranged run seq numbers the range's events from
 * 0 as a whole run numbers a trace's: in record order, which is the order
 * of delivery unless the input had to be sorted (ties keep the order a
 * whole run gives them, but the numbers are not a whole run's, and with
 * TRAWL_OPEN_SOURCE_ORDER the range is the events read from where the
 * reading began that fall into it); line numbers and the counters
 * of trawl_stats (lost events, bad lines, bytes) cover what was read,
 * which may begin before @from.
 */
typedef struct trawl_open_opts {
	unsigned flags;
	size_t sort_memory;
	const char *tmpdir;
	int threads;
	size_t window;
	void (*progress)(void *ctx, uint64_t done, uint64_t total);
	void *progress_ctx;
	void *(*realloc)(void *ctx, void *ptr, size_t size);
	void *alloc_ctx;
	const char *formats;
	int64_t from;
	int64_t to;
} trawl_open_opts;

/* Input formats, recognised from content. */
enum trawl_format {
	TRAWL_FORMAT_UNKNOWN = 0,
	TRAWL_FORMAT_FTRACE,	       /* tracefs trace / trace_pipe text */
	TRAWL_FORMAT_SYSTRACE,	       /* Android systrace / atrace text */
	TRAWL_FORMAT_SYSTRACE_HTML,    /* the same, wrapped in systrace HTML */
	TRAWL_FORMAT_TRACE_CMD_REPORT, /* `trace-cmd report` output */
	TRAWL_FORMAT_TRACE_DAT,	       /* trace-cmd trace.dat, v6 or v7 */
	TRAWL_FORMAT_LIVE,	/* a live session (include/trawl/live.h) */
	TRAWL_FORMAT_PERF_DATA, /* perf.data as `perf record` writes it */
	TRAWL_FORMAT_PERF_SCRIPT, /* the text `perf script` prints */
};

/**
 * trawl_open() - open a trace file
 * @path: file name, or "-" for standard input; gzip and zstd are
 *        decompressed while streaming
 * @opts: options, or NULL for the defaults
 * @err:  OUT: why it failed, or NULL
 *
 * The format is recognised from the content, never from the name.
 *
 * Return: the trace, or NULL on error. Caller frees with trawl_close().
 */
TRAWL_API trawl_trace *trawl_open(const char *path, const trawl_open_opts *opts,
				  trawl_error *err);

/**
 * trawl_open_fd() - open a trace from a file descriptor
 * @fd:   a readable descriptor: a file, a pipe or a terminal
 * @name: the name used in messages (e.g. "<stdin>")
 * @opts: options, or NULL for the defaults
 * @err:  OUT: why it failed, or NULL
 *
 * The descriptor is not closed by trawl_close(); it must stay open until then.
 *
 * Return: the trace, or NULL on error. Caller frees with trawl_close().
 */
TRAWL_API trawl_trace *trawl_open_fd(int fd, const char *name,
				     const trawl_open_opts *opts,
				     trawl_error *err);

/**
 * trawl_on() - subscribe a callback to events
 * @t:       the trace, before trawl_run()
 * @pattern: "sched_switch", "sched:sched_switch", "irq:*", "sched_*" or "*"
 *           (shell globs on the system and the name); "tracing_mark_write" is
 *           the same event as "print"
 * @cb:      the callback
 * @ctx:     passed to @cb
 *
 * Callbacks subscribed to the same event run in the order of subscription.
 *
 * Return: 0, -TRAWL_EMISUSE after trawl_run(), -TRAWL_EINVAL on a bad
 * pattern, -TRAWL_ENOMEM.
 */
TRAWL_API int trawl_on(trawl_trace *t, const char *pattern, trawl_callback cb,
		       void *ctx);

/**
 * trawl_run() - deliver every event, in time order, to the callbacks
 * @t:   the trace
 * @err: OUT: why it failed, or NULL
 *
 * A trace runs once.
 *
 * Return: 0 at the end of the input, the nonzero value a callback returned to
 * stop, or a negative TRAWL_E* code (with @err filled).
 */
TRAWL_API int trawl_run(trawl_trace *t, trawl_error *err);

/**
 * trawl_close() - free a trace and everything it owns
 * @t: the trace, or NULL (a no-op)
 */
TRAWL_API void trawl_close(trawl_trace *t);

/**
 * trawl_format() - the input's format
 * @t: the trace
 *
 * Return: an enum trawl_format value.
 */
TRAWL_API int trawl_format(const trawl_trace *t);

/**
 * trawl_format_name() - a short name for a format, e.g. "ftrace"
 * @format: an enum trawl_format value
 *
 * Return: a static string; "unknown" for an unknown value.
 */
TRAWL_API const char *trawl_format_name(int format);

/**
 * trawl_compression() - how the input was compressed
 * @t: the trace
 *
 * Return: "none", "gzip" or "zstd"; for a trace.dat, the compression of
 * its data ("zstd", "zlib"), inside whatever the file itself came in
 * (static storage).
 */
TRAWL_API const char *trawl_compression(const trawl_trace *t);

/**
 * trawl_trace_host() - what the source says of the machine it was
 * recorded on
 * @t: the trace
 * @what: "hostname", "os_release" (the kernel's release, `uname -r`), or a
 *        path under /sys/devices/system/cpu whose text trawl record saves:
 *        "cpuN/cpuidle/stateM/name" (the name of CPU N's idle state M,
 *        which the cpu_idle event gives by number)
 *
 * Known after trawl_open() for a perf.data (its HOSTNAME and OSRELEASE
 * features) and a trace.dat (its UNAME option, as trace-cmd and trawl
 * record write it; the cpuidle names from an option of trawl's own, in
 * files trawl record wrote); text traces do not say it.
 *
 * Return: the string (valid until trawl_close()), or NULL when the source
 * does not say, or for another @what.
 */
TRAWL_API const char *trawl_trace_host(const trawl_trace *t, const char *what);

/**
 * trawl_trace_symbol() - the kernel symbol an address is in
 * @t:      the trace
 * @addr:   a kernel address (a stack frame, a %pS argument, ...)
 * @offset: OUT (may be NULL): @addr less the symbol's address
 * @size:   OUT (may be NULL): the symbol's size, as the kernel's %pS
 *          computes it (up to the next symbol's address)
 *
 * The symbols are the source's: a trace.dat's kallsyms; for a perf.data,
 * this machine's /proc/kallsyms when the file was recorded in this boot
 * (perf writes none); for a live session, the /proc/kallsyms it read at
 * the open, or, opened with %TRAWL_LIVE_NO_KALLSYMS, /proc/kallsyms read
 * at the first call (its texts still print addresses). Text traces have
 * none. The table is read when first needed and looked up by a binary
 * search. Not thread-safe: call it from the thread that runs trawl_run()
 * (its callbacks), before or after the run.
 *
 * Return: the symbol's name (without its module), or NULL when the trace
 * has no symbols or none holds @addr.
 * Lifetime: borrowed, valid until trawl_close().
 */
TRAWL_API const char *trawl_trace_symbol(trawl_trace *t, uint64_t addr,
					 uint64_t *offset, uint64_t *size);

/**
 * trawl_data_bytes() - the size of the trace's data, uncompressed
 * @t: the trace
 *
 * Known after trawl_open() where the format says it without reading the
 * events: a trace.dat's ring-buffer pages, every CPU's of every instance,
 * version 7's compressed chunks at the size they decompress to (so the v6
 * and v7 files of one recording give the same number).
 *
 * Return: bytes, or 0 when not known (text sources).
 */
TRAWL_API uint64_t trawl_data_bytes(const trawl_trace *t);

/* Lines remembered for reporting, per trace, by trawl_bad_line(). */
#define TRAWL_BAD_LINES_KEPT 8

/**
 * struct trawl_stats - what a run saw; valid during and after trawl_run()
 * @events:         events delivered (or that would have been, when a
 *                  callback stopped the run early: those delivered)
 * @bad_lines:      malformed lines skipped; for trace.dat, damaged pages,
 *                  records and sections
 * @bad_line:       the first of them (line numbers, up to TRAWL_BAD_LINES_KEPT;
 *                  for trace.dat, file offsets)
 * @reordered:      events that arrived after an event with a later time and
 *                  so were moved to keep the time order
 * @lost_events:    events the kernel said it lost ("[LOST n EVENTS]")
 * @overwritten:    events overwritten before reading (header of the trace
 *                  file: entries-written minus entries-in-buffer)
 * @first_time:     time of the first delivered event (ns), 0 if none
 * @last_time:      time of the last delivered event (ns), 0 if none
 * @bytes:          bytes of (decompressed) input read
 * @lines:          lines of input read
 * @spilled_runs:   sorted runs written to disk while sorting (0: in memory)
 * @late_events:    with a streaming window (trawl_open_opts.window), events
 *                  that came too late for it and were delivered out of time
 *                  order
 * @types_formatted: text traces: event types whose fields were read with
 *                  their event format (the kernel's field names and typed
 *                  values)
 * @types_generic:  text traces: event types read without one (no format
 *                  known, or one this version cannot compile): fields as
 *                  the text names them
 * @format_misses:  events whose text did not match their format, decoded
 *                  the generic way (counted as their fields are read)
 * @bad_lines_kept: how many of @bad_line hold a place (at most
 *                  TRAWL_BAD_LINES_KEPT); the rest of @bad_lines were counted
 *                  where no place is kept (trace.dat: further damage in a
 *                  CPU's data after its first, at a later offset)
 * @skipped_records: records the source holds that are not events and not
 *                  applied (perf.data: MMAP without callchains to name,
 *                  THREAD_MAP, EXIT, ... and samples of perf's dummy
 *                  event), skipped and counted
 */
typedef struct trawl_stats {
	uint64_t events;
	uint64_t bad_lines;
	uint64_t bad_line[TRAWL_BAD_LINES_KEPT];
	uint64_t reordered;
	uint64_t lost_events;
	uint64_t overwritten;
	int64_t first_time;
	int64_t last_time;
	uint64_t bytes;
	uint64_t lines;
	uint64_t spilled_runs;
	uint64_t late_events;
	uint64_t types_formatted;
	uint64_t types_generic;
	uint64_t format_misses;
	uint64_t bad_lines_kept;
	uint64_t skipped_records;
} trawl_stats;

/**
 * trawl_trace_stats() - counters of the run
 * @t: the trace
 *
 * Return: the counters.
 * Lifetime: borrowed, valid until trawl_close().
 */
TRAWL_API const trawl_stats *trawl_trace_stats(const trawl_trace *t);

/**
 * trawl_type_count() - how many event types the trace has shown so far
 * @t: the trace
 *
 * Return: the number of types; valid ids are 0 .. count-1.
 */
TRAWL_API uint32_t trawl_type_count(const trawl_trace *t);

/**
 * trawl_type_name() - the name of an event type
 * @t:  the trace
 * @id: a type id (trawl_event_type_id())
 *
 * Return: the name, or NULL when @id is out of range.
 * Lifetime: borrowed, valid until trawl_close().
 */
TRAWL_API const char *trawl_type_name(const trawl_trace *t, uint32_t id);

/**
 * trawl_event_known() - whether an event name is one this trace can have
 * @t:       the trace
 * @name:    "sched_switch" or "sched:sched_switch"
 * @nearest: OUT (may be NULL): when it is not, the nearest name that is,
 *           or NULL when none is close (borrowed, valid until trawl_close())
 *
 * Known: a type the trace has shown so far, one of its event formats (a
 * trace.dat's, the --formats or tracefs ones of a text trace), or an event
 * of the kernel's table bundled in trawl (an event not recorded is still
 * a name). Globs ("sched:*") are always known. For "did you mean" when a
 * subscription matched nothing.
 *
 * Return: 1 known, 0 not, %-TRAWL_ENOMEM.
 */
TRAWL_API int trawl_event_known(trawl_trace *t, const char *name,
				const char **nearest);

/**
 * trawl_type_system() - the system of an event type ("" when unknown)
 * @t:  the trace
 * @id: a type id
 *
 * Return: the system, or NULL when @id is out of range.
 * Lifetime: borrowed, valid until trawl_close().
 */
TRAWL_API const char *trawl_type_system(const trawl_trace *t, uint32_t id);

/**
 * trawl_type_events() - events of one type delivered so far
 * @t:  the trace
 * @id: a type id
 *
 * Return: the count (0 for an unknown id).
 */
TRAWL_API uint64_t trawl_type_events(const trawl_trace *t, uint32_t id);

/* How an event type's fields are read (trawl_type_fields()). */
enum trawl_fields_source {
	TRAWL_FIELDS_FORMAT = 0,   /* by its event format: the kernel's
				    * names, typed values */
	TRAWL_FIELDS_GENERIC = 1,  /* no format known: as the text names
				    * them (name=value) */
	TRAWL_FIELDS_FALLBACK = 2, /* a format whose print format trawl does
				    * not compile: its fields, no text scan */
};

/**
 * trawl_type_fields() - how the fields of an event type are read
 * @t:  the trace
 * @id: a type id
 *
 * Looks the type's format up if that was not done yet (text traces).
 *
 * Return: an enum trawl_fields_source, or -1 when @id is out of range.
 */
TRAWL_API int trawl_type_fields(trawl_trace *t, uint32_t id);

/**
 * trawl_cpu_count() - one more than the highest CPU number seen
 * @t: the trace
 *
 * Return: the number of CPU slots for trawl_cpu_events()/trawl_cpu_lost().
 */
TRAWL_API int trawl_cpu_count(const trawl_trace *t);

/**
 * trawl_cpu_events() - events delivered from one CPU
 * @t:   the trace
 * @cpu: the CPU number
 *
 * Return: the count (0 for an unknown CPU).
 */
TRAWL_API uint64_t trawl_cpu_events(const trawl_trace *t, int cpu);

/**
 * trawl_cpu_lost() - events the kernel reported lost on one CPU
 * @t:   the trace
 * @cpu: the CPU number
 *
 * Return: the count (0 for an unknown CPU).
 */
TRAWL_API uint64_t trawl_cpu_lost(const trawl_trace *t, int cpu);

/**
 * trawl_lost_places() - how many (buffer, CPU) pairs lost events
 * @t: the trace
 *
 * A trace.dat holds a buffer per tracefs instance, and `trawl record
 * --app` an application channel's as one more (named as the channel):
 * their lost events, counted together per CPU by trawl_cpu_lost(), are
 * told apart here. Other sources have none.
 *
 * Return: the number of places, for trawl_lost_place().
 */
TRAWL_API size_t trawl_lost_places(const trawl_trace *t);

/**
 * trawl_lost_place() - one buffer's lost events on one CPU
 * @t:      the trace
 * @i:      0 <= i < trawl_lost_places(), in the order first met
 * @buffer: OUT: the buffer's name ("" for the top-level one)
 * @cpu:    OUT: the CPU
 * @n:      OUT: events lost there
 *
 * Return: 0, or -TRAWL_EMISUSE for a bad @i or a NULL argument.
 * Lifetime: *buffer is borrowed, valid until trawl_close().
 */
TRAWL_API int trawl_lost_place(const trawl_trace *t, size_t i,
			       const char **buffer, int *cpu, uint64_t *n);

#endif
