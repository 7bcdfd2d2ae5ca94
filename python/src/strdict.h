/* SPDX-License-Identifier: MIT */
/*
 * A dictionary of strings to dense codes 0, 1, 2...: how a column of
 * repeated text (comm, prev_comm, an event name) becomes a pandas
 * Categorical without a Python object per row.
 */
#ifndef PT_STRDICT_H
#define PT_STRDICT_H

#include <stddef.h>
#include <stdint.h>

struct strdict {
	char *pool; /* the strings, back to back */
	size_t pool_len, pool_cap;
	size_t *off; /* code -> offset in pool; off[n] is the end */
	uint32_t n, off_cap;
	uint32_t *slots; /* code + 1, 0 for empty */
	uint32_t *hashes;
	uint32_t nslots; /* a power of two */
};

/* The code of s[0..len), added when new; -1 when out of memory. */
int32_t strdict_code(struct strdict *d, const char *s, size_t len);
/* The text of a code. */
static inline const char *strdict_text(const struct strdict *d, uint32_t code,
				       size_t *len)
{
	*len = d->off[code + 1] - d->off[code];
	return d->pool + d->off[code];
}
void strdict_free(struct strdict *d);

#endif
