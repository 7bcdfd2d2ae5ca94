/* SPDX-License-Identifier: MIT */
/*
 * The event model: every event, from any source, has the same header (time,
 * cpu, pid, tgid, comm, type, flags, seq). The header is cheap; an event's
 * fields are decoded only when asked for (see field.h).
 */
#ifndef TRAWL_EVENT_H
#define TRAWL_EVENT_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"

typedef struct trawl_event trawl_event;
typedef struct trawl_trace trawl_trace;

/* Bits of trawl_event_flags(), from the kernel's irq-info column. */
enum trawl_event_flag {
	TRAWL_FLAG_IRQS_OFF = 1u << 0,	   /* 'd' (or 'D'): irqs disabled */
	TRAWL_FLAG_BH_OFF = 1u << 1,	   /* 'b' (or 'D'): bottom halves off */
	TRAWL_FLAG_NEED_RESCHED = 1u << 2, /* 'N' or 'n' */
	TRAWL_FLAG_PREEMPT_RESCHED = 1u << 3, /* 'N' or 'p' */
	TRAWL_FLAG_HARDIRQ = 1u << 4,	      /* 'h' or 'H' */
	TRAWL_FLAG_SOFTIRQ = 1u << 5,	      /* 's' or 'H' */
	TRAWL_FLAG_NMI = 1u << 6,	      /* 'Z' */
	TRAWL_FLAG_KNOWN = 1u << 7, /* the source had a flags column */
};

/**
 * trawl_event_time() - timestamp of the event
 * @ev: the event
 *
 * Return: nanoseconds in the trace clock, full source precision.
 */
TRAWL_API int64_t trawl_event_time(const trawl_event *ev);

/**
 * trawl_event_seq() - position of the event in its source
 * @ev: the event
 *
 * Events are delivered by time; equal times keep this order. Sorting by
 * (time, seq) reproduces the delivered order.
 *
 * Return: 0-based record number (every event line counts, bad lines do not).
 */
TRAWL_API uint64_t trawl_event_seq(const trawl_event *ev);

/**
 * trawl_event_line() - source line of a text event
 * @ev: the event
 *
 * Return: 1-based line in the decompressed input, or 0 for binary sources.
 */
TRAWL_API uint64_t trawl_event_line(const trawl_event *ev);

/**
 * trawl_event_cpu() - CPU that recorded the event
 * @ev: the event
 *
 * Return: the CPU number, or -1 when the source does not say.
 */
TRAWL_API int trawl_event_cpu(const trawl_event *ev);

/**
 * trawl_event_pid() - thread id of the current task
 * @ev: the event
 *
 * Return: the pid, 0 for the idle task.
 */
TRAWL_API int trawl_event_pid(const trawl_event *ev);

/**
 * trawl_event_tgid() - process id of the current task
 * @ev: the event
 *
 * Return: the tgid, or -1 when unknown (no record-tgid column, or "-------").
 */
TRAWL_API int trawl_event_tgid(const trawl_event *ev);

/**
 * trawl_event_comm() - command name of the current task
 * @ev: the event
 *
 * Return: a NUL-terminated name ("<...>" when the kernel did not know it).
 * Lifetime: borrowed, valid until the callback returns.
 */
TRAWL_API const char *trawl_event_comm(const trawl_event *ev);

/**
 * trawl_event_name() - the event's name, e.g. "sched_switch"
 * @ev: the event
 *
 * Return: a NUL-terminated name.
 * Lifetime: borrowed, valid until trawl_close().
 */
TRAWL_API const char *trawl_event_name(const trawl_event *ev);

/**
 * trawl_event_system() - the event's system, e.g. "sched"
 * @ev: the event
 *
 * Text traces do not name systems; trawl knows the systems of the kernel's
 * events and answers "" for the ones it does not know.
 *
 * Return: a NUL-terminated system name, possibly "".
 * Lifetime: borrowed, valid until trawl_close().
 */
TRAWL_API const char *trawl_event_system(const trawl_event *ev);

/**
 * trawl_event_type_id() - dense number of the event's type in this trace
 * @ev: the event
 *
 * Types are numbered 0, 1, 2... in order of first appearance; use the
 * number to index per-type arrays, and trawl_type_name() to name it.
 *
 * Return: the type number.
 */
TRAWL_API uint32_t trawl_event_type_id(const trawl_event *ev);

/**
 * trawl_event_flags() - the irq-info flags of the event
 * @ev: the event
 *
 * Return: a mask of enum trawl_event_flag; TRAWL_FLAG_KNOWN is clear when the
 * source had no flags column.
 */
TRAWL_API unsigned trawl_event_flags(const trawl_event *ev);

/**
 * trawl_event_preempt_depth() - preemption depth from the irq-info column
 * @ev: the event
 *
 * Return: 0..15, or -1 when the source did not say.
 */
TRAWL_API int trawl_event_preempt_depth(const trawl_event *ev);

/**
 * trawl_event_payload() - the event's undecoded text
 * @ev:  the event
 * @len: OUT: length in bytes (the text is not NUL-terminated)
 *
 * The event's text as the kernel prints it: for text sources the text
 * after "name: " (for an ftrace print event, which the kernel writes as
 * "tracing_mark_write: text", that whole text); for trace.dat, what its
 * print format makes of the record, as the kernel would print it
 * (`trace-cmd report -N` prints the same but for symbol sizes).
 *
 * Return: the text.
 * Lifetime: borrowed, valid until the callback returns.
 */
TRAWL_API const char *trawl_event_payload(const trawl_event *ev, size_t *len);

/**
 * trawl_event_buffer() - the ftrace instance (buffer) the event came from
 * @ev: the event
 *
 * trace.dat files may hold several instances (`trace-cmd record -B NAME`);
 * they are delivered in one time order.
 *
 * Return: the instance name, "" for the top-level buffer and text sources.
 * Lifetime: borrowed, valid until trawl_close().
 */
TRAWL_API const char *trawl_event_buffer(const trawl_event *ev);

/**
 * trawl_event_copy() - keep an event beyond its callback
 * @ev: the event
 *
 * The copy holds its own bytes and decodes fields like the original; it
 * refers to its trace, so it must be freed before trawl_close().
 *
 * Return: the copy, or NULL when out of memory. Caller frees with
 * trawl_event_free().
 */
TRAWL_API trawl_event *trawl_event_copy(const trawl_event *ev);

/**
 * trawl_event_free() - free a copy made by trawl_event_copy()
 * @ev: the copy, or NULL (a no-op)
 */
TRAWL_API void trawl_event_free(trawl_event *ev);

#endif
