/* SPDX-License-Identifier: MIT */
/*
 * The tracefs buffer a recording uses. By default a private instance
 * (instances/trawl-PID, or trawl-TAG-PID with TRAWL_INSTANCE_TAG=TAG, so
 * that several recordings can tell theirs apart): the top-level buffer and its
 * settings, which other tools may be using, are never touched, and removing the
 * instance undoes everything at once. With the top level, as trace-cmd works,
 * every file is read before its first write and the old text goes on a journal
 * that tw_tracefs_restore() plays back newest first, also after errors.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tracefs.h>

#include "../core/core.h"
#include "live-int.h"

int tw_pathf(char *buf, size_t n, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int k = vsnprintf(buf, n, fmt, ap);
	va_end(ap);
	return k < 0 || (size_t)k >= n ? -1 : 0;
}

char *tw_tracefs_read(const char *dir, const char *rel, size_t *len)
{
	tw_mem libc;
	tw_mem_init(&libc, NULL, NULL);
	return tw_tracefs_read_mem(&libc, dir, rel, len);
}

char *tw_tracefs_read_mem(const tw_mem *mem, const char *dir, const char *rel,
			  size_t *len)
{
	char path[4096];
	tw_pathf(path, sizeof(path), "%s/%s", dir, rel);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	size_t cap = 4096, n = 0;
	char *s = tw_malloc(mem, cap + 1);
	while (s) {
		if (n == cap) {
			char *t = tw_realloc(mem, s, cap * 2 + 1);
			if (!t) {
				tw_free(mem, s);
				s = NULL;
				errno = ENOMEM;
				break;
			}
			s = t;
			cap *= 2;
		}
		ssize_t k = read(fd, s + n, cap - n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			int e = errno;
			tw_free(mem, s);
			s = NULL;
			errno = e;
			break;
		}
		if (k == 0) {
			s[n] = '\0';
			break;
		}
		n += (size_t)k;
	}
	close(fd);
	if (s && len)
		*len = n;
	return s;
}

static int write_file(const char *path, const char *value)
{
	int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	size_t n = strlen(value);
	ssize_t k = write(fd, value, n);
	int rc = k == (ssize_t)n ? 0 : k < 0 ? -errno : -EIO;
	close(fd);
	return rc;
}

/*
 * The PID in an instance name of ours: "trawl-PID" or "trawl-TAG-PID"
 * (TRAWL_INSTANCE_TAG), the PID after the last dash. 0 for any other name.
 */
static long instance_pid(const char *name)
{
	if (strncmp(name, "trawl-", 6))
		return 0;
	const char *dash = strrchr(name, '-');
	char *end;
	long pid = strtol(dash + 1, &end, 10);
	return dash[1] >= '0' && dash[1] <= '9' && !*end && pid > 0 ? pid : 0;
}

/*
 * Remove the trigger cmd ("stacktrace if FILTER", "traceoff") from the
 * trigger file at path: "!" and the command as it was written, then, if the
 * kernel refuses that, "!" and its first word. On 6.18 the first word is
 * enough ("!stacktrace" removes "stacktrace if FILTER", whatever the
 * filter, and a removal's filter is not parsed); the whole command is
 * what the kernel's documentation shows, and hist triggers need it.
 */
static int remove_trigger(const char *path, const char *cmd)
{
	char buf[4096];
	size_t n = strlen(cmd);
	if (n + 2 <= sizeof(buf)) {
		buf[0] = '!';
		memcpy(buf + 1, cmd, n + 1);
		if (write_file(path, buf) == 0)
			return 0;
	}
	n = strcspn(cmd, " :");
	if (n + 2 > sizeof(buf))
		return -EINVAL;
	buf[0] = '!';
	memcpy(buf + 1, cmd, n);
	buf[n + 1] = '\0';
	return write_file(path, buf);
}

/* Every trigger of every event of the tracefs buffer at dir, as its
 * trigger files list them ("stacktrace:unlimited if ..."). */
static void clear_triggers(const char *dir)
{
	char path[4096];
	tw_pathf(path, sizeof(path), "%s/events", dir);
	DIR *ds = opendir(path);
	if (!ds)
		return;
	struct dirent *sys;
	while ((sys = readdir(ds))) {
		if (sys->d_name[0] == '.')
			continue;
		/* enable, header_page, ... are no directories: skipped */
		tw_pathf(path, sizeof(path), "%s/events/%s", dir, sys->d_name);
		DIR *de = opendir(path);
		struct dirent *ev;
		while (de && (ev = readdir(de))) {
			if (ev->d_name[0] == '.')
				continue;
			char evdir[4096];
			tw_pathf(evdir, sizeof(evdir), "%s/events/%s/%s", dir,
				 sys->d_name, ev->d_name);
			tw_pathf(path, sizeof(path), "%s/trigger", evdir);
			char *text = tw_tracefs_read(evdir, "trigger", NULL);
			for (char *line = text, *next; line && *line;
			     line = next) {
				next = line + strcspn(line, "\n");
				if (*next)
					*next++ = '\0';
				if (*line && *line != '#')
					remove_trigger(path, line);
			}
			free(text);
		}
		if (de)
			closedir(de);
	}
	closedir(ds);
}

/*
 * Remove instances left by recorders that were killed (PID gone), so they
 * do not hold kernel memory forever. Their triggers (stacktrace, traceoff)
 * go first: 6.18 removes an instance with triggers set (the rmdir clears
 * them), but a trigger is a reference into the instance's events that an
 * older kernel may refuse to drop with it.
 */
int tw_tracefs_remove_stale(const char *top)
{
	char path[4096];
	int removed = 0;
	tw_pathf(path, sizeof(path), "%s/instances", top);
	DIR *d = opendir(path);
	if (!d)
		return 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		long pid = instance_pid(de->d_name);
		if (!pid || kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue;
		tw_pathf(path, sizeof(path), "%s/instances/%s", top,
			 de->d_name);
		clear_triggers(path);
		removed += rmdir(path) == 0;
	}
	closedir(d);
	return removed;
}

int tw_instance_name(const char *tag, long pid, char *out, size_t n)
{
	if (!tag || !*tag)
		return tw_pathf(out, n, "trawl-%ld", pid);
	size_t len = strlen(tag);
	if (len > TW_INSTANCE_TAG_MAX)
		return -1;
	for (const char *c = tag; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
		      (*c >= '0' && *c <= '9') || *c == '_' || *c == '.' ||
		      *c == '-'))
			return -1;
	return tw_pathf(out, n, "trawl-%s-%ld", tag, pid);
}

int tw_tracefs_open(tw_tracefs *tf, const tw_mem *mem, int top_level,
		    trawl_error *err)
{
	memset(tf, 0, sizeof(*tf));
	tf->mem = *mem;
	/* libtracefs would print its own warnings; errors come back here. */
	tracefs_set_loglevel(TEP_LOG_NONE);
	if (geteuid() != 0)
		return tw_error_at(err, TRAWL_EENV, EPERM, NULL, 0, 0, 0,
				   "recording needs root (tracefs control "
				   "files are root's); run it with sudo");
	/* Finds tracefs, mounting it when it is not mounted. */
	tf->top = tracefs_tracing_dir();
	if (!tf->top || access(tf->top, W_OK) < 0) {
		const char *where = tf->top ? tf->top : "/sys/kernel/tracing";
		return tw_error_at(err, TRAWL_EENV, errno, NULL, 0, 0, 0,
				   "cannot find or mount tracefs at %s; "
				   "mount it with `mount -t tracefs nodev "
				   "/sys/kernel/tracing` (kernel needs "
				   "CONFIG_FTRACE)",
				   where);
	}
	if (top_level) {
		tf->dir = strdup(tf->top);
		if (!tf->dir)
			return tw_error_at(err, TRAWL_ENOMEM, ENOMEM, NULL, 0,
					   0, 0, "out of memory");
		return 0;
	}
	char name[64];
	const char *tag = getenv("TRAWL_INSTANCE_TAG");
	if (tw_instance_name(tag, (long)getpid(), name, sizeof(name)) < 0)
		return tw_error_at(err, TRAWL_EINVAL, EINVAL, NULL, 0, 0, 0,
				   "TRAWL_INSTANCE_TAG='%s' cannot name a "
				   "tracefs instance: use up to %d letters, "
				   "digits, '_', '.' or '-'",
				   tag, TW_INSTANCE_TAG_MAX);
	tf->stale_removed = tw_tracefs_remove_stale(tf->top);
	errno = 0;
	tf->inst = tracefs_instance_create(name);
	if (!tf->inst || !tracefs_instance_is_new(tf->inst)) {
		int e = errno ? errno : EEXIST;
		if (tf->inst)
			tracefs_instance_free(tf->inst);
		tf->inst = NULL;
		return tw_error_at(err, TRAWL_EENV, e, NULL, 0, 0, 0,
				   "cannot create the tracefs instance %s/"
				   "instances/%s: %s; use --top-level to "
				   "record in the main buffer",
				   tf->top, name, strerror(e));
	}
	tf->dir = tracefs_instance_get_dir(tf->inst);
	if (!tf->dir) {
		tracefs_instance_destroy(tf->inst);
		tracefs_instance_free(tf->inst);
		tf->inst = NULL;
		return tw_error_at(err, TRAWL_ENOMEM, ENOMEM, NULL, 0, 0, 0,
				   "out of memory");
	}
	return 0;
}

/* A trigger added: written first, then journalled, so that a write the
 * kernel refuses (EEXIST: the event has one of that kind already, another
 * tool's at the top level) takes nothing away at the restore. Each trigger
 * is an entry of its own (traceoff and stacktrace on one event). */
static int add_trigger(tw_tracefs *tf, const char *path, const char *value,
		       trawl_error *err)
{
	int rc = write_file(path, value);
	if (rc < 0)
		return tw_error_at(err,
				   -rc == EINVAL || -rc == EEXIST ? TRAWL_EINVAL
								  : TRAWL_EENV,
				   -rc, NULL, 0, 0, 0,
				   "cannot write '%s' to %s: %s", value, path,
				   strerror(-rc));
	tw_setting *s = tw_calloc(&tf->mem, 1, sizeof(*s));
	if (s) {
		s->saved = tw_strndup(&tf->mem, value, strlen(value));
		s->path = tw_strndup(&tf->mem, path, strlen(path));
	}
	if (!s || !s->saved || !s->path) {
		if (s) {
			tw_free(&tf->mem, s->saved);
			tw_free(&tf->mem, s->path);
		}
		tw_free(&tf->mem, s);
		remove_trigger(path, value);
		return tw_error_at(err, TRAWL_ENOMEM, ENOMEM, NULL, 0, 0, 0,
				   "out of memory");
	}
	s->kind = TW_SET_TRIGGER;
	s->next = tf->journal;
	tf->journal = s;
	return 0;
}

int tw_tracefs_set(tw_tracefs *tf, const char *rel, const char *value, int kind,
		   trawl_error *err)
{
	char path[4096];
	tw_pathf(path, sizeof(path), "%s/%s", tf->dir, rel);
	if (kind == TW_SET_TRIGGER)
		return add_trigger(tf, path, value, err);
	int known = 0;
	for (tw_setting *s = tf->journal; s && !known; s = s->next)
		known = !strcmp(s->path, path);
	if (!known) {
		tw_setting *s = tw_calloc(&tf->mem, 1, sizeof(*s));
		char *old = tw_tracefs_read_mem(&tf->mem, tf->dir, rel, NULL);
		if (!s || !old ||
		    !(s->path = tw_strndup(&tf->mem, path, strlen(path)))) {
			int e = errno ? errno : ENOMEM;
			tw_free(&tf->mem, s);
			tw_free(&tf->mem, old);
			return tw_error_at(err, TRAWL_EENV, e, NULL, 0, 0, 0,
					   "cannot read %s: %s", path,
					   strerror(e));
		}
		s->saved = old;
		s->kind = kind;
		s->next = tf->journal;
		tf->journal = s;
	}
	int rc = write_file(path, value);
	if (rc < 0)
		return tw_error_at(
			err, -rc == EINVAL ? TRAWL_EINVAL : TRAWL_EENV, -rc,
			NULL, 0, 0, 0, "cannot write '%s' to %s: %s", value,
			path, strerror(-rc));
	return 0;
}

int tw_buffer_kb_restore(const char *saved, char *out, size_t n)
{
	char *end;
	errno = 0;
	unsigned long long kb = strtoull(saved, &end, 10);
	if (end == saved || errno || saved[0] == '-')
		return -1;
	static const char expanded[] = " (expanded: ";
	if (!strncmp(end, expanded, sizeof(expanded) - 1)) {
		const char *m = end + sizeof(expanded) - 1;
		kb = strtoull(m, &end, 10);
		if (end == m || errno || *m == '-' || *end++ != ')')
			return -1;
	}
	while (*end == '\n' || *end == ' ')
		end++;
	if (*end)
		return -1;
	int w = snprintf(out, n, "%llu", kb);
	return w > 0 && (size_t)w < n ? 0 : -1;
}

static int restore_one(const tw_setting *s)
{
	char buf[256];
	const char *v = s->saved;
	switch (s->kind) {
	case TW_SET_BRACKET: {
		const char *a = strchr(v, '['), *b = a ? strchr(a, ']') : NULL;
		if (!a || !b || (size_t)(b - a) >= sizeof(buf))
			return -EINVAL;
		memcpy(buf, a + 1, (size_t)(b - a - 1));
		buf[b - a - 1] = '\0';
		v = buf;
		break;
	}
	case TW_SET_FILTER:
		if (!strncmp(v, "none", 4))
			v = "0";
		break;
	case TW_SET_BUFFER_KB:
		if (tw_buffer_kb_restore(v, buf, sizeof(buf)) < 0)
			return -EINVAL;
		v = buf;
		break;
	case TW_SET_TRIGGER:
		return remove_trigger(s->path, v);
	default:
		/* an event's enable reads "0*" while a trigger soft-enables
		 * it (another tool's, at the top level), which cannot be
		 * written: the 0 is what was asked */
		if ((v[0] == '0' || v[0] == '1') && v[1] == '*') {
			buf[0] = v[0];
			buf[1] = '\0';
			v = buf;
		}
		break;
	}
	return write_file(s->path, v);
}

int tw_tracefs_restore(tw_tracefs *tf)
{
	int failed = 0;
	while (tf->journal) {
		tw_setting *s = tf->journal;
		tf->journal = s->next;
		if (restore_one(s) < 0)
			failed++;
		tw_free(&tf->mem, s->path);
		tw_free(&tf->mem, s->saved);
		tw_free(&tf->mem, s);
	}
	if (tf->inst) {
		if (tracefs_instance_destroy(tf->inst) < 0)
			failed++;
		tracefs_instance_free(tf->inst);
		tf->inst = NULL;
	}
	free(tf->dir);
	tf->dir = NULL;
	return failed;
}

int tw_tracefs_cpus(const tw_tracefs *tf)
{
	char path[4096];
	int n = 0;
	for (;;) {
		tw_pathf(path, sizeof(path), "%s/per_cpu/cpu%d", tf->dir, n);
		if (access(path, F_OK) < 0)
			break;
		n++;
	}
	return n;
}

size_t tw_tracefs_page_size(const tw_tracefs *tf)
{
	char *s = tw_tracefs_read_mem(&tf->mem, tf->dir,
				      "buffer_subbuf_size_kb", NULL);
	long kb = s ? strtol(s, NULL, 10) : 0;
	tw_free(&tf->mem, s);
	return kb > 0 ? (size_t)kb * 1024 : (size_t)sysconf(_SC_PAGESIZE);
}
