/* SPDX-License-Identifier: MIT */
/*
 * Field handles: resolve a field by name once, before the run, then read it
 * from every event with no string lookup. Fields are decoded lazily: an event
 * whose fields nobody reads is never decoded.
 */
#ifndef TRAWL_FIELD_H
#define TRAWL_FIELD_H

#include <stddef.h>
#include <stdint.h>

#include "event.h"

typedef const struct trawl_field_def *trawl_field;

/**
 * trawl_field_lookup() - resolve a field handle by name
 * @t:     the trace
 * @event: the event the field belongs to ("sched_switch"), or NULL for a
 *         field of that name on any event
 * @field: the field name ("next_pid")
 *
 * Text traces name their fields as they go, so a handle for a field that
 * never appears is still valid: reading it reports the field as absent.
 *
 * Return: the handle, or NULL when out of memory or on a bad argument.
 * Lifetime: owned by the trace, valid until trawl_close().
 */
TRAWL_API trawl_field trawl_field_lookup(trawl_trace *t, const char *event,
					 const char *field);

/**
 * trawl_event_has() - whether the event carries a field
 * @ev: the event
 * @f:  a handle from trawl_field_lookup()
 *
 * Return: 1 when present, 0 when not.
 */
TRAWL_API int trawl_event_has(const trawl_event *ev, trawl_field f);

/**
 * trawl_event_get_int() - read a field as a signed integer
 * @ev:  the event
 * @f:   the field handle
 * @out: OUT: the value
 *
 * Decimal, negative and 0x-prefixed hex values are read as such; a value of
 * 8 or 16 hex digits with a leading zero (a hashed pointer) is read as hex.
 * Trailing text after the number (the " [ns]" of sched_stat_runtime) is
 * ignored.
 *
 * Return: 0, -TRAWL_ENOENT when the event has no such field, -TRAWL_ETYPE
 * when the value is not a number.
 */
TRAWL_API int trawl_event_get_int(const trawl_event *ev, trawl_field f,
				  int64_t *out);

/**
 * trawl_event_int() - a field as a signed integer, or 0
 * @ev: the event
 * @f:  the field handle
 *
 * Return: the value, or 0 when absent or not a number.
 */
TRAWL_API int64_t trawl_event_int(const trawl_event *ev, trawl_field f);

/**
 * trawl_event_uint() - a field as an unsigned integer, or 0
 * @ev: the event
 * @f:  the field handle
 *
 * Return: the value, or 0 when absent or not a number.
 */
TRAWL_API uint64_t trawl_event_uint(const trawl_event *ev, trawl_field f);

/**
 * trawl_event_raw() - a field's text as it stands in the source
 * @ev:  the event
 * @f:   the field handle
 * @len: OUT: its length (the text is not NUL-terminated)
 *
 * Return: the text, or NULL when the event has no such field.
 * Lifetime: borrowed, valid until the callback returns.
 */
TRAWL_API const char *trawl_event_raw(const trawl_event *ev, trawl_field f,
				      size_t *len);

/**
 * trawl_event_label() - a field's symbolic label, by handle
 * @ev:  the event
 * @f:   the field handle
 * @len: OUT: its length
 *
 * As trawl_event_field_label(): the name the print format shows an
 * integer by (a __print_symbolic entry, __print_flags, the symbol of a
 * %ps function pointer).
 *
 * Return: the label (not NUL-terminated), or NULL when there is none.
 * Lifetime: borrowed, valid until the callback returns.
 */
TRAWL_API const char *trawl_event_label(const trawl_event *ev, trawl_field f,
					size_t *len);

/**
 * trawl_event_str() - a field's text, NUL-terminated
 * @ev: the event
 * @f:  the field handle
 *
 * Return: the text, or NULL when the event has no such field.
 * Lifetime: borrowed, valid until the callback returns or the next call of
 * trawl_event_str() on the same event, whichever comes first.
 */
TRAWL_API const char *trawl_event_str(const trawl_event *ev, trawl_field f);

/**
 * trawl_event_field_count() - how many fields the event has
 * @ev: the event
 *
 * Return: the number of fields, for enumeration with the two calls below.
 */
TRAWL_API size_t trawl_event_field_count(const trawl_event *ev);

/**
 * trawl_event_field_name() - name of the i-th field
 * @ev: the event
 * @i:  0 <= i < trawl_event_field_count()
 *
 * Return: the name, not NUL-terminated, or NULL when i is out of range.
 * Lifetime: borrowed, valid until the callback returns.
 */
TRAWL_API const char *trawl_event_field_name(const trawl_event *ev, size_t i,
					     size_t *len);

/**
 * trawl_event_field_value() - text of the i-th field
 * @ev:  the event
 * @i:   0 <= i < trawl_event_field_count()
 * @len: OUT: length of the text
 *
 * Return: the text, not NUL-terminated, or NULL when i is out of range.
 * Lifetime: borrowed, valid until the callback returns.
 */
TRAWL_API const char *trawl_event_field_value(const trawl_event *ev, size_t i,
					      size_t *len);

/* What a field's value is (trawl_event_field_type()). */
enum trawl_value_type {
	TRAWL_VALUE_NONE = 0, /* no such field, or not in this event's text */
	TRAWL_VALUE_INT,      /* an integer: trawl_event_field_int() */
	TRAWL_VALUE_STR,      /* a string: trawl_event_field_value() */
	TRAWL_VALUE_ARRAY,    /* integers: trawl_event_field_array() */
	TRAWL_VALUE_TEXT,     /* display only: the source printed the value
			       * in a form that lost it (a hashed %p pointer,
			       * a %pS symbol); the text is all there is */
};

/**
 * trawl_event_field_type() - what the i-th field's value is
 * @ev: the event
 * @i:  0 <= i < trawl_event_field_count()
 *
 * Fields are named and typed by the event's format wherever trawl has it
 * (trace.dat always; text traces when the format is known, see
 * trawl_open_opts.formats): symbols and flags the kernel printed as text
 * are integers again. Without a format a value is INT when its text is a
 * number, else STR.
 *
 * Return: an enum trawl_value_type.
 */
TRAWL_API int trawl_event_field_type(const trawl_event *ev, size_t i);

/* Bits of trawl_event_field_flags(). */
enum trawl_value_flag {
	TRAWL_VALUE_UNSIGNED = 1u << 0, /* an integer of an unsigned field:
					 * read its bits as uint64_t */
	TRAWL_VALUE_INEXACT = 1u << 1,	/* the text showed only some of its
					 * bits (the rest read as 0) */
	TRAWL_VALUE_POINTER = 1u << 2,	/* a pointer (shown in hex) */
};

/**
 * trawl_event_field_flags() - more about the i-th field's value
 * @ev: the event
 * @i:  the field's index
 *
 * Return: a mask of enum trawl_value_flag; 0 for fields without a format.
 */
TRAWL_API unsigned trawl_event_field_flags(const trawl_event *ev, size_t i);

/**
 * trawl_event_field_int() - the i-th field as an integer
 * @ev:  the event
 * @i:   the field's index
 * @out: OUT: the value
 *
 * Return: 0, -TRAWL_ENOENT when out of range or not in the text,
 * -TRAWL_ETYPE when the value is not an integer.
 */
TRAWL_API int trawl_event_field_int(const trawl_event *ev, size_t i,
				    int64_t *out);

/* A field's typed value in one piece (trawl_event_field_get()). */
typedef struct trawl_value {
	int type;	/* enum trawl_value_type */
	unsigned flags; /* enum trawl_value_flag bits */
	int64_t i;	/* INT: the value (its bits as uint64_t if UNSIGNED) */
	const char *s;	/* STR, TEXT: the text, not NUL-terminated; else NULL */
	size_t len;	/* STR, TEXT: its length */
} trawl_value;

/**
 * trawl_event_field_get() - the i-th field's type, flags and value at once
 * @ev:  the event
 * @i:   the field's index
 * @out: OUT: what trawl_event_field_type(), trawl_event_field_flags(),
 *       trawl_event_field_int() and, for a string, trawl_event_field_value()
 *       would say; an array's elements come from trawl_event_field_array()
 *
 * For a writer that takes every field of every event (an export, a column
 * store): one call instead of three or four.
 *
 * Return: 0, or -TRAWL_ENOENT when i is out of range (out->type is then
 * TRAWL_VALUE_NONE).
 * Lifetime: out->s is borrowed, valid until the callback returns.
 */
TRAWL_API int trawl_event_field_get(const trawl_event *ev, size_t i,
				    trawl_value *out);

/* A field's name and typed value (trawl_event_fields()). */
typedef struct trawl_field_entry {
	const char *name; /* not NUL-terminated */
	size_t name_len;
	trawl_value value; /* as trawl_event_field_get() gives it */
} trawl_field_entry;

/**
 * trawl_event_fields() - every field's name and typed value at once
 * @ev:  the event
 * @out: OUT: out[i] for field i, for i below the return value and @cap
 * @cap: room in @out
 *
 * For a writer that takes every field of every event: one call per event
 * instead of two per field (trawl_event_field_name() and
 * trawl_event_field_get()).
 *
 * Return: how many fields the event has; when that is more than @cap,
 * only the first @cap are in @out (call again with more room).
 * Lifetime: the names and out[i].value.s are borrowed, valid until the
 * callback returns.
 */
TRAWL_API size_t trawl_event_fields(const trawl_event *ev,
				    trawl_field_entry *out, size_t cap);

/**
 * trawl_event_field_label() - the symbolic label of the i-th field
 * @ev:  the event
 * @i:   the field's index
 * @len: OUT: its length
 *
 * For an integer its print format shows by name (__print_symbolic,
 * __print_flags, a ternary of strings): softirq_entry's vec 1 is "TIMER",
 * sched_switch's prev_state 1 is "S". Strings the same field chooses right
 * after belong to it, as the text shows them: prev_state 0x100 (a task
 * preempted while runnable) is "R+".
 *
 * Return: the label (not NUL-terminated), or NULL when it has none.
 * Lifetime: borrowed, valid until the callback returns.
 */
TRAWL_API const char *trawl_event_field_label(const trawl_event *ev, size_t i,
					      size_t *len);

/**
 * trawl_event_field_array() - the elements of an array field
 * @ev:    the event
 * @i:     the field's index
 * @elems: OUT: the elements, or NULL
 *
 * Return: the number of elements (0 when the field is not an array).
 * Lifetime: *elems is borrowed, valid until the callback returns.
 */
TRAWL_API size_t trawl_event_field_array(const trawl_event *ev, size_t i,
					 const int64_t **elems);

/* The kind of an Android systrace / atrace marker. */
enum trawl_marker_kind {
	TRAWL_MARKER_BEGIN = 'B',   /* B|pid|name: a slice begins */
	TRAWL_MARKER_END = 'E',	    /* E|pid (or E): the innermost slice ends */
	TRAWL_MARKER_COUNTER = 'C', /* C|pid|name|value */
	TRAWL_MARKER_ASYNC_BEGIN = 'S', /* S|pid|name|cookie */
	TRAWL_MARKER_ASYNC_END = 'F',	/* F|pid|name|cookie */
	/* a moment with a name: an application channel's instant (there is
	 * no systrace form) */
	TRAWL_MARKER_INSTANT = 'I',
};

/**
 * struct trawl_marker - a parsed systrace marker
 * @kind:      one of enum trawl_marker_kind
 * @pid:       the pid written in the marker, or -1 when absent ("E");
 *             for an application event, the writer's process
 *             (trawl_event_tgid()) when the trace knows it, else -1
 * @name:      the slice, counter or async name (not NUL-terminated), or NULL
 * @name_len:  its length
 * @value:     the counter value (C) or cookie (S, F); 0 otherwise
 */
typedef struct trawl_marker {
	int kind;
	int64_t pid;
	const char *name;
	size_t name_len;
	int64_t value;
} trawl_marker;

/**
 * trawl_event_marker() - an event as a systrace marker
 * @ev:  the event (ftrace print / tracing_mark_write, or an application
 *       channel's slice_begin, slice_end, counter or instant)
 * @out: OUT: the marker
 *
 * For a print event the data is also readable as the fields "kind",
 * "pid", "name", "value" and "cookie" of the event. An application
 * channel's built-in events (include/trawl/ring.h, recorded by `trawl
 * record --app`) are markers too: slice_begin is a BEGIN, slice_end an
 * END (with its name), counter a COUNTER, instant an INSTANT; like
 * systrace's, slices nest per writing thread (trawl_event_pid()).
 *
 * Return: 0, or -TRAWL_ENOENT when the event is not a systrace marker.
 * Lifetime: out->name is borrowed, valid until the callback returns.
 */
TRAWL_API int trawl_event_marker(const trawl_event *ev, trawl_marker *out);

/**
 * trawl_event_fields_json() - the event's fields as one JSON object
 * @ev:  the event
 * @len: OUT: its length
 *
 * {"name":value,...} in field order: integers bare (unsigned ones as
 * unsigned), arrays as lists of integers, strings and display-only text as
 * JSON strings (see trawl_json_quote()), a field the text does not show
 * as null. The same object `trawl report --json` prints as "fields".
 *
 * Return: the object (not NUL-terminated), "{}" when memory ran out.
 * Lifetime: borrowed, valid until the callback returns.
 */
TRAWL_API const char *trawl_event_fields_json(const trawl_event *ev,
					      size_t *len);

/**
 * trawl_event_field_notes_json() - what the fields' values say besides
 * themselves, as JSON members to follow a "fields" object
 * @ev:  the event
 * @len: OUT: its length
 *
 * `,"labels":{"name":"label",...}` for the fields with a label
 * (trawl_event_field_label(): prev_state's "S", a work function's
 * symbol), then `,"display_only":["name",...]` for the fields the source
 * shows as text only; "" when there are neither. `trawl report --json`
 * prints them after "fields".
 *
 * Return: the members (not NUL-terminated), "" when memory ran out.
 * Lifetime: borrowed, valid until the next call for this event or until
 * the callback returns.
 */
TRAWL_API const char *trawl_event_field_notes_json(const trawl_event *ev,
						   size_t *len);

/**
 * trawl_json_quote() - s[0..n) as a JSON string, quotes included
 * @out: where to write: room for 6 * n + 2 bytes
 * @s:   the text
 * @n:   its length
 *
 * Valid UTF-8 is kept, '"' and '\\' are escaped, control bytes and DEL
 * become \u00XX, and a byte that is not valid UTF-8 becomes \ufffd.
 *
 * Return: the end of what was written.
 */
TRAWL_API char *trawl_json_quote(char *out, const char *s, size_t n);

/**
 * trawl_utf8_len() - the length of the UTF-8 sequence at s
 * @s: the bytes (at least one)
 * @n: how many there are
 *
 * Return: 1-4, or 0 when s does not start a valid, shortest-form sequence
 * of a Unicode scalar value within n bytes.
 */
TRAWL_API size_t trawl_utf8_len(const unsigned char *s, size_t n);

#endif
