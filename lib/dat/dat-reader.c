/* SPDX-License-Identifier: MIT */
/*
 * The trace.dat reader: every CPU of every buffer is a stream of records in
 * its own time order (dat-cpu.c); a binary heap merges them into one, ties
 * going to the lower buffer, then the lower CPU. The order pre-scan checks
 * each stream on its own (threads split the streams), since the merge of
 * streams that never go backwards never goes backwards either.
 *
 * Fields are read from the record through libtraceevent's parsed formats:
 * integers of every width and sign, char arrays, __data_loc strings. The
 * text of an event (trawl_event_payload) is what its print format makes of
 * it, the same text `trace-cmd report` shows; the text of one field is what
 * `trace-cmd report -R` shows.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <traceevent/event-parse.h>
#include <traceevent/trace-seq.h>
#include <unistd.h>

#include "../pfmt/pfmt.h"
#include "../input/input.h"
#include "dat-feed.h"
#include "dat-records.h"
#include "dat-int.h"

#define COMM_CACHE     1024
#define COMMS_EVERY_NS (50 * 1000 * 1000)
#define SYM_CACHE      256
#define MAX_THREADS    16
#define NO_FIELD       ((const void *)&no_field)

static const char no_field;

/* What the reader knows of one event id. */
typedef struct dat_type {
	tw_type *type;		 /* made on first delivery */
	struct tep_event *event; /* NULL: no (usable) format in the file */
	int parsed;		 /* the format was looked for */
	tw_pfmt *pf;		 /* its print format compiled, on first need */
	int compiled;
	/* ftrace:kernel_stack: each record is checked against its size
	 * (tw_pfmt_stack_short()), on the consumer's thread */
	int stack_named;
	/* The consumer asks for the text of this type's events: the merge
	 * ahead renders it (set once, read by the ahead thread). */
	int want_text;
	uint64_t asked;
	/* ... and its fields, all of them (want_fields likewise) */
	int want_fields;
	uint64_t asked_fields;
	/* ... and its fields as JSON (want_json likewise) */
	int want_json;
	uint64_t asked_json;
	/* Fields decoded ahead in the compact form (only strings and plain
	 * integers: a word each): whether this type's are, as the ahead
	 * thread found (0: not known yet, 1: yes, -1: no; that thread's
	 * alone), and the consumer's templates of what does not change from
	 * one event to the next (its alone; tmpl_n 0: not made yet). */
	int ahead_compact;
	int tmpl_n;
	uint64_t tmpl_str; /* bit i: field i is a string */
	tw_kv *tmpl_kv;
	tw_pf_value *tmpl_tv;
	trawl_field_entry *tmpl_fe; /* what trawl_event_fields() gives */
	/* The JSON of a compact type's field names, `"name":` each, made
	 * once by the ahead thread (its alone): json_key[i] is where field
	 * i's begins in json_keys, json_key[n] the end. */
	char *json_keys;
	uint32_t *json_key;
} dat_type;

#define TYPE_PAGE  256u
#define TYPE_PAGES ((TW_DAT_MAX_EVENT_ID + 1) / TYPE_PAGE)

struct comm_slot {
	int32_t pid;
	uint32_t len;
	int32_t tgid; /* live: the task's process, -1 if not known */
	const char *comm;
	char own[20]; /* a feed's name for a task the comms lack */
};

struct heap_ent {
	int64_t ts;
	uint32_t idx;
};

struct dat_reader;

/* Symbols looked up lately: one cache per thread that renders. */
struct sym_cache {
	struct dat_reader *r;
	struct sym_slot {
		uint64_t addr;
		const char *name;
		uint64_t offset, size;
		const char *module;
		int valid;
	} slot[SYM_CACHE];
};

typedef struct dat_reader {
	tw_dat_file f;
	/* the input; a stream (pipe, compressed file) is read from its
	 * temporary copy (tw_input_spool) */
	struct tw_input *in;

	/* The merge: moved for every record by the merge-ahead thread, when
	 * there is one; kept off the cache lines of what the consumer's
	 * thread reads per event (the padding), which ping-ponged. */
	char pad_before_merge[64];
	tw_dat_cursor *cur;
	size_t ncur;
	struct heap_ent *heap; /* a min-heap of streams on (ts, index) */
	size_t nheap;
	int started;
	int pending; /* the top stream's record was handed out: advance it */
	char pad_after_merge[64];
	int finished;

	/* by id, in pages made when an id is first seen (a whole table of
	 * 65536 was 8 MiB of memory the close and each rewind went over) */
	dat_type *types[TYPE_PAGES];
	int type_off, type_size, flags_off, preempt_off, pid_off;
	struct comm_slot comms[COMM_CACHE];
	int32_t last_tgid; /* live: the tgid of comm_of()'s task */
	uint16_t flag_map[256];

	struct tep_plugin_list *plugins;
	int plugins_loaded;
	struct trace_seq seq;
	tw_buf raw; /* a record with its buffer and CPU, for the sorter */
	tw_buf pad; /* a record followed by zeros, for libtraceevent */
	tw_pf_resolve resolve; /* symbols and strings for the programs */
	struct sym_cache syms;
	/* the record fill_rec() made holds fewer stack frames than its size
	 * says: counted as damage when it is delivered */
	int stack_short;
	uint64_t stack_off; /* its file offset, when known (else 0) */
	/* trawl_trace_symbol(): a feed without kallsyms asked for them
	 * (once); the texts keep printing addresses (api_only) */
	int late_syms_asked, syms_api_only;
	/* the merge on a second thread (dat-ahead.c), and its own cache */
	tw_dat_ahead *ahead; /* made the first time it is chosen */
	int ahead_on;	     /* the events come from it now */
	int draining;	     /* it is parked: its last batches come first */
	int choice_made;     /* choice is set up for this run */
	tw_dat_choice choice;
	tw_pf_resolve ahead_resolve;
	struct sym_cache *ahead_syms;
	struct ahead_scratch *ahead_dec;
	/* the delivered event's fields, decoded ahead (NULL: not): written
	 * for every event, so not beside what the ahead thread reads */
	char pad_before_cur[64];
	const unsigned char *cur_pre;
	const char *cur_json; /* and as JSON (NULL: not made) */
	uint32_t cur_json_len;
	int strict;
	/* A trace.dat still being made (tw_dat_open_feed): its pages come
	 * from the feed, merged as they come; comms are asked for again
	 * (every COMMS_EVERY_NS at most) when a pid has none. */
	const tw_feed *feed;
	tw_dat_merge *merge;
	int64_t comms_at;
	/* Records of ftrace's layout from another container (a perf.data,
	 * tw_dat_open_records): they come in time order from the source,
	 * which also names the tasks (its own, owned here). */
	const tw_records *recs;
	/* a record source's pulled ahead: its failure, the bytes in all,
	 * and the task name the worker took for the event being filled
	 * (given: the source is not to be asked on this thread) */
	int ahead_rc;
	trawl_error ahead_err;
	uint64_t recs_total;
	int given;
	const char *given_comm;
	uint32_t given_comm_len;
	int32_t given_tgid;
	/* A ranged run (seek_range): where each stream starts, and the
	 * range; streams skip what is before it, the merge ends after it. */
	tw_dat_place *places;
	int ranged;
	int64_t from, to;
} dat_reader;

/* What a record kept by the sorter carries before its data. */
struct kept_header {
	uint32_t buffer;
	int32_t cpu;
	int64_t ts;
};

static void ahead_stop(dat_reader *r);

static dat_reader *rd(const trawl_trace *t)
{
	return t->reader;
}

/* The heap keeps each stream's next time beside its index: compact. */
static inline int before(const struct heap_ent *a, const struct heap_ent *b)
{
	return a->ts < b->ts || (a->ts == b->ts && a->idx < b->idx);
}

static void sift_down(dat_reader *r, size_t i)
{
	size_t n = r->nheap;
	struct heap_ent *h = r->heap;
	for (;;) {
		size_t l = 2 * i + 1, m = i;
		if (l < n && before(&h[l], &h[m]))
			m = l;
		if (l + 1 < n && before(&h[l + 1], &h[m]))
			m = l + 1;
		if (m == i)
			return;
		struct heap_ent x = h[i];
		h[i] = h[m];
		h[m] = x;
		i = m;
	}
}

static void heap_build(dat_reader *r)
{
	r->nheap = 0;
	for (size_t i = 0; i < r->ncur; i++) {
		tw_dat_cursor *c = &r->cur[i];
		int more = tw_dat_cursor_next(c);
		while (more && r->ranged && c->cur_ts < r->from)
			more = tw_dat_cursor_next(c);
		if (more)
			r->heap[r->nheap++] =
				(struct heap_ent){c->cur_ts, (uint32_t)i};
	}
	for (size_t i = r->nheap / 2; i-- > 0;)
		sift_down(r, i);
	r->started = 1;
}

/* The stream on top moved on (or ended): put the heap right. */
static inline void heap_advance(dat_reader *r)
{
	struct heap_ent *h = r->heap;
	tw_dat_cursor *c = &r->cur[h[0].idx];
	if (tw_dat_cursor_next(c)) {
		h[0].ts = c->cur_ts;
		/* most often it stays on top: one look at each child */
		if (r->nheap == 1 || (before(&h[0], &h[1]) &&
				      (r->nheap == 2 || before(&h[0], &h[2]))))
			return;
	} else if (--r->nheap) {
		h[0] = h[r->nheap];
	} else {
		return;
	}
	sift_down(r, 0);
}

/* The type of event id `id`, made on first use. */
/* The entry of id, its page made if need be (NULL: no id, no memory).
 * The merge ahead's thread reads the pages: a page is whole before it
 * is there to see. */
static dat_type *type_slot(dat_reader *r, uint32_t id)
{
	if (id > TW_DAT_MAX_EVENT_ID)
		return NULL;
	dat_type **pg = &r->types[id / TYPE_PAGE];
	if (!*pg) {
		dat_type *p = tw_calloc(r->f.mem, TYPE_PAGE, sizeof(*p));
		if (!p)
			return NULL;
		__atomic_store_n(pg, p, __ATOMIC_RELEASE);
	}
	return &(*pg)[id % TYPE_PAGE];
}

/* The entry of id if its page is there (any thread). */
static dat_type *type_seen(dat_reader *r, uint32_t id)
{
	if (id > TW_DAT_MAX_EVENT_ID)
		return NULL;
	dat_type *pg =
		__atomic_load_n(&r->types[id / TYPE_PAGE], __ATOMIC_ACQUIRE);
	return pg ? &pg[id % TYPE_PAGE] : NULL;
}

static dat_type *type_of(trawl_trace *t, dat_reader *r, uint32_t id)
{
	dat_type *dt = type_slot(r, id);
	if (!dt)
		return NULL;
	if (dt->type)
		return dt;
	if (!dt->parsed) {
		dt->parsed = 1;
		dt->event = tw_dat_parse_format(&r->f, id);
	}
	if (dt->event) {
		dt->type =
			tw_type_new(t, dt->event->name,
				    dt->event->system ? dt->event->system : "");
	} else {
		char name[32];
		snprintf(name, sizeof(name), "unknown_event_%u", id);
		dt->type = tw_type_new(t, name, "");
	}
	if (dt->type)
		dt->type->bin = dt;
	dt->stack_named = dt->event && dt->event->system &&
			  !strcmp(dt->event->system, "ftrace") &&
			  !strcmp(dt->event->name, "kernel_stack");
	return dt->type ? dt : NULL;
}

static tw_pfmt *type_program(dat_reader *r, dat_type *dt);

/* Whether a kernel_stack record is shorter than its size says. */
static __attribute__((noinline)) int stack_short(dat_reader *r, dat_type *dt,
						 const unsigned char *data,
						 uint32_t len)
{
	const tw_pfmt *pf = type_program(r, dt);
	return pf && tw_pfmt_stack_short(pf, data, len);
}

/* A feed's comms, asked for again when a pid has none (new tasks). */
static void fresh_comms(dat_reader *r)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	int64_t ns = (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
	if (ns < r->comms_at)
		return;
	r->comms_at = ns + COMMS_EVERY_NS;
	const char *text = r->feed->comms(r->feed->ctx);
	/* out of memory: no comms, the events still go out */
	if (text && tw_dat_set_comms(&r->f, text) == 0)
		memset(r->comms, 0, sizeof(r->comms));
}

static const char *comm_of(dat_reader *r, int32_t pid, uint32_t *len)
{
	if (r->recs) {
		/* the source's names change as its records go by (COMM); ahead,
		 * the worker asked it when it pulled the record */
		int32_t tgid = -1;
		const char *c =
			r->given ? r->given_comm
				 : r->recs->comm(r->recs->ctx, pid, len, &tgid);
		r->last_tgid = r->given ? r->given_tgid : tgid;
		if (c) {
			if (r->given)
				*len = r->given_comm_len;
			return c;
		}
	}
	struct comm_slot *s = &r->comms[(uint32_t)pid % COMM_CACHE];
	if (!s->comm || s->pid != pid ||
	    (TW_UNLIKELY(r->feed != NULL) && s->comm[0] == '<' && pid)) {
		/* Live, the task's name now comes first: saved_cmdlines
		 * may still hold an older task's name for a pid used again
		 * (or the name before an exec). */
		const char *c = r->feed && pid
					? r->feed->comm(r->feed->ctx, pid)
					: NULL;
		if (r->feed && pid && !c)
			fresh_comms(r); /* may empty the cache */
		s->pid = pid;
		/* live, the process of the task as /proc says it */
		s->tgid = !pid ? 0
			  : r->feed && r->feed->tgid
				  ? r->feed->tgid(r->feed->ctx, pid)
				  : -1;
		if (c) {
			snprintf(s->own, sizeof(s->own), "%s", c);
			s->comm = s->own;
		} else {
			s->comm = tw_dat_comm(&r->f, pid);
		}
		s->len = (uint32_t)strlen(s->comm);
	}
	*len = s->len;
	if (TW_UNLIKELY(r->feed != NULL))
		r->last_tgid = s->tgid;
	return s->comm;
}

static uint64_t read_uint(const tw_dat_file *f, const unsigned char *p,
			  int size)
{
	switch (size) {
	case 1:
		return p[0];
	case 2:
		return tw_dat_u16(f, p);
	case 4:
		return tw_dat_u32(f, p);
	case 8:
		return tw_dat_u64(f, p);
	}
	return 0;
}

/* Map the kernel's trace_flag_type bits to trawl's. */
static uint16_t map_flags(unsigned k)
{
	uint16_t v = TRAWL_FLAG_KNOWN;
	if (k & 0x01)
		v |= TRAWL_FLAG_IRQS_OFF;
	if (k & 0x02) /* NEED_RESCHED_LAZY (6.13+), 'L' in text */
		v |= TRAWL_FLAG_NEED_RESCHED;
	if (k & 0x04)
		v |= TRAWL_FLAG_NEED_RESCHED;
	if (k & 0x08)
		v |= TRAWL_FLAG_HARDIRQ;
	if (k & 0x10)
		v |= TRAWL_FLAG_SOFTIRQ;
	if (k & 0x20)
		v |= TRAWL_FLAG_PREEMPT_RESCHED;
	if (k & 0x40)
		v |= TRAWL_FLAG_NMI;
	if (k & 0x80)
		v |= TRAWL_FLAG_BH_OFF;
	return v;
}

/* Fill rec from a record's data; buffer and cpu as the file says. */
static int fill_rec(trawl_trace *t, dat_reader *r, tw_rec *rec, int64_t ts,
		    uint32_t buffer, int32_t cpu, const unsigned char *data,
		    uint32_t len)
{
	const tw_dat_file *f = &r->f;
	/* A record too short for its header, or an id no format could
	 * have, is damaged. */
	if (TW_UNLIKELY(len < (uint32_t)(r->type_off + r->type_size)))
		return -1;
	uint32_t id = r->type_size == 2
			      ? tw_dat_u16(f, data + r->type_off)
			      : (uint32_t)read_uint(f, data + r->type_off,
						    r->type_size);
	dat_type *dt = type_seen(r, id);
	if (TW_UNLIKELY(!dt || !dt->type))
		dt = type_of(t, r, id);
	if (TW_UNLIKELY(!dt))
		return -1;
	rec->ts = ts;
	rec->cpu = cpu;
	rec->tgid = -1;
	rec->pid = len >= (uint32_t)r->pid_off + 4
			   ? (int32_t)tw_dat_u32(f, data + r->pid_off)
			   : 0;
	rec->flags = len > (uint32_t)r->flags_off
			     ? r->flag_map[data[r->flags_off]]
			     : 0;
	rec->preempt = len > (uint32_t)r->preempt_off
			       ? (int8_t)(data[r->preempt_off] & 0xf)
			       : -1;
	if (!(rec->flags & TRAWL_FLAG_KNOWN))
		rec->preempt = -1; /* both come from the same header */
	else if (rec->preempt < 0)
		rec->preempt = 0;
	rec->comm = comm_of(r, rec->pid, &rec->comm_len);
	if (TW_UNLIKELY(r->feed != NULL || r->recs != NULL))
		rec->tgid = r->last_tgid;
	if (TW_UNLIKELY(dt->stack_named))
		r->stack_short = stack_short(r, dt, data, len);
	rec->type = dt->type;
	rec->bits = TW_EV_TYPED | TW_EV_BINARY | TW_EV_COMM_Z;
	rec->payload = (const char *)data;
	rec->payload_len = len;
	rec->name_len = buffer;
	rec->raw = NULL; /* and no text */
	rec->raw_len = 0;
	rec->line = 0;
	return 0;
}

/* Count what the walk found behind us: lost events, damaged pages. */
static void note_lost(trawl_trace *t, tw_dat_cursor *c)
{
	if (c->lost) {
		tw_note_lost_in(t, c->span->buffer, c->span->cpu, c->lost);
		c->lost = 0;
	}
}

static int finish(trawl_trace *t, dat_reader *r, trawl_error *err)
{
	if (r->finished)
		return TW_NEXT_EOF;
	r->finished = 1;
	if (r->merge) {
		uint64_t off, damaged = tw_dat_merge_damaged(r->merge, &off);
		if (damaged) {
			tw_note_bad_line(t, off);
			t->stats.bad_lines += damaged - 1;
		}
		/* as a trace.dat's CPU stats say it */
		t->stats.overwritten = r->feed->overrun(r->feed->ctx);
		return TW_NEXT_EOF;
	}
	if (r->recs)
		return r->recs->finish(r->recs->ctx, err);
	const tw_dat_cursor *first = NULL;
	uint64_t damaged = 0;
	if (r->f.meta_damaged) {
		tw_note_bad_line(t, r->f.meta_damage_off);
		if (r->strict)
			return tw_error_at(
				err, TRAWL_EPARSE, 0, t->name, 0, 0,
				r->f.meta_damage_off,
				"a damaged symbol, printk or comm "
				"section at offset %llu",
				(unsigned long long)r->f.meta_damage_off);
	}
	for (size_t i = 0; i < r->ncur; i++) {
		tw_dat_cursor *c = &r->cur[i];
		note_lost(t, c);
		if (!c->damaged)
			continue;
		damaged += c->damaged;
		/* the first place of each CPU's damage is kept, all counted */
		tw_note_bad_line(t, c->damage_off);
		t->stats.bad_lines += c->damaged - 1;
		if (!first)
			first = c;
	}
	if (first && r->strict)
		return tw_error_at(err, TRAWL_EPARSE, 0, t->name, 0, 0,
				   first->damage_off,
				   "damaged data at offset %llu (CPU %d): %s",
				   (unsigned long long)first->damage_off,
				   first->span->cpu, first->damage_why);
	/* The rest is counted (stats.bad_lines, with offsets); a file cut
	 * short is also an error, after everything readable was read. */
	for (size_t i = 0; i < r->ncur; i++) {
		const tw_dat_cursor *c = &r->cur[i];
		if (c->damaged && c->damage_off >= r->f.size)
			return tw_error_at(
				err, TRAWL_EPARSE, 0, t->name, 0, 0,
				c->damage_off,
				"the file is truncated at offset %llu: CPU %d "
				"of buffer \"%s\" has data past the end (%llu "
				"damaged places in all); the events before "
				"were read",
				(unsigned long long)c->damage_off, c->span->cpu,
				r->f.buffers[c->span->buffer].name,
				(unsigned long long)damaged);
	}
	return TW_NEXT_EOF;
}

/* The top of the merge: its stream, or NULL at the end. */
static tw_dat_cursor *merge_next(dat_reader *r)
{
	if (!r->started)
		heap_build(r);
	if (r->pending) {
		/* Advanced only now: a chunk may be reloaded in place. */
		r->pending = 0;
		heap_advance(r);
	}
	if (r->nheap == 0 || (r->ranged && r->heap[0].ts > r->to))
		return NULL;
	r->pending = 1;
	return &r->cur[r->heap[0].idx];
}

static int ahead_start(trawl_trace *t, dat_reader *r);

/* A record fill_rec() refused: counted, or the error with --strict. */
static int short_record(trawl_trace *t, dat_reader *r, uint32_t len,
			int32_t cpu, trawl_error *err)
{
	if (r->strict)
		return tw_error_at(err, TRAWL_EPARSE, 0, t->name, 0, 0, 0,
				   "a record of %u bytes on CPU %d is too "
				   "short for an event header",
				   len, cpu);
	tw_note_bad_line(t, 0);
	return 0;
}

/*
 * A window of events ended (dat-choice.c): run the next one the way
 * chosen. Ahead to here parks the worker; the batches it filled before
 * are taken first and count for neither way.
 */
static __attribute__((noinline)) void new_window(trawl_trace *t, dat_reader *r)
{
	int way = tw_dat_choice_end(&r->choice);
	if (way == TW_WAY_AHEAD && !r->ahead_on) {
		if (r->ahead)
			tw_dat_ahead_resume(r->ahead);
		else
			ahead_start(t, r);
		if (r->ahead)
			r->ahead_on = 1;
		else
			tw_dat_choice_give_up_ahead(&r->choice);
	} else if (way == TW_WAY_HERE && r->ahead_on) {
		tw_dat_ahead_park(r->ahead);
		r->draining = 1;
	}
}

static void choice_start(trawl_trace *t, dat_reader *r)
{
	/* not with one thread asked for, nor with a caller's allocator
	 * (which need not be thread-safe), nor for a live feed (the merge
	 * waits for the kernel) */
	int possible = t->opts.threads != 1 && !t->opts.realloc && !r->feed;
	tw_dat_choice_init(&r->choice, possible, NULL);
	r->choice_made = 1;
	if (r->choice.way == TW_WAY_AHEAD) {
		ahead_start(t, r);
		if (r->ahead)
			r->ahead_on = 1;
		else
			tw_dat_choice_give_up_ahead(&r->choice);
	}
}

static int next_event(trawl_trace *t, dat_reader *r, tw_rec *rec, int scan,
		      trawl_error *err);

/* The record about to be delivered is a stack shorter than its size
 * says: it goes out with the frames it holds, counted as damaged, or is
 * the error with --strict. Return: 0, or that error. */
static __attribute__((noinline)) int
short_stack(trawl_trace *t, dat_reader *r, const tw_rec *rec, trawl_error *err)
{
	uint64_t off = r->stack_off;
	r->stack_short = 0;
	r->stack_off = 0;
	if (r->strict)
		return tw_error_at(err, TRAWL_EPARSE, 0, t->name, 0, 0, off,
				   "a kernel_stack record of %u bytes on CPU "
				   "%d at offset %llu holds fewer frames than "
				   "its size says",
				   rec->payload_len, rec->cpu,
				   (unsigned long long)off);
	tw_note_bad_line(t, off);
	return 0;
}

/* What a record source noted between its events, into the counters; a
 * damaged record is the error with --strict. Return: 0, or that error. */
static int source_note(trawl_trace *t, dat_reader *r, int kind, int32_t cpu,
		       uint64_t value, trawl_error *err)
{
	if (kind == TW_RECORD_LOST)
		tw_note_lost(t, cpu, value);
	else if (kind == TW_RECORD_DAMAGED && r->strict)
		return tw_error_at(err, TRAWL_EPARSE, 0, t->name, 0, 0, value,
				   "damaged record at offset %llu",
				   (unsigned long long)value);
	else if (kind == TW_RECORD_DAMAGED)
		tw_note_bad_line(t, value);
	return 0;
}

static int next(trawl_trace *t, tw_rec *rec, int scan, trawl_error *err)
{
	dat_reader *r = rd(t);
	if (!scan) {
		if (TW_UNLIKELY(!r->choice_made))
			choice_start(t, r);
		if (!r->draining && TW_UNLIKELY(--r->choice.left == 0))
			new_window(t, r);
	}
	return next_event(t, r, rec, scan, err);
}

static int next_event(trawl_trace *t, dat_reader *r, tw_rec *rec, int scan,
		      trawl_error *err)
{
	if (r->merge) {
		for (;;) {
			tw_dat_pulled p;
			int rc = tw_dat_merge_next(r->merge, &p);
			if (rc == TW_NEXT_TIME) {
				rec->ts = p.ts;
				return rc;
			}
			if (rc < 0)
				return tw_error_at(err, -rc, 0, t->name, 0, 0,
						   0,
						   "the live source failed: "
						   "%s",
						   trawl_strerror(rc));
			if (rc == TW_NEXT_EOF)
				return finish(t, r, err);
			if (p.lost)
				tw_note_lost(t, p.cpu, p.lost);
			if (fill_rec(t, r, rec, p.ts, 0, p.cpu, p.data,
				     p.len) == 0) {
				if (TW_UNLIKELY(r->stack_short) &&
				    (rc = short_stack(t, r, rec, err)))
					return rc;
				return TW_NEXT_EVENT;
			}
			if ((rc = short_record(t, r, p.len, p.cpu, err)))
				return rc;
		}
	}
	int got = 0;
	while (r->ahead_on && !got) {
		tw_dat_ahead_rec a;
		const unsigned char *data, *pre;
		const char *text, *json;
		int rc = tw_dat_ahead_next(r->ahead, &a, &data, &text, &pre,
					   &json);
		if (rc == 2) {
			/* parked and drained: the merge is this thread's */
			r->ahead_on = r->draining = 0;
			r->cur_pre = NULL;
			r->cur_json = NULL;
			break;
		}
		if (rc < 0)
			return tw_error_at(err, TRAWL_ENOMEM, 0, t->name, 0, 0,
					   0, "out of memory");
		if (rc == 0) {
			if (r->ahead_rc < 0) { /* the source failed */
				*err = r->ahead_err;
				return r->ahead_rc;
			}
			return finish(t, r, err);
		}
		if (TW_UNLIKELY(r->recs && !a.data_len)) {
			/* a source's note: its kind in buffer, value in lost */
			int nrc = source_note(t, r, (int)a.buffer, a.cpu,
					      a.lost, err);
			if (nrc)
				return nrc;
			continue;
		}
		if (a.lost)
			tw_note_lost(t, a.cpu, a.lost);
		if (r->recs) {
			r->given = 1;
			r->given_comm =
				a.comm_len == TW_DAT_NO_TEXT
					? NULL
					: (const char *)data + a.data_len;
			r->given_comm_len = a.comm_len;
			r->given_tgid = a.tgid;
		}
		int filled = fill_rec(t, r, rec, a.ts, a.buffer, a.cpu, data,
				      a.data_len);
		r->given = 0;
		if (filled == 0) {
			rec->text = text;
			rec->text_len = text ? a.text_len : 0;
			r->cur_pre = pre;
			r->cur_json = json;
			r->cur_json_len = a.json_len;
			got = 1;
		} else if ((rc = short_record(t, r, a.data_len, a.cpu, err))) {
			return rc;
		}
	}
	while (r->recs && !got) {
		tw_record p;
		int rc = r->recs->next(r->recs->ctx, &p, scan, err);
		if (rc < 0)
			return rc;
		if (rc == TW_NEXT_EOF)
			return scan ? TW_NEXT_EOF : finish(t, r, err);
		if (scan) {
			rec->ts = p.ts;
			return TW_NEXT_EVENT;
		}
		if (TW_UNLIKELY(p.kind != TW_RECORD_EVENT)) {
			int nrc =
				source_note(t, r, p.kind, p.cpu, p.value, err);
			if (nrc)
				return nrc;
			continue;
		}
		if (fill_rec(t, r, rec, p.ts, 0, p.cpu, p.data, p.len) == 0)
			got = 1;
		else if ((rc = short_record(t, r, p.len, p.cpu, err)))
			return rc;
	}
	while (!got) {
		tw_dat_cursor *c = merge_next(r);
		if (!c)
			return scan ? TW_NEXT_EOF : finish(t, r, err);
		if (scan) {
			rec->ts = c->cur_ts;
			return TW_NEXT_EVENT;
		}
		note_lost(t, c);
		if (fill_rec(t, r, rec, c->cur_ts, c->span->buffer,
			     c->span->cpu, c->cur, c->cur_len) == 0) {
			if (TW_UNLIKELY(r->stack_short)) /* where it is */
				r->stack_off =
					c->data_file_off +
					(c->compressed ? 0
						       : (uint64_t)(c->cur -
								    c->data));
			break;
		}
		int rc = short_record(t, r, c->cur_len, c->span->cpu, err);
		if (rc)
			return rc;
	}
	if (TW_UNLIKELY(r->stack_short)) {
		int rc = short_stack(t, r, rec, err);
		if (rc)
			return rc;
	}
	if (t->need_raw) {
		/* all the sorter needs to give the record back */
		struct kept_header h = {rec->name_len, rec->cpu, rec->ts};
		r->raw.len = 0;
		int rc = tw_buf_append(&t->mem, &r->raw, &h, sizeof(h)) ||
			 tw_buf_append(&t->mem, &r->raw, rec->payload,
				       rec->payload_len);
		if (r->recs && !rc) {
			/* a source's names change as it goes: the one of now
			 * goes with the record, NUL-terminated, its length
			 * last */
			uint32_t n = rec->comm_len;
			int32_t tgid = rec->tgid;
			rc = tw_buf_append(&t->mem, &r->raw, rec->comm, n) ||
			     tw_buf_append(&t->mem, &r->raw, "", 1) ||
			     tw_buf_append(&t->mem, &r->raw, &tgid,
					   sizeof(tgid)) ||
			     tw_buf_append(&t->mem, &r->raw, &n, sizeof(n));
		}
		if (rc)
			return tw_error_at(err, TRAWL_ENOMEM, 0, t->name, 0, 0,
					   0, "out of memory");
		rec->raw = r->raw.data;
		rec->raw_len = (uint32_t)r->raw.len;
	}
	return TW_NEXT_EVENT;
}

static int reparse(trawl_trace *t, const char *raw, size_t len, tw_rec *rec)
{
	rd(t)->cur_pre = NULL;
	rd(t)->cur_json = NULL;
	struct kept_header h;
	if (len < sizeof(h))
		return -1;
	memcpy(&h, raw, sizeof(h));
	uint32_t comm_len = 0;
	int32_t tgid = -1;
	size_t data_len = len - sizeof(h);
	if (rd(t)->recs) {
		/* the source's name, NUL, tgid and the name's length last */
		size_t tail = sizeof(tgid) + sizeof(comm_len);
		if (data_len < tail + 1)
			return -1;
		memcpy(&comm_len, raw + len - sizeof(comm_len),
		       sizeof(comm_len));
		memcpy(&tgid, raw + len - tail, sizeof(tgid));
		if (comm_len > data_len - tail - 1)
			return -1;
		data_len -= tail + 1 + comm_len;
	}
	if (fill_rec(t, rd(t), rec, h.ts, h.buffer, h.cpu,
		     (const unsigned char *)raw + sizeof(h),
		     (uint32_t)data_len))
		return -1;
	rd(t)->stack_short = 0; /* counted when it was first read */
	if (rd(t)->recs) {
		rec->comm = raw + sizeof(h) + data_len;
		rec->comm_len = comm_len;
		rec->tgid = tgid;
	}
	return TW_NEXT_EVENT;
}

static int rewind_dat(trawl_trace *t, trawl_error *err)
{
	(void)err;
	dat_reader *r = rd(t);
	if (r->merge)
		return -TRAWL_EUNSUPPORTED; /* what came is gone */
	if (r->recs) {
		ahead_stop(r); /* the worker is done with the source */
		int rc = r->recs->rewind(r->recs->ctx, err);
		if (rc == 0)
			r->finished = 0;
		return rc;
	}
	ahead_stop(r);
	for (size_t i = 0; i < r->ncur; i++) {
		if (tw_dat_cursor_init(&r->cur[i], &r->f, &r->f.spans[i]))
			return tw_error_at(err, TRAWL_ENOMEM, 0, t->name, 0, 0,
					   0, "out of memory");
		if (r->places)
			tw_dat_cursor_place(&r->cur[i], &r->places[i]);
	}
	r->started = 0;
	r->pending = 0;
	r->finished = 0;
	return 0;
}

/*
 * The order pre-scan: does any stream go backwards? It reads (and
 * decompresses) every record before the run, on all threads, so its
 * work is cut into pieces the threads take in turn: a compressed CPU's
 * chunks PIECE_CHUNKS at a time (each chunk's first page carries the
 * absolute time its records count from, so a piece reads alone), any
 * other stream whole. A stream is in order when each piece is and each
 * piece ends no later than the next one begins. (One piece per stream
 * left the thread with the busiest CPU's stream working alone for a third
 * of the scan.)
 */
#define PIECE_CHUNKS 64

struct scan_piece {
	size_t stream;
	tw_dat_place at; /* whole: not used */
	uint32_t nchunks, whole;
	int64_t first, last; /* INT64_MIN: no records */
};

struct scan_job {
	dat_reader *r;
	struct scan_piece *pieces;
	size_t npieces;
	size_t next;  /* the next piece to take (atomic) */
	int unsorted; /* atomic: a piece went backwards */
	int failed;   /* atomic */
};

static void scan_piece(struct scan_job *j, struct scan_piece *p)
{
	dat_reader *r = j->r;
	tw_dat_cursor c = {0};
	p->first = p->last = INT64_MIN;
	if (tw_dat_cursor_init(&c, &r->f, &r->f.spans[p->stream])) {
		__atomic_store_n(&j->failed, 1, __ATOMIC_RELAXED);
		return;
	}
	if (r->places)
		tw_dat_cursor_place(&c, &r->places[p->stream]);
	else if (!p->whole) {
		tw_dat_cursor_place(&c, &p->at);
		c.walk.chunks_left = p->nchunks;
	}
	int64_t last = INT64_MIN;
	while (tw_dat_cursor_next(&c)) {
		if (r->ranged && c.cur_ts < r->from)
			continue;
		if (r->ranged && c.cur_ts > r->to)
			break; /* the merge ends here */
		if (c.cur_ts < last) {
			__atomic_store_n(&j->unsorted, 1, __ATOMIC_RELAXED);
			break;
		}
		if (last == INT64_MIN)
			p->first = c.cur_ts;
		last = c.cur_ts;
		if (!(c.cur_ts & 0xfff) &&
		    __atomic_load_n(&j->unsorted, __ATOMIC_RELAXED))
			break; /* another piece settled it */
	}
	p->last = last;
	tw_dat_cursor_fini(&c);
}

static void *scan_streams(void *arg)
{
	struct scan_job *j = arg;
	for (;;) {
		size_t i = __atomic_fetch_add(&j->next, 1, __ATOMIC_RELAXED);
		if (i >= j->npieces ||
		    __atomic_load_n(&j->unsorted, __ATOMIC_RELAXED) ||
		    __atomic_load_n(&j->failed, __ATOMIC_RELAXED))
			return NULL;
		scan_piece(j, &j->pieces[i]);
	}
}

/* Stream i's pieces appended to *out: a compressed stream of one piece of
 * data is cut at chunk headers (walked, not decompressed). */
static int add_pieces(dat_reader *r, size_t i, struct scan_piece **out,
		      size_t *n, size_t *cap)
{
	const tw_dat_file *f = &r->f;
	const tw_dat_span *sp = &f->spans[i];
	uint32_t count = 0;
	uint64_t at = sp->offset + 4;
	int cut = f->compressed && !sp->part && !r->places &&
		  sp->offset <= f->size && f->size - sp->offset >= 4;
	if (cut)
		count = tw_dat_u32(f, f->map + sp->offset);
	for (uint32_t c = 0; c < count || !cut; c += PIECE_CHUNKS) {
		if (*n == *cap) {
			size_t nc = *cap ? *cap * 2 : 16;
			struct scan_piece *p =
				tw_realloc(f->mem, *out, nc * sizeof(*p));
			if (!p)
				return -1;
			*out = p, *cap = nc;
		}
		struct scan_piece *p = &(*out)[(*n)++];
		*p = (struct scan_piece){.stream = i, .whole = !cut};
		if (!cut)
			return 0;
		p->at = (tw_dat_place){.part = 0, .skip = c, .at = at};
		p->nchunks =
			count - c < PIECE_CHUNKS ? count - c : PIECE_CHUNKS;
		/* the next piece's first chunk header */
		for (uint32_t k = 0; k < p->nchunks; k++) {
			if (at > f->size || f->size - at < 8) {
				/* damage: the last piece reads to it */
				p->nchunks = count - c;
				return 0;
			}
			at += 8 + (uint64_t)tw_dat_u32(f, f->map + at);
		}
	}
	return 0;
}

/* A ranged run: each stream starts at the last page or chunk that
 * begins before `from` (dat-seek.c). */
static int seek_range(trawl_trace *t, int64_t from, int64_t to,
		      trawl_error *err)
{
	dat_reader *r = rd(t);
	if (r->merge || r->recs)
		return -TRAWL_EUNSUPPORTED;
	r->ranged = 1;
	r->from = from;
	r->to = to;
	tw_free(&t->mem, r->places);
	r->places =
		tw_calloc(&t->mem, r->ncur ? r->ncur : 1, sizeof(*r->places));
	if (!r->places)
		return tw_error_at(err, TRAWL_ENOMEM, 0, t->name, 0, 0, 0,
				   "out of memory");
	for (size_t i = 0; i < r->ncur; i++)
		if (tw_dat_seek_place(&r->f, &r->f.spans[i], from,
				      &r->places[i]))
			return tw_error_at(err, TRAWL_ENOMEM, 0, t->name, 0, 0,
					   0, "out of memory");
	return rewind_dat(t, err);
}

static int prescan(trawl_trace *t, int threads, int *sorted, trawl_error *err)
{
	dat_reader *r = rd(t);
	if (r->recs) /* else next(scan) walks the source */
		return r->recs->in_order
			       ? r->recs->in_order(r->recs->ctx, sorted, err)
			       : -TRAWL_EUNSUPPORTED;
	if (threads > MAX_THREADS)
		threads = MAX_THREADS;
	/* a caller's allocator need not be thread-safe */
	if (threads < 1 || t->opts.realloc)
		threads = 1;
	struct scan_job job = {.r = r};
	size_t cap = 0;
	for (size_t i = 0; i < r->ncur; i++)
		if (add_pieces(r, i, &job.pieces, &job.npieces, &cap)) {
			job.failed = 1;
			break;
		}
	if ((size_t)threads > job.npieces)
		threads = job.npieces ? (int)job.npieces : 1;
	pthread_t tid[MAX_THREADS];
	int started[MAX_THREADS] = {0};
	for (int i = 1; i < threads && !job.failed; i++)
		started[i] =
			pthread_create(&tid[i], NULL, scan_streams, &job) == 0;
	if (!job.failed)
		scan_streams(&job);
	for (int i = 1; i < threads; i++)
		if (started[i])
			pthread_join(tid[i], NULL);
	*sorted = !job.unsorted;
	/* each stream's pieces meet in order */
	for (size_t i = 1; i < job.npieces && *sorted; i++) {
		const struct scan_piece *a = &job.pieces[i - 1];
		const struct scan_piece *b = &job.pieces[i];
		if (a->stream == b->stream && a->last != INT64_MIN &&
		    b->first != INT64_MIN && b->first < a->last)
			*sorted = 0;
	}
	tw_free(r->f.mem, job.pieces);
	if (job.failed)
		return tw_error_at(err, TRAWL_ENOMEM, 0, t->name, 0, 0, 0,
				   "out of memory");
	return 0;
}

/* ---- fields ---- */

static void load_plugins(dat_reader *r);

/* A type's print format, compiled the first time it is needed. */
static tw_pfmt *type_program(dat_reader *r, dat_type *dt)
{
	if (!dt || !dt->event)
		return NULL;
	if (!dt->compiled) {
		dt->compiled = 1;
		tw_pf_layout lay = {r->f.big_endian, r->f.long_size};
		size_t tn = 0;
		const char *text =
			tw_dat_format_text(&r->f, (uint32_t)dt->event->id, &tn);
		dt->pf = tw_pfmt_compile(r->f.mem, dt->event, text, tn, &lay);
	}
	return dt->pf;
}

/* The event's. */
static tw_pfmt *program(dat_reader *r, const trawl_event *ev)
{
	return type_program(r, (dat_type *)ev->type->bin);
}

/* %pS and friends: the file's kallsyms, through libtraceevent. */
static const char *symbol(void *ctx, uint64_t addr, uint64_t *offset,
			  uint64_t *size, const char **module)
{
	struct sym_cache *sc = ctx;
	dat_reader *r = sc->r;
	/* the same few functions again and again (timer callbacks, call
	 * sites): a direct-mapped cache before the binary search */
	struct sym_slot *c = &sc->slot[(addr ^ addr >> 12) % SYM_CACHE];
	if (c->valid && c->addr == addr) {
		*offset = c->offset, *size = c->size, *module = c->module;
		return c->name;
	}
	if (sc == &r->syms) /* the ahead thread: loaded before it renders */
		tw_dat_load_kallsyms(&r->f);
	/* a table read only for trawl_trace_symbol() names nothing here */
	const char *name =
		r->syms_api_only
			? NULL
			: tw_dat_sym_lookup(&r->f, addr, offset, size, module);
	*c = (struct sym_slot){addr,
			       name,
			       name ? *offset : 0,
			       name ? *size : 0,
			       name ? *module : NULL,
			       1};
	return name;
}

/* A %s of a pointer: the file's printk formats know the kernel's strings. */
static const char *kernel_string(void *ctx, uint64_t addr)
{
	const struct sym_cache *sc = ctx;
	return tw_dat_printk_string(&sc->r->f, addr);
}

static struct tep_event *event_of(const trawl_event *ev)
{
	const dat_type *dt = ev->type->bin;
	return dt ? dt->event : NULL;
}

/*
 * A field's text: a char array or __data_loc string up to its NUL (f is
 * an index in the event's program, whose field table is the format's).
 */
static const char *text_of(const trawl_event *ev, const tw_pfmt *pf, int f,
			   size_t *len)
{
	const unsigned char *p;
	size_t n;
	if (tw_pfmt_field_bytes(pf, (size_t)f, ev->data, ev->data_len, &p, &n))
		return NULL;
	const unsigned char *z = memchr(p, '\0', n);
	if (z)
		n = (size_t)(z - p);
	*len = n;
	return (const char *)p;
}

static const char *const marker_fields[] = {"kind", "pid", "name", "value",
					    "cookie"};

/*
 * What handle d is in ev's type: the index of a field of its format (its
 * own or a common one), or -1 with *marker set for a marker field of a
 * print event, or -1 when absent. Cached per type id in d->bin, as the
 * index + 1.
 */
static int resolve(const trawl_event *ev, struct trawl_field_def *d,
		   const tw_pfmt **pf, int *marker)
{
	*marker = -1;
	*pf = program(rd(ev->t), ev);
	if (!*pf)
		return -1;
	uint32_t id = ev->type->id;
	if (id >= d->nbin) {
		size_t ncap = id + 16;
		const void **a = tw_realloc(&ev->t->mem, (void *)d->bin,
					    ncap * sizeof(*a));
		if (!a)
			return -1;
		memset(a + d->nbin, 0, (ncap - d->nbin) * sizeof(*a));
		d->bin = a;
		d->nbin = ncap;
	}
	const void *v = d->bin[id];
	if (!v) {
		int i = tw_pfmt_find_any(*pf, d->name, d->name_len);
		v = i >= 0 ? (const void *)(uintptr_t)(i + 1) : NO_FIELD;
		d->bin[id] = v;
	}
	if (v != NO_FIELD)
		return (int)(uintptr_t)v - 1;
	if (ev->type->kind == TW_KIND_PRINT)
		for (size_t i = 0; i < TW_ARRAY_SIZE(marker_fields); i++)
			if (strcmp(d->name, marker_fields[i]) == 0)
				*marker = (int)i;
	return -1;
}

/* One integer field's label, as the print format shows it. */
static int get_label(const trawl_event *ev, struct trawl_field_def *d,
		     const char **out, size_t *len)
{
	const tw_pfmt *pf;
	int marker;
	int f = resolve(ev, d, &pf, &marker);
	if (f < 0)
		return marker >= 0 ? -1 : 0; /* print's marker fields: decode */
	if (!(tw_pfmt_field_any(pf, (size_t)f)->flags &
	      (TW_PFF_STRING | TW_PFF_ARRAY | TW_PFF_DYNAMIC))) {
		int64_t v;
		if (tw_pfmt_field_int(pf, (size_t)f, ev->data, ev->data_len,
				      &v))
			return 0; /* a damaged record: not in it */
		d->label.len = 0;
		int has = tw_pfmt_label(pf, (size_t)f, ev->data, ev->data_len,
					&rd(ev->t)->resolve, &d->label);
		if (has <= 0)
			return has < 0 ? -1 : 0;
		*out = d->label.data;
		*len = d->label.len;
		return 1;
	}
	return 0; /* strings and arrays have no label */
}

static int print_buf(const trawl_event *ev, const char **buf, size_t *len)
{
	const tw_pfmt *pf = program(rd(ev->t), ev);
	int f = pf ? tw_pfmt_find(pf, "buf", 3) : -1;
	if (f < 0 || !(*buf = text_of(ev, pf, f, len)))
		return -1;
	while (*len > 0 && (*buf)[*len - 1] == '\n')
		(*len)--;
	return 0;
}

static int marker_int(const trawl_event *ev, int which, int64_t *out)
{
	const char *buf;
	size_t n;
	trawl_marker m;
	if (print_buf(ev, &buf, &n) || tw_parse_marker(buf, n, &m))
		return -TRAWL_ENOENT;
	switch (which) {
	case 0:
		return -TRAWL_ETYPE; /* kind is a letter */
	case 1:
		if (m.pid < 0)
			return -TRAWL_ENOENT;
		*out = m.pid;
		return 0;
	case 2:
		return m.name ? -TRAWL_ETYPE : -TRAWL_ENOENT;
	case 3:
		if (m.kind != 'C')
			return -TRAWL_ENOENT;
		*out = m.value;
		return 0;
	default:
		if (m.kind != 'S' && m.kind != 'F')
			return -TRAWL_ENOENT;
		*out = m.value;
		return 0;
	}
}

static int get_int(const trawl_event *ev, struct trawl_field_def *d,
		   int64_t *out)
{
	int marker;
	const tw_pfmt *pf;
	int f = resolve(ev, d, &pf, &marker);
	if (f < 0)
		return marker >= 0 ? marker_int(ev, marker, out)
				   : -TRAWL_ENOENT;
	/* a field the (damaged) record does not hold is not there */
	const unsigned char *bytes;
	size_t nbytes;
	if (tw_pfmt_field_bytes(pf, (size_t)f, ev->data, ev->data_len, &bytes,
				&nbytes))
		return -TRAWL_ENOENT;
	const tw_pf_field *fd = tw_pfmt_field_any(pf, (size_t)f);
	if (fd->flags & TW_PFF_STRING) {
		size_t n;
		const char *s = text_of(ev, pf, f, &n);
		if (!s)
			return -TRAWL_ENOENT;
		return tw_parse_number(s, n, out) ? -TRAWL_ETYPE : 0;
	}
	if (tw_pfmt_field_int(pf, (size_t)f, ev->data, ev->data_len, out))
		return -TRAWL_ETYPE;
	/* a plain integer in the host's order: trawl_event_get_int() reads
	 * it straight from the record of this type from now on */
	if (!rd(ev->t)->f.big_endian &&
	    !(fd->flags & (TW_PFF_ARRAY | TW_PFF_DYNAMIC | TW_PFF_STRING |
			   TW_PFF_RELATIVE)) &&
	    (fd->size == 1 || fd->size == 2 || fd->size == 4 || fd->size == 8))
		tw_field_fast(d, ev->type, fd->offset, fd->size,
			      (fd->flags & TW_PFF_SIGNED) != 0);
	return 0;
}

static void load_plugins(dat_reader *r);

/*
 * The record as libtraceevent may read it: followed by zeros, so that a
 * string the kernel (or damage) left without its NUL ends there instead of
 * in the bytes after the record. NULL when out of memory.
 */
#define PRINT_PAD 64
static void *padded(dat_reader *r, const trawl_event *ev)
{
	r->pad.len = 0;
	if (tw_buf_reserve(r->f.mem, &r->pad, ev->data_len + PRINT_PAD))
		return NULL;
	memcpy(r->pad.data, ev->data, ev->data_len);
	memset(r->pad.data + ev->data_len, 0, PRINT_PAD);
	return r->pad.data;
}

static void print_record(dat_reader *r, const trawl_event *ev, const char *what)
{
	struct tep_record rec = {0};
	rec.ts = (unsigned long long)ev->ts;
	rec.cpu = ev->cpu;
	rec.data = padded(r, ev);
	rec.size = (int)ev->data_len;
	rec.record_size = (int)ev->data_len;
	load_plugins(r);
	trace_seq_reset(&r->seq);
	if (rec.data)
		tep_print_event(r->f.tep, &r->seq, &rec, "%s", what);
	trace_seq_terminate(&r->seq);
}

/* Decimal (or 0x hex) text of an integer, for the field enumeration. */
static size_t int_text(char *b, int64_t v, int uns, int hex)
{
	char t[24];
	size_t n = 0;
	uint64_t u = (uint64_t)v;
	int neg = !uns && !hex && v < 0;
	if (neg)
		u = 0 - u;
	do {
		t[n++] =
			hex ? "0123456789abcdef"[u & 15] : (char)('0' + u % 10);
		u = hex ? u >> 4 : u / 10;
	} while (u);
	size_t k = 0;
	if (neg)
		b[k++] = '-';
	if (hex)
		b[k++] = '0', b[k++] = 'x';
	while (n)
		b[k++] = t[--n];
	return k;
}

/* Where decode_fields() left a value's text and a label: offsets into
 * the buffers, which may move while they grow. */
#define AT_NONE SIZE_MAX

struct decoded {
	tw_kv *fields;
	tw_pf_value *tv;
	tw_buf *fz, *ez, *lz;	   /* texts, array elements, labels */
	size_t at[TW_MAX_FIELDS];  /* the text in fz; AT_NONE: val points */
	size_t lab[TW_MAX_FIELDS]; /* the label in lz; AT_NONE: none */
};

/*
 * Every field of the record, typed, straight from its bytes: integers,
 * strings (pointing into the record, or to a string the kernel keeps),
 * arrays (elements in ez); the text of each (fz) as `trace-cmd report
 * -R` writes it, and the labels of the symbolic ones as the print format
 * shows them (lz). Runs on the merge-ahead thread too: it touches only d.
 * Return: how many fields.
 */
static int decode_fields(const tw_mem *mem, const tw_pfmt *pf, int is_print,
			 int lazy, const tw_pf_resolve *rs,
			 const unsigned char *data, uint32_t data_len,
			 struct decoded *d)
{
	d->fz->len = d->ez->len = d->lz->len = 0;
	size_t n = tw_pfmt_nfields(pf);
	if (n > TW_MAX_FIELDS)
		n = TW_MAX_FIELDS;
	int k = 0;
	for (size_t i = 0; i < n; i++) {
		const tw_pf_field *f = tw_pfmt_field(pf, i);
		const unsigned char *bytes;
		size_t nb;
		if (tw_pfmt_field_bytes(pf, i, data, data_len, &bytes, &nb))
			continue; /* a damaged record: leave it out */
		/* built in place: a copy from the stack would stall on
		 * loads wider than the stores that made it */
		tw_pf_value *v = &d->tv[k];
		*v = (tw_pf_value){0};
		v->uns = !(f->flags & TW_PFF_SIGNED);
		v->ptr = (f->flags & TW_PFF_POINTER) != 0;
		v->hex = v->ptr || (f->flags & TW_PFF_LONG);
		v->index = (uint16_t)i;
		v->exact = 1;
		char num[24];
		size_t nl = 0;
		const char *txt = NULL;
		d->at[k] = AT_NONE;
		if (f->flags & TW_PFF_STRING) {
			const unsigned char *z = memchr(bytes, '\0', nb);
			v->type = TW_PFV_STR;
			v->s = (const char *)bytes;
			v->slen = (uint32_t)(z ? (size_t)(z - bytes) : nb);
			/* a print's text ends its line: the newline a marker
			 * write may carry is not in the kernel's text */
			while (is_print && v->slen && v->s[v->slen - 1] == '\n')
				v->slen--;
		} else if (f->flags & (TW_PFF_ARRAY | TW_PFF_DYNAMIC)) {
			size_t ne = tw_pfmt_field_elems(pf, i, data, data_len);
			v->type = TW_PFV_ARRAY;
			v->elem0 = (uint32_t)(d->ez->len / sizeof(int64_t));
			size_t start = d->fz->len;
			int fail = 0;
			fail |= tw_buf_append(mem, d->fz, "{", 1);
			for (size_t j = 0; j < ne && j < UINT16_MAX; j++) {
				int64_t e = 0;
				tw_pfmt_field_elem(pf, i, data, data_len, j,
						   &e);
				fail |= tw_buf_append(mem, d->ez, &e,
						      sizeof(e));
				char eb[24];
				size_t el = int_text(eb, e, v->uns, 1);
				if (j)
					fail |= tw_buf_append(mem, d->fz, ",",
							      1);
				fail |= tw_buf_append(mem, d->fz, eb, el);
				v->nelem++;
			}
			fail |= tw_buf_append(mem, d->fz, "}", 1);
			if (fail)
				break;
			d->at[k] = start;
			v->slen = (uint32_t)(d->fz->len - start);
		} else if (tw_pfmt_field_int(pf, i, data, data_len, &v->i)) {
			continue; /* an integer of an odd size */
		} else if ((f->flags & TW_PFF_CHARPTR) &&
			   (txt = rs->string(rs->ctx, (uint64_t)v->i)) !=
				   NULL) {
			/* a string the kernel keeps: the text, not where */
			v->type = TW_PFV_STR;
			v->s = txt;
			v->slen = (uint32_t)strlen(txt);
			txt = NULL;
		} else {
			v->type = TW_PFV_INT;
			if (!lazy) {
				nl = int_text(num, v->i, v->uns, v->hex);
				txt = num;
			}
		}
		if (txt) {
			d->at[k] = d->fz->len;
			if (tw_buf_append(mem, d->fz, txt, nl))
				break;
			v->slen = (uint32_t)nl;
		}
		/* the label, where the print format shows one */
		d->lab[k] = AT_NONE;
		if (v->type == TW_PFV_INT && !lazy) {
			size_t l0 = d->lz->len;
			int has =
				tw_pfmt_label(pf, i, data, data_len, rs, d->lz);
			if (has < 0)
				break;
			if (has) {
				d->lab[k] = l0;
				v->label_len = (uint32_t)(d->lz->len - l0);
			}
		}
		d->fields[k] = (tw_kv){f->name, v->s, f->name_len, v->slen};
		k++;
	}
	return k;
}

/* The buffers may have moved while growing: point into them now. */
static void point_fields(struct decoded *d, int k)
{
	for (int i = 0; i < k; i++) {
		if (d->at[i] != AT_NONE)
			d->fields[i].val = d->tv[i].s = d->fz->data + d->at[i];
		if (d->lab[i] != AT_NONE)
			d->tv[i].label = d->lz->data + d->lab[i];
	}
}

static int adopt_decoded(trawl_event *ev, const unsigned char *pre);
static void realize(const trawl_event *ev, unsigned what);
static void want_fields(dat_reader *r, const trawl_event *ev);

/* The fields of ev, decoded here or, for the event just delivered, taken
 * from the merge ahead, which decoded them already. */
static void decode(const trawl_trace *t, trawl_event *ev, const char *key,
		   size_t klen)
{
	(void)key;
	(void)klen;
	dat_reader *r = rd(t);
	ev->nfields = 0;
	ev->decode_done = 1;
	ev->typed = 0;
	ev->fields_z.len = 0;
	ev->elems_z.len = 0;
	ev->label_z.len = 0;
	if (r->cur_pre && ev == &t->ev && adopt_decoded(ev, r->cur_pre) == 0)
		return;
	const tw_pfmt *pf = program(r, ev);
	if (!pf)
		return;
	int is_print = ev->type->kind == TW_KIND_PRINT;
	struct decoded d;
	d.fields = ev->fields, d.tv = ev->tv;
	d.fz = &ev->fields_z, d.ez = &ev->elems_z, d.lz = &ev->label_z;
	int k = decode_fields(&t->mem, pf, is_print, !is_print, &r->resolve,
			      ev->data, ev->data_len, &d);
	point_fields(&d, k);
	ev->nfields = k;
	ev->typed = 1;
	ev->pending = is_print ? 0 : TW_PEND_TEXT | TW_PEND_LABEL;
	/* print events: the systrace marker in buf, as text traces have it */
	const char *buf;
	size_t bn;
	if (is_print) {
		if (!print_buf(ev, &buf, &bn)) {
			tw_marker_fields(ev, buf, bn);
			for (int i = k; i < ev->nfields; i++)
				tw_typed_text(ev, i);
		}
	} else if (ev == &t->ev) {
		want_fields(r, ev);
	}
}

static const char *get_raw(const trawl_event *ev, struct trawl_field_def *d,
			   size_t *len)
{
	int marker;
	const tw_pfmt *pf;
	int f = resolve(ev, d, &pf, &marker);
	size_t n;
	if (f >= 0 &&
	    (tw_pfmt_field_any(pf, (size_t)f)->flags & TW_PFF_STRING)) {
		const char *s = text_of(ev, pf, f, &n);
		if (s && len)
			*len = n;
		return s;
	}
	if (f < 0 && marker < 0)
		return NULL;
	/* numbers and the rest: as the field enumeration shows them */
	trawl_event *e = (trawl_event *)ev;
	if (ev->nfields < 0 || !ev->decode_done)
		decode(ev->t, e, NULL, 0);
	if (ev->pending & TW_PEND_TEXT)
		realize(ev, TW_PEND_TEXT);
	for (int i = 0; i < ev->nfields; i++)
		if (tw_eq(ev->fields[i].key, ev->fields[i].klen, d->name,
			  d->name_len)) {
			if (len)
				*len = ev->fields[i].vlen;
			return ev->fields[i].val;
		}
	return NULL;
}

static void load_plugins(dat_reader *r)
{
	if (r->plugins_loaded)
		return;
	r->plugins_loaded = 1;
	tw_dat_load_tep_kallsyms(&r->f);
	/* the same plugins trace-cmd report loads, for the same text */
	r->plugins = tep_load_plugins(r->f.tep);
}

/* The event's text as "name=value ..." of its fields. */
static int fields_payload(const trawl_event *ev)
{
	trawl_event *out = (trawl_event *)ev;
	if (ev->nfields < 0 || !ev->decode_done)
		decode(ev->t, out, NULL, 0);
	if (ev->pending & TW_PEND_TEXT)
		realize(ev, TW_PEND_TEXT);
	out->payload_z.len = 0;
	for (int i = 0; i < ev->nfields; i++) {
		const tw_kv *kv = &ev->fields[i];
		if ((i &&
		     tw_buf_append(&ev->t->mem, &out->payload_z, " ", 1)) ||
		    tw_buf_append(&ev->t->mem, &out->payload_z, kv->key,
				  kv->klen) ||
		    tw_buf_append(&ev->t->mem, &out->payload_z, "=", 1) ||
		    tw_buf_append(&ev->t->mem, &out->payload_z, kv->val,
				  kv->vlen))
			return -1;
	}
	if (tw_buf_reserve(&ev->t->mem, &out->payload_z, 1))
		return -1;
	out->payload = out->payload_z.data;
	out->payload_len = out->payload_z.len;
	return 0;
}

/*
 * The consumer reads the text of most events of this type: from now on
 * the merge ahead renders it (the symbols it may name are loaded first,
 * here, since that thread does not load them).
 */
static void want_text(dat_reader *r, const trawl_event *ev)
{
	dat_type *dt = (dat_type *)ev->type->bin;
	if (r->choice.policy == TW_CHOICE_HERE || dt->want_text)
		return;
	if (++dt->asked < 64 || dt->asked * 2 < ev->type->events)
		return;
	tw_dat_load_kallsyms(&r->f);
	__atomic_store_n(&dt->want_text, 1, __ATOMIC_RELEASE);
}

/* Likewise for all of its fields (decode). */
static void want_fields(dat_reader *r, const trawl_event *ev)
{
	dat_type *dt = (dat_type *)ev->type->bin;
	/* a type read as JSON is decoded for it: not counted twice */
	if (r->choice.policy == TW_CHOICE_HERE || dt->want_fields || !dt->pf ||
	    dt->asked_json)
		return;
	if (++dt->asked_fields < 64 || dt->asked_fields * 2 < ev->type->events)
		return;
	/* no symbols loaded for it: a lazy decode looks none up */
	__atomic_store_n(&dt->want_fields, 1, __ATOMIC_RELEASE);
}

static int payload(const trawl_event *ev)
{
	dat_reader *r = rd(ev->t);
	trawl_event *out = (trawl_event *)ev;
	struct tep_event *e = event_of(ev);
	tw_pfmt *pf = e ? program(r, ev) : NULL;
	/* trace_printk's records carry their arguments in binary, for the
	 * printk format they point at: libtraceevent knows that layout */
	int bprint = e && (e->flags & TEP_EVENT_FL_ISBPRINT) &&
		     !(e->flags & TEP_EVENT_FL_FAILED);
	if (pf && !bprint && !tw_pfmt_fallback(pf) &&
	    tw_pfmt_fits(pf, ev->data, ev->data_len)) {
		out->payload_z.len = 0;
		if (tw_pfmt_render(pf, ev->data, ev->data_len, &r->resolve,
				   &out->payload_z))
			return -1;
		/* a line ends at its last word: the kernel's trailing
		 * newlines and blanks are not in a text trace's lines */
		size_t pn = out->payload_z.len;
		while (pn > 0 && (out->payload_z.data[pn - 1] == '\n' ||
				  out->payload_z.data[pn - 1] == ' '))
			pn--;
		out->payload = out->payload_z.data;
		out->payload_len = pn;
		want_text(r, ev);
		return 0;
	}
	if (e && (!pf || !tw_pfmt_fits(pf, ev->data, ev->data_len))) {
		trace_seq_reset(&r->seq);
		trace_seq_printf(&r->seq,
				 "[damaged record: %u bytes do not hold the "
				 "fields of %s]",
				 ev->data_len, e->name);
		trace_seq_terminate(&r->seq);
	} else if (bprint) {
		print_record(r, ev, TEP_PRINT_INFO);
	} else if (e) {
		/* a print format trawl cannot run: the fields, as -R shows */
		return fields_payload(ev);
	} else {
		trace_seq_reset(&r->seq);
		trace_seq_printf(&r->seq, "[unknown event type %u]",
				 (unsigned)ev->type->id);
		trace_seq_terminate(&r->seq);
	}
	size_t n = (size_t)r->seq.len;
	/* print formats end some texts with a newline; a line has none */
	while (n > 0 && r->seq.buffer[n - 1] == '\n')
		n--;
	out->payload_z.len = 0;
	if (tw_buf_append(&ev->t->mem, &out->payload_z, r->seq.buffer, n))
		return -1;
	out->payload = out->payload_z.data;
	out->payload_len = n;
	return 0;
}

/* ---- the merge ahead (dat-ahead.c) ---- */

/* A record source's next record, on the worker: a note goes as a
 * record of no data, its kind in buffer and its value in lost. */
static int ahead_pull_record(dat_reader *r, tw_dat_pulled *out)
{
	tw_record p;
	int rc = r->recs->next(r->recs->ctx, &p, 0, &r->ahead_err);
	if (rc < 0)
		r->ahead_rc = rc;
	if (rc != TW_NEXT_EVENT)
		return 0;
	if (p.kind != TW_RECORD_EVENT)
		*out = (tw_dat_pulled){p.ts,
				       p.value,
				       (uint32_t)p.kind,
				       p.cpu,
				       (const unsigned char *)"",
				       0};
	else
		*out = (tw_dat_pulled){p.ts, 0, 0, p.cpu, p.data, p.len};
	return 1;
}

static int ahead_pull(void *ctx, tw_dat_pulled *out)
{
	dat_reader *r = ctx;
	if (r->recs)
		return ahead_pull_record(r, out);
	tw_dat_cursor *c = merge_next(r);
	if (!c)
		return 0;
	*out = (tw_dat_pulled){c->cur_ts,    c->lost, c->span->buffer,
			       c->span->cpu, c->cur,  c->cur_len};
	c->lost = 0;
	return 1;
}

/* The worker's scratch for decoding. */
struct ahead_scratch {
	tw_kv fields[TW_MAX_FIELDS];
	tw_pf_value tv[TW_MAX_FIELDS];
	tw_buf fz, ez, lz;
	struct decoded d;
};

/* A record's fields decoded ahead, as its batch keeps them: the head,
 * the fields, the texts of the arrays, then their elements. Small: the
 * consumer's thread reads them from the other core's cache. */
struct pre_head {
	uint32_t n, fz, ez;
	uint32_t compact; /* 8-byte words follow, not struct pre_field */
};			  /* 16 bytes: the fields after it aligned */

enum { W_NONE, W_DATA, W_FZ, W_PTR }; /* where a value's text is */

struct pre_field {
	int64_t i; /* INT: the value; W_PTR: the pointer */
	uint32_t off, slen, elem0;
	uint16_t index, nelem;
	uint8_t type, where, uns, ptr;
	uint8_t hex;
};

/* Decode on the ahead thread (typed values; texts of integers and labels
 * are made when asked, on the consumer's thread) and keep it in the
 * arena: pointers become offsets, since the arena may move while it grows
 * and the record is read back from its copy there. The head and fields
 * are written in place, member by member, at an 8-byte boundary: built on
 * the stack and copied, the struct's narrow stores could not be forwarded
 * to the copy's wide loads, a stall per field (half of this function's
 * time in perf). */
static int keep_decoded(dat_reader *r, const tw_pfmt *pf,
			const unsigned char *data, uint32_t len, tw_buf *arena,
			tw_dat_ahead_rec *rec)
{
	const tw_mem *mem = r->f.mem;
	struct ahead_scratch *w = r->ahead_dec;
	struct decoded *d = &w->d;
	int k = decode_fields(mem, pf, 0, 1, &r->ahead_resolve, data, len, d);
	size_t at = (arena->len + 7) & ~(size_t)7;
	uint32_t nfz = (uint32_t)w->fz.len, nez = (uint32_t)w->ez.len;
	size_t need = sizeof(struct pre_head) +
		      (size_t)k * sizeof(struct pre_field) + nfz + nez;
	if (tw_buf_reserve(mem, arena, at + need + 1))
		return -1;
	unsigned char *o = (unsigned char *)arena->data + at;
	struct pre_head *h = (struct pre_head *)(void *)o;
	h->n = (uint32_t)k, h->fz = nfz, h->ez = nez, h->compact = 0;
	struct pre_field *out = (struct pre_field *)(void *)(h + 1);
	for (int i = 0; i < k; i++) {
		const tw_pf_value *v = &d->tv[i];
		struct pre_field *f = &out[i];
		const unsigned char *s = (const unsigned char *)v->s;
		f->i = v->i, f->off = 0, f->slen = v->slen;
		f->elem0 = v->elem0, f->index = v->index, f->nelem = v->nelem;
		f->type = v->type, f->uns = v->uns, f->ptr = v->ptr;
		f->hex = v->hex;
		if (d->at[i] != AT_NONE)
			f->where = W_FZ, f->off = (uint32_t)d->at[i];
		else if (s && s >= data && s <= data + len)
			f->where = W_DATA, f->off = (uint32_t)(s - data);
		else if (s)
			f->where = W_PTR, f->i = (int64_t)(uintptr_t)s;
		else
			f->where = W_NONE;
	}
	o = (unsigned char *)(out + k);
	if (nfz) /* the buffers are NULL until first used */
		memcpy(o, w->fz.data, nfz);
	if (nez)
		memcpy(o + nfz, w->ez.data, nez);
	arena->len = at + need;
	rec->pre_off = (uint32_t)at;
	return 0;
}

/* Whether every field of the format is a string or a plain integer. */
static int compact_form(const tw_pfmt *pf)
{
	size_t n = tw_pfmt_nfields(pf);
	if (!n || n > TW_MAX_FIELDS)
		return -1;
	for (size_t i = 0; i < n; i++) {
		uint32_t fl = tw_pfmt_field(pf, i)->flags;
		if (!(fl & TW_PFF_STRING) &&
		    (fl & (TW_PFF_ARRAY | TW_PFF_DYNAMIC | TW_PFF_CHARPTR)))
			return -1;
	}
	return 1;
}

/* Whether dt's records take the compact form (found once, on the ahead
 * thread). */
static int compact_type(dat_type *dt, const tw_pfmt *pf)
{
	if (!dt->ahead_compact)
		dt->ahead_compact = compact_form(pf);
	return dt->ahead_compact > 0;
}

/*
 * The compact form of a record's fields, for types of strings and plain
 * integers only (most events): a word per field, the integer or a
 * string's offset in the record and length; what is the same for every
 * event of the type (names, flags, types) the consumer keeps once. A
 * quarter of the bytes of the general form cross to the other core, and
 * neither side builds or reads a typed value per field. Return: 1 kept,
 * 0 not this form (a damaged record, an odd integer: the general way
 * keeps it), -1 out of memory.
 */
static int keep_compact(dat_reader *r, dat_type *dt, const tw_pfmt *pf,
			const unsigned char *data, uint32_t len, tw_buf *arena,
			tw_dat_ahead_rec *rec)
{
	if (!compact_type(dt, pf))
		return 0;
	size_t n = tw_pfmt_nfields(pf);
	size_t at = (arena->len + 7) & ~(size_t)7;
	size_t need = sizeof(struct pre_head) + n * sizeof(uint64_t);
	if (tw_buf_reserve(r->f.mem, arena, at + need + 1))
		return -1;
	struct pre_head *h = (struct pre_head *)(void *)(arena->data + at);
	uint64_t *out = (uint64_t *)(void *)(h + 1);
	for (size_t i = 0; i < n; i++) {
		const unsigned char *bytes;
		size_t nb;
		if (tw_pfmt_field_bytes(pf, i, data, len, &bytes, &nb))
			return 0;
		if (tw_pfmt_field(pf, i)->flags & TW_PFF_STRING) {
			const unsigned char *z = memchr(bytes, '\0', nb);
			size_t sl = z ? (size_t)(z - bytes) : nb;
			if (bytes < data || sl > UINT32_MAX)
				return 0;
			out[i] = (uint64_t)(bytes - data) | (uint64_t)sl << 32;
		} else {
			int64_t v;
			if (tw_pfmt_field_int(pf, i, data, len, &v))
				return 0;
			out[i] = (uint64_t)v;
		}
	}
	h->n = (uint32_t)n, h->fz = h->ez = 0, h->compact = 1;
	arena->len = at + need;
	rec->pre_off = (uint32_t)at;
	return 1;
}

/* The consumer's templates of a compact type's fields: what the general
 * decode gives every event of it, before its values. */
static int make_templates(dat_type *dt, const tw_pfmt *pf, const tw_mem *mem)
{
	size_t n = tw_pfmt_nfields(pf);
	/* what a failed try left */
	tw_free(mem, dt->tmpl_kv);
	tw_free(mem, dt->tmpl_tv);
	tw_free(mem, dt->tmpl_fe);
	dt->tmpl_kv = tw_calloc(mem, n, sizeof(tw_kv));
	dt->tmpl_tv = tw_calloc(mem, n, sizeof(tw_pf_value));
	dt->tmpl_fe = tw_calloc(mem, n, sizeof(trawl_field_entry));
	if (!dt->tmpl_kv || !dt->tmpl_tv || !dt->tmpl_fe)
		return -1;
	dt->tmpl_str = 0;
	for (size_t i = 0; i < n; i++) {
		const tw_pf_field *f = tw_pfmt_field(pf, i);
		tw_pf_value *v = &dt->tmpl_tv[i];
		dt->tmpl_kv[i] = (tw_kv){f->name, NULL, f->name_len, 0};
		v->uns = !(f->flags & TW_PFF_SIGNED);
		v->ptr = (f->flags & TW_PFF_POINTER) != 0;
		v->hex = v->ptr || (f->flags & TW_PFF_LONG);
		v->index = (uint16_t)i;
		v->exact = 1;
		v->type = f->flags & TW_PFF_STRING ? TW_PFV_STR : TW_PFV_INT;
		if (f->flags & TW_PFF_STRING)
			dt->tmpl_str |= 1ull << i;
		/* as field.c's value_of() says it of v */
		trawl_field_entry *e = &dt->tmpl_fe[i];
		e->name = f->name;
		e->name_len = f->name_len;
		e->value.type = v->type;
		e->value.flags = (v->uns ? TRAWL_VALUE_UNSIGNED : 0) |
				 (v->ptr ? TRAWL_VALUE_POINTER : 0);
	}
	dt->tmpl_n = (int)n;
	return 0;
}

/*
 * trawl_event_fields() of a compact record, straight into out: the type's
 * names and flags from its template, the values from the words, without
 * adopting them into ev (most of what an export spends per event).
 */
static long fields_direct(const trawl_event *ev, trawl_field_entry *out,
			  size_t cap)
{
	dat_reader *r = rd(ev->t);
	if (!r->cur_pre || ev != &ev->t->ev)
		return -1;
	const struct pre_head *h =
		(const struct pre_head *)(const void *)r->cur_pre;
	dat_type *dt = (dat_type *)ev->type->bin;
	const tw_pfmt *pf = dt ? program(r, ev) : NULL;
	if (!h->compact || !pf)
		return -1;
	if (!dt->tmpl_n && make_templates(dt, pf, &ev->t->mem))
		return -1;
	uint32_t n = h->n;
	if (n != (uint32_t)dt->tmpl_n)
		return -1;
	size_t m = n < cap ? n : cap;
	memcpy(out, dt->tmpl_fe, m * sizeof(*out));
	const uint64_t *in = (const uint64_t *)(const void *)(h + 1);
	const char *data = (const char *)ev->data;
	for (size_t i = 0; i < m; i++) {
		if (dt->tmpl_str >> i & 1) {
			out[i].value.s = data + (uint32_t)in[i];
			out[i].value.len = (uint32_t)(in[i] >> 32);
		} else {
			out[i].value.i = (int64_t)in[i];
		}
	}
	return (long)n;
}

/* A compact record into ev. Return: 0, or -1 (decode here instead). */
static int adopt_compact(trawl_event *ev, const tw_pfmt *pf,
			 const struct pre_head *h)
{
	dat_type *dt = (dat_type *)ev->type->bin;
	if (!dt->tmpl_n && make_templates(dt, pf, &ev->t->mem))
		return -1;
	uint32_t n = h->n;
	if (n != (uint32_t)dt->tmpl_n)
		return -1;
	memcpy(ev->fields, dt->tmpl_kv, n * sizeof(tw_kv));
	memcpy(ev->tv, dt->tmpl_tv, n * sizeof(tw_pf_value));
	const uint64_t *in = (const uint64_t *)(const void *)(h + 1);
	const char *data = (const char *)ev->data;
	for (uint32_t i = 0; i < n; i++) {
		if (dt->tmpl_str >> i & 1) {
			const char *s = data + (uint32_t)in[i];
			uint32_t sl = (uint32_t)(in[i] >> 32);
			ev->fields[i].val = ev->tv[i].s = s;
			ev->fields[i].vlen = ev->tv[i].slen = sl;
		} else {
			ev->tv[i].i = (int64_t)in[i];
		}
	}
	ev->nfields = (int)n;
	ev->typed = 1;
	ev->pending = TW_PEND_TEXT | TW_PEND_LABEL;
	return 0;
}

/* The fields decoded ahead, for the event delivered now. Return: 0, or
 * -1 (decode here instead). */
static int adopt_decoded(trawl_event *ev, const unsigned char *pre)
{
	const tw_pfmt *pf = program(rd(ev->t), ev);
	if (!pf)
		return -1;
	const struct pre_head *h = (const struct pre_head *)(const void *)pre;
	if (h->compact)
		return adopt_compact(ev, pf, h);
	const struct pre_field *in = (const struct pre_field *)(h + 1);
	const char *fz = (const char *)(in + h->n);
	if (h->ez &&
	    tw_buf_append(&ev->t->mem, &ev->elems_z, fz + h->fz, h->ez))
		return -1;
	for (uint32_t i = 0; i < h->n; i++) {
		const struct pre_field *f = &in[i];
		const tw_pf_field *fd = tw_pfmt_field(pf, f->index);
		const char *val =
			f->where == W_FZ     ? fz + f->off
			: f->where == W_DATA ? (const char *)ev->data + f->off
			: f->where == W_PTR  ? (const char *)(uintptr_t)f->i
					     : NULL;
		ev->fields[i] = (tw_kv){fd->name, val, fd->name_len, f->slen};
		tw_pf_value *v = &ev->tv[i];
		v->type = f->type, v->exact = 1, v->uns = f->uns;
		v->ptr = f->ptr, v->nelem = f->nelem, v->elem0 = f->elem0;
		v->hex = f->hex, v->index = f->index;
		v->i = f->where == W_PTR ? 0 : f->i;
		v->s = val, v->slen = f->slen;
		v->label_len = 0, v->label = NULL;
	}
	ev->nfields = (int)h->n;
	ev->typed = 1;
	ev->pending = TW_PEND_TEXT | TW_PEND_LABEL;
	return 0;
}

/*
 * The texts of the integers (as `trace-cmd report -R` writes them) and the
 * labels, which decode leaves until asked: made for all the fields at
 * once, so that what was handed out before stays where it is.
 */
static void realize(const trawl_event *ev, unsigned what)
{
	trawl_event *e = (trawl_event *)ev;
	const tw_mem *mem = &ev->t->mem;
	dat_reader *r = rd(ev->t);
	size_t at[TW_MAX_FIELDS], len[TW_MAX_FIELDS];
	for (int i = 0; i < ev->nfields; i++)
		at[i] = AT_NONE;
	if (what & TW_PEND_TEXT) {
		e->pending &= ~(unsigned)TW_PEND_TEXT;
		e->num_z.len = 0;
		for (int i = 0; i < ev->nfields; i++) {
			const tw_pf_value *v = &ev->tv[i];
			if (v->type != TW_PFV_INT || v->s)
				continue;
			char num[24];
			len[i] = int_text(num, v->i, v->uns, v->hex);
			if (tw_buf_append(mem, &e->num_z, num, len[i]))
				break; /* the rest stay without text */
			at[i] = e->num_z.len - len[i];
		}
		for (int i = 0; i < ev->nfields; i++)
			if (at[i] != AT_NONE) {
				e->fields[i].val = e->tv[i].s =
					e->num_z.data + at[i];
				e->fields[i].vlen = e->tv[i].slen =
					(uint32_t)len[i];
				at[i] = AT_NONE;
			}
	}
	if (what & TW_PEND_LABEL) {
		e->pending &= ~(unsigned)TW_PEND_LABEL;
		const tw_pfmt *pf = program(r, ev);
		e->label_z.len = 0;
		for (int i = 0; pf && i < ev->nfields; i++) {
			if (ev->tv[i].type != TW_PFV_INT)
				continue;
			size_t l0 = e->label_z.len;
			int has = tw_pfmt_label(pf, ev->tv[i].index, ev->data,
						ev->data_len, &r->resolve,
						&e->label_z);
			if (has < 0)
				break;
			if (has) {
				at[i] = l0;
				e->tv[i].label_len =
					(uint32_t)(e->label_z.len - l0);
			}
		}
		for (int i = 0; pf && i < ev->nfields; i++)
			if (at[i] != AT_NONE)
				e->tv[i].label = e->label_z.data + at[i];
	}
}

/* On the ahead thread: the record's fields as JSON, appended to the
 * arena (lib/core/json.c, from the typed values). */
static int keep_json(dat_reader *r, const tw_pfmt *pf,
		     const unsigned char *data, uint32_t len, tw_buf *arena,
		     tw_dat_ahead_rec *rec)
{
	const tw_mem *mem = r->f.mem;
	struct ahead_scratch *w = r->ahead_dec;
	struct decoded *d = &w->d;
	int k = decode_fields(mem, pf, 0, 1, &r->ahead_resolve, data, len, d);
	point_fields(d, k);
	size_t at = arena->len;
	if (tw_json_fields(mem, arena, d->fields, d->tv, k,
			   (const int64_t *)w->ez.data))
		return -1;
	rec->json_off = (uint32_t)at;
	rec->json_len = (uint32_t)(arena->len - at);
	return 0;
}

/* The names' JSON of a compact type, once. Return: 0, or -1. */
static int make_json_keys(const tw_mem *mem, dat_type *dt, const tw_pfmt *pf)
{
	size_t n = tw_pfmt_nfields(pf), total = 0;
	for (size_t i = 0; i < n; i++)
		total += 6 * (size_t)tw_pfmt_field(pf, i)->name_len + 3;
	dt->json_keys = tw_malloc(mem, total + 1);
	dt->json_key = tw_calloc(mem, n + 1, sizeof(uint32_t));
	if (!dt->json_keys || !dt->json_key)
		return -1;
	char *o = dt->json_keys;
	for (size_t i = 0; i < n; i++) {
		const tw_pf_field *f = tw_pfmt_field(pf, i);
		dt->json_key[i] = (uint32_t)(o - dt->json_keys);
		o = trawl_json_quote(o, f->name, f->name_len);
		*o++ = ':';
	}
	dt->json_key[n] = (uint32_t)(o - dt->json_keys);
	return 0;
}

/*
 * A compact type's fields as JSON straight from the record, as
 * tw_json_fields() writes them from the decoded fields (the same bytes:
 * names quoted, integers as numbers, strings quoted), with the names'
 * JSON made once per type. Return: 1 kept, 0 not this way (a damaged
 * record, an odd integer), -1 out of memory.
 */
static int keep_json_compact(dat_reader *r, dat_type *dt, const tw_pfmt *pf,
			     const unsigned char *data, uint32_t len,
			     tw_buf *arena, tw_dat_ahead_rec *rec)
{
	const tw_mem *mem = r->f.mem;
	if (!compact_type(dt, pf))
		return 0;
	if (!dt->json_key && make_json_keys(mem, dt, pf))
		return -1;
	size_t n = tw_pfmt_nfields(pf), at = arena->len;
	if (tw_buf_reserve(mem, arena, at + dt->json_key[n] + 24 * n + 3))
		return -1;
	char *o = arena->data + at;
	*o++ = '{';
	for (size_t i = 0; i < n; i++) {
		const unsigned char *bytes;
		size_t nb;
		if (tw_pfmt_field_bytes(pf, i, data, len, &bytes, &nb))
			return 0;
		if (i)
			*o++ = ',';
		uint32_t k0 = dt->json_key[i], k1 = dt->json_key[i + 1];
		memcpy(o, dt->json_keys + k0, k1 - k0);
		o += k1 - k0;
		const tw_pf_field *f = tw_pfmt_field(pf, i);
		if (f->flags & TW_PFF_STRING) {
			const unsigned char *z = memchr(bytes, '\0', nb);
			size_t sl = z ? (size_t)(z - bytes) : nb;
			/* room for the rest at the worst (6 bytes a byte) */
			size_t used = (size_t)(o - arena->data);
			if (tw_buf_reserve(mem, arena,
					   used + 6 * sl + 2 + dt->json_key[n] +
						   24 * n + 3))
				return -1;
			o = arena->data + used;
			o = trawl_json_quote(o, (const char *)bytes, sl);
		} else {
			int64_t v;
			if (tw_pfmt_field_int(pf, i, data, len, &v))
				return 0;
			char t[24], *e = t + sizeof(t);
			uint64_t u = (uint64_t)v;
			int neg = (f->flags & TW_PFF_SIGNED) && v < 0;
			char *p = tw_digits(neg ? 0 - u : u, e);
			if (neg)
				*--p = '-';
			memcpy(o, p, (size_t)(e - p));
			o += e - p;
		}
	}
	*o++ = '}';
	arena->len = (size_t)(o - arena->data);
	rec->json_off = (uint32_t)at;
	rec->json_len = (uint32_t)(arena->len - at);
	return 1;
}

/* The event's fields as JSON if the merge ahead made them; else NULL (the
 * core makes them), counted to decide whether it should. */
static const char *fields_json(const trawl_event *ev, size_t *len)
{
	dat_reader *r = rd(ev->t);
	if (r->cur_json && ev == &ev->t->ev) {
		*len = r->cur_json_len;
		return r->cur_json;
	}
	dat_type *dt = (dat_type *)ev->type->bin;
	if (r->choice.policy == TW_CHOICE_HERE || !dt || dt->want_json ||
	    ev->type->kind == TW_KIND_PRINT)
		return NULL;
	if (!program(r, ev))
		return NULL;
	if (++dt->asked_json < 64 || dt->asked_json * 2 < ev->type->events)
		return NULL;
	/* no symbols loaded for it: a lazy decode looks none up */
	__atomic_store_n(&dt->want_json, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* On the ahead thread: only types the consumer reads that way, whose
 * program was compiled before (the flags are set after) and needs no
 * libtraceevent. */
static int ahead_prepare(void *ctx, const unsigned char *data, uint32_t len,
			 tw_buf *arena, tw_dat_ahead_rec *rec)
{
	dat_reader *r = ctx;
	if (r->recs && len >= (uint32_t)r->pid_off + 4) {
		/* the name the task has now, right after the record's data
		 * (where it is now in the arena) */
		int32_t pid = (int32_t)tw_dat_u32(&r->f, data + r->pid_off);
		uint32_t n;
		const char *c =
			r->recs->comm(r->recs->ctx, pid, &n, &rec->tgid);
		if (c) {
			if (tw_buf_put(r->f.mem, arena, c, n) ||
			    tw_buf_put(r->f.mem, arena, "", 1))
				return -1;
			rec->comm_len = n;
		}
	}
	if (len < (uint32_t)(r->type_off + r->type_size))
		return 0;
	uint32_t id = r->type_size == 2
			      ? tw_dat_u16(&r->f, data + r->type_off)
			      : (uint32_t)read_uint(&r->f, data + r->type_off,
						    r->type_size);
	dat_type *dt = type_seen(r, id);
	if (!dt)
		return 0;
	int text = __atomic_load_n(&dt->want_text, __ATOMIC_ACQUIRE);
	int fields = __atomic_load_n(&dt->want_fields, __ATOMIC_ACQUIRE);
	int json = __atomic_load_n(&dt->want_json, __ATOMIC_ACQUIRE);
	if (!text && !fields && !json)
		return 0;
	const tw_pfmt *pf = dt->pf; /* compiled before a flag was set */
	if (fields) {
		int kept = keep_compact(r, dt, pf, data, len, arena, rec);
		if (kept < 0 ||
		    (!kept && keep_decoded(r, pf, data, len, arena, rec)))
			return -1;
	}
	if (json) {
		int kept = keep_json_compact(r, dt, pf, data, len, arena, rec);
		if (kept < 0 ||
		    (!kept && keep_json(r, pf, data, len, arena, rec)))
			return -1;
	}
	if (!text || !tw_pfmt_fits(pf, data, len))
		return 0;
	size_t t0 = arena->len;
	if (tw_pfmt_render(pf, data, len, &r->ahead_resolve, arena))
		return -1;
	size_t t1 = arena->len;
	while (t1 > t0 &&
	       (arena->data[t1 - 1] == '\n' || arena->data[t1 - 1] == ' '))
		t1--;
	rec->text_off = (uint32_t)t0;
	rec->text_len = (uint32_t)(t1 - t0);
	return 0;
}

static uint64_t cursors_done(const dat_reader *r);

static uint64_t ahead_done(void *ctx)
{
	const dat_reader *r = ctx;
	if (r->recs) {
		uint64_t done, total;
		r->recs->progress(r->recs->ctx, &done, &total);
		return done;
	}
	return cursors_done(r);
}

/*
 * The merge on a second thread, the first time the choice (dat-choice.c)
 * takes it; r->ahead stays NULL when no memory or thread can be had.
 */
static int ahead_start(trawl_trace *t, dat_reader *r)
{
	r->ahead_syms = tw_calloc(&t->mem, 1, sizeof(*r->ahead_syms));
	if (!r->ahead_syms)
		return 0;
	r->ahead_syms->r = r;
	r->ahead_resolve =
		(tw_pf_resolve){symbol, kernel_string, r->ahead_syms};
	r->ahead_dec = tw_calloc(&t->mem, 1, sizeof(*r->ahead_dec));
	if (!r->ahead_dec)
		return 0;
	struct ahead_scratch *w = r->ahead_dec;
	w->d = (struct decoded){.fields = w->fields,
				.tv = w->tv,
				.fz = &w->fz,
				.ez = &w->ez,
				.lz = &w->lz};
	if (r->recs) { /* the total, before the source is the worker's */
		uint64_t done;
		r->recs->progress(r->recs->ctx, &done, &r->recs_total);
		r->ahead_rc = 0;
	}
	tw_dat_ahead_src src = {ahead_pull, ahead_prepare, ahead_done, r};
	r->ahead = tw_dat_ahead_start(&t->mem, &src);
	return 0;
}

static void ahead_stop(dat_reader *r)
{
	tw_dat_ahead_stop(r->ahead);
	r->ahead = NULL;
	r->ahead_on = r->draining = r->choice_made = 0;
	tw_free(r->f.mem, r->ahead_syms);
	r->ahead_syms = NULL;
	if (r->ahead_dec) {
		tw_buf_fini(r->f.mem, &r->ahead_dec->fz);
		tw_buf_fini(r->f.mem, &r->ahead_dec->ez);
		tw_buf_fini(r->f.mem, &r->ahead_dec->lz);
		tw_free(r->f.mem, r->ahead_dec);
		r->ahead_dec = NULL;
	}
	r->cur_pre = NULL;
	r->cur_json = NULL;
	for (size_t p = 0; p < TYPE_PAGES; p++)
		for (size_t i = 0; r->types[p] && i < TYPE_PAGE; i++) {
			dat_type *dt = &r->types[p][i];
			dt->want_text = dt->want_fields = dt->want_json = 0;
			dt->asked = dt->asked_fields = dt->asked_json = 0;
		}
}

static int fields_source(trawl_trace *t, tw_type *ty)
{
	dat_type *dt = (dat_type *)ty->bin;
	if (!dt || !dt->event)
		return TRAWL_FIELDS_GENERIC; /* no format in the file */
	if (!dt->compiled) {
		trawl_event probe = {.type = ty, .t = t};
		program(rd(t), &probe);
	}
	return dt->pf && !tw_pfmt_fallback(dt->pf) ? TRAWL_FIELDS_FORMAT
						   : TRAWL_FIELDS_FALLBACK;
}

static int common_layout(dat_reader *r);

static void format_ref(const tw_dat_format *fm, tw_format_ref *out)
{
	out->system = fm->system ? fm->system : "";
	out->text = fm->text;
	out->len = fm->len;
	out->name = fm->name;
	out->name_len = fm->name ? strlen(fm->name) : 0;
	if (!fm->name)
		out->name = tw_format_name(fm->text, fm->len, &out->name_len);
}

static int format_at(trawl_trace *t, size_t i, tw_format_ref *out)
{
	const dat_reader *r = rd(t);
	if (i >= r->f.nformats)
		return 0;
	format_ref(&r->f.formats[i], out);
	return 1;
}

static int format_text(trawl_trace *t, size_t i, tw_format_ref *out)
{
	dat_reader *r = rd(t);
	if (i >= r->f.nformats || tw_dat_format_load(&r->f, i) < 0)
		return -TRAWL_ENOENT;
	format_ref(&r->f.formats[i], out);
	return 0;
}

int tw_dat_feed_load_format(trawl_trace *t, const char *system,
			    const char *event)
{
	dat_reader *r = rd(t);
	long i = tw_dat_format_find(&r->f, system, event);
	if (i < 0)
		return 0;
	if (tw_dat_format_load(&r->f, (size_t)i) < 0)
		return -1;
	/* the common fields' places, from a format read now if none was */
	return common_layout(r) < 0 ? -1 : 1;
}

int tw_dat_feed_load_system(trawl_trace *t, const char *system)
{
	dat_reader *r = rd(t);
	int n = 0;
	for (size_t i = 0; i < r->f.nformats; i++) {
		const tw_dat_format *fm = &r->f.formats[i];
		if (fm->text || !fm->name || !fm->system ||
		    strcmp(fm->system, system))
			continue;
		if (tw_dat_format_load(&r->f, i) < 0)
			return -1;
		n++;
	}
	return common_layout(r) < 0 ? -1 : n;
}

static const char *buffer_name(const trawl_trace *t, uint32_t buffer)
{
	const dat_reader *r = rd(t);
	return buffer < r->f.nbuffers ? r->f.buffers[buffer].name : "";
}

/* Bytes read of the streams (on the thread that moves the cursors). */
static uint64_t cursors_done(const dat_reader *r)
{
	uint64_t d = 0;
	for (size_t i = 0; i < r->ncur; i++) {
		const tw_dat_cursor *c = &r->cur[i];
		const tw_dat_span *s = &r->f.spans[i];
		uint64_t at = c->done		? s->size
			      : r->f.compressed ? c->data_file_off - s->offset
						: c->page_at;
		d += at < s->size ? at : s->size;
	}
	return d;
}

static void progress(const trawl_trace *t, uint64_t *done, uint64_t *total)
{
	const dat_reader *r = rd(t);
	if (r->recs && r->ahead_on) { /* the source is the worker's */
		*done = tw_dat_ahead_done(r->ahead);
		*total = r->recs_total;
		return;
	}
	if (r->recs) {
		r->recs->progress(r->recs->ctx, done, total);
		return;
	}
	uint64_t n = 0;
	for (size_t i = 0; i < r->ncur; i++)
		n += r->f.spans[i].size;
	/* the cursors are the worker's while it runs */
	*done = r->ahead_on ? tw_dat_ahead_done(r->ahead) : cursors_done(r);
	*total = n;
}

static const char *host(const trawl_trace *t, const char *what)
{
	const dat_reader *r = rd(t);
	if (r->recs)
		return r->recs->host ? r->recs->host(r->recs->ctx, what) : NULL;
	const char *v = !strcmp(what, "hostname") ? r->f.hostname
			: !strcmp(what, "os_release")
				? r->f.release
				: tw_dat_machine(&r->f, what);
	return v && *v ? v : NULL;
}

/* A feed's kallsyms, read for trawl_trace_symbol() (tw_feed.kallsyms). */
static void take_syms(void *ctx, const char *text, size_t len)
{
	dat_reader *r = ctx;
	if (tw_dat_syms_parse(&r->f, text, len) == 0 && r->f.nsyms)
		r->syms_api_only = 1;
}

static const char *trace_symbol(trawl_trace *t, uint64_t addr, uint64_t *offset,
				uint64_t *size)
{
	dat_reader *r = rd(t);
	const char *module;
	tw_dat_load_kallsyms(&r->f);
	if (!r->f.nsyms && r->feed && r->feed->kallsyms &&
	    !r->late_syms_asked) {
		r->late_syms_asked = 1;
		r->feed->kallsyms(r->feed->ctx, take_syms, r);
	}
	return tw_dat_sym_lookup(&r->f, addr, offset, size, &module);
}

static void close_reader(trawl_trace *t)
{
	dat_reader *r = rd(t);
	if (!r)
		return;
	ahead_stop(r);
	tw_dat_merge_free(r->merge);
	if (r->recs)
		r->recs->close(r->recs->ctx);
	for (size_t i = 0; i < r->ncur; i++)
		tw_dat_cursor_fini(&r->cur[i]);
	if (r->plugins)
		tep_unload_plugins(r->plugins, r->f.tep);
	tw_dat_file_close(&r->f);
	if (r->in)
		tw_input_close(r->in);
	trace_seq_destroy(&r->seq);
	tw_free(&t->mem, r->cur);
	tw_free(&t->mem, r->heap);
	tw_free(&t->mem, r->places);
	for (size_t p = 0; p < TYPE_PAGES; p++) {
		for (size_t i = 0; r->types[p] && i < TYPE_PAGE; i++) {
			dat_type *dt = &r->types[p][i];
			tw_pfmt_free(dt->pf);
			tw_free(&t->mem, dt->tmpl_kv);
			tw_free(&t->mem, dt->tmpl_tv);
			tw_free(&t->mem, dt->tmpl_fe);
			tw_free(&t->mem, dt->json_keys);
			tw_free(&t->mem, dt->json_key);
		}
		tw_free(&t->mem, r->types[p]);
	}
	tw_buf_fini(&t->mem, &r->raw);
	tw_buf_fini(&t->mem, &r->pad);
	tw_free(&t->mem, r);
	t->reader = NULL;
}

static const tw_reader_ops dat_ops = {
	.next = next,
	.prescan = prescan,
	.rewind = rewind_dat,
	.seek_range = seek_range,
	.reparse = reparse,
	.decode = decode,
	.get_int = get_int,
	.realize = realize,
	.get_label = get_label,
	.fields_json = fields_json,
	.fields = fields_direct,
	.get_raw = get_raw,
	.payload = payload,
	.print_buf = print_buf,
	.buffer_name = buffer_name,
	.fields_source = fields_source,
	.format_at = format_at,
	.format_text = format_text,
	.host = host,
	.symbol = trace_symbol,
	.progress = progress,
	.close = close_reader,
};

static int cmp_span(const void *a, const void *b)
{
	const tw_dat_span *x = a, *y = b;
	if (x->buffer != y->buffer)
		return x->buffer < y->buffer ? -1 : 1;
	return x->cpu < y->cpu ? -1 : x->cpu > y->cpu;
}

/*
 * Common fields sit where the kernel puts them; the first format that
 * parses says where.
 */
static int common_layout(dat_reader *r)
{
	r->type_off = 0, r->type_size = 2, r->flags_off = 2;
	r->preempt_off = 3, r->pid_off = 4;
	for (size_t i = 0; i < r->f.nformats; i++) {
		uint32_t id = r->f.formats[i].id;
		if (!r->f.formats[i].text)
			continue; /* named only: read when needed */
		dat_type *dt = type_slot(r, id);
		if (!dt && id <= TW_DAT_MAX_EVENT_ID)
			return -1;
		if (!dt)
			continue;
		if (!dt->parsed) {
			dt->parsed = 1;
			dt->event = tw_dat_parse_format(&r->f, id);
		}
		struct tep_event *e = dt->event;
		if (!e)
			continue;
		struct tep_format_field *ty =
			tep_find_common_field(e, "common_type");
		struct tep_format_field *fl =
			tep_find_common_field(e, "common_flags");
		struct tep_format_field *pc =
			tep_find_common_field(e, "common_preempt_count");
		struct tep_format_field *pid =
			tep_find_common_field(e, "common_pid");
		if (ty && pid && pid->size == 4 && pid->offset >= 0 &&
		    ty->offset >= 0 &&
		    (ty->size == 1 || ty->size == 2 || ty->size == 4)) {
			r->type_off = ty->offset;
			r->type_size = ty->size;
			r->pid_off = pid->offset;
			r->flags_off = fl && fl->offset >= 0 ? fl->offset
							     : INT32_MAX - 8;
			r->preempt_off = pc && pc->offset >= 0 ? pc->offset
							       : INT32_MAX - 8;
			break;
		}
	}
	return 0;
}

/* What every way of opening sets up alike: strictness, the flags' map,
 * libtraceevent quiet (the library never prints), the symbol resolver. */
static void reader_setup(trawl_trace *t, dat_reader *r)
{
	r->strict = (t->opts.flags & TRAWL_OPEN_STRICT) != 0;
	for (unsigned k = 0; k < 256; k++)
		r->flag_map[k] = map_flags(k);
	trace_seq_init(&r->seq);
	tep_set_loglevel(TEP_LOG_NONE);
	r->syms.r = r;
	r->resolve = (tw_pf_resolve){symbol, kernel_string, &r->syms};
}

int tw_dat_open(trawl_trace *t, struct tw_input *in, trawl_error *err)
{
	dat_reader *r = tw_calloc(&t->mem, 1, sizeof(*r));
	if (!r) {
		tw_input_close(in);
		return tw_error_at(err, TRAWL_ENOMEM, 0, t->name, 0, 0, 0,
				   "out of memory");
	}
	t->reader = r;
	t->ops = &dat_ops;
	t->format = TRAWL_FORMAT_TRACE_DAT;
	r->in = in;
	reader_setup(t, r);

	size_t len;
	const unsigned char *map =
		(const unsigned char *)tw_input_map(in, &len);
	int rc, spooled = !map;
	if (!map) {
		/* a stream cannot be mapped: read from a temporary copy,
		 * decompressed (memory stays bounded; the disk holds it) */
		if ((rc = tw_input_spool(in, t->opts.tmpdir, err)))
			return rc;
		map = (const unsigned char *)tw_input_map(in, &len);
	}
	/* A file still being written (trawl record's version 7 file) may
	 * have grown between its mapping and the read of its options chain:
	 * the chain then runs past the map, which looks like a cut file. If
	 * it grew, it is read again, mapped as it is now, with the chain's
	 * end past the map taken as where the writer was; a file truly cut
	 * short does not grow and keeps its error. */
	rc = tw_dat_file_open(&r->f, &t->mem, t->name, map, len, 0, err);
	if ((rc || r->f.cut_at) && !spooled) {
		const unsigned char *grown =
			(const unsigned char *)tw_input_regrow(in, &len);
		if (grown) {
			tw_dat_file_close(&r->f);
			map = grown;
			rc = tw_dat_file_open(&r->f, &t->mem, t->name, map, len,
					      1, err);
		}
	}
	if (rc)
		return rc;
	if (r->f.compressed)
		t->compression = r->f.comp_zstd ? "zstd" : "zlib";
	for (size_t i = 0; i < r->f.nspans; i++)
		t->data_bytes += tw_dat_span_bytes(&r->f, &r->f.spans[i]);
	if (r->f.nspans > 1)
		qsort(r->f.spans, r->f.nspans, sizeof(*r->f.spans), cmp_span);
	size_t n = r->f.nspans;
	r->cur = tw_calloc(&t->mem, n ? n : 1, sizeof(*r->cur));
	r->heap = tw_calloc(&t->mem, n ? n : 1, sizeof(*r->heap));
	if (!r->cur || !r->heap || tw_dat_index_formats(&r->f) < 0 ||
	    common_layout(r))
		return tw_error_at(err, TRAWL_ENOMEM, 0, t->name, 0, 0, 0,
				   "out of memory");
	r->ncur = n; /* only now: close walks the cursors */
	t->stats.overwritten = r->f.overrun;
	t->stats.bytes = len;
	for (size_t i = 0; i < r->ncur; i++)
		if (tw_note_cpu(t, r->f.spans[i].cpu) < 0)
			return tw_error_at(err, TRAWL_ENOMEM, 0, t->name, 0, 0,
					   0, "out of memory");
	return rewind_dat(t, err);
}

int tw_dat_open_feed(trawl_trace *t, const tw_feed *feed, trawl_error *err)
{
	dat_reader *r = tw_calloc(&t->mem, 1, sizeof(*r));
	if (!r)
		return tw_error_at(err, TRAWL_ENOMEM, 0, t->name, 0, 0, 0,
				   "out of memory");
	t->reader = r;
	t->ops = &dat_ops;
	t->format = TRAWL_FORMAT_LIVE;
	t->streaming = 1;
	r->feed = feed;
	reader_setup(t, r);
	int rc = tw_dat_file_from_meta(&r->f, &t->mem, t->name, feed->meta,
				       NULL, err);
	if (rc)
		return rc;
	r->f.format_late = feed->format;
	r->f.format_ctx = feed->ctx;
	int ncpu = feed->meta->ncpus;
	if (tw_dat_index_formats(&r->f) < 0 || common_layout(r) ||
	    !(r->merge = tw_dat_merge_new(&t->mem, &r->f, feed, ncpu)))
		return tw_error_at(err, TRAWL_ENOMEM, 0, t->name, 0, 0, 0,
				   "out of memory");
	for (int c = 0; c < ncpu; c++)
		if (tw_note_cpu(t, c) < 0)
			return tw_error_at(err, TRAWL_ENOMEM, 0, t->name, 0, 0,
					   0, "out of memory");
	return 0;
}

int tw_dat_open_records(trawl_trace *t, const tw_records *src, int format,
			trawl_error *err)
{
	dat_reader *r = tw_calloc(&t->mem, 1, sizeof(*r));
	if (!r) {
		src->close(src->ctx);
		return tw_error_at(err, TRAWL_ENOMEM, 0, t->name, 0, 0, 0,
				   "out of memory");
	}
	t->reader = r;
	t->ops = &dat_ops;
	t->format = format;
	r->recs = src; /* closed with the reader from now on */
	reader_setup(t, r);
	int rc = tw_dat_file_from_meta(&r->f, &t->mem, t->name, src->meta, NULL,
				       err);
	if (rc)
		return rc;
	if (!src->meta->kallsyms.len && src->kallsyms) {
		r->f.kallsyms_late = src->kallsyms;
		r->f.kallsyms_ctx = src->ctx;
	}
	if (tw_dat_index_formats(&r->f) < 0 || common_layout(r))
		return tw_error_at(err, TRAWL_ENOMEM, 0, t->name, 0, 0, 0,
				   "out of memory");
	return 0;
}
