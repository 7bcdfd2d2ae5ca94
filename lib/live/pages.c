/* SPDX-License-Identifier: MIT */
/*
 * Counting the events in recorded ring-buffer pages, for the summary. The
 * page and event headers are walked by libtraceevent's kbuffer, the same
 * code trace-cmd report reads them with, so the counts agree with it:
 * padding and time extends are not events, discarded (filtered) ones are
 * not either.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/mman.h>

#include <kbuffer.h>

#include "live-int.h"

int tw_pages_count(int fd, uint64_t off, uint64_t size, size_t page_size,
		   uint64_t *events)
{
	*events = 0;
	if (!size)
		return 0;
	struct kbuffer *kb = kbuffer_alloc(KBUFFER_LSIZE_SAME_AS_HOST,
					   KBUFFER_ENDIAN_SAME_AS_HOST);
	if (!kb)
		return -ENOMEM;
	char *map = mmap(NULL, (size_t)size, PROT_READ, MAP_PRIVATE, fd,
			 (off_t)off);
	if (map == MAP_FAILED) {
		int e = errno;
		kbuffer_free(kb);
		return -e;
	}
	madvise(map, (size_t)size, MADV_SEQUENTIAL);
	uint64_t n = 0;
	for (uint64_t at = 0; at + page_size <= size; at += page_size) {
		if (kbuffer_load_subbuffer(kb, map + at) < 0)
			continue;
		unsigned long long ts;
		for (void *ev = kbuffer_read_event(kb, &ts); ev;
		     ev = kbuffer_next_event(kb, &ts))
			n++;
	}
	munmap(map, (size_t)size);
	kbuffer_free(kb);
	*events = n;
	return 0;
}

int tw_pages_count_mem(const void *pages, size_t size, size_t page_size,
		       uint64_t *events)
{
	*events = 0;
	struct kbuffer *kb = kbuffer_alloc(KBUFFER_LSIZE_SAME_AS_HOST,
					   KBUFFER_ENDIAN_SAME_AS_HOST);
	if (!kb)
		return -ENOMEM;
	uint64_t n = 0;
	for (size_t at = 0; at + page_size <= size; at += page_size) {
		if (kbuffer_load_subbuffer(kb, (char *)pages + at) < 0)
			continue;
		unsigned long long ts;
		for (void *ev = kbuffer_read_event(kb, &ts); ev;
		     ev = kbuffer_next_event(kb, &ts))
			n++;
	}
	kbuffer_free(kb);
	*events = n;
	return 0;
}
