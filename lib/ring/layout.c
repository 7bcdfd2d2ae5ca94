/* SPDX-License-Identifier: MIT */
/*
 * A channel's memory: creating it (the producer), attaching to it (the
 * reader) with every geometry field checked against the file's size, the
 * type table, and the enable bytes. The producer holds a POSIX lock on the
 * file's first byte for as long as it lives; POSIX locks are not inherited
 * by fork(), so the reader's F_OFD_GETLK tells a dead producer from a live
 * one even when the producer's children live on.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysinfo.h>
#include <unistd.h>

#include "../core/core.h"
#include "ring-int.h"

/* the calling thread's id, cached; write.c */
void tw_ring_tid_reset(void);

static int valid_name(const char *s)
{
	size_t n = s ? strlen(s) : 0;
	if (n == 0 || n > TRAWL_RING_NAME_MAX)
		return 0;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		int alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			    c == '_';
		if (!alpha && !(i > 0 && c >= '0' && c <= '9'))
			return 0;
	}
	return 1;
}

static int log2_exact(uint64_t v, uint32_t *out)
{
	if (v == 0 || (v & (v - 1)))
		return 0;
	*out = (uint32_t)__builtin_ctzll(v);
	return 1;
}

static uint64_t round_up(uint64_t v, uint64_t to)
{
	return (v + to - 1) / to * to;
}

static uint64_t cpu_stride_for(uint32_t subbufs)
{
	return round_up(TW_RING_CPU_BASE + (uint64_t)subbufs * 16, 64);
}

/* The geometry a header describes, checked against what it must be for
 * its file: nothing the reader computes from it reaches outside the map. */
int tw_ring_geometry_check(const struct tw_ring_hdr *h, uint64_t file_size)
{
	uint32_t sh;
	if (memcmp(h->magic, TW_RING_MAGIC, 8) || h->version != TW_RING_VERSION)
		return 0;
	if (h->hdr_size < sizeof(*h) || h->mode > TRAWL_RING_OVERWRITE)
		return 0;
	if (!log2_exact(h->subbuf_size, &sh) ||
	    h->subbuf_size < TW_RING_MIN_SUBBUF ||
	    h->subbuf_size > TW_RING_MAX_SUBBUF)
		return 0;
	if (!log2_exact(h->subbufs, &sh) || h->subbufs < 2 ||
	    h->subbufs > TW_RING_MAX_SUBBUFS)
		return 0;
	if (h->ncpus < 1 || h->ncpus > TW_RING_MAX_CPUS)
		return 0;
	if (h->cpu_stride != cpu_stride_for(h->subbufs) ||
	    h->cpu_off < h->hdr_size || h->cpu_off % 64 ||
	    h->cpu_off > file_size)
		return 0;
	uint64_t cpu_end = h->cpu_off + (uint64_t)h->ncpus * h->cpu_stride;
	if (h->data_off < cpu_end || h->data_off % 8 || h->data_off > file_size)
		return 0;
	uint64_t data = (uint64_t)h->ncpus * (h->subbufs + 1) * h->subbuf_size;
	return h->total_size == h->data_off + data &&
	       h->total_size <= file_size;
}

static void fill_geometry(trawl_ring *r, const struct tw_ring_hdr *h)
{
	r->subbuf_size = h->subbuf_size;
	log2_exact(h->subbuf_size, &r->subbuf_shift);
	r->subbufs = h->subbufs;
	log2_exact(h->subbufs, &r->subbufs_shift);
	r->ncpus = h->ncpus;
	r->cpu_off = h->cpu_off;
	r->cpu_stride = h->cpu_stride;
	r->data_off = h->data_off;
	r->overwrite = h->mode == TRAWL_RING_OVERWRITE;
	/* a record fits its 16-bit length and half a sub-buffer */
	r->max_record = h->subbuf_size / 2 < 65528 ? h->subbuf_size / 2 : 65528;
	memcpy(r->name, h->name, sizeof(r->name));
	r->name[sizeof(r->name) - 1] = '\0';
}

static int field_size(int kind)
{
	switch (kind) {
	case TRAWL_RING_U8:
	case TRAWL_RING_S8:
		return 1;
	case TRAWL_RING_U16:
	case TRAWL_RING_S16:
		return 2;
	case TRAWL_RING_U32:
	case TRAWL_RING_S32:
	case TRAWL_RING_STR:
		return 4;
	case TRAWL_RING_U64:
	case TRAWL_RING_S64:
		return 8;
	}
	return 0;
}

static trawl_ring_type *declare(trawl_ring *r, const char *name,
				const trawl_ring_field *fields, size_t nfields,
				trawl_error *err)
{
	struct tw_ring_hdr *h = r->hdr;
	if (!valid_name(name) || nfields > TRAWL_RING_MAX_FIELDS ||
	    (nfields && !fields)) {
		tw_error_at(err, TRAWL_EINVAL, 0, NULL, 0, 0, 0,
			    "cannot declare ring type \"%s\": bad name or "
			    "fields",
			    name ? name : "(null)");
		return NULL;
	}
	struct tw_ring_type_desc d;
	memset(&d, 0, sizeof(d));
	strcpy(d.name, name);
	d.nfields = (uint32_t)nfields;
	uint32_t off = 0, align = 1;
	int32_t str_off = -1;
	for (size_t i = 0; i < nfields; i++) {
		int sz = field_size(fields[i].kind);
		int dup = 0;
		for (size_t j = 0; j < i && fields[i].name; j++)
			dup |= !strcmp(fields[j].name, fields[i].name);
		if (!sz || !valid_name(fields[i].name) || dup ||
		    (fields[i].kind == TRAWL_RING_STR && str_off >= 0)) {
			tw_error_at(err, TRAWL_EINVAL, 0, NULL, 0, 0, 0,
				    "cannot declare ring type \"%s\": bad "
				    "field %zu",
				    name, i);
			return NULL;
		}
		off = (uint32_t)round_up(off, (uint64_t)sz);
		if (fields[i].kind == TRAWL_RING_STR)
			str_off = (int32_t)off;
		strcpy(d.fields[i].name, fields[i].name);
		d.fields[i].kind = (uint8_t)fields[i].kind;
		d.fields[i].size = (uint8_t)sz;
		d.fields[i].offset = (uint16_t)off;
		off += (uint32_t)sz;
		if ((uint32_t)sz > align)
			align = (uint32_t)sz;
	}
	d.fixed_size = (uint32_t)round_up(off, align);

	uint32_t n = h->ntypes;
	for (uint32_t id = 1; id < n; id++) {
		if (strcmp(h->types[id].name, name))
			continue;
		if (memcmp(&h->types[id], &d, sizeof(d))) {
			tw_error_at(err, TRAWL_EINVAL, 0, NULL, 0, 0, 0,
				    "cannot declare ring type \"%s\" again "
				    "with other fields",
				    name);
			return NULL;
		}
		return &r->types[id];
	}
	if (n > TRAWL_RING_MAX_TYPES) {
		tw_error_at(err, TRAWL_ELIMIT, 0, NULL, 0, 0, 0,
			    "cannot declare ring type \"%s\": the channel has "
			    "%d types",
			    name, TRAWL_RING_MAX_TYPES);
		return NULL;
	}
	h->types[n] = d;
	trawl_ring_type *t = &r->types[n];
	t->gate.on = &r->gate[n];
	t->r = r;
	t->id = n;
	t->fixed = d.fixed_size;
	t->str_off = str_off;
	t->on = 1;
	r->gate[n] = r->on;
	/* Pairs with the reader's acquire load of ntypes: the entry is
	 * complete before it is counted. */
	__atomic_store_n(&h->ntypes, n + 1, __ATOMIC_RELEASE);
	return t;
}

static pthread_mutex_t declare_lock = PTHREAD_MUTEX_INITIALIZER;

TRAWL_API trawl_ring_type *trawl_ring_type_new(trawl_ring *r, const char *name,
					       const trawl_ring_field *fields,
					       size_t nfields, trawl_error *err)
{
	if (!r || !r->producer) {
		tw_error_at(err, TRAWL_EMISUSE, 0, NULL, 0, 0, 0,
			    "cannot declare a ring type on a reader's handle");
		return NULL;
	}
	/* declarations are rare; one lock keeps two threads from taking
	 * the same id */
	pthread_mutex_lock(&declare_lock);
	trawl_ring_type *t = declare(r, name, fields, nfields, err);
	pthread_mutex_unlock(&declare_lock);
	return t;
}

int tw_ring_types_init(trawl_ring *r, trawl_error *err)
{
	static const trawl_ring_field name_only[] = {{"name", TRAWL_RING_STR}};
	static const trawl_ring_field counter[] = {{"value", TRAWL_RING_S64},
						   {"name", TRAWL_RING_STR}};
	r->hdr->ntypes = 1; /* id 0 is padding */
	if (!declare(r, "slice_begin", name_only, 1, err) ||
	    !declare(r, "slice_end", name_only, 1, err) ||
	    !declare(r, "counter", counter, 2, err) ||
	    !declare(r, "instant", name_only, 1, err))
		return -TRAWL_EINVAL;
	return 0;
}

void tw_ring_gates_update(trawl_ring *r)
{
	uint32_t n = r->hdr->ntypes;
	for (uint32_t id = 1; id < n && id <= TRAWL_RING_MAX_TYPES; id++)
		r->gate[id] = r->on && r->types[id].on;
}

TRAWL_API trawl_ring_type *trawl_ring_type_builtin(trawl_ring *r, int id)
{
	if (!r || !r->producer || id < TRAWL_RING_SLICE_BEGIN ||
	    id >= TRAWL_RING_FIRST_USER_TYPE)
		return NULL;
	return &r->types[id];
}

TRAWL_API int trawl_ring_enable(trawl_ring *r, int on)
{
	if (!r || !r->producer)
		return -TRAWL_EMISUSE;
	r->on = on != 0;
	tw_ring_gates_update(r);
	return 0;
}

TRAWL_API int trawl_ring_type_enable(trawl_ring_type *t, int on)
{
	if (!t || !t->r)
		return -TRAWL_EMISUSE;
	t->on = on != 0;
	tw_ring_gates_update(t->r);
	return 0;
}

static int lock_producer(int fd)
{
	struct flock fl = {.l_type = F_WRLCK,
			   .l_whence = SEEK_SET,
			   .l_start = 0,
			   .l_len = 1};
	return fcntl(fd, F_SETLK, &fl);
}

/* 1 while some process holds the producer's lock. */
static int producer_locked(int fd)
{
	struct flock fl = {.l_type = F_WRLCK,
			   .l_whence = SEEK_SET,
			   .l_start = 0,
			   .l_len = 1};
	if (fcntl(fd, F_OFD_GETLK, &fl) < 0)
		return -TRAWL_EIO;
	return fl.l_type != F_UNLCK;
}

TRAWL_API int trawl_ring_producer_alive(const trawl_ring *r)
{
	if (!r)
		return -TRAWL_EMISUSE;
	if (r->producer)
		return 1;
	return producer_locked(r->fd);
}

static int open_new(const char *path, unsigned flags, trawl_error *err)
{
	int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0 && errno == EEXIST && (flags & TRAWL_RING_REPLACE)) {
		int old = open(path, O_RDWR | O_CLOEXEC);
		int live = old >= 0 ? producer_locked(old) : 0;
		if (old >= 0)
			close(old);
		if (live) {
			tw_error_at(err, TRAWL_EIO, EBUSY, path, 0, 0, 0,
				    "cannot replace %s: its producer is alive",
				    path);
			return -1;
		}
		unlink(path);
		fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	}
	if (fd < 0)
		tw_error_at(err, TRAWL_EIO, errno, path, 0, 0, 0,
			    "cannot create %s: %s", path, strerror(errno));
	return fd;
}

static trawl_ring *handle_new(void)
{
	trawl_ring *r = calloc(1, sizeof(*r));
	if (r)
		r->fd = -1;
	return r;
}

TRAWL_API trawl_ring *trawl_ring_create(const char *name,
					const trawl_ring_opts *opts,
					trawl_error *err)
{
	trawl_ring_opts o = {0};
	if (opts)
		o = *opts;
	if (!o.subbuf_size)
		o.subbuf_size = 16384;
	if (!o.subbufs)
		o.subbufs = 8;
	if (o.ncpus <= 0)
		o.ncpus = get_nprocs_conf();
	uint32_t sh;
	if (!valid_name(name) || !log2_exact(o.subbuf_size, &sh) ||
	    o.subbuf_size < TW_RING_MIN_SUBBUF ||
	    o.subbuf_size > TW_RING_MAX_SUBBUF || !log2_exact(o.subbufs, &sh) ||
	    o.subbufs < 2 || o.subbufs > TW_RING_MAX_SUBBUFS ||
	    o.ncpus > TW_RING_MAX_CPUS ||
	    (o.mode != TRAWL_RING_DISCARD && o.mode != TRAWL_RING_OVERWRITE)) {
		tw_error_at(err, TRAWL_EINVAL, 0, NULL, 0, 0, 0,
			    "cannot create ring channel \"%s\": bad name or "
			    "options",
			    name ? name : "(null)");
		return NULL;
	}
	trawl_ring *r = handle_new();
	if (!r) {
		tw_error_at(err, TRAWL_ENOMEM, 0, NULL, 0, 0, 0,
			    "cannot create ring channel: out of memory");
		return NULL;
	}
	r->producer = 1;
	if (o.flags & TRAWL_RING_MEMFD) {
		r->fd = memfd_create("trawl-ring", MFD_CLOEXEC);
		if (r->fd < 0)
			tw_error_at(err, TRAWL_EIO, errno, NULL, 0, 0, 0,
				    "cannot create a memfd: %s",
				    strerror(errno));
	} else {
		snprintf(r->path, sizeof(r->path), "/dev/shm/trawl-ring.%s",
			 name);
		r->fd = open_new(r->path, o.flags, err);
		if (r->fd < 0)
			r->path[0] = '\0';
	}
	if (r->fd < 0)
		goto fail;

	struct tw_ring_hdr g = {0};
	g.hdr_size = (uint32_t)round_up(sizeof(struct tw_ring_hdr), 4096);
	g.subbuf_size = o.subbuf_size;
	g.subbufs = o.subbufs;
	g.ncpus = (uint32_t)o.ncpus;
	g.mode = (uint32_t)o.mode;
	g.cpu_off = g.hdr_size;
	g.cpu_stride = cpu_stride_for(o.subbufs);
	g.data_off = round_up(g.cpu_off + g.ncpus * g.cpu_stride, 4096);
	g.total_size = g.data_off +
		       (uint64_t)g.ncpus * (g.subbufs + 1) * g.subbuf_size;
	if (lock_producer(r->fd) < 0 ||
	    ftruncate(r->fd, (off_t)g.total_size) < 0) {
		tw_error_at(err, TRAWL_EIO, errno, r->path, 0, 0, 0,
			    "cannot size ring channel \"%s\": %s", name,
			    strerror(errno));
		goto fail;
	}
	void *m = mmap(NULL, g.total_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		       r->fd, 0);
	void *gate = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m != MAP_FAILED) {
		r->base = m;
		r->map_size = g.total_size;
	}
	if (gate != MAP_FAILED)
		r->gate = gate;
	if (m == MAP_FAILED || gate == MAP_FAILED) {
		tw_error_at(err, TRAWL_ENOMEM, errno, NULL, 0, 0, 0,
			    "cannot map ring channel \"%s\": %s", name,
			    strerror(errno));
		goto fail;
	}
	if (madvise(gate, 4096, MADV_WIPEONFORK) < 0) {
		tw_error_at(err, TRAWL_EENV, errno, NULL, 0, 0, 0,
			    "cannot make ring channel \"%s\" fork-safe "
			    "(MADV_WIPEONFORK, Linux 4.14): %s",
			    name, strerror(errno));
		goto fail;
	}
	r->hdr = m;
	struct tw_ring_hdr *h = r->hdr;
	memcpy(h, &g, offsetof(struct tw_ring_hdr, name));
	memcpy(h->magic, "\0\0\0\0\0\0\0\0", 8);
	h->version = TW_RING_VERSION;
	snprintf(h->name, sizeof(h->name), "%s", name);
	h->producer_pid = (int32_t)getpid();
	fill_geometry(r, h);
	for (uint32_t cpu = 0; cpu < r->ncpus; cpu++) {
		struct tw_ring_cpu *c = tw_ring_cpu(r, cpu);
		/* every place starts as the finished cycle -1, its page not
		 * worth counting as overwritten; the reader's spare is page N
		 */
		for (uint32_t i = 0; i < r->subbufs; i++) {
			c->place[i].slot =
				tw_slot_make(i, TW_RING_CYCLE_MASK, 1);
			c->place[i].commit = tw_commit_make(TW_RING_CYCLE_MASK,
							    0, r->subbuf_size);
		}
		c->spare = r->subbufs;
	}
	r->on = 1;
	if (tw_ring_types_init(r, err) < 0)
		goto fail;
	tw_ring_tid_reset();
	/* Pairs with the acquire load in attach: the header is whole before
	 * its magic says so. */
	__atomic_thread_fence(__ATOMIC_RELEASE);
	memcpy(h->magic, TW_RING_MAGIC, 8);
	return r;
fail:
	trawl_ring_close(r);
	return NULL;
}

static trawl_ring *attach(int fd, const char *what, trawl_error *err)
{
	trawl_ring *r = handle_new();
	struct stat st;
	if (!r) {
		close(fd);
		tw_error_at(err, TRAWL_ENOMEM, 0, NULL, 0, 0, 0,
			    "cannot attach ring channel: out of memory");
		return NULL;
	}
	r->fd = fd;
	if (fstat(fd, &st) < 0) {
		tw_error_at(err, TRAWL_EIO, errno, what, 0, 0, 0,
			    "cannot stat %s: %s", what, strerror(errno));
		goto fail;
	}
	if ((uint64_t)st.st_size < sizeof(struct tw_ring_hdr)) {
		tw_error_at(err, TRAWL_EFORMAT, 0, what, 0, 0, 0,
			    "cannot attach %s: not a ring channel (%lld bytes)",
			    what, (long long)st.st_size);
		goto fail;
	}
	void *m = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE,
		       MAP_SHARED, fd, 0);
	if (m == MAP_FAILED) {
		tw_error_at(err, TRAWL_EIO, errno, what, 0, 0, 0,
			    "cannot map %s: %s", what, strerror(errno));
		goto fail;
	}
	r->base = m;
	r->map_size = (size_t)st.st_size;
	r->hdr = m;
	/* the geometry is read once, into a copy, and used from there */
	struct tw_ring_hdr *g = malloc(sizeof(*g));
	if (!g) {
		tw_error_at(err, TRAWL_ENOMEM, 0, NULL, 0, 0, 0,
			    "cannot attach ring channel: out of memory");
		goto fail;
	}
	memcpy(g, r->hdr, sizeof(*g));
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	int ok = tw_ring_geometry_check(g, (uint64_t)st.st_size);
	if (ok)
		fill_geometry(r, g);
	free(g);
	if (!ok) {
		tw_error_at(err, TRAWL_EFORMAT, 0, what, 0, 0, 0,
			    "cannot attach %s: damaged or unknown ring header",
			    what);
		goto fail;
	}
	r->rd = calloc(r->ncpus, sizeof(*r->rd));
	r->copy = malloc(65536);
	r->tcopy = calloc(TRAWL_RING_MAX_TYPES + 1, sizeof(*r->tcopy));
	if (!r->rd || !r->copy || !r->tcopy) {
		tw_error_at(err, TRAWL_ENOMEM, 0, NULL, 0, 0, 0,
			    "cannot attach ring channel: out of memory");
		goto fail;
	}
	tw_ring_types_refresh(r);
	return r;
fail:
	trawl_ring_close(r);
	return NULL;
}

TRAWL_API trawl_ring *trawl_ring_attach(const char *name, trawl_error *err)
{
	char path[160];
	if (!name || !*name) {
		tw_error_at(err, TRAWL_EINVAL, 0, NULL, 0, 0, 0,
			    "cannot attach a ring channel without a name");
		return NULL;
	}
	if (strchr(name, '/'))
		snprintf(path, sizeof(path), "%s", name);
	else if (valid_name(name))
		snprintf(path, sizeof(path), "/dev/shm/trawl-ring.%s", name);
	else {
		tw_error_at(err, TRAWL_EINVAL, 0, NULL, 0, 0, 0,
			    "cannot attach ring channel \"%s\": bad name",
			    name);
		return NULL;
	}
	int fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		tw_error_at(err, TRAWL_EIO, errno, path, 0, 0, 0,
			    "cannot open %s: %s", path, strerror(errno));
		return NULL;
	}
	return attach(fd, path, err);
}

TRAWL_API trawl_ring *trawl_ring_attach_fd(int fd, trawl_error *err)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	/* a new open file description, so that F_OFD_GETLK sees the
	 * producer's lock even from the producer's own process */
	int own = open(path, O_RDWR | O_CLOEXEC);
	if (own < 0) {
		tw_error_at(err, TRAWL_EIO, errno, path, 0, 0, 0,
			    "cannot reopen descriptor %d: %s", fd,
			    strerror(errno));
		return NULL;
	}
	return attach(own, path, err);
}

TRAWL_API void trawl_ring_close(trawl_ring *r)
{
	if (!r)
		return;
	if (r->producer && r->path[0])
		unlink(r->path);
	if (r->base)
		munmap(r->base, r->map_size);
	if (r->gate)
		munmap((void *)r->gate, 4096);
	if (r->fd >= 0)
		close(r->fd);
	free(r->rd);
	free(r->copy);
	free(r->tcopy);
	free(r);
}

TRAWL_API int trawl_ring_fd(const trawl_ring *r)
{
	return r ? r->fd : -TRAWL_EMISUSE;
}

TRAWL_API int trawl_ring_ncpus(const trawl_ring *r)
{
	return r ? (int)r->ncpus : -TRAWL_EMISUSE;
}

TRAWL_API const char *trawl_ring_name(const trawl_ring *r)
{
	return r ? r->name : "";
}

void tw_ring_set_hook(trawl_ring *r, tw_ring_hook hook, void *ctx)
{
	r->hook = hook;
	r->hook_ctx = ctx;
}
