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
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../core/core.h"
#include "dat-write.h"

#define FLYRECORD "flyrecord"

static int put(const tw_mem *mem, tw_buf *b, const void *p, size_t n)
{
	return tw_buf_append(mem, b, p, n);
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

static int write_all(int fd, const void *p, size_t n, uint64_t off)
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

/*
 * Copy len bytes from src (offset 0) to dst at off; *done gets what was
 * copied. copy_file_range stays in the kernel (and is a reflink on
 * filesystems that can); plain read/write where it is refused.
 */
static int copy_data(int src, int dst, uint64_t off, uint64_t len,
		     uint64_t *done)
{
	loff_t in = 0, out = (loff_t)off;
	*done = 0;
	while (*done < len) {
		ssize_t k = copy_file_range(src, &in, dst, &out,
					    (size_t)(len - *done), 0);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0 && (errno == EXDEV || errno == ENOSYS ||
			      errno == EINVAL || errno == EOPNOTSUPP))
			break;
		if (k < 0)
			return -errno;
		if (k == 0)
			return -EIO; /* the temporary file is shorter */
		*done += (uint64_t)k;
	}
	enum { CHUNK = 1 << 16 };
	char *chunk = *done < len ? malloc(CHUNK) : NULL;
	int rc = 0;
	if (*done < len && !chunk)
		return -ENOMEM;
	while (*done < len) {
		size_t want =
			len - *done < CHUNK ? (size_t)(len - *done) : CHUNK;
		ssize_t k = pread(src, chunk, want, (off_t)*done);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			rc = k < 0 ? -errno : -EIO;
			break;
		}
		rc = write_all(dst, chunk, (size_t)k, off + *done);
		if (rc < 0)
			break;
		*done += (uint64_t)k;
	}
	free(chunk);
	return rc;
}

int tw_dat_write(int fd, const char *path, const tw_dat_meta *m,
		 const int *cpu_fd, const uint64_t *cpu_size, uint64_t *kept,
		 uint64_t *file_size, trawl_error *err)
{
	tw_mem mem;
	tw_buf b = {0};
	uint64_t *table = NULL;
	int rc = 0;

	tw_mem_init(&mem, NULL, NULL);
	*file_size = 0;
	for (int c = 0; c < m->ncpus; c++)
		kept[c] = 0;
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
	if (ftruncate(fd, 0) < 0 ||
	    (rc = write_all(fd, b.data, b.len, 0)) < 0 ||
	    (rc = write_all(fd, table, 16 * (size_t)m->ncpus, table_at)) < 0) {
		int e = rc < 0 ? -rc : errno;
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
		int e = cpu_size[c] ? -copy_data(cpu_fd[c], fd, table[2 * c],
						 cpu_size[c], &done)
				    : 0;
		kept[c] = done / ps * ps;
		if (!e)
			continue;
		/*
		 * Keep the whole pages that made it and no more of this CPU
		 * or the next ones, so trace-cmd still reads the file.
		 */
		for (int d = c; d < m->ncpus; d++) {
			table[2 * d] = table[2 * c] + kept[c];
			table[2 * d + 1] = d == c ? kept[c] : 0;
		}
		write_all(fd, table, 16 * (size_t)m->ncpus, table_at);
		if (ftruncate(fd, (off_t)(table[2 * c] + kept[c])) < 0) {
			/* the size is only tidiness; the table is what counts
			 */
		}
		*file_size = table[2 * c] + kept[c];
		rc = tw_error_at(err, TRAWL_EIO, e, path, 0, 0, 0,
				 "cannot write CPU %d's data: %s; the file "
				 "keeps what fit (%llu of %llu bytes of CPU "
				 "%d)%s",
				 c, strerror(e), (unsigned long long)kept[c],
				 (unsigned long long)cpu_size[c], c,
				 e == ENOSPC ? "; free some space or write "
					       "elsewhere with -o"
					     : "");
		goto out;
	}
	/* A file with no data still ends where its (empty) data starts. */
	if (at == data_at && ftruncate(fd, (off_t)data_at) < 0) {
		rc = tw_error_at(err, TRAWL_EIO, errno, path, 0, 0, 0,
				 "cannot size the file: %s", strerror(errno));
		goto out;
	}
	*file_size = at;
out:
	free(table);
	tw_buf_fini(&mem, &b);
	return rc;
}
