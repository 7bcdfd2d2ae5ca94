/* SPDX-License-Identifier: MIT */
/*
 * The gzip and zstd input paths, on good, corrupt and truncated streams.
 *
 * Input: four control bytes, then the text.
 *   data[0] mode:  bits 0-1 codec: 0 gzip, 1 zstd, 2 two gzip members or two
 *                  zstd frames (data[2] bit 0 picks), 3 raw: the text is
 *                  used as the compressed stream itself, behind a gzip
 *                  (data[2] bit 0) or zstd magic;
 *                  bits 2-4 damage: 0 and 7 none, 1 truncate, 2 flip a
 *                  byte, 3 append garbage, 4 cut the last 1-8 bytes,
 *                  5 zero a run of bytes, 6 append a zlib (compress2)
 *                  stream;
 *                  bits 5-7 all set: repeat the text up to data[3]*8 KiB
 *                  first (up to 2 MiB decompressed from a few KiB:
 *                  buffer growth, over-long lines across refills).
 *   data[1]        where the damage goes (a fraction of the length)
 *   data[2]        the byte to flip with / append; bit 0: gzip vs zstd
 *                  (codecs 2, 3); bit 1: zstd frame checksums
 *   data[3]        repeat target (see above)
 *
 * The stream is read from a memfd (seekable: pre-scan, rewind, decode
 * again) and from a pipe (sorted); both must end the same way, a clean
 * error or the same events. Undamaged streams must deliver exactly what
 * the plain text delivers; a single gzip member or zstd frame cut short
 * must be an error.
 */
#include <zlib.h>
#include <zstd.h>

#include "fuzz-common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static ZSTD_CCtx *g_cctx;

/* gzip (windowBits 31) at the end of out; returns the bytes added. */
static size_t gzip_into(uint8_t *out, size_t cap, const uint8_t *in, size_t n)
{
	z_stream z;
	memset(&z, 0, sizeof(z));
	FUZZ_CHECK(deflateInit2(&z, 1, Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY) ==
			   Z_OK,
		   "deflateInit2");
	z.next_in = (Bytef *)in;
	z.avail_in = (uInt)n;
	z.next_out = out;
	z.avail_out = (uInt)cap;
	int rc = deflate(&z, Z_FINISH);
	FUZZ_CHECK(rc == Z_STREAM_END, "deflate %d", rc);
	size_t len = z.total_out;
	deflateEnd(&z);
	return len;
}

static size_t zstd_into(uint8_t *out, size_t cap, const uint8_t *in, size_t n,
			int checksum)
{
	if (!g_cctx)
		g_cctx = ZSTD_createCCtx();
	FUZZ_CHECK(g_cctx != NULL, "ZSTD_createCCtx");
	ZSTD_CCtx_reset(g_cctx, ZSTD_reset_session_and_parameters);
	ZSTD_CCtx_setParameter(g_cctx, ZSTD_c_compressionLevel, 1);
	ZSTD_CCtx_setParameter(g_cctx, ZSTD_c_checksumFlag, checksum);
	size_t len = ZSTD_compress2(g_cctx, out, cap, in, n);
	FUZZ_CHECK(!ZSTD_isError(len), "ZSTD_compress2: %s",
		   ZSTD_getErrorName(len));
	return len;
}

static void run_fd(int fd, const char *name, int threads, fz_result *res)
{
	fz_run r;
	memset(&r, 0, sizeof(r));
	r.check_order = 1;
	r.copy_every = 7;
	trawl_open_opts o;
	memset(&o, 0, sizeof(o));
	o.sort_memory = 2u << 20;
	o.threads = threads;
	trawl_error err;
	memset(&err, 0, sizeof(err));
	fz_run_trace(trawl_open_fd(fd, name, &o, &err), &err, &r, res);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 4)
		return 0;
	unsigned mode = data[0], where = data[1], val = data[2];
	unsigned codec = mode & 3, damage = (mode >> 2) & 7;
	int amplify = (mode >> 5) == 7;
	const uint8_t *text = data + 4;
	size_t n = size - 4;

	uint8_t *rep = NULL;
	if (amplify && n > 0) {
		size_t target = (size_t)data[3] << 13;
		size_t reps = target / n + 1;
		rep = malloc(n * reps);
		FUZZ_CHECK(rep != NULL, "malloc");
		for (size_t i = 0; i < reps; i++)
			memcpy(rep + i * n, text, n);
		text = rep;
		n *= reps;
	}

	/* Room for two members plus damage. */
	size_t cap = 2 * (compressBound((uLong)n) + ZSTD_compressBound(n)) +
		     compressBound((uLong)n) + 4096;
	uint8_t *z = malloc(cap);
	FUZZ_CHECK(z != NULL, "malloc");
	size_t len = 0;
	int use_gzip = (val & 1) != 0;
	int checksum = (val & 2) != 0;
	switch (codec) {
	case 0:
		len = gzip_into(z, cap, text, n);
		break;
	case 1:
		len = zstd_into(z, cap, text, n, checksum);
		break;
	case 2: {
		size_t cut = n * where / 256;
		if (use_gzip) {
			len = gzip_into(z, cap, text, cut);
			len += gzip_into(z + len, cap - len, text + cut,
					 n - cut);
		} else {
			len = zstd_into(z, cap, text, cut, checksum);
			len += zstd_into(z + len, cap - len, text + cut,
					 n - cut, checksum);
		}
		break;
	}
	default:
		if (use_gzip) {
			z[0] = 0x1f;
			z[1] = 0x8b;
			len = 2;
		} else {
			memcpy(z, "\x28\xb5\x2f\xfd", 4);
			len = 4;
		}
		memcpy(z + len, text, n);
		len += n;
		damage = 0;
		break;
	}

	size_t whole = len, at = len * where / 256;
	switch (damage) {
	case 1: /* truncate */
		len = at;
		break;
	case 2: /* flip a byte */
		if (len)
			z[at < len ? at : len - 1] ^= (uint8_t)(val | 1);
		break;
	case 3: /* garbage after the stream */
		for (unsigned i = 0; i <= (where & 15); i++)
			z[len++] = (uint8_t)val;
		break;
	case 4: /* cut the trailer (gzip crc/size, zstd last block) */
		len -= len < 1 + (where & 7) ? len : 1 + (where & 7);
		break;
	case 5: /* zero a run */
		for (size_t i = at; i < len && i < at + 1 + (val & 63); i++)
			z[i] = 0;
		break;
	case 6: { /* a zlib-format stream after it */
		uLongf zl = (uLongf)(cap - len);
		FUZZ_CHECK(compress2(z + len, &zl, text, (uLong)n, 1) == Z_OK,
			   "compress2");
		len += zl;
		break;
	}
	default:
		break;
	}

	/* The stream from a seekable file and from a pipe. */
	int fd = fz_memfd(z, len);
	FUZZ_CHECK(fd >= 0, "memfd");
	fz_result a;
	run_fd(fd, "<gz-memfd>", 0, &a);
	close(fd);
	int pfd = fz_pipe(z, len);
	if (pfd >= 0) {
		fz_result b;
		run_fd(pfd, "<gz-pipe>", 0, &b);
		close(pfd);
		fz_same(&a, &b, "compressed: memfd vs pipe");
	}
	int is_comp = len >= 2 && z[0] == 0x1f && z[1] == 0x8b;
	is_comp |= len >= 4 && memcmp(z, "\x28\xb5\x2f\xfd", 4) == 0;
	if (a.open_rc == 0 && is_comp)
		FUZZ_CHECK(strcmp(a.compression, "none") != 0,
			   "compressed input reported as \"%s\"",
			   a.compression);

	/* A single member or frame cut short is an error, never a success
	 * with whatever came before the cut. */
	size_t magic = codec == 0 ? 2 : 4;
	if (codec <= 1 && (damage == 1 || damage == 4) && len < whole &&
	    len >= magic)
		FUZZ_CHECK(a.open_rc != 0 || a.run_rc < 0,
			   "%s stream cut from %zu to %zu bytes read without "
			   "error (%llu events)",
			   codec == 0 ? "gzip" : "zstd", whole, len,
			   (unsigned long long)a.events);

	/* Undamaged: exactly what the plain text gives. */
	int plain_is_comp = n >= 2 && text[0] == 0x1f && text[1] == 0x8b;
	plain_is_comp |= n >= 4 && memcmp(text, "\x28\xb5\x2f\xfd", 4) == 0;
	if (codec != 3 && (damage == 0 || damage == 7) && !plain_is_comp) {
		FUZZ_CHECK(a.open_rc == 0 || a.open_rc == -TRAWL_EFORMAT ||
				   a.open_rc == -TRAWL_EUNSUPPORTED,
			   "good stream failed to open: %d", a.open_rc);
		FUZZ_CHECK(a.open_rc != 0 || a.run_rc == 0,
			   "good stream failed to run: %d", a.run_rc);
		int tfd = fz_memfd(text, n);
		FUZZ_CHECK(tfd >= 0, "memfd");
		fz_result p;
		run_fd(tfd, "<plain>", amplify ? 2 : 1, &p);
		close(tfd);
		fz_same(&a, &p, "compressed vs plain");
	}
	free(z);
	free(rep);
	return 0;
}
