/* SPDX-License-Identifier: MIT */
/*
 * Inside the text readers: the line classifier shared by the ftrace,
 * systrace and trace-cmd report forms, and the payload decoder.
 */
#ifndef TW_TEXT_INT_H
#define TW_TEXT_INT_H

#include "../core/core.h"
#include "../input/input.h"

enum tw_line_kind {
	TW_L_BAD = 0,
	TW_L_EVENT,
	TW_L_SKIP,    /* blank, comment or header */
	TW_L_LOST,    /* CPU:n [LOST m EVENTS] */
	TW_L_ENTRIES, /* # entries-in-buffer/entries-written: a/b */
};

typedef struct tw_line_info {
	union {
		uint64_t lost;	    /* TW_L_LOST */
		uint64_t in_buffer; /* TW_L_ENTRIES */
	};
	uint64_t written; /* TW_L_ENTRIES */
	const char *why;  /* TW_L_BAD: what was expected */
	int32_t cpu;	  /* TW_L_LOST */
	uint32_t col;	  /* TW_L_BAD: 0-based column of the problem */
} tw_line_info;

/* One classified line, as the reader and the parse-ahead thread see it. */
typedef struct tw_item {
	tw_rec rec; /* header for events; line and raw bytes for all */
	tw_line_info info;
	uint64_t end; /* byte offset after the line */
	int kind;     /* enum tw_line_kind, or TW_ITEM_TOO_LONG */
} __attribute__((aligned(64))) tw_item; /* two cache lines: they cross
					 * cores in the parse-ahead ring */

_Static_assert(sizeof(tw_item) == 128, "tw_item is two cache lines");

#define TW_ITEM_TOO_LONG (-1)

/* Parse-ahead thread over a mapped file (pipeline.c). */
typedef struct tw_pipe tw_pipe;
tw_pipe *tw_pipe_start(const tw_mem *mem, const char *map, size_t len,
		       int threads);
/*
 * The next classified lines in file order: items[0..n), valid until the
 * next call; their rec.line counts from *line_base (add it). Return: 1, or
 * 0 at the end.
 */
int tw_pipe_next_run(tw_pipe *p, tw_item **items, size_t *n,
		     uint64_t *line_base);
void tw_pipe_stop(tw_pipe *p);
/* The consumer resolved name[0..len) to ty: workers may do so from now on. */
void tw_pipe_type_seen(tw_pipe *p, const char *name, size_t len, tw_type *ty);

/* Classify one line and, for an event, fill r's header fields. */
int tw_ftrace_parse(const char *s, size_t n, tw_rec *r, tw_line_info *info);

/*
 * Classify line number `line`, s[0..n): without its newline, and without the
 * '\r' of a CRLF ending (tw_line_trim_cr). Lines longer than TW_MAX_LINE
 * are not read.
 */
static inline void tw_classify(const char *s, size_t n, uint64_t line,
			       tw_item *it)
{
	it->rec.line = line;
	it->info.why = NULL;
	it->info.col = 0;
	if (n > TW_MAX_LINE) {
		it->kind = TW_ITEM_TOO_LONG;
		it->rec.raw = NULL;
		it->rec.raw_len = 0;
		return;
	}
	it->rec.raw = s;
	it->rec.raw_len = (uint32_t)n;
	it->kind = tw_ftrace_parse(s, n, &it->rec, &it->info);
}

/*
 * The same without the fast path for the kernel's usual layout: the
 * reference that path is checked against (fuzz-line).
 */
int tw_ftrace_parse_generic(const char *s, size_t n, tw_rec *r,
			    tw_line_info *info);

/*
 * The same, up to the timestamp only, for the order pre-scan: every line
 * tw_ftrace_parse() takes as an event is an event here with the same
 * r->ts; a few lines it rejects (a bad name) may be events here.
 */
int tw_ftrace_ts(const char *s, size_t n, tw_rec *r, tw_line_info *info);

/* Whether a mapped file's events are in time order, using threads. */
int tw_text_prescan_map(const char *map, size_t len, int threads, int *sorted,
			void (*progress)(void *, uint64_t, uint64_t),
			void *ctx);

/* seek.c: a mapped file narrowed to what the range [from, to] needs
 * (reader seek_range op); -TRAWL_EUNSUPPORTED for streams. */
int tw_text_seek_range(tw_input *in, int64_t from, int64_t to);

/* Decode the payload of ev into ev->fields (reader decode op). */
void tw_text_decode(const trawl_trace *t, trawl_event *ev, const char *key,
		    size_t klen);
/* Find one key=value field without decoding those before it (seek op). */
int tw_text_seek(const trawl_trace *t, const trawl_event *ev, const char *key,
		 size_t klen, tw_kv *out);

/* Recognise the format from the first bytes of the decompressed input. */
int tw_text_detect(const char *p, size_t n, int *format, trawl_error *err,
		   const char *name);

/* perfscript.c: whether the first bytes are `perf script` text, and its
 * reader, given the input (owned from then on, closed on failure too). */
int tw_perfscript_detect(const char *p, size_t n);
int tw_perfscript_open(trawl_trace *t, struct tw_input *in, trawl_error *err);

#endif
