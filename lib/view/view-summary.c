/* SPDX-License-Identifier: MIT */
/*
 * The viewer's trace info page: what the indexing pass saw of the trace,
 * as `trawl stats --json` says it (format, compression, events by type
 * and by CPU, lost events per CPU, bad lines, reordered events), made
 * once after the pass and kept with the index (and its cache).
 */
#include <stdlib.h>
#include <string.h>

#include "view.h"

static void key_u64(struct view_out *b, const char *key, uint64_t v)
{
	vo_char(b, '"');
	vo_str(b, key);
	vo_str(b, "\":");
	vo_u64(b, v);
}

char *view_summary_json(trawl_trace *t)
{
	const trawl_stats *st = trawl_trace_stats(t);
	struct view_out b = {0};
	vo_str(&b, "{\"format\":\"");
	vo_str(&b, trawl_format_name(trawl_format(t)));
	vo_str(&b, "\",\"compression\":\"");
	vo_str(&b, trawl_compression(t));
	vo_str(&b, "\",");
	key_u64(&b, "total_events", st->events);
	vo_str(&b, ",\"events\":{");
	int first = 1;
	for (uint32_t i = 0; i < trawl_type_count(t); i++) {
		if (!trawl_type_events(t, i))
			continue;
		if (!first)
			vo_char(&b, ',');
		first = 0;
		const char *n = trawl_type_name(t, i);
		vo_json(&b, n, strlen(n));
		vo_char(&b, ':');
		vo_u64(&b, trawl_type_events(t, i));
	}
	vo_str(&b, "},\"cpus\":{");
	first = 1;
	for (int c = 0; c < trawl_cpu_count(t); c++) {
		uint64_t ev = trawl_cpu_events(t, c),
			 lost = trawl_cpu_lost(t, c);
		if (!ev && !lost)
			continue;
		if (!first)
			vo_char(&b, ',');
		first = 0;
		vo_char(&b, '"');
		vo_u64(&b, (uint64_t)c);
		vo_str(&b, "\":{");
		key_u64(&b, "events", ev);
		vo_char(&b, ',');
		key_u64(&b, "lost_events", lost);
		vo_char(&b, '}');
	}
	vo_str(&b, "},");
	key_u64(&b, "lost_events", st->lost_events);
	vo_char(&b, ',');
	key_u64(&b, "overwritten_events", st->overwritten);
	vo_char(&b, ',');
	key_u64(&b, "bad_lines", st->bad_lines);
	vo_char(&b, ',');
	key_u64(&b, "reordered_events", st->reordered);
	vo_char(&b, ',');
	key_u64(&b, "data_bytes", trawl_data_bytes(t));
	vo_str(&b, "}");
	vo_char(&b, '\0');
	if (b.oom) {
		free(b.p);
		return NULL;
	}
	return b.p;
}
