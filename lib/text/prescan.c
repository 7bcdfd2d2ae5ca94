/* SPDX-License-Identifier: MIT */
/*
 * The order pre-scan of a mapped file, split across threads: each thread
 * parses the lines of one slice (cut at newlines) and reports whether its
 * timestamps never go backwards, and its first and last timestamp. The file
 * is in order when every slice is and each slice starts no earlier than the
 * one before ends. This pass decides between zero-copy delivery and the
 * sorter, so it is the one worth spreading over the cores.
 */
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>

#include "../input/input.h"
#include "text-int.h"

#define MAX_THREADS    16
#define DROP_EVERY     (4u << 20)
#define PREFETCH_AHEAD 4096

struct slice {
	const char *p;
	size_t n;
	/* slice 0 (the calling thread) reports progress for all */
	void (*progress)(void *ctx, uint64_t done, uint64_t total);
	void *ctx;
	uint64_t scale, total;
	int any;
	int sorted;
	int64_t first, last;
};

static void *scan_slice(void *arg)
{
	struct slice *s = arg;
	const char *p = s->p, *end = s->p + s->n;
	const char *dropped = p;
	s->sorted = 1;
	while (p < end) {
		__builtin_prefetch(p + PREFETCH_AHEAD);
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
		tw_rec r;
		tw_line_info info;
		if (len <= TW_MAX_LINE &&
		    tw_ftrace_ts(p, tw_line_trim_cr(p, len), &r, &info) ==
			    TW_L_EVENT) {
			if (!s->any) {
				s->any = 1;
				s->first = r.ts;
			} else if (r.ts < s->last) {
				s->sorted = 0;
				break;
			}
			s->last = r.ts;
		}
		p += len + (nl != NULL);
		/* Read pages count in RSS: give back what is behind us. */
		if ((size_t)(p - dropped) >= 2 * DROP_EVERY) {
			if (s->progress)
				s->progress(s->ctx,
					    (uint64_t)(p - s->p) * s->scale,
					    s->total);
			uintptr_t from = ((uintptr_t)dropped + 4095) & ~4095ul;
			uintptr_t to = ((uintptr_t)p - DROP_EVERY) & ~4095ul;
			if (to > from)
				madvise((void *)from, to - from, MADV_DONTNEED);
			dropped = (const char *)to;
		}
	}
	return NULL;
}

int tw_text_prescan_map(const char *map, size_t len, int threads, int *sorted,
			void (*progress)(void *, uint64_t, uint64_t), void *ctx)
{
	if (threads > MAX_THREADS)
		threads = MAX_THREADS;
	if (threads < 1)
		threads = 1;
	struct slice sl[MAX_THREADS];
	pthread_t tid[MAX_THREADS];
	int started[MAX_THREADS] = {0};
	const char *p = map, *end = map + len;
	for (int i = 0; i < threads; i++) {
		const char *cut =
			i == threads - 1
				? end
				: map + len / (size_t)threads * (size_t)(i + 1);
		if (cut < p)
			cut = p;
		if (cut < end) {
			const char *nl = memchr(cut, '\n', (size_t)(end - cut));
			cut = nl ? nl + 1 : end;
		}
		memset(&sl[i], 0, sizeof(sl[i]));
		sl[i].p = p;
		sl[i].n = (size_t)(cut - p);
		p = cut;
		if (i == 0 && progress) {
			/* The pre-scan is the first half of the run. */
			sl[0].progress = progress;
			sl[0].ctx = ctx;
			sl[0].scale = (uint64_t)threads;
			sl[0].total = 2 * (uint64_t)len;
		}
	}
	for (int i = 1; i < threads; i++)
		started[i] =
			pthread_create(&tid[i], NULL, scan_slice, &sl[i]) == 0;
	scan_slice(&sl[0]);
	for (int i = 1; i < threads; i++) {
		if (started[i])
			pthread_join(tid[i], NULL);
		else
			scan_slice(&sl[i]); /* no thread: do it here */
	}
	*sorted = 1;
	int64_t last = INT64_MIN;
	for (int i = 0; i < threads; i++) {
		if (!sl[i].any)
			continue;
		if (!sl[i].sorted || sl[i].first < last) {
			*sorted = 0;
			break;
		}
		last = sl[i].last;
	}
	return 0;
}
