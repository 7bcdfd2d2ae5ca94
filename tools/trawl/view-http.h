/* SPDX-License-Identifier: MIT */
/*
 * trawl view's front end: the HTTP server (view-http.c, on civetweb) that
 * serves the page (view-assets.c) and passes the API's requests to the
 * library (trawl_timeline_query(), include/trawl/timeline.h) behind the
 * guard (view-guard.c); the options trawl view and trawl chart share
 * (cmd-view.c).
 */
#ifndef TRAWL_VIEW_HTTP_H
#define TRAWL_VIEW_HTTP_H

#include <pthread.h>

#include <trawl/trawl.h>

#include "cli.h"

/* What both commands take: the reading options, --irq-threshold and
 * --no-cache (cmd-view.c). */
struct view_cmd_opts {
	struct cli_input input;
	int64_t irq_threshold; /* 0: the library's 1 ms */
	int no_cache;
};

/* One of those options (opt: getopt_long's value). Return: 1 it was one
 * and is set, 0 it is none of them, -1 a bad value (said). */
int view_build_option(struct view_cmd_opts *o, int opt, const char *arg);

/* The trace's timeline, with the progress bar on a terminal; what went
 * wrong is said. Return: the exit status, *out the timeline on success. */
int view_cmd_open(const char *path, const struct view_cmd_opts *o,
		  trawl_timeline **out);

/* What the server checks before any answer (view-guard.c). */
struct view_guard {
	char token[33]; /* "" with --no-token */
	int port;
	const char *bind; /* the address bound */
};

/* Return: 0 when the request may go on, else the HTTP status to refuse
 * with, *why saying why (static). */
int view_guard_check(const struct view_guard *g, const char *host,
		     const char *token, int is_api, const char **why);

/* A static asset by path (view-assets.c): NULL when there is none. */
const unsigned char *view_asset(const char *path, size_t *len,
				const char **type);

struct mg_context;
struct view_call;

#define VIEW_API_THREADS 2

struct view_server {
	trawl_timeline *ix;
	struct view_guard guard;
	struct mg_context *ctx;
	int listen_fd; /* civetweb's listener, or -1 */
	/* requests read ix under it; --follow swaps ix under it */
	pthread_rwlock_t lock;
	/* API requests queued for the API threads, under mu */
	pthread_mutex_t mu;
	pthread_cond_t work, answered;
	struct view_call *queue;
	int stop, napi;
	pthread_t api[VIEW_API_THREADS];
	int serving; /* atomic: civetweb's messages are printed once set */
	char why[160];
};

/* Listen on bind:port (0: a free port, then in guard.port) and serve from
 * civetweb's threads, the API from VIEW_API_THREADS threads. Return: 0, or
 * -1 with *why (borrowed from s); stopped either way on -1. */
int view_server_start(struct view_server *s, const char *bind, int port,
		      const char **why);
void view_server_stop(struct view_server *s);

#endif
