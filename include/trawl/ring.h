/* SPDX-License-Identifier: MIT */
/*
 * Application events: a channel of per-CPU ring buffers in shared memory
 * that an application writes its own events into (slices, counters,
 * instants, or types of its own with typed fields) and that another process
 * (trawl record) reads beside the kernel's buffers, on the same clock
 * (CLOCK_MONOTONIC, the clock of `trawl record --clock mono`).
 *
 *	producer                                 reader (another process)
 *	trawl_ring *r = trawl_ring_create("demo", NULL, &err);
 *	trawl_ring_slice_begin(r, "frame");      trawl_ring *r =
 *trawl_ring_attach("demo", &err);
 *	...                                      trawl_ring_read(r, cpu, 0,
 *on_event, ctx); trawl_ring_slice_end(r, "frame");        trawl_ring_close(r);
 *	trawl_ring_close(r);
 *
 * The writer takes no lock, makes no system call, starts no thread and
 * never waits: an event is at most TRAWL_RING_MAX_TRIES attempts to reserve
 * its place, each one compare-and-swap; past that, or when the buffer is
 * full (discard mode) or its oldest sub-buffer is still being written
 * (overwrite mode), the event is dropped and counted. A child process
 * after fork() writes nothing into its parent's channel (the enable flags
 * live in memory wiped on fork); it may create a channel of its own. A
 * producer killed in the middle of an event leaves that event "torn":
 * counted by the reader, never delivered, and it does not hold up the
 * events after it.
 *
 * One producer process and one reader process per channel. Usable from
 * C++; links statically with libtrawl.a.
 */
#ifndef TRAWL_RING_H
#define TRAWL_RING_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct trawl_ring trawl_ring;
typedef struct trawl_ring_type trawl_ring_type;

/* Attempts to reserve space for one event before it is dropped (counted in
 * trawl_ring_stats.lost_retry). Each failed attempt means another writer on
 * the same CPU buffer reserved in between. */
#define TRAWL_RING_MAX_TRIES 8

/* Types a channel may declare, counting the four built-in ones. */
#define TRAWL_RING_MAX_TYPES 255
/* Fields per type, and the longest type or field name. */
#define TRAWL_RING_MAX_FIELDS 32
#define TRAWL_RING_NAME_MAX   63

enum trawl_ring_mode {
	TRAWL_RING_DISCARD = 0,	  /* full: new events are dropped */
	TRAWL_RING_OVERWRITE = 1, /* full: the oldest sub-buffer is reused */
};

/* Bits of trawl_ring_opts.flags */
enum trawl_ring_flag {
	/* Anonymous memory (memfd) instead of /dev/shm/trawl-ring.NAME: the
	 * reader attaches with trawl_ring_attach_fd() or
	 * trawl_ring_attach("/proc/PID/fd/N"). */
	TRAWL_RING_MEMFD = 1u << 0,
	/* Replace a channel of the same name left by a process that died. */
	TRAWL_RING_REPLACE = 1u << 1,
};

/**
 * struct trawl_ring_opts - a new channel; zero means the default
 * @subbuf_size: bytes per sub-buffer, a power of two from 4096 to 1 MiB
 *               (default 16384)
 * @subbufs:     sub-buffers per CPU, a power of two from 2 to 256
 *               (default 8)
 * @mode:        enum trawl_ring_mode (default TRAWL_RING_DISCARD)
 * @flags:       enum trawl_ring_flag bits
 * @ncpus:       per-CPU buffers (default: the CPUs the system can have);
 *               a writer on CPU n uses buffer n % @ncpus
 *
 * Memory: @ncpus * (@subbufs + 1) * @subbuf_size bytes plus one page per
 * CPU and a header, fixed at creation.
 */
typedef struct trawl_ring_opts {
	uint32_t subbuf_size;
	uint32_t subbufs;
	int mode;
	unsigned flags;
	int ncpus;
} trawl_ring_opts;

/* Field kinds. A type's payload is laid out like a C struct of its fields
 * in order, each aligned to its size; a STR field is a 32-bit slot there
 * (the kernel's __data_loc: offset << 16 | length) whose text follows the
 * fixed part. */
enum trawl_ring_kind {
	TRAWL_RING_U8 = 1,
	TRAWL_RING_U16,
	TRAWL_RING_U32,
	TRAWL_RING_U64,
	TRAWL_RING_S8,
	TRAWL_RING_S16,
	TRAWL_RING_S32,
	TRAWL_RING_S64,
	TRAWL_RING_STR, /* at most one per type */
};

/**
 * struct trawl_ring_field - one field of a type
 * @name: field name, [A-Za-z_][A-Za-z0-9_]*, at most TRAWL_RING_NAME_MAX
 * @kind: enum trawl_ring_kind
 */
typedef struct trawl_ring_field {
	const char *name;
	int kind;
} trawl_ring_field;

/* Ids of the built-in types every channel has. */
enum trawl_ring_builtin {
	TRAWL_RING_SLICE_BEGIN = 1, /* slice_begin: __data_loc char[] name */
	TRAWL_RING_SLICE_END,	    /* slice_end: __data_loc char[] name */
	TRAWL_RING_COUNTER,	    /* counter: s64 value; __data_loc name */
	TRAWL_RING_INSTANT,	    /* instant: __data_loc char[] name */
	TRAWL_RING_FIRST_USER_TYPE,
};

/**
 * trawl_ring_create() - create a channel and become its producer
 * @name: channel name, [A-Za-z_][A-Za-z0-9_]*, at most TRAWL_RING_NAME_MAX;
 *        also the system name its events get in a trace ("demo:frame")
 * @opts: geometry and mode, or NULL for the defaults
 * @err:  optional error details
 *
 * The channel starts enabled. Unless TRAWL_RING_MEMFD is set it lives in
 * /dev/shm/trawl-ring.@name until trawl_ring_close() of its producer (a
 * producer that dies leaves it for the reader; TRAWL_RING_REPLACE takes
 * it over).
 *
 * Return: the channel, or NULL (TRAWL_EINVAL for bad options or name,
 * TRAWL_EIO with sys_errno, TRAWL_ENOMEM). Lifetime: caller frees with
 * trawl_ring_close().
 */
TRAWL_API trawl_ring *trawl_ring_create(const char *name,
					const trawl_ring_opts *opts,
					trawl_error *err);

/**
 * trawl_ring_attach() - open an existing channel as its reader
 * @name: a channel name (/dev/shm/trawl-ring.@name), or a path with a '/'
 *        (a memfd's /proc/PID/fd/N)
 * @err:  optional error details
 *
 * The memory is checked before use and read defensively afterwards: a
 * damaged or hostile channel gives TRAWL_EFORMAT here, or events counted
 * as damaged by trawl_ring_read(), never a crash.
 *
 * Return: the channel, or NULL (TRAWL_EIO, TRAWL_EFORMAT, TRAWL_ENOMEM).
 * Lifetime: caller frees with trawl_ring_close().
 */
TRAWL_API trawl_ring *trawl_ring_attach(const char *name, trawl_error *err);

/**
 * trawl_ring_attach_fd() - open a channel as its reader from a descriptor
 * @fd:  a descriptor of the channel's memory (duplicated; the caller keeps
 *       @fd)
 * @err: optional error details
 *
 * Return: as trawl_ring_attach(). Lifetime: caller frees with
 * trawl_ring_close().
 */
TRAWL_API trawl_ring *trawl_ring_attach_fd(int fd, trawl_error *err);

/**
 * trawl_ring_close() - unmap a channel; the producer also removes its name
 * @r: a channel, or NULL
 *
 * Return: nothing. Lifetime: @r and its types are invalid afterwards.
 */
TRAWL_API void trawl_ring_close(trawl_ring *r);

/**
 * trawl_ring_fd() - the descriptor of a channel's memory
 * @r: a channel
 *
 * Return: the descriptor (owned by @r), or -TRAWL_EMISUSE for NULL.
 * Lifetime: open until trawl_ring_close().
 */
TRAWL_API int trawl_ring_fd(const trawl_ring *r);

/**
 * trawl_ring_enable() - switch the whole channel on or off (producer only)
 * @r:  a channel created by this process
 * @on: nonzero to write events, zero to drop them uncounted
 *
 * Return: 0, or -TRAWL_EMISUSE on a reader's handle.
 * Lifetime: not applicable.
 */
TRAWL_API int trawl_ring_enable(trawl_ring *r, int on);

/**
 * trawl_ring_type_new() - declare an event type (producer only)
 * @r:       a channel created by this process
 * @name:    event name, as a field name; unique in the channel
 * @fields:  its fields, in payload order
 * @nfields: how many, at most TRAWL_RING_MAX_FIELDS
 * @err:     optional error details
 *
 * Declaring the same name again with the same fields returns the same
 * type. The reader sees the type (trawl_ring_type_format()) as soon as
 * this returns.
 *
 * Return: the type, or NULL (TRAWL_EINVAL, TRAWL_ELIMIT when the channel
 * has TRAWL_RING_MAX_TYPES types, TRAWL_EMISUSE on a reader's handle).
 * Lifetime: borrowed from @r, valid until trawl_ring_close().
 */
TRAWL_API trawl_ring_type *trawl_ring_type_new(trawl_ring *r, const char *name,
					       const trawl_ring_field *fields,
					       size_t nfields,
					       trawl_error *err);

/**
 * trawl_ring_type_enable() - switch one type on or off (producer only)
 * @t:  a type
 * @on: nonzero to write its events
 *
 * Return: 0, or -TRAWL_EMISUSE for NULL.
 * Lifetime: not applicable.
 */
TRAWL_API int trawl_ring_type_enable(trawl_ring_type *t, int on);

/**
 * trawl_ring_type_builtin() - one of the built-in types of a channel
 * @r:  a channel created by this process
 * @id: enum trawl_ring_builtin
 *
 * Return: the type, or NULL for another id or a reader's handle.
 * Lifetime: borrowed from @r, valid until trawl_ring_close().
 */
TRAWL_API trawl_ring_type *trawl_ring_type_builtin(trawl_ring *r, int id);

/*
 * What trawl_ring_on() reads: the first member of every trawl_ring_type.
 * It points at a byte that is nonzero while the type and its channel are
 * enabled in this process (zero in a child after fork).
 */
struct trawl_ring_gate {
	const volatile uint8_t *on;
};

/* One predicted branch: is @t (a trawl_ring_type *) writing? Use it to
 * skip building a payload when nothing would be written. */
#define trawl_ring_on(t)                                                       \
	__builtin_expect(*((const struct trawl_ring_gate *)(t))->on != 0, 0)

/**
 * trawl_ring_emit() - write one event
 * @t:     a type
 * @fixed: the payload's fixed part, laid out as enum trawl_ring_kind says
 * @len:   its size in bytes (the type's fixed size)
 * @str:   the text of the type's STR field, or NULL (empty); ignored for a
 *         type without one
 *
 * Safe from any thread and from signal handlers; never blocks. The event
 * gets the time, the CPU it was written on and the calling thread's id.
 *
 * Return: 0 when written; 1 when dropped (disabled type or channel:
 * uncounted; full, busy or out of attempts: counted);
 * -TRAWL_EINVAL when @len is not the type's fixed size or the event would
 * not fit in a sub-buffer.
 * Lifetime: @fixed and @str are copied.
 */
TRAWL_API int trawl_ring_emit(const trawl_ring_type *t, const void *fixed,
			      size_t len, const char *str);

/**
 * trawl_ring_slice_begin() - a slice named @name starts on this thread
 * @r:    a channel created by this process
 * @name: the slice's name
 *
 * Return: as trawl_ring_emit(). Lifetime: @name is copied.
 */
TRAWL_API int trawl_ring_slice_begin(trawl_ring *r, const char *name);
/**
 * trawl_ring_slice_end() - the slice named @name ends on this thread
 * @r:    a channel created by this process
 * @name: the slice's name, as its trawl_ring_slice_begin() gave it
 *
 * Return: as trawl_ring_emit(). Lifetime: @name is copied.
 */
TRAWL_API int trawl_ring_slice_end(trawl_ring *r, const char *name);

/**
 * trawl_ring_instant() - a marker named @name at this moment
 * @r:    a channel created by this process
 * @name: the marker's name
 *
 * Return: as trawl_ring_emit(). Lifetime: @name is copied.
 */
TRAWL_API int trawl_ring_instant(trawl_ring *r, const char *name);

/**
 * trawl_ring_counter() - the counter named @name is now @value
 * @r:     a channel created by this process
 * @name:  the counter's name
 * @value: its value from now on
 *
 * Return: as trawl_ring_emit(). Lifetime: @name is copied.
 */
TRAWL_API int trawl_ring_counter(trawl_ring *r, const char *name,
				 int64_t value);

/**
 * struct trawl_ring_event - one event, as the reader delivers it
 * @ts:   CLOCK_MONOTONIC nanoseconds, taken when its place was reserved
 * @tid:  the writing thread
 * @cpu:  the CPU it was written on (its buffer)
 * @type: its type id (trawl_ring_type_format())
 * @data: the payload (fixed part, then the STR field's text)
 * @len:  payload bytes
 *
 * Borrowed: valid until the callback returns.
 */
typedef struct trawl_ring_event {
	uint64_t ts;
	uint32_t tid;
	uint32_t cpu;
	uint32_t type;
	const void *data;
	size_t len;
} trawl_ring_event;

/**
 * struct trawl_ring_stats - one CPU buffer's counts, as the reader sees them
 * @delivered:   events given to callbacks
 * @lost_full:   dropped by the writer: discard mode and the buffer full
 * @lost_busy:   dropped by the writer: the sub-buffer to reuse was still
 *               being written (a writer stopped inside an event)
 * @lost_retry:  dropped by the writer after TRAWL_RING_MAX_TRIES attempts
 * @overwritten: overwrite mode: events the writer wrote over before the
 *               reader took them
 * @torn:        events whose writer died before finishing them (only
 *               counted once the producer is gone); never delivered
 * @damaged:     records that failed the reader's checks (damaged memory)
 */
typedef struct trawl_ring_stats {
	uint64_t delivered;
	uint64_t lost_full;
	uint64_t lost_busy;
	uint64_t lost_retry;
	uint64_t overwritten;
	uint64_t torn;
	uint64_t damaged;
} trawl_ring_stats;

typedef int (*trawl_ring_event_fn)(const trawl_ring_event *ev, void *ctx);

/* Bits of trawl_ring_read()'s @flags */
enum trawl_ring_read_flag {
	/* Also read the sub-buffer being written, up to the first event not
	 * yet finished (the end of a recording). */
	TRAWL_RING_READ_PARTIAL = 1u << 0,
};

/**
 * trawl_ring_read() - deliver what is ready in one CPU's buffer, in order
 * @r:     a channel opened with trawl_ring_attach()
 * @cpu:   0 to trawl_ring_ncpus() - 1
 * @flags: enum trawl_ring_read_flag bits
 * @cb:    called for each event, in time order within the CPU; returns 0
 *         to go on, nonzero to stop
 * @ctx:   passed to @cb
 *
 * Whole sub-buffers are taken: in overwrite mode by exchanging the reader's
 * spare sub-buffer for it, so a writer never writes into what is being
 * read. Once the producer is gone, everything it finished is delivered
 * and its unfinished events are counted as torn.
 *
 * Return: 0 when everything ready was delivered, @cb's nonzero value when
 * it stopped (the event it stopped on is not delivered again), or
 * -TRAWL_EMISUSE (a producer's handle, a bad @cpu).
 * Lifetime: events are borrowed until @cb returns.
 */
TRAWL_API int trawl_ring_read(trawl_ring *r, int cpu, unsigned flags,
			      trawl_ring_event_fn cb, void *ctx);

/**
 * trawl_ring_stats_get() - one CPU buffer's counts
 * @r:   a channel opened with trawl_ring_attach()
 * @cpu: 0 to trawl_ring_ncpus() - 1
 * @out: OUT: the counts
 *
 * Return: 0, or -TRAWL_EMISUSE. Lifetime: not applicable.
 */
TRAWL_API int trawl_ring_stats_get(const trawl_ring *r, int cpu,
				   trawl_ring_stats *out);

/**
 * trawl_ring_ncpus() - how many per-CPU buffers a channel has
 * @r: a channel
 *
 * Return: the count, or -TRAWL_EMISUSE for NULL. Lifetime: not applicable.
 */
TRAWL_API int trawl_ring_ncpus(const trawl_ring *r);

/**
 * trawl_ring_name() - the channel's name
 * @r: a channel
 *
 * Return: the name, or "" for NULL. Lifetime: borrowed, valid until
 * trawl_ring_close().
 */
TRAWL_API const char *trawl_ring_name(const trawl_ring *r);

/**
 * trawl_ring_producer_alive() - is the producer process still running?
 * @r: a channel opened with trawl_ring_attach()
 *
 * Return: 1 alive, 0 gone, or a negative TRAWL_E* code.
 * Lifetime: not applicable.
 */
TRAWL_API int trawl_ring_producer_alive(const trawl_ring *r);

/**
 * trawl_ring_type_count() - one more than the highest type id declared
 * @r: a channel
 *
 * Return: the count (ids 1 to count - 1 may be declared), or
 * -TRAWL_EMISUSE. Lifetime: not applicable.
 */
TRAWL_API int trawl_ring_type_count(const trawl_ring *r);

/**
 * trawl_ring_type_format() - a type in the kernel's `format` file syntax
 * @r:     a channel
 * @id:    a type id
 * @kid:   the id to print on the "ID:" line (a trace.dat gives app types
 *         ids after the kernel's)
 * @buf:   OUT: the text, NUL-terminated (cut short if it does not fit)
 * @size:  bytes in @buf
 *
 * The fields start after the common ones (common_type, common_flags,
 * common_preempt_count, common_pid: 8 bytes) as in a kernel page's event;
 * the reader's payload is what follows them.
 *
 * Return: the length of the whole text (as snprintf), -TRAWL_ENOENT for an
 * id not declared, -TRAWL_EMISUSE. Lifetime: not applicable.
 */
TRAWL_API int trawl_ring_type_format(const trawl_ring *r, int id, int kid,
				     char *buf, size_t size);

/**
 * trawl_ring_type_name() - a type's name
 * @r:  a channel
 * @id: a type id
 *
 * Return: the name, or NULL for an id not declared. Lifetime: borrowed,
 * valid until trawl_ring_close().
 */
TRAWL_API const char *trawl_ring_type_name(const trawl_ring *r, int id);

#ifdef __cplusplus
}
#endif

#endif
