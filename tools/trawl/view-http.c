/* SPDX-License-Identifier: MIT */
/*
 * The viewer's HTTP server, on civetweb (libc only: no TLS libraries in
 * the server's memory): static assets built into the binary and the JSON
 * API (view-api.c). Loopback is no security boundary on its own (other
 * local users, and web pages in the user's own browser, can reach
 * 127.0.0.1), so every answer first passes view_guard_check(): the Host
 * header must name the address served (a DNS-rebinding page sends its own
 * name), every API request must carry the random token printed in the URL
 * (as Jupyter does), and no CORS header is ever sent, so other origins
 * cannot read answers. Every request is answered in begin_request (civetweb
 * has no document root and never reaches its own file, CGI or CORS code);
 * the errors civetweb finds itself come back as JSON through http_error.
 * Requests are bounded: GET and HEAD only, no body, request line and
 * headers within 64 KiB (more: 400), the path within 2048 bytes (414), at
 * most VIEW_MAX_PARAMS parameters of VIEW_MAX_VALUE bytes, 64 connections
 * (VIEW_WORKERS served at once, the others queued), VIEW_API_THREADS
 * API requests answered at once.
 */
#include <arpa/inet.h>
#include <civetweb.h>
#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include "view-http.h"

#define MAX_URL 2048
/* civetweb's threads serving connections, and connections accepted and
 * waiting for one: 64 in all, as many as the server holds at once. A
 * worker costs its stack and a malloc arena once it served: with 16, one
 * client's 12 windows of big.dat left 1.8 MB more anonymous RSS than 8. */
#define VIEW_WORKERS "8"
#define VIEW_QUEUE   "56"

static const char *const security[][2] = {
	{"Cache-Control", "no-store"},
	{"X-Content-Type-Options", "nosniff"},
	{"X-Frame-Options", "DENY"},
	{"Referrer-Policy", "no-referrer"},
	{"Content-Security-Policy", "default-src 'self'; img-src 'self' data:; "
				    "frame-ancestors 'none'"},
};

/* Send status, the headers and (not for HEAD) data. Return: status, for
 * civetweb's begin_request (1..999: answered). */
static int answer(struct mg_connection *c, int status, const void *data,
		  size_t len, const char *type)
{
	const struct mg_request_info *ri = mg_get_request_info(c);
	char n[24];
	if (mg_response_header_start(c, status))
		return status; /* something was sent already */
	mg_response_header_add(c, "Content-Type", type, -1);
	snprintf(n, sizeof(n), "%zu", len);
	mg_response_header_add(c, "Content-Length", n, -1);
	for (size_t i = 0; i < sizeof(security) / sizeof(security[0]); i++)
		mg_response_header_add(c, security[i][0], security[i][1], -1);
	if (status == 405)
		mg_response_header_add(c, "Allow", "GET, HEAD", -1);
	mg_response_header_send(c);
	if (len && !(ri->request_method && !strcmp(ri->request_method, "HEAD")))
		mg_write(c, data, len);
	return status;
}

static int error(struct mg_connection *c, int status, const char *why)
{
	struct cli_buf b = {0};
	buf_str(&b, "{\"error\":");
	buf_json(&b, why, strlen(why));
	buf_str(&b, "}\n");
	if (b.oom)
		answer(c, 503, "{\"error\":\"out of memory\"}\n", 26,
		       "application/json");
	else
		answer(c, status, b.p, b.n, "application/json");
	buf_free(&b);
	return status;
}

/* civetweb refused the request before begin_request: the same JSON as
 * ours, never its text page. Request line and headers over its buffer
 * (64 KiB) come as 400 "Malformed message" in civetweb 1.15 (413 in its
 * code is never reached), like a control character or a request cut off.
 * Return: 0, answered. */
static int refused(struct mg_connection *c, int status, const char *msg)
{
	const char *why = msg;
	switch (status) {
	case 400:
		why = "malformed request, or request line and headers over 64 "
		      "KiB";
		break;
	case 411:
		why = "bad Content-Length";
		break;
	case 413:
		why = "request line and headers over 64 KiB";
		break;
	case 505:
		why = "only HTTP/1.0 and HTTP/1.1";
		break;
	}
	error(c, status, why);
	return 0;
}

/* Decode %XX and '+' in place (a '%' not followed by two hex digits stays,
 * as the server has always left it). */
static void unescape(char *s)
{
	char *o = s;
	for (; *s; s++) {
		if (*s == '%' && isxdigit((unsigned char)s[1]) &&
		    isxdigit((unsigned char)s[2])) {
			char h[3] = {s[1], s[2], '\0'};
			*o++ = (char)strtol(h, NULL, 16);
			s += 2;
		} else {
			*o++ = *s == '+' ? ' ' : *s;
		}
	}
	*o = '\0';
}

/* The query split into p, its strings in q (a copy the caller frees):
 * '&' separates, the first '=' ends the key, a key without '=' has no
 * value, an empty part is an empty key, a trailing '&' adds nothing (as
 * the server has always split it). Return: the first token's value (NULL
 * for none, or a token without '='), also past VIEW_MAX_PARAMS (too many
 * parameters are the API's 400). */
/* The API takes at most 16 parameters: one more is kept, to be refused. */
#define MAX_PARAMS 17
struct params {
	const char *key[MAX_PARAMS], *val[MAX_PARAMS];
	size_t n;
};

static const char *split(char *q, struct params *p)
{
	const char *token = NULL;
	int seen = 0;
	while (q && *q) {
		char *amp = strchr(q, '&');
		if (amp)
			*amp++ = '\0';
		char *eq = strchr(q, '=');
		if (eq)
			*eq++ = '\0';
		unescape(q);
		if (eq)
			unescape(eq);
		if (p->n < MAX_PARAMS) {
			p->key[p->n] = q;
			p->val[p->n++] = eq ? eq : "";
		}
		if (!seen && !strcmp(q, "token")) {
			seen = 1;
			token = eq;
		}
		q = amp;
	}
	return token;
}

/*
 * API requests run on VIEW_API_THREADS threads of their own, with the
 * default stack (8 MiB here, as the server's threads had before civetweb):
 * civetweb's threads have the 100 KiB its build gives them
 * (USE_STACK_SIZE), and a window read back from the trace goes through
 * the readers, libtraceevent and the print-format parser's recursion, more
 * than that under ASan. Long-lived threads, not one per request: glibc
 * hands new threads its arenas in turn once civetweb's workers hold one
 * each, and every arena keeps what a read-back used (16 clients' 192
 * windows of big.dat left 6 to 34 MB of anonymous RSS with a thread per
 * request, 10 MB with two API threads).
 */
struct view_call {
	const char *url;
	const struct params *p;
	char *body;
	size_t len;
	int status;
	int done;
	struct view_call *next;
};

static void *api_main(void *arg)
{
	struct view_server *s = arg;
	pthread_mutex_lock(&s->mu);
	for (;;) {
		while (!s->queue && !s->stop)
			pthread_cond_wait(&s->work, &s->mu);
		struct view_call *a = s->queue;
		if (!a)
			break;
		s->queue = a->next;
		pthread_mutex_unlock(&s->mu);
		pthread_rwlock_rdlock(&s->lock);
		a->status = trawl_timeline_query(s->ix, a->url, a->p->key,
						 a->p->val, a->p->n, &a->body,
						 &a->len);
		pthread_rwlock_unlock(&s->lock);
		pthread_mutex_lock(&s->mu);
		a->done = 1;
		pthread_cond_broadcast(&s->answered);
	}
	pthread_mutex_unlock(&s->mu);
	return NULL;
}

/* Queue a, wait for its answer (FIFO: none waits behind later ones). */
static void api_run(struct view_server *s, struct view_call *a)
{
	pthread_mutex_lock(&s->mu);
	struct view_call **at = &s->queue;
	while (*at)
		at = &(*at)->next;
	*at = a;
	pthread_cond_signal(&s->work);
	while (!a->done)
		pthread_cond_wait(&s->answered, &s->mu);
	pthread_mutex_unlock(&s->mu);
}

static int handle(struct mg_connection *c)
{
	const struct mg_request_info *ri = mg_get_request_info(c);
	struct view_server *s = ri->user_data;
	const char *m = ri->request_method;
	if (strcmp(m, "GET") && strcmp(m, "HEAD"))
		return error(c, 405, "only GET and HEAD");
	/* chunked: a body only if a chunk comes before the last (empty) one */
	const char *te = mg_get_header(c, "Transfer-Encoding");
	char byte;
	if (ri->content_length > 0 ||
	    (te && strcasecmp(te, "identity") && mg_read(c, &byte, 1) > 0))
		return error(c, 413, "requests take no body");
	/* decoded, its dot segments left (ri->local_uri has them removed) */
	const char *url = ri->local_uri_raw;
	if (strlen(url) > MAX_URL)
		return error(c, 414, "the URL is too long");
	int is_api = !strncmp(url, "/api/", 5);
	struct params p = {.n = 0};
	char *q = ri->query_string ? strdup(ri->query_string) : NULL;
	if (ri->query_string && !q)
		return error(c, 503, "out of memory");
	const char *token = split(q, &p);
	if (!token)
		token = mg_get_header(c, "X-Trawl-Token");
	const char *why = "";
	int status = view_guard_check(&s->guard, mg_get_header(c, "Host"),
				      token, is_api, &why);
	if (status) {
		error(c, status, why);
	} else if (!is_api) {
		size_t len;
		const char *type;
		const unsigned char *a = view_asset(url, &len, &type);
		status = a ? answer(c, 200, a, len, type)
			   : error(c, 404, "no such file");
	} else {
		struct view_call a = {.url = url, .p = &p};
		api_run(s, &a);
		status = !a.body ? error(c, 503, "out of memory")
				 : answer(c, a.status, a.body, a.len,
					  "application/json");
		free(a.body);
	}
	free(q);
	return status;
}

/* civetweb's own messages: none while it starts (mg_start2 gives the
 * reason), then one line each (out of memory, no thread, a failed
 * socket call); it logs nothing about clients. Return: 1, logged. */
static int log_message(const struct mg_connection *c, const char *msg)
{
	const struct view_server *s = mg_get_user_data(mg_get_context(c));
	if (s && __atomic_load_n(&s->serving, __ATOMIC_ACQUIRE))
		cli_error("view server: %s", msg);
	return 1;
}

/* The descriptor of the listening socket of family on port: civetweb's
 * (it has no call that gives it), or -1. */
static int listener(int family, int port)
{
	int found = -1;
	DIR *d = opendir("/proc/self/fd");
	for (struct dirent *e; d && (e = readdir(d));) {
		int n = atoi(e->d_name), acc = 0;
		struct sockaddr_storage a;
		socklen_t alen = sizeof(a), acclen = sizeof(acc);
		if (n == dirfd(d) ||
		    getsockname(n, (struct sockaddr *)&a, &alen) ||
		    a.ss_family != family)
			continue;
		int p = family == AF_INET
				? ntohs(((struct sockaddr_in *)&a)->sin_port)
				: ntohs(((struct sockaddr_in6 *)&a)->sin6_port);
		if (p == port &&
		    !getsockopt(n, SOL_SOCKET, SO_ACCEPTCONN, &acc, &acclen) &&
		    acc)
			found = n;
	}
	if (d)
		closedir(d);
	return found;
}

/*
 * Debian 12's civetweb is built without IPv6. So it listens on an IPv4
 * loopback port of its own and this IPv6 socket takes that listener's
 * file descriptor (dup3): civetweb's accept loop takes the descriptor from
 * its list on every poll round and accepts whatever socket it is (an IPv6
 * peer address it only truncates). The port is then this socket's.
 * Return: the descriptor, or -1 with why.
 */
static int listen6(struct mg_context *ctx, const struct sockaddr_in6 *a6,
		   int *port, char *why, size_t nwhy)
{
	struct mg_server_port sp;
	struct sockaddr_in6 got;
	socklen_t len = sizeof(got);
	int on = 1, target = -1;
	int fd =
		socket(AF_INET6, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on)) ||
	    setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &on, sizeof(on)) ||
	    bind(fd, (const struct sockaddr *)a6, sizeof(*a6)) ||
	    listen(fd, 200) || getsockname(fd, (struct sockaddr *)&got, &len)) {
		snprintf(why, nwhy, "cannot listen there: %m");
		goto out;
	}
	if (mg_get_server_ports(ctx, 1, &sp) == 1)
		target = listener(AF_INET, sp.port);
	if (target < 0 || dup3(fd, target, O_CLOEXEC) < 0) {
		snprintf(why, nwhy,
			 "cannot listen there: civetweb has no "
			 "IPv6 and its listener was not found");
		target = -1;
	} else {
		*port = ntohs(got.sin6_port);
	}
out:
	if (fd >= 0)
		close(fd);
	return target;
}

int view_server_start(struct view_server *s, const char *bind, int port,
		      const char **why)
{
	struct sockaddr_in6 a6 = {0};
	struct in_addr a4;
	char ports[80];
	int take6 = 0;
	if (inet_pton(AF_INET, bind, &a4) == 1) {
		snprintf(ports, sizeof(ports), "%s:%d", bind, port);
	} else if (inet_pton(AF_INET6, bind, &a6.sin6_addr) == 1) {
		a6.sin6_family = AF_INET6;
		a6.sin6_port = htons((uint16_t)port);
		take6 = !mg_check_feature(MG_FEATURES_IPV6);
		if (take6)
			snprintf(ports, sizeof(ports), "127.0.0.1:0");
		else
			snprintf(ports, sizeof(ports), "[%s]:%d", bind, port);
	} else {
		*why = "--bind takes an IPv4 or IPv6 address";
		return -1;
	}
	/* no document_root: civetweb has no files to serve */
	/* clang-format off */
	const char *opts[] = {
		"listening_ports", ports,
		"num_threads", VIEW_WORKERS,
		"connection_queue", VIEW_QUEUE,
		"max_request_size", "65536",
		"request_timeout_ms", "60000",
		"enable_keep_alive", "yes",
		"keep_alive_timeout_ms", "500",
		"enable_directory_listing", "no",
		"access_control_allow_origin", "",
		NULL,
	};
	/* clang-format on */
	struct mg_callbacks cb = {
		.begin_request = handle,
		.http_error = refused,
		.log_message = log_message,
	};
	struct mg_init_data init = {.callbacks = &cb,
				    .user_data = s,
				    .configuration_options = opts};
	struct mg_error_data err = {.text = s->why,
				    .text_buffer_size = sizeof(s->why)};
	pthread_rwlock_init(&s->lock, NULL);
	pthread_mutex_init(&s->mu, NULL);
	pthread_cond_init(&s->work, NULL);
	pthread_cond_init(&s->answered, NULL);
	/* before civetweb's workers, which would hold the arenas they free */
	while (s->napi < VIEW_API_THREADS &&
	       !pthread_create(&s->api[s->napi], NULL, api_main, s))
		s->napi++;
	if (!s->napi) {
		*why = "cannot start a thread";
		return -1;
	}
	mg_init_library(0);
	s->ctx = mg_start2(&init, &err);
	if (!s->ctx) {
		view_server_stop(s);
		/* civetweb 1.15 names no reason for a port it cannot bind */
		*why = s->why[0] && !strstr(s->why, "server ports")
			       ? s->why
			       : "cannot listen there (is the port in use?)";
		return -1;
	}
	struct mg_server_port sp;
	if (take6) {
		s->listen_fd = listen6(s->ctx, &a6, &s->guard.port, s->why,
				       sizeof(s->why));
		if (s->listen_fd < 0) {
			view_server_stop(s);
			*why = s->why;
			return -1;
		}
	} else {
		s->guard.port = mg_get_server_ports(s->ctx, 1, &sp) == 1
					? sp.port
					: port;
		s->listen_fd = listener(strchr(bind, ':') ? AF_INET6 : AF_INET,
					s->guard.port);
	}
	__atomic_store_n(&s->serving, 1, __ATOMIC_RELEASE);
	return 0;
}

void view_server_stop(struct view_server *s)
{
	if (s->ctx) {
		__atomic_store_n(&s->serving, 0, __ATOMIC_RELEASE);
		/* civetweb polls its listener 2 s at a time before it looks at
		 * its stop flag: a listener shut down wakes it (it accepts
		 * nothing more, and closes the descriptor itself) */
		if (s->listen_fd >= 0)
			shutdown(s->listen_fd, SHUT_RDWR);
		mg_stop(s->ctx);
	}
	mg_exit_library();
	s->ctx = NULL;
	/* no request is left: the API threads end */
	pthread_mutex_lock(&s->mu);
	s->stop = 1;
	pthread_cond_broadcast(&s->work);
	pthread_mutex_unlock(&s->mu);
	while (s->napi)
		pthread_join(s->api[--s->napi], NULL);
}
