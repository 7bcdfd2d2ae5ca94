/* SPDX-License-Identifier: MIT */
/*
 * tw_format_set_load(): a directory is an events/ tree (tree.c), anything
 * else one file of formats, read with read() to its end: tracefs files
 * report a size of 0, and a pipe (--formats <(...)) has none.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../core/core.h"
#include "formats-int.h"

int tw_formats_read_fd(const tw_mem *mem, int fd, size_t cap, tw_buf *out)
{
	for (;;) {
		/* One byte past cap tells "exactly cap" from "more". */
		size_t want = out->len < 8192 ? 8192 : out->len;
		if (want > cap + 1 - out->len)
			want = cap + 1 - out->len;
		if (out->cap - out->len < want &&
		    tw_buf_reserve(mem, out, out->len + want))
			return -ENOMEM;
		ssize_t k = read(fd, out->data + out->len, want);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -errno;
		if (k == 0)
			return 0;
		out->len += (size_t)k;
		if (out->len > cap)
			return 1;
	}
}

int tw_formats_load_bytes(tw_format_set *s, const char *data, size_t len,
			  const char *path, trawl_error *err)
{
	tw_buf plain = {0};
	int rc = tw_formats_decompress(&s->mem, data, len, TW_FORMAT_MAX_BYTES,
				       path, &plain, err);
	if (rc < 0)
		goto out;
	if (rc) {
		data = plain.data;
		len = plain.len;
	}
	/* Room for the texts and, per format, its system and name. */
	if (tw_buf_reserve(&s->mem, &s->store, len + len / 8 + 64)) {
		rc = tw_error_at(err, TRAWL_ENOMEM, 0, path, 0, 0, 0,
				 "cannot allocate memory for event formats");
		goto out;
	}
	rc = tw_formats_parse_file(s, data, len, path, err);
	if (!rc)
		rc = tw_format_set_seal(s, path, err);
out:
	tw_buf_fini(&s->mem, &plain);
	return rc;
}

static int load_file(tw_format_set *s, int fd, const char *path,
		     trawl_error *err)
{
	tw_buf raw = {0};
	int rc = tw_formats_read_fd(&s->mem, fd, TW_FORMAT_MAX_BYTES, &raw);
	if (rc == -ENOMEM)
		rc = tw_error_at(err, TRAWL_ENOMEM, 0, path, 0, 0, 0,
				 "cannot allocate memory to read formats");
	else if (rc < 0)
		rc = tw_error_at(err, TRAWL_EIO, -rc, path, 0, 0, 0,
				 "cannot read formats: %s", strerror(-rc));
	else if (rc)
		rc = tw_error_at(err, TRAWL_ELIMIT, 0, path, 0, 0, 0,
				 "cannot read formats: more than %u MiB",
				 TW_FORMAT_MAX_BYTES >> 20);
	else
		rc = tw_formats_load_bytes(s, raw.data ? raw.data : "", raw.len,
					   path, err);
	tw_buf_fini(&s->mem, &raw);
	return rc;
}

int tw_format_set_load(const tw_mem *mem, const char *path, tw_format_set **out,
		       trawl_error *err)
{
	if (out)
		*out = NULL;
	if (!mem || !path || !out)
		return tw_error_at(err, TRAWL_EMISUSE, 0, NULL, 0, 0, 0,
				   "tw_format_set_load: NULL argument");
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;
		return tw_error_at(err, TRAWL_EIO, e, path, 0, 0, 0,
				   "cannot open formats: %s", strerror(e));
	}
	int rc;
	tw_format_set *s = tw_format_set_new(mem);
	struct stat st;
	if (!s) {
		rc = tw_error_at(err, TRAWL_ENOMEM, 0, path, 0, 0, 0,
				 "cannot allocate memory for event formats");
	} else if (fstat(fd, &st)) {
		int e = errno;
		rc = tw_error_at(err, TRAWL_EIO, e, path, 0, 0, 0,
				 "cannot read formats: %s", strerror(e));
	} else if (S_ISDIR(st.st_mode)) {
		rc = tw_formats_load_tree(s, fd, path, err);
		if (!rc)
			rc = tw_format_set_seal(s, path, err);
	} else {
		rc = load_file(s, fd, path, err);
	}
	close(fd);
	if (rc) {
		tw_format_set_free(s);
		return rc;
	}
	*out = s;
	return 0;
}

int tw_format_set_parse(const tw_mem *mem, const char *data, size_t len,
			const char *name, tw_format_set **out, trawl_error *err)
{
	*out = NULL;
	tw_format_set *s = tw_format_set_new(mem);
	if (!s)
		return tw_error_at(err, TRAWL_ENOMEM, 0, name, 0, 0, 0,
				   "cannot allocate memory for event formats");
	int rc = tw_formats_load_bytes(s, data, len, name, err);
	if (rc) {
		tw_format_set_free(s);
		return rc;
	}
	*out = s;
	return 0;
}
