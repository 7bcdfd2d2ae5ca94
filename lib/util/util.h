/* SPDX-License-Identifier: MIT */
/*
 * Small helpers shared by every concern of libtrawl: an allocator that can be
 * hooked (for fault injection), a growable byte buffer and string hashing.
 */
#ifndef TW_UTIL_H
#define TW_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* The allocator of one trace; realloc(ctx, p, 0) frees. */
typedef struct tw_mem {
	void *(*realloc)(void *ctx, void *ptr, size_t size);
	void *ctx;
} tw_mem;

void tw_mem_init(tw_mem *m, void *(*fn)(void *, void *, size_t), void *ctx);
void *tw_malloc(const tw_mem *m, size_t n);
void *tw_calloc(const tw_mem *m, size_t count, size_t size);
void *tw_realloc(const tw_mem *m, void *p, size_t n);
void tw_free(const tw_mem *m, void *p);
char *tw_strndup(const tw_mem *m, const char *s, size_t n);

/* Grow *pp (holding *cap elements of size elem) to at least need elements. */
int tw_grow(const tw_mem *m, void **pp, size_t *cap, size_t need, size_t elem);

/* A growable byte buffer. */
typedef struct tw_buf {
	char *data;
	size_t len;
	size_t cap;
} tw_buf;

int tw_buf_reserve(const tw_mem *m, tw_buf *b, size_t need);
int tw_buf_append(const tw_mem *m, tw_buf *b, const void *p, size_t n);
/* tw_buf_append() with the common case (room left) inline. */
static inline int tw_buf_put(const tw_mem *m, tw_buf *b, const void *p,
			     size_t n)
{
	if (__builtin_expect(b->len + n < b->cap, 1)) {
		memcpy(b->data + b->len, p, n);
		b->len += n;
		b->data[b->len] = '\0';
		return 0;
	}
	return tw_buf_append(m, b, p, n);
}
void tw_buf_fini(const tw_mem *m, tw_buf *b);

/* digits.c: the decimal digits of v, written to end at the latest.
 * Return: the first (at most 20 before end). */
char *tw_digits(uint64_t v, char *end);

/* tempfile.c: an unlinked temporary file in dir (name: its prefix while
 * O_TMPFILE is not to be had): its fd, or -1 with errno. */
int tw_temp_fd(const char *dir, const char *name);

/* nearest.c: the name among cands nearest to name (edit distance, or one
 * holding the other), or NULL when none is close. */
const char *tw_nearest(const char *name, const char *const *cands,
		       size_t ncands);

/* FNV-1a of "system:event", for tables of events by name. */
static inline uint64_t tw_hash_event(const char *system, const char *event)
{
	uint64_t h = 1469598103934665603ull;
	for (const char *p = system; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ull;
	h = (h ^ ':') * 1099511628211ull;
	for (const char *p = event; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ull;
	return h ^ h >> 29;
}

/*
 * A quick hash for the per-event type lookup: the first and last eight bytes
 * and the length, mixed. Reads only inside s[0..n).
 */
static inline uint64_t tw_hash_quick(const char *s, size_t n)
{
	uint64_t a, b;
	if (n >= 8) {
		memcpy(&a, s, 8);
		memcpy(&b, s + n - 8, 8);
	} else {
		a = b = 0;
		memcpy(&a, s, n);
	}
	uint64_t h = (a ^ (b * 0x9e3779b97f4a7c15ull)) + n;
	h ^= h >> 29;
	h *= 0xbf58476d1ce4e5b9ull;
	return h ^ (h >> 32);
}

/*
 * Whether a[0..n) equals b[0..n). Names (of events and fields) are short:
 * up to 32 bytes are compared 8 at a time, inline, never reading outside
 * either range (the last word overlaps the one before it).
 */
static inline int tw_memeq(const char *a, const char *b, size_t n)
{
	if (n >= 8 && n <= 32) {
		uint64_t x, y, d = 0;
		for (size_t i = 0; i + 8 < n; i += 8) {
			memcpy(&x, a + i, 8);
			memcpy(&y, b + i, 8);
			d |= x ^ y;
		}
		memcpy(&x, a + n - 8, 8);
		memcpy(&y, b + n - 8, 8);
		return (d | (x ^ y)) == 0;
	}
	if (n < 8) {
		for (size_t i = 0; i < n; i++)
			if (a[i] != b[i])
				return 0;
		return 1;
	}
	return memcmp(a, b, n) == 0;
}

static inline int tw_eq(const char *a, size_t an, const char *b, size_t bn)
{
	/* The first byte settles most mismatches at once. */
	return an == bn && (an == 0 || (a[0] == b[0] && tw_memeq(a, b, an)));
}

/* The value of a hex digit, or -1. */
static inline int tw_hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

#define TW_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define TW_LIKELY(x)	 __builtin_expect(!!(x), 1)
#define TW_UNLIKELY(x)	 __builtin_expect(!!(x), 0)

#endif
