/* SPDX-License-Identifier: MIT */
/*
 * Event format texts (tracefs events/SYSTEM/EVENT/format) for traces that do
 * not carry them: the kernel's text trace has only the printed events. They
 * come from a copy of a device's events/ tree or the live tracefs, from a
 * file of formats, or from the table bundled in libtrawl (kernel-formats.zst,
 * made by gen-kernel-formats.sh). Internal: include only from lib/.
 */
#ifndef TW_FORMATS_H
#define TW_FORMATS_H

#include <stddef.h>
#include <stdint.h>

#include "../util/util.h"
#include "trawl/error.h"

/*
 * Bounds on what a file or a tree may make us hold, so a hostile or corrupt
 * one cannot grow memory without end. Real formats are under 6 KiB (6.18's
 * largest is 5.5 KiB), a kernel has about 2300, and event IDs are 16 bits.
 */
#define TW_FORMAT_MAX_LEN   (256u << 10) /* one format's text */
#define TW_FORMAT_MAX_NAME  255u	 /* an event or system name */
#define TW_FORMAT_MAX_COUNT 65536u	 /* formats in one set */
#define TW_FORMAT_MAX_BYTES (64u << 20)	 /* a file, decompressed; a tree */

/* One event format's text, as tracefs shows it. */
typedef struct tw_format_text {
	const char *system; /* "sched"; "" when the source does not say */
	const char *name;   /* "sched_switch", from the "name:" line */
	uint32_t id;	    /* from the "ID:" line */
	uint32_t name_len;  /* strlen(name) */
	const char *text;   /* the whole format file, NUL-terminated */
	size_t len;	    /* of text, without the NUL */
} tw_format_text;

typedef struct tw_format_set tw_format_set;

/*
 * The table bundled in the library: every format of the kernel it was
 * generated from, decompressed into this set when it is made (2 MB, a few
 * milliseconds); each set has its own copy, nothing is global.
 * Return: 0 with *out set (free with tw_format_set_free()), or a negative
 * TRAWL_E* with err filled.
 */
int tw_format_set_bundled(const tw_mem *mem, tw_format_set **out,
			  trawl_error *err);

/*
 * The formats at path:
 *  - a directory: an events/ tree (SYSTEM/EVENT/format, the system from the
 *    directory name), or a tracing directory holding events/ such as
 *    /sys/kernel/tracing. Format files that cannot be read or are
 *    malformed are skipped and counted (tw_format_set_skipped()); other
 *    entries (enable, filter, header_page, ...) are ignored;
 *  - anything else is read to its end as one file, gzip or zstd compressed
 *    or not: format files one after another, each starting with its
 *    "name:" line, where a line "#system SYSTEM" names the system of the
 *    formats after it (else it is ""), other lines starting with '#' and
 *    blank lines between formats are ignored. kernel-formats.zst is such a
 *    file. Anything malformed is an error naming the line.
 * Formats are read with read() to the end (tracefs files report size 0).
 * Return: 0 with *out set (free with tw_format_set_free()), or a negative
 * TRAWL_E* with err filled: EIO (cannot open or read; sys_errno), EPARSE
 * (malformed, with the line in the decompressed text), ELIMIT (over the
 * bounds above), EFORMAT (no format at all), ENOMEM.
 */
int tw_format_set_load(const tw_mem *mem, const char *path, tw_format_set **out,
		       trawl_error *err);

/*
 * The format of the event named name[0..len) (not NUL-terminated), or
 * NULL. Where several systems have an event of that name, the first in set
 * order. "tracing_mark_write", as text traces name ftrace's print event,
 * finds "print" when the set has no event of its own by that name. O(1):
 * one hash probe sequence. A finished set is only read: any number of
 * threads may look up in it at once.
 * Lifetime: borrowed, valid until tw_format_set_free(s).
 */
const tw_format_text *tw_format_set_find(const tw_format_set *s,
					 const char *name, size_t len);

/* The same within one system (NUL-terminated; "" for unknown), or NULL. */
const tw_format_text *tw_format_set_find_in(const tw_format_set *s,
					    const char *system,
					    const char *name, size_t len);

/* Formats in the set, and the i-th (sorted by system and event name for
 * trees and the bundled table, in file order for files), or NULL. */
size_t tw_format_set_count(const tw_format_set *s);
const tw_format_text *tw_format_set_at(const tw_format_set *s, size_t i);

/*
 * Format files of a tree that were left out (unreadable, malformed, over
 * the size bound), and formats that repeat a system and name seen before
 * (the first is kept). *why (when why is not NULL) is the first one's
 * message, or NULL when none was.
 * Lifetime: *why is valid until tw_format_set_free(s).
 */
size_t tw_format_set_skipped(const tw_format_set *s, const char **why);

/*
 * Where the formats come from, as the source's first comment line says
 * (the bundled table: "trawl-formats linux 6.18.44 date 2026-12-01 formats
 * 2323"), or NULL when it has none.
 * Lifetime: valid until tw_format_set_free(s).
 */
const char *tw_format_set_origin(const tw_format_set *s);

/* Frees s and every string in it; NULL is a no-op. */
void tw_format_set_free(tw_format_set *s);

/*
 * A set from formats in memory, in the file form tw_format_set_load()
 * reads ("#system SYSTEM" lines, then format texts); name is for messages.
 * Return: as tw_format_set_load().
 */
int tw_format_set_parse(const tw_mem *mem, const char *data, size_t len,
			const char *name, tw_format_set **out,
			trawl_error *err);

#endif
