/* SPDX-License-Identifier: MIT */
/*
 * `perf record -z`: the records of each mmap read are compressed into
 * PERF_RECORD_COMPRESSED records (header, then zstd data). perf writes one
 * zstd stream for the whole recording (ZSTD_compressStream and a flush per
 * read, never the frame's end), so the data of a COMPRESSED record goes on
 * where the one before ended and a record may span two of them. The
 * HEADER_COMPRESSED feature (u32 version, type, level, ratio, mmap_len;
 * type 1 is zstd) says a file has them.
 *
 * The data section is written out to an unlinked temporary file with
 * every COMPRESSED record replaced by what it holds, the other records as
 * they are, and the walk reads that (perf-reader.c): memory stays
 * bounded, the disk holds the records.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <zstd.h>

#include "perf-int.h"

#define OUT_CHUNK (1u << 20)

typedef struct expander {
	tw_perf_file *f;
	int fd;
	unsigned char *out;
	size_t out_len;
	uint64_t written;
	int failed; /* errno of a failed write */
} expander;

static void flush_out(expander *x)
{
	size_t at = 0;
	while (at < x->out_len && !x->failed) {
		ssize_t w = write(x->fd, x->out + at, x->out_len - at);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			x->failed = w < 0 ? errno : EIO;
		else
			at += (size_t)w;
	}
	x->written += x->out_len;
	x->out_len = 0;
}

static void put(expander *x, const void *p, size_t n)
{
	const unsigned char *b = p;
	while (n) {
		size_t room = OUT_CHUNK - x->out_len;
		size_t k = n < room ? n : room;
		memcpy(x->out + x->out_len, b, k);
		x->out_len += k;
		b += k;
		n -= k;
		if (x->out_len == OUT_CHUNK)
			flush_out(x);
	}
}

/* A COMPRESSED record's data through the stream: 0, or -1 when zstd
 * refuses it or it gives more than `most` bytes (the stream is then
 * started again for the next one). */
static int inflate_into(expander *x, ZSTD_DStream *zs, const unsigned char *p,
			size_t n, uint64_t most)
{
	ZSTD_inBuffer in = {p, n, 0};
	uint64_t given = 0;
	for (;;) {
		if (x->out_len == OUT_CHUNK)
			flush_out(x);
		ZSTD_outBuffer o = {x->out + x->out_len, OUT_CHUNK - x->out_len,
				    0};
		size_t was = in.pos;
		size_t rc = ZSTD_decompressStream(zs, &o, &in);
		x->out_len += o.pos;
		given += o.pos;
		if (ZSTD_isError(rc) || given > most) {
			ZSTD_DCtx_reset(zs, ZSTD_reset_session_only);
			return -1;
		}
		/* done when all went in and zstd had room to give all it
		 * holds (a full output may leave some inside it) */
		if (in.pos == in.size && o.pos < o.size)
			return 0;
		if (!o.pos && in.pos == was)
			return -1; /* no progress: cannot be */
	}
}

int tw_perf_compressed(const tw_perf_file *f, trawl_error *err)
{
	const tw_perf_section *c = &f->feat[TW_PERF_FEAT_COMPRESSED];
	if (!c->size)
		return 0;
	uint32_t type = c->size >= 8 ? tw_perf_u32(f->map + c->offset + 4) : 0;
	if (type != 1)
		return tw_error_at(err, TRAWL_EUNSUPPORTED, 0, f->name, 0, 0,
				   c->offset,
				   "records compressed by a method trawl does "
				   "not know (%u; zstd is 1), in the "
				   "compression feature at offset %llu",
				   type, (unsigned long long)c->offset);
	return 1;
}

int tw_perf_expand(tw_perf_file *f, const char *tmpdir, int *fd_out,
		   trawl_error *err)
{
	const char *dir = tmpdir ? tmpdir : getenv("TMPDIR");
	if (!dir || !*dir)
		dir = "/tmp";
	expander x = {.f = f, .fd = tw_temp_fd(dir, "trawl-perf")};
	if (x.fd < 0)
		return tw_error_at(err, TRAWL_EIO, errno, dir, 0, 0, 0,
				   "cannot create a temporary file for the "
				   "records of %s (perf record -z) "
				   "decompressed: %s (set TMPDIR)",
				   f->name, strerror(errno));
	x.out = tw_malloc(f->mem, OUT_CHUNK);
	ZSTD_DStream *zs = ZSTD_createDStream();
	int rc = 0;
	if (!x.out || !zs) {
		rc = tw_error_at(err, TRAWL_ENOMEM, 0, f->name, 0, 0, 0,
				 "out of memory");
		goto out;
	}
	ZSTD_initDStream(zs);
	/* each COMPRESSED record holds one mmap read of perf's, at most
	 * mmap_len bytes (the feature's fifth u32): more is a bomb, not a
	 * recording */
	const tw_perf_section *c = &f->feat[TW_PERF_FEAT_COMPRESSED];
	uint64_t most =
		c->size >= 20 ? tw_perf_u32(f->map + c->offset + 16) : 0;
	if (!most || most > (1u << 30))
		most = 1u << 30;
	uint64_t at = f->data.offset, end = f->data.offset + f->data.size;
	while (end - at >= 8) {
		const unsigned char *rec = f->map + at;
		uint32_t type = tw_perf_u32(rec);
		uint16_t size;
		memcpy(&size, rec + 6, 2);
		if (size < 8 || size > end - at)
			break; /* copied as it is below: the walk names it */
		uint64_t len = size;
		if (type == TW_PERF_RECORD_HEADER_TRACING_DATA) {
			uint64_t after =
				tw_perf_tracing_after(rec + 8, size - 8u);
			if (after <= end - at - size)
				len += after;
		}
		if (type != TW_PERF_RECORD_COMPRESSED) {
			put(&x, rec, (size_t)len);
		} else if (inflate_into(&x, zs, rec + 8, size - 8u, most)) {
			if (!f->zdamaged++)
				f->zdamage_off = at;
		}
		f->zrecords += type == TW_PERF_RECORD_COMPRESSED;
		at += len;
	}
	put(&x, f->map + at, (size_t)(end - at)); /* the damage, if any */
	flush_out(&x);
	if (x.failed) {
		rc = tw_error_at(err, TRAWL_EIO, x.failed, dir, 0, 0, 0,
				 "cannot write the decompressed records of "
				 "%s: %s",
				 f->name, strerror(x.failed));
		goto out;
	}
	if (lseek(x.fd, 0, SEEK_SET) < 0) {
		rc = tw_error_at(err, TRAWL_EIO, errno, dir, 0, 0, 0,
				 "cannot seek the decompressed records: %s",
				 strerror(errno));
		goto out;
	}
out:
	ZSTD_freeDStream(zs);
	tw_free(f->mem, x.out);
	if (rc) {
		close(x.fd);
		return rc;
	}
	*fd_out = x.fd;
	return 0;
}
