/* SPDX-License-Identifier: MIT */
/*
 * The input layer: bytes from a file or descriptor, whatever reads them. A
 * memory map for plain files (zero copy), a buffered stream for pipes, and
 * gzip/zstd decompressed while streaming; lines for the text readers
 * (longer than TW_MAX_LINE are skipped, never buffered whole). The core
 * opens the input, tells the binary formats from text (detect.c) and hands
 * it to the reader for it: readers never open one another.
 */
#ifndef TW_INPUT_H
#define TW_INPUT_H

#include <stddef.h>
#include <stdint.h>

#include "../util/util.h"
#include "../core/core.h"

#define TW_MAX_LINE (1u << 20)

enum tw_compression { TW_COMP_NONE, TW_COMP_GZIP, TW_COMP_ZSTD };

enum tw_line_status {
	TW_LINE_EOF = 0,
	TW_LINE_OK = 1,
	TW_LINE_TOO_LONG = 2, /* skipped: *len holds the bytes dropped */
};

typedef struct tw_input tw_input;

/* A line without the '\r' of a CRLF ending, which every line source removes. */
static inline size_t tw_line_trim_cr(const char *s, size_t n)
{
	return n > 0 && s[n - 1] == '\r' ? n - 1 : n;
}

/* Opens path ("-" is stdin) or, when path is NULL, reads fd (not closed). */
tw_input *tw_input_open(const tw_mem *mem, const char *path, int fd,
			const char *name, trawl_error *err);
void tw_input_close(tw_input *in);

/* Up to *n first bytes of the decompressed input, without consuming them. */
int tw_input_peek(tw_input *in, const char **p, size_t *n, trawl_error *err);

/*
 * Next line without its '\n' (and '\r'). Return: enum tw_line_status, or a
 * negative TRAWL_E* code with err filled. The line is valid until the next
 * call.
 */
int tw_input_line(tw_input *in, const char **line, size_t *len,
		  trawl_error *err);

/* Back to the first byte; -TRAWL_EUNSUPPORTED for pipes. */
int tw_input_rewind(tw_input *in, trawl_error *err);

int tw_input_compression(const tw_input *in);
uint64_t tw_input_line_no(const tw_input *in);	/* of the last line */
uint64_t tw_input_offset(const tw_input *in);	/* decompressed bytes read */
uint64_t tw_input_progress(const tw_input *in); /* file bytes read */
uint64_t tw_input_size(const tw_input *in);	/* file size, 0 if unknown */

/*
 * A parse-ahead thread read the map up to byte `end`, line `line`: move the
 * input there (for progress and messages) and give back pages behind it.
 */
void tw_input_consumed(tw_input *in, uint64_t end, uint64_t line);

/*
 * The next bytes of the decompressed input, consumed (to copy a whole
 * stream elsewhere). Return: 1 with *p and *n set (valid until the next
 * call), 0 at the end, or a negative TRAWL_E* code with err filled.
 */
int tw_input_read(tw_input *in, const char **p, size_t *n, trawl_error *err);

/*
 * A stream (a pipe, or a compressed file) copied, decompressed, to an
 * unlinked temporary file in tmpdir (NULL: $TMPDIR or /tmp), which the
 * input then is, mapped: tw_input_map(), tw_input_rewind() and
 * tw_input_consumed() work as for a plain file. Memory stays bounded; the
 * disk holds it. A mapped input is left as it is. Return: 0 (an empty
 * stream stays a stream, with no map), or a negative TRAWL_E* with err
 * filled.
 */
int tw_input_spool(tw_input *in, const char *tmpdir, trawl_error *err);

/* The whole mapped file for plain regular files; NULL for streams. */
const char *tw_input_map(const tw_input *in, size_t *len);

/*
 * A mapped file that has grown since it was mapped (one still being
 * written, such as trawl record's version 7 file) is mapped again whole:
 * the new map, or NULL when it has not grown, is not a mapped file, was
 * narrowed or cannot be mapped again (the old map then stays). The old
 * map's pointers are invalid after a new one is returned.
 */
const char *tw_input_regrow(tw_input *in, size_t *len);

/*
 * A mapped file from now on holds only its bytes [start, end) of the map
 * (before reading it): lines, offsets, rewinds and tw_input_map() are of
 * that part. Return: 0, or -TRAWL_EUNSUPPORTED for streams.
 */
int tw_input_narrow(tw_input *in, uint64_t start, uint64_t end);

/* detect.c: whether the first bytes are a trace.dat's magic. */
int tw_is_trace_dat(const char *p, size_t n);
/* Whether they are a perf.data's ("PERFILE2", file or pipe mode). */
int tw_is_perf_data(const char *p, size_t n);

#endif
