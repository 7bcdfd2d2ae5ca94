/* SPDX-License-Identifier: MIT */
/* The viewer's HTTP server (view-http.c), behind cmd-view.c. */
#ifndef TRAWL_VIEW_HTTP_H
#define TRAWL_VIEW_HTTP_H

#include "view.h"

struct MHD_Daemon;

struct view_server {
	struct view_index *ix;
	struct view_guard guard;
	struct MHD_Daemon *daemon;
	/* requests read ix under it; --follow swaps ix under it */
	pthread_rwlock_t lock;
};

/* Listen on bind:port (0: a free port, then in guard.port) and serve from
 * a thread per connection. Return: 0, or -1 with *why. */
int view_server_start(struct view_server *s, const char *bind, int port,
		      const char **why);
void view_server_stop(struct view_server *s);

#endif
