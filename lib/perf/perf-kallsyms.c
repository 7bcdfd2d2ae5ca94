/* SPDX-License-Identifier: MIT */
/*
 * Kernel symbols for a perf.data's texts (%ps, %pS): perf writes an empty
 * kallsyms into its tracing data and symbolises from the machine it runs
 * on. trawl does the same, but only when that machine is provably the one
 * and the boot the one that recorded: the file's kernel map (the MMAP
 * record perf makes for "[kernel.kallsyms]_text", whose pgoff is where
 * _text was, KASLR included) must name the address /proc/kallsyms gives
 * _text now, and the file's os release must be this kernel's. Otherwise
 * the addresses stay addresses, as the kernel prints an unknown one.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "perf-int.h"

#define KERNEL_MAP   "[kernel.kallsyms]"
#define LOOK_RECORDS 65536 /* perf writes its maps before the samples */
#define KALLSYMS_MAX (256u << 20)

/* Where the file says _text was (0: it does not say). */
static uint64_t recorded_text(const tw_perf_file *f)
{
	uint64_t at = f->data.offset, end = f->data.offset + f->data.size;
	for (int i = 0; i < LOOK_RECORDS && end - at >= 8; i++) {
		const unsigned char *rec = f->map + at;
		uint32_t type = tw_perf_u32(rec);
		uint16_t size;
		memcpy(&size, rec + 6, 2);
		if (size < 8 || size > end - at)
			return 0;
		at += size;
		/* u32 pid, tid; u64 start, len, pgoff; char filename[] */
		if (type != TW_PERF_RECORD_MMAP || size < 8 + 32 + 24)
			continue;
		const char *name = (const char *)rec + 40;
		size_t room = size - 40u;
		size_t klen = sizeof(KERNEL_MAP) - 1;
		if (strnlen(name, room) < klen + 5 ||
		    memcmp(name, KERNEL_MAP, klen) != 0 ||
		    strncmp(name + klen, "_text", room - klen) != 0)
			continue;
		return tw_perf_u64(rec + 8 + 24);
	}
	return 0;
}

/* The whole of /proc/kallsyms (it has no size to stat). */
static char *read_all(const tw_mem *mem, const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	size_t cap = 1u << 20, n = 0;
	char *buf = tw_realloc(mem, NULL, cap);
	while (buf) {
		if (n == cap) {
			char *b = cap < KALLSYMS_MAX
					  ? tw_realloc(mem, buf, cap * 2)
					  : NULL;
			if (!b) {
				tw_free(mem, buf);
				buf = NULL;
				break;
			}
			buf = b;
			cap *= 2;
		}
		ssize_t r = read(fd, buf + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	*len = n;
	return buf;
}

/* _text's address in kallsyms text (0: not there, or hidden). */
static uint64_t text_in(const char *s, size_t n)
{
	const char *end = s + n;
	for (const char *p = s; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *e = nl ? nl : end;
		/* "ffffffff81000000 T _text" */
		if (e - p > 19 && memcmp(e - 6, " _text", 6) == 0)
			return strtoull(p, NULL, 16);
		p = e + 1;
	}
	return 0;
}

const char *tw_perf_kallsyms(tw_perf_file *f, size_t *len)
{
	*len = 0;
	if (f->kallsyms_tried) {
		*len = f->kallsyms_len;
		return f->kallsyms;
	}
	f->kallsyms_tried = 1;
	struct utsname u;
	uint64_t text = recorded_text(f);
	if (!text || uname(&u) != 0 || strcmp(u.release, f->osrelease) != 0)
		return NULL;
	size_t n;
	char *k = read_all(f->mem, "/proc/kallsyms", &n);
	if (!k)
		return NULL;
	if (text_in(k, n) != text) {
		tw_free(f->mem, k); /* another boot, or addresses hidden */
		return NULL;
	}
	f->kallsyms = k;
	f->kallsyms_len = n;
	*len = n;
	return k;
}
