/* SPDX-License-Identifier: MIT */
#include "helpers.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

char *tmp_file(const void *data, size_t len)
{
	char *path = strdup("/tmp/trawl-test-XXXXXX");
	int fd = mkstemp(path);
	if (fd < 0)
		abort();
	const char *p = data;
	while (len > 0) {
		ssize_t w = write(fd, p, len);
		if (w <= 0)
			abort();
		p += w;
		len -= (size_t)w;
	}
	close(fd);
	return path;
}

static int on_any(const trawl_event *ev, void *ctx)
{
	got *g = ctx;
	if (g->n == g->cap) {
		g->cap = g->cap ? g->cap * 2 : 256;
		g->ev = realloc(g->ev, g->cap * sizeof(*g->ev));
		if (!g->ev)
			abort();
	}
	got_event *e = &g->ev[g->n++];
	e->ts = trawl_event_time(ev);
	e->seq = trawl_event_seq(ev);
	e->line = trawl_event_line(ev);
	e->cpu = trawl_event_cpu(ev);
	e->pid = trawl_event_pid(ev);
	e->tgid = trawl_event_tgid(ev);
	e->flags = trawl_event_flags(ev);
	e->preempt = trawl_event_preempt_depth(ev);
	snprintf(e->comm, sizeof(e->comm), "%s", trawl_event_comm(ev));
	snprintf(e->name, sizeof(e->name), "%s", trawl_event_name(ev));
	return 0;
}

static int collect(trawl_trace *t, got *g)
{
	trawl_on(t, "*", on_any, g);
	g->rc = trawl_run(t, &g->err);
	g->stats = *trawl_trace_stats(t);
	g->format = trawl_format(t);
	trawl_close(t);
	return g->rc;
}

int collect_path(const char *path, const trawl_open_opts *opts, got *g)
{
	memset(g, 0, sizeof(*g));
	trawl_trace *t = trawl_open(path, opts, &g->err);
	if (!t)
		return g->rc = -g->err.code;
	return collect(t, g);
}

int collect_text(const char *text, const trawl_open_opts *opts, got *g)
{
	char *path = tmp_file(text, strlen(text));
	int rc = collect_path(path, opts, g);
	unlink(path);
	free(path);
	return rc;
}

int collect_pipe(const void *data, size_t len, const trawl_open_opts *opts,
		 got *g)
{
	memset(g, 0, sizeof(*g));
	int fds[2];
	if (pipe(fds))
		abort();
	pid_t child = fork();
	if (child == 0) {
		close(fds[0]);
		const char *p = data;
		while (len > 0) {
			ssize_t w = write(fds[1], p, len);
			if (w <= 0)
				_exit(1);
			p += w;
			len -= (size_t)w;
		}
		_exit(0);
	}
	close(fds[1]);
	trawl_trace *t = trawl_open_fd(fds[0], "<pipe>", opts, &g->err);
	int rc = t ? collect(t, g) : (g->rc = -g->err.code);
	close(fds[0]);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	return rc;
}

void got_free(got *g)
{
	free(g->ev);
	memset(g, 0, sizeof(*g));
}

char *read_whole(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	char *p = NULL;
	long n = -1;
	if (!fseek(f, 0, SEEK_END) && (n = ftell(f)) >= 0 &&
	    !fseek(f, 0, SEEK_SET) && (p = malloc(n ? (size_t)n : 1)) &&
	    fread(p, 1, (size_t)n, f) != (size_t)n) {
		free(p);
		p = NULL;
	}
	fclose(f);
	if (p)
		*len = (size_t)n;
	return p;
}

const char *fixture(const char *name)
{
	static char buf[4096];
	if (name[0] == '/')
		return name; /* a file a test made */
	const char *dir = getenv("TRAWL_FIXTURES");
	snprintf(buf, sizeof(buf), "%s/%s", dir ? dir : "tests/fixtures", name);
	return buf;
}

void *fault_realloc(void *ctx, void *ptr, size_t size)
{
	struct fault *f = ctx;
	if (size == 0) {
		if (ptr)
			__atomic_fetch_sub(&f->live, 1, __ATOMIC_RELAXED);
		free(ptr);
		return NULL;
	}
	if (__atomic_fetch_sub(&f->countdown, 1, __ATOMIC_RELAXED) == 0) {
		__atomic_store_n(&f->fired, 1, __ATOMIC_RELAXED);
		return NULL;
	}
	void *p = realloc(ptr, size);
	if (p && !ptr)
		__atomic_fetch_add(&f->live, 1, __ATOMIC_RELAXED);
	return p;
}

const char *tracing_unavailable(void)
{
	if (geteuid() != 0)
		return "tracing needs root (tracefs control files are root's)";
	if (access("/sys/kernel/tracing/trace", F_OK) != 0)
		return "no tracefs at /sys/kernel/tracing (mount -t tracefs "
		       "nodev /sys/kernel/tracing)";
	int lock = open("/tmp/trawl-record-tests.lock", O_CREAT | O_RDWR, 0644);
	if (lock < 0 || flock(lock, LOCK_EX))
		return "cannot take /tmp/trawl-record-tests.lock";
	return NULL; /* lock stays open: released at exit */
}

int own_instance_left(void)
{
	char path[128];
	snprintf(path, sizeof(path), "/sys/kernel/tracing/instances/trawl-%ld",
		 (long)getpid());
	return access(path, F_OK) == 0;
}
