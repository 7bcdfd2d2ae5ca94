/* SPDX-License-Identifier: MIT */
/*
 * The viewer's HTTP server, on libmicrohttpd: static assets built into the
 * binary and the JSON API (view-api.c). Loopback is no security boundary
 * on its own (other local users, and web pages in the user's own browser,
 * can reach 127.0.0.1), so every answer first passes view_guard_check():
 * the Host header must name the address served (a DNS-rebinding page sends
 * its own name), every API request must carry the random token printed in
 * the URL (as Jupyter does), and no CORS header is ever sent, so other
 * origins cannot read answers. Requests are bounded: GET and HEAD only, no
 * body, the URL and headers within MHD's connection memory (larger ones get
 * 431 or 414), at most VIEW_MAX_PARAMS parameters of VIEW_MAX_VALUE bytes,
 * 64 connections.
 */
#include <arpa/inet.h>
#include <microhttpd.h>
#include <stdlib.h>
#include <string.h>

#include "view-http.h"

#define MAX_URL 2048

struct conn {
	int has_body;
};

static enum MHD_Result collect(void *cls, enum MHD_ValueKind kind,
			       const char *key, const char *value)
{
	(void)kind;
	view_params_add(cls, key, value);
	return MHD_YES;
}

static enum MHD_Result answer(struct MHD_Connection *c, int status,
			      const void *data, size_t len, const char *type,
			      int copy)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(
		len, (void *)data,
		copy ? MHD_RESPMEM_MUST_COPY : MHD_RESPMEM_PERSISTENT);
	if (!r)
		return MHD_NO;
	MHD_add_response_header(r, "Content-Type", type);
	MHD_add_response_header(r, "Cache-Control", "no-store");
	MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
	MHD_add_response_header(r, "X-Frame-Options", "DENY");
	MHD_add_response_header(r, "Referrer-Policy", "no-referrer");
	MHD_add_response_header(r, "Content-Security-Policy",
				"default-src 'self'; img-src 'self' data:; "
				"frame-ancestors 'none'");
	enum MHD_Result rc = MHD_queue_response(c, (unsigned)status, r);
	MHD_destroy_response(r);
	return rc;
}

static enum MHD_Result error(struct MHD_Connection *c, int status,
			     const char *why)
{
	struct cli_buf b = {0};
	buf_str(&b, "{\"error\":");
	buf_json(&b, why, strlen(why));
	buf_str(&b, "}\n");
	enum MHD_Result rc =
		b.oom ? MHD_NO
		      : answer(c, status, b.p, b.n, "application/json", 1);
	buf_free(&b);
	return rc;
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c,
			      const char *url, const char *method,
			      const char *version, const char *upload,
			      size_t *upload_size, void **con_cls)
{
	(void)version;
	(void)upload;
	struct view_server *s = cls;
	struct conn *st = *con_cls;
	if (!st) {
		st = calloc(1, sizeof(*st));
		if (!st)
			return MHD_NO;
		*con_cls = st;
		return MHD_YES;
	}
	if (*upload_size) {
		st->has_body = 1;
		*upload_size = 0;
		return MHD_YES;
	}
	if (strcmp(method, "GET") && strcmp(method, "HEAD"))
		return error(c, 405, "only GET and HEAD");
	if (st->has_body)
		return error(c, 413, "requests take no body");
	if (strlen(url) > MAX_URL)
		return error(c, 414, "the URL is too long");
	int is_api = !strncmp(url, "/api/", 5);
	const char *token =
		MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "token");
	if (!token)
		token = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
						    "X-Trawl-Token");
	const char *why = "";
	int refuse = view_guard_check(
		&s->guard,
		MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Host"), token,
		is_api, &why);
	if (refuse)
		return error(c, refuse, why);
	if (!is_api) {
		size_t len;
		const char *type;
		const unsigned char *a = view_asset(url, &len, &type);
		if (!a)
			return error(c, 404, "no such file");
		return answer(c, 200, a, len, type, 0);
	}
	struct view_params p = {0};
	MHD_get_connection_values(c, MHD_GET_ARGUMENT_KIND, collect, &p);
	struct cli_buf out = {0};
	pthread_rwlock_rdlock(&s->lock);
	int status = view_api(s->ix, url, &p, &out);
	pthread_rwlock_unlock(&s->lock);
	enum MHD_Result rc = out.oom ? error(c, 503, "out of memory")
				     : answer(c, status, out.p, out.n,
					      "application/json", 1);
	buf_free(&out);
	return rc;
}

static void done(void *cls, struct MHD_Connection *c, void **con_cls,
		 enum MHD_RequestTerminationCode toe)
{
	(void)cls;
	(void)c;
	(void)toe;
	free(*con_cls);
	*con_cls = NULL;
}

int view_server_start(struct view_server *s, const char *bind, int port,
		      const char **why)
{
	struct sockaddr_in a4 = {0};
	struct sockaddr_in6 a6 = {0};
	struct sockaddr *sa;
	unsigned flags =
		MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION;
	if (inet_pton(AF_INET, bind, &a4.sin_addr) == 1) {
		a4.sin_family = AF_INET;
		a4.sin_port = htons((uint16_t)port);
		sa = (struct sockaddr *)&a4;
	} else if (inet_pton(AF_INET6, bind, &a6.sin6_addr) == 1) {
		a6.sin6_family = AF_INET6;
		a6.sin6_port = htons((uint16_t)port);
		sa = (struct sockaddr *)&a6;
		flags |= MHD_USE_IPv6;
	} else {
		*why = "--bind takes an IPv4 or IPv6 address";
		return -1;
	}
	pthread_rwlock_init(&s->lock, NULL);
	s->daemon = MHD_start_daemon(
		flags, (uint16_t)port, NULL, NULL, handle, s,
		MHD_OPTION_SOCK_ADDR, sa, MHD_OPTION_NOTIFY_COMPLETED, done,
		NULL, MHD_OPTION_CONNECTION_LIMIT, (unsigned)64,
		MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)60,
		MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)(64 * 1024),
		MHD_OPTION_END);
	if (!s->daemon) {
		*why = "cannot listen there (is the port in use?)";
		return -1;
	}
	const union MHD_DaemonInfo *info =
		MHD_get_daemon_info(s->daemon, MHD_DAEMON_INFO_BIND_PORT);
	s->guard.port = info ? info->port : port;
	return 0;
}

void view_server_stop(struct view_server *s)
{
	if (s->daemon)
		MHD_stop_daemon(s->daemon);
	s->daemon = NULL;
}
