/* SPDX-License-Identifier: MIT */
/*
 * Byte sources for the text readers. A plain regular file is mapped and its
 * lines are handed out in place; anything else (pipes, gzip, zstd) goes
 * through one buffer that lines are cut from. Compression is recognised by
 * its magic number, so names never matter.
 */
#include <errno.h>
#include <stdio.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "input.h"

#define RAW_CHUNK   (256u * 1024)
#define BUF_INITIAL (1u << 20)

struct tw_input {
	const tw_mem *mem;
	int fd;
	int own_fd;
	char name[256];
	int seekable;
	uint64_t size;
	int comp;

	/* Plain regular files: the whole map (or the part of it
	 * tw_input_narrow() left; map_base, map_base_len: the mapping). */
	const char *map;
	size_t map_len;
	const char *map_base;
	size_t map_base_len;
	size_t pos;
	size_t dropped; /* map pages before this were given back */

	/* Streams: decompressed bytes [start, end) of buf are unread. */
	char *buf;
	size_t cap, start, end;
	int eof;      /* no more decompressed bytes will come */
	int skipping; /* dropping the rest of an over-long line */
	uint64_t skipped;

	/* Compressed bytes not yet decompressed: raw[raw_pos, raw_len). */
	unsigned char *raw;
	size_t raw_pos, raw_len;
	int raw_eof;
	uint64_t raw_read;
	z_stream z;
	int z_ready;
	ZSTD_DStream *zs;
	size_t zs_pending; /* nonzero: a zstd frame is not finished */

	uint64_t line_no;
	uint64_t offset;

	/* A decoding error is sticky: reported again on every later read. */
	int failed;
	trawl_error failure;
};

static int sys_err(tw_input *in, trawl_error *err, const char *what)
{
	int e = errno;
	return tw_error_at(err, TRAWL_EIO, e, in->name, 0, 0, in->offset,
			   "failed to %s: %s", what, strerror(e));
}

static int read_raw(tw_input *in, trawl_error *err)
{
	if (in->raw_pos < in->raw_len || in->raw_eof)
		return 0;
	ssize_t n;
	do
		n = read(in->fd, in->raw, RAW_CHUNK);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return sys_err(in, err, "read");
	in->raw_pos = 0;
	in->raw_len = (size_t)n;
	in->raw_read += (uint64_t)n;
	if (n == 0)
		in->raw_eof = 1;
	return 0;
}

static int decomp_init(tw_input *in, trawl_error *err)
{
	if (in->comp == TW_COMP_GZIP) {
		if (in->z_ready)
			inflateEnd(&in->z);
		memset(&in->z, 0, sizeof(in->z));
		/* 15 + 32: zlib or gzip header, detected. */
		if (inflateInit2(&in->z, 15 + 32) != Z_OK)
			return tw_error_at(err, TRAWL_ENOMEM, 0, in->name, 0, 0,
					   0, "cannot start gzip decoder");
		in->z_ready = 1;
	} else if (in->comp == TW_COMP_ZSTD) {
		if (!in->zs)
			in->zs = ZSTD_createDStream();
		if (!in->zs || ZSTD_isError(ZSTD_initDStream(in->zs)))
			return tw_error_at(err, TRAWL_ENOMEM, 0, in->name, 0, 0,
					   0, "cannot start zstd decoder");
	}
	return 0;
}

/* Append decompressed (or plain streamed) bytes after buf[end]. */
static int fill_once(tw_input *in, trawl_error *err)
{
	if (in->eof)
		return 0;
	if (in->start > 0 && in->start == in->end)
		in->start = in->end = 0;
	if (in->end == in->cap) {
		if (in->start > 0) {
			memmove(in->buf, in->buf + in->start,
				in->end - in->start);
			in->end -= in->start;
			in->start = 0;
		} else {
			void *p = in->buf;
			if (tw_grow(in->mem, &p, &in->cap, in->cap * 2, 1))
				return tw_error_at(err, TRAWL_ENOMEM, 0,
						   in->name, 0, 0, in->offset,
						   "out of memory");
			in->buf = p;
		}
	}
	size_t room = in->cap - in->end;
	int rc = read_raw(in, err);
	if (rc)
		return rc;
	if (in->comp == TW_COMP_NONE) {
		size_t n = in->raw_len - in->raw_pos;
		if (n == 0) {
			in->eof = 1;
			return 0;
		}
		if (n > room)
			n = room;
		memcpy(in->buf + in->end, in->raw + in->raw_pos, n);
		in->raw_pos += n;
		in->end += n;
		return 0;
	}
	if (in->raw_pos == in->raw_len) {
		/* Input ended; an unfinished stream is truncated data. */
		if ((in->comp == TW_COMP_GZIP && in->z_ready &&
		     in->z.total_in > 0) ||
		    (in->comp == TW_COMP_ZSTD && in->zs_pending))
			return tw_error_at(err, TRAWL_EPARSE, 0, in->name, 0, 0,
					   in->raw_read,
					   "%s data is truncated at byte %llu",
					   in->comp == TW_COMP_GZIP ? "gzip"
								    : "zstd",
					   (unsigned long long)in->raw_read);
		in->eof = 1;
		return 0;
	}
	if (in->comp == TW_COMP_GZIP) {
		in->z.next_in = in->raw + in->raw_pos;
		in->z.avail_in = (uInt)(in->raw_len - in->raw_pos);
		in->z.next_out = (unsigned char *)in->buf + in->end;
		in->z.avail_out = (uInt)room;
		int zr = inflate(&in->z, Z_NO_FLUSH);
		in->raw_pos = in->raw_len - in->z.avail_in;
		in->end = in->cap - in->z.avail_out;
		if (zr == Z_STREAM_END) {
			/* Concatenated members (gzip a b > c) continue. */
			inflateReset(&in->z);
			in->z.total_in = 0;
		} else if (zr != Z_OK && zr != Z_BUF_ERROR) {
			return tw_error_at(err, TRAWL_EPARSE, 0, in->name, 0, 0,
					   in->raw_read,
					   "cannot decompress gzip data near "
					   "byte %llu: %s",
					   (unsigned long long)in->raw_read,
					   in->z.msg ? in->z.msg : "corrupt");
		}
		return 0;
	}
	ZSTD_inBuffer ib = {in->raw, in->raw_len, in->raw_pos};
	ZSTD_outBuffer ob = {in->buf, in->cap, in->end};
	size_t zr = ZSTD_decompressStream(in->zs, &ob, &ib);
	in->raw_pos = ib.pos;
	in->end = ob.pos;
	in->zs_pending = ZSTD_isError(zr) ? 0 : zr;
	if (ZSTD_isError(zr))
		return tw_error_at(err, TRAWL_EPARSE, 0, in->name, 0, 0,
				   in->raw_read,
				   "cannot decompress zstd data near byte "
				   "%llu: %s",
				   (unsigned long long)in->raw_read,
				   ZSTD_getErrorName(zr));
	return 0;
}

static int fill(tw_input *in, trawl_error *err)
{
	if (in->failed) {
		if (err)
			*err = in->failure;
		return -in->failure.code;
	}
	int rc = fill_once(in, &in->failure);
	if (rc < 0) {
		in->failed = 1;
		if (err)
			*err = in->failure;
	}
	return rc;
}

static int detect_compression(tw_input *in, trawl_error *err)
{
	int rc = read_raw(in, err);
	if (rc)
		return rc;
	const unsigned char *r = in->raw;
	size_t n = in->raw_len;
	if (n >= 2 && r[0] == 0x1f && r[1] == 0x8b)
		in->comp = TW_COMP_GZIP;
	else if (n >= 4 && r[0] == 0x28 && r[1] == 0xb5 && r[2] == 0x2f &&
		 r[3] == 0xfd)
		in->comp = TW_COMP_ZSTD;
	return decomp_init(in, err);
}

tw_input *tw_input_open(const tw_mem *mem, const char *path, int fd,
			const char *name, trawl_error *err)
{
	tw_input *in = tw_calloc(mem, 1, sizeof(*in));
	if (!in) {
		tw_error_at(err, TRAWL_ENOMEM, 0, name ? name : path, 0, 0, 0,
			    "out of memory");
		return NULL;
	}
	in->mem = mem;
	in->fd = -1;
	snprintf(in->name, sizeof(in->name), "%s",
		 name ? name : (path && strcmp(path, "-") ? path : "<stdin>"));
	if (path && strcmp(path, "-") != 0) {
		in->fd = open(path, O_RDONLY | O_CLOEXEC);
		if (in->fd < 0) {
			int e = errno;
			tw_error_at(err, e == ENOENT ? TRAWL_EINVAL : TRAWL_EIO,
				    e, in->name, 0, 0, 0, "cannot open: %s",
				    strerror(e));
			goto fail;
		}
		in->own_fd = 1;
	} else {
		in->fd = path ? 0 : fd;
	}
	struct stat st;
	if (fstat(in->fd, &st) < 0) {
		sys_err(in, err, "stat");
		goto fail;
	}
	if (S_ISDIR(st.st_mode)) {
		tw_error_at(err, TRAWL_EINVAL, 0, in->name, 0, 0, 0,
			    "cannot read: it is a directory");
		goto fail;
	}
	if (S_ISREG(st.st_mode)) {
		in->size = (uint64_t)st.st_size;
		in->seekable = lseek(in->fd, 0, SEEK_CUR) == 0;
	}
	in->raw = tw_malloc(mem, RAW_CHUNK);
	if (!in->raw) {
		tw_error_at(err, TRAWL_ENOMEM, 0, in->name, 0, 0, 0,
			    "out of memory");
		goto fail;
	}
	if (detect_compression(in, err))
		goto fail;
	if (in->comp == TW_COMP_NONE && in->seekable && in->size > 0) {
		void *m =
			mmap(NULL, in->size, PROT_READ, MAP_PRIVATE, in->fd, 0);
		if (m != MAP_FAILED) {
			madvise(m, in->size, MADV_SEQUENTIAL);
			in->map = in->map_base = m;
			in->map_len = in->map_base_len = in->size;
			return in;
		}
	}
	in->cap = BUF_INITIAL;
	in->buf = tw_malloc(mem, in->cap);
	if (!in->buf) {
		tw_error_at(err, TRAWL_ENOMEM, 0, in->name, 0, 0, 0,
			    "out of memory");
		goto fail;
	}
	return in;
fail:
	tw_input_close(in);
	return NULL;
}

void tw_input_close(tw_input *in)
{
	if (!in)
		return;
	if (in->map_base)
		munmap((void *)in->map_base, in->map_base_len);
	if (in->z_ready)
		inflateEnd(&in->z);
	if (in->zs)
		ZSTD_freeDStream(in->zs);
	if (in->own_fd && in->fd >= 0)
		close(in->fd);
	tw_free(in->mem, in->raw);
	tw_free(in->mem, in->buf);
	tw_free(in->mem, in);
}

int tw_input_peek(tw_input *in, const char **p, size_t *n, trawl_error *err)
{
	size_t want = *n;
	if (in->map) {
		*p = in->map + in->pos;
		*n = in->map_len - in->pos < want ? in->map_len - in->pos
						  : want;
		return 0;
	}
	while (in->end - in->start < want && !in->eof) {
		if (in->end == in->cap && in->start == 0)
			break;
		int rc = fill(in, err);
		/* Damage after some data: show what there is; the error
		 * comes back when reading reaches it. */
		if (rc && in->end == in->start)
			return rc;
		if (rc)
			break;
	}
	*p = in->buf + in->start;
	*n = in->end - in->start < want ? in->end - in->start : want;
	return 0;
}

/*
 * Mapped pages we have read count in our RSS; give them back as we go, so
 * memory does not grow with the file. Pointers into dropped pages stay
 * valid: a later touch faults the page in again from the page cache.
 */
#define MAP_DROP_EVERY (2u << 20)

static void map_drop(tw_input *in)
{
	size_t upto = in->pos & ~(size_t)(MAP_DROP_EVERY - 1);
	if (upto >= in->dropped + 2 * MAP_DROP_EVERY) {
		size_t keep_from = upto - MAP_DROP_EVERY;
		madvise((void *)(in->map + in->dropped),
			keep_from - in->dropped, MADV_DONTNEED);
		in->dropped = keep_from;
	}
}

static int map_line(tw_input *in, const char **line, size_t *len)
{
	if (in->pos >= in->map_len)
		return TW_LINE_EOF;
	if (TW_UNLIKELY(in->pos >= in->dropped + 3 * MAP_DROP_EVERY))
		map_drop(in);
	const char *s = in->map + in->pos;
	size_t rest = in->map_len - in->pos;
	const char *nl = memchr(s, '\n', rest);
	size_t n = nl ? (size_t)(nl - s) : rest;
	in->pos += nl ? n + 1 : n;
	in->offset = in->pos;
	in->line_no++;
	*len = n;
	if (n > TW_MAX_LINE)
		return TW_LINE_TOO_LONG;
	*line = s;
	*len = tw_line_trim_cr(s, n);
	return TW_LINE_OK;
}

int tw_input_line(tw_input *in, const char **line, size_t *len,
		  trawl_error *err)
{
	if (in->map)
		return map_line(in, line, len);
	size_t scanned = 0;
	for (;;) {
		char *s = in->buf + in->start;
		size_t avail = in->end - in->start;
		char *nl = avail > scanned
				   ? memchr(s + scanned, '\n', avail - scanned)
				   : NULL;
		if (nl) {
			size_t n = (size_t)(nl - s);
			in->start += n + 1;
			in->offset += n + 1;
			if (in->skipping) {
				in->skipping = 0;
				*len = in->skipped + n;
				in->skipped = 0;
				return TW_LINE_TOO_LONG;
			}
			in->line_no++;
			if (n > TW_MAX_LINE) {
				/* as the mapped path says of it */
				*len = n;
				return TW_LINE_TOO_LONG;
			}
			*line = s;
			*len = tw_line_trim_cr(s, n);
			return TW_LINE_OK;
		}
		scanned = avail;
		if (avail > TW_MAX_LINE) {
			/* Drop what we have; keep looking for the newline. */
			if (!in->skipping)
				in->line_no++;
			in->skipping = 1;
			in->skipped += avail;
			in->offset += avail;
			in->start = in->end = 0;
			scanned = 0;
		}
		if (in->eof) {
			if (in->skipping) {
				/* An over-long last line: what is still
				 * buffered is its tail, not a line. */
				in->skipping = 0;
				*len = in->skipped + avail;
				in->skipped = 0;
				in->offset += avail;
				in->start = in->end;
				return TW_LINE_TOO_LONG;
			}
			if (avail == 0)
				return TW_LINE_EOF;
			/* Last line without a newline. */
			in->start = in->end;
			in->offset += avail;
			in->line_no++;
			*line = s;
			*len = tw_line_trim_cr(s, avail);
			return TW_LINE_OK;
		}
		int rc = fill(in, err);
		if (rc)
			return rc;
	}
}

int tw_input_rewind(tw_input *in, trawl_error *err)
{
	if (!in->seekable)
		return -TRAWL_EUNSUPPORTED;
	in->line_no = 0;
	in->offset = 0;
	if (in->map) {
		in->pos = 0;
		in->dropped = 0;
		return 0;
	}
	if (lseek(in->fd, 0, SEEK_SET) < 0)
		return sys_err(in, err, "seek");
	in->start = in->end = 0;
	in->eof = in->skipping = 0;
	in->skipped = 0;
	in->raw_pos = in->raw_len = 0;
	in->raw_eof = 0;
	in->raw_read = 0;
	in->zs_pending = 0;
	in->failed = 0;
	return decomp_init(in, err);
}

int tw_input_compression(const tw_input *in)
{
	return in->comp;
}

uint64_t tw_input_line_no(const tw_input *in)
{
	return in->line_no;
}

uint64_t tw_input_offset(const tw_input *in)
{
	return in->offset;
}

uint64_t tw_input_progress(const tw_input *in)
{
	return in->map ? in->pos : in->raw_read;
}

uint64_t tw_input_size(const tw_input *in)
{
	return in->size;
}

int tw_input_spool(tw_input *in, const char *tmpdir, trawl_error *err)
{
	if (in->map)
		return 0;
	const char *dir = tmpdir ? tmpdir : getenv("TMPDIR");
	if (!dir || !*dir)
		dir = "/tmp";
	int fd = tw_temp_fd(dir, "trawl-spool");
	if (fd < 0)
		return tw_error_at(err, TRAWL_EIO, errno, dir, 0, 0, 0,
				   "cannot create a temporary file to hold "
				   "%s read from a stream: %s (set TMPDIR)",
				   in->name, strerror(errno));
	size_t total = 0;
	const char *p;
	size_t n;
	int rc;
	while ((rc = tw_input_read(in, &p, &n, err)) == 1) {
		while (n > 0) {
			ssize_t w = write(fd, p, n);
			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0) {
				rc = tw_error_at(err, TRAWL_EIO, errno, dir, 0,
						 0, total,
						 "cannot write the temporary "
						 "copy of %s: %s",
						 in->name, strerror(errno));
				close(fd);
				return rc;
			}
			p += w;
			n -= (size_t)w;
			total += (size_t)w;
		}
	}
	if (rc < 0 || total == 0) {
		close(fd);
		return rc < 0 ? rc : 0;
	}
	void *m = mmap(NULL, total, PROT_READ, MAP_PRIVATE, fd, 0);
	if (m == MAP_FAILED) {
		rc = tw_error_at(err, TRAWL_EIO, errno, in->name, 0, 0, 0,
				 "cannot map the temporary copy: %s",
				 strerror(errno));
		close(fd);
		return rc;
	}
	madvise(m, total, MADV_SEQUENTIAL);
	/* from now on the input is that file, read from its start */
	if (in->own_fd && in->fd >= 0)
		close(in->fd);
	in->fd = fd;
	in->own_fd = 1;
	in->seekable = 1;
	in->size = total;
	in->map = in->map_base = m;
	in->map_len = in->map_base_len = total;
	in->pos = in->dropped = 0;
	in->offset = in->line_no = 0;
	return 0;
}

const char *tw_input_map(const tw_input *in, size_t *len)
{
	*len = in->map_len;
	return in->map;
}

const char *tw_input_regrow(tw_input *in, size_t *len)
{
	struct stat st;
	if (!in->map || in->map != in->map_base || in->pos ||
	    fstat(in->fd, &st) < 0 || (uint64_t)st.st_size <= in->map_len)
		return NULL;
	size_t size = (size_t)st.st_size;
	void *m = mmap(NULL, size, PROT_READ, MAP_PRIVATE, in->fd, 0);
	if (m == MAP_FAILED)
		return NULL;
	madvise(m, size, MADV_SEQUENTIAL);
	munmap((void *)in->map_base, in->map_base_len);
	in->map = in->map_base = m;
	in->map_len = in->map_base_len = size;
	in->size = size;
	*len = size;
	return in->map;
}

int tw_input_narrow(tw_input *in, uint64_t start, uint64_t end)
{
	if (!in->map || start > end || end > in->map_len)
		return -TRAWL_EUNSUPPORTED;
	in->map += start;
	in->map_len = (size_t)(end - start);
	in->pos = in->dropped = 0;
	in->offset = 0;
	in->line_no = 0;
	return 0;
}

void tw_input_consumed(tw_input *in, uint64_t end, uint64_t line)
{
	in->pos = (size_t)end;
	in->offset = end;
	in->line_no = line;
	if (TW_UNLIKELY(in->pos >= in->dropped + 3 * MAP_DROP_EVERY))
		map_drop(in);
}

int tw_input_read(tw_input *in, const char **p, size_t *n, trawl_error *err)
{
	if (in->map) {
		if (in->pos >= in->map_len)
			return 0;
		*p = in->map + in->pos;
		*n = in->map_len - in->pos;
		in->pos = in->map_len;
		return 1;
	}
	while (in->start == in->end) {
		if (in->eof)
			return 0;
		in->start = in->end = 0;
		int rc = fill(in, err);
		if (rc)
			return rc;
	}
	*p = in->buf + in->start;
	*n = in->end - in->start;
	in->offset += *n;
	in->start = in->end;
	return 1;
}
