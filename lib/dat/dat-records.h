/* SPDX-License-Identifier: MIT */
/*
 * Records in ftrace's layout (the common_* header, then the event's fields)
 * that come in another container than a trace.dat: a perf.data's
 * tracepoint samples carry exactly these (lib/perf). The source gives the
 * metadata a trace.dat would (the tracing data: formats, kallsyms, printk
 * formats) and the records one at a time, in time order; the core hands it
 * to the trace.dat reader (tw_dat_open_records()), which decodes the
 * records with the code it reads trace.dat files with, so the same events
 * give the same fields, values and text whichever file they came in.
 */
#ifndef TW_DAT_RECORDS_H
#define TW_DAT_RECORDS_H

#include <stddef.h>
#include <stdint.h>

#include "dat-write.h"
#include "trawl/error.h"

/* The "ID: n" line of a format text (a metadata's blob); -1 when it has
 * none (dat-file.c). */
long tw_dat_format_id(const char *p, size_t n);

/* What a record the source hands out is: an event, or a note of what the
 * source met between events, for the trace's counters. */
enum {
	TW_RECORD_EVENT,
	TW_RECORD_LOST,	   /* value events lost on cpu */
	TW_RECORD_DAMAGED, /* a damaged record at file offset value */
};

/* One record as the source hands it out. */
typedef struct tw_record {
	int kind;   /* TW_RECORD_* */
	int64_t ts; /* ns */
	int32_t cpu;
	const unsigned char *data; /* common_type first; NULL for a note */
	uint32_t len;
	uint64_t value; /* a note's */
} tw_record;

typedef struct tw_records {
	/* The tracing data: formats, kallsyms, printk formats, comms.
	 * Borrowed until close(). */
	const tw_dat_meta *meta;
	/*
	 * The next record, in time order as far as the source can tell (the
	 * run sorts what is not): TW_NEXT_EVENT with *out (data valid until
	 * the next call), TW_NEXT_EOF, or a negative TRAWL_E* with err
	 * filled. With scan set only out->ts matters and nothing is counted
	 * (the order pre-scan: no notes then). next(), comm() and progress()
	 * touch nothing but the source (what it counts on the way comes as
	 * notes), so the reader may call them on a thread of its own (the
	 * merge ahead, dat-ahead.c), one thread at a time.
	 */
	int (*next)(void *ctx, tw_record *out, int scan, trawl_error *err);
	/* Optional: whether next() gives the records in time order, found
	 * without next() (the run's pre-scan): 0 with *sorted, or
	 * -TRAWL_EUNSUPPORTED when it cannot tell (next() is walked). */
	int (*in_order)(void *ctx, int *sorted, trawl_error *err);
	/* Back to the first record; -TRAWL_EUNSUPPORTED for a stream. */
	int (*rewind)(void *ctx, trawl_error *err);
	/* The task name pid has at the time of the last record handed out,
	 * or NULL when the source does not know it; *len its length, *tgid
	 * the task's process (-1: not known). Valid until the next call to
	 * next(). */
	const char *(*comm)(void *ctx, int32_t pid, uint32_t *len,
			    int32_t *tgid);
	/* Optional: kallsyms when the metadata has none (perf writes none),
	 * asked for once, when a text first needs a symbol: NULL when there
	 * are none to be had; *len its length. Valid until close(). */
	const char *(*kallsyms)(void *ctx, size_t *len);
	/* After the last record: what the source found and counts (damage,
	 * records of other kinds) into the trace's counters; the error to
	 * return after the readable part (a file cut short), or 0. */
	int (*finish)(void *ctx, trawl_error *err);
	/* Optional: what the source says of the machine it was recorded on
	 * (trawl_trace_host(): "hostname", "os_release"), or NULL. Valid
	 * until close(). */
	const char *(*host)(void *ctx, const char *what);
	/* Bytes read and in all, for progress. */
	void (*progress)(void *ctx, uint64_t *done, uint64_t *total);
	void (*close)(void *ctx);
	void *ctx;
} tw_records;

#endif
