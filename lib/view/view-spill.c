/* SPDX-License-Identifier: MIT */
/*
 * The index builder's spill file. The summary levels of a lane need its
 * number of changes (about 8 a bucket at level 0), known only when the
 * pass ends, so the pass keeps every change; on a compressed trace.dat
 * that is more than twice the file's size. Instead, once the changes in
 * memory pass the index's budget, the lanes with the most of them write
 * their whole blocks out here as segments, as they fill, and the levels
 * are made afterwards by reading each lane back in order (view_scan_*):
 * the same changes, so the same index, in about the budget's memory.
 * Those lanes are then read back from the trace when a window needs
 * them, as the densest lanes are anyway (view-budget.c).
 *
 *   segment: nblocks x struct view_block (off from the segment's bytes)
 *            then the blocks' bytes
 *
 * The file has no name (O_TMPFILE, else unlinked at once): nothing is
 * left behind, whatever way trawl ends. It goes in the user's cache
 * directory (on disk, where the index caches are), else $TMPDIR or /tmp.
 * A file that cannot be made or written only means every change stays in
 * memory.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "view.h"

/* A spilled lane writes its blocks out each time they reach this. */
#define SPILL_SEGMENT (64u << 10)

static int open_in(const char *dir)
{
	if (!dir || *dir != '/')
		return -1;
	int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd >= 0 ||
	    (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL))
		return fd;
	/* a file system without O_TMPFILE */
	char path[4200];
	if (snprintf(path, sizeof(path), "%s/trawl-spill-XXXXXX", dir) >=
	    (int)sizeof(path))
		return -1;
	fd = mkostemp(path, O_CLOEXEC);
	if (fd >= 0)
		unlink(path);
	return fd;
}

int view_spill_open(struct view_spill *d)
{
	memset(d, 0, sizeof(*d));
	d->seg = SPILL_SEGMENT;
	/* the tests spill small traces in small segments */
	const char *seg = getenv("TRAWL_VIEW_SPILL_SEGMENT");
	if (seg && *seg && strtoull(seg, NULL, 10) >= 64)
		d->seg = (size_t)strtoull(seg, NULL, 10);
	char dir[4096];
	d->fd = -1;
	if (!view_cache_dir(dir, sizeof(dir)))
		d->fd = open_in(dir);
	if (d->fd < 0) {
		const char *tmp = getenv("TMPDIR");
		d->fd = open_in(tmp && *tmp ? tmp : "/tmp");
	}
	return d->fd >= 0 ? 0 : -1;
}

void view_spill_close(struct view_spill *d)
{
	if (d->fd >= 0)
		close(d->fd);
	d->fd = -1;
}

static int write_all(int fd, const void *p, size_t n, uint64_t off)
{
	const char *c = p;
	while (n) {
		ssize_t w = pwrite(fd, c, n, (off_t)off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		c += w;
		n -= (size_t)w;
		off += (uint64_t)w;
	}
	return 0;
}

static int read_all(int fd, void *p, size_t n, uint64_t off)
{
	char *c = p;
	while (n) {
		ssize_t r = pread(fd, c, n, (off_t)off);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			if (!r)
				errno = EIO; /* shorter than written */
			return -1;
		}
		c += r;
		n -= (size_t)r;
		off += (uint64_t)r;
	}
	return 0;
}

int view_spill_out(struct view_spill *d, struct view_steps *s)
{
	if (d->fd < 0 || d->failed || s->nblocks < 2)
		return d->fd < 0 || d->failed ? -1 : 0;
	if (s->nsegs == s->segcap) {
		size_t n = s->segcap ? 2 * s->segcap : 8;
		struct view_seg *g = realloc(s->segs, n * sizeof(*g));
		if (!g) {
			d->failed = 1;
			return -1;
		}
		s->segs = g;
		s->segcap = n;
	}
	/* every block but the last, which may still fill (as many as a
	 * segment can say) */
	size_t nb = s->nblocks - 1;
	while (nb > 1 && (s->blocks[nb].off > UINT32_MAX || nb > UINT32_MAX))
		nb /= 2;
	size_t nbytes = (size_t)s->blocks[nb].off;
	if (nbytes > UINT32_MAX)
		return 0;
	size_t head = nb * sizeof(*s->blocks);
	if (write_all(d->fd, s->blocks, head, d->size) ||
	    write_all(d->fd, s->bytes, nbytes, d->size + head)) {
		d->failed = 1;
		return -1;
	}
	if (!s->nsegs)
		d->lanes++;
	s->segs[s->nsegs++] = (struct view_seg){.off = d->size,
						.nblocks = (uint32_t)nb,
						.nbytes = (uint32_t)nbytes};
	d->size += head + nbytes;
	s->spilled += (uint64_t)nb * VIEW_BLOCK;
	/* the blocks left move to the front */
	size_t rest = s->nbytes - nbytes;
	memmove(s->bytes, s->bytes + nbytes, rest);
	s->nbytes = rest;
	memmove(s->blocks, s->blocks + nb,
		(s->nblocks - nb) * sizeof(*s->blocks));
	s->nblocks -= nb;
	for (size_t i = 0; i < s->nblocks; i++)
		s->blocks[i].off -= nbytes;
	/* and what the lane had grown to goes back: from now on it holds
	 * a segment at most */
	size_t keep = d->seg + 64;
	if (s->cap > 2 * keep && s->nbytes + 32 <= keep) {
		uint8_t *b = realloc(s->bytes, keep);
		if (b) {
			s->bytes = b;
			s->cap = keep;
		}
	}
	size_t kb = keep / 2 / VIEW_BLOCK + 2;
	if (s->bcap > 2 * kb && s->nblocks <= kb) {
		struct view_block *k = realloc(s->blocks, kb * sizeof(*k));
		if (k) {
			s->blocks = k;
			s->bcap = kb;
		}
	}
	return 0;
}

void view_scan_start(struct view_scan *sc, const struct view_steps *s,
		     const struct view_spill *d)
{
	memset(sc, 0, sizeof(*sc));
	sc->s = s;
	sc->d = d;
}

int view_scan_seek(struct view_scan *sc, const struct view_steps *s, int64_t t)
{
	view_scan_start(sc, s, NULL);
	sc->started = 1;
	sc->tail = 1;
	sc->seg = s->nsegs;
	return s->nsegs ? -1 : view_iter_seek(&sc->it, s, t);
}

/* The next segment into buf, or the blocks in memory. Return: 0, 1 at
 * the end, -1 a failed read. */
static int next_part(struct view_scan *sc)
{
	const struct view_steps *s = sc->s;
	if (sc->seg >= s->nsegs) {
		if (sc->tail)
			return 1;
		sc->tail = 1;
		view_iter_start(&sc->it, s);
		return 0;
	}
	const struct view_seg *g = &s->segs[sc->seg++];
	struct view_steps *b = &sc->buf;
	size_t head = (size_t)g->nblocks * sizeof(*b->blocks);
	if (g->nblocks > b->bcap) {
		void *q = realloc(b->blocks, head);
		if (!q)
			return -1;
		b->blocks = q;
		b->bcap = g->nblocks;
	}
	if (g->nbytes > b->cap) {
		void *q = realloc(b->bytes, g->nbytes);
		if (!q)
			return -1;
		b->bytes = q;
		b->cap = g->nbytes;
	}
	if (!sc->d || sc->d->fd < 0 ||
	    read_all(sc->d->fd, b->blocks, head, g->off) ||
	    read_all(sc->d->fd, b->bytes, g->nbytes, g->off + head))
		return -1;
	b->nblocks = g->nblocks;
	b->nbytes = g->nbytes;
	b->n = (uint64_t)g->nblocks * VIEW_BLOCK;
	/* what was written is read back: still, no offset past the bytes */
	for (size_t i = 0; i < b->nblocks; i++)
		if (b->blocks[i].off >= g->nbytes && g->nbytes) {
			errno = EIO;
			return -1;
		}
	view_iter_start(&sc->it, b);
	return 0;
}

ssize_t view_scan_fill(struct view_scan *sc, struct view_step *out, size_t max)
{
	if (!sc->started) {
		sc->started = 1;
		int r = next_part(sc);
		if (r)
			return r < 0 ? -1 : 0;
	}
	size_t n;
	while (!(n = view_iter_fill(&sc->it, out, max))) {
		int r = next_part(sc);
		if (r)
			return r < 0 ? -1 : 0;
	}
	return (ssize_t)n;
}

void view_scan_end(struct view_scan *sc)
{
	free(sc->buf.bytes);
	free(sc->buf.blocks);
	memset(sc, 0, sizeof(*sc));
}
