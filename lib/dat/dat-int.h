/* SPDX-License-Identifier: MIT */
/*
 * Inside the trace.dat reader: the file's layout once its header, sections
 * and options are read (dat-file.c), and the per-CPU record streams decoded
 * from the kernel's ring-buffer pages (dat-cpu.c). dat-reader.c merges the
 * streams into one time order and answers field reads through libtraceevent's
 * event formats.
 */
#ifndef TW_DAT_INT_H
#define TW_DAT_INT_H

#include <stddef.h>
#include <stdint.h>

#include "../core/core.h"
#include "dat-write.h"

struct tep_handle;
struct tep_event;
struct tep_format_field;
struct tw_input;

/* One CPU's data of one buffer, as the file describes it. */
typedef struct tw_dat_span {
	uint32_t buffer; /* index into tw_dat_file.buffers */
	int32_t cpu;
	uint64_t offset; /* in the file */
	uint64_t size;	 /* all pieces */
	/* In pieces (a file written while recording has a batch a second):
	 * index + 1 of the first and last in tw_dat_file.parts, or 0. */
	uint32_t part, part_last;
} tw_dat_span;

/* One piece of a span's data, in file order. */
typedef struct tw_dat_part {
	uint64_t offset, size;
	uint32_t next; /* index + 1, 0 for the last */
} tw_dat_part;

typedef struct tw_dat_buffer {
	char *name;  /* "" for the top-level buffer */
	char *clock; /* may be NULL (v6) */
	uint32_t page_size;
} tw_dat_buffer;

#define TW_DAT_MAX_EVENT_ID 65535

/* An event format's text, parsed when its ID is first met. */
typedef struct tw_dat_format {
	uint32_t id;
	const char *system;
	const char *text; /* NULL: named only, read when asked for */
	size_t len;
	const char *name;  /* a named-only one's (else in the text) */
	uint64_t file_off; /* of the text, or of its compressed section */
} tw_dat_format;

/* A saved cmdline: the comm the file gives a pid. */
typedef struct tw_dat_cmdline {
	int32_t pid;
	uint32_t order;
	const char *comm;
} tw_dat_cmdline;

/* The ring buffer's page header, from the file's header_page format. */
typedef struct tw_dat_page_format {
	uint32_t commit_offset;
	uint32_t commit_size; /* 4 or 8: the kernel's long */
	uint32_t data_offset;
} tw_dat_page_format;

typedef struct tw_dat_file {
	const tw_mem *mem;
	const char *name; /* for messages */
	const unsigned char *map;
	size_t size;
	int version;	/* 6 or 7 */
	int big_endian; /* file byte order */
	int long_size;
	uint32_t page_size;
	int compressed;	 /* v7 flyrecord data and sections are compressed */
	int comp_zstd;	 /* else zlib */
	char *comp_name; /* "zstd", "zlib", "none" */
	tw_dat_page_format page;
	struct tep_handle *tep;

	tw_dat_buffer *buffers;
	size_t nbuffers;
	tw_dat_span *spans;
	size_t nspans;
	tw_dat_part *parts;
	size_t nparts;
	uint32_t *span_index; /* (buffer, cpu) -> span + 1, open addressing */
	size_t span_index_cap;
	uint64_t cut_at; /* the options chain ends past the file here */
	int growing;	 /* being written: the chain's end past the map is */
	int recovered;	 /* CPU data found by a scan, not by its option */

	/* Time correction from the file's options. */
	int64_t ts_offset;
	uint32_t tsc_mult, tsc_shift;
	int64_t tsc_offset;
	int has_tsc2nsec;

	/* event formats by ID, and decompressed sections they point into */
	tw_dat_format *formats; /* in the file's order */
	size_t nformats, formats_cap;
	uint64_t *by_id; /* id << 32 | position of those with a text, sorted */
	size_t nby_id;
	uint32_t *by_name; /* named-only ones: position + 1, hashed */
	size_t name_slots;
	/* the text of a named-only format, asked for when first needed (a
	 * live session's, lib/dat/dat-feed.h); kept by the asked */
	const char *(*format_late)(void *ctx, const char *system,
				   const char *event, size_t *len);
	void *format_ctx;
	void **blocks;
	size_t nblocks;

	/* saved cmdlines, sorted by pid */
	tw_dat_cmdline *cmdlines;
	size_t ncmdlines;
	char *cmdline_text;

	/* kallsyms: parsed on first use (tw_dat_load_kallsyms) */
	const char *kallsyms_text; /* v6: in the map */
	size_t kallsyms_len;
	uint64_t kallsyms_section; /* v7: the section's offset */
	/* the UNAME option's nodename and release ("" when absent) */
	char hostname[65], release[65];
	/* the MACHINE option's "KEY=VALUE" entries, each NUL-ended */
	char *machine;
	size_t machine_len;
	int kallsyms_loaded;
	/* none in the metadata: asked for from here once, when first
	 * needed (a perf.data's source, lib/dat/dat-records.h) */
	const char *(*kallsyms_late)(void *ctx, size_t *len);
	void *kallsyms_ctx;
	int tep_kallsyms_wanted, tep_kallsyms_loaded; /* libtraceevent's */
	struct tw_dat_sym *syms; /* trawl's own table, with sizes */
	size_t nsyms;
	char *sym_pool;
	size_t sym_pool_len;
	struct tw_dat_str *strs; /* printk strings by address */
	size_t nstrs;
	char *str_pool;
	size_t str_pool_len;

	/* kallsyms, printk formats or cmdlines that could not be read */
	uint64_t meta_damaged;
	uint64_t meta_damage_off;
	uint64_t section_off; /* of the v7 section being read */

	uint64_t overrun; /* CPUSTAT "overrun:" summed over CPUs */
} tw_dat_file;

static inline uint16_t tw_dat_u16(const tw_dat_file *f, const void *p)
{
	uint16_t v;
	memcpy(&v, p, 2);
	return f->big_endian ? __builtin_bswap16(v) : v;
}

static inline uint32_t tw_dat_u32(const tw_dat_file *f, const void *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return f->big_endian ? __builtin_bswap32(v) : v;
}

static inline uint64_t tw_dat_u64(const tw_dat_file *f, const void *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return f->big_endian ? __builtin_bswap64(v) : v;
}

/* Parse the header, sections and options of a mapped trace.dat; set up the
 * tep handle with every event format, cmdline and printk format. growing:
 * the file is still being written and has grown since it was mapped (trawl
 * record's version 7 file), so an options chain that runs past the map
 * ends there (the writer linked more after the map was made), rather than
 * being a file cut short. */
int tw_dat_file_open(tw_dat_file *f, const tw_mem *mem, const char *name,
		     const unsigned char *map, size_t size, int growing,
		     trawl_error *err);
void tw_dat_file_close(tw_dat_file *f);
/* What the MACHINE option says of key (dat-write.h), or NULL. */
const char *tw_dat_machine(const tw_dat_file *f, const char *key);
/* The layout of a trace.dat that is not a file: its metadata in memory
 * (a live session's, lib/live), one buffer with the given clock, no CPU
 * data. The blobs stay the caller's until tw_dat_file_close(). */
int tw_dat_file_from_meta(tw_dat_file *f, const tw_mem *mem, const char *name,
			  const tw_dat_meta *m, const char *clock,
			  trawl_error *err);
/* Replace the comms (saved_cmdlines' "pid comm" lines); -1 out of memory.
 * Earlier tw_dat_comm() strings are freed. */
int tw_dat_set_comms(tw_dat_file *f, const char *text);
/* The comm of pid from the saved cmdlines: "<idle>" for 0, "<...>" when
 * the file does not say. */
const char *tw_dat_comm(const tw_dat_file *f, int32_t pid);
/* Index the formats by ID (-1: out of memory); then parse one format
 * (NULL: none, or it does not parse). */
int tw_dat_index_formats(tw_dat_file *f);
struct tep_event *tw_dat_parse_format(tw_dat_file *f, uint32_t id);
/* The text of format id (NULL when the file has none). */
const char *tw_dat_format_text(const tw_dat_file *f, uint32_t id, size_t *len);
/* The position of the named-only format system:event, or -1. */
long tw_dat_format_find(tw_dat_file *f, const char *system, const char *event);
/* Read the text of the format at position i if it has none yet, and index
 * it by its ID. Only before records are read: the merge's thread reads
 * the index. Return: 0, or -1 when it cannot be read. */
int tw_dat_format_load(tw_dat_file *f, size_t i);
/* Parse the kallsyms, once, before the first text that may name symbols. */
void tw_dat_load_kallsyms(tw_dat_file *f);
/* The same into libtraceevent, once, before it prints or loads plugins. */
void tw_dat_load_tep_kallsyms(tw_dat_file *f);

/* dat-syms.c: kallsyms with sizes, for %pS as the kernel prints it. */
int tw_dat_syms_parse(tw_dat_file *f, const char *text, size_t len);
/* Return: the symbol holding addr (offset, size and module set), or NULL. */
const char *tw_dat_sym_lookup(const tw_dat_file *f, uint64_t addr,
			      uint64_t *offset, uint64_t *size,
			      const char **module);

/* The printk formats block, and the string at an address (or NULL). */
int tw_dat_strings_parse(tw_dat_file *f, const char *text, size_t len);
const char *tw_dat_printk_string(const tw_dat_file *f, uint64_t addr);

/* Decompress one block with the file's algorithm; 0 or -1 on failure.
 * dctx (may be NULL) keeps a zstd context between calls: free it with
 * tw_dat_decompress_fini(). */
int tw_dat_decompress(const tw_dat_file *f, void **dctx, const void *src,
		      size_t n, void *dst, size_t out);
void tw_dat_decompress_fini(void *dctx);

/*
 * The walk over one CPU's compressed chunks (count4, then csize4 usize4
 * bytes per chunk): decodes the next chunk into buf. What it finds wrong is
 * kept here until the cursor takes it.
 */
typedef struct tw_dat_chunker {
	uint32_t chunks_left;
	uint64_t next; /* file offset of the next chunk header */
	uint64_t end;  /* of the CPU's data */
	unsigned char *buf;
	size_t cap;
	size_t len;  /* decoded: bytes in buf */
	uint64_t at; /* decoded: file offset of the chunk */
	void *dctx;  /* the decompressor's context, kept */
	uint64_t damaged;
	uint64_t damage_off;
	const char *damage_why;
} tw_dat_chunker;

/*
 * A cursor over one CPU's records. Pages come from the map, or from
 * decompressed chunks (v7 compressed files).
 */
typedef struct tw_dat_cursor {
	const tw_dat_file *f;
	const tw_dat_span *span;
	uint32_t page_size;
	int fast; /* little-endian on a little-endian host, no time fixes */

	/* the data: mapped, or the current decompressed chunk */
	const unsigned char *data;
	size_t data_len;
	uint64_t data_file_off; /* file offset of data[0] (mapped), or of
				 * the chunk (compressed) */
	/* compressed: the current chunk, and the walk to the next one */
	int compressed;
	int memory;    /* data is the caller's memory (nothing to give back) */
	uint32_t part; /* index + 1 of the piece at hand, or 0 */
	unsigned char *chunk;
	size_t chunk_cap;
	tw_dat_chunker walk;

	size_t page_at;	  /* offset of the current page in data */
	size_t dropped;	  /* mapped data before this was given back */
	size_t populated; /* mapped data before this was mapped ahead */
	const unsigned char *rec, *rec_end;
	uint64_t ts; /* running timestamp */

	/* the record at hand */
	int64_t cur_ts;
	const unsigned char *cur;
	uint32_t cur_len;
	int done;

	/* what the walk found: lost events per page, damage */
	uint64_t lost;	     /* counted since last taken */
	uint64_t damaged;    /* pages or chunks that could not be read */
	uint64_t damage_off; /* file offset of the first damage */
	const char *damage_why;
} tw_dat_cursor;

int tw_dat_cursor_init(tw_dat_cursor *c, const tw_dat_file *f,
		       const tw_dat_span *span);

int tw_dat_cursor_next_slow(tw_dat_cursor *c);
/* A cursor over pages in memory (a live session's), from their first
 * record; the memory stays the caller's. Damage offsets are into them. */
void tw_dat_cursor_pages(tw_dat_cursor *c, const tw_dat_file *f,
			 const unsigned char *pages, size_t len);

/*
 * Move to the next data record: 1 with cur_* set, 0 at the end. The
 * common case is inline: a small data record of a little-endian file,
 * whole in its page, in a file without time correction.
 */
static inline int tw_dat_cursor_next(tw_dat_cursor *c)
{
	if (__builtin_expect(c->fast, 1)) {
		const unsigned char *p = c->rec;
		size_t left = (size_t)(c->rec_end - p);
		if (left >= 4) {
			uint32_t word;
			memcpy(&word, p, 4);
			uint32_t type_len = word & 31;
			size_t len = (size_t)type_len * 4;
			if (type_len - 1 < 28 && len <= left - 4) {
				c->ts += word >> 5;
				c->cur = p + 4;
				c->cur_len = (uint32_t)len;
				c->rec = p + 4 + len;
				c->cur_ts = (int64_t)c->ts;
				return 1;
			}
		}
	}
	return tw_dat_cursor_next_slow(c);
}
void tw_dat_cursor_fini(tw_dat_cursor *c);
/* A page's (raw) timestamp in ns, with the file's time corrections. */
int64_t tw_dat_ts_ns(const tw_dat_file *f, uint64_t ts);

/*
 * dat-seek.c: where a cursor starts so that it reads every record from a
 * time on (TRAWL_OPEN_RANGE): in piece `part` (index + 1, 0: the span's
 * only one), `skip` chunks in with the next chunk header at file offset
 * `at` (compressed), or from byte `skip` of the piece's data (mapped).
 */
typedef struct tw_dat_place {
	uint32_t part;
	uint64_t skip;
	uint64_t at;
} tw_dat_place;

/*
 * The place of span's last page or chunk that begins before `from` (its
 * first when none does): a binary search of the pages' timestamps, or of
 * the compressed chunks' (each chunk looked at decompressed only as far as
 * its first page's timestamp). Damage makes it start earlier, never later.
 * Return: 0, or -1 out of memory.
 */
int tw_dat_seek_place(const tw_dat_file *f, const tw_dat_span *span,
		      int64_t from, tw_dat_place *out);
/* A span's page data in bytes, uncompressed (v7's chunks at the size they
 * decompress to, read from their headers: what a v6 file holds). */
uint64_t tw_dat_span_bytes(const tw_dat_file *f, const tw_dat_span *span);
/* Start a cursor just made (tw_dat_cursor_init) at a place. */
void tw_dat_cursor_place(tw_dat_cursor *c, const tw_dat_place *at);

/*
 * dat-ahead.c: the merge run a few batches ahead on a second thread, with
 * the texts the reader wants rendered there. The source's calls run on
 * that thread; the records and texts it hands out stay valid until the
 * next call to tw_dat_ahead_next().
 */
#define TW_DAT_NO_TEXT UINT32_MAX

typedef struct tw_dat_ahead_rec {
	int64_t ts;
	uint64_t lost;
	uint32_t buffer;
	int32_t cpu;
	uint32_t data_off, data_len;
	uint32_t text_off, text_len; /* TW_DAT_NO_TEXT: not rendered */
	uint32_t pre_off;	     /* TW_DAT_NO_TEXT: not decoded */
	uint32_t json_off, json_len; /* its fields as JSON; len 0: none */
	/* a record source's task name for it, NUL-terminated right after
	 * the record's data (TW_DAT_NO_TEXT: the source has none) */
	uint32_t comm_len;
	int32_t tgid; /* a record source's: the task's process, -1 */
} tw_dat_ahead_rec;

typedef struct tw_dat_pulled {
	int64_t ts;
	uint64_t lost; /* events the kernel lost on its CPU before it */
	uint32_t buffer;
	int32_t cpu;
	const unsigned char *data;
	uint32_t len;
} tw_dat_pulled;

typedef struct tw_dat_ahead_src {
	/* The next record of the merge: 1, or 0 at the end. */
	int (*pull)(void *ctx, tw_dat_pulled *out);
	/* What the consumer will want of the record, made now and kept in
	 * the batch's arena (after the record's copy): its text (setting
	 * rec->text_off, text_len), its fields decoded (rec->pre_off) and
	 * as JSON (rec->json_off, json_len).
	 * Return: 0, or -1 out of memory. */
	int (*prepare)(void *ctx, const unsigned char *data, uint32_t len,
		       tw_buf *arena, tw_dat_ahead_rec *rec);
	/* Bytes of the file read so far, for progress. */
	uint64_t (*done)(void *ctx);
	void *ctx;
} tw_dat_ahead_src;

typedef struct tw_dat_ahead tw_dat_ahead;

/* Start the thread; NULL when there is no memory or thread for it. */
tw_dat_ahead *tw_dat_ahead_start(const tw_mem *mem,
				 const tw_dat_ahead_src *src);
/* The next record: 1 with *rec, *data, *text and *pre (NULL: none) set;
 * 0 at the end; -1 when memory ran out on the way; 2 when the worker is
 * parked and everything it filled was taken (the merge is the caller's). */
int tw_dat_ahead_next(tw_dat_ahead *a, tw_dat_ahead_rec *rec,
		      const unsigned char **data, const char **text,
		      const unsigned char **pre, const char **json);
/* Ask the worker to stop pulling at its next batch boundary; then
 * tw_dat_ahead_next() hands out what it filled and returns 2. */
void tw_dat_ahead_park(tw_dat_ahead *a);
/* After tw_dat_ahead_next() returned 2: the worker pulls again, from where
 * the caller left the merge. */
void tw_dat_ahead_resume(tw_dat_ahead *a);
/* Progress as of the batch being read. */
uint64_t tw_dat_ahead_done(const tw_dat_ahead *a);
/* Stop the thread and free everything. */
void tw_dat_ahead_stop(tw_dat_ahead *a);

/*
 * dat-choice.c: whether the merge runs ahead on its thread or on the
 * consumer's, found out by timing both in windows of events on the run
 * itself (see there). The reader counts events down in `left` (not the
 * batches a parked worker filled before) and calls tw_dat_choice_end()
 * when it reaches 0.
 */
enum { TW_WAY_HERE = 0, TW_WAY_AHEAD = 1 };
enum {
	TW_CHOICE_AUTO,	 /* timed, as above */
	TW_CHOICE_HERE,	 /* one thread: --threads 1, a caller's allocator */
	TW_CHOICE_AHEAD, /* always ahead (TRAWL_MERGE_AHEAD=on) */
	TW_CHOICE_FLIP,	 /* the other way every window (flip:N, tests) */
};

typedef struct tw_dat_choice {
	int64_t (*now)(void); /* the clock (ns); a test's own */
	int policy;
	int way;	  /* of the window running */
	uint64_t left;	  /* its events still to come */
	uint64_t window;  /* events a window */
	uint64_t windows; /* ended so far */
	uint64_t switches;
	int settling;	      /* in the untimed start of a window */
	int ahead_warm;	      /* the thread ran one window */
	int exploring;	      /* this window times the losing way again */
	unsigned since_other; /* windows of the best way since then */
	unsigned explore_every;
	int64_t t0;   /* the timed part's start, ns */
	double ns[2]; /* recent time per event of each way; 0: none */
#define TW_CHOICE_KEEP 3
	double kept[2][TW_CHOICE_KEEP]; /* the last windows' of each way */
} tw_dat_choice;

/* possible: a second thread may be used at all. TRAWL_MERGE_AHEAD=auto,
 * on, off or flip:N picks the policy (auto by default). now: the clock,
 * NULL for CLOCK_MONOTONIC (tw_dat_choice_now). */
void tw_dat_choice_init(tw_dat_choice *c, int possible, int64_t (*now)(void));
/* The way of the next window. */
int tw_dat_choice_end(tw_dat_choice *c);
/* CLOCK_MONOTONIC in ns. */
int64_t tw_dat_choice_now(void);
/* No thread could be had: here from now on. */
void tw_dat_choice_give_up_ahead(tw_dat_choice *c);

/*
 * dat-feed.c: the merge of a feed's CPUs (a trace.dat still being made,
 * dat-feed.h) into one time order.
 */
struct tw_feed;
typedef struct tw_dat_merge tw_dat_merge;
tw_dat_merge *tw_dat_merge_new(const tw_mem *mem, const tw_dat_file *f,
			       const struct tw_feed *feed, int ncpu);
/*
 * The next record: TW_NEXT_EVENT with *out (its data valid until the next
 * call); TW_NEXT_TIME with out->ts when no event before that time is still
 * to come (handed out once per time, only while the merge waits);
 * TW_NEXT_EOF when every CPU ended; or a negative TRAWL_E* from the feed.
 */
int tw_dat_merge_next(tw_dat_merge *m, tw_dat_pulled *out);
/* Pages that could not be read, and where the first one was. */
uint64_t tw_dat_merge_damaged(const tw_dat_merge *m, uint64_t *first_off);
void tw_dat_merge_free(tw_dat_merge *m);

#endif
