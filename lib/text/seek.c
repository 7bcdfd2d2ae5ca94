/* SPDX-License-Identifier: MIT */
/*
 * Entering a mapped text trace at a time (TRAWL_OPEN_RANGE): a binary
 * search on byte offsets, each probe taking the timestamp of the first
 * event line that starts at or after it. Text may be a little out of
 * order (per-CPU buffers read at different times), so the part read runs
 * from TRAWL_RANGE_TEXT_MARGIN before the range to as far after it; the
 * run's own order pre-scan and sort then work on that part alone.
 */
#include <string.h>

#include "text-int.h"

/* Lines a probe looks at for an event before it gives up. */
#define PROBE_LINES 256

/* Where the line holding byte off-1's successor starts: off itself at a
 * line's start, else just past the next newline (len: none). */
static size_t line_start(const char *map, size_t len, size_t off)
{
	if (off == 0)
		return 0;
	if (off >= len)
		return len;
	const char *nl = memchr(map + off - 1, '\n', len - off + 1);
	return nl ? (size_t)(nl - map) + 1 : len;
}

/* The time of the first event line at or after byte off; INT64_MAX when
 * there is none near (the search then looks earlier). */
static int64_t probe(const char *map, size_t len, size_t off)
{
	size_t at = line_start(map, len, off);
	for (int i = 0; i < PROBE_LINES && at < len; i++) {
		const char *nl = memchr(map + at, '\n', len - at);
		size_t end = nl ? (size_t)(nl - map) : len;
		size_t n = end - at;
		if (n <= TW_MAX_LINE) {
			tw_rec r;
			tw_line_info info = {0};
			if (tw_ftrace_ts(map + at, tw_line_trim_cr(map + at, n),
					 &r, &info) == TW_L_EVENT)
				return r.ts;
		}
		at = end + 1;
	}
	return INT64_MAX;
}

/* The first line start whose next event is at `t` or later. */
static size_t search(const char *map, size_t len, int64_t t)
{
	size_t lo = 0, hi = len;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (probe(map, len, mid) < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return line_start(map, len, lo);
}

int tw_text_seek_range(tw_input *in, int64_t from, int64_t to)
{
	size_t len;
	const char *map = tw_input_map(in, &len);
	if (!map)
		return -TRAWL_EUNSUPPORTED; /* read all and skip */
	int64_t lo = from > INT64_MIN + TRAWL_RANGE_TEXT_MARGIN
			     ? from - TRAWL_RANGE_TEXT_MARGIN
			     : INT64_MIN;
	int64_t hi = to < INT64_MAX - TRAWL_RANGE_TEXT_MARGIN
			     ? to + TRAWL_RANGE_TEXT_MARGIN + 1
			     : INT64_MAX;
	size_t start = lo == INT64_MIN ? 0 : search(map, len, lo);
	size_t end = hi == INT64_MAX ? len : search(map, len, hi);
	if (end < start)
		end = start;
	return tw_input_narrow(in, start, end);
}
