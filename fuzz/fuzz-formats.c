/* SPDX-License-Identifier: MIT */
/*
 * The file loader of lib/formats (tw_format_set_load() of a file) on
 * arbitrary bytes: a file of formats, plain, or gzip or zstd when it starts
 * with their magic (the seeds have all three). The bytes sit in a memfd
 * loaded by its /proc/self/fd path: read to the end, decompressed, parsed,
 * indexed by name.
 *
 * A failure must return -code with the error filled and naming the file.
 * A success must hold 1..TW_FORMAT_MAX_COUNT formats, each a NUL-terminated
 * text of its len that starts "name:", ends in a newline and has a
 * "print fmt:" line, with a name and system of visible ASCII, found again
 * by name (a format of that name) and by system and name (that very one).
 * Then the same formats must come out of the text compressed with zstd
 * and with gzip, and out of a pipe.
 *
 * A quarter of the inputs run with an allocator that fails the Nth
 * allocation: the load either succeeds or fails with TRAWL_ENOMEM, and
 * leaves nothing allocated.
 */
#include <zlib.h>
#include <zstd.h>

#include "fuzz-common.h"
#include "../lib/formats/formats.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct fault {
	long countdown; /* allocations left before the failing one; <0 never */
	int fired;
	long live;
};

static void *faulty(void *ctx, void *ptr, size_t size)
{
	struct fault *f = ctx;
	if (size == 0) {
		if (ptr)
			f->live--;
		free(ptr);
		return NULL;
	}
	if (f->countdown >= 0 && f->countdown-- == 0) {
		f->fired = 1;
		return NULL;
	}
	void *p = realloc(ptr, size);
	if (p && !ptr)
		f->live++;
	return p;
}

/* Load the file behind fd by name; checks the error on failure. */
static int load(int fd, struct fault *f, tw_format_set **out)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	tw_mem m;
	tw_mem_init(&m, faulty, f);
	trawl_error err;
	memset(&err, 0, sizeof(err));
	int rc = tw_format_set_load(&m, path, out, &err);
	if (rc) {
		FUZZ_CHECK(rc < 0 && err.code == -rc, "rc %d, code %d", rc,
			   err.code);
		FUZZ_CHECK(*out == NULL, "a set returned with rc %d", rc);
		FUZZ_CHECK(strstr(err.msg, path),
			   "message without the path: %s", err.msg);
	}
	return rc;
}

static void check_set(const tw_format_set *s)
{
	size_t n = tw_format_set_count(s);
	FUZZ_CHECK(n >= 1 && n <= TW_FORMAT_MAX_COUNT, "%zu formats", n);
	FUZZ_CHECK(tw_format_set_at(s, n) == NULL, "a format past the end");
	for (size_t i = 0; i < n; i++) {
		const tw_format_text *t = tw_format_set_at(s, i);
		FUZZ_CHECK(t && t->text && t->len >= 6, "format %zu", i);
		FUZZ_CHECK(strlen(t->text) == t->len,
			   "format %zu: len %zu, "
			   "strlen %zu",
			   i, t->len, strlen(t->text));
		FUZZ_CHECK(!strncmp(t->text, "name:", 5) &&
				   t->text[t->len - 1] == '\n' &&
				   strstr(t->text, "\nprint fmt:"),
			   "format %zu is not whole", i);
		FUZZ_CHECK(t->len <= TW_FORMAT_MAX_LEN, "format %zu: %zu bytes",
			   i, t->len);
		FUZZ_CHECK(strlen(t->name) == t->name_len && t->name_len &&
				   t->name_len <= TW_FORMAT_MAX_NAME,
			   "format %zu: name", i);
		FUZZ_CHECK(strstr(t->text, t->name),
			   "format %zu: name not in "
			   "text",
			   i);
		for (const char *p = t->name; *p; p++)
			FUZZ_CHECK(*p > ' ' && *p < 0x7f, "name byte 0x%02x",
				   (unsigned char)*p);
		for (const char *p = t->system; *p; p++)
			FUZZ_CHECK(*p > ' ' && *p < 0x7f, "system byte 0x%02x",
				   (unsigned char)*p);
		const tw_format_text *by_name =
			tw_format_set_find(s, t->name, t->name_len);
		FUZZ_CHECK(by_name && !strcmp(by_name->name, t->name),
			   "%s not found by name", t->name);
		FUZZ_CHECK(tw_format_set_find_in(s, t->system, t->name,
						 t->name_len) == t,
			   "%s:%s not found by system and name", t->system,
			   t->name);
	}
	const char *why;
	size_t skipped = tw_format_set_skipped(s, &why);
	FUZZ_CHECK((skipped == 0) == (why == NULL), "skipped %zu", skipped);
}

static void same_sets(const tw_format_set *a, const tw_format_set *b,
		      const char *how)
{
	size_t n = tw_format_set_count(a);
	FUZZ_CHECK(tw_format_set_count(b) == n, "%s: %zu formats, not %zu", how,
		   tw_format_set_count(b), n);
	for (size_t i = 0; i < n; i++) {
		const tw_format_text *x = tw_format_set_at(a, i);
		const tw_format_text *y = tw_format_set_at(b, i);
		FUZZ_CHECK(x->id == y->id && x->len == y->len &&
				   !strcmp(x->system, y->system) &&
				   !memcmp(x->text, y->text, x->len),
			   "%s: format %zu differs", how, i);
	}
}

/* The same text another way (fd), loaded without faults. */
static void again(const tw_format_set *a, int fd, const char *how)
{
	FUZZ_CHECK(fd >= 0, "%s: no fd", how);
	struct fault f = {-1, 0, 0};
	tw_format_set *b;
	int rc = load(fd, &f, &b);
	close(fd);
	FUZZ_CHECK(rc == 0, "%s: rc %d", how, rc);
	same_sets(a, b, how);
	tw_format_set_free(b);
	FUZZ_CHECK(f.live == 0, "%s: %ld blocks leaked", how, f.live);
}

static void compressed_too(const tw_format_set *a, const uint8_t *data,
			   size_t size)
{
	size_t cap = ZSTD_compressBound(size);
	uint8_t *z = malloc(cap);
	FUZZ_CHECK(z, "malloc");
	size_t zn = ZSTD_compress(z, cap, data, size, 1);
	FUZZ_CHECK(!ZSTD_isError(zn), "zstd: %s", ZSTD_getErrorName(zn));
	again(a, fz_memfd(z, zn), "zstd");
	free(z);

	cap = compressBound((uLong)size) + 32;
	z = malloc(cap);
	FUZZ_CHECK(z, "malloc");
	z_stream s;
	memset(&s, 0, sizeof(s));
	FUZZ_CHECK(deflateInit2(&s, 1, Z_DEFLATED, 15 + 16, 8,
				Z_DEFAULT_STRATEGY) == Z_OK,
		   "deflateInit2");
	s.next_in = (Bytef *)(uintptr_t)data;
	s.avail_in = (uInt)size;
	s.next_out = z;
	s.avail_out = (uInt)cap;
	FUZZ_CHECK(deflate(&s, Z_FINISH) == Z_STREAM_END, "deflate");
	size_t gn = s.total_out;
	deflateEnd(&s);
	again(a, fz_memfd(z, gn), "gzip");
	free(z);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int fd = fz_memfd(data, size);
	FUZZ_CHECK(fd >= 0, "memfd_create: %s", strerror(errno));
	uint64_t h = fz_mix(14695981039346656037ull, data, size);
	struct fault f = {h % 4 == 1 ? (long)(h >> 8) % 40 : -1, 0, 0};
	tw_format_set *s;
	int rc = load(fd, &f, &s);
	close(fd);
	if (f.fired)
		FUZZ_CHECK(rc == 0 || rc == -TRAWL_ENOMEM,
			   "allocation failed, rc %d", rc);
	else if (rc == -TRAWL_ENOMEM)
		FUZZ_CHECK(0, "out of memory without a failed allocation");
	if (rc == 0) {
		check_set(s);
		const uint8_t *u = data;
		int plain = !(size >= 4 && u[0] == 0x28 && u[1] == 0xb5 &&
			      u[2] == 0x2f && u[3] == 0xfd) &&
			    !(size >= 2 && u[0] == 0x1f && u[1] == 0x8b);
		if (plain)
			compressed_too(s, data, size);
		int pfd = fz_pipe(data, size);
		if (pfd >= 0)
			again(s, pfd, "pipe");
		tw_format_set_free(s);
	}
	FUZZ_CHECK(f.live == 0, "%ld blocks leaked (rc %d)", f.live, rc);
	return 0;
}
