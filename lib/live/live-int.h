/* SPDX-License-Identifier: MIT */
/*
 * Inside lib/live: the tracefs buffer the recorder uses (with a journal of
 * every setting it changed, to put back), event selection, the per-CPU
 * splice readers and the trace.dat metadata. Nothing here is public.
 */
#ifndef TW_LIVE_INT_H
#define TW_LIVE_INT_H

#include <pthread.h>
#include <stdint.h>

#include "../dat/dat-write.h"
#include "trawl/record.h"

struct tracefs_instance;

/* How a saved setting is written back. */
enum tw_setting_kind {
	TW_SET_VALUE,	  /* the text read before, as it was */
	TW_SET_BRACKET,	  /* trace_clock: the [selected] word of the list */
	TW_SET_FILTER,	  /* "none" means no filter: write "0" */
	TW_SET_TRIGGER,	  /* a trigger we added: write "!<command>" */
	TW_SET_BUFFER_KB, /* buffer_size_kb: see tw_buffer_kb_restore() */
};

/*
 * What to write back to buffer_size_kb for the text read before: the size
 * itself, or, for a buffer never allocated since boot ("7 (expanded:
 * 1408)"), the size it gets when first used (1408). That state cannot be
 * written back (the kernel never un-expands), and writing the 7 would
 * leave every later tracer a buffer of two pages a CPU. Return: 0 with
 * out set, or -1 when saved is neither form.
 */
int tw_buffer_kb_restore(const char *saved, char *out, size_t n);

typedef struct tw_setting {
	struct tw_setting *next; /* older */
	char *path;		 /* absolute */
	char *saved;
	int kind;
} tw_setting;

/* The buffer recorded into: a private instance, or the top level. */
typedef struct tw_tracefs {
	const char *top;	       /* the tracefs mount */
	struct tracefs_instance *inst; /* NULL: top level */
	char *dir;		       /* where its files are */
	tw_setting *journal;	       /* newest first */
	tw_mem mem;		       /* the recorder's allocator */
	int stale_removed;	       /* instances of killed recorders */
} tw_tracefs;

/* snprintf for paths: -1 (and a cut string) when it does not fit. */
int tw_pathf(char *buf, size_t n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * The name of this recorder's instance: "trawl-PID", or "trawl-TAG-PID"
 * for a TRAWL_INSTANCE_TAG of up to TW_INSTANCE_TAG_MAX letters, digits,
 * '_', '.' and '-' (any tag: instances of killed recorders are found by
 * the PID after the last dash). -1 for a tag that cannot be a name.
 */
#define TW_INSTANCE_TAG_MAX 40
int tw_instance_name(const char *tag, long pid, char *out, size_t n);

int tw_tracefs_open(tw_tracefs *tf, const tw_mem *mem, int top_level,
		    trawl_error *err);
/* Set dir/rel to value, saving what was there the first time. */
int tw_tracefs_set(tw_tracefs *tf, const char *rel, const char *value, int kind,
		   trawl_error *err);
/* Read dir/rel; caller frees (with free()). NULL with errno on failure. */
char *tw_tracefs_read(const char *dir, const char *rel, size_t *len);
/* Remove the instances of recorders that were killed (trawl-[TAG-]PID,
 * PID gone) under the tracefs mount top. Return: how many. */
int tw_tracefs_remove_stale(const char *top);
/* The same through mem; the caller frees with tw_free(mem, ...). */
char *tw_tracefs_read_mem(const tw_mem *mem, const char *dir, const char *rel,
			  size_t *len);
/* Put every setting back, newest first; remove our instance. Returns the
 * number of settings that could not be restored. */
int tw_tracefs_restore(tw_tracefs *tf);
int tw_tracefs_cpus(const tw_tracefs *tf);
/* The size of the kernel's ring-buffer pages (sub-buffers). */
size_t tw_tracefs_page_size(const tw_tracefs *tf);

/* One concrete event. */
typedef struct tw_event_sel {
	const char *system; /* in the list's text */
	const char *event;
	const char *filter;   /* borrowed from the options */
	unsigned flags;	      /* its selections' trawl_record_event.flags */
	const char *stack_if; /* live: stacks only where this matches too */
} tw_event_sel;

typedef struct tw_event_list {
	char *text; /* available_events, split in place */
	tw_event_sel *ev;
	size_t n, cap;
	uint32_t *slots; /* (system, event) -> position + 1, to add each once */
	size_t nslots;
	tw_mem mem;
} tw_event_list;

/* stack_if: per selection, its events' tw_event_sel.stack_if (or NULL) */
int tw_events_resolve(const tw_mem *mem, const char *top,
		      const trawl_record_event *sel, size_t nsel,
		      const char *const *stack_if, tw_event_list *out,
		      trawl_error *err);
void tw_events_free(tw_event_list *l);

/*
 * A recording whose pages also go to a consumer as they come (the live
 * session, live.c): the readers hand every batch of pages to emit() (after
 * the output, if there is one), wake at least every tick_ms, and each time
 * also take the page the kernel is writing, then say when they last saw
 * their CPU empty (caught_up: the CLOCK_MONOTONIC time just before the
 * drain; the trace clock is "mono"). A reader told to stop takes what is
 * left (tracing is off by then) and calls ended(). Called from the reader
 * threads.
 */
typedef struct tw_record_hooks {
	int (*emit)(void *ctx, int cpu, const void *pages, size_t n);
	void (*caught_up)(void *ctx, int cpu, int64_t before_ns);
	void (*ended)(void *ctx, int cpu, int error);
	void *ctx;
	int tick_ms;
	/* per trawl_record_opts.events, or NULL: the stacks of a selection
	 * with TRAWL_RECORD_EVENT_STACK only after the events that also
	 * match this (trawl_live_stack()'s filter); a filter the kernel
	 * refuses is left out and counted with the refused filters */
	const char *const *stack_if;
} tw_record_hooks;

/* tw_reader_drain(): what to take of the page the kernel is writing */
enum tw_drain {
	TW_DRAIN_FULL = 0, /* full pages only (splice) */
	TW_DRAIN_ONE = 1,  /* and one read of the page being written */
	TW_DRAIN_ALL = 2,  /* everything: tracing is off */
};

/* One CPU's reader: trace_pipe_raw -> pipe -> temporary file. */
typedef struct tw_reader {
	int cpu;
	int raw_fd;
	int pipe_fd[2];
	int out_fd;
	int stop_fd; /* eventfd shared by all readers, borrowed */
	size_t page_size;
	size_t pipe_size;
	uint64_t bytes;	   /* __atomic: read by trawl_record_poll() */
	int error;	   /* __atomic: errno of a failure, stops the thread */
	const tw_mem *mem; /* the recorder's (called from this thread too) */
	pthread_t thread;
	int running;
	tw_dat7 *sink;	       /* version 7: pages go here, not to out_fd */
	const char *comms_dir; /* one reader: tracefs top, for the comms */
	long comms_at;	       /* CPU 0: when saved_cmdlines goes in next (s) */
	char *buf;	       /* for pages out of the pipe */
	uint64_t events;       /* counted on their way to the sink */
	uint64_t saved;	       /* bytes of pages given to the sink */
	const tw_record_hooks *hooks; /* live: pages also go there */
	int poke_fd; /* live: eventfd, the consumer wants a drain now */
} tw_reader;

int tw_reader_init(tw_reader *r, const char *dir, int cpu, int out_fd,
		   int stop_fd, size_t page_size, trawl_error *err);
/* Move what can be moved now (enum tw_drain). */
int tw_reader_drain(tw_reader *r, int partial);
int tw_reader_start(tw_reader *r, trawl_error *err);
/* CLOCK_MONOTONIC in ns: the trace clock of a live session ("mono"). */
int64_t tw_mono_ns(void);
void tw_reader_join(tw_reader *r);
void tw_reader_fini(tw_reader *r);

/*
 * session.c for the live session: trawl_record_start() with hooks (NULL:
 * the recorder as it is). With hooks, opts->output NULL means no file. A
 * live recording ends in two steps: tw_record_quiesce() turns tracing off
 * and tells the readers to take what is left and end (they call ended()),
 * then trawl_record_stop() joins them, writes the file and restores
 * tracefs as for any recording.
 */
trawl_record *tw_record_start(const trawl_record_opts *o,
			      const tw_record_hooks *hooks, trawl_error *err);
int tw_record_quiesce(trawl_record *r, trawl_error *err);
/* Wake CPU cpu's reader now (live: the consumer waits for that CPU). */
void tw_record_poke(trawl_record *r, int cpu);
/* Events the kernel overwrote or dropped since the start, all CPUs. */
uint64_t tw_record_lost(const trawl_record *r);
/* Live: "pid comm" lines (borrowed until the stop) the file's comms get
 * after saved_cmdlines' (a pid in both gets these names). */
void tw_record_more_comms(trawl_record *r, const char *text);
/* Live: filters the kernel refused (left to the script's predicate). */
unsigned tw_record_filters_refused(const trawl_record *r);

/* Count the events in size bytes of ring-buffer pages in fd at off (page
 * aligned). */
int tw_pages_count(int fd, uint64_t off, uint64_t size, size_t page_size,
		   uint64_t *events);
/* The same for pages in memory. */
int tw_pages_count_mem(const void *pages, size_t size, size_t page_size,
		       uint64_t *events);

/* The metadata of a trace.dat, gathered from tracefs; owns its bytes. */
typedef struct tw_meta {
	tw_dat_meta m;
	void *store; /* allocations to free */
} tw_meta;

enum {
	TW_META_KALLSYMS = 1,	 /* with /proc/kallsyms (5 MB) */
	TW_META_NAMES_ONLY = 2,	 /* events' names; formats by tw_meta_format */
	TW_META_NO_CMDLINES = 4, /* comms come from the feed as needed */
};
int tw_meta_collect(tw_meta *meta, const tw_tracefs *tf,
		    const tw_event_list *events, int ncpus, size_t page_size,
		    unsigned flags, trawl_error *err);
/* The format text of system:event, read now and kept with the meta (a
 * TW_META_NAMES_ONLY meta's, when first needed), or NULL. */
const char *tw_meta_format(tw_meta *meta, const char *system, const char *event,
			   size_t *len);
void tw_meta_fini(tw_meta *meta);

#endif
