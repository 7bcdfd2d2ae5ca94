/* SPDX-License-Identifier: MIT */
/*
 * A writer thread for the exports: the thread that runs the trace hands it
 * full buffers and goes on building rows while write(2) copies them into
 * the page cache (a sixth of the CSV export's time, on the consumer's
 * thread, before; the merge ahead leaves room on the other core).
 *
 * One queue, one writer: writes and closes happen in the order they were
 * handed over, also across the files, so a file closed and reopened to
 * append gets its bytes in order. The queue is bounded (BGW_DEPTH buffers),
 * so memory does not grow when the disk is slower than the trace.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

/* Deep enough to ride out the file system's stalls: the Perfetto export
 * of big.dat took 1.64 s with 8 buffers queued, 1.50 s with 64 (4 MiB). */
#define BGW_DEPTH 64

struct bgw_job {
	int fd;
	int close; /* close fd after writing */
	struct cli_buf buf;
	const char *path; /* for the error message */
};

struct bg_writer {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t more, room;
	struct bgw_job q[BGW_DEPTH];
	size_t head, n;
	int done;
	/* buffers written, for reuse (at most BGW_DEPTH + 1 exist at once) */
	struct cli_buf spare[BGW_DEPTH];
	size_t nspare;
	/* the first failure: its errno and file */
	int err;
	const char *err_path;
};

static int write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? errno : EIO;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

static void *writer_main(void *arg)
{
	struct bg_writer *w = arg;
	pthread_mutex_lock(&w->lock);
	for (;;) {
		while (!w->n && !w->done)
			pthread_cond_wait(&w->more, &w->lock);
		if (!w->n)
			break;
		struct bgw_job job = w->q[w->head];
		pthread_mutex_unlock(&w->lock);
		int err = w->err ? 0 : write_all(job.fd, job.buf.p, job.buf.n);
		if (job.close && close(job.fd) && !err)
			err = errno;
		pthread_mutex_lock(&w->lock);
		if (err && !w->err)
			w->err = err, w->err_path = job.path;
		job.buf.n = 0;
		if (w->nspare < BGW_DEPTH)
			w->spare[w->nspare++] = job.buf;
		else
			buf_free(&job.buf);
		w->head = (w->head + 1) % BGW_DEPTH;
		w->n--;
		pthread_cond_signal(&w->room);
	}
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

struct bg_writer *bgw_start(void)
{
	struct bg_writer *w = calloc(1, sizeof(*w));
	if (!w)
		return NULL;
	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->more, NULL);
	pthread_cond_init(&w->room, NULL);
	if (pthread_create(&w->thread, NULL, writer_main, w)) {
		pthread_cond_destroy(&w->room);
		pthread_cond_destroy(&w->more);
		pthread_mutex_destroy(&w->lock);
		free(w);
		return NULL;
	}
	return w;
}

int bgw_error(struct bg_writer *w, const char **path)
{
	pthread_mutex_lock(&w->lock);
	int err = w->err;
	if (path)
		*path = w->err_path;
	pthread_mutex_unlock(&w->lock);
	return err;
}

int bgw_submit(struct bg_writer *w, int fd, int close_after,
	       struct cli_buf *buf, const char *path)
{
	if (buf->oom)
		return ENOMEM;
	pthread_mutex_lock(&w->lock);
	while (w->n == BGW_DEPTH)
		pthread_cond_wait(&w->room, &w->lock);
	w->q[(w->head + w->n) % BGW_DEPTH] = (struct bgw_job){
		.fd = fd, .close = close_after, .buf = *buf, .path = path};
	w->n++;
	/* the caller goes on with an emptied buffer of the same size */
	if (w->nspare)
		*buf = w->spare[--w->nspare];
	else
		*buf = (struct cli_buf){0};
	int err = w->err;
	pthread_cond_signal(&w->more);
	pthread_mutex_unlock(&w->lock);
	return err;
}

int bgw_finish(struct bg_writer *w, const char **path)
{
	pthread_mutex_lock(&w->lock);
	w->done = 1;
	pthread_cond_signal(&w->more);
	pthread_mutex_unlock(&w->lock);
	pthread_join(w->thread, NULL);
	int err = w->err;
	if (path)
		*path = w->err_path;
	for (size_t i = 0; i < w->nspare; i++)
		buf_free(&w->spare[i]);
	pthread_cond_destroy(&w->room);
	pthread_cond_destroy(&w->more);
	pthread_mutex_destroy(&w->lock);
	free(w);
	return err;
}
