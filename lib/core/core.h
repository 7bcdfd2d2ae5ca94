/* SPDX-License-Identifier: MIT */
/*
 * The inside of libtrawl's core, shared with the readers (lib/text, later
 * lib/dat): the trace handle, event types, the event struct and the reader
 * interface. Nothing here is public API.
 */
#ifndef TW_CORE_H
#define TW_CORE_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "../pfmt/pfmt.h"
#include "../util/util.h"
#include "trawl/trawl.h"

#define TW_MAX_FIELDS 64
#define TW_MAX_CPUS   65536
/* Distinct event names a trace may show: hostile text with a new name on
 * every line must not grow memory with the file. Real traces have a few
 * hundred at most. */
#define TW_MAX_TYPES 65536

/* A decoded field: name and value text, both pointing into the event. */
typedef struct tw_kv {
	const char *key;
	const char *val;
	uint32_t klen;
	uint32_t vlen;
} tw_kv;

typedef struct tw_sub {
	trawl_callback cb;
	void *ctx;
	char *sys_pat; /* NULL: any system */
	char *name_pat;
} tw_sub;

/* What kind of payload a type has, for field decoding. */
enum tw_type_kind {
	TW_KIND_GENERIC = 0,
	TW_KIND_PRINT, /* ftrace print / tracing_mark_write: markers */
	/* an application channel's built-in types (include/trawl/ring.h),
	 * markers too: their system is the channel's name */
	TW_KIND_APP_BEGIN,
	TW_KIND_APP_END,
	TW_KIND_APP_COUNTER,
	TW_KIND_APP_INSTANT,
};

typedef struct tw_type {
	trawl_trace *t;
	uint32_t id;
	uint32_t kind;
	char *name;
	size_t name_len;
	const char *system;
	uint64_t hash;
	uint64_t events;
	tw_sub **subs;
	uint32_t nsubs;
	const void *patterns; /* reader's decoding hints for this name */
	const void *bin;      /* binary readers: their format of the type */
	tw_pfmt *pf;	      /* text: the compiled format (textfmt.c) */
	uint8_t pf_state;     /* 1: looked for; 2: found, not compiled */
} tw_type;

#define TW_FAST_WAYS 4

struct trawl_field_def {
	struct trawl_field_def *next;
	char *event; /* NULL: any event */
	char *name;
	size_t name_len;
	/* Cache of the last type seen, so the event check is a compare. */
	const tw_type *last_type;
	int last_match;
	int last_seek; /* the reader may seek it in last_type's text */
	/* last_type's format shows it as "name=" and conversions of its own
	 * (TW_PFT_LOCAL): 1 + its index there, read from the sought text */
	uint32_t last_local;
	uint32_t hint; /* index where the field was last found */
	int plain;     /* the name is all [A-Za-z0-9_.]: readers may seek it */
	/* Binary readers: what the field is in each type, by type id. */
	const void **bin;
	size_t nbin;
	/* Binary readers: a plain integer, read straight from the record by
	 * trawl_event_get_int() once the reader's get_int found it so: a
	 * load instead of two calls and a search an event, for scripts and
	 * analyses. A few types at once (type NULL: none), since one handle
	 * serves several (a wakeup's "pid" in sched_waking, sched_wakeup and
	 * sched_wakeup_new, an irq's in the entry and the exit), which take
	 * turns; tw_field_fast() fills them. */
	struct tw_fast_int {
		const tw_type *type;
		uint32_t off;
		uint8_t size, is_signed;
	} fast[TW_FAST_WAYS];
	uint8_t fast_next; /* the way filled next when all are taken */
	tw_buf label; /* the label get_label made last (trawl_event_label) */
};

/* A plain integer of d in records of ty: at off, size bytes (1, 2, 4, 8),
 * signed or not; trawl_event_get_int() reads it straight from now on. */
void tw_field_fast(struct trawl_field_def *d, const tw_type *ty, uint32_t off,
		   unsigned size, int is_signed);

enum tw_event_bit {
	TW_EV_IP_FROM_NAME = 1u << 0, /* "tracing_mark_write: text" form */
	TW_EV_OWNED = 1u << 1,	      /* a trawl_event_copy() */
	TW_EV_TYPED = 1u << 2,	      /* tw_rec: type set, not name */
	TW_EV_BINARY = 1u << 3,	      /* fields are in data, not text */
	TW_EV_COMM_Z = 1u << 4,	      /* comm is NUL-terminated in place */
};

struct trawl_event {
	int64_t ts;
	uint64_t seq;
	uint64_t line;
	int32_t cpu;
	int32_t pid;
	int32_t tgid;
	uint16_t flags;
	int8_t preempt;
	uint8_t bits;
	const char *comm;
	size_t comm_len;
	const char *payload;
	size_t payload_len;
	tw_type *type;
	trawl_trace *t;
	/*
	 * Lazily decoded, and only as far as asked: nfields < 0 until the
	 * first field read; fields[0..nfields) are decoded; decode_done when
	 * there are no more. The reader keeps where it stopped in decode_at
	 * (and a key it already measured there, decode_key/decode_key_len).
	 */
	int nfields;
	int decode_done;
	const char *decode_at;
	const char *decode_key;
	size_t decode_key_len;
	int comm_ready;
	tw_buf comm_z;
	tw_buf str_z;
	/* Binary sources: the record, its instance, and text made from it. */
	const void *data;
	uint32_t data_len;
	uint32_t buffer;
	tw_buf payload_z;
	tw_buf fields_z;
	tw_kv fields[TW_MAX_FIELDS];
	tw_kv sought; /* the field the reader's seek op found last */
	/* Typed values of fields[] (typed != 0): a text scanned with its
	 * format, or a binary record. Array elements live in elems_z. */
	int typed;
	tw_pf_value tv[TW_MAX_FIELDS];
	tw_buf elems_z;
	tw_buf label_z;
	/* Binary sources: the text of integers and the labels are made when
	 * first asked (enum tw_pending; the reader's realize op), the text
	 * into num_z. */
	unsigned pending;
	tw_buf num_z;
	/* trawl_event_fields_json(): made here when the reader has none */
	tw_buf json_z;
	tw_buf notes_z; /* trawl_event_field_notes_json() */
};

enum tw_pending {
	TW_PEND_TEXT = 1u << 0,
	TW_PEND_LABEL = 1u << 1,
};

/* One parsed record header from a reader; strings point into its line. */
typedef struct tw_rec {
	int64_t ts;
	int32_t cpu;
	int32_t pid;
	int32_t tgid;
	uint16_t flags;
	int8_t preempt;
	uint8_t bits;
	const char *comm;
	union {
		const char *name;
		tw_type *type; /* binary readers (bits & TW_EV_TYPED) */
	};
	const char *payload; /* binary readers: the record's data */
	/* The whole record when the run keeps records (need_raw); else, from
	 * binary readers, its text if they made it ahead (NULL: not). */
	union {
		const char *raw;
		const char *text;
	};
	uint32_t comm_len;
	uint32_t name_len; /* typed: the buffer (instance) number */
	uint32_t payload_len;
	union {
		uint32_t raw_len;
		uint32_t text_len;
	};
	uint64_t line;
} tw_rec;

enum tw_next {
	TW_NEXT_EOF = 0,
	TW_NEXT_EVENT = 1,
	/* Streaming sources only: no event, but none before rec->ts is still
	 * to come (time passes while nothing happens: a live session). */
	TW_NEXT_TIME = 2,
};

/* Told the time a streaming source vouches for (TW_NEXT_TIME): 0 to go
 * on, nonzero to stop the run, as event callbacks. */
typedef int (*tw_time_callback)(int64_t ts, void *ctx);
typedef struct tw_time_sub {
	tw_time_callback cb;
	void *ctx;
} tw_time_sub;

struct tw_format_ref; /* below, with tw_trace_format_at() */

typedef struct tw_reader_ops {
	/*
	 * Next event record. With scan set, only rec->ts matters and no
	 * counters are touched (the order pre-scan). Return: enum tw_next or
	 * a negative TRAWL_E* with err filled.
	 */
	int (*next)(trawl_trace *t, tw_rec *rec, int scan, trawl_error *err);
	/*
	 * Optional: decide whether the input is in time order using several
	 * threads, without touching counters. Return: 0 with *sorted set,
	 * -TRAWL_EUNSUPPORTED to fall back to next(scan=1), or an error.
	 */
	int (*prescan)(trawl_trace *t, int threads, int *sorted,
		       trawl_error *err);
	/* Back to the start, or -TRAWL_EUNSUPPORTED. */
	int (*rewind)(trawl_trace *t, trawl_error *err);
	/*
	 * Optional: read only as much as a range [from, to] needs
	 * (TRAWL_OPEN_RANGE), once, before the run: next() and rewind()
	 * then give at least every event of the range, maybe more around
	 * it (the run skips those). Return: 0, -TRAWL_EUNSUPPORTED (the
	 * run reads everything and skips), or an error.
	 */
	int (*seek_range)(trawl_trace *t, int64_t from, int64_t to,
			  trawl_error *err);
	/* Parse one record's raw bytes again (records kept by the sorter). */
	int (*reparse)(trawl_trace *t, const char *raw, size_t len,
		       tw_rec *rec);
	/*
	 * Decode more of ev's fields into ev->fields: until a field named
	 * key[0..klen) has been added, or all of them when key is NULL. The
	 * first call sees nfields < 0.
	 */
	void (*decode)(const trawl_trace *t, trawl_event *ev, const char *key,
		       size_t klen);
	/*
	 * Optional: find the field decode() would add first under the name
	 * key[0..klen) (all [A-Za-z0-9_.]) without decoding the fields
	 * before it, into *out. Return: 1 found; 0 when it cannot tell, and
	 * decode() goes on as usual. Called only for fields not decoded yet.
	 */
	int (*seek)(const trawl_trace *t, const trawl_event *ev,
		    const char *key, size_t klen, tw_kv *out);
	/*
	 * Binary readers only (NULL for text, whose fields are text): read
	 * field f of ev as an integer or as its text; the event's text as
	 * its print format shows it (into ev->payload_z); the text of an
	 * ftrace print event; the name of an instance (buffer) number.
	 */
	int (*get_int)(const trawl_event *ev, struct trawl_field_def *f,
		       int64_t *out);
	/* Make what ev->pending says is not made yet (the bits in what). */
	void (*realize)(const trawl_event *ev, unsigned what);
	/* Optional: field f's label alone, into f->label (valid until the
	 * next event); 1 with *out and *len set, 0 when it has none, -1
	 * when the reader cannot tell without decoding the event. */
	int (*get_label)(const trawl_event *ev, struct trawl_field_def *f,
			 const char **out, size_t *len);
	/* Optional: ev's fields as JSON, made ahead by the reader; NULL when
	 * it has none (lib/core/json.c makes it then). */
	const char *(*fields_json)(const trawl_event *ev, size_t *len);
	/* Optional: every field's name and typed value into out[0..cap)
	 * (trawl_event_fields()) straight from what the reader has at hand,
	 * without decoding into ev->fields (the trace.dat merge ahead's
	 * compact form). Return: how many fields, or -1 (decode instead). */
	long (*fields)(const trawl_event *ev, trawl_field_entry *out,
		       size_t cap);
	const char *(*get_raw)(const trawl_event *ev, struct trawl_field_def *f,
			       size_t *len);
	int (*payload)(const trawl_event *ev);
	int (*print_buf)(const trawl_event *ev, const char **buf, size_t *len);
	const char *(*buffer_name)(const trawl_trace *t, uint32_t buffer);
	/*
	 * Optional: a record's name (rec->name, rec->name_len) was just
	 * resolved to ty, for readers that resolve names ahead (on their
	 * parse-ahead threads, setting TW_EV_TYPED) once the type exists.
	 */
	void (*type_seen)(trawl_trace *t, const tw_rec *rec, tw_type *ty);
	/* Optional: how ty's fields are read (enum trawl_fields_source);
	 * without it, by the text formats (textfmt.c). */
	int (*fields_source)(trawl_trace *t, tw_type *ty);
	/*
	 * Optional: the i-th event format the source carries (trace.dat),
	 * for consumers that check names before the run (lib/script).
	 * Return: 1 with *out set; 0 past the end.
	 */
	int (*format_at)(trawl_trace *t, size_t i, struct tw_format_ref *out);
	/* Optional: read the text of a format format_at() names without
	 * one (a live session's, from tracefs, when first asked for).
	 * Return: 0 with out->text set, negative when it cannot be read. */
	int (*format_text)(trawl_trace *t, size_t i, struct tw_format_ref *out);
	/* Optional: what the source says of the machine it was recorded
	 * on (trawl_trace_host()), or NULL. */
	const char *(*host)(const trawl_trace *t, const char *what);
	/* Optional: the kernel symbol holding addr (trawl_trace_symbol()),
	 * with *offset and *size set, or NULL; on the run's thread. */
	const char *(*symbol)(trawl_trace *t, uint64_t addr, uint64_t *offset,
			      uint64_t *size);
	/* Where we are, for progress: done and total bytes. */
	void (*progress)(const trawl_trace *t, uint64_t *done, uint64_t *total);
	void (*close)(trawl_trace *t);
} tw_reader_ops;

/* Events lost in one buffer of a source, on one CPU. */
struct tw_lost_place {
	uint32_t buffer;
	int cpu;
	uint64_t n;
};

struct trawl_trace {
	tw_mem mem;
	trawl_open_opts opts;
	char name[256];
	int format;
	const char *compression;
	uint64_t data_bytes; /* trawl_data_bytes(); 0 not known */
	int ran;
	int need_raw; /* the run keeps records: readers must fill rec->raw */
	int ranged;   /* TRAWL_OPEN_RANGE: only opts.from..opts.to */

	const tw_reader_ops *ops;
	void *reader;

	tw_type **types;
	size_t ntypes, types_cap;
	tw_type **hash;
	size_t hash_cap;
	tw_type *last_type;

	tw_sub *subs;
	size_t nsubs, subs_cap;
	tw_time_sub *time_subs;
	size_t ntime_subs;
	/* The source streams in time order as it comes (a live session): no
	 * pre-scan, no sort; what comes too late is counted as late_events. */
	int streaming;
	struct trawl_field_def *fields;

	struct tw_textfmt *textfmt; /* text: where formats come from */
	/* trawl_event_known() (known.c): the names the trace can have, each
	 * NUL-terminated, and the kernel's table when it was needed */
	tw_buf known_names;
	uint32_t known_types;	/* the types met when it was made */
	int known_with_bundled; /* the table's names follow the trace's */
	struct tw_format_set *known_bundled;
	tw_pf_scan scan;

	trawl_stats stats;
	/* written for every event: 64 bytes of nothing either side in its
	 * allocation (cpu_events_mem), off what a reader's thread reads */
	uint64_t *cpu_events, *cpu_events_mem;
	uint64_t *cpu_lost;
	/* the same per (buffer, CPU) of a multi-buffer source, in the order
	 * first met (tw_note_lost_in(); trawl_lost_place()) */
	struct tw_lost_place *lost_places;
	size_t nlost_places, lost_places_cap;
	size_t cpu_cap;
	int ncpu;

	trawl_event ev;
};

/* error.c */
int tw_error_at(trawl_error *err, int code, int sys_errno, const char *file,
		uint64_t line, uint32_t column, uint64_t offset,
		const char *fmt, ...) __attribute__((format(printf, 8, 9)));

/* type.c: intern an event type by name ("tracing_mark_write" is "print"). */
tw_type *tw_type_get(trawl_trace *t, const char *name, size_t len);
/* A new type with a known system (binary readers, which name their own). */
tw_type *tw_type_new(trawl_trace *t, const char *name, const char *system);
const char *tw_event_system_of(const char *name);
int tw_sub_matches(const tw_sub *s, const tw_type *type);
void tw_types_free(trawl_trace *t);

/* run.c: a callback for the time a streaming source vouches for, before
 * trawl_run(); -TRAWL_EMISUSE after, -TRAWL_ENOMEM. */
int tw_on_time(trawl_trace *t, tw_time_callback cb, void *ctx);

/* run.c: counters the readers update */
int tw_note_cpu(trawl_trace *t, int cpu);
void tw_note_bad_line(trawl_trace *t, uint64_t line);
void tw_note_lost(trawl_trace *t, int cpu, uint64_t n);
/* The same, for a source of several buffers (ops->buffer_name names them) */
void tw_note_lost_in(trawl_trace *t, uint32_t buffer, int cpu, uint64_t n);

/* sort.c: external merge sort of raw records by (ts, seq) */
typedef struct tw_sorter tw_sorter;
typedef struct tw_sorted {
	int64_t ts;
	uint64_t seq;
	uint64_t line;
	const char *raw;
	size_t len;
} tw_sorted;
tw_sorter *tw_sorter_new(const tw_mem *mem, size_t budget, const char *tmpdir);
int tw_sorter_add(tw_sorter *s, int64_t ts, uint64_t seq, uint64_t line,
		  const char *raw, size_t len, trawl_error *err);
int tw_sorter_finish(tw_sorter *s, trawl_error *err);
/* Return: 1 with *out filled (valid until the next call), 0 at the end. */
int tw_sorter_next(tw_sorter *s, tw_sorted *out, trawl_error *err);
uint64_t tw_sorter_runs_spilled(const tw_sorter *s);
void tw_sorter_free(tw_sorter *s);

/* field.c: numbers as field reads see them, systrace markers and the print
 * event's "ip: buf" split */
int tw_parse_number(const char *s, size_t n, int64_t *out);
int tw_parse_marker(const char *s, size_t n, trawl_marker *m);
/* Append the marker in buf (if it is one) as the fields kind, pid, name and
 * value or cookie, their text inside buf. */
void tw_marker_fields(trawl_event *ev, const char *buf, size_t buf_len);
/* Type field i of a typed event from its text (fields a reader added
 * beside its format's, such as the marker fields). */
void tw_typed_text(trawl_event *ev, int i);
void tw_print_split(const trawl_event *ev, const char **ip, size_t *ip_len,
		    const char **buf, size_t *buf_len);

/* window.c: the streaming reorder window */
typedef struct tw_window tw_window;
tw_window *tw_window_new(const tw_mem *mem, size_t capacity);
int tw_window_full(const tw_window *w);
int tw_window_push(tw_window *w, int64_t ts, uint64_t seq, uint64_t line,
		   const char *raw, size_t len);
/* Return: 1 with *out (valid until the next push or pop), 0 when empty. */
int tw_window_pop(tw_window *w, tw_sorted *out);
void tw_window_free(tw_window *w);

/* textfmt.c: the formats of a text trace's types */
typedef struct tw_textfmt tw_textfmt;
int tw_textfmt_init(trawl_trace *t, trawl_error *err);
/* json.c: fields as a JSON object appended to b (tv NULL: untyped text,
 * decimals as numbers); Return: 0, or -1 out of memory. */
int tw_json_fields(const tw_mem *m, tw_buf *b, const tw_kv *kv,
		   const tw_pf_value *tv, int n, const int64_t *elems);

/* The compiled format of ty, looked up the first time; NULL: none. */
const tw_pfmt *tw_textfmt_of(trawl_trace *t, tw_type *ty);
void tw_textfmt_free(trawl_trace *t);
/*
 * The i-th event format a trace's events may be read by, before the run:
 * the source's own (trace.dat), else the user's --formats and then the
 * bundled table (text; a name in both is given twice, the user's first).
 * A live session lists every event by name and reads a text only when it
 * is asked for (tw_trace_format_text()): a kernel has thousands, a script
 * uses a few. Everything is borrowed, valid until trawl_close().
 */
typedef struct tw_format_ref {
	const char *system; /* "" when the source does not say */
	const char *name;   /* NULL: the text has no "name:" line */
	size_t name_len;
	const char *text; /* NULL: not read yet */
	size_t len;
} tw_format_ref;

/* Return: 1 with *out set, 0 past the end. */
int tw_trace_format_at(trawl_trace *t, size_t i, tw_format_ref *out);
/* out (from tw_trace_format_at(t, i)) with its text, read if need be.
 * Return: 0, or negative when the text cannot be read (out->text NULL). */
int tw_trace_format_text(trawl_trace *t, size_t i, tw_format_ref *out);
/* The value of a format text's "name:" line, or NULL. */
const char *tw_format_name(const char *text, size_t len, size_t *n);

/* The readers, each given the input the core opened (lib/input), which
 * they own from then on (closed on failure too). */
struct tw_input;
int tw_text_open(trawl_trace *t, struct tw_input *in, trawl_error *err);
int tw_dat_open(trawl_trace *t, struct tw_input *in, trawl_error *err);
/*
 * A trace.dat that is still being made (lib/dat/dat-feed.h): the trace.dat
 * reader over a feed's metadata and pages. tw_open_feed() is how a live
 * source opens a trace (lib/live): the core makes the trace and hands the
 * feed to the reader, as trawl_open() hands a file. The feed is borrowed
 * until trawl_close(). Return: the trace (caller closes it), or NULL.
 */
struct tw_feed;
int tw_dat_open_feed(trawl_trace *t, const struct tw_feed *feed,
		     trawl_error *err);
trawl_trace *tw_open_feed(const trawl_open_opts *opts, const char *name,
			  const struct tw_feed *feed, trawl_error *err);
/*
 * A perf.data (lib/perf): tw_perf_open() reads the file's header, attrs
 * and feature sections and makes *src, the source of its tracepoint
 * records (lib/dat/dat-records.h), owned by the trace from then on; the
 * core hands it to the trace.dat reader (tw_dat_open_records(), which
 * closes it on failure too) to decode, as it hands a live feed.
 */
struct tw_records;
int tw_perf_open(trawl_trace *t, struct tw_input *in,
		 const struct tw_records **src, trawl_error *err);
int tw_dat_open_records(trawl_trace *t, const struct tw_records *src,
			int format, trawl_error *err);

#endif
