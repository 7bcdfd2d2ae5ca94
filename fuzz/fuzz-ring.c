/* SPDX-License-Identifier: MIT */
/*
 * The ring reader over damaged or hostile shared memory. A real channel
 * (memfd, two CPU buffers of two sub-buffers) is written with events of
 * every kind, then the input patches it: its first byte picks when (before
 * the reader attaches, or between reads, as a hostile producer would) and
 * whether the producer is alive while the reader reads; the rest are
 * (offset: 3 bytes, value: 1 byte) patches anywhere in the file. The reader
 * must read, count and format without a crash, a hang or a read outside
 * its map.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "trawl/ring.h"

struct tally {
	uint64_t events, bytes;
};

static int on_event(const trawl_ring_event *ev, void *ctx)
{
	struct tally *t = ctx;
	const unsigned char *p = ev->data;
	for (size_t i = 0; i < ev->len; i++)
		t->bytes += p[i];
	t->events++;
	return t->events > 100000;
}

static void patch(unsigned char *m, size_t size, const uint8_t *d, size_t n)
{
	for (size_t i = 0; i + 4 <= n; i += 4) {
		size_t off =
			((size_t)d[i] << 16 | (size_t)d[i + 1] << 8 | d[i + 2]);
		/* the header's first pages and the control blocks are where
		 * damage matters most: map the offset onto them half the
		 * time */
		if (d[i] & 0x80)
			off = (off & 0x7fff) + (size > 0x48000 ? 0x40000 : 0);
		m[off % size] = d[i + 3];
	}
}

static void read_all(trawl_ring *r, unsigned flags, struct tally *t)
{
	for (int cpu = 0; cpu < trawl_ring_ncpus(r); cpu++) {
		trawl_ring_read(r, cpu, flags, on_event, t);
		trawl_ring_stats st;
		trawl_ring_stats_get(r, cpu, &st);
	}
	char buf[512];
	for (int id = 0; id < trawl_ring_type_count(r) + 2; id++) {
		trawl_ring_type_format(r, id, 1000 + id, buf, sizeof(buf));
		trawl_ring_type_format(r, id, 1000 + id, NULL, 0);
		trawl_ring_type_name(r, id);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	uint8_t mode = data[0];
	trawl_ring_opts o = {.subbuf_size = 4096,
			     .subbufs = 2,
			     .ncpus = 2,
			     .mode = mode & 1,
			     .flags = TRAWL_RING_MEMFD};
	trawl_ring *w = trawl_ring_create("fuzz", &o, NULL);
	if (!w)
		return 0;
	static const trawl_ring_field f[] = {{"a", TRAWL_RING_U16},
					     {"s", TRAWL_RING_STR},
					     {"b", TRAWL_RING_S64}};
	trawl_ring_type *t = trawl_ring_type_new(w, "mixed", f, 3, NULL);
	int events = 20 + (mode >> 4) * 12;
	for (int i = 0; i < events; i++) {
		struct {
			uint16_t a;
			uint16_t pad;
			uint32_t s;
			int64_t b;
		} p = {(uint16_t)i, 0, 0, -i};
		trawl_ring_emit(t, &p, sizeof(p), i % 3 ? "text" : NULL);
		trawl_ring_counter(w, "c", i);
		if (i % 7 == 0)
			trawl_ring_slice_begin(w, "a slice with a long name");
	}
	int fd = trawl_ring_fd(w);
	size_t map = (size_t)lseek(fd, 0, SEEK_END);
	unsigned char *m =
		mmap(NULL, map, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED) {
		trawl_ring_close(w);
		return 0;
	}
	int late = mode & 2, dead = mode & 4;
	if (!late)
		patch(m, map, data + 1, size - 1);
	trawl_ring *r = trawl_ring_attach_fd(fd, NULL);
	if (dead) {
		munmap(m, map);
		m = NULL;
		/* the producer's descriptor is the one the patches need: keep
		 * a map of our own through the reader's */
		m = mmap(NULL, map, PROT_READ | PROT_WRITE, MAP_SHARED,
			 r ? trawl_ring_fd(r) : fd, 0);
		trawl_ring_close(w);
		w = NULL;
	}
	struct tally tl = {0};
	if (r) {
		read_all(r, mode & 8 ? TRAWL_RING_READ_PARTIAL : 0, &tl);
		if (late && m != MAP_FAILED)
			patch(m, map, data + 1, size - 1);
		read_all(r, TRAWL_RING_READ_PARTIAL, &tl);
		trawl_ring_close(r);
	}
	if (m && m != MAP_FAILED)
		munmap(m, map);
	trawl_ring_close(w);
	return 0;
}
