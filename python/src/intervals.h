/* SPDX-License-Identifier: MIT */
/*
 * Columns of intervals filled while an analysis runs (GIL released), then
 * handed to numpy: start, end, pid, cpu, id, and name, kind and part as
 * codes into dictionaries (-1: none).
 */
#ifndef PT_INTERVALS_H
#define PT_INTERVALS_H

#include "pytrawl.h"
#include "strdict.h"

struct pt_intervals {
	int64_t *start, *end, *id;
	int32_t *pid, *cpu, *name, *kind, *part;
	size_t n, cap;
	struct strdict names, kinds, parts;
	int failed; /* out of memory: the rest is dropped, the dict raises */
};

void pt_intervals_add(struct pt_intervals *iv, int64_t start, int64_t end,
		      int pid, int cpu, int64_t id, const char *name,
		      const char *kind, const char *part);
/* {start, end, id, pid, cpu: arrays; name, kind, part: (codes, names)};
 * the arrays take the buffers. NULL with MemoryError when adding failed. */
PyObject *pt_intervals_dict(struct pt_intervals *iv);
void pt_intervals_free(struct pt_intervals *iv);

#endif
