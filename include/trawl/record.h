/* SPDX-License-Identifier: MIT */
/*
 * Recording kernel events into a trace.dat file (trace-cmd's format,
 * version 7 with zstd by default, or version 6; readable by `trace-cmd
 * report` and KernelShark). The recorder sets up tracefs and moves
 * ring-buffer pages from per_cpu/cpuN/trace_pipe_raw with splice, one
 * thread per CPU. Version 7 is written as it comes: formats first, then
 * each CPU's pages compressed in self-contained batches about once a second,
 * so a recorder killed at any moment leaves a file that reads up to its last
 * batch; at the stop the file is rewritten in trace-cmd's own layout.
 * Version 6 waits in per-CPU temporary files and is assembled at the stop.
 * Every tracefs setting it changes is put back when it stops, also after
 * errors.
 *
 *	trawl_record_event ev[] = {{"sched:*", NULL, 0},
 *				   {"irq:*", NULL, TRAWL_RECORD_EVENT_STACK}};
 *	trawl_record_opts o = {.events = ev, .nevents = 2, .output = "x.dat"};
 *	trawl_record *r = trawl_record_start(&o, &err);
 *	... run the workload ...
 *	trawl_record_stop(r, &err);
 *	trawl_record_free(r);
 *
 * The caller needs root (CAP_SYS_ADMIN for tracefs). Nothing here installs
 * signal handlers or runs commands: that is the program's business.
 */
#ifndef TRAWL_RECORD_H
#define TRAWL_RECORD_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"

/* Bits of trawl_record_event.flags */
enum trawl_record_event_flag {
	/*
	 * The kernel's stack after each event of the selection: an
	 * ftrace:kernel_stack record right after the event's, on its CPU
	 * (ftrace's stacktrace trigger, "stacktrace if FILTER" with the
	 * event's filter, so that no stack follows an event the filter
	 * dropped). Removed with the other settings at the stop. An event
	 * in several selections gets it when one of them asks.
	 */
	TRAWL_RECORD_EVENT_STACK = 1u << 0,
};

/**
 * struct trawl_record_event - a selection of events and its kernel filter
 * @name:   "system:event", "system:*" (globs in either part), "system" (a
 *          whole system) or "event" (that event in whichever system has it)
 * @filter: the kernel's event filter (events/.../filter syntax, e.g.
 *          "prev_pid==0") for every event @name selects, or NULL
 * @flags:  enum trawl_record_event_flag bits
 */
typedef struct trawl_record_event {
	const char *name;
	const char *filter;
	unsigned flags;
} trawl_record_event;

/* Bits of trawl_record_opts.flags */
enum trawl_record_flag {
	/*
	 * Flight recorder: the kernel buffer runs in overwrite mode and nothing
	 * is read while recording; trawl_record_snapshot() and
	 * trawl_record_stop() save the last buffer_kb per CPU.
	 */
	TRAWL_RECORD_FLIGHT = 1u << 0,
	/*
	 * Record in the top-level tracefs buffer, as trace-cmd does, instead
	 * of a private instance; its settings are saved and put back.
	 */
	TRAWL_RECORD_TOP_LEVEL = 1u << 1,
	/* Leave /proc/kallsyms out of the file (5 MB or so; without it
	 * function addresses print as numbers). */
	TRAWL_RECORD_NO_KALLSYMS = 1u << 2,
};

/**
 * struct trawl_record_opts - what to record; zero means the default
 * @events:    the selections; at least one
 * @nevents:   how many
 * @output:    the trace.dat to write (default "trace.dat"); created (and
 *             checked for being writable) by trawl_record_start()
 * @flags:     enum trawl_record_flag bits
 * @buffer_kb: kernel buffer per CPU in KiB (default: the current size)
 * @clock:     trace clock ("local", "global", "mono", "boot", ... as listed
 *             in tracefs trace_clock; default: the current one)
 * @trigger:   flight recorder only: "system:event" or "system:event if
 *             FILTER"; when it fires the kernel stops tracing (a traceoff
 *             trigger), so the buffer ends at that event, and
 *             trawl_record_poll() reports @triggered
 * @tmpdir:    version 6 only: where per-CPU data waits until the end
 *             (default: the directory of @output); files are unlinked at
 *             once
 * @file_version: trace.dat version, 7 (the default, as trace-cmd 3.x
 *             writes) or 6. A version 7 file is written while recording
 *             (header and formats first, then each CPU's pages in
 *             self-contained batches, about once a second), so a recorder
 *             that is killed leaves a file that reads up to the last batch
 *             on disk; at the stop it is rewritten in trace-cmd's own
 *             layout. Version 6 is assembled at the stop from temporary
 *             files
 * @compression: version 7: "zstd" (the default, as trace-cmd), "zlib" or
 *             "none"; version 6 is never compressed
 * @realloc:   allocator hook (fault injection), as trawl_open_opts'; NULL
 *             means libc. It is called from the reader threads too, so it
 *             must be thread-safe. libtracefs and libtraceevent allocate on
 *             their own
 * @alloc_ctx: passed to @realloc
 * @apps:      names of application channels (trawl/ring.h) to record
 *             beside the kernel's buffers, each into a buffer of its own
 *             named after it, its events under the system of that name;
 *             attached as soon as the channel appears. Version 7 only; the
 *             clock is "mono" (CLOCK_MONOTONIC, the channels' clock) when
 *             @clock is not given, and must be
 * @napps:     how many
 */
typedef struct trawl_record_opts {
	const trawl_record_event *events;
	size_t nevents;
	const char *output;
	unsigned flags;
	unsigned buffer_kb;
	const char *clock;
	const char *trigger;
	const char *tmpdir;
	unsigned file_version;
	const char *compression;
	void *(*realloc)(void *ctx, void *ptr, size_t size);
	void *alloc_ctx;
	const char *const *apps;
	size_t napps;
} trawl_record_opts;

/**
 * struct trawl_record_cpu - what happened on one CPU
 * @events:  events saved in the file
 * @bytes:   bytes of ring-buffer pages saved
 * @overrun: events the kernel overwrote before they were read (in flight
 *           recorder mode: events older than the buffer holds)
 * @dropped: events the kernel dropped because the buffer was full
 */
typedef struct trawl_record_cpu {
	uint64_t events;
	uint64_t bytes;
	uint64_t overrun;
	uint64_t dropped;
} trawl_record_cpu;

/**
 * struct trawl_record_status - a running recorder, for progress displays
 * @bytes:     page bytes moved to disk so far, all CPUs
 * @events:    events read from the kernel's buffers so far, all CPUs (the
 *             kernel's "read events" count; 0 for the flight recorder,
 *             which reads at the end)
 * @lost:      events lost so far: overrun (overwritten before they were
 *             read) and dropped (the buffer was full), all CPUs
 * @triggered: the flight recorder's trigger event fired (tracing stopped)
 * @failed:    a reader thread failed (disk full, ...); stop and look at the
 *             error trawl_record_stop() returns
 */
typedef struct trawl_record_status {
	uint64_t bytes;
	uint64_t events;
	uint64_t lost;
	int triggered;
	int failed;
} trawl_record_status;

typedef struct trawl_record trawl_record;

/**
 * trawl_record_start() - set up tracefs and start recording
 * @opts: what to record
 * @err:  OUT: why it failed, or NULL
 *
 * Mounts tracefs if needed, creates the output file, enables the events with
 * their filters, sets buffer size and clock, starts one reader thread per CPU
 * (none in flight recorder mode) and turns tracing on. On failure every
 * setting already changed is put back. Errors: -TRAWL_EENV (no tracefs, not
 * root, an event or clock the kernel does not have), -TRAWL_EINVAL (a bad
 * option or filter; a stack trigger the kernel refuses, e.g. at the top
 * level where the event has another tool's stacktrace trigger), -TRAWL_EIO
 * (the output cannot be created).
 *
 * Return: the recorder, or NULL. Lifetime: caller frees with
 * trawl_record_free().
 */
TRAWL_API trawl_record *trawl_record_start(const trawl_record_opts *opts,
					   trawl_error *err);

/**
 * trawl_record_poll() - how a recording is going
 * @r:  the recorder
 * @st: OUT: byte count and flags
 *
 * Cheap enough to call a few times a second; safe while readers run.
 *
 * Return: 0, or -TRAWL_EMISUSE for a NULL argument.
 */
TRAWL_API int trawl_record_poll(trawl_record *r, trawl_record_status *st);

/**
 * trawl_record_snapshot() - flight recorder: save the buffer now, go on
 * @r:    a recorder started with TRAWL_RECORD_FLIGHT
 * @path: the trace.dat to write
 * @err:  OUT: why it failed, or NULL
 *
 * Stops tracing for the moment of the copy, reads what the kernel buffers
 * hold (the last buffer_kb per CPU) into @path, then traces on. The buffers
 * are empty afterwards, so the next save holds only what came after.
 * trawl_record_cpu_stats() then describes this file.
 *
 * Return: 0 or a negative TRAWL_E* code; -TRAWL_EMISUSE when not a flight
 * recorder.
 */
TRAWL_API int trawl_record_snapshot(trawl_record *r, const char *path,
				    trawl_error *err);

/**
 * trawl_record_stop() - stop, flush, write the output, restore tracefs
 * @r:   the recorder
 * @err: OUT: why it failed, or NULL
 *
 * Turns tracing off, moves everything the kernel buffers still hold, writes
 * the output file and puts every tracefs setting back. When the disk fills,
 * the file keeps the pages that fit and stays readable, and -TRAWL_EIO is
 * returned (sys_errno ENOSPC). Settings are restored whatever happens.
 *
 * Return: 0 or a negative TRAWL_E* code; calling it twice is -TRAWL_EMISUSE.
 */
TRAWL_API int trawl_record_stop(trawl_record *r, trawl_error *err);

/**
 * trawl_record_cpu_count() - CPUs the recorder reads
 * @r: the recorder
 *
 * Return: the number of CPUs (tracefs per_cpu directories), or 0 for NULL.
 */
TRAWL_API int trawl_record_cpu_count(const trawl_record *r);

/**
 * trawl_record_cpu_stats() - per-CPU results of the last file written
 * @r:   the recorder, after trawl_record_stop() or trawl_record_snapshot()
 * @cpu: 0 .. trawl_record_cpu_count() - 1
 *
 * Return: the counts, or NULL for a CPU out of range. Lifetime: borrowed,
 * valid until the next save or trawl_record_free().
 */
TRAWL_API const trawl_record_cpu *trawl_record_cpu_stats(const trawl_record *r,
							 int cpu);

/**
 * trawl_record_file_size() - bytes of the last file written
 * @r: the recorder
 *
 * Return: the size, or 0 when nothing was written yet.
 */
TRAWL_API uint64_t trawl_record_file_size(const trawl_record *r);

/**
 * trawl_record_stale_removed() - instances of killed recorders cleaned up
 * @r: the recorder
 *
 * trawl_record_start() removes the tracefs instances (instances/trawl-PID)
 * that recorders left when they were killed (their PID is gone), so they
 * do not hold kernel buffers forever.
 *
 * Return: how many it removed, 0 for NULL.
 */
TRAWL_API int trawl_record_stale_removed(const trawl_record *r);

/**
 * trawl_record_free() - release a recorder
 * @r: the recorder, or NULL (a no-op)
 *
 * A recorder that was not stopped is stopped without writing the output
 * (reader threads joined, tracefs restored, temporary data dropped; a
 * version 7 output keeps what was written while recording, as after a
 * kill).
 *
 * Return: nothing.
 */
TRAWL_API void trawl_record_free(trawl_record *r);

#endif
