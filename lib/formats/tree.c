/* SPDX-License-Identifier: MIT */
/*
 * An events/ tree: the live tracefs, or a copy of a device's. Each
 * SYSTEM/EVENT/format is one format of that system, read in byte order of
 * the names so the set does not depend on readdir(). A format that cannot
 * be opened or read, is not a regular file (a FIFO would block), is too
 * long or is malformed is skipped and counted: one bad file of 2300 must
 * not lose the others. The walk is two levels deep, and visits at most
 * TREE_MAX_ENTRIES names in all.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../core/core.h"
#include "formats-int.h"

#define TREE_MAX_ENTRIES (1u << 20)

/* A directory's entries: names in text, sorted offsets into it. */
typedef struct dirlist {
	tw_buf text;
	size_t *off;
	size_t n, cap;
} dirlist;

static int by_name(const void *a, const void *b, void *base)
{
	return strcmp((const char *)base + *(const size_t *)a,
		      (const char *)base + *(const size_t *)b);
}

static void dirlist_fini(const tw_mem *mem, dirlist *dl)
{
	tw_buf_fini(mem, &dl->text);
	tw_free(mem, dl->off);
	memset(dl, 0, sizeof(*dl));
}

/*
 * The entries of directory fd but "." names, sorted, taking one from
 * *budget each. Return: 0, -ENOMEM, -E2BIG when the budget runs out, or
 * the -errno of opendir() or readdir().
 */
static int list_dir(const tw_mem *mem, int fd, dirlist *dl, size_t *budget)
{
	dl->n = 0;
	dl->text.len = 0;
	int dfd = dup(fd);
	if (dfd < 0)
		return -errno;
	DIR *d = fdopendir(dfd);
	if (!d) {
		int e = errno;
		close(dfd);
		return -e;
	}
	rewinddir(d);
	int rc = 0;
	for (;;) {
		errno = 0;
		struct dirent *de = readdir(d);
		if (!de) {
			rc = -errno;
			break;
		}
		if (de->d_name[0] == '.')
			continue;
		if (!*budget) {
			rc = -E2BIG;
			break;
		}
		(*budget)--;
		size_t at = dl->text.len;
		if (tw_grow(mem, (void **)&dl->off, &dl->cap, dl->n + 1,
			    sizeof(*dl->off)) ||
		    tw_buf_append(mem, &dl->text, de->d_name,
				  strlen(de->d_name))) {
			rc = -ENOMEM;
			break;
		}
		dl->text.len++; /* keep the NUL */
		dl->off[dl->n++] = at;
	}
	closedir(d);
	if (!rc && dl->n)
		qsort_r(dl->off, dl->n, sizeof(*dl->off), by_name,
			dl->text.data);
	return rc;
}

/* A path for messages (only those: a long one is cut short). */
static void where_is(char *buf, size_t n, const char *top, const char *sys,
		     const char *ev)
{
	int k = ev ? snprintf(buf, n, "%s/%s/%s/format", top, sys, ev)
		   : snprintf(buf, n, "%s/%s", top, sys);
	if (k < 0 || (size_t)k >= n)
		buf[n - 1] = '\0'; /* cut short: it is only for messages */
}

static const char *name_at(const dirlist *dl, size_t i)
{
	return dl->text.data + dl->off[i];
}

/* Skip something in the tree: "where: cannot ...: why". */
static void skip(tw_format_set *s, const char *where, const char *what,
		 const char *why)
{
	char msg[sizeof(s->why)];
	int k = snprintf(msg, sizeof(msg), "%s: %s: %s", where, what, why);
	if (k < 0 || (size_t)k >= sizeof(msg))
		msg[sizeof(msg) - 1] = '\0'; /* long paths are cut short */
	tw_format_set_skip(s, msg);
}

static int list_error(int rc, const char *where, trawl_error *err)
{
	if (rc == -ENOMEM)
		return tw_error_at(err, TRAWL_ENOMEM, 0, where, 0, 0, 0,
				   "cannot allocate memory for event formats");
	if (rc == -E2BIG)
		return tw_error_at(err, TRAWL_ELIMIT, 0, where, 0, 0, 0,
				   "cannot look at more than %u entries of "
				   "an events/ tree",
				   TREE_MAX_ENTRIES);
	return tw_error_at(err, TRAWL_EIO, -rc, where, 0, 0, 0,
			   "cannot list the directory: %s", strerror(-rc));
}

/*
 * One SYSTEM/EVENT/format (efd is the EVENT directory). Return: 0 (added
 * or skipped) or a negative TRAWL_E* that ends the walk.
 */
static int one_format(tw_format_set *s, int efd, const char *sys,
		      const char *where, tw_buf *buf, trawl_error *err)
{
	int fd = openat(efd, "format", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		skip(s, where, "cannot open", strerror(errno));
		return 0;
	}
	int rc = 0;
	struct stat st;
	if (fstat(fd, &st)) {
		skip(s, where, "cannot read", strerror(errno));
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		skip(s, where, "cannot read", "not a regular file");
		goto out;
	}
	buf->len = 0;
	int r = tw_formats_read_fd(&s->mem, fd, TW_FORMAT_MAX_LEN, buf);
	if (r == -ENOMEM) {
		rc = tw_error_at(err, TRAWL_ENOMEM, 0, where, 0, 0, 0,
				 "cannot allocate memory to read formats");
	} else if (r < 0) {
		skip(s, where, "cannot read", strerror(-r));
	} else if (r) {
		skip(s, where, "cannot take it", "longer than 256 KiB");
	} else {
		trawl_error e;
		rc = tw_formats_parse_one(s, sys, buf->data ? buf->data : "",
					  buf->len, where, &e);
		if (rc == -TRAWL_EPARSE) {
			tw_format_set_skip(s, e.msg);
			rc = 0;
		} else if (rc && err) {
			*err = e;
		}
	}
out:
	close(fd);
	return rc;
}

int tw_formats_load_tree(tw_format_set *s, int fd, const char *path,
			 trawl_error *err)
{
	const tw_mem *mem = &s->mem;
	char top[4096], where[4096];
	/* A tracing directory (/sys/kernel/tracing) holds events/. */
	int root = openat(fd, "events", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (root >= 0)
		snprintf(top, sizeof(top), "%s/events", path);
	else
		snprintf(top, sizeof(top), "%s", path);
	int rfd = root >= 0 ? root : fd;

	dirlist systems = {0}, events = {0};
	tw_buf buf = {0};
	size_t budget = TREE_MAX_ENTRIES;
	int rc = list_dir(mem, rfd, &systems, &budget);
	if (rc) {
		rc = list_error(rc, top, err);
		goto out;
	}
	for (size_t i = 0; i < systems.n; i++) {
		const char *sys = name_at(&systems, i);
		where_is(where, sizeof(where), top, sys, NULL);
		int sfd = openat(rfd, sys, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (sfd < 0) {
			/* enable, header_page, ...: not a system */
			if (errno != ENOTDIR)
				skip(s, where, "cannot open", strerror(errno));
			continue;
		}
		rc = list_dir(mem, sfd, &events, &budget);
		if (rc == -ENOMEM || rc == -E2BIG) {
			close(sfd);
			rc = list_error(rc, where, err);
			goto out;
		}
		if (rc) {
			skip(s, where, "cannot list it", strerror(-rc));
			close(sfd);
			rc = 0;
			continue;
		}
		for (size_t j = 0; j < events.n && !rc; j++) {
			const char *ev = name_at(&events, j);
			where_is(where, sizeof(where), top, sys, ev);
			int efd = openat(sfd, ev,
					 O_RDONLY | O_DIRECTORY | O_CLOEXEC);
			if (efd < 0) {
				/* enable, filter: not an event */
				if (errno != ENOTDIR)
					skip(s, where, "cannot open",
					     strerror(errno));
				continue;
			}
			rc = one_format(s, efd, sys, where, &buf, err);
			close(efd);
		}
		close(sfd);
		if (rc)
			goto out;
	}
out:
	if (root >= 0)
		close(root);
	dirlist_fini(mem, &systems);
	dirlist_fini(mem, &events);
	tw_buf_fini(mem, &buf);
	return rc;
}
