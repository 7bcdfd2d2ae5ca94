/* SPDX-License-Identifier: MIT */
/*
 * An application channel as the recorder saves it (lib/live/session.c):
 * its events turned into the kernel's ring-buffer page format, per CPU, so
 * that they go into trace.dat as a buffer of their own beside the kernel's
 * (pages.c). Event ids are @first_id + the channel's type id, above the
 * kernel's.
 */
#ifndef TW_RING_PAGES_H
#define TW_RING_PAGES_H

#include <stddef.h>
#include <stdint.h>

#include "trawl/ring.h"

typedef struct tw_ring_pages tw_ring_pages;

tw_ring_pages *tw_ring_pages_new(const char *channel, uint32_t page_size,
				 uint32_t first_id);
/* Attach when the channel appears, then take what is ready on every CPU
 * (with @final, everything: the end of the recording). Return: 1 attached,
 * 0 not (yet), negative TRAWL_E* on failure. */
int tw_ring_pages_poll(tw_ring_pages *p, int final);
/* Attach if the channel is there now: 1, 0 not (yet), negative error. */
int tw_ring_pages_attach(tw_ring_pages *p);
/* Forget the pages made so far (after they went into a file). */
void tw_ring_pages_reset(tw_ring_pages *p);
const char *tw_ring_pages_name(const tw_ring_pages *p);
/* 0 until attached */
int tw_ring_pages_ncpus(const tw_ring_pages *p);
/* whole pages of one CPU; borrowed until tw_ring_pages_free() */
const void *tw_ring_pages_data(const tw_ring_pages *p, int cpu, size_t *len);
/* kernel `format` texts of the channel's types, NUL-terminated; borrowed */
size_t tw_ring_pages_formats(tw_ring_pages *p, const char *const **texts,
			     const size_t **lens);
int tw_ring_pages_stats(const tw_ring_pages *p, int cpu, trawl_ring_stats *out);
uint64_t tw_ring_pages_events(const tw_ring_pages *p);
void tw_ring_pages_free(tw_ring_pages *p);

#endif
