/* SPDX-License-Identifier: MIT */
/* The viewer's HTTP server (view-http.c, on civetweb), behind cmd-view.c. */
#ifndef TRAWL_VIEW_HTTP_H
#define TRAWL_VIEW_HTTP_H

#include "view.h"

struct mg_context;
struct view_call;

#define VIEW_API_THREADS 2

struct view_server {
	struct view_index *ix;
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
