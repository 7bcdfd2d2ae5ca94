/* SPDX-License-Identifier: MIT */
/*
 * trace.dat version 7 (trace-cmd.dat.v7(5)), written while recording so
 * that a recorder killed at any moment leaves a file that reads up to the
 * last data that reached the disk. The stream file is always a complete
 * chain of sections:
 *
 *   header: magic "7\0" endian long_size page_size:u32
 *           "zstd\0" "1.5.4\0" first_options:u64
 *   HEADER_INFO, FTRACE_EVENTS, EVENT_FORMATS, KALLSYMS, PRINTK, CMDLINES
 *   OPTIONS #1: the sections' offsets, clock, uname, ...  DONE next:u64 ──┐
 *   region of CPU c: section 3 (flyrecord) whose room is taken at once, │
 *     padding to a page, count:u32 { csize:u32 usize:u32 zstd frame }... │
 *     (1 MiB, then twice the last; the rest is a hole until written)    │
 *   OPTIONS #2: BUFFER "" (each CPU: its region, what it holds)  DONE <─┘ ──┐
 *   CMDLINES every 3 s, with its own OPTIONS; more regions ...         <────┘
 *
 * A batch (about a second of one CPU) is appended to its CPU's region,
 * then an options section names every CPU's region with its size now, then
 * the previous section's DONE is pointed at it (one 8-byte pwrite), and
 * last the region's chunk count is raised: the chain on disk is whole
 * after every system call. Each section
 *
 *   id:u16 flags:u16 (1: compressed) string_id:u32 size:u64 data
 *
 * describes itself; compressed metadata is csize:u32 usize:u32 bytes.
 *
 * trace-cmd keeps the last BUFFER option only, which names each CPU's last
 * region (at least half its data); trawl's reader joins the regions of
 * every option. At a clean stop the file is rewritten as trace-cmd writes
 * it (one BUFFER, each CPU's chunks contiguous, copied in the kernel with
 * copy_file_range) and renamed over the stream file; if that fails (a full
 * disk), the stream file stays.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "../core/core.h"
#include "dat-write.h"

enum {
	SEC_OPTIONS = 0,
	SEC_FLYRECORD = 3, /* trace-cmd's id of a BUFFER's data section */
	OPT_BUFFER = 3,
	OPT_HEADER_INFO = 16,
	OPT_FTRACE_EVENTS = 17,
	OPT_EVENT_FORMATS = 18,
	OPT_KALLSYMS = 19,
	OPT_PRINTK = 20,
	OPT_CMDLINES = 21,
};

#define CHUNK_PAGES  64		  /* raw bytes per compressed chunk */
#define BATCH_BYTES  (8u << 20)	  /* a CPU's pending bytes before a batch */
#define SYNC_NS	     1000000000ll /* at least this often, when data came */
#define REGION_BYTES (1u << 20)	  /* a CPU's first region; then doubled */

/* A CPU's run of chunks (or raw pages) already in the stream file. */
struct run {
	uint64_t off, len;
	uint32_t chunks;
};

struct cpu7 {
	unsigned char *raw; /* pages waiting for a whole chunk */
	size_t raw_len;
	tw_buf z; /* chunks (or raw pages) not yet in a batch */
	uint32_t zchunks;
	ZSTD_CCtx *cctx;
	unsigned char *zbuf; /* one compressed chunk */
	size_t zcap;
	struct run *runs; /* the regions; the last is being filled */
	size_t nruns, runs_cap;
	uint64_t region_sec, region_cap; /* the last region's section, room */
	int64_t last_sync;
};

struct tw_dat7 {
	tw_mem mem;
	int fd;
	char *path;
	int comp;
	uint32_t page_size;
	int ncpus;
	size_t chunk;
	char clock[64];
	pthread_mutex_t lock;
	uint64_t end;	  /* where the next section goes */
	uint64_t done_at; /* offset of the last DONE's next field */
	int broken;	  /* errno of a failed write: no more batches */
	struct cpu7 *cpu;
};

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

static int put(const tw_mem *m, tw_buf *b, const void *p, size_t n)
{
	return n ? tw_buf_append(m, b, p, n) : 0;
}

static int put_u16(const tw_mem *m, tw_buf *b, uint16_t v)
{
	return put(m, b, &v, 2);
}

static int put_u32(const tw_mem *m, tw_buf *b, uint32_t v)
{
	return put(m, b, &v, 4);
}

static int put_u64(const tw_mem *m, tw_buf *b, uint64_t v)
{
	return put(m, b, &v, 8);
}

static int put_str(const tw_mem *m, tw_buf *b, const char *s)
{
	return put(m, b, s, strlen(s) + 1);
}

const char *tw_dat_comp_name(int comp)
{
	return comp == TW_DAT_COMP_ZSTD	  ? "zstd"
	       : comp == TW_DAT_COMP_ZLIB ? "zlib"
					  : "none";
}

/* Compress n bytes into dst (room: bound); returns the size or 0. */
static size_t squeeze(int comp, ZSTD_CCtx *cctx, void *dst, size_t bound,
		      const void *src, size_t n)
{
	if (comp == TW_DAT_COMP_ZSTD) {
		size_t k = cctx ? ZSTD_compressCCtx(cctx, dst, bound, src, n,
						    ZSTD_CLEVEL_DEFAULT)
				: ZSTD_compress(dst, bound, src, n,
						ZSTD_CLEVEL_DEFAULT);
		return ZSTD_isError(k) ? 0 : k;
	}
	uLongf k = (uLongf)bound;
	return compress2(dst, &k, src, (uLong)n, Z_DEFAULT_COMPRESSION) == Z_OK
		       ? (size_t)k
		       : 0;
}

static size_t bound_of(int comp, size_t n)
{
	return comp == TW_DAT_COMP_ZSTD ? ZSTD_compressBound(n)
					: (size_t)compressBound((uLong)n);
}

/* The 16-byte section header. */
static int put_section(const tw_mem *m, tw_buf *b, uint16_t id, uint16_t flags,
		       uint64_t size)
{
	return put_u16(m, b, id) | put_u16(m, b, flags) | put_u32(m, b, 0) |
	       put_u64(m, b, size);
}

/* A metadata section from its uncompressed body, compressed if asked. */
static int put_meta_section(const tw_mem *m, tw_buf *b, int comp, uint16_t id,
			    const tw_buf *body)
{
	if (comp == TW_DAT_COMP_NONE)
		return put_section(m, b, id, 0, body->len) |
		       put(m, b, body->data, body->len);
	size_t bound = bound_of(comp, body->len);
	void *z = tw_malloc(m, bound ? bound : 1);
	if (!z)
		return -1;
	size_t k = squeeze(comp, NULL, z, bound, body->data, body->len);
	int bad = !k && body->len;
	bad |= put_section(m, b, id, 1, 8 + (uint64_t)k);
	bad |= put_u32(m, b, (uint32_t)k) | put_u32(m, b, (uint32_t)body->len);
	bad |= put(m, b, z, k);
	tw_free(m, z);
	return bad ? -1 : 0;
}

static int put_sized64(const tw_mem *m, tw_buf *b, tw_blob x)
{
	return put_u64(m, b, x.len) | put(m, b, x.data, x.len);
}

static int put_sized32(const tw_mem *m, tw_buf *b, tw_blob x)
{
	if (x.len > UINT32_MAX)
		return -1;
	return put_u32(m, b, (uint32_t)x.len) | put(m, b, x.data, x.len);
}

/*
 * Header and metadata sections into b (b starts at file offset 0); the
 * offsets of the sections go to off[] (by option id - 16).
 */
static int build_meta(const tw_mem *mem, tw_buf *b, const tw_dat_meta *m,
		      int comp, uint64_t off[6])
{
	static const char magic[] = {0x17, 0x08, 0x44, 't', 'r',
				     'a',  'c',	 'i',  'n', 'g'};
	uint8_t endian = 0, long_size = sizeof(long);
	int bad = put(mem, b, magic, sizeof(magic)) | put(mem, b, "7", 2);
	bad |= put(mem, b, &endian, 1) | put(mem, b, &long_size, 1);
	bad |= put_u32(mem, b, m->page_size);
	bad |= put_str(mem, b, tw_dat_comp_name(comp));
	bad |= put_str(mem, b,
		       comp == TW_DAT_COMP_ZSTD	  ? ZSTD_versionString()
		       : comp == TW_DAT_COMP_ZLIB ? zlibVersion()
						  : "");
	bad |= put_u64(mem, b, 0); /* first options: set by the caller */
	for (int id = OPT_HEADER_INFO; id <= OPT_CMDLINES && !bad; id++) {
		tw_buf body = {0};
		switch (id) {
		case OPT_HEADER_INFO:
			bad |= put(mem, &body, "header_page", 12);
			bad |= put_sized64(mem, &body, m->header_page);
			bad |= put(mem, &body, "header_event", 13);
			bad |= put_sized64(mem, &body, m->header_event);
			break;
		case OPT_FTRACE_EVENTS:
			bad |= put_u32(mem, &body, (uint32_t)m->nftrace);
			for (size_t i = 0; i < m->nftrace; i++)
				bad |= put_sized64(mem, &body, m->ftrace[i]);
			break;
		case OPT_EVENT_FORMATS:
			bad |= put_u32(mem, &body, (uint32_t)m->nsystems);
			for (size_t i = 0; i < m->nsystems; i++) {
				const tw_dat_system *s = &m->systems[i];
				bad |= put_str(mem, &body, s->name);
				bad |= put_u32(mem, &body,
					       (uint32_t)s->nformats);
				for (size_t j = 0; j < s->nformats; j++)
					bad |= put_sized64(mem, &body,
							   s->formats[j]);
			}
			break;
		case OPT_KALLSYMS:
			bad |= put_sized32(mem, &body, m->kallsyms);
			break;
		case OPT_PRINTK:
			bad |= put_sized32(mem, &body, m->printk);
			break;
		case OPT_CMDLINES:
			bad |= put_sized64(mem, &body, m->cmdlines);
			break;
		}
		off[id - OPT_HEADER_INFO] = b->len;
		if (!bad)
			bad |= put_meta_section(mem, b, comp, (uint16_t)id,
						&body);
		tw_buf_fini(mem, &body);
	}
	return bad ? -1 : 0;
}

/* The options of the metadata: offsets, then the meta's own options. */
static int put_meta_options(const tw_mem *mem, tw_buf *b, const tw_dat_meta *m,
			    const uint64_t off[6])
{
	int bad = 0;
	for (int id = OPT_HEADER_INFO; id <= OPT_CMDLINES; id++) {
		bad |= put_u16(mem, b, (uint16_t)id) | put_u32(mem, b, 8);
		bad |= put_u64(mem, b, off[id - OPT_HEADER_INFO]);
	}
	for (size_t i = 0; i < m->noptions; i++) {
		bad |= put_u16(mem, b, m->options[i].id);
		bad |= put_sized32(mem, b, m->options[i].value);
	}
	return bad;
}

/* "[local] global counter": the selected word, or the text itself. */
static void clock_name(const tw_dat_meta *m, char *out, size_t n)
{
	snprintf(out, n, "local");
	for (size_t i = 0; i < m->noptions; i++) {
		if (m->options[i].id != TW_DAT_OPT_TRACECLOCK)
			continue;
		const char *s = m->options[i].value.data;
		const char *l = memchr(s, '[', m->options[i].value.len);
		const char *r = l ? strchr(l, ']') : NULL;
		if (l && r && (size_t)(r - l) < n)
			snprintf(out, n, "%.*s", (int)(r - l - 1), l + 1);
	}
}

/* An options section: body, then DONE 0; *done_field gets its offset. */
static int put_options(const tw_mem *mem, tw_buf *b, const tw_buf *body,
		       uint64_t at, uint64_t *done_field)
{
	int bad = put_section(mem, b, SEC_OPTIONS, 0, body->len + 14);
	bad |= put(mem, b, body->data, body->len);
	bad |= put_u16(mem, b, TW_DAT_OPT_DONE) | put_u32(mem, b, 8);
	*done_field = at + b->len;
	bad |= put_u64(mem, b, 0);
	return bad;
}

static int io_error(trawl_error *err, const char *path, int e, const char *what)
{
	return tw_error_at(err, e == ENOMEM ? TRAWL_ENOMEM : TRAWL_EIO, e, path,
			   0, 0, 0, "cannot write %s: %s%s", what, strerror(e),
			   e == ENOSPC ? "; free some space or write "
					 "elsewhere with -o"
				       : "");
}

/* Header, metadata, first options at offset 0 of fd; *end, *done_at. */
static int write_head(const tw_mem *mem, int fd, const char *path,
		      const tw_dat_meta *m, int comp, uint64_t *end,
		      uint64_t *done_at, trawl_error *err)
{
	tw_buf b = {0}, opts = {0};
	uint64_t off[6];
	int rc = 0;
	if (build_meta(mem, &b, m, comp, off) < 0 ||
	    put_meta_options(mem, &opts, m, off)) {
		rc = io_error(err, path, ENOMEM, "the trace.dat header");
		goto out;
	}
	uint64_t first = b.len;
	if (put_options(mem, &b, &opts, 0, done_at)) {
		rc = io_error(err, path, ENOMEM, "the trace.dat header");
		goto out;
	}
	size_t at = 10 + 2 + 2 + 4 + strlen(tw_dat_comp_name(comp)) + 1;
	at += strlen(b.data + at) + 1;
	memcpy(b.data + at, &first, 8);
	int e = -tw_dat_pwrite_all(fd, b.data, b.len, 0);
	if (e) {
		rc = io_error(err, path, e, "the trace.dat header");
		goto out;
	}
	*end = b.len;
out:
	tw_buf_fini(mem, &b);
	tw_buf_fini(mem, &opts);
	return rc;
}

tw_dat7 *tw_dat7_open(const tw_mem *mem, int fd, const char *path,
		      const tw_dat_meta *m, int comp, trawl_error *err)
{
	tw_dat7 *w = tw_calloc(mem, 1, sizeof(*w));
	if (!w) {
		io_error(err, path, ENOMEM, "the trace.dat");
		return NULL;
	}
	w->mem = *mem;
	w->fd = fd;
	w->comp = comp;
	w->page_size = m->page_size;
	w->ncpus = m->ncpus;
	w->chunk = (size_t)CHUNK_PAGES * m->page_size;
	clock_name(m, w->clock, sizeof(w->clock));
	pthread_mutex_init(&w->lock, NULL);
	w->path = tw_strndup(mem, path, strlen(path));
	w->cpu = tw_calloc(mem, (size_t)m->ncpus, sizeof(*w->cpu));
	if (!w->path || !w->cpu) {
		io_error(err, path, ENOMEM, "the trace.dat");
		goto fail;
	}
	for (int c = 0; c < w->ncpus; c++) {
		struct cpu7 *x = &w->cpu[c];
		x->raw = tw_malloc(mem, w->chunk);
		if (!x->raw) {
			io_error(err, path, ENOMEM, "the trace.dat");
			goto fail;
		}
		if (comp == TW_DAT_COMP_ZSTD &&
		    !(x->cctx = ZSTD_createCCtx())) {
			io_error(err, path, ENOMEM, "the trace.dat");
			goto fail;
		}
	}
	if (write_head(mem, fd, path, m, comp, &w->end, &w->done_at, err) < 0)
		goto fail;
	return w;
fail:
	tw_dat7_free(w);
	return NULL;
}

/* The pending raw pages become one chunk of the pending batch. */
static int seal_chunk(tw_dat7 *w, struct cpu7 *x)
{
	if (!x->raw_len)
		return 0;
	if (w->comp == TW_DAT_COMP_NONE) {
		if (put(&w->mem, &x->z, x->raw, x->raw_len))
			return -ENOMEM;
		x->raw_len = 0;
		return 0;
	}
	size_t bound = bound_of(w->comp, w->chunk);
	if (!x->zbuf) {
		x->zbuf = tw_malloc(&w->mem, bound);
		if (!x->zbuf)
			return -ENOMEM;
		x->zcap = bound;
	}
	size_t k =
		squeeze(w->comp, x->cctx, x->zbuf, x->zcap, x->raw, x->raw_len);
	if (!k)
		return -EIO;
	if (put_u32(&w->mem, &x->z, (uint32_t)k) |
	    put_u32(&w->mem, &x->z, (uint32_t)x->raw_len) |
	    put(&w->mem, &x->z, x->zbuf, k))
		return -ENOMEM;
	x->zchunks++;
	x->raw_len = 0;
	return 0;
}

/*
 * A CPU's batches go into its current region: a flyrecord section whose
 * room is taken at once (a hole until written) and that holds count4 and
 * the CPU's chunks back to back, so one BUFFER entry (offset, size) covers
 * every batch in it. A full region is followed by one twice its size.
 */
static int new_region(tw_dat7 *w, struct cpu7 *x, uint64_t need)
{
	if (tw_grow(&w->mem, (void **)&x->runs, &x->runs_cap, x->nruns + 1,
		    sizeof(*x->runs)))
		return -ENOMEM;
	uint64_t ps = w->page_size, count = w->comp != TW_DAT_COMP_NONE ? 4 : 0;
	uint64_t cap = x->nruns ? 2 * x->region_cap : REGION_BYTES;
	while (cap < need + count)
		cap *= 2;
	uint64_t sec = w->end;
	uint64_t data = (sec + 16 + ps - 1) / ps * ps;
	tw_buf h = {0};
	int bad =
		put_section(&w->mem, &h, SEC_FLYRECORD,
			    w->comp != TW_DAT_COMP_NONE, data - sec - 16 + cap);
	static const char zeros[4096];
	bad |= put(&w->mem, &h, zeros, (size_t)(data - sec - 16));
	if (count)
		bad |= put_u32(&w->mem, &h, 0);
	int rc = bad ? -ENOMEM : tw_dat_pwrite_all(w->fd, h.data, h.len, sec);
	tw_buf_fini(&w->mem, &h);
	if (rc < 0)
		return rc;
	x->region_sec = sec;
	x->region_cap = cap;
	x->runs[x->nruns++] = (struct run){data + count, 0, 0};
	w->end = data + cap;
	return 0;
}

/*
 * The pending batch of CPU cpu into the stream file: its chunks at the end
 * of its region, then an options section naming every CPU's region with
 * what it holds now, then the link from the previous options section, and
 * last the region's chunk count. A reader stopped at any point finds a
 * whole chain; until the count is written it reads the region as before.
 */
static int commit(tw_dat7 *w, int cpu)
{
	struct cpu7 *x = &w->cpu[cpu];
	if (!x->z.len)
		return 0;
	tw_buf o = {0}, body = {0}, ob = {0};
	int rc = 0;
	/* Every CPU's runs change under the lock: commits read them all. */
	pthread_mutex_lock(&w->lock);
	if (w->broken) {
		rc = -w->broken;
		goto unlock;
	}
	uint64_t count = w->comp != TW_DAT_COMP_NONE ? 4 : 0;
	struct run *run = x->nruns ? &x->runs[x->nruns - 1] : NULL;
	if (!run || run->len + x->z.len + count > x->region_cap) {
		if ((rc = new_region(w, x, x->z.len)) < 0)
			goto broken;
		run = &x->runs[x->nruns - 1];
	}
	uint64_t at = run->off + run->len;
	uint64_t opts = (w->end + 7) & ~7ull, done_field;
	uint32_t chunks = run->chunks + x->zchunks;
	uint64_t len = run->len + x->z.len;
	uint32_t n = 0;
	for (int c = 0; c < w->ncpus; c++)
		n += w->cpu[c].nruns != 0;
	int bad = put_u64(&w->mem, &body, x->region_sec) |
		  put_str(&w->mem, &body, "") |
		  put_str(&w->mem, &body, w->clock);
	bad |= put_u32(&w->mem, &body, w->page_size) |
	       put_u32(&w->mem, &body, n);
	for (int c = 0; c < w->ncpus; c++) {
		const struct cpu7 *y = &w->cpu[c];
		if (!y->nruns)
			continue;
		const struct run *last = &y->runs[y->nruns - 1];
		bad |= put_u32(&w->mem, &body, (uint32_t)c);
		bad |= put_u64(&w->mem, &body, last->off - count);
		bad |= put_u64(&w->mem, &body, c == cpu ? len : last->len);
	}
	uint16_t id = OPT_BUFFER;
	uint32_t blen = (uint32_t)body.len;
	bad |= put(&w->mem, &ob, &id, 2) | put(&w->mem, &ob, &blen, 4) |
	       put(&w->mem, &ob, body.data, body.len);
	bad |= put_options(&w->mem, &o, &ob, opts, &done_field);
	if (bad) {
		rc = -ENOMEM;
		goto unlock;
	}
	if ((rc = tw_dat_pwrite_all(w->fd, x->z.data, x->z.len, at)) < 0 ||
	    (rc = tw_dat_pwrite_all(w->fd, o.data, o.len, opts)) < 0 ||
	    (rc = tw_dat_pwrite_all(w->fd, &opts, 8, w->done_at)) < 0 ||
	    (count &&
	     (rc = tw_dat_pwrite_all(w->fd, &chunks, 4, run->off - 4)) < 0))
		goto broken;
	w->done_at = done_field;
	w->end = opts + o.len;
	run->len = len;
	run->chunks = chunks;
	x->z.len = 0;
	x->zchunks = 0;
	goto unlock;
broken:
	/*
	 * The chain still ends where it did; what was written past the last
	 * options section, and into the region past what the chain names, is
	 * given back (a full disk gets its room back).
	 */
	w->broken = -rc;
	if (ftruncate(w->fd, (off_t)((w->end + 7) & ~7ull)) < 0) {
		/* only space is lost */
	}
	if (run && run->off + run->len < run->off - count + x->region_cap &&
	    fallocate(w->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
		      (off_t)(run->off + run->len),
		      (off_t)(x->region_cap - count - run->len)) < 0) {
		/* no hole punching here: only space is lost */
	}
unlock:
	pthread_mutex_unlock(&w->lock);
	tw_buf_fini(&w->mem, &o);
	tw_buf_fini(&w->mem, &ob);
	tw_buf_fini(&w->mem, &body);
	return rc;
}

int tw_dat7_cmdlines(tw_dat7 *w, const char *text, size_t len)
{
	tw_buf body = {0}, sec = {0}, ob = {0}, o = {0};
	int rc = 0;
	tw_blob blob = {text, len};
	if (put_sized64(&w->mem, &body, blob) ||
	    put_meta_section(&w->mem, &sec, w->comp, OPT_CMDLINES, &body)) {
		rc = -ENOMEM;
		goto out;
	}
	pthread_mutex_lock(&w->lock);
	if (w->broken) {
		rc = -w->broken;
		goto unlock;
	}
	uint64_t at = w->end, opts = (at + sec.len + 7) & ~7ull, done_field;
	if (put_u16(&w->mem, &ob, OPT_CMDLINES) | put_u32(&w->mem, &ob, 8) |
		    put_u64(&w->mem, &ob, at) ||
	    put_options(&w->mem, &o, &ob, opts, &done_field)) {
		rc = -ENOMEM;
		goto unlock;
	}
	/* the section, its option, then the link: as a batch */
	if ((rc = tw_dat_pwrite_all(w->fd, sec.data, sec.len, at)) < 0 ||
	    (rc = tw_dat_pwrite_all(w->fd, o.data, o.len, opts)) < 0 ||
	    (rc = tw_dat_pwrite_all(w->fd, &opts, 8, w->done_at)) < 0) {
		w->broken = -rc;
		if (ftruncate(w->fd, (off_t)w->end) < 0) {
			/* only space is lost */
		}
		goto unlock;
	}
	w->done_at = done_field;
	w->end = opts + o.len;
unlock:
	pthread_mutex_unlock(&w->lock);
out:
	tw_buf_fini(&w->mem, &body);
	tw_buf_fini(&w->mem, &sec);
	tw_buf_fini(&w->mem, &ob);
	tw_buf_fini(&w->mem, &o);
	return rc;
}

int tw_dat7_add(tw_dat7 *w, int cpu, const void *pages, size_t n)
{
	struct cpu7 *x = &w->cpu[cpu];
	const unsigned char *p = pages;
	while (n) {
		size_t k = w->chunk - x->raw_len;
		if (k > n)
			k = n;
		memcpy(x->raw + x->raw_len, p, k);
		x->raw_len += k;
		p += k;
		n -= k;
		int rc;
		if (x->raw_len == w->chunk && (rc = seal_chunk(w, x)) < 0)
			return rc;
	}
	return x->z.len >= BATCH_BYTES ? commit(w, cpu) : 0;
}

int tw_dat7_sync(tw_dat7 *w, int cpu, int force)
{
	struct cpu7 *x = &w->cpu[cpu];
	int64_t t = now_ns();
	if (!force && t - x->last_sync < SYNC_NS)
		return 0;
	if (!x->raw_len && !x->z.len)
		return 0;
	x->last_sync = t;
	int rc = seal_chunk(w, x);
	return rc < 0 ? rc : commit(w, cpu);
}

/* Copy n bytes from src at in to dst at out, in the kernel when it can. */
static int copy_bytes(tw_dat7 *w, int src, uint64_t in, int dst, uint64_t out,
		      uint64_t n)
{
	loff_t i = (loff_t)in, o = (loff_t)out;
	while (n) {
		ssize_t k = copy_file_range(src, &i, dst, &o, (size_t)n, 0);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0 && (errno == EXDEV || errno == ENOSYS ||
			      errno == EINVAL || errno == EOPNOTSUPP))
			break;
		if (k < 0)
			return -errno;
		if (k == 0)
			return -EIO;
		n -= (uint64_t)k;
	}
	if (!n)
		return 0;
	size_t cap = 1u << 20;
	char *buf = tw_malloc(&w->mem, cap);
	if (!buf)
		return -ENOMEM;
	int rc = 0;
	while (n && !rc) {
		ssize_t k =
			pread(src, buf, n < cap ? (size_t)n : cap, (off_t)i);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			rc = k < 0 ? -errno : -EIO;
			break;
		}
		rc = tw_dat_pwrite_all(dst, buf, (size_t)k, (uint64_t)o);
		i += k;
		o += k;
		n -= (uint64_t)k;
	}
	tw_free(&w->mem, buf);
	return rc;
}

/*
 * One extra buffer's flyrecord section at *at (page aligned), its CPUs'
 * pages in chunks as the kernel's buffer has them; its BUFFER option into
 * ob. *at (OUT) moves past it.
 */
static int write_extra(tw_dat7 *w, int fd, const tw_dat_extra *e, uint64_t *at,
		       tw_buf *ob)
{
	uint64_t ps = w->page_size, sec = (*at + ps - 1) / ps * ps;
	uint64_t pos = (sec + 16 + ps - 1) / ps * ps;
	int compressed = w->comp != TW_DAT_COMP_NONE;
	tw_buf body = {0};
	int bad =
		put_u64(&w->mem, &body, sec) | put_str(&w->mem, &body, e->name);
	bad |= put_str(&w->mem, &body, e->clock);
	bad |= put_u32(&w->mem, &body, w->page_size) |
	       put_u32(&w->mem, &body, (uint32_t)e->ncpus);
	size_t bound = bound_of(w->comp, w->chunk);
	unsigned char *z = compressed ? tw_malloc(&w->mem, bound) : NULL;
	int rc = compressed && !z ? -ENOMEM : 0;
	for (int c = 0; c < e->ncpus && !rc && !bad; c++) {
		const tw_blob *pg = &e->cpu_pages[c];
		pos = (pos + ps - 1) / ps * ps;
		uint64_t start = pos;
		uint32_t chunks = 0;
		if (compressed)
			pos += 4;
		for (size_t off = 0; off < pg->len && !rc; off += w->chunk) {
			size_t n = pg->len - off < w->chunk ? pg->len - off
							    : w->chunk;
			if (!compressed) {
				rc = tw_dat_pwrite_all(fd, pg->data + off, n,
						       pos);
				pos += n;
				continue;
			}
			size_t k = squeeze(w->comp, w->cpu[0].cctx, z, bound,
					   pg->data + off, n);
			uint32_t head[2] = {(uint32_t)k, (uint32_t)n};
			if (!k) {
				rc = -EIO;
				break;
			}
			rc = tw_dat_pwrite_all(fd, head, 8, pos);
			if (!rc)
				rc = tw_dat_pwrite_all(fd, z, k, pos + 8);
			pos += 8 + k;
			chunks++;
		}
		if (!rc && compressed)
			rc = tw_dat_pwrite_all(fd, &chunks, 4, start);
		bad |= put_u32(&w->mem, &body, (uint32_t)c);
		bad |= put_u64(&w->mem, &body, start) |
		       put_u64(&w->mem, &body, pos - start);
	}
	tw_buf h = {0};
	bad |= put_section(&w->mem, &h, SEC_FLYRECORD, compressed,
			   pos - sec - 16);
	if (!rc && !bad)
		rc = tw_dat_pwrite_all(fd, h.data, h.len, sec);
	uint16_t id = OPT_BUFFER;
	uint32_t len = (uint32_t)body.len;
	bad |= put(&w->mem, ob, &id, 2) | put(&w->mem, ob, &len, 4) |
	       put(&w->mem, ob, body.data, body.len);
	tw_free(&w->mem, z);
	tw_buf_fini(&w->mem, &h);
	tw_buf_fini(&w->mem, &body);
	*at = pos;
	return rc ? rc : bad ? -ENOMEM : 0;
}

/* The standard file: every CPU's chunks together, one BUFFER option (and
 * one for each extra buffer after it). */
static int write_final(tw_dat7 *w, int fd, const tw_dat_meta *m,
		       uint64_t *file_size, trawl_error *err)
{
	uint64_t end, done_at;
	int rc = write_head(&w->mem, fd, w->path, m, w->comp, &end, &done_at,
			    err);
	if (rc < 0)
		return rc;
	uint64_t ps = w->page_size, sec = end;
	uint64_t at = (sec + 16 + ps - 1) / ps * ps;
	uint64_t count = w->comp != TW_DAT_COMP_NONE ? 4 : 0;
	tw_buf body = {0}, o = {0};
	int bad = put_u64(&w->mem, &body, sec) | put_str(&w->mem, &body, "");
	bad |= put_str(&w->mem, &body, w->clock);
	bad |= put_u32(&w->mem, &body, w->page_size) |
	       put_u32(&w->mem, &body, (uint32_t)w->ncpus);
	for (int c = 0; c < w->ncpus && !rc; c++) {
		struct cpu7 *x = &w->cpu[c];
		uint64_t size = x->z.len;
		uint32_t chunks = x->zchunks;
		for (size_t i = 0; i < x->nruns; i++) {
			size += x->runs[i].len;
			chunks += x->runs[i].chunks;
		}
		/* page aligned, as trace-cmd places them: a scan of a cut
		 * file finds each CPU's data at the next page */
		at = (at + ps - 1) / ps * ps;
		bad |= put_u32(&w->mem, &body, (uint32_t)c);
		bad |= put_u64(&w->mem, &body, at) |
		       put_u64(&w->mem, &body, size);
		if (count)
			rc = tw_dat_pwrite_all(fd, &chunks, 4, at);
		uint64_t to = at + count;
		for (size_t i = 0; i < x->nruns && !rc; i++) {
			rc = copy_bytes(w, w->fd, x->runs[i].off, fd, to,
					x->runs[i].len);
			to += x->runs[i].len;
		}
		if (!rc)
			rc = tw_dat_pwrite_all(fd, x->z.data, x->z.len, to);
		at = to + x->z.len;
	}
	uint64_t sec_size = at - sec - 16;
	uint16_t id = OPT_BUFFER;
	uint32_t len = (uint32_t)body.len;
	tw_buf ob = {0}, h = {0};
	bad |= put(&w->mem, &ob, &id, 2) | put(&w->mem, &ob, &len, 4) |
	       put(&w->mem, &ob, body.data, body.len);
	for (size_t i = 0; i < m->nextra && !rc && !bad; i++)
		rc = write_extra(w, fd, &m->extra[i], &at, &ob);
	uint64_t opts = (at + 7) & ~7ull, done_field;
	bad |= put_options(&w->mem, &o, &ob, opts, &done_field);
	bad |= put_section(&w->mem, &h, SEC_FLYRECORD,
			   w->comp != TW_DAT_COMP_NONE, sec_size);
	if (bad && !rc)
		rc = -ENOMEM;
	if (!rc)
		rc = tw_dat_pwrite_all(fd, h.data, h.len, sec);
	if (!rc)
		rc = tw_dat_pwrite_all(fd, o.data, o.len, opts);
	if (!rc)
		rc = tw_dat_pwrite_all(fd, &opts, 8, done_at);
	if (!rc && ftruncate(fd, (off_t)(opts + o.len)) < 0)
		rc = -errno;
	*file_size = opts + o.len;
	tw_buf_fini(&w->mem, &ob);
	tw_buf_fini(&w->mem, &h);
	tw_buf_fini(&w->mem, &o);
	tw_buf_fini(&w->mem, &body);
	return rc < 0 ? io_error(err, w->path, -rc, "the trace.dat") : 0;
}

int tw_dat7_finish(tw_dat7 *w, const tw_dat_meta *m, uint64_t *file_size,
		   trawl_error *err)
{
	int rc = 0;
	for (int c = 0; c < w->ncpus && !rc; c++)
		rc = seal_chunk(w, &w->cpu[c]);
	if (rc < 0)
		return io_error(err, w->path, -rc, "the trace.dat");
	/*
	 * Only a regular file is replaced (never -o /dev/null), and through a
	 * symbolic link the file it names.
	 */
	struct stat st;
	if (fstat(w->fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		for (int c = 0; c < w->ncpus && !rc; c++)
			rc = tw_dat7_sync(w, c, 1);
		*file_size = w->end;
		return rc < 0 ? io_error(err, w->path, -rc, "the trace.dat")
			      : 0;
	}
	char *real = realpath(w->path, NULL);
	const char *path = real ? real : w->path;
	char tmp[4200];
	snprintf(tmp, sizeof(tmp), "%s.trawl-%ld", path, (long)getpid());
	int fd = open(tmp, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC,
		      st.st_mode & 07777);
	trawl_error scratch;
	if (fd >= 0) {
		rc = write_final(w, fd, m, file_size, &scratch);
		close(fd);
		if (rc == 0 && rename(tmp, path) == 0) {
			free(real);
			return 0;
		}
		unlink(tmp);
	}
	free(real);
	/* No room for the copy: the stream file stays, made complete. */
	int e = fd < 0 ? errno : scratch.sys_errno;
	for (int c = 0; c < w->ncpus && !rc; c++)
		rc = tw_dat7_sync(w, c, 1);
	*file_size = w->end;
	return tw_error_at(err, TRAWL_EIO, e ? e : EIO, w->path, 0, 0, 0,
			   "cannot write the final trace.dat: %s; the file "
			   "keeps the data as written while recording "
			   "(trawl reads all of it, trace-cmd its last "
			   "part)%s",
			   strerror(e ? e : EIO),
			   e == ENOSPC ? "; free some space or write "
					 "elsewhere with -o"
				       : "");
}

uint64_t tw_dat7_end(tw_dat7 *w)
{
	pthread_mutex_lock(&w->lock);
	uint64_t e = w->end;
	pthread_mutex_unlock(&w->lock);
	return e;
}

void tw_dat7_free(tw_dat7 *w)
{
	if (!w)
		return;
	for (int c = 0; w->cpu && c < w->ncpus; c++) {
		struct cpu7 *x = &w->cpu[c];
		tw_free(&w->mem, x->raw);
		tw_free(&w->mem, x->zbuf);
		tw_free(&w->mem, x->runs);
		tw_buf_fini(&w->mem, &x->z);
		ZSTD_freeCCtx(x->cctx);
	}
	tw_free(&w->mem, w->cpu);
	tw_free(&w->mem, w->path);
	pthread_mutex_destroy(&w->lock);
	tw_mem mem = w->mem;
	tw_free(&mem, w);
}
