/* SPDX-License-Identifier: MIT */
/*
 * The inside of lib/formats, shared by its files only: the set as it is
 * filled (set.c), the parser of format text (parse.c), reading files to
 * their end and decompressing them (load.c, decompress.c), the events/ tree
 * walk (tree.c).
 */
#ifndef TW_FORMATS_INT_H
#define TW_FORMATS_INT_H

#include "formats.h"

/* A format being added: offsets into the store, which moves as it grows. */
typedef struct tw_fmt_ent {
	size_t sys, name, text, len;
	uint32_t id, name_len;
} tw_fmt_ent;

/* A format of the finished set; tw_format_text first, handed out as is. */
typedef struct tw_fmt {
	tw_format_text t;
	uint64_t hash;
	uint32_t next; /* 1 + index of the next format of this name, or 0 */
} tw_fmt;

struct tw_format_set {
	tw_mem mem;
	tw_buf store; /* system, name, text of each, all NUL-terminated */
	tw_fmt_ent *ents;
	size_t nents, ents_cap;
	size_t origin; /* offset in store, or SIZE_MAX */
	/* After tw_format_set_seal(): */
	tw_fmt *fmts;
	size_t n;
	uint32_t *slots; /* 1 + index into fmts by name hash; 0 empty */
	size_t mask;
	const char *origin_text;
	size_t skipped;
	char why[sizeof(((trawl_error *)0)->msg)];
};

/* set.c */
tw_format_set *tw_format_set_new(const tw_mem *mem);
/* Keep a copy of one format (checked by the parser). */
int tw_format_set_add(tw_format_set *s, const char *sys, size_t sys_len,
		      const char *name, size_t name_len, uint32_t id,
		      const char *text, size_t len, const char *path,
		      trawl_error *err);
int tw_format_set_set_origin(tw_format_set *s, const char *p, size_t n);
/* Count something left out; the first message is kept. */
void tw_format_set_skip(tw_format_set *s, const char *msg);
/* Index the formats by name; an error when there are none. */
int tw_format_set_seal(tw_format_set *s, const char *path, trawl_error *err);

/* parse.c: a file of formats (see tw_format_set_load()) into s. */
int tw_formats_parse_file(tw_format_set *s, const char *data, size_t len,
			  const char *path, trawl_error *err);
/* One events/SYSTEM/EVENT/format file's content. */
int tw_formats_parse_one(tw_format_set *s, const char *system, const char *data,
			 size_t len, const char *path, trawl_error *err);

/*
 * decompress.c: when data is gzip or zstd, its content into out (at most
 * cap bytes). Return: 1 decompressed, 0 not compressed (out untouched), or
 * a negative TRAWL_E* with err filled.
 */
int tw_formats_decompress(const tw_mem *mem, const char *data, size_t len,
			  size_t cap, const char *path, tw_buf *out,
			  trawl_error *err);

/*
 * load.c: read fd to its end into out (appending; at most cap bytes).
 * Return: 0, 1 when there is more than cap, or -errno.
 */
int tw_formats_read_fd(const tw_mem *mem, int fd, size_t cap, tw_buf *out);
/* A whole file's bytes (compressed or not) into s, then sealed. */
int tw_formats_load_bytes(tw_format_set *s, const char *data, size_t len,
			  const char *path, trawl_error *err);

/* tree.c: every SYSTEM/EVENT/format under the directory fd (not closed). */
int tw_formats_load_tree(tw_format_set *s, int fd, const char *path,
			 trawl_error *err);

#endif
