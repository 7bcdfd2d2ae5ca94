/* SPDX-License-Identifier: MIT */
/*
 * What every request must pass before the viewer answers it (view-http.c
 * calls it): the Host header names this server, so a page of another name
 * that a DNS rebinding pointed at 127.0.0.1 is refused; and an API request
 * carries the token printed in the URL. Pure, so fuzz-view runs it too.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "view-http.h"

static int host_is(const char *host, size_t n, const char *name, int port)
{
	char want[300];
	int k = snprintf(want, sizeof(want), "%s:%d", name, port);
	return k > 0 && (size_t)k == n && !strncasecmp(host, want, n);
}

int view_guard_check(const struct view_guard *g, const char *host,
		     const char *token, int is_api, const char **why)
{
	if (!host) {
		*why = "the request has no Host header";
		return 400;
	}
	size_t n = strlen(host);
	int ok = host_is(host, n, "127.0.0.1", g->port) ||
		 host_is(host, n, "localhost", g->port) ||
		 host_is(host, n, "[::1]", g->port);
	if (!ok && g->bind && *g->bind) {
		char b[300];
		if (strchr(g->bind, ':'))
			snprintf(b, sizeof(b), "[%s]", g->bind);
		else
			snprintf(b, sizeof(b), "%s", g->bind);
		ok = host_is(host, n, b, g->port);
		/* bound to every address: any IP literal is one of ours, a
		 * name is not (DNS rebinding) */
		if (!ok &&
		    (!strcmp(g->bind, "0.0.0.0") || !strcmp(g->bind, "::"))) {
			const char *colon = strrchr(host, ':');
			char addr[64];
			size_t len = colon ? (size_t)(colon - host) : n;
			if (len && len < sizeof(addr)) {
				memcpy(addr, host, len);
				addr[len] = '\0';
				unsigned char tmp[16];
				char *a = addr;
				if (a[0] == '[' && a[len - 1] == ']') {
					a[len - 1] = '\0';
					a++;
				}
				ok = colon &&
				     (inet_pton(AF_INET, a, tmp) == 1 ||
				      inet_pton(AF_INET6, a, tmp) == 1) &&
				     host_is(colon, strlen(colon), "", g->port);
			}
		}
	}
	if (!ok) {
		*why = "the Host header does not name this server";
		return 403;
	}
	if (is_api && g->token[0]) {
		/* compared in constant time */
		size_t want = strlen(g->token);
		unsigned diff = !token || strlen(token) != want;
		for (size_t i = 0; token && !diff && i < want; i++)
			diff |= (unsigned)(token[i] ^ g->token[i]);
		if (diff) {
			*why = "missing or wrong token (open the URL trawl "
			       "view printed)";
			return 403;
		}
	}
	return 0;
}
