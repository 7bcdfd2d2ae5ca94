/* SPDX-License-Identifier: MIT */
/*
 * The trawl script language (docs/script.md): probes on events with
 * predicates, scratch variables, maps and aggregates, printf. A script is
 * compiled against an open trace, before trawl_run(): its event and field
 * names are checked against the formats the trace's events are read by, its
 * field handles resolved once, and its probes subscribed.
 */
#ifndef TRAWL_SCRIPT_H
#define TRAWL_SCRIPT_H

#include <stddef.h>
#include <stdint.h>

#include "event.h"

typedef struct trawl_script trawl_script;

/* Bits of trawl_script_opts.flags */
enum trawl_script_flag {
	/* Write the output as one JSON object at the end: each map by its
	 * name ("@name") as a list of {"key", "value"}, and the text of
	 * printf and print() under "output". */
	TRAWL_SCRIPT_JSON = 1u << 0,
};

/* Where a live script's event probes run (trawl_script_opts.backend). */
enum trawl_script_backend {
	/* in the kernel (eBPF) what can run there, the rest on ftrace's
	 * events in user space; everything in user space when BPF cannot
	 * be used (not root, an old kernel) */
	TRAWL_BACKEND_AUTO = 0,
	/* everything in the kernel, or trawl_script_compile() fails naming
	 * the construct or the verifier's refusal and its script line */
	TRAWL_BACKEND_BPF,
	/* every event copied out of ftrace's buffers and run in user space */
	TRAWL_BACKEND_FTRACE,
};

/**
 * struct trawl_script_opts - how a script runs; zero means the default
 * @flags:    enum trawl_script_flag
 * @map_size: the most keys one map holds (default 4096); an insert beyond
 *            it is dropped and counted as a fault. It bounds the memory.
 * @name:     the script's name in messages (default "<script>")
 * @write:    where the script's output goes (default: nowhere)
 * @write_ctx: passed to @write
 * @params:   the positional parameters $1, $2 ... (borrowed, read while
 *            compiling): one that reads as an integer is an integer,
 *            else a string; a $N beyond @nparams is 0, as in bpftrace
 * @nparams:  how many @params there are ($#)
 * @backend:  enum trawl_script_backend: where a live trace's event probes
 *            run (ignored over a file, where everything is user space).
 *            In the kernel, a map lives in the kernel (per-CPU for
 *            aggregates), at most @map_size keys; interval and END probes
 *            read it there, exactly (clear() and zero() subtract what was
 *            read, they do not clear the kernel's map)
 */
typedef struct trawl_script_opts {
	unsigned flags;
	size_t map_size;
	const char *name;
	void (*write)(void *ctx, const char *buf, size_t len);
	void *write_ctx;
	const char *const *params;
	size_t nparams;
	int backend;
} trawl_script_opts;

/**
 * trawl_script_compile() - compile a script for a trace
 * @t:    an open trace, before trawl_run()
 * @src:  the program text (need not be NUL-terminated)
 * @len:  its length
 * @opts: options, or NULL for the defaults
 * @err:  OUT: why it failed ("NAME:LINE:COLUMN: ..."), or NULL
 *
 * Event names (and globs) are resolved against the formats the trace's
 * events are read by: a trace.dat's own, else the --formats given to
 * trawl_open() and the table bundled in libtrawl. Unknown events and
 * fields are errors naming the nearest known name.
 *
 * Return: the script, or NULL (TRAWL_EPARSE for syntax, TRAWL_ENOENT for
 * an unknown event or field, TRAWL_ETYPE for a type mismatch, TRAWL_ENOMEM).
 * Caller frees with trawl_script_free(), before trawl_close().
 */
TRAWL_API trawl_script *trawl_script_compile(trawl_trace *t, const char *src,
					     size_t len,
					     const trawl_script_opts *opts,
					     trawl_error *err);

/**
 * trawl_script_run() - run BEGIN, the trace, END, and print the maps
 * @s:   the script
 * @err: OUT: why the run failed, or NULL
 *
 * Calls trawl_run() on the script's trace. Runtime faults (division by
 * zero, a full map, a loop over its bound) do not stop the run: the probe
 * execution is abandoned, counted, and reported by trawl_script_fault().
 *
 * Return: 0 (exit() called or the trace read to its end), or a negative
 * TRAWL_E* from the run with err filled.
 */
TRAWL_API int trawl_script_run(trawl_script *s, trawl_error *err);

/**
 * trawl_script_attach() - start a live script's BPF programs now
 * @s:   the script
 * @err: OUT: why they could not be attached, or NULL
 *
 * A live session starts its events before a workload starts; this does
 * the same for the probes that run in the kernel, which otherwise start
 * in trawl_script_run() after BEGIN. BEGIN's map values still reach the
 * kernel's maps when BEGIN has run. A no-op for a script with nothing in
 * the kernel.
 *
 * Return: 0, or a negative TRAWL_E* (TRAWL_EENV: not permitted).
 */
TRAWL_API int trawl_script_attach(trawl_script *s, trawl_error *err);

/**
 * trawl_script_detach() - stop a live script's BPF programs now
 * @s: the script
 *
 * For the thread that stops a live session (a deadline, a signal): the
 * kernel's probes stop counting when the session stops its events, not
 * when the script has read what came before. Safe while
 * trawl_script_run() runs in another thread; a no-op without BPF.
 */
TRAWL_API void trawl_script_detach(trawl_script *s);

/**
 * trawl_script_fault() - the i-th kind of runtime fault seen
 * @s:     the script
 * @i:     0, 1, ... in the order they were first seen
 * @count: OUT: how many times it happened, or NULL
 *
 * Return: the message ("probe sched:sched_switch, 3:14: division by
 * zero"), or NULL past the last. Lifetime: borrowed, valid until
 * trawl_script_free().
 */
TRAWL_API const char *trawl_script_fault(const trawl_script *s, size_t i,
					 uint64_t *count);

/**
 * trawl_script_event() - the i-th event the script subscribed to
 * @s:      the script
 * @i:      0, 1, ... (one per event each probe matches, in probe order)
 * @filter: OUT: the probe's predicate as the kernel's event filter
 *          (events/SYSTEM/EVENT/filter syntax), or NULL when the filter
 *          language cannot say it (or there is no predicate); may be NULL
 *
 * What a live session enables and which predicates it can leave to the
 * kernel: comparisons of fields (and pid, cpu, comm) with constants,
 * joined by && and ||. The script still runs the predicate itself.
 *
 * Return: "system:event", or NULL past the last. Lifetime: borrowed,
 * valid until trawl_script_free().
 */
TRAWL_API const char *trawl_script_event(const trawl_script *s, size_t i,
					 const char **filter);

/**
 * trawl_script_explain() - where each probe runs and why
 * @s: the script
 *
 * One line per probe ("probe 1 (syscalls:sys_enter_getppid, line 1):
 * kernel (BPF)", or user space with the reason), one per BPF program
 * (its tracepoint, instructions and probes), and the kernel memory the
 * maps take.
 *
 * Return: the text. Lifetime: borrowed, valid until trawl_script_free().
 */
TRAWL_API const char *trawl_script_explain(const trawl_script *s);

/**
 * trawl_script_kernel_event() - the i-th event a BPF program is attached to
 * @s: the script
 * @i: 0, 1, ...
 *
 * These are not among trawl_script_event()'s (ftrace does not copy them
 * out); a live session that records the run enables them as well, so that
 * the same script can be run on the recording.
 *
 * Return: "system:event", or NULL past the last. Lifetime: borrowed,
 * valid until trawl_script_free().
 */
TRAWL_API const char *trawl_script_kernel_event(const trawl_script *s,
						size_t i);

/**
 * trawl_script_stack() - whether the script reads the kernel stack at an event
 * @s:     the script
 * @event: "system:event", one of trawl_script_event()'s or
 *         trawl_script_kernel_event()'s
 *
 * A probe off the kernel (on a file, or live on the ftrace path) reads
 * kstack from the stack ftrace writes after the event (its stacktrace
 * trigger: trawl_live_stack(), `trawl record --stack`); a live session
 * asks for it for such an event, and, when it records the run, for the
 * events of the BPF programs that read kstack too, so that the recording
 * has the stacks they saw.
 *
 * Return: 1 when a probe on @event reads kstack, 0 otherwise.
 */
TRAWL_API int trawl_script_stack(const trawl_script *s, const char *event);

/**
 * trawl_script_free() - free a script; NULL is a no-op
 * @s: the script
 */
TRAWL_API void trawl_script_free(trawl_script *s);

#endif
