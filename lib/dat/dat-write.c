/* SPDX-License-Identifier: MIT */
/*
 * trace.dat version 6, written by hand: libtracecmd 3.1.6 has an output API
 * (tracecmd_output_create, tracecmd_append_cpu_data), but Debian's
 * libtracecmd-dev declares none of it in its public header (it lives in
 * trace-cmd's private header), it reads tracefs and prints warnings by
 * itself, and it cannot keep a half-written file readable. The format is
 * small (trace-cmd.dat.v6(5)); little endian, 8-byte longs as on the host:
 *
 *   "\x17\x08\x44tracing" "6\0" endian:u8 long_size:u8 page_size:u32
 *   "header_page\0"  size:u64 text      "header_event\0" size:u64 text
 *   n:u32 { size:u64 ftrace format }
 *   n:u32 { "system\0" n:u32 { size:u64 format } }
 *   size:u32 kallsyms   size:u32 printk_formats   size:u64 saved_cmdlines
 *   cpus:u32 "options  \0" { id:u16 size:u32 data } 0:u16
 *   "flyrecord\0" cpus x { offset:u64 size:u64 }
 *   padding to a page, then each CPU's ring-buffer pages, back to back
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../core/core.h"
#include "dat-write.h"

#define FLYRECORD "flyrecord"
/* Less than the room reserved beyond the header (lib/live/session.c). */
#define TW_DAT_CHUNK (64u << 10)

static int put(const tw_mem *mem, tw_buf *b, const void *p, size_t n)
{
	/* An absent part (no kallsyms) is a NULL, empty blob. */
	return n ? tw_buf_append(mem, b, p, n) : 0;
}

/* Little endian on every host we build for; the file says which. */
static int put_u16(const tw_mem *mem, tw_buf *b, uint16_t v)
{
	return put(mem, b, &v, sizeof(v));
}

static int put_u32(const tw_mem *mem, tw_buf *b, uint32_t v)
{
	return put(mem, b, &v, sizeof(v));
}

static int put_u64(const tw_mem *mem, tw_buf *b, uint64_t v)
{
	return put(mem, b, &v, sizeof(v));
}

static int put_sized64(const tw_mem *mem, tw_buf *b, tw_blob x)
{
	if (put_u64(mem, b, x.len) < 0)
		return -1;
	return put(mem, b, x.data, x.len);
}

static int put_sized32(const tw_mem *mem, tw_buf *b, tw_blob x)
{
	if (x.len > UINT32_MAX || put_u32(mem, b, (uint32_t)x.len) < 0)
		return -1;
	return put(mem, b, x.data, x.len);
}

/* Everything before the CPU table; returns the table's offset or -1. */
static int build_header(const tw_mem *mem, tw_buf *b, const tw_dat_meta *m)
{
	static const char magic[] = {0x17, 0x08, 0x44, 't', 'r',
				     'a',  'c',	 'i',  'n', 'g'};
	uint8_t endian = 0, long_size = sizeof(long);
	int bad = 0;

	bad |= put(mem, b, magic, sizeof(magic));
	bad |= put(mem, b, "6", 2);
	bad |= put(mem, b, &endian, 1);
	bad |= put(mem, b, &long_size, 1);
	bad |= put_u32(mem, b, m->page_size);
	bad |= put(mem, b, "header_page", 12);
	bad |= put_sized64(mem, b, m->header_page);
	bad |= put(mem, b, "header_event", 13);
	bad |= put_sized64(mem, b, m->header_event);
	bad |= put_u32(mem, b, (uint32_t)m->nftrace);
	for (size_t i = 0; i < m->nftrace; i++)
		bad |= put_sized64(mem, b, m->ftrace[i]);
	bad |= put_u32(mem, b, (uint32_t)m->nsystems);
	for (size_t i = 0; i < m->nsystems; i++) {
		const tw_dat_system *s = &m->systems[i];
		bad |= put(mem, b, s->name, strlen(s->name) + 1);
		bad |= put_u32(mem, b, (uint32_t)s->nformats);
		for (size_t j = 0; j < s->nformats; j++)
			bad |= put_sized64(mem, b, s->formats[j]);
	}
	bad |= put_sized32(mem, b, m->kallsyms);
	bad |= put_sized32(mem, b, m->printk);
	bad |= put_sized64(mem, b, m->cmdlines);
	bad |= put_u32(mem, b, (uint32_t)m->ncpus);
	bad |= put(mem, b, "options  ", 10);
	for (size_t i = 0; i < m->noptions; i++) {
		bad |= put_u16(mem, b, m->options[i].id);
		bad |= put_sized32(mem, b, m->options[i].value);
	}
	bad |= put_u16(mem, b, TW_DAT_OPT_DONE);
	bad |= put(mem, b, FLYRECORD, sizeof(FLYRECORD));
	return bad ? -1 : 0;
}

int tw_dat_pwrite_all(int fd, const void *p, size_t n, uint64_t off)
{
	const char *c = p;
	while (n) {
		ssize_t k = pwrite(fd, c, n, (off_t)off);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return k < 0 ? -errno : -ENOSPC;
		c += k;
		n -= (size_t)k;
		off += (uint64_t)k;
	}
	return 0;
}

/* Copy n bytes from src at in to dst at out, in the kernel when it can. */
static int copy_range(int src, uint64_t in, int dst, uint64_t out, size_t n,
		      char **chunk)
{
	loff_t i = (loff_t)in, o = (loff_t)out;
	while (n) {
		ssize_t k = copy_file_range(src, &i, dst, &o, n, 0);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0 && (errno == EXDEV || errno == ENOSYS ||
			      errno == EINVAL || errno == EOPNOTSUPP))
			break;
		if (k < 0)
			return -errno;
		if (k == 0)
			return -EIO; /* the temporary file is shorter */
		n -= (size_t)k;
	}
	/* Plain read/write where copy_file_range is refused. */
	if (n && !*chunk && !(*chunk = malloc(TW_DAT_CHUNK)))
		return -ENOMEM;
	while (n) {
		ssize_t k = pread(src, *chunk, n, (off_t)i);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return k < 0 ? -errno : -EIO;
		int rc = tw_dat_pwrite_all(dst, *chunk, (size_t)k, (uint64_t)o);
		if (rc < 0)
			return rc;
		i += k;
		o += k;
		n -= (size_t)k;
	}
	return 0;
}

/*
 * Move len bytes (whole pages) from src to dst at off, chunk by chunk,
 * punching each chunk out of the source once it is copied: the temporary
 * files sit on the output's filesystem, and a disk that filled up while
 * recording must still find room for the file (the first chunks go into
 * the room reserved with the header). *done gets the bytes that made it.
 */
static int move_data(int src, int dst, uint64_t off, uint64_t len,
		     uint64_t *done)
{
	char *chunk = NULL;
	int rc = 0;
	*done = 0;
	while (*done < len) {
		uint64_t n =
			len - *done < TW_DAT_CHUNK ? len - *done : TW_DAT_CHUNK;
		rc = copy_range(src, *done, dst, off + *done, (size_t)n,
				&chunk);
		if (rc < 0)
			break;
		if (fallocate(src, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
			      (off_t)*done, (off_t)n) < 0) {
			/* no hole punching here: only space is lost */
		}
		*done += n;
	}
	free(chunk);
	return rc;
}

uint64_t tw_dat_header_size(const tw_dat_meta *m)
{
	tw_mem mem;
	tw_buf b = {0};
	tw_mem_init(&mem, NULL, NULL);
	uint64_t n = build_header(&mem, &b, m) < 0 ? 0 : b.len;
	tw_buf_fini(&mem, &b);
	n += 16 * (uint64_t)m->ncpus;
	return (n + m->page_size - 1) / m->page_size * m->page_size;
}

int tw_dat_write(int fd, const char *path, const tw_dat_meta *m,
		 const int *cpu_fd, const uint64_t *cpu_size, uint64_t *kept,
		 uint64_t *table_off, uint64_t *file_size, trawl_error *err)
{
	tw_mem mem;
	tw_buf b = {0};
	uint64_t *table = NULL;
	int rc = 0;

	tw_mem_init(&mem, NULL, NULL);
	*file_size = 0;
	for (int c = 0; c < m->ncpus; c++)
		kept[c] = table_off[c] = 0;
	if (build_header(&mem, &b, m) < 0) {
		rc = tw_error_at(err, TRAWL_ENOMEM, ENOMEM, path, 0, 0, 0,
				 "cannot build the trace.dat header: out of "
				 "memory");
		goto out;
	}
	uint64_t table_at = b.len;
	uint64_t ps = m->page_size;
	uint64_t data_at =
		(table_at + 16 * (uint64_t)m->ncpus + ps - 1) / ps * ps;
	table = calloc((size_t)m->ncpus * 2 + 1, sizeof(*table));
	if (!table) {
		rc = tw_error_at(err, TRAWL_ENOMEM, ENOMEM, path, 0, 0, 0,
				 "cannot build the trace.dat header: out of "
				 "memory");
		goto out;
	}
	uint64_t at = data_at;
	for (int c = 0; c < m->ncpus; c++) {
		table[2 * c] = at;
		table[2 * c + 1] = cpu_size[c];
		at += cpu_size[c];
	}
	/* No truncation first: the file may hold space reserved for this
	 * header (trawl_record_start), and the end is set below. */
	if ((rc = tw_dat_pwrite_all(fd, b.data, b.len, 0)) < 0 ||
	    (rc = tw_dat_pwrite_all(fd, table, 16 * (size_t)m->ncpus,
				    table_at)) < 0) {
		int e = -rc;
		rc = tw_error_at(err, TRAWL_EIO, e, path, 0, 0, 0,
				 "cannot write the trace.dat header: %s%s",
				 strerror(e),
				 e == ENOSPC ? "; free some space or write "
					       "elsewhere with -o"
					     : "");
		goto out;
	}

	for (int c = 0; c < m->ncpus; c++) {
		uint64_t done = 0;
		int e = cpu_size[c] ? -move_data(cpu_fd[c], fd, table[2 * c],
						 cpu_size[c], &done)
				    : 0;
		kept[c] = done / ps * ps;
		if (!e)
			continue;
		/*
		 * Keep the pages of this CPU that made it and none of the
		 * next CPUs, so trace-cmd still reads the file.
		 */
		uint64_t end = table[2 * c] + kept[c];
		table[2 * c + 1] = kept[c];
		for (int d = c + 1; d < m->ncpus; d++) {
			table[2 * d] = end;
			table[2 * d + 1] = 0;
		}
		tw_dat_pwrite_all(fd, table, 16 * (size_t)m->ncpus, table_at);
		if (ftruncate(fd, (off_t)end) < 0) {
			/* the size is tidiness; the table is what counts */
		}
		*file_size = end;
		rc = tw_error_at(err, TRAWL_EIO, e, path, 0, 0, 0,
				 "cannot write CPU %d's data: %s; the file "
				 "keeps what fit (%llu of %llu bytes of CPU "
				 "%d, nothing of later CPUs)%s",
				 c, strerror(e), (unsigned long long)kept[c],
				 (unsigned long long)cpu_size[c], c,
				 e == ENOSPC ? "; free some space or write "
					       "elsewhere with -o"
					     : "");
		goto out;
	}
	if (ftruncate(fd, (off_t)at) < 0) {
		rc = tw_error_at(err, TRAWL_EIO, errno, path, 0, 0, 0,
				 "cannot size the file: %s", strerror(errno));
		goto out;
	}
	*file_size = at;
out:
	for (int c = 0; table && c < m->ncpus; c++)
		table_off[c] = table[2 * c];
	free(table);
	tw_buf_fini(&mem, &b);
	return rc;
}
