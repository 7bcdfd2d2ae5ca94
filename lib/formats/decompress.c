/* SPDX-License-Identifier: MIT */
/*
 * A whole gzip or zstd file in memory, decompressed into a buffer that may
 * not grow past a bound (a small bomb must not take the machine), with the
 * decoders' memory from the set's allocator. gzip members and zstd frames
 * may follow one another, as the gzip and zstd tools write them.
 */
#define ZSTD_STATIC_LINKING_ONLY /* ZSTD_createDCtx_advanced(), 1.5.4 */
#include <zlib.h>
#include <zstd.h>
#include <zstd_errors.h>

#include "../core/core.h"
#include "formats-int.h"

/* zstd may ask for a window this large, at most (16 MiB). */
#define ZSTD_WINDOW_LOG_MAX 24

static void *zs_alloc(void *opaque, size_t size)
{
	return tw_malloc(opaque, size);
}

static void zs_free(void *opaque, void *p)
{
	tw_free(opaque, p);
}

static voidpf gz_alloc(voidpf opaque, uInt items, uInt size)
{
	if (size && items > SIZE_MAX / size)
		return Z_NULL;
	return tw_malloc(opaque, (size_t)items * size);
}

static void gz_free(voidpf opaque, voidpf p)
{
	tw_free(opaque, p);
}

/*
 * Room for more output: the free bytes after out->len, at most up to cap + 1
 * (one byte past the bound tells a stream that fits from one that does not).
 * Return: 0, or -1 when out of memory.
 */
static int room(const tw_mem *mem, tw_buf *out, size_t cap, size_t *avail)
{
	size_t lim = cap + 1;
	if (out->cap <= out->len && out->len < lim) {
		size_t more = out->len < (64u << 10) ? (64u << 10) : out->len;
		if (more > lim - out->len)
			more = lim - out->len;
		if (tw_buf_reserve(mem, out, out->len + more))
			return -1;
	}
	size_t end = out->cap < lim ? out->cap : lim;
	*avail = end > out->len ? end - out->len : 0;
	return 0;
}

static int too_big(const char *path, trawl_error *err)
{
	return tw_error_at(
		err, TRAWL_ELIMIT, 0, path, 0, 0, 0,
		"cannot decompress more than %u MiB of event formats",
		TW_FORMAT_MAX_BYTES >> 20);
}

static int nomem(const char *path, trawl_error *err)
{
	return tw_error_at(err, TRAWL_ENOMEM, 0, path, 0, 0, 0,
			   "cannot allocate memory to decompress formats");
}

static int unzstd(const tw_mem *mem, const char *data, size_t len, size_t cap,
		  const char *path, tw_buf *out, trawl_error *err)
{
	ZSTD_customMem cm = {zs_alloc, zs_free, (void *)mem};
	ZSTD_DCtx *dc = ZSTD_createDCtx_advanced(cm);
	if (!dc)
		return nomem(path, err);
	int rc = 0;
	if (ZSTD_isError(ZSTD_DCtx_setParameter(dc, ZSTD_d_windowLogMax,
						ZSTD_WINDOW_LOG_MAX))) {
		rc = nomem(path, err);
		goto out;
	}
	/* The size the frame announces, when it is believable. */
	unsigned long long want = ZSTD_getFrameContentSize(data, len);
	if (want != ZSTD_CONTENTSIZE_UNKNOWN &&
	    want != ZSTD_CONTENTSIZE_ERROR && want <= cap && want / 64 <= len &&
	    tw_buf_reserve(mem, out, (size_t)want + 1)) {
		rc = nomem(path, err);
		goto out;
	}
	ZSTD_inBuffer ib = {data, len, 0};
	size_t zr = 0;
	for (;;) {
		size_t avail;
		if (room(mem, out, cap, &avail)) {
			rc = nomem(path, err);
			goto out;
		}
		if (!avail) {
			rc = too_big(path, err);
			goto out;
		}
		ZSTD_outBuffer ob = {out->data, out->len + avail, out->len};
		zr = ZSTD_decompressStream(dc, &ob, &ib);
		out->len = ob.pos;
		if (ZSTD_isError(zr)) {
			if (ZSTD_getErrorCode(zr) ==
			    ZSTD_error_memory_allocation)
				rc = nomem(path, err);
			else
				rc = tw_error_at(err, TRAWL_EPARSE, 0, path, 0,
						 0, ib.pos,
						 "cannot decompress zstd data "
						 "near byte %zu: %s",
						 ib.pos, ZSTD_getErrorName(zr));
			goto out;
		}
		if (out->len > cap) {
			rc = too_big(path, err);
			goto out;
		}
		/* All input taken and output left over: nothing held back. */
		if (ib.pos == ib.size && ob.pos < ob.size)
			break;
	}
	if (zr != 0)
		rc = tw_error_at(err, TRAWL_EPARSE, 0, path, 0, 0, len,
				 "cannot decompress zstd data: it ends in the "
				 "middle of a frame (cut short?)");
out:
	ZSTD_freeDCtx(dc);
	return rc;
}

static int gunzip(const tw_mem *mem, const char *data, size_t len, size_t cap,
		  const char *path, tw_buf *out, trawl_error *err)
{
	z_stream z;
	memset(&z, 0, sizeof(z));
	z.zalloc = gz_alloc;
	z.zfree = gz_free;
	z.opaque = (voidpf)mem;
	int zr = inflateInit2(&z, 15 + 32); /* 32: a gzip header */
	if (zr != Z_OK)
		return zr == Z_MEM_ERROR
			       ? nomem(path, err)
			       : tw_error_at(err, TRAWL_EIO, 0, path, 0, 0, 0,
					     "cannot start the gzip decoder");
	int rc = 0;
	size_t pos = 0; /* input taken */
	for (;;) {
		size_t avail;
		if (room(mem, out, cap, &avail)) {
			rc = nomem(path, err);
			goto out;
		}
		if (!avail) {
			rc = too_big(path, err);
			goto out;
		}
		size_t in_n = len - pos;
		z.next_in = (Bytef *)(uintptr_t)(data + pos);
		z.avail_in = in_n > UINT32_MAX ? UINT32_MAX : (uInt)in_n;
		z.next_out = (Bytef *)out->data + out->len;
		z.avail_out = avail > UINT32_MAX ? UINT32_MAX : (uInt)avail;
		uInt in0 = z.avail_in, out0 = z.avail_out;
		zr = inflate(&z, Z_NO_FLUSH);
		pos += in0 - z.avail_in;
		out->len += out0 - z.avail_out;
		if (out->len > cap) {
			rc = too_big(path, err);
			goto out;
		}
		if (zr == Z_STREAM_END) {
			if (pos == len)
				break;
			/* Another member follows (or garbage, which the
			 * next header check refuses). */
			if (inflateReset(&z) != Z_OK) {
				rc = nomem(path, err);
				goto out;
			}
			continue;
		}
		if (zr == Z_MEM_ERROR) {
			rc = nomem(path, err);
			goto out;
		}
		if (zr == Z_BUF_ERROR && pos == len) {
			rc = tw_error_at(err, TRAWL_EPARSE, 0, path, 0, 0, len,
					 "cannot decompress gzip data: it ends "
					 "in the middle of a member (cut "
					 "short?)");
			goto out;
		}
		if (zr != Z_OK && zr != Z_BUF_ERROR) {
			rc = tw_error_at(err, TRAWL_EPARSE, 0, path, 0, 0, pos,
					 "cannot decompress gzip data near "
					 "byte %zu: %s",
					 pos, z.msg ? z.msg : "damaged");
			goto out;
		}
	}
out:
	inflateEnd(&z);
	return rc;
}

int tw_formats_decompress(const tw_mem *mem, const char *data, size_t len,
			  size_t cap, const char *path, tw_buf *out,
			  trawl_error *err)
{
	const unsigned char *u = (const unsigned char *)data;
	int rc;
	if (len >= 4 && u[0] == 0x28 && u[1] == 0xb5 && u[2] == 0x2f &&
	    u[3] == 0xfd)
		rc = unzstd(mem, data, len, cap, path, out, err);
	else if (len >= 2 && u[0] == 0x1f && u[1] == 0x8b)
		rc = gunzip(mem, data, len, cap, path, out, err);
	else
		return 0;
	return rc ? rc : 1;
}
