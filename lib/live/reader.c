/* SPDX-License-Identifier: MIT */
/*
 * One CPU's reader: whole ring-buffer pages move from
 * per_cpu/cpuN/trace_pipe_raw into a pipe and on into a temporary file with
 * splice(2), so the trace never passes through user memory. The thread
 * sleeps in poll(); the kernel wakes it when the buffer is buffer_percent
 * full (50 by default), or the stop eventfd does, or a second passes. After
 * tracing stops, a final drain also takes the page the writer was on, which
 * splice refuses (it hands out only pages the writer has left): read(2)
 * gives it, partially filled, as trace-cmd's flush does. With a version 7
 * writer as the sink, pages go from the pipe into memory instead, to be
 * compressed and appended to the output as they come.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../core/core.h"
#include "live-int.h"

int tw_reader_init(tw_reader *r, const char *dir, int cpu, int out_fd,
		   int stop_fd, size_t page_size, trawl_error *err)
{
	char path[4096];
	memset(r, 0, sizeof(*r));
	r->poke_fd = -1;
	r->cpu = cpu;
	r->out_fd = out_fd;
	r->stop_fd = stop_fd;
	r->page_size = page_size;
	r->pipe_fd[0] = r->pipe_fd[1] = -1;
	tw_pathf(path, sizeof(path), "%s/per_cpu/cpu%d/trace_pipe_raw", dir,
		 cpu);
	r->raw_fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (r->raw_fd < 0)
		return tw_error_at(err, TRAWL_EENV, errno, NULL, 0, 0, 0,
				   "cannot open %s: %s", path, strerror(errno));
	if (pipe2(r->pipe_fd, O_CLOEXEC) < 0) {
		int e = errno;
		close(r->raw_fd);
		r->raw_fd = -1;
		return tw_error_at(err, TRAWL_EENV, e, NULL, 0, 0, 0,
				   "cannot create a pipe: %s", strerror(e));
	}
	/* A bigger pipe moves more pages per call; the default is 16. */
	int got = fcntl(r->pipe_fd[1], F_SETPIPE_SZ, 1 << 20);
	if (got < 0)
		got = fcntl(r->pipe_fd[1], F_GETPIPE_SZ);
	r->pipe_size = got > 0 ? (size_t)got : page_size * 16;
	r->pipe_size -= r->pipe_size % page_size;
	return 0;
}

static void fail(tw_reader *r, int e)
{
	/* Pairs with the acquire load in trawl_record_poll(). */
	__atomic_store_n(&r->error, e, __ATOMIC_RELEASE);
}

/* Pages to the version 7 writer, counted first, then to the live
 * consumer. */
static int to_sink(tw_reader *r, const char *p, size_t n)
{
	int rc = 0;
	if (r->sink) {
		uint64_t ev = 0;
		tw_pages_count_mem(p, n, r->page_size, &ev);
		r->events += ev;
		rc = tw_dat7_add(r->sink, r->cpu, p, n);
		if (rc == 0)
			r->saved += n;
	}
	if (rc == 0 && r->hooks)
		rc = r->hooks->emit(r->hooks->ctx, r->cpu, p, n);
	if (rc == 0)
		__atomic_add_fetch(&r->bytes, (uint64_t)n, __ATOMIC_RELAXED);
	return rc;
}

/* Pipe to the writer's memory: whole pages (splice moved whole pages). */
static int pipe_to_sink(tw_reader *r, size_t n)
{
	if (!r->buf && !(r->buf = tw_malloc(r->mem, r->pipe_size)))
		return -ENOMEM;
	while (n) {
		/* whole pages to the sink: the buffer is filled first */
		size_t want = n < r->pipe_size ? n : r->pipe_size, got = 0;
		while (got < want) {
			ssize_t k =
				read(r->pipe_fd[0], r->buf + got, want - got);
			if (k < 0 && errno == EINTR)
				continue;
			if (k <= 0)
				return k < 0 ? -errno : -EIO;
			got += (size_t)k;
		}
		int rc = to_sink(r, r->buf, want);
		if (rc < 0)
			return rc;
		n -= want;
	}
	return 0;
}

/* Pipe to file: everything that is in the pipe. */
static int flush_pipe(tw_reader *r, size_t n)
{
	if (r->sink || r->hooks)
		return pipe_to_sink(r, n);
	while (n) {
		ssize_t k = splice(r->pipe_fd[0], NULL, r->out_fd, NULL, n,
				   SPLICE_F_MOVE);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return k < 0 ? -errno : -EIO;
		n -= (size_t)k;
		__atomic_add_fetch(&r->bytes, (uint64_t)k, __ATOMIC_RELAXED);
	}
	return 0;
}

static int write_page(tw_reader *r, const char *page, size_t n)
{
	if (r->sink || r->hooks)
		return to_sink(r, page, n);
	while (n) {
		ssize_t k = write(r->out_fd, page, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return k < 0 ? -errno : -EIO;
		page += k;
		n -= (size_t)k;
		__atomic_add_fetch(&r->bytes, (uint64_t)k, __ATOMIC_RELAXED);
	}
	return 0;
}

int tw_reader_drain(tw_reader *r, int partial)
{
	int rc = 0;
	for (;;) {
		ssize_t k =
			splice(r->raw_fd, NULL, r->pipe_fd[1], NULL,
			       r->pipe_size, SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0 && errno != EAGAIN)
			rc = -errno;
		if (k <= 0)
			break;
		if ((rc = flush_pipe(r, (size_t)k)) < 0)
			break;
	}
	if (rc < 0 || partial == TW_DRAIN_FULL)
		goto out;
	char *page = tw_malloc(r->mem, r->page_size);
	if (!page)
		return -ENOMEM;
	/* While tracing, one read: each read gives what came since the
	 * last, and the reader's own system calls may be traced. */
	for (int reads = 0; partial == TW_DRAIN_ALL || reads < 1; reads++) {
		ssize_t k = read(r->raw_fd, page, r->page_size);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0 && errno != EAGAIN)
			rc = -errno;
		if (k <= 0)
			break;
		/* Pages in trace.dat are whole; read gives the page size. */
		if ((size_t)k < r->page_size)
			memset(page + k, 0, r->page_size - (size_t)k);
		if ((rc = write_page(r, page, r->page_size)) < 0)
			break;
	}
	tw_free(r->mem, page);
out:
	if (rc < 0)
		fail(r, -rc);
	return rc;
}

/*
 * Every few seconds the comms go into the file too (one reader does it),
 * so a killed recording names the tasks that started during it.
 */
static int comms(tw_reader *r)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	if (ts.tv_sec < r->comms_at)
		return 0;
	r->comms_at = ts.tv_sec + 3;
	size_t n = 0;
	char *s =
		tw_tracefs_read_mem(r->mem, r->comms_dir, "saved_cmdlines", &n);
	int rc = s ? tw_dat7_cmdlines(r->sink, s, n) : 0;
	tw_free(r->mem, s);
	return rc;
}

static void *run(void *arg)
{
	tw_reader *r = arg;
	struct pollfd p[2] = {{.fd = r->raw_fd, .events = POLLIN},
			      {.fd = r->stop_fd, .events = POLLIN}};
	for (;;) {
		int k = poll(p, 2, 1000);
		if (k < 0 && errno != EINTR) {
			fail(r, errno);
			break;
		}
		if (p[1].revents & POLLIN)
			break; /* the final drain is the stopper's */
		if (tw_reader_drain(r, 0) < 0)
			break;
		/* What came goes to disk within a second or so. */
		int rc = r->sink ? tw_dat7_sync(r->sink, r->cpu, 0) : 0;
		if (rc == 0 && r->sink && r->comms_dir)
			rc = comms(r);
		if (rc < 0) {
			fail(r, -rc);
			break;
		}
	}
	return NULL;
}

int64_t tw_mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/*
 * Live: the consumer wants pages as they come. Woken by the kernel
 * (buffer_percent), by the consumer (poke_fd: it waits for this CPU), or
 * every tick; each time everything the buffer holds is taken, the page
 * being written too, and the time just before is told: the buffer held
 * every event older than that. When told to stop (tracing is off by
 * then), the rest is taken and the CPU ends.
 */
static void *run_live(void *arg)
{
	tw_reader *r = arg;
	const tw_record_hooks *h = r->hooks;
	struct pollfd p[3] = {{.fd = r->stop_fd, .events = POLLIN},
			      {.fd = r->raw_fd, .events = POLLIN},
			      {.fd = r->poke_fd, .events = POLLIN}};
	int e = 0;
	for (int first = 1;; first = 0) {
		int k = first ? 0
			      : poll(p, r->poke_fd >= 0 ? 3 : 2, h->tick_ms);
		if (k < 0 && errno != EINTR) {
			fail(r, e = errno);
			break;
		}
		if (p[0].revents & POLLIN) {
			if (tw_reader_drain(r, TW_DRAIN_ALL) < 0)
				e = __atomic_load_n(&r->error,
						    __ATOMIC_ACQUIRE);
			break;
		}
		if (p[2].revents & POLLIN) {
			uint64_t n;
			if (read(r->poke_fd, &n, sizeof(n)) < 0) {
				/* taken by the next poll */
			}
		}
		int64_t before = tw_mono_ns();
		if (tw_reader_drain(r, TW_DRAIN_ONE) < 0) {
			e = __atomic_load_n(&r->error, __ATOMIC_ACQUIRE);
			break;
		}
		int rc = r->sink ? tw_dat7_sync(r->sink, r->cpu, 0) : 0;
		if (rc == 0 && r->sink && r->comms_dir)
			rc = comms(r);
		if (rc < 0) {
			fail(r, e = -rc);
			break;
		}
		h->caught_up(h->ctx, r->cpu, before);
	}
	h->ended(h->ctx, r->cpu, e);
	return NULL;
}

int tw_reader_start(tw_reader *r, trawl_error *err)
{
	int rc = pthread_create(&r->thread, NULL, r->hooks ? run_live : run, r);
	if (rc)
		return tw_error_at(err, TRAWL_EENV, rc, NULL, 0, 0, 0,
				   "cannot start the reader thread of CPU "
				   "%d: %s",
				   r->cpu, strerror(rc));
	r->running = 1;
	return 0;
}

void tw_reader_join(tw_reader *r)
{
	if (r->running)
		pthread_join(r->thread, NULL);
	r->running = 0;
}

void tw_reader_fini(tw_reader *r)
{
	tw_reader_join(r);
	if (r->raw_fd >= 0)
		close(r->raw_fd);
	if (r->pipe_fd[0] >= 0)
		close(r->pipe_fd[0]);
	if (r->pipe_fd[1] >= 0)
		close(r->pipe_fd[1]);
	r->raw_fd = r->pipe_fd[0] = r->pipe_fd[1] = -1;
	tw_free(r->mem, r->buf);
	r->buf = NULL;
}
