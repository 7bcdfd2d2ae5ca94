/* SPDX-License-Identifier: MIT */
/*
 * A trace.dat as it comes: what a recording holds (the metadata, then each
 * CPU's ring-buffer pages), handed over while it is being made instead of
 * read from a file. lib/live feeds it from tracefs; the trace.dat reader
 * decodes it with the code it reads files with (tw_open_feed() in
 * lib/core/run.c puts the two together), so a live session and the file it
 * recorded give the same events, fields and values.
 *
 * Time order: each CPU's pages are in its own time order. A CPU that has no
 * pages waiting says how far it is known to be empty (its horizon): no
 * event older than that will come from it. The reader delivers an event
 * when every CPU without pages waiting has a horizon at or past it.
 */
#ifndef TW_DAT_FEED_H
#define TW_DAT_FEED_H

#include <stddef.h>
#include <stdint.h>

#include "dat-write.h"

/* One CPU's pages, whole, in its time order. */
typedef struct tw_feed_batch {
	const unsigned char *pages;
	size_t len;  /* a multiple of the page size */
	void *token; /* the feed's, handed back with release() */
} tw_feed_batch;

enum tw_feed_take {
	TW_FEED_NONE = 0,  /* nothing waiting; *horizon says how far */
	TW_FEED_PAGES = 1, /* *b holds the next pages */
	TW_FEED_END = 2,   /* the CPU is done: nothing more will come */
};

typedef struct tw_feed {
	/* The recording's metadata: header_page, every event format the
	 * trace may name (or only its name: format() reads it), printk
	 * formats, comms, ncpus, page_size. Borrowed until the trace is
	 * closed. */
	const tw_dat_meta *meta;
	/* The format text of an event the meta names without one, or NULL
	 * when it cannot be read; kept until the trace is closed. Asked
	 * before the first take() only (tw_dat_feed_load_format()). */
	const char *(*format)(void *ctx, const char *system, const char *event,
			      size_t *len);
	/*
	 * The next pages of cpu, without blocking: TW_FEED_PAGES with *b
	 * (valid until release()), TW_FEED_NONE with *horizon (ns on the
	 * trace clock: no event of this CPU older than that is still to
	 * come), or TW_FEED_END. Return: a negative TRAWL_E* on failure.
	 */
	int (*take)(void *ctx, int cpu, tw_feed_batch *b, int64_t *horizon);
	/* The reader is done with b's pages. */
	void (*release)(void *ctx, int cpu, tw_feed_batch *b);
	/* Sleep until something may have changed, at most timeout_ns; held:
	 * the reader holds events it cannot hand out until the CPUs without
	 * pages waiting say how far they are (their horizons). */
	void (*wait)(void *ctx, int64_t timeout_ns, int held);
	/* The comms as they are now (saved_cmdlines' text, NUL-terminated),
	 * or NULL; valid until the next call. */
	const char *(*comms)(void *ctx);
	/* The name of a task the comms do not name (one still running), or
	 * NULL; valid until the next call. */
	const char *(*comm)(void *ctx, int32_t pid);
	/* The process (thread group) of a task, or -1 when not known (it
	 * exited); NULL: never known. */
	int32_t (*tgid)(void *ctx, int32_t pid);
	/* At the end: events the kernel overwrote or dropped before they
	 * were read, all CPUs (what a trace.dat's CPU stats say). */
	uint64_t (*overrun)(void *ctx);
	/* Optional: kallsyms for a meta without them, read when
	 * trawl_trace_symbol() first needs them and handed to take() (its
	 * text valid during the call only), on the run's thread, once.
	 * Return: 0, or -1 when they cannot be read. */
	int (*kallsyms)(void *ctx,
			void (*take)(void *tctx, const char *text, size_t len),
			void *tctx);
	void *ctx;
	/* Set (atomically, to 1) when the run must end now, not after what
	 * is queued: the merge hands no more events out, passes the rest
	 * and tells skipped() how many at the end. NULL: never. */
	const int *cut;
	void (*skipped)(void *ctx, uint64_t events);
} tw_feed;

struct trawl_trace;
/* Read the format of system:event, named in the meta without one, before
 * its first record can come (so that it is decoded, not an unknown
 * event). Return: 1 read (or already there), 0 not named, -1 unreadable. */
int tw_dat_feed_load_format(struct trawl_trace *t, const char *system,
			    const char *event);
/* The same for every event of system the meta names without a format.
 * Return: how many were read, or -1. */
int tw_dat_feed_load_system(struct trawl_trace *t, const char *system);

#endif
