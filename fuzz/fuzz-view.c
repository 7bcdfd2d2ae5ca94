/* SPDX-License-Identifier: MIT */
/*
 * trawl view's request handling and index, on arbitrary input.
 *
 * Input, first byte < 0x40: a request against an index of a small built-in
 * trace: byte 0 picks the API path, then a Host line, a token line, and the
 * rest is the query split at '&' and '=', as view-http.c splits it for
 * view_api() (the bytes stand for the decoded text). The guard and the
 * API run; the answer must be JSON with a status that fits, and an error
 * always says why.
 * First byte 0x40..0x7f: the rest is an index cache file (view-cache.c);
 * when it loads, it is read as below.
 * First byte >= 0x80: the rest is a trace text; the index is built from it
 * and every lane is read through windows at several widths and levels,
 * detail, search and analysis requests, checking that the columns add up
 * to the width.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../lib/view/view.h"
#include "../tools/trawl/view-http.h"
#include "fuzz-common.h"

#define FUZZ_ASSERT(c) FUZZ_CHECK(c, "%s", "")

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char base_trace[] =
	"  sh-10 [000] d..2. 100.000100: sched_switch: prev_comm=sh "
	"prev_pid=10 prev_prio=120 prev_state=S ==> next_comm=a next_pid=11 "
	"next_prio=120\n"
	"  a-11 [000] d..2. 100.000200: sched_waking: comm=sh pid=10 "
	"prio=120 target_cpu=001\n"
	"  <idle>-0 [001] d..2. 100.000300: sched_switch: prev_comm=swapper/1 "
	"prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=sh next_pid=10 "
	"next_prio=120\n"
	"  a-11 [000] d.h1. 100.000400: irq_handler_entry: irq=5 name=eth0\n"
	"  a-11 [000] d.h1. 100.002400: irq_handler_exit: irq=5 ret=handled\n"
	"  a-11 [000] ..s1. 100.002500: softirq_entry: vec=1 [action=TIMER]\n"
	"  a-11 [000] ..s1. 100.002600: softirq_exit: vec=1 [action=TIMER]\n"
	"  a-11 [000] ...1. 100.002700: tracing_mark_write: B|11|work\n"
	"  a-11 [000] ...1. 100.002800: tracing_mark_write: C|11|depth|3\n"
	"  a-11 [000] ...1. 100.002900: tracing_mark_write: S|11|load|7\n"
	"  a-11 [000] ...1. 100.003000: tracing_mark_write: hello\n"
	"  a-11 [000] ...1. 100.003100: tracing_mark_write: F|11|load|7\n"
	"  a-11 [000] ...1. 100.003200: tracing_mark_write: E|11\n"
	"  kworker-12 [001] ..... 100.003300: workqueue_execute_start: "
	"work struct 0000000012345678: function vmstat_update\n"
	"  kworker-12 [001] ..... 100.003400: workqueue_execute_end: "
	"work struct 0000000012345678: function vmstat_update\n"
	"  <idle>-0 [001] d..2. 100.003500: cpu_frequency: state=1200000 "
	"cpu_id=1\n"
	"  sh-10 [001] d..2. 100.004000: sched_switch: prev_comm=sh "
	"prev_pid=10 prev_prio=120 prev_state=D ==> next_comm=swapper/1 "
	"next_pid=0 next_prio=120\n";

static struct view_index *base;

/* An index of text, read from a memfd (kept open in *fd while the index
 * lives: fields are read again from its path). */
static struct view_index *index_of(const char *text, size_t n, int *fd)
{
	*fd = memfd_create("fuzz-view", 0);
	if (*fd < 0)
		return NULL;
	if (write(*fd, text, n) != (ssize_t)n) {
		close(*fd);
		return NULL;
	}
	char path[64];
	snprintf(path, sizeof(path), "/proc/self/fd/%d", *fd);
	struct view_build_opts o = {.open = {.threads = 1, .formats = "none"},
				    .no_cache = 1};
	struct view_index *ix = NULL;
	trawl_error err;
	view_index_build(path, &o, &ix, &err);
	if (!ix)
		close(*fd);
	return ix;
}

static const char *const paths[] = {
	"/api/info",	 "/api/window",	 "/api/detail", "/api/search",
	"/api/analysis", "/api/nothing", "/api/events", "/api/summary",
};

static void run(struct view_index *ix, const char *path,
		const struct view_params *p)
{
	struct view_out out = {0};
	int status = view_api(ix, path, p, &out);
	FUZZ_ASSERT(status == 200 || status == 400 || status == 404 ||
		    status == 503);
	FUZZ_ASSERT(out.n > 0 && out.p[0] == '{' && out.p[out.n - 1] == '\n');
	if (status != 200)
		FUZZ_ASSERT(out.n > 12 && !memcmp(out.p, "{\"error\":\"", 10) &&
			    out.p[10] != '"');
	vo_free(&out);
}

static void request(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	if (!s)
		return;
	memcpy(s, data, size);
	s[size] = '\0';
	const char *path =
		paths[(unsigned char)s[0] % (sizeof(paths) / sizeof(*paths))];
	char *host = s + 1, *token = strchr(host, '\n'), *query = NULL;
	if (token) {
		*token++ = '\0';
		query = strchr(token, '\n');
		if (query)
			*query++ = '\0';
	}
	struct view_guard g = {.port = 8000, .bind = "0.0.0.0"};
	memcpy(g.token, "0123456789abcdef0123456789abcdef", 33);
	const char *why = NULL;
	int refuse = view_guard_check(&g, *host ? host : NULL, token, 1, &why);
	FUZZ_ASSERT(refuse == 0 || ((refuse == 400 || refuse == 403) && why));
	struct view_params p = {0};
	for (char *q = query; q && *q;) {
		char *amp = strchr(q, '&');
		if (amp)
			*amp = '\0';
		char *eq = strchr(q, '=');
		if (eq)
			*eq = '\0';
		view_params_add(&p, q, eq ? eq + 1 : "");
		q = amp ? amp + 1 : NULL;
	}
	run(base, path, &p);
	free(s);
}

static void whole(struct view_index *ix)
{
	struct view_col cols[64];
	for (size_t i = 0; i < ix->nlanes; i++) {
		const struct view_lane *l = &ix->lanes[i];
		for (int level = -2; level < l->nlevels; level++) {
			for (int width = 1; width <= 64; width *= 4) {
				int64_t from = ix->first - 5, to = ix->last + 7;
				int used = view_window(ix, l, from, to, width,
						       level, cols);
				FUZZ_ASSERT(used >= -1 && used < l->nlevels);
				for (int c = 0; c < width; c++)
					FUZZ_ASSERT(l->kind ==
							    VIEW_LANE_COUNTER ||
						    cols[c].busy <= 65535);
			}
		}
		char lane[24], t[24];
		snprintf(lane, sizeof(lane), "%zu", i);
		snprintf(t, sizeof(t), "%lld",
			 (long long)(ix->first / 2 + ix->last / 2));
		struct view_params p = {0};
		view_params_add(&p, "lane", lane);
		view_params_add(&p, "t", t);
		view_params_add(&p, "tol", "1000");
		run(ix, "/api/detail", &p);
	}
	struct view_params none = {0}, q = {0};
	run(ix, "/api/info", &none);
	run(ix, "/api/analysis", &none);
	view_params_add(&q, "q", "a");
	run(ix, "/api/search", &q);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int base_fd;
	if (!base) {
		/* keep nothing that can be read back, checkpoints every 7
		 * events: every window and click of a fuzzed trace is then a
		 * ranged read of it (view-replay.c); lanes spill to the spill
		 * file in 64-byte segments while indexing (view-spill.c) */
		setenv("TRAWL_VIEW_BUDGET", "0", 1);
		setenv("TRAWL_VIEW_CHECK_EVENTS", "7", 1);
		setenv("TRAWL_VIEW_SPILL_SEGMENT", "64", 1);
		base = index_of(base_trace, sizeof(base_trace) - 1, &base_fd);
		FUZZ_ASSERT(base);
	}
	if (!size)
		return 0;
	if (data[0] < 0x40) {
		request(data, size);
		return 0;
	}
	if (data[0] < 0x80) {
		int fd = memfd_create("fuzz-view-cache", 0);
		if (fd < 0)
			return 0;
		if (write(fd, data + 1, size - 1) == (ssize_t)(size - 1)) {
			char path[64];
			snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
			struct view_index *ix = view_cache_load(path, path);
			if (ix) {
				whole(ix);
				view_index_free(ix);
			}
		}
		close(fd);
		return 0;
	}
	int fd;
	struct view_index *ix = index_of((const char *)data + 1, size - 1, &fd);
	if (ix) {
		whole(ix);
		view_index_free(ix);
		close(fd);
	}
	return 0;
}
