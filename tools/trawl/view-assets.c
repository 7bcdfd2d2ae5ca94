/* SPDX-License-Identifier: MIT */
/*
 * The viewer's page, script and style sheet, built into the binary
 * (tools/trawl/web, embedded by lib/formats/embed-blob.py's .incbin): the
 * server reads no file and fetches nothing, and only these three paths
 * exist, so no path can reach outside them.
 */
#include <string.h>

#include "view-http.h"

extern const unsigned char tw_view_html[];
extern const uint64_t tw_view_html_size;
extern const unsigned char tw_view_js[];
extern const uint64_t tw_view_js_size;
extern const unsigned char tw_view_css[];
extern const uint64_t tw_view_css_size;

const unsigned char *view_asset(const char *path, size_t *len,
				const char **type)
{
	if (!strcmp(path, "/") || !strcmp(path, "/index.html")) {
		*len = (size_t)tw_view_html_size;
		*type = "text/html; charset=utf-8";
		return tw_view_html;
	}
	if (!strcmp(path, "/app.js")) {
		*len = (size_t)tw_view_js_size;
		*type = "text/javascript; charset=utf-8";
		return tw_view_js;
	}
	if (!strcmp(path, "/app.css")) {
		*len = (size_t)tw_view_css_size;
		*type = "text/css; charset=utf-8";
		return tw_view_css;
	}
	return NULL;
}
